//! Ungapped Karlin–Altschul parameters: the background frequencies of
//! Robinson & Robinson, a matrix's ungapped λ, K and H over them (the
//! fitted statistics' last fallback, [`Model::Ungapped`]), and the
//! ungapped λ, K that ssearch36 puts into the first fit's cap
//! ([`ssearch_cap_parameters`]).
//!
//! * Karlin, S. & Altschul, S. F. (1990). *Methods for assessing the
//!   statistical significance of molecular sequence features by using
//!   general scoring schemes.* PNAS 87:2264–2268: λ, K and H of a scoring
//!   without gaps ([`ungapped_parameters`]).
//! * Robinson, A. B. & Robinson, L. R. (1991). *Distribution of glutamine
//!   and asparagine residues and their near neighbors in peptides and
//!   proteins.* PNAS 88:8880–8884: the residue frequencies
//!   ([`ROBINSON_FREQUENCIES`]).
//!
//! [`Model::Ungapped`]: super::Model::Ungapped

use serde::Serialize;

/// Background frequencies of the 20 amino acids (in `host::alphabet`'s
/// order, A R N D C Q E G H I L K M F P S T W Y V): Robinson, A. B. &
/// Robinson, L. R. (1991). *Distribution of glutamine and asparagine
/// residues and their near neighbors in peptides and proteins.* PNAS
/// 88:8880–8884, normalized; the frequencies BLAST and FASTA compute their
/// ungapped parameters with.
#[rustfmt::skip]
pub const ROBINSON_FREQUENCIES: [f64; 20] = [
    0.078047, 0.051295, 0.044873, 0.053640, 0.019246,
    0.042644, 0.062949, 0.073772, 0.021992, 0.051420,
    0.090191, 0.057438, 0.022425, 0.038556, 0.052028,
    0.071198, 0.058413, 0.013298, 0.032165, 0.064409,
];

/// Ungapped Karlin–Altschul parameters of a matrix.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Ungapped {
    /// λ, per score unit.
    pub lambda: f64,
    /// K.
    pub k: f64,
    /// Relative entropy H, nats per aligned pair.
    pub h: f64,
}

/// The ungapped λ, K and H of `matrix` for residues drawn with
/// [`ROBINSON_FREQUENCIES`] (Karlin, S. & Altschul, S. F. (1990). PNAS
/// 87:2264–2268): λ the positive root of `Σ pᵢpⱼ e^(λ sᵢⱼ) = 1`,
/// `H = λ Σ pᵢpⱼ sᵢⱼ e^(λ sᵢⱼ)`, and for scores of greatest common divisor
/// δ, `K = δ·λ·e^(−2σ) / (H·(1 − e^(−λδ)))` with
/// `σ = Σₖ (1/k)·(E[e^(λSₖ); Sₖ < 0] + P(Sₖ ≥ 0))`, `Sₖ` the sum of k
/// pair scores. `None` when the expected score is not negative or no score
/// is positive (no local alignment statistics).
///
/// ```
/// let b62 = host::matrix::ScoreMatrix::by_name("blosum62").unwrap();
/// let p = host::stats::ungapped_parameters(&b62).unwrap();
/// // BLAST's BLOSUM62 ungapped row: 0.3176, 0.134, 0.4012.
/// assert_eq!(format!("{:.4} {:.3} {:.4}", p.lambda, p.k, p.h), "0.3176 0.134 0.4012");
/// ```
pub fn ungapped_parameters(matrix: &crate::matrix::ScoreMatrix) -> Option<Ungapped> {
    let residues: Vec<(u8, f64)> = (0..20u8)
        .map(|a| (a, ROBINSON_FREQUENCIES[a as usize]))
        .collect();
    karlin_altschul(matrix, &residues, &residues)
}

/// The ungapped λ, K and H that `ssearch36` (FASTA 36.3.8) puts into its
/// first fit's cap ([`first_fit_cap`](super::first_fit_cap)), which are not
/// [`ungapped_parameters`]: FASTA 36 indexes its matrix in NCBI's `stdaa`
/// order (`ABCDEFGHIKLMNPQRSTVW…`) but pairs it with its Robinson
/// frequencies listed in `ARNDCQEGHILKMFPSTWYV` order, so the i-th
/// frequency weighs the i-th `stdaa` letter (B takes R's, Y none), and the
/// second residue of a pair runs over the first 19 letters only (no W),
/// the distribution renormalized. For BLOSUM62 this gives λ 0.2983,
/// K 0.1309 instead of 0.3176, 0.134: a cap about 6 higher. The cap decides
/// which scores the first fit, and so the trimming, sees; for a query with
/// hundreds of homologs (an ABC transporter against UniProt) a cap 6 lower
/// trims a few dozen more of them and drops other bins, the variance comes
/// out 5–10 % smaller and the E-values of its strong hits several times
/// smaller than ssearch36's. With these parameters the trimmed scores and
/// dropped bins are ssearch36's (benches/RESULTS.md). `None` as for
/// [`ungapped_parameters`] (the fit's cap then takes those).
pub fn ssearch_cap_parameters(matrix: &crate::matrix::ScoreMatrix) -> Option<Ungapped> {
    let code = |letter: u8| crate::alphabet::encode(letter).expect("an amino acid letter");
    // NCBI's stdaa letters 1 to 20, each with the frequency of the
    // residue at the same place in A R N D … Y V.
    let pairs: Vec<(u8, f64)> = b"ABCDEFGHIKLMNPQRSTVW"
        .iter()
        .zip(ROBINSON_FREQUENCIES)
        .map(|(&letter, f)| (code(letter), f))
        .collect();
    karlin_altschul(matrix, &pairs, &pairs[..19])
}

