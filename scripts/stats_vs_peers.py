#!/usr/bin/env python3
"""Compare warpsw's E-values and bit scores with ssearch36's or blastp's.

Reads two outputs, pairs the hits on (query id, target id), first hit of
each pair, and prints the comparison below. warpsw's: tabular (BLAST's
-outfmt 6 columns: qseqid sseqid pident length mismatch gapopen qstart qend
sstart send evalue bitscore, optionally a 13th, the raw score) or
`--format json` (numbers unrounded; with `--columns` it needs sseqid,
score, bitscore, evalue). The peer's: the same tabular columns (blastp
-outfmt 6, ssearch36 -m 8), or ssearch36's `-m 9` listing (its best-scores
lines carry the raw score, the bits and the E-value as it prints them):

* per query, whether the targets with E < 0.001 are the same set, and the
  mean over the queries of the sets' Jaccard index (shared / either; 1 for
  a query where both are empty);
* of the peer's hits with E < 10, how many warpsw reports with E < 10 and
  how many have E-values within a factor 2 (split at E = 0.001), with the
  median ratio warpsw / peer;
* with --exact: of the pairs with the same raw score (when both files have
  the raw score; else all pairs in both), how many E-values and bit scores
  print the same (warpsw's blast6 prints them as BLAST does: compared as
  text; from warpsw's JSON they are printed as the peer prints them:
  ssearch36's %.2g and %.1f, or BLAST's rules).

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

With FASTA's table (`--stats fixed-fasta`), against `ssearch36 -z 3`:

    warpsw search -q queries.fasta -d uni20k.fa --device cpu --stats fixed-fasta \\
        --gap-open 11 --gap-extend 1 --format json \\
        --columns qseqid,sseqid,slen,score,bitscore,evalue --evalue 20 \\
        --max-target-seqs 500 -o wff.json
    ssearch36 -q -T 2 -z 3 -s BL62 -f -11 -g -1 -m 9 -E 10 -b 500 -d 0 \\
        queries.fasta uni20k.fa > s_z3.m9
    scripts/stats_vs_peers.py --exact wff.json s_z3.m9

--min-within F makes the exit status 1 when fewer than F % of the peer's
E < 10 hits are within a factor 2.
"""

import argparse
import json
import math
import re
import statistics
import sys

# One line of ssearch36's -m 9 best-scores list: the target's id, its
# length in parentheses, then the raw score, the bits and E(N), a tab and
# the alignment's columns.
SSEARCH_HIT = re.compile(r"^(\S+) .*\(\s*\d+\)\s+(\d+)\s+(-?[\d.]+)\s+(\S+)\t")
SSEARCH_QUERY = re.compile(r"^\s*\d+>>>(\S+)")


def read_hits(path):
    """(query, target) -> (E-value, bits, E as printed, bits as printed, raw
    score or None), and the peer's kind: "json", "ssearch36" (-m 9) or
    "tabular"."""
    with open(path) as f:
        text = f.read()
    if text.lstrip().startswith("["):
        return read_json(text), "json"
    if "The best scores are:" in text:
        return read_ssearch_listing(text), "ssearch36"
    return read_tabular(path), "tabular"


def read_json(text):
    """warpsw's --format json: numbers unrounded, printed later as the peer
    prints them."""
    hits = {}
    for query in json.loads(text):
        for h in query["hits"]:
            key = (query["qseqid"], h["sseqid"])
            if key not in hits:
                hits[key] = (h["evalue"], h["bitscore"], None, None, h.get("score"))
    return hits


def read_ssearch_listing(text):
    """ssearch36 -m 9: the best-scores lines of each query."""
    hits, query = {}, None
    for line in text.splitlines():
        q = SSEARCH_QUERY.match(line)
        if q:
            query = q.group(1)
            continue
        h = SSEARCH_HIT.match(line)
        if h and query is not None:
            key = (query, h.group(1))
            if key not in hits:
                e, bits = h.group(4), h.group(3)
                hits[key] = (float(e), float(bits), e, bits, int(h.group(2)))
    return hits


def ssearch_evalue(e):
    """An E-value as ssearch36 prints it: C's %.2g."""
    return "%.2g" % e


def blast_evalue(e):
    """An E-value as BLAST's tabular output prints it (host::output::blast_evalue)."""
    if e < 1e-180:
        return "0.0"
    if e < 0.0009:
        return "%.2e" % e
    if e < 0.1:
        return "%.3f" % e
    if e < 1.0:
        return "%.2f" % e
    if e < 10.0:
        return "%.1f" % e
    return "%.0f" % e


def blast_bits(bits):
    """A bit score as BLAST's tabular output prints it (host::output::blast_bits)."""
    if bits > 9999.0:
        return "%.3e" % bits
    if bits > 99.9:
        return "%d" % math.trunc(bits)
    return "%.1f" % bits


def printed(hits, kind):
    """Fills in warpsw's JSON numbers as the peer of `kind` prints them."""
    if kind == "ssearch36":
        evalue, bits = ssearch_evalue, lambda b: "%.1f" % b
    else:
        evalue, bits = blast_evalue, blast_bits
    return {k: (e, b, evalue(e), bits(b), s) if pe is None else (e, b, pe, pb, s)
            for k, (e, b, pe, pb, s) in hits.items()}


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
    (ours, _), (peer, kind) = read_hits(args.warpsw), read_hits(args.peer)
    ours = printed(ours, kind)

    queries = sorted({q for q, _ in peer} | {q for q, _ in ours})
    same_sets = 0
    jaccard = []
    for q in queries:
        a = {t for (qq, t), h in ours.items() if qq == q and h[0] < 1e-3}
        b = {t for (qq, t), h in peer.items() if qq == q and h[0] < 1e-3}
        jaccard.append(len(a & b) / len(a | b) if a | b else 1.0)
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
    print(f"queries whose hits with E < 0.001 are the same set: {same_sets} / {len(queries)}; "
          f"mean Jaccard index of the two sets: {statistics.fmean(jaccard) if jaccard else 1.0:.3f}")
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
