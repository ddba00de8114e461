#!/usr/bin/env bash
# A search-kernel study on the GPU machine, from the repository root inside
# the carried gpu-bundle/: the group kernel beside simt-i16x2 on the 570k
# synthetic database and UniProt 20k, then ncu on the group kernel's
# launches for one 464-residue query. Output under $OUT.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-/tmp/warpsw-out}
mkdir -p "$out"
cd "$here"
exec > >(tee -a "$out/kernel16.log") 2>&1
# The binaries, when scripts/gpu.sh (LEAN=1) compressed them.
for f in warpsw warpsw-tests; do [ -f "$f.xz" ] && xz -d -f "$f.xz"; done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "commit $(cat COMMIT)"
[ -n "${NO_BENCH:-}" ] || [ -f synth570k.wsw ] || { python3 synthdb.py --sequences 570000 --seed 1 > synth570k.fa && ./warpsw makedb synth570k.fa -o synth570k.wsw; }
kernels=${K16_KERNELS:-simt-i16x2,group-i16x2,auto}
if [ -n "${K16_TESTS:-}" ]; then
    ./warpsw-tests --ignored --test-threads=1 $K16_TESTS 2>&1 | tail -15
fi
if [ -z "${NO_BENCH:-}" ]; then
./warpsw bench --device gpu --check 300 --csv "$out/bench.csv" --query queries.fasta --db synth570k.wsw \
    --gap-open 10 --gap-extend 1 --warmup 1 --repeat "${REPEAT:-2}" --kernels "$kernels"
./warpsw bench --device gpu --check 300 --csv "$out/bench.csv" --query queries.fasta --db uniprot20k.fasta.gz \
    --gap-open 10 --gap-extend 1 --warmup 1 --repeat "${REPEAT:-2}" --kernels "$kernels"
fi
# Database sizes (DBSIZES="50000 100000 …"): where group-i16x2 starts to beat the small-database kernel.
for n in ${DBSIZES:-}; do
    [ -f "synth$n.wsw" ] || { python3 synthdb.py --sequences "$n" --seed 3 > "synth$n.fa" && ./warpsw makedb "synth$n.fa" -o "synth$n.wsw"; }
    ./warpsw bench --device gpu --check 300 --csv "$out/bench.csv" --query queries.fasta --db "synth$n.wsw" \
        --gap-open 10 --gap-extend 1 --warmup 1 --repeat 1 --kernels group-i16x2,partitioned-vl32-pl512
done
# Real Swiss-Prot (every 2nd record of the 2014_01 file), when carried as sprot_half.fasta.xz.
if [ -f sprot_half.fasta.xz ] && [ -z "${NO_BENCH:-}" ]; then
    [ -f sprot_half.wsw ] || { xz -dc sprot_half.fasta.xz > sprot_half.fasta && ./warpsw makedb sprot_half.fasta -o sprot_half.wsw; }
    ./warpsw bench --device gpu --check 300 --csv "$out/bench.csv" --query queries.fasta --db sprot_half.wsw \
        --gap-open 10 --gap-extend 1 --warmup 1 --repeat "${REPEAT:-2}" --kernels "$kernels"
