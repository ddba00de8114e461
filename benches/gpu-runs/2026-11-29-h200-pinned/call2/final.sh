#!/usr/bin/env bash
# One call: GPU tests of the page-locked read-back, each timed; the 8-residue query's timeline and
# short.fasta bench against main (7e1455a); 1,000,000 x 128 residues bench against main.
cd "$(dirname "$0")"
start=$(date +%s)
xz -dk warpsw.xz; xz -dk warpsw-tests.xz; xz -dc warpsw-main.xz > warpsw-main; chmod +x warpsw-main
echo "build $(cat COMMIT) against main 7e1455a; $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader)"
# the 1M x 128 database made in the background while the tests run (CPU only)
( for s in $(seq 1 16); do python3 synthdb.py --sequences 62500 --min 128 --max 128 --mean 128 --seed $((12800 + s)) > /tmp/eq128_$s.fa & done; wait
  cat /tmp/eq128_*.fa | awk '/^>/ { printf ">eq%07d\n", n++; next } { print }' > /tmp/eq128.fa; rm -f /tmp/eq128_*.fa ) > /dev/null 2>&1 &
dbpid=$!
xz -dc sprot_half.fasta.xz > sprot_half.fasta
./warpsw makedb sprot_half.fasta -o sprot_half.wsw > /dev/null
for t in gpu_parted_engine_matches_reference gpu_query_pairs_match_the_reference \
    gpu_query_pair_hands_over_in_launches_of_part_of_a_chunk gpu_streamed_workers_on_one_gpu_match_one_engine \
    gpu_two_workers_on_one_gpu_match_one_engine gpu_split_parts_on_one_gpu_match_one_engine \
    gpu_query_batches_match_the_reference; do
  left=$(( 330 - ($(date +%s) - start) )); [ $left -lt 10 ] && { echo "$t: not run (time)"; continue; }
  s=$(date +%s)
  timeout $left ./warpsw-tests --ignored --exact gpu::$t > $OUT/test_$t.txt 2>&1; rc=$?
  echo "$t: rc $rc in $(( $(date +%s) - s )) s: $(grep -E '^test result|panicked' $OUT/test_$t.txt | head -2)"
done
cat $OUT/test_*.txt > $OUT/tests.txt; rm -f $OUT/test_*.txt
echo "== at $(( $(date +%s) - start )) s: 8 residues"
mkdir -p $OUT/ab
awk '/^>/ { keep = ($1 == ">P41872") } keep' short.fasta > tiny_P41872.fasta
for bin in warpsw-main warpsw; do
  for round in 1 2 3; do
    WARPSW_TIMELINE=chunks ./$bin search -q tiny_P41872.fasta -d sprot_half.wsw --device gpu \
      --stats none --columns qseqid,sseqid,score -o /dev/null > $OUT/ab/tiny_$bin.log 2>&1
  done
  echo "$bin 8 residues: $(grep -o 'timeline (ms.*' $OUT/ab/tiny_$bin.log | head -1)"
  echo "$bin 8 residues: $(grep -o 'in [0-9.]* s = [0-9.]* GCUPS' $OUT/ab/tiny_$bin.log | head -1)"
done
for bin in warpsw-main warpsw; do
  ./$bin bench --query short.fasta --db sprot_half.wsw --device gpu --kernels auto --gap-open 10 --gap-extend 1 \
    --warmup 1 --repeat 9 > $OUT/ab/short_$bin.log 2>&1
  echo "$bin short: $(grep '^overall' $OUT/ab/short_$bin.log)"
done
paste <(grep -A23 '^query ' $OUT/ab/short_warpsw-main.log) <(grep -A23 '^query ' $OUT/ab/short_warpsw.log | awk '{ print $NF }') | head -6
echo "== at $(( $(date +%s) - start )) s: 1,000,000 x 128"
wait $dbpid
./warpsw makedb /tmp/eq128.fa -o /tmp/eq128.wsw | tail -1
for round in 1 2; do
  for bin in warpsw-main warpsw; do
    ./$bin bench --query queries.fasta --db /tmp/eq128.wsw --device gpu --kernels auto --gap-open 10 --gap-extend 1 \
      --warmup 1 --repeat 3 > $OUT/ab/eq128_${bin}_$round.log 2>&1
    echo "round $round $bin eq128: $(grep '^overall' $OUT/ab/eq128_${bin}_$round.log)"
  done
done
for bin in warpsw-main warpsw; do
  /usr/bin/time -f "WALL %e" ./$bin search -q queries.fasta -d /tmp/eq128.wsw --device gpu --columns qseqid,sseqid,score -o $OUT/ab/eq.$bin.tsv > $OUT/ab/search_eq128_$bin.log 2>&1
  echo "search eq128 $bin: $(grep -o 'in [0-9.]* s = [0-9.]* GCUPS' $OUT/ab/search_eq128_$bin.log) $(grep WALL $OUT/ab/search_eq128_$bin.log)"
done
cmp $OUT/ab/eq.warpsw-main.tsv $OUT/ab/eq.warpsw.tsv && echo "eq128: hits equal"; rm -f $OUT/ab/*.tsv
tar -czf $OUT/ab.tgz -C $OUT ab && rm -rf $OUT/ab
echo "== at $(( $(date +%s) - start )) s: done"
