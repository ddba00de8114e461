#!/usr/bin/env python3
"""The `batch` step's table (scripts/gpu_query_group.sh): CUDASW++4's and
warpsw's GCUPS and wall times for one case.

    scripts/batch_table.py WORK NAME

Reads WORK/batch_cs4_NAME.log (CUDASW++4 --verbose, its first query a
warm-up copy, then a `wall SECONDS` line) and WORK/batch_NAME_MODE.log
for MODE batches and pairs (warpsw search's summary, then `wall`).
CUDASW++4's GCUPS: its cells over its total time less the warm-up copy's
scan, as ../shared/tools/sidebyside.sh counts them.
"""
import re
import sys

work, name = sys.argv[1], sys.argv[2]
cs = open(f"{work}/batch_cs4_{name}.log").read()
scans = [(float(t), float(g)) for t, g in re.findall(r"Scan time: ([\d.e-]+) s, ([\d.]+) GCUPS", cs)]
total = float(re.findall(r"Total time: ([\d.]+) s", cs)[-1])
cells = sum(t * g for t, g in scans[1:])
cs_gcups = cells / (total - scans[0][0])
wall = cs.split("wall ")[-1].strip()
print(f"== {name}: CUDASW++4 {cs_gcups:.1f} GCUPS (its total less the warm-up copy), wall {wall} s")
for mode in ("batches", "pairs"):
    log = open(f"{work}/batch_{name}_{mode}.log").read()
    g = float(re.findall(r"= ([\d.]+) GCUPS", log)[-1])
    summary = re.findall(r"warpsw: .*GCUPS.*", log)[-1]
    print(f"   warpsw {mode}: {g:.1f} GCUPS ({g / cs_gcups:.2f}x), wall {log.split('wall ')[-1].strip()} s; {summary}")
