#!/usr/bin/env bash
# One call: a pair's scores' host memory written while the GPU scores (branch touched-scores, COMMIT)
# against main (b94e7af) as warpsw-main: whole searches of the 20 standard queries on
# 1,000,000 x 128 and 256 residues (three rounds), 512, 570,000 synthetic and a quarter of
# Swiss-Prot (two rounds), alternated, hits compared; the branch's timeline at 128 and 256. Then
# side by side with CUDASW++ 4.0 at 128 and 256 residues (the branch's build where it was no
# slower at both, else main's), then the branch's GPU tests of query pairs.
cd "$(dirname "$0")"
start=$(date +%s); el() { echo $(( $(date +%s) - start )); }
for f in warpsw warpsw-main warpsw-tests; do [ -f $f ] || xz -d $f.xz & done
for p in $(jobs -p); do wait "$p"; done
chmod +x warpsw warpsw-main warpsw-tests
echo "touched scores $(cat COMMIT), main b94e7af; $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader)"
python3 synthdb.py --sequences 570000 --seed 1 > /tmp/synth570k.fa & p570=$!
xz -dc sprot_quarter.fasta.xz > /tmp/sprot_quarter.fa & psp=$!
synth() {
  local name=$1 per=$2 pids=(); shift 2
  for k in $(seq 0 15); do python3 synthdb.py --sequences $per --seed $((k + 1)) "$@" > /tmp/sh${name}_$k.fa & pids+=($!); done
  for p in "${pids[@]}"; do wait "$p"; done
  cat $(for k in $(seq 0 15); do echo /tmp/sh${name}_$k.fa; done) | awk '/^>/ { print ">s" n++; next } { print }' > /tmp/$name.fa
  rm -f /tmp/sh${name}_*.fa; ./warpsw makedb /tmp/$name.fa -o /tmp/$name.wsw > /dev/null; rm -f /tmp/$name.fa
}
for L in 128 256 512; do synth eq$L 62500 --min $L --max $L --mean $L; done
wait $p570; ./warpsw makedb /tmp/synth570k.fa -o /tmp/synth570k.wsw > /dev/null; rm -f /tmp/synth570k.fa
wait $psp; ./warpsw makedb /tmp/sprot_quarter.fa -o /tmp/sprot_quarter.wsw > /dev/null; rm -f /tmp/sprot_quarter.fa
echo "== at $(el) s: databases made"
mkdir -p $OUT/s
run() {
  local label=$1 bin=$2 db=$3; shift 3
  env "$@" ./$bin search -q queries.fasta -d /tmp/$db.wsw --device gpu \
    --columns qseqid,sseqid,score -o $OUT/s/$label.$db.tsv > $OUT/s/$label.$db.log 2>&1
  echo "$db $label: $(grep -o 'in [0-9.]* s = [0-9.]* GCUPS' $OUT/s/$label.$db.log | head -1) $(grep -i -m1 'error\|panic' $OUT/s/$label.$db.log)"
}
for db in eq128 eq256 eq512 synth570k sprot_quarter; do
  rounds="1 2"; case $db in eq128|eq256) rounds="1 2 3" ;; esac
  for round in $rounds; do
    run main$round warpsw-main $db
    run touch$round warpsw $db
  done
  for f in $OUT/s/*.$db.tsv; do cmp -s $OUT/s/main1.$db.tsv $f || echo "$db: $(basename $f) DIFFERS"; done
  echo "$db: hits compared"
  rm -f $OUT/s/*.$db.tsv
done
for db in eq128 eq256; do
  WARPSW_TIMELINE=on ./warpsw search -q queries.fasta -d /tmp/$db.wsw --device gpu --columns qseqid,sseqid,score -o /tmp/t.tsv > $OUT/s/timeline.$db.log 2>&1
  echo "$db touched, timeline on: $(grep -o 'in [0-9.]* s = [0-9.]* GCUPS' $OUT/s/timeline.$db.log | head -1)"
  grep "timeline (ms" $OUT/s/timeline.$db.log | sed 's/^warpsw: GPU 0 (NVIDIA H200): //'
done
tar -czf $OUT/s.tgz -C $OUT s && rm -rf $OUT/s
mean() { grep -ho 'in [0-9.]* s = [0-9.]* GCUPS' "$@" | awk '{ s += $5; n++ } END { printf "%.1f", s / n }'; }
use=warpsw
for db in eq128 eq256 eq512 synth570k sprot_quarter; do
  h=$(tar -tzf $OUT/s.tgz | grep "/main.\.$db\.log" | xargs tar -xzOf $OUT/s.tgz | mean -)
  o=$(tar -tzf $OUT/s.tgz | grep "/touch.\.$db\.log" | xargs tar -xzOf $OUT/s.tgz | mean -)
  echo "$db means: main $h, touched $o"
  case $db in eq128|eq256) awk -v h=$h -v o=$o 'BEGIN { exit !(o < 0.995 * h) }' && use=warpsw-main ;; esac
done
echo "== at $(el) s: side by side with $use"
if [ $use = warpsw-main ]; then mv warpsw warpsw-touched; cp warpsw-main warpsw; fi
mkdir -p $OUT/eq
OUT=$OUT/eq WORK=/tmp/equal_lengths timeout $(( 330 - $(el) )) bash equal_lengths.sh 128 256 2>&1 | grep -v "^warpsw: progress"
for t in gpu_query_pair_hands_over_in_launches_of_part_of_a_chunk gpu_query_pairs_match_the_reference; do
  left=$(( 500 - $(el) ))
  [ $left -gt 30 ] || break
  echo "== at $(el) s: the branch's test $t (limit $left s)"
  timeout $left ./warpsw-tests --ignored --exact gpu::$t 2>&1 | grep -E "^test |test result|panicked|mismatch"
done
echo "== at $(el) s: done"
