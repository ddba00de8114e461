//! Many devices as one engine: takes a query, returns every database
//! sequence's score, the chunks spread over the devices by a
//! [`crate::dispatch::Policy`].
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
/// 570k synthetic database (benches/RESULTS.md runs 15-17): one H100 runs
/// 2 GPUs' plan at 0.981 of its own speed with 2 chunks per GPU and at 0.959
/// with 4, 4 GPUs' plan at 0.958 and 0.931; `dynamic` balances identical
/// devices to 0.981 / 0.955 (2 / 4 devices) with 2 and 0.988 / 0.962 with 4
/// (`host/examples/balance.rs`), so 2 per GPU projects 1.92x / 3.66x
/// against 1.89x / 3.58x. Four would balance unequal GPUs better (0.992 vs
/// 0.959 for speeds 1 and 0.8).
pub const CHUNKS_PER_DEVICE: usize = 2;

/// The batch of queries that the workers of a [`MultiEngine`] are asked
/// about (one query unless the engine streams its database); a unit's
/// result is its scores for each query of the batch in turn.
#[derive(Clone, Debug, Default)]
pub struct SharedBatch(Arc<RwLock<Vec<Vec<u8>>>>);

impl SharedBatch {
    /// The current batch's queries (residue codes).
    pub fn get(&self) -> Vec<Vec<u8>> {
        self.0.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    fn set(&self, queries: &[&[u8]]) {
        *self.0.write().unwrap_or_else(|p| p.into_inner()) =
            queries.iter().map(|q| q.to_vec()).collect();
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
        format!(
            "GPU {} ({})",
            self.engine.info().ordinal,
            self.engine.info().name
        )
    }

    fn run_unit(&mut self, batch: usize, unit: &Unit) -> Result<Vec<i32>> {
        let mut scores = Vec::new();
        for (k, query) in self.batch.get().iter().enumerate() {
            if self.loaded != Some((batch, k)) {
                self.engine.load_query(query)?;
                self.loaded = Some((batch, k));
            }
            self.engine.launch_chunk(unit.index)?;
            scores.extend(self.engine.chunk_scores(unit.index)?);
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
        let range = self.plan.get(unit.index).cloned().ok_or_else(|| {
            Error::InvalidArgument(format!("chunk {} is not in the plan", unit.index))
        })?;
        let chunk = PackedChunk::pack(&self.db, range);
        let gaps: Gaps = self.scoring.gaps.kernel_gaps();
        let mut scores = Vec::new();
        for query in self.batch.get() {
            let profile = sequential_profile(&query, &self.scoring.matrix);
            scores.extend(inter_sequence::score_chunk(&chunk, &profile, gaps));
        }
        Ok(scores)
    }
}

/// Several workers searching one database together.
pub struct MultiEngine<W: Worker> {
    dispatcher: Dispatcher<W>,
    units: Vec<Unit>,
    batch: SharedBatch,
    batch_len: usize,
    batches_run: usize,
    sequences: usize,
    warnings: Vec<String>,
    label: String,
}

impl<W: Worker> MultiEngine<W> {
    /// An engine over `workers`, which must share `batch` and the chunk
    /// plan that `units` were made from; it asks them one query at a time.
    pub fn new(
        workers: Vec<W>,
        policy: Policy,
        units: Vec<Unit>,
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
            dispatcher: Dispatcher::new(workers, policy)?,
            units,
            batch,
            batch_len: 1,
            batches_run: 0,
            sequences,
            warnings: Vec::new(),
            label,
        })
    }

    /// Asks the workers `batch_len` queries at a time (a streamed database:
    /// each part uploaded once per batch); `note` says so in the description.
    pub fn streamed(mut self, batch_len: usize, note: String) -> MultiEngine<W> {
        self.batch_len = batch_len.max(1);
        self.label = format!("{}; {note}", self.label);
        self
    }

    /// The dispatcher (weights, failures).
    pub fn dispatcher(&self) -> &Dispatcher<W> {
        &self.dispatcher
    }
}

impl<W: Worker> Engine for MultiEngine<W> {
    fn description(&self) -> String {
        self.label.clone()
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
        self.batch.set(queries);
        let outcome = self.dispatcher.run_query(self.batches_run, &self.units)?;
        self.batches_run += 1;
        self.warnings.extend(outcome.warnings.iter().cloned());
        // Each unit's scores hold the batch's queries one after another.
        let mut scores = vec![Vec::with_capacity(self.sequences); queries.len()];
        for unit_scores in &outcome.scores {
            if unit_scores.len() % queries.len() != 0 {
                return Err(Error::InvalidArgument(format!(
                    "internal error: a unit returned {} scores for {} queries",
                    unit_scores.len(),
                    queries.len()
                )));
            }
            let per_query = unit_scores.len() / queries.len();
            for (k, out) in scores.iter_mut().enumerate() {
                out.extend_from_slice(&unit_scores[k * per_query..(k + 1) * per_query]);
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
    let units = units_from_chunks(db, &plan);
    Ok((
        MultiEngine::new(workers, policy, units, batch, db.len())?,
        upload_seconds,
    ))
}
