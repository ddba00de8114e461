//! The 32-bit rescue that follows every 16-bit kernel
//! (`gpu_kernels::query_group_i32`, after CUDASW++ 4.0's recomputation of
//! the alignments its 16-bit kernels could not finish, Schmidt 2024): a
//! block of warps per sequence whose score is above the 16-bit limit,
//! launched on a chunk after the 16-bit kernel with the SIMT kernels'
//! arguments (the sequential profile and the row buffer), where a score
//! can be above it ([`needed`]). Not a kernel of its own for
//! `--kernel`: the 16-bit kernels' adapters launch it.

use cudarc::driver::LaunchConfig;
use gpu_kernels::layout::SimtParams;
use gpu_kernels::query_group_i32::{BLOCK_WARPS, LANES, SHARED_BYTES, rescue_emulated};
use gpu_kernels::recurrence::Gaps;
use gpu_kernels::simt_i16x2::SCORE_LIMIT;
use gpu_kernels::vector::HostVector;

use super::simt::with_chunk_params;
use crate::db::PackedChunk;
use crate::kernel::launch::ChunkLaunch;

/// The rescue's entry point.
pub const SYMBOL: &str = gpu_kernels::query_group_i32::SYMBOL;

/// Blocks and warps of a block of an emulated rescue: any numbers give the
/// same scores; a few, so that the tests stride through the chunk as the
/// GPU's blocks do and hand rows from warp to warp around the block.
const EMULATED_BLOCKS: usize = 5;
const EMULATED_WARPS: usize = 3;

/// Whether a 16-bit launch on `l`'s chunk may leave a score for the
/// rescue: only if some pair can score above the 16-bit limit, the
/// matrix's best score times the shorter of the query and the chunk's
/// longest sequence. Otherwise every 16-bit score is exact (a real H is at
/// most that bound, `gpu_kernels::simt_i16x2`'s overflow argument) and the
/// rescue's launch is left out: one launch a chunk fewer for every query
/// of up to 2,967 residues with BLOSUM62, and for every chunk of
/// sequences that short.
pub fn needed(l: &ChunkLaunch<'_>) -> bool {
    may_exceed_limit(l.query_len(), l.longest(), l.max_score())
}

/// Whether a query of `query_len` residues may score above the 16-bit
/// limit against a sequence of at most `longest` residues with a matrix
/// whose best score is `max_score`.
fn may_exceed_limit(query_len: usize, longest: usize, max_score: i32) -> bool {
    let cells = query_len.min(longest) as i64;
    i64::from(max_score.max(0)) * cells > i64::from(SCORE_LIMIT)
}

/// The rescue's launch on a GPU of `sm_count` multiprocessors: a block of
/// [`BLOCK_WARPS`] warps a multiprocessor (its registers hold one), the
/// blocks looking after the chunk's sequences between them.
pub fn grid(sm_count: usize) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (sm_count.max(1) as u32, 1, 1),
        block_dim: ((BLOCK_WARPS * LANES) as u32, 1, 1),
        shared_mem_bytes: SHARED_BYTES as u32,
    }
}

/// The rescue on the host, as its launch runs on the GPU: every score of
/// `params.scores` above the 16-bit limit realigned in 32 bits.
///
/// # Safety
/// `params` meets `gpu_kernels::query_group_i32::align_pass`'s duties: the
/// buffers of a SIMT launch over a chunk, its scores those of a 16-bit
/// kernel.
pub unsafe fn run_emulated(params: &SimtParams) {
    // SAFETY: the caller's duties.
    unsafe { rescue_emulated::<HostVector<LANES>>(params, EMULATED_BLOCKS, EMULATED_WARPS) };
}

/// The rescue's launch on `chunk` on the host: `scores` (a 16-bit
/// kernel's, one per sequence of the chunk) with every score above the
/// 16-bit limit realigned in 32 bits, `sequential` the query's sequential
/// profile ([`crate::profile::sequential_profile`]).
pub fn run_chunk(chunk: &PackedChunk, sequential: &[u32], gaps: Gaps, scores: &[i32]) -> Vec<i32> {
    assert_eq!(scores.len(), chunk.sequences(), "one score per sequence");
    with_chunk_params(chunk, sequential, gaps, |params| {
        // SAFETY: `with_chunk_params` allocates a SIMT launch's buffers for
        // the chunk and the profile, its scores one per sequence as
        // `scores` (checked above).
        unsafe {
            std::slice::from_raw_parts_mut(params.scores, scores.len()).copy_from_slice(scores);
            run_emulated(params);
        }
    })
}

#[cfg(test)]
mod tests {
    use super::may_exceed_limit;

    /// BLOSUM62's best score is 11: 2,967 cells reach 32,637, within the
    /// limit; 2,968 may not be.
    #[test]
    fn the_rescue_runs_only_where_a_score_can_leave_16_bits() {
        assert!(!may_exceed_limit(2_967, 35_000, 11));
        assert!(may_exceed_limit(2_968, 35_000, 11));
        assert!(!may_exceed_limit(35_000, 2_967, 11));
        assert!(may_exceed_limit(35_000, 2_968, 11));
        assert!(!may_exceed_limit(5, 35_000, 127));
        assert!(!may_exceed_limit(1_000_000, 1_000_000, 0));
        assert!(!may_exceed_limit(1_000_000, 1_000_000, -3));
    }
}
