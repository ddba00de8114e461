#!/usr/bin/env bash
# One call: side by side with CUDASW++ 4.0 on 1,000,000 sequences of 1,024 and of 2,048 residues,
# the build COMMIT (a pair's scores staged in the page-locked buffer).
cd "$(dirname "$0")"
start=$(date +%s); el() { echo $(( $(date +%s) - start )); }
[ -f warpsw ] || xz -d warpsw.xz
chmod +x warpsw
echo "build $(cat COMMIT); $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader)"
mkdir -p $OUT/eq
OUT=$OUT/eq WORK=/tmp/equal_lengths timeout 560 bash equal_lengths.sh 1024 2048 2>&1 | grep -v "^warpsw: progress"
echo "== at $(el) s: done"
