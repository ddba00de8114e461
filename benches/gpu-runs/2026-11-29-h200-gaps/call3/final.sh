#!/usr/bin/env bash
# One call: main 69ca36e (warpsw) against three builds whose lifted update takes some gap costs
# as immediates (hard-coded for --gap-open 10 --gap-extend 1 only): warpsw-va E's floor (first),
# warpsw-vb E's floor and extend, warpsw-imm all four. Whole searches alternated on
# 1,000,000 x 128 / 256 / 512 residues, hits compared.
cd "$(dirname "$0")"
start=$(date +%s); el() { echo $(( $(date +%s) - start )); }
bins="warpsw warpsw-va warpsw-vb warpsw-imm"
for f in $bins; do [ -f $f ] || xz -d $f.xz & done
for p in $(jobs -p); do wait "$p"; done
chmod +x $bins
echo "build $(cat COMMIT) and variants; $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader)"
for L in 128 256 512; do
  pids=()
  for k in $(seq 0 15); do python3 synthdb.py --sequences 62500 --seed $((k + 1)) --min $L --max $L --mean $L > /tmp/sh_$k.fa & pids+=($!); done
  for p in "${pids[@]}"; do wait "$p"; done
  cat $(for k in $(seq 0 15); do echo /tmp/sh_$k.fa; done) | awk '/^>/ { print ">s" n++; next } { print }' > /tmp/eq$L.fa
  ./warpsw makedb /tmp/eq$L.fa -o /tmp/eq$L.wsw > /dev/null; rm -f /tmp/eq$L.fa /tmp/sh_*.fa
done
echo "== at $(el) s: databases made"
mkdir -p $OUT/s
for db in eq128 eq256 eq512; do
  rounds=2; [ $db = eq128 ] && rounds=3; [ $db = eq512 ] && rounds=1
  for round in $(seq 1 $rounds); do
    for b in $bins; do
      ./$b search -q queries.fasta -d /tmp/$db.wsw --device gpu --gap-open 10 --gap-extend 1 --columns qseqid,sseqid,score -o $OUT/s/$db-$b$round.tsv > $OUT/s/$db-$b$round.log 2>&1
      echo "$db $b $round: $(grep -o 'in [0-9.]* s = [0-9.]* GCUPS' $OUT/s/$db-$b$round.log | head -1) $(grep -i -m1 'error\|panic' $OUT/s/$db-$b$round.log)"
    done
  done
  for f in $OUT/s/$db-*.tsv; do cmp -s $OUT/s/$db-warpsw1.tsv $f || echo "$(basename $f) DIFFERS"; done
  echo "$db hits compared"; rm -f $OUT/s/$db-*.tsv
done
tar czf $OUT/logs.tgz -C $OUT s; rm -rf $OUT/s
echo "== at $(el) s: done"
