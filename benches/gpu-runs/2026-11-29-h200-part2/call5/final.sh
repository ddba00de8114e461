#!/usr/bin/env bash
# One call: where a whole search's time goes on 1,000,000 x 128 and x 256 residues (main,
# b94e7af): the 20 standard queries, score-only, WARPSW_TIMELINE=on (a line a query or pair:
# host and GPU time between the stages, the span and sum of its chunks' launches), then
# WARPSW_TIMELINE=chunks at 128; a plain search before each for the GCUPS without timed events.
cd "$(dirname "$0")"
start=$(date +%s); el() { echo $(( $(date +%s) - start )); }
xz -d warpsw.xz; chmod +x warpsw
echo "main $(cat COMMIT); $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader)"
synth() {
  local name=$1 per=$2 pids=(); shift 2
  for k in $(seq 0 15); do python3 synthdb.py --sequences $per --seed $((k + 1)) "$@" > /tmp/sh${name}_$k.fa & pids+=($!); done
  for p in "${pids[@]}"; do wait "$p"; done
  cat $(for k in $(seq 0 15); do echo /tmp/sh${name}_$k.fa; done) | awk '/^>/ { print ">s" n++; next } { print }' > /tmp/$name.fa
  rm -f /tmp/sh${name}_*.fa; ./warpsw makedb /tmp/$name.fa -o /tmp/$name.wsw > /dev/null; rm -f /tmp/$name.fa
}
for L in 128 256; do synth eq$L 62500 --min $L --max $L --mean $L; done
echo "== at $(el) s: databases made"
mkdir -p $OUT/t
for db in eq128 eq256; do
  ./warpsw search -q queries.fasta -d /tmp/$db.wsw --device gpu --columns qseqid,sseqid,score -o /tmp/plain.tsv > $OUT/t/plain.$db.log 2>&1
  echo "$db plain: $(grep -o 'in [0-9.]* s = [0-9.]* GCUPS' $OUT/t/plain.$db.log | head -1)"
  WARPSW_TIMELINE=on ./warpsw search -q queries.fasta -d /tmp/$db.wsw --device gpu --columns qseqid,sseqid,score -o /tmp/t.tsv > $OUT/t/timeline.$db.log 2>&1
  echo "$db timeline on: $(grep -o 'in [0-9.]* s = [0-9.]* GCUPS' $OUT/t/timeline.$db.log | head -1)"
  cmp -s /tmp/plain.tsv /tmp/t.tsv || echo "$db: hits DIFFER"
  grep -v "^warpsw: progress" $OUT/t/timeline.$db.log
done
WARPSW_TIMELINE=chunks ./warpsw search -q queries.fasta -d /tmp/eq128.wsw --device gpu --columns qseqid,sseqid,score -o /tmp/t.tsv > $OUT/t/chunks.eq128.log 2>&1
echo "eq128 chunks: $(grep -o 'in [0-9.]* s = [0-9.]* GCUPS' $OUT/t/chunks.eq128.log | head -1), $(wc -l < $OUT/t/chunks.eq128.log) lines (in t/chunks.eq128.log)"
echo "== at $(el) s: done"
