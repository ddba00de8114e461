#!/usr/bin/env bash
# One call at e686435: whole searches (20 standard queries, score-only) as the engine batches them
# (auto) against no batches, pairs still allowed (--gpu-query-batch 2), alternated, two rounds: half
# of Swiss-Prot, 570k and 2,500,000 synthetic, 1,000,000 x 1,024 residues.
cd "$(dirname "$0")"
start=$(date +%s)
xz -dk warpsw.xz
echo "build $(cat COMMIT); $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader)"
mkdir -p $OUT/b
synth() { # sequences name [synthdb args]
  local n=$1 name=$2 pids=(); shift 2
  for k in $(seq 0 15); do python3 synthdb.py --sequences $((n / 16)) --seed $((k + 1)) "$@" > /tmp/shard$k.fa & pids+=($!); done
  for p in "${pids[@]}"; do wait "$p"; done
  awk '/^>/ { print ">s" n++; next } { print }' /tmp/shard{0..15}.fa > /tmp/$name.fa; rm -f /tmp/shard*.fa
  ./warpsw makedb /tmp/$name.fa -o /tmp/$name.wsw | tail -1; rm -f /tmp/$name.fa
}
compare() { # name db
  local name=$1 db=$2
  for round in 1 2; do
    for args in "" "--gpu-query-batch 2"; do
      tag=$(echo "${args:-auto}" | tr -d ' -')
      l=$OUT/b/${name}_${tag}_$round.log
      ./warpsw search -q queries.fasta -d $db --device gpu $args --stats none --columns qseqid,sseqid,score \
        -o /tmp/b_$tag.tsv > $l 2>&1
      echo "$name ${args:-auto} round $round: $(grep -o 'in [0-9.]* s = [0-9.]* GCUPS' $l | head -1) $(grep -o 'batch[^;,]*' $l | head -1)"
    done
  done
  cmp /tmp/b_auto.tsv /tmp/b_gpuquerybatch2.tsv && echo "$name: outputs equal"; rm -f /tmp/b_*.tsv
}
xz -dc sprot_half.fasta.xz > /tmp/sprot_half.fasta; ./warpsw makedb /tmp/sprot_half.fasta -o /tmp/sprot_half.wsw | tail -1
compare sprot_half /tmp/sprot_half.wsw
echo "== at $(( $(date +%s) - start )) s"
synth 570000 synth570k; compare synth570k /tmp/synth570k.wsw; rm -f /tmp/synth570k.wsw
echo "== at $(( $(date +%s) - start )) s"
synth 1000000 eq1024 --min 1024 --max 1024 --mean 1024; compare eq1024 /tmp/eq1024.wsw; rm -f /tmp/eq1024.wsw
echo "== at $(( $(date +%s) - start )) s"
[ $(( $(date +%s) - start )) -lt 200 ] && { synth 2500000 synth2500k; compare synth2500k /tmp/synth2500k.wsw; }
tar -czf $OUT/logs.tgz -C $OUT b && rm -rf $OUT/b
echo "== at $(( $(date +%s) - start )) s: done"
