#!/usr/bin/env bash
# One call: the query-group launches in blocks of WARPSW_QG_BLOCK = 128 or 64 threads instead of
# 256 (branch experiment/qg-block, COMMIT; kernels as main's) against main (b94e7af) as
# warpsw-main: whole searches of the 20 standard queries on 1,000,000 x 128, 256, 512 residues,
# 570,000 synthetic and a quarter of Swiss-Prot, alternated, two rounds, hits compared. If a
# block size is faster than main at 128: side by side with CUDASW++ 4.0 at 128 and 256 with it,
# then GPU tests with it.
cd "$(dirname "$0")"
start=$(date +%s); el() { echo $(( $(date +%s) - start )); }
for f in warpsw warpsw-main warpsw-tests; do [ -f $f ] || xz -d $f.xz & done
for p in $(jobs -p); do wait "$p"; done
chmod +x warpsw warpsw-main warpsw-tests
echo "block size $(cat COMMIT), main b94e7af; $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader)"
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
  for round in 1 2; do
    run main$round warpsw-main $db
    run b256.$round warpsw $db
    for B in 128 64; do run b$B.$round warpsw $db WARPSW_QG_BLOCK=$B; done
  done
  for f in $OUT/s/*.$db.tsv; do cmp -s $OUT/s/main1.$db.tsv $f || echo "$db: $(basename $f) DIFFERS"; done
  echo "$db: hits compared"
  rm -f $OUT/s/*.$db.tsv
done
tar -czf $OUT/s.tgz -C $OUT s && rm -rf $OUT/s
mean() { grep -ho 'in [0-9.]* s = [0-9.]* GCUPS' "$@" | awk '{ s += $5; n++ } END { printf "%.1f", s / n }'; }
h=$(tar -xzOf $OUT/s.tgz s/main1.eq128.log s/main2.eq128.log | mean -)
best=0; bestB=
for B in 256 128 64; do
  m=$(tar -xzOf $OUT/s.tgz s/b$B.1.eq128.log s/b$B.2.eq128.log | mean -)
  echo "eq128 means: main $h, block $B $m"
  if [ $B != 256 ] && awk -v m=$m -v b=$best -v h=$h 'BEGIN { exit !(m > b && m > 1.01 * h) }'; then best=$m; bestB=$B; fi
done
if [ -n "$bestB" ]; then
  export WARPSW_QG_BLOCK=$bestB
  echo "== at $(el) s: side by side, blocks of $bestB"
  mkdir -p $OUT/eq
  OUT=$OUT/eq WORK=/tmp/equal_lengths timeout $(( 430 - $(el) )) bash equal_lengths.sh 128 256 2>&1 | grep -v "^warpsw: progress"
  for t in gpu_query_pair_hands_over_in_launches_of_part_of_a_chunk gpu_query_batches_match_the_reference gpu_query_pairs_match_the_reference; do
    left=$(( 585 - $(el) ))
    [ $left -gt 30 ] || break
    echo "== at $(el) s: test $t, blocks of $bestB (limit $left s)"
    timeout $left ./warpsw-tests --ignored --exact gpu::$t 2>&1 | grep -E "^test |test result|panicked|mismatch"
  done
else
  echo "no block size faster than main at 128"
fi
echo "== at $(el) s: done"
