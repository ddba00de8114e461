//! The scalar reference: takes two encoded sequences and a scoring, returns
//! their exact alignment score; the oracle every engine and kernel is tested
//! against (STYLE.md, "For warpsw" item 2).
//!
//! Plain Gotoh (1982) dynamic programming over `i64`, one cell at a time, no
//! tricks: O(|query| × |target|) time, O(|target|) memory (two rows).
//! Gotoh, O. (1982). *An improved algorithm for matching biological
//! sequences.* J. Mol. Biol. 162(3):705–708.
//! [doi:10.1016/0022-2836(82)90398-9](https://doi.org/10.1016/0022-2836(82)90398-9)
//!
//! # Conventions
//!
//! Sequences are residue codes ([`crate::alphabet`]); `s(a, b)` is
//! [`ScoreMatrix::score`]. A gap of length k costs `open + k * extend`
//! ([`GapPenalty`], docs/design.md §4). An alignment's score is the sum of `s` over
//! its aligned pairs minus the cost of each gap, a gap being a maximal run of
//! consecutive residues of one sequence aligned to nothing. A gap in the query
//! may directly follow a gap in the target (and vice versa); each pays its
//! own `open`.
//!
//! # Recurrences
//!
//! With `q_1..q_n` the query (rows, `i`) and `t_1..t_m` the target (columns,
//! `j`), for `1 <= i <= n`, `1 <= j <= m`:
//!
//! ```text
//! E(i,j) = max(E(i,j-1) - extend, H(i,j-1) - (open + extend))   gap in the query (t_j unpaired)
//! F(i,j) = max(F(i-1,j) - extend, H(i-1,j) - (open + extend))   gap in the target (q_i unpaired)
//! H(i,j) = max(H(i-1,j-1) + s(q_i, t_j), E(i,j), F(i,j))         (global, semiglobal)
//! H(i,j) = max(0, H(i-1,j-1) + s(q_i, t_j), E(i,j), F(i,j))      (local)
//! ```
//!
//! `H(i,j)` is the best score of an alignment of (a part of) `q_1..q_i` with
//! (a part of) `t_1..t_j` that ends at cell `(i,j)`; `E` and `F` are the best
//! of those that end in a gap. The same recurrence as
//! [`gpu_kernels::recurrence`] (`gap_score`, `local_h`), where `E` is the
//! horizontal move. The modes differ only in the borders and the answer, with
//! `E(i,0) = F(0,j) = -∞`:
//!
//! | mode | `H(0,0)` | `H(i,0)`, `i > 0` | `H(0,j)`, `j > 0` | score |
//! |---|---|---|---|---|
//! | [`Mode::Local`] (Smith–Waterman) | 0 | 0 | 0 | `max` of `H` over all cells |
//! | [`Mode::Global`] (Needleman–Wunsch) | 0 | `-(open + i*extend)` | `-(open + j*extend)` | `H(n,m)` |
//! | [`Mode::Semiglobal`] (overlap) | 0 | 0 | 0 | `max` of `H` over the last row and column: `H(n,j)`, `0 <= j <= m`, and `H(i,m)`, `0 <= i <= n` |
//!
//! In words, with `x[a..c]` the residues `a+1..=c` of `x`:
//! * **local**: the best global alignment of any `q[a..c]` with any
//!   `t[b..d]`, or 0 (the empty alignment); always `>= 0`.
//! * **global**: the best alignment of all of `q` with all of `t`, end gaps
//!   charged like any other: empty vs empty scores 0, empty vs `k > 0`
//!   residues `-(open + k*extend)`.
//! * **semiglobal** (end gaps free on both sequences, "overlap" or "glocal"):
//!   the best global alignment of `q[a..c]` with `t[b..d]` where the skipped
//!   prefix is of one sequence only (`a == 0` or `b == 0`) and the skipped
//!   suffix is of one sequence only (`c == n` or `d == m`); the skipped
//!   residues cost nothing. Skipping all of `q` as a prefix and all of `t` as
//!   a suffix (cell `(n,0)`) scores 0, so the score is always `>= 0`. A
//!   leading gap in both sequences is not free: `AW` vs `CW` with `+1/-1`
//!   and gaps `0/1` scores 0, not the 1 of `A-W`/`-CW` with both end gaps
//!   free. This is parasail's `sg` and Durbin et al.'s overlap alignment.
//!
//! For any inputs `local >= semiglobal >= global`, and each mode is symmetric
//! in the two sequences when the matrix is (every [`ScoreMatrix`] is).

use std::fmt;
use std::str::FromStr;

use crate::matrix::ScoreMatrix;
use crate::scoring::{GapPenalty, Scoring};

/// Which alignment is scored; see the [module docs](self) for the exact
/// definitions. The CLI names are `local`, `global` and `semiglobal`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Smith–Waterman: best alignment of any two substrings, `>= 0`.
    Local,
    /// Needleman–Wunsch with affine gaps: whole against whole, end gaps
    /// charged.
    Global,
    /// Overlap alignment: end gaps free on both sequences.
    Semiglobal,
}

impl Mode {
    /// Every mode, in the order of the CLI's list.
    pub const ALL: [Mode; 3] = [Mode::Local, Mode::Global, Mode::Semiglobal];

    /// The CLI name: `local`, `global` or `semiglobal`.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Local => "local",
            Mode::Global => "global",
            Mode::Semiglobal => "semiglobal",
        }
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Mode {
    type Err = crate::Error;

    /// Parses a CLI name, ignoring ASCII case.
    ///
    /// ```
    /// use host::reference::Mode;
    /// assert_eq!("semiglobal".parse::<Mode>().unwrap(), Mode::Semiglobal);
    /// assert_eq!("Local".parse::<Mode>().unwrap(), Mode::Local);
    /// assert_eq!(
    ///     "glocal".parse::<Mode>().unwrap_err().to_string(),
    ///     "unknown alignment mode 'glocal' (expected local, global or semiglobal)"
    /// );
    /// ```
    ///
    /// # Errors
    /// [`crate::Error::InvalidArgument`] for a name that is no mode.
    fn from_str(s: &str) -> Result<Mode, crate::Error> {
        Mode::ALL
            .into_iter()
            .find(|m| m.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| {
                crate::Error::InvalidArgument(format!(
                    "unknown alignment mode '{s}' (expected local, global or semiglobal)"
                ))
            })
    }
}

