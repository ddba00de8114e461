#!/usr/bin/env bash
# The 144-residue query's two speeds: where does a slow process lose its
# 0.6 ms, on the GPU or on the host? bench with WARPSW_TIMELINE=on in many
# processes; each process's median of bench's time and of each stage.
# Then the GPU tests the launch code touches.
set -uo pipefail
cd "$(dirname "$0")"
out=${OUT:-/tmp/out}
for f in warpsw warpsw-tests; do [ -f "$f.xz" ] && xz -d -f "$f.xz" && chmod +x "$f"; done
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
echo "commit $(cat COMMIT)"
python3 synthdb.py --sequences 570000 --seed 1 > synth570k.fa && ./warpsw makedb synth570k.fa -o synth570k.wsw > /dev/null
awk '/^>/ { n++ } n <= 1' queries.fasta > q144.fasta
for p in $(seq 1 ${PROCS:-6}); do
    for tl in on off; do
        WARPSW_TIMELINE=$tl timeout 30 ./warpsw bench --device gpu --query q144.fasta --db synth570k.wsw --gap-open 10 --gap-extend 1 \
            --warmup 1 --repeat 15 --kernels auto --csv "$out/m.csv" > /dev/null 2> "$out/err_${p}_$tl.txt"
        python3 - "$out/m.csv" "$out/err_${p}_$tl.txt" "$p" "$tl" <<'PY'
import csv, re, statistics as st, sys
rows = list(csv.DictReader(open(sys.argv[1])))
t = sorted(float(r["seconds"]) * 1000 for r in rows)
lines = [l for l in open(sys.argv[2]) if "timeline" in l][1:]  # the warm-up's first
stages = {}
for l in lines:
    for name, h, g in re.findall(r" ([a-z-]+) ([0-9.]+)/([0-9.]+)", l):
        stages.setdefault(name, []).append((float(h), float(g)))
    m = re.search(r"(\d+) chunks from ([0-9.]+) to ([0-9.]+), launches' sum ([0-9.]+), longest ([0-9.]+)", l)
    if m:
        for k, v in zip(("from", "to", "sum", "longest"), m.groups()[1:]):
            stages.setdefault(k, []).append((float(v), float(v)))
        chunks = m.group(1)
s = f"process {sys.argv[3]:>2} timeline {sys.argv[4]:>3}: bench median {st.median(t):.3f} ms ({t[0]:.3f}-{t[-1]:.3f})"
for k, v in stages.items():
    if k in ("from", "to", "sum", "longest"):
        s += f" | {k} {st.median(x for x, _ in v):.3f}"
    else:
        s += f" | {k} {st.median(h for h, _ in v):.3f}/{st.median(g for _, g in v):.3f}"
print(s)
PY
        rm -f "$out/m.csv"
    done
done
awk '/^>/ { n++ } n == 2' queries.fasta > q189.fasta
for p in 1 2 3; do
    WARPSW_TIMELINE=on ./warpsw bench --device gpu --query q189.fasta --db synth570k.wsw --gap-open 10 --gap-extend 1 \
        --warmup 1 --repeat 15 --kernels auto --csv "$out/m.csv" > /dev/null 2> "$out/err189_$p.txt"
    python3 -c 'import csv,statistics as st,sys; t=[float(r["seconds"])*1000 for r in csv.DictReader(open(sys.argv[1]))]; print("189 residues: bench median %.3f ms" % st.median(t))' "$out/m.csv"
    grep timeline "$out/err189_$p.txt" | sed -n 5p
    rm -f "$out/m.csv"
done
head -3 "$out/err_1_on.txt"
timeout ${TEST_TIMEOUT:-400} ./warpsw-tests --ignored --test-threads=1 ${TESTS:-gpu_query_pair} 2>&1 | grep -E "^test |test result|panicked|mismatch" | head -12
