//! `sw_query_group_i32_rescue`: the 32-bit rescue of the 16-bit kernels, a
//! block of warps per sequence whose 16-bit score ran out of range, the
//! query's rows in the lanes and the sequence streamed through them as a
//! wavefront, the query's passes pipelined from warp to warp.
//!
//! CUDASW++ 4.0 recomputes the alignments its 16-bit kernels could not
//! finish with 32-bit kernels of the same mapping, a group of lanes per pair
//! (Schmidt, B., Kallenborn, F., Chacon, A. & Hundt, C. (2024).
//! *CUDASW++4.0: ultra-fast GPU-based Smith-Waterman protein sequence
//! database search.* BMC Bioinformatics 25:342). This kernel is that idea
//! with the roles of [`crate::query_group_i16x2`] (the query's rows in the
//! registers of a warp, the database sequence streamed through it), all
//! scores in i32. A pair that overflowed 16 bits is long and high-scoring
//! (`127 * min(|q|, |d|) > 32,640`), and there are few of them, so one
//! thread per pair (the SIMT kernel, SW-CUDA, Manavski & Valle 2008) would
//! leave the GPU waiting on a handful of threads, and even a warp per pair
//! on its chain of dependent cells; here the warps of a block share each
//! such pair, pass by pass: the lanes' wavefront, one level up.
//!
//! # Thread mapping
//! A 1-D grid of `blocks` blocks of [`BLOCK_WARPS`] warps (the host
//! launches one a multiprocessor). Block `b` looks after sequences `b, b +
//! blocks, b + 2·blocks, ...` of the chunk: neighbours in the chunk (sorted
//! by length, so a family of long homologs sits together) go to different
//! blocks and run side by side. The block reads 32 of its sequences'
//! 16-bit scores at once and aligns, one after another, those above
//! [`SCORE_LIMIT`]; every other score stays as the 16-bit kernel wrote it.
//!
//! A sequence's query runs in passes of [`PASS_ROWS`] rows, pass `k` on
//! warp `k % BLOCK_WARPS`. In a pass lane `l` holds rows `l·ROWS ..
//! (l+1)·ROWS` (H and E of the column it is at). At step `s` lane `l`
//! computes column `j = s - l` across its rows, then hands the H and F
//! leaving its last row, and the column's residue, to lane `l + 1` by one
//! shuffle each (`shfl.up`). Lane 0 takes column `s`'s residue from the
//! chunk and, after the first pass, the H and F of the row above the pass
//! from the row buffer; lane 31 writes its last row's H and F there for
//! the next pass. `|d| + 31` steps a pass.
//!
//! The passes run at once, each behind the one above: every [`HAND_DOWN`]
//! columns the last lane publishes how far its pass has written the row
//! buffer (a word per warp in shared memory, after a block-scope fence),
//! and the warp below waits for it (a warp vote on the word, then a fence)
//! before it reads those columns. The words only grow (`progress`: the
//! warp's round of passes and the columns), so a warp that has gone on to
//! its next pass still tells the one below that the last is complete. A
//! row slot is written by pass `k`, read and then rewritten by pass `k +
//! 1`, and so on: the waits order every access to it. On the host the
//! passes run in order, and a wait that would block panics.
//!
//! # Memory layout
//! The parameter block, chunk, sequential profile and row buffer of
//! [`crate::simt`] ([`SimtParams`]), so the 16-bit kernels' hosts launch it
//! with what they launched before: a lane reads its `ROWS` rows' scores of
//! the column's residue as one 128-bit load of profile row `code` (the rows
//! of a lane start at a multiple of 16, the profile's rows at a multiple of
//! 8 words). Row buffer: column `j` of sequence `t` at `j·threads + t`, as
//! in `simt`, read past L1 (`ld.global.cg`). Shared memory: [`SHARED_WORDS`]
//! words, each warp's progress and best cell.
//!
//! # Complexity
//! `ceil(rows / PASS_ROWS) · (|d| + 31)` steps of `ROWS` cells per lane for
//! a sequence of `|d|` residues and a profile of `rows` rows, up to
//! [`BLOCK_WARPS`] passes at once, each about `2·HAND_DOWN` steps behind
//! the one above; `2·ROWS` i32 registers of column state per lane.
//!
//! # Padding
//! The profile's rows past the query's end and the lanes past the profile
//! (the last pass's) score [`PAD_SCORE`]; they are the last rows, and a
//! padded cell's H is `max(0, diag - 128, E, F)` with E and F falling from
//! the H they came from, so no padded cell exceeds the best real cell (as in
//! `simt`). The wavefront's fill (lane `l` before column 0) computes pad
//! columns from `H = 0`, which leave `H = 0` and `E = -first`, what column
//! 0 computes from the left border anyway; its drain (columns past `|d|`)
//! reads pad residues and only feeds other drain columns, and is never
//! written to the row buffer.
//!
//! # Overflow
//! As `simt`: real H are at most `127 · min(|q|, |d|)`, E and F start at
//! [`NEG_INF`] and are floored by `H - first` after one step; nothing wraps.
//! A progress word is at most `passes · (|d| + 1)`, far below 2³¹.

