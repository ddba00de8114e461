#!/usr/bin/env bash
# One call at e686435 (eb35555's code): a database streamed through 2 GiB against resident, this
# build and main (7e1455a), the parted engines now page-locking their read-back buffer at build;
# 1,000,000 x 512 residues: whole searches with batches of 10 (auto), 20, 40, pairs only (2) and
# one query a launch.
cd "$(dirname "$0")"
start=$(date +%s)
xz -dk warpsw.xz; xz -dc warpsw-main.xz > warpsw-main; chmod +x warpsw-main
echo "build $(cat COMMIT); $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader)"
pids=()
for k in $(seq 0 15); do python3 synthdb.py --sequences 156250 --seed $((k + 1)) > /tmp/shard$k.fa & pids+=($!); done
for p in "${pids[@]}"; do wait "$p"; done
awk '/^>/ { print ">s" n++; next } { print }' /tmp/shard{0..15}.fa > /tmp/synth2500k.fa; rm -f /tmp/shard*.fa
./warpsw makedb /tmp/synth2500k.fa -o synth2500k.wsw | tail -1; rm -f /tmp/synth2500k.fa
mkdir -p $OUT/s
for round in 1 2; do
  for bin in warpsw-main warpsw; do
    for memory in "" 2GiB; do
      [ $round = 2 ] && [ $bin = warpsw-main ] && continue
      l=$OUT/s/streamed_${bin}_${memory:-resident}_$round.log
      /usr/bin/time -f "whole process %e s" ./$bin search -q queries.fasta -d synth2500k.wsw --device gpu \
        ${memory:+--gpu-memory $memory} --columns qseqid,sseqid,score -o /tmp/st_${bin}_${memory:-resident}.tsv > $l 2>&1
      echo "$bin ${memory:-resident} round $round: $(grep -o 'in [0-9.]* s = [0-9.]* GCUPS' $l | head -1); $(tail -1 $l)"
    done
  done
done
for f in /tmp/st_*.tsv; do cmp /tmp/st_warpsw_resident.tsv $f || echo "$f differs"; done; echo "streamed outputs compared"
rm -f synth2500k.wsw /tmp/st_*.tsv
echo "== at $(( $(date +%s) - start )) s: 1,000,000 x 512"
pids=()
for s in $(seq 1 16); do python3 synthdb.py --sequences 62500 --min 512 --max 512 --mean 512 --seed $((51200 + s)) > /tmp/eq512_$s.fa & pids+=($!); done
for p in "${pids[@]}"; do wait "$p"; done
cat /tmp/eq512_{1..16}.fa | awk '/^>/ { printf ">eq%07d\n", n++; next } { print }' > /tmp/eq512.fa; rm -f /tmp/eq512_*.fa
./warpsw makedb /tmp/eq512.fa -o /tmp/eq512.wsw | tail -1; rm -f /tmp/eq512.fa
for round in 1 2; do
  for args in "" "--gpu-query-batch 20" "--gpu-query-batch 40" "--gpu-query-batch 2" "--one-query-a-launch"; do
    tag=$(echo "${args:-auto}" | tr -d ' -')
    l=$OUT/s/eq512_${tag}_$round.log
    ./warpsw search -q queries.fasta -d /tmp/eq512.wsw --device gpu $args --stats none --columns qseqid,sseqid,score \
      -o /tmp/eq_$tag.tsv > $l 2>&1
    echo "eq512 ${args:-auto} round $round: $(grep -o 'in [0-9.]* s = [0-9.]* GCUPS' $l | head -1)"
  done
done
for f in /tmp/eq_*.tsv; do cmp /tmp/eq_auto.tsv $f || echo "$f differs"; done; echo "eq512 outputs compared"
tar -czf $OUT/logs.tgz -C $OUT s && rm -rf $OUT/s
echo "== at $(( $(date +%s) - start )) s: done"
