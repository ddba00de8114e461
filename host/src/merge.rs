//! Merging: takes every database sequence's score for a query, returns the
//! top hits: by score ([`top_hits`], for `bench`) or by E-value
//! ([`rank_by_evalue`], for `search`).

use std::collections::BinaryHeap;

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
    // Rank: smaller is better (higher score, then lower input position).
    let rank = |i: usize| (std::cmp::Reverse(scores[i]), i);
    let mut order: Vec<usize> = if k >= scores.len() {
        (0..scores.len()).collect()
    } else {
        // One pass keeping the k best in a heap whose top is the worst of
        // them: a later position ranks after an equal score, so only a
        // strictly higher score can enter once the heap is full.
        let mut best: BinaryHeap<(std::cmp::Reverse<i32>, usize)> =
            BinaryHeap::with_capacity(k + 1);
        for (i, &score) in scores.iter().enumerate() {
            if best.len() < k {
                best.push(rank(i));
            } else if best
                .peek()
                .is_some_and(|&(std::cmp::Reverse(worst), _)| score > worst)
            {
                best.pop();
                best.push(rank(i));
            }
        }
        best.into_iter().map(|(_, i)| i).collect()
    };
    order.sort_unstable_by_key(|&i| rank(i));
    order
        .into_iter()
        .map(|target| Hit {
            target,
            score: scores[target],
        })
        .collect()
}

/// The database positions (input order) of a query's reported hits, best
/// first: E-value ascending, ties by score descending, then by input order;
/// at most `k`, only those with `ln_evalues[i] <= max_ln_evalue`.
/// `ln_evalues[i]` and `scores[i]` are sequence `i`'s. Deterministic, so every
/// engine and every number of GPUs gives the same list.
///
/// ```
/// let ln_e = [0.0, -5.0, -5.0, -5.0, 3.0];
/// let scores = [10, 40, 42, 40, 9];
/// let ranked = host::merge::rank_by_evalue(&ln_e, &scores, 3, 1.0);
/// assert_eq!(ranked, vec![2, 1, 3]);
/// assert_eq!(host::merge::rank_by_evalue(&ln_e, &scores, 9, 1.0), vec![2, 1, 3, 0]);
/// ```
pub fn rank_by_evalue(
    ln_evalues: &[f64],
    scores: &[i32],
    k: usize,
    max_ln_evalue: f64,
) -> Vec<usize> {
    assert_eq!(ln_evalues.len(), scores.len(), "one E-value per score");
    let rank = |&a: &usize, &b: &usize| {
        ln_evalues[a]
            .total_cmp(&ln_evalues[b])
            .then(scores[b].cmp(&scores[a]))
            .then(a.cmp(&b))
    };
    let mut order: Vec<usize> = (0..scores.len())
        .filter(|&i| ln_evalues[i] <= max_ln_evalue)
        .collect();
    if k == 0 {
        return Vec::new();
    }
    if k < order.len() {
        order.select_nth_unstable_by(k - 1, rank);
        order.truncate(k);
    }
    order.sort_unstable_by(rank);
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rank_by_evalue_equals_full_sort_with_ties() {
        // Few distinct E-values and scores: many ties on both.
        let n = 400;
        let ln_e: Vec<f64> = (0..n)
            .map(|i| f64::from((i * 37 % 11) as i32) - 5.0)
            .collect();
        let scores: Vec<i32> = (0..n).map(|i| (i * 53 % 7) as i32).collect();
        for (k, cut) in [
            (0, 9.0),
            (1, 9.0),
            (10, 0.0),
            (50, 2.0),
            (399, 9.0),
            (1000, -3.0),
        ] {
            let mut all: Vec<usize> = (0..n).filter(|&i| ln_e[i] <= cut).collect();
            all.sort_by(|&a, &b| {
                ln_e[a]
                    .partial_cmp(&ln_e[b])
                    .unwrap()
                    .then(scores[b].cmp(&scores[a]))
                    .then(a.cmp(&b))
            });
            all.truncate(k);
            assert_eq!(
                rank_by_evalue(&ln_e, &scores, k, cut),
                all,
                "k = {k}, cut {cut}"
            );
        }
    }

    #[test]
    fn top_hits_equals_full_sort() {
        let mixed: Vec<i32> = (0..500).map(|i| i * 7919 % 61 - 30).collect();
        let rising: Vec<i32> = (0..300).collect();
        for scores in [mixed, rising, vec![7; 100], Vec::new()] {
            for k in [0, 1, 2, 10, 60, 99, 100, 499, 500, 600] {
                let mut all: Vec<usize> = (0..scores.len()).collect();
                all.sort_by_key(|&i| (std::cmp::Reverse(scores[i]), i));
                all.truncate(k);
                let got: Vec<usize> = top_hits(&scores, k).iter().map(|h| h.target).collect();
                assert_eq!(got, all, "k = {k}");
            }
        }
    }
}
