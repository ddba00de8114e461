//! The virtualized SIMD vector of CUDASW++ 2.0: a group of `VL` GPU lanes
//! (a warp or half a warp) programmed as one SIMD register of `VL` i32.
//!
//! Liu, Y., Schmidt, B. & Maskell, D. L. (2010). *CUDASW++2.0: enhanced
//! Smith-Waterman protein database search on CUDA-enabled GPUs based on SIMT
//! and virtualized SIMD abstractions.* BMC Research Notes 3:93, "Virtualized
//! SIMD vector programming model" (warp-level virtualization, `vtid`).
//!
//! The vector kernels ([`crate::striped`], [`crate::partitioned`]) are written
//! once against the [`Vector`] trait:
//! * on `nvptx64`, `WarpVector` is one `i32` register per thread; lane
//!   shifts, broadcasts and reductions are warp shuffles
//!   (`shfl.sync.{up,idx,bfly}`, where the paper went through shared memory)
//!   and the predicate of the lazy-F loop is `vote.all.sync`, each restricted
//!   to the `VL`-lane segment of the warp (membermask and shuffle width), so
//!   the two half-warps of `VL = 16` run independently;
//! * on the host, [`HostVector`] holds all `VL` lanes in an array, so one call
//!   of a kernel body computes what a whole (half-)warp computes on the GPU.
//!
//! Uniform values (sequence index, residue, loop counters) are plain scalars
//! in the kernels: on the GPU every lane holds the same copy.

/// A SIMD vector of `VL` i32 lanes. Lane 0 is the paper's rightmost element;
/// [`Vector::shift_up`] moves every element one lane up (towards `VL - 1`).
///
/// Every method is `#[inline(always)]` in both implementations: a kernel must
/// not call out-of-line functions (an `.extern .func` in the PTX).
pub trait Vector: Copy {
    /// Number of lanes.
    const VL: usize;
    /// Every lane holds its own index `0..VL` (the paper's `vtid`).
    fn lane_ids() -> Self;
    /// Every lane holds `x`.
    fn splat(x: i32) -> Self;
    /// Lane `v` holds `f(v)`: how a kernel loads per-lane data.
    fn from_lanes(f: impl FnMut(usize) -> i32) -> Self;
    /// Calls `f(v, self[v])` for each lane: how a kernel stores per-lane data.
    fn for_lanes(self, f: impl FnMut(usize, i32));
    /// Runs `f` once for the whole vector (on the GPU: in lane 0 only), for
    /// stores of uniform values.
    fn once(f: impl FnOnce());
    /// Lane-wise `self + o` (wrapping, as the GPU's `add.s32`).
    fn add(self, o: Self) -> Self;
    /// Lane-wise `self - o` (wrapping).
    fn sub(self, o: Self) -> Self;
    /// Lane-wise maximum.
    fn max(self, o: Self) -> Self;
    /// Applies `f` in every lane.
    fn map(self, f: impl Fn(i32) -> i32) -> Self;
    /// Applies `f(lane, value)` in every lane.
    fn map_lanes(self, f: impl Fn(usize, i32) -> i32) -> Self;
    /// Lane-wise local-alignment H (see [`crate::recurrence::local_h`]).
    fn local_h(diag: Self, sub: Self, e: Self, f: Self) -> Self;
    /// Lane-wise Gotoh gap update `max(self - extend, h - first)` (see
    /// [`crate::recurrence::gap_score`], which it applies in every lane).
    fn gap(self, h: Self, g: crate::recurrence::Gaps) -> Self;
    /// Lane `v` gets lane `v - 1`'s value, lane 0 gets `fill`: the striped
    /// shift (Farrar's `_mm_slli_si128` by one element).
    fn shift_up(self, fill: i32) -> Self;
    /// The value of lane `lane` (`< VL`), in every lane (`shfl.idx`).
    fn lane_value(self, lane: usize) -> i32;
    /// Whether `self[v] <= o[v]` in every lane (`vote.all` over the vector).
    fn all_le(self, o: Self) -> bool;
    /// The maximum over the lanes (butterfly reduction).
    fn reduce_max(self) -> i32;
}

/// The host's vector: all `VL` lanes in one array.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HostVector<const VL: usize>(pub [i32; VL]);

impl<const VL: usize> HostVector<VL> {
    #[inline(always)]
    fn map2(self, o: Self, f: impl Fn(i32, i32) -> i32) -> Self {
        HostVector(core::array::from_fn(|v| f(self.0[v], o.0[v])))
    }
}

