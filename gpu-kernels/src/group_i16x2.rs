//! `sw_group_i16x2_*`: local alignment scores, a group of lanes per pair of
//! database sequences, the pair's residues in the group's registers and the
//! query streamed through the group; 16-bit scores, two sequences per
//! register; out-of-range scores rescued in 32 bits by `sw_simt_i16x2_rescue`.
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
//! columns, and the chunk's longest sequence must have at most `W` residues
//! (the host picks the configuration per chunk). The query streams through
//! the group as a wavefront: at step `t` lane `l` computes query row `t - l`
//! across its `R` columns, then hands its last column's `H` and `E` and its
//! query letter to lane `l + 1` by one shuffle each. Lane 0 starts each row
//! on the matrix's left border (`H = 0`, no gap). `m + G - 1` steps for a
//! query of `m` residues.
//!
//! # Memory layout
//! The chunk in the SIMT layout (residues interleaved by sequence, 4 per
//! word; [`crate::layout`]), read once per pair into registers as pair codes
//! `low · NUM_CODES + high`. Substitution scores come from the pair table in
//! shared memory: for query letter `a` and pair code `c`, entry
//! `a · PAIR_CODES + c` is `(s(a, low), s(a, high))` as `i16x2` (built by the
//! host from the matrix, [`TABLE_WORDS`] words, copied in by every block):
//! one shared-memory load per two cells.
//!
//! # Exactness
//! As [`crate::simt_i16x2`]: every H is at least 0 and rises by at most 127
//! per cell, E and F start at [`NEG_INF_I16`] and stay in `[-first, H]` once
//! opened, so with [`gaps_fit`] no 16-bit value wraps while every H is at
//! most [`SCORE_LIMIT`]; the first H above it is exact and the running
//! maximum keeps it, and the rescue realigns those pairs in 32 bits.
//!
//! # Padding
//! Columns past a sequence's end are the pad code, and the rows a lane
//! computes before row 0 and after row `m - 1` (the wavefront's fill and
//! drain) use the pad letter; the pad scores [`crate::layout::PAD_SCORE`]
//! against everything. Before row 0 a lane's state stays at `H = 0` and
//! `F = -first`, which is what row 0 computes from the border anyway; every
//! other padded cell's H is `max(0, diag - 128, E, F)` with E and F falling
//! from the H they came from, so no padded cell exceeds the best real cell.

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
    /// residue `4w + k`), `ceil(query_len / 4)` words.
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
}

// SAFETY: plain data with a `#[repr(C)]` layout the PTX entry points share.
#[cfg(feature = "cudarc")]
unsafe impl cudarc::driver::DeviceRepr for GroupParams {}

/// An `i16x2` kept in an `i32` lane of a [`Vector`] (low half first, on
/// the GPU and on the little-endian hosts alike).
#[inline(always)]
fn pair(bits: i32) -> i16x2 {
    // SAFETY: both types are 32 bits of plain data.
    unsafe { core::mem::transmute::<i32, i16x2>(bits) }
}

/// The bits of an `i16x2`, for a lane of a [`Vector`].
#[inline(always)]
fn bits(x: i16x2) -> i32 {
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
}

impl GapAddends {
    /// The addends of `gaps`, which must [`gaps_fit`].
    pub fn new(gaps: Gaps) -> Self {
        GapAddends {
            minus_first: bits(i16x2::splat(-gaps.first as i16)) as u32,
            minus_extend: bits(i16x2::splat(-gaps.extend as i16)) as u32,
        }
    }
}

/// The addends as `i16x2`.
#[derive(Clone, Copy)]
struct PackedGaps {
    minus_first: i16x2,
    minus_extend: i16x2,
}

impl PackedGaps {
    #[inline(always)]
    fn new(g: GapAddends) -> Self {
        PackedGaps {
            minus_first: pair(g.minus_first as i32),
            minus_extend: pair(g.minus_extend as i32),
        }
    }
}

