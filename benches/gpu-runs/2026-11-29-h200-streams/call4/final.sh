#!/usr/bin/env bash
# One call at main with the build script's checks (COMMIT): where a query-group step's
# cycles go at 128 residues. ncu on one steady launch of g8_r20_queries (two queries in
# the halves, the configuration pairs take on 1,000,000 x 128 residues): warp states and
# the source counters per SASS instruction; then GPU tests of this build (the batches' test
# rescues a 7,000-residue query, read back with ReadBack::read_into).
cd "$(dirname "$0")"
start=$(date +%s); el() { echo $(( $(date +%s) - start )); }
xz -d warpsw.xz & p1=$!; xz -d warpsw-tests.xz & p2=$!; wait $p1; wait $p2
chmod +x warpsw warpsw-tests
echo "build $(cat COMMIT); $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader); $(ncu --version | tail -1)"
echo "parameter block: $(strings -n 20 warpsw | grep -o 'g8_r20_queries_param_0\[[0-9]*\]' | sort -u)"
pids=()
for k in $(seq 0 15); do python3 synthdb.py --sequences 62500 --seed $((k + 1)) --min 128 --max 128 --mean 128 > /tmp/sh_$k.fa & pids+=($!); done
for p in "${pids[@]}"; do wait "$p"; done
cat $(for k in $(seq 0 15); do echo /tmp/sh_$k.fa; done) | awk '/^>/ { print ">s" n++; next } { print }' > /tmp/eq128.fa
./warpsw makedb /tmp/eq128.fa -o /tmp/eq128.wsw > /dev/null; rm -f /tmp/sh_*.fa /tmp/eq128.fa
echo "== at $(el) s: database made"
./warpsw search -q queries.fasta -d /tmp/eq128.wsw --device gpu --columns qseqid,sseqid,score -o /tmp/a.tsv 2>&1 | grep -o 'in [0-9.]* s = [0-9.]* GCUPS.*machine code)'
./warpsw search -q queries.fasta -d /tmp/eq128.wsw --device gpu --gpu-streams 1 --columns qseqid,sseqid,score -o /tmp/b.tsv 2>&1 | grep -o 'in [0-9.]* s = [0-9.]* GCUPS.*machine code)'
cmp -s /tmp/a.tsv /tmp/b.tsv && echo "one stream: hits equal"
timeout 240 ncu --clock-control none --section SourceCounters --section WarpStateStats --section SchedulerStats \
  --section ComputeWorkloadAnalysis --section InstructionStats --section LaunchStats --section Occupancy \
  -k regex:sw_query_group_i16x2_g8_r20_queries --launch-skip 20 -c 1 -o $OUT/g8r20q \
  ./warpsw search -q queries.fasta -d /tmp/eq128.wsw --device gpu --gpu-streams 1 --columns qseqid,sseqid,score -o /tmp/c.tsv > $OUT/ncu_run.txt 2>&1
echo "ncu: exit $?, $(tail -2 $OUT/ncu_run.txt | head -c 300)"
echo "== at $(el) s: ncu done"
ncu --import $OUT/g8r20q.ncu-rep --page details > $OUT/g8r20q_details.txt 2>&1
ncu --import $OUT/g8r20q.ncu-rep --page source --csv --print-source sass > $OUT/g8r20q_sass.csv 2> $OUT/g8r20q_sass.err
echo "details $(wc -l < $OUT/g8r20q_details.txt) lines, sass $(wc -l < $OUT/g8r20q_sass.csv) lines; $(head -c 300 $OUT/g8r20q_sass.err)"
grep -E "Duration|Issued Ipc|Issue Slots Busy|No Eligible|Active Warps Per Scheduler|Eligible Warps|Registers Per|Achieved Occupancy|Warp Cycles Per Issued" $OUT/g8r20q_details.txt | head -20
echo "== at $(el) s: GPU tests of this build"
timeout $(( 560 - $(el) )) ./warpsw-tests --ignored --exact gpu::gpu_adversarial_cases gpu::gpu_query_batches_match_the_reference gpu::gpu_query_pairs_match_the_reference 2>&1 | grep -E "^test |test result|panicked"
echo "== at $(el) s: done"
