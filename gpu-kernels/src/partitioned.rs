//! `sw_partitioned_vl16_pl256`, `sw_partitioned_vl32_pl512`: local alignment
//! scores, one virtualized SIMD vector per database sequence, the query cut
//! into partitions whose striped column lives in registers.
//!
//! CUDASW++ 2.0's "partitioned vectorized" algorithm: Liu, Y., Schmidt, B. &
//! Maskell, D. L. (2010). *CUDASW++2.0: enhanced Smith-Waterman protein
//! database search on CUDA-enabled GPUs based on SIMT and virtualized SIMD
//! abstractions.* BMC Research Notes 3:93 (Figure 3, Theorem 1). Each
//! partition of `PL` query rows is aligned with Farrar's striped algorithm
//! (Farrar, M. (2007). *Striped Smith-Waterman speeds database searches six
//! times over other SIMD implementations.* Bioinformatics 23(2):156–161) with
//! its `SEGS = PL / VL` segment vectors of H and E in registers, inner and
//! lazy-F loops fully unrolled, and the packed striped profile (four `i8` per
//! `u32` in the order a lane reads them).
//!
//! Differs from the paper: vector shifts and the final reduction are warp
//! shuffles instead of shared memory, the lazy-F predicate is
//! `vote.all.sync` restricted to the vector's lanes and also drops chains
//! that fell to `extend` or less ([`crate::recurrence::dead_chain_bound`]),
//! and all scores are i32.
//! The paper's default is `PL = 256`, `VL = 16`; `PL = 512`, `VL = 32` is the
//! other instantiation. Both have `SEGS = 16`: the const generic is the
//! segment count, `PL = SEGS * VL` (stable Rust has no `[V; PL / VL]`).
//!
//! # Theorem 1 (why a partition may hand down a possibly stale F)
//! After a column's lazy-F loop every H is correct, but F need not be: the
//! loop drops a chain as soon as, in every lane, it can no longer change an H
//! ([`crate::recurrence::dead_chain_bound`]), so the F further down a chain
//! it abandoned is never recomputed. The next partition needs `F_in =
//! max(F_last - extend, H_last - first)` for its first row, `F_last` and
//! `H_last` of this partition's last row. Either the loop reached the last
//! row with a live chain, and then it folded that F into `F_last` (case 1 of
//! the proof: F there is correct), or the chain was dropped earlier. Dropped
//! by Farrar's condition, it falls by `extend` per row and stays at most the
//! inner loop's F, which falls no faster, so `F_last - extend <= H_last -
//! first` for the missing part (case 2) and `F_in = H_last - first` does not
//! depend on it; dropped because it fell to `extend` or less, its part of
//! `F_in` is at most 0, and an F of at most 0 raises no H of the next
//! partition (local H is never negative) nor any F below it. Hence `F_in`,
//! computed from the final `H_last` and the F the kernel holds, gives every
//! H of the next partition exactly; the kernel stores it (the paper's "F of
//! the first cell of the next partition") with `H_last` per column. The
//! tests fail if the lazy loop's contribution to `F_last` is dropped.
//!
//! # Thread mapping
//! One vector of `VL` lanes per sequence of the chunk (`VL = 32`: a warp;
//! `VL = 16`: half a warp, the halves independent): vector
//! `global_thread / VL`. Partitions run in order, each sweeping all columns.
//!
//! # Memory layout
//! Packed partitioned profile ([`crate::layout`]): per column a lane loads
//! `SEGS / 4` words, the lanes' words adjacent. Residues: the chunk layout of
//! `simt`. Row buffer: one (H, F) pair per residue per sequence, interleaved
//! by sequence as in `simt` (written by lane 0, read by lane 0).
//!
//! # Complexity
//! O(`P * SEGS * |d|`) vector steps plus the lazy-F iterations; `2 * SEGS`
//! i32 registers of column state per lane; 8 bytes of row buffer traffic per
//! column per partition boundary.
//!
//! # Padding
//! Rows `m .. P * PL` of the last partition score
//! [`crate::layout::PAD_SCORE`]; they are the last rows, and a padded cell
//! never exceeds the best real cell (see `striped`'s `# Padding`).
//!
//! # Overflow
//! As `striped`: i32 H at most `127 * min(|q|, |d|)`, E and F floored at
//! `H - first` after one step, the lazy-F chains at [`NEG_INF`]; the lazy-F
//! loop ends for the same reason.

use crate::layout::{PartitionedParams, code_byte, score_byte};
use crate::recurrence::{NEG_INF, dead_chain_bound};
use crate::vector::Vector;

