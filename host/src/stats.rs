//! Statistics of local alignment scores: each hit's bit score and E-value.
//!
//! Takes a query's scores against every database sequence (input order) and
//! the sequences' lengths, returns a [`QueryStatistics`] that turns a score
//! and a target length into an E-value ([`QueryStatistics::ln_evalue`]) and
//! a bit score ([`QueryStatistics::bits`]).
//!
//! # Methods
//! * [`Method::Fitted`] (the default) estimates the score distribution from
//!   the search's own scores, as SSEARCH does: Pearson, W. R. (1998).
//!   *Empirical statistical estimates for sequence similarity searches.*
//!   J. Mol. Biol. 276:71–84. The mean score of unrelated sequences grows
//!   with the logarithm of their length: it is fitted by least squares
//!   against `ln n` over every database score ([`fit`]), and the variance
//!   of the scores around that line is one number for all lengths (as in
//!   SSEARCH's default; a variance linear in `ln n` put the E-values of
//!   short significant hits orders of magnitude below SSEARCH's,
//!   benches/RESULTS.md). A score's z-score `z = (S − mean(n)) / sd(n)` then follows
//!   the standardized extreme-value distribution, so one sequence's P-value
//!   is `P = 1 − exp(−exp(−(π/√6)·z − γ))` (γ Euler's constant), and the
//!   E-value over a database of `N` sequences is `E = N · P` (Pearson 1998).
//!   Homologs sit in the upper tail and would inflate the fit: the fit is
//!   repeated without the scores whose E-value under the current fit is
//!   below 1 (z-score above [`trim_threshold`]: fewer than one unrelated
//!   sequence of the database is expected to score as high) until the set of
//!   trimmed scores stops changing (iterative trimming). Over the 20
//!   standard queries against UniProt 20k this brings the E-values within a
//!   factor 2 of SSEARCH's for the queries rich in low-complexity repeats
//!   too, where one fit over all scores or a lower threshold do not
//!   (benches/RESULTS.md). Below [`MIN_FIT_SEQUENCES`] untrimmed scores the
//!   fit is refused and the fixed parameters are used instead, when the
//!   scoring has them (said in [`QueryStatistics::note`]).
//! * [`Method::Fixed`]: Karlin–Altschul statistics with published
//!   parameters: `E = K·m'·n'·e^(−λS)` (Karlin, S. & Altschul, S. F. (1990).
//!   PNAS 87:2264–2268) with the gapped λ, K of Altschul, S. F. & Gish, W.
//!   (1996). *Local alignment statistics.* Methods Enzymol. 266:460–480, as
//!   NCBI BLAST tabulates them for its matrices and gap costs (λ, K, H and
//!   the edge-correction α, β; [`fixed_parameters`]). `m'` and `n'` are the
//!   query and database lengths shortened by the edge correction of
//!   Altschul, S. F., Bundschuh, R., Olsen, R. & Hwa, T. (2001). *The
//!   estimation of statistical parameters for local alignment score
//!   distributions.* Nucleic Acids Res. 29:351–361 ([`length_adjustment`]).
//!   A matrix and gap costs without published parameters are an error.
//!
//! # Bit scores
//! The bit score `S'` of a hit is the one for which `m·n·2^(−S')` is the
//! hit's P-value in the Karlin–Altschul tail `P ≈ K·m·n·e^(−λS)`: with the
//! fixed parameters this is BLAST's `(λS − ln K)/ln 2`; with the fitted
//! statistics it is `log2(m·n/P)` with the fitted P.
//!
//! # Databases in parts
//! The fit uses every database score of the query. Every engine returns the
//! scores of the whole database (all its parts, all GPUs, streamed or not)
//! before statistics are computed, so E-values do not depend on how the
//! database was split. The fit's sums (`Σx`, `Σs`, `Σxs`, ...) could be
//! merged across separately searched shards, but the trimming needs the
//! scores themselves: shards searched apart must hand their scores (or the
//! scores' lengths) to one fit.

use serde::Serialize;

use crate::error::{Error, Result};
use crate::scoring::Scoring;

/// Euler's constant γ.
const EULER_GAMMA: f64 = 0.577_215_664_901_532_9;

/// π/√6: the standard deviation of the standard Gumbel distribution is
/// `π/√6`, so `(π/√6)·z + γ` maps a z-score to the standard Gumbel variable.
const PI_OVER_SQRT6: f64 = std::f64::consts::PI / 2.449_489_742_783_178;

/// The fewest scores the fitted statistics accept (after trimming).
pub const MIN_FIT_SEQUENCES: usize = 100;

/// The most rounds of fitting and trimming.
const MAX_FIT_ROUNDS: usize = 20;

/// How E-values are computed (`--stats`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Method {
    /// Fitted to the search's own scores (Pearson 1998), as SSEARCH does.
    Fitted,
    /// Karlin–Altschul with the published λ, K (Altschul & Gish 1996, BLAST's
    /// tables) and BLAST's edge correction.
    Fixed,
}

impl std::fmt::Display for Method {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Method::Fitted => "fitted",
            Method::Fixed => "fixed",
        })
    }
}

