//! What a kernel's adapter needs to launch it on one resident chunk: the
//! chunk's buffers and their device addresses, the query profile, the row
//! buffer or column scratch, the loaded entry points, and the size checks
//! that each kernel's `# Safety` section asks for.
//!
//! All `unsafe` launches go through an adapter (`crate::kernel`), which
//! checks the sizes with [`ChunkLaunch::check_sizes`] first.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::Arc;

use cudarc::driver::{
    CudaFunction, CudaSlice, CudaStream, DevicePtr, DeviceRepr, DriverError, LaunchArgs,
    LaunchConfig, PushKernelArg, SyncOnDrop,
};
use gpu_kernels::recurrence::Gaps;

use crate::error::{Error, Result, gpu_error};

/// Threads per block of the SIMT kernels (CUDASW++ 2.0 found 256 best).
pub const SIMT_BLOCK: u32 = 256;

/// Threads per block of the vector kernels (a multiple of 32: whole warps).
pub const VECTOR_BLOCK: u32 = 256;

/// One chunk of the database, resident on the device.
pub(crate) struct DeviceChunk {
    /// The sorted positions it covers.
    pub range: Range<usize>,
    /// Residues of the chunk's longest sequence.
    pub longest: usize,
    /// Residues of all its sequences (its share of a query's cells).
    pub residue_count: u64,
    pub words_per_sequence: usize,
    pub residues: CudaSlice<u32>,
    pub lengths: CudaSlice<u32>,
}

impl DeviceChunk {
    /// The chunk as a batch's configuration sees it.
    pub fn shape(&self) -> BatchChunk {
        BatchChunk {
            longest: self.longest,
            sequences: self.range.len(),
        }
    }
}

/// The entry points of the kernels' module, by PTX symbol.
pub(crate) type Functions = HashMap<&'static str, CudaFunction>;

/// One launch on one chunk, as an adapter sees it.
pub struct ChunkLaunch<'a> {
    /// The kernel's catalogue symbol (its main entry point).
    pub(crate) symbol: &'static str,
    /// The GPU's number and name, for errors.
    pub(crate) device: (usize, &'a str),
    pub(crate) stream: &'a Arc<CudaStream>,
    pub(crate) functions: &'a Functions,
    pub(crate) chunk: &'a DeviceChunk,
    /// The chunk's first score's index in `scores`.
    pub(crate) score_offset: usize,
    pub(crate) scores: &'a CudaSlice<i32>,
    pub(crate) profile: &'a CudaSlice<u32>,
    pub(crate) query_len: usize,
    pub(crate) row_buffer: &'a CudaSlice<i32>,
    pub(crate) scratch: Option<Scratch<'a>>,
    pub(crate) sm_count: usize,
    /// Residues of the engine's whole database (or part): what the
    /// search of one query scores against.
    pub(crate) database_residues: u64,
    /// Residues of every query the engine scores at once (the query and
    /// its partner, where one is loaded): the search the launch is part
    /// of. Not read in a batch's launches (0 there).
    pub(crate) loaded_query_residues: usize,
    pub(crate) gaps: Gaps,
    /// The largest score of the substitution matrix.
    pub(crate) max_score: i32,
    /// The matrix's smallest score.
    pub(crate) min_score: i32,
    /// The launch runs beside other chunks' launches on a stream of its
    /// own ([`crate::kernel::Adapter::overlaps`]): it must not use the row
    /// buffer, and leaves that work to [`crate::kernel::Adapter::after_overlap`].
    pub(crate) overlapping: bool,
}

/// A launch's share of the engine's column scratch: pairs of i32 from
/// `first_pair` on, `pairs` of them (the whole buffer, or a chunk's own
/// region when chunks run side by side).
#[derive(Clone, Copy)]
pub(crate) struct Scratch<'a> {
    pub buffer: &'a CudaSlice<i32>,
    pub first_pair: usize,
    pub pairs: usize,
}

/// A batch of query pairs in one launch sequence on a chunk
/// (`gpu_kernels::query_group_i16x2`, *A batch of query pairs*): the
/// [`ChunkLaunch`]'s profile holds every entry's profile rows, one entry
/// after another, and its scores (from its `score_offset`) the first
/// entry's low query's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PairBatch {
    /// Residues of each entry's longer query, longest first.
    pub lens: Vec<usize>,
    /// Words of a profile row (an entry has `NUM_CODES` rows).
    pub row_words: usize,
    /// Scores from one entry's low query's to the next entry's.
    pub scores_stride: usize,
    /// Scores from an entry's low query's to its high query's.
    pub high_offset: usize,
}

