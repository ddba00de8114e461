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
    best_of(scores, |i| i, k)
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
    best_of(scores, |i| positions[i] as usize, k)
}

/// Scores [`best_of`] looks at a block at a time: a block whose best score
/// is below the worst of the `k` kept is passed over after one maximum,
/// which the compiler vectorises. The `k` best of a search are a handful
/// among hundreds of thousands, so nearly every block is passed over: on
/// 570,000 scores this took the heap pass from about 1.4 ms to about
/// 0.1 ms on a 2-core host (`bench`'s time includes it).
const SCAN_BLOCK: usize = 64;

/// The `k` best of `scores` with score `i` belonging to target
/// `target_of(i)` (targets distinct): score descending, ties by target
/// ascending.
fn best_of(scores: &[i32], target_of: impl Fn(usize) -> usize, k: usize) -> Vec<Hit> {
    use std::cmp::Reverse;
    // No more than there are: a `--max-target-seqs` of billions reserves
    // nothing it cannot fill.
    let k = k.min(scores.len());
    let mut best: Vec<(Reverse<i32>, usize)> = if k == 0 {
        Vec::new()
    } else {
        // One pass keeping the k best in a heap whose top is the worst of
        // them (rank: smaller is better, a higher score, then a lower
        // target): once the heap is full only a better rank can enter, and
        // none of a block whose best score is below the worst kept (a
        // score equal to it may enter with a lower target).
        let mut heap: BinaryHeap<(Reverse<i32>, usize)> = BinaryHeap::with_capacity(k + 1);
        for (b, block) in scores.chunks(SCAN_BLOCK).enumerate() {
            if let Some(&(Reverse(worst), _)) = heap.peek().filter(|_| heap.len() == k)
                && block.iter().copied().max().is_none_or(|most| most < worst)
            {
                continue;
            }
            for (i, &score) in block.iter().enumerate() {
                let r = (Reverse(score), target_of(b * SCAN_BLOCK + i));
                if heap.len() < k {
                    heap.push(r);
                } else if heap.peek().is_some_and(|&worst| r < worst) {
                    heap.pop();
                    heap.push(r);
                }
            }
        }
        heap.into_vec()
    };
    best.sort_unstable();
    best.into_iter()
        .map(|(Reverse(score), target)| Hit { target, score })
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
        // Many blocks of the scan, with ties at the worst kept score in
        // blocks after it (shuffled: at lower targets).
        let many: Vec<i32> = (0..5_000).map(|i| i * 7919 % 53).collect();
        let falling: Vec<i32> = (0..1_000).rev().map(|i| i / 3).collect();
        for scores in [mixed, rising, many, falling, vec![7; 100], Vec::new()] {
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
