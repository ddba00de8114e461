//! The CPU engine: one rayon task per chunk. It is what runs when there is
//! no GPU, and what CI uses to test the kernels.
//!
//! `simt` and `auto` run [`super::inter_sequence`]: the SIMT kernel with
//! sixteen of its threads in the lanes of one SIMD vector (on a CPU there is
//! no GPU to fill, so `auto`'s warp stage would only cost time). Every other
//! kernel runs its own source compiled for the host, the warp emulated
//! (`gpu_kernels::vector::HostVector`), as engineers comparing variants on a
//! machine without a GPU expect.

use std::sync::Arc;

use gpu_kernels::layout::{NUM_CODES, PartitionedParams, SimtParams, StripedParams};
use gpu_kernels::recurrence::Gaps;
use gpu_kernels::vector::{HostVector, Vector};
use gpu_kernels::{parallelogram, partitioned, simt, simt_i16x2, striped};
use rayon::prelude::*;

use super::{Engine, Kernel, QueryProfile, inter_sequence};
use crate::db::{ChunkLimits, Database, PackedChunk, plan_chunks};
use crate::error::Result;
use crate::scoring::Scoring;

/// Sequences per CPU chunk: small, so that the kernels' thread-interleaved
/// layouts stay within a few cache lines per column.
const CPU_CHUNK_SEQUENCES: usize = 16;

/// Runs the kernels on the host's cores.
pub struct CpuEngine {
    db: Arc<Database>,
    chunks: Vec<PackedChunk>,
    scoring: Scoring,
    kernel: Kernel,
}

impl CpuEngine {
    /// Packs `db` for the CPU (in parallel).
    pub fn new(db: Arc<Database>, scoring: Scoring, kernel: Kernel) -> CpuEngine {
        let lengths: Vec<usize> = (0..db.len()).map(|i| db.length(i)).collect();
        let limits = ChunkLimits {
            max_sequences: CPU_CHUNK_SEQUENCES,
            max_bytes: usize::MAX,
        };
        let chunks = plan_chunks(&lengths, limits)
            .into_par_iter()
            .map(|range| PackedChunk::pack(&db, range))
            .collect();
        CpuEngine {
            db,
            chunks,
            scoring,
            kernel,
        }
    }
}

impl Engine for CpuEngine {
    fn description(&self) -> String {
        let threads = match rayon::current_num_threads() {
            1 => "1 thread".to_string(),
            n => format!("{n} threads"),
        };
        match self.kernel {
            Kernel::Simt | Kernel::Auto { .. } => format!(
                "CPU, {threads}, inter-sequence SIMD ({} x i32 lanes)",
                inter_sequence::LANES
            ),
            kernel => format!("CPU, {threads}, kernel {kernel} (emulated)"),
        }
    }

    fn score_all(&mut self, query: &[u8]) -> Result<Vec<i32>> {
        let gaps = self.scoring.gaps.kernel_gaps();
        // `auto`: the inter-sequence kernel throughout (module docs).
        let kernel = match self.kernel {
            Kernel::Auto { .. } => Kernel::Simt,
            kernel => kernel,
        };
        let profile = QueryProfile::new(kernel, query, &self.scoring.matrix);
        let per_chunk: Vec<Vec<i32>> = self
            .chunks
            .par_iter()
            .map(|chunk| match (kernel, &profile) {
                (Kernel::Simt, QueryProfile::Sequential(words)) => {
                    inter_sequence::score_chunk(chunk, words, gaps)
                }
                (Kernel::SimtI16x2, QueryProfile::Sequential(words)) => {
                    run_simt_i16x2_chunk(chunk, words, gaps)
                }
                (Kernel::Parallelogram { shared_memory }, QueryProfile::Sequential(words)) => {
                    run_parallelogram_chunk(chunk, words, gaps, shared_memory)
                }
                (Kernel::Striped { vl: 16 }, QueryProfile::Striped(bytes)) => {
                    run_striped_chunk::<HostVector<16>>(chunk, bytes, gaps)
                }
                (Kernel::Striped { vl: 32 }, QueryProfile::Striped(bytes)) => {
                    run_striped_chunk::<HostVector<32>>(chunk, bytes, gaps)
                }
                (Kernel::Partitioned { vl: 16, pl: 256 }, QueryProfile::Partitioned(words)) => {
                    run_partitioned_chunk::<HostVector<16>, 16>(chunk, words, gaps)
                }
                (Kernel::Partitioned { vl: 32, pl: 512 }, QueryProfile::Partitioned(words)) => {
                    run_partitioned_chunk::<HostVector<32>, 16>(chunk, words, gaps)
                }
                (other, _) => unreachable!("{other:?} is not in KERNELS"),
            })
            .collect();
        let mut scores = Vec::with_capacity(self.db.len());
        for chunk_scores in per_chunk {
            scores.extend(chunk_scores);
        }
        Ok(scores)
    }
}

