#!/usr/bin/env python3
"""The short queries one at a time, many times each: warpsw against CUDASW++ 4.0.

    scripts/short_queries_table.py WORK ROUNDS

Reads, for each round r in 1..ROUNDS, CUDASW++4's log WORK/shortq_cs4_r.log
(`align --verbose`: a warm-up copy, then each query repeated, one after
another) and warpsw's `bench --csv` file WORK/shortq_warpsw_r.csv (one row
a repeat). Prints per query the median, lowest and highest GCUPS of each
tool over every repeat of every round, and the ratio of the medians.
Used by scripts/gpu_query_group.sh's `shortq` step.
"""
import csv
import re
import statistics
import sys


def main():
    work, rounds = sys.argv[1], int(sys.argv[2])
    warpsw = {}   # query id -> (length, [GCUPS])
    order = []
    cs4 = []      # every scan's GCUPS, in order, all rounds
    per_round = None
    for r in range(1, rounds + 1):
        for row in csv.DictReader(open(f"{work}/shortq_warpsw_{r}.csv")):
            q = row["query"]
            if q not in warpsw:
                warpsw[q] = (int(row["query_length"]), [])
                order.append(q)
            warpsw[q][1].append(float(row["gcups"]))
        log = open(f"{work}/shortq_cs4_{r}.log").read()
        scans = [float(g) for g in re.findall(
            r"Processing query \d+ \.\.\. Done\. Scan time: [\d.e-]+ s, ([\d.]+) GCUPS", log)]
        scans = scans[1:]  # the warm-up copy
        if per_round is None:
            per_round = len(scans) // max(len(order), 1)
        if len(scans) != per_round * len(order):
            sys.exit(f"round {r}: {len(scans)} CUDASW++4 scans for {len(order)} queries")
        cs4.append(scans)
    print(f"{'query':<14}{'length':>7}  {'CUDASW++4 median (low-high)':>30}  {'warpsw median (low-high)':>28}  {'ratio':>6}")
    for i, q in enumerate(order):
        length, ws = warpsw[q]
        cs = [g for scans in cs4 for g in scans[i * per_round:(i + 1) * per_round]]
        c, w = statistics.median(cs), statistics.median(ws)
        print(f"{q[:13]:<14}{length:>7}  {c:>12.1f} ({min(cs):.1f}-{max(cs):.1f}){'':>2}"
              f"{w:>12.1f} ({min(ws):.1f}-{max(ws):.1f})  {w / c:>6.3f}   n={len(cs)}/{len(ws)}")


if __name__ == "__main__":
    main()
