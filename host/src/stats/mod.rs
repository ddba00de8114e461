//! Statistics of local alignment scores: each hit's bit score and E-value.
//!
//! Takes a query's scores against every database sequence (input order) and
//! the sequences' lengths, returns a [`QueryStatistics`] that turns a score
//! and a target length into an E-value ([`QueryStatistics::ln_evalue`]) and
//! a bit score ([`QueryStatistics::bits`]).
//!
//! # Methods
//! * [`Method::Fitted`] (the default) estimates the score distribution from
//!   the search's own scores, as SSEARCH does by default (FASTA 36, `-z 1`):
//!   Pearson, W. R. (1998). *Empirical statistical estimates for sequence
//!   similarity searches.* J. Mol. Biol. 276:71–84. The mean score of
//!   unrelated sequences grows with the logarithm of their length, and the
//!   scores around that mean follow an extreme-value distribution of one
//!   variance for all lengths ([`fit`]):
//!   1. The database sequences are grouped by length in bins of a tenth of
//!      `ln n` (about 10 % in length); sequences shorter than
//!      [`MIN_FIT_LENGTH`] are left out. The mean score is regressed on
//!      `ln n` over the bins' means, each weighted by the inverse of its
//!      squared standard error; the variance is that of all binned scores
//!      around the line. As in SSEARCH, a score's mean is taken half a
//!      bin's slope below the line at its length (SSEARCH places bin `j` at
//!      `j + ½` in the regression but a score at `10·ln n`).
//!   2. A first fit over every score, each capped at [`first_fit_cap`]
//!      (the score whose ungapped Karlin–Altschul E-value would be 0.01, so
//!      that a family of homologs with huge scores cannot tilt it; with the
//!      ungapped λ and K that ssearch36 computes, [`ssearch_cap_parameters`]:
//!      with hundreds of homologs the cap decides what is trimmed), picks
//!      the scores to leave out: z-scores above [`trim_threshold`] (an
//!      E-value below 1: fewer than one unrelated sequence expected to
//!      score as high; probable homologs) or below [`LOW_TRIM_Z`].
//!   3. Bins whose scores scatter unlike the others (their squared
//!      residuals far from a line of variance against `ln n`: clusters of
//!      near-identical sequences of one length) are dropped, and the fit is
//!      made again over what is left.
//!
//!   A score's z-score `z = (S − mean(n)) / sd` then follows the
//!   standardized extreme-value distribution, so one sequence's P-value is
//!   `P = 1 − exp(−exp(−(π/√6)·z − γ))` (γ Euler's constant), and the
//!   E-value over a database of `N` sequences is `E = N · P`, SSEARCH's
//!   `E(N)`. Against UniProt 20k with BLOSUM62 and gap costs 11/1 (open
//!   11, extend 1: `ssearch36 -s BL62 -f -11 -g -1`), the E-values agree
//!   with `ssearch36`'s within a factor 2 for 100 % of its hits with
//!   E < 10, and of those with E < 0.001, over the 20 standard queries
//!   (1,235 hits) and over 200 E. coli proteins (6,261 hits, among them
//!   ABC transporters with hundreds of homologs); the same over the 20
//!   queries at 10/1 (1,351 hits; benches/RESULTS.md). With BLAST's
//!   ungapped λ, K in the first fit's cap and bin centres the figures at
//!   11/1 were 75.1 % (E < 0.001: 50.5 %) for E. coli and 98.1 % (93.6 %)
//!   for the 20 queries; an iterated trimming without bins and cap gave
//!   85 % (20 queries, 10/1).
//!
//!   Below [`MIN_FIT_SEQUENCES`] scores left, fewer than 5 length bins or
//!   scores that do not vary (a small database, a database of one length,
//!   a peptide of a few residues), the fit is refused, and the query still
//!   gets E-values, from the first of these that it has (said in
//!   [`QueryStatistics::fallback`]; a search never fails for want of
//!   statistics):
//!   1. the published parameters ([`Method::Fixed`]'s), where the scoring
//!      has them;
//!   2. the same fit over the query's scores against random sequences
//!      ([`simulated`]; [`Model::Simulated`]), as SSEARCH fits shuffled
//!      sequences' scores when the library is small;
//!   3. the matrix's ungapped parameters ([`Model::Ungapped`]), which every
//!      matrix with local alignment statistics has: a query of one or two
//!      residues, whose scores against random sequences hardly vary, aligns
//!      without gaps anyway. A matrix without them is refused before the
//!      search ([`Statistics::new`]).
//! * [`Method::RawScores`] (`--stats none`): no statistics; the hits are
//!   the best raw scores, ties in database order.
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
//!   Where the tables also have the finite-size correction's estimates (all
//!   rows but six PAM ones), the E-value of a hit is instead that of
//!   Park, Y., Sheetlin, S., Ma, N., Madden, T. L. & Spouge, J. L. (2012).
//!   *New finite-size correction for local alignment score distributions.*
//!   BMC Research Notes 5:286, as `blastp` 2.12 computes it: the pair's
//!   expected count `area·K·e^(−λS)` ([`Spouge::ln_area`], the lengths the
//!   alignments of score S take up from the query and the target) times
//!   `D/n`, the database's residues over the target's. The edge-corrected
//!   search space is still stated. A matrix and gap costs without
//!   published parameters are an error.
//! * [`Method::FixedFasta`]: Karlin–Altschul statistics with the gapped λ,
//!   K and H of FASTA's own table (Altschul & Gish 1996's method; FASTA's
//!   values differ from BLAST's: BLOSUM62 11/1 has λ 0.275, K 0.050 there
//!   against BLAST's 0.267, 0.041), computed per pair as SSEARCH does with
//!   `-z 3` (Pearson, W. R. (1998). J. Mol. Biol. 276:71–84, for `E(N)`):
//!   the query's and the target's lengths are each shortened by the
//!   expected length of an alignment, `ℓ = ln(K·m·n)/H` (Altschul & Gish
//!   1996), to at least 1; the pair's expected count of alignments scoring
//!   S or more is `x = K·m'·n'·e^(−λS)`; its P-value is `1 − e^(−x)`, or `x`
//!   itself where `x ≤ 0.01`; and the E-value over a database of `N`
//!   sequences is `N·P` ([`AltschulGish`], [`fasta_parameters`]). Only the
//!   table's own gap costs are accepted (SSEARCH silently takes another
//!   row, the ungapped parameters or BLOSUM62's for the others), and only
//!   for BLOSUM50 and BLOSUM62: FASTA's BLOSUM80 and PAM250 are not NCBI's.
//!
//! # Bit scores
//! The bit score `S'` of a hit is the one for which `m·n·2^(−S')` is the
//! hit's P-value in the Karlin–Altschul tail `P ≈ K·m·n·e^(−λS)`: with the
//! fixed parameters this is BLAST's `(λS − ln K)/ln 2`; with FASTA's it is
//! `log2(m·n/x)` with the pair's edge-corrected `x` above (SSEARCH's bit
//! score); with the fitted statistics it is `log2(m·n/P)` with the fitted
//! P.
//!
//! # Databases in parts
//! The fit uses every database score of the query. Every engine returns the
//! scores of the whole database (all its parts, all GPUs, streamed or not)
//! before statistics are computed, so E-values do not depend on how the
//! database was split. The fit's sums (`Σx`, `Σs`, `Σxs`, ...) could be
//! merged across separately searched shards, but the trimming needs the
//! scores themselves: shards searched apart must hand their scores (or the
//! scores' lengths) to one fit.

use rayon::prelude::*;
use serde::Serialize;

use crate::error::{Error, Result};
use crate::scoring::Scoring;

pub mod simulated;

/// Euler's constant γ.
const EULER_GAMMA: f64 = 0.577_215_664_901_532_9;

/// π/√6: the standard deviation of the standard Gumbel distribution is
/// `π/√6`, so `(π/√6)·z + γ` maps a z-score to the standard Gumbel variable.
const PI_OVER_SQRT6: f64 = std::f64::consts::PI / 2.449_489_742_783_178;

/// The fewest scores the fitted statistics accept (after trimming).
pub const MIN_FIT_SEQUENCES: usize = 100;

/// How E-values are computed (`--stats`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Method {
    /// Fitted to the search's own scores (Pearson 1998), as SSEARCH does.
    Fitted,
    /// Karlin–Altschul with the published λ, K (Altschul & Gish 1996, BLAST's
    /// tables), the finite-size correction of Park et al. (2012) where the
    /// tables have it, else BLAST's edge correction.
    Fixed,
    /// Karlin–Altschul with FASTA's table of Altschul–Gish λ, K, H and each
    /// pair's lengths shortened by `ln(K·m·n)/H`, as `ssearch36 -z 3`.
    FixedFasta,
    /// No statistics: hits ranked by raw score, no E-values or bit scores
    /// (the k best scores, as CUDASW++'s `--top k`).
    #[cfg_attr(feature = "clap", value(name = "none"))]
    RawScores,
}

impl std::fmt::Display for Method {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Method::Fitted => "fitted",
            Method::Fixed => "fixed",
            Method::FixedFasta => "fixed-fasta",
            Method::RawScores => "none",
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
        let side = |length: usize| {
            let left = length as f64 - (self.a * y + self.b);
            let f = left / sd;
            let p = normal_cdf(f);
            (left * p + sd * inv_sqrt_2pi * (-0.5 * f * f).exp(), p)
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

/// Gapped Altschul–Gish parameters of one matrix and gap costs as FASTA
/// tabulates them ([`Method::FixedFasta`]).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct AltschulGish {
    /// λ, per score unit.
    pub lambda: f64,
    /// K.
    pub k: f64,
    /// Relative entropy H, nats per aligned pair: sets the expected length
    /// of an alignment, `ln(K·m·n)/H`, that the lengths are shortened by.
    pub h: f64,
}

/// The Gumbel z-score `(λS − ln(K·m'·n') − γ)/(π/√6)` above which SSEARCH
/// reports an E-value of 0 (its guard against underflow; `x` below about
/// 1.9·10⁻²²³).
const FASTA_ZERO_Z: f64 = 400.0;

/// Where the P-value switches from `x` to `1 − e^(−x)`: SSEARCH takes `x`
/// itself up to 0.01, where the two differ by up to 0.5 %, which shows in
/// the two digits it prints.
const FASTA_POISSON_FROM: f64 = 0.01;

/// `x` as a single-precision number, widened back: SSEARCH holds its table
/// in single precision, and the last bits of λ decide an E-value that
/// falls on a printing boundary (E = 99.500015 from the decimal 0.275
/// prints as 1e+02, SSEARCH's 99.49999 as 99).
fn as_single_precision(x: f64) -> f64 {
    f64::from(x as f32)
}

impl AltschulGish {
    /// The query's and the target's lengths shortened by the expected
    /// length of an alignment, `ℓ = ln(K·m·n)/H` (Altschul & Gish 1996),
    /// each kept at least 1.
    pub fn effective_lengths(&self, m: usize, n: usize) -> (f64, f64) {
        let (k, h) = (as_single_precision(self.k), as_single_precision(self.h));
        let (m, n) = (m.max(1) as f64, n.max(1) as f64);
        let edge = (k * m * n).ln() / h;
        ((m - edge).max(1.0), (n - edge).max(1.0))
    }

