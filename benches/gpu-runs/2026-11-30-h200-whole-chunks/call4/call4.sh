# Whole process with the longest chunks scored whole by the rescue (on) and not (off), alternated:
# the 20 standard queries x half of Swiss-Prot (5 rounds), then with the timeline, then the
# 4,136 E. coli proteins (2 rounds).
. "$(dirname "$0")/common.sh"
[ -f sprot_half.fasta ] || xz -dc sprot_half.fasta.xz > sprot_half.fasta
[ -f sprot_half.wsw ] || ./warpsw makedb sprot_half.fasta -o sprot_half.wsw > /dev/null
[ -f ecoli.fasta ] || xz -dc ecoli_k12_proteome.fasta.xz > ecoli.fasta
ws() { # whole q
    WARPSW_RESCUE_WHOLE_CHUNKS=$1 /usr/bin/time -f "WALL %e" ./warpsw search -q "$2" -d sprot_half.wsw --gap-open 10 \
        --gap-extend 1 --columns qseqid,sseqid,score --device gpu -o /tmp/top10_$1.tsv 2>&1
}
echo "== queries.fasta x half of Swiss-Prot, whole process"
for round in 1 2 3 4 5; do
    for whole in on off; do
        ws $whole queries.fasta > "$out/q_${whole}_$round.log"
        echo "round $round $whole: $(grep -o 'in [0-9.]* s = [0-9.]* GCUPS' "$out/q_${whole}_$round.log" | head -1), $(grep -o 'WALL [0-9.]*' "$out/q_${whole}_$round.log")"
    done
    cmp -s /tmp/top10_on.tsv /tmp/top10_off.tsv && echo "  output identical" || echo "  OUTPUT DIFFERS"
done
for whole in on off; do
    WARPSW_TIMELINE=on ws $whole queries.fasta > "$out/q_${whole}_timeline.log"
    echo "timeline, $whole:"; grep -i 'timeline\|search\|statistic\|load\|start\|output\|WALL' "$out/q_${whole}_timeline.log" | head -30
done
echo "== ecoli x half of Swiss-Prot, whole process"
for round in 1 2; do
    for whole in on off; do
        ws $whole ecoli.fasta > "$out/e_${whole}_$round.log"
        echo "round $round $whole: $(grep -o 'in [0-9.]* s = [0-9.]* GCUPS' "$out/e_${whole}_$round.log" | head -1), $(grep -o 'WALL [0-9.]*' "$out/e_${whole}_$round.log")"
    done
    cmp -s /tmp/top10_on.tsv /tmp/top10_off.tsv && echo "  output identical" || echo "  OUTPUT DIFFERS"
done
./warpsw search -q ecoli.fasta -d sprot_half.wsw --device gpu --explain 2>&1 | grep -c 'scored whole' | sed 's/^/ecoli length classes with chunks scored whole: /'