/// Gapped Karlin–Altschul parameters of one matrix and gap costs.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct KarlinAltschul {
    /// λ, per score unit.
    pub lambda: f64,
    /// K.
    pub k: f64,
    /// Relative entropy H, nats per aligned pair.
    pub h: f64,
    /// α of the edge correction (Altschul et al. 2001).
    pub alpha: f64,
    /// β of the edge correction.
    pub beta: f64,
}

/// One row of the table: matrix, gap open, gap extend, λ, K, H, α, β.
type Row = (&'static str, i32, i32, f64, f64, f64, f64, f64);

/// Gapped parameters for the built-in matrices, in warpsw's gap convention
/// (a gap of length k costs open + k·extend, the same as BLAST's). λ, K, H
/// and α are the values NCBI BLAST reports for these matrices and gap costs
/// (`blastp` prints them under "Gapped"; Altschul & Gish 1996 for the
/// method); β is the edge-correction constant of the same tables. With
/// them [`length_adjustment`] gives the effective search space `blastp`
/// 2.12 reports for every row of this table and four query lengths (144,
/// 375, 1000 and 2005 residues against UniProt 20k: 352 of 352 equal, the
/// test `the_table_and_the_edge_correction_give_blastps_search_spaces`).
#[rustfmt::skip]
const TABLE: &[Row] = &[
    ("blosum45", 13, 3, 0.207, 0.049, 0.14, 1.5, -22.0),
    ("blosum45", 12, 3, 0.199, 0.039, 0.11, 1.8, -34.0),
    ("blosum45", 11, 3, 0.190, 0.031, 0.095, 2.0, -38.0),
    ("blosum45", 10, 3, 0.179, 0.023, 0.075, 2.4, -51.0),
    ("blosum45", 16, 2, 0.210, 0.051, 0.14, 1.5, -24.0),
    ("blosum45", 15, 2, 0.203, 0.041, 0.12, 1.7, -31.0),
    ("blosum45", 14, 2, 0.195, 0.032, 0.10, 1.9, -36.0),
    ("blosum45", 13, 2, 0.185, 0.024, 0.084, 2.2, -45.0),
    ("blosum45", 12, 2, 0.171, 0.016, 0.061, 2.8, -65.0),
    ("blosum45", 19, 1, 0.205, 0.040, 0.11, 1.9, -43.0),
    ("blosum45", 18, 1, 0.198, 0.032, 0.10, 2.0, -43.0),
    ("blosum45", 17, 1, 0.189, 0.024, 0.079, 2.4, -57.0),
    ("blosum45", 16, 1, 0.176, 0.016, 0.063, 2.8, -67.0),
    ("blosum50", 13, 3, 0.212, 0.063, 0.19, 1.1, -16.0),
    ("blosum50", 12, 3, 0.206, 0.055, 0.17, 1.2, -18.0),
    ("blosum50", 11, 3, 0.197, 0.042, 0.14, 1.4, -25.0),
    ("blosum50", 10, 3, 0.186, 0.031, 0.11, 1.7, -34.0),
    ("blosum50", 9, 3, 0.172, 0.022, 0.082, 2.1, -48.0),
    ("blosum50", 16, 2, 0.215, 0.066, 0.20, 1.05, -15.0),
    ("blosum50", 15, 2, 0.210, 0.058, 0.17, 1.2, -20.0),
    ("blosum50", 14, 2, 0.202, 0.045, 0.14, 1.4, -27.0),
    ("blosum50", 13, 2, 0.193, 0.035, 0.12, 1.6, -32.0),
    ("blosum50", 12, 2, 0.181, 0.025, 0.095, 1.9, -41.0),
    ("blosum50", 19, 1, 0.212, 0.057, 0.18, 1.2, -21.0),
    ("blosum50", 18, 1, 0.207, 0.050, 0.15, 1.4, -28.0),
    ("blosum50", 17, 1, 0.198, 0.037, 0.12, 1.6, -33.0),
    ("blosum50", 16, 1, 0.186, 0.025, 0.10, 1.9, -42.0),
    ("blosum50", 15, 1, 0.171, 0.015, 0.063, 2.7, -76.0),
    ("blosum62", 11, 2, 0.297, 0.082, 0.27, 1.1, -10.0),
    ("blosum62", 10, 2, 0.291, 0.075, 0.23, 1.3, -15.0),
    ("blosum62", 9, 2, 0.279, 0.058, 0.19, 1.5, -19.0),
    ("blosum62", 8, 2, 0.264, 0.045, 0.15, 1.8, -26.0),
    ("blosum62", 7, 2, 0.239, 0.027, 0.10, 2.5, -46.0),
    ("blosum62", 6, 2, 0.201, 0.012, 0.061, 3.3, -58.0),
    ("blosum62", 13, 1, 0.292, 0.071, 0.23, 1.2, -11.0),
    ("blosum62", 12, 1, 0.283, 0.059, 0.19, 1.5, -19.0),
    ("blosum62", 11, 1, 0.267, 0.041, 0.14, 1.9, -30.0),
    ("blosum62", 10, 1, 0.243, 0.024, 0.10, 2.5, -44.0),
    ("blosum62", 9, 1, 0.206, 0.010, 0.052, 4.0, -87.0),
    ("blosum80", 25, 2, 0.342, 0.17, 0.66, 0.52, -1.6),
    ("blosum80", 13, 2, 0.336, 0.15, 0.57, 0.59, -3.0),
    ("blosum80", 9, 2, 0.319, 0.11, 0.42, 0.76, -6.0),
    ("blosum80", 8, 2, 0.308, 0.090, 0.35, 0.89, -9.0),
    ("blosum80", 7, 2, 0.293, 0.070, 0.27, 1.1, -14.0),
    ("blosum80", 6, 2, 0.268, 0.045, 0.19, 1.4, -19.0),
    ("blosum80", 11, 1, 0.314, 0.095, 0.35, 0.90, -9.0),
    ("blosum80", 10, 1, 0.299, 0.071, 0.27, 1.1, -14.0),
    ("blosum80", 9, 1, 0.279, 0.048, 0.20, 1.4, -19.0),
    ("blosum90", 9, 2, 0.310, 0.12, 0.46, 0.67, -6.0),
    ("blosum90", 8, 2, 0.300, 0.099, 0.39, 0.76, -7.0),
    ("blosum90", 7, 2, 0.283, 0.072, 0.30, 0.93, -11.0),
    ("blosum90", 6, 2, 0.259, 0.048, 0.22, 1.2, -16.0),
    ("blosum90", 11, 1, 0.302, 0.093, 0.39, 0.78, -8.0),
    ("blosum90", 10, 1, 0.290, 0.075, 0.28, 1.04, -15.0),
    ("blosum90", 9, 1, 0.265, 0.044, 0.20, 1.3, -19.0),
    ("pam30", 7, 2, 0.305, 0.15, 0.87, 0.35, -3.0),
    ("pam30", 6, 2, 0.287, 0.11, 0.68, 0.42, -4.0),
    ("pam30", 5, 2, 0.264, 0.079, 0.45, 0.59, -7.0),
    ("pam30", 10, 1, 0.309, 0.15, 0.88, 0.35, -3.0),
    ("pam30", 9, 1, 0.294, 0.11, 0.61, 0.48, -6.0),
    ("pam30", 8, 1, 0.270, 0.072, 0.40, 0.68, -10.0),
    ("pam30", 15, 3, 0.339, 0.28, 1.70, 0.20, -0.5),
    ("pam30", 14, 2, 0.337, 0.27, 1.62, 0.21, -0.8),
    ("pam30", 14, 1, 0.333, 0.27, 1.43, 0.23, -1.4),
    ("pam30", 13, 3, 0.338, 0.27, 1.69, 0.20, -0.5),
    ("pam70", 8, 2, 0.301, 0.12, 0.54, 0.56, -5.0),
    ("pam70", 7, 2, 0.286, 0.093, 0.43, 0.67, -7.0),
    ("pam70", 6, 2, 0.264, 0.064, 0.29, 0.90, -12.0),
    ("pam70", 11, 1, 0.305, 0.12, 0.52, 0.59, -6.0),
    ("pam70", 10, 1, 0.291, 0.091, 0.41, 0.71, -9.0),
    ("pam70", 9, 1, 0.270, 0.060, 0.28, 0.97, -14.0),
    ("pam70", 11, 2, 0.323, 0.186, 0.80, 1.32, -27.0),
    ("pam70", 12, 3, 0.330, 0.219, 0.93, 0.82, -16.0),
    ("pam250", 15, 3, 0.205, 0.049, 0.13, 1.6, -23.0),
    ("pam250", 14, 3, 0.200, 0.043, 0.12, 1.7, -26.0),
    ("pam250", 13, 3, 0.194, 0.036, 0.10, 1.9, -31.0),
    ("pam250", 12, 3, 0.186, 0.029, 0.085, 2.2, -41.0),
    ("pam250", 11, 3, 0.174, 0.020, 0.070, 2.5, -48.0),
    ("pam250", 17, 2, 0.204, 0.047, 0.12, 1.7, -28.0),
    ("pam250", 16, 2, 0.198, 0.038, 0.11, 1.8, -29.0),
    ("pam250", 15, 2, 0.191, 0.031, 0.087, 2.2, -44.0),
    ("pam250", 14, 2, 0.182, 0.024, 0.073, 2.5, -53.0),
    ("pam250", 13, 2, 0.171, 0.017, 0.059, 2.9, -64.0),
    ("pam250", 21, 1, 0.205, 0.045, 0.11, 1.8, -34.0),
    ("pam250", 20, 1, 0.199, 0.037, 0.10, 1.9, -35.0),
    ("pam250", 19, 1, 0.192, 0.029, 0.083, 2.3, -52.0),
    ("pam250", 18, 1, 0.183, 0.021, 0.070, 2.6, -60.0),
    ("pam250", 17, 1, 0.171, 0.014, 0.052, 3.3, -86.0),
];

/// The published gapped parameters of `matrix` (a built-in name, any case)
/// with gap costs `open` + k·`extend`.
///
/// ```
/// let p = host::stats::fixed_parameters("BLOSUM62", 11, 1).unwrap();
/// assert_eq!((p.lambda, p.k), (0.267, 0.041));
/// assert!(host::stats::fixed_parameters("blosum62", 10, 3).is_err());
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] naming the gap costs that have parameters for
/// this matrix, or saying the matrix has none (a matrix file).
pub fn fixed_parameters(matrix: &str, open: i32, extend: i32) -> Result<KarlinAltschul> {
    let name = matrix.to_ascii_lowercase();
    let rows: Vec<&Row> = TABLE.iter().filter(|r| r.0 == name).collect();
    if let Some(&&(_, _, _, lambda, k, h, alpha, beta)) =
        rows.iter().find(|r| r.1 == open && r.2 == extend)
    {
        return Ok(KarlinAltschul {
            lambda,
            k,
            h,
            alpha,
            beta,
        });
    }
    if rows.is_empty() {
        return Err(Error::InvalidArgument(format!(
            "--stats fixed: matrix {matrix} has no published Karlin-Altschul parameters \
             (only the built-in matrices have); use the fitted statistics (the default)"
        )));
    }
    let known: Vec<String> = rows.iter().map(|r| format!("{}/{}", r.1, r.2)).collect();
    Err(Error::InvalidArgument(format!(
        "--stats fixed: {matrix} with gap open {open} / extend {extend} has no published \
         Karlin-Altschul parameters; gap costs (open/extend) with parameters: {}; or use the \
         fitted statistics (the default)",
        known.join(", ")
    )))
}

