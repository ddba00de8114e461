//! Many devices as one engine: takes a query or a batch of them, returns
//! every database sequence's score for each, the work spread over the
//! devices by a [`crate::dispatch::Policy`].
//!
//! Every device holds the whole database, cut by one shared chunk plan, so
//! any chunk can run anywhere; the dispatcher decides who runs what, redoes
//! the chunks of a device that fails, and the scores come back in sorted
//! order exactly as from one device.

use std::ops::Range;
use std::sync::{Arc, RwLock};

use gpu_kernels::recurrence::Gaps;

use super::gpu::{GpuEngine, chunk_limits, plan_for, sorted_lengths};
use super::inter_sequence;
use super::{Engine, Kernel};
use crate::db::{ChunkLimits, Database, PackedChunk};
use crate::dispatch::{Dispatcher, Policy, Unit, Worker, units_from_chunks};
use crate::error::{Error, Result};
use crate::profile::sequential_profile;
use crate::scoring::Scoring;

/// Chunks per device in a multi-device plan: enough for the policies to
/// balance, few enough that each launch still fills a GPU. Chosen on the
/// 570k synthetic database (benches/RESULTS.md): with `simt` as `auto`'s
/// first stage one H100 ran 2 GPUs' plan at 0.98-0.99 of its own speed
/// with 2 chunks per GPU and at 0.96 with 4, 4 GPUs' plan at 0.96-0.97 and
/// 0.93 (runs 15-18); `simt-i16x2` aligns two sequences per thread, so a
/// chunk needs twice the sequences to fill the GPU: 0.85 / 0.71 with 2
/// chunks per GPU, 1.01 / 0.85 with 1 (run 30). With the queries batched
/// as (query, chunk) units there are plenty of units to balance either way
/// (simulated `dynamic` with one chunk per GPU: 0.995 / 0.990 of ideal on
/// 2 / 4 devices, run 21).
pub const CHUNKS_PER_DEVICE: usize = 1;

/// The batch of queries that the workers of a [`MultiEngine`] are asked
/// about, and how it is cut into units: one unit per (query, chunk) pair
/// when the database is resident, one unit per chunk covering every query
/// of the batch when it is streamed (each part uploaded once per batch).
#[derive(Clone, Debug, Default)]
pub struct SharedBatch(Arc<RwLock<Batch>>);

#[derive(Debug, Default)]
struct Batch {
    queries: Vec<Vec<u8>>,
    /// `Some(chunks)`: unit `i` is query `i / chunks` against chunk
    /// `i % chunks`; `None`: unit `i` is chunk `i` against every query.
    chunks_per_query: Option<usize>,
}

/// What one unit asks of a worker: a chunk of the plan against some of the
/// batch's queries; the unit's result is its scores for each in turn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Task {
    /// The chunk (or streamed part) of the plan.
    pub chunk: usize,
    /// The position in the batch of the first of `queries`.
    pub first_query: usize,
    /// The queries (residue codes).
    pub queries: Vec<Vec<u8>>,
}

impl Task {
    /// Each query with its position in the batch.
    pub fn numbered(&self) -> impl Iterator<Item = (usize, &[u8])> {
        (self.first_query..).zip(self.queries.iter().map(|q| &q[..]))
    }
}

impl SharedBatch {
    /// The task of `unit` in the current batch.
    pub fn task(&self, unit: &Unit) -> Task {
        let batch = self.0.read().unwrap_or_else(|p| p.into_inner());
        let queries = batch.queries_of(unit.index);
        Task {
            chunk: batch
                .chunks_per_query
                .map_or(unit.index, |chunks| unit.index % chunks),
            first_query: queries.start,
            queries: batch.queries[queries].to_vec(),
        }
    }

    fn set(&self, queries: &[&[u8]], chunks_per_query: Option<usize>) {
        *self.0.write().unwrap_or_else(|p| p.into_inner()) = Batch {
            queries: queries.iter().map(|q| q.to_vec()).collect(),
            chunks_per_query,
        };
    }

