# Sourced by the GPU machine's scripts in gpu-bundle/ (scripts/gpu.sh packs it as
# common.sh): the bundle's folder as the working directory, logs under ${OUT:-out}/
# ($out), the release binary unpacked, and the GPU named in $out/gpu.txt.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=${OUT:-$here/out}
mkdir -p "$out"
cd "$here"
[ -x warpsw ] || xz -dk warpsw.xz
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$out/gpu.txt"
