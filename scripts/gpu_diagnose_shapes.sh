#!/usr/bin/env bash
# On the GPU machine, from gpu-bundle/ (scripts/gpu.sh with SPROT=1 packs it as diagnose.sh):
#   bash diagnose.sh titin     # titin's and A2ASS6's chunk timelines (WARPSW_TIMELINE=chunks)
#                              # on half of Swiss-Prot with and without the records that score
#                              # beyond 16 bits against them
#   bash diagnose.sh equal     # 1,000,000 x 128 and x 256 residues: bench of the 20 standard
#                              # queries with auto, group-i16x2 and query-group-i16x2
#   bash diagnose.sh streamed  # 2,500,000 synthetic sequences: resident against
#                              # --gpu-memory 2GiB (streamed), 20 queries, two rounds
#   bash diagnose.sh explain   # --explain of two parts on GPU 0 and of two GPUs sharing chunks
#   bash diagnose.sh connections  # bench with CUDA's 8 hardware queues against warpsw's 32:
#                              # long.fasta and queries.fasta on half of Swiss-Prot, the 20
#                              # queries on the 570k synthetic database and on 1,000,000 x 128,
#                              # 256 and 512 residues
#   bash diagnose.sh dispatch  # long.fasta and the 20 queries on half of Swiss-Prot with each
#                              # chunk dispatch (WARPSW_CHUNK_DISPATCH queued, auto), long.fasta
#                              # without its hits beyond 16 bits (beyond_16_bits.txt), titin's
#                              # chunk timeline, whole searches, outputs compared
#   bash diagnose.sh short_rows  # 1,000,000 x 128 residues: where a pass over short sequences
#                              # loses its time: bench of the 20 queries with configurations
#                              # pinned (one and two rows a step), on one stream, in more chunks
#                              # than 4 (WARPSW_CHUNK_SEQUENCES), then ncu on two steady
#                              # launches of the 5,478-residue query
#   bash diagnose.sh narrow_passes  # 1,000,000 x 128, 256, 512 residues (LENGTHS) and half of
#                              # Swiss-Prot: groups of 4 lanes over several passes against 8
#                              # (bench and search, configurations pinned)
#   bash diagnose.sh short_pairs  # 1,000,000 x 128 and 256 residues (LENGTHS): whole searches
#                              # as the model chooses against no pairs of queries
#   bash diagnose.sh halves    # 1,000,000 x 128 residues (LENGTHS): whole searches as the
#                              # engine chooses, with batches forced and with one query a
#                              # launch; ncu on a launch of two queries in the halves and of one
#   bash diagnose.sh tiny      # queries of 5-20 residues x half of Swiss-Prot: each alone with
#                              # its chunks' timeline, bench medians of 9, the 22 in one search
#   bash diagnose.sh tracking  # cudarc's event tracking on (the default) against off: bench of
#                              # short.fasta and queries.fasta x half of Swiss-Prot, two rounds;
#                              # a timeline of an 8-residue query; whole searches' hits compared
#   bash diagnose.sh tests     # the GPU tests of the query-group kernels, of chunks on several
#                              # streams and of the 32-bit rescue (TESTS picks some by name)
#   bash diagnose.sh start     # whole searches (20 queries x half of Swiss-Prot, score-only) with
#                              # 8, 17 and 32 hardware queues: GPU start, scoring, wall clock
# Logs under ${OUT:-out}/.
. "$(dirname "$0")/common.sh"

sprot() {
    [ -f sprot_half.fasta ] || xz -dc sprot_half.fasta.xz > sprot_half.fasta
    [ -f sprot_half.wsw ] || ./warpsw makedb sprot_half.fasta -o sprot_half.wsw > /dev/null
}

