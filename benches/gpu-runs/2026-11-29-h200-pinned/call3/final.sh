#!/usr/bin/env bash
# One call at eb35555: short queries side by side twice, the standard queries once.
cd "$(dirname "$0")"
start=$(date +%s)
xz -dk warpsw.xz
xz -dc sprot_half.fasta.xz > sprot_half.fasta
echo "build $(cat COMMIT); $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader)"
for round in 1 2; do
  mkdir -p $OUT/short$round
  echo "== at $(( $(date +%s) - start )) s: short.fasta side by side, round $round"
  OUT=$OUT/short$round WORK=/tmp/sidebyside bash sidebyside.sh short.fasta sprot_half.fasta 2>&1 | tail -26
done
mkdir -p $OUT/sprot
echo "== at $(( $(date +%s) - start )) s: queries.fasta side by side"
OUT=$OUT/sprot WORK=/tmp/sidebyside bash sidebyside.sh queries.fasta sprot_half.fasta 2>&1 | tail -24
echo "== at $(( $(date +%s) - start )) s: done"
