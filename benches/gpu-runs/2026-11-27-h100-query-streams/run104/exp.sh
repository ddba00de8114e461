#!/usr/bin/env bash
# Streams against pairs: pinned configurations, one stream or eight.
set -uo pipefail
cd "$(dirname "$0")"
out=${OUT:-/tmp/out}; mkdir -p "$out"
exec > >(tee -a "$out/exp.log") 2>&1
for f in warpsw warpsw-old; do [ -f "$f.xz" ] && xz -d -f "$f.xz" && chmod +x "$f"; done
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
python3 synthdb.py --sequences 570000 --seed 1 > synth570k.fa && ./warpsw makedb synth570k.fa -o synth570k.wsw > /dev/null
one() { # label, binary, pin, extra args
    local label=$1 bin=$2 pin=$3; shift 3
    WARPSW_QUERY_GROUP_CONFIG=$pin ./$bin search -q queries.fasta -d synth570k.wsw --gap-open 10 --gap-extend 1 \
        --device gpu "$@" --columns qseqid,sseqid,score -o "$out/hits_$label.tsv" > "$out/$label.log" 2>&1
    echo "$label: $(grep -oE '[0-9.]+ GCUPS' "$out/$label.log" | tail -1)"
}
for round in 1 2; do
    echo "== round $round"
    for c in g8_r20 g8_r16; do
        one "pin_${c}_queries" warpsw ${c}_queries --kernel query-group-i16x2
        one "pin_${c}_streams" warpsw ${c}_streams --kernel query-group-i16x2
    done
    one pin_g8_r20_queries_1stream warpsw g8_r20_queries --kernel query-group-i16x2 --gpu-streams 1
    one pin_g8_r20_streams_1stream warpsw g8_r20_streams --kernel query-group-i16x2 --gpu-streams 1
    one auto_old warpsw-old ""
    one auto_new warpsw ""
done
for c in g8_r20 g8_r16; do
    cmp -s "$out/hits_pin_${c}_queries.tsv" "$out/hits_pin_${c}_streams.tsv" || echo "HITS DIFFER $c"
done
cmp -s "$out/hits_auto_old.tsv" "$out/hits_auto_new.tsv" || echo "HITS DIFFER auto"
rm -f "$out"/hits_*.tsv