/// The database as the statistics see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct DatabaseSize {
    /// Number of sequences.
    pub sequences: u64,
    /// Total residues.
    pub residues: u64,
}

/// BLAST's edge correction ℓ (Altschul et al. 2001): the expected length of
/// an alignment that barely reaches significance, taken off the query and
/// each database sequence: the largest whole ℓ with
/// `ℓ ≤ (α/λ)·ln(K·(m−ℓ)·(n−Nℓ)) + β`, kept small enough that the shortened
/// search space still satisfies `K·(m−ℓ)·(n−Nℓ) ≥ max(m, n)` (`m` query
/// length, `n` database residues, `N` database sequences).
///
/// ```
/// // BLOSUM62 11/1, a 144-residue query against 20,000 sequences of
/// // 9,055,569 residues: blastp reports a search space of 408,551,864.
/// use host::stats::{DatabaseSize, fixed_parameters, length_adjustment};
/// let p = fixed_parameters("blosum62", 11, 1).unwrap();
/// let db = DatabaseSize { sequences: 20_000, residues: 9_055_569 };
/// let l = length_adjustment(&p, 144, db);
/// assert_eq!(l, 88);
/// assert_eq!((144 - l) * (9_055_569 - 20_000 * l), 408_551_864);
/// ```
pub fn length_adjustment(p: &KarlinAltschul, query_length: usize, db: DatabaseSize) -> u64 {
    let m = query_length as f64;
    let n = db.residues as f64;
    let count = db.sequences.max(1) as f64;
    let space = |l: f64| (m - l) * (n - count * l);
    let allowed = |l: f64| m - l > 0.0 && n - count * l > 0.0 && p.k * space(l) >= m.max(n);
    if !allowed(0.0) {
        return 0;
    }
    // The largest allowed ℓ (the space shrinks as ℓ grows): bisection.
    let (mut lo, mut hi) = (0.0, m.min(n / count));
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if allowed(mid) { lo = mid } else { hi = mid }
    }
    let largest = lo;
    // ℓ − (α/λ)·ln(K·space(ℓ)) − β rises with ℓ: its root by bisection.
    let excess = |l: f64| l - p.alpha / p.lambda * (p.k * space(l)).ln() - p.beta;
    let root = if excess(0.0) >= 0.0 {
        0.0
    } else if excess(largest) <= 0.0 {
        largest
    } else {
        let (mut lo, mut hi) = (0.0, largest);
        for _ in 0..200 {
            let mid = 0.5 * (lo + hi);
            if excess(mid) <= 0.0 {
                lo = mid
            } else {
                hi = mid
            }
        }
        lo
    };
    root.floor() as u64
}

