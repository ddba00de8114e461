//! Many devices as one engine: takes a query or a batch of them, returns
//! every database sequence's score for each, the work spread over the
//! devices by a [`crate::dispatch::Policy`].
//!
//! Every device holds the whole database, cut by one shared chunk plan, so
//! any chunk can run anywhere; the dispatcher decides who runs what, redoes
//! the chunks of a device that fails, and the scores come back in sorted
//! order exactly as from one device. Each unit names its chunk and its
//! queries; the batch of queries is borrowed for the round.

use std::ops::Range;
use std::sync::Arc;

use super::Engine;
use super::gpu::{Budget, DeviceInfo, GpuEngine, plan_for};
use crate::db::{ChunkLimits, Database, PackedChunk};
use crate::dispatch::{Dispatcher, Policy, Round, Unit, Worker, units_from_chunks};
use crate::error::{Error, Result};
use crate::kernel::{Kernel, Plan};
use crate::scoring::Scoring;

/// Chunks per device in a multi-device plan: enough for the policies to
/// balance, few enough that each launch still fills a GPU (`simt-i16x2`
/// aligns two sequences per thread, so a chunk needs many). With the
/// queries batched as (query, chunk) units there are plenty of units to
/// balance.
pub const CHUNKS_PER_DEVICE: usize = 1;

/// A GPU as a dispatch worker: runs one resident chunk per unit.
pub struct GpuWorker {
    engine: GpuEngine,
    /// The (round, query) whose profile is on the GPU.
    loaded: Option<(usize, usize)>,
}

impl Worker for GpuWorker {
    fn name(&self) -> String {
        self.engine.info().label()
    }

    fn run_unit(&mut self, round: &Round<'_>, unit: &Unit) -> Result<Vec<i32>> {
        let mut scores = Vec::new();
        for k in unit.queries.clone() {
            if self.loaded != Some((round.number, k)) {
                self.engine.load_query(query_of(round, k)?)?;
                self.loaded = Some((round.number, k));
            }
            self.engine.launch_chunk(unit.chunk)?;
            scores.extend(self.engine.chunk_scores(unit.chunk)?);
        }
        Ok(scores)
    }
}

/// Query `k` of `round`, or an internal error.
fn query_of<'a>(round: &Round<'a>, k: usize) -> Result<&'a [u8]> {
    round.queries.get(k).copied().ok_or_else(|| {
        Error::Internal(format!(
            "a unit names query {k} of a round of {}",
            round.queries.len()
        ))
    })
}

/// The CPU as a dispatch worker (`simt`'s inter-sequence form): for tests
/// and for mixing the host's cores with GPUs.
pub struct CpuWorker {
    name: String,
    db: Arc<Database>,
    plan: Arc<Vec<Range<usize>>>,
    scoring: Scoring,
}

impl CpuWorker {
    /// A CPU worker over `db` cut by `plan`.
    pub fn new(
        name: &str,
        db: Arc<Database>,
        plan: Arc<Vec<Range<usize>>>,
        scoring: Scoring,
    ) -> CpuWorker {
        CpuWorker {
            name: name.into(),
            db,
            plan,
            scoring,
        }
    }
}

impl Worker for CpuWorker {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn run_unit(&mut self, round: &Round<'_>, unit: &Unit) -> Result<Vec<i32>> {
        let range =
            self.plan.get(unit.chunk).cloned().ok_or_else(|| {
                Error::Internal(format!("chunk {} is not in the plan", unit.chunk))
            })?;
        let chunk = PackedChunk::pack(&self.db, range);
        let gaps = self.scoring.gaps.kernel_gaps();
        let mut scores = Vec::new();
        for k in unit.queries.clone() {
            let profile = Kernel::Simt.profile(query_of(round, k)?, &self.scoring.matrix);
            scores.extend(Kernel::Simt.run_cpu(&chunk, &profile, gaps)?);
        }
        Ok(scores)
    }
}

/// Several workers searching one database together.
///
/// A resident database is asked a batch of queries at a time (one at a
/// time under `weighted`, which re-weights after every query), one unit per
/// (query, chunk) pair costed in cells, so that no device waits for the
/// others at the end of each query: only the batch's last units can leave
/// one idle. A streamed database ([`MultiEngine::streamed`]) has one unit
/// per part, each covering the whole batch.
pub struct MultiEngine<W: Worker> {
    dispatcher: Dispatcher<W>,
    /// The plan's chunks (or parts), costed in residues.
    chunks: Vec<Unit>,
    batch_len: usize,
    /// Whether each unit is one (query, chunk) pair.
    per_query: bool,
    batches_run: usize,
    sequences: usize,
    /// Seconds each worker spent scoring, over every batch.
    busy: Vec<f64>,
    warnings: Vec<String>,
    label: String,
}

