//! Queueing a query-group chunk's launches: the passes of one query, of
//! two in the halves, of a batch of pairs, and the hand-over of a pair's
//! longer query to a one-query configuration.

use super::*;

/// The work buffer of a launch of `passes` passes: the border scratch
/// when there are several.
pub(super) fn work_buffer(passes: usize) -> WorkBuffer {
    if passes > 1 {
        WorkBuffer::Scratch
    } else {
        WorkBuffer::Nothing
    }
}

/// Pairs of i32 of border scratch that launches of `passes` passes of a
/// configuration of `lanes` lanes a group need on a chunk of `groups`
/// groups (pairs of sequences, or sequences with two queries) of at most
/// `longest` residues: none for one pass, else a few waves of groups'
/// borders ([`multi_pass_groups_per_sm`] a multiprocessor).
pub(super) fn border_pairs(
    passes: usize,
    lanes: usize,
    groups: usize,
    longest: usize,
    sm_count: usize,
) -> usize {
    if passes <= 1 {
        return 0;
    }
    // A slot (an H and an E) is one pair of i32.
    groups.min(sm_count.max(1) * multi_pass_groups_per_sm(lanes)) * scratch_slots(longest)
}

/// Groups a launch of several passes aligns at most per multiprocessor
/// with `lanes` lanes a group: [`MULTI_PASS_PAIRS_PER_SM`], or as many
/// more as keep a launch of narrower groups as many threads (and waves)
/// as one of [`NARROW_GROUP_LANES`].
pub(super) const fn multi_pass_groups_per_sm(lanes: usize) -> usize {
    if lanes >= NARROW_GROUP_LANES || lanes == 0 {
        MULTI_PASS_PAIRS_PER_SM
    } else {
        MULTI_PASS_PAIRS_PER_SM * NARROW_GROUP_LANES / lanes
    }
}

/// The entries of a launch sequence (`gpu_kernels::query_group_i16x2`,
/// *A batch of query pairs*): how many passes each takes, longest first,
/// and how far apart their profile rows and scores lie.
pub(super) struct Entries {
    /// Passes of each entry, none more than the one before.
    pub(super) passes: Vec<usize>,
    pub(super) profile_stride: usize,
    pub(super) scores_stride: usize,
}

impl Entries {
    /// One query, or one pair, of `passes` passes.
    pub(super) fn one(passes: usize) -> Entries {
        Entries {
            passes: vec![passes],
            profile_stride: 0,
            scores_stride: 0,
        }
    }

    /// Passes of the first (longest) entry: the launch sequence's.
    pub(super) fn passes(&self) -> usize {
        self.passes.first().copied().unwrap_or(0)
    }

    /// Entries that have pass `pass`: a prefix.
    pub(super) fn running(&self, pass: usize) -> usize {
        self.passes.iter().take_while(|&&p| p > pass).count()
    }
}

/// What [`queue_passes`] queues: configuration `config`'s passes for
/// `entries`, reading the profile rows at `rows` (device address, words a
/// row), of one query (`high_scores` 0) or two in the halves (the high
/// one's scores at `high_scores`), perhaps handing the longer of two over
/// (`tail`).
pub(super) struct Passes<'a> {
    pub(super) config: usize,
    pub(super) entries: &'a Entries,
    pub(super) rows: (u64, usize),
    pub(super) high_scores: u64,
    pub(super) tail: Option<Tail>,
}

/// The longer query of a pair handed over to a one-query configuration
/// (the kernel's module docs, *Handing a pair's longer query over*).
pub(super) struct Tail {
    /// The one-query configuration (lifted, the pair's lanes).
    pub(super) config: usize,
    /// The pair's passes before the hand-over.
    pub(super) handoff: usize,
    /// The query's half in the pair: 0 low, 1 high.
    pub(super) half: u32,
    pub(super) query_len: usize,
    /// Its own profile rows (device address, words a row).
    pub(super) rows: (u64, usize),
    /// Its scores (device address).
    pub(super) scores: u64,
}

impl Tail {
    /// The parameters of the hand-over after a launch of the pair's
    /// passes (`pair` their parameters, `pair_config` its configuration).
    pub(super) fn hand_over(&self, pair: &QueryGroupParams, pair_config: Config) -> HandOverParams {
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
    pub(super) fn resumed(&self, pair: &QueryGroupParams, pair_config: Config) -> QueryGroupParams {
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
pub(super) fn tail_fits(
    pair: Config,
    tail: usize,
    handoff: usize,
    (shorter, longer): (usize, usize),
) -> bool {
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
pub(super) fn launch_groups(fits: usize, groups: usize, tail: bool) -> usize {
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
pub(super) fn queue_passes(
    l: &ChunkLaunch<'_>,
    ptrs: &ChunkPointers<'_>,
    passes: &Passes<'_>,
) -> Result<()> {
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
pub(super) fn queue_tail(
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
pub(super) fn launch_pass(
    l: &ChunkLaunch<'_>,
    k: usize,
    p: &QueryGroupParams,
    groups: usize,
    entries: usize,
) -> Result<()> {
    let config = CONFIGS[k];
    let mut grid = vector_grid(groups * config.lanes, config.window_bytes() as u32);
    grid.grid_dim.1 = entries as u32;
    // The entry point with the launch's gaps compiled in, where there is one.
    let symbol = config.symbol_for(p.gaps);
    // SAFETY: `sw_query_group_i16x2_*`'s duties: the gaps fit 16 bits (and
    // are the entry point's own where it has them compiled in: `symbol_for`
    // picks it by them) and
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
    unsafe { l.launch_params(symbol, p, grid, "running the query-group kernel") }
}
