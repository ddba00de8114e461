#!/usr/bin/env bash
# One call: against main (e401e91, warpsw-main), the build COMMIT (a pair's scores staged in the
# page-locked buffer and copied out after the next pair is launched): whole searches of the 20
# standard queries on 1,000,000 x 128 and 256 residues (three rounds, alternated) and a quarter
# of Swiss-Prot (two), hits compared; the build's timeline at 128; its new GPU test; then side by
# side with CUDASW++ 4.0 at 128, 256 and 512 residues (the build where it was no slower, else
# main); then the pairs' GPU test if time is left.
cd "$(dirname "$0")"
start=$(date +%s); el() { echo $(( $(date +%s) - start )); }
for f in warpsw warpsw-main warpsw-tests; do [ -f $f ] || xz -d $f.xz & done
for p in $(jobs -p); do wait "$p"; done
chmod +x warpsw warpsw-main warpsw-tests
echo "build $(cat COMMIT), main e401e91; $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader)"
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
for db in eq128 eq256 sprot_quarter; do
  rounds="1 2 3"; [ $db = sprot_quarter ] && rounds="1 2"
  for round in $rounds; do
    run main$round warpsw-main $db
    run staged$round warpsw $db
  done
  for f in $OUT/s/*.$db.tsv; do cmp -s $OUT/s/main1.$db.tsv $f || echo "$db: $(basename $f) DIFFERS"; done
  echo "$db: hits compared"
  rm -f $OUT/s/*.$db.tsv
done
WARPSW_TIMELINE=on ./warpsw search -q queries.fasta -d /tmp/eq128.wsw --device gpu --columns qseqid,sseqid,score -o /tmp/t.tsv > $OUT/s/timeline.eq128.log 2>&1
echo "eq128 build, timeline on: $(grep -o 'in [0-9.]* s = [0-9.]* GCUPS' $OUT/s/timeline.eq128.log | head -1)"
grep "timeline (ms" $OUT/s/timeline.eq128.log | sed 's/^warpsw: GPU 0 (NVIDIA H200): //'
tar -czf $OUT/s.tgz -C $OUT s && rm -rf $OUT/s
rm -f /tmp/eq128.wsw /tmp/eq256.wsw /tmp/sprot_quarter.wsw
mean() { grep -ho 'in [0-9.]* s = [0-9.]* GCUPS' "$@" | awk '{ s += $5; n++ } END { printf "%.1f", s / n }'; }
use=warpsw
for db in eq128 eq256 sprot_quarter; do
  h=$(tar -tzf $OUT/s.tgz | grep "/main.\.$db\.log" | xargs tar -xzOf $OUT/s.tgz | mean -)
  o=$(tar -tzf $OUT/s.tgz | grep "/staged.\.$db\.log" | xargs tar -xzOf $OUT/s.tgz | mean -)
  echo "$db means: main $h, staged $o"
  case $db in eq128|eq256) awk -v h=$h -v o=$o 'BEGIN { exit !(o < 0.995 * h) }' && use=warpsw-main ;; esac
done
t=gpu_query_pairs_beyond_the_page_locked_buffer_match_each_query_alone
echo "== at $(el) s: test $t"
timeout 150 ./warpsw-tests --ignored --exact gpu::$t 2>&1 | grep -E "^test |test result|panicked|differ"
echo "== at $(el) s: side by side with $use"
if [ $use = warpsw-main ]; then mv warpsw warpsw-staged; cp warpsw-main warpsw; fi
mkdir -p $OUT/eq
OUT=$OUT/eq WORK=/tmp/equal_lengths timeout $(( 480 - $(el) )) bash equal_lengths.sh 128 256 512 2>&1 | grep -v "^warpsw: progress"
[ $use = warpsw-main ] && mv warpsw-staged warpsw
t=gpu_query_pairs_match_the_reference
left=$(( 570 - $(el) ))
if [ $left -gt 130 ]; then
  echo "== at $(el) s: test $t (limit $left s)"
  timeout $left ./warpsw-tests --ignored --exact gpu::$t 2>&1 | grep -E "^test |test result|panicked|mismatch"
else
  echo "== not run for lack of time: $t"
fi
echo "== at $(el) s: done"
