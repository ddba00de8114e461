//! `sw_query_group_i32_rescue`: the 32-bit rescue of the 16-bit kernels, a
//! warp per sequence whose 16-bit score ran out of range, the query's rows
//! in the lanes and the sequence streamed through them as a wavefront.
//!
//! CUDASW++ 4.0 recomputes the alignments its 16-bit kernels could not
//! finish with 32-bit kernels of the same mapping, a group of lanes per pair
//! (Schmidt, B., Kallenborn, F., Chacon, A. & Hundt, C. (2024).
//! *CUDASW++4.0: ultra-fast GPU-based Smith-Waterman protein sequence
//! database search.* BMC Bioinformatics 25:342). This kernel is that idea
//! with the roles of [`crate::query_group_i16x2`]: the query's rows are in
//! the registers of a warp, the database sequence streams through it, one
//! sequence a warp, all scores in i32. A pair that overflowed 16 bits is long
//! and high-scoring (`127 * min(|q|, |d|) > 32,640`), so a thread per pair
//! (the SIMT kernel, SW-CUDA, Manavski & Valle 2008) would leave the GPU
//! waiting on a handful of threads; here 32 lanes share each such pair.
//!
//! # Thread mapping
//! A 1-D grid of `warps` warps (any number; the host launches a few per
//! multiprocessor). Warp `w` looks after sequences `w, w + warps, w +
//! 2·warps, ...` of the chunk: neighbours in the chunk (sorted by length,
//! so a family of long homologs sits together) go to different warps and
//! run side by side. The warp's lanes read 32 of its sequences' 16-bit
//! scores at once and align, one after another, those above
//! [`SCORE_LIMIT`]; every other score stays as the 16-bit kernel wrote it.
//!
//! For one sequence, the query runs in passes of [`PASS_ROWS`] rows: lane
//! `l` holds rows `l·ROWS .. (l+1)·ROWS` of the pass (H and E of the
//! column it is at). At step `s` lane `l` computes column `j = s - l`
//! across its rows, then hands the H and F leaving its last row, and the
//! column's residue, to lane `l + 1` by one shuffle each (`shfl.up`). Lane 0
//! takes column `s`'s residue from the chunk and, after the first pass, the
//! H and F of the row above the pass from the row buffer; lane 31 writes its
//! last row's H and F to the row buffer for the next pass. `|d| + 31` steps
//! a pass.
//!
//! # Memory layout
//! The parameter block, chunk, sequential profile and row buffer of
//! [`crate::simt`] ([`SimtParams`]), so the 16-bit kernels' hosts launch it
//! with what they launched before: a lane reads its `ROWS` rows' scores of
//! the column's residue as one 128-bit load of profile row `code` (the rows
//! of a lane start at a multiple of 16, the profile's rows at a multiple of
//! 8 words). Row buffer: column `j` of sequence `t` at `j·threads + t`, as
//! in `simt` (written by lane 31 at step `j + 31`, read by lane 0 at step
//! `j` of the next pass, after a warp barrier).
//!
//! # Complexity
//! `ceil(rows / PASS_ROWS) · (|d| + 31)` steps of `ROWS` cells per lane for
//! a sequence of `|d|` residues and a profile of `rows` rows; `2·ROWS` i32
//! registers of column state per lane. A lone warp waits on the F chain down
//! its lanes' rows (about three dependent operations a row).
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

use crate::layout::{PAD_CODE, PAD_SCORE, SimtParams, code_byte, score_byte};
use crate::recurrence::NEG_INF;
use crate::simt::Words4;
use crate::simt_i16x2::SCORE_LIMIT;
use crate::vector::Vector;

/// Query rows a lane holds in a pass.
pub const ROWS: usize = 16;

/// Lanes of the group that shares a sequence: a warp.
pub const LANES: usize = 32;

/// Query rows of a pass.
pub const PASS_ROWS: usize = ROWS * LANES;

/// Four pad scores, a profile word for the lanes past the profile.
const PAD_WORD: u32 = u32::from_ne_bytes([PAD_SCORE as u8; 4]);

