#!/usr/bin/env bash
# The query-group kernel on the GPU machine, from the repository root inside
# the carried gpu-bundle/ (scripts/gpu.sh, SPROT=1 LEAN=1). Steps, in the
# order given by QG_STEPS (default: all of them, most important first):
#   tests    its GPU tests against the reference (100,000 sequences and more;
#            QG_TESTS: the test filters, words, default gpu_query_group);
#   bench    `bench` of QG_KERNELS (group-i16x2,query-group-i16x2) on the
#            570k synthetic database and Swiss-Prot half, every query checked
#            on 300 sequences;
#   splits   `auto` with --auto-query-group 0 and each of QG_SPLITS
#            (512 1024 2048 4096; --auto-query-group-min-sequences 0) on
#            the 570k database, Swiss-Prot half and UniProt 20k, search
#            output compared with the first;
#   side     side by side with CUDASW++ 4.0 (../shared/tools/sidebyside.sh,
#            its build started at once in the background) on the three
#            databases (QG_SIDE_DBS, name:fasta ...) for each of
#            QG_SIDE_SETTINGS (open:extend:matrix ..., default
#            10:1:blosum62; others need QG_CS4_GAPS=1, which gives
#            CUDASW++4 its --gop/--gex), warpsw with QG_SIDE_ARGS
#            (default: none, `auto`; `bench` takes them too) and
#            QG_SIDE_KERNEL for its per-query `bench` (default auto);
#            then every query's ten best scores by
#            CUDASW++4 against warpsw's ten best by score (its 2,000 best
#            by E-value, sorted by score: the script's own check compares
#            warpsw's ten best by E-value);
#   ncu      ncu on steady launches of the query-group kernel and of
#            group-i16x2 (the 5,478-residue query, the first launches
#            skipped): occupancy, issue, and every pipe's load;
#   configs  configurations pinned (QG_CONFIGS="g8_r24 g8_r24_plain g8_r32
#            g16_r32") on the
#            570k database;
#   perpair  each two neighbouring queries searched alone, one query a
#            launch, the engine's choice and each configuration of two
#            queries pinned, on the 570k database (the cost model's data);
#   shortq   the QG_SHORT_QUERIES shortest queries (default 4) one at a
#            time, QG_SHORT_REPEAT times each (default 9), on the 570k
#            database: warpsw `bench` against CUDASW++ 4.0 given each query
#            that many times in a row, two rounds alternated; per query
#            both tools' median, lowest and highest GCUPS
#            (short_queries_table.py);
#   ab       warpsw-old (the bundle's older binary, if any) against this
#            one, `bench` of the eight shortest queries, alternated;
#   absearch warpsw-old against this one, score-only searches of the 20
#            queries on QG_AB_DBS (default the three databases), alternated
#            over two rounds, hits compared;
#   ncupair  ncu on a steady launch of two queries (the two longest);
#   batch    many queries against small databases, side by side with
#            CUDASW++ 4.0 (QG_CS4_GAPS=1 for its gaps to apply): the 4,000
#            Swiss-Prot sequences against themselves (BLOSUM50 8/2), the
#            4,136 E. coli proteins and the 20 standard queries against
#            UniProt 20k (BLOSUM62 10/1); score-only searches, ten best of
#            each query: warpsw's batches (the default), pairs only
#            (--gpu-query-batch 2; hits compared) and CUDASW++4, each
#            command's wall time too (QG_BATCH_CASES picks the cases);
#   batchsweep  the batch step's cases with QG_SWEEP_BATCHES queries a
#            batch (auto 64 128 256 512) and QG_SWEEP_PINS configurations
#            pinned, warpsw alone;
#   pins     configurations pinned on the 570k database, alternated over
#            two rounds: score-only searches of the 20 queries two a launch
#            (QG_PAIR_CONFIGS), `bench` of the eight shortest one at a time
#            (QG_SINGLE_CONFIGS);
#   pairs    score-only searches of two queries a launch (the default)
#            and of one (--one-query-a-launch) on the three databases, hits
#            compared; configurations of two queries pinned
#            (QG_PAIR_CONFIGS) on the 570k database.
# Every log goes to a work folder packed after each step into $OUT/qg.tgz
# (the device tool brings back at most 8 files); $OUT/qg.log has it all.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-/tmp/warpsw-out}
work=${QG_WORK:-/tmp/qg}
mkdir -p "$out" "$work"
cd "$here"
exec > >(tee -a "$out/qg.log") 2>&1
# The binaries, when scripts/gpu.sh (LEAN=1) compressed them, and an older
# warpsw for the `ab` and `absearch` steps (warpsw-old.xz, put in by hand:
# its mode may not say executable).
for f in warpsw warpsw-tests warpsw-old; do [ -f "$f.xz" ] && xz -d -f "$f.xz" && chmod +x "$f"; done
t0=$(date +%s)
at() {
    echo "== at $(($(date +%s) - t0)) s: $*"
    tar czf "$out/qg.tgz" -C "$work" . 2> /dev/null
}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$work/gpu.txt"
echo "commit $(cat COMMIT)"