/// The state of one lane: its `R` columns of the pair.
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
    #[inline(always)]
    fn new() -> Self {
        Lane {
            codes: [0; R],
            h: [i16x2::splat(0); R],
            f: [i16x2::splat(NEG_INF_I16); R],
            best: i16x2::splat(0),
            left_h_above: i16x2::splat(0),
        }
    }

    /// Computes one row across the lane's columns: `table_row` is the pair
    /// table's row of the row's query letter, `left_h` and `left_e` the H
    /// of the column left of the lane's first in this row and the E that
    /// enters the lane's first column. Returns the H of the lane's last
    /// column and the E that enters the next lane's first.
    ///
    /// Each cell's E (from the left) and F (from above) are ready before
    /// its H, so H is one add and one three-way max with the zero floor;
    /// then `H - first` is made once and feeds both the E of the next
    /// column and the F of the next row (CUDASW++4's order): per cell, a
    /// table load, its address, four DPX operations and half a running
    /// maximum (two cells' H per three-way max).
    ///
    /// # Safety
    /// `table_row` points at [`PAIR_CODES`] readable words.
    #[inline(always)]
    unsafe fn row(
        &mut self,
        table_row: *const u32,
        left_h: i16x2,
        left_e: i16x2,
        g: PackedGaps,
    ) -> (i16x2, i16x2) {
        let mut diag = self.left_h_above;
        self.left_h_above = left_h;
        let mut e = left_e;
        let zero = i16x2::splat(0);
        let mut k = 0;
        while k < R {
            // Two columns per pass: one three-way max keeps the best of both.
            let mut pair_h = [zero; 2];
            for (c, h_out) in pair_h.iter_mut().enumerate() {
                let col = k + c;
                let sub = pair(*table_row.add(self.codes[col] as usize) as i32);
                let h = (diag + sub)
                    .max_score(e)
                    .max_score(self.f[col].max_score(zero));
                let opened = h + g.minus_first;
                e = (e + g.minus_extend).max_score(opened);
                self.f[col] = (self.f[col] + g.minus_extend).max_score(opened);
                diag = self.h[col];
                self.h[col] = h;
                *h_out = h;
            }
            self.best = self.best.max_score(pair_h[0].max_score(pair_h[1]));
            k += 2;
        }
        (self.h[R - 1], e)
    }
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

