//! The CPU engine's 32-bit kernel: the SIMT kernel's work with the threads
//! of a chunk packed into the lanes of one SIMD vector; what
//! [`super::inter_sequence_narrow`] runs where a score leaves 16 bits or the
//! gap costs do.
//!
//! Inter-sequence SIMD: Rognes, T. (2011). *Faster Smith-Waterman database
//! searches with inter-sequence SIMD parallelisation.* BMC Bioinformatics
//! 12:221 (SWIPE). It is `gpu_kernels::simt` with `LANES` consecutive
//! threads of a chunk computed together: the same 32-row strip, the same
//! sequential profile and packed residues (`gpu_kernels::layout`), the same
//! recurrence (`gpu_kernels::recurrence`, instantiated on `Simd<i32, LANES>`).
//!
//! # Lane mapping
//! Lane `l` of a vector aligns the query with sequence `first + l` of the
//! chunk. The residue words of the `LANES` sequences for one word index are
//! adjacent in the packed chunk (`w * threads + t`), so one vector load
//! fetches them; each lane's profile word is a gather (`code * query_words`).
//! Lanes whose sequence is shorter than the vector's longest read pad
//! residues, which score [`gpu_kernels::layout::PAD_SCORE`] and cannot raise
//! a local score (`simt`'s `# Padding`); lanes past the chunk's last sequence
//! do the same and are not returned.
//!
//! # Scores
//! `i32` lanes throughout, like `sw_simt_i32`: no score can overflow.

use std::simd::Simd;
use std::simd::num::SimdUint;

use gpu_kernels::layout::{PAD_CODE, PROFILE_ROW_QUANTUM};
use gpu_kernels::recurrence::{Gaps, NEG_INF, StripColumn};

use crate::db::PackedChunk;

/// Sequences per vector (16 × i32: one AVX-512 register, two AVX2 ones).
pub const LANES: usize = 16;

/// Query rows per strip: the column state of a vector, `2 * STRIP` vectors.
const STRIP: usize = PROFILE_ROW_QUANTUM;

type Scores = Simd<i32, LANES>;
type Words = Simd<u32, LANES>;

/// Database columns per block: a vector's row buffer (H and F of the last
/// row of a strip, [`ROW_BYTES_PER_COLUMN`] a column) covers one block of
/// columns (8 MiB), so that its memory does not grow with the sequences.
/// Every sequence of an ordinary database (Swiss-Prot's longest has 35,213
/// residues) is one block; a longer one is swept block after block, each
/// strip's last column (H, E) kept between blocks.
pub const BLOCK_COLUMNS: usize = 1 << 16;

/// Row-buffer bytes per database column of a vector: H and F.
pub const ROW_BYTES_PER_COLUMN: usize = 2 * std::mem::size_of::<Scores>();

/// Border bytes per strip of the query, kept between blocks of columns.
pub const BORDER_BYTES_PER_STRIP: usize = std::mem::size_of::<Border>();

/// The state of one strip at the last column of a block: what the strip's
/// sweep of the next block starts from.
#[derive(Clone, Copy)]
struct Border {
    h: [Scores; STRIP],
    e: [Scores; STRIP],
    /// H of the row above the strip at the block's last column.
    h_above_left: Scores,
}

/// The buffers one vector's alignment holds: its row buffer (columns) and
/// its border (strips), for sequences of at most `columns` residues (a whole
/// number of words), `strips` strips of query and blocks of `block_columns`.
fn buffer_lengths(columns: usize, strips: usize, block_columns: usize) -> (usize, usize) {
    // Only a query of several strips reads rows (a 10-residue query against
    // a 50 MB sequence would otherwise hold rows it never reads); only a
    // sequence of several blocks needs borders.
    let row = if strips > 1 {
        columns.min(block_columns)
    } else {
        0
    };
    let border = if columns > block_columns { strips } else { 0 };
    (row, border)
}