impl<const VL: usize> Vector for HostVector<VL> {
    const VL: usize = VL;
    #[inline(always)]
    fn lane_ids() -> Self {
        HostVector(core::array::from_fn(|v| v as i32))
    }
    #[inline(always)]
    fn splat(x: i32) -> Self {
        HostVector([x; VL])
    }
    #[inline(always)]
    fn from_lanes(f: impl FnMut(usize) -> i32) -> Self {
        HostVector(core::array::from_fn(f))
    }
    #[inline(always)]
    fn for_lanes(self, mut f: impl FnMut(usize, i32)) {
        for (v, &x) in self.0.iter().enumerate() {
            f(v, x);
        }
    }
    #[inline(always)]
    fn once(f: impl FnOnce()) {
        f()
    }
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        self.map2(o, i32::wrapping_add)
    }
    #[inline(always)]
    fn sub(self, o: Self) -> Self {
        self.map2(o, i32::wrapping_sub)
    }
    #[inline(always)]
    fn max(self, o: Self) -> Self {
        self.map2(o, crate::recurrence::max)
    }
    #[inline(always)]
    fn map(self, f: impl Fn(i32) -> i32) -> Self {
        HostVector(self.0.map(f))
    }
    #[inline(always)]
    fn map_lanes(self, f: impl Fn(usize, i32) -> i32) -> Self {
        HostVector(core::array::from_fn(|v| f(v, self.0[v])))
    }
    #[inline(always)]
    fn local_h(diag: Self, sub: Self, e: Self, f: Self) -> Self {
        HostVector(core::array::from_fn(|v| {
            crate::recurrence::local_h(diag.0[v], sub.0[v], e.0[v], f.0[v])
        }))
    }
    #[inline(always)]
    fn gap(self, h: Self, g: crate::recurrence::Gaps) -> Self {
        self.map2(h, |f, h| crate::recurrence::gap_score(f, h, g))
    }
    #[inline(always)]
    fn shift_up(self, fill: i32) -> Self {
        HostVector(core::array::from_fn(|v| {
            if v == 0 { fill } else { self.0[v - 1] }
        }))
    }
    #[inline(always)]
    fn lane_value(self, lane: usize) -> i32 {
        self.0[lane]
    }
    #[inline(always)]
    fn all_le(self, o: Self) -> bool {
        self.0.iter().zip(o.0.iter()).all(|(a, b)| a <= b)
    }
    #[inline(always)]
    fn reduce_max(self) -> i32 {
        self.0
            .iter()
            .copied()
            .fold(i32::MIN, crate::recurrence::max)
    }
}

#[cfg(target_arch = "nvptx64")]
unsafe extern "C" {
    #[link_name = "llvm.nvvm.shfl.sync.up.i32"]
    fn shfl_up(mask: u32, v: i32, delta: u32, c: u32) -> i32;
    #[link_name = "llvm.nvvm.shfl.sync.idx.i32"]
    fn shfl_idx(mask: u32, v: i32, lane: u32, c: u32) -> i32;
    #[link_name = "llvm.nvvm.shfl.sync.bfly.i32"]
    fn shfl_bfly(mask: u32, v: i32, lane_mask: u32, c: u32) -> i32;
    #[link_name = "llvm.nvvm.vote.all.sync"]
    fn vote_all(mask: u32, p: bool) -> bool;
}

/// The GPU's vector: lane `v` is thread `v` of a `VL`-thread segment of a
/// warp (`VL` a power of two up to 32; blocks must be a multiple of 32
/// threads). With `WHOLE_WARP`, the segments of a warp always run their
/// vector operations together, so shuffles and votes name the whole warp
/// (a constant membermask: no convergence code around them); without it
/// each segment runs on its own.
#[cfg(target_arch = "nvptx64")]
#[derive(Clone, Copy, Debug)]
pub struct WarpVector<const VL: usize, const WHOLE_WARP: bool = false>(i32);

#[cfg(target_arch = "nvptx64")]
impl<const VL: usize, const WHOLE_WARP: bool> WarpVector<VL, WHOLE_WARP> {
    /// Lane of the calling thread in its warp.
    #[inline(always)]
    fn warp_lane() -> u32 {
        // SAFETY: reading a special register has no preconditions.
        (unsafe { core::arch::nvptx::_thread_idx_x() }) as u32 & 31
    }
    /// The threads of the calling thread's segment (shuffle/vote membermask).
    #[inline(always)]
    fn mask() -> u32 {
        if VL == 32 || WHOLE_WARP {
            u32::MAX
        } else {
            ((1u32 << VL) - 1) << (Self::warp_lane() & !(VL as u32 - 1))
        }
    }
    /// `c` operand of `shfl.sync` for a segment of `VL` lanes: segment mask
    /// in bits 8..13, clamp lane in bits 0..5 (0 for `up`, 31 otherwise).
    const SEGMENT: u32 = (32 - VL as u32) << 8;
}

