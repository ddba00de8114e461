//! Adapter of the query-group kernels (`gpu_kernels::query_group_i16x2`):
//! CUDASW++ 4.0's lane groups (Schmidt 2024) with the query's columns in
//! the lanes and the database streamed through them, the scores read from
//! a query profile (Manavski 2008; Liu 2010) sixteen at a time; 16-bit
//! scores and the 32-bit rescue of `simt-i16x2` after them. One
//! configuration (lanes per group × columns per lane) per query and chunk
//! (`gpu_kernels::query_group_i16x2::config_for`), a launch per pass of the
//! query, the border between passes in the column scratch.
//!
//! The profile is the group kernels' ([`super::group`]: the rescue's
//! sequential profile, and what runs when this kernel cannot) followed by
//! four header words (the query's length, the matrix's largest score, the
//! words of a profile row, its smallest score) and the query profile's
//! rows. The update (`gpu_kernels::query_group_i16x2::update_for`) is the
//! lifted one where every score plus `first` (open + extend) lies in `0
//! ..= 127`, else the biased one where every byte plus `first` fits an
//! `i8`, else the plain one; with gap costs beyond 16 bits a chunk runs
//! `group-i16x2` instead.
//!
//! Two queries can share a launch, one in each 16-bit half, with one
//! database sequence a group (the `_queries` configurations, lifted update
//! only): the engine asks [`Adapter::pairs_queries`] per chunk (the
//! kernel's cost model, `queries_pay`), uploads [`pair_profile_rows`] and
//! calls [`Adapter::launch_pair`] with each query's own launch (its
//! profile, for the rescue, and its scores). Where the shorter query ends
//! passes before the longer one and the model says it pays
//! (`pair_tail`), the pair's launches hand the longer query over to a
//! one-query configuration there (the kernel's module docs, *Handing a
//! pair's longer query over*); [`HAND_OVER_VARIABLE`] turns that off.

use std::ops::Range;
use std::sync::LazyLock;

use cudarc::driver::{CudaSlice, DevicePtr};
use gpu_kernels::layout::{NUM_CODES, PAD_CODE, PAD_SCORE};
use gpu_kernels::query_group_i16x2::SLICE_COLUMNS;
use gpu_kernels::query_group_i16x2::{
    CONFIGS, Config, HAND_OVER_SYMBOL, Halves, HandOverParams, QueryGroupParams, Update,
    align_pass_emulated, batch_config_for, config_for, config_named, hand_over_slot,
    hand_over_threads, host_window, pair_config_for, pair_row_words, pair_rows, pair_tail,
    profile_row_words, queries_pay, scratch_slots, update_for,
};
use gpu_kernels::recurrence::Gaps;
use gpu_kernels::{group_i16x2, simt_i16x2};

use super::group::{self, Group};
use super::simt::RESCUE_SYMBOL;
use super::{Adapter, each_alone, each_query_alone};
use crate::db::PackedChunk;
use crate::engine::gpu::launch::{
    BatchChunk, ChunkLaunch, ChunkPointers, PairBatch, WorkBuffer, one_thread_each, vector_grid,
};
use crate::error::{Error, Result};
use crate::matrix::ScoreMatrix;

/// Words of the header between the group profile and the rows.
const HEADER_WORDS: usize = 4;

/// Entries a batch's launch takes at most: its grid's second dimension,
/// a row of blocks an entry, and CUDA's limit for `gridDim.y`.
const MAX_GRID_ROWS: usize = 65_535;

/// Pairs a launch aligns at most per multiprocessor when the query takes
/// several passes (every pair of a launch keeps its border in the scratch
/// until the last pass): a few waves of groups.
const MULTI_PASS_PAIRS_PER_SM: usize = 256;

/// The environment variable that pins one configuration for every chunk
/// (`g16_r32`, say: the part of the entry point's name after
/// `sw_query_group_i16x2_`), for benchmarks that compare configurations.
/// One of two queries (`g8_r20_queries`) pairs every two queries the
/// engine loads together and leaves a query launched alone to the model;
/// one of one query turns pairing off. Set and empty, it pins nothing.
pub const CONFIG_VARIABLE: &str = "WARPSW_QUERY_GROUP_CONFIG";

/// The configuration [`CONFIG_VARIABLE`] pins, read once: `Err` names a
/// configuration that does not exist.
static PINNED: LazyLock<std::result::Result<Option<usize>, String>> =
    LazyLock::new(|| match std::env::var(CONFIG_VARIABLE) {
        // Set and empty pins nothing, as unset.
        Err(_) => Ok(None),
        Ok(name) if name.is_empty() => Ok(None),
        Ok(name) => config_named(&name).map(Some).ok_or_else(|| {
            let known: Vec<_> = CONFIGS
                .iter()
                .map(|c| c.symbol.trim_start_matches("sw_query_group_i16x2_"))
                .collect();
            format!(
                "{CONFIG_VARIABLE}={name} names no query-group configuration; configurations: {}",
                known.join(", ")
            )
        }),
    });

/// The environment variable that turns the hand-over of a pair's longer
/// query off (`off`) or on (`on`, the default; set and empty is the
/// default too), for benchmarks that measure what it gains. A pinned
/// configuration ([`CONFIG_VARIABLE`]) turns it off as well.
pub const HAND_OVER_VARIABLE: &str = "WARPSW_HAND_OVER";

/// Whether [`HAND_OVER_VARIABLE`] leaves the hand-over on, read once:
/// `Err` for a value that is neither `on` nor `off`.
static HANDS_OVER: LazyLock<std::result::Result<bool, String>> =
    LazyLock::new(|| crate::switch::on_or_off(HAND_OVER_VARIABLE, true));

/// Whether [`HAND_OVER_VARIABLE`] leaves the hand-over on; an error if it
/// is neither on nor off.
fn hands_over() -> Result<bool> {
    HANDS_OVER.clone().map_err(Error::InvalidArgument)
}

/// The query-group kernels' family.
pub(crate) struct QueryGroup;

/// Every entry point a launch may use: each configuration, and the group
/// kernels' (the fallback, the rescue).
static EXTRA_SYMBOLS: LazyLock<Vec<&'static str>> = LazyLock::new(|| {
    CONFIGS
        .iter()
        .map(|c| c.symbol)
        .chain([HAND_OVER_SYMBOL])
        .chain(Group.extra_symbols().iter().copied())
        .collect()
});

/// The configuration [`CONFIG_VARIABLE`] pins whose halves hold
/// `halves` (`None`: none pinned, or one of the other halves); an error if
/// it names none.
fn pinned(halves: Halves) -> Result<Option<usize>> {
    // Every choice of a configuration checks the environment's settings.
    hands_over()?;
    match &*PINNED {
        Ok(pinned) => Ok(pinned.filter(|&k| CONFIGS[k].halves == halves)),
        Err(message) => Err(Error::InvalidArgument(message.clone())),
    }
}

/// The configuration for a query of `query_len` residues on a chunk whose
/// longest sequence has `longest` residues with update `update`: the
/// pinned one, or `config_for`'s; an error if [`CONFIG_VARIABLE`] names
/// none.
fn config(query_len: usize, longest: usize, update: Update) -> Result<usize> {
    Ok(pinned(Halves::Sequences)?.unwrap_or_else(|| config_for(query_len, longest, update)))
}

