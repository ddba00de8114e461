//! `sw_group_i16x2_*`: local alignment scores, a group of lanes per pair of
//! database sequences, the pair's residues in the group's registers and the
//! query streamed through the group; 16-bit scores, two sequences per
//! register; out-of-range scores rescued in 32 bits by
//! `sw_query_group_i32_rescue`.
//!
//! CUDASW++ 4.0's mapping (Schmidt, B., Kallenborn, F., Chacon, A. & Hundt,
//! C. (2024). *CUDASW++4.0: ultra-fast GPU-based Smith-Waterman protein
//! sequence database search.* BMC Bioinformatics 25:342): instead of one
//! thread per database sequence (SW-CUDA, Manavski 2008; [`crate::simt`]),
//! `G` lanes share one pair of sequences, so a GPU fills with `G` times fewer
//! sequences and each thread keeps only `R` columns of state. The two
//! sequences of a pair sit in the 16-bit halves of every register, as in
//! [`crate::simt_i16x2`] (SWIPE's lanes, Rognes 2011), so on `sm_90` the cell
//! update is Hopper's DPX instructions.
//!
//! # Thread mapping
//! 1-D grid of blocks of whole warps; global group `p = thread / G` aligns
//! the query with sequences `2p` (low half) and `2p + 1` (high half, absent
//! when the chunk has an odd number) of the chunk. Lane `l` of the group
//! holds columns `l·R .. (l+1)·R` of the pair: one pass covers `W = G·R`
//! columns. The query streams through the group as a wavefront: at step `t`
//! lane `l` computes query row `t - l` across its `R` columns, then hands
//! its last column's `H` and the `E` leaving it and its query letter to lane
//! `l + 1` by one shuffle each. Lane 0 starts each row on the matrix's left
//! border (`H = 0`, no gap). `m + G - 1` steps a pass for a query of `m`
//! residues.
//!
//! The single-pass configurations align sequences of at most `W` residues
//! (the host picks one per chunk, the narrowest that covers it: 16 to 1024
//! residues). Longer ones run in the several-pass entry points (`_passes`,
//! 32 lanes, a group per warp): pass `k` covers columns `kW .. (k+1)W`; the
//! last lane writes the `H` and `E` leaving each row to the pair's border
//! scratch in global memory, and lane 0 of the next pass reads them as its
//! left border (CUDASW++ 4.0 does the same with its temporary column). Row
//! `r` leaves the last lane at step `r + G - 1` and is read in the next
//! pass, after a warp barrier, an iteration before lane 0 needs it.
//!
//! # Memory layout
//! The chunk in the SIMT layout (residues interleaved by sequence, 4 per
//! word; [`crate::layout`]), read once per pair into registers as pair codes
//! `low · NUM_CODES + high`. Substitution scores come from the pair table in
//! shared memory: for query letter `a` and pair code `c`, entry
//! `a · PAIR_CODES + c` is `(s(a, low), s(a, high))` as `i16x2` (built by the
//! host from the matrix, [`TABLE_WORDS`] words, copied in by every block,
//! biased by `first` for the biased update: [`shared_word`]): one
//! shared-memory load per two cells. The query's codes, four a word, padded
//! with the pad code to [`query_words`], so that each iteration of four
//! steps loads the next one's word without a test.
//!
//! The border scratch of a pair is [`scratch_words`] words: slot `t` (two
//! words, an H and an E as the lanes keep them) holds what the last lane
//! hands out at step `t` of the latest pass (row `t - 31`: the fill's and
//! drain's slots are written too, and no row reads them), and slot `steps`
//! (the steps of a pass) the matrix's left border (`H = 0`, no gap), written
//! once by lane 0. Lane 0 takes the left of row `r` from slot `r + 31` in
//! passes after the first and from the left-border slot in the first pass
//! and for the drain rows (`r >= m`): one load through a chosen slot, no
//! branch, and every iteration of the steps the same.
//!
//! # Exactness
//! As [`crate::simt_i16x2`]: every H is at least 0 and rises by at most 127
//! per cell, E and F start at [`NEG_INF_I16`] and stay in `[-first, H]` once
//! opened, so with [`gaps_fit`] no 16-bit value wraps while every H is at
//! most [`SCORE_LIMIT`]; the first H above it is exact and the running
//! maximum keeps it, and the rescue realigns those pairs in 32 bits.
//!
//! # Biased update
//! The plain update makes `H = max(H_diag + s, E, F, 0)` and then `H - first`
//! for the E of the next column and the F of the next row: E's value passes
//! through four dependent operations per column, which is the latency a lone
//! warp waits on (the several-pass kernels on long pairs). The biased update
//! (`Config::biased`) keeps `o = H - first` instead of H everywhere (the
//! lanes' state, the values handed between lanes and passes, the running
//! best) and the pair table as `s + first`; per cell (`Lane::row`):
//!
//! * `x = max(o_diag + (s + first), F) = max(H_diag + s, F)`;
//! * `y = max(x - first, -first) = max(H_diag + s, F, 0) - first`;
//! * `o = max(E - first, y) = H - first`;
//! * `E' = max(E - extend, y)`, which is `max(E - extend, H - first)`:
//!   the term `E - first` that `H - first` adds is at most `E - extend`
//!   (`first = open + extend >= extend`), so leaving it out changes
//!   nothing;
//! * `F' = max(F - extend, o)`, and the score is the best `o` plus `first`,
//!   added in 32 bits.
//!
//! So E' depends on E through one operation, and each is one add-and-max
//! (`VIADDMNMX` on Hopper). Ranges, with `first + extend <= 2^14`
//! ([`gaps_fit`]): `s + first` fits 16 bits (`|s| <= 128`); `o_diag + (s +
//! first)` is the same sum `H_diag + s` as before, exact while `H_diag <=`
//! [`SCORE_LIMIT`]; `x >= -128` (the pad score against `H_diag >= 0`), so
//! `x - first >= -128 - 2^14`; `E - first >= NEG_INF_I16 - first >= -2^15`
//! and `E - extend`, `F - extend` as in the plain update. Every value is
//! therefore exact while every H is at most [`SCORE_LIMIT`], and the first
//! H above it is exact; the best `o` keeps a value above `SCORE_LIMIT -
//! first`, so the score written, `best + first` in 32 bits, is above
//! [`SCORE_LIMIT`] and the pair is rescued, as with the plain update.
//!
//! # Padding
//! Columns past a sequence's end are the pad code, and the rows a lane
//! computes before row 0 and after row `m - 1` (the wavefront's fill and
//! drain) use the pad letter; the pad scores [`crate::layout::PAD_SCORE`]
//! against everything. Before row 0 a lane's state stays at `H = 0` and
//! `F = -first`, which is what row 0 computes from the border anyway; every
//! other padded cell's H is `max(0, diag - 128, E, F)` with E and F falling
//! from the H they came from (lane 0's drain rows start from the left
//! border), so no padded cell exceeds the best real cell.

