//! Substitution matrices: takes a name or an NCBI-format file, returns scores.
//!
//! A [`ScoreMatrix`] is a 24×24 table of `i8` scores over the residue codes of
//! [`crate::alphabet`] (NCBI's order `ARNDCQEGHILKMFPSTWYVBZX*`). Every score
//! lies in `-127..=127`: the kernels pack scores as `i8` and keep `-128` for
//! padding.
//!
//! # Built-in matrices
//!
//! [`BUILTIN`] lists the matrices [`ScoreMatrix::by_name`] knows. Their files,
//! in `host/data/matrices/`, are NCBI's (`ftp.ncbi.nih.gov/blast/matrices/`)
//! byte for byte as packaged by Biopython 1.88
//! (`Bio/Align/substitution_matrices/data/` in the PyPI wheel): the BLOSUM
//! files say "Matrix made by matblas from blosumNN.iij", the PAM files
//! "produced by \"pam\" Version 1.0.6 [28-Jul-93]", and all of them hold
//! rows and columns for `B`, `Z`, `X` and `*`. They are embedded with
//! `include_str!` and parsed by [`ScoreMatrix::parse_ncbi`], the parser that
//! reads user files, on each [`ScoreMatrix::by_name`] call (microseconds).
//!
//! # File format
//!
//! NCBI's text format: lines starting with `#` are comments, blank lines are
//! skipped, the first other line is a header of single letters, and each
//! following line is a row: its letter, then one integer per header letter.
//! Tokens are separated by spaces or tabs.
//!
//! ```text
//! #  BLOSUM Clustered Scoring Matrix in 1/2 Bit Units
//!    A  R  N  D  C  Q  E  G  H  I  L  K  M  F  P  S  T  W  Y  V  B  Z  X  *
//! A  4 -1 -2 -2  0 -1 -1  0 -2 -1 -1 -1 -1 -2 -1  1  0 -3 -2  0 -2 -1  0 -4
//! ...
//! ```
//!
//! A file is accepted when:
//! * the header and the rows name the same letters, each once (rows may come
//!   in any order), and every row has one score per header letter;
//! * all 24 letters `ARNDCQEGHILKMFPSTWYVBZX*` are present;
//! * the scores are symmetric and are integers in `-127..=127`.
//!
//! Letters are ASCII letters or `*`, case-insensitive. **Extra letters** (such
//! as `U`, `O` or `J` in some matrices) are validated like the others and then
//! ignored: warpsw scores `U`, `O` and `J` as `X` (docs/design.md §4).

use std::path::Path;

use crate::alphabet::{LETTERS, NUM_RESIDUES};
use crate::error::{Error, Result};

/// Names of the built-in matrices, as [`ScoreMatrix::by_name`] accepts them
/// (case-insensitively).
pub const BUILTIN: &[&str] = &[
    "blosum45", "blosum50", "blosum62", "blosum80", "blosum90", "pam30", "pam70", "pam250",
];

/// A built-in matrix's name from the ways users spell it: any case, and
/// ssearch36's short forms (`BL62` for BLOSUM62, `P250` for PAM250).
fn canonical_name(name: &str) -> String {
    let lower = name.to_ascii_lowercase();
    let short = |prefix: &str, full: &str| {
        lower
            .strip_prefix(prefix)
            .filter(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
            .map(|n| format!("{full}{n}"))
    };
    short("bl", "blosum")
        .or_else(|| short("p", "pam"))
        .unwrap_or(lower)
}

/// The NCBI text of a built-in matrix, by its lower-case name.
fn builtin_text(lower_name: &str) -> Option<&'static str> {
    Some(match lower_name {
        "blosum45" => include_str!("../data/matrices/BLOSUM45"),
        "blosum50" => include_str!("../data/matrices/BLOSUM50"),
        "blosum62" => include_str!("../data/matrices/BLOSUM62"),
        "blosum80" => include_str!("../data/matrices/BLOSUM80"),
        "blosum90" => include_str!("../data/matrices/BLOSUM90"),
        "pam30" => include_str!("../data/matrices/PAM30"),
        "pam70" => include_str!("../data/matrices/PAM70"),
        "pam250" => include_str!("../data/matrices/PAM250"),
        _ => return None,
    })
}

/// A 24×24 substitution matrix over the codes of [`crate::alphabet`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScoreMatrix {
    name: String,
    scores: [[i8; NUM_RESIDUES]; NUM_RESIDUES],
}