/// The configuration for two queries of at most `query_len` residues in
/// the halves on a chunk whose longest sequence has `longest` residues:
/// the pinned one, or `pair_config_for`'s.
fn pair_config(query_len: usize, longest: usize) -> Result<usize> {
    Ok(pinned(Halves::Queries)?.unwrap_or_else(|| pair_config_for(query_len, longest)))
}

/// Where two queries of `low_len` and `high_len` residues in the halves
/// with configuration `pair` on a chunk whose longest sequence has
/// `longest` residues hand the longer one over (`pair_tail`'s passes
/// before it and one-query configuration): none with a pinned
/// configuration or [`HAND_OVER_VARIABLE`] off; an error if that variable
/// is neither on nor off.
fn hand_over(
    pair: usize,
    low_len: usize,
    high_len: usize,
    longest: usize,
) -> Result<Option<(usize, usize)>> {
    let pinned = pinned(Halves::Queries)?.is_some() || pinned(Halves::Sequences)?.is_some();
    Ok((hands_over()? && !pinned)
        .then(|| pair_tail(pair, low_len, high_len, longest))
        .flatten())
}

/// The configuration for a batch of entries of two queries of at most
/// `lens` residues each (longest first) on `chunk` on a GPU of `sm_count`
/// multiprocessors: the pinned one, or `batch_config_for`'s.
fn batch_config(lens: &[usize], chunk: BatchChunk, sm_count: usize) -> Result<usize> {
    let BatchChunk { longest, sequences } = chunk;
    Ok(pinned(Halves::Queries)?
        .unwrap_or_else(|| batch_config_for(lens, longest, sequences, sm_count)))
}

/// Words of a batch's profile rows (entries of at most `lens` residues,
/// longest first) for `chunks` on a GPU of `sm_count` multiprocessors:
/// every column their passes read (at least
/// the longest query's, in whole slices), each chunk's configuration
/// [`batch_config`]'s (a pinned one that does not exist reads none: its
/// launch says why).
fn batch_row_words(lens: &[usize], chunks: &[BatchChunk], sm_count: usize) -> usize {
    let first = lens.first().copied().unwrap_or(0);
    let read = chunks
        .iter()
        .filter_map(|&chunk| batch_config(lens, chunk, sm_count).ok())
        .map(|k| CONFIGS[k].passes(first) * CONFIGS[k].width())
        .max()
        .unwrap_or(0);
    read.max(first).next_multiple_of(SLICE_COLUMNS)
}

/// The smallest and the largest score of a matrix, as a launch needs them
/// to choose its update.
#[derive(Clone, Copy)]
struct ScoreRange {
    min: i32,
    max: i32,
}

/// Whether configuration `config` runs on a matrix whose scores lie in
/// `min ..= max` with gap costs `gaps` (else its chunks run `group-i16x2`),
/// as the launch and the emulated run decide it.
pub fn config_runs(config: usize, gaps: Gaps, min: i32, max: i32) -> bool {
    config < CONFIGS.len() && ScoreRange { min, max }.runs(config, gaps)
}

impl ScoreRange {
    /// The update that runs with gaps `gaps` ([`update_for`]).
    fn update(self, gaps: Gaps) -> Update {
        update_for(self.min, self.max, gaps.first)
    }

    /// Whether configuration `config` runs with gap costs `gaps`: the gaps
    /// fit 16 bits and its update fits the scores ([`Update::fits`]; a
    /// pinned configuration may not).
    fn runs(self, config: usize, gaps: Gaps) -> bool {
        simt_i16x2::gaps_fit(gaps) && CONFIGS[config].update.fits(self.min, self.max, gaps.first)
    }
}

/// The pairs that share pair `pair`'s warp in a launch of pairs
/// `first_pair .. end_pair` with groups of `lanes` lanes (a warp holds
/// `32 / lanes` groups, counted from the launch's first pair).
fn warp_pairs(pair: usize, first_pair: usize, end_pair: usize, lanes: usize) -> Range<usize> {
    let per_warp = 32 / lanes;
    let start = first_pair + (pair - first_pair) / per_warp * per_warp;
    start..(start + per_warp).min(end_pair)
}

/// Where a query-group profile's parts lie.
struct Layout {
    query_len: usize,
    /// Words of the group profile in front.
    group_words: usize,
    /// Words per row of the query profile.
    row_words: usize,
}

impl Layout {
    fn new(query_len: usize) -> Layout {
        Layout {
            query_len,
            group_words: group::profile_words(query_len),
            row_words: profile_row_words(query_len),
        }
    }

    /// Words after the group profile.
    fn suffix(&self) -> usize {
        HEADER_WORDS + NUM_CODES * self.row_words
    }

    fn words(&self) -> usize {
        self.group_words + self.suffix()
    }

    /// Word offset of the rows.
    fn rows(&self) -> usize {
        self.group_words + HEADER_WORDS
    }

    /// The matrix's score range, from the header of `profile` (`None` past
    /// its end).
    fn scores(&self, profile: &[u32]) -> Option<ScoreRange> {
        let header = profile.get(self.group_words..self.rows())?;
        Some(ScoreRange {
            min: header[3] as i32,
            max: header[1] as i32,
        })
    }
}

/// The score of position `j` of `query` against residue code `c`: the
/// pad score past the query and for the pad code.
fn profile_score(query: &[u8], matrix: &ScoreMatrix, c: usize, j: usize) -> i8 {
    match query.get(j) {
        Some(&q) if c != PAD_CODE as usize => matrix.score(q, c as u8) as i8,
        _ => PAD_SCORE,
    }
}

/// The rows of the profile of two queries scored together
/// (`gpu_kernels::query_group_i16x2`, *Two queries*): row `c`, word `j`,
/// the scores of position `j` of `low` (low half) and of `high` (high
/// half) against residue code `c`, each an `i16`.
pub fn pair_profile_rows(low: &[u8], high: &[u8], matrix: &ScoreMatrix) -> Vec<u32> {
    pair_rows_of(low, high, matrix, pair_row_words(low.len().max(high.len())))
}

/// [`pair_profile_rows`] with rows of `row_words` words (at least
/// `pair_row_words` of the longer query): a batch's entries share
/// [`batch_row_words`], every column any of its passes reads.
fn pair_rows_of(low: &[u8], high: &[u8], matrix: &ScoreMatrix, row_words: usize) -> Vec<u32> {
    let half = |query: &[u8], c, j| profile_score(query, matrix, c, j) as i16 as u16 as u32;
    (0..NUM_CODES)
        .flat_map(|c| (0..row_words).map(move |j| half(low, c, j) | half(high, c, j) << 16))
        .collect()
}

/// The query profile's rows (`gpu_kernels::query_group_i16x2`, *Memory
/// layout*): row `c`, byte `j`, the score of query position `j` against
/// residue code `c`; the pad score past the query and for the pad code.
pub fn query_profile_rows(query: &[u8], matrix: &ScoreMatrix) -> Vec<u32> {
    let row_words = profile_row_words(query.len());
    let mut rows = Vec::with_capacity(NUM_CODES * row_words);
    // A row's bytes first, then its words (a byte at a time through
    // `profile_score` took 27 µs of a 144-residue query's search).
    let mut row = vec![PAD_SCORE as u8; 4 * row_words];
    for c in 0..NUM_CODES {
        for (j, byte) in row.iter_mut().enumerate().take(query.len()) {
            *byte = profile_score(query, matrix, c, j) as u8;
        }
        rows.extend(
            row.chunks_exact(4)
                .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]])),
        );
    }
    rows
}