synth() { # sequences, name, extra synthdb arguments: name.wsw, made once, 16 shards side by side
    local n=$1 name=$2 pids=()
    shift 2
    [ -f "$name.wsw" ] && return
    for k in $(seq 0 15); do
        python3 synthdb.py --sequences $((n / 16)) --seed $((k + 1)) "$@" > "/tmp/shard$k.fa" & pids+=($!)
    done
    for p in "${pids[@]}"; do wait "$p"; done
    awk '/^>/ { print ">s" n++; next } { print }' /tmp/shard{0..15}.fa > "/tmp/$name.fa"
    rm -f /tmp/shard*.fa
    ./warpsw makedb "/tmp/$name.fa" -o "$name.wsw" | tail -1
    rm -f "/tmp/$name.fa"
}

step_titin() {
    sprot
    awk '/^>/ { keep = ($1 == ">Q8WZ42" || $1 == ">A2ASS6") } keep' sprot_half.fasta > titins.fasta
    grep -c '>' titins.fasta
    ./warpsw search -q titins.fasta -d sprot_half.wsw --stats none --max-target-seqs 50 \
        --columns qseqid,sseqid,score --device gpu --quiet -o "$out/titin_top.tsv"
    awk -F'\t' 'NR > 1 && $3 > 32640 { print $2 }' "$out/titin_top.tsv" | sort -u | tee "$out/titin_beyond.txt"
    awk 'NR == FNR { drop[$1] = 1; next } /^>/ { id = substr($1, 2); keep = !(id in drop) } keep' \
        "$out/titin_beyond.txt" sprot_half.fasta > sprot_half_within.fasta
    ./warpsw makedb sprot_half_within.fasta -o sprot_half_within.wsw > /dev/null
    for db in sprot_half sprot_half_within; do
        for round in 1 2; do
            WARPSW_TIMELINE=chunks ./warpsw search -q titins.fasta -d "$db.wsw" --stats none \
                --columns qseqid,sseqid,score --device gpu --one-query-a-launch -o /dev/null \
                > "$out/titin_${db}_$round.log" 2>&1
        done
        grep -o '[0-9.]* GCUPS' "$out/titin_${db}_2.log" | head -1 | sed "s/^/$db: /"
        grep 'timeline (ms\|  chunk' "$out/titin_${db}_2.log" | sed 's/^warpsw: GPU 0 (NVIDIA [^)]*)://'
    done
    for db in sprot_half sprot_half_within; do
        ./warpsw bench --query titins.fasta --db "$db.wsw" --device gpu --kernels auto --gap-open 10 \
            --gap-extend 1 --warmup 1 --repeat 3 2>&1 | grep -E '^(Q8WZ42|A2ASS6|overall)' | sed "s/^/bench $db: /"
    done
}

step_equal() {
    for L in 128 256; do
        synth 1000000 "eq$L" --min "$L" --max "$L" --mean "$L"
        for kernel in auto group-i16x2 query-group-i16x2; do
            ./warpsw bench --query queries.fasta --db "eq$L.wsw" --device gpu --kernels "$kernel" \
                --gap-open 10 --gap-extend 1 --warmup 1 --repeat 3 > "$out/eq${L}_$kernel.log" 2>&1
            echo "eq$L $kernel: $(grep overall "$out/eq${L}_$kernel.log")"
        done
        rm -f "eq$L.wsw"
    done
}

