#!/usr/bin/env bash
# One call: two-query configurations capped for three blocks a multiprocessor (COMMIT, branch
# experiment/three-blocks), pinned, against the same widths at two blocks: whole searches of the
# 20 standard queries on 1,000,000 x 128 residues, two rounds alternated, hits compared.
cd "$(dirname "$0")"
start=$(date +%s); el() { echo $(( $(date +%s) - start )); }
[ -f warpsw ] || xz -d warpsw.xz
chmod +x warpsw
echo "build $(cat COMMIT); $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader)"
pids=()
for k in $(seq 0 15); do python3 synthdb.py --sequences 62500 --seed $((k + 1)) --min 128 --max 128 --mean 128 > /tmp/sh_$k.fa & pids+=($!); done
for p in "${pids[@]}"; do wait "$p"; done
cat $(for k in $(seq 0 15); do echo /tmp/sh_$k.fa; done) | awk '/^>/ { print ">s" n++; next } { print }' > /tmp/eq128.fa
./warpsw makedb /tmp/eq128.fa -o /tmp/eq128.wsw > /dev/null; rm -f /tmp/eq128.fa /tmp/sh_*.fa
echo "== at $(el) s: database made"
mkdir -p $OUT/s
for round in 1 2; do
  for c in g8_r20_queries g8_r12_queries g8_r12_queries_3blocks g8_r16_queries g8_r16_queries_3blocks g8_r20_queries_3blocks; do
    WARPSW_QUERY_GROUP_CONFIG=$c ./warpsw search -q queries.fasta -d /tmp/eq128.wsw --device gpu --columns qseqid,sseqid,score -o $OUT/s/$c-$round.tsv > $OUT/s/$c-$round.log 2>&1
    echo "$c $round: $(grep -o 'in [0-9.]* s = [0-9.]* GCUPS' $OUT/s/$c-$round.log | head -1) $(grep -i -m1 'error\|panic' $OUT/s/$c-$round.log)"
  done
  [ $(( $(date +%s) - start )) -gt 150 ] && break
done
for f in $OUT/s/*.tsv; do cmp -s $OUT/s/g8_r20_queries-1.tsv $f || echo "$(basename $f) DIFFERS"; done
echo "hits compared"; rm -f $OUT/s/*.tsv
echo "== at $(el) s: done"
