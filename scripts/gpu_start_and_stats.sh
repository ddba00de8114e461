#!/usr/bin/env bash
# On the GPU machine, from gpu-bundle/ (scripts/gpu.sh packs it):
#   bash start_and_stats.sh start   # the first search on a machine: machine code against the driver's JIT
#   bash start_and_stats.sh stats   # --stats none against the default statistics, the 20 queries
#                                   # against a synthetic database (SEQUENCES, default 570000)
#   bash start_and_stats.sh cold    # the first search of the 20 queries against that database
#                                   # without the driver's cache: machine code against PTX
# Prints a table per step; logs under ${OUT:-out}/.
. "$(dirname "$0")/common.sh"

wall() { # LABEL ENV... -- COMMAND...: one run's wall seconds
    local label=$1; shift
    local start end
    start=$(date +%s.%N)
    env "$@" > /dev/null 2>> "$out/start.log"
    end=$(date +%s.%N)
    printf '%-44s %6.2f s\n' "$label" "$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')"
}

step_start() {
    printf '>one\nMKVLAAGIVGLLLAAQPAMAQVQLQESGGGLVQAGGSLRLSCAASGRTFSSYAMGWFRQ\n' > one.fa
    printf '>two\nMKVLSAGIVGLLLAAQPAMAQVQLQESGGGLVQAGGSLRLSCAASGRTFSSYAMGWFRQ\n' > two.fa
    ./warpsw kernels | grep -E "machine code|PTX only"
    # What each setting loads, as the summary names it.
    for sass in on off; do
        echo "WARPSW_SASS=$sass: $(WARPSW_SASS=$sass ./warpsw search -q one.fa -d two.fa --device gpu -o /dev/null 2>&1 | grep -o '(sm_[^)]*)' | head -1)"
    done
    local search=(./warpsw search -q one.fa -d two.fa --device gpu --quiet -o /dev/null)
    for round in 1 2 3; do
        wall "machine code, no driver cache ($round)" CUDA_CACHE_DISABLE=1 "${search[@]}"
        wall "PTX (WARPSW_SASS=off), no driver cache ($round)" CUDA_CACHE_DISABLE=1 WARPSW_SASS=off "${search[@]}"
    done
    # The driver's cache, filled by a first PTX run, then used.
    export CUDA_CACHE_PATH=$out/cuda-cache
    rm -rf "$CUDA_CACHE_PATH"
    wall "PTX, cache being filled" WARPSW_SASS=off "${search[@]}"
    for round in 1 2 3; do
        wall "PTX, cached ($round)" WARPSW_SASS=off "${search[@]}"
        wall "machine code, cache unused ($round)" "${search[@]}"
    done
    unset CUDA_CACHE_PATH
    # The same hits either way.
    # A search that fails (the bundle left the database out) is said, not compared.
    if ! ./warpsw search -q queries.fasta -d uniprot20k.fasta.gz --device gpu --quiet -o "$out/hits_sass.tsv" ||
        ! WARPSW_SASS=off ./warpsw search -q queries.fasta -d uniprot20k.fasta.gz --device gpu --quiet -o "$out/hits_ptx.tsv"; then
        echo "hits: not compared, a search failed (above)"
    elif cmp -s "$out/hits_sass.tsv" "$out/hits_ptx.tsv"; then
        echo "hits: identical with machine code and PTX"
    else
        echo "hits: DIFFER"
    fi
}

synth() { # the synthetic database's .wsw, made once
    local n=${SEQUENCES:-570000}
    [ -f "synth_$n.wsw" ] || {
        python3 synthdb.py --sequences "$n" --seed 7 > "synth_$n.fa" && ./warpsw makedb "synth_$n.fa" -o "synth_$n.wsw" > /dev/null
    }
    echo "synth_$n.wsw"
}

step_cold() {
    local db
    db=$(synth)
    local search=(./warpsw search -q queries.fasta -d "$db" --device gpu --columns qseqid,sseqid,score --quiet -o /dev/null)
    for round in 1 2 3; do
        wall "20 queries, machine code, no driver cache ($round)" CUDA_CACHE_DISABLE=1 "${search[@]}"
        wall "20 queries, PTX, no driver cache ($round)" CUDA_CACHE_DISABLE=1 WARPSW_SASS=off "${search[@]}"
    done
}

step_stats() {
    local n=${SEQUENCES:-570000}
    synth > /dev/null
    local common=(./warpsw search -q queries.fasta -d "synth_$n.wsw" --device gpu)
    for round in 1 2; do
        for mode in default none; do
            local args=(--columns qseqid,sseqid,score)
            [ "$mode" = none ] && args+=(--stats none)
            "${common[@]}" "${args[@]}" -o "$out/top10_$mode.tsv" 2> "$out/stats_${mode}_$round.log"
            printf '%-8s round %s  %s\n' "$mode" "$round" "$(grep -o '= [0-9.]* GCUPS' "$out/stats_${mode}_$round.log") $(grep -o '[0-9.]* s in all:' "$out/stats_${mode}_$round.log")"
        done
    done
    tail -1 "$out/stats_default_2.log"
    tail -1 "$out/stats_none_2.log"
    # --stats none's ten best scores per query against `bench`'s (the k best by score).
    ./warpsw bench --query queries.fasta --db "synth_$n.wsw" --device gpu --warmup 0 --repeat 1 --check 0 > "$out/bench.log" 2>&1
    python3 - "$out/top10_none.tsv" "$out/top10_default.tsv" <<'EOF'
import sys, collections
def load(p):
    d = collections.defaultdict(list)
    for i, line in enumerate(open(p)):
        f = line.rstrip("\n").split("\t")
        if i == 0 or len(f) < 3: continue
        d[f[0]].append(int(f[2]))
    return d
none, default = load(sys.argv[1]), load(sys.argv[2])
ok = sum(1 for q in none if none[q] == sorted(none[q], reverse=True) and len(none[q]) == 10)
best = sum(1 for q in none if default.get(q) and max(default[q]) == none[q][0])
print(f"--stats none: {ok} of {len(none)} queries with 10 hits in descending score; best score equal to the default's top hit on {best}")
EOF
}

steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(start stats)
for step in "${steps[@]}"; do
    case "$step" in
        start) step_start ;;
        stats) step_stats ;;
        cold) step_cold ;;
        *) echo "unknown step $step" >&2; exit 2 ;;
    esac
done
