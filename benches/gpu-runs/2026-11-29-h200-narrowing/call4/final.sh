#!/usr/bin/env bash
# One call at f9a2110: the short queries one at a time against warpsw-win (eight window reads in
# flight), three rounds alternated; then side by side with CUDASW++ 4.0: short.fasta x half of
# Swiss-Prot (does the all-in-one 0.97 move now that short queries pair eight at a time?), and
# 1,000,000 x 256 and x 1,024 residues (equal_lengths.sh).
cd "$(dirname "$0")"
start=$(date +%s)
xz -dk warpsw.xz; xz -dc warpsw-win.xz > warpsw-win; chmod +x warpsw-win
echo "build $(cat COMMIT); $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader)"
xz -dc sprot_half.fasta.xz > sprot_half.fasta
./warpsw makedb sprot_half.fasta -o /tmp/sprot_half.wsw | tail -1
mkdir -p $OUT/ab
for round in 1 2 3; do
  for bin in warpsw warpsw-win; do
    ./$bin bench --query short.fasta --db /tmp/sprot_half.wsw --device gpu --kernels auto --gap-open 10 --gap-extend 1 \
      --warmup 1 --repeat 9 > $OUT/ab/short_${bin}_$round.log 2>&1
    echo "round $round $bin short.fasta x sprot_half: $(grep '^overall' $OUT/ab/short_${bin}_$round.log)"
  done
done
tar -czf $OUT/ab.tgz -C $OUT ab && rm -rf $OUT/ab
echo "== at $(( $(date +%s) - start )) s: short queries side by side"
mkdir -p $OUT/short
OUT=$OUT/short WORK=/tmp/sidebyside bash sidebyside.sh short.fasta sprot_half.fasta 2>&1 | tail -28
echo "== at $(( $(date +%s) - start )) s: equal lengths"
mkdir -p $OUT/eq
OUT=$OUT/eq WORK=/tmp/equal_lengths timeout $(( 560 - ($(date +%s) - start) )) bash equal_lengths.sh 256 1024 2>&1 | grep -v "^warpsw: progress"
echo "== at $(( $(date +%s) - start )) s: done"
