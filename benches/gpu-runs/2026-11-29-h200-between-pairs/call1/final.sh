#!/usr/bin/env bash
# One call: against main (8046c66, warpsw-main), the build COMMIT (main with the next pair's
# profiles built on the host while the GPU scores, and two-query configurations of four
# lanes that run only when pinned): whole searches of the 20 standard queries on 1,000,000 x 128
# and 256 residues (three rounds, alternated) and a quarter of Swiss-Prot (two), hits compared;
# then the two-query configurations pinned (g8_r20 against g4_r24/r28/r32) at 128 and 256;
# the build's timeline at 128; then GPU tests of the build.
cd "$(dirname "$0")"
start=$(date +%s); el() { echo $(( $(date +%s) - start )); }
for f in warpsw warpsw-main warpsw-tests; do [ -f $f ] || xz -d $f.xz & done
for p in $(jobs -p); do wait "$p"; done
chmod +x warpsw warpsw-main warpsw-tests
echo "build $(cat COMMIT), main 8046c66; $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader)"
xz -dc sprot_quarter.fasta.xz > /tmp/sprot_quarter.fa & psp=$!
synth() {
  local name=$1 per=$2 pids=(); shift 2
  for k in $(seq 0 15); do python3 synthdb.py --sequences $per --seed $((k + 1)) "$@" > /tmp/sh${name}_$k.fa & pids+=($!); done
  for p in "${pids[@]}"; do wait "$p"; done
  cat $(for k in $(seq 0 15); do echo /tmp/sh${name}_$k.fa; done) | awk '/^>/ { print ">s" n++; next } { print }' > /tmp/$name.fa
  rm -f /tmp/sh${name}_*.fa; ./warpsw makedb /tmp/$name.fa -o /tmp/$name.wsw > /dev/null; rm -f /tmp/$name.fa
}
for L in 128 256; do synth eq$L 62500 --min $L --max $L --mean $L; done
wait $psp; ./warpsw makedb /tmp/sprot_quarter.fa -o /tmp/sprot_quarter.wsw > /dev/null; rm -f /tmp/sprot_quarter.fa
echo "== at $(el) s: databases made"
mkdir -p $OUT/s
run() {
  local label=$1 bin=$2 db=$3; shift 3
  env "$@" ./$bin search -q queries.fasta -d /tmp/$db.wsw --device gpu \
    --columns qseqid,sseqid,score -o $OUT/s/$label.$db.tsv > $OUT/s/$label.$db.log 2>&1
  echo "$db $label: $(grep -o 'in [0-9.]* s = [0-9.]* GCUPS' $OUT/s/$label.$db.log | head -1) $(grep -i -m1 'error\|panic' $OUT/s/$label.$db.log)"
}
P=WARPSW_QUERY_GROUP_CONFIG
for db in eq128 eq256 sprot_quarter; do
  rounds="1 2 3"; [ $db = sprot_quarter ] && rounds="1 2"
  for round in $rounds; do
    run main$round warpsw-main $db
    run ahead$round warpsw $db
  done
  if [ $db != sprot_quarter ]; then
    for round in 1 2; do
      for c in g8_r20_queries g4_r24_queries g4_r28_queries g4_r32_queries; do
        [ $db = eq256 ] && [ $c = g4_r24_queries ] && continue
        run pin-$c-$round warpsw $db $P=$c
      done
    done
  fi
  for f in $OUT/s/*.$db.tsv; do cmp -s $OUT/s/main1.$db.tsv $f || echo "$db: $(basename $f) DIFFERS"; done
  echo "$db: hits compared"
  rm -f $OUT/s/*.$db.tsv
done
WARPSW_TIMELINE=on ./warpsw search -q queries.fasta -d /tmp/eq128.wsw --device gpu --columns qseqid,sseqid,score -o /tmp/t.tsv > $OUT/s/timeline.eq128.log 2>&1
echo "eq128 build, timeline on: $(grep -o 'in [0-9.]* s = [0-9.]* GCUPS' $OUT/s/timeline.eq128.log | head -1)"
grep "timeline (ms" $OUT/s/timeline.eq128.log | sed 's/^warpsw: GPU 0 (NVIDIA H200): //'
tar -czf $OUT/s.tgz -C $OUT s && rm -rf $OUT/s
mean() { grep -ho 'in [0-9.]* s = [0-9.]* GCUPS' "$@" | awk '{ s += $5; n++ } END { printf "%.1f", s / n }'; }
for db in eq128 eq256 sprot_quarter; do
  line="$db means:"
  for l in main ahead pin-g8_r20_queries pin-g4_r24_queries pin-g4_r28_queries pin-g4_r32_queries; do
    files=$(tar -tzf $OUT/s.tgz | grep "/$l-\?[0-9]\.$db\.log")
    [ -n "$files" ] && line="$line $l $(echo "$files" | xargs tar -xzOf $OUT/s.tgz | mean -)"
  done
  echo "$line"
done
for t in gpu_query_pairs_match_the_reference gpu_parted_engine_matches_reference gpu_query_pair_hands_over_in_launches_of_part_of_a_chunk gpu_query_group_matches_the_reference; do
  left=$(( 560 - $(el) ))
  [ $left -gt 20 ] || { echo "== not run for lack of time: $t"; continue; }
  echo "== at $(el) s: test $t (limit $left s)"
  timeout $left ./warpsw-tests --ignored --exact gpu::$t 2>&1 | grep -E "^test |test result|panicked|mismatch"
done
echo "== at $(el) s: done"
