//! Packed data formats shared by the host (which builds them) and the
//! kernels (which read them), and the kernels' `#[repr(C)]` parameter blocks.
//!
//! # Residue codes
//! `0..24` are the letters of NCBI's matrices in their order
//! (`ARNDCQEGHILKMFPSTWYVBZX*`); [`PAD_CODE`] pads sequences to whole words.
//! Every substitution score with the pad code is [`PAD_SCORE`], so padded
//! cells can never raise a local score (see `simt`'s `# Padding`).
//!
//! # Packed sequences (SW-CUDA, CUDASW++ 2.0 "packed data format")
//! Four residues per `u32`, residue `4w + k` in byte `k` of word `w`. In a
//! chunk of `threads` sequences, word `w` of sequence `t` is at
//! `w * threads + t`: consecutive threads read consecutive words (coalesced).
//!
//! # Sequential query profile (SW-CUDA, Manavski 2008, Fig. 5; CUDASW++ 2.0, Liu 2010, "Query profile")
//! For each residue code `c` and query row `i` the score `s(q_i, c)` as `i8`,
//! four consecutive rows per `u32` (row `4w + k` in byte `k`), so one load
//! brings four cells' scores. Row `c` starts at word `c * query_words`; the
//! query is padded to a multiple of [`PROFILE_ROW_QUANTUM`] rows.
//!
//! # Striped query profile (Farrar 2007; CUDASW++ 2.0, Liu 2010, equation (3))
//! For a vector of `VL` lanes and a query of `m` rows, `T = ceil(m / VL)`
//! segments ([`striped_segments`]); lane `v` of segment `s` holds query row
//! `v * T + s`. One `i8` per (code, segment, lane), at
//! `(code * T + s) * VL + v` ([`striped_index`]): the `VL` lanes of a
//! segment read `VL` consecutive bytes. Rows `>= m` score [`PAD_SCORE`].
//!
//! # Packed partitioned striped profile (CUDASW++ 2.0, Liu 2010, partitioned vectorized)
//! The query is cut into `P = ceil(m / PL)` partitions of `PL = SEGS * VL`
//! rows; in partition `p` lane `v` of segment `s` holds row
//! `p * PL + v * SEGS + s`. Scores are `i8` packed four per `u32` in the order
//! a lane reads them: byte `b` of word `k` of lane `v` is segment `4k + b`,
//! and that word is at `((code * P + p) * SEGS / 4 + k) * VL + v`
//! ([`partitioned_index`]), so the lanes' loads are coalesced. Rows `>= m`
//! score [`PAD_SCORE`].

use crate::recurrence::Gaps;

/// Number of residue codes: 24 letters and the pad code.
pub const NUM_CODES: usize = 25;
/// The residue code that pads sequences and queries.
pub const PAD_CODE: u8 = 24;
/// The substitution score of the pad code against anything.
pub const PAD_SCORE: i8 = i8::MIN;
/// Query profiles are padded to a multiple of this many rows (the SIMT strip).
pub const PROFILE_ROW_QUANTUM: usize = 32;

/// Number of `u32` words per residue row of a sequential profile for a query
/// of `query_len` residues.
///
/// ```
/// assert_eq!(gpu_kernels::layout::profile_words(0), 0);
/// assert_eq!(gpu_kernels::layout::profile_words(33), 16);
/// ```
#[inline(always)]
pub const fn profile_words(query_len: usize) -> usize {
    query_len.div_ceil(PROFILE_ROW_QUANTUM) * PROFILE_ROW_QUANTUM / 4
}

/// Byte `k` of `word` as a sign-extended score.
#[inline(always)]
pub fn score_byte(word: u32, k: u32) -> i32 {
    ((word << (24 - 8 * k)) as i32) >> 24
}

/// Byte `k` of `low` and byte `k` of `high`, each a sign-extended score,
/// as the two halves of an `i16x2` (the 16-bit SIMT kernel's two
/// sequences). On the GPU one `prmt` (byte permute, sign-replicating).
///
/// ```
/// # #![feature(portable_simd)]
/// let pair = gpu_kernels::layout::score_pair(0x00_80_05_00, 0x7f_00_fb_00, 1);
/// assert_eq!(pair.to_array(), [5, -5]);
/// let pair = gpu_kernels::layout::score_pair(0x00_80_05_00, 0x7f_00_fb_00, 2);
/// assert_eq!(pair.to_array(), [-128, 0]);
/// ```
#[inline(always)]
pub fn score_pair(low: u32, high: u32, k: u32) -> core::simd::i16x2 {
    #[cfg(target_arch = "nvptx64")]
    {
        // Result bytes: low.k, its sign, high.k (byte 4 + k of {high, low}),
        // its sign; a selector nibble with bit 3 set replicates the sign.
        let selector = k | (k | 8) << 4 | (k + 4) << 8 | ((k + 4) | 8) << 12;
        let pair: u32;
        // SAFETY: `prmt.b32` only permutes register bytes.
        unsafe {
            core::arch::asm!(
                "prmt.b32 {d}, {a}, {b}, {c};",
                d = out(reg32) pair,
                a = in(reg32) low,
                b = in(reg32) high,
                c = in(reg32) selector,
                options(pure, nomem, nostack)
            );
        }
        core::simd::i16x2::from_array([pair as i16, (pair >> 16) as i16])
    }
    #[cfg(not(target_arch = "nvptx64"))]
    core::simd::i16x2::from_array([score_byte(low, k) as i16, score_byte(high, k) as i16])
}