/// The fitted distribution of one query's scores against unrelated
/// sequences: mean linear in `ln n`, constant variance (Pearson 1998).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Fit {
    /// Mean score at `ln n = 0`.
    pub mean_intercept: f64,
    /// Mean score's growth per unit of `ln n`.
    pub mean_slope: f64,
    /// Variance of the scores around the mean line (one value for every
    /// length, as SSEARCH's default fit has it).
    pub variance: f64,
    /// Scores the final round used.
    pub used: usize,
    /// Scores left out as probable homologs (z-score above
    /// [`trim_threshold`]).
    pub trimmed: usize,
    /// Rounds of fitting and trimming.
    pub rounds: usize,
}

impl Fit {
    /// The z-score of `score` against a sequence of `length` residues.
    pub fn z(&self, score: i32, length: usize) -> f64 {
        let x = (length.max(1) as f64).ln();
        let mean = self.mean_intercept + self.mean_slope * x;
        (f64::from(score) - mean) / self.variance.sqrt()
    }
}

/// Least-squares line `y = a + b·x` over the points where `keep`; `b = 0`
/// when the x are all equal.
fn line(xs: &[f64], ys: &[f64], keep: &[bool]) -> (f64, f64) {
    let (mut n, mut sx, mut sy) = (0.0, 0.0, 0.0);
    for i in 0..xs.len() {
        if keep[i] {
            n += 1.0;
            sx += xs[i];
            sy += ys[i];
        }
    }
    let (mx, my) = (sx / n, sy / n);
    let (mut sxx, mut sxy) = (0.0, 0.0);
    for i in 0..xs.len() {
        if keep[i] {
            sxx += (xs[i] - mx) * (xs[i] - mx);
            sxy += (xs[i] - mx) * (ys[i] - my);
        }
    }
    let slope = if sxx > 0.0 { sxy / sxx } else { 0.0 };
    (my - slope * mx, slope)
}

