//! The resident GPU engine: uploads its chunks of the packed database once,
//! keeps them on the GPU, and per query uploads only the query's profiles,
//! launches each chunk's kernel ([`Plan::kernel_for`]) and reads the scores
//! back.

use std::borrow::Cow;
use std::collections::HashMap;
use std::ops::Range;
use std::sync::Arc;
use std::time::Instant;

use cudarc::driver::{CudaContext, CudaSlice, CudaStream};

use super::budget::Budget;
use super::device::{DeviceInfo, device, kernels_module};
use super::launch::{ChunkLaunch, DeviceChunk, Functions};
use crate::db::{ChunkLimits, Database, PackedChunk, plan_chunks_split};
use crate::engine::Engine;
use crate::error::{Error, Result};
use crate::kernel::{KERNELS, Kernel, Plan};
use crate::scoring::Scoring;

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

/// A GPU holding chunks of the database (all of it, or the part it was given).
pub struct GpuEngine {
    info: DeviceInfo,
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    functions: Functions,
    /// Streaming multiprocessors (sizes the striped kernels' persistent grid).
    sm_count: usize,
    chunks: Vec<DeviceChunk>,
    row_buffer: CudaSlice<i32>,
    /// The striped kernels' column scratch, grown on demand.
    scratch: Option<CudaSlice<i32>>,
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
    upload_seconds: f64,
    /// Of `upload_seconds`, the time spent packing chunks.
    pack_seconds: f64,
}

/// How a [`GpuEngine`] is opened: the device, scoring and plan, then what
/// it uploads ([`GpuEngineBuilder::database`], [`GpuEngineBuilder::chunk_plan`]
/// or [`GpuEngineBuilder::chunks`]).
pub struct GpuEngineBuilder {
    ordinal: usize,
    scoring: Scoring,
    plan: Plan,
    stream: EngineStream,
}

impl GpuEngine {
    /// Starts opening GPU `ordinal` to score with `scoring` by `plan`.
    pub fn builder(ordinal: usize, scoring: Scoring, plan: Plan) -> GpuEngineBuilder {
        GpuEngineBuilder {
            ordinal,
            scoring,
            plan,
            stream: EngineStream::Default,
        }
    }
}

impl GpuEngineBuilder {
    /// Uploads and launches on `stream` (default: the device's default stream).
    pub fn stream(mut self, stream: EngineStream) -> GpuEngineBuilder {
        self.stream = stream;
        self
    }

    /// Uploads the whole of `db`, chunked for `budget` (the device's free
    /// memory, [`super::MemoryCap::free`]).
    pub fn database(self, db: &Database, budget: Budget) -> Result<GpuEngine> {
        let plan = plan_for(&self.plan, db, budget.resident_chunks(db)?);
        budget.check_resident(db, &plan)?;
        self.chunk_plan(db, &plan)
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
        } = self;
        let info = device(ordinal)?;
        let stage = |s| info.error(s);
        let (ctx, module) = kernels_module(ordinal, &info.name)?;
        let stream = match stream {
            EngineStream::Own => ctx.new_stream().map_err(stage("creating a stream"))?,
            EngineStream::Default => ctx.default_stream(),
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
        let sm_count = ctx
            .attribute(
                cudarc::driver::sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
            )
            .map_err(stage("reading attributes"))?
            .max(1) as usize;

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

        Ok(GpuEngine {
            info,
            ctx,
            stream,
            functions,
            sm_count,
            chunks,
            row_buffer,
            scratch: None,
            positions,
            scores,
            scoring,
            plan,
            query_len: 0,
            query: Vec::new(),
            upload_seconds,
            pack_seconds,
        })
    }
}

impl GpuEngine {
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

