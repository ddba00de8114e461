#!/usr/bin/env bash
# The two shortest queries, each binary in six processes alternated
# (warpsw-old: main; warpsw: this build), `bench --warmup 1 --repeat 10`:
# each process's median time.
set -uo pipefail
cd "$(dirname "$0")"
for bin in warpsw warpsw-old; do [ -f $bin.xz ] && xz -d -f $bin.xz && chmod +x $bin; done
while [ ! -f dbs.done ]; do sleep 1; done
awk '/^>/ { n++ } n <= 2' queries.fasta > short2.fasta
for p in 1 2 3 4 5 6; do
    for bin in warpsw-old warpsw; do
        ./$bin bench --device gpu --query short2.fasta --db synth570k.wsw --gap-open 10 --gap-extend 1 \
            --warmup 1 --repeat 10 --kernels auto --csv procs.csv > /dev/null 2>&1
        python3 - procs.csv "$bin" "$p" <<'PY'
import csv, statistics as st, sys
rows = list(csv.DictReader(open(sys.argv[1])))
parts = []
for L in ("144", "189"):
    t = sorted(float(r["seconds"]) * 1000 for r in rows if r["query_length"] == L)
    parts.append(f"{L}: median {st.median(t):.3f} ms ({t[0]:.3f}-{t[-1]:.3f})")
print(f"{sys.argv[2]:>10}, process {sys.argv[3]}: " + "; ".join(parts))
PY
        rm -f procs.csv
    done
done
