#!/usr/bin/env bash
# Runs on the GPU machine from the repository root, inside the carried
# gpu-bundle/ (see scripts/gpu.sh):
#   bash gpu-bundle/run.sh [tests|hits|bench|uniprot|gaps|long|parted|traceback|ecoli|lengths|scaling|dbsize|workers|ab|mpi|all]...
# Everything is logged to $OUT/run.log, every timed run to $OUT/bench.csv
# (the device tool brings $OUT back); a summary is printed last.
# Knobs (environment): KERNELS, WARMUP, REPEAT (bench), TB_TIMEOUT (traceback),
# TEST_ARGS (tests), PARTED_BENCH (parted: also `bench` the streamed DB),
# DBSIZE_KERNELS, DBSIZE_SIZES (dbsize), LONG_KERNELS (long),
# WARPSW, WORKERS, POLICIES (workers: the binary, the worker counts besides
# the one-worker baseline, the policies), WARPSW, POLICIES, ALLPAIRS (scaling).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-/tmp/warpsw-out}
mkdir -p "$out"
cd "$here"
exec > >(tee -a "$out/run.log") 2>&1
# The binaries, when scripts/gpu.sh (LEAN=1) compressed them.
for f in warpsw warpsw-tests; do [ -f "$f.xz" ] && xz -d -f "$f.xz"; done
summary=()
status=0
csv="$out/bench.csv"
warmup=${WARMUP:-1}
repeat=${REPEAT:-3}

# Records one step's outcome: ok LABEL LINE, or fail LABEL.
ok() { summary+=("$1: $2"); }
fail() { summary+=("$1: FAILED"); status=1; }

# A / B / K to two decimals (speedup with K = 1, efficiency with K = GPUs).
ratio() { awk -v a="$1" -v b="$2" -v k="$3" 'BEGIN { printf "%.2f", a / b / k }'; }

# The last "overall" line of a bench log.
overall() { grep -E '^overall' "$1" | tail -1; }

bench() { # LABEL LOG ARGS...: one `warpsw bench`, its table kept in LOG
    local label=$1 log=$2
    shift 2
    if ./warpsw bench --device gpu --check 300 --csv "$csv" "$@" 2>&1 | tee "$log"; then
        ok "$label" "$(overall "$log")"
    else
        fail "$label"
    fi
}

synth_db() {
    [ -f synth570k.wsw ] && return
    python3 synthdb.py --sequences 570000 --seed 1 > synth570k.fa
    ./warpsw makedb synth570k.fa -o synth570k.wsw
}

step_tests() {
    # TEST_ARGS narrows the run, e.g. "gpu_traceback" or "--skip gpu_traceback".
    echo "== GPU tests: warpsw-tests --ignored ${TEST_ARGS:-}"
    if ./warpsw-tests --ignored --test-threads=1 ${TEST_ARGS:-} 2>&1 | tee -a "$out/tests.log"; then
        ok tests "$(grep -E '^test result' "$out/tests.log" | tail -1)"
    else
        fail tests
    fi
}

step_hits() {
    echo "== hits: 20 queries vs the 20,000-sequence UniProt DB, GPU vs CPU top 10"
    ./warpsw search -q queries.fasta -d uniprot20k.fasta.gz --gap-open 10 --gap-extend 1 --device gpu -o "$out/hits_gpu.tsv"
    # The CPU run takes minutes; scripts/gpu.sh bundles it when it was made beforehand.
    [ -f hits_cpu.tsv ] || ./warpsw search -q queries.fasta -d uniprot20k.fasta.gz --gap-open 10 --gap-extend 1 --device cpu -o hits_cpu.tsv
    if cmp -s "$out/hits_gpu.tsv" hits_cpu.tsv && [ -s hits_cpu.tsv ]; then
        ok hits "GPU == CPU ($(($(wc -l < hits_cpu.tsv) - 1)) rows)"
    else
        fail hits
    fi
}

step_bench() {
    synth_db
    echo "== bench: 20 queries vs synthdb.py --sequences 570000 --seed 1, BLOSUM62 10/1"
    bench "bench 570k 10-1k" bench570k.log --query queries.fasta --db synth570k.wsw \
        --gap-open 10 --gap-extend 1 --warmup "$warmup" --repeat "$repeat" \
        --kernels "${KERNELS:-simt,simt-i16x2,partitioned-vl32-pl512,partitioned,parallelogram,auto}"
}

