#!/usr/bin/env bash
# One call: the build COMMIT side by side with CUDASW++ 4.0 on 1,000,000 x 1,024 / 2,048
# residues (equal_lengths.sh).
cd "$(dirname "$0")"
start=$(date +%s); el() { echo $(( $(date +%s) - start )); }
[ -f warpsw ] || xz -d warpsw.xz
chmod +x warpsw
echo "build $(cat COMMIT); $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader)"
mkdir -p /tmp/eq
OUT=/tmp/eq WORK=/tmp/equal_lengths timeout $(( 540 - $(el) )) bash equal_lengths.sh 1024 2048 2>&1 | grep -v "^warpsw: progress"
tar czf $OUT/logs.tgz -C /tmp eq
echo "== at $(el) s: done"