impl Adapter for QueryGroup {
    fn profile(&self, query: &[u8], matrix: &ScoreMatrix) -> Vec<u32> {
        let layout = Layout::new(query.len());
        let mut profile = group::group_profile(query, matrix, layout.words() - layout.group_words);
        profile.extend([
            query.len() as u32,
            matrix.max_score() as u32,
            layout.row_words as u32,
            matrix.min_score() as u32,
        ]);
        profile.extend(query_profile_rows(query, matrix));
        profile
    }

    fn run_emulated(&self, chunk: &PackedChunk, profile: &[u32], gaps: Gaps) -> Result<Vec<i32>> {
        let query_len = profile.first().copied().unwrap_or(0) as usize;
        let update = match Layout::new(query_len).scores(profile) {
            Some(scores) => scores.update(gaps),
            None => Update::Plain, // the wrong size: run_emulated_config says so
        };
        let config = config(query_len, chunk.longest(), update)?;
        run_emulated_config(config, chunk, profile, gaps)
    }

    fn extra_symbols(&self) -> &'static [&'static str] {
        &EXTRA_SYMBOLS
    }

    fn dynamic_shared_bytes(&self, symbol: &str) -> usize {
        match CONFIGS.iter().find(|c| c.symbol == symbol) {
            Some(c) => c.window_bytes(),
            None => Group.dynamic_shared_bytes(symbol),
        }
    }

    fn scratch_pairs(
        &self,
        query_len: usize,
        threads: usize,
        longest: usize,
        sm_count: usize,
    ) -> usize {
        let group = Group.scratch_pairs(query_len, threads, longest, sm_count);
        // A pinned configuration that does not exist fails at the launch.
        // Passes never decrease as `longest` grows (`config_for`), so the
        // configuration `launch` picks for a chunk at most this long, with
        // whichever update, needs no more.
        let updates = [Update::Lifted, Update::Biased, Update::Plain];
        let Ok(passes) = updates.iter().try_fold(0, |most, &update| {
            config(query_len, longest, update).map(|k| most.max(CONFIGS[k].passes(query_len)))
        }) else {
            return group;
        };
        group.max(border_pairs(passes, threads.div_ceil(2), longest, sm_count))
    }

    fn overlaps(&self, gaps: Gaps) -> bool {
        Group.overlaps(gaps)
    }

    fn after_overlap(&self, l: &ChunkLaunch<'_>) -> Result<()> {
        group::simt_launch(l, RESCUE_SYMBOL, Layout::new(l.query_len()).suffix())
    }

    fn launch(&self, l: &ChunkLaunch<'_>) -> Result<()> {
        let layout = Layout::new(l.query_len());
        l.check_sizes(l.profile_words() == layout.words())?;
        let gaps = l.gaps();
        let scores = ScoreRange {
            min: l.min_score(),
            max: l.max_score(),
        };
        let k = config(layout.query_len, l.longest(), scores.update(gaps))?;
        if !scores.runs(k, gaps) {
            return group::launch_group(l, layout.suffix());
        }
        let passes = CONFIGS[k].passes(layout.query_len);
        let ptrs = l.pointers(work_buffer(passes))?;
        let entries = Entries::one(passes);
        let passes = Passes {
            config: k,
            entries: &entries,
            rows: (ptrs.profile + 4 * layout.rows() as u64, layout.row_words),
            high_scores: 0,
            tail: None,
        };
        queue_passes(l, &ptrs, &passes)?;
        drop(ptrs);
        // Beside other chunks the rescue waits: it needs the row buffer.
        if l.overlapping() {
            Ok(())
        } else {
            group::simt_launch(l, RESCUE_SYMBOL, layout.suffix())
        }
    }

    fn pairs_queries(
        &self,
        low_len: usize,
        high_len: usize,
        longest: usize,
        gaps: Gaps,
        (min, max): (i32, i32),
    ) -> bool {
        let fits = low_len > 0
            && high_len > 0
            && simt_i16x2::gaps_fit(gaps)
            && Update::Lifted.fits(min, max, gaps.first);
        // A pinned configuration decides: one of two queries pairs them
        // all, another none.
        fits && match &*PINNED {
            Ok(Some(k)) => CONFIGS[*k].halves == Halves::Queries,
            // With the hand-over, as its launches would run.
            Ok(None) => queries_pay(low_len, high_len, longest, hands_over().unwrap_or(false)),
            Err(_) => false,
        }
    }

    fn pair_profile(&self, low: &[u8], high: &[u8], matrix: &ScoreMatrix) -> Vec<u32> {
        pair_profile_rows(low, high, matrix)
    }

    fn pair_scratch_pairs(
        &self,
        query_len: usize,
        threads: usize,
        longest: usize,
        sm_count: usize,
    ) -> usize {
        match pair_config(query_len, longest) {
            Ok(k) => border_pairs(CONFIGS[k].passes(query_len), threads, longest, sm_count),
            Err(_) => 0, // the launch says why
        }
    }

    fn launch_pair(
        &self,
        low: &ChunkLaunch<'_>,
        high: &ChunkLaunch<'_>,
        pair: &CudaSlice<u32>,
    ) -> Result<()> {
        let query_len = low.query_len().max(high.query_len());
        let row_words = pair_row_words(query_len);
        let (low_layout, high_layout) =
            (Layout::new(low.query_len()), Layout::new(high.query_len()));
        let (gaps, longest) = (low.gaps(), low.longest());
        low.check_sizes(
            low.profile_words() == low_layout.words()
                && pair.len() == NUM_CODES * row_words
                && self.pairs_queries(
                    low.query_len(),
                    high.query_len(),
                    longest,
                    gaps,
                    (low.min_score(), low.max_score()),
                ),
        )?;
        high.check_sizes(
            high.profile_words() == high_layout.words()
                && high.sequences() == low.sequences()
                && high.gaps() == gaps,
        )?;
        let k = pair_config(query_len, longest)?;
        let passes = CONFIGS[k].passes(query_len);
        let ptrs = low.pointers(work_buffer(passes))?;
        let high_ptrs = high.pointers(WorkBuffer::Nothing)?;
        let (rows, _guard) = pair.device_ptr(low.stream);
        let entries = Entries::one(passes);
        let tail =
            hand_over(k, low.query_len(), high.query_len(), longest)?.map(|(handoff, config)| {
                // The longer query's own profile rows and scores.
                let (half, layout, ptrs) = if high.query_len() >= low.query_len() {
                    (1, &high_layout, &high_ptrs)
                } else {
                    (0, &low_layout, &ptrs)
                };
                Tail {
                    config,
                    handoff,
                    half,
                    query_len: layout.query_len,
                    rows: (ptrs.profile + 4 * layout.rows() as u64, layout.row_words),
                    scores: ptrs.scores,
                }
            });
        let lens = (low.query_len(), high.query_len());
        low.check_sizes(tail.as_ref().is_none_or(|t| {
            let shorter_longer = (lens.0.min(lens.1), t.query_len);
            t.half < 2 && tail_fits(CONFIGS[k], t.config, t.handoff, shorter_longer)
        }))?;
        let passes = Passes {
            config: k,
            entries: &entries,
            rows: (rows, row_words),
            high_scores: high_ptrs.scores,
            tail,
        };
        queue_passes(low, &ptrs, &passes)?;
        drop((ptrs, high_ptrs));
        if low.overlapping() {
            Ok(())
        } else {
            group::simt_launch(low, RESCUE_SYMBOL, low_layout.suffix())?;
            group::simt_launch(high, RESCUE_SYMBOL, high_layout.suffix())
        }
    }

    fn batches_queries(&self, gaps: Gaps, (min, max): (i32, i32)) -> bool {
        let fits = simt_i16x2::gaps_fit(gaps) && Update::Lifted.fits(min, max, gaps.first);
        // A pinned configuration of one query turns batches off, as pairs.
        fits && match &*PINNED {
            Ok(Some(k)) => CONFIGS[*k].halves == Halves::Queries,
            Ok(None) => true,
            Err(_) => false,
        }
    }

    fn batch_profile(
        &self,
        pairs: &[[&[u8]; 2]],
        matrix: &ScoreMatrix,
        chunks: &[BatchChunk],
        sm_count: usize,
    ) -> (Vec<u32>, usize) {
        use rayon::prelude::*;
        let lens: Vec<usize> = pairs.iter().map(|[a, b]| a.len().max(b.len())).collect();
        let row_words = batch_row_words(&lens, chunks, sm_count);
        let mut rows = vec![0u32; pairs.len() * NUM_CODES * row_words];
        rows.par_chunks_mut(NUM_CODES * row_words.max(1))
            .zip(pairs)
            .for_each(|(entry, [low, high])| {
                entry.copy_from_slice(&pair_rows_of(low, high, matrix, row_words))
            });
        (rows, row_words)
    }

    fn batch_scratch_pairs(&self, lens: &[usize], chunk: BatchChunk, sm_count: usize) -> usize {
        let (Some(&first), Ok(k)) = (lens.first(), batch_config(lens, chunk, sm_count)) else {
            return 0; // nothing to launch, or the launch says why
        };
        match CONFIGS[k].passes(first) {
            1 => 0,
            _ => lens.len() * chunk.sequences * scratch_slots(chunk.longest),
        }
    }

    fn launch_batch(&self, l: &ChunkLaunch<'_>, batch: &PairBatch) -> Result<()> {
        let PairBatch {
            lens,
            row_words,
            scores_stride,
            high_offset,
        } = batch;
        let (gaps, threads) = (l.gaps(), l.sequences());
        let chunk = BatchChunk {
            longest: l.longest(),
            sequences: threads,
        };
        let entries = lens.len();
        let last_scores = (entries.max(1) - 1) * scores_stride + high_offset + threads;
        l.check_sizes(
            entries > 0
                && entries <= MAX_GRID_ROWS
                && self.batches_queries(gaps, (l.min_score(), l.max_score()))
                && lens.windows(2).all(|w| w[0] >= w[1])
                && *row_words >= batch_row_words(lens, &[chunk], l.sm_count())
                && l.profile_words() >= entries * NUM_CODES * row_words
                && *high_offset >= threads
                && *scores_stride >= high_offset + threads
                && l.score_offset + last_scores <= l.scores.len()
                && u32::try_from(NUM_CODES * row_words).is_ok()
                && u32::try_from(*scores_stride).is_ok(),
        )?;
        let k = batch_config(lens, chunk, l.sm_count())?;
        let entries = Entries {
            passes: lens.iter().map(|&m| CONFIGS[k].passes(m)).collect(),
            profile_stride: NUM_CODES * row_words,
            scores_stride: *scores_stride,
        };
        let ptrs = l.pointers(work_buffer(entries.passes()))?;
        let passes = Passes {
            config: k,
            entries: &entries,
            rows: (ptrs.profile, *row_words),
            high_scores: ptrs.scores + 4 * *high_offset as u64,
            tail: None,
        };
        queue_passes(l, &ptrs, &passes)
    }

    fn run_emulated_batch(
        &self,
        chunk: &PackedChunk,
        profiles: &[&[u32]],
        pairs: &[[&[u8]; 2]],
        matrix: &ScoreMatrix,
        gaps: Gaps,
    ) -> Result<Vec<Vec<i32>>> {
        let range = (matrix.min_score(), matrix.max_score());
        let lens: Vec<usize> = pairs.iter().map(|[a, b]| a.len().max(b.len())).collect();
        if profiles.len() != 2 * pairs.len() || !lens.windows(2).all(|w| w[0] >= w[1]) {
            return Err(Error::Internal(
                "a batch of query pairs out of order, or without their profiles".into(),
            ));
        }
        if !self.batches_queries(gaps, range) || pairs.is_empty() {
            return each_query_alone(self, chunk, profiles, gaps);
        }
        let shape = BatchChunk {
            longest: chunk.longest(),
            sequences: chunk.sequences(),
        };
        let (rows, row_words) = self.batch_profile(pairs, matrix, &[shape], EMULATED_SM_COUNT);
        let k = batch_config(&lens, shape, EMULATED_SM_COUNT)?;
        let entries = emulate_passes(k, chunk, (&rows, row_words), &lens, gaps, None);
        let mut all = Vec::with_capacity(profiles.len());
        for (scores, profiles) in entries.iter().flatten().zip(profiles) {
            if profiles.is_empty() {
                all.push(Vec::new());
                continue;
            }
            let layout = Layout::new(profiles.first().copied().unwrap_or(0) as usize);
            if profiles.len() != layout.words() {
                return Err(bad_profile());
            }
            let group_profile = &profiles[..layout.group_words];
            all.push(super::rescue::run_chunk(
                chunk,
                group::sequential_part(group_profile)?,
                gaps,
                scores,
            ));
        }
        Ok(all)
    }

    fn run_emulated_pair(
        &self,
        chunk: &PackedChunk,
        profiles: [&[u32]; 2],
        pair: &[u32],
        gaps: Gaps,
    ) -> Result<[Vec<i32>; 2]> {
        let lens = profiles.map(|p| p.first().copied().unwrap_or(0) as usize);
        let scores = match Layout::new(lens[0]).scores(profiles[0]) {
            Some(range) => (range.min, range.max),
            None => return Err(bad_profile()),
        };
        if !self.pairs_queries(lens[0], lens[1], chunk.longest(), gaps, scores) {
            return each_alone(self, chunk, profiles, gaps);
        }
        let k = pair_config(lens[0].max(lens[1]), chunk.longest())?;
        match hand_over(k, lens[0], lens[1], chunk.longest())? {
            Some((handoff, tail)) => {
                run_emulated_pair_with_tail((k, tail), chunk, profiles, pair, gaps, handoff)
            }
            None => run_emulated_pair_config(k, chunk, profiles, pair, gaps),
        }
    }
}

