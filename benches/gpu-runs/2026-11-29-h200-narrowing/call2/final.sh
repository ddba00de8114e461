#!/usr/bin/env bash
# One call: a group aligns K pairs of a launch one after another (warpsw-loop,
# WARPSW_PAIRS_PER_GROUP=K; the grid K times smaller) against HEAD, searches on
# 1,000,000 x 128, 256 and 512 residues, hits compared.
cd "$(dirname "$0")"
start=$(date +%s)
xz -dk warpsw.xz; xz -dc warpsw-loop.xz > warpsw-loop; chmod +x warpsw-loop
echo "build $(cat COMMIT) (+ loop); $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader)"
synth() { # length: /tmp/eqL.wsw, 16 shards side by side (seeds as diagnose.sh's synth)
  local L=$1 pids=()
  for k in $(seq 0 15); do python3 synthdb.py --sequences 62500 --seed $((k + 1)) --min $L --max $L --mean $L > /tmp/sh${L}_$k.fa & pids+=($!); done
  for p in "${pids[@]}"; do wait "$p"; done
  cat $(for k in $(seq 0 15); do echo /tmp/sh${L}_$k.fa; done) | awk '/^>/ { print ">s" n++; next } { print }' > /tmp/eq$L.fa
  rm -f /tmp/sh${L}_*.fa; ./warpsw makedb /tmp/eq$L.fa -o /tmp/eq$L.wsw > /dev/null; rm -f /tmp/eq$L.fa
}
synth 128; synth 256; synth 512
echo "== at $(( $(date +%s) - start )) s: databases made"
mkdir -p $OUT/s
run() { # label binary K L
  local label=$1 bin=$2 k=$3 L=$4
  WARPSW_PAIRS_PER_GROUP=$k ./$bin search -q queries.fasta -d /tmp/eq$L.wsw --device gpu \
    --columns qseqid,sseqid,score -o $OUT/s/$label.$L.tsv > $OUT/s/$label.$L.log 2>&1
  echo "eq$L $label: $(grep -o 'in [0-9.]* s = [0-9.]* GCUPS' $OUT/s/$label.$L.log | head -1)"
}
for L in 128 256 512; do
  run head warpsw 1 $L
  run k1 warpsw-loop 1 $L
  run k2 warpsw-loop 2 $L
  run k4 warpsw-loop 4 $L
  run k8 warpsw-loop 8 $L
  run k16 warpsw-loop 16 $L
  run head2 warpsw 1 $L
  run k4b warpsw-loop 4 $L
  run k8b warpsw-loop 8 $L
  for f in $OUT/s/*.$L.tsv; do cmp -s $OUT/s/head.$L.tsv $f || echo "eq$L: $f differs"; done
  echo "eq$L: hits compared"
  rm -f $OUT/s/*.tsv
done
tar -czf $OUT/s.tgz -C $OUT s && rm -rf $OUT/s
echo "== at $(( $(date +%s) - start )) s: done"
