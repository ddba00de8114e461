#!/usr/bin/env bash
# The two shortest queries in many processes: does one process's speed
# differ from another's, and does CUDA_DEVICE_MAX_CONNECTIONS change it?
set -uo pipefail
cd "$(dirname "$0")"
out=${OUT:-/tmp/out}
[ -f warpsw.xz ] && xz -d -f warpsw.xz && chmod +x warpsw
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
echo "commit $(cat COMMIT)"
python3 synthdb.py --sequences 570000 --seed 1 > synth570k.fa && ./warpsw makedb synth570k.fa -o synth570k.wsw > /dev/null
awk '/^>/ { n++ } n <= 2' queries.fasta > short2.fasta
lscpu | grep -iE "numa|model name|^cpu\(s\)|socket"
nproc
for p in 1 2 3 4; do
    for conn in cpu0-3 cpu12-15 any; do
        rm -f "$out/procs_${conn}_$p.csv"
        case $conn in
            cpu0-3) pin="taskset -c 0-3" ;;
            cpu12-15) pin="taskset -c 12-15" ;;
            any) pin="" ;;
        esac
        $pin ./warpsw bench --device gpu --query short2.fasta --db synth570k.wsw --gap-open 10 --gap-extend 1 \
            --warmup 1 --repeat 10 --kernels auto --csv "$out/procs_${conn}_$p.csv" > /dev/null 2>&1
        python3 - "$out/procs_${conn}_$p.csv" "$conn" "$p" <<'PY'
import csv, statistics as st, sys
rows = list(csv.DictReader(open(sys.argv[1])))
parts = []
for L in ("144", "189"):
    t = sorted(float(r["seconds"]) * 1000 for r in rows if r["query_length"] == L)
    parts.append(f"{L}: median {st.median(t):.3f} ms ({t[0]:.3f}-{t[-1]:.3f})")
print(f"{sys.argv[2]:>8}, process {sys.argv[3]}: " + "; ".join(parts))
PY
        rm -f "$out/procs_${conn}_$p.csv"
    done
done
