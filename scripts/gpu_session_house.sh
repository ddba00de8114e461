#!/usr/bin/env bash
# On the GPU machine, from gpu-bundle/: the library pipeline and --explain on a GPU, the CPU
# engine's 64-lane AVX-512BW path, and the CPU engine beside ssearch36 on all the machine's
# cores. Steps (any of them, in order):
#   bash house.sh tests     # GPU tests through the engines, the host library's tests (the
#                           # AVX-512 variants run where the CPU has AVX-512BW)
#   bash house.sh explain   # --explain and examples/search on the GPU
#   bash house.sh before    # 20 queries x half of Swiss-Prot: this build against the one
#                           # before the pipeline moved (warpsw-before), bench and whole process
#   bash house.sh side      # sidebyside.sh 20 queries x half of Swiss-Prot (CUDASW++4)
#   bash house.sh ecoli     # sidebyside.sh 4,136 E. coli proteins x half of Swiss-Prot
#   bash house.sh split     # the database split over "two GPUs" (--devices 0,0): GPU tests,
#                           # --explain, and the search's output against one GPU's, byte for byte
#   bash house.sh cpu       # ssearch36 -T N and warpsw --device cpu --threads N, whole process
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$here/out}
mkdir -p "$out"
cd "$here"
for x in warpsw warpsw-tests warpsw-before host-tests search-example; do
    [ -x "$x" ] || { [ -f "$x.xz" ] && xz -dk "$x.xz" && chmod +x "$x"; }
done
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$out/gpu.txt"
lscpu | grep -E 'Model name|^CPU\(s\)' | tee "$out/cpu.txt"
grep -o -w 'avx512bw\|avx512vbmi\|avx2' /proc/cpuinfo | sort | uniq -c | tee -a "$out/cpu.txt"

sprot() {
    [ -f sprot_half.fasta ] || xz -dc sprot_half.fasta.xz > sprot_half.fasta
    [ -f sprot_half.wsw ] || ./warpsw makedb sprot_half.fasta -o sprot_half.wsw > /dev/null
}

step_tests() {
    ./host-tests inter_sequence_narrow 2>&1 | tail -4
    ./host-tests engine::cpu 2>&1 | tail -3
    ./warpsw-tests library 2>&1 | tail -3
    ./warpsw-tests --ignored --test-threads 1 gpu_adversarial_cases \
        gpu_query_batches_match_the_reference gpu_engine_reports_progress_per_chunk 2>&1 | tail -8
}

step_explain() {
    sprot
    for q in queries.fasta short.fasta long.fasta; do
        echo "== --explain $q x sprot_half"
        ./warpsw search -q "$q" -d sprot_half.wsw --explain
    done
    [ -f uniprot20k.fasta ] || xz -dk uniprot20k.fasta.xz
    echo "== --explain queries.fasta x uniprot20k --device cpu"
    ./warpsw search -q queries.fasta -d uniprot20k.fasta --explain --device cpu
    echo "== examples/search.rs: queries.fasta x sprot_half, first lines"
    /usr/bin/time -f "example: %e s" ./search-example queries.fasta sprot_half.fasta > "$out/example.tsv"
    head -3 "$out/example.tsv"; wc -l < "$out/example.tsv"
    ./warpsw search -q queries.fasta -d sprot_half.fasta --columns qseqid,sseqid,score,evalue \
        --quiet -o "$out/cli.tsv"
    tail -n +2 "$out/cli.tsv" | awk -F'\t' '{ printf "%s\t%s\t%s\t%.2e\n", $1, $2, $3, $4 }' > "$out/cli4.tsv"
    cmp <(cut -f1-3 "$out/example.tsv") <(cut -f1-3 "$out/cli4.tsv") && echo "example = search (ids, scores)"
}

step_before() {
    sprot
    for round in 1 2 3; do
        for b in warpsw-before warpsw; do
            /usr/bin/time -f "$b whole process %e s" ./$b search -q queries.fasta -d sprot_half.wsw \
                --device gpu -o /dev/null 2>&1 | grep -E "whole process|GCUPS" | sed 's/;.*//'
        done
    done
    for b in warpsw-before warpsw; do
        ./$b bench --query queries.fasta --db sprot_half.wsw --device gpu --kernels auto \
            --warmup 1 --repeat 3 2>&1 | tail -2 | sed "s/^/$b: /"
    done
}

step_side() {
    sprot
    OUT=$out bash sidebyside.sh queries.fasta sprot_half.fasta 2>&1 | tail -12
}

step_ecoli() {
    sprot
    [ -f ecoli_k12_proteome.fasta ] || xz -dk ecoli_k12_proteome.fasta.xz
    OUT=$out bash sidebyside.sh ecoli_k12_proteome.fasta sprot_half.fasta 2>&1 | tail -8
}

step_split() {
    ./warpsw-tests --ignored --test-threads 1 gpu_split_parts_on_one_gpu_match_one_engine \
        gpu_two_workers_on_one_gpu_match_one_engine gpu_adversarial_cases \
        gpu_query_batches_match_the_reference 2>&1 | tail -8
    [ -f uniprot20k.fasta ] || xz -dk uniprot20k.fasta.xz
    ./warpsw makedb uniprot20k.fasta -o u20k.wsw > /dev/null
    ./warpsw search -q queries.fasta -d u20k.wsw --devices 0,0 --explain | head -30
    for devices in 0 0,0; do
        for round in 1 2; do
            /usr/bin/time -f "--devices $devices whole process %e s" ./warpsw search -q queries.fasta \
                -d u20k.wsw --devices "$devices" -o "$out/split_$devices.tsv" 2>&1 | tail -2 | cut -c1-400
        done
    done
    cmp "$out/split_0.tsv" "$out/split_0,0.tsv" && echo "--devices 0,0 output = --devices 0 output"
    rm -f "$out"/split_*.tsv
}

step_cpu() {
    n=$(nproc)
    [ -f uniprot20k.fasta ] || xz -dk uniprot20k.fasta.xz
    [ -f ecoli_k12_proteome.fasta ] || xz -dk ecoli_k12_proteome.fasta.xz
    head -n "$(grep -n '^>' ecoli_k12_proteome.fasta | sed -n 201p | cut -d: -f1)" \
        ecoli_k12_proteome.fasta | head -n -1 > ecoli200.fasta
    awk '/^>/ { n++ } n <= 8' queries.fasta > queries8.fasta
    for q in queries8.fasta ecoli200.fasta; do
        for round in 1 2; do
            /usr/bin/time -f "ssearch36 -T $n $q: %e s" ./ssearch36 -T "$n" -s BL62 -f -11 -g -1 \
                -q "$q" uniprot20k.fasta > /dev/null 2> "$out/ss.err" || tail -2 "$out/ss.err"
            tail -1 "$out/ss.err"
            /usr/bin/time -f "warpsw --device cpu --threads $n $q: %e s" ./warpsw search -q "$q" \
                -d uniprot20k.fasta --device cpu --threads "$n" -o /dev/null 2> "$out/ws.err"
            tail -1 "$out/ws.err"; grep -o 'statistics [0-9.]* s in all.*' "$out/ws.err" | head -1
        done
    done
    ./warpsw bench --query queries8.fasta --db uniprot20k.fasta --device cpu --kernels simt \
        --warmup 1 --repeat 3 --threads 1 2>&1 | tail -12
}

for step in "$@"; do
    echo "=== $step"
    "step_$step" 2>&1 | tee "$out/$step.txt"
done
