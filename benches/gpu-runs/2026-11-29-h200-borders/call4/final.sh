#!/usr/bin/env bash
# One call: main 69ca36e (lane 0's left borders loaded in their own iteration) side by side with
# CUDASW++ 4.0 on 1,000,000 x 128 / 256 / 512 residues (equal_lengths.sh); first, on 1,000,000 x 512,
# two queries in two rows a step against one (both pinned), two rounds, hits compared.
cd "$(dirname "$0")"
start=$(date +%s); el() { echo $(( $(date +%s) - start )); }
[ -f warpsw ] || xz -d warpsw.xz
chmod +x warpsw
echo "build $(cat COMMIT); $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader)"
pids=()
for k in $(seq 0 15); do python3 synthdb.py --sequences 62500 --seed $((k + 1)) --min 512 --max 512 --mean 512 > /tmp/sh_$k.fa & pids+=($!); done
for p in "${pids[@]}"; do wait "$p"; done
cat $(for k in $(seq 0 15); do echo /tmp/sh_$k.fa; done) | awk '/^>/ { print ">s" n++; next } { print }' > /tmp/eq512.fa
./warpsw makedb /tmp/eq512.fa -o /tmp/eq512.wsw > /dev/null; rm -f /tmp/eq512.fa /tmp/sh_*.fa
mkdir -p /tmp/s
for round in 1 2; do
  for c in g8_r20_queries g8_r20_queries_2rows; do
    WARPSW_QUERY_GROUP_CONFIG=$c ./warpsw search -q queries.fasta -d /tmp/eq512.wsw --device gpu --columns qseqid,sseqid,score -o /tmp/s/$c-$round.tsv > /tmp/s/$c-$round.log 2>&1
    echo "eq512 pinned $c $round: $(grep -o 'in [0-9.]* s = [0-9.]* GCUPS' /tmp/s/$c-$round.log | head -1) $(grep -i -m1 'error\|panic' /tmp/s/$c-$round.log)"
  done
done
for f in /tmp/s/*.tsv; do cmp -s /tmp/s/g8_r20_queries-1.tsv $f || echo "$(basename $f) DIFFERS"; done
echo "hits compared"; rm -f /tmp/s/*.tsv /tmp/eq512.wsw
echo "== at $(el) s: side by side"
mkdir -p /tmp/eq
OUT=/tmp/eq WORK=/tmp/equal_lengths timeout $(( 540 - $(el) )) bash equal_lengths.sh 128 256 512 2>&1 | grep -v "^warpsw: progress"
tar czf $OUT/logs.tgz -C /tmp s eq
echo "== at $(el) s: done"
