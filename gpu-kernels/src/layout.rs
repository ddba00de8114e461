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
//! # Sequential query profile (seed 000 Fig. 5, seed 002 "Query profile")
//! For each residue code `c` and query row `i` the score `s(q_i, c)` as `i8`,
//! four consecutive rows per `u32` (row `4w + k` in byte `k`), so one load
//! brings four cells' scores. Row `c` starts at word `c * query_words`; the
//! query is padded to a multiple of [`PROFILE_ROW_QUANTUM`] rows.

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