impl<W: Worker> MultiEngine<W> {
    /// An engine over `workers` holding the whole database, cut by the chunk
    /// plan that `chunks` ([`units_from_chunks`]) were made from.
    pub fn new(
        workers: Vec<W>,
        policy: Policy,
        chunks: Vec<Unit>,
        sequences: usize,
    ) -> Result<MultiEngine<W>> {
        let names: Vec<String> = workers.iter().map(|w| w.name()).collect();
        let label = format!(
            "{} devices [{}], --balance {policy}",
            names.len(),
            names.join(", ")
        );
        Ok(MultiEngine {
            busy: vec![0.0; workers.len()],
            dispatcher: Dispatcher::new(workers, policy)?,
            chunks,
            batch_len: match policy {
                Policy::Weighted => 1,
                Policy::Greedy | Policy::Dynamic => batch_len_for(sequences),
            },
            per_query: true,
            batches_run: 0,
            sequences,
            warnings: Vec::new(),
            label,
        })
    }

    /// Asks the workers `batch_len` queries at a time, one unit per part for
    /// the whole batch (a streamed database: each part uploaded once per
    /// batch); `note` says so in the description.
    pub fn streamed(mut self, batch_len: usize, note: String) -> MultiEngine<W> {
        self.batch_len = batch_len.max(1);
        self.per_query = false;
        self.label = format!("{}; {note}", self.label);
        self
    }

    /// The units of a batch of `queries`: each (query, chunk) pair costed in
    /// cells, or each chunk against the whole batch.
    fn units(&self, queries: &[&[u8]]) -> Vec<Unit> {
        if !self.per_query {
            return self
                .chunks
                .iter()
                .map(|chunk| Unit {
                    queries: 0..queries.len(),
                    ..chunk.clone()
                })
                .collect();
        }
        let n = self.chunks.len();
        queries
            .iter()
            .enumerate()
            .flat_map(|(k, query)| {
                self.chunks.iter().map(move |chunk| Unit {
                    index: k * n + chunk.index,
                    cost: chunk.cost * query.len() as u64,
                    chunk: chunk.chunk,
                    queries: k..k + 1,
                })
            })
            .collect()
    }
}

impl<W: Worker> Engine for MultiEngine<W> {
    fn description(&self) -> String {
        let busy: Vec<String> = self.busy.iter().map(|s| format!("{s:.2}")).collect();
        format!(
            "{}; seconds busy per device: {}",
            self.label,
            busy.join(", ")
        )
    }

    fn score_all(&mut self, query: &[u8]) -> Result<Vec<i32>> {
        let mut scores = self.score_batch(&[query])?;
        scores
            .pop()
            .ok_or_else(|| Error::Internal("one query gave no scores".into()))
    }

    fn batch_len(&self) -> usize {
        self.batch_len
    }

    fn database_residues(&self) -> u64 {
        self.chunks.iter().map(|chunk| chunk.cost).sum()
    }

    fn score_batch(&mut self, queries: &[&[u8]]) -> Result<Vec<Vec<i32>>> {
        if queries.is_empty() {
            return Ok(Vec::new());
        }
        let units = self.units(queries);
        let round = Round {
            number: self.batches_run,
            queries,
        };
        let outcome = self.dispatcher.run_round(&round, &units)?;
        self.batches_run += 1;
        self.warnings.extend(outcome.warnings.iter().cloned());
        for (busy, stats) in self.busy.iter_mut().zip(&outcome.workers) {
            *busy += stats.seconds;
        }
        // Each unit's scores hold its queries' one after another.
        let mut scores = vec![Vec::with_capacity(self.sequences); queries.len()];
        for (unit, unit_scores) in units.iter().zip(&outcome.scores) {
            let of = unit.queries.clone();
            if of.is_empty() || unit_scores.len() % of.len() != 0 {
                return Err(Error::Internal(format!(
                    "unit {} returned {} scores for {} queries",
                    unit.index,
                    unit_scores.len(),
                    of.len()
                )));
            }
            let per_query = unit_scores.len() / of.len();
            for (k, part) in of.zip(unit_scores.chunks(per_query.max(1))) {
                scores[k].extend_from_slice(part);
            }
        }
        if let Some(bad) = scores.iter().find(|s| s.len() != self.sequences) {
            return Err(Error::Internal(format!(
                "{} scores for {} sequences",
                bad.len(),
                self.sequences
            )));
        }
        Ok(scores)
    }

    fn take_warnings(&mut self) -> Vec<String> {
        std::mem::take(&mut self.warnings)
    }
}