fi
# Chunks side by side (STREAMS="1 4 8"): `bench` with each --gpu-streams on
# the 570k DB and Swiss-Prot half (when carried), and the search's hits
# compared with the first value's.
if [ -n "${STREAMS:-}" ]; then
    [ -f synth570k.wsw ] || { python3 synthdb.py --sequences 570000 --seed 1 > synth570k.fa && ./warpsw makedb synth570k.fa -o synth570k.wsw; }
    if [ -f sprot_half.fasta.xz ] && [ ! -f sprot_half.wsw ]; then
        xz -dc sprot_half.fasta.xz > sprot_half.fasta && ./warpsw makedb sprot_half.fasta -o sprot_half.wsw
    fi
    for db in synth570k sprot_half; do
        [ -f "$db.wsw" ] || continue
        first=
        for s in $STREAMS; do
            echo "== --gpu-streams $s, $db"
            ./warpsw bench --device gpu --check 300 --query queries.fasta --db "$db.wsw" --gap-open 10 --gap-extend 1 \
                --warmup 1 --repeat "${REPEAT:-2}" --kernels "${STREAMS_KERNELS:-auto}" --gpu-streams "$s" \
                >> "$out/streams.log"
            grep -E '^overall' "$out/streams.log" | tail -1
            ./warpsw search -q queries.fasta -d "$db.wsw" --gap-open 10 --gap-extend 1 --device gpu --gpu-streams "$s" \
                -o "streams_hits_${db}_$s.tsv" 2>&1 | tail -2
            first=${first:-$s}
            if cmp -s "streams_hits_${db}_$first.tsv" "streams_hits_${db}_$s.tsv"; then
                echo "hits with --gpu-streams $s == with $first"
            else
                echo "HITS DIFFER: --gpu-streams $s vs $first"
            fi
        done
    done
fi
if [ -n "${NCU:-}" ] && command -v ncu >/dev/null; then
    awk '/^>/ { n++ } n == 5' queries.fasta > q464.fasta
    ncu --section SpeedOfLight --section Occupancy --section WarpStateStats --section SchedulerStats \
        --section LaunchStats --section InstructionStats \
        --metrics l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,smsp__inst_executed_op_shared_ld.sum,sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,sm__cycles_elapsed.avg \
        -k regex:sw_group_i16x2 -c "${NCU_LAUNCHES:-4}" \
        ./warpsw search -q q464.fasta -d synth570k.wsw --device gpu --kernel group-i16x2 -o "$out/ncu_hits.tsv" \
        > "$out/ncu_group.txt" 2>&1
    grep -E 'sw_group|Duration|Registers|Achieved Occupancy|Theoretical Occ|bank_conflicts|wavefronts|inst_executed|Issued Warp|No Eligible|L1/TEX Cache|Compute \(SM\)|cycles_elapsed' "$out/ncu_group.txt"
fi
# Side by side with CUDASW++ 4.0 (SIDEBYSIDE=1): the 570k DB, and Swiss-Prot
# half when carried; `auto` timed per query by warpsw bench.
if [ -n "${SIDEBYSIDE:-}" ]; then
    [ -f synth570k.fa ] || python3 synthdb.py --sequences 570000 --seed 1 > synth570k.fa
    OUT=$out bash sidebyside.sh queries.fasta synth570k.fa
    if [ -f sprot_half.fasta.xz ]; then
        [ -f sprot_half.fasta ] || xz -dc sprot_half.fasta.xz > sprot_half.fasta
        OUT=$out bash sidebyside.sh queries.fasta sprot_half.fasta
    fi
fi
# Per-launch durations of the group kernels for one query (NCU_TIMES=1):
# which chunks take the time on Swiss-Prot half.
if [ -n "${NCU_TIMES:-}" ] && [ -f sprot_half.fasta.xz ]; then
    [ -f sprot_half.wsw ] || { xz -dc sprot_half.fasta.xz > sprot_half.fasta && ./warpsw makedb sprot_half.fasta -o sprot_half.wsw; }
    awk '/^>/ { n++ } n == 10' queries.fasta > q1000.fasta
    ncu --metrics gpu__time_duration.sum,sm__warps_active.avg.pct_of_peak_sustained_active,launch__grid_size,launch__registers_per_thread \
        -k regex:sw_group_i16x2 --csv \
        ./warpsw search -q q1000.fasta -d sprot_half.wsw --device gpu --kernel group-i16x2 -o "$out/ncu_times_hits.tsv" \
        > "$out/ncu_times.csv" 2> "$out/ncu_times.err"
    tail -3 "$out/ncu_times.err"
    wc -l "$out/ncu_times.csv"
fi
