//! The resident GPU engine: uploads its chunks of the packed database once,
//! keeps them on the GPU, and per query uploads only the query's profiles,
//! launches each chunk's kernel ([`Plan::kernel_for`]) and reads the scores
//! back.
//!
//! With several streams ([`GpuEngineBuilder::streams`]) the chunks whose
//! kernel allows it ([`crate::kernel::Adapter::overlaps`]) run side by side,
//! longest first, one stream after another in turn: the few longest pairs
//! (one group each, for many passes) no longer leave the GPU idle while
//! they finish, and no chunk's last wave waits for the next chunk's launch.
//! Each such chunk has its own region of the column scratch; what needs the
//! shared row buffer (the 32-bit rescue) runs on the engine's stream once
//! the chunk is done, before its scores are read.
//!
//! A batch of queries ([`Engine::score_batch`]) is scored two at a time,
//! neighbours by length, where [`GpuEngineBuilder::pair_queries`] allows
//! it: each chunk whose kernel scores both in one launch
//! ([`crate::kernel::PairsQueries::pairs_queries`]) runs them together, the
//! others run each query alone, one after the other on the chunk's stream;
//! the second query's scores have a buffer of their own.
//!
//! Where every chunk runs a kernel that batches query pairs
//! ([`crate::kernel::BatchesQueries::batches_queries`]), more than two queries
//! are scored in batches of up to hundreds, each launch taking the whole
//! batch ([`batch`]): what fills the GPU on a small database.

use std::borrow::Cow;
use std::collections::HashMap;
use std::ops::Range;
use std::sync::Arc;
use std::time::Instant;

use cudarc::driver::sys::CUevent_flags;
use cudarc::driver::{CudaContext, CudaEvent, CudaSlice, CudaStream};

pub mod batch;
mod builder;
pub use builder::GpuEngineBuilder;
mod launch;
pub use launch::{AS_FREED_FROM_RESIDUES, DISPATCH_VARIABLE, Dispatch};
mod read_back;

use super::budget::Budget;
use super::device::{DeviceInfo, device, kernels_module};
use super::timeline::{ChunkLabel, Detail, Timeline, timeline_detail};
use crate::db::{ChunkLimits, Database, PackedChunk, plan_chunks_split};
use crate::engine::Engine;
use crate::error::{Error, Result};
use crate::kernel::launch::{
    ChunkLaunch, DeviceChunk, Functions, SIMT_BLOCK, Scratch, VECTOR_BLOCK,
};
use crate::kernel::occupancy::{Occupancy, SmLimits, occupancy};
use crate::kernel::{KERNELS, Kernel, Plan};
use crate::scoring::Scoring;

/// `--gpu-streams`' default. On an H100 with the 20 standard queries, eight
/// streams took group-i16x2 from 3,595 to 4,002 GCUPS on a 570,000-sequence
/// synthetic database and from 2,153 to 4,000 on half of Swiss-Prot, whose
/// few long sequences otherwise run alone at the end of each query; four
/// streams were at most 3 % behind eight (benches/RESULTS.md, "Chunks side by
/// side"). Later, with the query-group kernel and pairs of queries, sixteen
/// took whole searches of half of Swiss-Prot from 4,665–4,681 to 4,731–4,784
/// GCUPS and of UniProt 20k by 1–2 %, and left the 570,000-sequence
/// database as it was (RESULTS.md, "Statistics off the critical path, and
/// sixteen streams").
pub const DEFAULT_GPU_STREAMS: u16 = 16;

/// Queries a search hands a GPU engine at once when it may pair them
/// ([`GpuEngineBuilder::pair_queries`]): it pairs each with the one next to
/// it in length among them.
const PAIRING_BATCH: usize = 8;

/// The stream an engine uploads and launches on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum EngineStream {
    /// The device's default stream (in order with every other engine on it).
    #[default]
    Default,
    /// A non-blocking stream of its own, so that this engine's upload and
    /// another engine's kernels on the same GPU can overlap.
    Own,
}

/// Resource use of a compiled kernel, as the driver reports it.
#[derive(Clone, Copy, Debug)]
pub struct KernelResources {
    /// Registers per thread.
    pub registers: i32,
    /// Local memory per thread in bytes (spills and local arrays).
    pub local_bytes: i32,
}

