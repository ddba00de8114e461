//! `sw_traceback_fill_i32` and `sw_traceback_walk`: takes a window of
//! sequence pairs, returns each pair's optimal alignment (score, end and start
//! cells, and the ops of the path) in local, global or semiglobal mode.
//!
//! The two kernels of gpu-pairAlign: Blazewicz, J., Frohmberg, W.,
//! Kierzynka, M., Pesch, E. & Wojciechowski, P. (2011). *Protein alignment
//! algorithms with an efficient backtracking routine on multiple GPUs.*
//! BMC Bioinformatics 12:181. Kernel 1 (the paper's Figure 3)
//! fills H, E and F and writes four backtrack bits per cell, eight cells per
//! 32-bit word; kernel 2 (Figure 4) walks back from the end cell reading only
//! those bits, in time linear in the alignment's length.
//!
//! # Recurrence and backtrack bits
//! [`crate::recurrence`]'s Gotoh recurrence with `q` (length n) on the rows
//! `i` and `t` (length m) on the columns `j`; `E` is the horizontal gap
//! (`t_j` against nothing, a left move), `F` the vertical one (`q_i` against
//! nothing, an up move). Borders, `E(i,0) = F(0,j) = -∞`:
//! `H(i,0) = -(open + i·extend)`, `H(0,j) = -(open + j·extend)` for global
//! (`H(0,0) = 0`), `0` for local and semiglobal. For every cell
//! `1 <= i <= n`, `1 <= j <= m` the nibble holds (the paper's formulas 9–14,
//! restated for this recurrence; bit values in [`crate::layout`]):
//!
//! | bit | paper | set when |
//! |---|---|---|
//! | `BIT_CONT_UP` | `Cup` | `F(i-1,j) - extend > H(i-1,j) - (open + extend)`: the vertical gap continues (strictly better than opening it here) |
//! | `BIT_CONT_LEFT` | `Cleft` | `E(i,j-1) - extend > H(i,j-1) - (open + extend)` (likewise) |
//! | `BIT_MOVE_UP` | `Bup` | H comes from the diagonal or from F |
//! | `BIT_MOVE_LEFT` | `Bleft` | H comes from the diagonal or from E |
//!
//! Differs from the paper: formulas 9–10 set `Cup`/`Cleft` whenever
//! extending scores as well as opening; here a tie *reopens* the gap, which
//! with `open = 0` reproduces the textbook linear-gap traceback (Durbin et
//! al.'s HEAGAWGHEE example gives the book's alignments).
//!
//! H's origin is chosen by one fixed priority: **diagonal, then F (up), then
//! E (left)**: both B bits = diagonal, `Bup` only = F, `Bleft` only = E. In
//! local mode a cell with `H == 0` has neither B bit (formulas 13–14's
//! `H > 0`): the walk stops there, so a local alignment never starts with a
//! zero-scoring prefix.
//!
//! # End cell and the walk
//! * local: the first cell with the maximum H in row-major order (smallest
//!   `i`, then smallest `j`), `(0,0)` when every H is 0 (the empty
//!   alignment, score 0);
//! * global: `(n, m)`;
//! * semiglobal: the first maximum in row-major order among the cells of the
//!   last column `(i, m)` and the last row `(n, j)` (borders included).
//!
//! Kernel 2 starts in state H at the end cell. In state H at `(i,j)`: on a
//! border (`i == 0` or `j == 0`) it stops, except in global mode, where it
//! first emits the border's leading gap (`i` up moves or `j` left moves) and
//! stops at `(0,0)`; else both B bits → op M, go to `(i-1,j-1)`; `Bup` → state
//! F; `Bleft` → state E; neither → stop. State F at `(i,j)` emits op I, goes
//! to `(i-1,j)` and stays in F if `Cup`, else returns to H; state E emits op
//! D, goes to `(i,j-1)`, stays in E if `Cleft`. The cell where it stops is
//! the start cell; the ops are written end to start, two bits each (the host
//! reverses them).
//!
//! # Thread mapping
//! 1-D grid; global thread `p < pairs` computes pair `p` of the window (the
//! paper's one alignment per thread). No shared memory, no barriers.
//!
//! # Memory layout
//! See [`crate::layout::TracebackParams`] and [`crate::layout::PairTask`].
//! The backtrack bits of a pair are its own `ceil(n/8)·m` words, one per
//! strip of eight rows and column: cell `(i,j)` is bits `4*((i-1)%8) ..`
//! of word `((i-1)/8)·m + (j-1)`. Kernel 1 writes every word of the pair
//! (no zeroing needed). The row scratch holds `[H, F]` of the row above the
//! current strip (the paper keeps H and E in global memory and F in shared
//! memory; here the sweep is by strips of rows, so the roles of E and F are
//! swapped and the strip's E and H live in registers); it is interleaved by
//! pair, so the threads of a warp, all at the same column, touch adjacent
//! entries. Residues are packed four per word and the target is read a word
//! at a time.
//!
//! # Complexity
//! Kernel 1: O(n·m) time, 4 bits per cell and 8 bytes per target residue of
//! global memory; per column of a strip one scratch read, one scratch write
//! and one backtrack word for eight cells. Kernel 2: O(n + m) time and reads.
//!
//! # Score range
//! Scores are i32 with [`NEG_INF`] as minus infinity: the host must keep
//! `(n + m + 2) · (open + extend + max |s|)` below `2^28` (it checks).

