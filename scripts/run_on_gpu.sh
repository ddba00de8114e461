#!/usr/bin/env bash
# Runs on the GPU machine from the repository root, inside the carried
# gpu-bundle/ (see scripts/gpu.sh). Steps: tests, bench, hits, striped, traceback, all.
# Logs and CSV rows go to $OUT (the device tool brings them back).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-/tmp/warpsw-out}
mkdir -p "$out"
cd "$here"
summary=()
status=0

step_tests() {
    echo "== GPU tests: warpsw-tests --ignored"
    if ./warpsw-tests --ignored --test-threads=1 2>&1 | tee "$out/tests.log"; then
        summary+=("tests: $(grep -E '^test result' "$out/tests.log" | tail -1)")
    else
        summary+=("tests: FAILED ($(grep -E '^test result' "$out/tests.log" | tail -1))"); status=1
    fi
}

synth_db() {
    [ -f synth570k.fa ] || python3 synthdb.py --sequences 570000 --seed 1 > synth570k.fa
}

step_bench() {
    synth_db
    echo "== bench: 20 queries vs synthdb.py --sequences 570000 --seed 1, BLOSUM62 10/1"
    local kernels=${KERNELS:-simt,partitioned-vl32-pl512,partitioned}
    if ./warpsw bench --query queries.fasta --db synth570k.fa --gap-open 10 --gap-extend 1 \
        --kernels "$kernels" --device gpu --warmup 1 --repeat 3 --csv "$out/bench_raw.csv" \
        2>&1 | tee "$out/bench.log"; then
        summary+=("bench: $(grep -E '^overall' "$out/bench.log")")
    else
        summary+=("bench: FAILED"); status=1
    fi
}

step_striped() {
    echo "== every kernel on the 20,000-sequence UniProt DB (the striped kernel is too slow for the 570k DB)"
    if ./warpsw bench --query queries.fasta --db uniprot20k.fasta.gz --gap-open 10 --gap-extend 1 \
        --kernels simt,striped,striped-vl16,partitioned,partitioned-vl32-pl512,parallelogram,parallelogram-smem,auto --device gpu --warmup 1 --repeat 3 \
        --csv "$out/bench_uniprot_raw.csv" 2>&1 | tee "$out/bench_uniprot.log"; then
        summary+=("bench uniprot20k: $(grep -E '^overall' "$out/bench_uniprot.log")")
    else
        summary+=("bench uniprot20k: FAILED"); status=1
    fi
}

step_hits() {
    echo "== hits: 20 queries vs the 20,000-sequence UniProt DB, GPU vs CPU top 10"
    ./warpsw search -q queries.fasta -d uniprot20k.fasta.gz --gap-open 10 --gap-extend 1 --device gpu -o "$out/hits_gpu.tsv" 2>&1 | tee "$out/hits.log"
    ./warpsw search -q queries.fasta -d uniprot20k.fasta.gz --gap-open 10 --gap-extend 1 --device cpu -o "$out/hits_cpu.tsv" 2>&1 | tee -a "$out/hits.log"
    if cmp -s "$out/hits_gpu.tsv" "$out/hits_cpu.tsv" && [ -s "$out/hits_gpu.tsv" ]; then
        summary+=("hits: GPU == CPU ($(($(wc -l < "$out/hits_gpu.tsv") - 1)) rows)")
    else
        summary+=("hits: GPU and CPU DIFFER"); status=1
    fi
}

step_traceback() {
    echo "== traceback: allpairs, GPU vs CPU on 300 sequences, then all 4000 on the GPU (BLOSUM50, open 8, extend 2)"
    head -n "$(grep -n '^>' allvsall_sprot_4000_len100-500.fasta | sed -n 301p | cut -d: -f1)" \
        allvsall_sprot_4000_len100-500.fasta | sed '$d' > allvsall300.fasta
    local common=(--mode local --matrix blosum50 --gap-open 8 --gap-extend 2)
    ./warpsw allpairs --input allvsall300.fasta "${common[@]}" --device gpu -o "$out/tb300_gpu.tsv" 2>&1 | tee "$out/traceback.log"
    ./warpsw allpairs --input allvsall300.fasta "${common[@]}" --device cpu -o "$out/tb300_cpu.tsv" 2>&1 | tee -a "$out/traceback.log"
    if cmp -s "$out/tb300_gpu.tsv" "$out/tb300_cpu.tsv" && [ -s "$out/tb300_gpu.tsv" ]; then
        summary+=("traceback: GPU == CPU on $(($(wc -l < "$out/tb300_gpu.tsv") - 1)) pairs")
    else
        summary+=("traceback: GPU and CPU DIFFER on 300 sequences"); status=1
    fi
    timeout 300 ./warpsw allpairs --input allvsall_sprot_4000_len100-500.fasta "${common[@]}" --device gpu -o /dev/null \
        2>&1 | tee -a "$out/traceback.log"
    summary+=("traceback 4000: $(grep -E 'pairs,' "$out/traceback.log" | tail -1)")
}

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/gpu.txt"
echo "commit $(cat COMMIT)"
for step in "${@:-all}"; do
    case "$step" in
        tests) step_tests ;;
        bench) step_bench ;;
        hits) step_hits ;;
        traceback) step_traceback ;;
        striped) step_striped ;;
        all) step_tests; step_hits; step_bench; step_striped; step_traceback ;;
        *) echo "unknown step $step (tests, bench, hits, striped, traceback, all)"; exit 2 ;;
    esac
done
echo
echo "== summary ($(cat "$out/gpu.txt"), commit $(cat COMMIT))"
printf '%s\n' "${summary[@]}"
exit $status
