//! Thread and warp primitives: the GPU's on `nvptx64`, emulated on the host.
//!
//! Kernels call these functions and nothing else of the hardware, so the same
//! kernel source runs on the CPU. Inter-task kernels only need the global
//! thread index: on the host the caller runs the per-thread body for every
//! index instead (see `simt::align_sequence`).

/// Global index of the calling thread in a 1-D launch:
/// `blockIdx.x * blockDim.x + threadIdx.x`.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
pub fn global_thread_index() -> u32 {
    use core::arch::nvptx::*;
    // SAFETY: reading special registers has no preconditions.
    unsafe { (_block_idx_x() * _block_dim_x() + _thread_idx_x()) as u32 }
}

/// Synchronises the lanes of the calling warp (`bar.warp.sync`): memory
/// writes before it are visible to the warp's lanes after it. On the host a
/// "warp" is one call that computes every lane, so there is nothing to wait for.
#[inline(always)]
pub fn sync_warp() {
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: every lane of the warp reaches this barrier (kernels call it
    // from warp-uniform control flow).
    unsafe {
        bar_warp_sync(u32::MAX)
    }
}

#[cfg(target_arch = "nvptx64")]
unsafe extern "C" {
    #[link_name = "llvm.nvvm.bar.warp.sync"]
    fn bar_warp_sync(mask: u32);
}