use crate::layout::{
    BIT_CONT_LEFT, BIT_CONT_UP, BIT_MOVE_LEFT, BIT_MOVE_UP, CELLS_PER_WORD, MODE_GLOBAL,
    MODE_LOCAL, MODE_SEMIGLOBAL, NUM_CODES, OP_DELETE, OP_INSERT, OP_MATCH, OPS_PER_WORD,
    TracebackParams, code_byte,
};
use crate::recurrence::{Gaps, NEG_INF, Score, gap_score, global_h, local_h};

/// H of border cell `k` (`H(k,0)` or `H(0,k)`) in `mode`.
#[inline(always)]
fn border(mode: u32, k: usize, p: &TracebackParams) -> i32 {
    if mode == MODE_GLOBAL && k > 0 {
        -(p.gaps.first + (k as i32 - 1) * p.gaps.extend)
    } else {
        0
    }
}

/// Where pair `t`'s query and target start in the packed residues, and
/// their lengths: `(query start, n, target start, m)`.
#[inline(always)]
unsafe fn sequences(p: &TracebackParams, t: usize) -> (usize, usize, usize, usize) {
    let task = *p.tasks.add(t);
    let span = |k: u32| {
        let start = *p.offsets.add(k as usize);
        let end = *p.offsets.add(k as usize + 1);
        (start as usize, (end - start) as usize)
    };
    let (q, n) = span(task.query);
    let (d, m) = span(task.target);
    (q, n, d, m)
}

/// Residue `b` of the packed residues.
#[inline(always)]
unsafe fn residue(p: &TracebackParams, b: usize) -> usize {
    code_byte(*p.residues.add(b / 4), (b % 4) as u32) as usize
}

