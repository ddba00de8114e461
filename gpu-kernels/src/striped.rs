//! `sw_striped_vl16`, `sw_striped_vl32`: local alignment scores, one
//! virtualized SIMD vector per database sequence, Farrar's striped algorithm.
//!
//! CUDASW++ 2.0's "basic vectorized" algorithm: Liu, Y., Schmidt, B. &
//! Maskell, D. L. (2010). *CUDASW++2.0: enhanced Smith-Waterman protein
//! database search on CUDA-enabled GPUs based on SIMT and virtualized SIMD
//! abstractions.* BMC Research Notes 3:93; itself Farrar's striped SIMD
//! algorithm mapped onto a warp: Farrar, M. (2007). *Striped Smith-Waterman
//! speeds database searches six times over other SIMD implementations.*
//! Bioinformatics 23(2):156–161. Per column: an inner loop over the `T`
//! segments that assumes F contributes nothing across segment boundaries,
//! then the lazy-F loop that corrects H until a vote says no lane's F can
//! still matter.
//!
//! Differs from the paper: vector shifts are warp shuffles
//! (`shfl.sync.up`) instead of a round trip through shared memory, the
//! predicate of the lazy-F loop is `vote.all.sync` restricted to the vector's
//! lanes and also drops chains that fell to `extend` or less, which cannot
//! raise a local H any more ([`crate::recurrence::dead_chain_bound`]), and
//! scores, H and E are i32 (the paper stored u16), so no score can
//! overflow. E is kept as E(i, j-1) and updated at the start of a cell, as in
//! `simt`, so the lazy-F loop only rewrites H.
//!
//! # Thread mapping
//! Persistent grid of `vectors` vectors of `VL` lanes (`VL = 32`: a warp;
//! `VL = 16`: half a warp, the halves independent). Vector `w` aligns
//! sequences `w, w + vectors, w + 2 * vectors, ...` of the chunk, so its
//! global-memory scratch is sized by the launch, not by the chunk. Under
//! emulation one call of [`align_vector`] with [`crate::vector::HostVector`]
//! computes a whole vector.
//!
//! # Memory layout
//! Striped profile ([`crate::layout`]): `i8`, the `VL` lanes of a segment
//! contiguous. Residues: the chunk layout of `simt` (every lane loads the
//! same word). Scratch: the column's (H, E) pairs of vector `w` at
//! `(w * T + s) * VL + v` — coalesced 8-byte accesses.
//!
//! # Complexity
//! O(T·|d|) vector steps for the inner loop plus the lazy-F iterations (at
//! most `VL * T` per column, usually a few); 8 bytes of scratch per query row
//! per vector, read and written once per column.
//!
//! # Padding
//! Query rows `m .. T * VL` score [`crate::layout::PAD_SCORE`]; they are the
//! last rows of the column, so no real cell depends on them, and a padded
//! cell's H is `max(0, diag - 128, E, F)` with E and F at most the H they
//! came from minus a gap: the maximum over the column is unchanged (as in
//! `simt`). Database residues past a sequence's length are never read.
//!
//! # Overflow
//! Real H are at most `127 * min(|q|, |d|)`; E and F start at
//! [`NEG_INF`] and are floored by `H - first >= -65536` after one step; the
//! lazy-F loop's F only falls by `extend` per step and is floored at
//! [`NEG_INF`], so nothing wraps.
//!
//! # Termination of the lazy-F loop
//! It carries only F chains (`F - extend` per row, no new ones from H), lane
//! 0 refilled with [`NEG_INF`] at every wrap, so after at most `VL` passes
//! over the `T` segments every chain has left the vector and the vote ends it.

use crate::layout::{StripedParams, code_byte};
use crate::recurrence::{NEG_INF, dead_chain_bound};
use crate::vector::Vector;

/// Loads the (H, E) pair of every lane at `slot` (`VL` pairs).
#[inline(always)]
unsafe fn load_pair<V: Vector>(slot: *const [i32; 2]) -> (V, V) {
    (
        V::from_lanes(|v| (*slot.add(v))[0]),
        V::from_lanes(|v| (*slot.add(v))[1]),
    )
}

