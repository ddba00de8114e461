#!/usr/bin/env bash
# Where search's report time goes on Swiss-Prot half; side by side with score-only columns (570k, Swiss-Prot half).
set -uo pipefail
cd "$(dirname "$0")"; here=$(pwd)
out=${OUT:-/tmp/o}; mkdir -p "$out"
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/gpu.txt"; cat COMMIT
( mkdir -p /tmp/sidebyside/logs && cd /tmp/sidebyside && tar -xzf "$here/cudasw4-37a394c.tar.gz" \
  && sed -i 's/-arch=native/-arch=sm_90/; s/^COMPILE = $(COMPILER) /COMPILE = $(COMPILER) -x cu /' cudasw4/Makefile \
  && { ls /usr/local/cuda/lib64/libnvToolsExt.so* >/dev/null 2>&1 || sed -i 's/-lnvToolsExt//' cudasw4/Makefile; } \
  && cd cudasw4 && make -j12 release > "$out/cudasw4_build.log" 2>&1; echo "cudasw4 build rc $? at $(( $(date +%s) - t0 )) s" >> "$out/cudasw4_build.log" ) &
python3 synthdb.py --sequences 570000 --seed 1 > synth570k.fa &
xz -dc sprot_half.fasta.xz > sprot_half.fasta && ./warpsw makedb sprot_half.fasta -o sprot_half.wsw > /dev/null
wait; tail -1 "$out/cudasw4_build.log"
# the report's steps per batch (an instrumented copy of the same commit)
for a in "" "--columns qseqid,sseqid,score,evalue,bitscore"; do
  echo "== timing search $a"
  ./warpsw-timing search -q queries.fasta -d sprot_half.wsw --device gpu --gap-open 10 --gap-extend 1 --top 10 $a -o /tmp/h.tsv > "$out/timing$([ -n "$a" ] && echo _scores).log" 2>&1
  tail -1 "$out/timing$([ -n "$a" ] && echo _scores).log"
done
grep TIMING "$out/timing.log" | head -60
export WARPSW_ARGS="--columns qseqid,sseqid,score,evalue,bitscore"
OUT=$out timeout 200 bash sidebyside.sh queries.fasta sprot_half.fasta 2>&1 | tee "$out/sbs_sprot.txt"
echo "== at $(( $(date +%s) - t0 )) s"
OUT=$out timeout 220 bash sidebyside.sh queries.fasta synth570k.fa 2>&1 | tee "$out/sbs_570k.txt"
echo "== done at $(( $(date +%s) - t0 )) s"
