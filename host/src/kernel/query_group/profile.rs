//! The query-group profile: the group kernels' in front, a header, and
//! the query profile's rows (one query, or two in the halves).

use super::*;

/// Where a query-group profile's parts lie.
pub(super) struct Layout {
    pub(super) query_len: usize,
    /// Words of the group profile in front.
    pub(super) group_words: usize,
    /// Words per row of the query profile.
    pub(super) row_words: usize,
}

impl Layout {
    pub(super) fn new(query_len: usize) -> Layout {
        Layout {
            query_len,
            group_words: group::profile_words(query_len),
            row_words: profile_row_words(query_len),
        }
    }

    /// Words after the group profile.
    pub(super) fn suffix(&self) -> usize {
        HEADER_WORDS + NUM_CODES * self.row_words
    }

    pub(super) fn words(&self) -> usize {
        self.group_words + self.suffix()
    }

    /// Word offset of the rows.
    pub(super) fn rows(&self) -> usize {
        self.group_words + HEADER_WORDS
    }

    /// The matrix's score range, from the header of `profile` (`None` past
    /// its end).
    pub(super) fn scores(&self, profile: &[u32]) -> Option<ScoreRange> {
        let header = profile.get(self.group_words..self.rows())?;
        Some(ScoreRange {
            min: header[3] as i32,
            max: header[1] as i32,
        })
    }
}

/// The score of position `j` of `query` against residue code `c`: the
/// pad score past the query and for the pad code.
pub(super) fn profile_score(query: &[u8], matrix: &ScoreMatrix, c: usize, j: usize) -> i8 {
    match query.get(j) {
        Some(&q) if c != PAD_CODE as usize => matrix.score(q, c as u8) as i8,
        _ => PAD_SCORE,
    }
}

/// The rows of the profile of two queries scored together
/// (`gpu_kernels::query_group_i16x2`, *Two queries*): row `c`, word `j`,
/// the scores of position `j` of `low` (low half) and of `high` (high
/// half) against residue code `c`, each an `i16`.
pub fn pair_profile_rows(low: &[u8], high: &[u8], matrix: &ScoreMatrix) -> Vec<u32> {
    pair_rows_of(low, high, matrix, pair_row_words(low.len().max(high.len())))
}

/// [`pair_profile_rows`] with rows of `row_words` words (at least
/// `pair_row_words` of the longer query): a batch's entries share
/// [`batch_row_words`], every column any of its passes reads.
pub(super) fn pair_rows_of(
    low: &[u8],
    high: &[u8],
    matrix: &ScoreMatrix,
    row_words: usize,
) -> Vec<u32> {
    let half = |query: &[u8], c, j| profile_score(query, matrix, c, j) as i16 as u16 as u32;
    (0..NUM_CODES)
        .flat_map(|c| (0..row_words).map(move |j| half(low, c, j) | half(high, c, j) << 16))
        .collect()
}

/// The query profile's rows (`gpu_kernels::query_group_i16x2`, *Memory
/// layout*): row `c`, byte `j`, the score of query position `j` against
/// residue code `c`; the pad score past the query and for the pad code.
pub fn query_profile_rows(query: &[u8], matrix: &ScoreMatrix) -> Vec<u32> {
    let row_words = profile_row_words(query.len());
    let mut rows = Vec::with_capacity(NUM_CODES * row_words);
    // A row's bytes first, then its words (a byte at a time through
    // `profile_score` took 27 µs of a 144-residue query's search).
    let mut row = vec![PAD_SCORE as u8; 4 * row_words];
    for c in 0..NUM_CODES {
        for (j, byte) in row.iter_mut().enumerate().take(query.len()) {
            *byte = profile_score(query, matrix, c, j) as u8;
        }
        rows.extend(
            row.chunks_exact(4)
                .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]])),
        );
    }
    rows
}
