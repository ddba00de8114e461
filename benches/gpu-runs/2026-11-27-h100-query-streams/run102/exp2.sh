#!/usr/bin/env bash
# ncu's per-kernel totals of a one-stream search, pinned g8_r20 of two
# queries against g8_r20 streams.
set -uo pipefail
cd "$(dirname "$0")"
out=${OUT:-/tmp/out}; mkdir -p "$out"
exec > >(tee -a "$out/exp2.log") 2>&1
for f in warpsw; do [ -f "$f.xz" ] && xz -d -f "$f.xz" && chmod +x "$f"; done
python3 synthdb.py --sequences 570000 --seed 1 > synth570k.fa && ./warpsw makedb synth570k.fa -o synth570k.wsw > /dev/null
for c in g8_r20_queries g8_r20_streams; do
    WARPSW_QUERY_GROUP_CONFIG=$c timeout 250 ncu --metrics gpu__time_duration.sum,smsp__inst_executed.sum,launch__grid_size \
        --print-summary per-kernel --csv \
        ./warpsw search -q queries.fasta -d synth570k.wsw --gap-open 10 --gap-extend 1 --device gpu \
        --kernel query-group-i16x2 --gpu-streams 1 --columns qseqid,sseqid,score -o /tmp/h_$c.tsv > "$out/ncu_$c.csv" 2> "$out/ncu_$c.err"
    echo "$c rc $?"
    grep -E "gpu__time_duration|inst_executed|grid_size" "$out/ncu_$c.csv" | cut -c1-400 | head -20
done
