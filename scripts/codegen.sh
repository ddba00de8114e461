#!/usr/bin/env bash
# What the kernels compile to, without a GPU: assembles the embedded PTX for
# an architecture with NVIDIA's ptxas (from PyPI) and prints, per entry point,
# registers, stack and spills; with --sass KERNEL also the SASS instruction
# mix of that kernel (nvdisasm), most frequent first; with --cells, for every
# group kernel, the SASS instructions of its steps' loop per iteration (four
# steps) and per lane-cell, and the DPX operations on its longest dependency
# chain (scripts/sass_loop.py; recorded in benches/RESULTS.md).
#
#   scripts/codegen.sh [--arch sm_90] [--sass sw_partitioned_vl32_pl512] [--cells]
#
# The PTX is the one the host loads for that architecture (the sm_80 build
# before Hopper, the sm_90 build from it on). The driver JIT-compiles the
# same PTX on the GPU, so registers and spills
# match what `warpsw bench` reports there (checked on an H100: 148 registers
# for sw_simt_i32 both ways). The tools go to .whl/ (git-ignored) once.
set -euo pipefail
cd "$(dirname "$0")/.."
arch=sm_90
sass=
cells=
while [ $# -gt 0 ]; do
    case "$1" in
        --arch) arch=$2; shift 2 ;;
        --sass) sass=$2; shift 2 ;;
        --cells) cells=1; shift ;;
        *) echo "usage: scripts/codegen.sh [--arch sm_XX] [--sass KERNEL] [--cells]" >&2; exit 2 ;;
    esac
done

bin=.whl/nvidia/cu13/bin
if [ ! -x "$bin/ptxas" ] || [ ! -x "$bin/nvdisasm" ]; then
    PIP_ROOT_USER_ACTION=ignore python3 -m pip install --quiet --disable-pip-version-check --target .whl "nvidia-cuda-nvcc==13.0.*" "nvidia-cuda-nvdisasm==13.*"
fi

cargo build --release --quiet --bin warpsw
# The build the driver loads for this architecture (host::engine::gpu::ptx_for).
case "$arch" in
    sm_[0-8]*) ptx_file=gpu_kernels.ptx ;;
    *) ptx_file=gpu_kernels_sm90.ptx ;;
esac
ptx=$(ls -t "${CARGO_TARGET_DIR:-target}"/release/build/host-*/out/$ptx_file | head -1)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

"$bin/ptxas" -arch="$arch" -v "$ptx" -o "$out/kernels.cubin" 2> "$out/ptxas.txt"
echo "PTX: $ptx, assembled for $arch"
printf '%-28s %10s %12s %14s %13s\n' kernel registers "stack bytes" "spill stores" "spill loads"
awk '
    /Compiling entry function/ { match($0, /'\''[^'\'']+'\''/); name = substr($0, RSTART + 1, RLENGTH - 2) }
    /bytes stack frame/ { stack = $1; stores = $5; loads = $9 }
    /Used [0-9]+ registers/ { for (i = 1; i <= NF; i++) if ($i == "Used") regs = $(i + 1);
        printf "%-28s %10s %12s %14s %13s\n", name, regs, stack, stores, loads }
' "$out/ptxas.txt"

if [ -n "$sass" ] || [ -n "$cells" ]; then
    "$bin/nvdisasm" "$out/kernels.cubin" > "$out/kernels.sass"
fi
if [ -n "$cells" ]; then
    echo
    echo "Steps' loop of the group kernels ($arch): SASS instructions per iteration of four steps and per"
    echo "lane-cell (one i16x2 cell update, two DP cells), opcodes per lane-cell, DPX ops on the longest chain:"
    python3 scripts/sass_loop.py "$out/kernels.sass"
fi
if [ -n "$sass" ]; then
    echo
    echo "SASS instruction mix of $sass (opcode without modifiers, count):"
    awk -v k="$sass" '/^\/\/-+ \.text\./ { on = ($2 == ".text." k) } on' "$out/kernels.sass" \
        | grep -oE '/\*[0-9a-f]{4,}\*/ +[A-Z][A-Z0-9_.]*' | awk '{ sub(/\..*/, "", $2); print $2 }' \
        | sort | uniq -c | sort -rn | head -25
fi