/// One cell of the recurrence with its backtrack nibble (the table in the
/// module docs): from the diagonal H, the substitution score (asked for
/// after the gaps, the order the kernel was verified with on the GPU), E and
/// H of the cell to the left and F and H of the cell above, returns `(H, E,
/// F, nibble)`. Shared by kernel 1 (`i32`) and the host's checkpointed
/// traceback for pairs beyond the kernels' memory (`i64`).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub fn traceback_cell<S: Score + PartialOrd>(
    local: bool,
    g: Gaps,
    diag: S,
    sub: impl FnOnce() -> S,
    e_left: S,
    h_left: S,
    f_up: S,
    h_up: S,
) -> (S, S, S, u32) {
    let e_ext = e_left - S::splat(g.extend);
    let e_open = h_left - S::splat(g.first);
    let f_ext = f_up - S::splat(g.extend);
    let f_open = h_up - S::splat(g.first);
    let e = gap_score(e_left, h_left, g);
    let f = gap_score(f_up, h_up, g);
    let sub = sub();
    let via_diag = diag + sub;
    let h = if local {
        local_h(diag, sub, e, f)
    } else {
        global_h(diag, sub, e, f)
    };
    // Continue a gap only when that is strictly better than reopening it
    // here (ties reopen).
    let mut nibble = 0;
    if f_ext > f_open {
        nibble |= BIT_CONT_UP;
    }
    if e_ext > e_open {
        nibble |= BIT_CONT_LEFT;
    }
    if local && h == S::splat(0) {
        // Stop: neither B bit.
    } else if h == via_diag {
        nibble |= BIT_MOVE_UP | BIT_MOVE_LEFT;
    } else if h == f {
        nibble |= BIT_MOVE_UP;
    } else {
        nibble |= BIT_MOVE_LEFT;
    }
    (h, e, f, nibble)
}

/// Query rows per strip: the rows one thread carries in registers across a
/// column, and the cells of one backtrack word.
pub const STRIP: usize = CELLS_PER_WORD;

/// Kernel 1 for pair `t`: fills H/E/F, writes the pair's backtrack bits, its
/// score and end cell (`score`, `query_end`, `target_end` of its result).
///
/// The query is swept in strips of [`STRIP`] rows: per column the thread
/// reads the row scratch once, computes the strip's cells in registers and
/// writes one backtrack word and the strip's last `[H, F]` back, so the
/// scratch traffic is two accesses per eight cells instead of two per cell.
/// Rows past `n` in the last strip are computed on a repeated residue and
/// ignored (never a candidate end cell, never read by the walk).
///
/// This is the body of one GPU thread; under emulation the host calls it
/// once for every `t`.
///
/// # Safety
/// * `t < p.pairs`; `p.tasks` and `p.results` hold `p.pairs` entries.
/// * Every task's sequence indices `k` have `p.offsets[k]` and
///   `p.offsets[k + 1]` in bounds, increasing, within `p.residues`, whose
///   codes are `< NUM_CODES`; `p.matrix` holds `NUM_CODES²` entries.
/// * `p.residues` holds every residue that `p.offsets` spans (packed, see
///   [`TracebackParams::residues`]).
/// * With n, m the pair's lengths: `p.bits` holds `backtrack_words(n, m)`
///   words from `bits_offset`, `p.rows` entries `j * p.pairs + t` for every
///   `j <= m`, and no other thread touches them or result `t`.
/// * `p.mode` is one of the `MODE_*` constants and the score-range bound of
///   the module docs holds.
#[inline(always)]
pub unsafe fn fill_pair(p: &TracebackParams, t: u32) {
    let t = t as usize;
    let task = *p.tasks.add(t);
    let (q, n, d, m) = sequences(p, t);
    let g = p.gaps;
    let mode = p.mode;
    let local = mode == MODE_LOCAL;
    // Column j's scratch entry; neighbouring threads' entries are adjacent.
    let stride = p.pairs as usize;
    let row = |j: usize| p.rows.add(j * stride + t);
    let bits = p.bits.add(task.bits_offset as usize);

    for j in 0..=m {
        *row(j) = [border(mode, j, p), NEG_INF];
    }
    // Best cell so far. Local: row-major first maximum, (0,0) when all are 0.
    // Semiglobal: the first candidate in row-major order is (0, m) (or (0,0)
    // when n == 0, the same cell when m == 0); its H is 0.
    let (mut best, mut best_i, mut best_j) = match mode {
        MODE_SEMIGLOBAL if n > 0 => (0, 0, m),
        MODE_GLOBAL => (0, n, m),
        _ => (0, 0, 0),
    };

    for strip in 0..n.div_ceil(STRIP) {
        let i0 = strip * STRIP;
        let real_rows = STRIP.min(n - i0);
        // Matrix row of each strip row's residue (the last one repeated past n).
        let matrix_rows: [*const i8; STRIP] = core::array::from_fn(|r| {
            p.matrix
                .add(residue(p, q + (i0 + r).min(n - 1)) * NUM_CODES)
        });
        let mut h_left: [i32; STRIP] = core::array::from_fn(|r| border(mode, i0 + r + 1, p));
        let mut e = [NEG_INF; STRIP];
        // Each row's first maximum among its candidate cells (strictly
        // above 0, the value of the initial best).
        let mut row_best = [0i32; STRIP];
        let mut row_best_j = [0u32; STRIP];
        // H(i0, j-1): the diagonal of the strip's first row.
        let mut diag = (*row(0))[0];
        *row(0) = [h_left[STRIP - 1], NEG_INF];
        let strip_bits = bits.add(strip * m);
        // The word holding the current target residue: one load per four
        // columns.
        let mut target_word = 0;

        for j in 1..=m {
            let [h_above, f_above] = *row(j);
            let b = d + j - 1;
            if j == 1 || b % 4 == 0 {
                target_word = *p.residues.add(b / 4);
            }
            let code = code_byte(target_word, (b % 4) as u32) as usize;
            let (mut h_up, mut f_up) = (h_above, f_above);
            let mut diag_r = diag;
            let mut word = 0u32;
            for r in 0..STRIP {
                let i = i0 + r + 1;
                let sub = || *matrix_rows[r].add(code) as i32;
                let (h, e_new, f, nibble) =
                    traceback_cell(local, g, diag_r, sub, e[r], h_left[r], f_up, h_up);
                e[r] = e_new;
                word |= nibble << (4 * r);
                let candidate = local || (mode == MODE_SEMIGLOBAL && (i == n || j == m));
                if candidate && h > row_best[r] {
                    row_best[r] = h;
                    row_best_j[r] = j as u32;
                }
                diag_r = h_left[r];
                h_left[r] = h;
                h_up = h;
                f_up = f;
            }
            *strip_bits.add(j - 1) = word;
            diag = h_above;
            *row(j) = [h_up, f_up];
        }
        for r in 0..STRIP {
            if r < real_rows && row_best[r] > best {
                best = row_best[r];
                best_i = i0 + r + 1;
                best_j = row_best_j[r] as usize;
            }
            if mode == MODE_GLOBAL && i0 + r + 1 == n {
                best = h_left[r]; // H(n, m)
            }
        }
    }
    if mode == MODE_GLOBAL && n == 0 {
        best = border(mode, m, p); // H(0, m)
    }
    let r = p.results.add(t);
    (*r).score = best;
    (*r).query_end = best_i as u32;
    (*r).target_end = best_j as u32;
}