    fn queries_of(&self, unit_index: usize) -> Range<usize> {
        self.0
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .queries_of(unit_index)
    }
}

impl Batch {
    /// Positions in the batch of the queries unit `index` is scored against.
    fn queries_of(&self, index: usize) -> Range<usize> {
        match self.chunks_per_query {
            Some(chunks) => {
                let k = (index / chunks.max(1)).min(self.queries.len());
                k..(k + 1).min(self.queries.len())
            }
            None => 0..self.queries.len(),
        }
    }
}

/// A GPU as a dispatch worker: runs one resident chunk per unit.
pub struct GpuWorker {
    engine: GpuEngine,
    batch: SharedBatch,
    /// The (batch, query) whose profile is on the GPU.
    loaded: Option<(usize, usize)>,
}

impl Worker for GpuWorker {
    fn name(&self) -> String {
        self.engine.info().label()
    }

    fn run_unit(&mut self, batch: usize, unit: &Unit) -> Result<Vec<i32>> {
        let task = self.batch.task(unit);
        let mut scores = Vec::new();
        for (k, query) in task.numbered() {
            if self.loaded != Some((batch, k)) {
                self.engine.load_query(query)?;
                self.loaded = Some((batch, k));
            }
            self.engine.launch_chunk(task.chunk)?;
            scores.extend(self.engine.chunk_scores(task.chunk)?);
        }
        Ok(scores)
    }
}

/// The CPU as a dispatch worker (the kernels under emulation): for tests and
/// for mixing the host's cores with GPUs.
pub struct CpuWorker {
    name: String,
    db: Arc<Database>,
    plan: Arc<Vec<Range<usize>>>,
    scoring: Scoring,
    batch: SharedBatch,
}

impl CpuWorker {
    /// A CPU worker over `db` cut by `plan`.
    pub fn new(
        name: &str,
        db: Arc<Database>,
        plan: Arc<Vec<Range<usize>>>,
        scoring: Scoring,
        batch: SharedBatch,
    ) -> CpuWorker {
        CpuWorker {
            name: name.into(),
            db,
            plan,
            scoring,
            batch,
        }
    }
}

