//! Adapter of NESW's parallelogram kernel (Dohi 2010,
//! `gpu_kernels::parallelogram`): one warp per database sequence, lane =
//! query row; the sequential profile and SIMT's parameter block.

use gpu_kernels::layout::NUM_CODES;
use gpu_kernels::parallelogram;
use gpu_kernels::recurrence::Gaps;
use gpu_kernels::vector::HostVector;

use super::simt::{SimtArgs, with_chunk_params};
use super::{Adapter, Handoff};
use crate::db::PackedChunk;
use crate::error::Result;
use crate::kernel::launch::{ChunkLaunch, VECTOR_BLOCK, vector_grid};
use crate::matrix::ScoreMatrix;
use crate::profile::sequential_profile;

/// The parallelogram kernel with one hand-off.
pub(crate) struct Parallelogram {
    handoff: Handoff,
}

impl Parallelogram {
    pub(crate) const SHUFFLES: Parallelogram = Parallelogram {
        handoff: Handoff::Shuffles,
    };
    pub(crate) const SHARED_MEMORY: Parallelogram = Parallelogram {
        handoff: Handoff::SharedMemory,
    };
}

impl Adapter for Parallelogram {
    fn profile(&self, query: &[u8], matrix: &ScoreMatrix) -> Vec<u32> {
        sequential_profile(query, matrix)
    }

    fn run_emulated(&self, chunk: &PackedChunk, profile: &[u32], gaps: Gaps) -> Result<Vec<i32>> {
        Ok(run_parallelogram_chunk(chunk, profile, gaps, self.handoff))
    }

    fn launch(&self, l: &ChunkLaunch<'_>) -> Result<()> {
        let threads = l.sequences();
        let query_words = l.profile_words() / NUM_CODES;
        l.check_sizes(
            l.profile_words() == NUM_CODES * query_words
                && query_words.is_multiple_of(gpu_kernels::simt::STRIP / 4)
                && l.row_buffer_pairs() >= l.words_per_sequence() * 4 * threads,
        )?;
        let shared_memory = match self.handoff {
            Handoff::Shuffles => 0,
            // Slots for every warp of the block.
            Handoff::SharedMemory => {
                VECTOR_BLOCK as usize / 32 * parallelogram::SMEM_BYTES_PER_WARP
            }
        };
        let args = SimtArgs::new(l, None, query_words, threads)?;
        // SAFETY: `sw_parallelogram_*`'s duties are checked above and by the
        // configuration: one warp per sequence in blocks of whole warps,
        // shared memory for every warp of the block for `_smem`; the buffers
        // have the sizes the chunk requires; launches run in stream order.
        unsafe {
            args.launch(
                l,
                l.symbol(),
                vector_grid(threads * 32, shared_memory as u32),
            )
        }
    }
}

/// Runs `sw_parallelogram_shfl` (or `_smem`) over one chunk on the host, as
/// one launch would: one 32-lane vector per sequence, in turn.
///
/// `profile` must come from [`crate::profile::sequential_profile`].
pub fn run_parallelogram_chunk(
    chunk: &PackedChunk,
    profile: &[u32],
    gaps: Gaps,
    handoff: Handoff,
) -> Vec<i32> {
    with_chunk_params(chunk, profile, gaps, |params| {
        type Warp = HostVector<{ parallelogram::BAND }>;
        for t in 0..params.threads {
            // SAFETY: the parameter block's buffers have the sizes the
            // kernel requires (`with_chunk_params`); the slots are this
            // emulated warp's own.
            unsafe {
                match handoff {
                    Handoff::SharedMemory => {
                        let mut slots = [0i32; 2 * parallelogram::BAND];
                        let mut handoff = parallelogram::SharedMemory::new(slots.as_mut_ptr());
                        parallelogram::align_sequence::<Warp, _>(params, t, &mut handoff)
                    }
                    Handoff::Shuffles => parallelogram::align_sequence::<Warp, _>(
                        params,
                        t,
                        &mut parallelogram::Shuffles,
                    ),
                }
            }
        }
    })
}