# CUDASW++ 4.0 at 37a394c parses --gop and --gex but never hands them to
# its aligner (always -11/-1, our 10/1). With QG_CS4_GAPS=1 its main.cu
# calls the aligner's own setGapOpenScore/setGapExtendScore with them after
# constructing it, so that other gap settings can be timed side by side
# (the ten best scores' check shows they took effect).
cs4_apply_gaps() {
    [ "${QG_CS4_GAPS:-0}" = 1 ] || return 0
    python3 - cudasw4/src/main.cu <<'PATCH'
import sys
path = sys.argv[1]
src = open(path).read()
anchor = "        options.verbose\n    );\n"
assert src.count(anchor) == 1, "main.cu changed: the aligner's construction not found"
src = src.replace(anchor, anchor + "    cudaSW4.setGapOpenScore(options.gop);\n    cudaSW4.setGapExtendScore(options.gex);\n")
open(path, "w").write(src)
PATCH
}

# In the background: CUDASW++ 4.0's build (80-200 s; beside the GPU test's
# reference on the host's cores both take longer), the databases.
(
    mkdir -p /tmp/sidebyside/logs && cd /tmp/sidebyside \
        && tar -xzf "$here/cudasw4-37a394c.tar.gz" \
        && sed -i 's/-arch=native/-arch=sm_90/; s/^COMPILE = $(COMPILER) /COMPILE = $(COMPILER) -x cu /' cudasw4/Makefile \
        && { ls /usr/local/cuda/lib64/libnvToolsExt.so* > /dev/null 2>&1 || sed -i 's/-lnvToolsExt//' cudasw4/Makefile; } \
        && cs4_apply_gaps \
        && cd cudasw4 && nice make -j12 release > "$work/cudasw4_build.log" 2>&1
    echo "cudasw4 build rc $? at $(($(date +%s) - t0)) s" >> "$work/cudasw4_build.log"
) &
(
    python3 synthdb.py --sequences 570000 --seed 1 > synth570k.fa \
        && ./warpsw makedb synth570k.fa -o synth570k.wsw > /dev/null
    if [ -f sprot_half.fasta.xz ]; then
        xz -dc sprot_half.fasta.xz > sprot_half.fasta && ./warpsw makedb sprot_half.fasta -o sprot_half.wsw > /dev/null
    fi
    ./warpsw makedb uniprot20k.fasta.gz -o uniprot20k.wsw > /dev/null
    touch dbs.done
) &
databases() { while [ ! -f dbs.done ]; do sleep 1; done; }
dbs="synth570k sprot_half uniprot20k"

step_tests() {
    timeout "${QG_TEST_TIMEOUT:-300}" ./warpsw-tests --ignored --test-threads=1 ${QG_TESTS:-gpu_query_group} \
        > "$work/tests.log" 2>&1
    echo "tests rc $?"
    grep -E "^test |test result|mismatch|panicked|pairs compared" "$work/tests.log" | head -20
}