/// The work buffer of a launch of `passes` passes: the border scratch
/// when there are several.
fn work_buffer(passes: usize) -> WorkBuffer {
    if passes > 1 {
        WorkBuffer::Scratch
    } else {
        WorkBuffer::Nothing
    }
}

/// Pairs of i32 of border scratch that launches of `passes` passes need on
/// a chunk of `groups` groups (pairs of sequences, or sequences with two
/// queries) of at most `longest` residues: none for one pass, else a few
/// waves of groups' borders.
fn border_pairs(passes: usize, groups: usize, longest: usize, sm_count: usize) -> usize {
    if passes <= 1 {
        return 0;
    }
    // A slot (an H and an E) is one pair of i32.
    groups.min(sm_count.max(1) * MULTI_PASS_PAIRS_PER_SM) * scratch_slots(longest)
}

/// The entries of a launch sequence (`gpu_kernels::query_group_i16x2`,
/// *A batch of query pairs*): how many passes each takes, longest first,
/// and how far apart their profile rows and scores lie.
struct Entries {
    /// Passes of each entry, none more than the one before.
    passes: Vec<usize>,
    profile_stride: usize,
    scores_stride: usize,
}

impl Entries {
    /// One query, or one pair, of `passes` passes.
    fn one(passes: usize) -> Entries {
        Entries {
            passes: vec![passes],
            profile_stride: 0,
            scores_stride: 0,
        }
    }

