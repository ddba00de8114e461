//! `sw_simt_i32`: local alignment scores, one database sequence per thread.
//!
//! The inter-task kernel of SW-CUDA and CUDASW++ 2.0's "optimized SIMT"
//! algorithm. Manavski, S. A. & Valle, G. (2008). *CUDA compatible GPU cards
//! as efficient hardware accelerators for Smith-Waterman sequence alignment.*
//! BMC Bioinformatics 9(Suppl 2):S10; Liu, Y., Schmidt, B. & Maskell, D. L.
//! (2010). *CUDASW++2.0: enhanced Smith-Waterman protein database search on
//! CUDA-enabled GPUs based on SIMT and virtualized SIMD abstractions.*
//! BMC Research Notes 3:93. Both papers: a sequential query profile packed four
//! `i8` per word and database residues packed four per word; the database
//! sorted by length so the threads of a warp finish together.
//!
//! Differs from the papers: the query is swept in strips of `STRIP` rows
//! whose H and E live in registers (the paper's "cell block division" with
//! the block kept in registers instead of shared memory); the H and F of a
//! strip's last row go to a per-thread row buffer in global memory for the
//! next strip. Scores are i32 throughout, so no score can overflow.
//!
//! # Thread mapping
//! 1-D grid; global thread `t < threads` aligns the query with sequence `t`
//! of the chunk. No shared memory, no barriers, no warp communication.
//!
//! # Memory layout
//! See [`crate::layout`]: residues interleaved by thread (coalesced), the
//! profile row of a residue read `STRIP / 4` words at a time (L1-resident:
//! `NUM_CODES * STRIP` bytes per strip), row buffer interleaved by thread.
//!
//! # Complexity
//! O(|q|·|d|) cells per pair; `2 * STRIP` i32 registers of column state and
//! 8 bytes of row buffer per database residue per thread.
//!
//! # Padding
//! Residues past a sequence's end (to a whole word) and query rows past the
//! query's end (to a whole strip) score [`crate::layout::PAD_SCORE`] against
//! everything. A padded cell's H is `max(0, diag - 128, E, F)`, and E and F
//! only fall from the H they came from, so no padded cell exceeds the best
//! real cell: the maximum, the only thing returned, is unchanged.

use crate::layout::{SimtParams, code_byte, score_byte};
use crate::recurrence::{NEG_INF, StripColumn};

/// Query rows per strip: the column state of a thread, in registers.
pub const STRIP: usize = 32;

/// Four profile words, read with one 128-bit load (profile rows start at
/// multiples of `STRIP / 4` words, so every strip is 16-byte aligned).
pub type Words4 = core::simd::u32x4;

/// The scores of a strip's `STRIP` query rows against residue `code`: row
/// `code` of the sequential profile from `profile_strip` on, in `STRIP / 16`
/// 128-bit loads (byte `b` of word `q` scores the strip's row `4q + b`).
///
/// # Safety
/// `profile_strip` points at a strip's first word in a profile of
/// `query_words` words per residue row, and `code < NUM_CODES`.
#[inline(always)]
pub unsafe fn strip_scores(
    profile_strip: *const u32,
    query_words: u32,
    code: usize,
) -> [Words4; STRIP / 16] {
    let scores = profile_strip.add(code * query_words as usize);
    core::array::from_fn(|v| *scores.cast::<Words4>().add(v))
}

/// Aligns the query with sequence `t` of the chunk and writes its score.
///
/// This is the body of one GPU thread; under emulation the CPU engine calls
/// it once for every `t`.
///
/// # Safety
/// * `t < p.threads`.
/// * `p.profile` holds `NUM_CODES * p.query_words` words and `p.query_words`
///   is a multiple of `STRIP / 4`.
/// * `p.lengths` and `p.scores` hold `p.threads` entries; `p.residues` holds
///   `ceil(len / 4) * p.threads` words and `p.row_buffer`
///   `ceil(len / 4) * 4 * p.threads` pairs for every `len` in `p.lengths`.
/// * No other thread writes sequence `t`'s row-buffer slots or score.
#[inline(always)]
pub unsafe fn align_sequence(p: &SimtParams, t: u32) {
    let threads = p.threads as usize;
    let t = t as usize;
    let len = *p.lengths.add(t) as usize;
    let words = len.div_ceil(4);
    let strips = p.query_words as usize * 4 / STRIP;
    let g = p.gaps;
    let mut best = 0;

    for strip in 0..strips {
        let reads_row_above = strip > 0;
        let writes_row_below = strip + 1 < strips;
        let profile_strip = p.profile.add(strip * STRIP / 4);
        // Column 0: H = 0 and no gap open yet.
        let mut h = [0i32; STRIP];
        let mut e = [NEG_INF; STRIP];
        // H of the row above the strip, one column to the left.
        let mut h_above_left = 0;

        for w in 0..words {
            let residue_word = *p.residues.add(w * threads + t);
            for k in 0..4 {
                let column = w * 4 + k;
                let code = code_byte(residue_word, k as u32) as usize;
                // One 64-bit access per column for the (H, F) pair.
                let row_slot = p
                    .row_buffer
                    .add(column * threads + t)
                    .cast::<core::simd::i32x2>();
                let [h_above, f_above] = if reads_row_above {
                    (*row_slot).to_array()
                } else {
                    [0, NEG_INF]
                };
                let mut column_state = StripColumn {
                    f: f_above,
                    h_up: h_above,
                    diag: h_above_left,
                    best,
                };
                let words = strip_scores(profile_strip, p.query_words, code);
                for quad in 0..STRIP / 4 {
                    let packed = words[quad / 4][quad % 4];
                    for b in 0..4 {
                        let r = quad * 4 + b;
                        column_state.local_cell(
                            &mut h[r],
                            &mut e[r],
                            || score_byte(packed, b as u32),
                            g,
                        );
                    }
                }
                best = column_state.best;
                h_above_left = h_above;
                if writes_row_below {
                    *row_slot = core::simd::i32x2::from_array([h[STRIP - 1], column_state.f]);
                }
            }
        }
    }
    *p.scores.add(t) = best;
}

crate::layout::chunk_kernel! {
    /// GPU entry point: one thread per sequence of the chunk, arguments
    /// [`SimtParams`]' fields (see `layout::chunk_kernel`).
    ///
    /// # Safety
    /// The duties of [`align_sequence`] for every `t < threads`; any block size.
    fn sw_simt_i32(|p| {
        let t = crate::warp::global_thread_index();
        if t < p.threads {
            align_sequence(&p, t);
        }
    })
}