use core::simd::i16x2;

use crate::layout::{NUM_CODES, PAD_CODE, code_byte};
use crate::recurrence::{Gaps, Score};
pub use crate::simt_i16x2::{NEG_INF_I16, SCORE_LIMIT, gaps_fit};
use crate::vector::Vector;

/// Pair codes: one per (low residue code, high residue code).
pub const PAIR_CODES: usize = NUM_CODES * NUM_CODES;

/// Words of the pair table: a row of [`PAIR_CODES`] per query letter, the
/// pad included (the wavefront's fill and drain rows).
pub const TABLE_WORDS: usize = NUM_CODES * PAIR_CODES;

/// Bytes of dynamic shared memory every block needs: the pair table.
pub const SHARED_BYTES: usize = TABLE_WORDS * 4;

/// The parameter block of the group kernels.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct GroupParams {
    /// The pair table ([`TABLE_WORDS`] words, module docs).
    pub table: *const u32,
    /// The query's residue codes, four per word (byte `k` of word `w` is
    /// residue `4w + k`), padded with the pad code to
    /// [`query_words`]`(query_len)` words.
    pub query: *const u32,
    /// Packed residues of the chunk, interleaved by sequence as for SIMT.
    pub residues: *const u32,
    /// Length in residues of each sequence of the chunk, `threads` entries.
    pub lengths: *const u32,
    /// One score per sequence of the chunk, `threads` entries.
    pub scores: *mut i32,
    /// Residues of the query.
    pub query_len: u32,
    /// Number of sequences in the chunk.
    pub threads: u32,
    /// Gap costs, packed ([`GapAddends::new`] of gaps that [`gaps_fit`]).
    pub gaps: GapAddends,
    /// The launch's pairs are `first_pair ..`: the group of global index
    /// `p` aligns pair `first_pair + p` (a chunk of long sequences runs in
    /// several launches, so that the border scratch stays bounded).
    pub first_pair: u32,
    /// The border between passes (module docs): [`scratch_words`]`(query_len)`
    /// words for each pair of the launch, `pair - first_pair` its slot,
    /// 8-byte aligned; used by the several-pass entry points only (null
    /// for the others).
    pub scratch: *mut u32,
}

/// Steps of one pass of a group of `lanes` for a query of `query_len`
/// residues: `query_len + lanes - 1`, rounded up to whole iterations of
/// four.
const fn pass_steps(query_len: usize, lanes: usize) -> usize {
    (query_len + lanes - 1).next_multiple_of(4)
}

/// Words of border scratch a pair needs for a query of `query_len`
/// residues (module docs, *Memory layout*): a slot of two words, an H and
/// an E (two `i16x2`), for each step of a pass of 32 lanes, and one for
/// the matrix's left border.
pub const fn scratch_words(query_len: usize) -> usize {
    2 * (pass_steps(query_len, 32) + 1)
}

/// Words of [`GroupParams::query`] for a query of `query_len` residues:
/// four residue codes a word, padded with the pad code to one word per
/// iteration of four steps of the widest group, and one more (each
/// iteration loads the next one's word).
pub const fn query_words(query_len: usize) -> usize {
    pass_steps(query_len, 32) / 4 + 1
}

// SAFETY: plain data with a `#[repr(C)]` layout the PTX entry points share.
#[cfg(feature = "cudarc")]
unsafe impl cudarc::driver::DeviceRepr for GroupParams {}

/// An `i16x2` kept in an `i32` lane of a [`Vector`] (low half first, on
/// the GPU and on the little-endian hosts alike).
#[inline(always)]
pub(crate) fn pair(bits: i32) -> i16x2 {
    // SAFETY: both types are 32 bits of plain data.
    unsafe { core::mem::transmute::<i32, i16x2>(bits) }
}

/// The bits of an `i16x2`, for a lane of a [`Vector`].
#[inline(always)]
pub(crate) fn bits(x: i16x2) -> i32 {
    // SAFETY: as in `pair`.
    unsafe { core::mem::transmute::<i16x2, i32>(x) }
}

/// The gap costs as the kernels add them: `-first` and `-extend` in both
/// 16-bit halves, packed by the host so that the cell updates take them
/// straight from the parameter block.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GapAddends {
    /// `-first` (open + one extension) in both halves.
    pub minus_first: u32,
    /// `-extend` in both halves.
    pub minus_extend: u32,
    /// `first` in both halves: what the biased update adds to the pair
    /// table and to its best score (module docs).
    pub first: u32,
}

