#!/usr/bin/env bash
# One call: the GPU tests of the query-group kernels at the build COMMIT (every lifted
# configuration also compiled with the gaps 11/1 and 10/1 as immediates).
cd "$(dirname "$0")"
start=$(date +%s); el() { echo $(( $(date +%s) - start )); }
for f in warpsw warpsw-tests; do [ -f $f ] || xz -d $f.xz & done
for p in $(jobs -p); do wait "$p"; done
chmod +x warpsw warpsw-tests
echo "build $(cat COMMIT); $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader)"
for t in gpu_query_pair_hands_over_in_launches_of_part_of_a_chunk gpu_adversarial_cases gpu_query_batches_match_the_reference gpu_query_pairs_match_the_reference gpu_query_group_matches_the_reference; do
  echo "== at $(el) s: test $t"
  timeout 240 ./warpsw-tests --ignored --exact gpu::$t 2>&1 | grep -E "^test |test result|panicked|differ|mismatch|gpu:"
done
echo "== at $(el) s: done"