use crate::layout::{PAD_CODE, PAD_SCORE, SimtParams, code_byte, score_byte};
use crate::recurrence::NEG_INF;
use crate::simt::Words4;
use crate::simt_i16x2::SCORE_LIMIT;
use crate::vector::Vector;

/// The rescue's entry point.
pub const SYMBOL: &str = "sw_query_group_i32_rescue";

/// Query rows a lane holds in a pass.
pub const ROWS: usize = 16;

/// Lanes of a warp, each holding `ROWS` rows of a pass.
pub const LANES: usize = 32;

/// Query rows of a pass.
pub const PASS_ROWS: usize = ROWS * LANES;

/// Warps of a block, which share one sequence at a time (a pass each).
pub const BLOCK_WARPS: usize = 16;

/// Columns a pass hands down at a time: a warp publishes its progress, and
/// the warp below waits for it, every this many columns.
pub const HAND_DOWN: usize = 32;

/// Words of a block's shared memory: each warp's progress and best score.
pub const SHARED_WORDS: usize = 2 * BLOCK_WARPS;

/// Bytes of a block's shared memory.
pub const SHARED_BYTES: usize = 4 * SHARED_WORDS;

/// Four pad scores, a profile word for the lanes past the profile.
const PAD_WORD: u32 = u32::from_ne_bytes([PAD_SCORE as u8; 4]);

/// The passes of a profile of `query_words` words a residue row.
pub const fn passes(query_words: usize) -> usize {
    (query_words * 4).div_ceil(PASS_ROWS)
}

/// The progress value that says: the warp's pass of round `round` (its
/// `round`-th pass) has handed down `columns` columns of a sequence of
/// `len` residues. It only grows from pass to pass of a warp.
const fn progress(round: usize, len: usize, columns: usize) -> u32 {
    (round * (len + 1) + columns) as u32
}

/// Waits until the progress at `at` is at least `need` (all lanes of the
/// warp together). On the host the passes run in order, so it must already
/// be: a wait that would block is a bug, and panics.
///
/// # Safety
/// `at` points at a warp's progress word in the block's shared memory.
#[inline(always)]
unsafe fn wait_for(at: *const u32, need: u32) {
    #[cfg(target_arch = "nvptx64")]
    loop {
        type W = crate::vector::WarpVector<32>;
        let now = core::ptr::read_volatile(at);
        if W::splat(need as i32).all_le(W::from_lanes(|_| now as i32)) {
            break;
        }
        core::arch::asm!("nanosleep.u32 64;", options(nostack));
    }
    // What the warp above stored before it published is visible after.
    #[cfg(target_arch = "nvptx64")]
    core::arch::asm!("membar.cta;", options(nostack));
    #[cfg(not(target_arch = "nvptx64"))]
    assert!(
        *at >= need,
        "a pass reads its row above before the pass above wrote it"
    );
}