/// Bytes of working memory one vector (one CPU thread at a time) holds to
/// align a query of `query_len` residues with sequences of at most
/// `longest` residues: at most `BLOCK_COLUMNS * ROW_BYTES_PER_COLUMN` of
/// rows, plus [`BORDER_BYTES_PER_STRIP`] per 32 query residues when the
/// sequence spans several blocks, whatever its length.
pub fn working_bytes(query_len: usize, longest: usize) -> usize {
    let (row, border) = buffer_lengths(
        longest.div_ceil(4) * 4,
        query_len.div_ceil(STRIP),
        BLOCK_COLUMNS,
    );
    row * ROW_BYTES_PER_COLUMN + border * BORDER_BYTES_PER_STRIP
}

/// Scores of every sequence of `chunk` against the query whose sequential
/// profile (`crate::profile::sequential_profile`) is `profile`.
///
/// On x86-64 the kernel is also compiled for AVX-512F and for AVX2, and the
/// CPU picks at run time (2-core dev VM, 20 standard queries, 3,000
/// sequences: 2.1 GCUPS baseline SSE2, 6.6 AVX2, 10.0 AVX-512).
pub fn score_chunk(chunk: &PackedChunk, profile: &[u32], gaps: Gaps) -> Vec<i32> {
    score_chunk_blocked(chunk, profile, gaps, BLOCK_COLUMNS)
}

/// [`score_chunk`] in blocks of `block_columns` columns (a positive multiple
/// of 4).
fn score_chunk_blocked(
    chunk: &PackedChunk,
    profile: &[u32],
    gaps: Gaps,
    block_columns: usize,
) -> Vec<i32> {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx512f") {
        // SAFETY: the CPU has AVX-512F, checked just above.
        return unsafe { score_chunk_avx512(chunk, profile, gaps, block_columns) };
    }
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2, checked just above.
        return unsafe { score_chunk_avx2(chunk, profile, gaps, block_columns) };
    }
    score_chunk_portable(chunk, profile, gaps, block_columns)
}

/// [`score_chunk`] with AVX2 code generation: the portable body inlined
/// into a function compiled with the feature.
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn score_chunk_avx2(
    chunk: &PackedChunk,
    profile: &[u32],
    gaps: Gaps,
    block_columns: usize,
) -> Vec<i32> {
    score_chunk_portable(chunk, profile, gaps, block_columns)
}

/// [`score_chunk`] with AVX-512 code generation (one register per vector).
///
/// # Safety
/// The CPU must support AVX-512F.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn score_chunk_avx512(
    chunk: &PackedChunk,
    profile: &[u32],
    gaps: Gaps,
    block_columns: usize,
) -> Vec<i32> {
    score_chunk_portable(chunk, profile, gaps, block_columns)
}

#[inline(always)]
fn score_chunk_portable(
    chunk: &PackedChunk,
    profile: &[u32],
    gaps: Gaps,
    block_columns: usize,
) -> Vec<i32> {
    let threads = chunk.sequences();
    let query_words = profile.len() / gpu_kernels::layout::NUM_CODES;
    let mut scores = Vec::with_capacity(threads + LANES);
    for first in (0..threads).step_by(LANES) {
        let best = score_lanes(chunk, first, profile, query_words, gaps, block_columns);
        scores.extend_from_slice(&best.to_array()[..LANES.min(threads - first)]);
    }
    scores
}

/// Scores of sequences `first .. first + count` of `chunk` against the
/// query whose sequential profile is `profile` (what the 16-bit kernel,
/// [`super::inter_sequence_narrow`], realigns where its lanes saturate).
pub fn score_range(
    chunk: &PackedChunk,
    profile: &[u32],
    gaps: Gaps,
    first: usize,
    count: usize,
) -> Vec<i32> {
    let query_words = profile.len() / gpu_kernels::layout::NUM_CODES;
    let end = (first + count).min(chunk.sequences());
    let mut scores = Vec::with_capacity(count);
    let mut at = first;
    while at < end {
        let best = score_lanes(chunk, at, profile, query_words, gaps, BLOCK_COLUMNS);
        let lanes = LANES.min(end - at);
        scores.extend_from_slice(&best.to_array()[..lanes]);
        at += lanes;
    }
    scores
}

