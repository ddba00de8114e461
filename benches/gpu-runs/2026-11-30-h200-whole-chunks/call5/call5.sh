# A pole's share judged against the search of every loaded query (pairs), POLE_SHARE 0.5
# (cd75a99): whole searches with WARPSW_POLE_SHARE 0.25 / 0.5 (default) / whole chunks off,
# alternated; then long.fasta one query at a time with and without the records beyond 16 bits.
. "$(dirname "$0")/common.sh"
[ -f sprot_half.fasta ] || xz -dc sprot_half.fasta.xz > sprot_half.fasta
[ -f sprot_half.wsw ] || ./warpsw makedb sprot_half.fasta -o sprot_half.wsw > /dev/null
ws() { # setting queries
    local share=$1 whole=on; [ "$1" = off ] && { share=; whole=off; }
    WARPSW_POLE_SHARE=$share WARPSW_RESCUE_WHOLE_CHUNKS=$whole /usr/bin/time -f "WALL %e" ./warpsw search -q "$2" \
        -d sprot_half.wsw --gap-open 10 --gap-extend 1 --columns qseqid,sseqid,score --device gpu -o /tmp/top10_$1.tsv 2>&1
}
for q in queries long; do
    echo "== $q.fasta x half of Swiss-Prot, whole search"
    for round in 1 2 3 4; do
        line="round $round:"
        for s in 0.25 0.5 off; do
            ws $s $q.fasta > "$out/${q}_${s}_$round.log"
            line="$line  $s $(grep -o 'in [0-9.]* s' "$out/${q}_${s}_$round.log" | head -1) $(grep -o 'WALL [0-9.]*' "$out/${q}_${s}_$round.log")"
        done
        cmp -s /tmp/top10_0.25.tsv /tmp/top10_off.tsv && cmp -s /tmp/top10_0.5.tsv /tmp/top10_off.tsv && echo "$line  (identical)" || echo "$line  OUTPUT DIFFERS"
    done
done
echo "== long.fasta one query at a time (bench, default share)"
. ./long_queries.sh > /dev/null 2>&1 </dev/null
within
for db in sprot_half sprot_half_within; do
    ./warpsw bench --query long.fasta --db "$db.wsw" --device gpu --kernels auto --gap-open 10 \
        --gap-extend 1 --warmup 1 --repeat 3 --check 0 > "$out/bench_$db.log" 2>&1
done
paste <(grep -E '^[A-Z0-9]+ +[0-9]+ +[0-9.]+$' "$out/bench_sprot_half.log") <(grep -E '^[A-Z0-9]+ +[0-9]+ +[0-9.]+$' "$out/bench_sprot_half_within.log") \
    | awk '{ printf "%-8s %6d %8.1f %8.1f %5.2f\n", $1, $2, $3, $6, $3 / $6 }'
echo "== GPU tests of the rescue (default share)"
./warpsw-tests --ignored --test-threads 1 gpu_many_long_pairs_beyond_16_bits_are_rescued gpu_adversarial_cases 2>&1 | tail -6
