#!/usr/bin/env bash
# Main at its final commit: two GPU tests; side by side (score-only columns and default output) on UniProt 20k, Swiss-Prot half, 570k; bench per query.
set -uo pipefail
cd "$(dirname "$0")"; here=$(pwd)
out=${OUT:-/tmp/o}; mkdir -p "$out"
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/gpu.txt"; cat COMMIT
( mkdir -p /tmp/sidebyside/logs && cd /tmp/sidebyside && tar -xzf "$here/cudasw4-37a394c.tar.gz" \
  && sed -i 's/-arch=native/-arch=sm_90/; s/^COMPILE = $(COMPILER) /COMPILE = $(COMPILER) -x cu /' cudasw4/Makefile \
  && { ls /usr/local/cuda/lib64/libnvToolsExt.so* >/dev/null 2>&1 || sed -i 's/-lnvToolsExt//' cudasw4/Makefile; } \
  && cd cudasw4 && nice make -j12 release > "$out/cudasw4_build.log" 2>&1; echo "cudasw4 build rc $? at $(( $(date +%s) - t0 )) s" >> "$out/cudasw4_build.log" ) &
( python3 synthdb.py --sequences 570000 --seed 1 > synth570k.fa; xz -dc sprot_half.fasta.xz > sprot_half.fasta ) &
timeout 150 ./warpsw-tests --ignored --test-threads=1 gpu_adversarial_cases gpu_engine_reports_progress_per_chunk > "$out/tests.log" 2>&1; echo "tests rc $?" >> "$out/tests.log"
grep -E "^test |test result|tests rc" "$out/tests.log"
wait; tail -1 "$out/cudasw4_build.log"; echo "== at $(( $(date +%s) - t0 )) s"
for db in uniprot20k.fasta.gz sprot_half.fasta synth570k.fa; do
  n=$(basename $db); n=${n%%.*}
  mkdir -p "$out/s_$n" "$out/d_$n"
  echo "== $n score-only"
  WARPSW_ARGS="--columns qseqid,sseqid,score,evalue,bitscore" OUT=$out/s_$n timeout 170 bash sidebyside.sh queries.fasta $db > "$out/s_$n/table.txt" 2>&1; grep -E "overall|top-10" "$out/s_$n/table.txt"
  echo "== $n default output (with per-query bench)"
  OUT=$out/d_$n timeout 120 bash sidebyside.sh queries.fasta $db > "$out/d_$n/table.txt" 2>&1; cat "$out/d_$n/table.txt" | tail -24
  echo "== at $(( $(date +%s) - t0 )) s"
done