step_short_rows() {
    synth 1000000 eq128 --min 128 --max 128 --mean 128
    for pin in "" g8_r28_lifted g8_r24_lifted g8_r24_lifted_2rows g8_r18_lifted_2rows; do
        WARPSW_QUERY_GROUP_CONFIG=$pin ./warpsw bench --query queries.fasta --db eq128.wsw --device gpu \
            --kernels query-group-i16x2 --gap-open 10 --gap-extend 1 --warmup 1 --repeat 3 \
            > "$out/short_rows_${pin:-model}.log" 2>&1
        echo "eq128 ${pin:-as the model chooses}: $(grep overall "$out/short_rows_${pin:-model}.log")"
    done
    ./warpsw bench --query queries.fasta --db eq128.wsw --device gpu --kernels query-group-i16x2 \
        --gap-open 10 --gap-extend 1 --warmup 1 --repeat 3 --gpu-streams 1 > "$out/short_rows_1stream.log" 2>&1
    echo "eq128 one stream: $(grep overall "$out/short_rows_1stream.log")"
    for chunk in 131072 65536 16384; do
        WARPSW_CHUNK_SEQUENCES=$chunk ./warpsw bench --query queries.fasta --db eq128.wsw --device gpu \
            --kernels query-group-i16x2 --gap-open 10 --gap-extend 1 --warmup 1 --repeat 3 \
            > "$out/short_rows_chunks$chunk.log" 2>&1
        echo "eq128 chunks of $chunk sequences: $(grep overall "$out/short_rows_chunks$chunk.log")"
    done
    command -v ncu > /dev/null || { echo "no ncu"; return; }
    awk '/^>/ { n++ } n == 20' queries.fasta > q5478.fasta
    timeout 200 ncu --section SpeedOfLight --section Occupancy --section WarpStateStats --section SchedulerStats \
        --section LaunchStats --metrics gpu__time_duration.sum,sm__warps_active.avg.pct_of_peak_sustained_active \
        -k "regex:^sw_query_group_i16x2_" --launch-skip 200 -c 2 \
        ./warpsw search -q q5478.fasta -d eq128.wsw --device gpu --kernel query-group-i16x2 --gpu-streams 1 \
        --stats none -o /dev/null > "$out/short_rows_ncu.txt" 2>&1
    grep -E "sw_query_group|Grid Size|Duration|Registers Per|Achieved Occupancy|Theoretical Occ|Issued Warp|No Eligible|Issue Slots Busy|Warp Cycles Per Issued|Eligible Warps|warps_active" \
        "$out/short_rows_ncu.txt" | head -40
}

step_narrow_passes() {
    # Groups of 4 lanes over several passes against 8: the fill is 3 steps
    # instead of 7 (bench, one query at a time, configurations pinned).
    for L in ${LENGTHS:-128 256 512}; do
        synth 1000000 "eq$L" --min "$L" --max "$L" --mean "$L"
        for pin in g8_r28_lifted g4_r28_lifted g8_r24_lifted_2rows g4_r24_lifted_2rows ""; do
            WARPSW_QUERY_GROUP_CONFIG=$pin ./warpsw bench --query queries.fasta --db "eq$L.wsw" --device gpu \
                --kernels query-group-i16x2 --gap-open 10 --gap-extend 1 --warmup 1 --repeat 3 \
                > "$out/narrow_eq${L}_${pin:-model}.log" 2>&1
            echo "eq$L ${pin:-as the model chooses}: $(grep overall "$out/narrow_eq${L}_${pin:-model}.log")"
        done
        # The whole search (queries paired and batched where the model says so).
        for pin in "" g8_r24_lifted_2rows g4_r24_lifted_2rows; do
            WARPSW_QUERY_GROUP_CONFIG=$pin ./warpsw search -q queries.fasta -d "eq$L.wsw" --device gpu \
                --columns qseqid,sseqid,score -o "$out/narrow_search_eq${L}_${pin:-model}.tsv" \
                > "$out/narrow_search_eq${L}_${pin:-model}.log" 2>&1
            echo "search eq$L ${pin:-as the model chooses}: $(grep -o '[0-9.]* GCUPS' "$out/narrow_search_eq${L}_${pin:-model}.log" | head -1)"
        done
        for pin in g8_r24_lifted_2rows g4_r24_lifted_2rows; do
            cmp "$out/narrow_search_eq${L}_model.tsv" "$out/narrow_search_eq${L}_$pin.tsv" \
                && echo "search eq$L: $pin's hits = the model's"
        done
        rm -f "$out"/narrow_search_*.tsv
        rm -f "eq$L.wsw"
    done
    sprot
    for pin in g8_r24_lifted_2rows g4_r24_lifted_2rows g8_r28_lifted g4_r28_lifted ""; do
        WARPSW_QUERY_GROUP_CONFIG=$pin ./warpsw bench --query queries.fasta --db sprot_half.wsw --device gpu \
            --kernels query-group-i16x2 --gap-open 10 --gap-extend 1 --warmup 1 --repeat 3 \
            > "$out/narrow_sprot_${pin:-model}.log" 2>&1
        echo "sprot_half ${pin:-as the model chooses}: $(grep overall "$out/narrow_sprot_${pin:-model}.log")"
    done
}

