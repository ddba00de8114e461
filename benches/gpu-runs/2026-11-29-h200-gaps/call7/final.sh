#!/usr/bin/env bash
# One call: the build COMMIT (warpsw) against main 69ca36e (warpsw-main) on the 570k synthetic
# database with warpsw's default gaps (11/1, compiled in) and with 12/2 (taken from the
# parameters, as main), alternated, hits compared.
cd "$(dirname "$0")"
start=$(date +%s)
for f in warpsw warpsw-main; do [ -f $f ] || xz -d $f.xz & done
for p in $(jobs -p); do wait "$p"; done
chmod +x warpsw warpsw-main
echo "build $(cat COMMIT); $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader)"
[ -f /tmp/s570k.wsw ] || { python3 synthdb.py --sequences 570000 --seed 1 > /tmp/s570k.fa && ./warpsw makedb /tmp/s570k.fa -o /tmp/s570k.wsw > /dev/null; }
mkdir -p /tmp/g
for gaps in "11 1" "12 2"; do
  set -- $gaps
  for round in 1 2; do
    for b in warpsw-main warpsw; do
      ./$b search -q queries.fasta -d /tmp/s570k.wsw --device gpu --gap-open $1 --gap-extend $2 --columns qseqid,sseqid,score -o /tmp/g/$b$1$round.tsv > /tmp/g/$b$1$round.log 2>&1
      echo "570k gaps $1/$2 $b $round: $(grep -o 'in [0-9.]* s = [0-9.]* GCUPS' /tmp/g/$b$1$round.log | head -1) $(grep -i -m1 'error\|panic' /tmp/g/$b$1$round.log)"
    done
  done
  for f in /tmp/g/*$1?.tsv; do cmp -s /tmp/g/warpsw-main${1}1.tsv $f || echo "$(basename $f) DIFFERS"; done; echo "gaps $1/$2 hits compared"
done
echo "== at $(( $(date +%s) - start )) s: done"
