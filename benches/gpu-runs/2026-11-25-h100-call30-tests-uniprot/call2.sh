#!/usr/bin/env bash
# GPU tests; CUDASW++4 built meanwhile; side by side on UniProt 20k; where search's report time goes on Swiss-Prot half.
set -uo pipefail
cd "$(dirname "$0")"; here=$(pwd)
out=${OUT:-/tmp/o}; mkdir -p "$out"
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/gpu.txt"; cat COMMIT
( mkdir -p /tmp/sidebyside/logs && cd /tmp/sidebyside && tar -xzf "$here/cudasw4-37a394c.tar.gz" \
  && sed -i 's/-arch=native/-arch=sm_90/; s/^COMPILE = $(COMPILER) /COMPILE = $(COMPILER) -x cu /' cudasw4/Makefile \
  && { ls /usr/local/cuda/lib64/libnvToolsExt.so* >/dev/null 2>&1 || sed -i 's/-lnvToolsExt//' cudasw4/Makefile; } \
  && cd cudasw4 && nice make -j12 release > "$out/cudasw4_build.log" 2>&1; echo "cudasw4 build rc $? at $(( $(date +%s) - t0 )) s" >> "$out/cudasw4_build.log" ) &
( xz -dc sprot_half.fasta.xz > sprot_half.fasta && ./warpsw makedb sprot_half.fasta -o sprot_half.wsw > /dev/null ) &
timeout 400 ./warpsw-tests --ignored --test-threads=1 gpu_ > "$out/tests.log" 2>&1; echo "tests rc $? at $(( $(date +%s) - t0 )) s" | tee -a "$out/tests.log"
grep -E "^test |test result" "$out/tests.log"
wait
tail -1 "$out/cudasw4_build.log"
for a in "--top 10" "--top 10 --stats fixed" "--top 1" "--top 1 --stats fixed"; do
  echo "== sprot_half search $a"; ./warpsw search -q queries.fasta -d sprot_half.wsw --device gpu --gap-open 10 --gap-extend 1 $a -o /tmp/h.tsv 2>&1 | tail -1
done
echo "== at $(( $(date +%s) - t0 )) s"
OUT=$out timeout 150 bash sidebyside.sh queries.fasta uniprot20k.fasta.gz 2>&1 | tee "$out/sbs_uniprot.txt"
echo "== done at $(( $(date +%s) - t0 )) s"