/// Makes this thread's row-buffer stores visible to the block, then
/// publishes `value` as its warp's progress at `at`.
///
/// # Safety
/// `at` points at the calling warp's progress word in shared memory.
#[inline(always)]
unsafe fn publish(at: *mut u32, value: u32) {
    #[cfg(target_arch = "nvptx64")]
    core::arch::asm!("membar.cta;", options(nostack));
    core::ptr::write_volatile(at, value);
}

/// A slot of the row buffer, read past L1 (`ld.global.cg`): the warp above
/// wrote it on this multiprocessor moments ago.
///
/// # Safety
/// `at` points at a slot of the row buffer.
#[inline(always)]
unsafe fn load_row_slot(at: *const [i32; 2]) -> [i32; 2] {
    let both = crate::group_i16x2::load_slot(at.cast::<u64>());
    [both as u32 as i32, (both >> 32) as u32 as i32]
}

/// Pass `pass` of the query against sequence `t` of the chunk, on warp
/// `warp` of `warps` (its `pass / warps`-th pass): every lane's best cell.
///
/// The row above the pass comes from the row buffer as pass `pass - 1`
/// (warp `warp - 1`, cyclically) hands it down, `HAND_DOWN` columns at a
/// time, and the row below goes there for pass `pass + 1`.
///
/// # Safety
/// * `V::VL == LANES`; `t < p.threads`; `warp == pass % warps`.
/// * `p.profile` holds `NUM_CODES * p.query_words` words and `p.query_words`
///   is a multiple of `ROWS / 4` (the sequential profile's whole strips).
/// * `p.lengths` holds `p.threads` entries; `p.residues` holds `ceil(len /
///   4) * p.threads` words and `p.row_buffer` `len * p.threads` pairs for
///   every `len` in `p.lengths`.
/// * `progress` holds a word per warp, which were 0 before the sequence's
///   first pass; passes of the sequence run on their warps at once on the
///   GPU, in order on the host; no other block uses sequence `t`'s
///   row-buffer slots.
#[inline(always)]
pub unsafe fn align_pass<V: Vector>(
    p: &SimtParams,
    t: usize,
    pass: usize,
    warps: usize,
    progress_words: *mut u32,
) -> V {
    let threads = p.threads as usize;
    let len = *p.lengths.add(t) as usize;
    let query_words = p.query_words as usize;
    let passes = passes(query_words);
    let g = p.gaps;
    let zero = V::splat(0);
    let mut best = zero;
    let warp = pass % warps;
    let round = pass / warps;
    let reads_row_above = pass > 0;
    let writes_row_below = pass + 1 < passes;
    // The pass above: on the warp before, in this round or (warp 0) the
    // round before.
    let above = progress_words.add((warp + warps - 1) % warps);
    let above_round = pass.saturating_sub(1) / warps;
    let mine = progress_words.add(warp);

    // The word of a lane's first row in a profile row (past the profile:
    // none).
    let first_word = |lane: usize| (pass * PASS_ROWS + lane * ROWS) / 4;
    let mut h = [zero; ROWS];
    let mut e = [V::splat(NEG_INF); ROWS];
    // What each lane got from the lane above at the last step (the
    // column's residue and the H leaving the row above its rows), and what
    // it hands down (the H and F leaving its last row).
    let mut codes = V::splat(i32::from(PAD_CODE));
    let mut h_above = zero;
    let mut h_leaving = zero;
    let mut f_leaving = V::splat(NEG_INF);

    // Lane 0's inputs are loaded ahead: the residues a word (four steps)
    // ahead, the row above the pass a step ahead, so that no step waits on
    // memory. The row above is read once the pass above has handed down
    // the `HAND_DOWN` columns from it on.
    let residue_word = |w: usize| {
        if w * 4 < len {
            *p.residues.add(w * threads + t)
        } else {
            u32::from_ne_bytes([PAD_CODE; 4])
        }
    };
    let row_above = |j: usize| {
        if reads_row_above && j < len {
            if j.is_multiple_of(HAND_DOWN) {
                let columns = (j + HAND_DOWN).min(len);
                wait_for(above, progress(above_round, len, columns));
            }
            load_row_slot(p.row_buffer.add(j * threads + t))
        } else {
            [0, NEG_INF]
        }
    };
    let mut word = residue_word(0);
    let mut word_ahead = residue_word(1);
    let mut top_ahead = row_above(0);

    for step in 0..len + LANES - 1 {
        // Lane 0's column is `step`: its residue (the pad code past the
        // sequence), and the row above the pass.
        if step > 0 && step % 4 == 0 {
            word = word_ahead;
            word_ahead = residue_word(step / 4 + 1);
        }
        let code = code_byte(word, (step % 4) as u32) as i32;
        let [h_top, f_top] = top_ahead;
        top_ahead = row_above(step + 1);
        // H of the row above, one column to the left: what came down at
        // the last step.
        let mut diag = h_above;
        codes = codes.shift_up(code);
        h_above = h_leaving.shift_up(h_top);
        let f_above = f_leaving.shift_up(f_top);

        let words: [V; 4] = core::array::from_fn(|k| {
            codes.map_lanes(|lane, code| {
                let word = first_word(lane);
                if word < query_words {
                    let row = p.profile.add(code as usize * query_words + word);
                    (*row.cast::<Words4>()).to_array()[k] as i32
                } else {
                    PAD_WORD as i32
                }
            })
        });

        let mut f = f_above;
        for r in 0..ROWS {
            let sub = words[r / 4].map(|w| score_byte(w as u32, (r % 4) as u32));
            e[r] = e[r].gap(h[r], g);
            // F last: the chain down the rows waits on one maximum.
            let cell = diag.add(sub).max(e[r]).max(zero).max(f);
            diag = h[r];
            h[r] = cell;
            best = best.max(cell);
            f = f.gap(cell, g);
        }
        h_leaving = h[ROWS - 1];
        f_leaving = f;

        // The last lane hands column `step - 31` down.
        if writes_row_below && step >= LANES - 1 && step - (LANES - 1) < len {
            let column = step - (LANES - 1);
            let slot = p.row_buffer.add(column * threads + t);
            let handed = column + 1;
            let hands_down = handed.is_multiple_of(HAND_DOWN) || handed == len;
            h_leaving.for_lanes(|lane, x| {
                if lane == LANES - 1 {
                    (*slot)[0] = x;
                }
            });
            f_leaving.for_lanes(|lane, x| {
                if lane == LANES - 1 {
                    (*slot)[1] = x;
                    if hands_down {
                        publish(mine, progress(round, len, handed));
                    }
                }
            });
        }
    }
    best
}

