#!/usr/bin/env python3
"""Compare warpsw's E-values and bit scores with ssearch36's or blastp's.

Reads two tabular outputs (BLAST's -outfmt 6 columns: qseqid sseqid pident
length mismatch gapopen qstart qend sstart send evalue bitscore), pairs the
hits on (query id, target id), first hit of each pair, and prints:

* per query, whether the targets with E < 0.001 are the same set;
* of the peer's hits with E < 10, how many warpsw reports with E < 10 and
  how many have E-values within a factor 2 (split at E = 0.001), with the
  median ratio warpsw / peer;
* with --exact: of the pairs with the same raw score (when both files have
  a 13th column, the raw score; else all pairs in both), how many E-values
  and bit scores print the same (warpsw's blast6 prints them as BLAST
  does: compared as text).

Run the searches with the same matrix and gap costs, e.g. BLOSUM62 10/1
(warpsw's E-value cut a little above the peer's, so that a hit just above
10 here is still compared; tsv prints E-values with 3 significant digits
where blast6 prints 0.001 for anything from 0.0009 to 0.00105):

    warpsw search -q queries.fasta -d uni20k.fa --device cpu --gap-open 10 \\
        --gap-extend 1 --format tsv --columns std,score --evalue 20 \\
        --max-target-seqs 500 -o w.tsv
    ssearch36 -q -T 2 -s BL62 -f -10 -g -1 -m 8 -E 10 -b 500 -d 0 \\
        queries.fasta uni20k.fa > s.m8
    scripts/stats_vs_peers.py w.tsv s.m8

(ssearch36's -f is the cost of opening a gap and -g of each residue in it:
a gap of k residues costs f + k·g, warpsw's convention.) For blastp:

    blastp -query queries.fasta -db uni20k -matrix BLOSUM62 -gapopen 11 \\
        -gapextend 1 -comp_based_stats 0 -seg no -evalue 10 \\
        -max_target_seqs 500 -outfmt "6 std score" > b.tsv
    warpsw search -q queries.fasta -d uni20k.fa --device cpu --stats fixed \\
        --format blast6 --columns std,score --evalue 10 --max-target-seqs 500 -o wf.b6
    scripts/stats_vs_peers.py --exact wf.b6 b.tsv

--min-within F makes the exit status 1 when fewer than F % of the peer's
E < 10 hits are within a factor 2.
"""

import argparse
import math
import statistics
import sys


def read_tabular(path):
    """(query, target) -> (E-value, bits, E as printed, bits as printed, raw
    score or None): the raw score from a 13th column when there is one
    (`--columns std,score`, `-outfmt "6 std score"`)."""
    hits = {}
    with open(path) as f:
        for line in f:
            if not line.strip() or line.startswith("#"):
                continue
            fields = line.rstrip("\n").split("\t")
            if len(fields) < 12:
                sys.exit(f"{path}: expected 12 tab-separated columns: {line!r}")
            try:
                float(fields[10])
            except ValueError:
                continue  # a header line (warpsw's tsv)
            key = (fields[0], fields[1])
            if key not in hits:
                score = int(fields[12]) if len(fields) > 12 else None
                hits[key] = (float(fields[10]), float(fields[11]), fields[10], fields[11], score)
    return hits


def ratio(ours, theirs):
    """ours / theirs; 1 when both underflow to what prints as 0."""
    if ours == 0.0 or theirs == 0.0:
        return 1.0 if max(ours, theirs) < 1e-180 else math.inf
    return ours / theirs


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("warpsw", help="warpsw's --format blast6 output, or tsv with --columns std[,score]")
    ap.add_argument("peer", help="ssearch36 -m 8 or blastp -outfmt 6 output")
    ap.add_argument("--exact", action="store_true", help="also count E-values and bits printed the same")
    ap.add_argument("--min-within", type=float, default=None, metavar="PERCENT")
    args = ap.parse_args()
    ours, peer = read_tabular(args.warpsw), read_tabular(args.peer)

    queries = sorted({q for q, _ in peer} | {q for q, _ in ours})
    same_sets = 0
    for q in queries:
        a = {t for (qq, t), h in ours.items() if qq == q and h[0] < 1e-3}
        b = {t for (qq, t), h in peer.items() if qq == q and h[0] < 1e-3}
        if a == b:
            same_sets += 1
        else:
            print(f"  {q}: E < 0.001 sets differ: {len(a)} here, {len(b)} in the peer's; "
                  f"only here {sorted(a - b)[:3]}, only there {sorted(b - a)[:3]}")
    significant = [k for k, h in peer.items() if h[0] < 10]
    reported = [k for k in significant if k in ours and ours[k][0] < 10]
    ratios = {k: ratio(ours[k][0], peer[k][0]) for k in significant if k in ours}
    within = [k for k, r in ratios.items() if 0.5 <= r <= 2.0]
    low = [k for k in significant if peer[k][0] < 1e-3]
    low_within = [k for k in low if k in within]
    mid = [k for k in significant if peer[k][0] >= 1e-3]
    mid_within = [k for k in mid if k in within]
    share = 100.0 * len(within) / max(len(significant), 1)
    median = statistics.median(ratios.values()) if ratios else float("nan")
    print(f"queries whose hits with E < 0.001 are the same set: {same_sets} / {len(queries)}")
    print(f"peer's hits with E < 10: {len(significant)}; reported here with E < 10: {len(reported)}")
    print(f"E within a factor 2: {len(within)} ({share:.1f} %); "
          f"of E < 0.001: {len(low_within)} / {len(low)}; of 0.001 <= E < 10: {len(mid_within)} / {len(mid)}")
    print(f"median E ratio warpsw / peer: {median:.3f}")
    if args.exact:
        common = [k for k in peer if k in ours]
        scored = all(ours[k][4] is not None and peer[k][4] is not None for k in common)
        if scored:
            common = [k for k in common if ours[k][4] == peer[k][4]]
        same_e = [k for k in common if ours[k][2] == peer[k][2]]
        same_bits = [k for k in common if ours[k][3] == peer[k][3]]
        print(f"pairs in both{' with the same raw score' if scored else ''}: {len(common)}; "
              f"E-values printed the same: {len(same_e)}; bit scores printed the same: {len(same_bits)}")
        for k in [k for k in common if ours[k][2] != peer[k][2]][:5]:
            print(f"  {k[0]} {k[1]}: E {ours[k][2]} here, {peer[k][2]} there")
    if args.min_within is not None and share < args.min_within:
        print(f"fewer than {args.min_within} % within a factor 2", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
