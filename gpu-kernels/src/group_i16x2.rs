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
//! columns. The query streams through the group as a wavefront: at step `t`
//! lane `l` computes query row `t - l` across its `R` columns, then hands
//! its last column's `H` and the `E` leaving it and its query letter to lane
//! `l + 1` by one shuffle each. Lane 0 starts each row on the matrix's left
//! border (`H = 0`, no gap). `m + G - 1` steps a pass for a query of `m`
//! residues.
//!
//! The single-pass configurations align sequences of at most `W` residues
//! (the host picks one per chunk, the narrowest that covers it). Longer
//! ones run in the several-pass entry points (`_passes`, 32 lanes, a group
//! per warp): pass `k` covers columns `kW .. (k+1)W`; the last lane writes
//! the `H` and `E` leaving each row to the pair's border scratch in global
//! memory, and lane 0 of the next pass reads them as its left border (CUDASW++
//! 4.0 does the same with its temporary column). A row is written at step
//! `row + G - 1` and read in the next pass, after a warp barrier.

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
    /// The launch's pairs are `first_pair ..`: the group of global index
    /// `p` aligns pair `first_pair + p` (a chunk of long sequences runs in
    /// several launches, so that the border scratch stays bounded).
    pub first_pair: u32,
    /// The border between passes (module docs): [`scratch_words`]`(query_len)`
    /// words for each pair of the launch, `pair - first_pair` its slot; null
    /// when no pair of the launch needs a second pass.
    pub scratch: *mut u32,
}

/// Words of border scratch a pair needs for a query of `query_len`
/// residues: H and E (two `i16x2`) for each row.
pub const fn scratch_words(query_len: usize) -> usize {
    2 * query_len
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
/// With `PASSES` (32 lanes only) a pair wider than `V::VL * R` runs in
/// several passes, its borders in `p.scratch` (module docs).
///
/// A pair past the chunk's end (`2 * pair_index >= p.threads`) aligns
/// nothing and writes nothing; in a group narrower than a warp it still runs
/// every step with its warp.
///
/// # Safety
/// * `p.gaps` is [`GapAddends::new`] of gaps that [`gaps_fit`].
/// * Without `PASSES`, every sequence of the chunk has at most `V::VL * R`
///   residues; with it, `V::VL` is 32 and `p.scratch` holds
///   [`scratch_words`]`(p.query_len)` words for this pair's slot.
/// * `table` points at the pair table ([`TABLE_WORDS`] words), the buffers
///   of `p` are as [`GroupParams`] says.
/// * No other group writes this pair's scores.
#[inline(always)]
pub unsafe fn align_pair<V: Vector, const R: usize, const N: usize, const PASSES: bool>(
    p: &GroupParams,
    table: *const u32,
    pair_index: usize,
) {
    const { assert!(R.is_multiple_of(2), "columns are computed two at a time") };
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
    let scratch = if passes > 1 {
        p.scratch
            .add((pair_index - p.first_pair as usize) * scratch_words(m as usize))
    } else {
        core::ptr::null_mut()
    };
    let neg_inf = bits(i16x2::splat(NEG_INF_I16));
    let mut state: [Lane<R>; N] = core::array::from_fn(|_| Lane::new());
    let mut best = i16x2::splat(0);
    for pass in 0..passes {
        let first_column = pass * width;
        // This pass's columns of the pair, read once; fresh state left of
        // them (the top border: H = 0, no gap from above).
        V::from_lanes(|l| {
            let lane = &mut state[l % N];
            let kept = lane.best;
            *lane = Lane::new();
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
        // What lane 0 takes at the left of row `row`: the matrix's left
        // border in the first pass (H = 0, no gap), else the H and E the
        // last lane handed out of that row in the pass before.
        // (An empty query has no rows, and its scratch no words.)
        let reads_border = PASSES && pass > 0 && m > 0;
        let left_of = |row: u32| -> (i32, i32) {
            if reads_border {
                // Loaded whatever the row (a valid one), chosen after, and
                // volatile: else LLVM turns the choice between the loads
                // and the constants below into a load through a chosen
                // pointer, with the constants in local memory.
                let at = scratch.add(2 * row.min(m - 1) as usize);
                let h = core::ptr::read_volatile(at) as i32;
                let e = core::ptr::read_volatile(at.add(1)) as i32;
                if row < m { (h, e) } else { (0, neg_inf) }
            } else {
                (0, neg_inf)
            }
        };
        let writes_border = PASSES && pass + 1 < passes;
        let mut letter = V::splat(PAD_CODE as i32);
        let (h0, e0) = left_of(0);
        let mut left_h = V::from_lanes(|l| if l == 0 { h0 } else { 0 });
        let mut left_e = V::from_lanes(|l| if l == 0 { e0 } else { neg_inf });
        // Step `t`: lane 0 takes query letter `next` (row `t`), the others
        // their left neighbour's from the step before; every lane computes
        // its row and hands its last column's H and the E leaving it on;
        // the last lane's (row `t - G + 1`) go to the scratch for the next
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
                let (h, e) = state[l % N].row(
                    table.add(a as usize * PAIR_CODES),
                    pair(in_h[l % N]),
                    pair(in_e[l % N]),
                    g,
                );
                out_h[l % N] = bits(h);
                out_e[l % N] = bits(e);
            });
            let out_row = t.wrapping_sub(lanes as u32 - 1);
            if writes_border && out_row < m {
                let at = scratch.add(2 * out_row as usize);
                V::from_lanes(|l| out_h[l % N]).for_lanes(|l, h| {
                    if l == lanes - 1 {
                        *at = h as u32;
                        *at.add(1) = out_e[l % N] as u32;
                    }
                });
            }
            left_h = V::from_lanes(|l| out_h[l % N]).shift_up(h_next);
            left_e = V::from_lanes(|l| out_e[l % N]).shift_up(e_next);
        };
        // Four steps an iteration: one query word (four letters, the host
        // pads the last with the pad letter) and the columns' registers
        // back where they started (one step shifts each H into the next
        // diagonal). The `m + G - 1` steps round up to a multiple of four;
        // the extra steps are drain rows, which change nothing.
        let pad_word = u32::from_le_bytes([PAD_CODE; 4]);
        let steps = m + lanes as u32 - 1;
        let mut t = 0u32;
        while t < steps {
            let word = if t < m {
                *p.query.add((t / 4) as usize)
            } else {
                pad_word
            };
            // The four rows' left borders, loaded together before they are
            // needed.
            let border = [
                left_of(t + 1),
                left_of(t + 2),
                left_of(t + 3),
                left_of(t + 4),
            ];
            step(t, word & 0xff, border[0]);
            step(t + 1, (word >> 8) & 0xff, border[1]);
            step(t + 2, (word >> 16) & 0xff, border[2]);
            step(t + 3, word >> 24, border[3]);
            t += 4;
        }
        // The next pass reads what the last lane wrote.
        crate::warp::sync_warp();
    }

    // The group's best, per half: the lanes' maxima folded over the group.
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
}