impl GapAddends {
    /// What a kept best adds to become the score, in 32 bits: `first` with
    /// the biased update (which keeps `H - first`), else 0.
    #[inline(always)]
    pub(crate) fn unbias<const BIASED: bool>(self) -> i32 {
        if BIASED {
            i32::from(self.first as u16 as i16)
        } else {
            0
        }
    }

    /// The addends of `gaps`, which must [`gaps_fit`].
    pub fn new(gaps: Gaps) -> Self {
        GapAddends {
            minus_first: bits(i16x2::splat(-gaps.first as i16)) as u32,
            minus_extend: bits(i16x2::splat(-gaps.extend as i16)) as u32,
            first: bits(i16x2::splat(gaps.first as i16)) as u32,
        }
    }
}

/// The addends as `i16x2`.
#[derive(Clone, Copy)]
pub(crate) struct PackedGaps {
    pub(crate) minus_first: i16x2,
    pub(crate) minus_extend: i16x2,
}

impl PackedGaps {
    /// H = 0 as the lanes keep it: `-first` with the biased update
    /// (`H - first`), else 0.
    #[inline(always)]
    pub(crate) fn zero_h<const BIASED: bool>(self) -> i16x2 {
        if BIASED {
            self.minus_first
        } else {
            i16x2::splat(0)
        }
    }

    #[inline(always)]
    pub(crate) fn new(g: GapAddends) -> Self {
        PackedGaps {
            minus_first: pair(g.minus_first as i32),
            minus_extend: pair(g.minus_extend as i32),
        }
    }
}

/// One cell of the plain update (CUDASW++4's order, [`Lane::row`]): from
/// the H of the cell diagonally above-left, the cell's score pair, the E
/// entering from the left and the F from above, returns the cell's H and
/// leaves the E for the next column in `e` and the F for the next row in
/// `f`: an add and a three-way max with the zero floor, then `H - first`
/// made once for both gaps.
#[inline(always)]
pub(crate) fn plain_cell(
    diag: i16x2,
    sub: i16x2,
    e: &mut i16x2,
    f: &mut i16x2,
    g: PackedGaps,
) -> i16x2 {
    let h = (diag + sub)
        .max_score(*e)
        .max_score(f.max_score(i16x2::splat(0)));
    let opened = h + g.minus_first;
    *e = (*e + g.minus_extend).max_score(opened);
    *f = (*f + g.minus_extend).max_score(opened);
    h
}

/// [`biased_cell`] with `BIASED`, else [`plain_cell`].
#[inline(always)]
pub(crate) fn cell_update<const BIASED: bool>(
    diag: i16x2,
    sub: i16x2,
    e: &mut i16x2,
    f: &mut i16x2,
    g: PackedGaps,
) -> i16x2 {
    if BIASED {
        biased_cell(diag, sub, e, f, g)
    } else {
        plain_cell(diag, sub, e, f, g)
    }
}

/// One cell of the biased update (module docs, *Biased update*): from the
/// `o = H - first` of the cell diagonally above-left, the cell's score
/// pair as the biased table holds it (`s + first`), the E entering from
/// the left and the F from above, returns the cell's `o` and leaves the E
/// for the next column in `e` and the F for the next row in `f`. Five
/// add-and-max operations; E' depends on E through one.
#[inline(always)]
pub(crate) fn biased_cell(
    diag: i16x2,
    sub: i16x2,
    e: &mut i16x2,
    f: &mut i16x2,
    g: PackedGaps,
) -> i16x2 {
    let x = (diag + sub).max_score(*f);
    let y = (x + g.minus_first).max_score(g.minus_first);
    let o = (*e + g.minus_first).max_score(y);
    *e = (*e + g.minus_extend).max_score(y);
    *f = (*f + g.minus_extend).max_score(o);
    o
}

/// The state of one lane: its `R` columns of the pair. With `BIASED` (the
/// biased update, module docs) every H here is kept as `H - first`.
struct Lane<const R: usize> {
    /// Pair code of each column (module docs).
    codes: [u32; R],
    /// H of each column in the row the lane computed last.
    h: [i16x2; R],
    /// F of each column in the row the lane computes next (from the H
    /// above it).
    f: [i16x2; R],
    /// The best H so far.
    best: i16x2,
    /// H of the column left of the lane's first, in the row computed last
    /// (the next row's diagonal for the first column).
    left_h_above: i16x2,
}

impl<const R: usize> Lane<R> {
    /// A lane above the matrix's top row: every H is `h_zero` (H = 0 as
    /// the update keeps it), no gap open from above.
    #[inline(always)]
    fn new(h_zero: i16x2) -> Self {
        Lane {
            codes: [0; R],
            h: [h_zero; R],
            f: [i16x2::splat(NEG_INF_I16); R],
            best: h_zero,
            left_h_above: h_zero,
        }
    }

