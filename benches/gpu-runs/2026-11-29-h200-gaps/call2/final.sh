#!/usr/bin/env bash
# One call: which pipe a 32-bit add of an immediate issues on (microbenchmark, ncu), then main
# 69ca36e (warpsw) against a build whose lifted update has the gap costs 10/1 as immediates
# (warpsw-imm, hard-coded: valid for --gap-open 10 --gap-extend 1 only): whole searches
# alternated on 1,000,000 x 128 / 256 residues, hits compared.
cd "$(dirname "$0")"
start=$(date +%s); el() { echo $(( $(date +%s) - start )); }
for f in warpsw warpsw-imm; do [ -f $f ] || xz -d $f.xz & done
for p in $(jobs -p); do wait "$p"; done
chmod +x warpsw warpsw-imm
echo "build $(cat COMMIT) and warpsw-imm; $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader)"
(cd scratch && nvcc -arch=sm_90 -O3 -o pipes pipes.cu && cuobjdump -sass pipes | grep -oE "(VIMNMX3|IADD3|VIADD|IMAD)[.A-Z0-9x]*" | sort | uniq -c && ./pipes && ncu --metrics regex:sm__inst_executed_pipe_.*\.sum$ -k regex:k --launch-skip 14 ./pipes 2>&1 | grep -E "void k|pipe_(alu|fma|fmaheavy|fmalite|uniform)\.sum " | grep -v " 0$")
for L in 128 256; do
  pids=()
  for k in $(seq 0 15); do python3 synthdb.py --sequences 62500 --seed $((k + 1)) --min $L --max $L --mean $L > /tmp/sh_$k.fa & pids+=($!); done
  for p in "${pids[@]}"; do wait "$p"; done
  cat $(for k in $(seq 0 15); do echo /tmp/sh_$k.fa; done) | awk '/^>/ { print ">s" n++; next } { print }' > /tmp/eq$L.fa
  ./warpsw makedb /tmp/eq$L.fa -o /tmp/eq$L.wsw > /dev/null; rm -f /tmp/eq$L.fa /tmp/sh_*.fa
done
echo "== at $(el) s: databases made"
mkdir -p $OUT/s
for db in eq128 eq256; do
  for round in 1 2 3; do
    for b in warpsw warpsw-imm; do
      ./$b search -q queries.fasta -d /tmp/$db.wsw --device gpu --gap-open 10 --gap-extend 1 --columns qseqid,sseqid,score -o $OUT/s/$db-$b$round.tsv > $OUT/s/$db-$b$round.log 2>&1
      echo "$db $b $round: $(grep -o 'in [0-9.]* s = [0-9.]* GCUPS' $OUT/s/$db-$b$round.log | head -1) $(grep -i -m1 'error\|panic' $OUT/s/$db-$b$round.log)"
    done
  done
  for f in $OUT/s/$db-*.tsv; do cmp -s $OUT/s/$db-warpsw1.tsv $f || echo "$(basename $f) DIFFERS"; done
  echo "$db hits compared"; rm -f $OUT/s/$db-*.tsv
done
tar czf $OUT/logs.tgz -C $OUT s; rm -rf $OUT/s
echo "== at $(el) s: done"
