//! Local alignments of long pairs on every core: one pair's matrix in tiles
//! swept as a wavefront.
//!
//! The CPU runner ([`super::cpu`]) aligns the pairs of a window side by side,
//! one pair a core, each by the traceback kernel's own body. A search's hits
//! are few and the longest set the time: a 5,478-residue query against a
//! 22,152-residue hit took a second on one core while the others waited.
//! Here one pair's matrix is cut into tiles of [`BAND_STRIPS`] strips of
//! eight rows by [`BLOCK`] columns; tile `(b, c)` needs the bottom row of
//! tile `(b - 1, c)` and the right edge of tile `(b, c - 1)`, so the tiles
//! of one anti-diagonal run side by side on the cores, diagonal after
//! diagonal (the classic wavefront of dynamic programming on many
//! processors, as Liu et al.'s CUDASW++ and the GPU kernels' intra-sequence
//! variants use across a GPU's threads).
//!
//! Every cell goes through the kernels' own
//! [`gpu_kernels::traceback::traceback_cell`], with the row border, the
//! strips of eight rows, the backtrack words (one word a column of a strip)
//! and the end cell (the row-major first maximum above 0) of kernel 1
//! ([`gpu_kernels::traceback::fill_pair`]), and the path through the
//! kernels' [`gpu_kernels::traceback::walk`]: the alignment is the kernels'
//! own, whatever the tiles, only the order of the cells differs. Memory: the
//! backtrack nibbles (`n · m / 2` bytes), two rows of the target's length
//! and each tile's edges.

use gpu_kernels::layout::NUM_CODES;
use gpu_kernels::recurrence::NEG_INF;
use gpu_kernels::traceback::{traceback_cell, walk};
use rayon::prelude::*;

use super::alignment::{Alignment, Op};
use super::windows::kernel_matrix;
use crate::scoring::Scoring;

/// Rows of one backtrack word, as kernel 1 strips its rows (the sweep below
/// writes its eight cells out).
const STRIP: usize = gpu_kernels::traceback::STRIP;
const _: () = assert!(STRIP == 8);

/// Strips (of [`STRIP`] rows) of a tile: 256 rows.
pub const BAND_STRIPS: usize = 32;

/// Columns of a tile.
pub const BLOCK: usize = 256;

/// Pairs of at least this many cells (and more than a core's share of the
/// call's cells) go through [`align_local_wavefront`] in
/// [`super::cpu::align_pairs`]: below, a pair is too short to share among
/// the cores. Per core the tiles run at about 0.6 of the kernel body's
/// speed (0.16 against 0.26 GCUPS on the 2-core development host), so only
/// a pair that would otherwise finish alone gains.
pub const WAVEFRONT_MIN_CELLS: u64 = 1 << 24;

/// Fewer threads than this: no pair goes through [`align_local_wavefront`]
/// (at 0.6 of the per-core speed, two cores gain nothing).
pub const WAVEFRONT_MIN_THREADS: usize = 4;

/// The left edge a tile hands to the tile on its right, per strip: `H` and
/// `E` of the strip's rows in the tile's last column, and `H` of the row
/// above the strip there (the next tile's first diagonal).
#[derive(Clone, Copy)]
struct Edge {
    h: [i32; STRIP],
    e: [i32; STRIP],
    diagonal: i32,
}

/// A row's first maximum among a tile's columns: `(H, column)`, `(0, 0)`
/// when no cell is above 0.
type RowBest = (i32, u32);

/// A pointer the tiles of one diagonal share: each writes only its own
/// columns, strips and edges (see [`sweep_tile`]).
struct Shared<T>(*mut T);
// SAFETY: the tiles of one diagonal touch disjoint elements; diagonals run
// one after another (rayon's join orders them).
unsafe impl<T> Sync for Shared<T> {}
unsafe impl<T> Send for Shared<T> {}

impl<T> Shared<T> {
    fn at(&self, k: usize) -> *mut T {
        self.0.wrapping_add(k)
    }
}

/// The local alignment of `query` with `target`, exactly as the traceback
/// kernels give it, on every core. The pair must fit the kernels' score
/// range ([`super::pair_fits`]).
pub fn align_local_wavefront(query: &[u8], target: &[u8], scoring: &Scoring) -> Alignment {
    align_tiled(query, target, scoring, BAND_STRIPS, BLOCK)
}

