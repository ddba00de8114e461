//! BLAST's published gapped parameters ([`Method::Fixed`]): the table of
//! λ, K, H and the edge correction's α, β that NCBI BLAST has for its
//! matrices and gap costs, the finite-size correction's lines where its
//! tables have them, and the edge correction's length adjustment.
//!
//! * Karlin, S. & Altschul, S. F. (1990). *Methods for assessing the
//!   statistical significance of molecular sequence features by using
//!   general scoring schemes.* PNAS 87:2264–2268: `E = K·m'·n'·e^(−λS)`.
//! * Altschul, S. F. & Gish, W. (1996). *Local alignment statistics.*
//!   Methods Enzymol. 266:460–480: the gapped λ, K the table holds
//!   ([`fixed_parameters`]).
//! * Altschul, S. F., Bundschuh, R., Olsen, R. & Hwa, T. (2001). *The
//!   estimation of statistical parameters for local alignment score
//!   distributions.* Nucleic Acids Res. 29:351–361: the edge correction
//!   ([`length_adjustment`]).
//! * Park, Y., Sheetlin, S., Ma, N., Madden, T. L. & Spouge, J. L. (2012).
//!   *New finite-size correction for local alignment score distributions.*
//!   BMC Research Notes 5:286: a pair's expected count of alignments
//!   ([`Spouge::ln_area`]), as `blastp` 2.12 computes it.
//!
//! [`Method::Fixed`]: super::Method::Fixed

use serde::Serialize;

use super::DatabaseSize;
use crate::error::{Error, Result};

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
    /// The finite-size correction (Park et al. 2012), where the tables
    /// have it.
    pub spouge: Option<Spouge>,
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

/// The finite-size correction's parameters of one matrix and gap costs
/// (Park, Y., Sheetlin, S., Ma, N., Madden, T. L. & Spouge, J. L. (2012).
/// *New finite-size correction for local alignment score distributions.*
/// BMC Research Notes 5:286): the alignment length's mean `a·S + b`, its
/// variance `α_v·S + β_v` and the covariance of the two lengths
/// `σ·S + τ`, each a line in the score `S`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Spouge {
    /// Slope of the mean length (the edge correction's α).
    pub a: f64,
    /// Intercept of the mean length.
    pub b: f64,
    /// Slope of the length's variance.
    pub alpha_v: f64,
    /// Intercept of the length's variance.
    pub beta_v: f64,
    /// Slope of the lengths' covariance.
    pub sigma: f64,
    /// Intercept of the lengths' covariance.
    pub tau: f64,
}

/// Per matrix: the ungapped slopes of the mean and of the variance of the
/// length (`a`, `α_v` at infinite gap costs); the intercepts of the gapped
/// lines follow from them (Park et al. 2012: `b = 2G(a_un − a)`,
/// `β_v = 2G(α_v,un − α_v)`, `τ = 2G(α_v,un − σ)`, `G = open + extend`).
#[rustfmt::skip]
const SPOUGE_UNGAPPED: &[(&str, f64, f64)] = &[
    ("blosum45", 0.9113, 9.61106),
    ("blosum50", 0.6895, 5.38831),
    ("blosum62", 0.7916, 4.96466),
    ("blosum80", 0.5222, 1.91813),
    ("blosum90", 0.4434, 1.37776),
    ("pam30", 0.1938, 0.161818),
    ("pam70", 0.3250, 0.633439),
    ("pam250", 0.98, 11.7543),
];

