#!/usr/bin/env bash
# One call: the build COMMIT (the page-locked buffer holds a pair's scores from the engine's start)
# and the review's changes to a pair's read-back, against efe04c6 (warpsw-main): the timeline at 1,000,000 x 128 (its first pair's read-back),
# whole searches alternated (two rounds), hits compared; GPU tests of pairs.
cd "$(dirname "$0")"
start=$(date +%s); el() { echo $(( $(date +%s) - start )); }
for f in warpsw warpsw-main warpsw-tests; do [ -f $f ] || xz -d $f.xz & done
for p in $(jobs -p); do wait "$p"; done
chmod +x warpsw warpsw-main warpsw-tests
echo "build $(cat COMMIT), main efe04c6; $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader)"
pids=()
for k in $(seq 0 15); do python3 synthdb.py --sequences 62500 --seed $((k + 1)) --min 128 --max 128 --mean 128 > /tmp/sh_$k.fa & pids+=($!); done
for p in "${pids[@]}"; do wait "$p"; done
cat $(for k in $(seq 0 15); do echo /tmp/sh_$k.fa; done) | awk '/^>/ { print ">s" n++; next } { print }' > /tmp/eq128.fa
./warpsw makedb /tmp/eq128.fa -o /tmp/eq128.wsw > /dev/null; rm -f /tmp/eq128.fa /tmp/sh_*.fa
echo "== at $(el) s: database made"
mkdir -p $OUT/s
for b in warpsw warpsw-main; do
  WARPSW_TIMELINE=on ./$b search -q queries.fasta -d /tmp/eq128.wsw --device gpu --columns qseqid,sseqid,score -o /tmp/t.tsv > $OUT/s/timeline.$b.log 2>&1
  echo "$b, timeline on: $(grep -o 'in [0-9.]* s = [0-9.]* GCUPS' $OUT/s/timeline.$b.log | head -1)"
  grep "timeline (ms" $OUT/s/timeline.$b.log | sed 's/^warpsw: GPU 0 (NVIDIA H200): //' | head -3
  grep -o "GPU start and upload [0-9.]*" $OUT/s/timeline.$b.log
done
for round in 1 2; do
  for b in warpsw-main warpsw; do
    ./$b search -q queries.fasta -d /tmp/eq128.wsw --device gpu --columns qseqid,sseqid,score -o $OUT/s/$b$round.tsv > $OUT/s/$b$round.log 2>&1
    echo "$b $round: $(grep -o 'in [0-9.]* s = [0-9.]* GCUPS' $OUT/s/$b$round.log | head -1) $(grep -o 'GPU start and upload [0-9.]*' $OUT/s/$b$round.log)"
  done
done
for f in $OUT/s/*.tsv; do cmp -s $OUT/s/warpsw-main1.tsv $f || echo "$(basename $f) DIFFERS"; done
echo "hits compared"; rm -f $OUT/s/*.tsv
for t in gpu_query_pairs_beyond_the_page_locked_buffer_match_each_query_alone gpu_query_pair_hands_over_in_launches_of_part_of_a_chunk gpu_query_pairs_match_the_reference; do
  echo "== at $(el) s: test $t"
  timeout 200 ./warpsw-tests --ignored --exact gpu::$t 2>&1 | grep -E "^test |test result|panicked|differ|mismatch"
done
echo "== at $(el) s: done"