    /// `ln x`, `x = K·m'·n'·e^(−λS)`: the expected number of alignments
    /// scoring `score` or more between a query of `m` residues and a target
    /// of `n`, over the [`AltschulGish::effective_lengths`].
    pub fn ln_pair_expectation(&self, score: i32, m: usize, n: usize) -> f64 {
        let (m, n) = self.effective_lengths(m, n);
        let (lambda, k) = (
            as_single_precision(self.lambda),
            as_single_precision(self.k),
        );
        (k * m * n).ln() - lambda * f64::from(score)
    }
}

/// One row of FASTA's table: matrix, gap open, gap extend, λ, K, H.
type FastaRow = (&'static str, i32, i32, f64, f64, f64);

/// The Altschul–Gish parameters SSEARCH uses with `-z 3` (FASTA 36.3.8i)
/// for the gap costs its table lists, in warpsw's gap convention (a gap of
/// k residues costs open + k·extend; `ssearch36 -f -OPEN -g -EXTEND`
/// charges the same). Recorded from what `ssearch36` prints (the header's
/// "Altschul/Gish params", the `-R` file's λ and K to 6 digits) for open
/// 0–30 and extend 1–16 (benches/stats/ssearch36_z3_parameters.txt). Gap
/// costs are a row here when their parameters are their own: one less to
/// open (open − 1), or one less to extend at the same cost of a
/// one-residue gap (open + 1, extend − 1), prints others. SSEARCH's
/// substitutes for the gap costs its table lacks (the next row, the
/// ungapped parameters above the table's largest gap cost, BLOSUM62's
/// where BLOSUM50 has no row) are left out, and [`fasta_parameters`]
/// refuses them (the test `fasta_parameters_are_what_ssearch36_prints`).
/// Only BLOSUM50 and BLOSUM62: SSEARCH's BL80 and PAM250 score some pairs
/// unlike NCBI's BLOSUM80 and PAM250 (benches/RESULTS.md).
#[rustfmt::skip]
const FASTA_TABLE: &[FastaRow] = &[
    ("blosum50", 15, 1, 0.18, 0.024, 0.15),
    ("blosum50", 14, 1, 0.166, 0.018, 0.11),
    ("blosum50", 13, 1, 0.14, 0.009, 0.07),
    ("blosum50", 12, 1, 0.114, 0.006, 0.04),
    ("blosum50", 14, 2, 0.207, 0.05, 0.24),
    ("blosum50", 13, 2, 0.202, 0.05, 0.22),
    ("blosum50", 12, 2, 0.188, 0.034, 0.17),
    ("blosum50", 11, 2, 0.174, 0.025, 0.13),
    ("blosum50", 10, 2, 0.158, 0.019, 0.1),
    ("blosum50", 9, 2, 0.13, 0.009, 0.06),
    ("blosum50", 8, 2, 0.099, 0.007, 0.03),
    ("blosum50", 13, 3, 0.213, 0.06, 0.27),
    ("blosum50", 12, 3, 0.21, 0.06, 0.25),
    ("blosum50", 11, 3, 0.201, 0.05, 0.22),
    ("blosum50", 10, 3, 0.188, 0.034, 0.18),
    ("blosum50", 9, 3, 0.178, 0.028, 0.15),
    ("blosum50", 8, 3, 0.167, 0.028, 0.11),
    ("blosum50", 7, 3, 0.139, 0.013, 0.07),
    ("blosum50", 6, 3, 0.107, 0.008, 0.04),
    ("blosum50", 12, 4, 0.222, 0.08, 0.31),
    ("blosum50", 11, 4, 0.216, 0.07, 0.28),
    ("blosum50", 10, 4, 0.205, 0.05, 0.24),
    ("blosum50", 9, 4, 0.202, 0.05, 0.22),
    ("blosum50", 8, 4, 0.192, 0.04, 0.18),
    ("blosum50", 7, 4, 0.177, 0.031, 0.15),
    ("blosum50", 6, 4, 0.156, 0.02, 0.1),
    ("blosum50", 5, 4, 0.134, 0.014, 0.07),
    ("blosum50", 4, 4, 0.101, 0.009, 0.03),
    ("blosum50", 9, 5, 0.214, 0.07, 0.27),
    ("blosum50", 8, 5, 0.205, 0.05, 0.24),
    ("blosum50", 7, 5, 0.197, 0.05, 0.21),
    ("blosum50", 6, 5, 0.184, 0.04, 0.17),
    ("blosum50", 5, 5, 0.168, 0.026, 0.13),
    ("blosum50", 4, 5, 0.152, 0.021, 0.1),
    ("blosum50", 3, 5, 0.117, 0.011, 0.05),
    ("blosum50", 9, 6, 0.219, 0.08, 0.29),
    ("blosum50", 5, 6, 0.19, 0.04, 0.19),
    ("blosum50", 4, 6, 0.178, 0.035, 0.16),
    ("blosum50", 2, 6, 0.127, 0.013, 0.06),
    ("blosum50", 1, 6, 0.094, 0.01, 0.03),
    ("blosum50", 5, 7, 0.205, 0.06, 0.24),
    ("blosum50", 2, 7, 0.164, 0.029, 0.13),
    ("blosum50", 1, 7, 0.134, 0.015, 0.07),
    ("blosum50", 0, 7, 0.1, 0.01, 0.04),
    ("blosum50", 7, 8, 0.222, 0.09, 0.31),
    ("blosum50", 6, 8, 0.218, 0.08, 0.29),
    ("blosum50", 5, 8, 0.211, 0.06, 0.27),
    ("blosum50", 3, 8, 0.197, 0.05, 0.21),
    ("blosum50", 2, 8, 0.183, 0.04, 0.17),
    ("blosum50", 0, 8, 0.139, 0.017, 0.08),
    ("blosum62", 11, 1, 0.275, 0.05, 0.25),
    ("blosum62", 10, 1, 0.255, 0.035, 0.19),
    ("blosum62", 9, 1, 0.216, 0.014, 0.12),
    ("blosum62", 8, 1, 0.176, 0.008, 0.06),
    ("blosum62", 10, 2, 0.3, 0.09, 0.34),
    ("blosum62", 9, 2, 0.286, 0.07, 0.29),
    ("blosum62", 8, 2, 0.266, 0.04, 0.24),
    ("blosum62", 7, 2, 0.244, 0.03, 0.18),
    ("blosum62", 6, 2, 0.215, 0.021, 0.12),
    ("blosum62", 5, 2, 0.164, 0.009, 0.06),
    ("blosum62", 9, 3, 0.305, 0.1, 0.38),
    ("blosum62", 8, 3, 0.301, 0.09, 0.36),
    ("blosum62", 7, 3, 0.281, 0.06, 0.29),
    ("blosum62", 5, 3, 0.243, 0.035, 0.18),
    ("blosum62", 4, 3, 0.208, 0.021, 0.11),
    ("blosum62", 3, 3, 0.153, 0.01, 0.05),
    ("blosum62", 6, 4, 0.293, 0.08, 0.33),
    ("blosum62", 5, 4, 0.273, 0.06, 0.25),
    ("blosum62", 4, 4, 0.262, 0.05, 0.23),
    ("blosum62", 3, 4, 0.23, 0.03, 0.15),
    ("blosum62", 2, 4, 0.179, 0.014, 0.08),
    ("blosum62", 4, 5, 0.286, 0.08, 0.29),
    ("blosum62", 1, 5, 0.2, 0.021, 0.1),
    ("blosum62", 0, 5, 0.131, 0.009, 0.04),
    ("blosum62", 1, 6, 0.247, 0.05, 0.18),
    ("blosum62", 1, 7, 0.27, 0.06, 0.25),
];

/// Matrices FASTA's table has under a built-in name whose scores are not
/// warpsw's (NCBI's): SSEARCH's BL80 is another scale (a pair scoring 116
/// here scores 52 there) and its PAM250 differs in some scores.
const FASTA_OTHER_MATRICES: &[&str] = &["blosum80", "pam250"];

/// FASTA's Altschul–Gish parameters of `matrix` (a built-in name, any
/// case) with gap costs `open` + k·`extend` ([`Method::FixedFasta`]).
///
/// ```
/// let p = host::stats::fasta_parameters("BLOSUM62", 11, 1).unwrap();
/// assert_eq!((p.lambda, p.k, p.h), (0.275, 0.05, 0.25));
/// // SSEARCH would take the ungapped parameters here: refused.
/// assert!(host::stats::fasta_parameters("blosum62", 12, 1).is_err());
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] naming the gap costs that have parameters for
/// this matrix, or saying why the matrix has none.
pub fn fasta_parameters(matrix: &str, open: i32, extend: i32) -> Result<AltschulGish> {
    let name = matrix.to_ascii_lowercase();
    let rows: Vec<&FastaRow> = FASTA_TABLE.iter().filter(|r| r.0 == name).collect();
    if let Some(&&(_, _, _, lambda, k, h)) = rows.iter().find(|r| r.1 == open && r.2 == extend) {
        return Ok(AltschulGish { lambda, k, h });
    }
    let instead = "or use --stats fixed (BLAST's table) or the fitted statistics (the default)";
    if FASTA_OTHER_MATRICES.contains(&name.as_str()) {
        let upper = name.to_ascii_uppercase();
        return Err(Error::InvalidArgument(format!(
            "--stats fixed-fasta: FASTA's Altschul-Gish table is for its own {upper}, which \
             scores some pairs unlike NCBI's {upper} that warpsw uses; of warpsw's matrices it \
             fits BLOSUM50 and BLOSUM62; {instead}"
        )));
    }
    if rows.is_empty() {
        return Err(Error::InvalidArgument(format!(
            "--stats fixed-fasta: matrix {matrix} has no parameters in FASTA's Altschul-Gish \
             table (among warpsw's matrices it has BLOSUM50 and BLOSUM62); {instead}"
        )));
    }
    let known: Vec<String> = rows.iter().map(|r| format!("{}/{}", r.1, r.2)).collect();
    Err(Error::InvalidArgument(format!(
        "--stats fixed-fasta: {matrix} with gap open {open} / extend {extend} has no row in \
         FASTA's Altschul-Gish table (ssearch36 -z 3 would take another row's or the ungapped \
         parameters); gap costs (open/extend) with parameters: {}; {instead}",
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
/// first fit's cap ([`first_fit_cap`]), which are not
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

/// The score that higher scores count as in the first fit: the one whose
/// ungapped Karlin–Altschul E-value over the database, with λ scaled to
/// 0.7λ (about the ratio of gapped to ungapped λ), is 0.01 — as SSEARCH
/// caps its first regression. The homologs' far larger scores would
/// otherwise tilt the first fit, and with it the choice of scores to trim.
pub fn first_fit_cap(p: &Ungapped, query_length: usize, db: DatabaseSize) -> i32 {
    let mean_length = db.residues as f64 / db.sequences.max(1) as f64;
    let space = db.sequences.max(1) as f64 * query_length.max(1) as f64 * mean_length.max(1.0);
    ((p.k * space / 0.01).ln() / (0.7 * p.lambda)).round() as i32
}

/// The fitted distribution of one query's scores against unrelated
/// sequences: mean linear in `ln n`, one variance (Pearson 1998, as
/// SSEARCH's default; see the module docs for the steps).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Fit {
    /// Mean score at `ln n = 0`.
    pub mean_intercept: f64,
    /// Mean score's growth per unit of `ln n`.
    pub mean_slope: f64,
    /// Variance of the scores around the mean line (one value for every
    /// length, as SSEARCH's default fit has it).
    pub variance: f64,
    /// Scores the final fit used.
    pub used: usize,
    /// Scores left out as probable homologs or outliers (z-score above
    /// [`trim_threshold`] or below [`LOW_TRIM_Z`] under the first fit), and
    /// the sequences shorter than [`MIN_FIT_LENGTH`].
    pub trimmed: usize,
    /// Length bins left out because their scores scatter far more than the
    /// fitted variance predicts.
    pub bins_dropped: usize,
    /// Scores in the dropped bins.
    pub binned_out: usize,
    /// The score that higher scores counted as in the first fit (`None`:
    /// no cap, the matrix has no ungapped parameters).
    pub cap: Option<i32>,
}

impl Fit {
    /// The z-score of `score` against a sequence of `length` residues.
    pub fn z(&self, score: i32, length: usize) -> f64 {
        self.z_of_ln(score, ln_length(length))
    }

    /// [`Fit::z`] given `ln n` ([`SequenceLengths`] keeps it for each
    /// database sequence).
    fn z_of_ln(&self, score: i32, ln_n: f64) -> f64 {
        let mean = self.mean_intercept + self.mean_slope * ln_n;
        (f64::from(score) - mean) / self.variance.sqrt()
    }
}

/// `ln n` as the fit and the fitted E-values take it (a length of 0 as 1).
fn ln_length(length: usize) -> f64 {
    (length.max(1) as f64).ln()
}

/// The database's sequence lengths (input order) with their logarithms,
/// computed once for every query's fit and E-values rather than once a
/// query (on a 570,000-sequence database the logarithms alone are most of
/// a query's fit).
pub struct SequenceLengths {
    lengths: Vec<usize>,
    ln: Vec<f64>,
    /// Each length's bin of the fit ([`Bins`]).
    bin: Vec<u32>,
}

impl SequenceLengths {
    /// The lengths (input order) and their logarithms.
    pub fn new(lengths: Vec<usize>) -> SequenceLengths {
        let ln: Vec<f64> = lengths
            .par_iter()
            .with_min_len(1 << 14)
            .map(|&n| ln_length(n))
            .collect();
        let bin = ln.iter().map(|&ln_n| Bins::bin_of_ln(ln_n)).collect();
        SequenceLengths { lengths, ln, bin }
    }

    /// The lengths, in input order.
    pub fn lengths(&self) -> &[usize] {
        &self.lengths
    }

    /// Sequences.
    pub fn len(&self) -> usize {
        self.lengths.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.lengths.is_empty()
    }
}

impl From<&[usize]> for SequenceLengths {
    fn from(lengths: &[usize]) -> SequenceLengths {
        SequenceLengths::new(lengths.to_vec())
    }
}

/// Shortest database sequence the fit uses (shorter ones have too few
/// alignments to follow the extreme-value model; SSEARCH's cut too).
pub const MIN_FIT_LENGTH: usize = 10;

/// Scores this many standard deviations below the first fit's mean are left
/// out with the homologs (SSEARCH's default trims them too).
pub const LOW_TRIM_Z: f64 = -3.0;

/// Length bins per unit of `ln n`: a bin spans a tenth of `ln n`, about
/// 10 % in length.
const BINS_PER_LN: f64 = 10.0;

/// Bins whose squared residuals stray from the variance line by more than
/// this many times the typical bin's are dropped.
const BIN_OUTLIER_FACTOR: f64 = 3.0;

/// Where a score's length falls against the fitted line, in bins: SSEARCH
/// regresses the bins' means with bin `j` (lengths whose `10·ln n` rounds
/// to `j`) at `x = j + ½`, but takes a score's mean at `x = 10·ln n`: its
/// means are half a bin's slope (0.2 to 0.3 score units) below the line
/// through the bins' centres. The fit does as SSEARCH, in the trimming and
/// in [`Fit`]'s mean: the trimming's near-ties (a score a hundredth of a
/// standard deviation from the threshold) and the E-values (5 % smaller)
/// then follow ssearch36's.
const FASTA_BIN_SHIFT: f64 = -0.5;

/// The scores' sums per length bin (bin `j` holds lengths with
/// `round(10·ln n) = j`): what the fit needs, and what removing a score
/// takes back.
struct Bins {
    count: Vec<f64>,
    sum: Vec<f64>,
    squares: Vec<f64>,
    longest: usize,
}

/// A least-squares line `a + b·x` over the bins, `x` in bin units.
#[derive(Clone, Copy)]
struct BinLine {
    a: f64,
    b: f64,
}

impl BinLine {
    fn at(&self, x: f64) -> f64 {
        self.a + self.b * x
    }
}

impl Bins {
    fn new() -> Bins {
        Bins {
            count: Vec::new(),
            sum: Vec::new(),
            squares: Vec::new(),
            longest: 0,
        }
    }

    fn x_of(length: usize) -> f64 {
        Bins::x_of_ln(ln_length(length))
    }

    /// [`Bins::x_of`] given `ln n`.
    fn x_of_ln(ln_n: f64) -> f64 {
        BINS_PER_LN * ln_n
    }

    /// The bin of a length whose `ln n` is `ln_n`.
    fn bin_of_ln(ln_n: f64) -> u32 {
        Bins::x_of_ln(ln_n).round() as u32
    }

    /// Adds `score` of a sequence of `length` residues in bin `j`
    /// ([`Bins::bin_of_ln`]; `sign` 1) or takes it back (`sign` −1).
    fn add(&mut self, length: usize, j: u32, score: f64, sign: f64) {
        let j = j as usize;
        if j >= self.count.len() {
            self.count.resize(j + 1, 0.0);
            self.sum.resize(j + 1, 0.0);
            self.squares.resize(j + 1, 0.0);
        }
        self.count[j] += sign;
        self.sum[j] += sign * score;
        self.squares[j] += sign * score * score;
        self.longest = self.longest.max(length);
    }

    /// The bins that take part: at least two scores.
    fn used(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.count.len()).filter(|&j| self.count[j] >= 2.0)
    }

    /// Scores in the bins that take part.
    fn scores(&self) -> f64 {
        self.used().map(|j| self.count[j]).sum()
    }

    /// Σ (s − line(x_j))² over bin `j`'s scores.
    fn residual_squares(&self, j: usize, line: BinLine) -> f64 {
        let u = line.at(j as f64);
        self.squares[j] - 2.0 * u * self.sum[j] + self.count[j] * u * u
    }

    /// The mean score against the bin, each bin's mean weighted by the
    /// inverse of its squared standard error (floored at `floor`), so that
    /// bins of few or scattered scores weigh little. `None` with fewer
    /// than 5 bins or bins all of one length.
    fn mean_line(&self, floor: f64) -> Option<BinLine> {
        let (mut w, mut wx, mut wy, mut wxx, mut wxy) = (0.0, 0.0, 0.0, 0.0, 0.0);
        let mut bins = 0;
        for j in self.used() {
            let (c, x) = (self.count[j], j as f64);
            let mean = self.sum[j] / c;
            let error = ((self.squares[j] / c - mean * mean) / (c - 1.0)).max(floor);
            w += c / error;
            wx += c * x / error;
            wy += self.sum[j] / error;
            wxx += c * x * x / error;
            wxy += x * self.sum[j] / error;
            bins += 1;
        }
        let det = w * wxx - wx * wx;
        if bins < 5 || det.is_nan() || det <= 1e-3 {
            return None;
        }
        Some(BinLine {
            a: (wxx * wy - wx * wxy) / det,
            b: (w * wxy - wx * wy) / det,
        })
    }

    /// The variance of the scores around `line`: one value for all lengths.
    fn variance(&self, line: BinLine) -> f64 {
        let squares: f64 = self.used().map(|j| self.residual_squares(j, line)).sum();
        squares / self.scores()
    }

    /// The mean line and the variance around it.
    fn fit(&self) -> Option<(BinLine, f64)> {
        let line = self.mean_line(0.1)?;
        let variance = self.variance(line);
        (variance > 0.01 && variance.is_finite()).then_some((line, variance))
    }

    /// Drops the bins whose scores scatter unlike the rest: the squared
    /// residuals (around the mean line) regressed on the bin, each bin's
    /// departure from that line of variances compared with the typical
    /// departure; bins beyond [`BIN_OUTLIER_FACTOR`] times it are dropped
    /// (a family of near-identical sequences of one length, or a
    /// low-complexity cluster). Returns the bins and scores dropped.
    fn drop_outlying(&mut self) -> (usize, usize) {
        let Some(line) = self.mean_line(1.0) else {
            return (0, 0);
        };
        let n = self.scores();
        let used: Vec<usize> = self.used().collect();
        let mean_x = used.iter().map(|&j| self.count[j] * j as f64).sum::<f64>() / n;
        let var_x = used
            .iter()
            .map(|&j| self.count[j] * (j as f64 - mean_x).powi(2))
            .sum::<f64>()
            / n;
        let r: Vec<f64> = used
            .iter()
            .map(|&j| self.residual_squares(j, line))
            .collect();
        let mean_r = r.iter().sum::<f64>() / n;
        let cov = used
            .iter()
            .zip(&r)
            .map(|(&j, &rj)| (j as f64 - mean_x) * rj)
            .sum::<f64>()
            / n;
        let slope = if var_x > 0.0 { cov / var_x } else { 0.0 };
        let predicted = |x: f64| mean_r + slope * (x - mean_x);
        // The line of variances is kept above its least value over the
        // lengths fitted (from 20 residues), and above 1.
        let floor = predicted(Bins::x_of(2 * MIN_FIT_LENGTH))
            .min(predicted(Bins::x_of(self.longest)))
            .max(1.0);
        let departure: Vec<f64> = used
            .iter()
            .zip(&r)
            .map(|(&j, &rj)| {
                let d = rj - self.count[j] * predicted(j as f64).max(floor);
                d * d / (self.count[j] - 1.0)
            })
            .collect();
        let typical = (departure.iter().sum::<f64>() / used.len() as f64).sqrt();
        let (mut bins, mut scores) = (0, 0);
        for (&j, &d) in used.iter().zip(&departure) {
            if d.sqrt() > BIN_OUTLIER_FACTOR * typical {
                bins += 1;
                scores += self.count[j] as usize;
                self.count[j] = 0.0;
                self.sum[j] = 0.0;
                self.squares[j] = 0.0;
            }
        }
        (bins, scores)
    }
}

/// Fits one query's score distribution (Pearson 1998, as SSEARCH's
/// default; see the module docs): `scores[i]` against a sequence of
/// `lengths[i]` residues; scores above `cap` count as `cap` in the first
/// fit. `None` when fewer than [`MIN_FIT_SEQUENCES`] scores remain, the
/// lengths fill fewer than 5 bins, or the scores do not vary.
pub fn fit(scores: &[i32], lengths: &SequenceLengths, cap: Option<i32>) -> Option<Fit> {
    assert_eq!(scores.len(), lengths.len(), "one length per score");
    let capped = |s: i32| f64::from(cap.map_or(s, |c| s.min(c)));
    let sequences = || {
        scores
            .iter()
            .zip(&lengths.lengths)
            .zip(&lengths.ln)
            .zip(&lengths.bin)
            .map(|(((&s, &n), &ln_n), &j)| (s, n, ln_n, j))
    };
    let mut bins = Bins::new();
    let mut short = 0;
    for (s, n, _, j) in sequences() {
        match n >= MIN_FIT_LENGTH {
            true => bins.add(n, j, capped(s), 1.0),
            false => short += 1,
        }
    }
    let (line, variance) = bins.fit()?;
    let sd = variance.sqrt();
    let high = trim_threshold(scores.len());
    let mut trimmed = short;
    for (s, n, ln_n, j) in sequences() {
        if n < MIN_FIT_LENGTH {
            continue;
        }
        let z = (f64::from(s) - line.at(Bins::x_of_ln(ln_n) + FASTA_BIN_SHIFT)) / sd;
        if z > high || z < LOW_TRIM_Z {
            bins.add(n, j, capped(s), -1.0);
            trimmed += 1;
        }
    }
    if bins.scores() < MIN_FIT_SEQUENCES as f64 {
        return None;
    }
    let (bins_dropped, binned_out) = bins.drop_outlying();
    if bins.scores() < MIN_FIT_SEQUENCES as f64 {
        return None;
    }
    let (line, variance) = bins.fit()?;
    Some(Fit {
        mean_intercept: line.at(FASTA_BIN_SHIFT),
        mean_slope: line.b * BINS_PER_LN,
        variance,
        used: bins.scores() as usize,
        trimmed,
        bins_dropped,
        binned_out,
        cap,
    })
}

/// The z-score above which a score is left out of the second fit: where
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
    /// Published parameters: the finite-size correction where the tables
    /// have it, else the edge correction.
    Fixed {
        /// λ, K, H, α, β.
        parameters: KarlinAltschul,
        /// ℓ of [`length_adjustment`].
        length_adjustment: u64,
        /// `(m − ℓ)·(n − Nℓ)`.
        search_space: f64,
    },
    /// FASTA's table, each pair's lengths shortened by `ln(K·m·n)/H`.
    #[serde(rename = "fixed-fasta")]
    FixedFasta {
        /// λ, K, H.
        parameters: AltschulGish,
    },
    /// Fitted to the query's scores against random sequences
    /// ([`simulated`]): the fitted statistics' fallback where the query's
    /// database scores cannot be fitted and the scoring has no published
    /// parameters.
    Simulated(Fit),
    /// The matrix's ungapped λ, K, H ([`ungapped_parameters`]), each pair's
    /// lengths shortened by `ln(K·m·n)/H` as with FASTA's table: the last
    /// fallback, for a query too short for its scores to vary (a peptide
    /// of a residue or two aligns without gaps), as SSEARCH falls back to
    /// the ungapped parameters.
    Ungapped {
        /// λ, K, H.
        parameters: AltschulGish,
    },
}

impl Model {
    /// The model's name, as `--stats` and the JSON output's `method` spell
    /// it.
    pub fn name(&self) -> &'static str {
        match self {
            Model::Fitted(_) => "fitted",
            Model::Fixed { .. } => "fixed",
            Model::FixedFasta { .. } => "fixed-fasta",
            Model::Simulated(_) => "simulated",
            Model::Ungapped { .. } => "ungapped",
        }
    }

    /// The fit, where the model is one.
    fn fit(&self) -> Option<&Fit> {
        match self {
            Model::Fitted(fit) | Model::Simulated(fit) => Some(fit),
            _ => None,
        }
    }
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
    /// Why the model is not the one asked for, if it is not (the query's
    /// scores could not be fitted), and what took its place.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fallback: Option<String>,
}

impl QueryStatistics {
    /// `ln E` of `score` against a sequence of `length` residues (finite
    /// even where E underflows to 0).
    pub fn ln_evalue(&self, score: i32, length: usize) -> f64 {
        self.ln_evalue_of(score, length, || ln_length(length))
    }