step_short_pairs() {
    # Whole searches on 1,000,000 x 128 and 256 residues: as the model
    # chooses (queries paired where it says so) against no pairs at all
    # (g4_r24_lifted_2rows pinned), two rounds, hits compared.
    for L in ${LENGTHS:-128 256}; do
        synth 1000000 "eq$L" --min "$L" --max "$L" --mean "$L"
        for round in 1 2; do
            for pin in "" g4_r24_lifted_2rows; do
                WARPSW_QUERY_GROUP_CONFIG=$pin ./warpsw search -q queries.fasta -d "eq$L.wsw" --device gpu \
                    --columns qseqid,sseqid,score -o "$out/pairs_eq${L}_${pin:-model}.tsv" \
                    > "$out/pairs_eq${L}_${pin:-model}.log" 2>&1
                echo "search eq$L ${pin:-as the model chooses} round $round: $(grep -o '[0-9.]* GCUPS' "$out/pairs_eq${L}_${pin:-model}.log" | head -1)"
            done
        done
        cmp "$out/pairs_eq${L}_model.tsv" "$out/pairs_eq${L}_g4_r24_lifted_2rows.tsv" && echo "eq$L: hits equal"
        rm -f "$out"/pairs_eq*.tsv "eq$L.wsw"
    done
}

step_halves() {
    # Two queries in the halves on short sequences (1,000,000 x 128 residues,
    # LENGTHS): whole searches as the engine chose at 511a650 (no batches, no
    # pairs on such chunks; pairs run there since 8085eaa), with batches forced (--gpu-query-batch 10, as the engine
    # gave them before 566320e) and with one query a launch, two rounds; then
    # ncu on a steady launch of each: the 5,478-residue query paired with the
    # 5,147 one (g8_r20_queries pinned) and each alone (g4_r24_lifted_2rows).
    for L in ${LENGTHS:-128}; do
        synth 1000000 "eq$L" --min "$L" --max "$L" --mean "$L"
        for round in 1 2; do
            for args in "" "--gpu-query-batch 10" "--one-query-a-launch"; do
                name=$(echo "${args:-engine}" | tr -d ' -')
                ./warpsw search -q queries.fasta -d "eq$L.wsw" --device gpu $args \
                    --columns qseqid,sseqid,score -o "$out/halves_eq${L}_$name.tsv" \
                    > "$out/halves_eq${L}_$name.log" 2>&1
                echo "search eq$L ${args:-as the engine chooses} round $round: $(grep -o '[0-9.]* GCUPS' "$out/halves_eq${L}_$name.log" | head -1)"
            done
        done
        cmp "$out/halves_eq${L}_engine.tsv" "$out/halves_eq${L}_gpuquerybatch10.tsv" \
            && cmp "$out/halves_eq${L}_engine.tsv" "$out/halves_eq${L}_onequeryalaunch.tsv" \
            && echo "eq$L: hits equal"
        rm -f "$out"/halves_eq*.tsv
        command -v ncu > /dev/null || continue
        awk '/^>/ { n++ } n >= 19' queries.fasta > q2long.fasta
        # A pinned configuration of two queries pairs them; one of one query
        # runs each alone.
        for pin in g8_r20_queries g4_r24_lifted_2rows; do
            WARPSW_QUERY_GROUP_CONFIG=$pin timeout 150 ncu --section SpeedOfLight --section Occupancy \
                --section WarpStateStats --section SchedulerStats --section LaunchStats \
                -k "regex:^sw_query_group_i16x2_" --launch-skip 100 -c 1 ./warpsw search -q q2long.fasta \
                -d "eq$L.wsw" --device gpu --gpu-streams 1 --stats none -o /dev/null \
                > "$out/halves_ncu_${L}_$pin.txt" 2>&1
            grep -E "sw_query_group|Duration|Registers Per|Achieved Occupancy|Issued Warp|No Eligible|Warp Cycles Per Issued|Eligible Warps|Grid Size|Block Size" \
                "$out/halves_ncu_${L}_$pin.txt" | head -12
        done
        rm -f "eq$L.wsw"
    done
}

