#!/usr/bin/env bash
# The host-work commit on the GPU: the query-group and batch GPU tests, and
# side by side with CUDASW++4 on UniProt 20k (batches of query pairs).
set -uo pipefail
cd "$(dirname "$0")"
for f in warpsw warpsw-tests; do [ -f "$f.xz" ] && xz -d -f "$f.xz" && chmod +x "$f"; done
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
echo "commit $(cat COMMIT)"
QG_STEPS='side' QG_SIDE_DBS='uniprot20k:uniprot20k.fasta.gz' OUT=$OUT timeout 200 bash query_group.sh > /dev/null 2>&1
grep -E "^== |agree|overall|^[0-9A-Z].* [0-9.]+ +[0-9.]+ +[0-9.]+$|error" $OUT/qg.log | head -30
timeout 330 ./warpsw-tests --ignored --test-threads=1 gpu_query_group_matches gpu_query_batches 2>&1 | grep -E "^test |test result|panicked|mismatch" | head -12