    /// [`QueryStatistics::ln_evalue`] against database sequence `i` of
    /// `lengths`.
    fn ln_evalue_at(&self, score: i32, lengths: &SequenceLengths, i: usize) -> f64 {
        self.ln_evalue_of(score, lengths.lengths[i], || lengths.ln[i])
    }

    /// `ln E` with `ln n` as `ln_n` gives it (the fitted model's only).
    fn ln_evalue_of(&self, score: i32, length: usize, ln_n: impl FnOnce() -> f64) -> f64 {
        match &self.model {
            Model::Fitted(fit) | Model::Simulated(fit) => {
                (self.database.sequences.max(1) as f64).ln()
                    + ln_pvalue_from_z(fit.z_of_ln(score, ln_n()))
            }
            Model::Fixed {
                parameters: p,
                search_space,
                ..
            } => match &p.spouge {
                // Park et al. (2012): the pair's E-value, `area·K·e^(−λS)`,
                // times the database over the target (D/n targets like it).
                Some(spouge) => {
                    let n = length.max(1);
                    spouge.ln_area(p.lambda, score, self.query_length, n) + p.k.ln()
                        - p.lambda * f64::from(score)
                        + (self.database.residues.max(1) as f64 / n as f64).ln()
                }
                None => (p.k * search_space).ln() - p.lambda * f64::from(score),
            },
            Model::FixedFasta { parameters: p } | Model::Ungapped { parameters: p } => {
                let ln_x = p.ln_pair_expectation(score, self.query_length, length);
                let ln_p = if ln_x > FASTA_POISSON_FROM.ln() {
                    // 1 − e^(−x), the chance of at least one such alignment.
                    (-(-ln_x.exp()).exp_m1()).ln()
                } else {
                    ln_x
                };
                (self.database.sequences.max(1) as f64).ln() + ln_p
            }
        }
    }