/// [`align_local_wavefront`] with tiles of `band_strips` strips by `block`
/// columns.
fn align_tiled(
    query: &[u8],
    target: &[u8],
    scoring: &Scoring,
    band_strips: usize,
    block: usize,
) -> Alignment {
    let (n, m) = (query.len(), target.len());
    if n == 0 || m == 0 {
        return Alignment::from_path(0, (0, 0), (0, 0), Vec::new(), query, target);
    }
    let strips = n.div_ceil(STRIP);
    let bands = strips.div_ceil(band_strips);
    let blocks = m.div_ceil(block);
    let mut nibbles = vec![0u32; strips * m];
    // Row 0 (local: H = 0, no vertical gap), then each band's bottom row.
    let mut row_h = vec![0i32; m + 1];
    let mut row_f = vec![NEG_INF; m + 1];
    let mut edges = vec![
        Edge {
            h: [0; STRIP],
            e: [NEG_INF; STRIP],
            diagonal: 0
        };
        bands * band_strips * blocks
    ];
    let mut bests: Vec<RowBest> = vec![(0, 0); n * blocks];
    let sweep = TileSweep {
        query,
        target,
        matrix: kernel_matrix(&scoring.matrix),
        gaps: scoring.gaps.kernel_gaps(),
        band_strips,
        block,
        blocks,
        nibbles: Shared(nibbles.as_mut_ptr()),
        row_h: Shared(row_h.as_mut_ptr()),
        row_f: Shared(row_f.as_mut_ptr()),
        edges: Shared(edges.as_mut_ptr()),
        bests: Shared(bests.as_mut_ptr()),
    };
    for diagonal in 0..bands + blocks - 1 {
        let first = diagonal.saturating_sub(blocks - 1);
        let last = diagonal.min(bands - 1);
        (first..=last).into_par_iter().for_each(|band| {
            // SAFETY: on one diagonal each band has one tile, and tiles
            // of different bands and blocks write disjoint strips, columns,
            // edges and rows; the tiles they read (above, left) ran on the
            // diagonal before.
            unsafe { sweep.tile(band, diagonal - band) }
        });
    }

    // The end cell: each row's first maximum (tiles in column order, the
    // earlier column winning ties), then the first row's of the largest.
    let (mut score, mut end) = (0, (0, 0));
    for i in 1..=n {
        let mut row = (0, 0);
        for &best in &bests[(i - 1) * blocks..i * blocks] {
            if best.0 > row.0 {
                row = best;
            }
        }
        if row.0 > score {
            score = row.0;
            end = (i, row.1 as usize);
        }
    }
    let nibble = |i: usize, j: usize| {
        let word = nibbles[(i - 1) / STRIP * m + (j - 1)];
        (word >> (4 * ((i - 1) % STRIP))) & 0xf
    };
    let mut ops = Vec::new();
    let start = walk(end.0, end.1, false, nibble, |op| ops.push(op));
    let ops: Vec<Op> = ops.into_iter().rev().map(Op::from_code).collect();
    Alignment::from_path(score, start, end, ops, query, target)
}

/// One pair's sweep: its sequences and scoring, and the buffers the tiles
/// share.
struct TileSweep<'a> {
    query: &'a [u8],
    target: &'a [u8],
    matrix: Vec<i8>,
    gaps: gpu_kernels::recurrence::Gaps,
    band_strips: usize,
    block: usize,
    blocks: usize,
    /// Backtrack words: strip `k`, column `j` at `k * m + j - 1`.
    nibbles: Shared<u32>,
    /// H and F of the row above the strip being swept, columns `0..=m`.
    row_h: Shared<i32>,
    row_f: Shared<i32>,
    /// Tile `(b, c)`'s right edge, strip `s` of the band: `(b * band_strips
    /// + s) * blocks + c`.
    edges: Shared<Edge>,
    /// Row `i`'s first maximum in block `c`: `(i - 1) * blocks + c`.
    bests: Shared<RowBest>,
}

