//! Engines: take a prepared database and a query, return every database
//! sequence's score. This is the upload and dispatch stage of the pipeline;
//! [`open`] places the search (CPU, one GPU, several, resident or streamed)
//! and resolves `auto` into a [`Plan`] for each device, once.
//!
//! Both engines run the same kernel source (`gpu-kernels`, catalogued in
//! [`crate::kernel`]): the GPU engine as PTX through `cudarc`, the CPU engine
//! compiled for the host. Scores come back in the database's sorted order
//! (`crate::db::Database`).

pub mod cpu;
pub mod explain;
pub mod gpu;
pub mod multi;
pub mod parted;
pub mod search_plan;
pub mod split;

use std::sync::Arc;

use crate::db::Database;
use crate::dispatch::Policy;
use crate::error::{Error, Result};
use crate::kernel::{Kernel, KernelChoice, Plan};
use crate::scoring::Scoring;
pub use search_plan::{GpuPlan, Layout, SearchPlan};

/// Scores a query against a resident database.
pub trait Engine: Send {
    /// One line naming the engine and its hardware, for the run summary.
    fn description(&self) -> String;

    /// The local alignment score of `query` (residue codes) against every
    /// database sequence, in the database's sorted order.
    fn score_all(&mut self, query: &[u8]) -> Result<Vec<i32>>;

    /// How many queries a search should hand to [`Engine::score_batch`] at
    /// once: 1, except for engines that gain from batches.
    fn batch_len(&self) -> usize {
        1
    }

    /// The scores of each of `queries`, as [`Engine::score_all`] gives them;
    /// an engine that streams its database overrides it to upload each part
    /// once per batch instead of once per query.
    fn score_batch(&mut self, queries: &[&[u8]]) -> Result<Vec<Vec<i32>>> {
        queries.iter().map(|q| self.score_all(q)).collect()
    }

    /// [`Engine::score_batch`], telling `progress` the cells (query
    /// residues × database residues) it has scored as it goes: per chunk on
    /// one GPU or the CPU, so that a long query moves a progress bar; other
    /// engines tell it per batch. The calls add up to the batch's cells.
    fn score_batch_reporting(
        &mut self,
        queries: &[&[u8]],
        progress: &(dyn Fn(u64) + Sync),
    ) -> Result<Vec<Vec<i32>>> {
        let scores = self.score_batch(queries)?;
        progress(batch_cells(queries, self.database_residues()));
        Ok(scores)
    }

    /// Residues of the database the engine searches (for
    /// [`Engine::score_batch_reporting`]'s cells).
    fn database_residues(&self) -> u64;

    /// Registers and local memory per thread of the engine's kernel, as the
    /// GPU driver reports them (`None` on the CPU).
    fn kernel_resources(&self) -> Result<Option<gpu::KernelResources>> {
        Ok(None)
    }

    /// Every entry point the engine's plan may launch, as the GPU driver
    /// reports it, with its occupancy (none on the CPU; one GPU's for
    /// several).
    fn entry_points(&self) -> Result<Vec<gpu::EntryPointUse>> {
        Ok(Vec::new())
    }

    /// Warnings gathered since the last call (a failed GPU whose chunks were
    /// redone elsewhere, for example); the caller prints them.
    fn take_warnings(&mut self) -> Vec<String> {
        Vec::new()
    }
}

/// The cells of `queries` against `residues` database residues.
pub fn batch_cells(queries: &[&[u8]], residues: u64) -> u64 {
    queries.iter().map(|q| q.len() as u64 * residues).sum()
}

/// Where a search runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Placement {
    /// The GPUs (all, or those listed) if a CUDA driver and a GPU are
    /// present, else the CPU.
    Auto(Option<Vec<usize>>),
    /// The CPU.
    Cpu,
    /// These GPUs (`None`: all); an error if they cannot be used.
    Gpus(Option<Vec<usize>>),
}

/// An engine ready to search, and how it got there.
pub struct Opened {
    /// The engine, database resident.
    pub engine: Box<dyn Engine>,
    /// How the engine differs from what was asked, if it does (say it once
    /// to the user): `Auto` fell back to the CPU, or `auto` on a small
    /// database runs its second stage only.
    pub notice: Option<String>,
    /// Seconds spent preparing and uploading the database.
    pub upload_seconds: f64,
    /// Of those, the seconds spent packing it, where the engine tells them
    /// apart (the CPU engine and one GPU holding the database).
    pub pack_seconds: Option<f64>,
    /// Whether the engine runs on GPUs (`Placement::Auto` may have fallen
    /// back to the CPU).
    pub on_gpus: bool,
}