/// Aligns the query with sequences `2 * pair_index` and `2 * pair_index + 1`
/// of the chunk on one group of `V::VL` lanes of `R` columns each, and writes
/// their scores (above [`SCORE_LIMIT`]: out of range, to be rescued).
///
/// `N` is the number of lanes the calling code computes: `V::VL` on the host
/// (one call computes the whole group), 1 on the GPU (each thread its own
/// lane; [`Vector::from_lanes`] and [`Vector::for_lanes`] give it its lane).
///
/// A pair past the chunk's end (`2 * pair_index >= p.threads`) aligns
/// nothing and writes nothing, but runs every step with its warp.
///
/// # Safety
/// * `p.gaps` is [`GapAddends::new`] of gaps that [`gaps_fit`].
/// * Every sequence of the chunk has at most `V::VL * R` residues.
/// * `table` points at the pair table ([`TABLE_WORDS`] words), the buffers
///   of `p` are as [`GroupParams`] says.
/// * No other group writes this pair's scores.
#[inline(always)]
pub unsafe fn align_pair<V: Vector, const R: usize, const N: usize>(
    p: &GroupParams,
    table: *const u32,
    pair_index: usize,
) {
    const { assert!(R % 2 == 0, "columns are computed two at a time") };
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
    let lanes = V::VL;
    let mut state: [Lane<R>; N] = core::array::from_fn(|_| Lane::new());
    // The pair's residues, read once.
    V::from_lanes(|l| {
        let lane = &mut state[l % N];
        for k in 0..R {
            let column = l * R + k;
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

    let m = p.query_len;
    let neg_inf = bits(i16x2::splat(NEG_INF_I16));
    let mut letter = V::splat(PAD_CODE as i32);
    let mut left_h = V::splat(0);
    let mut left_e = V::splat(neg_inf);
    // One step: lane 0 takes the next query letter (`next`), the others
    // their left neighbour's from the step before; every lane computes its
    // row and hands its last column's H and the E leaving it on.
    let mut step = |next: u32| {
        letter = letter.shift_up(next as i32);
        let mut in_h = [0i32; N];
        let mut in_e = [0i32; N];
        left_h.for_lanes(|l, x| in_h[l % N] = x);
        left_e.for_lanes(|l, x| in_e[l % N] = x);
        let mut out_h = [0i32; N];
        let mut out_e = [0i32; N];
        letter.for_lanes(|l, a| {
            let (h, e) = state[l % N].row(
                table.add(a as usize * PAIR_CODES),
                pair(in_h[l % N]),
                pair(in_e[l % N]),
                g,
            );
            out_h[l % N] = bits(h);
            out_e[l % N] = bits(e);
        });
        left_h = V::from_lanes(|l| out_h[l % N]).shift_up(0);
        left_e = V::from_lanes(|l| out_e[l % N]).shift_up(neg_inf);
    };
    // Four steps an iteration: one query word (four letters, the host pads
    // the last with the pad letter) and the columns' registers back where
    // they started (one step shifts each H into the next diagonal). The
    // `m + G - 1` steps round up to a multiple of four; the extra steps
    // are drain rows, which change nothing.
    let pad_word = u32::from_le_bytes([PAD_CODE; 4]);
    let steps = m + lanes as u32 - 1;
    let mut t = 0u32;
    while t < steps {
        let word = if t < m { *p.query.add((t / 4) as usize) } else { pad_word };
        step(word & 0xff);
        step((word >> 8) & 0xff);
        step((word >> 16) & 0xff);
        step(word >> 24);
        t += 4;
    }

    // The group's best, per half: the lanes' maxima folded over the group.
    let mut best = i16x2::splat(0);
    let bests = V::from_lanes(|l| bits(state[l % N].best));
    for l in 0..lanes {
        best = best.max_score(pair(bests.lane_value(l)));
    }
    V::once(|| {
        if !has_low {
            return;
        }
        *p.scores.add(low) = i32::from(best[0]);
        if has_high {
            *p.scores.add(low + 1) = i32::from(best[1]);
        }
    });
}

/// Copies the pair table into the block's shared memory (every thread of the
/// block takes part, then the block synchronises).
///
/// # Safety
/// `shared` holds [`TABLE_WORDS`] words; every thread of the block calls it.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
unsafe fn load_table(table: *const u32, shared: *mut u32) {
    use core::arch::nvptx::{_block_dim_x, _syncthreads, _thread_idx_x};
    let mut k = _thread_idx_x() as usize;
    while k < TABLE_WORDS {
        *shared.add(k) = *table.add(k);
        k += _block_dim_x() as usize;
    }
    _syncthreads();
}

/// One entry point per configuration (group lanes `G`, columns per lane
/// `R`): `sw_group_i16x2_g{G}_r{R}`.
macro_rules! group_kernel {
    ($name:ident, $g:literal, $r:literal) => {
        /// GPU entry point: `G` lanes per pair of sequences, `R` columns per
        /// lane (module docs).
        ///
        /// # Safety
        /// [`align_pair`]'s duties for every pair; blocks a multiple of 32
        /// threads; [`SHARED_BYTES`] of dynamic shared memory.
        #[cfg(target_arch = "nvptx64")]
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(p: GroupParams) {
            let shared = core::intrinsics::gpu::gpu_launch_sized_workgroup_mem::<u32>();
            load_table(p.table, shared);
            // Every group of the warp runs (a group past the chunk's end
            // aligns nothing and writes nothing), so the shuffles name the
            // whole warp.
            let pair_index = (crate::warp::global_thread_index() / $g) as usize;
            align_pair::<crate::vector::WarpVector<$g, true>, $r, 1>(&p, shared, pair_index);
        }
    };
}

group_kernel!(sw_group_i16x2_g4_r16, 4, 16);
group_kernel!(sw_group_i16x2_g8_r16, 8, 16);
group_kernel!(sw_group_i16x2_g16_r16, 16, 16);
group_kernel!(sw_group_i16x2_g32_r16, 32, 16);
group_kernel!(sw_group_i16x2_g32_r32, 32, 32);

/// The compiled configurations: (entry point, lanes per group, columns per
/// lane), narrowest first. A chunk runs the first whose `G · R` covers its
/// longest sequence.
pub const CONFIGS: [(&str, usize, usize); 5] = [
    ("sw_group_i16x2_g4_r16", 4, 16),
    ("sw_group_i16x2_g8_r16", 8, 16),
    ("sw_group_i16x2_g16_r16", 16, 16),
    ("sw_group_i16x2_g32_r16", 32, 16),
    ("sw_group_i16x2_g32_r32", 32, 32),
];

/// The widest sequence a group kernel aligns: the last configuration's `G · R`.
pub const MAX_COLUMNS: usize = 32 * 32;