/// The best local score of sequences `first .. first + LANES` of `chunk`.
#[inline(always)]
fn score_lanes(
    chunk: &PackedChunk,
    first: usize,
    profile: &[u32],
    query_words: usize,
    gaps: Gaps,
    block_columns: usize,
) -> Scores {
    let threads = chunk.sequences();
    let lanes = LANES.min(threads - first);
    let words = chunk.vector_words(first, lanes);
    let pad_word = Words::splat(u32::from_le_bytes([PAD_CODE; 4]));
    let residue_words = |w: usize| {
        let row = &chunk.words[w * threads + first..w * threads + first + lanes];
        Words::load_or(row, pad_word)
    };
    let strips = query_words * 4 / STRIP;
    let block_words = (block_columns / 4).max(1);
    let (row_len, border_len) = buffer_lengths(words * 4, strips, block_words * 4);
    // H and F of the last row of the strip above, per column of the block.
    let mut row_h = vec![Scores::splat(0); row_len];
    let mut row_f = vec![Scores::splat(NEG_INF); row_len];
    // Each strip's state at the last column of the block before.
    let fresh = Border {
        h: [Scores::splat(0); STRIP],
        e: [Scores::splat(NEG_INF); STRIP],
        h_above_left: Scores::splat(0),
    };
    let mut borders = vec![fresh; border_len];
    let mut best = Scores::splat(0);

    for block_start in (0..words).step_by(block_words) {
        let block_end = words.min(block_start + block_words);
        let first_column = block_start * 4;
        for strip in 0..strips {
            let writes_row_below = strip + 1 < strips;
            let strip_word = strip * STRIP / 4;
            let Border {
                mut h,
                mut e,
                mut h_above_left,
            } = if block_start > 0 {
                borders[strip]
            } else {
                fresh
            };
            for w in block_start..block_end {
                let residues = residue_words(w);
                for k in 0..4 {
                    let column = w * 4 + k;
                    let slot = column - first_column;
                    let codes = (residues >> Words::splat(8 * k as u32)) & Words::splat(0xff);
                    // Word index of each lane's profile row in this strip.
                    let rows =
                        codes.cast::<usize>() * Simd::splat(query_words) + Simd::splat(strip_word);
                    let h_above = if strip > 0 {
                        row_h[slot]
                    } else {
                        Scores::splat(0)
                    };
                    let mut column_state = StripColumn {
                        f: if strip > 0 {
                            row_f[slot]
                        } else {
                            Scores::splat(NEG_INF)
                        },
                        h_up: h_above,
                        diag: h_above_left,
                        best,
                    };
                    for quad in 0..STRIP / 4 {
                        let packed = Words::gather_or_default(profile, rows + Simd::splat(quad));
                        for b in 0..4 {
                            let r = quad * 4 + b;
                            // Byte b of each lane's word, sign-extended.
                            let sub = || {
                                (packed << Words::splat(24 - 8 * b as u32)).cast::<i32>()
                                    >> Scores::splat(24)
                            };
                            column_state.local_cell(&mut h[r], &mut e[r], sub, gaps);
                        }
                    }
                    best = column_state.best;
                    h_above_left = h_above;
                    if writes_row_below {
                        row_h[slot] = h[STRIP - 1];
                        row_f[slot] = column_state.f;
                    }
                }
            }
            if border_len > 0 {
                borders[strip] = Border { h, e, h_above_left };
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::{Database, PackedChunk};
    use crate::fasta::Record;
    use crate::matrix::ScoreMatrix;
    use crate::profile::sequential_profile;
    use crate::reference::local_score;
    use crate::scoring::GapPenalty;

    /// A deterministic residue stream (no `rand` in the library's tests).
    fn codes(seed: u64, len: usize) -> Vec<u8> {
        let mut x = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (0..len)
            .map(|_| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                ((x >> 33) % 24) as u8
            })
            .collect()
    }

    type Variant = fn(&PackedChunk, &[u32], Gaps, usize) -> Vec<i32>;

    /// Every code generation of the kernel this CPU can run.
    fn variants() -> Vec<(&'static str, Variant)> {
        let mut v: Vec<(&'static str, Variant)> = vec![("portable", score_chunk_portable)];
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx2") {
                // SAFETY: AVX2 is present.
                v.push(("avx2", |c, p, g, b| unsafe { score_chunk_avx2(c, p, g, b) }));
            }
            if std::arch::is_x86_feature_detected!("avx512f") {
                // SAFETY: AVX-512F is present.
                v.push(("avx512", |c, p, g, b| unsafe {
                    score_chunk_avx512(c, p, g, b)
                }));
            }
        }
        v
    }

    #[test]
    fn equals_the_reference_on_uneven_lanes_and_a_partial_vector() {
        let lengths = [
            0, 1, 7, 33, 64, 65, 100, 5, 300, 2, 31, 32, 129, 90, 11, 4, 250, 77, 1,
        ];
        let records: Vec<Record> = lengths
            .iter()
            .enumerate()
            .map(|(k, &len)| Record {
                id: format!("s{k}"),
                description: String::new(),
                codes: codes(k as u64, len),
            })
            .collect();
        let db = Database::from_records(records);
        let chunk = PackedChunk::pack(&db, 0..db.len());
        let matrix = ScoreMatrix::by_name("blosum62").unwrap();
        for (query_len, open, extend) in
            [(0, 11, 1), (1, 11, 1), (45, 10, 1), (70, 0, 1), (33, 40, 3)]
        {
            let query = codes(99 + query_len as u64, query_len);
            let gaps = GapPenalty::new(open, extend).unwrap();
            let profile = sequential_profile(&query, &matrix);
            let want: Vec<i32> = (0..db.len())
                .map(|i| local_score(&query, db.sequence(i), &matrix, gaps))
                .collect();
            // One block (the default), and blocks of 4 to 64 columns: every
            // border between blocks crossed by the longer sequences.
            for block in [BLOCK_COLUMNS, 4, 8, 64] {
                for (name, variant) in variants() {
                    let got = variant(&chunk, &profile, gaps.kernel_gaps(), block);
                    assert_eq!(
                        got, want,
                        "{name}, blocks of {block}, query length {query_len}, gaps {open}/{extend}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_long_sequence_needs_a_bounded_row_buffer() {
        // 50 MB against queries of one strip and of several: the rows stay
        // within one block of columns, the borders grow with the query only.
        let rows = BLOCK_COLUMNS * ROW_BYTES_PER_COLUMN;
        assert_eq!(rows, 8 << 20);
        for (query_len, bound) in [
            (10, BORDER_BYTES_PER_STRIP),
            (33, rows + 2 * BORDER_BYTES_PER_STRIP),
            (1000, rows + 32 * BORDER_BYTES_PER_STRIP),
            (35_000, rows + 1094 * BORDER_BYTES_PER_STRIP),
        ] {
            let bytes = working_bytes(query_len, 50_000_000);
            assert!(
                bytes <= bound && bytes < 16 << 20,
                "query {query_len}: {bytes} bytes"
            );
        }
        // An ordinary sequence is one block: rows of its own length only.
        assert_eq!(working_bytes(300, 35_213), 35_216 * ROW_BYTES_PER_COLUMN);
        assert_eq!(BORDER_BYTES_PER_STRIP, (2 * STRIP + 1) * 4 * LANES);
    }

    #[test]
    fn the_buffers_are_what_the_plan_says() {
        // The lengths `score_lanes` allocates, for the sizes above.
        assert_eq!(buffer_lengths(50_000_000, 1, BLOCK_COLUMNS), (0, 1));
        assert_eq!(
            buffer_lengths(50_000_000, 2, BLOCK_COLUMNS),
            (BLOCK_COLUMNS, 2)
        );
        assert_eq!(
            buffer_lengths(BLOCK_COLUMNS, 2, BLOCK_COLUMNS),
            (BLOCK_COLUMNS, 0)
        );
        assert_eq!(buffer_lengths(100, 3, 8), (8, 3));
    }
}
