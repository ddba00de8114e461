//! One alignment and its path: [`Op`], [`Alignment`] (coordinates, CIGAR,
//! extended CIGAR, columns), and the checks that do not trust the kernels:
//! [`rescore`] and [`check_alignment`]. The coordinates and ops are those of
//! the [module docs](super).

use gpu_kernels::layout::{OP_DELETE, OP_INSERT, OP_MATCH};

use crate::reference::Mode;
use crate::scoring::Scoring;

/// One step of an alignment path.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    /// A query residue aligned with a target residue (CIGAR `M`).
    Match,
    /// A query residue against a gap (CIGAR `I`).
    Insertion,
    /// A target residue against a gap (CIGAR `D`).
    Deletion,
}

impl Op {
    pub(crate) fn from_code(code: u8) -> Op {
        match code {
            OP_MATCH => Op::Match,
            OP_INSERT => Op::Insertion,
            OP_DELETE => Op::Deletion,
            other => panic!("the walk kernel wrote op code {other}"),
        }
    }

    /// The CIGAR letter: `M`, `I` or `D`.
    pub fn letter(self) -> char {
        match self {
            Op::Match => 'M',
            Op::Insertion => 'I',
            Op::Deletion => 'D',
        }
    }
}

/// One pairwise alignment; see the [module docs](super) for the coordinates.
#[derive(Clone, Debug, PartialEq)]
pub struct Alignment {
    /// The alignment's score (equal to [`crate::reference::score`]).
    pub score: i32,
    /// First query residue covered, 1-based.
    pub query_start: usize,
    /// Last query residue covered, 1-based inclusive.
    pub query_end: usize,
    /// First target residue covered, 1-based.
    pub target_start: usize,
    /// Last target residue covered, 1-based inclusive.
    pub target_end: usize,
    /// The path, from the start.
    pub ops: Vec<Op>,
    /// Aligned pairs with identical residues.
    pub matches: usize,
    /// Alignment length: number of ops (columns of the printed alignment).
    pub length: usize,
    /// `matches / length`, 0 for the empty alignment.
    pub identity: f64,
}

impl Alignment {
    /// The alignment of a path from cell `start` to cell `end` (matrix
    /// cells: it covers residues `start.0 + 1 ..= end.0` of `query` and
    /// `start.1 + 1 ..= end.1` of `target`) made of `ops`, with its score.
    pub fn from_path(
        score: i32,
        start: (usize, usize),
        end: (usize, usize),
        ops: Vec<Op>,
        query: &[u8],
        target: &[u8],
    ) -> Alignment {
        let mut a = Alignment {
            score,
            query_start: start.0 + 1,
            query_end: end.0,
            target_start: start.1 + 1,
            target_end: end.1,
            length: ops.len(),
            ops,
            matches: 0,
            identity: 0.0,
        };
        a.matches = a
            .columns(query, target)
            .filter(|&(op, q, t)| op == Op::Match && q == t)
            .count();
        if a.length > 0 {
            a.identity = a.matches as f64 / a.length as f64;
        }
        a
    }

    /// The CIGAR string with `M`, `I`, `D` (empty for the empty alignment).
    ///
    /// ```
    /// use host::align::{Alignment, Op};
    /// let a = Alignment { score: 0, query_start: 1, query_end: 3, target_start: 1,
    ///     target_end: 2, ops: vec![Op::Match, Op::Insertion, Op::Match],
    ///     matches: 2, length: 3, identity: 2.0 / 3.0 };
    /// assert_eq!(a.cigar(), "1M1I1M");
    /// ```
    pub fn cigar(&self) -> String {
        run_length(self.ops.iter().map(|op| op.letter()))
    }

    /// The extended CIGAR: `=` for identical aligned residues, `X` for
    /// different ones, `I` and `D` as in [`Alignment::cigar`]. `query` and
    /// `target` are the whole sequences the alignment was computed on.
    pub fn extended_cigar(&self, query: &[u8], target: &[u8]) -> String {
        run_length(self.columns(query, target).map(|(op, q, t)| match op {
            Op::Match if q == t => '=',
            Op::Match => 'X',
            other => other.letter(),
        }))
    }