/// One entry point the plan may launch: what the driver reports of it and
/// the blocks of it one multiprocessor of this GPU holds.
#[derive(Clone, Copy, Debug)]
pub struct EntryPointUse {
    /// The PTX symbol.
    pub symbol: &'static str,
    /// Registers and local memory per thread.
    pub resources: KernelResources,
    /// Shared memory per block, static and dynamic, in bytes.
    pub shared_bytes: u32,
    /// Blocks per multiprocessor, and what limits them.
    pub occupancy: Occupancy,
}

/// Chunks of the sorted database for `plan` within `limits`: with `auto`'s
/// two stages, each stage gets chunks of its own sequences only.
pub fn plan_for(plan: &Plan, db: &Database, limits: ChunkLimits) -> Vec<Range<usize>> {
    let lengths: Vec<usize> = (0..db.len()).map(|i| db.length(i)).collect();
    plan_chunks_split(&lengths, limits, &plan.splits())
}

/// A query's profile on the device, for one kernel.
struct DeviceQuery {
    kernel: Kernel,
    profile: CudaSlice<u32>,
}

/// The second query of two scored together ([`Engine::score_batch`] pairs
/// queries where a chunk's kernel scores two in one launch,
/// [`crate::kernel::PairsQueries::pairs_queries`]): its residues' count, its
/// own profiles (for the chunks that run it alone, and its rescue), the
/// pair's profile, which chunks run both in one launch, and its scores.
struct Partner {
    len: usize,
    query: Vec<DeviceQuery>,
    /// The kernel that pairs them and their pair profile (`None`: no chunk
    /// pairs them).
    pair: Option<(Kernel, CudaSlice<u32>)>,
    paired: Vec<bool>,
    scores: CudaSlice<i32>,
}

/// A query's (or a pair's) profiles as the host builds them, before they
/// go up ([`GpuEngine::host_profiles`]). Built while the GPU scores the
/// pair before, they leave only their copies between two pairs' launches.
pub(super) struct HostProfiles {
    /// The first query's residues.
    len: usize,
    /// The first query's profile for each kernel of the plan it needs.
    query: Vec<(Kernel, Vec<u32>)>,
    partner: Option<HostPartner>,
}

/// A partner's share of [`HostProfiles`]: as [`Partner`] holds it, on the
/// host, without its scores.
struct HostPartner {
    len: usize,
    query: Vec<(Kernel, Vec<u32>)>,
    pair: Option<(Kernel, Vec<u32>)>,
    paired: Vec<bool>,
}

/// Which of the loaded queries a launch is for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Which {
    /// The query of [`GpuEngine::load_query`] (the low one of a pair).
    First,
    /// The partner of a pair.
    Partner,
}

/// A GPU holding chunks of the database (all of it, or the part it was given).
pub struct GpuEngine {
    info: DeviceInfo,
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    functions: Functions,
    /// Streaming multiprocessors (sizes the striped kernels' persistent grid).
    sm_count: usize,
    /// Residues of every chunk ([`ChunkLaunch::database_residues`]).
    resident_residues: u64,
    /// What one multiprocessor holds (for [`GpuEngine::entry_points`]).
    sm_limits: SmLimits,
    chunks: Vec<DeviceChunk>,
    row_buffer: CudaSlice<i32>,
    /// The column scratch, grown on demand: the first `shared_scratch`
    /// pairs for the launches on the engine's stream (the striped kernels,
    /// several-pass group launches one after another), then each
    /// overlapping chunk's own region ([`GpuEngine::overlap_scratch`]).
    scratch: Option<CudaSlice<i32>>,
    shared_scratch: usize,
    /// Streams that run chunks side by side (none: every launch on `stream`).
    workers: Vec<Arc<CudaStream>>,
    /// Most scratch (pairs) the overlapping chunks of one query may take;
    /// a query that needs more runs its chunks one after another.
    overlap_scratch_limit: usize,
    /// Most bytes a batch of queries' profile rows and scores may take
    /// ([`batch`]); a batch that needs more is scored in smaller ones.
    batch_bytes_limit: usize,
    /// For the loaded query, each chunk's scratch region when it runs on a
    /// worker stream (`Some`, possibly empty), or `None` on `stream`.
    overlap_scratch: Vec<Option<Range<usize>>>,
    /// Each chunk launched on a worker and not yet joined: the event
    /// recorded after its launch.
    pending: Vec<Option<CudaEvent>>,
    /// The sorted positions the chunks cover; `scores[k]` is position
    /// `positions.start + k`.
    positions: Range<usize>,
    scores: CudaSlice<i32>,
    scoring: Scoring,
    plan: Plan,
    /// The loaded query's residues and its profile for each kernel it needs;
    /// no profile when it is empty (every score 0, nothing launches).
    query_len: usize,
    query: Vec<DeviceQuery>,
    /// The loaded query's partner, when two are scored together.
    partner: Option<Partner>,
    /// Whether [`Engine::score_batch`] scores two queries together where
    /// the plan's kernels can.
    pair_queries: bool,
    /// Queries a batch of query pairs takes ([`batch`]; 2 or fewer: none).
    query_batch: usize,
    /// What [`GpuEngineBuilder::query_batch`] asked for.
    query_batch_asked: Option<usize>,
    batch: batch::BatchBuffers,
    /// The page-locked buffer scores are read back through.
    read_back: read_back::ReadBack,
    upload_seconds: f64,
    /// Of `upload_seconds`, the time spent packing chunks.
    pack_seconds: f64,
    /// How much of each query's timeline to print (`WARPSW_TIMELINE`,
    /// [`super::timeline`]).
    timeline_detail: Detail,
    /// How a query's chunks go to the workers (`WARPSW_CHUNK_DISPATCH`).
    dispatch: launch::Dispatch,
    /// The loaded query's timeline, until its scores are read.
    timeline: Option<Timeline>,
}

