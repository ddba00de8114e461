//! The CPU engine: the kernels' own source compiled for the host, one rayon
//! task per chunk. It is what runs when there is no GPU, and what CI uses to
//! test the kernels.

use std::sync::Arc;

use gpu_kernels::layout::SimtParams;
use gpu_kernels::recurrence::Gaps;
use gpu_kernels::simt;
use rayon::prelude::*;

use super::{Engine, Kernel};
use crate::db::{ChunkLimits, Database, PackedChunk, plan_chunks};
use crate::error::Result;
use crate::profile::sequential_profile;
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
        format!(
            "CPU, {} threads, kernel {} (emulated)",
            rayon::current_num_threads(),
            self.kernel
        )
    }

    fn score_all(&mut self, query: &[u8]) -> Result<Vec<i32>> {
        let profile = sequential_profile(query, &self.scoring.matrix);
        let gaps = self.scoring.gaps.kernel_gaps();
        let per_chunk: Vec<Vec<i32>> = self
            .chunks
            .par_iter()
            .map(|chunk| match self.kernel {
                Kernel::Simt => run_simt_chunk(chunk, &profile, gaps),
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
/// `profile` must come from [`sequential_profile`].
pub fn run_simt_chunk(chunk: &PackedChunk, profile: &[u32], gaps: Gaps) -> Vec<i32> {
    let threads = chunk.sequences();
    let query_words = profile.len() / gpu_kernels::layout::NUM_CODES;
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
    for t in 0..threads as u32 {
        // SAFETY: the buffers above have the sizes `align_sequence` requires
        // (the chunk's words and lengths come from `PackedChunk::pack`, the
        // profile from `sequential_profile`), and threads run one at a time.
        unsafe { simt::align_sequence(&params, t) };
    }
    scores
}
