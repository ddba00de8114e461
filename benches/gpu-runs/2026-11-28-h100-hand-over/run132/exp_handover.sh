#!/usr/bin/env bash
# The pair's hand-over: whole searches with it (warpsw) and without
# (warpsw-old: the same binary with WARPSW_HAND_OVER=off) alternated, hits
# compared; side by side with CUDASW++4; the query-pair and query-group
# GPU tests.
cd "$(dirname "$0")"
printf '#!/bin/sh\nWARPSW_HAND_OVER=off exec "$(dirname "$0")/warpsw" "$@"\n' > warpsw-old
chmod +x warpsw-old
QG_STEPS='absearch side' QG_AB_DBS='synth570k sprot_half' \
    QG_SIDE_DBS='synth570k:synth570k.fa sprot_half:sprot_half.fasta' OUT=$OUT bash query_group.sh > /dev/null 2>&1
grep -E "^== |hits|agree|overall|ratio" $OUT/qg.log | head -80
timeout 230 ./warpsw-tests --ignored --test-threads=1 gpu_query_pairs gpu_query_group 2>&1 | tail -8
