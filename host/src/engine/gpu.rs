//! The GPU engine: uploads the packed database once, keeps it resident, and
//! per query uploads only the query profile, launches, and reads scores back.
//!
//! All `unsafe` use of `cudarc` lives here: each launch wrapper checks the
//! buffer sizes that the kernel's `# Safety` section asks for.

use std::borrow::Cow;
use std::ops::Range;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use cudarc::driver::{
    CudaContext, CudaFunction, CudaModule, CudaSlice, CudaStream, DevicePtr, DriverError,
    LaunchConfig, PushKernelArg, SyncOnDrop,
};
use cudarc::nvrtc::Ptx;
use gpu_kernels::layout::{NUM_CODES, PartitionedParams, StripedParams};
use gpu_kernels::{parallelogram, simt, simt_i16x2};

use super::{Engine, Kernel, QueryProfile};
use crate::db::{ChunkLimits, Database, PackedChunk, plan_chunks, plan_chunks_split};
use crate::error::{Error, Result};
use crate::scoring::Scoring;

/// The kernels' PTX, built by `host/build.rs` for baseline `sm_80`: the
/// driver JIT-compiles it for the GPU it runs on (Ampere and later).
pub const PTX: &str = include_str!(concat!(env!("OUT_DIR"), "/gpu_kernels.ptx"));

/// The same kernels built for `sm_90`, loaded on GPUs of compute capability
/// 9.0 and up: there the 16-bit kernel's packed arithmetic is `add.s16x2` /
/// `max.s16x2` (DPX in the SASS) instead of pairs of 16-bit instructions.
pub const PTX_SM90: &str = include_str!(concat!(env!("OUT_DIR"), "/gpu_kernels_sm90.ptx"));

/// The PTX for a GPU of compute capability `major.minor`.
///
/// ```
/// use host::engine::gpu::{PTX, PTX_SM90, ptx_for};
/// assert!(std::ptr::eq(ptx_for((8, 0)), PTX));
/// assert!(std::ptr::eq(ptx_for((9, 0)), PTX_SM90));
/// ```
pub fn ptx_for((major, _minor): (i32, i32)) -> &'static str {
    if major >= 9 { PTX_SM90 } else { PTX }
}

/// Threads per block of the SIMT kernel (CUDASW++ 2.0 found 256 best).
const SIMT_BLOCK: u32 = 256;

/// Threads per block of the vector kernels (a multiple of 32: whole warps).
const VECTOR_BLOCK: u32 = 256;

/// Resident threads per SM the striped kernels' persistent grid aims for
/// (Hopper's maximum); it bounds their scratch to `SM * 2048 / VL` columns.
const STRIPED_THREADS_PER_SM: usize = 2048;

/// Most sequences per chunk (one launch).
pub(crate) const MAX_CHUNK_SEQUENCES: usize = 1 << 18;

/// A GPU the driver reports.
#[derive(Clone, Debug)]
pub struct DeviceInfo {
    /// Device ordinal.
    pub ordinal: usize,
    /// Marketing name, e.g. "NVIDIA H100 80GB HBM3".
    pub name: String,
    /// Compute capability (major, minor).
    pub compute_capability: (i32, i32),
    /// Total memory in bytes.
    pub total_memory: usize,
}

impl DeviceInfo {
    /// "GPU n (name)": how warnings and run summaries name a device.
    pub fn label(&self) -> String {
        format!("GPU {} ({})", self.ordinal, self.name)
    }
}

/// Lists the GPUs, or says why there are none: [`Error::NoDriver`] when no
/// CUDA driver library can be loaded, [`Error::NoDevice`] when it reports none.
pub fn devices() -> Result<Vec<DeviceInfo>> {
    // SAFETY: only checks whether the driver library can be loaded.
    if !unsafe { cudarc::driver::sys::is_culib_present() } {
        return Err(Error::NoDriver("libcuda.so could not be loaded".into()));
    }
    let count = CudaContext::device_count().map_err(|e| Error::NoDriver(e.to_string()))?;
    if count <= 0 {
        return Err(Error::NoDevice);
    }
    (0..count as usize)
        .map(|ordinal| {
            let ctx =
                CudaContext::new(ordinal).map_err(gpu_error(ordinal, "", "opening the device"))?;
            let name = ctx.name().unwrap_or_else(|_| "unknown GPU".into());
            let stage = |s| gpu_error(ordinal, &name, s);
            Ok(DeviceInfo {
                ordinal,
                compute_capability: ctx
                    .compute_capability()
                    .map_err(stage("reading attributes"))?,
                total_memory: ctx.total_mem().map_err(stage("reading attributes"))?,
                name: name.clone(),
            })
        })
        .collect()
}