/// What a search asks of the engines besides the database and scoring.
#[derive(Clone, Debug)]
pub struct SearchOptions {
    /// `--kernel` (with `auto`'s options).
    pub kernel: KernelChoice,
    /// Whether several GPUs split the database, each running the one-GPU
    /// engine on its part (`--balance split`, the default; [`split`]),
    /// rather than share its chunks by [`SearchOptions::policy`].
    pub split: bool,
    /// How several GPUs share the chunks when they do not split the
    /// database (`--balance weighted|greedy|dynamic`).
    pub policy: Policy,
    /// The GPU memory plans may use (`--gpu-memory`).
    pub memory: gpu::MemoryCap,
    /// Streams one GPU runs chunks on side by side (`--gpu-streams`; 0 or 1:
    /// one after another).
    pub streams: usize,
    /// Whether one GPU may score two queries in one launch
    /// (`--one-query-a-launch` says no).
    pub pair_queries: bool,
    /// Queries one GPU scores in one launch sequence where its kernel
    /// batches them (`--gpu-query-batch`; `None`: as many as fill it, 2 or
    /// fewer: none).
    pub query_batch: Option<usize>,
    /// Queries the search has (what batches of them are worth).
    pub queries: usize,
}

impl SearchOptions {
    /// The defaults for a search of `queries` queries (GPUs batch them
    /// from three on).
    pub fn for_queries(queries: usize) -> SearchOptions {
        SearchOptions {
            queries,
            ..SearchOptions::default()
        }
    }

    /// Whether a GPU may score this search's queries in batches of pairs
    /// with `scoring` (more than two queries, pairs and batches allowed,
    /// the query-group kernel's lifted update fits).
    pub fn batches(&self, scoring: &Scoring) -> bool {
        let gaps = scoring.gaps.kernel_gaps();
        self.pair_queries
            && self.query_batch.is_none_or(|b| b > 2)
            && self.queries > 2
            && gpu_kernels::simt_i16x2::gaps_fit(gaps)
            && gpu_kernels::query_group_i16x2::lift_fits(
                scoring.matrix.min_score(),
                scoring.matrix.max_score(),
                gaps.first,
            )
    }
}

impl Default for SearchOptions {
    fn default() -> SearchOptions {
        SearchOptions {
            kernel: KernelChoice::default(),
            split: true,
            policy: Policy::default(),
            memory: gpu::MemoryCap::default(),
            streams: usize::from(gpu::DEFAULT_GPU_STREAMS),
            pair_queries: true,
            query_batch: None,
            queries: 1,
        }
    }
}

/// The notice for `--gpu-query-batch` (`options.query_batch`) asked of a
/// search of several queries whose engine batches `batch_len` of them (2
/// or fewer: none), `why` it cannot; `None` where it applies or was not
/// asked for.
fn unused_query_batch(
    options: &SearchOptions,
    batch_len: usize,
    why: impl FnOnce() -> String,
) -> Option<String> {
    let asked = options.query_batch.filter(|&b| b > 2)?;
    (options.queries > 2 && batch_len <= 2)
        .then(|| format!("--gpu-query-batch {asked} has no effect: {}", why()))
}

/// `first`, then `second`, as one notice.
fn join_notices(first: Option<String>, second: String) -> String {
    match first {
        Some(first) => format!("{first}; {second}"),
        None => second,
    }
}