step_tiny() {
    # Where a query of a few residues spends its 1-2 ms on half of Swiss-Prot:
    # the chunks' timeline of each of four short queries searched alone (the
    # third of three rounds; the query's line and the six chunks that end
    # last), bench medians of 9 for all of short.fasta, and the 22 in one
    # search, its summary line.
    sprot
    for id in P84943 P41872 P85478 P0C815; do
        awk -v id=">$id" '/^>/ { keep = ($1 == id) } keep' short.fasta > "tiny_$id.fasta"
        for round in 1 2 3; do
            WARPSW_TIMELINE=chunks ./warpsw search -q "tiny_$id.fasta" -d sprot_half.wsw --device gpu \
                --stats none --columns qseqid,sseqid,score -o /dev/null > "$out/tiny_$id.log" 2>&1
        done
        echo "== $id ($(awk '!/^>/ { n += length($0) } END { print n }' "tiny_$id.fasta") residues)"
        grep -o 'in [0-9.]* s = [0-9.]* GCUPS' "$out/tiny_$id.log" | head -1
        grep -o 'timeline (ms.*' "$out/tiny_$id.log" | head -1
        grep -o 'chunk [0-9]*: .*' "$out/tiny_$id.log" \
            | awk '{ match($0, / to [0-9.]+ ms/); print substr($0, RSTART + 4, RLENGTH - 7), $0 }' \
            | sort -g | tail -6 | cut -d' ' -f2-
    done
    ./warpsw bench --query short.fasta --db sprot_half.wsw --device gpu --kernels auto \
        --gap-open 10 --gap-extend 1 --warmup 1 --repeat 9 > "$out/tiny_bench.log" 2>&1
    grep -A24 '^query ' "$out/tiny_bench.log" | head -24
    for round in 1 2; do
        ./warpsw search -q short.fasta -d sprot_half.wsw --device gpu --columns qseqid,sseqid,score \
            -o /dev/null > "$out/tiny_all_$round.log" 2>&1
    done
    grep 'GCUPS' "$out/tiny_all_2.log"
}

step_tracking() {
    # What cudarc's event tracking (two driver calls a buffer a launch)
    # costs: bench with it off and on (the default), alternating, two
    # rounds; the 8-residue query's timeline with it off; whole searches
    # with each, their hits compared byte for byte.
    sprot
    for round in 1 2; do
        for tracking in off on; do
            for q in short queries; do
                WARPSW_EVENT_TRACKING=$tracking ./warpsw bench --query "$q.fasta" --db sprot_half.wsw \
                    --device gpu --kernels auto --gap-open 10 --gap-extend 1 --warmup 1 \
                    --repeat $([ $q = short ] && echo 9 || echo 3) > "$out/tracking_${q}_${tracking}_$round.log" 2>&1
                echo "round $round, tracking $tracking, $q: $(grep '^overall' "$out/tracking_${q}_${tracking}_$round.log")"
            done
        done
    done
    paste <(grep -A23 '^query ' "$out/tracking_short_off_2.log") \
        <(grep -A23 '^query ' "$out/tracking_short_on_2.log" | awk '{ print $NF }') | head -24
    awk '/^>/ { keep = ($1 == ">P41872") } keep' short.fasta > tiny_P41872.fasta
    for round in 1 2 3; do
        WARPSW_TIMELINE=chunks ./warpsw search -q tiny_P41872.fasta -d sprot_half.wsw --device gpu \
            --stats none --columns qseqid,sseqid,score -o /dev/null > "$out/tracking_tiny.log" 2>&1
    done
    grep -o 'timeline (ms.*' "$out/tracking_tiny.log" | head -1
    for q in short queries; do
        for tracking in off on; do
            WARPSW_EVENT_TRACKING=$tracking ./warpsw search -q "$q.fasta" -d sprot_half.wsw --device gpu \
                --columns qseqid,sseqid,score -o "$out/tracking_${q}_${tracking}.tsv" > "$out/tracking_search_${q}_$tracking.log" 2>&1
            echo "search $q, tracking $tracking: $(grep -o 'in [0-9.]* s = [0-9.]* GCUPS' "$out/tracking_search_${q}_$tracking.log")"
        done
        cmp "$out/tracking_${q}_off.tsv" "$out/tracking_${q}_on.tsv" && echo "$q: hits equal"
        rm -f "$out"/tracking_*.tsv
    done
}

