//! A database larger than a GPU's memory: kept packed on the host in parts
//! and uploaded part by part for every batch of queries (as many as 256 MiB
//! of scores allow), each part scored for the whole batch with the ordinary
//! [`GpuEngine`].
//!
//! One GPU ([`PartedGpuEngine`]) double-buffers (NESW, Dohi 2010, §IV-D): while
//! part k's kernels run, part k + 1 is uploaded on its own stream, so every
//! part but the first costs the GPU no upload time when the kernels take
//! longer than the copy. Two parts are resident at a time, so a part gets a
//! quarter of the free memory. Every batch pays the upload of the whole
//! database (about 25 GB/s over PCIe 5).
//!
//! Several GPUs ([`open_streamed_gpus`]) share the parts through the
//! dispatcher like resident chunks ([`super::multi`]): a [`PartWorker`]
//! uploads the parts it is handed and keeps them while they fit in half of
//! its memory, so a part handed to the same GPU again is not uploaded again
//! (`greedy` hands the same parts to the same GPUs every batch), and a
//! failed GPU's parts are redone on the others.
//!
//! The memory shares (parts, chunks, kept parts) are [`Budget`]'s.

use std::borrow::Cow;
use std::collections::VecDeque;
use std::ops::Range;
use std::sync::Arc;

use rayon::prelude::*;

use super::Engine;
use super::gpu::{Budget, DeviceInfo, EngineStream, GpuEngine, plan_for};
use super::multi::{MultiEngine, batch_len_for};
use crate::db::{Database, PackedChunk, group_parts};
use crate::dispatch::{Policy, Round, Unit, Worker, units_from_chunks};
use crate::error::{Error, Result};
use crate::kernel::Plan;
use crate::scoring::Scoring;

/// Consecutive packed chunks of the sorted database, uploaded together.
pub struct Part {
    chunks: Vec<PackedChunk>,
}

impl Part {
    /// The sorted positions the part covers.
    pub fn positions(&self) -> Range<usize> {
        let start = self.chunks.first().map_or(0, |c| c.range.start);
        start..self.chunks.last().map_or(start, |c| c.range.end)
    }

    /// Device bytes of the part's engine: residues and lengths, the row
    /// buffer of its widest chunk, and its scores.
    pub fn device_bytes(&self) -> usize {
        let residues: usize = self.chunks.iter().map(PackedChunk::device_bytes).sum();
        let row_buffer = self
            .chunks
            .iter()
            .map(|c| 8 * 4 * c.words_per_sequence * c.sequences())
            .max()
            .unwrap_or(0);
        residues + row_buffer + 4 * self.positions().len()
    }

    /// Uploads the part to GPU `ordinal`, on `stream`.
    fn open(
        &self,
        ordinal: usize,
        scoring: &Scoring,
        plan: &Plan,
        stream: EngineStream,
    ) -> Result<GpuEngine> {
        GpuEngine::builder(ordinal, scoring.clone(), plan.clone())
            .stream(stream)
            .chunks(self.chunks.iter().map(Cow::Borrowed))
    }
}

/// Packs `db` in chunks for a GPU with `budget` and groups them into parts
/// ([`Budget::streamed_chunks`], [`Budget::part_bytes`]), once the plan is
/// known to fit ([`Budget::check_streamed`]).
pub fn plan_parts(db: &Database, plan: &Plan, budget: Budget) -> Result<Vec<Part>> {
    let plan = plan_for(plan, db, budget.streamed_chunks());
    budget.check_streamed(db, &plan)?;
    let chunks: Vec<PackedChunk> = plan
        .into_par_iter()
        .map(|range| PackedChunk::pack(db, range))
        .collect();
    let bytes: Vec<usize> = chunks.iter().map(PackedChunk::device_bytes).collect();
    let mut chunks = chunks.into_iter();
    Ok(group_parts(&bytes, budget.part_bytes())
        .into_iter()
        .map(|part| Part {
            chunks: chunks.by_ref().take(part.len()).collect(),
        })
        .collect())
}

/// Scores every query of `queries` on `engine`'s part, the scores of query
/// `k` going to `out[k]` at the part's positions; `after_first` runs once
/// the first query's kernels are queued (to overlap the next upload).
fn score_part(
    engine: &mut GpuEngine,
    queries: &[&[u8]],
    mut out: impl FnMut(usize, Range<usize>, Vec<i32>),
    mut after_first: impl FnMut() -> Result<()>,
) -> Result<()> {
    for (k, query) in queries.iter().enumerate() {
        engine.launch_all(query)?;
        if k == 0 {
            after_first()?;
        }
        out(k, engine.positions(), engine.read_scores()?);
    }
    Ok(())
}

