#!/usr/bin/env bash
# Run 7 (benches/RESULTS.md): the A/B of the partitioned kernel, as run from
# gpu-bundle/ with three binaries: warpsw-A = 3d362ee (the paper's lazy-F
# loop), warpsw-B = + chains surviving a pass finished by a warp scan,
# warpsw (C) = B + prmt score bytes + E updated beside F. B and C were not
# kept (slower); their sources are described in the RESULTS entry.
set -uo pipefail
cd "$(dirname "$0")"
out=${OUT:-/tmp/ab-out}; mkdir -p "$out"
exec > >(tee -a "$out/ab.log") 2>&1
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
python3 synthdb.py --sequences 570000 --seed 1 > synth570k.fa
./warpsw makedb synth570k.fa -o synth570k.wsw
python3 - <<'PY'
recs = open("queries.fasta").read().split(">")[1:]
keep = [r for r in recs if len("".join(r.splitlines()[1:])) >= 1000]
open("queries_ge1000.fasta", "w").write("".join(">" + r for r in keep))
PY
for v in A B C; do
    bin=./warpsw-$v; [ "$v" = C ] && bin=./warpsw
    echo "== variant $v: 570k, 20 queries, 10-1k"
    $bin bench --device gpu --check 300 --csv "$out/ab_$v.csv" --query queries.fasta --db synth570k.wsw \
        --gap-open 10 --gap-extend 1 --warmup 0 --repeat 1 --kernels simt,partitioned-vl32-pl512,partitioned
done
for v in A C; do
    bin=./warpsw-$v; [ "$v" = C ] && bin=./warpsw
    echo "== variant $v: uniprot20k, 20 queries, 10-1k"
    $bin bench --device gpu --check 300 --csv "$out/ab_$v.csv" --query queries.fasta --db uniprot20k.fasta.gz \
        --gap-open 10 --gap-extend 1 --warmup 1 --repeat 1 --kernels partitioned-vl32-pl512,partitioned
done
for gaps in "10 2" "40 3"; do
    set -- $gaps
    echo "== variant C: 570k, queries >= 1000, $1-$2k"
    ./warpsw bench --device gpu --check 300 --csv "$out/ab_C.csv" --query queries_ge1000.fasta --db synth570k.wsw \
        --gap-open "$1" --gap-extend "$2" --warmup 0 --repeat 1 --kernels simt,partitioned-vl32-pl512,partitioned
done
TEST_ARGS="--skip gpu_traceback --skip gpu_parted" bash run.sh tests
echo "== A/B summary"
grep -E "^== variant|^overall|^registers" "$out/ab.log"
