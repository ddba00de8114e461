//! Adapter of the SIMT kernels (`gpu_kernels::simt`, `gpu_kernels::simt_i16x2`):
//! SW-CUDA (Manavski 2008) and CUDASW++ 2.0's optimized SIMT (Liu 2010), one
//! thread per database sequence; with CUDASW++ 4.0's packed 16-bit scores
//! (Schmidt 2024), one thread per two sequences and a 32-bit rescue launch.
//! Both read the sequential profile ([`crate::profile::sequential_profile`]).

use cudarc::driver::PushKernelArg;
use gpu_kernels::layout::{NUM_CODES, SimtParams};
use gpu_kernels::recurrence::Gaps;
use gpu_kernels::{simt, simt_i16x2};

use super::{Adapter, inter_sequence_narrow};
use crate::db::PackedChunk;
use cudarc::driver::LaunchConfig;

use crate::error::Result;
use crate::kernel::launch::{ChunkLaunch, ChunkPointers, WorkBuffer, one_thread_each};
use crate::matrix::ScoreMatrix;
use crate::profile::sequential_profile;

/// The SIMT family: 32-bit scores, or 16-bit pairs with the rescue.
pub(crate) struct Simt {
    packed_16: bool,
}

impl Simt {
    pub(crate) const I32: Simt = Simt { packed_16: false };
    pub(crate) const I16X2: Simt = Simt { packed_16: true };
}

/// `sw_simt_i16x2`'s second launch: every score above the 16-bit limit
/// realigned in 32 bits ([`super::rescue`]).
pub const RESCUE_SYMBOL: &str = super::rescue::SYMBOL;

impl Adapter for Simt {
    fn profile(&self, query: &[u8], matrix: &ScoreMatrix) -> Vec<u32> {
        sequential_profile(query, matrix)
    }

    fn run_emulated(&self, chunk: &PackedChunk, profile: &[u32], gaps: Gaps) -> Result<Vec<i32>> {
        Ok(if self.packed_16 {
            run_simt_i16x2_chunk(chunk, profile, gaps)
        } else {
            run_simt_chunk(chunk, profile, gaps)
        })
    }

    /// `simt` on the CPU is its inter-sequence SIMD form (SWIPE, Rognes
    /// 2011): thirty-two sequences in the 8-bit lanes of a vector, in 16
    /// and then 32 bits where a score needs them.
    fn run_cpu(&self, chunk: &PackedChunk, profile: &[u32], gaps: Gaps) -> Result<Vec<i32>> {
        Ok(if self.packed_16 {
            run_simt_i16x2_chunk(chunk, profile, gaps)
        } else {
            inter_sequence_narrow::score_chunk(chunk, profile, gaps)
        })
    }

    fn extra_symbols(&self) -> &'static [&'static str] {
        if self.packed_16 {
            &[RESCUE_SYMBOL]
        } else {
            &[]
        }
    }

    fn launch(&self, l: &ChunkLaunch<'_>) -> Result<()> {
        let threads = l.sequences();
        let query_words = l.profile_words() / NUM_CODES;
        l.check_sizes(
            l.profile_words() == NUM_CODES * query_words
                && query_words.is_multiple_of(simt::STRIP / 4)
                && l.row_buffer_pairs() >= l.words_per_sequence() * 4 * threads,
        )?;
        let args = SimtArgs::new(l, None, query_words, threads)?;
        // SAFETY (for each launch below): the duties of `sw_simt_i32`,
        // `sw_simt_i16x2` and its rescue are checked above and by the
        // configuration (one thread per sequence, or per two sequences with
        // gaps that fit 16 bits): the profile has NUM_CODES * query_words
        // words (a whole number of strips); residues, lengths, row buffer
        // and scores have the sizes the chunk's thread count and width
        // require; launches run in stream order, so the shared row buffer is
        // never used by two launches at once and the rescue reads the scores
        // the 16-bit kernel wrote.
        let launch = |symbol: &str, config: LaunchConfig| unsafe { args.launch(l, symbol, config) };
        // Gap penalties beyond 16 bits' range: the same profile, in 32 bits.
        if self.packed_16 && simt_i16x2::gaps_fit(l.gaps()) {
            launch("sw_simt_i16x2", one_thread_each(threads.div_ceil(2)))?;
            if !super::rescue::needed(l) {
                return Ok(());
            }
            launch(RESCUE_SYMBOL, super::rescue::grid(l.sm_count()))
        } else {
            launch("sw_simt_i32", one_thread_each(threads))
        }
    }
}

