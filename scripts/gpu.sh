#!/usr/bin/env bash
# Builds everything a GPU machine (no Rust, no network) needs into gpu-bundle/:
# the release binary, the integration-test binary, the data the GPU runs use,
# and run.sh (with MPI=1 also the MPI build and a relocatable Open MPI).
# Then, with the device tool:
#   run(command="bash gpu-bundle/run.sh all", carry=["gpu-bundle"])
# Knobs (environment): SPROT=1, LEAN=1, MPI=1 (below).
set -euo pipefail
cd "$(dirname "$0")/.."
shared=${SHARED:-../shared}
bundle=gpu-bundle

cargo build --release --bin warpsw
tests_exe=$(cargo test --release --test tests --no-run --message-format=json 2>/dev/null \
    | python3 -c 'import json,sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] == "tests" and m.get("executable"):
        print(m["executable"])')
[ -n "$tests_exe" ] || { echo "could not find the integration-test binary" >&2; exit 1; }

rm -rf "$bundle"
mkdir -p "$bundle"
cp "${CARGO_TARGET_DIR:-target}"/release/warpsw "$bundle/warpsw"
strip --strip-debug "$bundle/warpsw"
cp "$tests_exe" "$bundle/warpsw-tests"
strip --strip-debug "$bundle/warpsw-tests"
cp scripts/run_on_gpu.sh "$bundle/run.sh"
cp scripts/gpu_kernel16.sh "$bundle/kernel16.sh"
cp scripts/gpu_query_group.sh "$bundle/query_group.sh"
cp scripts/gpu_start_and_stats.sh "$bundle/start_and_stats.sh"
cp scripts/gpu_long_queries.sh "$bundle/long_queries.sh"
cp scripts/gpu_equal_lengths.sh "$bundle/equal_lengths.sh"
cp scripts/gpu_diagnose_shapes.sh "$bundle/diagnose.sh"
cp scripts/gpu_two_gpus.sh "$bundle/two.sh"
cp scripts/gpu_two_gpus_synth.sh "$bundle/synth2.sh"
cp scripts/gpu_common.sh "$bundle/common.sh"
cp benches/queries/long.fasta benches/queries/lengths.fasta benches/queries/short.fasta "$bundle/"
cp scripts/top_scores_agree.py scripts/batch_table.py scripts/short_queries_table.py scripts/bench_rows.py \
    "$bundle/"
cp "$shared/tools/synthdb.py" "$shared/data/queries.fasta" "$bundle/"
# The side-by-side run with CUDASW++ 4.0 (built there from its source).
cp "$shared/tools/sidebyside.sh" "$shared/peers/cudasw4-37a394c.tar.gz" "$bundle/"
cp "$shared/data/mmseqs2_examples_DB.fasta.gz" "$bundle/uniprot20k.fasta.gz"
cp "$shared/data/queries/P02232.fasta" "$shared/data/allvsall_sprot_4000_len100-500.fasta" \
    "$shared/data/ecoli_k12_proteome.fasta" "$bundle/"
# gpu-pairAlign's length groups (average 51-1103 residues), cut from Swiss-Prot.
python3 scripts/length_groups.py "$shared/data/sprot_201401_metastudent.fasta.gz" "$bundle/lengths"
# The CPU engine's top hits for the GPU-vs-CPU comparison, when made beforehand with
#   warpsw search -q queries.fasta -d mmseqs2_examples_DB.fasta.gz --gap-open 10 --gap-extend 1 --device cpu -o bench-data/hits_cpu.tsv
[ -f bench-data/hits_cpu.tsv ] && cp bench-data/hits_cpu.tsv "$bundle/"
# SPROT=1: real Swiss-Prot for kernel16.sh and the side-by-side run: every
# 2nd record of the 2014_01 file (258,186 sequences), xz -9, about 31 MB.
# LEAN=1 leaves out what only run.sh's lengths step reads and compresses
# the binaries and the many-query sets, so that it fits beside the rest in
# the 64 MiB a call carries.
# The xz is kept beside the build (it takes minutes) and reused.
if [ "${SPROT:-0}" = 1 ]; then
    cached="${CARGO_TARGET_DIR:-target}/sprot_half.fasta.xz"
    if [ ! -s "$cached" ]; then
        zcat "$shared/data/sprot_201401_metastudent.fasta.gz" | awk '/^>/ { n++ } n % 2 == 1' \
            | xz -9 -T2 > "$cached.part" && mv "$cached.part" "$cached"
    fi
    cp "$cached" "$bundle/sprot_half.fasta.xz"
fi
if [ "${LEAN:-0}" = 1 ]; then
    rm -rf "$bundle/lengths"
    # The many-query sets (query_group.sh's `batch` step) as xz.
    xz -9 -T2 "$bundle/allvsall_sprot_4000_len100-500.fasta" "$bundle/ecoli_k12_proteome.fasta"
    # The binaries (their PTX is text) as xz: run.sh, kernel16.sh and
    # query_group.sh unpack them there.
    xz -9 -T2 "$bundle/warpsw" "$bundle/warpsw-tests"
fi
# MPI=1: the MPI build (warpsw-mpi) and a relocatable Open MPI (about 11 MiB,
# scripts/mpi_bundle.sh) for run.sh's `mpi` step.
if [ "${MPI:-0}" = 1 ]; then
    cargo build --release --bin warpsw --features mpi
    cp "${CARGO_TARGET_DIR:-target}"/release/warpsw "$bundle/warpsw-mpi"
    strip --strip-debug "$bundle/warpsw-mpi"
    bash scripts/mpi_bundle.sh "$bundle"
fi
git rev-parse --short HEAD > "$bundle/COMMIT"
du -sh "$bundle"
size=$(du -sm "$bundle" | cut -f1)
if [ "$size" -ge 64 ]; then
    echo "gpu-bundle is ${size} MiB; the device tool carries at most 64 MiB" >&2
    exit 1
fi
