#!/usr/bin/env bash
# bench with the top hits from sorted order (570k); group-i16x2 with 8 streams on small databases; UniProt 20k side by side, score-only.
set -uo pipefail
cd "$(dirname "$0")"; here=$(pwd)
out=${OUT:-/tmp/o}; mkdir -p "$out"
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/gpu.txt"; cat COMMIT
( mkdir -p /tmp/sidebyside/logs && cd /tmp/sidebyside && tar -xzf "$here/cudasw4-37a394c.tar.gz" \
  && sed -i 's/-arch=native/-arch=sm_90/; s/^COMPILE = $(COMPILER) /COMPILE = $(COMPILER) -x cu /' cudasw4/Makefile \
  && { ls /usr/local/cuda/lib64/libnvToolsExt.so* >/dev/null 2>&1 || sed -i 's/-lnvToolsExt//' cudasw4/Makefile; } \
  && cd cudasw4 && make -j12 release > "$out/cudasw4_build.log" 2>&1; echo "cudasw4 build rc $? at $(( $(date +%s) - t0 )) s" >> "$out/cudasw4_build.log" ) &
python3 synthdb.py --sequences 570000 --seed 1 > synth570k.fa && ./warpsw makedb synth570k.fa -o synth570k.wsw > /dev/null
python3 synthdb.py --sequences 50000 --seed 3 > synth50k.fa && ./warpsw makedb synth50k.fa -o synth50k.wsw > /dev/null
b() { ./warpsw bench --device gpu --check 300 --csv "$out/bench.csv" --query queries.fasta --gap-open 10 --gap-extend 1 --warmup 1 "$@"; }
b --db synth570k.wsw --repeat 2 --kernels auto > "$out/bench570k.log" 2>&1; grep -E "^[0-9A-Z].* [0-9]+ +[0-9.]+$|overall" "$out/bench570k.log"
echo "== at $(( $(date +%s) - t0 )) s"
b --db uniprot20k.fasta.gz --repeat 1 --kernels group-i16x2,simt-i16x2,partitioned-vl32-pl512,auto > "$out/bench20k.log" 2>&1; grep -E "^query|overall" "$out/bench20k.log"
b --db synth50k.wsw --repeat 1 --kernels group-i16x2,auto > "$out/bench50k.log" 2>&1; grep -E "^query|overall" "$out/bench50k.log"
echo "== at $(( $(date +%s) - t0 )) s"
wait; tail -1 "$out/cudasw4_build.log"
WARPSW_ARGS="--columns qseqid,sseqid,score,evalue,bitscore" OUT=$out timeout 150 bash sidebyside.sh queries.fasta uniprot20k.fasta.gz 2>&1 | grep -E "overall|top-10" | tee "$out/sbs_uniprot_scores.txt"
mkdir -p "$out/g"; WARPSW_ARGS="--columns qseqid,sseqid,score,evalue,bitscore --kernel group-i16x2" OUT=$out/g timeout 150 bash sidebyside.sh queries.fasta uniprot20k.fasta.gz 2>&1 | grep -E "overall|top-10" | tee "$out/sbs_uniprot_scores_group.txt"
echo "== done at $(( $(date +%s) - t0 )) s"