    /// Passes of the first (longest) entry: the launch sequence's.
    fn passes(&self) -> usize {
        self.passes.first().copied().unwrap_or(0)
    }

    /// Entries that have pass `pass`: a prefix.
    fn running(&self, pass: usize) -> usize {
        self.passes.iter().take_while(|&&p| p > pass).count()
    }
}

/// What [`queue_passes`] queues: configuration `config`'s passes for
/// `entries`, reading the profile rows at `rows` (device address, words a
/// row), of one query (`high_scores` 0) or two in the halves (the high
/// one's scores at `high_scores`), perhaps handing the longer of two over
/// (`tail`).
struct Passes<'a> {
    config: usize,
    entries: &'a Entries,
    rows: (u64, usize),
    high_scores: u64,
    tail: Option<Tail>,
}

/// The longer query of a pair handed over to a one-query configuration
/// (the kernel's module docs, *Handing a pair's longer query over*).
struct Tail {
    /// The one-query configuration (lifted, the pair's lanes).
    config: usize,
    /// The pair's passes before the hand-over.
    handoff: usize,
    /// The query's half in the pair: 0 low, 1 high.
    half: u32,
    query_len: usize,
    /// Its own profile rows (device address, words a row).
    rows: (u64, usize),
    /// Its scores (device address).
    scores: u64,
}

impl Tail {
    /// The parameters of the hand-over after a launch of the pair's
    /// passes (`pair` their parameters, `pair_config` its configuration).
    fn hand_over(&self, pair: &QueryGroupParams, pair_config: Config) -> HandOverParams {
        HandOverParams {
            scratch: pair.scratch.cast::<u64>(),
            lengths: pair.lengths,
            first_pair: pair.first_pair,
            end_pair: pair.end_pair,
            slots: pair.slots,
            lanes: pair_config.lanes as u32,
            half: self.half,
            first: pair.gaps.first,
        }
    }

    /// The parameters of the one-query passes after the hand-over (pass
    /// 0; `passes` of them) over the launch's sequences.
    fn resumed(&self, pair: &QueryGroupParams, pair_config: Config) -> QueryGroupParams {
        let first_column = self.handoff * pair_config.width();
        let (rows, row_words) = self.rows;
        QueryGroupParams {
            profile: rows as *const u32,
            scores: self.scores as *mut i32,
            high_scores: std::ptr::null_mut(),
            row_words: row_words as u32,
            // The one-query groups of the launch's sequences: two each,
            // the first even.
            first_pair: pair.first_pair / 2,
            end_pair: pair.end_pair.div_ceil(2),
            pass: 0,
            passes: CONFIGS[self.config].passes(self.query_len - first_column) as u32,
            first_column: first_column as u32,
            // A group's block spans its two sequences' blocks of the pair.
            slots: 2 * pair.slots,
            profile_stride: 0,
            scores_stride: 0,
            ..*pair
        }
    }
}

/// Whether one-query configuration `tail` can take over the longer of two
/// queries (`longer` residues) from configuration `pair` after `handoff`
/// passes, the shorter (`shorter` residues) having ended by then: the
/// lifted update with the pair's lanes, before the longer one's last pass.
fn tail_fits(pair: Config, tail: usize, handoff: usize, (shorter, longer): (usize, usize)) -> bool {
    let c = CONFIGS[tail];
    pair.halves == Halves::Queries
        && c.halves == Halves::Sequences
        && c.update == Update::Lifted
        && c.lanes == pair.lanes
        && pair.passes(shorter) <= handoff
        && handoff < pair.passes(longer)
}

/// Groups a launch of a multi-pass sequence aligns when the scratch holds
/// the borders of `fits` of a chunk's `groups`: with a hand-over
/// (`tail`), an even number unless it is all of them, so that every
/// launch starts on an even sequence (a one-query group takes two).
fn launch_groups(fits: usize, groups: usize, tail: bool) -> usize {
    let fits = fits.min(groups);
    if tail && fits < groups {
        fits & !1
    } else {
        fits
    }
}

/// Queues `passes` over the chunk of `l` (`ptrs` its pointers), in
/// launches of as many groups as the scratch holds borders for (of every
/// entry); with a tail, each launch's pair passes up to the hand-over,
/// the hand-over, and the one-query passes of its sequences.
fn queue_passes(l: &ChunkLaunch<'_>, ptrs: &ChunkPointers<'_>, passes: &Passes<'_>) -> Result<()> {
    let Passes {
        config: k,
        entries,
        rows: (rows, row_words),
        high_scores,
        ref tail,
    } = *passes;
    let config = CONFIGS[k];
    let passes = entries.passes();
    let threads = l.sequences();
    let groups = match config.halves {
        Halves::Sequences => threads.div_ceil(2),
        Halves::Queries => threads,
    };
    l.check_sizes((high_scores != 0) == (config.halves == Halves::Queries))?;
    // A tail (checked by `launch_pair`: `tail_fits`) follows one pair.
    l.check_sizes(tail.is_none() || entries.passes.len() == 1)?;
    let slots = scratch_slots(l.longest());
    // With several passes every group of a launch keeps its border in the
    // scratch: a chunk runs in launches of what it holds. A hand-over's
    // groups take two of a launch's sequences: launches start on even ones.
    let per_launch = if passes > 1 {
        let fits = l.scratch_pairs() / (slots * entries.running(0));
        launch_groups(fits, groups, tail.is_some())
    } else {
        groups
    };
    l.check_sizes(per_launch > 0 || groups == 0)?;
    let pair_passes = tail.as_ref().map_or(passes, |t| t.handoff);
    let mut params = QueryGroupParams {
        profile: rows as *const u32,
        residues: ptrs.residues as *const u32,
        lengths: ptrs.lengths as *const u32,
        scores: ptrs.scores as *mut i32,
        high_scores: high_scores as *mut i32,
        scratch: if passes > 1 {
            ptrs.buffer as *mut u32
        } else {
            std::ptr::null_mut()
        },
        row_words: row_words as u32,
        threads: threads as u32,
        words: l.words_per_sequence() as u32,
        first_pair: 0,
        end_pair: 0,
        pass: 0,
        passes: passes as u32,
        first_column: 0,
        slots: slots as u32,
        gaps: group_i16x2::GapAddends::new(l.gaps()),
        profile_stride: entries.profile_stride as u32,
        scores_stride: entries.scores_stride as u32,
    };
    let mut first_pair = 0;
    while first_pair < groups {
        let launch_pairs = per_launch.min(groups - first_pair);
        params.first_pair = first_pair as u32;
        params.end_pair = (first_pair + launch_pairs) as u32;
        for pass in 0..pair_passes {
            params.pass = pass as u32;
            launch_pass(l, k, &params, launch_pairs, entries.running(pass))?;
        }
        if let Some(tail) = tail {
            queue_tail(l, tail, &params, config)?;
        }
        first_pair += launch_pairs;
    }
    Ok(())
}

