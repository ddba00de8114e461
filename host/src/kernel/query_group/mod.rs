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
//! only): the engine asks [`PairsQueries::pairs_queries`] per chunk (the
//! kernel's cost model, `queries_pay`), uploads [`pair_profile_rows`] and
//! calls [`PairsQueries::launch_pair`] with each query's own launch (its
//! profile, for the rescue, and its scores). Where the shorter query ends
//! passes before the longer one and the model says it pays
//! (`pair_tail`), the pair's launches hand the longer query over to a
//! one-query configuration there (the kernel's module docs, *Handing a
//! pair's longer query over*); [`HAND_OVER_VARIABLE`] turns that off.

mod emulation;
mod launch;
mod profile;
use std::ops::Range;
use std::sync::LazyLock;

use cudarc::driver::{CudaSlice, DevicePtr};
use gpu_kernels::layout::{NUM_CODES, PAD_CODE, PAD_SCORE};
use gpu_kernels::query_group_i16x2::SLICE_COLUMNS;
use gpu_kernels::query_group_i16x2::{
    CONFIGS, Config, FIXED_GAP_SUFFIXES, FIXED_GAPS, HAND_OVER_SYMBOL, Halves, HandOverParams,
    NARROW_GROUP_LANES, QueryGroupParams, Update, align_pass_emulated, batch_config_for,
    config_for, config_named, hand_over_slot, hand_over_threads, host_window, pair_config_for,
    pair_row_words, pair_rows, pair_tail, profile_row_words, queries_pay, scratch_slots,
    update_for,
};
use gpu_kernels::recurrence::Gaps;
use gpu_kernels::{group_i16x2, simt_i16x2};

use super::group::{self, Group};
use super::simt::RESCUE_SYMBOL;
use super::{Adapter, BatchesQueries, PairsQueries, each_alone, each_query_alone};
use crate::db::PackedChunk;
use crate::error::{Error, Result};
use crate::kernel::launch::{
    BatchChunk, ChunkLaunch, ChunkPointers, PairBatch, WorkBuffer, one_thread_each, vector_grid,
};
use crate::matrix::ScoreMatrix;

use emulation::*;
pub use emulation::{
    run_emulated_config, run_emulated_config_resumed, run_emulated_pair_config,
    run_emulated_pair_with_tail,
};
use launch::*;
use profile::*;
pub use profile::{pair_profile_rows, query_profile_rows};
/// Words of the header between the group profile and the rows.
const HEADER_WORDS: usize = 4;

/// Entries a batch's launch takes at most: its grid's second dimension,
/// a row of blocks an entry, and CUDA's limit for `gridDim.y`.
const MAX_GRID_ROWS: usize = 65_535;

/// Pairs a launch aligns at most per multiprocessor when the query takes
/// several passes (every pair of a launch keeps its border in the scratch
/// until the last pass): a few waves of groups.
pub(crate) const MULTI_PASS_PAIRS_PER_SM: usize = 256;

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

/// [`HAND_OVER_VARIABLE`], read once.
static HANDS_OVER: crate::switch::Switch = crate::switch::Switch::new(HAND_OVER_VARIABLE, true);

/// Whether [`HAND_OVER_VARIABLE`] leaves the hand-over on; an error if it
/// is neither on nor off.
fn hands_over() -> Result<bool> {
    HANDS_OVER.on()
}

/// The gap settings every configuration of the lifted update is also
/// compiled for, as `(open, extend, entry-point suffix)` in warpsw's
/// convention (`gpu_kernels::query_group_i16x2::FIXED_GAPS`), for
/// `warpsw kernels`.
pub fn fixed_gap_settings() -> impl Iterator<Item = (i32, i32, &'static str)> {
    FIXED_GAPS
        .iter()
        .zip(FIXED_GAP_SUFFIXES)
        .map(|(g, suffix)| (g.first - g.extend, g.extend, suffix))
}

/// The query-group kernels' family.
pub(crate) struct QueryGroup;

/// Every entry point a launch may use: each configuration, and the group
/// kernels' (the fallback, the rescue).
static EXTRA_SYMBOLS: LazyLock<Vec<&'static str>> = LazyLock::new(|| {
    CONFIGS
        .iter()
        .flat_map(Config::symbols)
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

/// What a query of `query_len` residues launched alone runs on a chunk
/// whose longest sequence has `longest` residues, with a matrix whose
/// scores lie in `min ..= max` and gap costs `gaps`, as the launch decides
/// it: the configuration (lanes a group, query columns a lane, passes), or
/// `group-i16x2` where its update does not fit the scores. For
/// `warpsw search --explain`.
pub fn describe_alone(
    query_len: usize,
    longest: usize,
    gaps: Gaps,
    min: i32,
    max: i32,
) -> Result<String> {
    let range = ScoreRange { min, max };
    let k = config(query_len, longest, range.update(gaps))?;
    if !range.runs(k, gaps) {
        return Ok("group-i16x2 (no query-group update fits these scores)".into());
    }
    let c = &CONFIGS[k];
    let passes = c.passes(query_len);
    Ok(format!(
        "{} ({} lanes a group x {} columns a lane, {passes} pass{})",
        c.symbol_for(group_i16x2::GapAddends::new(gaps))
            .trim_start_matches("sw_query_group_i16x2_"),
        c.lanes,
        c.columns,
        if passes == 1 { "" } else { "es" }
    ))
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
        match CONFIGS.iter().find(|c| c.symbols().any(|s| s == symbol)) {
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
        // The engine asks with the chunk's own `longest` and sequences, as
        // `launch` chooses, so the most of the updates' needs covers
        // whichever update it picks (a launch takes as many groups as the
        // scratch it gets holds, in any case).
        let updates = [Update::Lifted, Update::Biased, Update::Plain];
        let pairs = threads.div_ceil(2);
        let Ok(border) = updates.iter().try_fold(0, |most, &update| {
            config(query_len, longest, update).map(|k| {
                let c = &CONFIGS[k];
                most.max(border_pairs(
                    c.passes(query_len),
                    c.lanes,
                    pairs,
                    longest,
                    sm_count,
                ))
            })
        }) else {
            return group;
        };
        group.max(border)
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

    fn pairs(&self) -> Option<&dyn PairsQueries> {
        Some(self)
    }

    fn batches(&self) -> Option<&dyn BatchesQueries> {
        Some(self)
    }
}

impl PairsQueries for QueryGroup {
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
            Ok(k) => {
                let c = &CONFIGS[k];
                border_pairs(c.passes(query_len), c.lanes, threads, longest, sm_count)
            }
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

impl BatchesQueries for QueryGroup {
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
}

/// Where chunk plans split for the query-group kernels: as for the group
/// kernels, so that a chunk's sequences are of similar lengths (the groups
/// of a warp run as many steps as its longest pair).
pub(crate) fn chunk_widths() -> Vec<usize> {
    group::chunk_widths()
}
