//! Alignments of pairs beyond the traceback kernels' limits: their
//! quadratic backtrack memory ([`super::MAX_PAIR_BYTES`], or a
//! GPU's or the CPU runner's window memory) or their i32 score range.
//!
//! Checkpointed traceback on the CPU, in `O(s·√l)` memory for a pair of a
//! shorter sequence of `s` and a longer one of `l` residues: a forward pass
//! along the longer sequence keeps the recurrence's state across the shorter
//! one (a row of H and F when the query is the longer, a column of H and E
//! when the target is) every `B`-th step (`B ≈ 4√l`) and finds the end cell;
//! the walk then recomputes the backtrack nibbles of one block of `B` rows
//! or columns at a time from its checkpoint, last block first, as the path
//! moves up and left. Every cell goes through the kernels' own
//! [`gpu_kernels::traceback::traceback_cell`] (in i64) with H, E and F as
//! the kernels define them, whichever the order of the sweep, and the path
//! through their [`gpu_kernels::traceback::walk`]; the end cell is the
//! kernels' row-major first maximum in both sweeps, so the alignment is the
//! kernels' own. Time: about twice the cells of the pair. (A 96-residue
//! query against a 50,000,000-residue sequence: about 5 MB, where
//! checkpointing rows of the sequence's length took 6 GB.)

use gpu_kernels::traceback::{traceback_cell, walk};

use super::alignment::{Alignment, Op};
use crate::error::{Error, Result};
use crate::reference::Mode;
use crate::scoring::Scoring;

/// Minus infinity of the i64 recurrence (far from overflow when subtracted from).
const NEG_INF: i64 = i64::MIN / 4;

/// The alignment of `query` with `target` in `mode`, exactly as the kernels
/// would give it, in `O(s·√l)` memory (`s` the shorter length, `l` the
/// longer).
///
/// # Errors
/// [`Error::InvalidArgument`] when the score does not fit in an `i32`.
pub fn align_checkpointed(
    mode: Mode,
    query: &[u8],
    target: &[u8],
    scoring: &Scoring,
) -> Result<Alignment> {
    let sweep = if target.len() > query.len() {
        Sweep::Columns
    } else {
        Sweep::Rows
    };
    let longer = query.len().max(target.len());
    let block = ((16 * longer) as f64).sqrt().ceil() as usize;
    align_with_block(mode, query, target, scoring, sweep, block.max(1))
}

/// The order of the forward pass: what a checkpoint holds.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Sweep {
    /// Row by row (along the query); a checkpoint is a row of the target's length.
    Rows,
    /// Column by column (along the target); a checkpoint is a column of the
    /// query's length.
    Columns,
}

/// [`align_checkpointed`] sweeping as `sweep` says, with checkpoints every
/// `block` rows or columns.
fn align_with_block(
    mode: Mode,
    query: &[u8],
    target: &[u8],
    scoring: &Scoring,
    sweep: Sweep,
    block: usize,
) -> Result<Alignment> {
    let pass = Pass {
        mode,
        query,
        target,
        scoring,
        sweep,
    };
    let (n, m) = (query.len(), target.len());
    // Forward pass: checkpoints and the end cell (the kernels' rules, see
    // `gpu_kernels::traceback`: row-major first maximum, which a column
    // sweep finds by preferring, among equal H, the smaller row; within one
    // row it meets the smaller column first either way).
    let steps = pass.steps();
    let mut checkpoints = Vec::with_capacity(steps / block + 1);
    let mut line = pass.border_line();
    let (mut best, mut end) = match mode {
        Mode::Semiglobal if n > 0 => (0, (0, m)),
        Mode::Global => (0, (n, m)),
        _ => (0, (0, 0)),
    };
    for k in 1..=steps {
        if (k - 1).is_multiple_of(block) {
            checkpoints.push(line.clone());
        }
        pass.next_line(&mut line, k, |i, j, h, _| {
            let candidate = mode == Mode::Local || (mode == Mode::Semiglobal && (i == n || j == m));
            if candidate && (h > best || (h == best && i < end.0)) {
                best = h;
                end = (i, j);
            }
        });
    }
    if mode == Mode::Global {
        best = pass.global_score(&line);
    }
    let score = i32::try_from(best).map_err(|_| {
        Error::InvalidArgument(format!(
            "a {n} × {m} pair scores {best}, beyond the i32 scores warpsw reports"
        ))
    })?;

    // The walk, block by block from the bottom right.
    let mut nibbles = BlockNibbles {
        pass: &pass,
        checkpoints: &checkpoints,
        block,
        current: None,
        nibbles: Vec::new(),
    };
    let mut ops = Vec::new();
    let start = walk(
        end.0,
        end.1,
        mode == Mode::Global,
        |i, j| nibbles.get(i, j),
        |op| ops.push(op),
    );
    let ops: Vec<Op> = ops.into_iter().rev().map(Op::from_code).collect();
    Ok(Alignment::from_path(score, start, end, ops, query, target))
}

