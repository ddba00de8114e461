#!/usr/bin/env bash
# One call: the variant that lets two queries pair on sequences of at most 256 residues, 1,000,000 x 128
# side by side with CUDASW++ 4.0.
cd "$(dirname "$0")"
start=$(date +%s)
xz -dk warpsw.xz
echo "build 49ac160 + pairs on short chunks; $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader)"
L=128; pids=()
for s in $(seq 1 16); do python3 synthdb.py --sequences 62500 --min $L --max $L --mean $L --seed $((L * 100 + s)) > /tmp/eq${L}_$s.fa & pids+=($!); done
for p in "${pids[@]}"; do wait "$p"; done
cat $(for s in $(seq 1 16); do echo /tmp/eq${L}_$s.fa; done) | awk '/^>/ { printf ">eq%07d\n", n++; next } { print }' > /tmp/eq$L.fa
mkdir -p $OUT/eq$L
OUT=$OUT/eq$L WORK=/tmp/sidebyside bash sidebyside.sh queries.fasta /tmp/eq$L.fa 2>&1 | tail -26
echo "== at $(( $(date +%s) - start )) s: done"
