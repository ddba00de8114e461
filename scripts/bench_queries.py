#!/usr/bin/env python3
"""Query sets of chosen lengths, cut from half of Swiss-Prot (every 2nd record of
the 2014_01 file, the database scripts/gpu.sh packs as sprot_half): each query is
a whole record of that half, so the database holds the query itself.

    python3 scripts/bench_queries.py ../shared/data/sprot_201401_metastudent.fasta.gz benches/queries

writes long.fasta (5,030-35,213 residues: self hits beyond 16 bits),
lengths.fasta (5 to 35,000 residues, about evenly on a log scale) and
short.fasta (5 to 256 residues, closely spaced). For each
target length it takes the record of the half closest to it (only the 20
standard letters, ties to the first), never the same record twice."""
import gzip
import sys

# Past 8,515 residues the half has few records of standard letters only
# (10,421 twice, 10,624, 11,103, 18,141, 34,350, 35,213): the long set takes
# lengths that exist.
LONG = [5030, 6061, 7031, 8081, 8515, 10421, 10624, 11103, 18141, 34350, 35213]
LENGTHS = [5, 8, 12, 20, 32, 50, 80, 128, 200, 320, 500, 800, 1300, 2000, 3200,
           5030, 8081, 11103, 18141, 35213]
# Where one mapping hands over to the other for short queries: every few residues.
SHORT = [5, 8, 10, 12, 14, 16, 20, 24, 28, 32, 40, 48, 56, 64, 72, 80, 96, 112, 128,
         160, 200, 256]
STANDARD = set("ACDEFGHIKLMNPQRSTVWY")


def records(path):
    header, seq = None, []
    with gzip.open(path, "rt") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith(">"):
                if header is not None:
                    yield header, "".join(seq)
                header, seq = line, []
            else:
                seq.append(line.strip())
    if header is not None:
        yield header, "".join(seq)


def pick(half, targets):
    taken, out = set(), []
    for target in targets:
        best = min((abs(len(s) - target), k) for k, (h, s) in enumerate(half)
                   if k not in taken and set(s) <= STANDARD)
        taken.add(best[1])
        out.append(half[best[1]])
    return out


def write(path, chosen):
    with open(path, "w") as f:
        for header, seq in chosen:
            f.write(header + "\n")
            for i in range(0, len(seq), 60):
                f.write(seq[i:i + 60] + "\n")


def main():
    source, folder = sys.argv[1], sys.argv[2]
    # Every 2nd record, as scripts/gpu.sh's `awk '/^>/ { n++ } n % 2 == 1'`.
    half = [r for n, r in enumerate(records(source), start=1) if n % 2 == 1]
    for name, targets in [("long.fasta", LONG), ("lengths.fasta", LENGTHS),
                          ("short.fasta", SHORT)]:
        chosen = pick(half, targets)
        write(f"{folder}/{name}", chosen)
        print(name, [len(s) for _, s in chosen])


if __name__ == "__main__":
    main()
