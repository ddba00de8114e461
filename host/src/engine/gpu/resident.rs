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
//! ([`crate::kernel::Adapter::pairs_queries`]) runs them together, the
//! others run each query alone, one after the other on the chunk's stream;
//! the second query's scores have a buffer of their own.
//!
//! Where every chunk runs a kernel that batches query pairs
//! ([`crate::kernel::Adapter::batches_queries`]), more than two queries
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

use super::budget::Budget;
use super::device::{DeviceInfo, device, kernels_module};
use super::launch::{ChunkLaunch, DeviceChunk, Functions, SIMT_BLOCK, Scratch, VECTOR_BLOCK};
use super::timeline::{Timeline, timeline_on};
use crate::db::{ChunkLimits, Database, PackedChunk, plan_chunks_split};
use crate::engine::Engine;
use crate::error::{Error, Result};
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
/// [`crate::kernel::Adapter::pairs_queries`]): its residues' count, its
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
    upload_seconds: f64,
    /// Of `upload_seconds`, the time spent packing chunks.
    pack_seconds: f64,
    /// Whether each query's timeline is printed ([`super::timeline`]).
    timeline_on: bool,
    /// The loaded query's timeline, until its scores are read.
    timeline: Option<Timeline>,
}

/// How a [`GpuEngine`] is opened: the device, scoring and plan, then what
/// it uploads ([`GpuEngineBuilder::database`], [`GpuEngineBuilder::chunk_plan`]
/// or [`GpuEngineBuilder::chunks`]).
pub struct GpuEngineBuilder {
    ordinal: usize,
    scoring: Scoring,
    plan: Plan,
    stream: EngineStream,
    streams: usize,
    pair_queries: bool,
    query_batch: Option<usize>,
}

impl GpuEngine {
    /// Starts opening GPU `ordinal` to score with `scoring` by `plan`.
    pub fn builder(ordinal: usize, scoring: Scoring, plan: Plan) -> GpuEngineBuilder {
        GpuEngineBuilder {
            ordinal,
            scoring,
            plan,
            stream: EngineStream::Default,
            streams: 1,
            pair_queries: true,
            query_batch: None,
        }
    }
}

impl GpuEngineBuilder {
    /// Uploads and launches on `stream` (default: the device's default stream).
    pub fn stream(mut self, stream: EngineStream) -> GpuEngineBuilder {
        self.stream = stream;
        self
    }

    /// Runs chunks side by side on `streams` streams (default 1: one chunk
    /// after another on the engine's stream; see the module docs).
    pub fn streams(mut self, streams: usize) -> GpuEngineBuilder {
        self.streams = streams.max(1);
        self
    }

    /// Whether [`Engine::score_batch`] scores two queries in one launch
    /// where a chunk's kernel can and its model says it pays (default:
    /// yes); the scores are the same either way.
    pub fn pair_queries(mut self, pair: bool) -> GpuEngineBuilder {
        self.pair_queries = pair;
        self
    }

    /// Queries [`Engine::score_batch`] scores in one launch sequence where
    /// every chunk's kernel batches them ([`batch`]): `None` (default) as
    /// many as fill the GPU ([`batch::auto_batch_queries`]), 2 or fewer
    /// none (pairs at most); never more than [`batch::MAX_BATCH_QUERIES`]
    /// nor than the memory holds ([`GpuEngineBuilder::database`]'s
    /// budget).
    pub fn query_batch(mut self, queries: Option<usize>) -> GpuEngineBuilder {
        self.query_batch = queries;
        self
    }

    /// Uploads the whole of `db`, chunked for `budget` (the device's free
    /// memory, [`super::MemoryCap::free`]).
    pub fn database(self, db: &Database, budget: Budget) -> Result<GpuEngine> {
        let plan = plan_for(&self.plan, db, budget.resident_chunks(db)?);
        budget.check_resident(db, &plan)?;
        let overlap_bytes = budget.overlap_scratch_bytes(db);
        let mut engine = self.chunk_plan(db, &plan)?;
        engine.overlap_scratch_limit = overlap_bytes / 8;
        engine.batch_bytes_limit = budget.batch_bytes(db);
        engine.size_query_batch();
        Ok(engine)
    }