/// The score of `query` against `target` in `mode`.
///
/// # Panics
/// If the score does not fit in `i32` (global or semiglobal scores of
/// sequences billions of gap-cost units long); it is never clamped.
///
/// ```
/// use host::alphabet::encode;
/// use host::matrix::ScoreMatrix;
/// use host::reference::{score, Mode};
/// use host::scoring::{GapPenalty, Scoring};
/// let scoring = Scoring {
///     matrix: ScoreMatrix::by_name("blosum62").unwrap(),
///     gaps: GapPenalty::new(11, 1).unwrap(),
/// };
/// let codes = |s: &[u8]| s.iter().map(|&c| encode(c).unwrap()).collect::<Vec<u8>>();
/// let (q, t) = (codes(b"WW"), codes(b"WAW"));
/// assert_eq!(score(Mode::Local, &q, &t, &scoring), 11); // W/W
/// assert_eq!(score(Mode::Global, &q, &t, &scoring), 10); // W-W/WAW: 22 - 12
/// assert_eq!(score(Mode::Semiglobal, &q, &t, &scoring), 11); // skip q's W, t's AW
/// ```
pub fn score(mode: Mode, query: &[u8], target: &[u8], scoring: &Scoring) -> i32 {
    to_i32(gotoh(mode, query, target, &scoring.matrix, scoring.gaps))
}

/// Smith–Waterman score: the best local alignment, `>= 0` (0 when either
/// sequence is empty). See the [module docs](self).
pub fn local_score(query: &[u8], target: &[u8], matrix: &ScoreMatrix, gaps: GapPenalty) -> i32 {
    to_i32(gotoh(Mode::Local, query, target, matrix, gaps))
}

/// Needleman–Wunsch score with affine gaps: all of `query` against all of
/// `target`, end gaps charged. Empty vs empty is 0; empty vs `k > 0`
/// residues is `-(open + k*extend)`. See the [module docs](self).
///
/// # Panics
/// If the score does not fit in `i32`.
pub fn global_score(query: &[u8], target: &[u8], matrix: &ScoreMatrix, gaps: GapPenalty) -> i32 {
    to_i32(gotoh(Mode::Global, query, target, matrix, gaps))
}

/// Semiglobal (overlap) score: end gaps free on both sequences — a prefix of
/// one sequence and a suffix of one sequence are skipped for free —
/// `>= 0`. See the [module docs](self) for the exact definition.
///
/// # Panics
/// If the score does not fit in `i32`.
pub fn semiglobal_score(
    query: &[u8],
    target: &[u8],
    matrix: &ScoreMatrix,
    gaps: GapPenalty,
) -> i32 {
    to_i32(gotoh(Mode::Semiglobal, query, target, matrix, gaps))
}

/// The Smith–Waterman score with the cell where a best local alignment ends:
/// `(score, Some((i, j)))` with `i` and `j` 1-based end positions in `query`
/// and `target` (`q_i` and `t_j` are the last residues it covers), the first
/// such cell in row-major order (smallest `i`, then smallest `j`);
/// `(0, None)` when the score is 0.
///
/// Fills the whole `(n+1) × (m+1)` matrices (O(n·m) memory), independently
/// of [`local_score`]: tests use each to check the other.
///
/// ```
/// use host::alphabet::encode;
/// use host::matrix::ScoreMatrix;
/// use host::reference::local_score_and_end;
/// use host::scoring::GapPenalty;
/// let m = ScoreMatrix::by_name("blosum62").unwrap();
/// let g = GapPenalty::new(11, 1).unwrap();
/// let codes = |s: &[u8]| s.iter().map(|&c| encode(c).unwrap()).collect::<Vec<u8>>();
/// // Two cells score 11 (W/W); the first in row-major order wins.
/// assert_eq!(local_score_and_end(&codes(b"AWAW"), &codes(b"W"), &m, g), (11, Some((2, 1))));
/// assert_eq!(local_score_and_end(&codes(b"A"), &codes(b"W"), &m, g), (0, None));
/// ```
pub fn local_score_and_end(
    query: &[u8],
    target: &[u8],
    matrix: &ScoreMatrix,
    gaps: GapPenalty,
) -> (i32, Option<(usize, usize)>) {
    let (n, m) = (query.len(), target.len());
    let (open, extend) = (i64::from(gaps.open), i64::from(gaps.extend));
    // Borders: H(i,0) = H(0,j) = 0, E(i,0) = F(0,j) = -inf.
    let mut h = vec![vec![0i64; m + 1]; n + 1];
    let mut e = vec![vec![NEG_INF; m + 1]; n + 1];
    let mut f = vec![vec![NEG_INF; m + 1]; n + 1];
    for i in 1..=n {
        for j in 1..=m {
            e[i][j] = (e[i][j - 1] - extend).max(h[i][j - 1] - (open + extend));
            f[i][j] = (f[i - 1][j] - extend).max(h[i - 1][j] - (open + extend));
            let diag = h[i - 1][j - 1] + i64::from(matrix.score(query[i - 1], target[j - 1]));
            h[i][j] = 0.max(diag).max(e[i][j]).max(f[i][j]);
        }
    }
    let mut best = 0;
    let mut end = None;
    for i in 1..=n {
        for j in 1..=m {
            if h[i][j] > best {
                best = h[i][j];
                end = Some((i, j));
            }
        }
    }
    (to_i32(best), end)
}

/// Minus infinity for `E` and `F`: far below any real score, and far enough
/// from `i64::MIN` that subtracting gap costs cannot wrap.
const NEG_INF: i64 = i64::MIN / 4;

/// The Gotoh recurrence of the [module docs](self), two rows at a time,
/// the rows along the shorter sequence: `O(min(n, m))` memory (a 50 MB
/// target against a short query holds rows of the query's length). Every
/// mode's score is the same with the sequences' roles swapped and the
/// matrix transposed (which an asymmetric matrix file needs).
fn gotoh(mode: Mode, query: &[u8], target: &[u8], matrix: &ScoreMatrix, gaps: GapPenalty) -> i64 {
    if target.len() > query.len() {
        gotoh_rows(mode, target, query, |t, q| matrix.score(q, t), gaps)
    } else {
        gotoh_rows(mode, query, target, |q, t| matrix.score(q, t), gaps)
    }
}