/// Fits one query's score distribution (Pearson 1998; see the module docs):
/// `scores[i]` against a sequence of `lengths[i]` residues. `None` when
/// fewer than [`MIN_FIT_SEQUENCES`] scores remain or the scores do not vary.
pub fn fit(scores: &[i32], lengths: &[usize]) -> Option<Fit> {
    assert_eq!(scores.len(), lengths.len(), "one length per score");
    let xs: Vec<f64> = lengths.iter().map(|&n| (n.max(1) as f64).ln()).collect();
    let ys: Vec<f64> = scores.iter().map(|&s| f64::from(s)).collect();
    let trim_z = trim_threshold(scores.len());
    let mut keep = vec![true; scores.len()];
    let mut squares = vec![0.0; scores.len()];
    let mut fitted = None;
    for round in 1..=MAX_FIT_ROUNDS {
        let used = keep.iter().filter(|&&k| k).count();
        if used < MIN_FIT_SEQUENCES {
            return None;
        }
        let (a, b) = line(&xs, &ys, &keep);
        for i in 0..xs.len() {
            let residual = ys[i] - (a + b * xs[i]);
            squares[i] = residual * residual;
        }
        let sum: f64 = (0..xs.len()).filter(|&i| keep[i]).map(|i| squares[i]).sum();
        let variance = sum / used as f64;
        if !(variance > 0.0 && variance.is_finite()) {
            return None;
        }
        let this = Fit {
            mean_intercept: a,
            mean_slope: b,
            variance,
            used,
            trimmed: scores.len() - used,
            rounds: round,
        };
        let next: Vec<bool> = (0..xs.len())
            .map(|i| this.z(scores[i], lengths[i]) <= trim_z)
            .collect();

        fitted = Some(this);
        if next == keep {
            break;
        }
        keep = next;
    }
    fitted
}

/// The z-score above which a score is left out of the next round: where
/// the expected number of unrelated sequences scoring as high, `N·P`, is 1.
pub fn trim_threshold(sequences: usize) -> f64 {
    // N·P = 1 with P ≈ exp(−(π/√6)·z − γ) in the tail.
    (((sequences.max(2)) as f64).ln() - EULER_GAMMA) / PI_OVER_SQRT6
}

/// `ln P` for the standardized extreme-value distribution at z-score `z`:
/// `P = 1 − exp(−exp(−(π/√6)·z − γ))`, computed without cancellation.
pub fn ln_pvalue_from_z(z: f64) -> f64 {
    let t = (-(PI_OVER_SQRT6 * z + EULER_GAMMA)).exp();
    if t < 1e-12 {
        // 1 − e^(−t) = t·(1 − t/2 + …): ln P = ln t to double precision.
        -(PI_OVER_SQRT6 * z + EULER_GAMMA)
    } else {
        (-(-t).exp_m1()).ln()
    }
}

/// How one query's E-values are computed.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "method", rename_all = "lowercase")]
pub enum Model {
    /// Fitted to the query's scores.
    Fitted(Fit),
    /// Published parameters with the edge correction.
    Fixed {
        /// λ, K, H, α, β.
        parameters: KarlinAltschul,
        /// ℓ of [`length_adjustment`].
        length_adjustment: u64,
        /// `(m − ℓ)·(n − Nℓ)`.
        search_space: f64,
    },
}

/// One query's statistics: turns a score against a sequence into an E-value
/// and a bit score.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct QueryStatistics {
    /// The model.
    #[serde(flatten)]
    pub model: Model,
    /// Query length.
    pub query_length: usize,
    /// The database.
    pub database: DatabaseSize,
    /// Why the model differs from the one asked, if it does (a fit refused).
    pub note: Option<String>,
}

impl QueryStatistics {
    /// `ln E` of `score` against a sequence of `length` residues (finite
    /// even where E underflows to 0).
    pub fn ln_evalue(&self, score: i32, length: usize) -> f64 {
        match &self.model {
            Model::Fitted(fit) => {
                (self.database.sequences.max(1) as f64).ln()
                    + ln_pvalue_from_z(fit.z(score, length))
            }
            Model::Fixed {
                parameters: p,
                search_space,
                ..
            } => (p.k * search_space).ln() - p.lambda * f64::from(score),
        }
    }

    /// The E-value of `score` against a sequence of `length` residues.
    pub fn evalue(&self, score: i32, length: usize) -> f64 {
        self.ln_evalue(score, length).exp()
    }

    /// The bit score (see the module docs).
    pub fn bits(&self, score: i32, length: usize) -> f64 {
        match &self.model {
            Model::Fitted(fit) => {
                let mn = self.query_length.max(1) as f64 * length.max(1) as f64;
                (mn.ln() - ln_pvalue_from_z(fit.z(score, length))) / std::f64::consts::LN_2
            }
            Model::Fixed { parameters: p, .. } => {
                (p.lambda * f64::from(score) - p.k.ln()) / std::f64::consts::LN_2
            }
        }
    }