/// Whether `matrix` has ungapped parameters ([`ungapped_parameters`] is
/// `Some`), told without computing them: some score positive, some
/// negative, and the expected score over Robinson & Robinson residues
/// negative.
pub(super) fn has_local_statistics(matrix: &crate::matrix::ScoreMatrix) -> bool {
    let pairs = || (0..20u8).flat_map(|a| (0..20u8).map(move |b| (a, b)));
    let (low, high) = pairs()
        .map(|(a, b)| matrix.score(a, b))
        .fold((i32::MAX, i32::MIN), |(l, h), s| (l.min(s), h.max(s)));
    let total: f64 = ROBINSON_FREQUENCIES.iter().sum();
    let expected: f64 = pairs()
        .map(|(a, b)| {
            let weight = ROBINSON_FREQUENCIES[a as usize] * ROBINSON_FREQUENCIES[b as usize];
            weight * f64::from(matrix.score(a, b))
        })
        .sum::<f64>()
        / (total * total);
    low < 0 && high > 0 && expected < 0.0
}

/// λ, K and H of [`ungapped_parameters`] for pairs of a residue drawn from
/// `first` and one from `second` (codes with weights, each normalized).
fn karlin_altschul(
    matrix: &crate::matrix::ScoreMatrix,
    first: &[(u8, f64)],
    second: &[(u8, f64)],
) -> Option<Ungapped> {
    // The distribution of one pair's score.
    let (low, high) = first
        .iter()
        .flat_map(|&(a, _)| second.iter().map(move |&(b, _)| (a, b)))
        .map(|(a, b)| matrix.score(a, b))
        .fold((i32::MAX, i32::MIN), |(l, h), s| (l.min(s), h.max(s)));
    if low >= 0 || high <= 0 {
        return None;
    }
    let mut p = vec![0.0; (high - low + 1) as usize];
    let total: f64 =
        first.iter().map(|&(_, f)| f).sum::<f64>() * second.iter().map(|&(_, f)| f).sum::<f64>();
    for &(a, fa) in first {
        for &(b, fb) in second {
            p[(matrix.score(a, b) - low) as usize] += fa * fb / total;
        }
    }
    let score = |i: usize| (i as i32 + low) as f64;
    let expected: f64 = p.iter().enumerate().map(|(i, &q)| q * score(i)).sum();
    if expected >= 0.0 {
        return None;
    }
    let moment = |l: f64| -> f64 {
        p.iter()
            .enumerate()
            .map(|(i, &q)| q * (l * score(i)).exp())
            .sum()
    };
    let mut hi = 0.5;
    while moment(hi) < 1.0 {
        hi *= 2.0;
    }
    let mut lo = 0.0;
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if moment(mid) < 1.0 {
            lo = mid
        } else {
            hi = mid
        }
    }
    let lambda = 0.5 * (lo + hi);
    let h = lambda
        * p.iter()
            .enumerate()
            .map(|(i, &q)| q * score(i) * (lambda * score(i)).exp())
            .sum::<f64>();
    let delta = (0..p.len())
        .filter(|&i| p[i] > 0.0)
        .fold(0i32, |g, i| gcd(g, (i as i32 + low).abs()))
        .max(1);
    // σ: the distribution of Sₖ by repeated convolution, until the terms
    // are negligible.
    let mut sum_dist = vec![1.0];
    let mut sum_low = 0i32;
    let mut sigma = 0.0;
    for k in 1..=500 {
        let mut next = vec![0.0; sum_dist.len() + p.len() - 1];
        for (i, &a) in sum_dist.iter().enumerate() {
            if a != 0.0 {
                for (j, &b) in p.iter().enumerate() {
                    next[i + j] += a * b;
                }
            }
        }
        sum_low += low;
        sum_dist = next;
        let term: f64 = sum_dist
            .iter()
            .enumerate()
            .map(|(i, &q)| {
                let s = f64::from(sum_low + i as i32);
                if s < 0.0 { q * (lambda * s).exp() } else { q }
            })
            .sum::<f64>()
            / k as f64;
        sigma += term;
        if term < 1e-12 {
            break;
        }
    }
    let d = f64::from(delta);
    let k = d * lambda * (-2.0 * sigma).exp() / (h * (1.0 - (-lambda * d).exp()));
    Some(Ungapped { lambda, k, h })
}

