//! `sw_parallelogram_shfl`, `sw_parallelogram_smem`: local alignment scores,
//! one warp per (query, database sequence) pair, sweeping anti-diagonals.
//!
//! NESW: Dohi, K., Benkrid, K., Ling, C., Hamada, T. & Shibata, Y. (2010).
//! *Highly efficient mapping of the Smith-Waterman algorithm on
//! CUDA-compatible GPUs.* ASAP 2010, pp. 29–36. The matrix is cut into
//! parallelograms 32 query rows high (lane `r` owns row `32b + r` of band
//! `b`); at step `s` lane `r` computes column `s - r`, so the 32 lanes sweep
//! one anti-diagonal per step (the paper's Figure 4). Each lane keeps its E
//! and the H to its left in registers and receives H, F and the database
//! residue from the lane above; lane 0 receives them from the previous band's
//! last row, which lane 31 wrote to global memory one band earlier. Steps
//! run in sub-parallelograms of 32 columns, fully unrolled; the final maximum
//! is a shuffle reduction without a barrier.
//!
//! The lane-to-lane hand-off comes in the paper's two flavours of this
//! generation of GPUs and today's, selected by [`Handoff`]:
//! * [`SharedMemory`] (`sw_parallelogram_smem`): the paper's Figure 5 (d)
//!   layout — one `int` per thread per exchanged value, consecutive lanes in
//!   consecutive banks (conflict-free), a warp barrier between write and
//!   read; two alternating slot sets so one barrier per exchange suffices;
//! * [`Shuffles`] (`sw_parallelogram_shfl`): `shfl.sync.up`, which did not
//!   exist on the paper's GPUs.
//!
//! Differs from the paper: scores are i32 (exact for any length); the
//! substitution score comes from the sequential query profile of
//! [`crate::layout`] instead of a texture; the band hand-off reuses the SIMT
//! kernel's row buffer layout.
//!
//! # Thread mapping
//! Warp `w = global_thread / 32` aligns the query with sequence `w` of the
//! chunk; blocks must be a multiple of 32 threads.
//!
//! # Memory layout
//! Parameters as [`SimtParams`]: packed residues interleaved by sequence
//! (each step all lanes read the same word: a broadcast), the sequential
//! profile (lane `r` reads row `32b + r` for its own residue), the row buffer
//! one (H, F) pair per column per sequence. `sw_parallelogram_smem` needs
//! [`SMEM_BYTES_PER_WARP`] bytes of dynamic shared memory per warp.
//!
//! # Complexity
//! `ceil(|q| / 32)` bands of `|d| + 31` steps (rounded up to 32); three
//! hand-offs and one profile load per step and lane.
//!
//! # Padding
//! Query rows past the end score [`crate::layout::PAD_SCORE`] (profile
//! padding); columns past the sequence's end read the pad code; cells left of
//! column 0 are held at H = 0, E = −∞ (the matrix border). As in `simt`, no
//! padded cell can exceed the best real cell.

use crate::layout::{PAD_CODE, SimtParams, code_byte, score_byte};
use crate::recurrence::{Gaps, NEG_INF};
use crate::vector::Vector;

/// Query rows per band: one per lane of a warp.
pub const BAND: usize = 32;

/// Dynamic shared memory `sw_parallelogram_smem` needs per warp: two slot
/// sets of one `i32` per lane.
pub const SMEM_BYTES_PER_WARP: usize = 2 * BAND * 4;

/// How a lane passes a value to the lane below it (row `r` to row `r + 1`).
pub trait Handoff<V: Vector> {
    /// Lane `v` gets lane `v - 1`'s `x`; lane 0 gets `fill`.
    fn pass_down(&mut self, x: V, fill: i32) -> V;
}

/// Hand-off by warp shuffles.
pub struct Shuffles;

impl<V: Vector> Handoff<V> for Shuffles {
    #[inline(always)]
    fn pass_down(&mut self, x: V, fill: i32) -> V {
        x.shift_up(fill)
    }
}

/// Hand-off through shared memory (NESW Figure 5 (d)): each lane writes its
/// value to its own `i32` slot, the warp synchronises, each lane reads the
/// slot of the lane above. Two slot sets alternate, so a slot is rewritten
/// only after the barrier that follows every lane's read of it.
pub struct SharedMemory {
    slots: *mut i32,
    parity: usize,
}

impl SharedMemory {
    /// A hand-off through `slots`, which must hold `2 * BAND` `i32` private
    /// to the calling warp (on the GPU: its part of the shared memory).
    ///
    /// # Safety
    /// `slots` is valid for reads and writes of `2 * BAND` `i32` and no other
    /// warp uses them.
    #[inline(always)]
    pub unsafe fn new(slots: *mut i32) -> SharedMemory {
        SharedMemory { slots, parity: 0 }
    }
}

impl<V: Vector> Handoff<V> for SharedMemory {
    #[inline(always)]
    fn pass_down(&mut self, x: V, fill: i32) -> V {
        let set = self.slots.wrapping_add(self.parity * BAND);
        self.parity ^= 1;
        // SAFETY: `new`'s contract: the warp owns `2 * BAND` slots.
        x.for_lanes(|lane, value| unsafe { *set.add(lane) = value });
        crate::warp::sync_warp();
        V::from_lanes(|lane| match lane {
            0 => fill,
            // SAFETY: as above; written before the barrier.
            _ => unsafe { *set.add(lane - 1) },
        })
    }
}