step_uniprot() {
    echo "== every kernel on the 20,000-sequence UniProt DB, BLOSUM62 10/1"
    bench "uniprot20k 10-1k" uniprot.log --query queries.fasta --db uniprot20k.fasta.gz \
        --gap-open 10 --gap-extend 1 --warmup 1 --repeat "$repeat" \
        --kernels simt,simt-i16x2,striped,striped-vl16,partitioned,partitioned-vl32-pl512,parallelogram,parallelogram-smem,auto
}

step_gaps() {
    synth_db
    echo "== gap sensitivity (CUDASW++ 2.0 Tables 1-2): BLOSUM62 10-2k, 20-2k, 40-3k, 20 queries"
    for gaps in "10 2" "20 2" "40 3"; do
        set -- $gaps
        bench "uniprot20k $1-$2k" "gaps_uniprot_$1_$2.log" --query queries.fasta --db uniprot20k.fasta.gz \
            --gap-open "$1" --gap-extend "$2" --warmup 1 --repeat 1 \
            --kernels simt,striped,partitioned,partitioned-vl32-pl512
        bench "570k $1-$2k" "gaps_570k_$1_$2.log" --query queries.fasta --db synth570k.wsw \
            --gap-open "$1" --gap-extend "$2" --warmup 0 --repeat 1 \
            --kernels simt,striped,partitioned,partitioned-vl32-pl512
    done
}

step_parted() {
    synth_db
    echo "== the 570k DB streamed part by part (--gpu-memory 256MiB), on GPU 0 and by two workers on GPU 0, vs resident: hits and speed"
    local common=(-q queries.fasta -d synth570k.wsw --gap-open 10 --gap-extend 1 --device gpu)
    ./warpsw search "${common[@]}" -o hits_resident.tsv 2>&1 | tee parted.log
    ./warpsw search "${common[@]}" --gpu-memory 256MiB -o hits_parted.tsv 2>&1 | tee -a parted.log
    ./warpsw search "${common[@]}" --gpu-memory 256MiB --devices 0,0 -o hits_parted2.tsv 2>&1 | tee -a parted.log
    if [ -s hits_parted.tsv ] && cmp -s hits_resident.tsv hits_parted.tsv && cmp -s hits_resident.tsv hits_parted2.tsv; then
        ok parted "streamed (one engine, two workers) == resident ($(($(wc -l < hits_parted.tsv) - 1)) rows)"
    else
        fail parted
    fi
    summary+=("$(grep -oE '[0-9.]+ GCUPS' parted.log | tr '\n' ' ')(resident, streamed, two workers streamed)")
    if [ -n "${PARTED_BENCH:-}" ]; then
        bench "570k streamed, 256MiB" parted_bench.log --query queries.fasta --db synth570k.wsw \
            --gap-open 10 --gap-extend 1 --warmup 0 --repeat 1 --kernels simt,auto --gpu-memory 256MiB
    fi
}

step_long() {
    synth_db
    echo "== long sequences: the 570k DB plus 200 sequences of 20,000-35,000 residues"
    if [ ! -f synth570k_long.wsw ]; then
        python3 synthdb.py --sequences 200 --mean 27500 --shape 50 --min 20000 --max 35000 --seed 2 \
            | sed 's/^>synth/>long/' | cat synth570k.fa - > synth570k_long.fa
        ./warpsw makedb synth570k_long.fa -o synth570k_long.wsw
    fi
    python3 - <<'EOF'
recs = open("queries.fasta").read().split(">")[1:]
keep = [r for r in recs if len("".join(r.splitlines()[1:])) in (144, 1000, 2504)]
open("queries_long_run.fasta", "w").write("".join(">" + r for r in keep))
EOF
    local common=(--query queries_long_run.fasta --db synth570k_long.wsw --gap-open 10 --gap-extend 1 --warmup 0 --repeat 1)
    bench "long DB" long.log "${common[@]}" \
        --kernels "${LONG_KERNELS:-simt,simt-i16x2,partitioned-vl32-pl512,parallelogram,auto}" --auto-long parallelogram
    for threshold in 1024 2048 3072 4096 8192; do
        bench "long DB auto p512 t=$threshold" "long_t$threshold.log" "${common[@]}" \
            --kernels auto --auto-long partitioned-vl32-pl512 --auto-threshold "$threshold"
    done
}