/// [`gotoh`] with a row per residue of `query` and a column per residue of
/// `target`, `score(q, t)` scoring a pair.
fn gotoh_rows(
    mode: Mode,
    query: &[u8],
    target: &[u8],
    score: impl Fn(u8, u8) -> i32,
    gaps: GapPenalty,
) -> i64 {
    let m = target.len();
    let (open, extend) = (i64::from(gaps.open), i64::from(gaps.extend));
    let first = open + extend;
    // H(i,0) and H(0,j): charged leading gaps in global mode, free otherwise.
    let border = |k: usize| -> i64 {
        if mode == Mode::Global && k > 0 {
            -(open + k as i64 * extend)
        } else {
            0
        }
    };

    let mut h_prev: Vec<i64> = (0..=m).map(border).collect(); // H(i-1, ·), row 0 first
    let mut h_cur: Vec<i64> = vec![0; m + 1]; // H(i, ·)
    let mut f: Vec<i64> = vec![NEG_INF; m + 1]; // F(i-1, ·), then F(i, ·)
    // Local: max over all cells. Semiglobal: max over the last column so far
    // (H(0,m) now), the last row is added at the end.
    let mut best = h_prev[m];

    for (i, &q) in query.iter().enumerate().map(|(k, q)| (k + 1, q)) {
        h_cur[0] = border(i);
        let mut e = NEG_INF; // E(i, 0)
        for j in 1..=m {
            e = (e - extend).max(h_cur[j - 1] - first);
            f[j] = (f[j] - extend).max(h_prev[j] - first);
            let diag = h_prev[j - 1] + i64::from(score(q, target[j - 1]));
            let mut h = diag.max(e).max(f[j]);
            if mode == Mode::Local {
                h = h.max(0);
                best = best.max(h);
            }
            h_cur[j] = h;
        }
        if mode == Mode::Semiglobal {
            best = best.max(h_cur[m]);
        }
        std::mem::swap(&mut h_prev, &mut h_cur);
    }

    // h_prev is now the last row, H(n, ·).
    match mode {
        Mode::Local => best,
        Mode::Global => h_prev[m],
        Mode::Semiglobal => h_prev.iter().copied().fold(best, i64::max),
    }
}

/// A score as `i32`, which every real score fits.
fn to_i32(score: i64) -> i32 {
    i32::try_from(score).unwrap_or_else(|_| panic!("alignment score {score} does not fit in i32"))
}

/// Test helpers: hard-coded NCBI matrices and match/mismatch matrices,
/// independent of [`ScoreMatrix::by_name`].
#[cfg(test)]
pub(crate) mod testing {
    use crate::matrix::ScoreMatrix;

    /// NCBI's BLOSUM62 (`ftp.ncbi.nih.gov/blast/matrices/BLOSUM62`, "Matrix
    /// made by matblas from blosum62.iij"), copied from Biopython 1.88's
    /// `Bio/Align/substitution_matrices/data/BLOSUM62`.
    #[rustfmt::skip]
    pub(crate) const BLOSUM62: [[i8; 24]; 24] = [
        //  A   R   N   D   C   Q   E   G   H   I   L   K   M   F   P   S   T   W   Y   V   B   Z   X   *
        [ 4, -1, -2, -2,  0, -1, -1,  0, -2, -1, -1, -1, -1, -2, -1,  1,  0, -3, -2,  0, -2, -1,  0, -4], // A
        [-1,  5,  0, -2, -3,  1,  0, -2,  0, -3, -2,  2, -1, -3, -2, -1, -1, -3, -2, -3, -1,  0, -1, -4], // R
        [-2,  0,  6,  1, -3,  0,  0,  0,  1, -3, -3,  0, -2, -3, -2,  1,  0, -4, -2, -3,  3,  0, -1, -4], // N
        [-2, -2,  1,  6, -3,  0,  2, -1, -1, -3, -4, -1, -3, -3, -1,  0, -1, -4, -3, -3,  4,  1, -1, -4], // D
        [ 0, -3, -3, -3,  9, -3, -4, -3, -3, -1, -1, -3, -1, -2, -3, -1, -1, -2, -2, -1, -3, -3, -2, -4], // C
        [-1,  1,  0,  0, -3,  5,  2, -2,  0, -3, -2,  1,  0, -3, -1,  0, -1, -2, -1, -2,  0,  3, -1, -4], // Q
        [-1,  0,  0,  2, -4,  2,  5, -2,  0, -3, -3,  1, -2, -3, -1,  0, -1, -3, -2, -2,  1,  4, -1, -4], // E
        [ 0, -2,  0, -1, -3, -2, -2,  6, -2, -4, -4, -2, -3, -3, -2,  0, -2, -2, -3, -3, -1, -2, -1, -4], // G
        [-2,  0,  1, -1, -3,  0,  0, -2,  8, -3, -3, -1, -2, -1, -2, -1, -2, -2,  2, -3,  0,  0, -1, -4], // H
        [-1, -3, -3, -3, -1, -3, -3, -4, -3,  4,  2, -3,  1,  0, -3, -2, -1, -3, -1,  3, -3, -3, -1, -4], // I
        [-1, -2, -3, -4, -1, -2, -3, -4, -3,  2,  4, -2,  2,  0, -3, -2, -1, -2, -1,  1, -4, -3, -1, -4], // L
        [-1,  2,  0, -1, -3,  1,  1, -2, -1, -3, -2,  5, -1, -3, -1,  0, -1, -3, -2, -2,  0,  1, -1, -4], // K
        [-1, -1, -2, -3, -1,  0, -2, -3, -2,  1,  2, -1,  5,  0, -2, -1, -1, -1, -1,  1, -3, -1, -1, -4], // M
        [-2, -3, -3, -3, -2, -3, -3, -3, -1,  0,  0, -3,  0,  6, -4, -2, -2,  1,  3, -1, -3, -3, -1, -4], // F
        [-1, -2, -2, -1, -3, -1, -1, -2, -2, -3, -3, -1, -2, -4,  7, -1, -1, -4, -3, -2, -2, -1, -2, -4], // P
        [ 1, -1,  1,  0, -1,  0,  0,  0, -1, -2, -2,  0, -1, -2, -1,  4,  1, -3, -2, -2,  0,  0,  0, -4], // S
        [ 0, -1,  0, -1, -1, -1, -1, -2, -2, -1, -1, -1, -1, -2, -1,  1,  5, -2, -2,  0, -1, -1,  0, -4], // T
        [-3, -3, -4, -4, -2, -2, -3, -2, -2, -3, -2, -3, -1,  1, -4, -3, -2, 11,  2, -3, -4, -3, -2, -4], // W
        [-2, -2, -2, -3, -2, -1, -2, -3,  2, -1, -1, -2, -1,  3, -3, -2, -2,  2,  7, -1, -3, -2, -1, -4], // Y
        [ 0, -3, -3, -3, -1, -2, -2, -3, -3,  3,  1, -2,  1, -1, -2, -2,  0, -3, -1,  4, -3, -2, -1, -4], // V
        [-2, -1,  3,  4, -3,  0,  1, -1,  0, -3, -4,  0, -3, -3, -2,  0, -1, -4, -3, -3,  4,  1, -1, -4], // B
        [-1,  0,  0,  1, -3,  3,  4, -2,  0, -3, -3,  1, -1, -3, -1,  0, -1, -3, -2, -2,  1,  4, -1, -4], // Z
        [ 0, -1, -1, -1, -2, -1, -1, -1, -1, -1, -1, -1, -1, -1, -2,  0,  0, -2, -1, -1, -1, -1, -1, -4], // X
        [-4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4,  1], // *
    ];

