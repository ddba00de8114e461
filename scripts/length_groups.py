#!/usr/bin/env python3
"""Cuts gpu-pairAlign's length groups (Blazewicz 2011, Tables 3-4: sets of 800-12000
sequences of average length 51, 154, 257, 459, 608 and 1103) from a Swiss-Prot
FASTA(.gz): for each group of average L, N sequences drawn at random (fixed
seed) in mirrored pairs, one of length L - d (d up to 20 % of L) and one of
the nearest length to L + d, so that the set's mean is L.

    length_groups.py SPROT.fasta.gz OUTDIR

writes OUTDIR/sprot_len{L}_n{N}.fasta and prints each set's real mean length.
"""
import gzip
import random
import sys
from pathlib import Path

# (average length, sequences): one set per group of gpu-pairAlign's Table 3.
GROUPS = [(51, 4000), (154, 4000), (257, 4000), (459, 4000), (608, 1600), (1103, 1600)]


def records(path):
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt") as f:
        name, seq = None, []
        for line in f:
            if line.startswith(">"):
                if name is not None:
                    yield name, "".join(seq)
                name, seq = line[1:].strip(), []
            else:
                seq.append(line.strip())
        if name is not None:
            yield name, "".join(seq)


def main():
    source, out = Path(sys.argv[1]), Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    every = list(records(source))
    rng = random.Random(3)
    by_length = {}
    for r in every:
        by_length.setdefault(len(r[1]), []).append(r)
    for length, count in GROUPS:
        lower = [r for r in every if 0.8 * length <= len(r[1]) <= length]
        if len(lower) < count - count // 2:
            sys.exit(f"only {len(lower)} sequences of {0.8 * length:.0f}-{length} residues, {count - count // 2} wanted")
        drawn = rng.sample(lower, count // 2)
        chosen, used = [], {r[0] for r in drawn}
        for r in drawn:
            chosen.append(r)
            # The mirror: a sequence of the nearest length to 2L - len(r) not used yet.
            target = 2 * length - len(r[1])
            for d in range(0, length):
                cands = [m for n in (target - d, target + d) for m in by_length.get(n, []) if m[0] not in used]
                if cands:
                    mirror = rng.choice(cands)
                    chosen.append(mirror)
                    used.add(mirror[0])
                    break
        if count % 2:
            chosen.append(next(r for r in lower if r[0] not in used))
        path = out / f"sprot_len{length}_n{count}.fasta"
        with open(path, "w") as f:
            for name, seq in chosen:
                f.write(f">{name}\n")
                for i in range(0, len(seq), 60):
                    f.write(seq[i : i + 60] + "\n")
        mean = sum(len(s) for _, s in chosen) / count
        print(f"{path.name}: {count} sequences, mean length {mean:.1f}")


if __name__ == "__main__":
    main()
