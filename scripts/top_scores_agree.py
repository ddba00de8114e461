#!/usr/bin/env python3
"""Whether CUDASW++4 and warpsw find the same ten best scores per query.

    scripts/top_scores_agree.py CUDASW4_HITS.tsv WARPSW_HITS.tsv

CUDASW4_HITS.tsv is CUDASW++ 4.0's `--tsv` output for a query file whose
first query is a warm-up copy (as ../shared/tools/sidebyside.sh runs it);
WARPSW_HITS.tsv is `warpsw search --columns qseqid,score` (the score last) with enough hits
per query (`--top 2000 --evalue 1e300`) that its ten best scores are among
them. warpsw ranks by E-value, CUDASW++4 by score: both lists are sorted by
score before the comparison. Prints how many queries agree; exits 1 when
any does not.
"""
import collections
import csv
import sys

cs = collections.defaultdict(list)
for row in list(csv.reader(open(sys.argv[1]), delimiter="\t"))[1:]:
    cs[int(row[0]) - 1].append(int(row[4]))  # query 0 is the warm-up copy
ws, order = collections.defaultdict(list), []
for row in list(csv.reader(open(sys.argv[2]), delimiter="\t"))[1:]:
    if row[0] not in order:
        order.append(row[0])
    ws[row[0]].append(int(row[-1]))
agree = sum(
    sorted(cs[i], reverse=True)[:10] == sorted(ws[q], reverse=True)[:10]
    for i, q in enumerate(order)
)
print(f"ten best scores by score, CUDASW++4 vs warpsw: {agree} of {len(order)} queries agree")
sys.exit(0 if agree == len(order) else 1)