/// GPU `ordinal` searching a database it cannot hold at once.
pub struct PartedGpuEngine {
    ordinal: usize,
    parts: Vec<Part>,
    sequences: usize,
    residues: u64,
    scoring: Scoring,
    plan: Plan,
}

impl PartedGpuEngine {
    /// Packs `db` in parts for GPU `ordinal` with `budget` ([`plan_parts`]).
    pub fn new(
        ordinal: usize,
        db: &Database,
        scoring: Scoring,
        plan: Plan,
        budget: Budget,
    ) -> Result<PartedGpuEngine> {
        Ok(PartedGpuEngine {
            ordinal,
            parts: plan_parts(db, &plan, budget)?,
            sequences: db.len(),
            residues: db.total_residues(),
            scoring,
            plan,
        })
    }
}

impl Engine for PartedGpuEngine {
    fn description(&self) -> String {
        format!(
            "GPU {}, kernel {}; database streamed in {} parts per batch of queries (it does not fit in the GPU's memory)",
            self.ordinal,
            self.plan,
            self.parts.len()
        )
    }

    fn score_all(&mut self, query: &[u8]) -> Result<Vec<i32>> {
        let mut scores = self.score_batch(&[query])?;
        scores
            .pop()
            .ok_or_else(|| Error::Internal("one query gave no scores".into()))
    }

    fn batch_len(&self) -> usize {
        batch_len_for(self.sequences)
    }

    fn database_residues(&self) -> u64 {
        self.residues
    }

    fn score_batch(&mut self, queries: &[&[u8]]) -> Result<Vec<Vec<i32>>> {
        let mut scores = vec![vec![0; self.sequences]; queries.len()];
        let (ordinal, plan) = (self.ordinal, &self.plan);
        let open = |part: &Part| part.open(ordinal, &self.scoring, plan, EngineStream::Own);
        let mut parts = self.parts.iter();
        let (Some(first), false) = (parts.next(), queries.is_empty()) else {
            return Ok(scores);
        };
        let mut engine = open(first)?;
        loop {
            let mut next = None;
            score_part(
                &mut engine,
                queries,
                |k, at, part_scores| scores[k][at].copy_from_slice(&part_scores),
                // The next part goes up while this one's kernels run.
                || {
                    next = parts.next().map(open).transpose()?;
                    Ok(())
                },
            )?;
            match next {
                Some(next) => engine = next,
                None => return Ok(scores),
            }
        }
    }
}

/// A GPU as a dispatch worker over a streamed database: a unit is a
/// [`Part`]. The worker uploads the parts it is handed and keeps them while
/// they fit in its budget (oldest dropped first), and scores every query of
/// the current batch on each; a unit's result is the batch's scores of the
/// part, query after query.
pub struct PartWorker {
    ordinal: usize,
    name: String,
    parts: Arc<Vec<Part>>,
    scoring: Scoring,
    plan: Plan,
    resident: Resident<GpuEngine>,
}

/// Uploaded parts kept within a byte budget, the oldest dropped first.
struct Resident<E> {
    budget: usize,
    /// (part index, device bytes, engine), oldest first.
    parts: VecDeque<(usize, usize, E)>,
}

impl<E> Resident<E> {
    fn new(budget: usize) -> Resident<E> {
        Resident {
            budget,
            parts: VecDeque::new(),
        }
    }

    /// Part `index`'s engine: the resident one, or else `upload()`'s, after
    /// dropping the oldest parts until its `bytes` fit (all of them if need
    /// be: one part always fits).
    fn get_or_upload(
        &mut self,
        index: usize,
        bytes: usize,
        upload: impl FnOnce() -> Result<E>,
    ) -> Result<&mut E> {
        let slot = match self.parts.iter().position(|(k, _, _)| *k == index) {
            Some(slot) => slot,
            None => {
                while self.parts.iter().map(|(_, b, _)| b).sum::<usize>() + bytes > self.budget {
                    if self.parts.pop_front().is_none() {
                        break;
                    }
                }
                self.parts.push_back((index, bytes, upload()?));
                self.parts.len() - 1
            }
        };
        Ok(&mut self.parts[slot].2)
    }
}

impl Worker for PartWorker {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn run_unit(&mut self, round: &Round<'_>, unit: &Unit) -> Result<Vec<i32>> {
        let queries = round
            .queries
            .get(unit.queries.clone())
            .ok_or_else(|| Error::Internal(format!("a unit names queries {:?}", unit.queries)))?;
        let part = self
            .parts
            .get(unit.chunk)
            .ok_or_else(|| Error::Internal(format!("part {} is not in the plan", unit.chunk)))?;
        let (ordinal, scoring, plan) = (self.ordinal, &self.scoring, &self.plan);
        let engine = self
            .resident
            .get_or_upload(unit.chunk, part.device_bytes(), || {
                part.open(ordinal, scoring, plan, EngineStream::Default)
            })?;
        let mut flat = Vec::with_capacity(queries.len() * engine.positions().len());
        score_part(engine, queries, |_, _, s| flat.extend(s), || Ok(()))?;
        Ok(flat)
    }
}

