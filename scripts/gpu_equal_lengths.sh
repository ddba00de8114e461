#!/usr/bin/env bash
# On the GPU machine, from gpu-bundle/ (scripts/gpu.sh packs it as equal_lengths.sh):
#   bash equal_lengths.sh 128 256 512     # CUDASW++4's --pseudodb shapes
#   bash equal_lengths.sh 1024 2048
# For each length L: 1,000,000 sequences of exactly L residues
# (synthdb.py --min L --max L, made in 16 shards side by side, the records
# renumbered), then the 20 standard queries against it side by side with
# CUDASW++ 4.0 (sidebyside.sh: per-query and overall GCUPS, whole process,
# top-10 scores). The databases are made first, all of them on every core,
# so that the searches run on an idle host. Logs under ${OUT:-out}/.
. "$(dirname "$0")/common.sh"
sequences=${SEQUENCES:-1000000}
shards=16
work=${WORK:-/tmp/equal_lengths}
mkdir -p "$work"

make_db() { # length: writes $work/eqL.fa
    local length=$1 per=$((sequences / shards)) pids=()
    for s in $(seq 1 $shards); do
        python3 synthdb.py --sequences $per --min "$length" --max "$length" --mean "$length" \
            --seed $((length * 100 + s)) > "$work/eq${length}_$s.fa" &
        pids+=($!)
    done
    for p in "${pids[@]}"; do wait "$p"; done
    for s in $(seq 1 $shards); do cat "$work/eq${length}_$s.fa"; done \
        | awk '/^>/ { printf ">eq%07d\n", n++; next } { print }' > "$work/eq$length.fa"
    rm -f "$work"/eq"${length}"_*.fa
}

start=$(date +%s)
for length in "$@"; do make_db "$length"; done
echo "databases made in $(( $(date +%s) - start )) s: $(ls -la "$work"/eq*.fa | awk '{ print $5, $9 }' | tr '\n' ' ')"
for length in "$@"; do
    echo "== 1,000,000 x $length residues"
    OUT=$out WORK=/tmp/sidebyside bash sidebyside.sh queries.fasta "$work/eq$length.fa" 2>&1 | tail -26
    rm -f "$work/eq$length.fa" /tmp/sidebyside/db_eq"$length".wsw
    rm -rf /tmp/sidebyside/cs4db/eq"$length"*
done
