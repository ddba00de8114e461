#!/usr/bin/env bash
# The GPU test suite at the bundle's COMMIT, one test at a time in one process each, timed.
# Usage: suite.sh A|B  (the 19 GPU tests split in two calls of under ten minutes)
cd "$(dirname "$0")"
[ -x warpsw-tests ] || xz -dk warpsw-tests.xz
out=${OUT:-out}; mkdir -p "$out/tests"
echo "build $(cat COMMIT); $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader)"
case "$1" in
A) tests="gpu_query_pairs_match_the_reference gpu_many_long_pairs_beyond_16_bits_are_rescued
  gpu_matches_reference_on_100000_database_sequences gpu_matches_reference_for_every_matrix_and_gap_setting
  gpu_adversarial_cases gpu_traceback_matches_the_reference_on_a_million_pairs gpu_parted_engine_matches_reference
  gpu_two_workers_on_one_gpu_match_one_engine gpu_split_parts_on_one_gpu_match_one_engine" ;;
B) tests="gpu_query_group_matches_the_reference gpu_streamed_workers_on_one_gpu_match_one_engine
  gpu_traceback_on_two_device_slots_matches_one gpu_traceback_memory_cap_progress_and_entry_point
  gpu_engine_reports_progress_per_chunk gpu_a_sequence_beyond_the_memory_budget_is_refused_before_allocating
  gpu_chunks_on_several_streams_match_one_stream_and_the_reference
  gpu_query_pairs_beyond_the_page_locked_buffer_match_each_query_alone
  gpu_query_pair_hands_over_in_launches_of_part_of_a_chunk gpu_query_batches_match_the_reference" ;;
*) echo "usage: suite.sh A|B"; exit 2 ;;
esac
start=$(date +%s)
for t in $tests; do
  t0=$(date +%s)
  timeout 300 ./warpsw-tests --ignored --test-threads 1 --exact "gpu::$t" > "$out/tests/$t.log" 2>&1
  rc=$?
  echo "$t: rc $rc, $(( $(date +%s) - t0 )) s, $(grep -h 'test result' "$out/tests/$t.log")"
  [ $(( $(date +%s) - start )) -gt 520 ] && { echo "stopping: time"; break; }
done
tar czf "$out/tests.tgz" -C "$out" tests && rm -rf "$out/tests"
./warpsw-tests --ignored --list 2>/dev/null | grep -c ': test$' | sed 's/^/tests listed with --ignored: /'
