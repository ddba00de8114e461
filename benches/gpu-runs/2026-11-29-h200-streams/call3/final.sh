#!/usr/bin/env bash
# One call: streamed pairs, fourth version (branch experiment/stream-items, 9468925), built in
# a target folder of its own (call 1's binary had main's kernels), against main (COMMIT):
# whole searches on 1,000,000 x 128, 256, 512 residues and 570,000 synthetic, hits compared;
# if faster at 128: the branch's GPU tests with three items a group forced
# (WARPSW_STREAM_ITEMS=3), and side by side with CUDASW++ 4.0 at 128 and 256 residues.
cd "$(dirname "$0")"
start=$(date +%s); el() { echo $(( $(date +%s) - start )); }
for f in warpsw warpsw-stream warpsw-tests-stream; do [ -f $f ] || xz -d $f.xz & done
for p in $(jobs -p); do wait "$p"; done
chmod +x warpsw warpsw-stream warpsw-tests-stream
echo "main $(cat COMMIT), streams 9468925; $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader)"
python3 synthdb.py --sequences 570000 --seed 1 > /tmp/synth570k.fa & p570=$!
synth() {
  local name=$1 per=$2 pids=(); shift 2
  for k in $(seq 0 15); do python3 synthdb.py --sequences $per --seed $((k + 1)) "$@" > /tmp/sh${name}_$k.fa & pids+=($!); done
  for p in "${pids[@]}"; do wait "$p"; done
  cat $(for k in $(seq 0 15); do echo /tmp/sh${name}_$k.fa; done) | awk '/^>/ { print ">s" n++; next } { print }' > /tmp/$name.fa
  rm -f /tmp/sh${name}_*.fa; ./warpsw makedb /tmp/$name.fa -o /tmp/$name.wsw > /dev/null; rm -f /tmp/$name.fa
}
for L in 128 256 512; do synth eq$L 62500 --min $L --max $L --mean $L; done
wait $p570; ./warpsw makedb /tmp/synth570k.fa -o /tmp/synth570k.wsw > /dev/null; rm -f /tmp/synth570k.fa
echo "== at $(el) s: databases made"
mkdir -p $OUT/s
run() {
  local label=$1 bin=$2 db=$3; shift 3
  env "$@" ./$bin search -q queries.fasta -d /tmp/$db.wsw --device gpu \
    --columns qseqid,sseqid,score -o $OUT/s/$label.$db.tsv > $OUT/s/$label.$db.log 2>&1
  echo "$db $label: $(grep -o 'in [0-9.]* s = [0-9.]* GCUPS' $OUT/s/$label.$db.log | head -1) $(grep -i -m1 'error\|panic' $OUT/s/$label.$db.log)"
}
for db in eq128 eq256 eq512 synth570k; do
  run head warpsw $db
  run stream warpsw-stream $db
  run items1 warpsw-stream $db WARPSW_STREAM_ITEMS=1
  run head2 warpsw $db
  run stream2 warpsw-stream $db
  run items3 warpsw-stream $db WARPSW_STREAM_ITEMS=3
  for f in $OUT/s/*.$db.tsv; do cmp -s $OUT/s/head.$db.tsv $f || echo "$db: $(basename $f) DIFFERS"; done
  echo "$db: hits compared"
  rm -f $OUT/s/*.$db.tsv
done
tar -czf $OUT/s.tgz -C $OUT s && rm -rf $OUT/s
mean() { grep -ho 'in [0-9.]* s = [0-9.]* GCUPS' "$@" | awk '{ s += $5; n++ } END { printf "%.1f", s / n }'; }
h=$(tar -xzOf $OUT/s.tgz s/head.eq128.log s/head2.eq128.log | mean -); s=$(tar -xzOf $OUT/s.tgz s/stream.eq128.log s/stream2.eq128.log | mean -)
echo "eq128 means: main $h, streams $s"
awk -v h=$h -v s=$s 'BEGIN { exit !(s > 1.005 * h) }' || { echo "streams not faster at 128: stop"; echo "== at $(el) s: done"; exit 0; }
for t in gpu_query_pair_hands_over_in_launches_of_part_of_a_chunk gpu_query_batches_match_the_reference; do
  echo "== at $(el) s: streams' test $t, three items a group"
  WARPSW_STREAM_ITEMS=3 timeout 150 ./warpsw-tests-stream --ignored --exact gpu::$t 2>&1 | grep -E "^test |test result|panicked|mismatch"
done
echo "== at $(el) s: side by side with the streams' build"
mv warpsw warpsw-main; cp warpsw-stream warpsw
mkdir -p $OUT/eq
OUT=$OUT/eq WORK=/tmp/equal_lengths timeout $(( 470 - $(el) )) bash equal_lengths.sh 128 256 2>&1 | grep -v "^warpsw: progress"
left=$(( 575 - $(el) ))
if [ $left -gt 60 ]; then
  echo "== at $(el) s: streams' test gpu_query_pairs_match_the_reference, three items a group (limit $left s)"
  WARPSW_STREAM_ITEMS=3 timeout $left ./warpsw-tests-stream --ignored --exact gpu::gpu_query_pairs_match_the_reference 2>&1 | grep -E "^test |test result|panicked|mismatch"
fi
echo "== at $(el) s: done"