step_tests() {
    [ -x warpsw-tests ] || xz -dk warpsw-tests.xz
    ./warpsw-tests --ignored --test-threads 1 ${TESTS:-gpu_query_group_matches_the_reference \
        gpu_chunks_on_several_streams_match_one_stream_and_the_reference \
        gpu_many_long_pairs_beyond_16_bits_are_rescued gpu_adversarial_cases} 2>&1 \
        | grep -E '^(test |gpu:|test result)|panicked|mismatch'
}

step_streamed() {
    synth 2500000 synth2500k
    for round in 1 2; do
        for memory in "" 2GiB; do
            /usr/bin/time -f "whole process %e s" ./warpsw search -q queries.fasta -d synth2500k.wsw \
                --device gpu ${memory:+--gpu-memory $memory} --columns qseqid,sseqid,score \
                -o "$out/streamed_${memory:-resident}.tsv" > "$out/streamed_${memory:-resident}_$round.log" 2>&1
            echo "${memory:-resident} round $round: $(grep -o '[0-9.]* GCUPS \[[^;]*' "$out/streamed_${memory:-resident}_$round.log" | head -1) $(tail -1 "$out/streamed_${memory:-resident}_$round.log")"
        done
    done
    cmp "$out/streamed_resident.tsv" "$out/streamed_2GiB.tsv" && echo "streamed output = resident output"
    rm -f "$out"/streamed_*.tsv
}

step_explain() {
    sprot
    for args in "--devices 0,0" "--devices 0,0 --balance dynamic" "--devices 0"; do
        echo "== --explain $args"
        ./warpsw search -q queries.fasta -d sprot_half.wsw $args --explain 2>&1 | head -40
    done
}

bench_both() { # label, query file, database: bench with 8 and with 32 hardware queues, alternated
    local label=$1 queries=$2 db=$3
    for round in $(seq 1 "${ROUNDS:-1}"); do
        for queues in 8 32; do
            CUDA_DEVICE_MAX_CONNECTIONS=$queues ./warpsw bench --query "$queries" --db "$db" --device gpu \
                --kernels auto --gap-open 10 --gap-extend 1 --warmup 1 --repeat 3 \
                > "$out/${label}_q${queues}_$round.log" 2>&1
            echo "$label queues $queues round $round: $(grep overall "$out/${label}_q${queues}_$round.log")"
        done
    done
    paste <(awk 'NF == 3 && $2 ~ /^[0-9]+$/ { print $1, $2, $3 }' "$out/${label}_q8_1.log") \
          <(awk 'NF == 3 && $2 ~ /^[0-9]+$/ { print $3 }' "$out/${label}_q32_1.log") \
        | awk -v l="$label" '{ printf "%s %-12s %6d %9.1f %9.1f %5.2f\n", l, $1, $2, $3, $4, $4 / $3 }'
}

step_connections() {
    sprot
    bench_both long long.fasta sprot_half.wsw
    bench_both sprot queries.fasta sprot_half.wsw
    synth 570000 synth570k
    bench_both synth570k queries.fasta synth570k.wsw
    for L in 128 256 512; do
        synth 1000000 "eq$L" --min "$L" --max "$L" --mean "$L"
        bench_both "eq$L" queries.fasta "eq$L.wsw"
        rm -f "eq$L.wsw"
    done
}