/// Aligns the query with sequence `t` of the chunk and writes its score.
///
/// This is the body of one vector of the GPU launch; under emulation the CPU
/// engine calls it once for every `t`.
///
/// # Safety
/// * `t < p.threads`; the profile was packed for `VL = V::VL` and
///   `PL = SEGS * V::VL`; `SEGS` is a multiple of 4.
/// * `p.profile` holds `NUM_CODES * p.partitions * PL / 4` words.
/// * `p.lengths` and `p.scores` hold `p.threads` entries; `p.residues` holds
///   `ceil(len / 4) * p.threads` words and `p.row_buffer` `len * p.threads`
///   pairs for every `len` in `p.lengths`.
/// * No other vector writes sequence `t`'s row-buffer slots or score.
#[inline(always)]
pub unsafe fn align_sequence<V: Vector, const SEGS: usize>(p: &PartitionedParams, t: u32) {
    let vl = V::VL;
    let threads = p.threads as usize;
    let t = t as usize;
    let len = *p.lengths.add(t) as usize;
    let partitions = p.partitions as usize;
    let g = p.gaps;
    let extend = V::splat(g.extend);
    let neg_inf = V::splat(NEG_INF);
    let words = SEGS / 4;
    let mut best = V::splat(0);

    for part in 0..partitions {
        let reads_row_above = part > 0;
        let writes_row_below = part + 1 < partitions;
        // Column 0: H = 0 and no gap open yet.
        let mut h = [V::splat(0); SEGS];
        let mut e = [V::splat(NEG_INF); SEGS];
        // H of the row above the partition, one column to the left.
        let mut h_above_left = 0;

        for j in 0..len {
            let code = code_byte(*p.residues.add(j / 4 * threads + t), (j % 4) as u32) as usize;
            let scores = p.profile.add(((code * partitions + part) * words) * vl);
            let row_slot = p.row_buffer.add(j * threads + t);
            let [h_above, f_above] = if reads_row_above {
                *row_slot
            } else {
                [0, NEG_INF]
            };

            // Inner loop: lane 0 starts from the row above the partition;
            // F crosses lane boundaries only in the lazy-F loop.
            let mut diag = h[SEGS - 1].shift_up(h_above_left);
            let mut f = V::splat(NEG_INF).shift_up(f_above);
            let mut f_last = f;
            for k in 0..words {
                let packed = V::from_lanes(|v| *scores.add(k * vl + v) as i32);
                for b in 0..4 {
                    let s = 4 * k + b;
                    let sub = packed.map(|w| score_byte(w as u32, b as u32));
                    e[s] = e[s].gap(h[s], g);
                    if s == SEGS - 1 {
                        f_last = f;
                    }
                    let cell = V::local_h(diag, sub, e[s], f);
                    diag = h[s];
                    h[s] = cell;
                    best = best.max(cell);
                    f = f.gap(cell, g);
                }
            }

            // Lazy-F loop (see `striped`), unrolled over the segments so the
            // column stays in registers; `f_last` collects the F it brings to
            // the partition's last row (Theorem 1, case 1).
            f = f.shift_up(NEG_INF);
            'lazy: loop {
                for s in 0..SEGS {
                    if f.all_le(h[s].map(|h| dead_chain_bound(h, g))) {
                        break 'lazy;
                    }
                    if s == SEGS - 1 {
                        f_last = f_last.max(f);
                    }
                    // `best` needs no update: a chain is below the H it
                    // was opened from, which the inner loop saw.
                    h[s] = h[s].max(f);
                    // Only the chain goes on (see `striped`'s termination).
                    f = f.sub(extend).max(neg_inf);
                }
                f = f.shift_up(NEG_INF);
            }

            h_above_left = h_above;
            if writes_row_below {
                let h_last = h[SEGS - 1].lane_value(vl - 1);
                let f_in = f_last.gap(h[SEGS - 1], g).lane_value(vl - 1);
                V::once(|| *row_slot = [h_last, f_in]);
            }
        }
    }
    let score = best.reduce_max();
    V::once(|| *p.scores.add(t) = score);
}

/// GPU entry point, `VL = 16`, `PL = 256` (the paper's default).
///
/// # Safety
/// The duties of [`align_sequence`] for every `t < p.threads`; block size a
/// multiple of 32.
#[cfg(target_arch = "nvptx64")]
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn sw_partitioned_vl16_pl256(p: PartitionedParams) {
    let t = crate::warp::global_thread_index() / 16;
    if t < p.threads {
        align_sequence::<crate::vector::WarpVector<16>, 16>(&p, t);
    }
}

/// GPU entry point, `VL = 32`, `PL = 512`.
///
/// # Safety
/// The duties of [`align_sequence`] for every `t < p.threads`; block size a
/// multiple of 32.
#[cfg(target_arch = "nvptx64")]
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn sw_partitioned_vl32_pl512(p: PartitionedParams) {
    let t = crate::warp::global_thread_index() / 32;
    if t < p.threads {
        align_sequence::<crate::vector::WarpVector<32>, 16>(&p, t);
    }
}