impl GpuEngine {
    /// Sizes the batches of query pairs: at most what was asked (or what
    /// fills the GPU, [`batch::auto_batch_queries`]),
    /// [`batch::MAX_BATCH_QUERIES`], and what the scratch and batch limits
    /// hold; none without pairs or a kernel that batches.
    fn size_query_batch(&mut self) {
        let per_entry = self.batch_scratch_per_entry().max(1);
        let scores_per_entry = 2 * std::mem::size_of::<i32>() * self.positions.len().max(1);
        let memory_entries = (self.overlap_scratch_limit / per_entry)
            .min(self.batch_bytes_limit / scores_per_entry)
            .max(1);
        let batch = match self.query_batch_asked {
            None => batch::auto_batch_queries(self.sm_count, self.positions.len(), memory_entries),
            Some(asked) => asked.min(2 * memory_entries).min(batch::MAX_BATCH_QUERIES),
        };
        self.query_batch = if self.pair_queries { batch } else { 0 };
    }

    /// Queries a batch of query pairs takes (2 or fewer: none, pairs at
    /// most).
    pub fn query_batch_len(&self) -> usize {
        if self.batches() { self.query_batch } else { 0 }
    }

    /// The device.
    pub fn info(&self) -> &DeviceInfo {
        &self.info
    }

    /// The plan the engine runs.
    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// Seconds spent packing and uploading the database.
    pub fn upload_seconds(&self) -> f64 {
        self.upload_seconds
    }

    /// Of [`GpuEngine::upload_seconds`], the seconds spent packing chunks.
    pub fn pack_seconds(&self) -> f64 {
        self.pack_seconds
    }

    /// The sorted positions this engine scores (those of its chunks, in
    /// order): [`GpuEngine::read_scores`] gives one score per position.
    pub fn positions(&self) -> Range<usize> {
        self.positions.clone()
    }

    /// Registers and local memory of `kernel`'s entry point on this device.
    pub fn resources(&self, kernel: Kernel) -> Result<KernelResources> {
        let symbol = kernel.info().symbol;
        let f = self
            .functions
            .get(symbol)
            .ok_or_else(|| Error::Internal(format!("entry point {symbol} is not loaded")))?;
        let stage = self.info.error("reading kernel attributes");
        Ok(KernelResources {
            registers: f.num_regs().map_err(&stage)?,
            local_bytes: f.local_size_bytes().map_err(&stage)?,
        })
    }

