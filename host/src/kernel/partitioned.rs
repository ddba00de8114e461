//! Adapter of CUDASW++ 2.0's partitioned vectorized kernel (Liu 2010,
//! `gpu_kernels::partitioned`): one `VL`-lane vector per database sequence,
//! the query in partitions of `16 * VL` rows whose column state stays in
//! registers; the packed partitioned profile.

use gpu_kernels::layout::{NUM_CODES, PartitionedParams};
use gpu_kernels::partitioned;
use gpu_kernels::recurrence::Gaps;
use gpu_kernels::vector::{HostVector, Vector};

use super::Adapter;
use crate::db::PackedChunk;
use crate::error::Result;
use crate::kernel::launch::{ChunkLaunch, WorkBuffer, vector_grid};
use crate::matrix::ScoreMatrix;
use crate::profile::partitioned_profile;

/// Query rows per lane of a partition: PL = 16 * VL.
const ROWS_PER_LANE: usize = 16;

/// The partitioned kernel on `VL`-lane vectors (16 or 32 on the GPU).
pub(crate) struct Partitioned<const VL: usize>;

impl<const VL: usize> Adapter for Partitioned<VL> {
    fn profile(&self, query: &[u8], matrix: &ScoreMatrix) -> Vec<u32> {
        partitioned_profile(query, matrix, VL, ROWS_PER_LANE * VL)
    }

    fn run_emulated(&self, chunk: &PackedChunk, profile: &[u32], gaps: Gaps) -> Result<Vec<i32>> {
        Ok(run_partitioned_chunk::<HostVector<VL>, ROWS_PER_LANE>(
            chunk, profile, gaps,
        ))
    }

    fn launch(&self, l: &ChunkLaunch<'_>) -> Result<()> {
        let threads = l.sequences();
        let partition_words = NUM_CODES * ROWS_PER_LANE * VL / 4;
        let partitions = l.profile_words() / partition_words;
        // The row buffer needs one pair per residue: `4 * words_per_sequence >= len`.
        l.check_sizes(
            (VL == 16 || VL == 32)
                && l.profile_words() == partitions * partition_words
                && l.row_buffer_pairs() >= l.words_per_sequence() * 4 * threads,
        )?;
        let ptrs = l.pointers(WorkBuffer::Rows)?;
        let params = PartitionedParams {
            profile: ptrs.profile as *const u32,
            residues: ptrs.residues as *const u32,
            lengths: ptrs.lengths as *const u32,
            row_buffer: ptrs.buffer as *mut [i32; 2],
            scores: ptrs.scores as *mut i32,
            partitions: partitions as u32,
            threads: threads as u32,
            gaps: l.gaps(),
        };
        // SAFETY: `sw_partitioned_*`'s duties are checked above: profile
        // packed for this VL/PL, row buffer, residues, lengths and scores
        // sized by the chunk; block size a multiple of 32, one vector per
        // sequence; launches run in stream order (row buffer not shared).
        unsafe {
            l.launch_params(
                l.symbol(),
                &params,
                vector_grid(threads * VL, 0),
                "running the partitioned kernel",
            )
        }
    }
}

/// Runs a partitioned kernel (`sw_partitioned_*`, `VL = V::VL`,
/// `PL = SEGS * VL`) over one chunk on the host, as one launch would.
///
/// `profile` must come from [`crate::profile::partitioned_profile`] with `vl = V::VL` and
/// `pl = SEGS * V::VL`.
pub fn run_partitioned_chunk<V: Vector, const SEGS: usize>(
    chunk: &PackedChunk,
    profile: &[u32],
    gaps: Gaps,
) -> Vec<i32> {
    assert!(SEGS.is_multiple_of(4), "SEGS must be a multiple of 4");
    let threads = chunk.sequences();
    let partition_words = SEGS * V::VL / 4;
    let partitions = profile.len() / (NUM_CODES * partition_words);
    assert_eq!(
        profile.len(),
        NUM_CODES * partitions * partition_words,
        "profile size"
    );
    let mut row_buffer = vec![[0i32; 2]; chunk.words_per_sequence * 4 * threads];
    let mut scores = vec![0i32; threads];
    let params = PartitionedParams {
        profile: profile.as_ptr(),
        residues: chunk.words.as_ptr(),
        lengths: chunk.lengths.as_ptr(),
        row_buffer: row_buffer.as_mut_ptr(),
        scores: scores.as_mut_ptr(),
        partitions: partitions as u32,
        threads: threads as u32,
        gaps,
    };
    for t in 0..threads as u32 {
        // SAFETY: the profile size is checked above; the row buffer holds
        // `words_per_sequence * 4 >= len` pairs per sequence; the chunk's
        // words and lengths come from `PackedChunk::pack`; one vector at a time.
        unsafe { partitioned::align_sequence::<V, SEGS>(&params, t) };
    }
    scores
}
