# Issue 37 at main's final commit (bundle COMMIT): whole searches with chunks scored whole
# (default) and off, alternated, outputs compared; long.fasta one query at a time with and
# without the records beyond 16 bits; --explain for long.fasta.
. "$(dirname "$0")/common.sh"
echo "build $(cat COMMIT); $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader)"
[ -f sprot_half.fasta ] || xz -dc sprot_half.fasta.xz > sprot_half.fasta
[ -f sprot_half.wsw ] || ./warpsw makedb sprot_half.fasta -o sprot_half.wsw > /dev/null
ws() { # on|off queries
    WARPSW_RESCUE_WHOLE_CHUNKS=$1 /usr/bin/time -f "WALL %e" ./warpsw search -q "$2" \
        -d sprot_half.wsw --gap-open 10 --gap-extend 1 --columns qseqid,sseqid,score --device gpu -o /tmp/top10_$1.tsv 2>&1
}
for q in queries long; do
    echo "== $q.fasta x half of Swiss-Prot, whole search"
    for round in 1 2 3; do
        line="round $round:"
        for s in on off; do
            ws $s $q.fasta > "$out/${q}_${s}_$round.log"
            line="$line  $s $(grep -o 'in [0-9.]* s' "$out/${q}_${s}_$round.log" | head -1) $(grep -o 'WALL [0-9.]*' "$out/${q}_${s}_$round.log")"
        done
        cmp -s /tmp/top10_on.tsv /tmp/top10_off.tsv && echo "$line  (identical)" || echo "$line  OUTPUT DIFFERS"
    done
done
./warpsw search -q long.fasta -d sprot_half.wsw --gap-open 10 --gap-extend 1 --device gpu --explain > "$out/explain_long.txt" 2>&1
grep -i "whole" "$out/explain_long.txt" | head -5
echo "== long.fasta one query at a time (bench --check 0, default)"
. ./long_queries.sh > /dev/null 2>&1 </dev/null
within
for db in sprot_half sprot_half_within; do
    ./warpsw bench --query long.fasta --db "$db.wsw" --device gpu --kernels auto --gap-open 10 \
        --gap-extend 1 --warmup 1 --repeat 3 --check 0 > "$out/bench_$db.log" 2>&1
done
paste <(grep -E '^[A-Z0-9]+ +[0-9]+ +[0-9.]+$' "$out/bench_sprot_half.log") <(grep -E '^[A-Z0-9]+ +[0-9]+ +[0-9.]+$' "$out/bench_sprot_half_within.log") \
    | awk '{ printf "%-8s %6d %8.1f %8.1f %5.2f\n", $1, $2, $3, $6, $3 / $6 }'
tar czf "$out/logs.tgz" -C "$out" --exclude logs.tgz . 2>/dev/null; find "$out" -maxdepth 1 -type f ! -name logs.tgz -delete