/// Byte `k` of `word` as a residue code.
#[inline(always)]
pub fn code_byte(word: u32, k: u32) -> u32 {
    (word >> (8 * k)) & 0xff
}

/// Parameters of one launch of the SIMT kernel over one chunk.
///
/// All pointers are device pointers on the GPU and host pointers under
/// emulation; the buffers' sizes are the kernel's `# Safety` duties.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct SimtParams {
    /// Sequential query profile, `NUM_CODES * query_words` words.
    pub profile: *const u32,
    /// Packed residues of the chunk, `max_words * threads` words.
    pub residues: *const u32,
    /// Length in residues of each sequence of the chunk, `threads` entries.
    pub lengths: *const u32,
    /// Scratch for the H and F of each strip's last row:
    /// `max_words * 4 * threads` pairs of i32.
    pub row_buffer: *mut [i32; 2],
    /// One score per sequence of the chunk, `threads` entries.
    pub scores: *mut i32,
    /// Words per residue row of the profile ([`profile_words`]).
    pub query_words: u32,
    /// Number of sequences in the chunk (one per thread).
    pub threads: u32,
    /// Gap penalties.
    pub gaps: Gaps,
}

/// Defines a GPU entry point whose arguments are [`SimtParams`]' fields one
/// by one (gaps as `first`, `extend`), and runs `$body` with them assembled
/// as `$p`. Pointers passed directly as kernel arguments are known to point
/// to global memory, so the compiler emits `ld.global` (and vector loads)
/// instead of generic loads — which it cannot do through a by-value struct.
macro_rules! chunk_kernel {
    ($(#[$meta:meta])* fn $name:ident(|$p:ident| $body:block)) => {
        $(#[$meta])*
        #[cfg(target_arch = "nvptx64")]
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(
            profile: *const u32,
            residues: *const u32,
            lengths: *const u32,
            row_buffer: *mut [i32; 2],
            scores: *mut i32,
            query_words: u32,
            threads: u32,
            gap_first: i32,
            gap_extend: i32,
        ) {
            let $p = $crate::layout::SimtParams {
                profile,
                residues,
                lengths,
                row_buffer,
                scores,
                query_words,
                threads,
                gaps: $crate::recurrence::Gaps {
                    first: gap_first,
                    extend: gap_extend,
                },
            };
            $body
        }
    };
}
pub(crate) use chunk_kernel;

/// [`TracebackParams::mode`]: Smith–Waterman (local).
pub const MODE_LOCAL: u32 = 0;
/// [`TracebackParams::mode`]: Needleman–Wunsch (global, end gaps charged).
pub const MODE_GLOBAL: u32 = 1;
/// [`TracebackParams::mode`]: semiglobal (overlap, end gaps free).
pub const MODE_SEMIGLOBAL: u32 = 2;

/// Backtrack bit of a cell: `F(i,j) = F(i-1,j) - extend`, the vertical gap
/// continues up (gpu-pairAlign's `Cup`, Blazewicz 2011). See [`crate::traceback`].
pub const BIT_CONT_UP: u32 = 1;
/// Backtrack bit of a cell: `E(i,j) = E(i,j-1) - extend`, the horizontal gap
/// continues left (gpu-pairAlign's `Cleft`).
pub const BIT_CONT_LEFT: u32 = 2;
/// Backtrack bit of a cell: H leaves the cell up or diagonally (gpu-pairAlign's `Bup`).
pub const BIT_MOVE_UP: u32 = 4;
/// Backtrack bit of a cell: H leaves the cell left or diagonally (gpu-pairAlign's `Bleft`).
pub const BIT_MOVE_LEFT: u32 = 8;
/// Backtrack cells per `u32` word (4 bits each).
pub const CELLS_PER_WORD: usize = 8;

/// Alignment op of the op buffer: `q_i` aligned with `t_j` (CIGAR `M`).
pub const OP_MATCH: u8 = 0;
/// Alignment op: `q_i` against a gap, an up move (CIGAR `I`, insertion in
/// the query relative to the target).
pub const OP_INSERT: u8 = 1;
/// Alignment op: `t_j` against a gap, a left move (CIGAR `D`, deletion from
/// the query relative to the target).
pub const OP_DELETE: u8 = 2;

/// Two-bit alignment ops per `u32` word of the op buffer.
pub const OPS_PER_WORD: usize = 16;

/// `u32` words of ops for an `n × m` pair: room for `n + m` ops.
///
/// ```
/// assert_eq!(gpu_kernels::layout::ops_words(3, 13), 1);
/// assert_eq!(gpu_kernels::layout::ops_words(3, 14), 2);
/// ```
#[inline(always)]
pub const fn ops_words(n: usize, m: usize) -> usize {
    (n + m).div_ceil(OPS_PER_WORD)
}

/// `u32` words of backtrack bits for an `n × m` matrix: one per strip of
/// eight rows and column, `ceil(n / 8) * m`.
///
/// ```
/// assert_eq!(gpu_kernels::layout::backtrack_words(3, 3), 3);
/// assert_eq!(gpu_kernels::layout::backtrack_words(9, 5), 10);
/// assert_eq!(gpu_kernels::layout::backtrack_words(0, 9), 0);
/// ```
#[inline(always)]
pub const fn backtrack_words(n: usize, m: usize) -> usize {
    n.div_ceil(CELLS_PER_WORD) * m
}

/// One pair of a traceback window: which sequences, and where its slices of
/// the window's buffers start. Filled by the host, read by both kernels.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PairTask {
    /// Index of the query (rows) in [`TracebackParams::offsets`].
    pub query: u32,
    /// Index of the target (columns) in [`TracebackParams::offsets`].
    pub target: u32,
    /// First word of the pair's backtrack bits: [`backtrack_words`]`(n, m)` words.
    pub bits_offset: u64,
    /// First word of the pair's ops: [`ops_words`]`(n, m)` words.
    pub ops_offset: u64,
}

/// What the kernels return for one pair. Coordinates are matrix cells:
/// the alignment covers `q[query_start+1 ..= query_end]` and
/// `t[target_start+1 ..= target_end]` (1-based residues), i.e. it starts
/// after cell `(query_start, target_start)` and ends at cell
/// `(query_end, target_end)`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PairResult {
    /// Alignment score (kernel 1).
    pub score: i32,
    /// Row of the end cell (kernel 1).
    pub query_end: u32,
    /// Column of the end cell (kernel 1).
    pub target_end: u32,
    /// Row of the cell where the walk stopped (kernel 2).
    pub query_start: u32,
    /// Column of the cell where the walk stopped (kernel 2).
    pub target_start: u32,
    /// Number of ops written (kernel 2).
    pub ops_len: u32,
}