/// Queues the hand-over of a launch of a pair's passes (`pair` its
/// parameters, `pair_config` its configuration) and the one-query passes
/// of the longer query from there on.
fn queue_tail(
    l: &ChunkLaunch<'_>,
    tail: &Tail,
    pair: &QueryGroupParams,
    pair_config: Config,
) -> Result<()> {
    let pairs = (pair.end_pair - pair.first_pair) as usize;
    let hand_over = tail.hand_over(pair, pair_config);
    let threads = hand_over_threads(pairs, pair.slots as usize, pair_config.lanes);
    // SAFETY: `sw_query_group_i16x2_hand_over`'s duties: the chunk's
    // lengths; the scratch holds `slots` slots for each of the launch's
    // pairs (checked by `queue_passes`), written by the pair's passes
    // before it in stream order; a thread for each of its rows.
    unsafe {
        l.launch_params(
            HAND_OVER_SYMBOL,
            &hand_over,
            one_thread_each(threads),
            "handing a query over",
        )?
    };
    let mut params = tail.resumed(pair, pair_config);
    let groups = pairs.div_ceil(2);
    for pass in 0..params.passes {
        params.pass = pass;
        launch_pass(l, tail.config, &params, groups, 1)?;
    }
    Ok(())
}

/// Launches configuration `k`'s pass `p.pass` over `groups` groups, a
/// row of blocks for each of `entries` entries.
fn launch_pass(
    l: &ChunkLaunch<'_>,
    k: usize,
    p: &QueryGroupParams,
    groups: usize,
    entries: usize,
) -> Result<()> {
    let config = CONFIGS[k];
    let mut grid = vector_grid(groups * config.lanes, config.window_bytes() as u32);
    grid.grid_dim.1 = entries as u32;
    // SAFETY: `sw_query_group_i16x2_*`'s duties: the gaps fit 16 bits and
    // the matrix's scores and `first` fit the configuration's update
    // (checked by the callers: `launch`'s `ScoreRange::runs`,
    // `launch_pair`'s `pairs_queries`, which asks for the lifted update,
    // as a tail's configuration has it; `first >= extend`, as every
    // `GapPenalty` has it); the profile's rows are where `p.profile`
    // points, `p.row_words` each (sizes checked by the callers), with the
    // columns from `p.first_column` on that its passes read (by
    // construction: `profile_row_words` and `pair_row_words` keep a pass's
    // columns past the query's end); with two
    // queries (and only then, checked by `queue_passes`) the high one's
    // scores are a chunk's (checked by `launch_pair`); the chunk's
    // buffers hold `words_per_sequence` words a sequence; with several
    // passes, or resumed, the scratch holds `p.slots` slots for each of
    // the launch's groups of each entry (checked by `queue_passes`; a
    // tail's `2 · slots` for each two of the pair's) and the passes run in
    // stream order, a resumed query's first after the hand-over; blocks
    // of whole warps with the window's shared memory, a group for every
    // one of the launch; a batch's entries lie as the strides say
    // (checked by `launch_batch`), a row of blocks each.
    unsafe { l.launch_params(config.symbol, p, grid, "running the query-group kernel") }
}

/// Multiprocessors the emulated run of a batch chooses its configuration
/// for (an H100's).
const EMULATED_SM_COUNT: usize = 132;

/// Pairs a launch of the emulated run aligns: few and odd, so that pieces
/// of a chunk start and end inside warps, as on the GPU when the scratch
/// holds only part of a chunk's borders.
const EMULATED_LAUNCH_PAIRS: usize = 7;

/// The one entry of an emulated launch sequence.
fn take_one(mut entries: Vec<[Vec<i32>; 2]>) -> [Vec<i32>; 2] {
    entries.pop().unwrap_or_default()
}

fn bad_profile() -> Error {
    Error::Internal("a query-group profile of the wrong size".into())
}

/// The query-group kernel's emulated run of one chunk with configuration
/// `config` (an index of `gpu_kernels::query_group_i16x2::CONFIGS`), as
/// the GPU runs it: launches of [`EMULATED_LAUNCH_PAIRS`] pairs, each pass
/// in turn over a launch's pairs, every group as many steps as the longest
/// pair of its warp; then the rescue. `profile` as
/// [`Kernel::profile`](super::Kernel::profile) makes it. (`group-i16x2`
/// where the gap costs do not fit, as on the GPU.)
pub fn run_emulated_config(
    config: usize,
    chunk: &PackedChunk,
    profile: &[u32],
    gaps: Gaps,
) -> Result<Vec<i32>> {
    run_emulated_config_from(config, chunk, profile, gaps, None)
}

/// [`run_emulated_config`] with the query resumed at pass `resume_at`
/// (`QueryGroupParams::first_column`): the passes before it leave the
/// border in the scratch, the resumed ones start from it. The scores are
/// the same; a test of the resumed launches.
pub fn run_emulated_config_resumed(
    config: usize,
    chunk: &PackedChunk,
    profile: &[u32],
    gaps: Gaps,
    resume_at: usize,
) -> Result<Vec<i32>> {
    run_emulated_config_from(config, chunk, profile, gaps, Some(resume_at))
}

fn run_emulated_config_from(
    config: usize,
    chunk: &PackedChunk,
    profile: &[u32],
    gaps: Gaps,
    resume_at: Option<usize>,
) -> Result<Vec<i32>> {
    let layout = Layout::new(*profile.first().ok_or_else(bad_profile)? as usize);
    if profile.len() != layout.words() {
        return Err(bad_profile());
    }
    if config >= CONFIGS.len() || CONFIGS[config].halves != Halves::Sequences {
        return Err(Error::Internal(format!(
            "query-group configuration {config} of {} for one query",
            CONFIGS.len()
        )));
    }
    let group_profile = &profile[..layout.group_words];
    let scores = layout.scores(profile).ok_or_else(bad_profile)?;
    if !scores.runs(config, gaps) {
        return Group.run_emulated(chunk, group_profile, gaps);
    }
    let rows = &profile[layout.rows()..];
    let [scores, _] = take_one(emulate_passes(
        config,
        chunk,
        (rows, layout.row_words),
        &[layout.query_len],
        gaps,
        resume_at,
    ));
    Ok(super::rescue::run_chunk(
        chunk,
        group::sequential_part(group_profile)?,
        gaps,
        &scores,
    ))
}