    /// Computes one row across the lane's columns: `table_row` is the pair
    /// table's row of the row's query letter (as the block holds it:
    /// biased by `first` with `BIASED`), `left_h` and `left_e` the H of the
    /// column left of the lane's first in this row and the E that enters
    /// the lane's first column. Returns the H of the lane's last column and
    /// the E that enters the next lane's first.
    ///
    /// Plain update (CUDASW++4's order): each cell's E (from the left) and
    /// F (from above) are ready before its H, so H is one add and one
    /// three-way max with the zero floor; then `H - first` is made once and
    /// feeds both the E of the next column and the F of the next row. Per
    /// cell a table load, its address, four DPX operations and half a
    /// running maximum (two cells' H per three-way max); the E that enters
    /// the next column depends on the E entering this one through four of
    /// them.
    ///
    /// Biased update (`BIASED`, module docs): with `o = H - first` and the
    /// table holding `s + first`,
    ///
    /// ```text
    /// x  = max(o_diag + s', F)      = max(H_diag + s, F)
    /// y  = max(x - first, -first)   = max(H_diag + s, F, 0) - first
    /// o  = max(E - first, y)        = H - first
    /// E' = max(E - extend, y)       = max(E - extend, H - first)
    /// F' = max(F - extend, o)
    /// ```
    ///
    /// five add-and-max operations (each one `VIADDMNMX` on Hopper), of
    /// which only E' lies on the chain from one column's E to the next.
    ///
    /// # Safety
    /// `table_row` points at [`PAIR_CODES`] readable words.
    #[inline(always)]
    unsafe fn row<const BIASED: bool>(
        &mut self,
        table_row: *const u32,
        left_h: i16x2,
        left_e: i16x2,
        g: PackedGaps,
    ) -> (i16x2, i16x2) {
        let mut diag = self.left_h_above;
        self.left_h_above = left_h;
        let mut e = left_e;
        let best = self.best;
        self.best = row_of_cells::<R>(best, |col| {
            let sub = pair(*table_row.add(self.codes[col] as usize) as i32);
            column_update::<BIASED>(
                &mut self.h[col],
                &mut self.f[col],
                &mut diag,
                sub,
                &mut e,
                g,
            )
        });
        (self.h[R - 1], e)
    }
}

/// One column of a lane's row: the cell below `h` (the column's H in the
/// row above; `f` its F, `diag` the H diagonally above-left, `e` the E
/// entering from the left) by [`cell_update`]; leaves the cell's H in `h`
/// and the H above it in `diag` (the next column's diagonal), and returns
/// the cell's H.
#[inline(always)]
pub(crate) fn column_update<const BIASED: bool>(
    h: &mut i16x2,
    f: &mut i16x2,
    diag: &mut i16x2,
    sub: i16x2,
    e: &mut i16x2,
    g: PackedGaps,
) -> i16x2 {
    let cell = cell_update::<BIASED>(*diag, sub, e, f, g);
    *diag = *h;
    *h = cell;
    cell
}

/// A lane's row of `R` cells: `cell(col)` computes column `col` (columns in
/// order) and returns its H; returns the best of `best` and every H. Two
/// columns at a time, so that one three-way max keeps the best of both.
#[inline(always)]
pub(crate) fn row_of_cells<const R: usize>(
    best: i16x2,
    mut cell: impl FnMut(usize) -> i16x2,
) -> i16x2 {
    let mut best = best;
    let mut k = 0;
    while k + 1 < R {
        let h0 = cell(k);
        let h1 = cell(k + 1);
        best = best.max_score(h0.max_score(h1));
        k += 2;
    }
    if k < R {
        best = best.max_score(cell(k));
    }
    best
}

/// The best H of a group, per half: the lanes' own bests (`bests`, one
/// `i16x2` a lane) folded over the group from `start`.
#[inline(always)]
pub(crate) fn group_best<V: Vector>(start: i16x2, bests: V) -> i16x2 {
    let mut best = start;
    for l in 0..V::VL {
        best = best.max_score(pair(bests.lane_value(l)));
    }
    best
}

/// Residue code of column `column` of chunk sequence `s` (the pad past its end).
///
/// # Safety
/// `s < p.threads` and the chunk's buffers as [`GroupParams`] says.
#[inline(always)]
unsafe fn code(p: &GroupParams, s: usize, len: usize, column: usize) -> u32 {
    if column < len {
        let word = *p.residues.add(column / 4 * p.threads as usize + s);
        code_byte(word, (column % 4) as u32)
    } else {
        PAD_CODE as u32
    }
}

/// One border slot: an H and an E (module docs, *Memory layout*).
#[inline(always)]
pub(crate) fn slot(h: i32, e: i32) -> u64 {
    u64::from(h as u32) | (u64::from(e as u32) << 32)
}

/// Reads a border slot. On the GPU `ld.global.cg.u64`: one 8-byte load from
/// the global space, cached in L2 only (a row's slot is read once a pass
/// and rewritten by the same pass; L1 has nothing to give back), which
/// ptxas makes `LDG.E.64.STRONG.GPU`. The warp barrier between passes is
/// what makes the value the one the last lane stored in the pass before,
/// so the load needs no stronger order. (The border reads used to be
/// `read_volatile`, `LD.E.STRONG.SYS`, because LLVM turned a choice
/// between loaded values and constants into a load through a chosen
/// pointer with the constants in local memory on `sm_80`; here the
/// choice is of the slot, and the left border is a slot too.) On the host
/// a plain read.
///
/// # Safety
/// `at` points at a readable slot in global memory.
#[inline(always)]
pub(crate) unsafe fn load_slot(at: *const u64) -> u64 {
    #[cfg(target_arch = "nvptx64")]
    {
        let both: u64;
        // SAFETY: `at` is a global address of 8 readable bytes (caller).
        unsafe {
            core::arch::asm!(
                "ld.global.cg.u64 {v}, [{a}];",
                v = out(reg64) both,
                a = in(reg64) at,
                options(pure, readonly, nostack)
            );
        }
        both
    }
    #[cfg(not(target_arch = "nvptx64"))]
    *at
}