/// The score of the query against sequence `t` of the chunk, in 32 bits.
///
/// # Safety
/// * `V::VL == LANES`; `t < p.threads`.
/// * `p.profile` holds `NUM_CODES * p.query_words` words and `p.query_words`
///   is a multiple of `ROWS / 4` (the sequential profile's whole strips).
/// * `p.lengths` holds `p.threads` entries; `p.residues` holds `ceil(len /
///   4) * p.threads` words and `p.row_buffer` `len * p.threads` pairs for
///   every `len` in `p.lengths`.
/// * No other warp uses sequence `t`'s row-buffer slots.
#[inline(always)]
pub unsafe fn align_sequence<V: Vector>(p: &SimtParams, t: usize) -> i32 {
    let threads = p.threads as usize;
    let len = *p.lengths.add(t) as usize;
    let query_words = p.query_words as usize;
    let passes = (query_words * 4).div_ceil(PASS_ROWS);
    let g = p.gaps;
    let zero = V::splat(0);
    let mut best = zero;

    for pass in 0..passes {
        let reads_row_above = pass > 0;
        let writes_row_below = pass + 1 < passes;
        // The word of a lane's first row in a profile row (past the
        // profile: none).
        let first_word = |lane: usize| (pass * PASS_ROWS + lane * ROWS) / 4;
        let mut h = [zero; ROWS];
        let mut e = [V::splat(NEG_INF); ROWS];
        // What each lane got from the lane above at the last step (the
        // column's residue and the H leaving the row above its rows), and
        // what it hands down (the H and F leaving its last row).
        let mut codes = V::splat(i32::from(PAD_CODE));
        let mut h_above = zero;
        let mut h_leaving = zero;
        let mut f_leaving = V::splat(NEG_INF);

        // Lane 0's inputs are loaded ahead: the residues a word (four
        // steps) ahead, the row above the pass a step ahead, so that no
        // step waits on memory.
        let residue_word = |w: usize| {
            if w * 4 < len {
                *p.residues.add(w * threads + t)
            } else {
                u32::from_ne_bytes([PAD_CODE; 4])
            }
        };
        let row_above = |j: usize| {
            if reads_row_above && j < len {
                *p.row_buffer.add(j * threads + t)
            } else {
                [0, NEG_INF]
            }
        };
        let mut word = residue_word(0);
        let mut word_ahead = residue_word(1);
        let mut top_ahead = row_above(0);

        for step in 0..len + LANES - 1 {
            // Lane 0's column is `step`: its residue (the pad code past
            // the sequence), and the row above the pass.
            if step > 0 && step % 4 == 0 {
                word = word_ahead;
                word_ahead = residue_word(step / 4 + 1);
            }
            let code = code_byte(word, (step % 4) as u32) as i32;
            let [h_top, f_top] = top_ahead;
            top_ahead = row_above(step + 1);
            // H of the row above, one column to the left: what came down
            // at the last step.
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

            if writes_row_below && step >= LANES - 1 && step - (LANES - 1) < len {
                let slot = p.row_buffer.add((step - (LANES - 1)) * threads + t);
                h_leaving.for_lanes(|lane, x| {
                    if lane == LANES - 1 {
                        (*slot)[0] = x;
                    }
                });
                f_leaving.for_lanes(|lane, x| {
                    if lane == LANES - 1 {
                        (*slot)[1] = x;
                    }
                });
            }
        }
        // The next pass's lane 0 reads what this pass's lane 31 wrote.
        crate::warp::sync_warp();
    }
    best.reduce_max()
}

/// Warp `warp` of a rescue launch of `warps` warps: realigns its sequences
/// whose score in `p.scores` is above [`SCORE_LIMIT`] and writes their
/// 32-bit scores.
///
/// This is the body of one warp of the GPU launch; under emulation the
/// host calls it once for every `warp < warps`.
///
/// # Safety
/// The duties of [`align_sequence`] for every sequence of the chunk, with
/// `p.scores` holding the 16-bit kernel's `p.threads` scores; `warp <
/// warps`, and no other launch uses the row buffer or these scores.
#[inline(always)]
pub unsafe fn rescue_warp<V: Vector>(p: &SimtParams, warp: usize, warps: usize) {
    let threads = p.threads as usize;
    let stride = warps * LANES;
    let mut first = warp;
    while first < threads {
        // Lane `l` looks at sequence `first + l·warps`.
        let over = V::lane_ids().map(|lane| {
            let t = first + lane as usize * warps;
            i32::from(t < threads && *p.scores.add(t) > SCORE_LIMIT)
        });
        if over.reduce_max() != 0 {
            for lane in 0..LANES {
                if over.lane_value(lane) != 0 {
                    let t = first + lane * warps;
                    let score = align_sequence::<V>(p, t);
                    V::once(|| *p.scores.add(t) = score);
                }
            }
        }
        first += stride;
    }
}

/// Warps of a rescue launch per multiprocessor: enough for every
/// multiprocessor's schedulers when many pairs overflow, few enough that the
/// scan over the scores is short.
pub const WARPS_PER_MULTIPROCESSOR: usize = 16;

crate::layout::chunk_kernel! {
    /// GPU entry point, launched on a chunk after a 16-bit kernel (same
    /// stream): a warp per sequence above [`SCORE_LIMIT`], arguments
    /// [`SimtParams`]' fields (see `layout::chunk_kernel`).
    ///
    /// # Safety
    /// The duties of [`rescue_warp`] for every warp of the launch; blocks
    /// of whole warps.
    fn sw_query_group_i32_rescue(|p| {
        use core::arch::nvptx::*;
        let warp = crate::warp::global_thread_index() as usize / LANES;
        // SAFETY: reading special registers has no preconditions.
        let warps = unsafe { (_grid_dim_x() * _block_dim_x()) as usize / LANES };
        rescue_warp::<crate::vector::WarpVector<32>>(&p, warp, warps);
    })
}