step_ecoli() {
    echo "== traceback: allpairs on the E. coli K-12 proteome (BLOSUM50, open 8, extend 2)"
    local started=$SECONDS
    timeout "${TB_TIMEOUT:-300}" ./warpsw allpairs --input ecoli_k12_proteome.fasta --mode local --matrix blosum50 \
        --gap-open 8 --gap-extend 2 --device gpu -o /dev/null 2>&1 | tee tb_ecoli.log
    ok "traceback ecoli" "$(grep -E 'pairs,' tb_ecoli.log | tail -1) (whole command: $((SECONDS - started)) s)"
}

step_traceback() {
    echo "== traceback: allpairs, GPU vs CPU on 300 sequences, then all 4000 on the GPU (BLOSUM50, open 8, extend 2)"
    head -n "$(grep -n '^>' allvsall_sprot_4000_len100-500.fasta | sed -n 301p | cut -d: -f1)" \
        allvsall_sprot_4000_len100-500.fasta | sed '$d' > allvsall300.fasta
    local common=(--mode local --matrix blosum50 --gap-open 8 --gap-extend 2)
    ./warpsw allpairs --input allvsall300.fasta "${common[@]}" --device gpu -o tb300_gpu.tsv
    ./warpsw allpairs --input allvsall300.fasta "${common[@]}" --device cpu -o tb300_cpu.tsv
    if cmp -s tb300_gpu.tsv tb300_cpu.tsv && [ -s tb300_gpu.tsv ]; then
        ok traceback "GPU == CPU on $(($(wc -l < tb300_gpu.tsv) - 1)) pairs"
    else
        fail traceback
    fi
    local started=$SECONDS
    timeout "${TB_TIMEOUT:-300}" ./warpsw allpairs --input allvsall_sprot_4000_len100-500.fasta "${common[@]}" \
        --device gpu -o tb4000.tsv 2>&1 | tee tb4000.log
    ok "traceback 4000" "$(grep -E 'pairs,' tb4000.log | tail -1) (whole command with TSV output: $((SECONDS - started)) s)"
    echo "== score only: the 4000 sequences as queries against themselves (every ordered pair)"
    ./warpsw search -q allvsall_sprot_4000_len100-500.fasta -d allvsall_sprot_4000_len100-500.fasta \
        --matrix blosum50 --gap-open 8 --gap-extend 2 --device gpu --top 1 -o /dev/null 2>&1 | tee scoreonly.log
    ok "score only 4000x4000" "$(grep -E 'GCUPS' scoreonly.log | tail -1)"
}