/// Calls `rescore(t)` for each sequence `t` of block `block` of `blocks`
/// whose score in `p.scores` is above [`SCORE_LIMIT`]: sequences `block,
/// block + blocks, ...`, read 32 at a time (every warp of the block reads
/// the same, so all call `rescore` for the same sequences in turn).
///
/// # Safety
/// `p.scores` holds `p.threads` scores; `rescore` writes only the score of
/// the sequence it is given.
#[inline(always)]
unsafe fn for_each_out_of_range<V: Vector>(
    p: &SimtParams,
    block: usize,
    blocks: usize,
    mut rescore: impl FnMut(usize),
) {
    let threads = p.threads as usize;
    let mut first = block;
    while first < threads {
        // Lane `l` looks at sequence `first + l·blocks`.
        let over = V::lane_ids().map(|lane| {
            let t = first + lane as usize * blocks;
            i32::from(t < threads && *p.scores.add(t) > SCORE_LIMIT)
        });
        if over.reduce_max() != 0 {
            for lane in 0..LANES {
                if over.lane_value(lane) != 0 {
                    rescore(first + lane * blocks);
                }
            }
        }
        first += blocks * LANES;
    }
}

/// The rescue on the host, as a launch of `blocks` blocks of `warps` warps
/// runs it on the GPU: every score of `p.scores` above [`SCORE_LIMIT`]
/// realigned in 32 bits, the passes of a sequence in order, pass `k` as
/// warp `k % warps` runs it.
///
/// # Safety
/// The duties of [`align_pass`] for every sequence of the chunk, with
/// `p.scores` holding a 16-bit kernel's `p.threads` scores; `blocks` and
/// `warps` at least 1.
#[cfg(not(target_arch = "nvptx64"))]
pub unsafe fn rescue_emulated<V: Vector>(p: &SimtParams, blocks: usize, warps: usize) {
    let passes = passes(p.query_words as usize);
    let mut progress_words = vec![0u32; warps];
    for block in 0..blocks {
        for_each_out_of_range::<V>(p, block, blocks, |t| {
            progress_words.fill(0);
            let mut best = 0;
            for pass in 0..passes {
                let lanes = align_pass::<V>(p, t, pass, warps, progress_words.as_mut_ptr());
                best = best.max(lanes.reduce_max());
            }
            *p.scores.add(t) = best;
        });
    }
}

