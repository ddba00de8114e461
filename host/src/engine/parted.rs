//! A database larger than a GPU's memory: kept packed on the host and
//! uploaded part by part for every query, each part scored on the GPU with
//! the ordinary [`GpuEngine`] on a stream of its own, and dropped after its
//! scores are read.
//!
//! Double buffering (seed 001, IV-D): while part k's kernels run, part k + 1
//! is uploaded on its own stream, so every part but the first costs the GPU
//! no upload time when the kernels take longer than the copy. Two parts are
//! resident at a time, so a part gets a quarter of the free memory. Every
//! query still pays the upload of the whole database (about 25 GB/s over
//! PCIe 5). Checked against the reference on an H100 with a forced small
//! budget (`tests/gpu.rs`, `gpu_parted_engine_matches_reference`) before the
//! double buffering; the double-buffered version has not run on a GPU yet.

use std::borrow::Cow;

use rayon::prelude::*;

use super::gpu::{GpuEngine, MAX_CHUNK_SEQUENCES, plan_for, sorted_lengths};
use super::{Engine, Kernel};
use crate::db::{ChunkLimits, Database, PackedChunk, group_parts};
use crate::error::Result;
use crate::scoring::Scoring;

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
            "GPU {}, kernel {}; database streamed in {} parts per query (it does not fit in the GPU's memory)",
            self.ordinal,
            self.kernel,
            self.parts.len()
        )
    }

    fn score_all(&mut self, query: &[u8]) -> Result<Vec<i32>> {
        let open = |part: &[PackedChunk]| {
            GpuEngine::with_chunks_on_own_stream(
                self.ordinal,
                self.sequences,
                self.scoring.clone(),
                self.kernel,
                part.iter().map(Cow::Borrowed),
            )
        };
        let mut scores = vec![0; self.sequences];
        let mut parts = self.parts.iter();
        let Some(first) = parts.next() else {
            return Ok(scores);
        };
        let mut current = (first, open(first)?);
        loop {
            let (part, engine) = &mut current;
            engine.launch_all(query)?;
            // The next part goes up while this one's kernels run.
            let next = parts.next().map(|p| open(p).map(|e| (p, e))).transpose()?;
            let part_scores = engine.read_scores()?;
            for chunk in part.iter() {
                scores[chunk.range.clone()].copy_from_slice(&part_scores[chunk.range.clone()]);
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
