#!/usr/bin/env python3
"""Whether CUDASW++4 and warpsw find the same ten best scores per query.

    scripts/top_scores_agree.py CUDASW4_HITS.tsv WARPSW_HITS.tsv

CUDASW4_HITS.tsv is CUDASW++ 4.0's `--tsv` output for a query file whose
first query is a warm-up copy (as ../shared/tools/sidebyside.sh runs it);
WARPSW_HITS.tsv is `warpsw search --columns qseqid,score` (the score last)
with enough hits per query (`--top 2000 --evalue 1e300`) that its ten best
scores are among them. warpsw ranks by E-value, CUDASW++4 by score: both
lists are sorted by score before the comparison, query by query (matched
by the first word of the header, warpsw's qseqid). Prints how many queries
agree; exits 1 when any does not.
"""
import collections
import csv
import sys

cs = collections.defaultdict(list)
for row in list(csv.reader(open(sys.argv[1]), delimiter="\t"))[1:]:
    if int(row[0]) > 0:  # query 0 is the warm-up copy
        cs[row[2].split()[0]].append(int(row[4]))
ws = collections.defaultdict(list)
for row in list(csv.reader(open(sys.argv[2]), delimiter="\t"))[1:]:
    ws[row[0]].append(int(row[-1]))
differ = [q for q in cs if sorted(cs[q], reverse=True)[:10] != sorted(ws[q], reverse=True)[:10]]
agree = len(cs) - len(differ)
print(f"ten best scores by score, CUDASW++4 vs warpsw: {agree} of {len(cs)} queries agree")
for q in differ[:5]:
    print(f"  {q}: CUDASW++4 {sorted(cs[q], reverse=True)[:10]}, warpsw {sorted(ws[q], reverse=True)[:10]}")
sys.exit(0 if cs and agree == len(cs) else 1)