    /// NCBI's BLOSUM50 ("Matrix made by matblas from blosum50.iij"), copied
    /// from Biopython 1.88's `Bio/Align/substitution_matrices/data/BLOSUM50`:
    /// the matrix of Durbin et al.'s worked examples.
    #[rustfmt::skip]
    pub(crate) const BLOSUM50: [[i8; 24]; 24] = [
        //  A   R   N   D   C   Q   E   G   H   I   L   K   M   F   P   S   T   W   Y   V   B   Z   X   *
        [ 5, -2, -1, -2, -1, -1, -1,  0, -2, -1, -2, -1, -1, -3, -1,  1,  0, -3, -2,  0, -2, -1, -1, -5], // A
        [-2,  7, -1, -2, -4,  1,  0, -3,  0, -4, -3,  3, -2, -3, -3, -1, -1, -3, -1, -3, -1,  0, -1, -5], // R
        [-1, -1,  7,  2, -2,  0,  0,  0,  1, -3, -4,  0, -2, -4, -2,  1,  0, -4, -2, -3,  4,  0, -1, -5], // N
        [-2, -2,  2,  8, -4,  0,  2, -1, -1, -4, -4, -1, -4, -5, -1,  0, -1, -5, -3, -4,  5,  1, -1, -5], // D
        [-1, -4, -2, -4, 13, -3, -3, -3, -3, -2, -2, -3, -2, -2, -4, -1, -1, -5, -3, -1, -3, -3, -2, -5], // C
        [-1,  1,  0,  0, -3,  7,  2, -2,  1, -3, -2,  2,  0, -4, -1,  0, -1, -1, -1, -3,  0,  4, -1, -5], // Q
        [-1,  0,  0,  2, -3,  2,  6, -3,  0, -4, -3,  1, -2, -3, -1, -1, -1, -3, -2, -3,  1,  5, -1, -5], // E
        [ 0, -3,  0, -1, -3, -2, -3,  8, -2, -4, -4, -2, -3, -4, -2,  0, -2, -3, -3, -4, -1, -2, -2, -5], // G
        [-2,  0,  1, -1, -3,  1,  0, -2, 10, -4, -3,  0, -1, -1, -2, -1, -2, -3,  2, -4,  0,  0, -1, -5], // H
        [-1, -4, -3, -4, -2, -3, -4, -4, -4,  5,  2, -3,  2,  0, -3, -3, -1, -3, -1,  4, -4, -3, -1, -5], // I
        [-2, -3, -4, -4, -2, -2, -3, -4, -3,  2,  5, -3,  3,  1, -4, -3, -1, -2, -1,  1, -4, -3, -1, -5], // L
        [-1,  3,  0, -1, -3,  2,  1, -2,  0, -3, -3,  6, -2, -4, -1,  0, -1, -3, -2, -3,  0,  1, -1, -5], // K
        [-1, -2, -2, -4, -2,  0, -2, -3, -1,  2,  3, -2,  7,  0, -3, -2, -1, -1,  0,  1, -3, -1, -1, -5], // M
        [-3, -3, -4, -5, -2, -4, -3, -4, -1,  0,  1, -4,  0,  8, -4, -3, -2,  1,  4, -1, -4, -4, -2, -5], // F
        [-1, -3, -2, -1, -4, -1, -1, -2, -2, -3, -4, -1, -3, -4, 10, -1, -1, -4, -3, -3, -2, -1, -2, -5], // P
        [ 1, -1,  1,  0, -1,  0, -1,  0, -1, -3, -3,  0, -2, -3, -1,  5,  2, -4, -2, -2,  0,  0, -1, -5], // S
        [ 0, -1,  0, -1, -1, -1, -1, -2, -2, -1, -1, -1, -1, -2, -1,  2,  5, -3, -2,  0,  0, -1,  0, -5], // T
        [-3, -3, -4, -5, -5, -1, -3, -3, -3, -3, -2, -3, -1,  1, -4, -4, -3, 15,  2, -3, -5, -2, -3, -5], // W
        [-2, -1, -2, -3, -3, -1, -2, -3,  2, -1, -1, -2,  0,  4, -3, -2, -2,  2,  8, -1, -3, -2, -1, -5], // Y
        [ 0, -3, -3, -4, -1, -3, -3, -4, -4,  4,  1, -3,  1, -1, -3, -2,  0, -3, -1,  5, -4, -3, -1, -5], // V
        [-2, -1,  4,  5, -3,  0,  1, -1,  0, -4, -4,  0, -3, -4, -2,  0,  0, -5, -3, -4,  5,  2, -1, -5], // B
        [-1,  0,  0,  1, -3,  4,  5, -2,  0, -3, -3,  1, -1, -4, -1,  0, -1, -2, -2, -3,  2,  5, -1, -5], // Z
        [-1, -1, -1, -1, -2, -1, -1, -2, -1, -1, -1, -1, -1, -2, -2, -1,  0, -3, -1, -1, -1, -1, -1, -5], // X
        [-5, -5, -5, -5, -5, -5, -5, -5, -5, -5, -5, -5, -5, -5, -5, -5, -5, -5, -5, -5, -5, -5, -5,  1], // *
    ];