impl ScoreMatrix {
    /// A matrix named `name` with the given table, indexed by residue codes
    /// (`scores[a][b]`, NCBI's order `ARNDCQEGHILKMFPSTWYVBZX*`): for tables
    /// built in code, such as tests' match/mismatch matrices.
    ///
    /// # Panics
    /// If the table breaks what every [`ScoreMatrix`] holds (see the
    /// [module docs](self)): a score of `-128` (reserved for padding) or
    /// asymmetric scores.
    ///
    /// ```
    /// use host::alphabet::encode;
    /// use host::matrix::ScoreMatrix;
    /// let mut scores = [[-1i8; 24]; 24];
    /// for (a, row) in scores.iter_mut().enumerate() {
    ///     row[a] = 1;
    /// }
    /// let m = ScoreMatrix::from_scores("+1/-1", scores);
    /// let (a, r) = (encode(b'A').unwrap(), encode(b'R').unwrap());
    /// assert_eq!((m.score(a, a), m.score(a, r)), (1, -1));
    /// assert_eq!(m.name(), "+1/-1");
    /// ```
    pub fn from_scores(name: &str, scores: [[i8; NUM_RESIDUES]; NUM_RESIDUES]) -> ScoreMatrix {
        for a in 0..NUM_RESIDUES {
            for b in 0..NUM_RESIDUES {
                assert!(
                    scores[a][b] != i8::MIN,
                    "matrix {name}: score -128 at [{a}][{b}] (reserved for padding)"
                );
                assert!(
                    scores[a][b] == scores[b][a],
                    "matrix {name}: scores[{a}][{b}] = {} but scores[{b}][{a}] = {} (not symmetric)",
                    scores[a][b],
                    scores[b][a]
                );
            }
        }
        ScoreMatrix {
            name: name.to_string(),
            scores,
        }
    }

    /// Score of residue codes `a` and `b`.
    #[inline]
    pub fn score(&self, a: u8, b: u8) -> i32 {
        self.scores[a as usize][b as usize] as i32
    }

    /// The matrix's name (built-in name or file path).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The whole table, indexed by residue codes: `scores()[a][b]`.
    pub fn scores(&self) -> &[[i8; NUM_RESIDUES]; NUM_RESIDUES] {
        &self.scores
    }

    /// The largest score in the matrix.
    ///
    /// ```
    /// let m = host::matrix::ScoreMatrix::by_name("BLOSUM62").unwrap();
    /// assert_eq!(m.max_score(), 11); // W/W
    /// assert_eq!(m.min_score(), -4);
    /// ```
    pub fn max_score(&self) -> i32 {
        self.scores.iter().flatten().copied().max().unwrap_or(0) as i32
    }

    /// The smallest score in the matrix.
    pub fn min_score(&self) -> i32 {
        self.scores.iter().flatten().copied().min().unwrap_or(0) as i32
    }

    /// The built-in matrix called `name` (one of [`BUILTIN`], any case); its
    /// [`name`](Self::name) is the lower-case form.
    ///
    /// # Errors
    /// [`Error::UnknownMatrix`], listing the built-in names, when `name` is
    /// none of them.
    ///
    /// ```
    /// use host::alphabet::encode;
    /// let m = host::matrix::ScoreMatrix::by_name("pam250").unwrap();
    /// let w = encode(b'W').unwrap();
    /// assert_eq!(m.score(w, w), 17);
    /// assert!(host::matrix::ScoreMatrix::by_name("blosum100").is_err());
    /// // As ssearch36 spells them.
    /// let bl62 = host::matrix::ScoreMatrix::by_name("BL62").unwrap();
    /// assert_eq!(bl62.name(), "blosum62");
    /// assert_eq!(host::matrix::ScoreMatrix::by_name("P250").unwrap().name(), "pam250");
    /// ```
    pub fn by_name(name: &str) -> Result<ScoreMatrix> {
        let lower = canonical_name(name);
        match builtin_text(&lower) {
            Some(text) => Self::parse_ncbi(text, &lower),
            None => Err(Error::UnknownMatrix {
                name: name.to_string(),
                known: BUILTIN.join(", "),
            }),
        }
    }

