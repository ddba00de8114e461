//! One query's statistics: the model its E-values come from ([`Model`]:
//! fitted, BLAST's or FASTA's published parameters, fitted to random
//! sequences, or the matrix's ungapped parameters) and
//! [`QueryStatistics`], which turns a score against a sequence into an
//! E-value and a bit score, finds the best hits without every sequence's
//! E-value, and says in one line how the E-values were computed.
//!
//! * Pearson, W. R. (1998). *Empirical statistical estimates for sequence
//!   similarity searches.* J. Mol. Biol. 276:71–84: the fitted E-value
//!   `E = N·P` and the bit score `log2(m·n/P)`.
//! * Karlin, S. & Altschul, S. F. (1990). PNAS 87:2264–2268, with the
//!   parameters of Altschul, S. F. & Gish, W. (1996). Methods Enzymol.
//!   266:460–480 and the edge correction of Altschul, S. F., Bundschuh, R.,
//!   Olsen, R. & Hwa, T. (2001). Nucleic Acids Res. 29:351–361:
//!   `E = K·m'·n'·e^(−λS)`, the bit score `(λS − ln K)/ln 2`.
//! * Park, Y., Sheetlin, S., Ma, N., Madden, T. L. & Spouge, J. L. (2012).
//!   *New finite-size correction for local alignment score distributions.*
//!   BMC Research Notes 5:286: the pair's E-value times `D/n`, as `blastp`
//!   2.12 computes it.

use rayon::prelude::*;
use serde::Serialize;

use super::fasta::{FASTA_POISSON_FROM, FASTA_ZERO_Z};
use super::fitted::{EULER_GAMMA, PI_OVER_SQRT6, ln_length};
use super::{AltschulGish, DatabaseSize, Fit, KarlinAltschul, SequenceLengths, ln_pvalue_from_z};

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
        /// ℓ of [`length_adjustment`](super::length_adjustment).
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
    ///
    /// [`simulated`]: super::simulated
    Simulated(Fit),
    /// The matrix's ungapped λ, K, H ([`ungapped_parameters`]), each pair's
    /// lengths shortened by `ln(K·m·n)/H` as with FASTA's table: the last
    /// fallback, for a query too short for its scores to vary (a peptide
    /// of a residue or two aligns without gaps), as SSEARCH falls back to
    /// the ungapped parameters.
    ///
    /// [`ungapped_parameters`]: super::ungapped_parameters
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
        // In increasing order, so that rank_by_evalue's last tie-break (the
        // position) orders them as it orders the whole database.
        let candidates: Vec<usize> = match (self.model.fit(), self.z_floor(max_ln_evalue)) {
            (Some(fit), Some(floor)) => (0..scores.len())
                .into_par_iter()
                .with_min_len(4096)
                .filter(|&i| {
                    // A NaN is evaluated, not left out.
                    let z = fit.z_of_ln(scores[i], lengths.ln[i]);
                    z >= floor || z.is_nan()
                })
                .collect(),
            (None, _) if max_ln_evalue >= FLOORS_FROM_LN_EVALUE || max_ln_evalue.is_nan() => {
                let classes = lengths.classes();
                let floors = self.score_floors(scores, &classes.distinct, max_ln_evalue);
                (0..scores.len())
                    .into_par_iter()
                    .with_min_len(4096)
                    .filter(|&i| scores[i] >= floors[classes.class[i] as usize])
                    .collect()
            }
            // Every sequence's E-value, ranked.
            (Some(_), None) | (None, _) => (0..scores.len()).collect(),
        };
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

    /// For a model without a fit and a cut of at least
    /// [`FLOORS_FROM_LN_EVALUE`], the least score of each of the `distinct`
    /// lengths (ascending) whose `ln E` is at most `max_ln_evalue` (above
    /// every score of `scores` where none is), so that [`top_hits`]
    /// evaluates only the sequences that may pass: `ln E` depends on the
    /// score and the length alone and does not rise with the score
    /// (`evalues_fall_as_scores_rise`), so a score passes exactly when it
    /// is at least its length's floor. A length's floor is searched from
    /// the one before (lengths ascending), where it usually is: a few
    /// E-values a length, against one a sequence, and the Spouge
    /// correction costs about a microsecond each.
    ///
    /// [`top_hits`]: QueryStatistics::top_hits
    fn score_floors(&self, scores: &[i32], distinct: &[usize], max_ln_evalue: f64) -> Vec<i32> {
        let (lo, hi) = scores
            .par_iter()
            .with_min_len(1 << 14)
            .fold(
                || (i32::MAX, i32::MIN),
                |(lo, hi), &s| (lo.min(s), hi.max(s)),
            )
            .reduce(|| (i32::MAX, i32::MIN), |a, b| (a.0.min(b.0), a.1.max(b.1)));
        if lo > hi {
            return vec![0; distinct.len()];
        }
        distinct
            .par_chunks(256)
            .flat_map_iter(|chunk| {
                let mut guess = hi;
                chunk.iter().map(move |&n| {
                    // A NaN counts as passing: the floor may then sit
                    // lower, never higher, and every candidate is evaluated.
                    let passes = |s: i32| {
                        let e = self.ln_evalue(s, n);
                        e <= max_ln_evalue || e.is_nan()
                    };
                    guess = least_passing(passes, lo, hi, guess);
                    guess
                })
            })
            .collect()
    }

    /// The E-value of `score` against a sequence of `length` residues. With
    /// [`Method::FixedFasta`] it is 0 where SSEARCH prints 0 (a Gumbel
    /// z-score above [`FASTA_ZERO_Z`]); [`QueryStatistics::ln_evalue`] keeps
    /// the finite value, so that such hits still rank by significance.
    ///
    /// [`Method::FixedFasta`]: super::Method::FixedFasta
    pub fn evalue(&self, score: i32, length: usize) -> f64 {
        if let Model::FixedFasta { parameters: p } = &self.model {
            let ln_x = p.ln_pair_expectation(score, self.query_length, length);
            if -ln_x - EULER_GAMMA > FASTA_ZERO_Z * PI_OVER_SQRT6 {
                return 0.0;
            }
        }
        self.ln_evalue(score, length).exp()
    }

    /// The bit score (see the [module docs](super)).
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

