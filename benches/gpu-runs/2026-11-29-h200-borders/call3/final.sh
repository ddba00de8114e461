#!/usr/bin/env bash
# One call: the build COMMIT (two queries' windows copied a slice a thread, on top of the borders
# loaded in their own iteration) against 69ca36e (the borders alone, warpsw-b) and main a7aec15
# (warpsw-main): whole searches alternated on 1,000,000 x 128 / 256 residues and a quarter of
# Swiss-Prot, hits compared; then the GPU tests of two queries (pairs, batches, hand-over).
cd "$(dirname "$0")"
start=$(date +%s); el() { echo $(( $(date +%s) - start )); }
for f in warpsw warpsw-b warpsw-main warpsw-tests; do [ -f $f ] || xz -d $f.xz & done
for p in $(jobs -p); do wait "$p"; done
chmod +x warpsw warpsw-b warpsw-main warpsw-tests
echo "build $(cat COMMIT), b 69ca36e, main a7aec15; $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader)"
xz -dc sprot_quarter.fasta.xz > /tmp/sprotq.fa &
qp=$!
for L in 128 256; do
  pids=()
  for k in $(seq 0 15); do python3 synthdb.py --sequences 62500 --seed $((k + 1)) --min $L --max $L --mean $L > /tmp/sh_$k.fa & pids+=($!); done
  for p in "${pids[@]}"; do wait "$p"; done
  cat $(for k in $(seq 0 15); do echo /tmp/sh_$k.fa; done) | awk '/^>/ { print ">s" n++; next } { print }' > /tmp/eq$L.fa
  ./warpsw makedb /tmp/eq$L.fa -o /tmp/eq$L.wsw > /dev/null; rm -f /tmp/eq$L.fa /tmp/sh_*.fa
done
wait $qp; ./warpsw makedb /tmp/sprotq.fa -o /tmp/sprotq.wsw > /dev/null; rm -f /tmp/sprotq.fa
echo "== at $(el) s: databases made"
mkdir -p /tmp/s
for db in eq128 eq256 sprotq; do
  rounds=2; [ $db = eq128 ] && rounds=3
  for round in $(seq 1 $rounds); do
    for b in warpsw-main warpsw-b warpsw; do
      ./$b search -q queries.fasta -d /tmp/$db.wsw --device gpu --columns qseqid,sseqid,score -o /tmp/s/$db-$b$round.tsv > /tmp/s/$db-$b$round.log 2>&1
      echo "$db $b $round: $(grep -o 'in [0-9.]* s = [0-9.]* GCUPS' /tmp/s/$db-$b$round.log | head -1) $(grep -i -m1 'error\|panic' /tmp/s/$db-$b$round.log)"
    done
  done
  for f in /tmp/s/$db-*.tsv; do cmp -s /tmp/s/$db-warpsw-main1.tsv $f || echo "$(basename $f) DIFFERS"; done
  echo "$db hits compared"; rm -f /tmp/s/$db-*.tsv
done
WARPSW_TIMELINE=on ./warpsw search -q queries.fasta -d /tmp/eq128.wsw --device gpu --columns qseqid,sseqid,score -o /tmp/t.tsv > /tmp/s/timeline.log 2>&1
tar czf $OUT/searches.tgz -C /tmp s
echo "== at $(el) s: searches done"
for t in gpu_query_pair_hands_over_in_launches_of_part_of_a_chunk gpu_query_batches_match_the_reference gpu_query_pairs_match_the_reference; do
  echo "== at $(el) s: test $t"
  timeout 220 ./warpsw-tests --ignored --exact gpu::$t 2>&1 | grep -E "^test |test result|panicked|differ|mismatch"
done
echo "== at $(el) s: done"
