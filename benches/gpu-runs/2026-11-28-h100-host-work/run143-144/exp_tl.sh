#!/usr/bin/env bash
# The timeline at a9fda6f: bench and search with it on, hits compared with it off; a bad value.
set -uo pipefail
cd "$(dirname "$0")"
xz -d -f warpsw.xz && chmod +x warpsw
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
echo "commit $(cat COMMIT)"
python3 synthdb.py --sequences 100000 --seed 1 > s100k.fa && ./warpsw makedb s100k.fa -o s100k.wsw > /dev/null
awk '/^>/ { n++ } n <= 1' queries.fasta > q144.fasta
awk '/^>/ { n++ } n <= 3' queries.fasta > q3.fasta
WARPSW_TIMELINE=on ./warpsw bench --device gpu --query q144.fasta --db s100k.wsw --gap-open 10 --gap-extend 1 --warmup 1 --repeat 3 2>&1 | grep -E "timeline|error" 
WARPSW_TIMELINE=on ./warpsw search -q q3.fasta -d s100k.wsw --gap-open 10 --gap-extend 1 --device gpu --quiet --columns qseqid,sseqid,score -o on.tsv 2>&1 | grep -E "timeline|error"
echo "search rc ${PIPESTATUS[0]}"
./warpsw search -q q3.fasta -d s100k.wsw --gap-open 10 --gap-extend 1 --device gpu --quiet --columns qseqid,sseqid,score -o off.tsv
cmp on.tsv off.tsv && echo "hits identical ($(wc -l < on.tsv) lines)"
WARPSW_TIMELINE=bad ./warpsw search -q q3.fasta -d s100k.wsw --device gpu -o bad.tsv; echo "rc $?"; ls bad.tsv 2>&1
