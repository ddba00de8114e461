#!/usr/bin/env bash
# The default search (alignments of the top 10) on Swiss-Prot half: before (1fc68f4) and after the wavefront realignment, then side by side with CUDASW++4.
set -uo pipefail
cd "$(dirname "$0")"; here=$(pwd)
out=${OUT:-/tmp/o}; mkdir -p "$out"
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/gpu.txt"; cat COMMIT
( mkdir -p /tmp/sidebyside/logs && cd /tmp/sidebyside && tar -xzf "$here/cudasw4-37a394c.tar.gz" \
  && sed -i 's/-arch=native/-arch=sm_90/; s/^COMPILE = $(COMPILER) /COMPILE = $(COMPILER) -x cu /' cudasw4/Makefile \
  && { ls /usr/local/cuda/lib64/libnvToolsExt.so* >/dev/null 2>&1 || sed -i 's/-lnvToolsExt//' cudasw4/Makefile; } \
  && cd cudasw4 && nice make -j12 release > "$out/cudasw4_build.log" 2>&1; echo "cudasw4 build rc $? at $(( $(date +%s) - t0 )) s" >> "$out/cudasw4_build.log" ) &
xz -dc sprot_half.fasta.xz > sprot_half.fasta && ./warpsw makedb sprot_half.fasta -o sprot_half.wsw > /dev/null
for round in 1 2; do
  for b in warpsw-before warpsw; do
    echo "== $b round $round"
    ./$b search -q queries.fasta -d sprot_half.wsw --device gpu --gap-open 10 --gap-extend 1 --top 10 -o "/tmp/hits_$b.tsv" 2>&1 | tail -1
  done
done
cmp /tmp/hits_warpsw-before.tsv /tmp/hits_warpsw.tsv && echo "hits before == after"
wait; tail -1 "$out/cudasw4_build.log"
OUT=$out timeout 200 bash sidebyside.sh queries.fasta sprot_half.fasta > "$out/table.txt" 2>&1; grep -E "overall|top-10" "$out/table.txt"
echo "== done at $(( $(date +%s) - t0 )) s"