step_bench() {
    databases
    for db in synth570k sprot_half; do
        [ -f "$db.wsw" ] || continue
        ./warpsw bench --device gpu --check 300 --csv "$work/bench.csv" --query queries.fasta --db "$db.wsw" \
            --gap-open 10 --gap-extend 1 --warmup 1 --repeat 2 \
            --kernels "${QG_KERNELS:-group-i16x2,query-group-i16x2}" > "$work/bench_$db.log" 2>&1
        echo "bench $db rc $?"
        grep -vE "^ +sw_|entry point" "$work/bench_$db.log" | tail -26
    done
}

step_splits() {
    databases
    for db in $dbs; do
        [ -f "$db.wsw" ] || continue
        for split in 0 ${QG_SPLITS:-512 1024 2048 4096}; do
            ./warpsw bench --device gpu --check 100 --csv "$work/splits.csv" --query queries.fasta --db "$db.wsw" \
                --gap-open 10 --gap-extend 1 --warmup 1 --repeat 2 --kernels auto --auto-query-group "$split" \
                --auto-query-group-min-sequences 0 \
                > "$work/split_${db}_$split.log" 2>&1
            echo "== $db, --auto-query-group $split: $(grep -E '^overall' "$work/split_${db}_$split.log")"
            ./warpsw search -q queries.fasta -d "$db.wsw" --gap-open 10 --gap-extend 1 --device gpu \
                --auto-query-group "$split" --auto-query-group-min-sequences 0 \
                --columns qseqid,sseqid,score -o "$work/hits_${db}_$split.tsv" 2>&1 | tail -1
            cmp -s "$work/hits_${db}_0.tsv" "$work/hits_${db}_$split.tsv" || echo "HITS DIFFER from --auto-query-group 0"
        done
    done
}