/// The GPUs to use: every one present (`None`), or those listed, each
/// checked to exist, with what the driver reports of each.
pub fn selected_devices(wanted: Option<Vec<usize>>) -> Result<Vec<DeviceInfo>> {
    let present = devices()?;
    let Some(list) = wanted else {
        return Ok(present);
    };
    list.iter()
        .map(|&ordinal| {
            present
                .iter()
                .find(|d| d.ordinal == ordinal)
                .cloned()
                .ok_or_else(|| {
                    let ordinals: Vec<usize> = present.iter().map(|d| d.ordinal).collect();
                    Error::InvalidArgument(format!(
                        "there is no GPU {ordinal} (GPUs present: {ordinals:?})"
                    ))
                })
        })
        .collect()
}

/// The ordinals of [`selected_devices`].
pub fn select_devices(wanted: Option<Vec<usize>>) -> Result<Vec<usize>> {
    Ok(selected_devices(wanted)?
        .iter()
        .map(|d| d.ordinal)
        .collect())
}

pub(crate) fn gpu_error(
    device: usize,
    name: &str,
    stage: &'static str,
) -> impl Fn(DriverError) -> Error {
    let name = name.to_string();
    move |e| Error::Gpu {
        device,
        name: name.clone(),
        stage,
        message: e.to_string(),
    }
}

/// GPU `ordinal`'s context and the kernels' module on it ([`ptx_for`] its
/// compute capability). The driver JIT-compiles the PTX once per process
/// and device (about half a second on an H100); every engine and traceback
/// run after the first reuses it.
pub(crate) fn kernels_module(
    ordinal: usize,
    name: &str,
) -> Result<(Arc<CudaContext>, Arc<CudaModule>)> {
    /// Device ordinal, its context, the module loaded in it.
    type Loaded = (usize, Arc<CudaContext>, Arc<CudaModule>);
    static LOADED: Mutex<Vec<Loaded>> = Mutex::new(Vec::new());
    let mut loaded = LOADED
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some((_, ctx, module)) = loaded.iter().find(|(o, _, _)| *o == ordinal) {
        ctx.bind_to_thread()
            .map_err(gpu_error(ordinal, name, "binding the device"))?;
        return Ok((ctx.clone(), module.clone()));
    }
    let stage = |s| gpu_error(ordinal, name, s);
    let ctx = CudaContext::new(ordinal).map_err(stage("opening the device"))?;
    let capability = ctx
        .compute_capability()
        .map_err(stage("reading attributes"))?;
    let module = ctx
        .load_module(Ptx::from_src(ptx_for(capability)))
        .map_err(stage("loading the kernels' PTX"))?;
    loaded.push((ordinal, ctx.clone(), module.clone()));
    Ok((ctx, module))
}

/// Resource use of a compiled kernel, as the driver reports it.
#[derive(Clone, Copy, Debug)]
pub struct KernelResources {
    /// Registers per thread.
    pub registers: i32,
    /// Local memory per thread in bytes (spills and local arrays).
    pub local_bytes: i32,
}

/// The stream an engine uploads and launches on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EngineStream {
    /// The device's default stream (in order with every other engine on it).
    Default,
    /// A non-blocking stream of its own, so that this engine's upload and
    /// another engine's kernels on the same GPU can overlap.
    Own,
}

/// One chunk of the database, resident on the device.
struct DeviceChunk {
    range: Range<usize>,
    /// Residues of the chunk's longest sequence.
    longest: usize,
    words_per_sequence: usize,
    residues: CudaSlice<u32>,
    lengths: CudaSlice<u32>,
}