    /// [`BLOSUM62`] as a [`ScoreMatrix`].
    pub(crate) fn blosum62() -> ScoreMatrix {
        ScoreMatrix::from_scores("blosum62", BLOSUM62)
    }

    /// [`BLOSUM50`] as a [`ScoreMatrix`].
    pub(crate) fn blosum50() -> ScoreMatrix {
        ScoreMatrix::from_scores("blosum50", BLOSUM50)
    }

    /// `same` on the diagonal, `different` everywhere else.
    pub(crate) fn match_mismatch(same: i8, different: i8) -> ScoreMatrix {
        let mut scores = [[different; 24]; 24];
        for (a, row) in scores.iter_mut().enumerate() {
            row[a] = same;
        }
        ScoreMatrix::from_scores(&format!("{same:+}/{different:+}"), scores)
    }

    /// Residue codes of an upper-case amino-acid string.
    pub(crate) fn codes(letters: &str) -> Vec<u8> {
        letters
            .bytes()
            .map(|c| crate::alphabet::encode(c).expect("a residue letter"))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::testing::{BLOSUM62, blosum50, blosum62, codes, match_mismatch};
    use super::*;
    use proptest::collection::vec;
    use proptest::prelude::*;
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    fn gap(open: i32, extend: i32) -> GapPenalty {
        GapPenalty::new(open, extend).unwrap()
    }

    /// (local, global, semiglobal) by the functions under test.
    fn all3(q: &[u8], t: &[u8], m: &ScoreMatrix, g: GapPenalty) -> (i32, i32, i32) {
        (
            local_score(q, t, m, g),
            global_score(q, t, m, g),
            semiglobal_score(q, t, m, g),
        )
    }

    // ---------------------------------------------------------------------
    // Brute force: enumerate every alignment, score each column by column.
    // ---------------------------------------------------------------------

    /// One column of an alignment.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    enum Column {
        /// `q` residue against `t` residue.
        Pair(u8, u8),
        /// A query residue against nothing (a gap in the target).
        QueryOnly,
        /// A target residue against nothing (a gap in the query).
        TargetOnly,
    }

    /// The score of one alignment: pairs by the matrix, each maximal run of
    /// `QueryOnly` or of `TargetOnly` columns as one gap.
    fn alignment_score(columns: &[Column], m: &ScoreMatrix, g: GapPenalty) -> i64 {
        let mut total = 0i64;
        let mut k = 0;
        while k < columns.len() {
            match columns[k] {
                Column::Pair(a, b) => {
                    total += i64::from(m.score(a, b));
                    k += 1;
                }
                kind => {
                    let run = columns[k..].iter().take_while(|&&c| c == kind).count();
                    total -= i64::from(g.open) + run as i64 * i64::from(g.extend);
                    k += run;
                }
            }
        }
        total
    }

    /// Calls `visit` with every alignment of all of `q` with all of `t`.
    fn for_each_alignment(
        q: &[u8],
        t: &[u8],
        columns: &mut Vec<Column>,
        visit: &mut dyn FnMut(&[Column]),
    ) {
        if q.is_empty() && t.is_empty() {
            visit(columns);
            return;
        }
        if let (Some(&a), Some(&b)) = (q.first(), t.first()) {
            columns.push(Column::Pair(a, b));
            for_each_alignment(&q[1..], &t[1..], columns, visit);
            columns.pop();
        }
        if !q.is_empty() {
            columns.push(Column::QueryOnly);
            for_each_alignment(&q[1..], t, columns, visit);
            columns.pop();
        }
        if !t.is_empty() {
            columns.push(Column::TargetOnly);
            for_each_alignment(q, &t[1..], columns, visit);
            columns.pop();
        }
    }

    /// The best score over every alignment of all of `q` with all of `t`.
    fn brute_global(q: &[u8], t: &[u8], m: &ScoreMatrix, g: GapPenalty) -> i64 {
        let mut best = i64::MIN;
        for_each_alignment(q, t, &mut Vec::new(), &mut |cols| {
            best = best.max(alignment_score(cols, m, g));
        });
        best
    }

    /// (local, global, semiglobal) by brute force, straight from the
    /// definitions in words: the best global alignment of `q[a..c]` with
    /// `t[b..d]` over all substrings (local), over the whole sequences
    /// (global), and over those with `a == 0 || b == 0` and
    /// `c == n || d == m` (semiglobal).
    fn brute_all3(q: &[u8], t: &[u8], m: &ScoreMatrix, g: GapPenalty) -> (i64, i64, i64) {
        let (n, mm) = (q.len(), t.len());
        let mut local = 0;
        let mut semi = i64::MIN;
        for a in 0..=n {
            for c in a..=n {
                for b in 0..=mm {
                    for d in b..=mm {
                        let s = brute_global(&q[a..c], &t[b..d], m, g);
                        local = local.max(s);
                        if (a == 0 || b == 0) && (c == n || d == mm) {
                            semi = semi.max(s);
                        }
                    }
                }
            }
        }
        (local, brute_global(q, t, m, g), semi)
    }

    const GAP_SETTINGS: [(i32, i32); 5] = [(0, 1), (11, 1), (5, 3), (20, 5), (0, 0)];