/// Per matrix and gap costs: `α_v` and `σ` (the slope `a` is the table's
/// α): the values NCBI BLAST tabulates from the Spouge group's estimates.
#[rustfmt::skip]
const SPOUGE_GAPPED: &[(&str, i32, i32, f64, f64)] = &[
    ("blosum45", 13, 3, 35.8559, 35.9639), ("blosum45", 12, 3, 45.6936, 45.8517),
    ("blosum45", 11, 3, 62.8741, 63.1037), ("blosum45", 10, 3, 88.2868, 88.6391),
    ("blosum45", 16, 2, 36.2798, 36.4524), ("blosum45", 15, 2, 44.8257, 45.0604),
    ("blosum45", 14, 2, 60.7362, 61.1023), ("blosum45", 13, 2, 85.1481, 85.6894),
    ("blosum45", 12, 2, 127.758, 128.582), ("blosum45", 19, 1, 53.0714, 53.8282),
    ("blosum45", 18, 1, 72.3424, 73.4039), ("blosum45", 17, 1, 103.055, 104.721),
    ("blosum45", 16, 1, 170.100, 173.003),
    ("blosum50", 13, 3, 18.1138, 18.2028), ("blosum50", 12, 3, 22.6546, 22.7777),
    ("blosum50", 11, 3, 29.8611, 30.0457), ("blosum50", 10, 3, 42.3938, 42.6740),
    ("blosum50", 9, 3, 66.0696, 66.5164), ("blosum50", 16, 2, 17.9518, 18.0921),
    ("blosum50", 15, 2, 21.9401, 22.1418), ("blosum50", 14, 2, 28.6812, 28.9619),
    ("blosum50", 13, 2, 42.0595, 42.4716), ("blosum50", 12, 2, 63.7476, 64.3973),
    ("blosum50", 19, 1, 26.3112, 26.9233), ("blosum50", 18, 1, 34.9037, 35.7348),
    ("blosum50", 17, 1, 48.8958, 50.1486), ("blosum50", 16, 1, 76.4691, 78.4430),
    ("blosum50", 15, 1, 140.053, 144.160),
    ("blosum62", 11, 2, 12.6738, 12.7576), ("blosum62", 10, 2, 16.4740, 16.6026),
    ("blosum62", 9, 2, 22.7519, 22.9500), ("blosum62", 8, 2, 35.4838, 35.8213),
    ("blosum62", 7, 2, 61.2383, 61.8860), ("blosum62", 6, 2, 140.417, 141.882),
    ("blosum62", 13, 1, 19.5063, 19.8931), ("blosum62", 12, 1, 27.8562, 28.4699),
    ("blosum62", 11, 1, 42.6028, 43.6362), ("blosum62", 10, 1, 83.1787, 85.0656),
    ("blosum62", 9, 1, 210.333, 214.842),
    ("blosum80", 25, 2, 1.73100, 1.73130), ("blosum80", 13, 2, 2.67347, 2.69230),
    ("blosum80", 9, 2, 5.57609, 5.66786), ("blosum80", 8, 2, 7.53695, 7.68623),
    ("blosum80", 7, 2, 11.5866, 11.8404), ("blosum80", 6, 2, 19.9581, 20.4412),
    ("blosum80", 11, 1, 8.80861, 9.22332), ("blosum80", 10, 1, 13.8338, 14.5334),
    ("blosum80", 9, 1, 24.2520, 25.4904),
    ("blosum90", 9, 2, 4.23229, 4.33417), ("blosum90", 8, 2, 5.79702, 5.96142),
    ("blosum90", 7, 2, 9.04088, 9.32160), ("blosum90", 6, 2, 16.0244, 16.5316),
    ("blosum90", 11, 1, 7.14325, 7.61919), ("blosum90", 10, 1, 11.4839, 12.2698),
    ("blosum90", 9, 1, 21.4083, 22.8409),
    ("pam30", 7, 2, 1.01401, 1.16273), ("pam30", 6, 2, 1.68806, 1.95143),
    ("pam30", 5, 2, 3.37701, 3.87195), ("pam30", 10, 1, 1.37205, 1.78877),
    ("pam30", 9, 1, 2.46392, 3.18615), ("pam30", 8, 1, 5.36813, 6.76348),
    ("pam70", 8, 2, 2.88165, 3.02571), ("pam70", 7, 2, 4.53454, 4.78578),
    ("pam70", 6, 2, 7.94263, 8.40272), ("pam70", 11, 1, 3.68140, 4.10802),
    ("pam70", 10, 1, 6.00297, 6.71657), ("pam70", 9, 1, 11.3608, 12.6367),
    ("pam250", 15, 3, 34.5784, 34.9280), ("pam250", 14, 3, 43.3530, 43.4438),
    ("pam250", 13, 3, 50.9485, 51.0817), ("pam250", 12, 3, 69.6065, 69.7936),
    ("pam250", 11, 3, 98.6535, 98.9271), ("pam250", 17, 2, 41.5838, 41.7358),
    ("pam250", 16, 2, 51.6352, 51.8439), ("pam250", 15, 2, 67.2567, 67.5585),
    ("pam250", 14, 2, 96.3151, 96.7568), ("pam250", 13, 2, 135.653, 136.339),
    ("pam250", 21, 1, 48.7282, 49.2188), ("pam250", 20, 1, 60.8320, 61.5141),
    ("pam250", 19, 1, 84.0197, 84.9856), ("pam250", 18, 1, 113.829, 115.184),
    ("pam250", 17, 1, 175.071, 177.196),
];

/// The finite-size correction's lines for `matrix` (lower case) with gap
/// costs `open`/`extend` and the edge correction's slope `a`; `None` where
/// the tables have no estimate.
fn spouge_parameters(matrix: &str, open: i32, extend: i32, a: f64) -> Option<Spouge> {
    let &(_, a_un, alpha_v_un) = SPOUGE_UNGAPPED.iter().find(|r| r.0 == matrix)?;
    let &(_, _, _, alpha_v, sigma) = SPOUGE_GAPPED
        .iter()
        .find(|r| r.0 == matrix && r.1 == open && r.2 == extend)?;
    let g2 = 2.0 * f64::from(open + extend);
    Some(Spouge {
        a,
        b: g2 * (a_un - a),
        alpha_v,
        beta_v: g2 * (alpha_v_un - alpha_v),
        sigma,
        tau: g2 * (alpha_v_un - sigma),
    })
}