/// The current query's profile on the device, in the layout of one stage's
/// kernel.
enum DeviceQuery {
    /// Sequential profile (`simt`, `parallelogram*`), `query_words` words per
    /// residue row.
    Sequential {
        profile: CudaSlice<u32>,
        query_words: usize,
    },
    /// Striped profile (`striped`), `segments` vectors per residue.
    Striped {
        profile: CudaSlice<i8>,
        segments: usize,
    },
    /// Packed partitioned profile (`partitioned`).
    Partitioned {
        profile: CudaSlice<u32>,
        partitions: usize,
    },
}

/// Lanes per vector of a striped or partitioned stage.
fn stage_vl(stage: Kernel) -> usize {
    match stage {
        Kernel::Striped { vl } | Kernel::Partitioned { vl, .. } => vl as usize,
        other => unreachable!("{other} has no vector length"),
    }
}

/// Rows per partition of a partitioned stage.
fn stage_pl(stage: Kernel) -> usize {
    match stage {
        Kernel::Partitioned { pl, .. } => pl as usize,
        other => unreachable!("{other} has no partition length"),
    }
}

/// Device bytes `db` needs resident: its residues and per-sequence lengths
/// and scores.
fn resident_bytes(db: &Database) -> usize {
    db.total_residues() as usize + 8 * db.len()
}

/// Whether `db` can stay resident on a device with `free` bytes free (half
/// of them at most, the rest for row buffers, profiles and scores).
pub fn database_fits(db: &Database, free: usize) -> bool {
    resident_bytes(db) <= free / 2
}

/// Chunk limits for a device with `free` bytes of memory: the whole database
/// resident, and one chunk's row buffer in what is left.
pub fn chunk_limits(db: &Database, free: usize) -> Result<ChunkLimits> {
    let resident = resident_bytes(db);
    if !database_fits(db, free) {
        return Err(Error::InvalidArgument(format!(
            "the database needs about {} MiB of GPU memory and only {} MiB are free; \
             split it into smaller files",
            resident >> 20,
            free >> 20
        )));
    }
    Ok(ChunkLimits {
        max_sequences: MAX_CHUNK_SEQUENCES,
        max_bytes: ((free - resident) / 4).clamp(64 << 20, 8 << 30),
    })
}

/// The most memory of each GPU that the engines plan with (see
/// [`limit_memory`]); `usize::MAX` while unlimited.
static MEMORY_LIMIT: std::sync::atomic::AtomicUsize =
    std::sync::atomic::AtomicUsize::new(usize::MAX);

/// Makes every later plan use at most `bytes` of each GPU's free memory
/// (`--gpu-memory`): for a GPU shared with other work, or to stream a
/// database part by part ([`super::parted`]) on purpose. Process-wide, as
/// the GPUs are.
pub fn limit_memory(bytes: usize) {
    MEMORY_LIMIT.store(bytes, std::sync::atomic::Ordering::Relaxed);
}

/// Free memory of GPU `ordinal` in bytes, at most the [`limit_memory`] cap.
pub fn free_memory(ordinal: usize) -> Result<usize> {
    let ctx = CudaContext::new(ordinal).map_err(gpu_error(ordinal, "", "opening the device"))?;
    let (free, _) = ctx
        .mem_get_info()
        .map_err(gpu_error(ordinal, "", "querying free memory"))?;
    Ok(free.min(MEMORY_LIMIT.load(std::sync::atomic::Ordering::Relaxed)))
}

/// The free memory of the smallest of GPUs `ordinals` ([`free_memory`]):
/// what a plan shared by all of them may use.
pub fn smallest_free_memory(ordinals: &[usize]) -> Result<usize> {
    let mut smallest = usize::MAX;
    for &ordinal in ordinals {
        smallest = smallest.min(free_memory(ordinal)?);
    }
    Ok(if ordinals.is_empty() { 0 } else { smallest })
}

/// Chunks of the sorted database for `kernel` within `limits`: with `auto`,
/// each stage gets chunks of its own sequences only.
pub fn plan_for(
    kernel: Kernel,
    sorted_lengths: &[usize],
    limits: ChunkLimits,
) -> Vec<Range<usize>> {
    match kernel {
        Kernel::Auto { threshold, .. } => {
            plan_chunks_split(sorted_lengths, limits, threshold as usize)
        }
        _ => plan_chunks(sorted_lengths, limits),
    }
}

/// The sorted database's lengths, for [`plan_chunks`].
pub fn sorted_lengths(db: &Database) -> Vec<usize> {
    (0..db.len()).map(|i| db.length(i)).collect()
}