/// Aligns the query with sequence `t` of the chunk and writes its score.
///
/// This is the body of one warp (`V::VL == 32`); under emulation the CPU
/// engine calls it once per sequence with all 32 lanes in one vector.
///
/// # Safety
/// * `V::VL == BAND`; `t < p.threads`.
/// * The buffers of `p` as `simt::align_sequence` requires them.
/// * No other warp writes sequence `t`'s row-buffer slots or score.
#[inline(always)]
pub unsafe fn align_sequence<V: Vector, H: Handoff<V>>(p: &SimtParams, t: u32, handoff: &mut H) {
    let threads = p.threads as usize;
    let t = t as usize;
    let len = *p.lengths.add(t) as usize;
    let bands = p.query_words as usize * 4 / BAND;
    // Lane 31 reaches the last column `BAND - 1` steps after lane 0.
    let blocks = if len == 0 {
        0
    } else {
        (len + BAND - 1).div_ceil(BAND)
    };
    let g: Gaps = p.gaps;
    let mut best = V::splat(0);

    for band in 0..bands {
        let reads_row_above = band > 0;
        let writes_row_below = band + 1 < bands;
        let profile_band = p.profile.add(band * BAND / 4);
        // The state of every lane left of column 0: the matrix border.
        let mut h = V::splat(0);
        let mut e = V::splat(NEG_INF);
        let mut f = V::splat(NEG_INF);
        let mut residue = V::splat(PAD_CODE as i32);
        let mut h_up_previous = V::splat(0);

        for block in 0..blocks {
            // One sub-parallelogram: 32 steps, unrolled.
            for k in 0..BAND {
                let s = block * BAND + k;
                let (code, h_top, f_top) = if s < len {
                    let word = *p.residues.add(s / 4 * threads + t);
                    let [h_top, f_top] = if reads_row_above {
                        *p.row_buffer.add(s * threads + t)
                    } else {
                        [0, NEG_INF]
                    };
                    (code_byte(word, (s % 4) as u32) as i32, h_top, f_top)
                } else {
                    (PAD_CODE as i32, 0, NEG_INF)
                };
                residue = handoff.pass_down(residue, code);
                let h_up = handoff.pass_down(h, h_top);
                let f_up = handoff.pass_down(f, f_top);
                let diag = h_up_previous;
                h_up_previous = h_up;

                // Lane r is at column s - r: before column 0 it stays on the border.
                let on_matrix = |lane: usize| s >= lane;
                e = e
                    .gap(h, g)
                    .map_lanes(|r, x| if on_matrix(r) { x } else { NEG_INF });
                f = f_up.gap(h_up, g);
                let sub = residue.map_lanes(|r, code| {
                    let word = *profile_band.add(code as usize * p.query_words as usize + r / 4);
                    score_byte(word, (r % 4) as u32)
                });
                h = V::local_h(diag, sub, e, f).map_lanes(|r, x| if on_matrix(r) { x } else { 0 });
                best = best.max(h);

                if writes_row_below && s >= BAND - 1 && s - (BAND - 1) < len {
                    let slot = p.row_buffer.add((s - (BAND - 1)) * threads + t);
                    let f_last = f.lane_value(BAND - 1);
                    h.for_lanes(|lane, h_last| {
                        if lane == BAND - 1 {
                            *slot = [h_last, f_last];
                        }
                    });
                }
            }
        }
    }
    let best = best.reduce_max();
    V::once(|| *p.scores.add(t) = best);
}

crate::layout::chunk_kernel! {
    /// GPU entry point, shuffle hand-off: one warp per sequence of the chunk,
    /// arguments [`SimtParams`]' fields as for `sw_simt_i32`.
    ///
    /// # Safety
    /// [`align_sequence`]'s duties for every `t < threads`; blocks a multiple
    /// of 32 threads; at least `32 * threads` threads.
    fn sw_parallelogram_shfl(|p| {
        let t = crate::warp::global_thread_index() / BAND as u32;
        if t < p.threads {
            align_sequence::<crate::vector::WarpVector<32>, _>(&p, t, &mut Shuffles);
        }
    })
}

crate::layout::chunk_kernel! {
    /// GPU entry point, shared-memory hand-off (NESW Figure 5 (d)); arguments
    /// as `sw_parallelogram_shfl`.
    ///
    /// # Safety
    /// As `sw_parallelogram_shfl`, plus [`SMEM_BYTES_PER_WARP`] bytes of
    /// dynamic shared memory per warp of the block.
    fn sw_parallelogram_smem(|p| {
        let t = crate::warp::global_thread_index() / BAND as u32;
        if t < p.threads {
            let warp_in_block = core::arch::nvptx::_thread_idx_x() as usize / BAND;
            let shared = core::intrinsics::gpu::gpu_launch_sized_workgroup_mem::<i32>();
            let mut handoff = SharedMemory::new(shared.add(warp_in_block * 2 * BAND));
            align_sequence::<crate::vector::WarpVector<32>, _>(&p, t, &mut handoff);
        }
    })
}
