#!/usr/bin/env bash
set -uo pipefail
cd "$(dirname "$0")"
cat COMMIT
[ -f sprot_half.wsw ] || { xz -dc sprot_half.fasta.xz > sprot_half.fasta && ./warpsw makedb sprot_half.fasta -o sprot_half.wsw > /dev/null; }
for r in 1 2; do ./warpsw-timing search -q queries.fasta -d sprot_half.wsw --device gpu --gap-open 10 --gap-extend 1 --top 10 -o /tmp/h.tsv > /tmp/t$r.log 2>&1; done
grep -v "^TIMING" /tmp/t2.log | tail -1; grep TIMING /tmp/t2.log
