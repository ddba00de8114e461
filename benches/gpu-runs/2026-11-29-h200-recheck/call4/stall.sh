#!/usr/bin/env bash
# Titin's searches: where a worker stream waits. Each variant a bench of the two titins
# (warm-up 1, repeat 5) with WARPSW_TIMELINE=chunks, against half of Swiss-Prot and
# against it without the records beyond 16 bits; logs to $OUT/stall.
cd "$(dirname "$0")"
out=${OUT:-out}/stall; mkdir -p "$out"
start=$(date +%s)
[ -f warpsw ] || xz -dk warpsw.xz; chmod +x warpsw
echo "build $(cat COMMIT); $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader)"
[ -f sprot_half.fasta ] || xz -dc sprot_half.fasta.xz > sprot_half.fasta
[ -f sprot_half.wsw ] || ./warpsw makedb sprot_half.fasta -o sprot_half.wsw > /dev/null
if [ ! -f sprot_half_within.wsw ]; then
    awk '/^>/ { n++ } n >= 10' long.fasta > titins.fa
    ./warpsw search -q long.fasta -d sprot_half.wsw --stats none --max-target-seqs 500 \
        --columns qseqid,sseqid,score --device gpu --quiet -o long_top.tsv
    awk -F'\t' 'NR > 1 && $3 > 32640 { print $2 }' long_top.tsv | sort -u > beyond.txt
    awk 'NR == FNR { drop[$1] = 1; next } /^>/ { id = substr($1, 2); keep = !(id in drop) } keep' \
        beyond.txt sprot_half.fasta > sprot_half_within.fasta
    ./warpsw makedb sprot_half_within.fasta -o sprot_half_within.wsw > /dev/null
fi
awk '/^>/ { n++ } n >= 10' long.fasta > titins.fa
for variant in default conn32 queued eager; do
    env=(); case $variant in eager) env=(CUDA_MODULE_LOADING=EAGER);; conn32) env=(CUDA_DEVICE_MAX_CONNECTIONS=32);; queued) env=(WARPSW_CHUNK_DISPATCH=queued);; esac
    for db in sprot_half sprot_half_within; do
        env "${env[@]}" WARPSW_TIMELINE=chunks ./warpsw bench --query titins.fa --db $db.wsw --device gpu \
            --kernels auto --gap-open 10 --gap-extend 1 --warmup 1 --repeat 5 > "$out/${variant}_$db.log" 2>&1
        echo "$variant $db: $(grep -A3 '^query ' "$out/${variant}_$db.log" | tail -2 | tr -s ' ' | tr '\n' ';')"
        grep -o 'from [0-9.]* to [0-9.]*, launches. sum [0-9.]*, longest [0-9.]*' "$out/${variant}_$db.log" | tr '\n' '|' | cut -c1-600; echo
    done
done
(cd "${OUT:-out}" && tar -czf stall.tgz stall && rm -rf stall)
echo "== at $(( $(date +%s) - start )) s: done"