    /// Reads an NCBI-format matrix file (see the [module docs](self) for the
    /// format and what is checked); the matrix is named after `path`.
    ///
    /// # Errors
    /// [`Error::Io`] when the file cannot be read, [`Error::Matrix`] when it
    /// is not valid UTF-8 or not a valid matrix.
    pub fn from_file(path: &Path) -> Result<ScoreMatrix> {
        let bytes = std::fs::read(path).map_err(|reason| Error::Io {
            path: path.to_path_buf(),
            reason,
        })?;
        let source_name = path.display().to_string();
        let text = String::from_utf8(bytes).map_err(|e| Error::Matrix {
            source_name: source_name.clone(),
            line: None,
            message: format!("the file is not UTF-8 text ({e})"),
        })?;
        Self::parse_ncbi(&text, &source_name)
    }

    /// Parses NCBI's matrix text format (see the [module docs](self));
    /// `source_name` names the matrix and its errors.
    ///
    /// # Errors
    /// [`Error::Matrix`] with the 1-based line of the problem when it is on
    /// one line: a header or row token that is not a letter, a row with the
    /// wrong number of scores, a score that is not an integer in
    /// `-127..=127`, a letter twice, a row letter missing from the header,
    /// asymmetric scores (the line of the later row). Without a line: no
    /// header, a header letter without a row, a missing letter of
    /// `ARNDCQEGHILKMFPSTWYVBZX*`.
    ///
    /// ```
    /// use host::matrix::ScoreMatrix;
    /// let text = "# comment\n  A  R\nA  4 -1\nR -1  5\n";
    /// let err = ScoreMatrix::parse_ncbi(text, "tiny").unwrap_err();
    /// // Well-formed, but the 22 other letters are missing.
    /// assert!(err.to_string().contains("missing"));
    /// ```
    pub fn parse_ncbi(text: &str, source_name: &str) -> Result<ScoreMatrix> {
        let fail = |line: Option<usize>, message: String| Error::Matrix {
            source_name: source_name.to_string(),
            line,
            message,
        };
        let mut lines = text
            .lines()
            .enumerate()
            .map(|(i, l)| (i + 1, l.trim()))
            .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'));

        // Header: the column letters.
        let (header_line, header) = lines.next().ok_or_else(|| {
            fail(
                None,
                "no header row (the text is empty or holds only comments)".into(),
            )
        })?;
        let mut columns: Vec<u8> = Vec::new();
        for token in header.split_ascii_whitespace() {
            let letter = parse_letter(token).ok_or_else(|| {
                fail(
                    Some(header_line),
                    format!("header token '{token}' is not a single letter or '*'"),
                )
            })?;
            if columns.contains(&letter) {
                return Err(fail(
                    Some(header_line),
                    format!("letter '{}' appears twice in the header", letter as char),
                ));
            }
            columns.push(letter);
        }

        // Rows: rows[i] holds the scores of column letter i, with its line.
        let n = columns.len();
        let mut rows: Vec<Option<(usize, Vec<i8>)>> = vec![None; n];
        for (line_no, line) in lines {
            let mut tokens = line.split_ascii_whitespace();
            let first = tokens.next().unwrap_or_default();
            let letter = parse_letter(first).ok_or_else(|| {
                fail(
                    Some(line_no),
                    format!("row starts with '{first}', not with a single letter or '*'"),
                )
            })?;
            let Some(index) = columns.iter().position(|&c| c == letter) else {
                return Err(fail(
                    Some(line_no),
                    format!(
                        "row letter '{}' is not in the header (the matrix is not square)",
                        letter as char
                    ),
                ));
            };
            if let Some((first_line, _)) = &rows[index] {
                return Err(fail(
                    Some(line_no),
                    format!(
                        "a second row for letter '{}' (the first is on line {first_line})",
                        letter as char
                    ),
                ));
            }
            let mut values = Vec::with_capacity(n);
            for (k, token) in tokens.enumerate() {
                if k >= n {
                    return Err(fail(
                        Some(line_no),
                        format!(
                            "row '{}' has more than the header's {n} scores (the matrix is not square)",
                            letter as char
                        ),
                    ));
                }
                let column = columns[k] as char;
                let value: i64 = token.parse().map_err(|_| {
                    fail(
                        Some(line_no),
                        format!(
                            "score '{token}' ({}/{column}) is not an integer",
                            letter as char
                        ),
                    )
                })?;
                let value = i8::try_from(value)
                    .ok()
                    .filter(|&v| v != i8::MIN)
                    .ok_or_else(|| {
                        fail(
                            Some(line_no),
                            format!(
                                "score {value} ({}/{column}) is outside -127..=127 \
                                 (scores are packed as i8, -128 is reserved)",
                                letter as char
                            ),
                        )
                    })?;
                values.push(value);
            }
            if values.len() != n {
                return Err(fail(
                    Some(line_no),
                    format!(
                        "row '{}' has {} scores but the header has {n} letters (the matrix is not square)",
                        letter as char,
                        values.len()
                    ),
                ));
            }
            rows[index] = Some((line_no, values));
        }

        // Square: every header letter has its row.
        let missing_rows: Vec<String> = columns
            .iter()
            .zip(&rows)
            .filter(|(_, r)| r.is_none())
            .map(|(&c, _)| (c as char).to_string())
            .collect();
        if !missing_rows.is_empty() {
            return Err(fail(
                None,
                format!(
                    "no row for header letter(s) {} (the matrix is not square)",
                    missing_rows.join(", ")
                ),
            ));
        }
        let rows: Vec<(usize, Vec<i8>)> = rows.into_iter().flatten().collect();

        // Symmetric: report the later of the two rows.
        for i in 0..n {
            for j in 0..i {
                let (a, b) = (rows[i].1[j], rows[j].1[i]);
                if a != b {
                    let (ci, cj) = (columns[i] as char, columns[j] as char);
                    let (line_i, line_j) = (rows[i].0, rows[j].0);
                    let (line, message) = if line_i > line_j {
                        (
                            line_i,
                            format!(
                                "score {ci}/{cj} = {a} but {cj}/{ci} = {b} on line {line_j} (the matrix is not symmetric)"
                            ),
                        )
                    } else {
                        (
                            line_j,
                            format!(
                                "score {cj}/{ci} = {b} but {ci}/{cj} = {a} on line {line_i} (the matrix is not symmetric)"
                            ),
                        )
                    };
                    return Err(fail(Some(line), message));
                }
            }
        }

        // The 24 letters warpsw scores.
        let index_of = |letter: u8| columns.iter().position(|&c| c == letter);
        let missing: Vec<String> = LETTERS
            .iter()
            .filter(|&&l| index_of(l).is_none())
            .map(|&l| (l as char).to_string())
            .collect();
        if !missing.is_empty() {
            return Err(fail(
                None,
                format!(
                    "missing letter(s) {}; a matrix must score all of {}",
                    missing.join(", "),
                    std::str::from_utf8(LETTERS).unwrap_or_default()
                ),
            ));
        }
        let mut scores = [[0i8; NUM_RESIDUES]; NUM_RESIDUES];
        for (a, &la) in LETTERS.iter().enumerate() {
            let row = &rows[index_of(la).unwrap_or_default()].1;
            for (b, &lb) in LETTERS.iter().enumerate() {
                scores[a][b] = row[index_of(lb).unwrap_or_default()];
            }
        }
        Ok(ScoreMatrix {
            name: source_name.to_string(),
            scores,
        })
    }
}

