#!/usr/bin/env bash
# One-off diagnosis: why search is slower than bench on 1M x 128/256; auto vs pinned narrow configs.
set -uo pipefail
cd "$(dirname "$0")"
out=${OUT:-out}; mkdir -p "$out"
[ -x warpsw ] || xz -dk warpsw.xz
for L in 128 256; do
  python3 synthdb.py --sequences 1000000 --min $L --max $L --mean $L --seed $L > /tmp/eq$L.fa &
done
p1=$!; [ -f sprot_half.fasta ] || xz -dc sprot_half.fasta.xz > sprot_half.fasta
./warpsw makedb sprot_half.fasta -o sprot_half.wsw > /dev/null
awk '/^>/ { n++ } n == 1' short.fasta > q5.fa
awk '/^>/ { n++ } n == 10' short.fasta > q32.fa
for round in 1 2; do
  for pin in "" g1_r8_lifted; do
    echo "q5 pin=$pin"; WARPSW_TIMELINE=on WARPSW_QUERY_GROUP_CONFIG=$pin ./warpsw search -q q5.fa -d sprot_half.wsw --device gpu --quiet --columns qseqid,sseqid,score -o /dev/null 2>&1 | tail -1
  done
  for pin in "" g2_r16_lifted; do
    echo "q32 pin=$pin"; WARPSW_TIMELINE=on WARPSW_QUERY_GROUP_CONFIG=$pin ./warpsw search -q q32.fa -d sprot_half.wsw --device gpu --quiet --columns qseqid,sseqid,score -o /dev/null 2>&1 | tail -1
  done
done
for pin in "" g1_r8_lifted g2_r16_lifted ""; do
  WARPSW_QUERY_GROUP_CONFIG=$pin ./warpsw bench --query short.fasta --db sprot_half.wsw --device gpu --kernels auto --warmup 1 --repeat 5 --gap-open 10 --gap-extend 1 2>&1 | awk -v p="$pin" '$1 ~ /^(P84943|P41872|P0C815|Q85AJ9|A4QLU7|O68934)$/ { printf "%s %s %s | ", p, $2, $3 } END { print "" }'
done
sleep 1; while pgrep -f synthdb.py > /dev/null; do sleep 1; done
for L in 128 256; do
  ./warpsw makedb /tmp/eq$L.fa -o /tmp/eq$L.wsw > /dev/null
  for args in "" "--stats none" "--one-query-a-launch" "--stats none --one-query-a-launch"; do
    echo "== eq$L search $args"
    WARPSW_TIMELINE=on /usr/bin/time -f "WALL %e" ./warpsw search -q queries.fasta -d /tmp/eq$L.wsw --device gpu --columns qseqid,sseqid,score $args -o /dev/null > $out/eq${L}_$(echo $args | tr -d ' -').log 2>&1
    grep -E "GCUPS|WALL" $out/eq${L}_$(echo $args | tr -d ' -').log | tail -3
  done
  ./warpsw bench --query queries.fasta --db /tmp/eq$L.wsw --device gpu --kernels auto --warmup 1 --repeat 1 --gap-open 10 --gap-extend 1 2>&1 | grep -E "^overall"
done