/// Aligns the query with every sequence of the chunk assigned to vector `w`
/// and writes their scores.
///
/// This is the body of one vector of the GPU launch; under emulation the CPU
/// engine calls it once for every `w < p.vectors`.
///
/// # Safety
/// * `w < p.vectors`, `V::VL` is the `VL` the profile was striped for.
/// * `p.profile` holds `NUM_CODES * p.segments * VL` bytes; `p.scratch`
///   holds `p.vectors * p.segments * VL` pairs.
/// * `p.lengths` and `p.scores` hold `p.threads` entries; `p.residues` holds
///   `ceil(len / 4) * p.threads` words for every `len` in `p.lengths`.
/// * No other vector writes vector `w`'s scratch or its sequences' scores.
#[inline(always)]
pub unsafe fn align_vector<V: Vector>(p: &StripedParams, w: u32) {
    let segments = p.segments as usize;
    let scratch = p.scratch.add(w as usize * segments * V::VL);
    let mut t = w as usize;
    while t < p.threads as usize {
        let score = if segments == 0 {
            0
        } else {
            align_sequence::<V>(p, scratch, t)
        };
        V::once(|| *p.scores.add(t) = score);
        t += p.vectors as usize;
    }
}

/// The score of the query against sequence `t`, column state in `scratch`.
#[inline(always)]
unsafe fn align_sequence<V: Vector>(p: &StripedParams, scratch: *mut [i32; 2], t: usize) -> i32 {
    let vl = V::VL;
    let segments = p.segments as usize;
    let threads = p.threads as usize;
    let len = *p.lengths.add(t) as usize;
    let g = p.gaps;
    let extend = V::splat(g.extend);
    let neg_inf = V::splat(NEG_INF);

    // Column 0: H = 0 and no gap open yet.
    for s in 0..segments {
        let slot = scratch.add(s * vl);
        V::splat(0).for_lanes(|v, _| *slot.add(v) = [0, NEG_INF]);
    }
    let mut best = V::splat(0);

    for j in 0..len {
        let code = code_byte(*p.residues.add(j / 4 * threads + t), (j % 4) as u32) as usize;
        let scores = p.profile.add(code * segments * vl);

        // Inner loop: F only within a lane's run of T rows.
        let (h_last, _) = load_pair::<V>(scratch.add((segments - 1) * vl));
        // Row v*T - 1 of the previous column; row -1 is the boundary (H = 0).
        let mut diag = h_last.shift_up(0);
        let mut f = V::splat(NEG_INF);
        for s in 0..segments {
            let slot = scratch.add(s * vl);
            let (h_left, e_left) = load_pair::<V>(slot);
            let sub = V::from_lanes(|v| *scores.add(s * vl + v) as i32);
            let e = e_left.gap(h_left, g);
            let h = V::local_h(diag, sub, e, f);
            best = best.max(h);
            h.for_lanes(|v, h| (*slot.add(v))[0] = h);
            e.for_lanes(|v, e| (*slot.add(v))[1] = e);
            f = f.gap(h, g);
            diag = h_left;
        }

        // Lazy-F loop: carry F from lane v's last row into lane v + 1's first
        // row until, in every lane, F can no longer change an H: it neither
        // raises this H nor outlasts the F the inner loop already derived
        // from H, or it has fallen to `extend` or less (`dead_chain_bound`).
        f = f.shift_up(NEG_INF);
        let mut s = 0;
        loop {
            let slot = scratch.add(s * vl);
            let h = V::from_lanes(|v| (*slot.add(v))[0]);
            if f.all_le(h.map(|h| dead_chain_bound(h, g))) {
                break;
            }
            // `best` needs no update: a chain is below the H it was opened
            // from, which the inner loop saw.
            let h = h.max(f);
            h.for_lanes(|v, h| (*slot.add(v))[0] = h);
            // Carry only the chain: `H - first` within a lane is already in
            // the inner loop's F, and re-deriving it here could keep the
            // loop alive forever (extend 0). Floored so it cannot wrap.
            f = f.sub(extend).max(neg_inf);
            s += 1;
            if s == segments {
                s = 0;
                f = f.shift_up(NEG_INF);
            }
        }
    }
    best.reduce_max()
}

/// GPU entry point for `VL = 16` (half-warp vectors); see the module docs.
///
/// # Safety
/// The duties of [`align_vector`] for every vector; block size a multiple
/// of 32; `p.vectors` at most the launch's threads / 16.
#[cfg(target_arch = "nvptx64")]
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn sw_striped_vl16(p: StripedParams) {
    let w = crate::warp::global_thread_index() / 16;
    if w < p.vectors {
        align_vector::<crate::vector::WarpVector<16>>(&p, w);
    }
}

/// GPU entry point for `VL = 32` (warp vectors); see the module docs.
///
/// # Safety
/// The duties of [`align_vector`] for every vector; block size a multiple
/// of 32; `p.vectors` at most the launch's threads / 32.
#[cfg(target_arch = "nvptx64")]
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn sw_striped_vl32(p: StripedParams) {
    let w = crate::warp::global_thread_index() / 32;
    if w < p.vectors {
        align_vector::<crate::vector::WarpVector<32>>(&p, w);
    }
}
