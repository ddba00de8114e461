//! Query profiles: takes a query and a matrix, returns the scores laid out as
//! the kernels read them.

use gpu_kernels::layout::{NUM_CODES, PAD_CODE, PAD_SCORE, profile_words};

use crate::matrix::ScoreMatrix;

/// The sequential query profile (seed 000 Fig. 5; CUDASW++ 2.0): for each
/// residue code `c`, the scores `s(q_i, c)` of every query row `i` as `i8`,
/// four rows per `u32`, the query padded with [`PAD_SCORE`] to a whole SIMT
/// strip. See `gpu_kernels::layout` for the exact format.
///
/// ```
/// use host::{matrix::ScoreMatrix, profile::sequential_profile};
/// let m = ScoreMatrix::by_name("blosum62").unwrap();
/// let p = sequential_profile(&[0, 17], &m); // "AW"
/// let words = gpu_kernels::layout::profile_words(2);
/// let w_row = &p[17 * words..]; // scores against W
/// assert_eq!(w_row[0].to_le_bytes()[..2], [(-3i8) as u8, 11]);
/// ```
pub fn sequential_profile(query: &[u8], matrix: &ScoreMatrix) -> Vec<u32> {
    let words = profile_words(query.len());
    let mut profile = Vec::with_capacity(NUM_CODES * words);
    for code in 0..NUM_CODES as u8 {
        for w in 0..words {
            let bytes: [u8; 4] = std::array::from_fn(|k| {
                let row = 4 * w + k;
                let score = match query.get(row) {
                    Some(&q) if code != PAD_CODE => matrix.score(q, code) as i8,
                    _ => PAD_SCORE,
                };
                score as u8
            });
            profile.push(u32::from_le_bytes(bytes));
        }
    }
    profile
}
