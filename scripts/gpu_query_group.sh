#!/usr/bin/env bash
# The query-group kernel on the GPU machine, from the repository root inside
# the carried gpu-bundle/ (scripts/gpu.sh, SPROT=1 LEAN=1), most important
# first, everything logged under $OUT as it goes:
#   1. its GPU test against the reference (100,000 sequences and more);
#   2. `bench` of group-i16x2 and query-group-i16x2 on the 570k synthetic
#      database and Swiss-Prot half (every query checked on 300 sequences);
#   3. side by side with CUDASW++ 4.0 (../shared/tools/sidebyside.sh, its
#      build started at once in the background) on the 570k database;
#   4. ncu on the kernel's launches for one 464-residue query;
#   5. side by side on Swiss-Prot half and UniProt 20k;
#   6. configurations pinned (QG_CONFIGS="g8_r32 g16_r32") on the 570k one.
# Knobs: QG_TESTS (test filter, empty: none), QG_KERNELS (bench).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-/tmp/warpsw-out}
mkdir -p "$out"
cd "$here"
exec > >(tee -a "$out/qg.log") 2>&1
# The binaries, when scripts/gpu.sh (LEAN=1) compressed them.
for f in warpsw warpsw-tests; do [ -f "$f.xz" ] && xz -d -f "$f.xz"; done
t0=$(date +%s)
at() { echo "== at $(($(date +%s) - t0)) s: $*"; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
echo "commit $(cat COMMIT)"

# In the background: CUDASW++ 4.0's build (about 80 s), the databases.
(
    mkdir -p /tmp/sidebyside/logs && cd /tmp/sidebyside \
        && tar -xzf "$here/cudasw4-37a394c.tar.gz" \
        && sed -i 's/-arch=native/-arch=sm_90/; s/^COMPILE = $(COMPILER) /COMPILE = $(COMPILER) -x cu /' cudasw4/Makefile \
        && { ls /usr/local/cuda/lib64/libnvToolsExt.so* >/dev/null 2>&1 || sed -i 's/-lnvToolsExt//' cudasw4/Makefile; } \
        && cd cudasw4 && nice make -j12 release > "$out/cudasw4_build.log" 2>&1
    echo "cudasw4 build rc $? at $(($(date +%s) - t0)) s" >> "$out/cudasw4_build.log"
) &
(
    python3 synthdb.py --sequences 570000 --seed 1 > synth570k.fa \
        && ./warpsw makedb synth570k.fa -o synth570k.wsw > /dev/null
    if [ -f sprot_half.fasta.xz ]; then
        xz -dc sprot_half.fasta.xz > sprot_half.fasta && ./warpsw makedb sprot_half.fasta -o sprot_half.wsw > /dev/null
    fi
    touch dbs.done
) &

if [ -n "${QG_TESTS-gpu_query_group}" ]; then
    timeout 170 ./warpsw-tests --ignored --test-threads=1 "${QG_TESTS-gpu_query_group}" > "$out/tests.log" 2>&1
    echo "tests rc $?"
    grep -E "^test |test result|mismatch|panicked|pairs compared" "$out/tests.log" | head -20
    at tests
fi
while [ ! -f dbs.done ]; do sleep 1; done
at databases

kernels=${QG_KERNELS:-group-i16x2,query-group-i16x2}
for db in synth570k sprot_half; do
    [ -f "$db.wsw" ] || continue
    ./warpsw bench --device gpu --check 300 --csv "$out/bench.csv" --query queries.fasta --db "$db.wsw" \
        --gap-open 10 --gap-extend 1 --warmup 1 --repeat 2 --kernels "$kernels" > "$out/bench_$db.log" 2>&1
    echo "bench $db rc $?"
    grep -vE "^\s*$" "$out/bench_$db.log" | tail -60
    at "bench $db"
done

side() { # DB FASTA: CUDASW++ 4.0 and the query-group kernel, score-only columns
    local name=$1 fasta=$2
    while ! grep -q "build rc" "$out/cudasw4_build.log" 2>/dev/null; do sleep 1; done
    [ -f "$name.wsw" ] && ln -sf "$here/$name.wsw" "/tmp/sidebyside/db_$name.wsw"
    mkdir -p "$out/s_$name"
    WARPSW_ARGS="--kernel query-group-i16x2 --columns qseqid,sseqid,score,evalue,bitscore" KERNEL=query-group-i16x2 \
        OUT="$out/s_$name" timeout 200 bash sidebyside.sh queries.fasta "$fasta" > "$out/s_$name/table.txt" 2>&1
    cat "$out/s_$name/table.txt" | tail -26
    at "side by side $name"
}
side synth570k synth570k.fa

if command -v ncu > /dev/null; then
    awk '/^>/ { n++ } n == 5' queries.fasta > q464.fasta
    timeout 120 ncu --section SpeedOfLight --section Occupancy --section WarpStateStats --section SchedulerStats \
        --section LaunchStats --section InstructionStats --section ComputeWorkloadAnalysis \
        --metrics l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,smsp__inst_executed.sum,sm__cycles_elapsed.avg \
        -k regex:sw_query_group -c 3 \
        ./warpsw search -q q464.fasta -d synth570k.wsw --device gpu --kernel query-group-i16x2 --gpu-streams 1 \
        -o "$out/ncu_hits.tsv" > "$out/ncu_query_group.txt" 2>&1
    grep -E 'sw_query_group|Duration|Registers Per|Achieved Occupancy|Theoretical Occ|bank_conflicts|wavefronts|Issued Warp|No Eligible|Compute \(SM\) Throughput|Issue Slots Busy|ALU|FMA' "$out/ncu_query_group.txt" | head -60
    at ncu
fi

[ -f sprot_half.fasta ] && side sprot_half sprot_half.fasta
side uniprot20k uniprot20k.fasta.gz

for config in ${QG_CONFIGS:-g8_r32 g16_r32}; do
    WARPSW_QUERY_GROUP_CONFIG=$config ./warpsw bench --device gpu --check 100 --query queries.fasta --db synth570k.wsw \
        --gap-open 10 --gap-extend 1 --warmup 1 --repeat 1 --kernels query-group-i16x2 > "$out/config_$config.log" 2>&1
    echo "== $config"
    grep -E "^overall|^ *[0-9A-Za-z_|.]+ +[0-9]+ +[0-9.]+$" "$out/config_$config.log" | tail -22
done
at done