    #[test]
    fn brute_force_scores_columns_as_documented() {
        // The oracle's oracle: a few alignments scored by hand.
        let m = match_mismatch(5, -4);
        let g = gap(10, 1);
        let (a, r) = (0, 1);
        use Column::*;
        assert_eq!(alignment_score(&[], &m, g), 0);
        assert_eq!(alignment_score(&[Pair(a, a), Pair(a, r)], &m, g), 1);
        // One gap of 3: 10 + 3.
        let cols = [Pair(a, a), QueryOnly, QueryOnly, QueryOnly, Pair(r, r)];
        assert_eq!(alignment_score(&cols, &m, g), 10 - 13);
        // Two adjacent gaps of different kinds: two opens.
        let cols = [QueryOnly, TargetOnly, TargetOnly];
        assert_eq!(alignment_score(&cols, &m, g), -11 - 12);
        // Two gaps of the same kind split by a pair.
        let cols = [QueryOnly, Pair(a, a), QueryOnly];
        assert_eq!(alignment_score(&cols, &m, g), -11 + 5 - 11);
        // Delannoy numbers: D(2,2) = 13, D(3,2) = 25 alignments.
        for (n, mm, want) in [(2, 2, 13), (3, 2, 25), (0, 3, 1), (0, 0, 1)] {
            let mut count = 0;
            for_each_alignment(&vec![0; n], &vec![0; mm], &mut Vec::new(), &mut |_| {
                count += 1
            });
            assert_eq!(count, want, "D({n},{mm})");
        }
    }

    /// Random tiny pairs against the brute force, all modes and gap settings.
    fn check_against_brute_force(m: &ScoreMatrix, alphabet: u8, pairs: usize, seed: u64) {
        let mut rng = StdRng::seed_from_u64(seed);
        for &(open, extend) in &GAP_SETTINGS {
            let g = gap(open, extend);
            for _ in 0..pairs {
                let n = rng.random_range(0..=5);
                let mm = rng.random_range(0..=5);
                let q: Vec<u8> = (0..n).map(|_| rng.random_range(0..alphabet)).collect();
                let t: Vec<u8> = (0..mm).map(|_| rng.random_range(0..alphabet)).collect();
                let (bl, bg, bs) = brute_all3(&q, &t, m, g);
                let want = (bl as i32, bg as i32, bs as i32);
                assert_eq!(
                    all3(&q, &t, m, g),
                    want,
                    "(local, global, semiglobal) of {q:?} vs {t:?}, {} gaps {open}/{extend}",
                    m.name()
                );
                let end = local_score_and_end(&q, &t, m, g);
                assert_eq!(end.0, want.0, "full-matrix local of {q:?} vs {t:?}");
            }
        }
    }

    #[test]
    fn matches_brute_force_blosum62() {
        check_against_brute_force(&blosum62(), 24, 500, 62);
    }

    #[test]
    fn matches_brute_force_match_mismatch_few_letters() {
        // Three letters: many matches, so gaps are often worth opening.
        check_against_brute_force(&match_mismatch(5, -4), 3, 500, 54);
        check_against_brute_force(&match_mismatch(1, -1), 2, 500, 11);
    }

    // ---------------------------------------------------------------------
    // Hand-checked and textbook cases.
    // ---------------------------------------------------------------------

    #[test]
    fn durbin_heagawghee_pawheae() {
        // Durbin, Eddy, Krogh & Mitchison, Biological Sequence Analysis
        // (1998), §2.3, figs 2.5 and 2.6: BLOSUM50, linear gap d = 8 (our
        // open 0, extend 8). Global (fig 2.5) scores 1:
        //   HEAGAWGHE-E
        //   --P-AW-HEAE
        // local (fig 2.6) scores 28:
        //   AWGHE
        //   AW-HE
        let (q, t) = (codes("HEAGAWGHEE"), codes("PAWHEAE"));
        let (m, g) = (blosum50(), gap(0, 8));
        assert_eq!(local_score(&q, &t, &m, g), 28);
        assert_eq!(global_score(&q, &t, &m, g), 1);
        assert_eq!(local_score_and_end(&q, &t, &m, g), (28, Some((9, 5))));
        // The printed alignments score what the book says.
        use Column::*;
        let p = |a: &str, b: &str| Pair(codes(a)[0], codes(b)[0]);
        let global = [
            QueryOnly,
            QueryOnly,
            p("A", "P"),
            QueryOnly,
            p("A", "A"),
            p("W", "W"),
            QueryOnly,
            p("H", "H"),
            p("E", "E"),
            TargetOnly,
            p("E", "E"),
        ];
        assert_eq!(alignment_score(&global, &m, g), 1);
        let local = [
            p("A", "A"),
            p("W", "W"),
            QueryOnly,
            p("H", "H"),
            p("E", "E"),
        ];
        assert_eq!(alignment_score(&local, &m, g), 28);
        // And the brute force agrees on global (433,905 alignments).
        assert_eq!(brute_global(&q, &t, &m, g), 1);
        // Symmetric.
        assert_eq!(all3(&q, &t, &m, g), all3(&t, &q, &m, g));
    }

    #[test]
    fn durbin_local_by_brute_force() {
        let (q, t) = (codes("HEAGAWGHEE"), codes("PAWHEAE"));
        let (m, g) = (blosum50(), gap(0, 8));
        let (bl, bg, bs) = brute_all3(&q, &t, &m, g);
        assert_eq!((bl, bg), (28, 1));
        assert_eq!(semiglobal_score(&q, &t, &m, g) as i64, bs);
    }

