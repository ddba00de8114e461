#!/usr/bin/env bash
# One call: GPU tests at HEAD (the pairs' path on short chunks), then two queries in the halves
# with groups of four lanes (warpsw-narrow: g4_r16/r20/r24_queries and g8_r24_queries added)
# against eight, searches on 1,000,000 x 128 and x 256.
cd "$(dirname "$0")"
start=$(date +%s)
xz -dk warpsw.xz; xz -dk warpsw-tests.xz; xz -dc warpsw-narrow.xz > warpsw-narrow; chmod +x warpsw-narrow
echo "build $(cat COMMIT) (+ narrow pairs); $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader)"
synth() { # length: /tmp/eqL.wsw, 16 shards side by side (seeds as diagnose.sh's synth)
  local L=$1 pids=()
  for k in $(seq 0 15); do python3 synthdb.py --sequences 62500 --seed $((k + 1)) --min $L --max $L --mean $L > /tmp/sh${L}_$k.fa & pids+=($!); done
  for p in "${pids[@]}"; do wait "$p"; done
  cat $(for k in $(seq 0 15); do echo /tmp/sh${L}_$k.fa; done) | awk '/^>/ { print ">s" n++; next } { print }' > /tmp/eq$L.fa
  rm -f /tmp/sh${L}_*.fa; ./warpsw makedb /tmp/eq$L.fa -o /tmp/eq$L.wsw > /dev/null; rm -f /tmp/eq$L.fa
}
( synth 128; synth 256 ) > /dev/null 2>&1 &
dbpid=$!
for t in gpu_query_pairs_match_the_reference gpu_query_pair_hands_over_in_launches_of_part_of_a_chunk \
    gpu_query_batches_match_the_reference gpu_adversarial_cases gpu_many_long_pairs_beyond_16_bits_are_rescued \
    gpu_parted_engine_matches_reference; do
  left=$(( 360 - ($(date +%s) - start) )); [ $left -lt 10 ] && { echo "$t: not run (time)"; continue; }
  s=$(date +%s)
  timeout $left ./warpsw-tests --ignored --exact gpu::$t > $OUT/test_$t.txt 2>&1; rc=$?
  echo "$t: rc $rc in $(( $(date +%s) - s )) s: $(grep -E '^test result|panicked' $OUT/test_$t.txt | head -2)"
done
cat $OUT/test_*.txt > $OUT/tests.txt; rm -f $OUT/test_*.txt
echo "== at $(( $(date +%s) - start )) s: searches"
wait $dbpid
mkdir -p $OUT/s
run() { # label binary pin L
  local label=$1 bin=$2 pin=$3 L=$4
  WARPSW_QUERY_GROUP_CONFIG=$pin ./$bin search -q queries.fasta -d /tmp/eq$L.wsw --device gpu \
    --columns qseqid,sseqid,score -o $OUT/s/$label.$L.tsv > $OUT/s/$label.$L.log 2>&1
  echo "eq$L $label: $(grep -o 'in [0-9.]* s = [0-9.]* GCUPS' $OUT/s/$label.$L.log | head -1)"
}
for L in 128 256; do
  run head warpsw "" $L
  run narrow warpsw-narrow "" $L
  run g8r20q warpsw g8_r20_queries $L
  run g4r20q warpsw-narrow g4_r20_queries $L
  run g4r24q warpsw-narrow g4_r24_queries $L
  run g4r16q warpsw-narrow g4_r16_queries $L
  run g8r24q warpsw-narrow g8_r24_queries $L
  run head2 warpsw "" $L
  run narrow2 warpsw-narrow "" $L
  for f in $OUT/s/*.$L.tsv; do cmp -s $OUT/s/head.$L.tsv $f || echo "eq$L: $f differs"; done
  echo "eq$L: hits compared"
  rm -f $OUT/s/*.tsv
  [ $(( $(date +%s) - start )) -gt 540 ] && break
done
grep -h "registers\|sw_query_group" $OUT/s/narrow.128.log | head -8
tar -czf $OUT/s.tgz -C $OUT s && rm -rf $OUT/s
echo "== at $(( $(date +%s) - start )) s: done"