impl TileSweep<'_> {
    /// Sweeps tile `(band, column_block)`: its strips top to bottom, each
    /// across the tile's columns as kernel 1 sweeps a strip.
    ///
    /// # Safety
    /// No other thread touches the tile's columns of `row_h`/`row_f`, its
    /// strips' words in those columns, its edges or its rows' bests while
    /// it runs; tiles `(band - 1, column_block)` and `(band, column_block -
    /// 1)` are done.
    unsafe fn tile(&self, band: usize, column_block: usize) {
        // Locals, not fields: the writes through the shared pointers below
        // could alias `self` as far as the compiler knows, which would
        // reload every field at every cell.
        let (query, target) = (self.query, self.target);
        let (n, m) = (query.len(), target.len());
        let gaps = self.gaps;
        let blocks = self.blocks;
        let (nibbles, row_h, row_f) = (self.nibbles.0, self.row_h.0, self.row_f.0);
        let first_column = column_block * self.block + 1;
        let last_column = ((column_block + 1) * self.block).min(m);
        let first_strip = band * self.band_strips;
        let last_strip = ((band + 1) * self.band_strips).min(n.div_ceil(STRIP));
        let mut profile = [[0i32; STRIP]; NUM_CODES];
        for strip in first_strip..last_strip {
            let i0 = strip * STRIP;
            let real_rows = STRIP.min(n - i0);
            // The strip's scores against each code: its rows' residues (the
            // last one repeated past n, as kernel 1 does).
            for (code, scores) in profile.iter_mut().enumerate() {
                *scores = core::array::from_fn(|r| {
                    let residue = usize::from(query[(i0 + r).min(n - 1)]);
                    i32::from(self.matrix[residue * NUM_CODES + code])
                });
            }
            let edge_index = strip * blocks + column_block;
            let (mut h_left, mut e, mut diagonal) = match column_block {
                0 => ([0; STRIP], [NEG_INF; STRIP], 0),
                _ => {
                    let left = unsafe { *self.edges.at(edge_index - 1) };
                    (left.h, left.e, left.diagonal)
                }
            };
            let mut best_h = [0i32; STRIP];
            let mut best_j = [0u32; STRIP];
            let mut last_above = 0;
            for j in first_column..=last_column {
                let (h_above, f_above) = unsafe { (*row_h.add(j), *row_f.add(j)) };
                last_above = h_above;
                let scores = &profile[usize::from(target[j - 1])];
                let (mut h_up, mut f_up) = (h_above, f_above);
                let mut diagonal_r = diagonal;
                let mut word = 0u32;
                // The strip's eight cells, written out: with constant
                // indices the strip's state stays in registers (a loop kept
                // it on the stack, at a third of the speed).
                macro_rules! cell {
                    ($r:literal) => {
                        let (h, e_new, f, nibble) = traceback_cell(
                            true,
                            gaps,
                            diagonal_r,
                            || scores[$r],
                            e[$r],
                            h_left[$r],
                            f_up,
                            h_up,
                        );
                        e[$r] = e_new;
                        word |= nibble << (4 * $r);
                        if h > best_h[$r] {
                            best_h[$r] = h;
                            best_j[$r] = j as u32;
                        }
                        diagonal_r = h_left[$r];
                        h_left[$r] = h;
                        h_up = h;
                        f_up = f;
                    };
                }
                cell!(0);
                cell!(1);
                cell!(2);
                cell!(3);
                cell!(4);
                cell!(5);
                cell!(6);
                cell!(7);
                let _ = diagonal_r;
                unsafe {
                    *nibbles.add(strip * m + j - 1) = word;
                    *row_h.add(j) = h_up;
                    *row_f.add(j) = f_up;
                }
                diagonal = h_above;
            }
            unsafe {
                *self.edges.at(edge_index) = Edge {
                    h: h_left,
                    e,
                    diagonal: last_above,
                };
                for r in 0..real_rows {
                    *self.bests.at((i0 + r) * blocks + column_block) = (best_h[r], best_j[r]);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::align::{Mode, align, test_scoring as scoring};
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    /// A sequence of `len` codes; `letters` few make many equal scores (ties).
    fn codes(rng: &mut StdRng, len: usize, letters: u8) -> Vec<u8> {
        (0..len).map(|_| rng.random_range(0..letters)).collect()
    }

    #[test]
    fn equals_the_kernels_alignment_for_every_tile_shape() {
        let mut rng = StdRng::seed_from_u64(29);
        for (n, m) in [
            (1, 1),
            (1, 40),
            (40, 1),
            (8, 8),
            (9, 17),
            (63, 65),
            (130, 97),
            (301, 260),
        ] {
            for letters in [3, 24] {
                let q = codes(&mut rng, n, letters);
                let mut t = codes(&mut rng, m, letters);
                // A stretch of the query in the target: a long alignment
                // crossing many tiles.
                let k = n.min(m) / 2;
                t[..k].copy_from_slice(&q[n - k..]);
                for (open, extend) in [(11, 1), (0, 1), (10, 2), (3, 0)] {
                    let s = scoring("blosum62", open, extend);
                    let want = align(Mode::Local, &q, &t, &s).unwrap();
                    for (band_strips, block) in [(1, 1), (1, 3), (2, 5), (3, 64), (32, 256)] {
                        let got = align_tiled(&q, &t, &s, band_strips, block);
                        assert_eq!(
                            got, want,
                            "{n}x{m}, {letters} letters, gaps {open}/{extend}, tiles {band_strips}x{block}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn empty_sequences_align_to_nothing() {
        let s = scoring("blosum62", 11, 1);
        for (q, t) in [(vec![], vec![1u8, 2]), (vec![3u8], vec![])] {
            assert_eq!(
                align_local_wavefront(&q, &t, &s),
                align(Mode::Local, &q, &t, &s).unwrap()
            );
        }
    }
}