/// The least `ln E` cut [`QueryStatistics::top_hits`] serves by score
/// floors: below the logarithm of the smallest positive `f64` (5e-324),
/// which no E-value cut a user can write goes under. `ln E` of a model
/// without a fit may rise with the score only far below it (Spouge's area
/// at scores beyond what the lengths hold: `evalues_fall_as_scores_rise`);
/// a lower cut (`--evalue 0`) has every sequence evaluated.
const FLOORS_FROM_LN_EVALUE: f64 = -745.0;

/// The least `s` in `lo ..= hi` for which `passes(s)` holds, `hi + 1`
/// where none does, for a `passes` that never turns false as `s` rises;
/// searched outwards from `guess` in growing steps, then by halving.
fn least_passing(passes: impl Fn(i32) -> bool, lo: i32, hi: i32, guess: i32) -> i32 {
    if !passes(hi) {
        return hi.saturating_add(1);
    }
    // `fails < good`, `passes(good)`, and `fails` below `lo` or failing.
    let g = guess.clamp(lo, hi);
    let (mut fails, mut good) = if passes(g) {
        let (mut good, mut step) = (g, 1i64);
        loop {
            let t = i64::from(good) - step;
            if t < i64::from(lo) {
                break (i64::from(lo) - 1, i64::from(good));
            }
            if passes(t as i32) {
                good = t as i32;
                step *= 2;
            } else {
                break (t, i64::from(good));
            }
        }
    } else {
        let (mut fails, mut step) = (i64::from(g), 1i64);
        loop {
            let t = (fails + step).min(i64::from(hi));
            if passes(t as i32) {
                break (fails, t);
            }
            fails = t;
            step *= 2;
        }
    };
    while good - fails > 1 {
        let mid = fails + (good - fails) / 2;
        if passes(mid as i32) {
            good = mid;
        } else {
            fails = mid;
        }
    }
    good as i32
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scoring::Scoring;
    use crate::stats::fitted::tests::sample;
    use crate::stats::{Method, Statistics, fasta_parameters, fit, fixed_parameters};

    /// An empty database's lengths.
    fn no_lengths() -> SequenceLengths {
        SequenceLengths::new(Vec::new())
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

    /// Every model without a fit, as a search of a query of `query_length`
    /// residues over a database of `lengths` gets it: BLAST's parameters
    /// with Spouge's correction (BLOSUM62) and with the edge correction
    /// only (PAM30 15/3, which the tables give no Spouge line), FASTA's,
    /// and the matrix's ungapped ones.
    fn models_without_a_fit(query_length: usize, lengths: &[usize]) -> Vec<QueryStatistics> {
        let db = DatabaseSize {
            sequences: lengths.len() as u64,
            residues: lengths.iter().sum::<usize>() as u64,
        };
        let query = vec![0u8; query_length];
        let mut models = Vec::new();
        for (matrix, open, extend) in [
            ("blosum62", 11, 1),
            ("blosum62", 10, 1),
            ("blosum62", 11, 2),
            ("blosum50", 13, 2),
            ("pam30", 15, 3),
        ] {
            let scoring = Scoring {
                matrix: crate::matrix::ScoreMatrix::by_name(matrix).unwrap(),
                gaps: crate::scoring::GapPenalty::new(open, extend).unwrap(),
            };
            for method in [Method::Fixed, Method::FixedFasta] {
                if let Ok(stats) = Statistics::new(method, &scoring, db) {
                    models.push(stats.for_query(&query, &[], &no_lengths()));
                }
            }
            let u = crate::stats::ungapped_parameters(&scoring.matrix).unwrap();
            models.push(QueryStatistics {
                model: Model::Ungapped {
                    parameters: AltschulGish {
                        lambda: u.lambda,
                        k: u.k,
                        h: u.h,
                    },
                },
                query_length,
                database: db,
                fallback: None,
            });
        }
        let spouge = |q: &QueryStatistics| matches!(&q.model, Model::Fixed { parameters, .. } if parameters.spouge.is_some());
        assert!(models.iter().any(spouge), "Spouge's correction covered");
        let edge_only = |q: &QueryStatistics| matches!(&q.model, Model::Fixed { parameters, .. } if parameters.spouge.is_none());
        assert!(
            models.iter().any(edge_only),
            "the edge correction alone covered"
        );
        assert!(
            models
                .iter()
                .any(|q| matches!(q.model, Model::FixedFasta { .. }))
        );
        models
    }

    /// What `score_floors` rests on: without a fit, `ln E` never rises
    /// with the score at a fixed length, nor is it NaN.
    #[test]
    fn evalues_fall_as_scores_rise() {
        let lengths = [1, 2, 5, 30, 128, 400, 618, 2_000, 5_000, 35_000, 50_000_000];
        for query_length in [1, 5, 144, 5_000, 35_000] {
            for q in models_without_a_fit(query_length, &lengths) {
                for &n in &lengths {
                    let mut last = q.ln_evalue(0, n);
                    // Every score up to 4,000, and for the longest query
                    // to beyond any its length can reach (where Spouge's
                    // area cancels to nothing).
                    let top = if query_length == 35_000 {
                        60_000
                    } else {
                        4_000
                    };
                    for score in 1..=top {
                        let e = q.ln_evalue(score, n);
                        // Rises below the smallest E a cut can name
                        // (Spouge's area at scores far beyond the lengths)
                        // pass every cut `score_floors` serves.
                        assert!(
                            !e.is_nan() && (e <= last || e < FLOORS_FROM_LN_EVALUE),
                            "{} query {query_length}, length {n}, score {score}: {e} after {last}",
                            q.model.name()
                        );
                        last = e;
                    }
                }
            }
        }
    }

    /// Without a fit, `top_hits` evaluates only the scores at least their
    /// length's floor, and ranks as every E-value ranked would.
    #[test]
    fn top_hits_without_a_fit_rank_as_every_evalue_ranked_would() {
        for (seed, count, homologs) in [(6, 20_000, 25), (7, 600, 3), (8, 300, 0)] {
            let (scores, lengths) = sample(seed, count, homologs);
            // Some lengths shared by many (an equal-length database's case).
            let lengths: Vec<usize> = lengths
                .iter()
                .enumerate()
                .map(|(i, &n)| if i % 3 == 0 { 128 } else { n })
                .collect();
            let table = SequenceLengths::from(&lengths[..]);
            for q in models_without_a_fit(300, &lengths) {
                let ln_e: Vec<f64> = (0..count)
                    .map(|i| q.ln_evalue(scores[i], lengths[i]))
                    .collect();
                let mut cuts = vec![f64::NEG_INFINITY, -50.0, -5.0, 0.0, 10f64.ln(), 5.0];
                cuts.extend([1e9, f64::INFINITY, f64::NAN, -f64::MAX, f64::MAX]);
                cuts.extend(ln_e.iter().step_by(count / 40).copied());
                for cut in cuts {
                    for top in [1, 10, 100, count] {
                        assert_eq!(
                            q.top_hits(&scores, &table, top, cut),
                            crate::merge::rank_by_evalue(&ln_e, &scores, top, cut),
                            "{}, seed {seed}, cut {cut}, top {top}",
                            q.model.name()
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn least_passing_finds_the_edge_from_any_guess() {
        for edge in [-3, 0, 1, 7, 50, 51, 99, 100, 101] {
            let calls = std::cell::Cell::new(0);
            let passes = |s: i32| {
                calls.set(calls.get() + 1);
                s >= edge
            };
            for guess in [-100, -1, 0, 1, 6, 7, 8, 49, 50, 100, 1000] {
                let want = edge.clamp(0, 101);
                assert_eq!(
                    least_passing(passes, 0, 100, guess),
                    want,
                    "edge {edge}, guess {guess}"
                );
            }
        }
        // From the right guess, three calls.
        let calls = std::cell::Cell::new(0);
        let passes = |s: i32| {
            calls.set(calls.get() + 1);
            s >= 40
        };
        assert_eq!(least_passing(passes, 0, 100, 40), 40);
        assert_eq!(calls.get(), 3);
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
}