    /// Under the fitted model, a z-score below which `ln E` is surely above
    /// `max_ln_evalue` (`None`: no such bound, or another model), told
    /// without the E-value itself: a search then need not take the
    /// logarithm and exponentials of every sequence's E-value (most of a
    /// query's statistics on a large database).
    fn z_floor(&self, max_ln_evalue: f64) -> Option<f64> {
        self.model.fit()?;
        // ln E = ln N + ln P, ln P = ln(1 − e^(−t)) with t = e^u,
        // u = −(π/√6)·z − γ (`ln_pvalue_from_z`). For t < 1,
        // 1 − e^(−t) ≥ t − t²/2 ≥ t/2, so ln P ≥ u − ln 2; for t ≥ 1,
        // ln P ≥ ln(1 − 1/e) > −0.46, while u − ln 2 ≥ −ln 2 > −0.7. So
        // ln P ≥ min(u − ln 2, −0.7) everywhere, and where ln N − 0.7 is
        // above the cut, ln E is above it once u − ln 2 is: once
        // z < (ln N − ln 2 − cut − γ)/(π/√6). The margin covers the
        // rounding of the E-value as computed (about 1e-13 of it) many
        // times over. A cut of −∞ (`--evalue 0`) gives a floor of +∞: the
        // fitted ln E is always finite, so nothing but a NaN z passes; +∞
        // and NaN give no floor.
        let cut = match max_ln_evalue.is_finite() {
            true => max_ln_evalue + 1e-6 * (1.0 + max_ln_evalue.abs()),
            false => max_ln_evalue,
        };
        let ln_n = (self.database.sequences.max(1) as f64).ln();
        (ln_n - 0.7 > cut)
            .then(|| (ln_n - std::f64::consts::LN_2 - cut - EULER_GAMMA) / PI_OVER_SQRT6)
    }