    /// The alignment's columns: each op with the query and target residue
    /// it covers (`None` against a gap).
    pub fn columns<'a>(
        &'a self,
        query: &'a [u8],
        target: &'a [u8],
    ) -> impl Iterator<Item = (Op, Option<u8>, Option<u8>)> + 'a {
        let (mut i, mut j) = (self.query_start - 1, self.target_start - 1);
        self.ops.iter().map(move |&op| {
            let q = (op != Op::Deletion).then(|| {
                i += 1;
                query[i - 1]
            });
            let t = (op != Op::Insertion).then(|| {
                j += 1;
                target[j - 1]
            });
            (op, q, t)
        })
    }
}

fn run_length(letters: impl Iterator<Item = char>) -> String {
    let mut out = String::new();
    let mut run: Option<(char, usize)> = None;
    for c in letters {
        run = match run {
            Some((last, k)) if last == c => Some((c, k + 1)),
            Some((last, k)) => {
                out.push_str(&format!("{k}{last}"));
                Some((c, 1))
            }
            None => Some((c, 1)),
        };
    }
    if let Some((last, k)) = run {
        out.push_str(&format!("{k}{last}"));
    }
    out
}

/// Re-scores `alignment` from its ops on the CPU, independently of the
/// kernels: the sum of `s` over aligned pairs minus `open + k·extend` for
/// each maximal run of k `I` (or k `D`) ops. For any alignment the runners of
/// [`crate::align`] return it equals `alignment.score`.
pub fn rescore(alignment: &Alignment, query: &[u8], target: &[u8], scoring: &Scoring) -> i32 {
    let mut score = 0i64;
    let mut previous = None;
    for (op, q, t) in alignment.columns(query, target) {
        score += match (op, q, t) {
            (Op::Match, Some(q), Some(t)) => i64::from(scoring.matrix.score(q, t)),
            _ if previous == Some(op) => -i64::from(scoring.gaps.extend),
            _ => -i64::from(scoring.gaps.open + scoring.gaps.extend),
        };
        previous = Some(op);
    }
    i32::try_from(score).expect("a rescored alignment fits in i32")
}

/// Checks an alignment against its sequences, independently of the kernels:
/// the ops consume exactly the reported ranges, the ranges fit the sequences
/// and the mode (global: everything; semiglobal: a skipped prefix and a
/// skipped suffix of one sequence each; local: not starting or ending in a
/// gap), and [`rescore`] equals the score. Returns what is wrong.
pub fn check_alignment(
    alignment: &Alignment,
    mode: Mode,
    query: &[u8],
    target: &[u8],
    scoring: &Scoring,
) -> std::result::Result<(), String> {
    let a = alignment;
    let (n, m) = (query.len(), target.len());
    let count = |skip: Op| a.ops.iter().filter(|&&op| op != skip).count();
    if a.query_start == 0 || a.target_start == 0 || a.query_end > n || a.target_end > m {
        return Err(format!("ranges out of the sequences: {a:?}"));
    }
    if a.query_end + 1 - a.query_start != count(Op::Deletion)
        || a.target_end + 1 - a.target_start != count(Op::Insertion)
    {
        return Err(format!("the ops do not cover the ranges: {a:?}"));
    }
    if a.length != a.ops.len() {
        return Err(format!("length {} != {} ops", a.length, a.ops.len()));
    }
    let ok = match mode {
        Mode::Global => {
            a.query_start == 1 && a.target_start == 1 && a.query_end == n && a.target_end == m
        }
        Mode::Semiglobal => {
            (a.query_start == 1 || a.target_start == 1) && (a.query_end == n || a.target_end == m)
        }
        Mode::Local => {
            a.ops.first().is_none_or(|&op| op == Op::Match)
                && a.ops.last().is_none_or(|&op| op == Op::Match)
        }
    };
    if !ok {
        return Err(format!("the alignment breaks {mode} mode's rules: {a:?}"));
    }
    let rescored = rescore(a, query, target, scoring);
    if rescored != a.score {
        return Err(format!("ops re-score to {rescored}, reported {}", a.score));
    }
    Ok(())
}