    /// One line saying how the E-values were computed: the method, its
    /// reference and its fitted or published parameters, the database and
    /// the search space.
    pub fn describe(&self) -> String {
        let db = self.database;
        let body = match &self.model {
            Model::Fitted(f) => format!(
                "fitted (Pearson 1998): mean score {:.3} + {:.3} ln(n), variance {:.3}, \
                 from {} of {} scores ({} trimmed as probable homologs, {} rounds); E = {} x P",
                f.mean_intercept,
                f.mean_slope,
                f.variance,
                f.used,
                db.sequences,
                f.trimmed,
                f.rounds,
                db.sequences
            ),
            Model::Fixed {
                parameters: p,
                length_adjustment,
                search_space,
            } => format!(
                "fixed (Karlin-Altschul; Altschul & Gish 1996): lambda {} K {} H {} alpha {} beta {}; \
                 length adjustment {length_adjustment}, effective search space {search_space:.0}",
                p.lambda, p.k, p.h, p.alpha, p.beta
            ),
        };
        let note = self
            .note
            .as_ref()
            .map(|n| format!(" ({n})"))
            .unwrap_or_default();
        format!(
            "database {} sequences, {} residues; query {} residues; statistics {body}{note}",
            db.sequences, db.residues, self.query_length
        )
    }
}

/// The statistics of a search: the method, the scoring's published
/// parameters (if any) and the database.
#[derive(Clone, Debug)]
pub struct Statistics {
    method: Method,
    fixed: Option<KarlinAltschul>,
    fixed_error: Option<String>,
    database: DatabaseSize,
}

impl Statistics {
    /// Checks that `method` can give E-values for `scoring` over `database`
    /// before any search runs.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`]: [`Method::Fixed`] for a scoring without
    /// published parameters; [`Method::Fitted`] over a database too small to
    /// fit (fewer than [`MIN_FIT_SEQUENCES`] sequences) whose scoring has no
    /// published parameters to fall back on.
    pub fn new(method: Method, scoring: &Scoring, database: DatabaseSize) -> Result<Statistics> {
        // A matrix file that happens to carry a built-in name is not that
        // matrix unless its scores are the same.
        let name = scoring.matrix.name();
        let builtin = crate::matrix::ScoreMatrix::by_name(name)
            .is_ok_and(|b| b.scores() == scoring.matrix.scores());
        let fixed = match builtin {
            true => fixed_parameters(name, scoring.gaps.open, scoring.gaps.extend),
            false => fixed_parameters(&format!("from file {name}"), 0, 0),
        };
        let (fixed, fixed_error) = match fixed {
            Ok(p) => (Some(p), None),
            Err(e) => (None, Some(e.to_string())),
        };
        match (method, &fixed_error) {
            (Method::Fixed, Some(why)) => return Err(Error::InvalidArgument(why.clone())),
            (Method::Fitted, Some(_)) if (database.sequences as usize) < MIN_FIT_SEQUENCES => {
                return Err(Error::InvalidArgument(format!(
                    "the database has {} sequences, too few to fit the statistics (at least {}), \
                     and matrix {} with gap open {} / extend {} has no published parameters to \
                     use instead: search a larger database or use a built-in matrix with gap costs \
                     from `--stats fixed`'s table",
                    database.sequences,
                    MIN_FIT_SEQUENCES,
                    scoring.matrix.name(),
                    scoring.gaps.open,
                    scoring.gaps.extend
                )));
            }
            _ => {}
        }
        Ok(Statistics {
            method,
            fixed,
            fixed_error,
            database,
        })
    }

    /// The method asked for.
    pub fn method(&self) -> Method {
        self.method
    }

    /// The database the E-values refer to.
    pub fn database(&self) -> DatabaseSize {
        self.database
    }

    fn fixed_model(&self, p: KarlinAltschul, query_length: usize) -> Model {
        let l = length_adjustment(&p, query_length, self.database);
        let m = (query_length as f64 - l as f64).max(1.0);
        let n =
            (self.database.residues as f64 - self.database.sequences as f64 * l as f64).max(1.0);
        Model::Fixed {
            parameters: p,
            length_adjustment: l,
            search_space: m * n,
        }
    }

