#!/usr/bin/env bash
# One GPU call: GPU tests, streams 1/4/8, per-launch times, DPX pipe check.
set -uo pipefail
cd "$(dirname "$0")"
out=${OUT:-/tmp/o}; mkdir -p "$out"
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/gpu.txt"
( timeout 200 env TEST_ARGS=gpu_ OUT="$out/t" bash run.sh tests > "$out/tests.log" 2>&1; echo "tests rc $?" >> "$out/tests.log" ) &
# build DBs while tests run (CPU only)
python3 synthdb.py --sequences 570000 --seed 1 > synth570k.fa && ./warpsw makedb synth570k.fa -o synth570k.wsw > /dev/null
xz -dc sprot_half.fasta.xz > sprot_half.fasta && ./warpsw makedb sprot_half.fasta -o sprot_half.wsw > /dev/null
wait
echo "tests+dbs done at $(( $(date +%s) - t0 )) s"; tail -25 "$out/tests.log"
timeout 260 env STREAMS="1 4 8" REPEAT=1 NO_BENCH=1 OUT="$out/k" bash kernel16.sh > /dev/null 2>&1
echo "streams done at $(( $(date +%s) - t0 )) s"; grep -E '^==|^overall|hits with|DIFFER' "$out/k/kernel16.log" "$out/k/streams.log" | head -40
timeout 90 env NCU_TIMES=1 NO_BENCH=1 OUT="$out/k" bash kernel16.sh > /dev/null 2>&1
echo "ncu times done at $(( $(date +%s) - t0 )) s"
awk '/^>/ { n++ } n == 5' queries.fasta > q464.fasta
timeout 90 ncu --section ComputeWorkloadAnalysis --section InstructionStats --section SpeedOfLight --section Occupancy \
  --metrics regex:sm__inst_executed_pipe_.*sum,regex:sm__pipe_.*cycles_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread \
  -k 'regex:^sw_group_i16x2_g32_r(16|30|32)$' -c 3 \
  ./warpsw search -q q464.fasta -d sprot_half.wsw --device gpu --kernel group-i16x2 -o /tmp/ncu_dpx_hits.tsv > "$out/ncu_dpx.txt" 2>&1
echo "ncu dpx done at $(( $(date +%s) - t0 )) s"
cd "$out" && tar czf all.tar.gz --exclude=all.tar.gz --exclude='*.tsv' . && ls -la
