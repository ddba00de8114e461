#!/usr/bin/env bash
# Where a short query's time goes on the 570k DB: host steps per query (instrumented copy), kernel times (ncu).
set -uo pipefail
cd "$(dirname "$0")"
out=${OUT:-/tmp/o}; mkdir -p "$out"
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/gpu.txt"; cat COMMIT
python3 synthdb.py --sequences 570000 --seed 1 > synth570k.fa && ./warpsw makedb synth570k.fa -o synth570k.wsw > /dev/null
awk '/^>/{n++} n==1||n==5||n==20' queries.fasta > q3.fasta
awk '/^>/{n++} n==1' queries.fasta > q144.fasta
echo "== dbs at $(( $(date +%s) - t0 )) s"
./warpsw-timing2 bench --device gpu --query q3.fasta --db synth570k.wsw --gap-open 10 --gap-extend 1 --kernels auto --warmup 1 --repeat 3 > "$out/timing2.log" 2>&1
grep -E "TIMING|^[0-9A-Z].* [0-9]+ +[0-9.]+$|overall" "$out/timing2.log" | head -40
timeout 200 ncu --metrics gpu__time_duration.sum,launch__grid_size --csv ./warpsw search -q q144.fasta -d synth570k.wsw --device gpu --gap-open 10 --gap-extend 1 --columns qseqid,sseqid,score -o /tmp/x.tsv > "$out/ncu144.csv" 2> "$out/ncu144.err"
python3 - "$out/ncu144.csv" <<'PY'
import csv, sys, collections
rows=[r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
hdr=rows[0]; rows=[dict(zip(hdr,r)) for r in rows[1:]]
t=collections.defaultdict(float); n=collections.Counter()
for r in rows:
    if r['Metric Name']=='gpu__time_duration.sum':
        k=r['Kernel Name'].split('(')[0]; t[k]+=float(r['Metric Value'].replace(',','')); n[k]+=1
tot=sum(t.values())
for k,v in sorted(t.items(), key=lambda x:-x[1])[:40]: print(f"{k:40s} {n[k]:4d} {v/1e6:8.3f} ms")
print("total kernel time", tot/1e6, "ms; launches", sum(n.values()))
PY
echo "== done at $(( $(date +%s) - t0 )) s"