    /// One query's statistics from its `scores` against every database
    /// sequence (input order) and those sequences' `lengths`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when the fit is refused (too few scores, or
    /// scores that do not vary) and there are no published parameters.
    pub fn for_query(
        &self,
        query_length: usize,
        scores: &[i32],
        lengths: &[usize],
    ) -> Result<QueryStatistics> {
        let (model, note) = match (self.method, self.fixed) {
            (Method::Fixed, Some(p)) => (self.fixed_model(p, query_length), None),
            (Method::Fixed, None) => {
                return Err(Error::InvalidArgument(
                    self.fixed_error.clone().unwrap_or_default(),
                ));
            }
            (Method::Fitted, fixed) => match (fit(scores, lengths), fixed) {
                (Some(f), _) => (Model::Fitted(f), None),
                (None, Some(p)) => (
                    self.fixed_model(p, query_length),
                    Some(format!(
                        "too few or too uniform scores to fit (at least {MIN_FIT_SEQUENCES} varied \
                         scores needed): fixed parameters used"
                    )),
                ),
                (None, None) => {
                    return Err(Error::InvalidArgument(format!(
                        "the scores of a {query_length}-residue query cannot be fitted (at least \
                         {MIN_FIT_SEQUENCES} varied scores needed) and the scoring has no published \
                         parameters: {}",
                        self.fixed_error.clone().unwrap_or_default()
                    )));
                }
            },
        };
        Ok(QueryStatistics {
            model,
            query_length,
            database: self.database,
            note,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// A standard Gumbel variate (location 0, scale 1), by inversion.
    fn gumbel(rng: &mut impl Rng) -> f64 {
        let u: f64 = rng.random_range(f64::EPSILON..1.0);
        -(-u.ln()).ln()
    }

    /// Scores of unrelated sequences as the Karlin–Altschul theory has them:
    /// Gumbel with location `ln(K·m·n)/λ` and scale `1/λ`, rounded.
    fn unrelated(rng: &mut impl Rng, lambda: f64, k: f64, m: usize, n: usize) -> i32 {
        let location = (k * m as f64 * n as f64).ln() / lambda;
        (location + gumbel(rng) / lambda).round() as i32
    }

    fn sample(seed: u64, count: usize, homologs: usize) -> (Vec<i32>, Vec<usize>) {
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let (mut scores, mut lengths) = (Vec::new(), Vec::new());
        for _ in 0..count {
            let n = rng.random_range(50..2000);
            lengths.push(n);
            scores.push(unrelated(&mut rng, 0.27, 0.04, 300, n));
        }
        for i in 0..homologs {
            // Planted homologs: far above chance, spread over the database.
            scores[i * (count / homologs.max(1))] = 400 + i as i32;
        }
        (scores, lengths)
    }

    #[test]
    fn the_fit_recovers_the_planted_distribution() {
        let (scores, lengths) = sample(1, 20_000, 0);
        let f = fit(&scores, &lengths).unwrap();
        // Mean = (ln(K m) + γ)/λ + ln(n)/λ: slope 1/λ.
        let slope = 1.0 / 0.27;
        assert!((f.mean_slope - slope).abs() < 0.15 * slope, "{f:?}");
        // Variance π²/(6λ²), constant in n.
        let variance = std::f64::consts::PI.powi(2) / 6.0 / 0.27f64.powi(2);
        let mid = f.variance;
        assert!(
            (mid - variance).abs() < 0.15 * variance,
            "{f:?} vs {variance}"
        );
    }

    #[test]
    fn evalues_of_unrelated_scores_count_the_scores_above_them() {
        // E(S) over the database = expected number of unrelated sequences
        // scoring S or more: check on the sample itself.
        let (scores, lengths) = sample(2, 20_000, 0);
        let f = fit(&scores, &lengths).unwrap();
        let stats = QueryStatistics {
            model: Model::Fitted(f),
            query_length: 300,
            database: DatabaseSize {
                sequences: scores.len() as u64,
                residues: lengths.iter().sum::<usize>() as u64,
            },
            note: None,
        };
        let below = |cut: f64| {
            (0..scores.len())
                .filter(|&i| stats.evalue(scores[i], lengths[i]) <= cut)
                .count() as f64
        };
        for cut in [10.0, 100.0, 1000.0] {
            let seen = below(cut);
            assert!(
                seen > cut / 2.0 && seen < cut * 2.0,
                "E <= {cut}: {seen} sequences"
            );
        }
    }

    #[test]
    fn planted_homologs_are_trimmed_and_do_not_move_the_fit() {
        let (clean, lengths) = sample(3, 20_000, 0);
        let (planted, _) = sample(3, 20_000, 200);
        let a = fit(&clean, &lengths).unwrap();
        let b = fit(&planted, &lengths).unwrap();
        assert!(b.trimmed >= 200, "{b:?}");
        assert!(b.rounds > 1);
        assert!(
            (a.mean_slope - b.mean_slope).abs() < 0.05 * a.mean_slope.abs(),
            "{a:?} {b:?}"
        );
        let (va, vb) = (a.variance, b.variance);
        assert!((va - vb).abs() < 0.05 * va, "{a:?} {b:?}");
        // An untrimmed fit with the homologs would be far off.
        let z = b.z(400, lengths[0]);
        assert!(z > 20.0, "{z}");
    }

    #[test]
    fn the_fit_is_refused_below_its_minimum_or_without_variation() {
        let (scores, lengths) = sample(4, MIN_FIT_SEQUENCES - 1, 0);
        assert!(fit(&scores, &lengths).is_none());
        assert!(fit(&[7; 500], &[100; 500]).is_none());
    }

    #[test]
    fn ln_pvalue_is_continuous_across_its_two_branches() {
        // Around t = 1e-12 the two branches meet.
        let z_at = |t: f64| (-(t.ln()) - EULER_GAMMA) / PI_OVER_SQRT6;
        let (a, b) = (
            ln_pvalue_from_z(z_at(1.0001e-12)),
            ln_pvalue_from_z(z_at(0.9999e-12)),
        );
        assert!((a - b).abs() < 1e-3, "{a} {b}");
        // The standardized Gumbel's mean: P(Z ≥ 0) = 1 − exp(−e^(−γ)).
        let p0 = 1.0 - (-(-EULER_GAMMA).exp()).exp();
        assert!((ln_pvalue_from_z(0.0) - p0.ln()).abs() < 1e-12);
        assert!(ln_pvalue_from_z(-50.0).abs() < 1e-12);
        assert!(ln_pvalue_from_z(400.0).is_finite());
    }

    #[test]
    fn fixed_evalues_and_bits_follow_karlin_altschul() {
        let p = fixed_parameters("blosum62", 11, 1).unwrap();
        let db = DatabaseSize {
            sequences: 20_000,
            residues: 9_055_569,
        };
        let scoring = Scoring {
            matrix: crate::matrix::ScoreMatrix::by_name("blosum62").unwrap(),
            gaps: crate::scoring::GapPenalty::new(11, 1).unwrap(),
        };
        let stats = Statistics::new(Method::Fixed, &scoring, db).unwrap();
        let q = stats.for_query(144, &[], &[]).unwrap();
        let Model::Fixed { search_space, .. } = q.model else {
            panic!("fixed asked")
        };
        assert_eq!(search_space, 408_551_864.0);
        let score = 64;
        let e = p.k * search_space * (-p.lambda * f64::from(score)).exp();
        assert!((q.evalue(score, 999) - e).abs() < 1e-12 * e);
        // E = space · 2^(−bits), whatever the target's length.
        let bits = q.bits(score, 5);
        assert!((search_space * (-bits * std::f64::consts::LN_2).exp() - e).abs() < 1e-9 * e);
        // blastp prints 29.3 bits for this score.
        assert_eq!(format!("{bits:.1}"), "29.3");
    }

    #[test]
    fn the_trim_threshold_is_where_one_unrelated_score_is_expected() {
        for n in [100usize, 20_000, 570_000] {
            let expected = n as f64 * ln_pvalue_from_z(trim_threshold(n)).exp();
            // The threshold uses the tail P ≈ e^(−x): within 1 % from N = 100.
            assert!((expected - 1.0).abs() < 1e-2, "{n}: {expected}");
        }
    }

    /// The recorded output of `blastp` 2.12 (benches/stats/): per matrix and
    /// gap costs the printed λ, K, H, α and the effective search space of
    /// four queries against UniProt 20k (20,000 sequences, 9,055,569
    /// residues). Every row of the table, every search space equal.
    #[test]
    fn the_table_and_the_edge_correction_give_blastps_search_spaces() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../benches/stats/");
        let parameters = std::fs::read_to_string(format!("{dir}blastp_parameters.txt")).unwrap();
        let spaces = std::fs::read_to_string(format!("{dir}blastp_search_spaces.txt")).unwrap();
        let db = DatabaseSize {
            sequences: 20_000,
            residues: 9_055_569,
        };
        let space = |p: &KarlinAltschul, m: usize| {
            let l = length_adjustment(p, m, db);
            (m as u64 - l) * (db.residues - db.sequences * l)
        };
        let mut checked = 0;
        for line in parameters.lines() {
            let f: Vec<&str> = line.split_whitespace().collect();
            let (open, extend) = (f[1].parse().unwrap(), f[2].parse().unwrap());
            let p = fixed_parameters(f[0], open, extend).unwrap();
            let printed: Vec<f64> = f[3..7].iter().map(|x| x.parse().unwrap()).collect();
            assert_eq!(printed, [p.lambda, p.k, p.h, p.alpha], "{line}");
            assert_eq!(space(&p, 144), f[9].parse::<u64>().unwrap(), "{line}");
            checked += 1;
        }
        assert_eq!(checked, TABLE.len());
        let length = |query: &str| match query {
            "P07327" => 375,
            "P27895" => 1000,
            "P04775" => 2005,
            other => panic!("unknown query {other}"),
        };
        for line in spaces.lines() {
            let f: Vec<&str> = line.split_whitespace().collect();
            let p = fixed_parameters(f[1], f[2].parse().unwrap(), f[3].parse().unwrap()).unwrap();
            assert_eq!(
                space(&p, length(f[0])),
                f[4].parse::<u64>().unwrap(),
                "{line}"
            );
            checked += 1;
        }
        // Four queries, every row.
        assert_eq!(checked, 4 * TABLE.len());
    }

    #[test]
    fn unknown_combinations_have_clear_errors() {
        let e = fixed_parameters("blosum62", 10, 3).unwrap_err().to_string();
        assert!(
            e.contains("11/1") && e.contains("gap open 10 / extend 3"),
            "{e}"
        );
        let e = fixed_parameters("custom.mat", 11, 1)
            .unwrap_err()
            .to_string();
        assert!(e.contains("no published"), "{e}");
        // Every built-in matrix has parameters for some gap costs.
        for name in crate::matrix::BUILTIN {
            assert!(TABLE.iter().any(|r| r.0 == *name), "{name}");
        }
    }

    #[test]
    fn a_small_database_falls_back_to_fixed_parameters_or_refuses() {
        let db = DatabaseSize {
            sequences: 4,
            residues: 400,
        };
        let with = |open| Scoring {
            matrix: crate::matrix::ScoreMatrix::by_name("blosum62").unwrap(),
            gaps: crate::scoring::GapPenalty::new(open, 1).unwrap(),
        };
        let stats = Statistics::new(Method::Fitted, &with(11), db).unwrap();
        let q = stats.for_query(50, &[1, 2, 3, 4], &[100; 4]).unwrap();
        assert!(matches!(q.model, Model::Fixed { .. }));
        assert!(q.note.is_some());
        let e = Statistics::new(Method::Fitted, &with(5), db)
            .unwrap_err()
            .to_string();
        assert!(e.contains("too few to fit"), "{e}");
    }
}
