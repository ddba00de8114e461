//! The Gotoh affine-gap recurrence, one cell at a time, shared by every kernel.
//!
//! With `H` the best score of an alignment ending at cell (i, j), `E` one
//! ending in a gap along the database sequence (a horizontal move) and `F` one
//! ending in a gap along the query (a vertical move):
//!
//! ```text
//! E(i,j) = max(E(i,j-1) - extend, H(i,j-1) - (open + extend))
//! F(i,j) = max(F(i-1,j) - extend, H(i-1,j) - (open + extend))
//! H(i,j) = max(0, H(i-1,j-1) + s(q_i, d_j), E(i,j), F(i,j))      (local)
//! ```
//!
//! so a gap of length k costs `open + k * extend` (BLAST's and CUDASW++'s
//! convention). Gotoh, O. (1982). *An improved algorithm for matching
//! biological sequences.* J. Mol. Biol. 162(3):705–708.
//! [doi:10.1016/0022-2836(82)90398-9](https://doi.org/10.1016/0022-2836(82)90398-9)
//!
//! Every function is `#[inline(always)]`: kernels live in another crate from
//! nothing, but a non-inlined call would still cost a call per cell.

/// "Minus infinity" for E and F: low enough that no real score reaches it,
/// high enough that subtracting any gap penalty cannot wrap around.
pub const NEG_INF: i32 = i32::MIN / 4;

/// Gap penalties as the kernels use them: both are costs (non-negative).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Gaps {
    /// Cost of a gap's first residue: `open + extend`.
    pub first: i32,
    /// Cost of each further residue: `extend`.
    pub extend: i32,
}

impl Gaps {
    /// Gaps for the convention "a gap of length k costs `open + k * extend`".
    ///
    /// ```
    /// let g = gpu_kernels::recurrence::Gaps::new(11, 1);
    /// assert_eq!((g.first, g.extend), (12, 1));
    /// ```
    #[inline(always)]
    pub const fn new(open: i32, extend: i32) -> Self {
        Gaps {
            first: open + extend,
            extend,
        }
    }
}

/// The gap score that continues `gap` or opens a new gap after `h`:
/// `max(gap - extend, h - (open + extend))`. Used for both E and F.
///
/// ```
/// use gpu_kernels::recurrence::{gap_score, Gaps};
/// let g = Gaps::new(10, 1);
/// assert_eq!(gap_score(5, 20, g), 9); // open after H=20: 20 - 11
/// assert_eq!(gap_score(15, 20, g), 14); // extend: 15 - 1
/// ```
#[inline(always)]
pub fn gap_score<S: Score>(gap: S, h: S, g: Gaps) -> S {
    max(gap.minus(g.extend), h.minus(g.first))
}

/// The local-alignment H of a cell: `max(0, diag + sub, e, f)`.
///
/// ```
/// assert_eq!(gpu_kernels::recurrence::local_h(3, 4, 2, 1), 7);
/// assert_eq!(gpu_kernels::recurrence::local_h(3, -9, -1, -2), 0);
/// ```
#[inline(always)]
pub fn local_h<S: Score>(diag: S, sub: S, e: S, f: S) -> S {
    max(max(diag + sub, e), max(f, S::splat(0)))
}

/// The global/semiglobal H of a cell: `max(diag + sub, e, f)` (no zero
/// floor; the modes differ only in their borders and end cell).
///
/// ```
/// assert_eq!(gpu_kernels::recurrence::global_h(3, -9, -1, -2), -1);
/// ```
#[inline(always)]
pub fn global_h<S: Score>(diag: S, sub: S, e: S, f: S) -> S {
    max(max(diag + sub, e), f)
}

/// The column state of a strip of query rows swept down one database column
/// (the SIMT kernel's inner loop, on the GPU and in the CPU engine).
pub struct StripColumn<S> {
    /// F of the cell above the current one (the vertical gap so far).
    pub f: S,
    /// H of the cell above the current one.
    pub h_up: S,
    /// H of the cell up and to the left.
    pub diag: S,
    /// The best H so far.
    pub best: S,
}