/// Aligns the query with sequences `2 * pair_index` and `2 * pair_index + 1`
/// of the chunk on one group of `V::VL` lanes of `R` columns each, and writes
/// their scores (above [`SCORE_LIMIT`]: out of range, to be rescued).
///
/// `N` is the number of lanes the calling code computes: `V::VL` on the host
/// (one call computes the whole group), 1 on the GPU (each thread its own
/// lane; [`Vector::from_lanes`] and [`Vector::for_lanes`] give it its lane).
///
/// With `PASSES` (32 lanes only) a pair wider than `V::VL * R` runs in
/// several passes, its borders in `p.scratch` (module docs). With `BIASED`
/// the cell update keeps `H - first` (module docs) and `table` holds the
/// pair table biased by `first` ([`shared_word`]).
///
/// A pair past the chunk's end (`2 * pair_index >= p.threads`) aligns
/// nothing and writes nothing; in a group narrower than a warp it still runs
/// every step with its warp.
///
/// # Safety
/// * `p.gaps` is [`GapAddends::new`] of gaps that [`gaps_fit`].
/// * Without `PASSES`, every sequence of the chunk has at most `V::VL * R`
///   residues; with it, `V::VL` is 32 and `p.scratch`, 8-byte aligned,
///   holds [`scratch_words`]`(p.query_len)` words for this pair's slot.
/// * `table` points at the block's pair table ([`TABLE_WORDS`] words):
///   [`shared_word`]`::<BIASED>` of each word of `p.table`; `p.query` holds
///   [`query_words`]`(p.query_len)` words; the other buffers of `p` are as
///   [`GroupParams`] says.
/// * No other group writes this pair's scores.
#[inline(always)]
pub unsafe fn align_pair<
    V: Vector,
    const R: usize,
    const N: usize,
    const PASSES: bool,
    const BIASED: bool,
>(
    p: &GroupParams,
    table: *const u32,
    pair_index: usize,
) {
    let threads = p.threads as usize;
    let low = 2 * pair_index;
    let has_low = low < threads;
    let has_high = low + 1 < threads;
    let len_low = if has_low {
        *p.lengths.add(low) as usize
    } else {
        0
    };
    let len_high = if has_high {
        *p.lengths.add(low + 1) as usize
    } else {
        0
    };
    let g = PackedGaps::new(p.gaps);
    // H = 0 as the lanes keep it.
    let h_zero = g.zero_h::<BIASED>();
    let lanes = V::VL;
    let width = lanes * R;
    // Only a group that is a whole warp runs several passes (the groups of
    // one warp run the same steps), and only in the entry points compiled
    // for them (`PASSES`), so that the others carry no border code.
    let passes = if lanes < 32 {
        1
    } else if !has_low {
        0
    } else if PASSES {
        len_low.max(len_high).div_ceil(width).max(1)
    } else {
        1
    };
    let m = p.query_len;
    // `m + G - 1` steps, rounded up to whole iterations of four: the extra
    // steps are drain rows, which change nothing (module docs).
    let steps = (m + lanes as u32 - 1).next_multiple_of(4);
    let neg_inf = bits(i16x2::splat(NEG_INF_I16));
    // The pair's border slots (module docs): slot `t` what the last lane
    // hands out at step `t`, slot `steps` the matrix's left border.
    let slots = if PASSES && has_low {
        let words = scratch_words(m as usize);
        let slots = p
            .scratch
            .add((pair_index - p.first_pair as usize) * words)
            .cast::<u64>();
        V::once(|| *slots.add(steps as usize) = slot(bits(h_zero), neg_inf));
        // Every lane reads the left border that lane 0 wrote.
        crate::warp::sync_warp();
        slots
    } else {
        core::ptr::null_mut()
    };
    let mut state: [Lane<R>; N] = core::array::from_fn(|_| Lane::new(h_zero));
    let best = h_zero;
    for pass in 0..passes {
        let first_column = pass * width;
        // This pass's columns of the pair, read once; fresh state left of
        // them (the top border: H = 0, no gap from above).
        V::from_lanes(|l| {
            let lane = &mut state[l % N];
            let kept = lane.best;
            *lane = Lane::new(h_zero);
            lane.best = kept;
            for k in 0..R {
                let column = first_column + l * R + k;
                let code_low = if has_low {
                    code(p, low, len_low, column)
                } else {
                    PAD_CODE as u32
                };
                let code_high = if has_high {
                    code(p, low + 1, len_high, column)
                } else {
                    PAD_CODE as u32
                };
                lane.codes[k] = code_low * NUM_CODES as u32 + code_high;
            }
            0
        });
        // What lane 0 takes at the left of row `row`: the H and E the last
        // lane handed out of that row in the pass before (slot `row + G -
        // 1`), or the matrix's left border (slot `steps`) in the first pass
        // and for the drain rows. One load, no branch: the choice is of the
        // slot.
        let rows_handed = if pass == 0 { 0 } else { m };
        let left_of = |row: u32| -> (i32, i32) {
            if PASSES {
                let at = if row < rows_handed {
                    row + lanes as u32 - 1
                } else {
                    steps
                };
                let both = load_slot(slots.add(at as usize));
                (both as u32 as i32, (both >> 32) as u32 as i32)
            } else {
                (bits(h_zero), neg_inf)
            }
        };
        let mut letter = V::splat(PAD_CODE as i32);
        let (h0, e0) = left_of(0);
        let mut left_h = V::from_lanes(|l| if l == 0 { h0 } else { bits(h_zero) });
        let mut left_e = V::from_lanes(|l| if l == 0 { e0 } else { neg_inf });
        // Step `t`: lane 0 takes query letter `next` (row `t`), the others
        // their left neighbour's from the step before; every lane computes
        // its row and hands its last column's H and the E leaving it on;
        // the last lane's (row `t - G + 1`) go to slot `t` for the next
        // pass, and lane 0 takes `(h_next, e_next)`, the left of row `t + 1`.
        let mut step = |t: u32, next: u32, (h_next, e_next): (i32, i32)| {
            letter = letter.shift_up(next as i32);
            let mut in_h = [0i32; N];
            let mut in_e = [0i32; N];
            left_h.for_lanes(|l, x| in_h[l % N] = x);
            left_e.for_lanes(|l, x| in_e[l % N] = x);
            let mut out_h = [0i32; N];
            let mut out_e = [0i32; N];
            letter.for_lanes(|l, a| {
                let (h, e) = state[l % N].row::<BIASED>(
                    table.add(a as usize * PAIR_CODES),
                    pair(in_h[l % N]),
                    pair(in_e[l % N]),
                    g,
                );
                out_h[l % N] = bits(h);
                out_e[l % N] = bits(e);
            });
            if PASSES {
                // Every step, the fill's and the drain's too: slots that
                // no pass reads as a row (module docs).
                V::from_lanes(|l| out_h[l % N]).for_lanes(|l, h| {
                    if l == lanes - 1 {
                        *slots.add(t as usize) = slot(h, out_e[l % N]);
                    }
                });
            }
            left_h = V::from_lanes(|l| out_h[l % N]).shift_up(h_next);
            left_e = V::from_lanes(|l| out_e[l % N]).shift_up(e_next);
        };
        // Four steps an iteration: one query word (four letters; the host
        // pads the query with pad letters to `query_words`) and the four
        // rows' left borders, both loaded an iteration ahead so that their
        // latency hides behind the iteration before.
        let border4 = |t: u32| {
            [
                left_of(t + 1),
                left_of(t + 2),
                left_of(t + 3),
                left_of(t + 4),
            ]
        };
        let mut word = *p.query;
        let mut border = border4(0);
        let mut t = 0u32;
        while t < steps {
            let next_word = *p.query.add((t / 4 + 1) as usize);
            let next_border = border4(t + 4);
            step(t, word & 0xff, border[0]);
            step(t + 1, (word >> 8) & 0xff, border[1]);
            step(t + 2, (word >> 16) & 0xff, border[2]);
            step(t + 3, word >> 24, border[3]);
            word = next_word;
            border = next_border;
            t += 4;
        }
        // The next pass reads what the last lane wrote.
        crate::warp::sync_warp();
    }

    // The group's best, per half: the lanes' maxima folded over the group.
    let best = group_best(best, V::from_lanes(|l| bits(state[l % N].best)));
    // The score per half, in 32 bits (a biased best above the limit plus
    // `first` must not wrap).
    let unbias = p.gaps.unbias::<BIASED>();
    let score = |half: usize| i32::from(best[half]) + unbias;
    V::once(|| {
        if !has_low {
            return;
        }
        *p.scores.add(low) = score(0);
        if has_high {
            *p.scores.add(low + 1) = score(1);
        }
    });
}