/// Several GPUs (`devices`, each with its plan `plans[k]`) searching a
/// database larger than the smallest one's `budget`: the parts of
/// [`plan_parts`] for that memory spread over the GPUs by `policy`, each GPU
/// keeping parts resident in [`Budget::kept_parts_bytes`]. Returns the
/// engine and the seconds spent packing.
pub fn open_streamed_gpus(
    devices: &[DeviceInfo],
    plans: &[Plan],
    db: &Database,
    scoring: &Scoring,
    policy: Policy,
    budget: Budget,
) -> Result<(MultiEngine<PartWorker>, f64)> {
    let started = std::time::Instant::now();
    let first = plans
        .first()
        .ok_or_else(|| Error::Internal("no plan for the GPUs".into()))?;
    let parts = Arc::new(plan_parts(db, first, budget)?);
    let positions: Vec<Range<usize>> = parts.iter().map(Part::positions).collect();
    let units = units_from_chunks(db, &positions);
    let workers = devices
        .iter()
        .zip(plans)
        .map(|(device, plan)| PartWorker {
            ordinal: device.ordinal,
            name: device.label(),
            parts: parts.clone(),
            scoring: scoring.clone(),
            plan: plan.clone(),
            resident: Resident::new(budget.kept_parts_bytes()),
        })
        .collect();
    let engine = MultiEngine::new(workers, policy, units, db.len())?.streamed(
        batch_len_for(db.len()),
        format!(
            "database streamed in {} parts, kept on the GPUs while they fit",
            parts.len()
        ),
    );
    Ok((engine, started.elapsed().as_secs_f64()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::tests::record;

    #[test]
    fn parts_cover_the_database_in_order_within_the_budget() {
        let db = Database::from_records(
            (0..3000)
                .map(|k| record(&format!("s{k}"), &vec![(k % 20) as u8; 50 + k % 700]))
                .collect(),
        );
        let free = 4 << 20;
        let parts = plan_parts(&db, &Plan::one(crate::kernel::Kernel::Simt), Budget(free)).unwrap();
        assert!(parts.len() > 1);
        let mut next = 0;
        for part in &parts {
            let bytes: usize = part.chunks.iter().map(PackedChunk::device_bytes).sum();
            assert!(bytes <= free / 4 || part.chunks.len() == 1);
            assert!(part.device_bytes() <= free / 2, "{}", part.device_bytes());
            assert_eq!(part.positions().start, next);
            for chunk in &part.chunks {
                assert_eq!(chunk.range.start, next);
                next = chunk.range.end;
            }
        }
        assert_eq!(next, db.len());
    }

    #[test]
    fn resident_parts_stay_within_the_budget_oldest_dropped_first() {
        let mut resident: Resident<usize> = Resident::new(10);
        let mut uploads = Vec::new();
        let mut get = |resident: &mut Resident<usize>, index, bytes| {
            *resident
                .get_or_upload(index, bytes, || {
                    uploads.push(index);
                    Ok(index * 100)
                })
                .unwrap()
        };
        assert_eq!(get(&mut resident, 0, 4), 0);
        assert_eq!(get(&mut resident, 1, 4), 100);
        assert_eq!(get(&mut resident, 0, 4), 0); // resident: no upload
        assert_eq!(get(&mut resident, 2, 4), 200); // 12 > 10: part 0 goes
        assert_eq!(get(&mut resident, 1, 4), 100);
        assert_eq!(get(&mut resident, 0, 4), 0); // uploaded again, part 1 goes
        assert_eq!(get(&mut resident, 3, 25), 300); // larger than the budget: alone
        let kept: Vec<usize> = resident.parts.iter().map(|(k, _, _)| *k).collect();
        assert_eq!(kept, [3]);
        assert_eq!(uploads, [0, 1, 2, 0, 3]);
    }

    #[test]
    fn a_failed_upload_leaves_no_part_behind() {
        let mut resident: Resident<usize> = Resident::new(10);
        resident.get_or_upload(0, 4, || Ok(0)).unwrap();
        let failed = resident.get_or_upload(1, 8, || {
            Err(crate::error::Error::InvalidArgument("injected".into()))
        });
        assert!(failed.is_err());
        assert!(resident.parts.is_empty()); // part 0 made room first
        assert_eq!(*resident.get_or_upload(1, 8, || Ok(1)).unwrap(), 1);
    }
}