/// Score vectors a batch of queries may hold on the host (256 MiB).
const BATCH_SCORE_BYTES: usize = 1 << 28;

/// Queries per batch over a database of `sequences` sequences: as many as
/// [`BATCH_SCORE_BYTES`] of scores allow.
pub fn batch_len_for(sequences: usize) -> usize {
    (BATCH_SCORE_BYTES / (4 * sequences.max(1))).max(1)
}

/// A plan of about [`CHUNKS_PER_DEVICE`] chunks per device within `limits`
/// (split at `auto`'s threshold, as on one GPU).
pub fn multi_device_plan(
    db: &Database,
    devices: usize,
    limits: ChunkLimits,
    plan: &Plan,
) -> Vec<Range<usize>> {
    let per_chunk = db.len().div_ceil(devices.max(1) * CHUNKS_PER_DEVICE).max(1);
    let limits = ChunkLimits {
        max_sequences: limits.max_sequences.min(per_chunk),
        ..limits
    };
    plan_for(plan, db, limits)
}

/// Opens every GPU of `devices` (each with its own plan, `plans[k]`) with
/// the whole database resident (uploaded in parallel) and one shared chunk
/// plan sized for `budget` (the smallest GPU's).
pub fn open_gpus(
    devices: &[DeviceInfo],
    plans: &[Plan],
    db: &Database,
    scoring: &Scoring,
    policy: Policy,
    budget: Budget,
) -> Result<(MultiEngine<GpuWorker>, f64)> {
    let first = plans
        .first()
        .ok_or_else(|| Error::Internal("no plan for the GPUs".into()))?;
    let chunks = multi_device_plan(db, devices.len(), budget.resident_chunks(db)?, first);
    budget.check_resident(db, &chunks)?;
    let started = std::time::Instant::now();
    let engines: Vec<Result<GpuEngine>> = std::thread::scope(|scope| {
        let handles: Vec<_> = devices
            .iter()
            .zip(plans)
            .map(|(device, plan)| {
                let chunks = &chunks;
                scope.spawn(move || {
                    GpuEngine::builder(device.ordinal, scoring.clone(), plan.clone())
                        .chunk_plan(db, chunks)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(Error::Internal("a GPU upload thread panicked".into())))
            })
            .collect()
    });
    let upload_seconds = started.elapsed().as_secs_f64();
    let workers = engines
        .into_iter()
        .map(|e| {
            e.map(|engine| GpuWorker {
                engine,
                loaded: None,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let units = units_from_chunks(db, &chunks);
    Ok((
        MultiEngine::new(workers, policy, units, db.len())?,
        upload_seconds,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::tests::record;

    #[test]
    fn a_batch_is_cut_per_query_or_per_part() {
        let db = Arc::new(Database::from_records(
            (0..8).map(|k| record(&format!("s{k}"), &[1; 5])).collect(),
        ));
        let chunks: Vec<Range<usize>> = (0..4).map(|k| 2 * k..2 * k + 2).collect();
        let scoring = Scoring {
            matrix: crate::matrix::ScoreMatrix::by_name("blosum62").unwrap(),
            gaps: crate::scoring::GapPenalty::new(11, 1).unwrap(),
        };
        let worker = CpuWorker::new("cpu", db.clone(), Arc::new(chunks.clone()), scoring);
        let units = units_from_chunks(&db, &chunks);
        let engine = MultiEngine::new(vec![worker], Policy::Dynamic, units, db.len()).unwrap();
        let queries: [&[u8]; 3] = [&[1, 2], &[], &[3]];
        let per_query = engine.units(&queries);
        assert_eq!(per_query.len(), 12);
        assert_eq!(
            (per_query[6].chunk, per_query[6].queries.clone()),
            (2, 1..2)
        );
        assert_eq!(per_query[6].cost, 0); // an empty query
        assert_eq!(
            (per_query[11].chunk, per_query[11].queries.clone()),
            (3, 2..3)
        );
        assert_eq!(per_query[1].cost, 2 * 10); // 10 residues, 2 query residues
        assert!(per_query.iter().enumerate().all(|(k, u)| u.index == k));
        let streamed = engine.streamed(3, "parts".into());
        let per_part = streamed.units(&queries);
        assert_eq!(per_part.len(), 4);
        assert_eq!((per_part[3].chunk, per_part[3].queries.clone()), (3, 0..3));
    }

    #[test]
    fn batches_fit_the_score_budget() {
        assert_eq!(batch_len_for(570_000), BATCH_SCORE_BYTES / (4 * 570_000));
        assert_eq!(batch_len_for(usize::MAX / 8), 1);
        assert_eq!(batch_len_for(0), BATCH_SCORE_BYTES / 4);
    }
}