/// Parameters of one launch of either traceback kernel over one window
/// (`sw_traceback_fill_i32`, then `sw_traceback_walk`, same block).
///
/// All pointers are device pointers on the GPU and host pointers under
/// emulation; the buffers' sizes are the kernels' `# Safety` duties.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct TracebackParams {
    /// Every sequence of the run, residue codes (`0..24`) concatenated and
    /// packed four per word, little-endian ([`code_byte`]), zero-padded to a
    /// whole word.
    pub residues: *const u32,
    /// Sequence `k` is residues `offsets[k] .. offsets[k + 1]` (residue
    /// `b` is byte `b % 4` of word `b / 4`).
    pub offsets: *const u64,
    /// Substitution scores, `NUM_CODES * NUM_CODES` `i8`, row = query code.
    pub matrix: *const i8,
    /// The window's pairs, `pairs` entries.
    pub tasks: *const PairTask,
    /// One result per pair, `pairs` entries.
    pub results: *mut PairResult,
    /// Backtrack bits of every pair (see [`PairTask::bits_offset`]).
    pub bits: *mut u32,
    /// Row scratch, interleaved by pair so that a warp's accesses coalesce:
    /// entry `j` (column `j`, `0 ..= m`) of pair `t` is `rows[j * pairs + t]`,
    /// `(widest target + 1) * pairs` entries.
    pub rows: *mut [i32; 2],
    /// Ops of every pair (see [`PairTask::ops_offset`]), [`OPS_PER_WORD`]
    /// two-bit `OP_*` codes per word, op `k` in bits `2 * (k % 16) ..` of
    /// word `k / 16`, from the alignment's end to its start.
    pub ops: *mut u32,
    /// Number of pairs (one per thread).
    pub pairs: u32,
    /// [`MODE_LOCAL`], [`MODE_GLOBAL`] or [`MODE_SEMIGLOBAL`].
    pub mode: u32,
    /// Gap penalties.
    pub gaps: Gaps,
}

