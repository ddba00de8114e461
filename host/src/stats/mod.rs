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

use serde::Serialize;

use crate::error::{Error, Result};
use crate::scoring::Scoring;

mod blast;
mod fasta;
mod fitted;
mod query;
pub mod simulated;
mod ungapped;

pub use blast::{KarlinAltschul, Spouge, fixed_parameters, length_adjustment};
pub use fasta::{AltschulGish, fasta_parameters};
pub use fitted::{
    Fit, LOW_TRIM_Z, MIN_FIT_LENGTH, MIN_FIT_SEQUENCES, SequenceLengths, first_fit_cap, fit,
    ln_pvalue_from_z, trim_threshold,
};
pub use query::{Model, QueryStatistics};
use ungapped::has_local_statistics;
pub use ungapped::{ROBINSON_FREQUENCIES, Ungapped, ssearch_cap_parameters, ungapped_parameters};

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

/// The database as the statistics see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct DatabaseSize {
    /// Number of sequences.
    pub sequences: u64,
    /// Total residues.
    pub residues: u64,
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
    /// The matrix's [`ungapped_parameters`] and the parameters of the first
    /// fit's cap ([`ssearch_cap_parameters`], else the former), computed
    /// when a fit first needs them (tens of milliseconds: a search with
    /// published parameters never does).
    ungapped: std::sync::OnceLock<(Option<Ungapped>, Option<Ungapped>)>,
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
        if method == Method::Fitted && fixed.is_none() && !has_local_statistics(&scoring.matrix) {
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
            ungapped: std::sync::OnceLock::new(),
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
        self.ungapped()
            .1
            .map(|u| first_fit_cap(&u, query_length, self.database))
    }

    /// The matrix's ungapped parameters and the cap's ([`Statistics`]'s
    /// `ungapped`).
    fn ungapped(&self) -> (Option<Ungapped>, Option<Ungapped>) {
        *self.ungapped.get_or_init(|| {
            let ungapped = ungapped_parameters(&self.scoring.matrix);
            (
                ungapped,
                ssearch_cap_parameters(&self.scoring.matrix).or(ungapped),
            )
        })
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
            .ungapped()
            .0
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
