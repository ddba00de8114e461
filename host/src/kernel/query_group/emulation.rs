//! The query-group kernels on the host, as the GPU runs them: launches
//! of a few pairs, pass after pass, the hand-over, then the rescue (for
//! the tests, and for engineers comparing configurations without a GPU).

use super::*;

/// Multiprocessors the emulated run of a batch chooses its configuration
/// for (an H100's).
pub(super) const EMULATED_SM_COUNT: usize = 132;

/// Pairs a launch of the emulated run aligns: few and odd, so that pieces
/// of a chunk start and end inside warps, as on the GPU when the scratch
/// holds only part of a chunk's borders.
pub(super) const EMULATED_LAUNCH_PAIRS: usize = 7;

/// The one entry of an emulated launch sequence.
pub(super) fn take_one(mut entries: Vec<[Vec<i32>; 2]>) -> [Vec<i32>; 2] {
    entries.pop().unwrap_or_default()
}

pub(super) fn bad_profile() -> Error {
    Error::Internal("a query-group profile of the wrong size".into())
}

/// The query-group kernel's emulated run of one chunk with configuration
/// `config` (an index of `gpu_kernels::query_group_i16x2::CONFIGS`), as
/// the GPU runs it: launches of [`EMULATED_LAUNCH_PAIRS`] pairs, each pass
/// in turn over a launch's pairs, every group as many steps as the longest
/// pair of its warp; then the rescue. `profile` as
/// [`Kernel::profile`](crate::kernel::Kernel::profile) makes it. (`group-i16x2`
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

pub(super) fn run_emulated_config_from(
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
    Ok(crate::kernel::rescue::run_chunk(
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
        Ok(crate::kernel::rescue::run_chunk(
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
pub(super) fn emulate_passes(
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

/// Borders the scratch of an emulated launch of a pair that hands its
/// longer query over holds: odd, so that the launches take one fewer
/// ([`launch_groups`]), as on the GPU when the scratch holds only part of
/// a chunk's borders.
pub(super) const EMULATED_TAIL_LAUNCH_FITS: usize = 15;

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
        Ok(crate::kernel::rescue::run_chunk(
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
pub(super) fn emulated_params(
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
pub(super) unsafe fn emulate_launch(
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
        // As the launch: the entry point with the gaps compiled in where
        // the configuration has one for them.
        let fixed = c.fixed_for(p.gaps);
        // SAFETY: the caller's (and `fixed_for` gives `p.gaps`' own).
        unsafe { align_pass_emulated(config, fixed, p, window.as_ptr(), group, rows) };
    }
}