/// The arguments of an entry point that takes [`SimtParams`]' fields
/// (`sw_simt_*`, `sw_parallelogram_*`): the chunk's buffers, the row buffer,
/// a sequential profile of `query_words` words per residue row.
pub(crate) struct SimtArgs<'a> {
    /// The chunk's buffers (their guards record the launches on the stream
    /// when the arguments are dropped, after the last launch).
    ptrs: ChunkPointers<'a>,
    profile: u64,
    query_words: u32,
    sequences: u32,
    gaps: Gaps,
}

impl<'a> SimtArgs<'a> {
    /// The arguments of a launch on `l`'s chunk, the sequential profile at
    /// `profile` (`None`: the start of `l`'s profile).
    pub(crate) fn new(
        l: &ChunkLaunch<'a>,
        profile: Option<u64>,
        query_words: usize,
        sequences: usize,
    ) -> Result<SimtArgs<'a>> {
        let ptrs = l.pointers(WorkBuffer::Rows)?;
        Ok(SimtArgs {
            profile: profile.unwrap_or(ptrs.profile),
            ptrs,
            query_words: query_words as u32,
            sequences: sequences as u32,
            gaps: l.gaps(),
        })
    }

    /// Queues `symbol` with these arguments in `config`.
    ///
    /// # Safety
    /// The entry point's `# Safety` duties hold for these buffers and
    /// `config`.
    pub(crate) unsafe fn launch(
        &self,
        l: &ChunkLaunch<'_>,
        symbol: &str,
        config: LaunchConfig,
    ) -> Result<()> {
        let mut launch = l.builder(symbol)?;
        // The fields of `SimtParams`, in its order (see `sw_simt_i32`).
        launch
            .arg(&self.profile)
            .arg(&self.ptrs.residues)
            .arg(&self.ptrs.lengths)
            .arg(&self.ptrs.buffer)
            .arg(&self.ptrs.scores)
            .arg(&self.query_words)
            .arg(&self.sequences)
            .arg(&self.gaps.first)
            .arg(&self.gaps.extend);
        launch
            .launch(config)
            .map(drop)
            .map_err(l.error("running the kernel"))
    }
}

/// Runs `sw_simt_i32` over one chunk on the host, as one launch would on the
/// GPU: same parameter block, same buffers, every thread index in turn.
///
/// `profile` must come from [`crate::profile::sequential_profile`].
pub fn run_simt_chunk(chunk: &PackedChunk, profile: &[u32], gaps: Gaps) -> Vec<i32> {
    with_chunk_params(chunk, profile, gaps, |params| {
        for t in 0..params.threads {
            // SAFETY: `with_chunk_params` allocates the buffers
            // `align_sequence` requires, and threads run one at a time.
            unsafe { simt::align_sequence(params, t) }
        }
    })
}

/// Runs `sw_simt_i16x2` and then the rescue over one chunk on
/// the host, as the GPU engine launches them (or `sw_simt_i32` when the gap
/// penalties do not fit 16 bits, as there).
///
/// `profile` must come from [`crate::profile::sequential_profile`].
pub fn run_simt_i16x2_chunk(chunk: &PackedChunk, profile: &[u32], gaps: Gaps) -> Vec<i32> {
    if !simt_i16x2::gaps_fit(gaps) {
        return run_simt_chunk(chunk, profile, gaps);
    }
    with_chunk_params(chunk, profile, gaps, |params| {
        // SAFETY: as for `run_simt_chunk` (the 16-bit kernel's row buffer is
        // half of it); the gaps fit (checked above); the rescue runs after
        // every pair, as the second launch does on the GPU.
        unsafe {
            for t in 0..params.threads.div_ceil(2) {
                simt_i16x2::align_pair(params, t);
            }
            super::rescue::run_emulated(params);
        }
    })
}

/// Allocates the buffers of a launch over `chunk` with the SIMT kernels'
/// parameter block ([`SimtParams`], which NESW's kernel shares), calls
/// `launch` with it (which runs the launch's threads in turn) and returns
/// the scores.
///
/// `profile` must come from [`crate::profile::sequential_profile`].
pub(crate) fn with_chunk_params(
    chunk: &PackedChunk,
    profile: &[u32],
    gaps: Gaps,
    launch: impl FnOnce(&SimtParams),
) -> Vec<i32> {
    let threads = chunk.sequences();
    let query_words = profile.len() / NUM_CODES;
    let mut row_buffer = vec![[0i32; 2]; chunk.words_per_sequence * 4 * threads];
    let mut scores = vec![0i32; threads];
    let params = SimtParams {
        profile: profile.as_ptr(),
        residues: chunk.words.as_ptr(),
        lengths: chunk.lengths.as_ptr(),
        row_buffer: row_buffer.as_mut_ptr(),
        scores: scores.as_mut_ptr(),
        query_words: query_words as u32,
        threads: threads as u32,
        gaps,
    };
    launch(&params);
    scores
}
