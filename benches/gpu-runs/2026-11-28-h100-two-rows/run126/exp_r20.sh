#!/usr/bin/env bash
# Queries 464, 2504 (g8_r20 one row a step again) and 1000, 1500 (two rows
# a step): main's binary (warpsw-old) against this one, alternated.
set -uo pipefail
cd "$(dirname "$0")"
out=${OUT:-/tmp/out}; mkdir -p "$out"
exec > >(tee -a "$out/exp_r20.log") 2>&1
for f in warpsw warpsw-old; do [ -f "$f.xz" ] && xz -d -f "$f.xz" && chmod +x "$f"; done
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
echo "commit $(cat COMMIT)"
python3 synthdb.py --sequences 570000 --seed 1 > synth570k.fa && ./warpsw makedb synth570k.fa -o synth570k.wsw > /dev/null
awk '/^>/ { n++; keep = (n == 5 || n == 10 || n == 11 || n == 13) } keep' queries.fasta > q4.fasta
grep -c '>' q4.fasta
for round in 1 2 3; do
    for bin in warpsw-old warpsw; do
        ./$bin bench --device gpu --query q4.fasta --db synth570k.wsw --gap-open 10 --gap-extend 1 \
            --warmup 1 --repeat 5 --kernels auto > "$out/${bin}_$round.log" 2>&1
        echo "== $bin round $round: $(grep -E '^[0-9A-Z]+ +[0-9]+ +[0-9.]+$' "$out/${bin}_$round.log" | awk '{printf "%s:%s ", $2, $3}')"
    done
done
