#!/usr/bin/env bash
# One call: page-locked read-back (this build) against main (7e1455a), A/B bench; the 8-residue
# query's timeline; short and standard queries side by side; GPU tests.
cd "$(dirname "$0")"
start=$(date +%s)
xz -dk warpsw.xz; xz -dk warpsw-tests.xz; xz -dc warpsw-main.xz > warpsw-main; chmod +x warpsw-main
xz -dc sprot_half.fasta.xz > sprot_half.fasta
./warpsw makedb sprot_half.fasta -o sprot_half.wsw > /dev/null
echo "build $(cat COMMIT) against main 7e1455a; $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader)"
mkdir -p $OUT/ab
for round in 1 2; do
  for bin in warpsw-main warpsw; do
    for q in short queries; do
      ./$bin bench --query $q.fasta --db sprot_half.wsw --device gpu --kernels auto --gap-open 10 --gap-extend 1 \
        --warmup 1 --repeat $([ $q = short ] && echo 9 || echo 3) > $OUT/ab/${q}_${bin}_$round.log 2>&1
      echo "round $round $bin $q: $(grep '^overall' $OUT/ab/${q}_${bin}_$round.log)"
    done
  done
done
paste <(grep -A23 '^query ' $OUT/ab/short_warpsw-main_2.log) <(grep -A23 '^query ' $OUT/ab/short_warpsw_2.log | awk '{ print $NF }') | head -24
awk '/^>/ { keep = ($1 == ">P41872") } keep' short.fasta > tiny_P41872.fasta
for bin in warpsw-main warpsw; do
  for round in 1 2 3; do
    WARPSW_TIMELINE=chunks ./$bin search -q tiny_P41872.fasta -d sprot_half.wsw --device gpu \
      --stats none --columns qseqid,sseqid,score -o /dev/null > $OUT/ab/tiny_$bin.log 2>&1
  done
  echo "$bin 8 residues: $(grep -o 'timeline (ms.*' $OUT/ab/tiny_$bin.log | head -1)"
done
for q in short queries; do
  for bin in warpsw-main warpsw; do
    ./$bin search -q $q.fasta -d sprot_half.wsw --device gpu --columns qseqid,sseqid,score -o $OUT/ab/$q.$bin.tsv > $OUT/ab/search_${q}_$bin.log 2>&1
    echo "search $q $bin: $(grep -o 'in [0-9.]* s = [0-9.]* GCUPS' $OUT/ab/search_${q}_$bin.log)"
  done
  cmp $OUT/ab/$q.warpsw-main.tsv $OUT/ab/$q.warpsw.tsv && echo "$q: hits equal"; rm -f $OUT/ab/*.tsv
done
tar -czf $OUT/ab.tgz -C $OUT ab && rm -rf $OUT/ab
echo "== at $(( $(date +%s) - start )) s: side by side"
mkdir -p $OUT/short $OUT/sprot
OUT=$OUT/short WORK=/tmp/sidebyside bash sidebyside.sh short.fasta sprot_half.fasta 2>&1 | tail -27
OUT=$OUT/sprot WORK=/tmp/sidebyside bash sidebyside.sh queries.fasta sprot_half.fasta 2>&1 | tail -5
left=$(( 560 - ($(date +%s) - start) ))
echo "== at $(( $(date +%s) - start )) s: GPU tests, $left s"
timeout $left ./warpsw-tests --ignored --test-threads 1 gpu_adversarial_cases \
    gpu_many_long_pairs_beyond_16_bits_are_rescued gpu_query_pairs_match_the_reference \
    gpu_chunks_on_several_streams_match_one_stream_and_the_reference gpu_parted_engine_matches_reference \
    gpu_streamed_workers_on_one_gpu_match_one_engine gpu_engine_reports_progress_per_chunk \
    gpu_query_batches_match_the_reference > $OUT/tests.txt 2>&1
echo "tests rc $?"
grep -E '^(test |test result)|panicked|mismatch' $OUT/tests.txt
