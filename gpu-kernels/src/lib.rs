//! warpsw's Smith-Waterman kernels, written once and compiled twice.
//!
//! For `nvptx64-nvidia-cuda` this crate is `#![no_std]` and each kernel module
//! exports an `extern "ptx-kernel"` entry point; `host/build.rs` compiles it to
//! PTX that the host loads through `cudarc`. For the host target the same
//! kernel bodies compile as ordinary Rust with the GPU's thread and warp
//! primitives emulated ([`warp`]), which is how CI (no GPU) tests every kernel
//! against the scalar reference and how the CPU engine computes its scores.
//!
//! # Brief overview
//! * [`recurrence`]: the Gotoh cell update every kernel shares.
//! * [`layout`]: the packed formats and the `#[repr(C)]` parameter blocks that
//!   the host fills in and the kernels read.
//! * [`warp`]: thread index, shuffles, votes — real on the GPU, emulated on the host.
//! * [`simt`]: the inter-task kernel (one thread per database sequence).
//! * [`simt_i16x2`]: the same with 16-bit scores, two database sequences
//!   per thread (DPX on Hopper), out-of-range scores rescued in 32 bits.
//! * [`query_group_i32`]: that rescue, for every 16-bit kernel: a warp per
//!   sequence out of range, the query's rows in the lanes, i32 scores.
//! * [`group_i16x2`]: CUDASW++ 4.0's mapping: a group of lanes per pair of
//!   database sequences, residues in registers, the query streamed through
//!   the group by shuffles, 16-bit scores (DPX on Hopper).
//! * [`query_group_i16x2`]: the same groups with the roles swapped: the
//!   query's columns in the lanes, the database streamed through them, the
//!   scores read sixteen at a time from a query profile in shared memory.
//! * [`parallelogram`]: NESW's warp-per-pair anti-diagonal kernel.
//! * [`traceback`]: gpu-pairAlign's fill and walk kernels (Blazewicz 2011) (one thread per pair,
//!   alignments with traceback).
//! * [`vector`]: CUDASW++ 2.0's virtualized SIMD vector (a warp or half-warp
//!   as one vector register; the host holds all lanes in an array).
//! * [`striped`]: the basic vectorized kernel (Farrar striped, lazy-F loop,
//!   column state in global memory).
//! * [`partitioned`]: the partitioned vectorized kernel (column state of a
//!   query partition in registers).
#![cfg_attr(target_arch = "nvptx64", no_std)]
#![feature(portable_simd)]
// Entry points named after the configuration they specialise (`${concat(..)}`).
#![feature(macro_metavar_expr_concat)]
#![cfg_attr(
    target_arch = "nvptx64",
    feature(
        abi_ptx,
        stdarch_nvptx,
        link_llvm_intrinsics,
        asm_experimental_arch,
        core_intrinsics,
        gpu_launch_sized_workgroup_mem,
        gpu_intrinsics
    )
)]
#![cfg_attr(target_arch = "nvptx64", allow(internal_features))]
#![deny(missing_docs)]

pub mod group_i16x2;
pub mod layout;
pub mod parallelogram;
pub mod partitioned;
pub mod query_group_i16x2;
pub mod query_group_i32;
pub mod recurrence;
pub mod simt;
pub mod simt_i16x2;
pub mod striped;
pub mod traceback;
pub mod vector;
pub mod warp;

/// Every entry point whose launch bounds `host/build.rs` writes into the
/// PTX, as (symbol, `.maxntid`, `.maxnreg`) for `sm_90` (`hopper`) or
/// `sm_80`: the group and the query-group configurations (blocks of
/// [`group_i16x2::BLOCK_THREADS`], each configuration's register cap) and
/// the rescue (blocks of [`query_group_i32::BLOCK_WARPS`] warps, which
/// must fit a multiprocessor's registers).
#[cfg(not(target_arch = "nvptx64"))]
pub fn launch_bounds(hopper: bool) -> Vec<(&'static str, u32, u32)> {
    let block = group_i16x2::BLOCK_THREADS;
    let rescue_block = (query_group_i32::BLOCK_WARPS * query_group_i32::LANES) as u32;
    group_i16x2::CONFIGS
        .iter()
        .map(|c| (c.symbol, block, c.max_registers(hopper)))
        .chain(query_group_i16x2::CONFIGS.iter().flat_map(|c| {
            let registers = c.max_registers(hopper);
            c.symbols().map(move |symbol| (symbol, block, registers))
        }))
        .chain([(
            query_group_i32::SYMBOL,
            rescue_block,
            (65_536 / rescue_block).min(255),
        )])
        .collect()
}

#[cfg(target_arch = "nvptx64")]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    // SAFETY: `trap` aborts the kernel; the host sees a launch failure.
    unsafe { core::arch::nvptx::trap() }
}
