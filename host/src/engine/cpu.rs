//! The CPU engine: one rayon task per chunk. It is what runs when there is
//! no GPU, and what CI uses to test the kernels.
//!
//! A database of a few chunks leaves threads idle for one query, so the
//! engine takes its queries in batches ([`cpu_batch_len`]) and scores
//! them side by side, a task per query and chunk; each query's scores are
//! those it gets alone.
//!
//! Many queries against a database of fewer sequences than one chunk holds
//! (a few dozen proteins searched with hundreds) would fill a fraction of
//! the lanes, a chunk a query; there the SIMD kernel swaps the roles
//! ([`swaps_roles`]): the batch's queries become the packed sequences,
//! a vector's lanes of them at a time, and each database sequence the
//! query. A local alignment's score does not change when its two sequences
//! trade places (every matrix warpsw accepts is symmetric, and a gap costs
//! the same in either sequence), so each query's scores are those it gets
//! alone.
//!
//! `simt` (and `auto`, whose plan on a CPU is `simt`) runs its inter-sequence
//! SIMD form ([`crate::kernel::inter_sequence_narrow`]): database sequences
//! in the 8-bit lanes of a vector (64 with AVX-512BW, else 32,
//! [`inter_sequence_narrow::lanes`]), in 16 and then 32 bits
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

/// Sequences per CPU chunk: two vectors of the kernel's lanes on this CPU
/// ([`inter_sequence_narrow::lanes`], chosen at run time), so that no lane
/// idles (chunks of 16 left half of the 32 lanes empty) and a query's
/// score tables, built once a chunk, serve two vectors; small, so that the
/// thread-interleaved layout stays within a few cache lines per column
/// (benches/RESULTS.md, 2026-11-28: 41 GCUPS against 39.5 with one vector
/// a chunk, 20.5 with half of one; 32 lanes).
fn cpu_chunk_sequences() -> usize {
    2 * inter_sequence_narrow::lanes()
}

/// [`ChunkLimits::chunk_bytes`] of a CPU chunk of several sequences at
/// most: a chunk is padded to its longest sequence, so a very long sequence
/// (a few million residues) is packed alone rather than with a chunk of
/// others each padded to its length. Ordinary databases are untouched.
const CPU_CHUNK_BYTES: usize = 256 << 20;

/// Tasks (a query against a chunk) a batch aims to give each thread:
/// enough that uneven chunks even out.
const TASKS_PER_THREAD: usize = 8;

/// The longest database sequence the swapped roles take as a query: its
/// profile is a few bytes a residue per residue code, so a sequence of
/// millions of residues stays a database sequence.
const SWAP_MAX_SEQUENCE: usize = 1 << 16;

/// Whether the CPU engine running `plan` swaps the roles of a batch's
/// queries and the database's `sequences` sequences, the longest of
/// `longest` residues (module docs): with the SIMD kernel only (the
/// others stand for their GPU launches), where the database fills less
/// than one chunk.
///
/// ```
/// use host::engine::cpu::swaps_roles;
/// use host::kernel::{Kernel, Plan};
/// assert!(swaps_roles(&Plan::one(Kernel::Simt), 16, 500));
/// // Two vectors of 64 lanes with AVX-512BW, of 32 without.
/// assert!(!swaps_roles(&Plan::one(Kernel::Simt), 128, 500));
/// assert!(!swaps_roles(&Plan::one(Kernel::Simt), 16, 1 << 20));
/// assert!(!swaps_roles(&Plan::one(Kernel::SimtI16x2), 16, 500));
/// ```
pub fn swaps_roles(plan: &Plan, sequences: usize, longest: usize) -> bool {
    plan.kernels() == [Kernel::Simt]
        && sequences > 0
        && sequences < cpu_chunk_sequences()
        && longest <= SWAP_MAX_SEQUENCE
}

/// `db` in CPU chunks (in parallel): the database's, or a batch's queries
/// packed for the swapped roles.
fn pack_chunks(db: &Database) -> Vec<PackedChunk> {
    let lengths: Vec<usize> = (0..db.len()).map(|i| db.length(i)).collect();
    let limits = ChunkLimits {
        max_sequences: cpu_chunk_sequences(),
        max_bytes: CPU_CHUNK_BYTES,
    };
    plan_chunks(&lengths, limits)
        .into_par_iter()
        .map(|range| PackedChunk::pack(db, range))
        .collect()
}

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
        let chunks = pack_chunks(&db);
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
                inter_sequence_narrow::lanes(),
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

    /// With the roles swapped, chunks of queries: as many as give every
    /// thread [`TASKS_PER_THREAD`] tasks, a task a database sequence and
    /// chunk.
    fn batch_len(&self) -> usize {
        let threads = rayon::current_num_threads();
        if self.swaps_roles() {
            let chunks = (TASKS_PER_THREAD * threads).div_ceil(self.db.len());
            return (chunks * cpu_chunk_sequences())
                .min(super::multi::batch_len_for(self.db.len()));
        }
        cpu_batch_len(self.chunks.len(), threads, self.db.len())
    }

    /// The queries side by side, each over every chunk (module docs), or
    /// with the roles swapped.
    fn score_batch_reporting(
        &mut self,
        queries: &[&[u8]],
        progress: &(dyn Fn(u64) + Sync),
    ) -> Result<Vec<Vec<i32>>> {
        if self.swaps_roles() && queries.len() > 1 {
            return self.score_swapped(queries, progress);
        }
        queries
            .par_iter()
            .map(|q| self.score_reporting(q, progress))
            .collect()
    }
}

impl CpuEngine {
    /// [`swaps_roles`] for this engine's plan and database.
    fn swaps_roles(&self) -> bool {
        // Sorted longest first.
        let longest = if self.db.is_empty() {
            0
        } else {
            self.db.length(0)
        };
        swaps_roles(&self.plan, self.db.len(), longest)
    }

    /// `queries`' scores with the roles swapped (module docs): the queries
    /// packed as a database, each database sequence aligned to them as a
    /// query, the scores turned back to one row a query (the database's
    /// sorted order, as [`Engine::score_all`] gives them).
    fn score_swapped(
        &self,
        queries: &[&[u8]],
        progress: &(dyn Fn(u64) + Sync),
    ) -> Result<Vec<Vec<i32>>> {
        let gaps = self.scoring.gaps.kernel_gaps();
        let records = queries
            .iter()
            .enumerate()
            .map(|(i, q)| crate::fasta::Record {
                id: i.to_string(),
                description: String::new(),
                codes: q.to_vec(),
            })
            .collect();
        let packed = Database::from_records(records);
        let chunks = pack_chunks(&packed);
        // Row `j`: database sequence `j` against every query, in the
        // packed queries' sorted order.
        let rows: Vec<Vec<i32>> = (0..self.db.len())
            .into_par_iter()
            .map(|j| {
                let sequence = self.db.sequence(j);
                let profile = Kernel::Simt.profile(sequence, &self.scoring.matrix);
                let per_chunk = chunks
                    .par_iter()
                    .map(|chunk| {
                        let scores = Kernel::Simt.run_cpu(chunk, &profile, gaps)?;
                        progress(sequence.len() as u64 * chunk.residues());
                        Ok(scores)
                    })
                    .collect::<Result<Vec<Vec<i32>>>>()?;
                Ok(packed.to_input_order(&per_chunk.concat()))
            })
            .collect::<Result<_>>()?;
        Ok((0..queries.len())
            .map(|q| rows.iter().map(|row| row[q]).collect())
            .collect())
    }

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
                progress(query.len() as u64 * chunk.residues());
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