/// Block `block` of a rescue launch of `blocks` blocks of [`BLOCK_WARPS`]
/// warps: realigns its sequences above [`SCORE_LIMIT`], each by all its
/// warps, pass `k` of a sequence on warp `k % BLOCK_WARPS`.
///
/// # Safety
/// The duties of [`align_pass`] for every sequence of the chunk, with
/// `p.scores` holding a 16-bit kernel's `p.threads` scores; `shared` holds
/// [`SHARED_WORDS`] words; every thread of the block calls it.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
unsafe fn rescue_block(p: &SimtParams, block: usize, blocks: usize, shared: *mut u32) {
    use core::arch::nvptx::{_syncthreads, _thread_idx_x};
    type V = crate::vector::WarpVector<32>;
    let warp = _thread_idx_x() as usize / LANES;
    // The launch's block size (a constant, so passes divide by no
    // run-time value).
    let warps = BLOCK_WARPS;
    let passes = passes(p.query_words as usize);
    let (progress_words, bests) = (shared, shared.add(BLOCK_WARPS).cast::<i32>());
    for_each_out_of_range::<V>(p, block, blocks, |t| {
        // The last sequence's bests are read; progress starts anew.
        _syncthreads();
        V::once(|| core::ptr::write_volatile(progress_words.add(warp), 0));
        _syncthreads();
        let mut best = V::splat(0);
        let mut pass = warp;
        while pass < passes {
            best = best.max(align_pass::<V>(p, t, pass, warps, progress_words));
            pass += warps;
        }
        let best = best.reduce_max();
        V::once(|| *bests.add(warp) = best);
        _syncthreads();
        if warp == 0 {
            let score = (0..warps).fold(0, |m, w| m.max(*bests.add(w)));
            V::once(|| *p.scores.add(t) = score);
        }
    });
}

crate::layout::chunk_kernel! {
    /// GPU entry point, launched on a chunk after a 16-bit kernel (same
    /// stream), arguments [`SimtParams`]' fields (see
    /// `layout::chunk_kernel`): blocks of [`BLOCK_WARPS`] warps, each
    /// block a sequence above [`SCORE_LIMIT`] at a time.
    ///
    /// # Safety
    /// The duties of [`rescue_block`] for every block; blocks of
    /// [`BLOCK_WARPS`] warps with [`SHARED_BYTES`] of dynamic shared
    /// memory.
    fn sw_query_group_i32_rescue(|p| {
        use core::arch::nvptx::{_block_idx_x, _grid_dim_x};
        let shared = core::intrinsics::gpu::gpu_launch_sized_workgroup_mem::<u32>();
        rescue_block(&p, _block_idx_x() as usize, _grid_dim_x() as usize, shared);
    })
}
