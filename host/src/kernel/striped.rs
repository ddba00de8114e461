//! Adapter of CUDASW++ 2.0's basic vectorized kernel (Liu 2010; Farrar's
//! striped algorithm, 2007; `gpu_kernels::striped`): a persistent grid of
//! `VL`-lane vectors, one database sequence at a time each, the striped
//! profile, the column in a global-memory scratch.

use gpu_kernels::layout::{NUM_CODES, StripedParams, striped_segments};
use gpu_kernels::recurrence::Gaps;
use gpu_kernels::striped;
use gpu_kernels::vector::{HostVector, Vector};

use super::Adapter;
use crate::db::PackedChunk;
use crate::error::Result;
use crate::kernel::launch::{ChunkLaunch, WorkBuffer, vector_grid};
use crate::matrix::ScoreMatrix;
use crate::profile::striped_profile;

/// Resident threads per SM the persistent grid aims for (Hopper's maximum);
/// it bounds the scratch to `SM * 2048 / VL` columns.
const STRIPED_THREADS_PER_SM: usize = 2048;

/// Vectors of an emulated launch: a few, so that every vector aligns
/// several sequences (the GPU's persistent loop) in each test.
const STRIPED_EMULATED_VECTORS: usize = 3;

/// The striped kernel on `VL`-lane vectors (16 or 32 on the GPU).
pub(crate) struct Striped<const VL: usize>;

/// Vectors of the persistent grid for a chunk of `threads` sequences.
fn vectors(threads: usize, sm_count: usize, vl: usize) -> usize {
    (sm_count * STRIPED_THREADS_PER_SM / vl).min(threads).max(1)
}

impl<const VL: usize> Adapter for Striped<VL> {
    fn profile(&self, query: &[u8], matrix: &ScoreMatrix) -> Vec<u32> {
        // `VL` bytes a segment row: whole words (VL is a multiple of 4),
        // four bytes a word in memory order.
        striped_profile(query, matrix, VL)
            .chunks(4)
            .map(|b| u32::from_ne_bytes(std::array::from_fn(|k| b.get(k).map_or(0, |&v| v as u8))))
            .collect()
    }

    fn run_emulated(&self, chunk: &PackedChunk, profile: &[u32], gaps: Gaps) -> Result<Vec<i32>> {
        Ok(run_striped_chunk::<HostVector<VL>>(
            chunk,
            bytemuck::cast_slice(profile),
            gaps,
        ))
    }

    fn scratch_pairs(
        &self,
        query_len: usize,
        threads: usize,
        _longest: usize,
        sm_count: usize,
    ) -> usize {
        vectors(threads, sm_count, VL) * striped_segments(query_len, VL) * VL
    }

    fn launch(&self, l: &ChunkLaunch<'_>) -> Result<()> {
        let threads = l.sequences();
        let vectors = vectors(threads, l.sm_count(), VL);
        let segments = striped_segments(l.query_len(), VL);
        l.check_sizes(
            (VL == 16 || VL == 32)
                && 4 * l.profile_words() == NUM_CODES * segments * VL
                && l.scratch_pairs() >= vectors * segments * VL,
        )?;
        let ptrs = l.pointers(WorkBuffer::Scratch)?;
        let params = StripedParams {
            profile: ptrs.profile as *const i8,
            residues: ptrs.residues as *const u32,
            lengths: ptrs.lengths as *const u32,
            scratch: ptrs.buffer as *mut [i32; 2],
            scores: ptrs.scores as *mut i32,
            segments: segments as u32,
            threads: threads as u32,
            vectors: vectors as u32,
            gaps: l.gaps(),
        };
        // SAFETY: `sw_striped_vl*`'s duties are checked above: profile
        // striped for this VL, scratch for `vectors` vectors, residues,
        // lengths and scores sized by the chunk; the block size is a multiple
        // of 32 and the grid covers `vectors` vectors; launches run in stream
        // order, so the scratch is never shared by two launches.
        unsafe {
            l.launch_params(
                l.symbol(),
                &params,
                vector_grid(vectors * VL, 0),
                "running the striped kernel",
            )
        }
    }
}

/// Runs a striped kernel (`sw_striped_vl*`, `VL = V::VL`) over one chunk on
/// the host, as one launch would: same parameter block and buffers, every
/// vector in turn.
///
/// `profile` must come from [`crate::profile::striped_profile`] with `vl = V::VL`.
pub fn run_striped_chunk<V: Vector>(chunk: &PackedChunk, profile: &[i8], gaps: Gaps) -> Vec<i32> {
    let threads = chunk.sequences();
    let segments = profile.len() / (NUM_CODES * V::VL);
    assert_eq!(profile.len(), NUM_CODES * segments * V::VL, "profile size");
    let vectors = threads.clamp(1, STRIPED_EMULATED_VECTORS);
    let mut scratch = vec![[0i32; 2]; vectors * segments * V::VL];
    let mut scores = vec![0i32; threads];
    let params = StripedParams {
        profile: profile.as_ptr(),
        residues: chunk.words.as_ptr(),
        lengths: chunk.lengths.as_ptr(),
        scratch: scratch.as_mut_ptr(),
        scores: scores.as_mut_ptr(),
        segments: segments as u32,
        threads: threads as u32,
        vectors: vectors as u32,
        gaps,
    };
    for w in 0..vectors as u32 {
        // SAFETY: the profile has NUM_CODES * segments * VL entries (checked),
        // the scratch `vectors * segments * VL` pairs, the chunk's words and
        // lengths come from `PackedChunk::pack`; vectors run one at a time.
        unsafe { striped::align_vector::<V>(&params, w) };
    }
    scores
}
