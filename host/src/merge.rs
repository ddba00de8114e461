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
    best_of(scores.iter().copied().enumerate(), k)
}

/// [`top_hits`] of scores in another order than the input's:
/// `scores[i]` belongs to input position `positions[i]` (the engines' sorted
/// order and [`crate::db::Database::original_order`]). The same list as
/// `top_hits(&db.to_input_order(scores), k)`, without building that
/// reordered copy: on 570,000 sequences the copy's scattered writes took
/// 2.1–3.5 ms a query on an H100's host, a fifth of a 144-residue query's
/// search.
///
/// ```
/// // Input positions 2, 0, 1 hold 5, 9, 5.
/// let hits = host::merge::top_hits_at(&[5, 9, 5], &[2, 0, 1], 2);
/// let ranked: Vec<_> = hits.iter().map(|h| (h.target, h.score)).collect();
/// assert_eq!(ranked, vec![(0, 9), (1, 5)]);
/// ```
pub fn top_hits_at(scores: &[i32], positions: &[u32], k: usize) -> Vec<Hit> {
    assert_eq!(scores.len(), positions.len(), "one position per score");
    best_of(
        positions
            .iter()
            .zip(scores)
            .map(|(&target, &score)| (target as usize, score)),
        k,
    )
}

/// The `k` best of `(target, score)` pairs (targets distinct): score
/// descending, ties by target ascending.
fn best_of(hits: impl Iterator<Item = (usize, i32)>, k: usize) -> Vec<Hit> {
    // Rank: smaller is better (higher score, then lower input position).
    let rank = |(target, score): (usize, i32)| (std::cmp::Reverse(score), target);
    let mut best: Vec<(std::cmp::Reverse<i32>, usize)> = if k == 0 {
        Vec::new()
    } else {
        // One pass keeping the k best in a heap whose top is the worst of
        // them: once the heap is full only a better rank can enter.
        let mut heap: BinaryHeap<(std::cmp::Reverse<i32>, usize)> =
            BinaryHeap::with_capacity(k + 1);
        for hit in hits {
            let r = rank(hit);
            if heap.len() < k {
                heap.push(r);
            } else if heap.peek().is_some_and(|&worst| r < worst) {
                heap.pop();
                heap.push(r);
            }
        }
        heap.into_vec()
    };
    best.sort_unstable();
    best.into_iter()
        .map(|(std::cmp::Reverse(score), target)| Hit { target, score })
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
                // The same scores in a shuffled order, with their positions.
                let n = scores.len();
                let positions: Vec<u32> =
                    (0..n).map(|i| ((i * 37 + 11) % n.max(1)) as u32).collect();
                let mut shuffled = vec![0; n];
                for (i, &p) in positions.iter().enumerate() {
                    shuffled[i] = scores[p as usize];
                }
                let at: Vec<usize> = top_hits_at(&shuffled, &positions, k)
                    .iter()
                    .map(|h| h.target)
                    .collect();
                assert_eq!(at, all, "k = {k}, shuffled");
            }
        }
    }
}
