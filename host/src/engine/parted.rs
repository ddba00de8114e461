//! A database larger than a GPU's memory: kept packed on the host and
//! uploaded part by part for every batch of queries (as many as 256 MiB of
//! scores allow), each part scored for the whole batch on the GPU with
//! the ordinary [`GpuEngine`] on a stream of its own, and dropped after its
//! scores are read.
//!
//! Double buffering (seed 001, IV-D): while part k's kernels run, part k + 1
//! is uploaded on its own stream, so every part but the first costs the GPU
//! no upload time when the kernels take longer than the copy. Two parts are
//! resident at a time, so a part gets a quarter of the free memory. Every
//! batch pays the upload of the whole database (about 25 GB/s over PCIe 5).
//! Checked against the reference on an H100 with a forced small budget
//! (`tests/gpu.rs`, `gpu_parted_engine_matches_reference`, double buffering
//! and batches included; benches/RESULTS.md run 11).

use std::borrow::Cow;

use rayon::prelude::*;

use super::gpu::{GpuEngine, MAX_CHUNK_SEQUENCES, plan_for, sorted_lengths};
use super::{Engine, Kernel};
use crate::db::{ChunkLimits, Database, PackedChunk, group_parts};
use crate::error::Result;
use crate::scoring::Scoring;

/// Score vectors a search batch may hold on the host (256 MiB): the batch
/// whose queries share each part's upload.
const BATCH_SCORE_BYTES: usize = 1 << 28;

/// GPU `ordinal` searching a database it cannot hold at once.
pub struct PartedGpuEngine {
    ordinal: usize,
    /// The packed chunks, grouped into parts that fit the device.
    parts: Vec<Vec<PackedChunk>>,
    sequences: usize,
    scoring: Scoring,
    kernel: Kernel,
}

impl PartedGpuEngine {
    /// Packs `db` in chunks for GPU `ordinal`, which has `free` bytes free,
    /// and groups them into parts of at most a quarter of that (two parts
    /// are resident at once).
    pub fn new(
        ordinal: usize,
        db: &Database,
        scoring: Scoring,
        kernel: Kernel,
        free: usize,
    ) -> Result<PartedGpuEngine> {
        // A chunk and its row buffer in an eighth of the memory, a part's
        // residues in a quarter: two parts and their row buffers in 3/4.
        let limits = ChunkLimits {
            max_sequences: MAX_CHUNK_SEQUENCES,
            max_bytes: (free / 8).max(1 << 20),
        };
        let plan = plan_for(kernel, &sorted_lengths(db), limits);
        let chunks: Vec<PackedChunk> = plan
            .into_par_iter()
            .map(|range| PackedChunk::pack(db, range))
            .collect();
        let bytes: Vec<usize> = chunks.iter().map(PackedChunk::device_bytes).collect();
        // The parts are consecutive runs of chunks.
        let mut chunks = chunks.into_iter();
        let parts = group_parts(&bytes, free / 4)
            .into_iter()
            .map(|part| chunks.by_ref().take(part.len()).collect())
            .collect();
        Ok(PartedGpuEngine {
            ordinal,
            parts,
            sequences: db.len(),
            scoring,
            kernel,
        })
    }
}

impl Engine for PartedGpuEngine {
    fn description(&self) -> String {
        format!(
            "GPU {}, kernel {}; database streamed in {} parts per batch of queries (it does not fit in the GPU's memory)",
            self.ordinal,
            self.kernel,
            self.parts.len()
        )
    }

    fn score_all(&mut self, query: &[u8]) -> Result<Vec<i32>> {
        let mut scores = self.score_batch(&[query])?;
        Ok(scores.pop().expect("one query, one score vector"))
    }

    fn batch_len(&self) -> usize {
        (BATCH_SCORE_BYTES / (4 * self.sequences.max(1))).max(1)
    }

    fn score_batch(&mut self, queries: &[&[u8]]) -> Result<Vec<Vec<i32>>> {
        let open = |part: &[PackedChunk]| {
            GpuEngine::with_chunks_on_own_stream(
                self.ordinal,
                self.sequences,
                self.scoring.clone(),
                self.kernel,
                part.iter().map(Cow::Borrowed),
            )
        };
        let mut scores = vec![vec![0; self.sequences]; queries.len()];
        let mut parts = self.parts.iter();
        let Some(first) = parts.next() else {
            return Ok(scores);
        };
        let mut current = (first, open(first)?);
        loop {
            let (part, engine) = &mut current;
            let mut next = None;
            for (k, (query, out)) in queries.iter().zip(scores.iter_mut()).enumerate() {
                engine.launch_all(query)?;
                if k == 0 {
                    // The next part goes up while this one's kernels run.
                    next = parts.next().map(|p| open(p).map(|e| (p, e))).transpose()?;
                }
                let part_scores = engine.read_scores()?;
                for chunk in part.iter() {
                    out[chunk.range.clone()].copy_from_slice(&part_scores[chunk.range.clone()]);
                }
            }
            if queries.is_empty() {
                next = parts.next().map(|p| open(p).map(|e| (p, e))).transpose()?;
            }
            match next {
                Some(next) => current = next,
                None => return Ok(scores),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::tests::record;
    use crate::matrix::ScoreMatrix;
    use crate::scoring::GapPenalty;

    #[test]
    fn parts_cover_the_database_in_order_within_the_budget() {
        let db = Database::from_records(
            (0..3000)
                .map(|k| record(&format!("s{k}"), &vec![(k % 20) as u8; 50 + k % 700]))
                .collect(),
        );
        let scoring = Scoring {
            matrix: ScoreMatrix::by_name("blosum62").unwrap(),
            gaps: GapPenalty::new(11, 1).unwrap(),
        };
        let free = 400_000;
        let engine = PartedGpuEngine::new(0, &db, scoring, Kernel::Simt, free).unwrap();
        assert!(engine.parts.len() > 1);
        let mut next = 0;
        for part in &engine.parts {
            let bytes: usize = part.iter().map(PackedChunk::device_bytes).sum();
            assert!(bytes <= free / 4 || part.len() == 1);
            for chunk in part {
                assert_eq!(chunk.range.start, next);
                next = chunk.range.end;
            }
        }
        assert_eq!(next, db.len());
    }
}