    #[test]
    fn blosum62_hand_cases() {
        let m = blosum62();
        // WW vs WAW. Gaps 11/1 (one residue costs 12):
        //   local  11 = W/W (the gapped W-W/WAW is 22 - 12 = 10)
        //   global 10 = W-W/WAW (WW-/WAW and -WW/WAW are 11 - 3 - 12 = -4)
        //   semi   11 = q's first W and t's "AW" skipped, W/W
        let (q, t) = (codes("WW"), codes("WAW"));
        assert_eq!(all3(&q, &t, &m, gap(11, 1)), (11, 10, 11));
        // Gaps 0/1: W-W/WAW is 21 everywhere.
        assert_eq!(all3(&q, &t, &m, gap(0, 1)), (21, 21, 21));

        // MKWVTF vs MKWAVTF (M 5, K 5, W 11, V 4, T 5, F 6; V/A 0, T/V 0,
        // F/T -2). Gaps 11/1: MKW-VTF/MKWAVTF = 36 - 12 = 24 in every mode.
        let (q, t) = (codes("MKWVTF"), codes("MKWAVTF"));
        assert_eq!(all3(&q, &t, &m, gap(11, 1)), (24, 24, 24));
        // Gaps 20/5 (25 for one residue), three different scores:
        //   local  21 = MKW (MKW-VTF is 36 - 25 = 11, VTF 15)
        //   global 11 = MKW-VTF (MKWV-TF 7, MKWVT-F 2, MKWVTF- -6)
        //   semi   19 = MKWVTF/MKWAVT, t's last F free (21 + 0 + 0 - 2)
        assert_eq!(all3(&q, &t, &m, gap(20, 5)), (21, 11, 19));

        // Self-alignment: HEAGAWGHEE = 8+5+4+6+4+11+6+8+5+5.
        let s = codes("HEAGAWGHEE");
        assert_eq!(all3(&s, &s, &m, gap(11, 1)), (62, 62, 62));
        assert_eq!(
            local_score_and_end(&s, &s, &m, gap(11, 1)),
            (62, Some((10, 10)))
        );
    }

    #[test]
    fn match_mismatch_hand_cases() {
        let m = match_mismatch(5, -4);
        let g = gap(10, 1); // a gap of 3 costs 13
        // ARNDCQ vs ARQ:
        //   local  10 = AR
        //   global  2 = AR---Q/ARQ: 15 - 13
        //   semi    6 = ARN/ARQ then DCQ free: 10 - 4
        let (q, t) = (codes("ARNDCQ"), codes("ARQ"));
        assert_eq!(all3(&q, &t, &m, g), (10, 2, 6));
        assert_eq!(local_score_and_end(&q, &t, &m, g), (10, Some((2, 2))));

        // Affine, not linear: one gap of 4 beats two gaps of 2.
        // AAAACCCCAAAA vs AAAAAAAA with gaps 10/1: AAAA----AAAA = 40 - 14 = 26.
        let (q, t) = (codes("AAAACCCCAAAA"), codes("AAAAAAAA"));
        assert_eq!(global_score(&q, &t, &m, g), 26);
        assert_eq!(local_score(&q, &t, &m, g), 26);
        // With gaps 0/4 (linear, 16 for the gap of 4): still 40 - 16 = 24.
        assert_eq!(global_score(&q, &t, &m, gap(0, 4)), 24);

        // +1/-1, the counterexample in the module docs: AW vs CW with gaps
        // 0/1 is 0 in semiglobal mode (both leading gaps are not free).
        let m = match_mismatch(1, -1);
        assert_eq!(all3(&codes("AW"), &codes("CW"), &m, gap(0, 1)), (1, 0, 0));
    }

    #[test]
    fn empty_and_length_one() {
        let m = blosum62();
        for &(open, extend) in &GAP_SETTINGS {
            let g = gap(open, extend);
            let e: &[u8] = &[];
            assert_eq!(all3(e, e, &m, g), (0, 0, 0));
            for n in 1..5 {
                let s = codes(&"W".repeat(n));
                let charged = -(open + n as i32 * extend);
                assert_eq!(all3(e, &s, &m, g), (0, charged, 0), "{open}/{extend}");
                assert_eq!(all3(&s, e, &m, g), (0, charged, 0), "{open}/{extend}");
                assert_eq!(local_score_and_end(&s, e, &m, g), (0, None));
            }
        }
        let g = gap(11, 1);
        let (w, a) = (codes("W"), codes("A"));
        assert_eq!(all3(&w, &w, &m, g), (11, 11, 11));
        // W/A = -3: a mismatch beats two gaps (-24) globally; 0 otherwise.
        assert_eq!(all3(&w, &a, &m, g), (0, -3, 0));
        assert_eq!(local_score_and_end(&w, &a, &m, g), (0, None));
        // With free gaps, W/- -/A costs nothing.
        assert_eq!(all3(&w, &a, &m, gap(0, 0)), (0, 0, 0));
        // * against anything: -4, or -2 as two gaps of 0/1.
        let star = codes("*");
        assert_eq!(global_score(&star, &a, &m, gap(0, 1)), -2);
        assert_eq!(global_score(&star, &a, &m, gap(11, 1)), -4);
    }

    #[test]
    fn local_score_and_end_picks_the_first_cell() {
        let m = blosum62();
        let g = gap(11, 1);
        // W/W scores 11 at (1,1) and (3,1): the smaller row wins.
        assert_eq!(
            local_score_and_end(&codes("WAW"), &codes("W"), &m, g),
            (11, Some((1, 1)))
        );
        // At (1,2) and (1,4): the smaller column wins.
        assert_eq!(
            local_score_and_end(&codes("W"), &codes("AWAW"), &m, g),
            (11, Some((1, 2)))
        );
        // At (1,2) and (2,1): row-major, so (1,2) before (2,1).
        let mm = match_mismatch(5, -4);
        assert_eq!(
            local_score_and_end(&codes("AR"), &codes("RA"), &mm, g),
            (5, Some((1, 2)))
        );
        assert_eq!(
            local_score_and_end(&codes("RA"), &codes("AR"), &mm, g),
            (5, Some((1, 2)))
        );
        // A longer alignment dominates.
        assert_eq!(
            local_score_and_end(&codes("WW"), &codes("AWWA"), &m, g),
            (22, Some((2, 3)))
        );
    }

    /// The defining property of the end cell, checked with the O(n) scorer:
    /// the prefixes ending there reach the score, nothing earlier does.
    fn check_end(q: &[u8], t: &[u8], m: &ScoreMatrix, g: GapPenalty) {
        let (s, end) = local_score_and_end(q, t, m, g);
        assert_eq!(s, local_score(q, t, m, g));
        match end {
            None => assert_eq!(s, 0),
            Some((i, j)) => {
                assert!(s > 0);
                assert_eq!(
                    local_score(&q[..i], &t[..j], m, g),
                    s,
                    "reaches s at ({i},{j})"
                );
                assert!(local_score(&q[..i - 1], t, m, g) < s, "no earlier row");
                assert!(
                    local_score(&q[..i], &t[..j - 1], m, g) < s,
                    "no earlier column in row {i}"
                );
            }
        }
    }