step_side() {
    databases
    while ! grep -q "build rc" "$work/cudasw4_build.log" 2> /dev/null; do sleep 1; done
    # QG_SIDE_SETTINGS: open:extend:matrix each (default 10:1:blosum62);
    # settings other than 10/1 need QG_CS4_GAPS=1. QG_SIDE_DBS: which
    # databases (default all three).
    for setting in ${QG_SIDE_SETTINGS:-10:1:blosum62}; do
        local open=${setting%%:*} rest=${setting#*:}
        local extend=${rest%%:*} matrix=${rest#*:}
        for pair in ${QG_SIDE_DBS:-synth570k:synth570k.fa sprot_half:sprot_half.fasta uniprot20k:uniprot20k.fasta.gz}; do
            local name=${pair%%:*} fasta=${pair#*:}
            [ -f "$fasta" ] || continue
            [ -f "$name.wsw" ] && ln -sf "$here/$name.wsw" "/tmp/sidebyside/db_$name.wsw"
            local dir="$work/side_$name"
            [ "$setting" != 10:1:blosum62 ] && dir="$work/side_${name}_${open}_${extend}_$matrix"
            mkdir -p "$dir"
            echo "== $name, $matrix $open/$extend"
            # The timed search writes score-only columns, as CUDASW++4
            # reports scores only (the default columns realign every hit
            # with traceback, up to 35,213-residue targets on Swiss-Prot);
            # the script's `bench` takes no --columns, so they go to a
            # copy's search alone.
            sed 's|\${WARPSW_ARGS:-} -o "\$out/warpsw_hits|${WARPSW_ARGS:-} ${WARPSW_SEARCH_ARGS:-} -o "$out/warpsw_hits|' \
                sidebyside.sh > sidebyside_scores.sh
            grep -q WARPSW_SEARCH_ARGS sidebyside_scores.sh || echo "sidebyside.sh changed: search args not inserted"
            WARPSW_ARGS="${QG_SIDE_ARGS:-}" WARPSW_SEARCH_ARGS="--columns qseqid,sseqid,score" \
                KERNEL="${QG_SIDE_KERNEL:-auto}" OUT="$dir" \
                timeout 200 bash sidebyside_scores.sh queries.fasta "$fasta" "$open" "$extend" "$matrix" > "$dir/table.txt" 2>&1
            tail -26 "$dir/table.txt"
            # Ten best scores by score, both tools (untimed).
            ./warpsw search -q queries.fasta -d "$name.wsw" --gap-open "$open" --gap-extend "$extend" --matrix "$matrix" \
                --device gpu ${QG_SIDE_ARGS:-} --top 2000 --evalue 1e300 --columns qseqid,score --quiet \
                -o "$dir/warpsw_top2000.tsv"
            tar -xzf "$dir/sidebyside_$name.tgz" -C "$dir" "./cudasw4_hits_$name.tsv"
            python3 "$here/top_scores_agree.py" "$dir/cudasw4_hits_$name.tsv" "$dir/warpsw_top2000.tsv"
        done
    done
}

step_ncu() {
    databases
    command -v ncu > /dev/null || { echo "no ncu"; return; }
    awk '/^>/ { n++ } n == 20' queries.fasta > q5478.fasta
    # One stream: launches in chunk order, longest chunk first. Entries of
    # QG_NCU are kernel:symbol:launches skipped[:pinned configuration]; the
    # query group's g8_r24 configurations take 29 passes a chunk, so
    # skipping 348 lands on a chunk of the database's middle lengths;
    # group-i16x2 launches g32_r16 once.
    local entries=${QG_NCU:-query-group-i16x2:sw_query_group_i16x2_g8_r24_lifted:348 query-group-i16x2:sw_query_group_i16x2_g8_r24:348:g8_r24 group-i16x2:sw_group_i16x2_g32_r16:0}
    for kernel in $entries; do
        local name=${kernel%%:*} rest=${kernel#*:}
        local symbol=${rest%%:*} skip_pin=${rest#*:}
        local skip=${skip_pin%%:*} pin=
        [ "$skip_pin" != "$skip" ] && pin=${skip_pin#*:}
        WARPSW_QUERY_GROUP_CONFIG=$pin timeout 150 ncu --section SpeedOfLight --section Occupancy --section WarpStateStats --section SchedulerStats \
            --section LaunchStats --section InstructionStats --section ComputeWorkloadAnalysis \
            --metrics sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum \
            -k "regex:^$symbol(_o[0-9]+e[0-9]+)?\$" --launch-skip "$skip" -c 2 \
            ./warpsw search -q q5478.fasta -d synth570k.wsw --device gpu --kernel "$name" --gpu-streams 1 \
            -o "$work/ncu_hits_$symbol.tsv" > "$work/ncu_$symbol.txt" 2>&1
        echo "== ncu $name ($symbol)"
        grep -E "Grid Size|Duration|Registers Per|Achieved Occupancy|Theoretical Occ|Issued Warp|No Eligible|Issue Slots Busy|pipe_|bank_conflicts|wavefronts|Warp Cycles Per Issued|Active Warps Per|Eligible Warps" \
            "$work/ncu_$symbol.txt" | head -40
        grep -E "stalled|Stall" "$work/ncu_$symbol.txt" | head -12
    done
}

# A score-only search of the 20 queries on the 570k database with
# configuration $1 pinned (`query-group-i16x2` on every chunk): its GCUPS.
pinned_search() {
    WARPSW_QUERY_GROUP_CONFIG=$1 ./warpsw search -q queries.fasta -d synth570k.wsw --gap-open 10 \
        --gap-extend 1 --device gpu --kernel query-group-i16x2 --columns qseqid,sseqid,score \
        -o "$work/pin_$1.tsv" > "$work/pin_$1.log" 2>&1
    grep -oE '[0-9.]+ GCUPS' "$work/pin_$1.log" | tail -1
}

step_pairs() {
    databases
    # Two queries a launch (the default) against one (--one-query-a-launch):
    # score-only searches, hits compared; then configurations of two
    # queries pinned (QG_PAIR_CONFIGS) on the 570k database.
    for db in $dbs; do
        [ -f "$db.wsw" ] || continue
        for mode in one pairs; do
            local args=
            [ "$mode" = one ] && args=--one-query-a-launch
            for round in 1 2; do
                ./warpsw search -q queries.fasta -d "$db.wsw" --gap-open 10 --gap-extend 1 --device gpu $args \
                    --columns qseqid,sseqid,score -o "$work/pairs_${db}_$mode.tsv" > "$work/pairs_${db}_$mode.log" 2>&1
            done
            echo "== $db, $mode: $(grep -oE '[0-9.]+ GCUPS' "$work/pairs_${db}_$mode.log" | tail -1)"
        done
        cmp -s "$work/pairs_${db}_one.tsv" "$work/pairs_${db}_pairs.tsv" && echo "$db: hits identical" \
            || echo "$db: HITS DIFFER between one and two queries a launch"
    done
    for config in ${QG_PAIR_CONFIGS:-g8_r16_queries g8_r20_queries g8_r24_queries g8_r28_queries g16_r24_queries}; do
        echo "== pinned $config, 570k: $(pinned_search "$config")"
    done
}

step_pins() {
    databases
    # Configurations pinned on the 570k database, each round alternating
    # over them: score-only searches of the 20 queries, two queries a
    # launch (QG_PAIR_CONFIGS), then `bench` of the eight shortest queries
    # one at a time (QG_SINGLE_CONFIGS).
    awk '/^>/ { n++ } n <= 8' queries.fasta > "$work/short8.fasta"
    for round in 1 2; do
        for config in ${QG_PAIR_CONFIGS:-g8_r20_queries}; do
            echo "== round $round, pinned $config, 570k: $(pinned_search "$config")"
        done
        for config in ${QG_SINGLE_CONFIGS:-g8_r20_lifted}; do
            WARPSW_QUERY_GROUP_CONFIG=$config ./warpsw bench --device gpu --query "$work/short8.fasta" \
                --db synth570k.wsw --gap-open 10 --gap-extend 1 --warmup 1 --repeat 2 \
                --kernels query-group-i16x2 > "$work/pin1_${config}_$round.log" 2>&1
            echo "== round $round, pinned $config, 570k, one query at a time:" \
                "$(awk 'NF == 3 && $2 ~ /^[0-9]+$/ { printf "%s:%s ", $2, $3 }' "$work/pin1_${config}_$round.log")" \
                "$(grep -E '^overall' "$work/pin1_${config}_$round.log")"
        done
    done
}

# CUDASW++4's database NAME from the bundle's FASTA file $2, made once
# (after its build) in /tmp/sidebyside/cs4db.
cs4_database() {
    local cs4db=/tmp/sidebyside/cs4db
    mkdir -p "$cs4db"
    [ -f "$cs4db/$1.done" ] || { /tmp/sidebyside/cudasw4/makedb "$here/$2" "$cs4db/$1" > /dev/null 2>&1 \
        && touch "$cs4db/$1.done"; }
}

step_batch() {
    databases
    while ! grep -q "build rc" "$work/cudasw4_build.log" 2> /dev/null; do sleep 1; done
    for f in allvsall_sprot_4000_len100-500 ecoli_k12_proteome; do
        [ -f "$f.fasta" ] || xz -dc "$f.fasta.xz" > "$f.fasta"
    done
    [ -f allvsall.wsw ] || ./warpsw makedb allvsall_sprot_4000_len100-500.fasta -o allvsall.wsw > /dev/null
    local cs4=/tmp/sidebyside/cudasw4 cs4db=/tmp/sidebyside/cs4db
    cs4_database allvsall allvsall_sprot_4000_len100-500.fasta
    cs4_database uniprot20k uniprot20k.fasta.gz
    # name:queries:warpsw database:CUDASW++4 database:open:extend:matrix
    local cases=${QG_BATCH_CASES:-allvsall:allvsall_sprot_4000_len100-500.fasta:allvsall.wsw:allvsall:8:2:blosum50 ecoli:ecoli_k12_proteome.fasta:uniprot20k.wsw:uniprot20k:10:1:blosum62 q20:queries.fasta:uniprot20k.wsw:uniprot20k:10:1:blosum62}
    for case in $cases; do
        IFS=: read -r name queries wdb cdb open extend matrix <<< "$case"
        # CUDASW++4's first query pays its start-up: a copy of it runs first.
        awk '/^>/ { n++ } n == 1' "$queries" | sed '1s/^>.*/>warmup_copy/' > "$work/batch_cs4_$name.fa"
        cat "$queries" >> "$work/batch_cs4_$name.fa"
        for round in 1 2; do
            local t=$(date +%s.%N)
            $cs4/align --query "$work/batch_cs4_$name.fa" --db "$cs4db/$cdb" --top 10 --mat "$matrix" \
                --gop $((-(open + extend))) --gex $((-extend)) --uploadFull --verbose --dpx --tsv \
                --of "$work/batch_cs4_$name.tsv" > "$work/batch_cs4_$name.log" 2>&1
            echo "wall $(awk -v t="$t" -v now="$(date +%s.%N)" 'BEGIN { printf "%.3f", now - t }')" >> "$work/batch_cs4_$name.log"
            for mode in batches pairs; do
                local args=
                [ "$mode" = pairs ] && args="--gpu-query-batch 2"
                t=$(date +%s.%N)
                ./warpsw search -q "$queries" -d "$wdb" --matrix "$matrix" --gap-open "$open" --gap-extend "$extend" \
                    --top 10 --device gpu $args --columns qseqid,sseqid,score \
                    -o "$work/batch_${name}_$mode.tsv" > "$work/batch_${name}_$mode.log" 2>&1
                echo "wall $(awk -v t="$t" -v now="$(date +%s.%N)" 'BEGIN { printf "%.3f", now - t }')" >> "$work/batch_${name}_$mode.log"
            done
        done
        python3 "$here/batch_table.py" "$work" "$name"
        cmp -s "$work/batch_${name}_batches.tsv" "$work/batch_${name}_pairs.tsv" && echo "   $name: hits identical" \
            || echo "   $name: HITS DIFFER between batches and pairs"
        # Ten best scores by score, both tools (warpsw's untimed).
        ./warpsw search -q "$queries" -d "$wdb" --matrix "$matrix" --gap-open "$open" --gap-extend "$extend" \
            --device gpu --top 2000 --evalue 1e300 --columns qseqid,score --quiet -o "$work/batch_${name}_top.tsv"
        python3 "$here/top_scores_agree.py" "$work/batch_cs4_$name.tsv" "$work/batch_${name}_top.tsv"
    done
}

step_batchsweep() {
    databases
    for f in allvsall_sprot_4000_len100-500 ecoli_k12_proteome; do
        [ -f "$f.fasta" ] || xz -dc "$f.fasta.xz" > "$f.fasta"
    done
    [ -f allvsall.wsw ] || ./warpsw makedb allvsall_sprot_4000_len100-500.fasta -o allvsall.wsw > /dev/null
    # Queries a batch (--gpu-query-batch; `auto` the engine's own) and
    # pinned configurations of two queries, score-only searches.
    local cases=${QG_SWEEP_CASES:-allvsall:allvsall_sprot_4000_len100-500.fasta:allvsall.wsw:8:2:blosum50 ecoli:ecoli_k12_proteome.fasta:uniprot20k.wsw:10:1:blosum62 q20:queries.fasta:uniprot20k.wsw:10:1:blosum62}
    for case in $cases; do
        IFS=: read -r name queries wdb open extend matrix <<< "$case"
        for batch in ${QG_SWEEP_BATCHES:-auto 64 128 256 512}; do
            for pin in "" ${QG_SWEEP_PINS:-}; do
                local args=
                [ "$batch" != auto ] && args="--gpu-query-batch $batch"
                WARPSW_QUERY_GROUP_CONFIG=$pin ./warpsw search -q "$queries" -d "$wdb" --matrix "$matrix" \
                    --gap-open "$open" --gap-extend "$extend" --top 10 --device gpu $args \
                    --columns qseqid,sseqid,score -o "$work/sweep_$name.tsv" > "$work/sweep_$name.log" 2>&1
                echo "== $name, batch $batch${pin:+, pinned $pin}: $(grep -oE '[0-9.e+]+ cells in [0-9.]+ s = [0-9.]+ GCUPS' "$work/sweep_$name.log" | tail -1)"
            done
        done
    done
}

step_perpair() {
    databases
    # Each two neighbouring standard queries alone (a search of the two):
    # one query a launch, the engine's choice, and every configuration of
    # two queries pinned (QG_PAIR_CONFIGS), on the 570k database.
    local configs=${QG_PERPAIR_CONFIGS:-g8_r20_queries g8_r24_queries g8_r28_queries g16_r16_queries g16_r24_queries}
    echo "pair one auto $configs" > "$work/perpair.txt"
    for k in 1 3 5 7 9 11 13 15 17 19; do
        awk -v k=$k '/^>/ { n++ } n == k || n == k + 1' queries.fasta > pair.fasta
        local row="$(awk '/^>/ { if (n) printf "%d/", n; n = 0; next } { n += length($0) } END { printf "%d", n }' pair.fasta)"
        for mode in one auto $configs; do
            local args= pin=
            [ "$mode" = one ] && args=--one-query-a-launch
            [ "$mode" != one ] && [ "$mode" != auto ] && pin=$mode
            WARPSW_QUERY_GROUP_CONFIG=$pin ./warpsw search -q pair.fasta -d synth570k.wsw --gap-open 10 --gap-extend 1 \
                --device gpu $args --kernel query-group-i16x2 --columns qseqid,sseqid,score -o "$work/perpair.tsv" \
                > "$work/perpair.log" 2>&1
            row="$row $(grep -oE '[0-9.]+ GCUPS' "$work/perpair.log" | tail -1 | cut -d' ' -f1)"
        done
        echo "$row" | tee -a "$work/perpair.txt"
    done
}

step_shortq() {
    databases
    while ! grep -q "build rc" "$work/cudasw4_build.log" 2> /dev/null; do sleep 1; done
    local cs4=/tmp/sidebyside/cudasw4 cs4db=/tmp/sidebyside/cs4db
    local k=${QG_SHORT_QUERIES:-4} repeat=${QG_SHORT_REPEAT:-9}
    cs4_database synth570k synth570k.fa
    awk -v k="$k" '/^>/ { n++ } n <= k' queries.fasta > "$work/shortq.fasta"
    # CUDASW++4: a warm-up copy of the first query, then each query
    # `repeat` times in a row (its per-query lines, in order).
    awk '/^>/ { n++ } n == 1' "$work/shortq.fasta" | sed '1s/^>.*/>warmup_copy/' > "$work/shortq_cs4.fa"
    awk -v r="$repeat" '/^>/ { if (id) for (i = 1; i <= r; i++) printf ">%s_%d\n%s", id, i, seq; id = substr($1, 2); seq = ""; next }
        { seq = seq $0 "\n" } END { for (i = 1; i <= r; i++) printf ">%s_%d\n%s", id, i, seq }' \
        "$work/shortq.fasta" >> "$work/shortq_cs4.fa"
    for round in 1 2; do
        $cs4/align --query "$work/shortq_cs4.fa" --db "$cs4db/synth570k" --top 10 --mat blosum62 --gop -11 --gex -1 \
            --uploadFull --verbose --dpx --tsv --of "$work/shortq_cs4_hits.tsv" > "$work/shortq_cs4_$round.log" 2>&1
        rm -f "$work/shortq_warpsw_$round.csv"
        ./warpsw bench --device gpu --query "$work/shortq.fasta" --db synth570k.wsw --gap-open 10 --gap-extend 1 \
            --warmup 1 --repeat "$repeat" --kernels auto --csv "$work/shortq_warpsw_$round.csv" \
            > "$work/shortq_warpsw_$round.log" 2>&1
    done
    python3 "$here/short_queries_table.py" "$work" 2
}

step_ab() {
    databases
    # The last commit's binary (warpsw-old, when the bundle has it) against
    # this one, one query at a time (`bench`), alternated, on the 570k
    # database: the short queries.
    [ -x warpsw-old ] || { echo "no warpsw-old"; return; }
    awk -v k="${QG_AB_QUERIES:-8}" '/^>/ { n++ } n <= k' queries.fasta > short.fasta
    for round in 1 2; do
        for bin in warpsw-old warpsw; do
            ./$bin bench --device gpu --query short.fasta --db synth570k.wsw --gap-open 10 --gap-extend 1 \
                --warmup 1 --repeat 3 --kernels auto > "$work/ab_${bin}_$round.log" 2>&1
            echo "== $bin round $round: $(grep -E '^overall' "$work/ab_${bin}_$round.log")"
            grep -E '^[0-9A-Z]+ +[0-9]+ +[0-9.]+$' "$work/ab_${bin}_$round.log" | tr '\n' ';'; echo
        done
    done
}

step_absearch() {
    databases
    # The whole search, as the side-by-side run times it: warpsw-old (the
    # bundle's older binary) against this one, alternated, hits compared.
    [ -x warpsw-old ] || { echo "no warpsw-old"; return; }
    for db in ${QG_AB_DBS:-$dbs}; do
        [ -f "$db.wsw" ] || continue
        for round in 1 2; do
            for bin in warpsw-old warpsw; do
                ./$bin search -q queries.fasta -d "$db.wsw" --gap-open 10 --gap-extend 1 --device gpu \
                    --columns qseqid,sseqid,score -o "$work/absearch_${db}_$bin.tsv" \
                    > "$work/absearch_${db}_${bin}_$round.log" 2>&1
                echo "== $db, $bin, round $round: $(grep -oE '[0-9.]+ GCUPS' "$work/absearch_${db}_${bin}_$round.log" | tail -1)"
            done
        done
        cmp -s "$work/absearch_${db}_warpsw-old.tsv" "$work/absearch_${db}_warpsw.tsv" && echo "$db: hits identical" \
            || echo "$db: HITS DIFFER between warpsw-old and warpsw"
    done
}

step_ncupair() {
    databases
    command -v ncu > /dev/null || { echo "no ncu"; return; }
    # The two longest queries in one launch (g8_r20 of two queries, 35
    # passes a chunk; the first launches skipped), one stream.
    awk '/^>/ { n++ } n >= 19' queries.fasta > q2long.fasta
    local symbol=${QG_NCU_PAIR:-sw_query_group_i16x2_g8_r20_queries}
    timeout 200 ncu --section SpeedOfLight --section Occupancy --section WarpStateStats --section SchedulerStats \
        --section LaunchStats --section ComputeWorkloadAnalysis \
        --metrics sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active \
        -k "regex:^$symbol(_o[0-9]+e[0-9]+)?\$" --launch-skip 350 -c 2 \
        ./warpsw search -q q2long.fasta -d synth570k.wsw --device gpu --kernel query-group-i16x2 --gpu-streams 1 \
        -o "$work/ncu_hits_pair.tsv" > "$work/ncu_pair.txt" 2>&1
    echo "== ncu two queries ($symbol)"
    grep -E "Grid Size|Duration|Registers Per|Achieved Occupancy|Theoretical Occ|Issued Warp|No Eligible|Issue Slots Busy|pipe_|Warp Cycles Per Issued|Active Warps Per|Eligible Warps" \
        "$work/ncu_pair.txt" | head -30
}

step_configs() {
    databases
    for config in ${QG_CONFIGS:-g8_r24 g8_r24_plain g8_r32 g16_r32}; do
        WARPSW_QUERY_GROUP_CONFIG=$config ./warpsw bench --device gpu --check 100 --query queries.fasta \
            --db synth570k.wsw --gap-open 10 --gap-extend 1 --warmup 1 --repeat 1 --kernels query-group-i16x2 \
            > "$work/config_$config.log" 2>&1
        echo "== $config: $(grep -E '^overall' "$work/config_$config.log")"
    done
}

for step in ${QG_STEPS:-tests bench splits side ncu configs pairs}; do
    "step_$step"
    at "$step"
done
