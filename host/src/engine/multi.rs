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

use super::gpu::{GpuEngine, chunk_limits, free_memory, plan_for, sorted_lengths};
use super::inter_sequence;
use super::{Engine, Kernel};
use crate::db::{ChunkLimits, Database, PackedChunk};
use crate::dispatch::{Dispatcher, Policy, Unit, Worker, units_from_chunks};
use crate::error::{Error, Result};
use crate::profile::sequential_profile;
use crate::scoring::Scoring;

/// Chunks per device in a multi-device plan: enough for the policies to
/// balance, few enough that each launch still fills a GPU.
pub const CHUNKS_PER_DEVICE: usize = 4;

/// The query that the workers of a [`MultiEngine`] are asked about; each
/// worker loads it when it first sees a new query number.
#[derive(Clone, Debug, Default)]
pub struct SharedQuery(Arc<RwLock<Vec<u8>>>);

impl SharedQuery {
    /// The current query's residue codes.
    pub fn get(&self) -> Vec<u8> {
        self.0.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    fn set(&self, query: &[u8]) {
        *self.0.write().unwrap_or_else(|p| p.into_inner()) = query.to_vec();
    }
}

/// A GPU as a dispatch worker: runs one resident chunk per unit.
pub struct GpuWorker {
    engine: GpuEngine,
    query: SharedQuery,
    loaded: Option<usize>,
}

impl Worker for GpuWorker {
    fn name(&self) -> String {
        format!(
            "GPU {} ({})",
            self.engine.info().ordinal,
            self.engine.info().name
        )
    }

    fn run_unit(&mut self, query: usize, unit: &Unit) -> Result<Vec<i32>> {
        if self.loaded != Some(query) {
            self.engine.load_query(&self.query.get())?;
            self.loaded = Some(query);
        }
        self.engine.launch_chunk(unit.index)?;
        self.engine.chunk_scores(unit.index)
    }
}

/// The CPU as a dispatch worker (the kernels under emulation): for tests and
/// for mixing the host's cores with GPUs.
pub struct CpuWorker {
    name: String,
    db: Arc<Database>,
    plan: Arc<Vec<Range<usize>>>,
    scoring: Scoring,
    query: SharedQuery,
    profile: Option<(usize, Vec<u32>)>,
}

impl CpuWorker {
    /// A CPU worker over `db` cut by `plan`.
    pub fn new(
        name: &str,
        db: Arc<Database>,
        plan: Arc<Vec<Range<usize>>>,
        scoring: Scoring,
        query: SharedQuery,
    ) -> CpuWorker {
        CpuWorker {
            name: name.into(),
            db,
            plan,
            scoring,
            query,
            profile: None,
        }
    }
}

impl Worker for CpuWorker {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn run_unit(&mut self, query: usize, unit: &Unit) -> Result<Vec<i32>> {
        if self.profile.as_ref().map(|(q, _)| *q) != Some(query) {
            let profile = sequential_profile(&self.query.get(), &self.scoring.matrix);
            self.profile = Some((query, profile));
        }
        let (_, profile) = self.profile.as_ref().expect("loaded above");
        let range = self.plan.get(unit.index).cloned().ok_or_else(|| {
            Error::InvalidArgument(format!("chunk {} is not in the plan", unit.index))
        })?;
        let gaps: Gaps = self.scoring.gaps.kernel_gaps();
        Ok(inter_sequence::score_chunk(
            &PackedChunk::pack(&self.db, range),
            profile,
            gaps,
        ))
    }
}

/// Several workers searching one database together.
pub struct MultiEngine<W: Worker> {
    dispatcher: Dispatcher<W>,
    units: Vec<Unit>,
    query: SharedQuery,
    queries_run: usize,
    sequences: usize,
    warnings: Vec<String>,
    label: String,
}

impl<W: Worker> MultiEngine<W> {
    /// An engine over `workers`, which must share `query` and the chunk plan
    /// that `units` were made from.
    pub fn new(
        workers: Vec<W>,
        policy: Policy,
        units: Vec<Unit>,
        query: SharedQuery,
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
            query,
            queries_run: 0,
            sequences,
            warnings: Vec::new(),
            label,
        })
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
        self.query.set(query);
        let outcome = self.dispatcher.run_query(self.queries_run, &self.units)?;
        self.queries_run += 1;
        self.warnings.extend(outcome.warnings.iter().cloned());
        let scores = outcome.concatenated();
        if scores.len() != self.sequences {
            return Err(Error::InvalidArgument(format!(
                "internal error: {} scores for {} sequences",
                scores.len(),
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
/// in parallel) and one shared chunk plan.
pub fn open_gpus(
    ordinals: &[usize],
    db: &Database,
    scoring: &Scoring,
    kernel: Kernel,
    policy: Policy,
) -> Result<(MultiEngine<GpuWorker>, f64)> {
    let free = ordinals
        .iter()
        .map(|&o| free_memory(o))
        .collect::<Result<Vec<_>>>()?
        .into_iter()
        .min()
        .unwrap_or(0);
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
    let query = SharedQuery::default();
    let workers = engines
        .into_iter()
        .map(|e| {
            e.map(|engine| GpuWorker {
                engine,
                query: query.clone(),
                loaded: None,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let units = units_from_chunks(db, &plan);
    Ok((
        MultiEngine::new(workers, policy, units, query, db.len())?,
        upload_seconds,
    ))
}