/// A GPU holding the whole database.
pub struct GpuEngine {
    info: DeviceInfo,
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    /// Every KERNELS row's entry point, in KERNELS order.
    functions: Vec<(Kernel, CudaFunction)>,
    /// `sw_simt_i16x2_rescue`, launched after `sw_simt_i16x2`.
    rescue: CudaFunction,
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
    kernel: Kernel,
    /// The loaded query's profile for each stage of `kernel`; empty when no
    /// query is loaded or it is empty (every score 0, nothing launches).
    query: Vec<(Kernel, DeviceQuery)>,
    /// The kernel that runs every chunk for the loaded query, when it skips
    /// `auto`'s stages ([`Kernel::for_query`]).
    query_kernel: Option<Kernel>,
    upload_seconds: f64,
    /// Of `upload_seconds`, the time spent packing chunks.
    pack_seconds: f64,
}

impl GpuEngine {
    /// Opens GPU `ordinal`, loads the kernels and uploads `db`, packed into
    /// chunks sized from the device's free memory.
    pub fn new(
        ordinal: usize,
        db: &Database,
        scoring: Scoring,
        kernel: Kernel,
    ) -> Result<GpuEngine> {
        GpuEngine::within(ordinal, db, scoring, kernel, free_memory(ordinal)?)
    }

    /// [`GpuEngine::new`] with chunks sized for `free` bytes, the free memory
    /// the caller has already measured ([`free_memory`]).
    pub fn within(
        ordinal: usize,
        db: &Database,
        scoring: Scoring,
        kernel: Kernel,
        free: usize,
    ) -> Result<GpuEngine> {
        let plan = plan_for(kernel, &sorted_lengths(db), chunk_limits(db, free)?);
        GpuEngine::with_plan(ordinal, db, scoring, kernel, &plan)
    }

    /// Opens GPU `ordinal` and uploads `db` cut into the chunks of `plan`
    /// (consecutive ranges of sorted positions covering the database; several
    /// GPUs share one plan so that any chunk can run on any of them).
    pub fn with_plan(
        ordinal: usize,
        db: &Database,
        scoring: Scoring,
        kernel: Kernel,
        plan: &[Range<usize>],
    ) -> Result<GpuEngine> {
        let chunks = plan
            .iter()
            .map(|range| Cow::Owned(PackedChunk::pack(db, range.clone())));
        GpuEngine::with_chunks(ordinal, scoring, kernel, chunks, EngineStream::Default)
    }