/// The state carried across the shorter side: H and the gap that runs
/// along the sweep (F for a row, E for a column), entries `0..=len`.
#[derive(Clone)]
struct Line {
    h: Vec<i64>,
    gap: Vec<i64>,
}

/// One pair and its scoring: the recurrence line by line.
struct Pass<'a> {
    mode: Mode,
    query: &'a [u8],
    target: &'a [u8],
    scoring: &'a Scoring,
    sweep: Sweep,
}

impl Pass<'_> {
    /// Lines of the sweep: rows or columns.
    fn steps(&self) -> usize {
        match self.sweep {
            Sweep::Rows => self.query.len(),
            Sweep::Columns => self.target.len(),
        }
    }

    /// Cells of one line.
    fn width(&self) -> usize {
        match self.sweep {
            Sweep::Rows => self.target.len(),
            Sweep::Columns => self.query.len(),
        }
    }

    /// H of border cell `k` (`H(k,0)` or `H(0,k)`), as the kernels set it.
    fn border(&self, k: usize) -> i64 {
        let gaps = self.scoring.gaps;
        if self.mode == Mode::Global && k > 0 {
            -(i64::from(gaps.open) + k as i64 * i64::from(gaps.extend))
        } else {
            0
        }
    }

    /// Row 0 or column 0.
    fn border_line(&self) -> Line {
        Line {
            h: (0..=self.width()).map(|k| self.border(k)).collect(),
            gap: vec![NEG_INF; self.width() + 1],
        }
    }

    /// `H(n, m)` once the last line is done.
    fn global_score(&self, line: &Line) -> i64 {
        line.h[self.width()]
    }

    /// Turns `line` (line `k - 1`) into line `k`, calling `cell(i, j, H,
    /// nibble)` for each of its cells off the border, in the line's order.
    fn next_line(&self, line: &mut Line, k: usize, mut cell: impl FnMut(usize, usize, i64, u32)) {
        let gaps = self.scoring.gaps.kernel_gaps();
        let local = self.mode == Mode::Local;
        let mut diag = line.h[0];
        line.h[0] = self.border(k);
        match self.sweep {
            Sweep::Rows => {
                // Row i = k: E runs along the row, F comes from the line.
                let q = self.query[k - 1];
                let mut h_left = line.h[0];
                let mut e = NEG_INF;
                for j in 1..=self.target.len() {
                    let sub = || i64::from(self.scoring.matrix.score(q, self.target[j - 1]));
                    let (h, e_new, f, nibble) =
                        traceback_cell(local, gaps, diag, sub, e, h_left, line.gap[j], line.h[j]);
                    diag = line.h[j];
                    line.h[j] = h;
                    line.gap[j] = f;
                    e = e_new;
                    h_left = h;
                    cell(k, j, h, nibble);
                }
            }
            Sweep::Columns => {
                // Column j = k: F runs down the column, E comes from the line.
                let t = self.target[k - 1];
                let mut h_up = line.h[0];
                let mut f = NEG_INF;
                for i in 1..=self.query.len() {
                    let sub = || i64::from(self.scoring.matrix.score(self.query[i - 1], t));
                    let (h, e, f_new, nibble) =
                        traceback_cell(local, gaps, diag, sub, line.gap[i], line.h[i], f, h_up);
                    diag = line.h[i];
                    line.h[i] = h;
                    line.gap[i] = e;
                    f = f_new;
                    h_up = h;
                    cell(i, k, h, nibble);
                }
            }
        }
    }
}

