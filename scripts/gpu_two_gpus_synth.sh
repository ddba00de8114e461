#!/usr/bin/env bash
# On a machine of two GPUs, from gpu-bundle/: the 570k and 2,500,000-sequence synthetic
# databases (synthdb.py, 16 shards side by side, ids renumbered), 20 queries, score-only:
# one GPU against the database split over both, two rounds; outputs compared.
. "$(dirname "$0")/common.sh"
make_db() { # sequences, name
    local pids=()
    for k in $(seq 0 15); do
        python3 synthdb.py --sequences $(( $1 / 16 )) --seed $((k + 1)) > "shard$k.fa" & pids+=($!)
    done
    for p in "${pids[@]}"; do wait "$p"; done
    awk '/^>/ { print ">s" n++; next } { print }' shard{0..15}.fa > "$2.fa" && rm -f shard*.fa
    ./warpsw makedb "$2.fa" -o "$2.wsw" | tail -1 && rm -f "$2.fa"
}
for db in 570000:synth570k 2500000:synth2500k; do
    n=${db%%:*}; name=${db#*:}
    [ -f "$name.wsw" ] || make_db "$n" "$name"
    for round in 1 2; do
        for setting in one:0 split:0,1; do
            s=${setting%%:*}; devices=${setting#*:}
            /usr/bin/time -f "$name $s: whole process %e s" ./warpsw search -q queries.fasta -d "$name.wsw" \
                --devices "$devices" --columns qseqid,sseqid,score -o "$out/$s.tsv" 2> "$out/${name}_$s.err"
            grep -o '[0-9.]* GCUPS' "$out/${name}_$s.err" | head -1 | sed "s/^/$name $s: /"
            tail -1 "$out/${name}_$s.err"
        done
    done
    cmp "$out/one.tsv" "$out/split.tsv" && echo "$name: split output = one GPU's"
done
rm -f "$out"/*.tsv