/// The upper-case letter of a one-character token (an ASCII letter or `*`).
fn parse_letter(token: &str) -> Option<u8> {
    match token.as_bytes() {
        [c] if c.is_ascii_alphabetic() || *c == b'*' => Some(c.to_ascii_uppercase()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::alphabet::encode;

    fn s(m: &ScoreMatrix, a: u8, b: u8) -> i32 {
        m.score(encode(a).unwrap(), encode(b).unwrap())
    }

    /// Builds the NCBI text of `m` (with optional extra edits by the caller).
    fn to_ncbi(m: &ScoreMatrix) -> String {
        let mut text = String::from("# test matrix\n ");
        for &l in LETTERS {
            text.push_str(&format!("  {}", l as char));
        }
        text.push('\n');
        for (a, &l) in LETTERS.iter().enumerate() {
            text.push(l as char);
            for b in 0..NUM_RESIDUES {
                text.push_str(&format!(" {:>3}", m.scores[a][b]));
            }
            text.push('\n');
        }
        text
    }

    fn blosum62_text() -> String {
        to_ncbi(&ScoreMatrix::by_name("blosum62").unwrap())
    }

    /// Parses `text` and returns the error's line and message.
    fn parse_err(text: &str) -> (Option<usize>, String) {
        match ScoreMatrix::parse_ncbi(text, "bad.mat") {
            Err(Error::Matrix {
                source_name,
                line,
                message,
            }) => {
                assert_eq!(source_name, "bad.mat");
                (line, message)
            }
            other => panic!("expected Error::Matrix, got {other:?}"),
        }
    }

    /// Replaces the `k`-th whitespace token of line `line_no` (1-based).
    fn edit(text: &str, line_no: usize, k: usize, new: &str) -> String {
        text.lines()
            .enumerate()
            .map(|(i, l)| {
                if i + 1 == line_no {
                    let mut t: Vec<&str> = l.split_whitespace().collect();
                    t[k] = new;
                    t.join(" ")
                } else {
                    l.to_string()
                }
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn builtin_spot_checks() {
        let b62 = ScoreMatrix::by_name("blosum62").unwrap();
        assert_eq!(s(&b62, b'W', b'W'), 11);
        assert_eq!(s(&b62, b'A', b'A'), 4);
        assert_eq!(s(&b62, b'C', b'C'), 9);
        assert_eq!(s(&b62, b'W', b'C'), -2);
        assert_eq!(s(&b62, b'X', b'X'), -1);
        assert_eq!(s(&b62, b'*', b'*'), 1);
        assert_eq!(s(&b62, b'A', b'*'), -4);
        assert_eq!(s(&b62, b'B', b'D'), 4);
        assert_eq!((b62.max_score(), b62.min_score()), (11, -4));

        let b45 = ScoreMatrix::by_name("blosum45").unwrap();
        assert_eq!(s(&b45, b'A', b'A'), 5);
        assert_eq!(s(&b45, b'C', b'C'), 12);
        assert_eq!(s(&b45, b'W', b'W'), 15);
        assert_eq!((b45.max_score(), b45.min_score()), (15, -5));

        let b50 = ScoreMatrix::by_name("blosum50").unwrap();
        assert_eq!(s(&b50, b'A', b'A'), 5);
        assert_eq!(s(&b50, b'C', b'C'), 13);
        assert_eq!(s(&b50, b'W', b'W'), 15);
        assert_eq!((b50.max_score(), b50.min_score()), (15, -5));

        let b80 = ScoreMatrix::by_name("blosum80").unwrap();
        assert_eq!(s(&b80, b'A', b'A'), 7);
        assert_eq!(s(&b80, b'W', b'W'), 16);
        assert_eq!((b80.max_score(), b80.min_score()), (16, -8));

        let b90 = ScoreMatrix::by_name("blosum90").unwrap();
        assert_eq!(s(&b90, b'A', b'A'), 5);
        assert_eq!(s(&b90, b'W', b'W'), 11);
        assert_eq!((b90.max_score(), b90.min_score()), (11, -6));

        let p30 = ScoreMatrix::by_name("pam30").unwrap();
        assert_eq!(s(&p30, b'W', b'W'), 13);
        assert_eq!(s(&p30, b'A', b'A'), 6);
        assert_eq!((p30.max_score(), p30.min_score()), (13, -17));

        let p70 = ScoreMatrix::by_name("pam70").unwrap();
        assert_eq!(s(&p70, b'W', b'W'), 13);
        assert_eq!(s(&p70, b'A', b'A'), 5);
        assert_eq!((p70.max_score(), p70.min_score()), (13, -11));

        let p250 = ScoreMatrix::by_name("pam250").unwrap();
        assert_eq!(s(&p250, b'W', b'W'), 17);
        assert_eq!(s(&p250, b'A', b'A'), 2);
        assert_eq!(s(&p250, b'C', b'W'), -8);
        assert_eq!((p250.max_score(), p250.min_score()), (17, -8));
    }

    #[test]
    fn every_builtin_parses_and_is_symmetric() {
        for name in BUILTIN {
            let m = ScoreMatrix::by_name(name).unwrap();
            assert_eq!(m.name(), *name);
            for a in 0..NUM_RESIDUES as u8 {
                for b in 0..NUM_RESIDUES as u8 {
                    assert_eq!(m.score(a, b), m.score(b, a), "{name} {a} {b}");
                }
            }
            // Diagonal of the 20 amino acids is positive in every BLOSUM/PAM.
            for a in 0..20 {
                assert!(m.score(a, a) > 0, "{name}");
            }
        }
    }

    #[test]
    fn builtin_files_are_ncbi_versions() {
        for name in BUILTIN {
            let text = builtin_text(name).unwrap();
            let header = text
                .lines()
                .find(|l| !l.trim().is_empty() && !l.starts_with('#'))
                .unwrap();
            let letters: String = header.split_whitespace().collect();
            assert_eq!(letters, "ARNDCQEGHILKMFPSTWYVBZX*", "{name}");
            let signature = if name.starts_with("blosum") {
                "Matrix made by matblas"
            } else {
                "produced by \"pam\""
            };
            assert!(text.contains(signature), "{name}");
        }
    }

    #[test]
    fn by_name_is_case_insensitive() {
        let a = ScoreMatrix::by_name("BLOSUM62").unwrap();
        let b = ScoreMatrix::by_name("Blosum62").unwrap();
        assert_eq!(a, b);
        assert_eq!(a.name(), "blosum62");
    }

    #[test]
    fn unknown_name_lists_builtins() {
        match ScoreMatrix::by_name("blosum100") {
            Err(Error::UnknownMatrix { name, known }) => {
                assert_eq!(name, "blosum100");
                for b in BUILTIN {
                    assert!(known.contains(b));
                }
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn round_trip_through_text() {
        let m = ScoreMatrix::by_name("pam70").unwrap();
        let again = ScoreMatrix::parse_ncbi(&to_ncbi(&m), "pam70").unwrap();
        assert_eq!(m, again);
    }

    #[test]
    fn rows_in_other_order_tabs_and_lowercase_are_accepted() {
        let text = blosum62_text();
        let mut lines: Vec<&str> = text.lines().collect();
        lines[2..].reverse();
        let text = lines.join("\n").replace(' ', "\t").to_lowercase();
        let m = ScoreMatrix::parse_ncbi(&text, "x").unwrap();
        assert_eq!(m.scores, ScoreMatrix::by_name("blosum62").unwrap().scores);
    }

    #[test]
    fn extra_letters_are_ignored() {
        // Add a U row and column, scored like C.
        let base = blosum62_text();
        let mut out = String::new();
        for (i, line) in base.lines().enumerate() {
            match i {
                0 => out.push_str(line),
                1 => out.push_str(&format!("{line}  U")),
                _ => {
                    let c_score = line.split_whitespace().nth(5).unwrap();
                    out.push_str(&format!("{line} {c_score}"));
                }
            }
            out.push('\n');
        }
        let c_row: Vec<&str> = base.lines().nth(6).unwrap().split_whitespace().collect();
        out.push_str(&format!("U {} 9\n", c_row[1..].join(" ")));
        let m = ScoreMatrix::parse_ncbi(&out, "x").unwrap();
        assert_eq!(m.scores, ScoreMatrix::by_name("blosum62").unwrap().scores);
    }

    #[test]
    fn error_empty() {
        assert_eq!(parse_err("").0, None);
        let (line, msg) = parse_err("# only\n# comments\n\n");
        assert_eq!(line, None);
        assert!(msg.contains("no header"), "{msg}");
    }

    #[test]
    fn error_not_square_short_row() {
        // Line 4 is the row of R (line 1 comment, 2 header, 3 A).
        let text = blosum62_text();
        let mut lines: Vec<String> = text.lines().map(String::from).collect();
        let mut t: Vec<&str> = lines[3].split_whitespace().collect();
        t.pop();
        lines[3] = t.join(" ");
        let (line, msg) = parse_err(&lines.join("\n"));
        assert_eq!(line, Some(4));
        assert!(
            msg.contains("23 scores") && msg.contains("not square"),
            "{msg}"
        );
    }

    #[test]
    fn error_not_square_long_row() {
        let text = blosum62_text();
        let mut lines: Vec<String> = text.lines().map(String::from).collect();
        lines[5].push_str(" 0");
        let (line, msg) = parse_err(&lines.join("\n"));
        assert_eq!(line, Some(6));
        assert!(msg.contains("not square"), "{msg}");
    }

    #[test]
    fn error_not_square_missing_row() {
        let text = blosum62_text();
        let lines: Vec<&str> = text.lines().filter(|l| !l.starts_with('Z')).collect();
        let (line, msg) = parse_err(&lines.join("\n"));
        assert_eq!(line, None);
        assert!(msg.contains("no row for header letter(s) Z"), "{msg}");
    }

    #[test]
    fn error_not_square_row_letter_not_in_header() {
        let text = blosum62_text() + "U 0 0\n";
        let (line, msg) = parse_err(&text);
        assert_eq!(line, Some(27));
        assert!(msg.contains("'U' is not in the header"), "{msg}");
    }

    #[test]
    fn error_asymmetric() {
        // Row A is line 3; column R is token 2 (token 0 is the letter).
        let text = edit(&blosum62_text(), 3, 2, "7");
        let (line, msg) = parse_err(&text);
        assert_eq!(line, Some(4)); // the later row, R
        assert!(
            msg.contains("R/A = -1") && msg.contains("not symmetric"),
            "{msg}"
        );
    }

    #[test]
    fn error_missing_letter() {
        // Drop '*' from the header and every row.
        let text = blosum62_text();
        let lines: Vec<String> = text
            .lines()
            .filter(|l| !l.starts_with('*'))
            .map(|l| {
                if l.starts_with('#') {
                    l.to_string()
                } else {
                    let mut t: Vec<&str> = l.split_whitespace().collect();
                    t.pop();
                    t.join(" ")
                }
            })
            .collect();
        let (line, msg) = parse_err(&lines.join("\n"));
        assert_eq!(line, None);
        assert!(msg.contains("missing letter(s) *"), "{msg}");
    }

    #[test]
    fn error_non_integer() {
        for bad in ["1.5", "x", "--1", "1e2"] {
            let (line, msg) = parse_err(&edit(&blosum62_text(), 10, 4, bad));
            assert_eq!(line, Some(10), "{bad}");
            assert!(msg.contains("not an integer"), "{msg}");
        }
    }

    #[test]
    fn error_out_of_range() {
        for bad in ["128", "-128", "1000", "-99999999999999999999"] {
            let (line, msg) = parse_err(&edit(&blosum62_text(), 7, 5, bad));
            assert_eq!(line, Some(7), "{bad}");
            assert!(
                msg.contains("outside -127..=127") || msg.contains("not an integer"),
                "{msg}"
            );
        }
        // The extremes themselves are fine (kept symmetric: the diagonal).
        let text = edit(&blosum62_text(), 3, 1, "127");
        assert_eq!(
            ScoreMatrix::parse_ncbi(&text, "x").unwrap().max_score(),
            127
        );
        let text = edit(&blosum62_text(), 3, 1, "-127");
        assert_eq!(
            ScoreMatrix::parse_ncbi(&text, "x").unwrap().min_score(),
            -127
        );
    }

    #[test]
    fn error_duplicate_letter() {
        // In the header.
        let text = edit(&blosum62_text(), 2, 1, "A");
        let (line, msg) = parse_err(&text);
        assert_eq!(line, Some(2));
        assert!(msg.contains("'A' appears twice"), "{msg}");
        // As a row.
        let text = blosum62_text();
        let a_row = text.lines().nth(2).unwrap().to_string();
        let (line, msg) = parse_err(&format!("{text}{a_row}\n"));
        assert_eq!(line, Some(27));
        assert!(
            msg.contains("second row for letter 'A'") && msg.contains("line 3"),
            "{msg}"
        );
    }

    #[test]
    fn error_bad_header_token() {
        let (line, msg) = parse_err("#c\n  A  RR\n");
        assert_eq!(line, Some(2));
        assert!(msg.contains("'RR'"), "{msg}");
        let (line, msg) = parse_err("  A\n4\n");
        assert_eq!(line, Some(2));
        assert!(msg.contains("row starts with '4'"), "{msg}");
    }

    #[test]
    fn from_file_reads_and_names_path() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("B62.mat");
        std::fs::write(&path, builtin_text("blosum62").unwrap()).unwrap();
        let m = ScoreMatrix::from_file(&path).unwrap();
        assert_eq!(m.name(), path.display().to_string());
        assert_eq!(m.scores, ScoreMatrix::by_name("blosum62").unwrap().scores);

        std::fs::write(&path, "  A\nA 1.0\n").unwrap();
        let err = ScoreMatrix::from_file(&path).unwrap_err();
        let shown = err.to_string();
        assert!(
            shown.contains("B62.mat") && shown.contains("line 2"),
            "{shown}"
        );

        let missing = dir.path().join("nope");
        assert!(matches!(
            ScoreMatrix::from_file(&missing),
            Err(Error::Io { .. })
        ));
    }
}