step_start() {
    sprot
    for round in 1 2 3; do
        for queues in 8 17 32; do
            /usr/bin/time -f "WALL %e" env CUDA_DEVICE_MAX_CONNECTIONS=$queues ./warpsw search \
                -q queries.fasta -d sprot_half.wsw --device gpu --columns qseqid,sseqid,score \
                -o /dev/null > "$out/start_$queues.log" 2>&1
            echo "queues $queues round $round: $(grep -o '[0-9.]* GCUPS' "$out/start_$queues.log" | head -1)," \
                "$(grep -o 'GPU start and upload [0-9.]*\|scoring [0-9.]*' "$out/start_$queues.log" | tr '\n' ' ')" \
                "$(tail -1 "$out/start_$queues.log")"
        done
    done
}

bench_long() { # label, query file, database, dispatch
    WARPSW_CHUNK_DISPATCH=$4 ./warpsw bench --query "$2" --db "$3" --device gpu --kernels auto \
        --gap-open 10 --gap-extend 1 --warmup 1 --repeat 3 > "$out/$1.log" 2>&1
    awk 'NF == 3 && $2 ~ /^[0-9]+$/ { print $1, $2, $3 }' "$out/$1.log" > "$out/$1.rows"
    echo "$1: $(grep overall "$out/$1.log")"
}

step_dispatch() {
    sprot
    awk 'NR == FNR { drop[$1] = 1; next } /^>/ { id = substr($1, 2); keep = !(id in drop) } keep' \
        beyond_16_bits.txt sprot_half.fasta > sprot_half_within.fasta
    ./warpsw makedb sprot_half_within.fasta -o sprot_half_within.wsw > /dev/null
    bench_long long_queued long.fasta sprot_half.wsw queued
    bench_long long_auto long.fasta sprot_half.wsw auto
    bench_long long_within_auto long.fasta sprot_half_within.wsw auto
    echo "query length queued auto auto-without auto/queued auto/without"
    paste "$out/long_queued.rows" "$out/long_auto.rows" "$out/long_within_auto.rows" \
        | awk '{ printf "%-8s %6d %8.1f %8.1f %8.1f %5.2f %5.2f\n", $1, $2, $3, $6, $9, $6 / $3, $6 / $9 }'
    bench_long sprot_queued queries.fasta sprot_half.wsw queued
    bench_long sprot_auto queries.fasta sprot_half.wsw auto
    paste "$out/sprot_queued.rows" "$out/sprot_auto.rows" \
        | awk '$2 >= 2000 { printf "%-10s %6d %8.1f %8.1f %5.2f\n", $1, $2, $3, $6, $6 / $3 }'
    awk '/^>/ { n++ } n == 10' long.fasta > titin.fa
    WARPSW_TIMELINE=chunks ./warpsw search -q titin.fa -d sprot_half.wsw --device gpu --quiet \
        --columns qseqid,sseqid,score -o /dev/null 2>&1 | grep -E 'timeline|chunk (0|1|8|9|16):' \
        | sed 's/^warpsw: GPU [^:]*://' | cut -c1-150
    for round in 1 2; do
        for d in queued auto; do
            for q in queries long; do
                /usr/bin/time -f "WALL %e" env WARPSW_CHUNK_DISPATCH=$d ./warpsw search -q $q.fasta \
                    -d sprot_half.wsw --device gpu -o "$out/${q}_$d.tsv" > "$out/search_${q}_$d.log" 2>&1
                echo "search $q $d round $round: $(grep -o '[0-9.]* GCUPS' "$out/search_${q}_$d.log" | head -1), $(tail -1 "$out/search_${q}_$d.log")"
            done
        done
    done
    for q in queries long; do
        cmp "$out/${q}_queued.tsv" "$out/${q}_auto.tsv" && echo "$q: outputs identical"
    done
    rm -f "$out"/*.tsv "$out"/*.rows
}

for step in "$@"; do
    echo "=== $step"
    "step_$step"
done
