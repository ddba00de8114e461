//! FASTA's table of gapped Altschul–Gish parameters
//! ([`Method::FixedFasta`]): λ, K and H as SSEARCH (FASTA 36.3.8i) holds
//! them for BLOSUM50 and BLOSUM62, and each pair's lengths shortened by
//! the expected length of an alignment, `ln(K·m·n)/H`, as `ssearch36 -z 3`
//! computes them.
//!
//! * Altschul, S. F. & Gish, W. (1996). *Local alignment statistics.*
//!   Methods Enzymol. 266:460–480: the method of the parameters and the
//!   shortening of the lengths ([`AltschulGish`], [`fasta_parameters`]).
//! * Pearson, W. R. (1998). *Empirical statistical estimates for sequence
//!   similarity searches.* J. Mol. Biol. 276:71–84: SSEARCH's E-value over
//!   a database of `N` sequences, `E(N) = N·P`.
//!
//! [`Method::FixedFasta`]: super::Method::FixedFasta

use serde::Serialize;

use crate::error::{Error, Result};

/// Gapped Altschul–Gish parameters of one matrix and gap costs as FASTA
/// tabulates them ([`Method::FixedFasta`]).
///
/// [`Method::FixedFasta`]: super::Method::FixedFasta
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
pub(super) const FASTA_ZERO_Z: f64 = 400.0;

/// Where the P-value switches from `x` to `1 − e^(−x)`: SSEARCH takes `x`
/// itself up to 0.01, where the two differ by up to 0.5 %, which shows in
/// the two digits it prints.
pub(super) const FASTA_POISSON_FROM: f64 = 0.01;

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
///
/// [`Method::FixedFasta`]: super::Method::FixedFasta
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scoring::Scoring;
    use crate::stats::{DatabaseSize, Method, Statistics, check_method};

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
}