    /// Every entry point the plan may launch (each configuration of a
    /// kernel that has several, its rescue and fallbacks), once, with the
    /// driver's registers, local memory and shared memory, and the blocks
    /// of 256 threads (every launch's block) a multiprocessor holds.
    pub fn entry_points(&self) -> Result<Vec<EntryPointUse>> {
        const {
            assert!(
                SIMT_BLOCK == VECTOR_BLOCK,
                "one block size for every launch"
            )
        };
        let stage = self.info.error("reading kernel attributes");
        let mut seen = Vec::new();
        let mut uses = Vec::new();
        for kernel in self.plan.kernels() {
            for symbol in kernel.symbols() {
                if seen.contains(&symbol) {
                    continue;
                }
                seen.push(symbol);
                let f = self.functions.get(symbol).ok_or_else(|| {
                    Error::Internal(format!("entry point {symbol} is not loaded"))
                })?;
                let resources = KernelResources {
                    registers: f.num_regs().map_err(&stage)?,
                    local_bytes: f.local_size_bytes().map_err(&stage)?,
                };
                let shared_bytes = f.shared_size_bytes().map_err(&stage)?.max(0) as u32
                    + kernel.adapter().dynamic_shared_bytes(symbol) as u32;
                uses.push(EntryPointUse {
                    symbol,
                    resources,
                    shared_bytes,
                    occupancy: occupancy(
                        &self.sm_limits,
                        resources.registers.max(0) as u32,
                        shared_bytes,
                        VECTOR_BLOCK,
                    ),
                });
            }
        }
        Ok(uses)
    }

    /// Uploads `query`'s profile for each kernel of the plan it needs; later
    /// launches score against them.
    pub fn load_query(&mut self, query: &[u8]) -> Result<()> {
        let host = self.host_profiles(query, None)?;
        self.load_queries(query, host)
    }

    /// `query`'s profile for each kernel of the plan it needs, on the host.
    fn query_profiles(&self, query: &[u8]) -> Vec<(Kernel, Vec<u32>)> {
        self.plan
            .kernels_for_query(query.len())
            .into_iter()
            .map(|kernel| {
                (
                    kernel,
                    kernel.adapter().profile(query, &self.scoring.matrix),
                )
            })
            .collect()
    }

    /// Profiles built on the host, on the device.
    fn upload_profiles(&self, profiles: Vec<(Kernel, Vec<u32>)>) -> Result<Vec<DeviceQuery>> {
        profiles
            .into_iter()
            .map(|(kernel, profile)| {
                let profile = self
                    .stream
                    .clone_htod(&profile)
                    .map_err(self.info.error("uploading the query profile"))?;
                Ok(DeviceQuery { kernel, profile })
            })
            .collect()
    }

    /// What [`GpuEngine::load_queries`] uploads for `query` and, if given,
    /// a `partner` to score beside it (both non-empty; none for an empty
    /// query), built on the host: it needs nothing of the device, so a
    /// pair's can be built while the GPU scores the pair before.
    pub(super) fn host_profiles(
        &self,
        query: &[u8],
        partner: Option<&[u8]>,
    ) -> Result<HostProfiles> {
        if query.is_empty() {
            return Ok(HostProfiles {
                len: 0,
                query: Vec::new(),
                partner: None,
            });
        }
        let partner = match partner.filter(|p| !p.is_empty()) {
            Some(partner) => Some(self.host_partner(query, partner)?),
            None => None,
        };
        Ok(HostProfiles {
            len: query.len(),
            query: self.query_profiles(query),
            partner,
        })
    }

    /// `partner`'s profiles, the pair's profile and which chunks pair it
    /// with `query`, on the host.
    fn host_partner(&self, query: &[u8], partner: &[u8]) -> Result<HostPartner> {
        let gaps = self.scoring.gaps.kernel_gaps();
        let range = (
            self.scoring.matrix.min_score(),
            self.scoring.matrix.max_score(),
        );
        let mut pair_kernel = None;
        let mut paired = Vec::with_capacity(self.chunks.len());
        for (k, chunk) in self.chunks.iter().enumerate() {
            let kernel = self.chunk_kernel_for(k, query.len())?;
            let pairs = kernel == self.chunk_kernel_for(k, partner.len())?
                && kernel.adapter().pairs().is_some_and(|p| {
                    p.pairs_queries(query.len(), partner.len(), chunk.longest, gaps, range)
                });
            // One pairing kernel a pair: the first chunk's.
            let pairs = pairs && *pair_kernel.get_or_insert(kernel) == kernel;
            paired.push(pairs);
        }
        let pair = pair_kernel.map(|kernel| {
            (
                kernel,
                kernel.pair_profile(query, partner, &self.scoring.matrix),
            )
        });
        Ok(HostPartner {
            len: partner.len(),
            query: self.query_profiles(partner),
            pair,
            paired,
        })
    }

