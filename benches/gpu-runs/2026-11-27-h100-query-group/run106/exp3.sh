#!/usr/bin/env bash
# --gpu-streams on the query-group plan: `bench` of the eight shortest
# queries and whole score-only searches of the 20, alternated.
set -uo pipefail
cd "$(dirname "$0")"
out=${OUT:-/tmp/out}; mkdir -p "$out"
exec > >(tee -a "$out/exp3.log") 2>&1
[ -f warpsw.xz ] && xz -d -f warpsw.xz && chmod +x warpsw
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
python3 synthdb.py --sequences 570000 --seed 1 > synth570k.fa && ./warpsw makedb synth570k.fa -o synth570k.wsw > /dev/null
xz -dc sprot_half.fasta.xz > sprot_half.fasta && ./warpsw makedb sprot_half.fasta -o sprot_half.wsw > /dev/null
awk '/^>/ { n++ } n <= 8' queries.fasta > short8.fasta
for round in 1 2; do
    for s in 4 8 16 32; do
        ./warpsw bench --device gpu --query short8.fasta --db synth570k.wsw --gap-open 10 --gap-extend 1 \
            --warmup 1 --repeat 3 --kernels auto --gpu-streams $s > "$out/bench_${s}_$round.log" 2>&1
        echo "== round $round, $s streams, 570k short8: $(awk 'NF == 3 && $2 ~ /^[0-9]+$/ { printf "%s:%s ", $2, $3 }' "$out/bench_${s}_$round.log") $(grep -E '^overall' "$out/bench_${s}_$round.log")"
        for db in synth570k sprot_half; do
            ./warpsw search -q queries.fasta -d $db.wsw --gap-open 10 --gap-extend 1 --device gpu --gpu-streams $s \
                --columns qseqid,sseqid,score -o "$out/hits_${db}_$s.tsv" > "$out/search_${db}_${s}_$round.log" 2>&1
            echo "   $db search: $(grep -oE '[0-9.]+ GCUPS' "$out/search_${db}_${s}_$round.log" | tail -1)"
        done
    done
done
for db in synth570k sprot_half; do
    for s in 4 16 32; do cmp -s "$out/hits_${db}_8.tsv" "$out/hits_${db}_$s.tsv" || echo "HITS DIFFER $db $s"; done
done
rm -f "$out"/hits_*.tsv
