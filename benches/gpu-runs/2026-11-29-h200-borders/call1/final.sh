#!/usr/bin/env bash
# One call: main (COMMIT, c9d1148's read-back refactor never run on a GPU) through the GPU tests of
# pairs and the timeline at 1,000,000 x 128; where nsys exists, the kernels' summed time against the search's.
cd "$(dirname "$0")"
start=$(date +%s); el() { echo $(( $(date +%s) - start )); }
for f in warpsw warpsw-tests; do [ -f $f ] || xz -d $f.xz & done
for p in $(jobs -p); do wait "$p"; done
chmod +x warpsw warpsw-tests
echo "build $(cat COMMIT); $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader)"
echo "nsys: $(command -v nsys || ls /usr/local/cuda*/bin/nsys /opt/nvidia/nsight-systems*/bin/nsys 2>/dev/null | head -1)"
pids=()
for k in $(seq 0 15); do python3 synthdb.py --sequences 62500 --seed $((k + 1)) --min 128 --max 128 --mean 128 > /tmp/sh_$k.fa & pids+=($!); done
for p in "${pids[@]}"; do wait "$p"; done
cat $(for k in $(seq 0 15); do echo /tmp/sh_$k.fa; done) | awk '/^>/ { print ">s" n++; next } { print }' > /tmp/eq128.fa
./warpsw makedb /tmp/eq128.fa -o /tmp/eq128.wsw > /dev/null; rm -f /tmp/eq128.fa /tmp/sh_*.fa
echo "== at $(el) s: database made"
mkdir -p $OUT/s
for round in 1 2; do
  WARPSW_TIMELINE=on ./warpsw search -q queries.fasta -d /tmp/eq128.wsw --device gpu --columns qseqid,sseqid,score -o $OUT/s/t$round.tsv > $OUT/s/timeline$round.log 2>&1
  echo "timeline on, round $round: $(grep -o 'in [0-9.]* s = [0-9.]* GCUPS' $OUT/s/timeline$round.log | head -1) $(grep -i -m1 'error\|panic' $OUT/s/timeline$round.log)"
done
grep "timeline (ms" $OUT/s/timeline2.log | sed 's/^warpsw: GPU 0 (NVIDIA H200): //' | head -12
cmp -s $OUT/s/t1.tsv $OUT/s/t2.tsv && echo "hits equal"; rm -f $OUT/s/*.tsv
ns=$(command -v nsys || ls /usr/local/cuda*/bin/nsys /opt/nvidia/nsight-systems*/bin/nsys 2>/dev/null | head -1)
if [ -n "$ns" ]; then
  echo "== at $(el) s: nsys"
  timeout 120 $ns profile -o /tmp/eq128 --force-overwrite true --trace cuda ./warpsw search -q queries.fasta -d /tmp/eq128.wsw --device gpu --columns qseqid,sseqid,score -o /tmp/n.tsv > $OUT/s/nsys.log 2>&1
  grep -o 'in [0-9.]* s = [0-9.]* GCUPS' $OUT/s/nsys.log | head -1
  timeout 120 $ns stats --report cuda_gpu_kern_sum --format csv /tmp/eq128.nsys-rep > $OUT/kern_sum.csv 2>&1
  head -12 $OUT/kern_sum.csv
  timeout 120 $ns stats --report cuda_gpu_trace --format csv /tmp/eq128.nsys-rep 2>/dev/null | xz -T4 > $OUT/gpu_trace.csv.xz
fi
for t in gpu_query_pairs_beyond_the_page_locked_buffer_match_each_query_alone gpu_query_pairs_match_the_reference; do
  echo "== at $(el) s: test $t"
  timeout 200 ./warpsw-tests --ignored --exact gpu::$t 2>&1 | grep -E "^test |test result|panicked|differ|mismatch"
done
echo "== at $(el) s: done"