/// The emulated run of one chunk against two queries in the halves with
/// configuration `config` (one of two queries), as [`run_emulated_config`]
/// runs one: `profiles` each query's own, `pair` their
/// [`pair_profile_rows`]; then each query's rescue. Where the lifted
/// update does not fit the matrix and gaps, each query alone.
pub fn run_emulated_pair_config(
    config: usize,
    chunk: &PackedChunk,
    profiles: [&[u32]; 2],
    pair: &[u32],
    gaps: Gaps,
) -> Result<[Vec<i32>; 2]> {
    let layouts = profiles.map(|p| Layout::new(p.first().copied().unwrap_or(0) as usize));
    let query_len = layouts[0].query_len.max(layouts[1].query_len);
    let row_words = pair_row_words(query_len);
    let sizes_ok = (0..2).all(|q| profiles[q].len() == layouts[q].words())
        && pair.len() == NUM_CODES * row_words;
    if !sizes_ok {
        return Err(bad_profile());
    }
    if config >= CONFIGS.len() || CONFIGS[config].halves != Halves::Queries {
        return Err(Error::Internal(format!(
            "query-group configuration {config} of {} for two queries",
            CONFIGS.len()
        )));
    }
    // Where it does not run, each query alone, as the engine runs them.
    let range = layouts[0].scores(profiles[0]).ok_or_else(bad_profile)?;
    if !range.runs(config, gaps) {
        return each_alone(&QueryGroup, chunk, profiles, gaps);
    }
    let scores = take_one(emulate_passes(
        config,
        chunk,
        (pair, row_words),
        &[query_len],
        gaps,
        None,
    ));
    let rescued = |q: usize| -> Result<Vec<i32>> {
        let group_profile = &profiles[q][..layouts[q].group_words];
        Ok(super::rescue::run_chunk(
            chunk,
            group::sequential_part(group_profile)?,
            gaps,
            &scores[q],
        ))
    };
    Ok([rescued(0)?, rescued(1)?])
}

/// Every pass of configuration `config` over `chunk` on the host for a
/// batch of entries (one query, or two in the halves, each) of at most
/// `lens[e]` residues, longest first, whose profile rows are `rows` (words
/// a row, an entry's [`NUM_CODES`] rows after another's when there are
/// several), as the GPU runs them: each entry's scores before the rescue,
/// the high query's second (empty with one query).
///
/// With `resume_at` (one query, two sequences in the halves), the passes
/// from that one on run as a resumed query does: from query column
/// `resume_at · G · R`, their first pass reading the border the passes
/// before left (`QueryGroupParams::first_column`).
fn emulate_passes(
    config: usize,
    chunk: &PackedChunk,
    (rows, row_words): (&[u32], usize),
    lens: &[usize],
    gaps: Gaps,
    resume_at: Option<usize>,
) -> Vec<[Vec<i32>; 2]> {
    let c = CONFIGS[config];
    let queries = c.halves == Halves::Queries;
    let entries = Entries {
        passes: lens.iter().map(|&m| c.passes(m)).collect(),
        profile_stride: if lens.len() > 1 {
            NUM_CODES * row_words
        } else {
            0
        },
        scores_stride: 2 * chunk.sequences(),
    };
    let passes = entries.passes();
    // Pass `pass` as a launch runs it: its index, the column the launch
    // sequence starts at, and that sequence's passes.
    let as_launched = |pass: usize| match resume_at {
        Some(first) if pass >= first => (pass - first, first * c.lanes * c.columns, passes - first),
        _ => (pass, 0, passes),
    };
    let threads = chunk.sequences();
    let groups = if queries {
        threads
    } else {
        threads.div_ceil(2)
    };
    // Every entry's scores, then its high query's, as the engine lays out
    // a batch's.
    let mut scores = vec![0i32; lens.len() * entries.scores_stride];
    // The launch's border scratch, a block per entry (u64: 8-byte
    // aligned, as the kernel reads it).
    let slots = scratch_slots(chunk.longest());
    let mut scratch = vec![0u64; lens.len() * EMULATED_LAUNCH_PAIRS * slots];
    let mut params = QueryGroupParams {
        profile_stride: entries.profile_stride as u32,
        scores_stride: entries.scores_stride as u32,
        ..emulated_params(
            chunk,
            (rows, row_words),
            &mut scores,
            queries,
            &mut scratch,
            gaps,
        )
    };
    params.passes = passes as u32;
    // Each entry's window of each of its passes.
    let windows: Vec<Vec<Vec<u32>>> = (0..lens.len())
        .map(|e| {
            let entry_rows = &rows[e * entries.profile_stride..];
            (0..entries.passes[e])
                .map(|pass| {
                    let (index, first_column, _) = as_launched(pass);
                    params.pass = index as u32;
                    params.first_column = first_column as u32;
                    host_window(config, &params, entry_rows)
                })
                .collect()
        })
        .collect();
    for first_pair in (0..groups).step_by(EMULATED_LAUNCH_PAIRS) {
        let end_pair = (first_pair + EMULATED_LAUNCH_PAIRS).min(groups);
        params.first_pair = first_pair as u32;
        params.end_pair = end_pair as u32;
        for pass in 0..passes {
            let (index, first_column, launch_passes) = as_launched(pass);
            params.pass = index as u32;
            params.first_column = first_column as u32;
            params.passes = launch_passes as u32;
            for (e, entry_windows) in windows.iter().enumerate().take(entries.running(pass)) {
                // SAFETY: every buffer holds `lens.len()` entries as the
                // strides lay them out, the scratch a block of the
                // launch's pairs for each.
                let p = unsafe { params.entry(e) };
                // SAFETY: the configuration runs with these gaps and this
                // matrix (checked by the callers); the window is
                // `host_window` of this entry and pass; the chunk's
                // buffers are its own (every sequence within its words),
                // the entry's scores (and the high query's) `threads`
                // each; the entry's scratch holds `slots` slots for each
                // of the launch's groups and its passes run in order.
                unsafe { emulate_launch(config, &p, &entry_windows[pass], first_pair, end_pair) };
            }
        }
    }
    // By index: a chunk of no sequences still gives every entry its
    // (empty) scores.
    let stride = entries.scores_stride;
    (0..lens.len())
        .map(|e| {
            let (low, high) = scores[e * stride..(e + 1) * stride].split_at(threads);
            [
                low.to_vec(),
                if queries { high.to_vec() } else { Vec::new() },
            ]
        })
        .collect()
}

/// Where chunk plans split for the query-group kernels: as for the group
/// kernels, so that a chunk's sequences are of similar lengths (the groups
/// of a warp run as many steps as its longest pair).
pub(crate) fn chunk_widths() -> Vec<usize> {
    group::chunk_widths()
}

/// Borders the scratch of an emulated launch of a pair that hands its
/// longer query over holds: odd, so that the launches take one fewer
/// ([`launch_groups`]), as on the GPU when the scratch holds only part of
/// a chunk's borders.
const EMULATED_TAIL_LAUNCH_FITS: usize = 15;

