//! `sw_simt_i16x2`: local alignment scores, two database sequences per
//! thread, one in each 16-bit half of every register; the sequences whose
//! 16-bit score ran out of range are rescored in 32 bits by
//! `sw_query_group_i32_rescue` ([`crate::query_group_i32`]).
//!
//! The SIMT kernel ([`crate::simt`]: SW-CUDA, Manavski & Valle 2008;
//! CUDASW++ 2.0's optimized SIMT, Liu, Schmidt & Maskell 2010) with its
//! scores narrowed to 16 bits and packed two to a 32-bit register, as
//! CUDASW++ 4.0 does to use Hopper's DPX instructions, overflow detected and
//! rescued in 32 bits (Schmidt, B., Kallenborn, F., Chacon, A. & Hundt, C.
//! (2024). *CUDASW++4.0: ultra-fast GPU-based Smith-Waterman protein
//! sequence database search.* BMC Bioinformatics 25:342). The two halves
//! hold two database sequences, as SWIPE's SIMD lanes do (Rognes, T. (2011).
//! BMC Bioinformatics 12:221), so the recurrence is the shared
//! [`StripColumn`] over `i16x2` and needs no lane-crossing step. For
//! `sm_90` rustc lowers its `i16x2` adds and maxima to `add.s16x2`,
//! `max.s16x2` and `max.relu.s16x2`, which ptxas fuses into the DPX
//! instructions `VIADDMNMX` and `VIMNMX3`: two cells for about what one
//! costs in 32 bits.
//!
//! # Thread mapping
//! 1-D grid; global thread `t < ceil(threads / 2)` aligns the query with
//! sequences `2t` (low half) and `2t + 1` (high half, absent when `threads`
//! is odd) of the chunk. The database is sorted by length, so the two are
//! about as long; the thread sweeps the longer, the shorter's lane reading
//! pad residues past its end. No shared memory, no barriers.
//!
//! # Memory layout
//! The chunk, profile and parameter block of [`crate::simt`]
//! ([`SimtParams`]): both residue words of a thread are adjacent in the
//! interleaved layout, and the substitution scores of the two halves come
//! from two rows of the sequential profile, joined into `i16x2` by one
//! byte permute ([`score_pair`]). The row buffer holds one `(H, F)` pair of
//! `i16x2` per column and thread, column `j` of thread `t` at
//! `j * ceil(threads / 2) + t` (half the bytes of the 32-bit kernel's).
//!
//! # Exactness
//! H never falls below 0 and rises by at most the largest substitution score
//! (127) per cell, so while every H is at most [`SCORE_LIMIT`] no addition
//! wraps. E and F stay within `[-first, H]` once opened, and start at
//! [`NEG_INF_I16`]: nothing wraps when `first + extend` is at most
//! `-NEG_INF_I16` ([`gaps_fit`]). The first H above [`SCORE_LIMIT`] is
//! computed from values that did not wrap, so it is exact, and the running
//! maximum keeps a value above the limit from then on: a score written above
//! [`SCORE_LIMIT`] means "out of range", never a wrong score.
//! The rescue, launched after it on the same chunk, realigns exactly those
//! sequences in 32 bits ([`crate::query_group_i32`]).

use core::simd::{i16x2, i16x4, simd_swizzle};

use crate::layout::{PAD_CODE, SimtParams, code_byte, score_pair};
use crate::recurrence::{Gaps, StripColumn};
use crate::simt::{STRIP, strip_scores};

/// The largest score the 16-bit kernel returns as final: no cell of a pair
/// whose maximum is at most this can have wrapped (module docs).
pub const SCORE_LIMIT: i32 = i16::MAX as i32 - 127;

/// "Minus infinity" for E and F in 16 bits: an open gap is never below
/// `-first`, and `first + extend <= -NEG_INF_I16` keeps `NEG_INF_I16 -
/// extend` and `-first - extend` in range ([`gaps_fit`]).
pub const NEG_INF_I16: i16 = -(1 << 14);

/// Whether the 16-bit kernel can run with these gap penalties (module
/// docs); the engines use the 32-bit kernel when not.
///
/// ```
/// use gpu_kernels::{recurrence::Gaps, simt_i16x2::gaps_fit};
/// assert!(gaps_fit(Gaps::new(11, 1)));
/// assert!(!gaps_fit(Gaps::new(65_000, 536)));
/// ```
#[inline(always)]
pub const fn gaps_fit(gaps: Gaps) -> bool {
    gaps.first >= 0 && gaps.extend >= 0 && gaps.first + gaps.extend <= -(NEG_INF_I16 as i32)
}

