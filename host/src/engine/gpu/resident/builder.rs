//! Opening a [`GpuEngine`]: the device, the plan's entry points and their
//! occupancy, the database's chunks uploaded, the streams and the scratch.

use super::*;

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
    /// many as fill the GPU, none where one query fills it
    /// ([`batch::auto_batch_queries`]), 2 or fewer
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
                residue_count: packed.residues(),
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
        // Room for a pair's scores where queries may pair (also in an
        // engine that is then given one query at a time): a search of
        // pairs stages both in it (`GpuEngine::stage_scores`), and
        // enlarging it at the first pair's read-back kept the GPU waiting
        // 4.7–6.4 ms (one H200's host, 1,000,000 sequences: benches/RESULTS.md,
        // "Between two pairs").
        let read_back_scores = if pair_queries { 2 } else { 1 } * positions.len();
        let read_back = super::read_back::ReadBack::for_scores(&ctx, read_back_scores);

        let mut engine = GpuEngine {
            info,
            ctx,
            stream,
            functions,
            sm_count,
            resident_residues: chunks.iter().map(|c| c.residue_count).sum(),
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
            read_back,
            upload_seconds,
            pack_seconds,
            timeline_detail: timeline_detail()?,
            dispatch: super::launch::Dispatch::from_environment()?,
            timeline: None,
        };
        engine.size_query_batch();
        Ok(engine)
    }
}
