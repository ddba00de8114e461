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
