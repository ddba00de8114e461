//! The CPU engine: one rayon task per chunk. It is what runs when there is
//! no GPU, and what CI uses to test the kernels.
//!
//! A database of a few chunks leaves threads idle for one query, so the
//! engine takes its queries in batches ([`cpu_batch_len`]) and scores
//! them side by side, a task per query and chunk; each query's scores are
//! those it gets alone.
//!
//! `simt` (and `auto`, whose plan on a CPU is `simt`) runs its inter-sequence
//! SIMD form ([`crate::kernel::inter_sequence_narrow`]): thirty-two database
//! sequences in the 8-bit lanes of a vector, in 16 and then 32 bits
//! ([`crate::kernel::inter_sequence`]) where a score needs them. Every other
//! kernel runs its own source compiled for the host, the warp emulated
//! (`gpu_kernels::vector::HostVector`), as engineers comparing variants on a
//! machine without a GPU expect.

use std::sync::Arc;

use rayon::prelude::*;

use super::Engine;
use crate::db::{ChunkLimits, Database, PackedChunk, plan_chunks};
use crate::error::{Error, Result};
use crate::kernel::{Kernel, Plan, inter_sequence, inter_sequence_narrow};
use crate::scoring::Scoring;

/// Sequences per CPU chunk: two vectors of the kernel's lanes, so that no
/// lane idles (chunks of 16 left half of the 32 lanes empty) and a query's
/// score tables, built once a chunk, serve two vectors; small, so that the
/// thread-interleaved layout stays within a few cache lines per column
/// (benches/RESULTS.md, 2026-11-28: 41 GCUPS against 39.5 with one vector
/// a chunk, 20.5 with half of one).
const CPU_CHUNK_SEQUENCES: usize = 2 * inter_sequence_narrow::LANES;

/// [`ChunkLimits::chunk_bytes`] of a CPU chunk of several sequences at
/// most: a chunk is padded to its longest sequence, so a very long sequence
/// (a few million residues) is packed alone rather than with fifteen others
/// each padded to its length. Ordinary databases are untouched.
const CPU_CHUNK_BYTES: usize = 256 << 20;

/// Tasks (a query against a chunk) a batch aims to give each thread:
/// enough that uneven chunks even out.
const TASKS_PER_THREAD: usize = 8;

/// Queries the CPU engine scores side by side over `chunks` chunks of a
/// database of `sequences` sequences with `threads` threads: one where the
/// chunks alone give every thread [`TASKS_PER_THREAD`] tasks, else as many
/// as do, within [`super::multi::batch_len_for`]'s memory for scores.
///
/// ```
/// use host::engine::cpu::cpu_batch_len;
/// assert_eq!(cpu_batch_len(250, 16, 4_000), 1);
/// assert_eq!(cpu_batch_len(2, 16, 20), 64);
/// ```
pub fn cpu_batch_len(chunks: usize, threads: usize, sequences: usize) -> usize {
    (TASKS_PER_THREAD * threads)
        .div_ceil(chunks.max(1))
        .min(super::multi::batch_len_for(sequences))
        .max(1)
}

/// Runs the kernels on the host's cores.
pub struct CpuEngine {
    db: Arc<Database>,
    chunks: Vec<PackedChunk>,
    scoring: Scoring,
    plan: Plan,
}

impl CpuEngine {
    /// Packs `db` for the CPU (in parallel) to score it by `plan`.
    pub fn new(db: Arc<Database>, scoring: Scoring, plan: Plan) -> CpuEngine {
        let lengths: Vec<usize> = (0..db.len()).map(|i| db.length(i)).collect();
        let limits = ChunkLimits {
            max_sequences: CPU_CHUNK_SEQUENCES,
            max_bytes: CPU_CHUNK_BYTES,
        };
        let chunks = plan_chunks(&lengths, limits)
            .into_par_iter()
            .map(|range| PackedChunk::pack(&db, range))
            .collect();
        CpuEngine {
            db,
            chunks,
            scoring,
            plan,
        }
    }
}

impl Engine for CpuEngine {
    fn description(&self) -> String {
        let threads = match rayon::current_num_threads() {
            1 => "1 thread".to_string(),
            n => format!("{n} threads"),
        };
        match &self.plan.kernels()[..] {
            [Kernel::Simt] => format!(
                "CPU, {threads}, inter-sequence SIMD ({} x u8 lanes, i16 and {} x i32 beyond)",
                inter_sequence_narrow::LANES,
                inter_sequence::LANES
            ),
            _ => format!("CPU, {threads}, kernel {} (emulated)", self.plan),
        }
    }

    fn database_residues(&self) -> u64 {
        self.db.total_residues()
    }

    fn score_all(&mut self, query: &[u8]) -> Result<Vec<i32>> {
        self.score_reporting(query, &|_| ())
    }

    fn batch_len(&self) -> usize {
        cpu_batch_len(
            self.chunks.len(),
            rayon::current_num_threads(),
            self.db.len(),
        )
    }

    /// The queries side by side, each over every chunk (module docs).
    fn score_batch_reporting(
        &mut self,
        queries: &[&[u8]],
        progress: &(dyn Fn(u64) + Sync),
    ) -> Result<Vec<Vec<i32>>> {
        queries
            .par_iter()
            .map(|q| self.score_reporting(q, progress))
            .collect()
    }
}

impl CpuEngine {
    /// Scores `query`, telling `progress` each chunk's cells once it is done.
    fn score_reporting(&self, query: &[u8], progress: &(dyn Fn(u64) + Sync)) -> Result<Vec<i32>> {
        let gaps = self.scoring.gaps.kernel_gaps();
        let kernels = self.plan.kernels_for_query(query.len());
        let profiles: Vec<(Kernel, Vec<u32>)> = kernels
            .iter()
            .map(|&k| (k, k.profile(query, &self.scoring.matrix)))
            .collect();
        let per_chunk: Vec<Vec<i32>> = self
            .chunks
            .par_iter()
            .map(|chunk| {
                let kernel = self
                    .plan
                    .kernel_for(query.len(), chunk.longest(), chunk.sequences());
                let (_, profile) = profiles
                    .iter()
                    .find(|(k, _)| *k == kernel)
                    .ok_or_else(|| Error::Internal(format!("no {kernel} profile")))?;
                let scores = kernel.run_cpu(chunk, profile, gaps)?;
                let residues: u64 = chunk.lengths.iter().map(|&n| u64::from(n)).sum();
                progress(query.len() as u64 * residues);
                Ok(scores)
            })
            .collect::<Result<_>>()?;
        let mut scores = Vec::with_capacity(self.db.len());
        for chunk_scores in per_chunk {
            scores.extend(chunk_scores);
        }
        Ok(scores)
    }
}