fn gcd(a: i32, b: i32) -> i32 {
    if b == 0 { a } else { gcd(b, a % b) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_statistics_are_told_as_the_parameters_would_tell_them() {
        let mut matrices: Vec<crate::matrix::ScoreMatrix> = crate::matrix::BUILTIN
            .iter()
            .map(|name| crate::matrix::ScoreMatrix::by_name(name).unwrap())
            .collect();
        matrices.push(crate::matrix::ScoreMatrix::from_scores(
            "plus",
            [[2; 24]; 24],
        ));
        let mut shifted = *matrices[0].scores();
        for row in shifted.iter_mut() {
            for s in row.iter_mut() {
                *s = s.saturating_add(4);
            }
        }
        matrices.push(crate::matrix::ScoreMatrix::from_scores("shifted", shifted));
        for m in &matrices {
            assert_eq!(
                has_local_statistics(m),
                ungapped_parameters(m).is_some(),
                "{}",
                m.name()
            );
        }
        assert!(!has_local_statistics(&matrices[matrices.len() - 1]));
    }
    use crate::scoring::Scoring;
    use crate::stats::{DatabaseSize, Method, Statistics, first_fit_cap};

    #[test]
    fn ungapped_parameters_are_blasts() {
        // BLAST's ungapped rows (λ, K, H) for Robinson & Robinson
        // frequencies.
        for (name, lambda, k, h) in [
            ("blosum62", 0.3176, 0.134, Some(0.4012)),
            ("blosum50", 0.2318, 0.112, Some(0.3362)),
            ("pam250", 0.2252, 0.0868, None),
        ] {
            let m = crate::matrix::ScoreMatrix::by_name(name).unwrap();
            let p = ungapped_parameters(&m).unwrap();
            assert!((p.lambda - lambda).abs() < 1e-4, "{name} {p:?}");
            assert!((p.k - k).abs() < 0.01 * k, "{name} {p:?}");
            if let Some(h) = h {
                assert!((p.h - h).abs() < 1e-3, "{name} {p:?}");
            }
        }
        // No positive score: no local alignment statistics.
        let flat = crate::matrix::ScoreMatrix::from_scores("flat", [[-1; 24]; 24]);
        assert!(ungapped_parameters(&flat).is_none());
    }

    #[test]
    fn the_cap_takes_the_parameters_ssearch36_computes() {
        let b62 = crate::matrix::ScoreMatrix::by_name("blosum62").unwrap();
        let s = ssearch_cap_parameters(&b62).unwrap();
        // FASTA 36's frequencies paired with BLOSUM62 in stdaa order, the
        // second residue without W (computed apart from this code).
        assert_eq!(format!("{:.4} {:.4}", s.lambda, s.k), "0.2983 0.1309");
        let u = ungapped_parameters(&b62).unwrap();
        let db = DatabaseSize {
            sequences: 20_000,
            residues: 9_055_569,
        };
        // E. coli's VIMSS15828 (249 residues, an ABC transporter with
        // hundreds of homologs in UniProt 20k): ssearch36 trims 322 scores
        // and drops 1,989 in 2 bins (variance 54.97), as the fit does with
        // a cap of 115; with 109 it trims 357, drops 1,006 in 1 bin
        // (variance 48.73) and its E-values of the family are 3 times
        // smaller than ssearch36's.
        assert_eq!(first_fit_cap(&u, 249, db), 109);
        assert_eq!(first_fit_cap(&s, 249, db), 115);
        let scoring = Scoring {
            matrix: b62,
            gaps: crate::scoring::GapPenalty::new(11, 1).unwrap(),
        };
        let stats = Statistics::new(Method::Fitted, &scoring, db).unwrap();
        assert_eq!(stats.cap(249), Some(115));
        // A matrix whose stdaa pairing has no local statistics: the
        // ungapped parameters' cap.
        let mut scores = [[-1i8; 24]; 24];
        scores[18][18] = 5; // Y, which the pairing leaves out.
        let only_y = crate::matrix::ScoreMatrix::from_scores("only-y", scores);
        assert!(ssearch_cap_parameters(&only_y).is_none());
        let stats = Statistics::new(
            Method::Fitted,
            &Scoring {
                matrix: only_y,
                gaps: crate::scoring::GapPenalty::new(11, 1).unwrap(),
            },
            db,
        )
        .unwrap();
        let y = ungapped_parameters(&stats.scoring.matrix).unwrap();
        assert_eq!(stats.cap(249), Some(first_fit_cap(&y, 249, db)));
    }
}
