#!/usr/bin/env bash
# One call: this build (no batches wherever one query fills the GPU) against a variant that also
# lets two queries pair on sequences of at most 256 residues (warpsw-pairs), whole searches on
# 1,000,000 x 128 and x 256 residues, alternated, two rounds; then 1,000,000 x 512 side by side
# with CUDASW++ 4.0.
cd "$(dirname "$0")"
start=$(date +%s)
xz -dk warpsw.xz; xz -dc warpsw-pairs.xz > warpsw-pairs; chmod +x warpsw-pairs
echo "build $(cat COMMIT); $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader)"
mkdir -p $OUT/p
eqdb() { # length: /tmp/eqL.fa (16 shards side by side)
  local L=$1 pids=()
  for s in $(seq 1 16); do python3 synthdb.py --sequences 62500 --min $L --max $L --mean $L --seed $((L * 100 + s)) > /tmp/eq${L}_$s.fa & pids+=($!); done
  for p in "${pids[@]}"; do wait "$p"; done
  cat $(for s in $(seq 1 16); do echo /tmp/eq${L}_$s.fa; done) | awk '/^>/ { printf ">eq%07d\n", n++; next } { print }' > /tmp/eq$L.fa
  rm -f /tmp/eq${L}_*.fa
}
for L in 128 256; do
  eqdb $L; ./warpsw makedb /tmp/eq$L.fa -o /tmp/eq$L.wsw | tail -1; rm -f /tmp/eq$L.fa
  for round in 1 2; do
    for bin in warpsw warpsw-pairs; do
      l=$OUT/p/eq${L}_${bin}_$round.log
      ./$bin search -q queries.fasta -d /tmp/eq$L.wsw --device gpu --stats none --columns qseqid,sseqid,score \
        -o /tmp/p_$bin.tsv > $l 2>&1
      echo "eq$L $bin round $round: $(grep -o 'in [0-9.]* s = [0-9.]* GCUPS' $l | head -1)"
    done
  done
  cmp /tmp/p_warpsw.tsv /tmp/p_warpsw-pairs.tsv && echo "eq$L: outputs equal"; rm -f /tmp/p_*.tsv /tmp/eq$L.wsw
done
tar -czf $OUT/pairs.tgz -C $OUT p && rm -rf $OUT/p
echo "== at $(( $(date +%s) - start )) s: 1,000,000 x 512 side by side"
eqdb 512
mkdir -p $OUT/eq512
OUT=$OUT/eq512 WORK=/tmp/sidebyside bash sidebyside.sh queries.fasta /tmp/eq512.fa 2>&1 | tail -26
echo "== at $(( $(date +%s) - start )) s: done"
