# GPU tests at c1a2cea (the final code of the whole-chunk rule), two processes side by side.
cd "$(dirname "$0")"
[ -x warpsw-tests ] || xz -dk warpsw-tests.xz
out=${OUT:-out}; mkdir -p "$out"
run() { timeout 400 ./warpsw-tests --ignored --test-threads 1 --exact "${@/#/gpu::}" > "$out/tests_$1.log" 2>&1; }
run gpu_query_pairs_match_the_reference gpu_query_batches_match_the_reference gpu_many_long_pairs_beyond_16_bits_are_rescued gpu_adversarial_cases &
a=$!
run gpu_parted_engine_matches_reference gpu_chunks_on_several_streams_match_one_stream_and_the_reference gpu_query_group_matches_the_reference gpu_matches_reference_on_100000_database_sequences &
b=$!
wait $a; wait $b
grep -h '^test \|test result' "$out"/tests_*.log