    /// Opens GPU `ordinal` and uploads `chunks`: consecutive packed chunks of
    /// a sorted database, which the engine's scores then cover
    /// ([`GpuEngine::positions`]), on `stream`.
    pub fn with_chunks<'a>(
        ordinal: usize,
        scoring: Scoring,
        kernel: Kernel,
        chunks: impl IntoIterator<Item = Cow<'a, PackedChunk>>,
        stream: EngineStream,
    ) -> Result<GpuEngine> {
        let info = devices()?
            .into_iter()
            .find(|d| d.ordinal == ordinal)
            .ok_or_else(|| Error::InvalidArgument(format!("there is no GPU {ordinal}")))?;
        let stage = |s| gpu_error(ordinal, &info.name, s);
        let kernel = kernel.for_device(info.compute_capability, scoring.gaps.kernel_gaps());
        let (ctx, module) = kernels_module(ordinal, &info.name)?;
        let stream = match stream {
            EngineStream::Own => ctx.new_stream().map_err(stage("creating a stream"))?,
            EngineStream::Default => ctx.default_stream(),
        };
        let functions = super::KERNELS
            .iter()
            .map(|k| {
                let f = module
                    .load_function(k.symbol)
                    .map_err(stage("loading a kernel"))?;
                Ok((k.kernel, f))
            })
            .collect::<Result<Vec<_>>>()?;
        let rescue = module
            .load_function("sw_simt_i16x2_rescue")
            .map_err(stage("loading a kernel"))?;
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
                    return Err(Error::InvalidArgument(format!(
                        "internal error: chunk {:?} does not follow {p:?}",
                        packed.range
                    )));
                }
            };
            row_buffer_pairs =
                row_buffer_pairs.max(packed.words_per_sequence * 4 * packed.sequences());
            chunks.push(DeviceChunk {
                range: packed.range.clone(),
                longest: packed.longest(),
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
            rescue,
            sm_count,
            chunks,
            row_buffer,
            scratch: None,
            positions,
            scores,
            scoring,
            kernel,
            query: Vec::new(),
            query_kernel: None,
            upload_seconds,
            pack_seconds,
        })
    }

    /// The device.
    pub fn info(&self) -> &DeviceInfo {
        &self.info
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

    /// Number of chunks (launches per query).
    pub fn chunk_count(&self) -> usize {
        self.chunks.len()
    }

    fn error(&self, stage: &'static str) -> impl Fn(DriverError) -> Error {
        gpu_error(self.info.ordinal, &self.info.name, stage)
    }

    /// Registers and local memory of `kernel`'s entry point on this device.
    pub fn resources(&self, kernel: Kernel) -> Result<KernelResources> {
        let f = self.function(kernel.info().kernel);
        let stage = self.error("reading kernel attributes");
        Ok(KernelResources {
            registers: f.num_regs().map_err(&stage)?,
            local_bytes: f.local_size_bytes().map_err(&stage)?,
        })
    }

    /// The loaded entry point of `kernel`.
    fn function(&self, kernel: Kernel) -> &CudaFunction {
        &self
            .functions
            .iter()
            .find(|(k, _)| *k == kernel)
            .expect("every KERNELS row is loaded")
            .1
    }

    /// Uploads `query`'s profile in the layout of the engine's kernel; later
    /// launches score against it.
    pub fn load_query(&mut self, query: &[u8]) -> Result<()> {
        self.ctx
            .bind_to_thread()
            .map_err(self.error("binding the device"))?;
        self.query.clear();
        if query.is_empty() {
            return Ok(());
        }
        self.query_kernel = self.kernel.for_query(query.len());
        let stages = match self.query_kernel {
            Some(kernel) => vec![kernel],
            None => self.kernel.stages(),
        };
        for stage in stages {
            if let Kernel::Striped { vl } = stage {
                let segments = gpu_kernels::layout::striped_segments(query.len(), vl as usize);
                self.reserve_striped_scratch(segments, vl as usize)?;
            }
            let upload = self.error("uploading the query profile");
            let device_query = match QueryProfile::new(stage, query, &self.scoring.matrix) {
                QueryProfile::Sequential(profile) => DeviceQuery::Sequential {
                    query_words: profile.len() / NUM_CODES,
                    profile: self.stream.clone_htod(&profile).map_err(upload)?,
                },
                QueryProfile::Striped(profile) => DeviceQuery::Striped {
                    segments: profile.len() / (NUM_CODES * stage_vl(stage)),
                    profile: self.stream.clone_htod(&profile).map_err(upload)?,
                },
                QueryProfile::Partitioned(profile) => DeviceQuery::Partitioned {
                    partitions: profile.len() / (NUM_CODES * stage_pl(stage) / 4),
                    profile: self.stream.clone_htod(&profile).map_err(upload)?,
                },
            };
            self.query.push((stage, device_query));
        }
        Ok(())
    }

    /// Loads `query` and launches every chunk's kernels on the engine's
    /// stream without waiting for them; [`GpuEngine::read_scores`] waits.
    pub fn launch_all(&mut self, query: &[u8]) -> Result<()> {
        self.load_query(query)?;
        if !self.query.is_empty() {
            for k in 0..self.chunks.len() {
                self.launch_chunk(k)?;
            }
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
            .map_err(self.error("reading the scores back"))?;
        scores.truncate(self.positions.len());
        Ok(scores)
    }

    /// Where chunk `chunk`'s scores lie in `scores`.
    fn local(&self, chunk: &DeviceChunk) -> Range<usize> {
        chunk.range.start - self.positions.start..chunk.range.end - self.positions.start
    }

    /// Launches the kernel on chunk `k` for the loaded query (asynchronous).
    pub fn launch_chunk(&self, k: usize) -> Result<()> {
        let chunk = &self.chunks[k];
        let stage = self
            .query_kernel
            .unwrap_or_else(|| self.kernel.for_chunk(chunk.longest, chunk.range.len()));
        let Some((_, query)) = self.query.iter().find(|(k, _)| *k == stage) else {
            return Ok(()); // no query loaded, or an empty one
        };
        match (query, stage) {
            (
                DeviceQuery::Sequential {
                    profile,
                    query_words,
                },
                kernel @ (Kernel::Simt | Kernel::SimtI16x2 | Kernel::Parallelogram { .. }),
            ) => self.launch_sequential(profile, *query_words, chunk, kernel),
            (DeviceQuery::Striped { profile, segments }, Kernel::Striped { vl }) => {
                self.launch_striped(profile, *segments, vl as usize, chunk)
            }
            (
                DeviceQuery::Partitioned {
                    profile,
                    partitions,
                },
                Kernel::Partitioned { vl, pl },
            ) => self.launch_partitioned(profile, *partitions, vl as usize, pl as usize, chunk),
            _ => Err(Error::InvalidArgument(
                "internal error: the loaded profile does not fit the engine's kernel".into(),
            )),
        }
    }

    /// Waits for chunk `k`'s launch and returns its scores (sorted order).
    pub fn chunk_scores(&self, k: usize) -> Result<Vec<i32>> {
        let range = self.local(&self.chunks[k]);
        if self.query.is_empty() {
            return Ok(vec![0; range.len()]);
        }
        self.stream
            .clone_dtoh(&self.scores.slice(range))
            .map_err(self.error("reading the scores back"))
    }

    /// The device addresses every launch on `chunk` passes, with `buffer`
    /// (the row buffer or the striped scratch).
    fn chunk_pointers<'a, T>(
        &'a self,
        chunk: &'a DeviceChunk,
        buffer: &'a CudaSlice<T>,
    ) -> ChunkPointers<'a> {
        let (residues, r) = chunk.residues.device_ptr(&self.stream);
        let (lengths, l) = chunk.lengths.device_ptr(&self.stream);
        let (buffer, b) = buffer.device_ptr(&self.stream);
        let (scores, s) = self.scores.device_ptr(&self.stream);
        ChunkPointers {
            residues,
            lengths,
            buffer,
            scores: scores + 4 * self.local(chunk).start as u64,
            _guards: [r, l, b, s],
        }
    }

    /// An error unless the chunk's buffers have the sizes a kernel's
    /// `# Safety` section requires (`sizes_ok` says whether they do).
    fn check_sizes(&self, sizes_ok: bool, chunk: &DeviceChunk) -> Result<()> {
        let common = chunk.residues.len() >= chunk.words_per_sequence * chunk.range.len()
            && chunk.lengths.len() == chunk.range.len()
            && self.local(chunk).end <= self.scores.len();
        if sizes_ok && common {
            Ok(())
        } else {
            Err(Error::InvalidArgument(format!(
                "internal error: buffer sizes do not match chunk {:?} of GPU {}",
                chunk.range, self.info.ordinal
            )))
        }
    }

    /// Launches a kernel that reads the sequential profile (`sw_simt_i32`,
    /// `sw_simt_i16x2` then its rescue, `sw_parallelogram_*`; same
    /// arguments) on one chunk.
    fn launch_sequential(
        &self,
        profile: &CudaSlice<u32>,
        query_words: usize,
        chunk: &DeviceChunk,
        kernel: Kernel,
    ) -> Result<()> {
        let threads = chunk.range.len();
        self.check_sizes(
            profile.len() == NUM_CODES * query_words
                && query_words.is_multiple_of(simt::STRIP / 4)
                && self.row_buffer.len() >= 2 * chunk.words_per_sequence * 4 * threads,
            chunk,
        )?;
        let gaps = self.scoring.gaps.kernel_gaps();
        // Gap penalties beyond 16 bits' range: the same profile, in 32 bits.
        let kernel = match kernel {
            Kernel::SimtI16x2 if !simt_i16x2::gaps_fit(gaps) => Kernel::Simt,
            kernel => kernel,
        };
        let (profile_ptr, _p) = profile.device_ptr(&self.stream);
        let ptrs = self.chunk_pointers(chunk, &self.row_buffer);
        let one_thread_each = |threads: usize| LaunchConfig {
            grid_dim: ((threads as u32).div_ceil(SIMT_BLOCK), 1, 1),
            block_dim: (SIMT_BLOCK, 1, 1),
            shared_mem_bytes: 0,
        };
        let (query_words, sequences) = (query_words as u32, threads as u32);
        let launch = |function: &CudaFunction, cfg: LaunchConfig| {
            let mut launch = self.stream.launch_builder(function);
            // The fields of `SimtParams`, in its order (see `sw_simt_i32`).
            launch
                .arg(&profile_ptr)
                .arg(&ptrs.residues)
                .arg(&ptrs.lengths)
                .arg(&ptrs.buffer)
                .arg(&ptrs.scores)
                .arg(&query_words)
                .arg(&sequences)
                .arg(&gaps.first)
                .arg(&gaps.extend);
            // SAFETY: the duties of `sw_simt_i32`, `sw_simt_i16x2` (and its
            // rescue) and `sw_parallelogram_*` are checked above and by the
            // configurations below (one thread per sequence, or per two
            // sequences with gaps that fit 16 bits; blocks of whole warps,
            // one warp per sequence, shared memory for every warp of the
            // block for `_smem`): the profile has NUM_CODES * query_words
            // words (a whole number of strips); residues, lengths, row
            // buffer and scores have the sizes the chunk's thread count and
            // width require; launches run in stream order, so the shared row
            // buffer is never used by two launches at once and the rescue
            // reads the scores the 16-bit kernel wrote.
            unsafe { launch.launch(cfg) }
                .map(drop)
                .map_err(self.error("running the kernel"))
        };
        match kernel {
            Kernel::Simt => launch(self.function(kernel), one_thread_each(threads)),
            Kernel::SimtI16x2 => {
                launch(self.function(kernel), one_thread_each(threads.div_ceil(2)))?;
                launch(&self.rescue, one_thread_each(threads))
            }
            // One warp per sequence; the shared-memory hand-off needs its
            // slots for every warp of the block.
            Kernel::Parallelogram {
                shared_memory: true,
            } => launch(
                self.function(kernel),
                vector_grid(
                    threads * 32,
                    (VECTOR_BLOCK as usize / 32 * parallelogram::SMEM_BYTES_PER_WARP) as u32,
                ),
            ),
            _ => launch(self.function(kernel), vector_grid(threads * 32, 0)),
        }
    }

    /// Vectors of the striped kernels' persistent grid for a chunk of
    /// `threads` sequences: at most `SM * 2048 / vl`.
    fn striped_vectors(&self, threads: usize, vl: usize) -> usize {
        (self.sm_count * STRIPED_THREADS_PER_SM / vl)
            .min(threads)
            .max(1)
    }

    /// Grows the striped kernels' column scratch for `segments` segments.
    fn reserve_striped_scratch(&mut self, segments: usize, vl: usize) -> Result<()> {
        let max_threads = self.chunks.iter().map(|c| c.range.len()).max().unwrap_or(0);
        let needed = 2 * self.striped_vectors(max_threads, vl) * segments * vl;
        if self.scratch.as_ref().is_none_or(|s| s.len() < needed) {
            self.scratch = None; // free the old one first
            let scratch = self
                .stream
                .alloc_zeros::<i32>(needed.max(1))
                .map_err(self.error("allocating the striped scratch"))?;
            self.scratch = Some(scratch);
        }
        Ok(())
    }

    /// Launches `sw_striped_vl{vl}` on one chunk with a persistent grid.
    fn launch_striped(
        &self,
        profile: &CudaSlice<i8>,
        segments: usize,
        vl: usize,
        chunk: &DeviceChunk,
    ) -> Result<()> {
        let threads = chunk.range.len();
        let vectors = self.striped_vectors(threads, vl);
        let scratch = self.scratch.as_ref();
        self.check_sizes(
            (vl == 16 || vl == 32)
                && profile.len() == NUM_CODES * segments * vl
                && scratch.is_some_and(|s| s.len() >= 2 * vectors * segments * vl),
            chunk,
        )?;
        let scratch = scratch.expect("checked above");
        let (profile_ptr, _p) = profile.device_ptr(&self.stream);
        let ptrs = self.chunk_pointers(chunk, scratch);
        let params = StripedParams {
            profile: profile_ptr as *const i8,
            residues: ptrs.residues as *const u32,
            lengths: ptrs.lengths as *const u32,
            scratch: ptrs.buffer as *mut [i32; 2],
            scores: ptrs.scores as *mut i32,
            segments: segments as u32,
            threads: threads as u32,
            vectors: vectors as u32,
            gaps: self.scoring.gaps.kernel_gaps(),
        };
        let cfg = vector_grid(vectors * vl, 0);
        let mut launch = self
            .stream
            .launch_builder(self.function(Kernel::Striped { vl: vl as u32 }));
        launch.arg(&params);
        // SAFETY: `sw_striped_vl*`'s duties are checked above: profile
        // striped for this VL, scratch for `vectors` vectors, residues,
        // lengths and scores sized by the chunk; the block size is a multiple
        // of 32 and the grid covers `vectors` vectors; launches run in stream
        // order, so the scratch is never shared by two launches.
        unsafe { launch.launch(cfg) }.map_err(self.error("running the striped kernel"))?;
        Ok(())
    }

    /// Launches `sw_partitioned_vl{vl}_pl{pl}` on one chunk, one vector per
    /// sequence.
    fn launch_partitioned(
        &self,
        profile: &CudaSlice<u32>,
        partitions: usize,
        vl: usize,
        pl: usize,
        chunk: &DeviceChunk,
    ) -> Result<()> {
        let threads = chunk.range.len();
        // The row buffer needs one pair per residue: `4 * words_per_sequence >= len`.
        self.check_sizes(
            matches!((vl, pl), (16, 256) | (32, 512))
                && profile.len() == NUM_CODES * partitions * pl / 4
                && self.row_buffer.len() >= 2 * chunk.words_per_sequence * 4 * threads,
            chunk,
        )?;
        let (profile_ptr, _p) = profile.device_ptr(&self.stream);
        let ptrs = self.chunk_pointers(chunk, &self.row_buffer);
        let params = PartitionedParams {
            profile: profile_ptr as *const u32,
            residues: ptrs.residues as *const u32,
            lengths: ptrs.lengths as *const u32,
            row_buffer: ptrs.buffer as *mut [i32; 2],
            scores: ptrs.scores as *mut i32,
            partitions: partitions as u32,
            threads: threads as u32,
            gaps: self.scoring.gaps.kernel_gaps(),
        };
        let cfg = vector_grid(threads * vl, 0);
        let kernel = Kernel::Partitioned {
            vl: vl as u32,
            pl: pl as u32,
        };
        let mut launch = self.stream.launch_builder(self.function(kernel));
        launch.arg(&params);
        // SAFETY: `sw_partitioned_*`'s duties are checked above: profile
        // packed for this VL/PL, row buffer, residues, lengths and scores
        // sized by the chunk; block size a multiple of 32, one vector per
        // sequence; launches run in stream order (row buffer not shared).
        unsafe { launch.launch(cfg) }.map_err(self.error("running the partitioned kernel"))?;
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
    }
}

