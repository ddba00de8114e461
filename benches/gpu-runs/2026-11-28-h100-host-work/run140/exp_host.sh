#!/usr/bin/env bash
# A query's host work cut (top hits, profiles): the 144- and 189-residue
# queries in several processes with this binary (timeline on and off) and
# the session's first (warpsw-old, a8bf555), then side by side with
# CUDASW++4 on the 570k database and half of Swiss-Prot.
set -uo pipefail
cd "$(dirname "$0")"
out=${OUT:-/tmp/out}
for f in warpsw warpsw-tests warpsw-old; do [ -f "$f.xz" ] && xz -d -f "$f.xz" && chmod +x "$f"; done
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
echo "commit $(cat COMMIT)"
python3 synthdb.py --sequences 570000 --seed 1 > synth570k.fa && ./warpsw makedb synth570k.fa -o synth570k.wsw > /dev/null
awk '/^>/ { n++ } n <= 2' queries.fasta > q2.fasta
for p in 1 2 3 4; do
    for bin in warpsw-old warpsw warpsw-tl; do
        exe=./$bin; tl=off
        [ $bin = warpsw-tl ] && exe=./warpsw && tl=on
        WARPSW_TIMELINE=$tl timeout 30 $exe bench --device gpu --query q2.fasta --db synth570k.wsw --gap-open 10 --gap-extend 1 \
            --warmup 1 --repeat 15 --kernels auto --csv "$out/m.csv" > /dev/null 2> "$out/err.txt"
        python3 - "$out/m.csv" "$bin" "$p" <<'PY'
import csv, statistics as st, sys
rows = list(csv.DictReader(open(sys.argv[1])))
by = {}
for r in rows: by.setdefault(int(r["query_length"]), []).append(float(r["seconds"]) * 1000)
print(f"process {sys.argv[3]} {sys.argv[2]:>10}: " + ", ".join(f"{n} residues median {st.median(t):.3f} ms ({min(t):.3f}-{max(t):.3f})" for n, t in sorted(by.items())))
PY
        [ $tl = on ] && grep timeline "$out/err.txt" | sed -n '5p;20p'
        rm -f "$out/m.csv"
    done
done
QG_STEPS='side' QG_SIDE_DBS='synth570k:synth570k.fa sprot_half:sprot_half.fasta' OUT=$OUT timeout 420 bash query_group.sh > /dev/null 2>&1
grep -E "^== |agree|overall|^[0-9A-Z].* [0-9.]+ +[0-9.]+ +[0-9.]+$|error" $OUT/qg.log | head -60