/// The word of the block's pair table for word `word` of the host's
/// ([`GroupParams::table`]): as it is for the plain update, `s + first` in
/// each half for the biased one (module docs). The GPU applies it when a
/// block copies the table in (`load_table`, GPU only) and the host's emulated run
/// builds its table with it ([`shared_table`]), so both add the same way.
#[inline(always)]
pub fn shared_word<const BIASED: bool>(word: u32, gaps: GapAddends) -> u32 {
    if BIASED {
        bits(pair(word as i32) + pair(gaps.first as i32)) as u32
    } else {
        word
    }
}

/// [`shared_word`] for a configuration chosen at run time.
#[inline(always)]
pub fn biased_word(biased: bool, word: u32, gaps: GapAddends) -> u32 {
    if biased {
        shared_word::<true>(word, gaps)
    } else {
        shared_word::<false>(word, gaps)
    }
}

/// The block's pair table for configuration `config` (an index of
/// [`CONFIGS`]) on the host: [`shared_word`] of each word of `table`, as
/// `load_table` makes it on the GPU.
///
/// # Panics
/// If `table` or `shared` does not hold [`TABLE_WORDS`] words.
#[cfg(not(target_arch = "nvptx64"))]
pub fn shared_table(config: usize, table: &[u32], gaps: GapAddends, shared: &mut [u32]) {
    assert!(table.len() == TABLE_WORDS && shared.len() == TABLE_WORDS);
    let biased = CONFIGS[config].biased;
    for (out, &word) in shared.iter_mut().zip(table) {
        *out = biased_word(biased, word, gaps);
    }
}

/// Copies the pair table into the block's shared memory, each word as
/// [`shared_word`] makes it (every thread of the block takes part, then the
/// block synchronises).
///
/// # Safety
/// `shared` holds [`TABLE_WORDS`] words; every thread of the block calls it.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
unsafe fn load_table<const BIASED: bool>(table: *const u32, shared: *mut u32, gaps: GapAddends) {
    use core::arch::nvptx::{_block_dim_x, _syncthreads, _thread_idx_x};
    let mut k = _thread_idx_x() as usize;
    while k < TABLE_WORDS {
        *shared.add(k) = shared_word::<BIASED>(*table.add(k), gaps);
        k += _block_dim_x() as usize;
    }
    _syncthreads();
}

/// One configuration of the group kernels: an entry point and its shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    /// The PTX entry point.
    pub symbol: &'static str,
    /// Lanes per group, `G`.
    pub lanes: usize,
    /// Columns per lane, `R`.
    pub columns: usize,
    /// Whether pairs wider than `G · R` run in several passes (32 lanes
    /// only; the border goes through [`GroupParams::scratch`]).
    pub passes: bool,
    /// Whether the cell update keeps `H - first` (module docs, *Biased
    /// update*): E's chain one operation a column, for the latency-bound
    /// several-pass kernels and where it saves registers.
    pub biased: bool,
    /// Blocks of [`BLOCK_THREADS`] one multiprocessor is meant to hold,
    /// on `sm_80` and on `sm_90`: the entry point's registers are capped
    /// at [`max_registers`] of it (host/build.rs writes `.maxnreg` and
    /// `.maxntid` into each build's PTX). 3 at most (the shared memory of
    /// an H100 holds three pair tables; an A100's two).
    pub blocks_per_sm: [u32; 2],
}

