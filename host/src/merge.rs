//! Merging: takes every database sequence's score for a query, returns the
//! top hits.

use serde::Serialize;

/// One hit: a database sequence and its score.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Hit {
    /// Position of the sequence in the database's input order.
    pub target: usize,
    /// Local alignment score.
    pub score: i32,
}

/// The `k` best hits from `scores` (input order): score descending, ties by
/// input order ascending. Deterministic, so every engine and every number of
/// GPUs gives the same list.
///
/// ```
/// let hits = host::merge::top_hits(&[5, 9, 5, 1], 3);
/// let ranked: Vec<_> = hits.iter().map(|h| (h.target, h.score)).collect();
/// assert_eq!(ranked, vec![(1, 9), (0, 5), (2, 5)]);
/// ```
pub fn top_hits(scores: &[i32], k: usize) -> Vec<Hit> {
    let mut order: Vec<usize> = (0..scores.len()).collect();
    let rank = |&i: &usize| (std::cmp::Reverse(scores[i]), i);
    if k < order.len() {
        order.select_nth_unstable_by_key(k, rank);
        order.truncate(k);
    }
    order.sort_unstable_by_key(rank);
    order
        .into_iter()
        .map(|target| Hit {
            target,
            score: scores[target],
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn top_hits_equals_full_sort() {
        let scores: Vec<i32> = (0..500).map(|i| i * 7919 % 61).collect();
        for k in [0, 1, 10, 499, 500, 600] {
            let mut all: Vec<usize> = (0..scores.len()).collect();
            all.sort_by_key(|&i| (std::cmp::Reverse(scores[i]), i));
            all.truncate(k);
            let got: Vec<usize> = top_hits(&scores, k).iter().map(|h| h.target).collect();
            assert_eq!(got, all, "k = {k}");
        }
    }
}