/// The complementary error function, to double precision: 1 − erf by
/// erf's Taylor series below 1.5, erfc's continued fraction (100 terms)
/// above (where the difference would lose the digits), `2 − erfc(−x)` for
/// negative `x`.
fn erfc(x: f64) -> f64 {
    if x < 0.0 {
        return 2.0 - erfc(-x);
    }
    if x < 1.5 {
        // erf(x) = 2/√π Σ (−1)ᵏ x^(2k+1) / (k! (2k+1))
        let (mut term, mut sum) = (x, x);
        for k in 1..200 {
            term *= -x * x / k as f64;
            let add = term / (2 * k + 1) as f64;
            sum += add;
            if add.abs() < 1e-17 * sum.abs() {
                break;
            }
        }
        return 1.0 - 2.0 / std::f64::consts::PI.sqrt() * sum;
    }
    // erfc(x) = e^(−x²)/√π · 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + …)))),
    // evaluated from the tail.
    let mut f = x;
    for k in (1..100).rev() {
        f = x + (k as f64 / 2.0) / f;
    }
    (-x * x).exp() / std::f64::consts::PI.sqrt() / f
}

/// The standard normal distribution function Φ.
fn normal_cdf(x: f64) -> f64 {
    0.5 * erfc(-x / std::f64::consts::SQRT_2)
}

impl Spouge {
    /// `ln` of the expected number of alignments of score ≥ `score` between
    /// one query of `m` residues and one target of `n`, over `K·e^(−λS)`:
    /// the "area" of Park et al. (2012), `p(m)·p(n) + c(S)·P(m)·P(n)`,
    /// with, for a length `L`, `ℓ = a·S + b`, `v = max(2α_v/λ, α_v·S + β_v)`,
    /// `F = (L − ℓ)/√v`, `P(L) = Φ(F)` and `p(L) = (L − ℓ)·P(L) + √v·φ(F)`
    /// (Φ, φ the normal distribution and density), and
    /// `c(S) = max(2σ/λ, σ·S + τ)`.
    pub fn ln_area(&self, lambda: f64, score: i32, m: usize, n: usize) -> f64 {
        let y = f64::from(score);
        let inv_sqrt_2pi = 1.0 / (2.0 * std::f64::consts::PI).sqrt();
        let variance = (2.0 * self.alpha_v / lambda).max(self.alpha_v * y + self.beta_v);
        let sd = variance.sqrt();
        // `p(L)` is never negative, but where `F` is far below zero its two
        // terms cancel, and the difference can come out a negative
        // subnormal: floored at zero, the area of a score beyond what the
        // lengths can hold underflows to 0 (E = 0) rather than to the
        // logarithm of a negative number (NaN, which no cut passes).
        let side = |length: usize| {
            let left = length as f64 - (self.a * y + self.b);
            let f = left / sd;
            let p = normal_cdf(f);
            (
                (left * p + sd * inv_sqrt_2pi * (-0.5 * f * f).exp()).max(0.0),
                p,
            )
        };
        let ((p1, cm), (p2, cn)) = (side(m), side(n));
        let c = (2.0 * self.sigma / lambda).max(self.sigma * y + self.tau);
        (p1 * p2 + c * cm * cn).ln()
    }
}

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
            spouge: spouge_parameters(&name, open, extend, alpha),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_finite_size_correction_covers_the_table_but_six_pam_rows() {
        let without: Vec<String> = TABLE
            .iter()
            .filter(|r| fixed_parameters(r.0, r.1, r.2).unwrap().spouge.is_none())
            .map(|r| format!("{} {}/{}", r.0, r.1, r.2))
            .collect();
        assert_eq!(
            without,
            [
                "pam30 15/3",
                "pam30 14/2",
                "pam30 14/1",
                "pam30 13/3",
                "pam70 11/2",
                "pam70 12/3"
            ]
        );
        // Every row of the correction's table is a row of the main one.
        for r in SPOUGE_GAPPED {
            assert!(
                TABLE.iter().any(|t| (t.0, t.1, t.2) == (r.0, r.1, r.2)),
                "{r:?}"
            );
        }
    }

    #[test]
    fn erfc_and_the_normal_distribution() {
        // Values to 15 digits (erfc(0.5), erfc(2), erfc(4), erfc(10)).
        for (x, want) in [
            (0.5, 0.479_500_122_186_953_5),
            (2.0, 0.004_677_734_981_047_266),
            (4.0, 1.541_725_790_028_002e-8),
            (10.0, 2.088_487_583_762_545e-45),
        ] {
            assert!((erfc(x) - want).abs() < 1e-14 * want, "{x}: {}", erfc(x));
            assert!((erfc(-x) - (2.0 - want)).abs() < 1e-15, "{x}");
        }
        assert_eq!(normal_cdf(0.0), 0.5);
        assert!((normal_cdf(1.96) - 0.975_002_104_851_780).abs() < 1e-14);
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
}
