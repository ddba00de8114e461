#!/usr/bin/env bash
# One long local pair on 16 cores: before (windows, a pair a core) and after (wavefront).
set -uo pipefail
cd "$(dirname "$0")"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; cat COMMIT; nproc
for round in 1 2; do for b in warpsw-before warpsw; do
  echo "== $b"; ./$b align -q q5478.fasta -t long_t.fa --mode local --device cpu -o /tmp/al_$b.tsv 2>&1 | tail -1
done; done
cmp /tmp/al_warpsw-before.tsv /tmp/al_warpsw.tsv && echo "alignments before == after"