    /// Loads `query` and, if `host` has one, its partner to score beside
    /// it, from their profiles built on the host
    /// ([`GpuEngine::host_profiles`] of `query`): each chunk whose kernel
    /// for both pairs them runs both in one launch, the others each query
    /// alone.
    fn load_queries(&mut self, query: &[u8], host: HostProfiles) -> Result<()> {
        debug_assert_eq!(host.len, query.len(), "profiles of another query");
        self.ctx
            .bind_to_thread()
            .map_err(self.info.error("binding the device"))?;
        // The last query's launches are done before its profile goes.
        self.join_all()?;
        self.query.clear();
        // Its scores' buffer serves the next partner.
        let old_scores = self.partner.take().map(|p| p.scores);
        self.query_len = query.len();
        self.overlap_scratch.clear();
        if query.is_empty() {
            return Ok(());
        }
        self.query = self.upload_profiles(host.query)?;
        if let Some(partner) = host.partner {
            self.partner = Some(self.load_partner(partner, old_scores)?);
        }
        // The shared scratch: the most any chunk's launches ask for with it
        // (a chunk's own length and count: the query-group kernels' need
        // grows with the chunk's longest sequence).
        let needs = (0..self.chunks.len())
            .map(|k| self.chunk_scratch(k))
            .collect::<Result<Vec<usize>>>()?;
        let shared = needs.iter().copied().max().unwrap_or(0);
        self.shared_scratch = shared;
        self.overlap_scratch = self.plan_overlap(&needs)?;
        let overlap_end = self
            .overlap_scratch
            .iter()
            .flatten()
            .map(|r| r.end)
            .max()
            .unwrap_or(shared);
        if overlap_end > 0 {
            self.reserve_scratch(overlap_end)?;
        }
        Ok(())
    }

    /// A partner on the device: its profiles and the pair's, and its
    /// scores' buffer (`scores`, the last partner's, or a new one).
    fn load_partner(&self, host: HostPartner, scores: Option<CudaSlice<i32>>) -> Result<Partner> {
        let pair = match host.pair {
            Some((kernel, profile)) => {
                let profile = self
                    .stream
                    .clone_htod(&profile)
                    .map_err(self.info.error("uploading the query pair's profile"))?;
                Some((kernel, profile))
            }
            None => None,
        };
        let scores = match scores {
            Some(scores) => scores,
            None => self
                .stream
                .alloc_zeros::<i32>(self.scores.len())
                .map_err(self.info.error("allocating the scores"))?,
        };
        Ok(Partner {
            len: host.len,
            query: self.upload_profiles(host.query)?,
            pair,
            paired: host.paired,
            scores,
        })
    }

    /// Whether chunk `k` runs the loaded query and its partner in one
    /// launch.
    fn paired(&self, k: usize) -> bool {
        self.partner
            .as_ref()
            .is_some_and(|p| p.paired.get(k).copied().unwrap_or(false))
    }

    /// The column scratch (pairs) chunk `k`'s launches for the loaded
    /// queries need: both in one launch, or the most of either's.
    fn chunk_scratch(&self, k: usize) -> Result<usize> {
        let chunk = &self.chunks[k];
        let (threads, longest) = (chunk.range.len(), chunk.longest);
        let need = |which| -> Result<usize> {
            let len = self.query_len_of(which)?;
            let adapter = self.chunk_kernel_for(k, len)?.adapter();
            Ok(adapter.scratch_pairs(len, threads, longest, self.sm_count))
        };
        let mut most = need(Which::First)?;
        if let Some(partner) = &self.partner {
            most = most.max(need(Which::Partner)?);
            if self.paired(k) {
                let len = self.query_len.max(partner.len);
                let pairs = self.chunk_kernel(k)?.adapter().pairs();
                let need = pairs.map_or(0, |p| {
                    p.pair_scratch_pairs(len, threads, longest, self.sm_count)
                });
                most = most.max(need);
            }
        }
        Ok(most)
    }