/// A chunk as a batch's configuration sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BatchChunk {
    /// Residues of its longest sequence.
    pub longest: usize,
    /// Its sequences.
    pub sequences: usize,
}

/// Which work buffer a launch uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WorkBuffer {
    /// The engine's row buffer (a pair of i32 per residue of each sequence).
    Rows,
    /// The column scratch sized by [`crate::kernel::Adapter::scratch_pairs`].
    Scratch,
    /// None: the launch writes only its scores (the pointer is 0).
    Nothing,
}

/// Device addresses of a launch on one chunk: its residues and lengths, the
/// work buffer, the profile, and the scores from the chunk's first sequence.
/// The guards record the buffers' use on the stream when the launch is queued.
pub struct ChunkPointers<'a> {
    /// Packed residues.
    pub residues: u64,
    /// Sequence lengths.
    pub lengths: u64,
    /// Row buffer or scratch.
    pub buffer: u64,
    /// Query profile.
    pub profile: u64,
    /// Scores of the chunk's first sequence on.
    pub scores: u64,
    _guards: [SyncOnDrop<'a>; 5],
}

impl<'a> ChunkLaunch<'a> {
    /// The kernel's main entry point (its `KERNELS` symbol).
    pub fn symbol(&self) -> &'static str {
        self.symbol
    }

    /// Sequences in the chunk.
    pub fn sequences(&self) -> usize {
        self.chunk.range.len()
    }

    /// 32-bit words per sequence of the chunk's packed residues.
    pub fn words_per_sequence(&self) -> usize {
        self.chunk.words_per_sequence
    }

    /// Residues of the chunk's longest sequence.
    pub fn longest(&self) -> usize {
        self.chunk.longest
    }

    /// Words of the query profile.
    pub fn profile_words(&self) -> usize {
        self.profile.len()
    }

    /// Residues of the query.
    pub fn query_len(&self) -> usize {
        self.query_len
    }

    /// Streaming multiprocessors of the GPU.
    pub fn sm_count(&self) -> usize {
        self.sm_count
    }

    /// Residues of the chunk's sequences.
    pub fn chunk_residues(&self) -> u64 {
        self.chunk.residue_count
    }

    /// Residues of the engine's database (or part), every chunk's.
    pub fn database_residues(&self) -> u64 {
        self.database_residues
    }

    /// Residues of every query scored with this launch's at once (the
    /// query's own and its partner's, where one is loaded).
    pub fn loaded_query_residues(&self) -> usize {
        self.loaded_query_residues
    }

    /// The stream the launch is queued on.
    pub fn stream(&self) -> &Arc<CudaStream> {
        self.stream
    }

    /// Gap penalties in the kernels' form.
    pub fn gaps(&self) -> Gaps {
        self.gaps
    }

    /// The largest score of the substitution matrix (what a kernel that
    /// adds a gap cost to 8-bit scores checks).
    pub fn max_score(&self) -> i32 {
        self.max_score
    }

    /// The smallest score of the substitution matrix (what a kernel that
    /// keeps scores plus a gap cost in unsigned bytes checks).
    pub fn min_score(&self) -> i32 {
        self.min_score
    }

    /// Pairs of i32 in the row buffer.
    pub fn row_buffer_pairs(&self) -> usize {
        self.row_buffer.len() / 2
    }

    /// Pairs of i32 of the column scratch this launch may use (0 when
    /// there is none).
    pub fn scratch_pairs(&self) -> usize {
        self.scratch.map_or(0, |s| s.pairs)
    }

    /// Whether the launch runs beside other chunks' launches (see
    /// [`crate::kernel::Adapter::overlaps`]).
    pub fn overlapping(&self) -> bool {
        self.overlapping
    }

    /// An internal error unless the chunk's buffers have the sizes a
    /// kernel's `# Safety` section requires (`kernel_sizes_ok` says whether
    /// the kernel's own do).
    pub fn check_sizes(&self, kernel_sizes_ok: bool) -> Result<()> {
        let chunk = self.chunk;
        let common = chunk.residues.len() >= chunk.words_per_sequence * chunk.range.len()
            && chunk.lengths.len() == chunk.range.len()
            && self.score_offset + chunk.range.len() <= self.scores.len();
        if kernel_sizes_ok && common {
            Ok(())
        } else {
            Err(Error::Internal(format!(
                "buffer sizes do not match chunk {:?} of {}",
                chunk.range,
                format_args!("GPU {} ({})", self.device.0, self.device.1)
            )))
        }
    }

    /// The device addresses of the launch's buffers, `buffer` as its work
    /// buffer (an internal error if that is the scratch and there is none).
    pub fn pointers(&self, buffer_kind: WorkBuffer) -> Result<ChunkPointers<'a>> {
        let (work, offset_pairs) = match buffer_kind {
            WorkBuffer::Rows if self.overlapping => {
                return Err(Error::Internal(
                    "an overlapping launch asked for the row buffer".into(),
                ));
            }
            WorkBuffer::Rows | WorkBuffer::Nothing => (self.row_buffer, 0),
            WorkBuffer::Scratch => {
                let scratch = self
                    .scratch
                    .ok_or_else(|| Error::Internal("a launch without scratch".into()))?;
                if 2 * (scratch.first_pair + scratch.pairs) > scratch.buffer.len() {
                    return Err(Error::Internal("a scratch region past its buffer".into()));
                }
                (scratch.buffer, scratch.first_pair)
            }
        };
        let stream = self.stream;
        let (residues, r) = self.chunk.residues.device_ptr(stream);
        let (lengths, l) = self.chunk.lengths.device_ptr(stream);
        let (buffer, b) = work.device_ptr(stream);
        let buffer = match buffer_kind {
            WorkBuffer::Nothing => 0,
            _ => buffer + 8 * offset_pairs as u64,
        };
        let (profile, p) = self.profile.device_ptr(stream);
        let (scores, s) = self.scores.device_ptr(stream);
        Ok(ChunkPointers {
            residues,
            lengths,
            buffer,
            profile,
            scores: scores + 4 * self.score_offset as u64,
            _guards: [r, l, b, p, s],
        })
    }

    /// A launch of entry point `symbol` on the engine's stream, its
    /// arguments to be pushed by the adapter.
    pub fn builder(&self, symbol: &str) -> Result<LaunchArgs<'a>> {
        let function = self
            .functions
            .get(symbol)
            .ok_or_else(|| Error::Internal(format!("entry point {symbol} is not loaded")))?;
        Ok(self.stream.launch_builder(function))
    }

    /// Queues entry point `symbol` with one argument, its parameter block
    /// `params`, in `config`; a driver error names `stage`.
    ///
    /// # Safety
    /// `params` and `config` meet the entry point's `# Safety` duties.
    pub unsafe fn launch_params<P: DeviceRepr>(
        &self,
        symbol: &str,
        params: &P,
        config: LaunchConfig,
        stage: &'static str,
    ) -> Result<()> {
        let mut launch = self.builder(symbol)?;
        launch.arg(params);
        launch.launch(config).map(drop).map_err(self.error(stage))
    }

    /// A driver error of this launch at `stage`.
    pub fn error(&self, stage: &'static str) -> impl Fn(DriverError) -> Error + use<> {
        gpu_error(self.device.0, self.device.1, stage)
    }
}

/// One thread per item: blocks of [`SIMT_BLOCK`] threads covering `threads`.
pub fn one_thread_each(threads: usize) -> LaunchConfig {
    LaunchConfig {
        grid_dim: ((threads as u32).div_ceil(SIMT_BLOCK), 1, 1),
        block_dim: (SIMT_BLOCK, 1, 1),
        shared_mem_bytes: 0,
    }
}

/// Blocks of [`VECTOR_BLOCK`] threads (whole warps) covering `lanes` threads.
pub fn vector_grid(lanes: usize, shared_mem_bytes: u32) -> LaunchConfig {
    LaunchConfig {
        grid_dim: ((lanes as u32).div_ceil(VECTOR_BLOCK), 1, 1),
        block_dim: (VECTOR_BLOCK, 1, 1),
        shared_mem_bytes,
    }
}