impl<S: Score> StripColumn<S> {
    /// Local-alignment cell of a row whose H and E of the previous column
    /// are `h` and `e` (both updated to this column); `sub` gives its
    /// substitution score (called after the gaps, the order the SIMT
    /// kernel's PTX was verified with on the GPU).
    #[inline(always)]
    pub fn local_cell(&mut self, h: &mut S, e: &mut S, sub: impl FnOnce() -> S, g: Gaps) {
        *e = gap_score(*e, *h, g);
        self.f = gap_score(self.f, self.h_up, g);
        let cell = local_h(self.diag, sub(), *e, self.f);
        self.diag = *h;
        *h = cell;
        self.h_up = cell;
        self.best = max(self.best, cell);
    }
}

/// The largest F that Farrar's lazy-F loop may carry into a cell whose H
/// (before the correction) is `h` and then drop, in local alignment: there it
/// cannot raise H (`F <= h`), and below it either the F the inner loop opened
/// from this H dominates it (`F - extend <= h - first`, Farrar's condition) or
/// it has fallen to `extend` or less, so every later value of the chain is at
/// most 0 and cannot raise a local H, which is never negative. The second case
/// ends most chains that Farrar's condition keeps alive when gaps are cheap
/// (measured on the CPU, 570k-like DB, 32-lane vectors: 13.3 → 4.8 rows per
/// column at 10-1k, 5.2 → 1.0 at 10-2k).
///
/// ```
/// use gpu_kernels::recurrence::{dead_chain_bound, Gaps};
/// let g = Gaps::new(10, 1);
/// assert_eq!(dead_chain_bound(30, g), 20); // F - 1 <= 30 - 11
/// assert_eq!(dead_chain_bound(5, g), 1); // F <= 1: falls to 0
/// assert_eq!(dead_chain_bound(0, g), 0); // F <= H = 0
/// ```
#[inline(always)]
pub fn dead_chain_bound(h: i32, g: Gaps) -> i32 {
    let open = g.first - g.extend;
    max(h - open, if h < g.extend { h } else { g.extend })
}

/// The larger of two scores, lane by lane.
#[inline(always)]
pub fn max<S: Score>(a: S, b: S) -> S {
    a.max_score(b)
}

/// What the recurrence computes on: one `i32` score (a GPU thread's cell),
/// or a SIMD vector of `i32` lanes, one database sequence each (the CPU
/// engine's inter-sequence kernel, [`Score`] for `Simd<i32, N>`).
pub trait Score: Copy + core::ops::Add<Output = Self> + core::ops::Sub<Output = Self> {
    /// `x` in every lane.
    fn splat(x: i32) -> Self;
    /// The larger of `self` and `other`, lane by lane.
    fn max_score(self, other: Self) -> Self;
    /// `self - cost` in every lane.
    #[inline(always)]
    fn minus(self, cost: i32) -> Self {
        self - Self::splat(cost)
    }
}

impl Score for i32 {
    #[inline(always)]
    fn splat(x: i32) -> i32 {
        x
    }

    /// `core::cmp::max` without the generic `Ord` machinery, so it lowers
    /// to one `max.s32` (fused with the add into Hopper's `VIADDMNMX`).
    #[inline(always)]
    fn max_score(self, other: i32) -> i32 {
        if self > other { self } else { other }
    }
}

/// Wide scores: the host's checkpointed traceback for pairs beyond the
/// kernels' i32 range.
impl Score for i64 {
    #[inline(always)]
    fn splat(x: i32) -> i64 {
        i64::from(x)
    }

    #[inline(always)]
    fn max_score(self, other: i64) -> i64 {
        self.max(other)
    }
}

impl<const N: usize> Score for core::simd::Simd<i32, N> {
    #[inline(always)]
    fn splat(x: i32) -> Self {
        core::simd::Simd::splat(x)
    }

    #[inline(always)]
    fn max_score(self, other: Self) -> Self {
        core::simd::cmp::SimdOrd::simd_max(self, other)
    }
}

/// Two 16-bit scores, one database sequence each: the 16-bit SIMT kernel's
/// cells (`crate::simt_i16x2`). Adds and subtracts wrap; that kernel's
/// range check makes sure none does.
impl Score for core::simd::i16x2 {
    #[inline(always)]
    fn splat(x: i32) -> Self {
        core::simd::i16x2::splat(x as i16)
    }

    #[inline(always)]
    fn max_score(self, other: Self) -> Self {
        core::simd::cmp::SimdOrd::simd_max(self, other)
    }

    /// An add of `-cost`: LLVM's NVPTX backend has a packed `add.s16x2` but
    /// splits a packed subtract into two 16-bit ones.
    #[inline(always)]
    fn minus(self, cost: i32) -> Self {
        self + <Self as Score>::splat(-cost)
    }
}
