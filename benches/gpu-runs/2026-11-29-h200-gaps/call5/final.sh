#!/usr/bin/env bash
# One call: the build COMMIT side by side with CUDASW++ 4.0 on 1,000,000 x 128 / 256 / 512
# residues (equal_lengths.sh), then COMMIT (warpsw) against main 69ca36e (warpsw-main) on the
# 570k synthetic database, alternated, hits compared.
cd "$(dirname "$0")"
start=$(date +%s); el() { echo $(( $(date +%s) - start )); }
for f in warpsw warpsw-main; do [ -f $f ] || xz -d $f.xz & done
for p in $(jobs -p); do wait "$p"; done
chmod +x warpsw warpsw-main
echo "build $(cat COMMIT); $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader)"
mkdir -p /tmp/eq
OUT=/tmp/eq WORK=/tmp/equal_lengths timeout $(( 480 - $(el) )) bash equal_lengths.sh 128 256 512 2>&1 | grep -v "^warpsw: progress"
echo "== at $(el) s: 570k"
python3 synthdb.py --sequences 570000 --seed 1 > /tmp/s570k.fa && ./warpsw makedb /tmp/s570k.fa -o /tmp/s570k.wsw > /dev/null
mkdir -p /tmp/eq/s
for round in 1 2; do
  for b in warpsw-main warpsw; do
    ./$b search -q queries.fasta -d /tmp/s570k.wsw --device gpu --gap-open 10 --gap-extend 1 --columns qseqid,sseqid,score -o /tmp/eq/s/$b$round.tsv > /tmp/eq/s/$b$round.log 2>&1
    echo "570k $b $round: $(grep -o 'in [0-9.]* s = [0-9.]* GCUPS' /tmp/eq/s/$b$round.log | head -1) $(grep -i -m1 'error\|panic' /tmp/eq/s/$b$round.log)"
  done
done
for f in /tmp/eq/s/*.tsv; do cmp -s /tmp/eq/s/warpsw-main1.tsv $f || echo "$(basename $f) DIFFERS"; done; echo "570k hits compared"
tar czf $OUT/logs.tgz -C /tmp eq
echo "== at $(el) s: done"