impl Worker for CpuWorker {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn run_unit(&mut self, _batch: usize, unit: &Unit) -> Result<Vec<i32>> {
        let task = self.batch.task(unit);
        let range = self.plan.get(task.chunk).cloned().ok_or_else(|| {
            Error::InvalidArgument(format!("chunk {} is not in the plan", task.chunk))
        })?;
        let chunk = PackedChunk::pack(&self.db, range);
        let gaps: Gaps = self.scoring.gaps.kernel_gaps();
        let mut scores = Vec::new();
        for query in &task.queries {
            let profile = sequential_profile(query, &self.scoring.matrix);
            scores.extend(inter_sequence::score_chunk(&chunk, &profile, gaps));
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
    batch: SharedBatch,
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
    /// An engine over `workers` holding the whole database, which must share
    /// `batch` and the chunk plan that `chunks` were made from.
    pub fn new(
        workers: Vec<W>,
        policy: Policy,
        chunks: Vec<Unit>,
        batch: SharedBatch,
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
            batch,
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

    /// The dispatcher (weights, failures).
    pub fn dispatcher(&self) -> &Dispatcher<W> {
        &self.dispatcher
    }

    /// The units of a batch of `queries`.
    fn units(&self, queries: &[&[u8]]) -> Vec<Unit> {
        if !self.per_query {
            return self.chunks.clone();
        }
        let n = self.chunks.len();
        queries
            .iter()
            .enumerate()
            .flat_map(|(k, query)| {
                self.chunks.iter().map(move |chunk| Unit {
                    index: k * n + chunk.index,
                    cost: chunk.cost * query.len() as u64,
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
        Ok(scores.pop().expect("one query, one score vector"))
    }

    fn batch_len(&self) -> usize {
        self.batch_len
    }

    fn score_batch(&mut self, queries: &[&[u8]]) -> Result<Vec<Vec<i32>>> {
        if queries.is_empty() {
            return Ok(Vec::new());
        }
        self.batch
            .set(queries, self.per_query.then_some(self.chunks.len()));
        let outcome = self
            .dispatcher
            .run_round(self.batches_run, &self.units(queries))?;
        self.batches_run += 1;
        self.warnings.extend(outcome.warnings.iter().cloned());
        for (busy, stats) in self.busy.iter_mut().zip(&outcome.workers) {
            *busy += stats.seconds;
        }
        // Each unit's scores hold its queries' one after another.
        let mut scores = vec![Vec::with_capacity(self.sequences); queries.len()];
        for (index, unit_scores) in outcome.scores.iter().enumerate() {
            let of = self.batch.queries_of(index);
            if of.is_empty() || unit_scores.len() % of.len() != 0 {
                return Err(Error::InvalidArgument(format!(
                    "internal error: unit {index} returned {} scores for {} queries",
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
            return Err(Error::InvalidArgument(format!(
                "internal error: {} scores for {} sequences",
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
    kernel: Kernel,
) -> Vec<Range<usize>> {
    let per_chunk = db.len().div_ceil(devices.max(1) * CHUNKS_PER_DEVICE).max(1);
    let limits = ChunkLimits {
        max_sequences: limits.max_sequences.min(per_chunk),
        ..limits
    };
    plan_for(kernel, &sorted_lengths(db), limits)
}

/// Opens every GPU of `ordinals` with the whole database resident (uploaded
/// in parallel) and one shared chunk plan sized for `free` bytes (the
/// smallest GPU's, [`super::gpu::smallest_free_memory`]).
pub fn open_gpus(
    ordinals: &[usize],
    db: &Database,
    scoring: &Scoring,
    kernel: Kernel,
    policy: Policy,
    free: usize,
) -> Result<(MultiEngine<GpuWorker>, f64)> {
    let plan = multi_device_plan(db, ordinals.len(), chunk_limits(db, free)?, kernel);
    let started = std::time::Instant::now();
    let engines: Vec<Result<GpuEngine>> = std::thread::scope(|scope| {
        let handles: Vec<_> = ordinals
            .iter()
            .map(|&o| {
                let plan = &plan;
                scope.spawn(move || GpuEngine::with_plan(o, db, scoring.clone(), kernel, plan))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join().unwrap_or_else(|_| {
                    Err(Error::InvalidArgument(
                        "a GPU upload thread panicked".into(),
                    ))
                })
            })
            .collect()
    });
    let upload_seconds = started.elapsed().as_secs_f64();
    let batch = SharedBatch::default();
    let workers = engines
        .into_iter()
        .map(|e| {
            e.map(|engine| GpuWorker {
                engine,
                batch: batch.clone(),
                loaded: None,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let chunks = units_from_chunks(db, &plan);
    Ok((
        MultiEngine::new(workers, policy, chunks, batch, db.len())?,
        upload_seconds,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batch_is_cut_per_query_or_per_part() {
        let batch = SharedBatch::default();
        let queries: [&[u8]; 3] = [&[1, 2], &[], &[3]];
        let unit = |index| Unit { index, cost: 1 };
        batch.set(&queries, Some(4));
        let task = batch.task(&unit(6));
        assert_eq!((task.chunk, task.first_query), (2, 1));
        assert_eq!(task.queries, [Vec::<u8>::new()]);
        let task = batch.task(&unit(11));
        assert_eq!(task.numbered().collect::<Vec<_>>(), [(2, &[3u8][..])]);
        assert_eq!(task.chunk, 3);
        batch.set(&queries, None);
        let task = batch.task(&unit(5));
        assert_eq!(
            (task.chunk, task.first_query, task.queries.len()),
            (5, 0, 3)
        );
        assert_eq!(batch.queries_of(5), 0..3);
    }

    #[test]
    fn batches_fit_the_score_budget() {
        assert_eq!(batch_len_for(570_000), BATCH_SCORE_BYTES / (4 * 570_000));
        assert_eq!(batch_len_for(usize::MAX / 8), 1);
        assert_eq!(batch_len_for(0), BATCH_SCORE_BYTES / 4);
    }
}
