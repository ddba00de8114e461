#!/usr/bin/env bash
# long.fasta's bench (as long_queries.sh long) with WARPSW_TIMELINE=chunks, against half of
# Swiss-Prot with and without the records beyond 16 bits; then the titins alone; logs to $OUT.
cd "$(dirname "$0")"
out=${OUT:-out}/stall2; mkdir -p "$out"
start=$(date +%s)
[ -f warpsw ] || xz -dk warpsw.xz; chmod +x warpsw
echo "build $(cat COMMIT); $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader)"
[ -f sprot_half.fasta ] || xz -dc sprot_half.fasta.xz > sprot_half.fasta
[ -f sprot_half.wsw ] || ./warpsw makedb sprot_half.fasta -o sprot_half.wsw > /dev/null
if [ ! -f sprot_half_within.wsw ]; then
    ./warpsw search -q long.fasta -d sprot_half.wsw --stats none --max-target-seqs 500 \
        --columns qseqid,sseqid,score --device gpu --quiet -o long_top.tsv
    awk -F'\t' 'NR > 1 && $3 > 32640 { print $2 }' long_top.tsv | sort -u > beyond.txt
    awk 'NR == FNR { drop[$1] = 1; next } /^>/ { id = substr($1, 2); keep = !(id in drop) } keep' \
        beyond.txt sprot_half.fasta > sprot_half_within.fasta
    ./warpsw makedb sprot_half_within.fasta -o sprot_half_within.wsw > /dev/null
fi
awk '/^>/ { n++ } n >= 9' long.fasta > last3.fa
for q in long last3; do
    file=long.fasta; [ $q = last3 ] && file=last3.fa
    for db in sprot_half sprot_half_within; do
        WARPSW_TIMELINE=chunks ./warpsw bench --query $file --db $db.wsw --device gpu \
            --kernels auto --gap-open 10 --gap-extend 1 --warmup 1 --repeat 3 > "$out/${q}_$db.log" 2>&1
        echo "$q $db: $(grep -A12 '^query ' "$out/${q}_$db.log" | grep -E 'Q9I7U4|Q8WZ42|A2ASS6|overall' | tr -s ' ' | tr '\n' ';')"
    done
done
(cd "${OUT:-out}" && tar -czf stall2.tgz stall2 && rm -rf stall2)
echo "== at $(( $(date +%s) - start )) s: done"
