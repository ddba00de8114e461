#!/usr/bin/env bash
# One call: streamed pairs, fourth version (branch experiment/stream-items, 9468925: the
# border's predicate and slot worked out once an iteration) against main (COMMIT):
# whole searches on 1,000,000 x 128, 256 and 512 residues and the 570,000 synthetic
# database, hits compared; main's on/off switches (WARPSW_SASS, WARPSW_EVENT_TRACKING,
# WARPSW_HAND_OVER) on the GPU; main's GPU tests of pairs and hand-over; if the streams
# run faster at 128 residues, the branch's GPU tests of the query-group kernel.
cd "$(dirname "$0")"
start=$(date +%s)
el() { echo $(( $(date +%s) - start )); }
for f in warpsw warpsw-stream warpsw-tests warpsw-tests-stream; do xz -d $f.xz & done
for p in $(jobs -p); do wait "$p"; done
chmod +x warpsw warpsw-stream warpsw-tests warpsw-tests-stream
echo "main $(cat COMMIT), streams 9468925; $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader)"
python3 synthdb.py --sequences 570000 --seed 1 > /tmp/synth570k.fa & p570=$!
synth() { # name sequences-per-shard synthdb-args...: /tmp/name.wsw, 16 shards side by side
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
run() { # label binary db [env...]
  local label=$1 bin=$2 db=$3; shift 3
  env "$@" ./$bin search -q queries.fasta -d /tmp/$db.wsw --device gpu \
    --columns qseqid,sseqid,score -o $OUT/s/$label.$db.tsv > $OUT/s/$label.$db.log 2>&1
  echo "$db $label: $(grep -o 'in [0-9.]* s = [0-9.]* GCUPS' $OUT/s/$label.$db.log | head -1) $(grep -o '(sm_[0-9]*, [a-zA-Z ]*)' $OUT/s/$label.$db.log | head -1) $(grep -i -m1 'error\|panic' $OUT/s/$label.$db.log)"
}
for db in eq128 eq256 eq512 synth570k; do
  run head warpsw $db
  run stream warpsw-stream $db
  run items1 warpsw-stream $db WARPSW_STREAM_ITEMS=1
  run head2 warpsw $db
  run stream2 warpsw-stream $db
  run head3 warpsw $db
  run stream3 warpsw-stream $db
  for f in $OUT/s/*.$db.tsv; do cmp -s $OUT/s/head.$db.tsv $f || echo "$db: $f DIFFERS"; done
  echo "$db: hits compared"
  [ $db = eq128 ] || rm -f $OUT/s/*.$db.tsv
done
echo "== at $(el) s: main's switches on the GPU (eq128)"
run sass_off warpsw eq128 WARPSW_SASS=off
run tracking_off warpsw eq128 WARPSW_EVENT_TRACKING=off
run handover_off warpsw eq128 WARPSW_HAND_OVER=off
for l in sass_off tracking_off handover_off; do cmp -s $OUT/s/head.eq128.tsv $OUT/s/$l.eq128.tsv && echo "$l: hits equal" || echo "$l: hits DIFFER"; done
WARPSW_HAND_OVER=maybe ./warpsw search -q queries.fasta -d /tmp/eq128.wsw --device gpu -o /tmp/bad.tsv > $OUT/s/bad_switch.log 2>&1
echo "WARPSW_HAND_OVER=maybe: exit $?, $(head -c 300 $OUT/s/bad_switch.log), output file: $(ls /tmp/bad.tsv 2>&1)"
rm -f $OUT/s/*.tsv
echo "== at $(el) s: main's GPU tests"
./warpsw-tests --ignored --exact gpu::gpu_query_pair_hands_over_in_launches_of_part_of_a_chunk gpu::gpu_adversarial_cases 2>&1 | grep -E "^test |test result" 
mean() { grep -ho 'in [0-9.]* s = [0-9.]* GCUPS' "$@" | awk '{ s += $5; n++ } END { printf "%.1f", s / n }'; }
h=$(mean $OUT/s/head*.eq128.log); s=$(mean $OUT/s/stream*.eq128.log)
echo "eq128 means: main $h, streams $s"
if awk -v h=$h -v s=$s 'BEGIN { exit !(s > 1.01 * h) }'; then
  for t in gpu_query_pair_hands_over_in_launches_of_part_of_a_chunk gpu_query_batches_match_the_reference gpu_query_pairs_match_the_reference gpu_query_group_matches_the_reference; do
    left=$(( 570 - $(el) )); [ $left -gt 30 ] || { echo "no time left for $t"; continue; }
    echo "== at $(el) s: streams' test $t (limit ${left} s)"
    timeout $left ./warpsw-tests-stream --ignored --exact gpu::$t 2>&1 | grep -E "^test |test result|panicked"
  done
else
  echo "streams not faster at 128 residues: their GPU tests not run"
fi
tar -czf $OUT/s.tgz -C $OUT s && rm -rf $OUT/s
echo "== at $(el) s: done"
