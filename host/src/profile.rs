//! Query profiles: takes a query and a matrix, returns the scores laid out as
//! the kernels read them.

use gpu_kernels::layout::{
    NUM_CODES, PAD_CODE, PAD_SCORE, partitioned_index, profile_words, striped_index,
    striped_segments,
};

use crate::matrix::ScoreMatrix;

/// The sequential query profile (SW-CUDA, Manavski 2008, Fig. 5; CUDASW++ 2.0, Liu 2010): for each
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

/// The score of query row `row` against residue `code`, [`PAD_SCORE`] past
/// the query's end or for the pad code.
fn row_score(query: &[u8], matrix: &ScoreMatrix, row: usize, code: u8) -> i8 {
    match query.get(row) {
        Some(&q) if code != PAD_CODE => matrix.score(q, code) as i8,
        _ => PAD_SCORE,
    }
}

/// The striped query profile of the `striped` kernels for vectors of `vl`
/// lanes (Farrar 2007): `NUM_CODES * T * vl` scores, `T =
/// striped_segments(query.len(), vl)`; lane `v` of segment `s` scores query
/// row `v * T + s`. See `gpu_kernels::layout` for the exact format.
///
/// ```
/// use host::{matrix::ScoreMatrix, profile::striped_profile};
/// let m = ScoreMatrix::by_name("blosum62").unwrap();
/// let p = striped_profile(&[0, 17, 0], &m, 2); // "AWA", T = 2
/// let w = &p[17 * 2 * 2..][..4]; // against W: segment 0 lanes 0-1, segment 1
/// assert_eq!(w, [-3, -3, 11, -128]); // rows 0, 2 | 1, pad
/// ```
pub fn striped_profile(query: &[u8], matrix: &ScoreMatrix, vl: usize) -> Vec<i8> {
    let segments = striped_segments(query.len(), vl);
    let mut profile = vec![PAD_SCORE; NUM_CODES * segments * vl];
    for code in 0..NUM_CODES {
        for s in 0..segments {
            for v in 0..vl {
                let (index, row) = striped_index(code, s, v, segments, vl);
                profile[index] = row_score(query, matrix, row, code as u8);
            }
        }
    }
    profile
}

/// The packed partitioned striped profile of the `partitioned` kernels for
/// vectors of `vl` lanes and partitions of `pl` rows (`pl` a multiple of
/// `4 * vl`): `NUM_CODES * ceil(m / pl) * pl / 4` words, four `i8` per word in
/// the order a lane reads them. See `gpu_kernels::layout` for the format.
pub fn partitioned_profile(query: &[u8], matrix: &ScoreMatrix, vl: usize, pl: usize) -> Vec<u32> {
    assert!(
        vl > 0 && pl.is_multiple_of(4 * vl),
        "PL must be a multiple of 4 * VL"
    );
    let segs = pl / vl;
    let partitions = query.len().div_ceil(pl);
    let mut profile = vec![0u32; NUM_CODES * partitions * pl / 4];
    for code in 0..NUM_CODES {
        for p in 0..partitions {
            for k in 0..segs / 4 {
                for v in 0..vl {
                    let (index, row) = partitioned_index(code, p, k, v, partitions, segs, vl);
                    let bytes: [u8; 4] = std::array::from_fn(|b| {
                        row_score(query, matrix, row + b, code as u8) as u8
                    });
                    profile[index] = u32::from_le_bytes(bytes);
                }
            }
        }
    }
    profile
}
