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

/// The largest `x` of the calling warp's lanes (five butterfly shuffles).
/// On the host a "warp" is one call, which holds one value.
#[inline(always)]
pub fn warp_max(x: u32) -> u32 {
    #[cfg(target_arch = "nvptx64")]
    {
        let mut x = x;
        let mut d = 16;
        while d > 0 {
            // SAFETY: every lane of the warp executes this shuffle
            // (kernels call it from warp-uniform control flow).
            let other = unsafe { shfl_bfly(u32::MAX, x as i32, d, 31) } as u32;
            x = if other > x { other } else { x };
            d /= 2;
        }
        x
    }
    #[cfg(not(target_arch = "nvptx64"))]
    x
}

#[cfg(target_arch = "nvptx64")]
unsafe extern "C" {
    #[link_name = "llvm.nvvm.bar.warp.sync"]
    fn bar_warp_sync(mask: u32);
    #[link_name = "llvm.nvvm.shfl.sync.bfly.i32"]
    fn shfl_bfly(mask: u32, v: i32, lane_mask: u32, c: u32) -> i32;
}