// SAFETY: plain data (integers and addresses), `#[repr(C)]` as in the PTX.
#[cfg(feature = "cudarc")]
unsafe impl cudarc::driver::DeviceRepr for TracebackParams {}

// SAFETY: plain `#[repr(C)]` integers, uploaded and read back as is.
#[cfg(feature = "cudarc")]
unsafe impl cudarc::driver::DeviceRepr for PairTask {}
// SAFETY: plain `#[repr(C)]` integers, uploaded and read back as is.
#[cfg(feature = "cudarc")]
unsafe impl cudarc::driver::DeviceRepr for PairResult {}
// SAFETY: all-zero bits are a valid `PairResult` (all fields integers).
#[cfg(feature = "cudarc")]
unsafe impl cudarc::driver::ValidAsZeroBits for PairResult {}

/// Segments `T = ceil(query_len / vl)` of a striped profile.
///
/// ```
/// assert_eq!(gpu_kernels::layout::striped_segments(33, 16), 3);
/// assert_eq!(gpu_kernels::layout::striped_segments(0, 32), 0);
/// ```
#[inline(always)]
pub const fn striped_segments(query_len: usize, vl: usize) -> usize {
    query_len.div_ceil(vl)
}

/// Index in a striped profile of `(code, segment, lane)`, and the query row
/// that entry scores: `(index, lane * segments + segment)`.
#[inline(always)]
pub const fn striped_index(
    code: usize,
    segment: usize,
    lane: usize,
    segments: usize,
    vl: usize,
) -> (usize, usize) {
    (
        (code * segments + segment) * vl + lane,
        lane * segments + segment,
    )
}

/// Index in a packed partitioned profile of the word read by `lane` for
/// segments `4 * word .. 4 * word + 4` of `partition`, for partitions of
/// `segs * vl` rows; and the query row of that word's byte 0 (byte `b` scores
/// row `+ b`).
#[inline(always)]
pub const fn partitioned_index(
    code: usize,
    partition: usize,
    word: usize,
    lane: usize,
    partitions: usize,
    segs: usize,
    vl: usize,
) -> (usize, usize) {
    (
        ((code * partitions + partition) * (segs / 4) + word) * vl + lane,
        partition * segs * vl + lane * segs + 4 * word,
    )
}

/// Parameters of one launch of a striped kernel (`sw_striped_vl*`) over one
/// chunk (the chunk layout of [`SimtParams`]).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct StripedParams {
    /// Striped profile for the kernel's `VL`, `NUM_CODES * segments * VL` bytes.
    pub profile: *const i8,
    /// Packed residues of the chunk, interleaved by sequence as for SIMT.
    pub residues: *const u32,
    /// Length in residues of each sequence of the chunk, `threads` entries.
    pub lengths: *const u32,
    /// Column state (H, E) of each vector: `vectors * segments * VL` pairs.
    pub scratch: *mut [i32; 2],
    /// One score per sequence of the chunk, `threads` entries.
    pub scores: *mut i32,
    /// Segments of the striped profile ([`striped_segments`]).
    pub segments: u32,
    /// Number of sequences in the chunk.
    pub threads: u32,
    /// Number of vectors in the launch (persistent: vector `w` aligns
    /// sequences `w, w + vectors, ...`).
    pub vectors: u32,
    /// Gap penalties.
    pub gaps: Gaps,
}

/// Parameters of one launch of a partitioned kernel (`sw_partitioned_*`)
/// over one chunk (the chunk layout of [`SimtParams`]).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct PartitionedParams {
    /// Packed partitioned profile for the kernel's `VL` and `PL`,
    /// `NUM_CODES * partitions * PL / 4` words.
    pub profile: *const u32,
    /// Packed residues of the chunk, interleaved by sequence as for SIMT.
    pub residues: *const u32,
    /// Length in residues of each sequence of the chunk, `threads` entries.
    pub lengths: *const u32,
    /// H and F handed from a partition's last row to the next partition:
    /// one pair per residue per sequence, residue `j` of sequence `t` at
    /// `j * threads + t` (fits in SIMT's row buffer).
    pub row_buffer: *mut [i32; 2],
    /// One score per sequence of the chunk, `threads` entries.
    pub scores: *mut i32,
    /// Number of partitions of the profile, `ceil(query_len / PL)`.
    pub partitions: u32,
    /// Number of sequences in the chunk (one vector each).
    pub threads: u32,
    /// Gap penalties.
    pub gaps: Gaps,
}

// SAFETY: plain data with a `#[repr(C)]` layout the PTX entry points share.
#[cfg(feature = "cudarc")]
unsafe impl cudarc::driver::DeviceRepr for StripedParams {}
// SAFETY: as above.
#[cfg(feature = "cudarc")]
unsafe impl cudarc::driver::DeviceRepr for PartitionedParams {}
