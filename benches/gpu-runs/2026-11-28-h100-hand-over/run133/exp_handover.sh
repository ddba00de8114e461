#!/usr/bin/env bash
# The pair's hand-over: the query-pair GPU test; whole searches with it
# (warpsw) and without (warpsw-old: the same binary with
# WARPSW_HAND_OVER=off) alternated, hits compared; side by side with
# CUDASW++4.
cd "$(dirname "$0")"
xz -d -f warpsw-tests.xz && chmod +x warpsw-tests
timeout 200 ./warpsw-tests --ignored --test-threads=1 gpu_query_pairs 2>&1 | tail -5
printf '#!/bin/sh\nWARPSW_HAND_OVER=off exec "$(dirname "$0")/warpsw" "$@"\n' > warpsw-old
chmod +x warpsw-old
QG_STEPS='absearch side' QG_AB_DBS='synth570k sprot_half' \
    QG_SIDE_DBS='synth570k:synth570k.fa sprot_half:sprot_half.fasta' OUT=$OUT timeout 380 bash query_group.sh > /dev/null 2>&1
grep -E "^== |hits|agree|overall|ratio|error" $OUT/qg.log | head -80
