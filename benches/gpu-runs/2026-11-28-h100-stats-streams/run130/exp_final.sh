#!/usr/bin/env bash
# The session's last call: whole searches against the session's first
# binary on three databases, side by side with CUDASW++4 on two, the
# new default of streams against 8, and the query-pair GPU test.
cd "$(dirname "$0")"
QG_STEPS='absearch side' QG_AB_DBS='synth570k sprot_half uniprot20k' \
    QG_SIDE_DBS='synth570k:synth570k.fa sprot_half:sprot_half.fasta' OUT=$OUT bash query_group.sh > /dev/null 2>&1
grep -E "^== |hits|agree|overall" $OUT/qg.log
for db in sprot_half uniprot20k synth570k; do
  for round in 1 2; do
    for s in 16 8; do
      g=$(./warpsw search -q queries.fasta -d $db.wsw --gap-open 10 --gap-extend 1 --device gpu --gpu-streams $s \
          --columns qseqid,sseqid,score -o /tmp/st_${db}_$s.tsv 2>&1 | grep -oE '[0-9.]+ GCUPS' | tail -1)
      echo "streams $db $s round $round: $g"
    done
  done
  cmp -s /tmp/st_${db}_16.tsv /tmp/st_${db}_8.tsv && echo "streams $db: hits identical" || echo "streams $db: HITS DIFFER"
done
timeout 200 ./warpsw-tests --ignored --test-threads=1 gpu_query_pairs 2>&1 | tail -4
