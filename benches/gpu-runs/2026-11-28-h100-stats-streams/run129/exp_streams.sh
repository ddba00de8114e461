#!/usr/bin/env bash
# Streams and hardware queues: whole score-only searches, settings alternated.
cd "$(dirname "$0")"
for f in warpsw warpsw-tests warpsw-old; do [ -f "$f.xz" ] && xz -d -f "$f.xz" && chmod +x "$f"; done
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
[ -f synth570k.wsw ] || { python3 synthdb.py --sequences 570000 --seed 1 > synth570k.fa && ./warpsw makedb synth570k.fa -o synth570k.wsw > /dev/null; }
[ -f sprot_half.wsw ] || { xz -dc sprot_half.fasta.xz > sprot_half.fasta && ./warpsw makedb sprot_half.fasta -o sprot_half.wsw > /dev/null; }
settings=${SETTINGS:-"s8 s16 c32_s8 c32_s16 s4 c32_s12"}
for db in ${DBS:-synth570k}; do
  for round in 1 2 3; do
    for s in $settings; do
      args=""; envs=""
      case $s in *s4) args="--gpu-streams 4";; *s12) args="--gpu-streams 12";; *s16) args="--gpu-streams 16";; *s24) args="--gpu-streams 24";; esac
      case $s in c32_*) envs="CUDA_DEVICE_MAX_CONNECTIONS=32";; c16_*) envs="CUDA_DEVICE_MAX_CONNECTIONS=16";; esac
      g=$(env $envs ./warpsw search -q queries.fasta -d $db.wsw --gap-open 10 --gap-extend 1 --device gpu $args \
          --columns qseqid,sseqid,score -o /tmp/hits_${db}_$s.tsv 2>&1 | grep -oE '[0-9.]+ GCUPS' | tail -1)
      echo "$db $s round $round: $g"
    done
  done
  for s in $settings; do cmp -s /tmp/hits_${db}_s8.tsv /tmp/hits_${db}_$s.tsv || echo "$db $s: HITS DIFFER"; done
done