/// A word of four pad residues: the high half of the last thread of a chunk
/// with an odd number of sequences aligns nothing.
const PAD_WORD: u32 = u32::from_le_bytes([PAD_CODE; 4]);

/// Aligns the query with sequences `2t` and `2t + 1` of the chunk and writes
/// their scores (above [`SCORE_LIMIT`]: out of range, to be rescued).
///
/// This is the body of one GPU thread; under emulation the CPU engine calls
/// it once for every `t`.
///
/// # Safety
/// * `2 * t < p.threads` and [`gaps_fit`]`(p.gaps)`.
/// * The buffers of [`crate::simt::align_sequence`]'s duties, the row buffer
///   holding `ceil(len / 4) * 4 * ceil(p.threads / 2)` pairs for every
///   `len` in `p.lengths`.
/// * No other thread writes thread `t`'s row-buffer slots or scores.
#[inline(always)]
pub unsafe fn align_pair(p: &SimtParams, t: u32) {
    let threads = p.threads as usize;
    let pairs = threads.div_ceil(2);
    let t = t as usize;
    let low = 2 * t;
    let has_high = low + 1 < threads;
    let len_low = *p.lengths.add(low) as usize;
    let len_high = if has_high {
        *p.lengths.add(low + 1) as usize
    } else {
        0
    };
    let words = len_low.max(len_high).div_ceil(4);
    let strips = p.query_words as usize * 4 / STRIP;
    let g = p.gaps;
    let mut best = i16x2::splat(0);

    for strip in 0..strips {
        let reads_row_above = strip > 0;
        let writes_row_below = strip + 1 < strips;
        let profile_strip = p.profile.add(strip * STRIP / 4);
        let mut h = [i16x2::splat(0); STRIP];
        let mut e = [i16x2::splat(NEG_INF_I16); STRIP];
        let mut h_above_left = i16x2::splat(0);

        for w in 0..words {
            // Padded to the chunk's longest sequence, so both words exist.
            let word_low = *p.residues.add(w * threads + low);
            let word_high = if has_high {
                *p.residues.add(w * threads + low + 1)
            } else {
                PAD_WORD
            };
            for k in 0..4 {
                let column = w * 4 + k;
                let row_slot = p.row_buffer.add(column * pairs + t).cast::<i16x4>();
                let (h_above, f_above) = if reads_row_above {
                    let slot = *row_slot;
                    (simd_swizzle!(slot, [0, 1]), simd_swizzle!(slot, [2, 3]))
                } else {
                    (i16x2::splat(0), i16x2::splat(NEG_INF_I16))
                };
                let row_of = |word: u32| {
                    strip_scores(
                        profile_strip,
                        p.query_words,
                        code_byte(word, k as u32) as usize,
                    )
                };
                let (scores_low, scores_high) = (row_of(word_low), row_of(word_high));

                let mut column_state = StripColumn {
                    f: f_above,
                    h_up: h_above,
                    diag: h_above_left,
                    best,
                };
                for quad in 0..STRIP / 4 {
                    let (packed_low, packed_high) = (
                        scores_low[quad / 4][quad % 4],
                        scores_high[quad / 4][quad % 4],
                    );
                    for b in 0..4 {
                        let r = quad * 4 + b;
                        column_state.local_cell(
                            &mut h[r],
                            &mut e[r],
                            || score_pair(packed_low, packed_high, b as u32),
                            g,
                        );
                    }
                }
                best = column_state.best;
                h_above_left = h_above;
                if writes_row_below {
                    *row_slot = simd_swizzle!(h[STRIP - 1], column_state.f, [0, 1, 2, 3]);
                }
            }
        }
    }
    *p.scores.add(low) = i32::from(best[0]);
    if has_high {
        *p.scores.add(low + 1) = i32::from(best[1]);
    }
}

crate::layout::chunk_kernel! {
    /// GPU entry point: one thread per two sequences of the chunk,
    /// arguments [`SimtParams`]' fields (see `layout::chunk_kernel`).
    ///
    /// # Safety
    /// The duties of [`align_pair`] for every `t < ceil(threads / 2)`; any
    /// block size.
    fn sw_simt_i16x2(|p| {
        let t = crate::warp::global_thread_index();
        if 2 * t < p.threads {
            align_pair(&p, t);
        }
    })
}
