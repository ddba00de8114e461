#!/usr/bin/env bash
# BLOSUM50 10/2 and 40/3 side by side with CUDASW++4 (its gap costs patched in, QG_CS4_GAPS=1) on the 570k database.
cd "$(dirname "$0")"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
echo "commit $(cat COMMIT)"
QG_STEPS=side QG_CS4_GAPS=1 QG_SIDE_SETTINGS='10:2:blosum50 40:3:blosum50' QG_SIDE_DBS='synth570k:synth570k.fa' \
    OUT=$OUT timeout 250 bash query_group.sh > /dev/null 2>&1
grep -E "^== |agree|overall|^[0-9A-Z].* [0-9.]+ +[0-9.]+ +[0-9.]+$|error" $OUT/qg.log | head -60