impl Config {
    /// Columns of one pass, `G · R`.
    pub const fn width(&self) -> usize {
        self.lanes * self.columns
    }

    /// The register cap of this configuration's entry point in the PTX
    /// for `sm_90` (`hopper`) or `sm_80`.
    pub const fn max_registers(&self, hopper: bool) -> u32 {
        max_registers(self.blocks_per_sm[hopper as usize])
    }
}

/// Threads per block of every group launch (the host's `VECTOR_BLOCK`),
/// the `.maxntid` of the entry points.
pub const BLOCK_THREADS: u32 = 256;

/// The most registers per thread that let `blocks` blocks of
/// [`BLOCK_THREADS`] share a multiprocessor's 64 Ki registers (allocated 8
/// per thread at a time), and at most 255.
///
/// ```
/// use gpu_kernels::group_i16x2::max_registers;
/// assert_eq!(max_registers(3), 80);
/// assert_eq!(max_registers(2), 128);
/// assert_eq!(max_registers(1), 255);
/// ```
pub const fn max_registers(blocks: u32) -> u32 {
    let most = 65536 / (BLOCK_THREADS * blocks) / 8 * 8;
    if most > 255 { 255 } else { most }
}

/// The configurations, each `(entry point, lanes per group G, columns per
/// lane R, several passes, biased update, [blocks per SM on sm_80, on
/// sm_90])`: one PTX entry point each, [`CONFIGS`], and the host's emulated
/// run ([`align_pair_emulated`]), from one list.
macro_rules! group_configs {
    ($(($name:ident, $g:literal, $r:literal, $passes:literal, $biased:literal, $blocks:expr)),* $(,)?) => {
        $(
            /// GPU entry point: `G` lanes per pair of sequences, `R`
            /// columns per lane, several passes or one, biased update or
            /// plain (module docs).
            ///
            /// # Safety
            /// [`align_pair`]'s duties for every pair (`p.table` the host's
            /// pair table); blocks a multiple of 32 threads, at most
            /// [`BLOCK_THREADS`]; [`SHARED_BYTES`] of dynamic shared memory.
            #[cfg(target_arch = "nvptx64")]
            #[unsafe(no_mangle)]
            pub unsafe extern "ptx-kernel" fn $name(p: GroupParams) {
                let shared = core::intrinsics::gpu::gpu_launch_sized_workgroup_mem::<u32>();
                load_table::<$biased>(p.table, shared, p.gaps);
                // Every group of the warp runs (a group past the chunk's
                // end aligns nothing and writes nothing), so the shuffles
                // name the whole warp.
                let pair_index = (p.first_pair + crate::warp::global_thread_index() / $g) as usize;
                align_pair::<crate::vector::WarpVector<$g, true>, $r, 1, $passes, $biased>(
                    &p, shared, pair_index,
                );
            }
        )*

        /// The compiled configurations: the single-pass ones narrowest
        /// first (16–1024 residues, widths at most 32 apart up to 512 and
        /// 64 up to 1024, so that a chunk's sequences leave few of its
        /// configuration's columns empty; the host splits chunks at these
        /// widths), then the several-pass ones. [`config_for`] picks one
        /// per chunk.
        pub const CONFIGS: [Config; [$($g),*].len()] = [$(Config {
            symbol: stringify!($name),
            lanes: $g,
            columns: $r,
            passes: $passes,
            biased: $biased,
            blocks_per_sm: $blocks,
        }),*];

        /// [`align_pair`] on the host for configuration `config` (an index
        /// of [`CONFIGS`]), the whole group in one call, `table` the
        /// block's pair table ([`shared_table`]).
        ///
        /// # Safety
        /// [`align_pair`]'s, with `table` [`shared_table`] of `p.table`
        /// for `config`; `config < CONFIGS.len()`.
        #[cfg(not(target_arch = "nvptx64"))]
        pub unsafe fn align_pair_emulated(
            config: usize,
            p: &GroupParams,
            table: *const u32,
            pair_index: usize,
        ) {
            let mut k = 0;
            $(
                if config == k {
                    return align_pair::<crate::vector::HostVector<$g>, $r, $g, $passes, $biased>(
                        p, table, pair_index,
                    );
                }
                k += 1;
            )*
            let _ = k;
            unreachable!("group configuration {config} of {}", CONFIGS.len());
        }
    };
}