/// Device addresses of a launch on one chunk: its residues and lengths, the
/// row buffer or scratch, and the scores from the chunk's first sequence.
/// The guards record the buffers' use on the stream when the launch is queued.
struct ChunkPointers<'a> {
    residues: u64,
    lengths: u64,
    buffer: u64,
    scores: u64,
    _guards: [SyncOnDrop<'a>; 4],
}

/// Blocks of `VECTOR_BLOCK` threads (whole warps) covering `lanes` threads.
fn vector_grid(lanes: usize, shared_mem_bytes: u32) -> LaunchConfig {
    LaunchConfig {
        grid_dim: ((lanes as u32).div_ceil(VECTOR_BLOCK), 1, 1),
        block_dim: (VECTOR_BLOCK, 1, 1),
        shared_mem_bytes,
    }
}

impl Engine for GpuEngine {
    fn description(&self) -> String {
        format!(
            "GPU {} ({}, sm_{}{}), kernel {}; database packed in {:.2} s",
            self.info.ordinal,
            self.info.name,
            self.info.compute_capability.0,
            self.info.compute_capability.1,
            self.kernel,
            self.pack_seconds
        )
    }

    fn kernel_resources(&self) -> Result<Option<KernelResources>> {
        self.resources(self.kernel).map(Some)
    }

    fn score_all(&mut self, query: &[u8]) -> Result<Vec<i32>> {
        self.launch_all(query)?;
        self.read_scores()
    }
}