    /// The `top` database sequences of least E-value among those with
    /// `ln E` at most `max_ln_evalue`, in [`rank_by_evalue`]'s order
    /// (`scores[i]` against sequence `i` of `lengths`): the same as ranking
    /// every sequence's `ln E`, but only those that may pass the cut
    /// ([`QueryStatistics::z_floor`]) are evaluated.
    ///
    /// [`rank_by_evalue`]: crate::merge::rank_by_evalue
    pub fn top_hits(
        &self,
        scores: &[i32],
        lengths: &SequenceLengths,
        top: usize,
        max_ln_evalue: f64,
    ) -> Vec<usize> {
        assert_eq!(scores.len(), lengths.len(), "one length per score");
        let (fit, floor) = match (self.model.fit(), self.z_floor(max_ln_evalue)) {
            (Some(fit), Some(floor)) => (fit, floor),
            // Every sequence's E-value, ranked.
            _ => {
                let ln_evalues: Vec<f64> = (0..scores.len())
                    .into_par_iter()
                    .with_min_len(4096)
                    .map(|i| self.ln_evalue_at(scores[i], lengths, i))
                    .collect();
                return crate::merge::rank_by_evalue(&ln_evalues, scores, top, max_ln_evalue);
            }
        };
        // In increasing order, so that rank_by_evalue's last tie-break (the
        // position) orders them as it orders the whole database.
        let candidates: Vec<usize> = (0..scores.len())
            .into_par_iter()
            .with_min_len(4096)
            .filter(|&i| {
                // A NaN is evaluated, not left out.
                let z = fit.z_of_ln(scores[i], lengths.ln[i]);
                z >= floor || z.is_nan()
            })
            .collect();
        let ln_evalues: Vec<f64> = candidates
            .par_iter()
            .with_min_len(4096)
            .map(|&i| self.ln_evalue_at(scores[i], lengths, i))
            .collect();
        let kept: Vec<i32> = candidates.iter().map(|&i| scores[i]).collect();
        crate::merge::rank_by_evalue(&ln_evalues, &kept, top, max_ln_evalue)
            .into_iter()
            .map(|c| candidates[c])
            .collect()
    }

    /// The E-value of `score` against a sequence of `length` residues. With
    /// [`Method::FixedFasta`] it is 0 where SSEARCH prints 0 (a Gumbel
    /// z-score above [`FASTA_ZERO_Z`]); [`QueryStatistics::ln_evalue`] keeps
    /// the finite value, so that such hits still rank by significance.
    pub fn evalue(&self, score: i32, length: usize) -> f64 {
        if let Model::FixedFasta { parameters: p } = &self.model {
            let ln_x = p.ln_pair_expectation(score, self.query_length, length);
            if -ln_x - EULER_GAMMA > FASTA_ZERO_Z * PI_OVER_SQRT6 {
                return 0.0;
            }
        }
        self.ln_evalue(score, length).exp()
    }

