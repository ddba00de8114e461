//! Alignments of pairs beyond the traceback kernels' limits: their
//! quadratic backtrack memory ([`super::MAX_PAIR_BYTES`], or a
//! GPU's window memory) or their i32 score range.
//!
//! Checkpointed traceback on the CPU, in `O(m·√n)` memory: a forward pass
//! keeps the H and F rows of every `B`-th row (`B ≈ 4√n`) and finds the end
//! cell; the walk then recomputes the backtrack nibbles of one block of `B`
//! rows at a time from its checkpoint, bottom block first, as the path moves
//! up. Every cell goes through the kernels' own
//! [`gpu_kernels::traceback::traceback_cell`] (in i64) and the path through
//! their [`gpu_kernels::traceback::walk`], so the end cell, the tie rules
//! and therefore the alignment are the kernels' own. Time: about twice the
//! cells of the pair.

use gpu_kernels::traceback::{traceback_cell, walk};

use super::alignment::{Alignment, Op};
use crate::error::{Error, Result};
use crate::reference::Mode;
use crate::scoring::Scoring;

/// Minus infinity of the i64 recurrence (far from overflow when subtracted from).
const NEG_INF: i64 = i64::MIN / 4;

/// The alignment of `query` with `target` in `mode`, exactly as the kernels
/// would give it, in `O(m·√n)` memory.
///
/// # Errors
/// [`Error::InvalidArgument`] when the score does not fit in an `i32`.
pub fn align_checkpointed(
    mode: Mode,
    query: &[u8],
    target: &[u8],
    scoring: &Scoring,
) -> Result<Alignment> {
    let block = ((16 * query.len()) as f64).sqrt().ceil() as usize;
    align_with_block(mode, query, target, scoring, block.max(1))
}

/// [`align_checkpointed`] with checkpoints every `block` rows.
fn align_with_block(
    mode: Mode,
    query: &[u8],
    target: &[u8],
    scoring: &Scoring,
    block: usize,
) -> Result<Alignment> {
    let pass = Pass {
        mode,
        query,
        target,
        scoring,
    };
    let (n, m) = (query.len(), target.len());
    // Forward pass: checkpoints and the end cell (the kernels' rules, see
    // `gpu_kernels::traceback`: row-major first maximum).
    let mut checkpoints = Vec::with_capacity(n / block + 1);
    let mut rows = pass.border_row();
    let (mut best, mut end) = match mode {
        Mode::Semiglobal if n > 0 => (0, (0, m)),
        Mode::Global => (0, (n, m)),
        _ => (0, (0, 0)),
    };
    for i in 1..=n {
        if (i - 1).is_multiple_of(block) {
            checkpoints.push(rows.clone());
        }
        pass.next_row(&mut rows, i, |j, h, _| {
            let candidate = mode == Mode::Local || (mode == Mode::Semiglobal && (i == n || j == m));
            if candidate && h > best {
                best = h;
                end = (i, j);
            }
        });
    }
    if mode == Mode::Global {
        best = rows.h[m];
    }
    let score = i32::try_from(best).map_err(|_| {
        Error::InvalidArgument(format!(
            "a {n} × {m} pair scores {best}, beyond the i32 scores warpsw reports"
        ))
    })?;

    // The walk, block by block from the bottom.
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

/// H and F of one row, columns `0..=m`.
#[derive(Clone)]
struct Row {
    h: Vec<i64>,
    f: Vec<i64>,
}

/// One pair and its scoring: the recurrence row by row.
struct Pass<'a> {
    mode: Mode,
    query: &'a [u8],
    target: &'a [u8],
    scoring: &'a Scoring,
}

impl Pass<'_> {
    /// H of border cell `k` (`H(k,0)` or `H(0,k)`), as the kernels set it.
    fn border(&self, k: usize) -> i64 {
        let gaps = self.scoring.gaps;
        if self.mode == Mode::Global && k > 0 {
            -(i64::from(gaps.open) + k as i64 * i64::from(gaps.extend))
        } else {
            0
        }
    }

    /// Row 0.
    fn border_row(&self) -> Row {
        Row {
            h: (0..=self.target.len()).map(|j| self.border(j)).collect(),
            f: vec![NEG_INF; self.target.len() + 1],
        }
    }

    /// Turns `row` (row `i - 1`) into row `i`, calling `cell(j, H, nibble)`
    /// for every cell `(i, j)`, `j >= 1`.
    fn next_row(&self, row: &mut Row, i: usize, mut cell: impl FnMut(usize, i64, u32)) {
        let gaps = self.scoring.gaps.kernel_gaps();
        let local = self.mode == Mode::Local;
        let q = self.query[i - 1];
        let mut diag = row.h[0];
        let mut h_left = self.border(i);
        let mut e = NEG_INF;
        row.h[0] = h_left;
        for j in 1..=self.target.len() {
            let sub = || i64::from(self.scoring.matrix.score(q, self.target[j - 1]));
            let (h, e_new, f, nibble) =
                traceback_cell(local, gaps, diag, sub, e, h_left, row.f[j], row.h[j]);
            diag = row.h[j];
            row.h[j] = h;
            row.f[j] = f;
            e = e_new;
            h_left = h;
            cell(j, h, nibble);
        }
    }
}

/// The backtrack nibbles of one block of rows at a time, recomputed from
/// the block's checkpoint when the walk enters it.
struct BlockNibbles<'a> {
    pass: &'a Pass<'a>,
    checkpoints: &'a [Row],
    block: usize,
    /// The block whose nibbles are held.
    current: Option<usize>,
    /// `nibbles[(i - 1 - first row) * m + j - 1]` for the held block.
    nibbles: Vec<u8>,
}

impl BlockNibbles<'_> {
    fn get(&mut self, i: usize, j: usize) -> u32 {
        let m = self.pass.target.len();
        let b = (i - 1) / self.block;
        if self.current != Some(b) {
            let first = b * self.block;
            let last = (first + self.block).min(self.pass.query.len());
            let mut row = self.checkpoints[b].clone();
            self.nibbles.clear();
            self.nibbles.resize((last - first) * m, 0);
            for r in first + 1..=last {
                let at = (r - 1 - first) * m;
                let nibbles = &mut self.nibbles;
                self.pass.next_row(&mut row, r, |j, _, nibble| {
                    nibbles[at + j - 1] = nibble as u8
                });
            }
            self.current = Some(b);
        }
        u32::from(self.nibbles[(i - 1 - b * self.block) * m + j - 1])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::align::{align, check_alignment};
    use crate::matrix::ScoreMatrix;
    use crate::reference::score;
    use crate::scoring::GapPenalty;

    /// Deterministic residues, a few letters or all 24.
    fn codes(seed: u64, len: usize, letters: u64) -> Vec<u8> {
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
                        for block in [1, 3, 8, 64, 1000] {
                            let got = align_with_block(mode, &q, &t, &scoring, block).unwrap();
                            assert_eq!(
                                got, want,
                                "{mode} {n}x{m} gaps {open}/{extend} block {block}"
                            );
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