// Registers (ptxas 13.0, capped as below, no spills; scripts/codegen.sh):
// up to g32_r18 at most 80 on sm_90 (three blocks an SM, as many as the
// shared memory holds) and at most 128 on sm_80; wider ones and the
// several-pass kernels at most 128 on sm_90, where g32_r32 fits only with
// the biased update. On sm_80 (no packed 16-bit instructions) wider than
// g32_r18 and the several-pass kernels from r14 run one block an SM.
group_configs!(
    (sw_group_i16x2_g4_r4, 4, 4, false, false, [2, 3]),
    (sw_group_i16x2_g4_r8, 4, 8, false, false, [2, 3]),
    (sw_group_i16x2_g4_r12, 4, 12, false, false, [2, 3]),
    (sw_group_i16x2_g4_r16, 4, 16, false, false, [2, 3]),
    (sw_group_i16x2_g8_r10, 8, 10, false, false, [2, 3]),
    (sw_group_i16x2_g8_r12, 8, 12, false, false, [2, 3]),
    (sw_group_i16x2_g8_r14, 8, 14, false, false, [2, 3]),
    (sw_group_i16x2_g8_r16, 8, 16, false, false, [2, 3]),
    (sw_group_i16x2_g16_r10, 16, 10, false, false, [2, 3]),
    (sw_group_i16x2_g16_r12, 16, 12, false, false, [2, 3]),
    (sw_group_i16x2_g16_r14, 16, 14, false, false, [2, 3]),
    (sw_group_i16x2_g16_r16, 16, 16, false, false, [2, 3]),
    (sw_group_i16x2_g16_r18, 16, 18, false, false, [2, 3]),
    (sw_group_i16x2_g32_r10, 32, 10, false, false, [2, 3]),
    (sw_group_i16x2_g32_r11, 32, 11, false, false, [2, 3]),
    (sw_group_i16x2_g32_r12, 32, 12, false, false, [2, 3]),
    (sw_group_i16x2_g32_r13, 32, 13, false, false, [2, 3]),
    (sw_group_i16x2_g32_r14, 32, 14, false, false, [2, 3]),
    (sw_group_i16x2_g32_r15, 32, 15, false, false, [2, 3]),
    (sw_group_i16x2_g32_r16, 32, 16, false, false, [2, 3]),
    (sw_group_i16x2_g32_r18, 32, 18, false, false, [2, 3]),
    (sw_group_i16x2_g32_r20, 32, 20, false, false, [1, 2]),
    (sw_group_i16x2_g32_r22, 32, 22, false, false, [1, 2]),
    (sw_group_i16x2_g32_r24, 32, 24, false, false, [1, 2]),
    (sw_group_i16x2_g32_r26, 32, 26, false, false, [1, 2]),
    (sw_group_i16x2_g32_r28, 32, 28, false, false, [1, 2]),
    (sw_group_i16x2_g32_r30, 32, 30, false, false, [1, 2]),
    (sw_group_i16x2_g32_r32, 32, 32, false, true, [1, 2]),
    (sw_group_i16x2_g32_r10_passes, 32, 10, true, true, [2, 2]),
    (sw_group_i16x2_g32_r12_passes, 32, 12, true, true, [2, 2]),
    (sw_group_i16x2_g32_r14_passes, 32, 14, true, true, [1, 2]),
    (sw_group_i16x2_g32_r16_passes, 32, 16, true, true, [1, 2]),
);

/// The widest sequence a group kernel aligns in one pass. Wider ones take
/// several passes of a configuration of 32 lanes.
pub const SINGLE_PASS_COLUMNS: usize = {
    let mut widest = 0;
    let mut k = 0;
    while k < CONFIGS.len() {
        if !CONFIGS[k].passes && CONFIGS[k].width() > widest {
            widest = CONFIGS[k].width();
        }
        k += 1;
    }
    widest
};

/// Which configuration of [`CONFIGS`] runs a chunk whose longest sequence
/// has `longest` residues: the narrowest single-pass one that covers it, or,
/// for longer ones, the several-pass one whose passes leave the fewest
/// columns empty (then the fewest passes).
#[cfg(not(target_arch = "nvptx64"))]
pub fn config_for(longest: usize) -> usize {
    let single = CONFIGS
        .iter()
        .position(|c| !c.passes && c.width() >= longest);
    if let Some(k) = single {
        return k;
    }
    let cost = |c: &Config| {
        let passes = longest.div_ceil(c.width());
        (passes * c.width(), passes)
    };
    (0..CONFIGS.len())
        .filter(|&k| CONFIGS[k].passes)
        .min_by_key(|&k| cost(&CONFIGS[k]))
        .unwrap_or(CONFIGS.len() - 1)
}

#[cfg(all(test, not(target_arch = "nvptx64")))]
mod tests {
    use super::*;

    /// Single-pass widths narrowest first, at most 32 apart up to 512
    /// residues and 64 up to 1024, the widest 1024; several passes of 32
    /// lanes, biased, beyond.
    #[test]
    fn configurations_step_finely_to_1024() {
        let widths: Vec<usize> = CONFIGS
            .iter()
            .filter(|c| !c.passes)
            .map(Config::width)
            .collect();
        assert!(widths.windows(2).all(|w| w[0] < w[1]), "{widths:?}");
        for w in widths.windows(2) {
            assert!(w[1] - w[0] <= if w[1] <= 512 { 32 } else { 64 }, "{w:?}");
        }
        assert_eq!(SINGLE_PASS_COLUMNS, 1024);
        for c in CONFIGS.iter().filter(|c| c.passes) {
            assert!(c.lanes == 32 && c.biased, "{}", c.symbol);
        }
        assert!(!CONFIGS[config_for(1024)].passes);
        assert!(CONFIGS[config_for(1025)].passes);
        assert_eq!(CONFIGS[config_for(1)].width(), 16);
    }

    /// The padded query and the border slots cover every step and the
    /// word loaded an iteration ahead.
    #[test]
    fn buffers_cover_every_step() {
        for m in [0, 1, 3, 4, 5, 100, 1001] {
            let steps = (m + 31usize).next_multiple_of(4);
            assert_eq!(query_words(m), steps / 4 + 1);
            assert_eq!(scratch_words(m), 2 * (steps + 1));
            assert!(4 * query_words(m) >= m);
        }
    }

    /// The biased table word adds `first` to each half.
    #[test]
    fn biased_words_add_first_to_each_half() {
        let gaps = GapAddends::new(Gaps::new(10, 1));
        let word = bits(i16x2::from_array([-4, 11])) as u32;
        assert_eq!(shared_word::<false>(word, gaps), word);
        let biased = pair(shared_word::<true>(word, gaps) as i32);
        assert_eq!(biased.to_array(), [7, 22]);
    }
}
