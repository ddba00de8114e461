#!/usr/bin/env bash
# Copies this machine's Open MPI (Debian's libopenmpi3, openmpi-bin,
# libpmix2 and the libraries they load) into DEST/openmpi, relocatable:
# `. DEST/openmpi/env.sh` points OPAL_PREFIX, PMIX_PREFIX, PATH
# and LD_LIBRARY_PATH at it, so `mpirun` and an MPI-built warpsw run on a
# machine without Open MPI (the GPU machine). Only the shared-memory and
# TCP transports are of use there; components whose libraries are missing
# (InfiniBand, UCX, OFI, PSM) are left out.
#   scripts/mpi_bundle.sh DEST
set -euo pipefail
dest=${1:?usage: scripts/mpi_bundle.sh DEST}/openmpi
arch=x86_64-linux-gnu
sys=/usr/lib/$arch
command -v orterun >/dev/null || { echo "Open MPI is not installed (apt-get install openmpi-bin)" >&2; exit 1; }
rm -rf "$dest"
mkdir -p "$dest/bin" "$dest/lib" "$dest/lib/$arch/openmpi/lib/openmpi3" "$dest/share" "$dest/pmix2/lib"
cp "$(command -v orterun)" "$(command -v orted)" "$dest/bin/"
ln -s orterun "$dest/bin/mpirun"
libs=(libmpi.so.40 libopen-rte.so.40 libopen-pal.so.40 libmca_common_sm.so.40 libmca_common_ompio.so.41
      libmca_common_monitoring.so.50 libhwloc.so.15 libevent_core-2.1.so.7 libevent_pthreads-2.1.so.7
      libudev.so.1 libpmix.so.2 libmunge.so.2 libnuma.so.1)
for lib in "${libs[@]}"; do
    cp -L "$sys/$lib" "$dest/lib/"
done
# Components whose every library is in the bundle or the C library.
for component in "$sys"/openmpi/lib/openmpi3/*.so; do
    missing=$(ldd "$component" | awk '/=>/ {print $1}' | while read -r need; do
        case "$need" in libc.so*|libm.so*|libz.so*|libdl.so*|libpthread.so*|librt.so*|ld-linux*) continue ;; esac
        [ -e "$dest/lib/$need" ] || echo "$need"
    done)
    [ -z "$missing" ] && cp "$component" "$dest/lib/$arch/openmpi/lib/openmpi3/"
done
cp -r /usr/share/openmpi "$dest/share/openmpi"
rm -rf "$dest/share/openmpi/"*.pc "$dest/share/openmpi/"*wrapper-data.txt
cp -r "$sys/pmix2/lib/pmix" "$dest/pmix2/lib/"
cp -r "$sys/pmix2/share" "$dest/pmix2/share"
cat > "$dest/env.sh" <<'ENV'
# Source me: the relocated Open MPI beside this file.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export OPAL_PREFIX="$here" PMIX_PREFIX="$here/pmix2"
export PATH="$here/bin:$PATH" LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export OMPI_MCA_mca_base_component_show_load_errors=0 PMIX_MCA_pcompress_base_silence_warning=1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
ENV
du -sh "$dest"
