#!/usr/bin/env bash
# One call: the build COMMIT (lane 0's left borders loaded in their own iteration) against main
# a7aec15 (warpsw-main): whole searches alternated on 1,000,000 x 128 / 256 / 512 residues and a
# quarter of Swiss-Prot, hits compared; then the GPU tests of the query-group kernels.
cd "$(dirname "$0")"
start=$(date +%s); el() { echo $(( $(date +%s) - start )); }
for f in warpsw warpsw-main warpsw-tests; do [ -f $f ] || xz -d $f.xz & done
for p in $(jobs -p); do wait "$p"; done
chmod +x warpsw warpsw-main warpsw-tests
echo "build $(cat COMMIT), main a7aec15; $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader)"
xz -dc sprot_quarter.fasta.xz > /tmp/sprotq.fa &
qp=$!
for L in 128 256 512; do
  pids=()
  for k in $(seq 0 15); do python3 synthdb.py --sequences 62500 --seed $((k + 1)) --min $L --max $L --mean $L > /tmp/sh_$k.fa & pids+=($!); done
  for p in "${pids[@]}"; do wait "$p"; done
  cat $(for k in $(seq 0 15); do echo /tmp/sh_$k.fa; done) | awk '/^>/ { print ">s" n++; next } { print }' > /tmp/eq$L.fa
  ./warpsw makedb /tmp/eq$L.fa -o /tmp/eq$L.wsw > /dev/null; rm -f /tmp/eq$L.fa /tmp/sh_*.fa
done
wait $qp; ./warpsw makedb /tmp/sprotq.fa -o /tmp/sprotq.wsw > /dev/null; rm -f /tmp/sprotq.fa
echo "== at $(el) s: databases made"
mkdir -p $OUT/s
for db in eq128 eq256 eq512 sprotq; do
  rounds=2; [ $db = eq128 ] && rounds=3
  for round in $(seq 1 $rounds); do
    for b in warpsw-main warpsw; do
      ./$b search -q queries.fasta -d /tmp/$db.wsw --device gpu --columns qseqid,sseqid,score -o $OUT/s/$db-$b$round.tsv > $OUT/s/$db-$b$round.log 2>&1
      echo "$db $b $round: $(grep -o 'in [0-9.]* s = [0-9.]* GCUPS' $OUT/s/$db-$b$round.log | head -1) $(grep -i -m1 'error\|panic' $OUT/s/$db-$b$round.log)"
    done
  done
  for f in $OUT/s/$db-*.tsv; do cmp -s $OUT/s/$db-warpsw-main1.tsv $f || echo "$(basename $f) DIFFERS"; done
  echo "$db hits compared"; rm -f $OUT/s/$db-*.tsv
done
WARPSW_TIMELINE=on ./warpsw search -q queries.fasta -d /tmp/eq128.wsw --device gpu --columns qseqid,sseqid,score -o /tmp/t.tsv > $OUT/s/timeline.log 2>&1
echo "== at $(el) s: searches done"
for t in gpu_query_pair_hands_over_in_launches_of_part_of_a_chunk gpu_query_pairs_match_the_reference gpu_query_group_matches_the_reference; do
  echo "== at $(el) s: test $t"
  timeout 220 ./warpsw-tests --ignored --exact gpu::$t 2>&1 | grep -E "^test |test result|panicked|differ|mismatch"
done
echo "== at $(el) s: done"
