#!/usr/bin/env bash
# Side by side with CUDASW++4: 570k synthetic, Swiss-Prot half (BLOSUM62 10/1), then Swiss-Prot half BLOSUM50 10/2.
set -uo pipefail
cd "$(dirname "$0")"; here=$(pwd)
out=${OUT:-/tmp/o}; mkdir -p "$out"
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/gpu.txt"; cat COMMIT
( mkdir -p /tmp/sidebyside/logs && cd /tmp/sidebyside && tar -xzf "$here/cudasw4-37a394c.tar.gz" \
  && sed -i 's/-arch=native/-arch=sm_90/; s/^COMPILE = $(COMPILER) /COMPILE = $(COMPILER) -x cu /' cudasw4/Makefile \
  && { ls /usr/local/cuda/lib64/libnvToolsExt.so* >/dev/null 2>&1 || sed -i 's/-lnvToolsExt//' cudasw4/Makefile; } \
  && cd cudasw4 && make -j12 release > "$out/cudasw4_build.log" 2>&1; echo "cudasw4 build rc $? at $(( $(date +%s) - t0 )) s" >> "$out/cudasw4_build.log" ) &
python3 synthdb.py --sequences 570000 --seed 1 > synth570k.fa
xz -dc sprot_half.fasta.xz > sprot_half.fasta
wait; tail -1 "$out/cudasw4_build.log"
OUT=$out timeout 200 bash sidebyside.sh queries.fasta synth570k.fa 2>&1 | tee "$out/sbs_570k.txt"
echo "== at $(( $(date +%s) - t0 )) s"
OUT=$out timeout 150 bash sidebyside.sh queries.fasta sprot_half.fasta 2>&1 | tee "$out/sbs_sprot.txt"
echo "== at $(( $(date +%s) - t0 )) s"
mkdir -p /tmp/s50 "$out/b50" && cp sprot_half.fasta /tmp/s50/sprot50.fasta
OUT=$out/b50 timeout $(( 570 - ($(date +%s) - t0) )) bash sidebyside.sh queries.fasta /tmp/s50/sprot50.fasta 10 2 blosum50 2>&1 | tee "$out/sbs_sprot_b50.txt"
echo "== done at $(( $(date +%s) - t0 )) s"
