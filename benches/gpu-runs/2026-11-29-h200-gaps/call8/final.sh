#!/usr/bin/env bash
# One call: the first search on the machine at the build COMMIT (every lifted query-group
# configuration also compiled for 11/1 and 10/1): machine code against the driver's JIT
# (start_and_stats.sh start).
cd "$(dirname "$0")"
[ -f warpsw ] || xz -d warpsw.xz
chmod +x warpsw
echo "build $(cat COMMIT); $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader)"
OUT=/tmp/st timeout 300 bash start_and_stats.sh start 2>&1
tar czf $OUT/logs.tgz -C /tmp st