    #[test]
    fn local_end_on_random_pairs() {
        let m = blosum62();
        let mut rng = StdRng::seed_from_u64(7);
        for &(open, extend) in &GAP_SETTINGS {
            for _ in 0..200 {
                let n = rng.random_range(0..30);
                let mm = rng.random_range(0..30);
                let q: Vec<u8> = (0..n).map(|_| rng.random_range(0..24)).collect();
                let t: Vec<u8> = (0..mm).map(|_| rng.random_range(0..24)).collect();
                check_end(&q, &t, &m, gap(open, extend));
            }
        }
    }

    #[test]
    fn identical_sequences_score_their_diagonal() {
        // Holds when every diagonal score is positive and no pair beats the
        // mean of its two diagonals, as for BLOSUM62 without X (X/X = -1).
        let letters: Vec<u8> = (0..24).filter(|&c| c != crate::alphabet::X_CODE).collect();
        for &a in &letters {
            assert!(BLOSUM62[a as usize][a as usize] > 0);
            for &b in &letters {
                let (ab, aa, bb) = (
                    BLOSUM62[a as usize][b as usize],
                    BLOSUM62[a as usize][a as usize],
                    BLOSUM62[b as usize][b as usize],
                );
                assert!(2 * ab <= aa + bb, "{a}/{b}");
            }
        }
        let m = blosum62();
        let mut rng = StdRng::seed_from_u64(3);
        for &(open, extend) in &GAP_SETTINGS {
            for _ in 0..100 {
                let n = rng.random_range(1..60);
                let s: Vec<u8> = (0..n)
                    .map(|_| letters[rng.random_range(0..letters.len())])
                    .collect();
                let diagonal: i32 = s.iter().map(|&c| m.score(c, c)).sum();
                let g = gap(open, extend);
                assert_eq!(local_score(&s, &s, &m, g), diagonal);
                assert_eq!(global_score(&s, &s, &m, g), diagonal);
                assert_eq!(semiglobal_score(&s, &s, &m, g), diagonal);
            }
        }
    }

    #[test]
    fn score_dispatches_on_mode() {
        let scoring = Scoring {
            matrix: blosum62(),
            gaps: gap(20, 5),
        };
        let (q, t) = (codes("MKWVTF"), codes("MKWAVTF"));
        let got: Vec<i32> = Mode::ALL
            .iter()
            .map(|&mode| score(mode, &q, &t, &scoring))
            .collect();
        assert_eq!(got, [21, 11, 19]);
    }

    #[test]
    fn mode_names_round_trip() {
        for mode in Mode::ALL {
            assert_eq!(mode.to_string().parse::<Mode>().unwrap(), mode);
            assert_eq!(
                mode.to_string().to_uppercase().parse::<Mode>().unwrap(),
                mode
            );
        }
        assert_eq!(Mode::Semiglobal.to_string(), "semiglobal");
        let err = "overlap".parse::<Mode>().unwrap_err();
        assert!(matches!(err, crate::Error::InvalidArgument(_)), "{err:?}");
        assert!(err.to_string().contains("'overlap'"), "{err}");
        assert!("".parse::<Mode>().is_err());
    }

    #[test]
    fn long_global_scores_do_not_overflow_midway() {
        // 200,000 gap residues at 10,000 each would overflow i32 rows; the
        // reference works in i64 and panics only if the score itself does not
        // fit. 20,000 x 10,000 + 1 = 200,000,001 fits.
        let m = blosum62();
        let t = vec![0u8; 20_000];
        assert_eq!(global_score(&[], &t, &m, gap(1, 10_000)), -200_000_001);
        assert_eq!(semiglobal_score(&[0], &t, &m, gap(1, 10_000)), 4);
    }

    #[test]
    #[should_panic(expected = "does not fit in i32")]
    fn scores_beyond_i32_panic() {
        let t = vec![0u8; 40_000];
        global_score(&[], &t, &blosum62(), gap(0, 60_000));
    }

    #[test]
    fn hard_coded_tables_equal_the_builtin_files() {
        use crate::matrix::ScoreMatrix;
        assert_eq!(
            ScoreMatrix::by_name("blosum62").unwrap().scores(),
            blosum62().scores()
        );
        assert_eq!(
            ScoreMatrix::by_name("blosum50").unwrap().scores(),
            blosum50().scores()
        );
    }

    fn residues(max_len: usize) -> impl Strategy<Value = Vec<u8>> {
        vec(0u8..24, 0..max_len)
    }

    proptest! {
        #[test]
        fn symmetric_and_ordered(
            q in residues(40),
            t in residues(40),
            open in 0i32..25,
            extend in 0i32..8,
        ) {
            let m = blosum62();
            let g = gap(open, extend);
            let (local, global, semi) = all3(&q, &t, &m, g);
            prop_assert!(local >= 0);
            prop_assert!(semi >= 0);
            prop_assert!(local >= semi, "local {} < semiglobal {}", local, semi);
            prop_assert!(semi >= global, "semiglobal {} < global {}", semi, global);
            prop_assert_eq!((local, global, semi), all3(&t, &q, &m, g));
            prop_assert_eq!(local_score_and_end(&q, &t, &m, g).0, local);
            for mode in Mode::ALL {
                let scoring = Scoring { matrix: m.clone(), gaps: g };
                prop_assert_eq!(score(mode, &q, &t, &scoring), score(mode, &t, &q, &scoring));
            }
        }

        #[test]
        fn cheaper_gaps_never_lower_a_score(
            q in residues(30),
            t in residues(30),
            open in 0i32..20,
            extend in 0i32..6,
        ) {
            let m = blosum62();
            let (l1, g1, s1) = all3(&q, &t, &m, gap(open + 1, extend));
            let (l0, g0, s0) = all3(&q, &t, &m, gap(open, extend));
            prop_assert!(l0 >= l1 && g0 >= g1 && s0 >= s1);
            let (l2, g2, s2) = all3(&q, &t, &m, gap(open, extend + 1));
            prop_assert!(l0 >= l2 && g0 >= g2 && s0 >= s2);
        }
    }
}