/// Opens an engine for `db` at `placement`: the CPU, one GPU holding the
/// database or streaming it in parts, or several GPUs sharing it by
/// `options.policy`; `auto` becomes each device's [`Plan`] here.
pub fn open(
    placement: Placement,
    db: Arc<Database>,
    scoring: Scoring,
    options: &SearchOptions,
) -> Result<Opened> {
    let started = std::time::Instant::now();
    let gpus = match SearchPlan::decide(placement, &db, &scoring, options)? {
        SearchPlan::Cpu { plan, fell_back } => {
            // What `auto` falling back says, and what it leaves unused.
            let notice = fell_back.map(|why| {
                let on_cpu = || "the search runs on the CPU".to_string();
                match unused_query_batch(options, 0, on_cpu) {
                    Some(unused) => join_notices(Some(why), unused),
                    None => why,
                }
            });
            let engine = cpu::CpuEngine::new(db.clone(), scoring.clone(), plan);
            let seconds = started.elapsed().as_secs_f64();
            return Ok(Opened {
                engine: Box::new(engine),
                notice,
                upload_seconds: seconds,
                pack_seconds: Some(seconds),
                on_gpus: false,
            });
        }
        SearchPlan::Gpus(gpus) => gpus,
    };
    let GpuPlan {
        devices,
        budget,
        layout,
        plans,
        batched,
    } = gpus;
    let selected = &devices;
    // What the engine says it does: `auto` as on the oldest GPU.
    let oldest = (0..selected.len())
        .min_by_key(|&k| selected[k].compute_capability)
        .ok_or(Error::NoDevice)?;
    let mut notice = plans[oldest].notice().map(str::to_string);
    let ordinals: Vec<usize> = selected.iter().map(|d| d.ordinal).collect();
    let mut pack_seconds = None;
    let (engine, upload_seconds): (Box<dyn Engine>, f64) = match layout {
        Layout::OneResident => {
            let ordinal = &ordinals[0];
            // Batches of queries only here: the one GPU that holds
            // the database scores them.
            let open = |plan: Plan| {
                gpu::GpuEngine::builder(*ordinal, scoring.clone(), plan)
                    .streams(options.streams)
                    .pair_queries(options.pair_queries)
                    .query_batch(options.query_batch)
                    .database(&db, budget)
            };
            let batched = batched.clone().unwrap_or_else(|| plans[0].clone());
            let mut no_room = false;
            let engine = match open(batched.clone())? {
                unbatched if batched != plans[0] && unbatched.query_batch_len() == 0 => {
                    // The memory holds no batch (the plan sized them
                    // without it: `SearchPlan::decide`): the plan of one
                    // query at a time, the first engine's memory freed first.
                    drop(unbatched);
                    no_room = true;
                    open(plans[0].clone())?
                }
                engine => engine,
            };
            notice = engine.plan().notice().map(str::to_string);
            let why = || match (options.batches(&scoring), options.kernel) {
                (false, _) => "these scores do not fit query-group-i16x2's 16-bit update".into(),
                (true, KernelChoice::Auto(auto)) if auto.query_group_max == 0 => {
                    "--auto-query-group 0 keeps query-group-i16x2 out".into()
                }
                (true, _) if !no_room && engine.plan().kernels() != [Kernel::QueryGroupI16x2] => {
                    format!(
                        "kernel {} scores one query at a time (batches need \
                     query-group-i16x2 on every chunk: --kernel auto on a database \
                     of fewer than {} sequences, or --kernel query-group-i16x2)",
                        engine.plan(),
                        crate::kernel::plan::AUTO_BATCH_MAX_SEQUENCES
                    )
                }
                (true, _) => "the GPU memory holds no batch".into(),
            };
            if let Some(unused) = unused_query_batch(options, engine.query_batch_len(), why) {
                notice = Some(join_notices(notice, unused));
            }
            let seconds = engine.upload_seconds();
            pack_seconds = Some(engine.pack_seconds());
            (Box::new(engine), seconds)
        }
        Layout::OneStreamed => {
            let engine = parted::PartedGpuEngine::new(
                ordinals[0],
                &db,
                scoring.clone(),
                plans[0].clone(),
                budget,
            )?;
            (Box::new(engine), started.elapsed().as_secs_f64())
        }
        Layout::SeveralResident => {
            let (engine, seconds) =
                multi::open_gpus(selected, &plans, &db, &scoring, options.policy, budget)?;
            (Box::new(engine), seconds)
        }
        Layout::SeveralStreamed => {
            let (engine, seconds) = parted::open_streamed_gpus(
                selected,
                &plans,
                &db,
                &scoring,
                options.policy,
                budget,
            )?;
            (Box::new(engine), seconds)
        }
        Layout::Split => {
            let (engine, said) = split::open_split(&ordinals, &db, &scoring, options)?;
            notice = said;
            (Box::new(engine), started.elapsed().as_secs_f64())
        }
    };
    let elsewhere = || match ordinals.len() {
        1 => "batches need the whole database on the GPU, and it is streamed in parts".into(),
        n => format!("batches run on one GPU, and this search runs on {n}"),
    };
    if !matches!(layout, Layout::OneResident | Layout::Split)
        && let Some(unused) = unused_query_batch(options, 0, elsewhere)
    {
        notice = Some(join_notices(notice, unused));
    }
    Ok(Opened {
        engine,
        notice,
        upload_seconds,
        pack_seconds,
        on_gpus: true,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_asked_query_batch_that_cannot_apply_is_said_once_with_why() {
        let asked = |query_batch, queries| SearchOptions {
            query_batch,
            queries,
            ..SearchOptions::default()
        };
        let why = || "the reason".to_string();
        let unused = unused_query_batch(&asked(Some(64), 100), 0, why);
        assert_eq!(
            unused.as_deref(),
            Some("--gpu-query-batch 64 has no effect: the reason")
        );
        // Not asked, asked for pairs at most, applied, or too few queries.
        assert_eq!(unused_query_batch(&asked(None, 100), 0, why), None);
        assert_eq!(unused_query_batch(&asked(Some(2), 100), 0, why), None);
        assert_eq!(unused_query_batch(&asked(Some(64), 100), 64, why), None);
        assert_eq!(unused_query_batch(&asked(Some(64), 2), 0, why), None);
        assert_eq!(join_notices(None, "b".into()), "b");
        assert_eq!(join_notices(Some("a".into()), "b".into()), "a; b");
    }
}