/// The nibble of cell `(i, j)` (`i, j >= 1`) of a pair with `m` columns.
#[inline(always)]
unsafe fn nibble(bits: *const u32, m: usize, i: usize, j: usize) -> u32 {
    let word = (i - 1) / STRIP * m + (j - 1);
    (*bits.add(word) >> (4 * ((i - 1) % STRIP))) & 0xf
}

/// The walk's state: which of H, E, F the path is in.
#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    H,
    /// In a vertical gap (F): up moves.
    Up,
    /// In a horizontal gap (E): left moves.
    Left,
}

/// The walk of kernel 2 from end cell `(i, j)` (the state machine of the
/// module docs): `nibble(i, j)` gives a cell's backtrack bits, `emit` takes
/// each op from the alignment's end to its start; returns the start cell.
/// Shared by kernel 2 and the host's checkpointed traceback.
#[inline(always)]
pub fn walk(
    mut i: usize,
    mut j: usize,
    global: bool,
    mut nibble: impl FnMut(usize, usize) -> u32,
    mut emit: impl FnMut(u8),
) -> (usize, usize) {
    let mut state = State::H;
    loop {
        match state {
            State::H => {
                if i == 0 || j == 0 {
                    if global {
                        while i > 0 {
                            emit(OP_INSERT);
                            i -= 1;
                        }
                        while j > 0 {
                            emit(OP_DELETE);
                            j -= 1;
                        }
                    }
                    break;
                }
                let b = nibble(i, j) & (BIT_MOVE_UP | BIT_MOVE_LEFT);
                if b == BIT_MOVE_UP | BIT_MOVE_LEFT {
                    emit(OP_MATCH);
                    i -= 1;
                    j -= 1;
                } else if b == BIT_MOVE_UP {
                    state = State::Up;
                } else if b == BIT_MOVE_LEFT {
                    state = State::Left;
                } else {
                    break;
                }
            }
            State::Up => {
                let cont = nibble(i, j) & BIT_CONT_UP != 0;
                emit(OP_INSERT);
                i -= 1;
                if !cont {
                    state = State::H;
                }
            }
            State::Left => {
                let cont = nibble(i, j) & BIT_CONT_LEFT != 0;
                emit(OP_DELETE);
                j -= 1;
                if !cont {
                    state = State::H;
                }
            }
        }
    }
    (i, j)
}