/// The backtrack nibbles of one block of lines at a time, recomputed from
/// the block's checkpoint when the walk enters it.
struct BlockNibbles<'a> {
    pass: &'a Pass<'a>,
    checkpoints: &'a [Line],
    block: usize,
    /// The block whose nibbles are held.
    current: Option<usize>,
    /// `nibbles[(k - 1 - first line) * width + x - 1]` for the held block,
    /// `k` the cell's line and `x` its place in the line.
    nibbles: Vec<u8>,
}

impl BlockNibbles<'_> {
    fn get(&mut self, i: usize, j: usize) -> u32 {
        let (k, x) = match self.pass.sweep {
            Sweep::Rows => (i, j),
            Sweep::Columns => (j, i),
        };
        let width = self.pass.width();
        let b = (k - 1) / self.block;
        if self.current != Some(b) {
            let first = b * self.block;
            let last = (first + self.block).min(self.pass.steps());
            let mut line = self.checkpoints[b].clone();
            self.nibbles.clear();
            self.nibbles.resize((last - first) * width, 0);
            let sweep = self.pass.sweep;
            for l in first + 1..=last {
                let at = (l - 1 - first) * width;
                let nibbles = &mut self.nibbles;
                self.pass.next_line(&mut line, l, |i, j, _, nibble| {
                    let x = if sweep == Sweep::Rows { j } else { i };
                    nibbles[at + x - 1] = nibble as u8
                });
            }
            self.current = Some(b);
        }
        u32::from(self.nibbles[(k - 1 - b * self.block) * width + x - 1])
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::align::{align, check_alignment};
    use crate::matrix::ScoreMatrix;
    use crate::reference::score;
    use crate::scoring::GapPenalty;

    /// Deterministic residues, a few letters or all 24.
    pub(crate) fn codes(seed: u64, len: usize, letters: u64) -> Vec<u8> {
        let mut x = seed.wrapping_mul(6364136223846793005) ^ 0x9e3779b97f4a7c15;
        (0..len)
            .map(|_| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                ((x >> 33) % letters) as u8
            })
            .collect()
    }

    #[test]
    fn equals_the_kernels_alignment_for_every_mode_and_block_size() {
        let matrix = ScoreMatrix::by_name("blosum62").unwrap();
        for (k, (n, m)) in [
            (0, 5),
            (5, 0),
            (1, 1),
            (7, 30),
            (40, 33),
            (65, 64),
            (120, 90),
            (2, 150),
            (150, 3),
        ]
        .into_iter()
        .enumerate()
        {
            for letters in [3, 24] {
                let q = codes(k as u64, n, letters);
                let t = codes(100 + k as u64, m, letters);
                for mode in Mode::ALL {
                    for (open, extend) in [(11, 1), (0, 1), (10, 2), (3, 0)] {
                        let scoring = Scoring {
                            matrix: matrix.clone(),
                            gaps: GapPenalty::new(open, extend).unwrap(),
                        };
                        let want = align(mode, &q, &t, &scoring).unwrap();
                        for sweep in [Sweep::Rows, Sweep::Columns] {
                            for block in [1, 3, 8, 64, 1000] {
                                let got =
                                    align_with_block(mode, &q, &t, &scoring, sweep, block).unwrap();
                                assert_eq!(
                                    got, want,
                                    "{mode} {n}x{m} gaps {open}/{extend} {sweep:?} block {block}"
                                );
                            }
                        }
                        let got = align_checkpointed(mode, &q, &t, &scoring).unwrap();
                        assert_eq!(got.score, score(mode, &q, &t, &scoring));
                        check_alignment(&got, mode, &q, &t, &scoring).unwrap();
                    }
                }
            }
        }
    }
}
