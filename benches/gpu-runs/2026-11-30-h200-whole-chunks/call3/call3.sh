# At the pole-blocks build: (1) every score of long.fasta x half of Swiss-Prot with the
# longest chunks scored whole by the rescue and without, compared; (2) the plan for the
# 20 standard queries; (3) the 20 standard queries side by side, half of Swiss-Prot and 570k.
. "$(dirname "$0")/common.sh"
[ -f sprot_half.fasta ] || xz -dc sprot_half.fasta.xz > sprot_half.fasta
[ -f sprot_half.wsw ] || ./warpsw makedb sprot_half.fasta -o sprot_half.wsw > /dev/null
echo "== every score, whole chunks on and off"
for whole in on off; do
    WARPSW_RESCUE_WHOLE_CHUNKS=$whole /usr/bin/time -f "WALL %e" ./warpsw search -q long.fasta -d sprot_half.wsw \
        --device gpu --stats none --max-target-seqs 300000 --columns qseqid,sseqid,score \
        -o /tmp/all_$whole.tsv 2> "$out/all_$whole.log"
    echo "$whole: $(wc -l < /tmp/all_$whole.tsv) lines, $(tail -1 "$out/all_$whole.log")"
done
sort /tmp/all_on.tsv | md5sum; sort /tmp/all_off.tsv | md5sum
cmp <(sort /tmp/all_on.tsv) <(sort /tmp/all_off.tsv) && echo "EVERY SCORE EQUAL" || echo "SCORES DIFFER"
echo "== plan, long.fasta and queries.fasta"
./warpsw search -q long.fasta -d sprot_half.wsw --device gpu --explain 2>&1 | grep -i 'queries of\|whole'
./warpsw search -q queries.fasta -d sprot_half.wsw --device gpu --explain 2>&1 | grep -i 'queries of\|whole'
echo "== queries.fasta side by side"
mkdir -p "$out/sprot" "$out/s570k"
OUT=$out/sprot bash sidebyside.sh queries.fasta sprot_half.fasta 2>&1 | tail -26
[ -f synth570k.fa ] || python3 synthdb.py --sequences 570000 --seed 1 > synth570k.fa
OUT=$out/s570k bash sidebyside.sh queries.fasta synth570k.fa 2>&1 | tail -26