    /// Which chunks run on the worker streams for the loaded queries, and
    /// each one's scratch region (`needs[k]` pairs, [`GpuEngine::chunk_scratch`])
    /// after the shared one: every chunk whose kernels overlap, unless
    /// their regions together exceed the limit (then none: the chunks run
    /// one after another).
    fn plan_overlap(&self, needs: &[usize]) -> Result<Vec<Option<Range<usize>>>> {
        let gaps = self.scoring.gaps.kernel_gaps();
        let none = vec![None; self.chunks.len()];
        if self.workers.is_empty() {
            return Ok(none);
        }
        let mut end = self.shared_scratch;
        let mut regions = Vec::with_capacity(self.chunks.len());
        for k in 0..self.chunks.len() {
            let mut overlaps = self.chunk_kernel(k)?.adapter().overlaps(gaps);
            if let Some(partner) = &self.partner {
                overlaps &= self
                    .chunk_kernel_for(k, partner.len)?
                    .adapter()
                    .overlaps(gaps);
            }
            if !overlaps {
                regions.push(None);
                continue;
            }
            let pairs = needs[k];
            regions.push(Some(end..end + pairs));
            end += pairs;
        }
        if end - self.shared_scratch > self.overlap_scratch_limit {
            return Ok(none);
        }
        Ok(regions)
    }

    /// Grows the column scratch to `pairs` pairs of i32.
    fn reserve_scratch(&mut self, pairs: usize) -> Result<()> {
        if self.scratch.as_ref().is_none_or(|s| s.len() < 2 * pairs) {
            self.scratch = None; // free the old one first
            let scratch = self
                .stream
                .alloc_zeros::<i32>(2 * pairs)
                .map_err(self.info.error("allocating the kernels' scratch"))?;
            self.scratch = Some(scratch);
        }
        Ok(())
    }
}

impl Drop for GpuEngine {
    /// cudarc frees each buffer on its stream without making the context
    /// current, which fails (and leaves a sticky error in the shared context)
    /// on a thread that never used this GPU, such as a dispatcher thread
    /// dropping a part it no longer keeps: make it current first.
    fn drop(&mut self) {
        self.ctx.record_err(self.ctx.bind_to_thread());
        // The buffers are freed on the engine's stream: let it wait for
        // every worker first (a query launched and never read).
        for worker in &self.workers {
            self.ctx.record_err(self.stream.join(worker));
        }
    }
}

impl Engine for GpuEngine {
    fn description(&self) -> String {
        let streams = match self.workers.len() {
            0 => String::new(),
            n => format!(", chunks side by side on {n} streams"),
        };
        let loaded = super::device::kernels_loaded_from(self.info.ordinal)
            .map(|from| format!(", {from}"))
            .unwrap_or_default();
        format!(
            "{} (sm_{}{}{loaded}), kernel {}{streams}; database packed in {:.2} s",
            self.info.label(),
            self.info.compute_capability.0,
            self.info.compute_capability.1,
            self.plan,
            self.pack_seconds
        )
    }

    fn kernel_resources(&self) -> Result<Option<KernelResources>> {
        self.resources(self.plan.kernels()[0]).map(Some)
    }

    fn entry_points(&self) -> Result<Vec<EntryPointUse>> {
        GpuEngine::entry_points(self)
    }

    fn score_all(&mut self, query: &[u8]) -> Result<Vec<i32>> {
        self.launch_all(query)?;
        self.read_scores()
    }

    fn database_residues(&self) -> u64 {
        self.resident_residues
    }

    /// With pairs, a few queries at a time, so that each is paired with
    /// the one nearest it in length among them.
    fn batch_len(&self) -> usize {
        if self.batches() {
            self.query_batch
        } else if self.pair_queries {
            PAIRING_BATCH
        } else {
            1
        }
    }

    fn score_batch(&mut self, queries: &[&[u8]]) -> Result<Vec<Vec<i32>>> {
        self.score_batch_reporting(queries, &|_| ())
    }

    /// Every chunk's launch is queued at once (two queries' where they
    /// pair); `progress` hears each chunk's cells as it is done, in launch
    /// order, and a pair's scores come back in one copy at the end, into
    /// the engine's page-locked buffer, from which they are copied out
    /// once the next pair is launched (each query's in turn where they do
    /// not fit it; with batches of query pairs, a batch's scores at once,
    /// in pieces of at most 16 MiB).
    fn score_batch_reporting(
        &mut self,
        queries: &[&[u8]],
        progress: &(dyn Fn(u64) + Sync),
    ) -> Result<Vec<Vec<i32>>> {
        if self.batches() && queries.len() > 2 {
            self.score_batched(queries, progress)
        } else {
            self.score_paired(queries, progress)
        }
    }
}