    /// Uploads `query`'s profile for each kernel of the plan it needs; later
    /// launches score against them.
    pub fn load_query(&mut self, query: &[u8]) -> Result<()> {
        self.ctx
            .bind_to_thread()
            .map_err(self.info.error("binding the device"))?;
        self.query.clear();
        self.query_len = query.len();
        if query.is_empty() {
            return Ok(());
        }
        let max_threads = self.chunks.iter().map(|c| c.range.len()).max().unwrap_or(0);
        let longest = self.chunks.iter().map(|c| c.longest).max().unwrap_or(0);
        for kernel in self.plan.kernels_for_query(query.len()) {
            let adapter = kernel.adapter();
            let scratch = adapter.scratch_pairs(query.len(), max_threads, longest, self.sm_count);
            if scratch > 0 {
                self.reserve_scratch(scratch)?;
            }
            let profile = self
                .stream
                .clone_htod(&adapter.profile(query, &self.scoring.matrix))
                .map_err(self.info.error("uploading the query profile"))?;
            self.query.push(DeviceQuery { kernel, profile });
        }
        Ok(())
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

    /// Loads `query` and launches every chunk's kernels on the engine's
    /// stream without waiting for them; [`GpuEngine::read_scores`] waits.
    pub fn launch_all(&mut self, query: &[u8]) -> Result<()> {
        self.load_query(query)?;
        for k in 0..self.chunks.len() {
            self.launch_chunk(k)?;
        }
        Ok(())
    }

    /// The scores of [`GpuEngine::positions`] for the query of the last
    /// [`GpuEngine::launch_all`], once its kernels are done (all 0 when the
    /// query is empty).
    pub fn read_scores(&self) -> Result<Vec<i32>> {
        if self.query.is_empty() {
            return Ok(vec![0; self.positions.len()]);
        }
        let mut scores = self
            .stream
            .clone_dtoh(&self.scores)
            .map_err(self.info.error("reading the scores back"))?;
        scores.truncate(self.positions.len());
        Ok(scores)
    }

    /// Where chunk `chunk`'s scores lie in `scores`.
    fn local(&self, chunk: &DeviceChunk) -> Range<usize> {
        chunk.range.start - self.positions.start..chunk.range.end - self.positions.start
    }

    /// Launches the plan's kernel on chunk `k` for the loaded query
    /// (asynchronous; nothing for an empty query).
    pub fn launch_chunk(&self, k: usize) -> Result<()> {
        if self.query.is_empty() {
            return Ok(());
        }
        let chunk = self
            .chunks
            .get(k)
            .ok_or_else(|| Error::Internal(format!("chunk {k} is not on {}", self.info.label())))?;
        let kernel = self
            .plan
            .kernel_for(self.query_len, chunk.longest, chunk.range.len());
        let query = self
            .query
            .iter()
            .find(|q| q.kernel == kernel)
            .ok_or_else(|| Error::Internal(format!("no {kernel} profile loaded")))?;
        let launch = ChunkLaunch {
            symbol: kernel.info().symbol,
            device: &self.info,
            stream: &self.stream,
            functions: &self.functions,
            chunk,
            score_offset: self.local(chunk).start,
            scores: &self.scores,
            profile: &query.profile,
            query_len: self.query_len,
            row_buffer: &self.row_buffer,
            scratch: self.scratch.as_ref(),
            sm_count: self.sm_count,
            gaps: self.scoring.gaps.kernel_gaps(),
        };
        kernel.adapter().launch(&launch)
    }

    /// Waits for chunk `k`'s launch and returns its scores (sorted order).
    pub fn chunk_scores(&self, k: usize) -> Result<Vec<i32>> {
        let chunk = self
            .chunks
            .get(k)
            .ok_or_else(|| Error::Internal(format!("chunk {k} is not on {}", self.info.label())))?;
        let range = self.local(chunk);
        if self.query.is_empty() {
            return Ok(vec![0; range.len()]);
        }
        self.stream
            .clone_dtoh(&self.scores.slice(range))
            .map_err(self.info.error("reading the scores back"))
    }
}

impl Drop for GpuEngine {
    /// cudarc frees each buffer on its stream without making the context
    /// current, which fails (and leaves a sticky error in the shared context)
    /// on a thread that never used this GPU, such as a dispatcher thread
    /// dropping a part it no longer keeps: make it current first.
    fn drop(&mut self) {
        self.ctx.record_err(self.ctx.bind_to_thread());
    }
}

impl Engine for GpuEngine {
    fn description(&self) -> String {
        format!(
            "{} (sm_{}{}), kernel {}; database packed in {:.2} s",
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

    fn score_all(&mut self, query: &[u8]) -> Result<Vec<i32>> {
        self.launch_all(query)?;
        self.read_scores()
    }

    fn database_residues(&self) -> u64 {
        self.chunks.iter().map(|c| c.residue_count).sum()
    }

    /// Every chunk's launch is queued at once; the scores are read back
    /// chunk by chunk, in launch order, each telling `progress` its cells.
    fn score_batch_reporting(
        &mut self,
        queries: &[&[u8]],
        progress: &(dyn Fn(u64) + Sync),
    ) -> Result<Vec<Vec<i32>>> {
        let mut all = Vec::with_capacity(queries.len());
        for query in queries {
            self.launch_all(query)?;
            let mut scores = Vec::with_capacity(self.positions.len());
            for k in 0..self.chunks.len() {
                scores.extend(self.chunk_scores(k)?);
                progress(query.len() as u64 * self.chunks[k].residue_count);
            }
            all.push(scores);
        }
        Ok(all)
    }
}