    /// The bit score (see the module docs).
    pub fn bits(&self, score: i32, length: usize) -> f64 {
        match &self.model {
            Model::Fitted(fit) | Model::Simulated(fit) => {
                let mn = self.query_length.max(1) as f64 * length.max(1) as f64;
                (mn.ln() - ln_pvalue_from_z(fit.z(score, length))) / std::f64::consts::LN_2
            }
            Model::Fixed { parameters: p, .. } => {
                (p.lambda * f64::from(score) - p.k.ln()) / std::f64::consts::LN_2
            }
            Model::FixedFasta { parameters: p } | Model::Ungapped { parameters: p } => {
                let mn = self.query_length.max(1) as f64 * length.max(1) as f64;
                (mn.ln() - p.ln_pair_expectation(score, self.query_length, length))
                    / std::f64::consts::LN_2
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
                 from {} of {} scores ({} trimmed as probable homologs or outliers, {} in {} \
                 length bins dropped{}); E = {} x P",
                f.mean_intercept,
                f.mean_slope,
                f.variance,
                f.used,
                db.sequences,
                f.trimmed,
                f.binned_out,
                f.bins_dropped,
                f.cap
                    .map(|c| format!(", first fit capped at score {c}"))
                    .unwrap_or_default(),
                db.sequences
            ),
            Model::Fixed {
                parameters: p,
                length_adjustment,
                search_space,
            } => format!(
                "fixed (Karlin-Altschul; Altschul & Gish 1996): lambda {} K {} H {} alpha {} beta {}; \
                 length adjustment {length_adjustment}, effective search space {search_space:.0}{}",
                p.lambda,
                p.k,
                p.h,
                p.alpha,
                p.beta,
                match p.spouge {
                    Some(g) => format!(
                        "; E-values with the finite-size correction (Park et al. 2012): \
                         alpha_v {} sigma {}, over {} database residues",
                        g.alpha_v, g.sigma, db.residues
                    ),
                    None => String::new(),
                }
            ),
            Model::FixedFasta { parameters: p } => format!(
                "fixed-fasta (Karlin-Altschul; Altschul & Gish 1996 parameters from FASTA's table, \
                 as ssearch36 -z 3): lambda {} K {} H {}; each pair's lengths shortened by \
                 ln(K m n)/H; E = {} x P",
                p.lambda, p.k, p.h, db.sequences
            ),
            Model::Simulated(f) => format!(
                "simulated (Pearson 1998, fitted to the query's scores against {} random \
                 sequences): mean score {:.3} + {:.3} ln(n), variance {:.3}, from {} scores; \
                 E = {} x P",
                f.used + f.trimmed + f.binned_out,
                f.mean_intercept,
                f.mean_slope,
                f.variance,
                f.used,
                db.sequences
            ),
            Model::Ungapped { parameters: p } => format!(
                "ungapped (Karlin-Altschul 1990, the matrix's ungapped parameters): lambda {:.4} \
                 K {:.4} H {:.4}; each pair's lengths shortened by ln(K m n)/H; E = {} x P",
                p.lambda, p.k, p.h, db.sequences
            ),
        };
        let note = self
            .fallback
            .as_ref()
            .map(|n| format!(" ({n})"))
            .unwrap_or_default();
        format!(
            "database {} sequences, {} residues; query {} residues; statistics {body}{note}",
            db.sequences, db.residues, self.query_length
        )
    }
}

/// The parameters a table (`lookup`: [`fixed_parameters`] or
/// [`fasta_parameters`]) has for `scoring`: a matrix file that happens to
/// carry a built-in name is not that matrix unless its scores are the same.
///
/// # Errors
/// The table's error: the gap costs it has, or why the matrix has none.
fn published_parameters<P>(
    scoring: &Scoring,
    lookup: fn(&str, i32, i32) -> Result<P>,
) -> Result<P> {
    let name = scoring.matrix.name();
    let builtin = crate::matrix::ScoreMatrix::by_name(name)
        .is_ok_and(|b| b.scores() == scoring.matrix.scores());
    match builtin {
        true => lookup(name, scoring.gaps.open, scoring.gaps.extend),
        false => lookup(&format!("from file {name}"), 0, 0),
    }
}

/// Checks, before anything is read, that `method` can give every query
/// statistics for `scoring` (what [`Statistics::new`] checks: the database
/// does not matter).
///
/// # Errors
/// [`Statistics::new`]'s.
pub fn check_method(method: Method, scoring: &Scoring) -> Result<()> {
    let unknown = DatabaseSize {
        sequences: 0,
        residues: 0,
    };
    Statistics::new(method, scoring, unknown).map(|_| ())
}

/// The statistics of a search: the method, the scoring's published
/// parameters (if any) and the database.
#[derive(Clone, Debug)]
pub struct Statistics {
    method: Method,
    scoring: Scoring,
    fixed: Option<KarlinAltschul>,
    fasta: Option<AltschulGish>,
    ungapped: Option<Ungapped>,
    /// The parameters of the first fit's cap ([`ssearch_cap_parameters`],
    /// else [`ungapped_parameters`]).
    cap: Option<Ungapped>,
    database: DatabaseSize,
}

impl Statistics {
    /// Checks that `method` can give E-values for `scoring` over `database`
    /// before any search runs: once it is made, every query gets its
    /// statistics ([`Statistics::for_query`] cannot fail).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`]: [`Method::Fixed`] or
    /// [`Method::FixedFasta`] for a scoring without parameters in its table;
    /// [`Method::Fitted`] for a matrix without local alignment statistics
    /// (its expected score is not negative, or no score is positive), whose
    /// queries could have no fallback.
    pub fn new(method: Method, scoring: &Scoring, database: DatabaseSize) -> Result<Statistics> {
        let fixed = match (method, published_parameters(scoring, fixed_parameters)) {
            (Method::Fixed, Err(why)) => return Err(why),
            (_, found) => found.ok(),
        };
        let fasta = match method {
            Method::FixedFasta => Some(published_parameters(scoring, fasta_parameters)?),
            _ => None,
        };
        let ungapped = ungapped_parameters(&scoring.matrix);
        let cap = ssearch_cap_parameters(&scoring.matrix).or(ungapped);
        if method == Method::Fitted && fixed.is_none() && ungapped.is_none() {
            return Err(Error::InvalidArgument(format!(
                "matrix {} has no local alignment statistics (its expected score over \
                 background residues is not negative, or no score is positive), so a query \
                 whose scores cannot be fitted would have no E-values: use --stats none to rank \
                 hits by raw score",
                scoring.matrix.name()
            )));
        }
        Ok(Statistics {
            method,
            scoring: scoring.clone(),
            fixed,
            fasta,
            ungapped,
            cap,
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

    /// The first fit's cap for a query of `query_length` residues
    /// ([`first_fit_cap`] with [`ssearch_cap_parameters`], as ssearch36
    /// caps it, else with [`ungapped_parameters`]); none for a matrix
    /// without ungapped parameters.
    fn cap(&self, query_length: usize) -> Option<i32> {
        self.cap
            .map(|u| first_fit_cap(&u, query_length, self.database))
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
    /// sequence (input order) and those sequences' `lengths`. With the
    /// fitted method, a query whose scores cannot be fitted falls back, in
    /// turn, to the published parameters, a fit of its scores against
    /// random sequences ([`simulated`]) and the matrix's ungapped
    /// parameters; [`QueryStatistics::fallback`] says why and which.
    /// [`Method::RawScores`] gets the fitted statistics too (a caller that
    /// wants none need not call this).
    pub fn for_query(
        &self,
        query: &[u8],
        scores: &[i32],
        lengths: &SequenceLengths,
    ) -> QueryStatistics {
        let query_length = query.len();
        let (model, fallback) = match (self.method, self.fixed, self.fasta) {
            (Method::Fixed, Some(p), _) => (self.fixed_model(p, query_length), None),
            (Method::FixedFasta, _, Some(p)) => (Model::FixedFasta { parameters: p }, None),
            _ => match fit(scores, lengths, self.cap(query_length)) {
                Some(f) => (Model::Fitted(f), None),
                None => self.fallback(query, scores.len(), lengths),
            },
        };
        QueryStatistics {
            model,
            query_length,
            database: self.database,
            fallback,
        }
    }

    /// The fitted method's fallback for `query`, whose `scored` database
    /// scores could not be fitted: the model and why.
    fn fallback(
        &self,
        query: &[u8],
        scored: usize,
        lengths: &SequenceLengths,
    ) -> (Model, Option<String>) {
        let refused = format!(
            "its {scored} database scores cannot be fitted (at least {MIN_FIT_SEQUENCES} varied \
             scores of sequences of {MIN_FIT_LENGTH} or more residues, in 5 length bins, are \
             needed)"
        );
        if let Some(p) = self.fixed {
            let why = format!("{refused}: BLAST's published parameters used");
            return (self.fixed_model(p, query.len()), Some(why));
        }
        let unpublished = format!(
            "{refused} and {} with gap open {} / extend {} has no published parameters",
            self.scoring.matrix.name(),
            self.scoring.gaps.open,
            self.scoring.gaps.extend
        );
        let (scores, random_lengths) = simulated::simulated_scores(query, &self.scoring, lengths);
        if let Some(f) = fit(&scores, &random_lengths, None) {
            let why = format!(
                "{unpublished}: fitted to its scores against {} random sequences",
                scores.len()
            );
            return (Model::Simulated(f), Some(why));
        }
        let u = self
            .ungapped
            .expect("Statistics::new refuses the fitted method without ungapped parameters");
        let why = format!(
            "{unpublished}, and its scores against random sequences do not vary enough to fit \
             either: the matrix's ungapped parameters used"
        );
        let parameters = AltschulGish {
            lambda: u.lambda,
            k: u.k,
            h: u.h,
        };
        (Model::Ungapped { parameters }, Some(why))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// An empty database's lengths.
    fn no_lengths() -> SequenceLengths {
        SequenceLengths::new(Vec::new())
    }

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

    /// A 300-residue query's statistics fitted to `scores` over a database
    /// of sequences of `lengths`.
    fn fitted(scores: &[i32], lengths: &[usize]) -> QueryStatistics {
        QueryStatistics {
            model: Model::Fitted(fit(scores, &lengths.into(), None).unwrap()),
            query_length: 300,
            database: DatabaseSize {
                sequences: scores.len() as u64,
                residues: lengths.iter().sum::<usize>() as u64,
            },
            fallback: None,
        }
    }

    #[test]
    fn the_fit_recovers_the_planted_distribution() {
        let (scores, lengths) = sample(1, 20_000, 0);
        let f = fit(&scores, &lengths[..].into(), None).unwrap();
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
        let stats = fitted(&scores, &lengths);
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
    fn top_hits_rank_as_every_evalue_ranked_would() {
        // Unrelated scores, planted homologs, and a small database where
        // E-values sit near 1; cuts from none passing to all, among them
        // cuts around ln N (where the bound's branch ln P ≥ −0.7 decides
        // whether there is a floor) and the sequences' own ln E; tops from
        // one to all.
        for (seed, count, homologs) in [(3, 20_000, 25), (4, 600, 3), (5, 300, 0)] {
            let (scores, lengths) = sample(seed, count, homologs);
            let table = SequenceLengths::from(&lengths[..]);
            let stats = fitted(&scores, &lengths);
            let ln_e: Vec<f64> = (0..count)
                .map(|i| stats.ln_evalue(scores[i], lengths[i]))
                .collect();
            let mut skipped = 0;
            let ln_n = (count as f64).ln();
            let mut cuts = vec![f64::NEG_INFINITY, -50.0, -5.0, 0.0, 0.5, 10f64.ln(), 5.0];
            cuts.extend([1e9, f64::INFINITY, f64::NAN, -f64::MAX, f64::MAX]);
            cuts.extend((-40..=40).map(|k| ln_n + 0.025 * f64::from(k)));
            cuts.extend(ln_e.iter().step_by(count / 50).copied());
            for cut in cuts {
                let z = |i: usize| match &stats.model {
                    Model::Fitted(f) => f.z(scores[i], lengths[i]),
                    _ => unreachable!(),
                };
                let floor = stats.z_floor(cut).unwrap_or(f64::NEG_INFINITY);
                let evaluated = (0..count).filter(|&i| z(i) >= floor).count();
                assert!(
                    (0..count).all(|i| ln_e[i] > cut || z(i) >= floor),
                    "seed {seed}, cut {cut}: a passing score was left out"
                );
                skipped += count - evaluated;
                for top in [1, 10, 100, count] {
                    assert_eq!(
                        stats.top_hits(&scores, &table, top, cut),
                        crate::merge::rank_by_evalue(&ln_e, &scores, top, cut),
                        "seed {seed}, cut {cut}, top {top}"
                    );
                }
            }
            // The point of it: most sequences need no E-value.
            assert!(skipped > 4 * count, "seed {seed}: {skipped} skipped");
        }
    }

    #[test]
    fn planted_homologs_are_trimmed_and_do_not_move_the_fit() {
        let (clean, lengths) = sample(3, 20_000, 0);
        let (planted, _) = sample(3, 20_000, 200);
        let a = fit(&clean, &lengths[..].into(), None).unwrap();
        // Capped as the search caps them: the homologs' 400 count as 120.
        let b = fit(&planted, &lengths[..].into(), Some(120)).unwrap();
        assert!(b.trimmed >= 200, "{b:?}");
        assert!(
            (a.mean_slope - b.mean_slope).abs() < 0.05 * a.mean_slope.abs(),
            "{a:?} {b:?}"
        );
        let (va, vb) = (a.variance, b.variance);
        assert!((va - vb).abs() < 0.05 * va, "{a:?} {b:?}");
        let z = b.z(400, lengths[0]);
        assert!(z > 20.0, "{z}");
    }

    #[test]
    fn a_bin_of_near_identical_sequences_is_dropped() {
        // 2,000 copies of one 300-residue family scoring 40 ± 1: one bin
        // whose scores scatter far less than the rest, around another mean.
        let (mut scores, mut lengths) = sample(5, 20_000, 0);
        for i in 0..2_000 {
            scores[i * 10] = 40 + (i % 3) as i32 - 1;
            lengths[i * 10] = 300;
        }
        let f = fit(&scores, &lengths[..].into(), None).unwrap();
        assert!(f.bins_dropped >= 1 && f.binned_out >= 2_000, "{f:?}");
        let (clean, clean_lengths) = sample(5, 20_000, 0);
        let c = fit(&clean, &clean_lengths[..].into(), None).unwrap();
        assert!(
            (f.mean_slope - c.mean_slope).abs() < 0.1 * c.mean_slope,
            "{f:?} {c:?}"
        );
    }

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
    fn the_cap_is_where_the_ungapped_evalue_is_one_hundredth() {
        let m = crate::matrix::ScoreMatrix::by_name("blosum62").unwrap();
        let p = ungapped_parameters(&m).unwrap();
        let db = DatabaseSize {
            sequences: 20_000,
            residues: 9_055_569,
        };
        let cap = first_fit_cap(&p, 1000, db);
        let e = |s: i32| {
            p.k * 20_000.0
                * 1000.0
                * (9_055_569.0 / 20_000.0)
                * (-0.7 * p.lambda * f64::from(s)).exp()
        };
        // The score is whole: E is 0.01 within half a score's step.
        let step = (0.35 * p.lambda).exp();
        assert!(e(cap) < 0.01 * step && e(cap) > 0.01 / step, "{cap}");
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

    #[test]
    fn a_large_family_of_varied_lengths_is_trimmed_not_binned_out() {
        // 600 homologs of lengths over the whole range, scoring far above
        // chance (200 to 800): trimmed one by one, no length bin lost for
        // them, and the fit is the clean sample's. (As in ssearch36, the
        // trimming is decided once, by the first fit, whose variance the
        // homologs' capped scores inflate: here to about 10 times the
        // clean one, so a family reaching down to 100 keeps its members
        // below about 140 and the variance grows by half, as ssearch36's
        // does.)
        let (clean, lengths) = sample(6, 20_000, 0);
        let mut planted = clean.clone();
        for i in 0..600 {
            planted[i * 33] = 200 + i as i32;
        }
        let table = SequenceLengths::from(&lengths[..]);
        let a = fit(&clean, &table, Some(115)).unwrap();
        let b = fit(&planted, &table, Some(115)).unwrap();
        assert!(
            b.trimmed >= 600 && b.trimmed < a.trimmed + 620,
            "{a:?} {b:?}"
        );
        assert_eq!(b.bins_dropped, a.bins_dropped, "{a:?} {b:?}");
        assert!(
            (a.mean_slope - b.mean_slope).abs() < 0.05 * a.mean_slope,
            "{a:?} {b:?}"
        );
        assert!(
            (a.variance - b.variance).abs() < 0.05 * a.variance,
            "{a:?} {b:?}"
        );
    }

    #[test]
    fn the_fit_is_refused_below_its_minimum_or_without_variation() {
        let (scores, lengths) = sample(4, MIN_FIT_SEQUENCES - 1, 0);
        assert!(fit(&scores, &lengths[..].into(), None).is_none());
        assert!(fit(&[7; 500], &[100usize; 500][..].into(), None).is_none());
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
        let q = stats.for_query(&[0; 144], &[], &no_lengths());
        let Model::Fixed {
            search_space,
            length_adjustment,
            ..
        } = q.model
        else {
            panic!("fixed asked")
        };
        assert_eq!(search_space, 408_551_864.0);
        assert!(p.spouge.is_some());
        // Karlin–Altschul alone: the gap costs without the finite-size
        // correction's estimates.
        let q = QueryStatistics {
            model: Model::Fixed {
                parameters: KarlinAltschul { spouge: None, ..p },
                length_adjustment,
                search_space,
            },
            ..q
        };
        let score = 64;
        let e = p.k * search_space * (-p.lambda * f64::from(score)).exp();
        assert!((q.evalue(score, 999) - e).abs() < 1e-12 * e);
        // E = space · 2^(−bits), whatever the target's length.
        let bits = q.bits(score, 5);
        assert!((search_space * (-bits * std::f64::consts::LN_2).exp() - e).abs() < 1e-9 * e);
        // blastp prints 29.3 bits for this score.
        assert_eq!(format!("{bits:.1}"), "29.3");
    }

    /// `blastp` 2.12 (`-matrix BLOSUM62 -gapopen 11 -gapextend 1
    /// -comp_based_stats 0 -seg no`), the 20 standard queries against
    /// UniProt 20k (20,000 sequences, 9,055,569 residues): per hit the
    /// query and target lengths, the raw score and the E-value and bit
    /// score as printed (benches/stats/). Every one prints the same here.
    #[test]
    fn fixed_evalues_and_bits_print_as_blastps() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../benches/stats/blastp_blosum62_11_1_evalues.txt"
        );
        let scoring = Scoring {
            matrix: crate::matrix::ScoreMatrix::by_name("blosum62").unwrap(),
            gaps: crate::scoring::GapPenalty::new(11, 1).unwrap(),
        };
        let db = DatabaseSize {
            sequences: 20_000,
            residues: 9_055_569,
        };
        let stats = Statistics::new(Method::Fixed, &scoring, db).unwrap();
        let mut checked = 0;
        for line in std::fs::read_to_string(path).unwrap().lines() {
            let f: Vec<&str> = line.split_whitespace().collect();
            let (m, n, score): (usize, usize, i32) = (
                f[0].parse().unwrap(),
                f[1].parse().unwrap(),
                f[2].parse().unwrap(),
            );
            let q = stats.for_query(&vec![0; m], &[], &no_lengths());
            let e = q.evalue(score, n);
            assert_eq!(crate::output::blast_evalue(e), f[3], "{line}: {e}");
            assert_eq!(crate::output::blast_bits(q.bits(score, n)), f[4], "{line}");
            checked += 1;
        }
        assert_eq!(checked, 2296);
    }

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

    /// Two queries' scores against every sequence of UniProt 20k (BLOSUM62
    /// 10/1, recorded from the CPU engine: `length score` per sequence, in
    /// database order) and the hits `ssearch36 -s BL62 -f -10 -g -1`
    /// (FASTA 36.3.8i, its default statistics) reports with E < 10
    /// (database index, E-value as printed), in benches/stats/: P02232
    /// (144 residues, 813 sequences of two length bins dropped) and P27895
    /// (1000 residues, rich in repeats, sensitive to the first fit's cap).
    /// Every hit within a factor 2 of ssearch36's E-value, the hits with
    /// E < 0.001 the same.
    #[test]
    fn fitted_evalues_agree_with_ssearch36() {
        use std::io::Read;
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../benches/stats/");
        let scoring = Scoring {
            matrix: crate::matrix::ScoreMatrix::by_name("blosum62").unwrap(),
            gaps: crate::scoring::GapPenalty::new(10, 1).unwrap(),
        };
        for (query, query_length) in [("P02232", 144), ("P27895", 1000)] {
            let mut text = String::new();
            flate2::read::GzDecoder::new(
                std::fs::File::open(format!("{dir}{query}_uni20k_scores.tsv.gz")).unwrap(),
            )
            .read_to_string(&mut text)
            .unwrap();
            let (mut lengths, mut scores) = (Vec::new(), Vec::new());
            for line in text.lines() {
                let (n, s) = line.split_once('\t').unwrap();
                lengths.push(n.parse::<usize>().unwrap());
                scores.push(s.parse::<i32>().unwrap());
            }
            let db = DatabaseSize {
                sequences: scores.len() as u64,
                residues: lengths.iter().sum::<usize>() as u64,
            };
            assert_eq!((db.sequences, db.residues), (20_000, 9_055_569));
            let stats = Statistics::new(Method::Fitted, &scoring, db).unwrap();
            let q = stats.for_query(&vec![0; query_length], &scores, &lengths[..].into());
            let theirs =
                std::fs::read_to_string(format!("{dir}{query}_uni20k_ssearch36.tsv")).unwrap();
            let mut within = 0;
            let mut hits = 0;
            let mut ratios = Vec::new();
            for line in theirs.lines() {
                let (i, e) = line.split_once('\t').unwrap();
                let (i, e): (usize, f64) = (i.parse().unwrap(), e.parse().unwrap());
                let ours = q.evalue(scores[i], lengths[i]);
                hits += 1;
                ratios.push(ours / e);
                if (0.5..=2.0).contains(&(ours / e)) {
                    within += 1;
                }
                assert_eq!(ours < 1e-3, e < 1e-3, "{query} #{i}: {ours} vs {e}");
            }
            assert_eq!(within, hits, "{query}: {}", q.describe());
            // Centred: ssearch36's means are half a bin's slope below the
            // bins' centres (FASTA_BIN_SHIFT); from the centres the median
            // ratio is 1.05.
            ratios.sort_by(f64::total_cmp);
            let median = ratios[ratios.len() / 2];
            assert!((0.98..1.02).contains(&median), "{query}: median {median}");
            // No other sequence reaches E < 0.001 here.
            let significant = (0..scores.len())
                .filter(|&i| q.evalue(scores[i], lengths[i]) < 1e-3)
                .count();
            let theirs_significant = theirs
                .lines()
                .filter(|l| l.split_once('\t').unwrap().1.parse::<f64>().unwrap() < 1e-3)
                .count();
            assert_eq!(significant, theirs_significant, "{query}");
        }
    }

    /// `x` as C's `printf("%.2g")` prints it, as SSEARCH prints E-values:
    /// two significant digits, the exponent form below 1e-4 and from 100,
    /// trailing zeros dropped.
    fn c_two_digits(x: f64) -> String {
        if x == 0.0 {
            return "0".into();
        }
        let exponential = format!("{x:.1e}");
        let (mantissa, exponent) = exponential.split_once('e').unwrap();
        let exponent: i32 = exponent.parse().unwrap();
        let trim = |s: &str| s.trim_end_matches('0').trim_end_matches('.').to_string();
        if !(-4..2).contains(&exponent) {
            let sign = if exponent < 0 { '-' } else { '+' };
            format!("{}e{sign}{:02}", trim(mantissa), exponent.abs())
        } else {
            let decimals = (1 - exponent) as usize;
            let fixed = format!("{x:.decimals$}");
            if fixed.contains('.') {
                trim(&fixed)
            } else {
                fixed
            }
        }
    }

    #[test]
    fn c_two_digits_prints_as_printf() {
        for (x, printed) in [
            (0.45, "0.45"),
            (2.1, "2.1"),
            (9.2e-43, "9.2e-43"),
            (0.000_15, "0.00015"),
            (8.5e-6, "8.5e-06"),
            (1.96e-264, "2e-264"),
            (10.0, "10"),
            (99.4999, "99"),
            (99.5001, "1e+02"),
            (123.0, "1.2e+02"),
            (0.0, "0"),
        ] {
            assert_eq!(c_two_digits(x), printed, "{x}");
        }
    }

    /// The parameters `ssearch36 -z 3` (FASTA 36.3.8i) prints for BLOSUM50
    /// and BLOSUM62 at open 0–30, extend 1–16 (benches/stats/): the header's
    /// λ, K, H and the `-R` file's λ, K (6 digits) and `ln(K·144)/H`.
    /// Every row of the table is printed as it has it, and is FASTA's own
    /// row (the next cheaper gap costs print other values); every other
    /// gap cost prints no parameters, another row's, BLOSUM62's (for
    /// BLOSUM50) or the ungapped ones (the largest gap costs'), which
    /// warpsw refuses.
    #[test]
    fn fasta_parameters_are_what_ssearch36_prints() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../benches/stats/ssearch36_z3_parameters.txt"
        );
        let mut printed = std::collections::HashMap::new();
        for line in std::fs::read_to_string(path).unwrap().lines() {
            if line.starts_with('#') {
                continue;
            }
            let f: Vec<&str> = line.split_whitespace().collect();
            let (open, extend): (i32, i32) = (f[1].parse().unwrap(), f[2].parse().unwrap());
            let numbers = |range: std::ops::Range<usize>| -> Option<Vec<f64>> {
                f[range].iter().map(|x| x.parse().ok()).collect()
            };
            let header = numbers(3..6).unwrap();
            let precise = numbers(6..9);
            printed.insert((f[0].to_string(), open, extend), (header, precise));
        }
        let at = |matrix: &str, open: i32, extend: i32| printed.get(&(matrix.into(), open, extend));
        let triple =
            |v: &Option<Vec<f64>>, header: &[f64]| v.as_ref().map(|p| (p[0], p[1], header[2]));
        for &(matrix, open, extend, lambda, k, h) in FASTA_TABLE {
            let (header, precise) = at(matrix, open, extend).unwrap();
            let precise = precise.as_ref().unwrap();
            assert_eq!(
                (precise[0], precise[1], header[2]),
                (lambda, k, h),
                "{matrix} {open}/{extend}"
            );
            // H to more digits than the header prints: ln(K·144)/H.
            let a_n0f = (k * 144.0).ln() / h;
            assert!(
                (a_n0f - precise[2]).abs() < 1e-5 * a_n0f.abs().max(1.0),
                "{matrix} {open}/{extend}"
            );
            // FASTA's own row: the gap costs one cheaper print other values.
            let mine = Some((lambda, k, h));
            for (o, e) in [(open - 1, extend), (open + 1, extend - 1)] {
                if let Some((header, precise)) = at(matrix, o, e) {
                    assert_ne!(
                        triple(precise, header),
                        mine,
                        "{matrix} {open}/{extend} vs {o}/{e}"
                    );
                }
            }
        }
        let rows_of = |matrix: &str| -> Vec<(f64, f64, f64)> {
            FASTA_TABLE
                .iter()
                .filter(|r| r.0 == matrix)
                .map(|r| (r.3, r.4, r.5))
                .collect()
        };
        let mut substitutes = 0;
        for ((matrix, open, extend), (header, precise)) in &printed {
            let Some(values) = triple(precise, header) else {
                continue; // no parameters at all
            };
            match fasta_parameters(matrix, *open, *extend) {
                Ok(p) => assert_eq!((p.lambda, p.k, p.h), values),
                Err(_) => {
                    let (ungapped_header, ungapped) = at(matrix, 30, 16).unwrap();
                    assert!(
                        rows_of(matrix).contains(&values)
                            || rows_of("blosum62").contains(&values)
                            || triple(ungapped, ungapped_header) == Some(values),
                        "{matrix} {open}/{extend}: {values:?} is in no row"
                    );
                    substitutes += 1;
                }
            }
        }
        assert_eq!(printed.len(), 2 * 31 * 16);
        assert!(substitutes > 800, "{substitutes}");
    }

    /// `ssearch36 -z 3`'s E-values and bit scores as it prints them
    /// (benches/stats/): the 20 standard queries against UniProt 20k with
    /// BLOSUM62 11/1 and 10/1 and BLOSUM50 10/2 (E < 10, E = 0 where it
    /// prints 0), and against its first 300 sequences (E up to 1000: each
    /// pair's P-value `1 − e^(−x)`; targets held at length 1). Every one
    /// prints the same here.
    #[test]
    fn fixed_fasta_evalues_and_bits_print_as_ssearch36s() {
        use std::io::Read;
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../benches/stats/ssearch36_z3_evalues.txt.gz"
        );
        let mut text = String::new();
        flate2::read::GzDecoder::new(std::fs::File::open(path).unwrap())
            .read_to_string(&mut text)
            .unwrap();
        let mut searches = std::collections::HashMap::new();
        let (mut checked, mut zero, mut poisson) = (0, 0, 0);
        for line in text.lines().filter(|l| !l.starts_with('#')) {
            let f: Vec<&str> = line.split_whitespace().collect();
            let n: Vec<u64> = f[1..7].iter().map(|x| x.parse().unwrap()).collect();
            let (open, extend, sequences) = (n[0] as i32, n[1] as i32, n[2]);
            let (m, length, score) = (n[3] as usize, n[4] as usize, n[5] as i32);
            let stats = searches
                .entry((f[0].to_string(), open, extend, sequences))
                .or_insert_with(|| {
                    let scoring = Scoring {
                        matrix: crate::matrix::ScoreMatrix::by_name(f[0]).unwrap(),
                        gaps: crate::scoring::GapPenalty::new(open, extend).unwrap(),
                    };
                    // ssearch36's E-values do not depend on the residues.
                    let db = DatabaseSize {
                        sequences,
                        residues: sequences * 400,
                    };
                    Statistics::new(Method::FixedFasta, &scoring, db).unwrap()
                });
            let q = stats.for_query(&vec![0; m], &[], &no_lengths());
            let e = q.evalue(score, length);
            assert_eq!(c_two_digits(e), f[8], "{line}: {e}");
            assert_eq!(format!("{:.1}", q.bits(score, length)), f[7], "{line}");
            zero += usize::from(e == 0.0);
            poisson += usize::from(e / sequences as f64 > FASTA_POISSON_FROM);
            checked += 1;
        }
        assert_eq!(checked, 20_872);
        assert!(zero > 30 && poisson > 10_000, "{zero} {poisson}");
    }

    #[test]
    fn fixed_fasta_refuses_what_ssearch36_would_substitute() {
        let error = |matrix: &str, open, extend| {
            fasta_parameters(matrix, open, extend)
                .unwrap_err()
                .to_string()
        };
        // Above the table: ssearch36 takes the ungapped parameters.
        let e = error("blosum62", 12, 1);
        assert!(
            e.contains("gap open 12 / extend 1") && e.contains("11/1, 10/1"),
            "{e}"
        );
        // Between rows: ssearch36 takes the next row.
        assert!(error("blosum62", 6, 3).contains("5/3"));
        // BLOSUM50 below its table: ssearch36 takes BLOSUM62's 11/1.
        assert!(error("blosum50", 11, 1).contains("15/1"));
        for other in ["blosum80", "pam250"] {
            assert!(error(other, 10, 1).contains("unlike NCBI's"), "{other}");
        }
        assert!(error("blosum45", 13, 3).contains("BLOSUM50 and BLOSUM62"));
        // A matrix file with a built-in name but other scores has none.
        let mut scores = *crate::matrix::ScoreMatrix::by_name("blosum62")
            .unwrap()
            .scores();
        scores[0][0] += 1;
        let scoring = Scoring {
            matrix: crate::matrix::ScoreMatrix::from_scores("blosum62", scores),
            gaps: crate::scoring::GapPenalty::new(11, 1).unwrap(),
        };
        let db = DatabaseSize {
            sequences: 1000,
            residues: 400_000,
        };
        let e = Statistics::new(Method::FixedFasta, &scoring, db)
            .unwrap_err()
            .to_string();
        assert!(e.contains("from file blosum62"), "{e}");
        assert!(check_method(Method::FixedFasta, &scoring).is_err());
        assert!(check_method(Method::Fitted, &scoring).is_ok());
    }

    #[test]
    fn fixed_fasta_shortens_the_lengths_and_counts_sequences() {
        let p = fasta_parameters("blosum62", 11, 1).unwrap();
        // ssearch36's first hit for P02232 (144 residues) in UniProt 20k:
        // score 64 against 202 residues, bits 30.3, E(20000) 0.45.
        let edge = (0.05f64 * 144.0 * 202.0).ln() / 0.25;
        let (m, n) = p.effective_lengths(144, 202);
        assert!((m - (144.0 - edge)).abs() < 1e-5 && (n - (202.0 - edge)).abs() < 1e-5);
        let q = QueryStatistics {
            model: Model::FixedFasta { parameters: p },
            query_length: 144,
            database: DatabaseSize {
                sequences: 20_000,
                residues: 9_055_569,
            },
            fallback: None,
        };
        let x = 0.05 * m * n * (-0.275f64 * 64.0).exp();
        assert!((q.evalue(64, 202) / (20_000.0 * x) - 1.0).abs() < 1e-6);
        assert_eq!(
            format!("{:.2} {:.1}", q.evalue(64, 202), q.bits(64, 202)),
            "0.45 30.3"
        );
        // The E-value counts sequences: residues do not matter.
        let more = QueryStatistics {
            database: DatabaseSize {
                sequences: 20_000,
                residues: 1,
            },
            ..q.clone()
        };
        assert_eq!(more.evalue(64, 202), q.evalue(64, 202));
        // Where SSEARCH prints 0 the rank still follows the score.
        assert_eq!(q.evalue(2_000, 202), 0.0);
        assert!(q.ln_evalue(2_001, 202) < q.ln_evalue(2_000, 202));
        assert!(q.describe().contains("fixed-fasta") && q.describe().contains("lambda 0.275"));
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
    fn a_query_that_cannot_be_fitted_falls_back_in_turn() {
        let db = DatabaseSize {
            sequences: 4,
            residues: 400,
        };
        let with = |open, extend| Scoring {
            matrix: crate::matrix::ScoreMatrix::by_name("blosum62").unwrap(),
            gaps: crate::scoring::GapPenalty::new(open, extend).unwrap(),
        };
        let lengths: SequenceLengths = [100; 4][..].into();
        let query: Vec<u8> = (0..50u8).map(|i| (i * 3) % 20).collect();
        // Published parameters first.
        let stats = Statistics::new(Method::Fitted, &with(11, 1), db).unwrap();
        let q = stats.for_query(&query, &[1, 2, 3, 4], &lengths);
        assert!(matches!(q.model, Model::Fixed { .. }));
        assert!(q.fallback.as_ref().unwrap().contains("published"));
        // None at 3/3: a fit of the query's scores against random sequences.
        let stats = Statistics::new(Method::Fitted, &with(3, 3), db).unwrap();
        let q = stats.for_query(&query, &[1, 2, 3, 4], &lengths);
        let Model::Simulated(f) = &q.model else {
            panic!("{:?}", q.model)
        };
        assert!(f.used >= MIN_FIT_SEQUENCES);
        assert!(q.fallback.as_ref().unwrap().contains("random sequences"));
        assert!(q.describe().contains("simulated"));
        // A higher score is rarer; the E-values are finite and positive.
        let (e20, e40) = (q.evalue(20, 100), q.evalue(40, 100));
        assert!(e40 < e20 && e40 > 0.0 && e20.is_finite(), "{e20} {e40}");
        // One residue of alanine scores 4 against nearly any sequence: its
        // random scores do not vary, the matrix's ungapped parameters serve.
        let q = stats.for_query(&[0], &[4, 4, 4, 4], &lengths);
        let Model::Ungapped { parameters } = &q.model else {
            panic!("{:?}", q.model)
        };
        assert!((parameters.lambda - 0.3176).abs() < 1e-4);
        assert!(q.fallback.as_ref().unwrap().contains("ungapped"));
        assert!(q.evalue(4, 100) > 1.0, "{}", q.evalue(4, 100));
        // The same query gets the same statistics again.
        let again = stats.for_query(&query, &[1, 2, 3, 4], &lengths);
        assert_eq!(again, stats.for_query(&query, &[1, 2, 3, 4], &lengths));
    }

    #[test]
    fn a_matrix_without_local_statistics_is_refused_before_the_search() {
        let db = DatabaseSize {
            sequences: 4,
            residues: 400,
        };
        let scoring = Scoring {
            matrix: crate::matrix::ScoreMatrix::from_scores("plus", [[2; 24]; 24]),
            gaps: crate::scoring::GapPenalty::new(5, 1).unwrap(),
        };
        let e = Statistics::new(Method::Fitted, &scoring, db)
            .unwrap_err()
            .to_string();
        assert!(e.contains("--stats none"), "{e}");
        assert!(Statistics::new(Method::RawScores, &scoring, db).is_ok());
    }
}
