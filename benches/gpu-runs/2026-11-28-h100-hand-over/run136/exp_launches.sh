#!/usr/bin/env bash
# The hand-over in launches of part of a chunk (GPU test), and whole
# searches of the 570k database with and without it (the refactored launch
# code on real data; hits compared).
cd "$(dirname "$0")"
xz -d -f warpsw-tests.xz && chmod +x warpsw-tests
timeout 120 ./warpsw-tests --ignored --test-threads=1 --nocapture --exact gpu::gpu_query_pair_hands_over_in_launches_of_part_of_a_chunk 2>&1 | grep -E -A1 "^test |test result|panicked|mismatch|gpu:" | head -12
printf '#!/bin/sh\nWARPSW_HAND_OVER=off exec "$(dirname "$0")/warpsw" "$@"\n' > warpsw-old
chmod +x warpsw-old
QG_STEPS='absearch' QG_AB_DBS='synth570k' OUT=$OUT timeout 200 bash query_group.sh > /dev/null 2>&1
grep -E "^== |hits|error" $OUT/qg.log | head -20