/// The emulated run of two queries in the halves with configuration
/// `pair_config` for passes `0 .. handoff` (the shorter query ends by
/// then), then of the longer one's remaining columns from `handoff · G ·
/// R` on with one-query configuration `tail_config` (the lifted update,
/// the same lanes), its border handed over from the pair's slots
/// ([`emulate_hand_over`]), in launches of [`launch_groups`] of
/// [`EMULATED_TAIL_LAUNCH_FITS`]; each query's scores after its rescue, as
/// [`run_emulated_pair_config`] gives them (the kernel's module docs,
/// *Handing a pair's longer query over*).
pub fn run_emulated_pair_with_tail(
    (pair_config, tail_config): (usize, usize),
    chunk: &PackedChunk,
    profiles: [&[u32]; 2],
    pair: &[u32],
    gaps: Gaps,
    handoff: usize,
) -> Result<[Vec<i32>; 2]> {
    let layouts = profiles.map(|p| Layout::new(p.first().copied().unwrap_or(0) as usize));
    let pc = CONFIGS[pair_config];
    let lens = layouts.each_ref().map(|l| l.query_len);
    // The longer query's half (the high one of equals).
    let half = usize::from(lens[1] >= lens[0]);
    let (shorter, longer) = (lens[1 - half], lens[half]);
    let usable = tail_fits(pc, tail_config, handoff, (shorter, longer));
    // Where the lifted update does not fit the matrix and gaps, no pair is
    // launched (each query runs alone, `run_emulated_pair_config`).
    let range = layouts[half]
        .scores(profiles[half])
        .ok_or_else(bad_profile)?;
    if !usable || !range.runs(pair_config, gaps) || !range.runs(tail_config, gaps) {
        return Err(Error::Internal(
            "a pair's longer query that cannot be handed over".into(),
        ));
    }
    let row_words = pair_row_words(longer);
    if pair.len() != NUM_CODES * row_words || profiles[half].len() != layouts[half].words() {
        return Err(bad_profile());
    }
    let threads = chunk.sequences();
    let longest = chunk.longest();
    let slots = scratch_slots(longest);
    // The launches' groups as the GPU's, from a scratch that holds an odd
    // number of borders.
    let per_launch = launch_groups(EMULATED_TAIL_LAUNCH_FITS, threads, true).max(1);
    let mut scores = vec![0i32; 2 * threads];
    let mut scratch = vec![0u64; per_launch * slots];
    let tail_rows = &profiles[half][layouts[half].rows()..];
    let mut pp = emulated_params(
        chunk,
        (pair, row_words),
        &mut scores,
        true,
        &mut scratch,
        gaps,
    );
    pp.passes = pc.passes(longer) as u32;
    // The adapter's description of the tail, with host addresses.
    let tail = Tail {
        config: tail_config,
        handoff,
        half: half as u32,
        query_len: longer,
        rows: (tail_rows.as_ptr() as u64, layouts[half].row_words),
        scores: (if half == 1 { pp.high_scores } else { pp.scores }) as u64,
    };
    let pair_windows: Vec<Vec<u32>> = (0..handoff)
        .map(|pass| {
            pp.pass = pass as u32;
            host_window(pair_config, &pp, pair)
        })
        .collect();
    let mut tp = tail.resumed(&pp, pc);
    let tail_windows: Vec<Vec<u32>> = (0..tp.passes as usize)
        .map(|pass| {
            tp.pass = pass as u32;
            host_window(tail_config, &tp, tail_rows)
        })
        .collect();
    for first in (0..threads).step_by(per_launch) {
        let end = (first + per_launch).min(threads);
        // Poisoned, not zeroed: a slot the tail reads must have been
        // written, by the pair's passes or the hand-over.
        scratch.fill(0x7f7f_7f7f_7f7f_7f7f);
        (pp.first_pair, pp.end_pair) = (first as u32, end as u32);
        for (pass, window) in pair_windows.iter().enumerate() {
            pp.pass = pass as u32;
            // SAFETY: as in `emulate_passes`: the pair's configuration runs
            // (checked above), its window of this pass, the chunk's
            // buffers, the launch's scratch.
            unsafe { emulate_launch(pair_config, &pp, window, first, end) };
        }
        // SAFETY: the chunk's lengths, the launch's scratch of `slots`
        // slots a pair, which the pair's passes wrote.
        unsafe { emulate_hand_over(&tail.hand_over(&pp, pc)) };
        tp = tail.resumed(&pp, pc);
        let (tail_first, tail_end) = (tp.first_pair as usize, tp.end_pair as usize);
        for (pass, window) in tail_windows.iter().enumerate() {
            tp.pass = pass as u32;
            // SAFETY: the same, for the tail's one-query configuration,
            // the lifted update as the pair's (same gaps and matrix).
            unsafe { emulate_launch(tail_config, &tp, window, tail_first, tail_end) };
        }
    }
    let (low, high) = scores.split_at(threads);
    let rescued = |q: usize, scores: &[i32]| -> Result<Vec<i32>> {
        let group_profile = &profiles[q][..layouts[q].group_words];
        Ok(super::rescue::run_chunk(
            chunk,
            group::sequential_part(group_profile)?,
            gaps,
            scores,
        ))
    };
    Ok([rescued(0, low)?, rescued(1, high)?])
}

/// The hand-over `p` on the host: every thread of
/// `sw_query_group_i16x2_hand_over` in turn (each reads the slot it
/// writes before, and no other thread reads it, so any order gives the
/// GPU's result).
///
/// # Safety
/// `hand_over_slot`'s.
pub unsafe fn emulate_hand_over(p: &HandOverParams) {
    let pairs = (p.end_pair - p.first_pair) as usize;
    for t in 0..hand_over_threads(pairs, p.slots as usize, p.lanes as usize) {
        // SAFETY: the caller's.
        unsafe { hand_over_slot(p, t) };
    }
}

/// The parameters of an emulated launch sequence of one entry (pass 0 of
/// 1, no pairs yet) over `chunk`: profile rows `rows` (words a row), its
/// scores in `scores` (with `queries`, the high query's `chunk.sequences()`
/// on), its border scratch `scratch` (its slots
/// [`scratch_slots`] of the chunk's longest), gap costs `gaps`.
fn emulated_params(
    chunk: &PackedChunk,
    (rows, row_words): (&[u32], usize),
    scores: &mut [i32],
    queries: bool,
    scratch: &mut [u64],
    gaps: Gaps,
) -> QueryGroupParams {
    let threads = chunk.sequences();
    QueryGroupParams {
        profile: rows.as_ptr(),
        residues: chunk.words.as_ptr(),
        lengths: chunk.lengths.as_ptr(),
        scores: scores.as_mut_ptr(),
        high_scores: if queries {
            // Within `scores`: the callers give two of `threads` (a
            // batch's first entry's).
            scores[threads..].as_mut_ptr()
        } else {
            std::ptr::null_mut()
        },
        scratch: scratch.as_mut_ptr().cast::<u32>(),
        row_words: row_words as u32,
        threads: threads as u32,
        words: chunk.words_per_sequence as u32,
        first_pair: 0,
        end_pair: 0,
        pass: 0,
        passes: 1,
        first_column: 0,
        slots: scratch_slots(chunk.longest()) as u32,
        gaps: group_i16x2::GapAddends::new(gaps),
        profile_stride: 0,
        scores_stride: 0,
    }
}

/// One pass of an emulated launch of configuration `config` over groups
/// `first .. end`: the launch's last warp whole, with groups past its
/// pairs, as on the GPU; each group as many steps as the longest pair of
/// its warp.
///
/// # Safety
/// As [`align_pass_emulated`]'s for each group, `window` [`host_window`]
/// of `p`; `p.lengths` holds the chunk's lengths.
unsafe fn emulate_launch(
    config: usize,
    p: &QueryGroupParams,
    window: &[u32],
    first: usize,
    end: usize,
) {
    let c = CONFIGS[config];
    let last = first + (end - first).next_multiple_of(32 / c.lanes);
    for group in first..last {
        let rows = warp_pairs(group, first, end, c.lanes)
            // SAFETY: the chunk's lengths.
            .map(|q| unsafe {
                match c.halves {
                    Halves::Queries => pair_rows::<true>(p, q),
                    Halves::Sequences => pair_rows::<false>(p, q),
                }
            })
            .max()
            .unwrap_or(0);
        // SAFETY: the caller's.
        unsafe { align_pass_emulated(config, p, window.as_ptr(), group, rows) };
    }
}