    /// Uploads `db` cut into the chunks of `plan` (consecutive ranges of
    /// sorted positions covering the database; several GPUs share one plan
    /// so that any chunk can run on any of them).
    pub fn chunk_plan(self, db: &Database, plan: &[Range<usize>]) -> Result<GpuEngine> {
        let chunks = plan
            .iter()
            .map(|range| Cow::Owned(PackedChunk::pack(db, range.clone())));
        self.chunks(chunks)
    }

    /// Uploads `chunks`: consecutive packed chunks of a sorted database,
    /// which the engine's scores then cover ([`GpuEngine::positions`]).
    pub fn chunks<'a>(
        self,
        chunks: impl IntoIterator<Item = Cow<'a, PackedChunk>>,
    ) -> Result<GpuEngine> {
        let GpuEngineBuilder {
            ordinal,
            scoring,
            plan,
            stream,
            streams,
            pair_queries,
            query_batch,
        } = self;
        let info = device(ordinal)?;
        let stage = |s| info.error(s);
        let (ctx, module) = kernels_module(ordinal, &info.name)?;
        let stream = match stream {
            EngineStream::Own => ctx.new_stream().map_err(stage("creating a stream"))?,
            EngineStream::Default => ctx.default_stream(),
        };
        // The first worker takes the longest chunk: the highest priority,
        // so that its blocks start before the rest fill the GPU.
        let workers = match streams {
            1 => Vec::new(),
            n => {
                ctx.bind_to_thread().map_err(stage("binding the device"))?;
                let (_, highest) = cudarc::driver::result::stream::get_priority_range()
                    .map_err(stage("reading stream priorities"))?;
                (0..n)
                    .map(|k| match k {
                        0 => ctx.new_stream_with_priority(highest),
                        _ => ctx.new_stream(),
                    })
                    .collect::<std::result::Result<Vec<_>, _>>()
                    .map_err(stage("creating a stream"))?
            }
        };
        let mut functions = HashMap::new();
        for info in KERNELS {
            for symbol in info.kernel.symbols() {
                let shared = info.kernel.adapter().dynamic_shared_bytes(symbol);
                let function = module
                    .load_function(symbol)
                    .map_err(stage("loading a kernel"))?;
                if shared > 0 {
                    function
                        .set_attribute(
                            cudarc::driver::sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                            shared as i32,
                        )
                        .map_err(stage("setting a kernel's shared memory"))?;
                }
                functions.insert(symbol, function);
            }
        }
        let attribute = |which| -> Result<u32> {
            let value = ctx.attribute(which).map_err(stage("reading attributes"))?;
            Ok(value.max(0) as u32)
        };
        use cudarc::driver::sys::CUdevice_attribute as A;
        let sm_count = attribute(A::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?.max(1) as usize;
        let sm_limits = SmLimits {
            registers: attribute(A::CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR)?,
            shared_bytes: attribute(A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR)?,
            reserved_shared_per_block: attribute(
                A::CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK,
            )?,
            threads: attribute(A::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR)?,
            blocks: attribute(A::CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR)?,
        };

        let started = Instant::now();
        let mut packed_chunks = chunks.into_iter();
        let mut pack_seconds = 0.0;
        let mut chunks = Vec::new();
        let mut row_buffer_pairs = 1;
        // A chunk of empty sequences has no words, and the driver refuses
        // empty allocations: such a chunk keeps one pad word.
        let pad_word = [u32::from_le_bytes([gpu_kernels::layout::PAD_CODE; 4])];
        let mut positions: Option<Range<usize>> = None;
        loop {
            // Chunks may be packed as they are asked for: timed apart.
            let packing = Instant::now();
            let Some(packed) = packed_chunks.next() else {
                break;
            };
            pack_seconds += packing.elapsed().as_secs_f64();
            positions = match positions {
                None => Some(packed.range.clone()),
                Some(p) if p.end == packed.range.start => Some(p.start..packed.range.end),
                Some(p) => {
                    return Err(Error::Internal(format!(
                        "chunk {:?} does not follow {p:?}",
                        packed.range
                    )));
                }
            };
            row_buffer_pairs =
                row_buffer_pairs.max(packed.words_per_sequence * 4 * packed.sequences());
            chunks.push(DeviceChunk {
                range: packed.range.clone(),
                longest: packed.longest(),
                residue_count: packed.lengths.iter().map(|&n| u64::from(n)).sum(),
                words_per_sequence: packed.words_per_sequence,
                residues: stream
                    .clone_htod(match packed.words.is_empty() {
                        true => &pad_word[..],
                        false => &packed.words[..],
                    })
                    .map_err(stage("uploading the database"))?,
                lengths: stream
                    .clone_htod(&packed.lengths)
                    .map_err(stage("uploading the database"))?,
            });
        }
        let row_buffer = stream
            .alloc_zeros::<i32>(2 * row_buffer_pairs)
            .map_err(stage("allocating the row buffer"))?;
        let positions = positions.unwrap_or(0..0);
        let scores = stream
            .alloc_zeros::<i32>(positions.len().max(1))
            .map_err(stage("allocating the scores"))?;
        stream
            .synchronize()
            .map_err(stage("uploading the database"))?;
        let upload_seconds = started.elapsed().as_secs_f64();

        let mut engine = GpuEngine {
            info,
            ctx,
            stream,
            functions,
            sm_count,
            sm_limits,
            chunks,
            row_buffer,
            scratch: None,
            shared_scratch: 0,
            workers,
            overlap_scratch_limit: usize::MAX,
            batch_bytes_limit: usize::MAX,
            overlap_scratch: Vec::new(),
            pending: Vec::new(),
            positions,
            scores,
            scoring,
            plan,
            query_len: 0,
            query: Vec::new(),
            partner: None,
            pair_queries,
            query_batch: 0,
            query_batch_asked: query_batch,
            batch: batch::BatchBuffers::default(),
            upload_seconds,
            pack_seconds,
            timeline_on: timeline_on()?,
            timeline: None,
        };
        engine.size_query_batch();
        Ok(engine)
    }
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
        self.load_queries(query, None)
    }

    /// The profiles of `query` for each kernel of the plan it needs.
    fn upload_profiles(&self, query: &[u8]) -> Result<Vec<DeviceQuery>> {
        let mut profiles = Vec::new();
        for kernel in self.plan.kernels_for_query(query.len()) {
            let adapter = kernel.adapter();
            let profile = self
                .stream
                .clone_htod(&adapter.profile(query, &self.scoring.matrix))
                .map_err(self.info.error("uploading the query profile"))?;
            profiles.push(DeviceQuery { kernel, profile });
        }
        Ok(profiles)
    }

    /// Loads `query` and, if given, a `partner` to score beside it: each
    /// chunk whose kernel for both pairs them runs both in one launch, the
    /// others each query alone (both non-empty).
    fn load_queries(&mut self, query: &[u8], partner: Option<&[u8]>) -> Result<()> {
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
        self.query = self.upload_profiles(query)?;
        if let Some(partner) = partner.filter(|p| !p.is_empty()) {
            self.partner = Some(self.load_partner(query, partner, old_scores)?);
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

    /// `partner`'s profiles, the pair's profile and which chunks pair it
    /// with `query`, and its scores' buffer (`scores`, the last partner's,
    /// or a new one).
    fn load_partner(
        &self,
        query: &[u8],
        partner: &[u8],
        scores: Option<CudaSlice<i32>>,
    ) -> Result<Partner> {
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
                && kernel.adapter().pairs_queries(
                    query.len(),
                    partner.len(),
                    chunk.longest,
                    gaps,
                    range,
                );
            // One pairing kernel a pair: the first chunk's.
            let pairs = pairs && *pair_kernel.get_or_insert(kernel) == kernel;
            paired.push(pairs);
        }
        let pair = match pair_kernel {
            Some(kernel) => {
                let profile = kernel
                    .adapter()
                    .pair_profile(query, partner, &self.scoring.matrix);
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
            len: partner.len(),
            query: self.upload_profiles(partner)?,
            pair,
            paired,
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
                let adapter = self.chunk_kernel(k)?.adapter();
                most = most.max(adapter.pair_scratch_pairs(len, threads, longest, self.sm_count));
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

    /// Loads `query` and launches every chunk's kernels without waiting for
    /// them, on the worker streams in turn (longest chunk first) where the
    /// plan allows, else on the engine's stream; [`GpuEngine::read_scores`]
    /// waits.
    pub fn launch_all(&mut self, query: &[u8]) -> Result<()> {
        self.launch_queries(query, None)
    }

    /// [`GpuEngine::launch_all`] for `query` and, if given, a partner
    /// scored beside it ([`GpuEngine::load_queries`]).
    fn launch_queries(&mut self, query: &[u8], partner: Option<&[u8]>) -> Result<()> {
        // A timeline is this query's or none (not a query's before).
        self.timeline = None;
        let mut timeline = self.timeline_on.then(|| Timeline::start(&self.stream));
        self.load_queries(query, partner)?;
        if self.query.is_empty() {
            return Ok(());
        }
        if let Some(timeline) = &mut timeline {
            timeline.mark("profiles", &self.stream);
        }
        let ordering = self.info.error("ordering the streams");
        let no_timing = Some(CUevent_flags::CU_EVENT_DISABLE_TIMING);
        // The workers start once the profiles are on the device.
        if self.overlap_scratch.iter().any(Option::is_some) {
            let ready = self.stream.record_event(no_timing).map_err(&ordering)?;
            for worker in &self.workers {
                worker.wait(&ready).map_err(&ordering)?;
            }
        }
        // Each worker launch is recorded as pending at once, so that even
        // after an error the next query (or the engine's end) waits for it.
        self.pending = (0..self.chunks.len()).map(|_| None).collect();
        let mut turn = 0;
        for k in 0..self.chunks.len() {
            let (stream, region) = match self.overlap_scratch[k].clone() {
                Some(region) => {
                    let worker = self.workers[turn % self.workers.len()].clone();
                    turn += 1;
                    (worker, Some(region))
                }
                None => (self.stream.clone(), None),
            };
            let started = timeline.as_mut().and_then(|t| t.chunk_start(&stream));
            let launched = self.launch_chunk_on(k, &stream, region.clone());
            if region.is_some() {
                self.pending[k] = Some(stream.record_event(no_timing).map_err(&ordering)?);
            }
            launched?;
            if let Some(timeline) = &mut timeline {
                timeline.chunk_end(started, &stream);
            }
        }
        if let Some(timeline) = &mut timeline {
            timeline.mark("queued", &self.stream);
        }
        self.timeline = timeline;
        Ok(())
    }

    /// Joins chunk `k`'s launch on a worker stream, if it is pending, into
    /// the engine's stream, and queues what it left there (the rescue).
    fn join_chunk(&mut self, k: usize) -> Result<()> {
        let Some(done) = self.pending.get_mut(k).and_then(Option::take) else {
            return Ok(());
        };
        self.stream
            .wait(&done)
            .map_err(self.info.error("ordering the streams"))?;
        for which in self.loaded() {
            let kernel = self.chunk_kernel_for(k, self.query_len_of(which)?)?;
            let launch = self.chunk_launch(k, kernel, which, &self.stream, None)?;
            kernel.adapter().after_overlap(&launch)?;
        }
        Ok(())
    }

    /// [`GpuEngine::join_chunk`] for every chunk.
    fn join_all(&mut self) -> Result<()> {
        for k in 0..self.pending.len() {
            self.join_chunk(k)?;
        }
        self.pending.clear();
        Ok(())
    }

    /// The scores of [`GpuEngine::positions`] for the query of the last
    /// [`GpuEngine::launch_all`], once its kernels are done (all 0 when the
    /// query is empty).
    pub fn read_scores(&mut self) -> Result<Vec<i32>> {
        self.scores_of(Which::First)
    }

    /// Where chunk `chunk`'s scores lie in `scores`.
    fn local(&self, chunk: &DeviceChunk) -> Range<usize> {
        chunk.range.start - self.positions.start..chunk.range.end - self.positions.start
    }

    /// Launches the plan's kernel on chunk `k` for the loaded query on the
    /// engine's stream (asynchronous; nothing for an empty query).
    pub fn launch_chunk(&self, k: usize) -> Result<()> {
        self.launch_chunk_on(k, &self.stream, None)
    }

    /// The plan's kernel for chunk `k` and the loaded query.
    fn chunk_kernel(&self, k: usize) -> Result<Kernel> {
        self.chunk_kernel_for(k, self.query_len)
    }

    /// The plan's kernel for chunk `k` and a query of `query_len` residues.
    fn chunk_kernel_for(&self, k: usize, query_len: usize) -> Result<Kernel> {
        let chunk = self
            .chunks
            .get(k)
            .ok_or_else(|| Error::Internal(format!("chunk {k} is not on {}", self.info.label())))?;
        Ok(self
            .plan
            .kernel_for(query_len, chunk.longest, chunk.range.len()))
    }

    /// The loaded queries: the first, and its partner if there is one.
    fn loaded(&self) -> Vec<Which> {
        match self.partner {
            Some(_) => vec![Which::First, Which::Partner],
            None => vec![Which::First],
        }
    }

    /// A loaded query: its residues, its profiles and its scores (an
    /// internal error for a partner when none is loaded).
    fn loaded_query(&self, which: Which) -> Result<(usize, &[DeviceQuery], &CudaSlice<i32>)> {
        match (which, &self.partner) {
            (Which::First, _) => Ok((self.query_len, &self.query, &self.scores)),
            (Which::Partner, Some(p)) => Ok((p.len, &p.query, &p.scores)),
            (Which::Partner, None) => Err(Error::Internal("no partner loaded".into())),
        }
    }

    /// Residues of a loaded query.
    fn query_len_of(&self, which: Which) -> Result<usize> {
        Ok(self.loaded_query(which)?.0)
    }

    /// What `kernel`'s adapter needs to launch on chunk `k` for loaded
    /// query `which` on `stream`: beside other chunks with scratch region
    /// `overlap` (pairs), or on the engine's stream with the shared
    /// scratch.
    fn chunk_launch<'a>(
        &'a self,
        k: usize,
        kernel: Kernel,
        which: Which,
        stream: &'a Arc<CudaStream>,
        overlap: Option<Range<usize>>,
    ) -> Result<ChunkLaunch<'a>> {
        let chunk = &self.chunks[k];
        let (query_len, profiles, scores) = self.loaded_query(which)?;
        let query = profiles
            .iter()
            .find(|q| q.kernel == kernel)
            .ok_or_else(|| Error::Internal(format!("no {kernel} profile loaded")))?;
        let scratch = self.scratch.as_ref().map(|buffer| match &overlap {
            Some(region) => Scratch {
                buffer,
                first_pair: region.start,
                pairs: region.len(),
            },
            None => Scratch {
                buffer,
                first_pair: 0,
                pairs: self.shared_scratch,
            },
        });
        Ok(ChunkLaunch {
            symbol: kernel.info().symbol,
            device: &self.info,
            stream,
            functions: &self.functions,
            chunk,
            score_offset: self.local(chunk).start,
            scores,
            profile: &query.profile,
            query_len,
            row_buffer: &self.row_buffer,
            scratch,
            sm_count: self.sm_count,
            gaps: self.scoring.gaps.kernel_gaps(),
            max_score: self.scoring.matrix.max_score(),
            min_score: self.scoring.matrix.min_score(),
            overlapping: overlap.is_some(),
        })
    }

    /// Launches chunk `k` on `stream` for the loaded queries (both in one
    /// launch where they pair), beside other chunks with scratch region
    /// `overlap`, or with the shared scratch (`None`).
    fn launch_chunk_on(
        &self,
        k: usize,
        stream: &Arc<CudaStream>,
        overlap: Option<Range<usize>>,
    ) -> Result<()> {
        if self.query.is_empty() {
            return Ok(());
        }
        if let (
            true,
            Some(Partner {
                pair: Some((kernel, pair)),
                ..
            }),
        ) = (self.paired(k), &self.partner)
        {
            let first = self.chunk_launch(k, *kernel, Which::First, stream, overlap.clone())?;
            let partner = self.chunk_launch(k, *kernel, Which::Partner, stream, overlap)?;
            return kernel.adapter().launch_pair(&first, &partner, pair);
        }
        for which in self.loaded() {
            let kernel = self.chunk_kernel_for(k, self.query_len_of(which)?)?;
            let launch = self.chunk_launch(k, kernel, which, stream, overlap.clone())?;
            kernel.adapter().launch(&launch)?;
        }
        Ok(())
    }

    /// [`GpuEngine::join_all`], with an event on the engine's stream after
    /// each chunk's part (its rescue): what waits for chunk `k` without a
    /// read-back (`None` where the query is empty).
    fn join_all_marked(&mut self) -> Result<Vec<Option<CudaEvent>>> {
        if self.query.is_empty() {
            return Ok((0..self.chunks.len()).map(|_| None).collect());
        }
        let mut done = Vec::with_capacity(self.chunks.len());
        for k in 0..self.chunks.len() {
            self.join_chunk(k)?;
            let event = self
                .stream
                .record_event(Some(CUevent_flags::CU_EVENT_DISABLE_TIMING))
                .map_err(self.info.error("ordering the streams"))?;
            done.push(Some(event));
        }
        self.pending.clear();
        Ok(done)
    }

    /// Loaded query `which`'s scores of [`GpuEngine::positions`] (sorted
    /// order), in one read-back once every chunk is joined; all 0 when the
    /// query is empty.
    fn scores_of(&mut self, which: Which) -> Result<Vec<i32>> {
        if self.query.is_empty() {
            return Ok(vec![0; self.positions.len()]);
        }
        self.join_all()?;
        let mut timeline = self.timeline.take();
        if let Some(timeline) = &mut timeline {
            timeline.mark("joined", &self.stream);
        }
        let (_, _, scores) = self.loaded_query(which)?;
        // The buffer is in chunk order: each chunk follows the one before
        // (GpuEngineBuilder::chunks refuses any other).
        let read = self
            .stream
            .clone_dtoh(&scores.slice(0..self.positions.len()))
            .map_err(self.info.error("reading the scores back"))?;
        if let Some(timeline) = &mut timeline {
            timeline.mark("read-back", &self.stream);
            match timeline.report() {
                Ok(report) => eprintln!("warpsw: {}: {report}", self.info.label()),
                Err(why) => eprintln!("warpsw: warning: {}: no timeline: {why}", self.info.label()),
            }
        }
        Ok(read)
    }

    /// Waits for chunk `k`'s launch and returns its scores (sorted order).
    pub fn chunk_scores(&mut self, k: usize) -> Result<Vec<i32>> {
        let chunk = self
            .chunks
            .get(k)
            .ok_or_else(|| Error::Internal(format!("chunk {k} is not on {}", self.info.label())))?;
        let range = self.local(chunk);
        if self.query.is_empty() {
            return Ok(vec![0; range.len()]);
        }
        self.join_chunk(k)?;
        let (_, _, scores) = self.loaded_query(Which::First)?;
        self.stream
            .clone_dtoh(&scores.slice(range))
            .map_err(self.info.error("reading the scores back"))
    }

    /// The scores of every query of `queries` (non-empty ones scored two
    /// at a time, each with the one next to it in length, where
    /// [`GpuEngineBuilder::pair_queries`] allows), telling `progress` the
    /// cells of each chunk as its scores come back.
    fn score_paired(
        &mut self,
        queries: &[&[u8]],
        progress: &(dyn Fn(u64) + Sync),
    ) -> Result<Vec<Vec<i32>>> {
        let mut order: Vec<usize> = (0..queries.len()).collect();
        order.sort_by_key(|&q| queries[q].len());
        let mut all = vec![Vec::new(); queries.len()];
        let mut at = 0;
        while at < order.len() {
            let first = order[at];
            // Both non-empty (an empty query has no profile to pair).
            let partner = order.get(at + 1).copied().filter(|&q| {
                self.pair_queries && !queries[first].is_empty() && !queries[q].is_empty()
            });
            self.launch_queries(queries[first], partner.map(|q| queries[q]))?;
            let done = self.join_all_marked()?;
            let mut cells = queries[first].len() as u64;
            if let Some(q) = partner {
                cells += queries[q].len() as u64;
            }
            for (k, chunk_done) in done.iter().enumerate() {
                if let Some(event) = chunk_done {
                    event
                        .synchronize()
                        .map_err(self.info.error("waiting for a chunk"))?;
                }
                progress(cells * self.chunks[k].residue_count);
            }
            all[first] = self.scores_of(Which::First)?;
            if let Some(q) = partner {
                all[q] = self.scores_of(Which::Partner)?;
            }
            at += 1 + usize::from(partner.is_some());
        }
        Ok(all)
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
        self.chunks.iter().map(|c| c.residue_count).sum()
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
    /// order, and each query's scores come back in one copy at the end
    /// (with batches of query pairs, a batch's scores at once).
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