step_lengths() {
    echo "== traceback on gpu-pairAlign's length groups (Swiss-Prot, average 51-1103): allpairs, then score only"
    local common=(--matrix blosum50 --gap-open 8 --gap-extend 2)
    for f in lengths/*.fasta; do
        local name
        name=$(basename "$f" .fasta)
        ./warpsw allpairs --input "$f" --mode local "${common[@]}" --device gpu -o /dev/null 2>&1 | tee "tb_$name.log"
        ./warpsw search -q "$f" -d "$f" "${common[@]}" --device gpu --top 1 -o /dev/null 2>&1 | tee "so_$name.log"
        ok "lengths $name" "$(grep -oE '[0-9.]+ GCUPS' "tb_$name.log" | tail -1) with traceback, \
$(grep -oE '[0-9.]+ GCUPS' "so_$name.log" | tail -1) score only"
    done
}

step_dbsize() {
    # Where `auto`'s first stage starts to pay (AUTO_MIN_SIMT_SEQUENCES, now
    # 100,000): the one-thread kernels vs partitioned-vl32-pl512 vs auto on
    # synthetic DBs of 25,000-400,000 sequences, 20 queries, 10-1k.
    # Each size also times `auto` with its two stages whatever the size
    # (--auto-min-sequences 0). DBSIZE_KERNELS and DBSIZE_SIZES override the
    # kernels and the sizes.
    echo "== database size: one-thread kernels vs partitioned-vl32-pl512 on synthetic databases"
    for n in ${DBSIZE_SIZES:-25000 50000 100000 200000 400000}; do
        [ -f "synth$n.wsw" ] || { python3 synthdb.py --sequences "$n" --seed 3 > "synth$n.fa" && ./warpsw makedb "synth$n.fa" -o "synth$n.wsw"; }
        local common=(--query queries.fasta --db "synth$n.wsw" --gap-open 10 --gap-extend 1 --warmup 1 --repeat 1)
        bench "synth $n 10-1k" "dbsize_$n.log" "${common[@]}" \
            --kernels "${DBSIZE_KERNELS:-simt-i16x2,partitioned-vl32-pl512,auto}"
        bench "synth $n 10-1k auto, two stages" "dbsize_${n}_two_stages.log" "${common[@]}" \
            --kernels auto --auto-min-sequences 0
    done
}

step_scaling() {
    # Issue 5's and 6's tables on a machine with several GPUs: every policy
    # on 1, 2, 4 … GPUs (as many as there are), speedup and efficiency over
    # one GPU, upload time apart, hits compared with the first one-GPU run.
    # WARPSW names the binary (A/B runs: its table is scaling-NAME.md),
    # POLICIES the policies, ALLPAIRS=0 skips the allpairs rows.
    synth_db
    local bin=${WARPSW:-./warpsw} gpus mismatch=0 name ref="" table
    name=$(basename "$bin")
    table="$out/scaling.md"
    [ "$name" = warpsw ] || table="$out/scaling-$name.md"
    gpus=$(nvidia-smi -L | wc -l)
    echo "== scaling: $bin, 20 queries vs the 570k DB (10-1k), 1..$gpus GPUs, every --balance policy; allpairs on 4,000 sequences"
    echo "| policy | GPUs | GCUPS | speedup | efficiency | upload s | seconds busy per GPU | hits == 1 GPU |" > "$table"
    echo "|---|---:|---:|---:|---:|---:|---|---|" >> "$table"
    for policy in ${POLICIES:-weighted greedy dynamic}; do
        local base=""
        for k in 1 2 4 8; do
            [ "$k" -le "$gpus" ] || break
            local devices log="multi_${name}_${policy}_$k.log" hits="hits_${name}_${policy}_$k.tsv"
            devices=$(seq -s, 0 $((k - 1)))
            "$bin" search -q queries.fasta -d synth570k.wsw --gap-open 10 --gap-extend 1 --device gpu \
                --devices "$devices" --balance "$policy" -o "$hits" 2>&1 | tee "$log"
            local gcups upload busy same
            gcups=$(grep -oE '[0-9.]+ GCUPS' "$log" | tail -1 | cut -d' ' -f1)
            upload=$(grep -oE 'prepared/uploaded [0-9.]+' "$log" | tail -1 | cut -d' ' -f2)
            busy=$(grep -oE 'seconds busy per device: [0-9., ]+' "$log" | tail -1 | cut -d: -f2)
            [ -n "$base" ] || base=$gcups
            [ -n "$ref" ] || ref=$hits
            if [ -s "$hits" ] && cmp -s "$hits" "$ref"; then
                same=yes
            else
                same=NO; mismatch=1
            fi
            echo "| $policy | $k | $gcups | $(ratio "$gcups" "$base" 1) | $(ratio "$gcups" "$base" "$k") | $upload | ${busy:--} | $same |" >> "$table"
        done
    done
    if [ "${ALLPAIRS:-1}" != 0 ]; then
        echo "| allpairs | GPUs | GCUPS with traceback | speedup | efficiency | | | GPU == 1 GPU |" >> "$table"
        local base=""
        for k in 1 2 4 8; do
            [ "$k" -le "$gpus" ] || break
            local log="tb_scaling_${name}_$k.log" tsv="tb_scaling_${name}_$k.tsv" gcups same
            "$bin" allpairs --input allvsall_sprot_4000_len100-500.fasta --mode local --matrix blosum50 \
                --gap-open 8 --gap-extend 2 --device gpu --devices "$(seq -s, 0 $((k - 1)))" -o "$tsv" 2>&1 | tee "$log"
            gcups=$(grep -oE '[0-9.]+ GCUPS' "$log" | tail -1 | cut -d' ' -f1)
            [ -n "$base" ] || base=$gcups
            if [ -s "$tsv" ] && cmp -s "$tsv" "tb_scaling_${name}_1.tsv"; then same=yes; else same=NO; mismatch=1; fi
            echo "| allpairs | $k | $gcups | $(ratio "$gcups" "$base" 1) | $(ratio "$gcups" "$base" "$k") | | | $same |" >> "$table"
        done
    fi
    cat "$table"
    # An output that differs from one GPU's fails the step, not only its row.
    if [ "$mismatch" = 0 ]; then ok "scaling $name" "table in $(basename "$table") ($gpus GPUs)"; else fail "scaling $name"; fi
}

step_workers() {
    # Several GPUs' chunk plan on the one GPU there is: k workers on GPU 0
    # (--devices 0,0,…) share its default stream, so their chunks run one
    # after another and the GCUPS is one GPU's speed on the plan k GPUs would
    # share; k GPUs would reach k times it at best (perfect balance). One
    # worker (one GPU's own plan) runs first as the baseline. WARPSW names
    # the binary (A/B runs); the table is appended to workers.md.
    synth_db
    local bin=${WARPSW:-./warpsw} table="$out/workers.md" mismatch=0 base="" name
    name=$(basename "$bin")
    echo "== workers: k workers on GPU 0, every --balance policy, 20 queries vs the 570k DB (10-1k), $bin"
    [ -f "$table" ] || {
        echo "| binary | policy | workers on GPU 0 | GCUPS | k × GCUPS | k × GCUPS / 1 worker | hits == 1 worker |"
        echo "|---|---|---:|---:|---:|---:|---|"
    } > "$table"
    # K POLICY: one search by K workers on GPU 0, its row in the table.
    workers_row() {
        local k=$1 policy=$2 devices log="workers_${name}_$2_$1.log" hits="hits_workers_${name}_$2_$1.tsv" gcups same
        devices=$(printf '0%.0s,' $(seq "$k")); devices=${devices%,}
        "$bin" search -q queries.fasta -d synth570k.wsw --gap-open 10 --gap-extend 1 --device gpu \
            --devices "$devices" --balance "$policy" -o "$hits" 2>&1 | tee "$log"
        gcups=$(grep -oE '[0-9.]+ GCUPS' "$log" | tail -1 | cut -d' ' -f1)
        [ -n "$base" ] || { base=$gcups; cp "$hits" "hits_workers_${name}_1.tsv"; }
        if [ -s "$hits" ] && cmp -s "$hits" "hits_workers_${name}_1.tsv"; then same=yes; else same=NO; mismatch=1; fi
        echo "| $name | $policy | $k | $gcups | $(awk -v g="$gcups" -v k="$k" 'BEGIN { printf "%.1f", g * k }') | $(ratio "$gcups" "$base" 1 | awk -v k="$k" '{ printf "%.2f", $1 * k }') | $same |" >> "$table"
    }
    workers_row 1 dynamic # one device: the policy plays no part
    for k in ${WORKERS:-2 4}; do
        [ "$k" -gt 1 ] || continue
        for policy in ${POLICIES:-weighted greedy dynamic}; do
            workers_row "$k" "$policy"
        done
    done
    cat "$table"
    if [ "$mismatch" = 0 ]; then ok "workers $name" "table in workers.md"; else fail "workers $name"; fi
}

step_ab() {
    # The previous build (./warpsw-before: copy it into the bundle) and this
    # one alternated AB_ROUNDS times: every kernel on the UniProt 20k DB and
    # AB_KERNELS on the 570k DB, one warm-up and one timed run per query;
    # each binary's rows in ab-NAME.csv, overall GCUPS per binary, database
    # and kernel in ab.md (within 3 %: the redesign's bar).
    synth_db
    [ -x ./warpsw-before ] || { echo "no ./warpsw-before in the bundle"; fail ab; return; }
    local small=simt,simt-i16x2,striped,striped-vl16,partitioned,partitioned-vl32-pl512,parallelogram,parallelogram-smem,auto
    local bin name
    rm -f "$out"/ab-*.csv
    for round in $(seq 1 "${AB_ROUNDS:-2}"); do
        for bin in ./warpsw-before ./warpsw; do
            name=$(basename "$bin")
            [ -f "synth570k-$name.wsw" ] || "$bin" makedb synth570k.fa -o "synth570k-$name.wsw"
            echo "== ab round $round: $name"
            "$bin" bench --device gpu --check 300 --csv "$out/ab-$name.csv" --query queries.fasta \
                --db uniprot20k.fasta.gz --gap-open 10 --gap-extend 1 --warmup 1 --repeat 1 \
                --kernels "${AB_SMALL_KERNELS:-$small}" > "ab-$name-small.log" 2>&1 || { fail "ab $name"; return; }
            "$bin" bench --device gpu --check 300 --csv "$out/ab-$name.csv" --query queries.fasta \
                --db "synth570k-$name.wsw" --gap-open 10 --gap-extend 1 --warmup 1 --repeat 1 \
                --kernels "${AB_KERNELS:-simt,simt-i16x2,partitioned-vl32-pl512,auto}" > "ab-$name-570k.log" 2>&1 \
                || { fail "ab $name"; return; }
        done
    done
    python3 - "$out"/ab-warpsw-before.csv "$out"/ab-warpsw.csv > "$out/ab.md" <<'PY'
import csv, sys
from collections import defaultdict
cells, secs = defaultdict(float), defaultdict(float)
names = []
for path in sys.argv[1:]:
    name = path.rsplit("/", 1)[-1][3:-4]
    names.append(name)
    for row in csv.DictReader(open(path)):
        key = (name, int(row["db_residues"]), row["kernel"])
        cells[key] += int(row["query_length"]) * int(row["db_residues"])
        secs[key] += float(row["seconds"])
rows = sorted({(db, k) for (_, db, k) in cells})
print(f"| database residues | kernel | {' | '.join(n + ' GCUPS' for n in names)} | new / before |")
print("|---:|---|" + "---:|" * (len(names) + 1))
for db, k in rows:
    g = [cells[(n, db, k)] / secs[(n, db, k)] / 1e9 if secs[(n, db, k)] else float("nan") for n in names]
    print(f"| {db} | {k} | {' | '.join(f'{x:.1f}' for x in g)} | {g[-1] / g[0]:.3f} |")
PY
    cat "$out/ab.md"
    ok ab "table in ab.md"
}

step_mpi() {
    # `search` under MPI (bundle made with MPI=1 scripts/gpu.sh): one process,
    # then 1 and 2 ranks sharing GPU 0, 20 queries vs the 570k DB (10-1k);
    # outputs byte-compared; rank 0's summary gives the time spent
    # gathering the scores (to be < 1 % of the search) and each rank's.
    synth_db
    if [ ! -x ./warpsw-mpi ] || [ ! -f openmpi/env.sh ]; then
        echo "no warpsw-mpi or openmpi/ in the bundle: build it with MPI=1 scripts/gpu.sh"
        fail mpi
        return
    fi
    echo "== mpi: one process, then mpirun -np 1 and -np 2 on GPU 0, 20 queries vs the 570k DB"
    local common=(search -q queries.fasta -d synth570k.wsw --gap-open 10 --gap-extend 1 --device gpu)
    ./warpsw "${common[@]}" -o hits_mpi0.tsv 2>&1 | tee mpi.log
    (
        . openmpi/env.sh
        for n in 1 2; do
            mpirun --bind-to none -np "$n" ./warpsw-mpi "${common[@]}" -o "hits_mpi$n.tsv" 2>&1 | tee -a mpi.log
        done
    )
    cp mpi.log hits_mpi*.tsv "$out/" 2>/dev/null
    if [ -s hits_mpi0.tsv ] && cmp -s hits_mpi0.tsv hits_mpi1.tsv && cmp -s hits_mpi0.tsv hits_mpi2.tsv; then
        ok mpi "1 and 2 ranks == one process ($(($(wc -l < hits_mpi0.tsv) - 1)) rows); $(grep -oE '[0-9.]+ GCUPS' mpi.log | tr '\n' ' ')(one process, 1 rank, 2 ranks); $(grep -E 'ranks?: slowest' mpi.log | tail -1)"
    else
        fail mpi
    fi
}

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/gpu.txt"
echo "commit $(cat COMMIT)"
for step in "${@:-all}"; do
    case "$step" in
        tests) step_tests ;;
        hits) step_hits ;;
        bench) step_bench ;;
        uniprot) step_uniprot ;;
        gaps) step_gaps ;;
        long) step_long ;;
        parted) step_parted ;;
        traceback) step_traceback ;;
        ecoli) step_ecoli ;;
        lengths) step_lengths ;;
        scaling) step_scaling ;;
        dbsize) step_dbsize ;;
        workers) step_workers ;;
        ab) step_ab ;;
        mpi) step_mpi ;;
        all) step_tests; step_hits; step_bench; step_uniprot; step_gaps; step_long; step_parted; step_traceback; step_ecoli; step_lengths ;;
        *) echo "unknown step $step (tests, hits, bench, uniprot, gaps, long, parted, traceback, ecoli, lengths, scaling, dbsize, workers, ab, mpi, all)"; exit 2 ;;
    esac
done
echo
echo "== summary ($(cat "$out/gpu.txt"), commit $(cat COMMIT))"
printf '%s\n' "${summary[@]}"
exit $status