/// Kernel 2 for pair `t`: walks back from the end cell that [`fill_pair`]
/// wrote, writes the ops (end to start, two bits each) and the start cell and
/// op count of result `t`.
///
/// # Safety
/// The duties of [`fill_pair`], which must have run for pair `t` with the
/// same parameters; and `p.ops` holds `ops_words(n, m)` words from
/// `ops_offset` that no other thread touches.
#[inline(always)]
pub unsafe fn walk_pair(p: &TracebackParams, t: u32) {
    let t = t as usize;
    let task = *p.tasks.add(t);
    let (_, _, _, m) = sequences(p, t);
    let bits = p.bits.add(task.bits_offset as usize) as *const u32;
    let r = p.results.add(t);
    let mut ops = Ops {
        words: p.ops.add(task.ops_offset as usize),
        word: 0,
        len: 0,
    };
    let global = p.mode == MODE_GLOBAL;
    let (i, j) = walk(
        (*r).query_end as usize,
        (*r).target_end as usize,
        global,
        |i, j| nibble(bits, m, i, j),
        |op| ops.push(op),
    );
    ops.flush();
    (*r).query_start = i as u32;
    (*r).target_start = j as u32;
    (*r).ops_len = ops.len;
}

/// The walk's op writer: sixteen two-bit ops per word, a word stored when
/// full (and the last one by [`Ops::flush`]).
struct Ops {
    words: *mut u32,
    word: u32,
    len: u32,
}

impl Ops {
    #[inline(always)]
    unsafe fn push(&mut self, op: u8) {
        let slot = self.len as usize % OPS_PER_WORD;
        self.word |= (op as u32) << (2 * slot);
        self.len += 1;
        if slot == OPS_PER_WORD - 1 {
            *self.words = self.word;
            self.words = self.words.add(1);
            self.word = 0;
        }
    }

    #[inline(always)]
    unsafe fn flush(&mut self) {
        if !(self.len as usize).is_multiple_of(OPS_PER_WORD) {
            *self.words = self.word;
        }
    }
}

/// GPU entry point of kernel 1: one thread per pair of the window.
///
/// # Safety
/// The duties of [`fill_pair`] for every `t < p.pairs`; any block size.
#[cfg(target_arch = "nvptx64")]
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn sw_traceback_fill_i32(p: TracebackParams) {
    let t = crate::warp::global_thread_index();
    if t < p.pairs {
        fill_pair(&p, t);
    }
}

/// GPU entry point of kernel 2: one thread per pair, after kernel 1.
///
/// # Safety
/// The duties of [`walk_pair`] for every `t < p.pairs`; any block size.
#[cfg(target_arch = "nvptx64")]
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn sw_traceback_walk(p: TracebackParams) {
    let t = crate::warp::global_thread_index();
    if t < p.pairs {
        walk_pair(&p, t);
    }
}
