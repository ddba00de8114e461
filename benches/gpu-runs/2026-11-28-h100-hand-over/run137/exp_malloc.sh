#!/usr/bin/env bash
# The 144-residue query in many processes (bench, 10 repeats each): does
# the host allocator's setting change which processes run it fast?
set -uo pipefail
cd "$(dirname "$0")"
out=${OUT:-/tmp/out}
[ -f warpsw.xz ] && xz -d -f warpsw.xz && chmod +x warpsw
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
echo "commit $(cat COMMIT)"; ldd --version | head -1
python3 synthdb.py --sequences 570000 --seed 1 > synth570k.fa && ./warpsw makedb synth570k.fa -o synth570k.wsw > /dev/null
awk '/^>/ { n++ } n <= 1' queries.fasta > q144.fasta
grep -c . q144.fasta
for p in 1 2 3 4 5; do
    for setting in default tuned hugetlb; do
        case $setting in
            default) tun="" ;;
            tuned) tun="glibc.malloc.mmap_threshold=67108864:glibc.malloc.trim_threshold=1073741824" ;;
            hugetlb) tun="glibc.malloc.hugetlb=1" ;;
        esac
        GLIBC_TUNABLES=$tun timeout 30 ./warpsw bench --device gpu --query q144.fasta --db synth570k.wsw --gap-open 10 --gap-extend 1 \
            --warmup 1 --repeat 10 --kernels auto --csv "$out/m.csv" > /dev/null 2>&1
        python3 - "$out/m.csv" "$setting" "$p" <<'PY'
import csv, statistics as st, sys
rows = list(csv.DictReader(open(sys.argv[1])))
t = sorted(float(r["seconds"]) * 1000 for r in rows)
print(f"{sys.argv[2]:>8}, process {sys.argv[3]}: median {st.median(t):.3f} ms ({t[0]:.3f}-{t[-1]:.3f}), {rows[0]['query_length']} residues")
PY
        rm -f "$out/m.csv"
    done
done
