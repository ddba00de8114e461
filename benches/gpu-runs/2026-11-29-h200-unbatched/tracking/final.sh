#!/usr/bin/env bash
# One call: event tracking off against on, short queries and the standard set side by side, GPU tests.
cd "$(dirname "$0")"
start=$(date +%s)
xz -dk warpsw.xz; xz -dk warpsw-tests.xz
cat COMMIT
OUT=$OUT/tracking bash diagnose.sh tracking 2>&1 | tail -60
echo "== at $(( $(date +%s) - start )) s: short.fasta side by side"
mkdir -p $OUT/short $OUT/sprot
OUT=$OUT/short WORK=/tmp/sidebyside bash sidebyside.sh short.fasta sprot_half.fasta 2>&1 | tail -27
echo "== at $(( $(date +%s) - start )) s: queries.fasta side by side"
OUT=$OUT/sprot WORK=/tmp/sidebyside bash sidebyside.sh queries.fasta sprot_half.fasta 2>&1 | tail -25
left=$(( 530 - ($(date +%s) - start) ))
echo "== at $(( $(date +%s) - start )) s: GPU tests, $left s"
timeout $left ./warpsw-tests --ignored --test-threads 1 gpu_adversarial_cases \
    gpu_chunks_on_several_streams_match_one_stream_and_the_reference gpu_query_pairs_match_the_reference \
    gpu_query_pair_hands_over_in_launches_of_part_of_a_chunk gpu_two_workers_on_one_gpu_match_one_engine \
    gpu_streamed_workers_on_one_gpu_match_one_engine gpu_parted_engine_matches_reference \
    gpu_query_batches_match_the_reference gpu_engine_reports_progress_per_chunk \
    gpu_many_long_pairs_beyond_16_bits_are_rescued gpu_split_parts_on_one_gpu_match_one_engine > $OUT/tests.txt 2>&1
echo "tests rc $?"
grep -E '^(test |test result)|panicked|mismatch' $OUT/tests.txt