/// Runs `sw_simt_i32` over one chunk on the host, as one launch would on the
/// GPU: same parameter block, same buffers, every thread index in turn.
///
/// `profile` must come from [`crate::profile::sequential_profile`].
pub fn run_simt_chunk(chunk: &PackedChunk, profile: &[u32], gaps: Gaps) -> Vec<i32> {
    with_chunk_params(chunk, profile, gaps, |params| {
        for t in 0..params.threads {
            // SAFETY: `with_chunk_params` allocates the buffers
            // `align_sequence` requires, and threads run one at a time.
            unsafe { simt::align_sequence(params, t) }
        }
    })
}

/// Runs `sw_simt_i16x2` and then `sw_simt_i16x2_rescue` over one chunk on
/// the host, as the GPU engine launches them (or `sw_simt_i32` when the gap
/// penalties do not fit 16 bits, as there).
///
/// `profile` must come from [`crate::profile::sequential_profile`].
pub fn run_simt_i16x2_chunk(chunk: &PackedChunk, profile: &[u32], gaps: Gaps) -> Vec<i32> {
    if !simt_i16x2::gaps_fit(gaps) {
        return run_simt_chunk(chunk, profile, gaps);
    }
    with_chunk_params(chunk, profile, gaps, |params| {
        // SAFETY: as for `run_simt_chunk` (the 16-bit kernel's row buffer is
        // half of it); the gaps fit (checked above); the rescue runs after
        // every pair, as the second launch does on the GPU.
        unsafe {
            for t in 0..params.threads.div_ceil(2) {
                simt_i16x2::align_pair(params, t);
            }
            for t in 0..params.threads {
                simt_i16x2::rescue_sequence(params, t);
            }
        }
    })
}

/// Runs `sw_parallelogram_shfl` (or `_smem`) over one chunk on the host, as
/// one launch would: one 32-lane vector per sequence, in turn.
///
/// `profile` must come from [`crate::profile::sequential_profile`].
pub fn run_parallelogram_chunk(
    chunk: &PackedChunk,
    profile: &[u32],
    gaps: Gaps,
    shared_memory: bool,
) -> Vec<i32> {
    with_chunk_params(chunk, profile, gaps, |params| {
        type Warp = HostVector<{ parallelogram::BAND }>;
        for t in 0..params.threads {
            // SAFETY: as for `run_simt_chunk` (same parameter block); the
            // slots are this emulated warp's own.
            unsafe {
                if shared_memory {
                    let mut slots = [0i32; 2 * parallelogram::BAND];
                    let mut handoff = parallelogram::SharedMemory::new(slots.as_mut_ptr());
                    parallelogram::align_sequence::<Warp, _>(params, t, &mut handoff)
                } else {
                    parallelogram::align_sequence::<Warp, _>(
                        params,
                        t,
                        &mut parallelogram::Shuffles,
                    )
                }
            }
        }
    })
}

/// Allocates the buffers of a launch over `chunk` with the kernels' shared
/// parameter block ([`SimtParams`]), calls `launch` with it (which runs the
/// launch's threads in turn) and returns the scores.
///
/// `profile` must come from [`crate::profile::sequential_profile`].
fn with_chunk_params(
    chunk: &PackedChunk,
    profile: &[u32],
    gaps: Gaps,
    launch: impl FnOnce(&SimtParams),
) -> Vec<i32> {
    let threads = chunk.sequences();
    let query_words = profile.len() / NUM_CODES;
    let mut row_buffer = vec![[0i32; 2]; chunk.words_per_sequence * 4 * threads];
    let mut scores = vec![0i32; threads];
    let params = SimtParams {
        profile: profile.as_ptr(),
        residues: chunk.words.as_ptr(),
        lengths: chunk.lengths.as_ptr(),
        row_buffer: row_buffer.as_mut_ptr(),
        scores: scores.as_mut_ptr(),
        query_words: query_words as u32,
        threads: threads as u32,
        gaps,
    };
    launch(&params);
    scores
}

/// Vectors of an emulated striped launch: a few, so that every vector aligns
/// several sequences (the GPU's persistent loop) in each test.
const STRIPED_EMULATED_VECTORS: usize = 3;

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