impl Config {
    /// Columns of one pass, `G · R`.
    pub const fn width(&self) -> usize {
        self.lanes * self.columns
    }
}

/// The configurations, each `(entry point, lanes per group G, columns per
/// lane R, several passes)`: one PTX entry point each, [`CONFIGS`], and the
/// host's emulated run ([`align_pair_emulated`]), from one list.
macro_rules! group_configs {
    ($(($name:ident, $g:literal, $r:literal, $passes:literal)),* $(,)?) => {
        $(
            /// GPU entry point: `G` lanes per pair of sequences, `R`
            /// columns per lane, several passes or one (module docs).
            ///
            /// # Safety
            /// [`align_pair`]'s duties for every pair; blocks a multiple of
            /// 32 threads; [`SHARED_BYTES`] of dynamic shared memory.
            #[cfg(target_arch = "nvptx64")]
            #[unsafe(no_mangle)]
            pub unsafe extern "ptx-kernel" fn $name(p: GroupParams) {
                let shared = core::intrinsics::gpu::gpu_launch_sized_workgroup_mem::<u32>();
                load_table(p.table, shared);
                // Every group of the warp runs (a group past the chunk's
                // end aligns nothing and writes nothing), so the shuffles
                // name the whole warp.
                let pair_index = (p.first_pair + crate::warp::global_thread_index() / $g) as usize;
                align_pair::<crate::vector::WarpVector<$g, true>, $r, 1, $passes>(&p, shared, pair_index);
            }
        )*

        /// The compiled configurations: the single-pass ones narrowest
        /// first (16–768 residues), their widths stepping by an eighth or so (so that a
        /// chunk's sequences leave few of its configuration's columns
        /// empty; the host splits chunks at these widths), then the
        /// several-pass ones. [`config_for`] picks one per chunk.
        pub const CONFIGS: [Config; [$($g),*].len()] = [$(Config {
            symbol: stringify!($name),
            lanes: $g,
            columns: $r,
            passes: $passes,
        }),*];

        /// [`align_pair`] on the host for configuration `config` (an index
        /// of [`CONFIGS`]), the whole group in one call.
        ///
        /// # Safety
        /// [`align_pair`]'s, with `table == p.table`; `config < CONFIGS.len()`.
        #[cfg(not(target_arch = "nvptx64"))]
        pub unsafe fn align_pair_emulated(config: usize, p: &GroupParams, pair_index: usize) {
            let mut k = 0;
            $(
                if config == k {
                    return align_pair::<crate::vector::HostVector<$g>, $r, $g, $passes>(
                        p, p.table, pair_index,
                    );
                }
                k += 1;
            )*
            let _ = k;
            unreachable!("group configuration {config} of {}", CONFIGS.len());
        }
    };
}

group_configs!(
    (sw_group_i16x2_g4_r4, 4, 4, false),
    (sw_group_i16x2_g4_r8, 4, 8, false),
    (sw_group_i16x2_g4_r12, 4, 12, false),
    (sw_group_i16x2_g4_r16, 4, 16, false),
    (sw_group_i16x2_g8_r10, 8, 10, false),
    (sw_group_i16x2_g8_r12, 8, 12, false),
    (sw_group_i16x2_g8_r14, 8, 14, false),
    (sw_group_i16x2_g8_r16, 8, 16, false),
    (sw_group_i16x2_g16_r10, 16, 10, false),
    (sw_group_i16x2_g16_r12, 16, 12, false),
    (sw_group_i16x2_g16_r14, 16, 14, false),
    (sw_group_i16x2_g16_r16, 16, 16, false),
    (sw_group_i16x2_g32_r10, 32, 10, false),
    (sw_group_i16x2_g32_r12, 32, 12, false),
    (sw_group_i16x2_g32_r14, 32, 14, false),
    (sw_group_i16x2_g32_r16, 32, 16, false),
    (sw_group_i16x2_g32_r20, 32, 20, false),
    (sw_group_i16x2_g32_r24, 32, 24, false),
    (sw_group_i16x2_g32_r10_passes, 32, 10, true),
    (sw_group_i16x2_g32_r12_passes, 32, 12, true),
    (sw_group_i16x2_g32_r14_passes, 32, 14, true),
    (sw_group_i16x2_g32_r16_passes, 32, 16, true),
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
