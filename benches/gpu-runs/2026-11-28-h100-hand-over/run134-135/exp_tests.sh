#!/usr/bin/env bash
# The GPU tests the hand-over touches: query pairs (handed over and not),
# batches of pairs and one query a launch (the launches' new code path).
cd "$(dirname "$0")"
t0=$(date +%s)
xz -d -f warpsw-tests.xz && chmod +x warpsw-tests
for t in gpu_query_pairs gpu_query_group; do
    [ $t = gpu_query_group ] && [ $(($(date +%s) - t0)) -gt 300 ] && { echo "no time for $t"; continue; }
    start=$(date +%s)
    timeout 250 ./warpsw-tests --ignored --test-threads=1 --exact gpu::${t}_matches_the_reference gpu::${t}_match_the_reference 2>&1 | grep -E -A1 "^test |test result|panicked|mismatch" | head -12
    echo "$t: $(($(date +%s) - start)) s"
done