#[cfg(target_arch = "nvptx64")]
impl<const VL: usize, const WHOLE_WARP: bool> Vector for WarpVector<VL, WHOLE_WARP> {
    const VL: usize = VL;
    #[inline(always)]
    fn lane_ids() -> Self {
        WarpVector((Self::warp_lane() & (VL as u32 - 1)) as i32)
    }
    #[inline(always)]
    fn splat(x: i32) -> Self {
        WarpVector(x)
    }
    #[inline(always)]
    fn from_lanes(mut f: impl FnMut(usize) -> i32) -> Self {
        WarpVector(f(Self::lane_ids().0 as usize))
    }
    #[inline(always)]
    fn for_lanes(self, mut f: impl FnMut(usize, i32)) {
        f(Self::lane_ids().0 as usize, self.0)
    }
    #[inline(always)]
    fn once(f: impl FnOnce()) {
        if Self::lane_ids().0 == 0 {
            f()
        }
    }
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        WarpVector(self.0.wrapping_add(o.0))
    }
    #[inline(always)]
    fn sub(self, o: Self) -> Self {
        WarpVector(self.0.wrapping_sub(o.0))
    }
    #[inline(always)]
    fn max(self, o: Self) -> Self {
        WarpVector(crate::recurrence::max(self.0, o.0))
    }
    #[inline(always)]
    fn map(self, f: impl Fn(i32) -> i32) -> Self {
        WarpVector(f(self.0))
    }
    #[inline(always)]
    fn map_lanes(self, f: impl Fn(usize, i32) -> i32) -> Self {
        WarpVector(f(Self::lane_ids().0 as usize, self.0))
    }
    #[inline(always)]
    fn local_h(diag: Self, sub: Self, e: Self, f: Self) -> Self {
        WarpVector(crate::recurrence::local_h(diag.0, sub.0, e.0, f.0))
    }
    #[inline(always)]
    fn gap(self, h: Self, g: crate::recurrence::Gaps) -> Self {
        WarpVector(crate::recurrence::gap_score(self.0, h.0, g))
    }
    #[inline(always)]
    fn shift_up(self, fill: i32) -> Self {
        // SAFETY: every lane of the segment executes this shuffle together.
        let up = unsafe { shfl_up(Self::mask(), self.0, 1, Self::SEGMENT) };
        WarpVector(if Self::lane_ids().0 == 0 { fill } else { up })
    }
    #[inline(always)]
    fn lane_value(self, lane: usize) -> i32 {
        // SAFETY: as for `shift_up`; `lane` is relative to the segment.
        unsafe { shfl_idx(Self::mask(), self.0, lane as u32, Self::SEGMENT | 31) }
    }
    #[inline(always)]
    fn all_le(self, o: Self) -> bool {
        // SAFETY: every lane of the segment votes together.
        unsafe { vote_all(Self::mask(), self.0 <= o.0) }
    }
    #[inline(always)]
    fn reduce_max(self) -> i32 {
        let mut x = self.0;
        let mut d = VL as u32 / 2;
        while d > 0 {
            // SAFETY: as for `shift_up`.
            let other = unsafe { shfl_bfly(Self::mask(), x, d, Self::SEGMENT | 31) };
            x = crate::recurrence::max(x, other);
            d /= 2;
        }
        x
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_vector_lane_operations() {
        let v = HostVector::<4>([3, -1, 7, 2]);
        assert_eq!(v.shift_up(9).0, [9, 3, -1, 7]);
        assert_eq!(v.lane_value(2), 7);
        assert_eq!(v.reduce_max(), 7);
        assert_eq!(HostVector::<4>::lane_ids().0, [0, 1, 2, 3]);
        assert!(v.all_le(HostVector::splat(7)));
        assert!(!v.all_le(HostVector::splat(6)));
        let g = crate::recurrence::Gaps::new(2, 1);
        assert_eq!(v.gap(HostVector::splat(5), g).0, [2, 2, 6, 2]);
    }
}
