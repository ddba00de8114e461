//! Alignments with traceback: takes pairs of encoded sequences, a [`Mode`]
//! and a [`Scoring`], returns each pair's optimal [`Alignment`] (score,
//! coordinates, CIGAR) computed by the traceback kernels' own bodies
//! ([`gpu_kernels::traceback`]) on the host's cores.
//!
//! The method is gpu-pairAlign's: Blazewicz, J., Frohmberg, W., Kierzynka,
//! M., Pesch, E. & Wojciechowski, P. (2011). *Protein alignment algorithms
//! with an efficient backtracking routine on multiple GPUs.* BMC
//! Bioinformatics 12:181 (seed 003). Kernel 1 fills the matrices and four
//! backtrack bits per cell, kernel 2 walks back; pairs are sorted by size
//! (largest first) and grouped into *windows* whose backtrack memory fits a
//! budget; a window is what one launch of each kernel computes.
//!
//! # Coordinates and ops
//! `query_start..=query_end` and `target_start..=target_end` are the
//! 1-based inclusive residue ranges the alignment covers. A range that covers
//! no residue has `start == end + 1` (the empty local alignment is
//! `1..=0` on both). Ops run from the start: [`Op::Match`] (CIGAR `M`, a
//! query residue aligned with a target residue; `=`/`X` in the extended
//! CIGAR), [`Op::Insertion`] (`I`, a query residue against a gap) and
//! [`Op::Deletion`] (`D`, a target residue against a gap) — SAM's convention
//! with the target as the reference.
//!
//! # Ties
//! One deterministic rule (see [`gpu_kernels::traceback`]): the end cell is
//! the first best cell in row-major order (local; semiglobal among the last
//! row and column), the corner for global; walking back, a diagonal move is
//! preferred to a gap in the target (`I`), which is preferred to a gap in the
//! query (`D`); a gap reopens rather than continues when both score the
//! same; a local alignment stops at the first cell whose H is 0.
//!
//! # Windows and limits
//! A pair of lengths n × m needs [`pair_bytes`] of window memory, mostly
//! `4 · ceil(n·m / 8)` bytes of backtrack bits. [`align_pairs`] fills windows
//! up to its budget; a pair larger than the budget runs alone in a window of
//! its own as long as it needs at most [`MAX_PAIR_BYTES`]; beyond that, or
//! beyond the i32 score range of the kernels ([`pair_fits`]), the pair is
//! aligned by [`crate::checkpointed`] on the CPU: `O(m·√n)` memory, i64
//! scores, the same cells, tie rules and walk, so the same alignment. Only a
//! score beyond `i32` is an error — never a crash, never a silent skip.

use gpu_kernels::layout::{
    MODE_GLOBAL, MODE_LOCAL, MODE_SEMIGLOBAL, NUM_CODES, OP_DELETE, OP_INSERT, OP_MATCH,
    OPS_PER_WORD, PAD_CODE, PAD_SCORE, PairResult, PairTask, TracebackParams, backtrack_words,
    ops_words,
};
use gpu_kernels::traceback::{fill_pair, walk_pair};
use rayon::prelude::*;

use crate::error::Result;
use crate::matrix::ScoreMatrix;
use crate::reference::Mode;
use crate::scoring::Scoring;

/// The traceback kernels' PTX entry points (kernel 1, kernel 2).
pub const KERNEL_SYMBOLS: [&str; 2] = ["sw_traceback_fill_i32", "sw_traceback_walk"];

/// Default window budget of [`align_pairs`] on the CPU: 1 GiB.
pub const DEFAULT_WINDOW_BYTES: usize = 1 << 30;

/// The largest window memory one pair may need (16 GiB: about 180,000 ×
/// 180,000 residues); larger pairs are refused with an error.
pub const MAX_PAIR_BYTES: usize = 16 << 30;

/// The kernels' score-range bound: `(n + m + 2) · (open + extend + max|s|)`
/// must stay below this (see [`gpu_kernels::traceback`], `# Score range`).
pub const SCORE_RANGE: i64 = 1 << 28;

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

/// One pairwise alignment; see the [module docs](self) for the coordinates.
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
    /// use host::traceback::{Alignment, Op};
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
/// each maximal run of k `I` (or k `D`) ops. For any alignment this module
/// returns it equals `alignment.score`.
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

/// The kernels' `mode` value.
pub fn kernel_mode(mode: Mode) -> u32 {
    match mode {
        Mode::Local => MODE_LOCAL,
        Mode::Global => MODE_GLOBAL,
        Mode::Semiglobal => MODE_SEMIGLOBAL,
    }
}

/// The substitution matrix as the kernels read it: `NUM_CODES²` `i8`, row =
/// query code, the pad code scoring [`PAD_SCORE`].
pub fn kernel_matrix(matrix: &ScoreMatrix) -> Vec<i8> {
    let mut out = vec![PAD_SCORE; NUM_CODES * NUM_CODES];
    for (a, row) in matrix.scores().iter().enumerate() {
        for (b, &s) in row.iter().enumerate() {
            out[a * NUM_CODES + b] = s;
        }
    }
    debug_assert_eq!(out[PAD_CODE as usize], PAD_SCORE);
    out
}

/// Window memory one n × m pair needs on its own: backtrack bits
/// (`4 · ceil(n / 8) · m` bytes), the row scratch (`8 · (m + 1)`), the op
/// buffer (`4 · ceil((n + m) / 16)`) and its task and result.
///
/// ```
/// assert_eq!(host::traceback::pair_bytes(8, 8), 32 + 72 + 4 + 24 + 24);
/// ```
pub fn pair_bytes(n: usize, m: usize) -> usize {
    4 * backtrack_words(n, m)
        + 8 * (m + 1)
        + 4 * ops_words(n, m)
        + size_of::<PairTask>()
        + size_of::<PairResult>()
}

/// Whether an n × m pair is within the kernels' limits: the i32 score
/// range ([`SCORE_RANGE`]) and [`MAX_PAIR_BYTES`]. A pair beyond them is
/// aligned by [`crate::checkpointed`] instead.
pub fn pair_fits(n: usize, m: usize, scoring: &Scoring) -> bool {
    PairLimits::new(scoring).fits(n, m)
}

/// [`pair_fits`] for many pairs: the scoring's largest step computed once.
struct PairLimits {
    /// Most one cell can change a score: `open + extend + max |s|`.
    largest_step: i64,
}

impl PairLimits {
    fn new(scoring: &Scoring) -> PairLimits {
        let largest_score = scoring
            .matrix
            .max_score()
            .abs()
            .max(scoring.matrix.min_score().abs());
        PairLimits {
            largest_step: i64::from(scoring.gaps.open + scoring.gaps.extend)
                + i64::from(largest_score),
        }
    }

    fn fits(&self, n: usize, m: usize) -> bool {
        (n as i64 + m as i64 + 2).saturating_mul(self.largest_step) < SCORE_RANGE
            && pair_bytes(n, m) <= MAX_PAIR_BYTES
    }
}

/// Every sequence of a run, concatenated as the kernels read them.
#[derive(Clone, Debug, Default)]
pub struct Residues {
    /// Residue codes of all sequences, back to back, four per word
    /// (little-endian), zero-padded to a whole word.
    pub words: Vec<u32>,
    /// Sequence `k` is residues `offsets[k] .. offsets[k + 1]`.
    pub offsets: Vec<u64>,
}

impl Residues {
    /// Concatenates `sequences`, packed four residues per word (the
    /// kernels' [`TracebackParams::residues`]), at least one word.
    pub fn new<S: AsRef<[u8]>>(sequences: &[S]) -> Residues {
        let mut codes = Vec::new();
        let mut offsets = vec![0u64];
        for s in sequences {
            codes.extend_from_slice(s.as_ref());
            offsets.push(codes.len() as u64);
        }
        let total = codes.len();
        codes.resize(total.div_ceil(4).max(1) * 4, 0);
        let words = codes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        Residues { words, offsets }
    }

    /// Length of sequence `k`.
    pub fn length(&self, k: usize) -> usize {
        (self.offsets[k + 1] - self.offsets[k]) as usize
    }

    /// Sequence `k`.
    pub fn sequence(&self, k: usize) -> &[u8] {
        let codes: &[u8] = bytemuck::cast_slice(&self.words);
        &codes[self.offsets[k] as usize..self.offsets[k + 1] as usize]
    }
}

/// One window: pairs and where their slices of the window's buffers start.
#[derive(Clone, Debug, Default)]
pub struct Window {
    /// Index into the caller's pair list of each task.
    pub pair_indices: Vec<usize>,
    /// One task per pair, offsets filled in.
    pub tasks: Vec<PairTask>,
    /// `u32` words of backtrack bits of the whole window.
    pub bits_words: usize,
    /// Longest target of the window (the row scratch has `widest + 1`
    /// entries per pair, interleaved by pair).
    pub widest: usize,
    /// Op words of the whole window.
    pub ops_words: usize,
}

impl Window {
    /// Room for `pairs` more pairs.
    fn reserve(&mut self, pairs: usize) {
        self.pair_indices.reserve(pairs);
        self.tasks.reserve(pairs);
    }

    /// `[H, F]` entries of row scratch of the whole window.
    pub fn row_entries(&self) -> usize {
        (self.widest + 1) * self.tasks.len()
    }

    /// Window memory in bytes.
    pub fn bytes(&self) -> usize {
        Window::bytes_of(
            self.tasks.len(),
            self.bits_words,
            self.widest,
            self.ops_words,
        )
    }

    /// Window memory in bytes once an n × m pair is added.
    fn bytes_with(&self, n: usize, m: usize) -> usize {
        Window::bytes_of(
            self.tasks.len() + 1,
            self.bits_words + backtrack_words(n, m),
            self.widest.max(m),
            self.ops_words + ops_words(n, m),
        )
    }

    fn bytes_of(pairs: usize, bits_words: usize, widest: usize, ops_words: usize) -> usize {
        4 * bits_words
            + 8 * (widest + 1) * pairs
            + 4 * ops_words
            + pairs * (size_of::<PairTask>() + size_of::<PairResult>())
    }

    fn push(&mut self, index: usize, query: u32, target: u32, n: usize, m: usize) {
        self.pair_indices.push(index);
        self.tasks.push(PairTask {
            query,
            target,
            bits_offset: self.bits_words as u64,
            ops_offset: self.ops_words as u64,
        });
        self.bits_words += backtrack_words(n, m);
        self.widest = self.widest.max(m);
        self.ops_words += ops_words(n, m);
    }
}

/// Groups `pairs` (indices into `residues`) into windows of at most
/// `budget` bytes and `max_pairs` pairs, largest pair (by cells) first as
/// seed 003 does, so a window's threads do similar work and the windows come
/// in longest-processing-time-first order. A pair over the budget gets a
/// window of its own; a pair beyond the kernels' limits ([`pair_fits`])
/// gets no window and is listed (by pair index) in the second list.
///
/// # Panics
/// With more than `u32::MAX` pairs or sequences (the kernels number them in
/// `u32`s; `warpsw` refuses such runs first).
pub fn plan_windows(
    residues: &Residues,
    pairs: &[(usize, usize)],
    scoring: &Scoring,
    budget: usize,
    max_pairs: usize,
) -> (Vec<Window>, Vec<usize>) {
    assert!(
        pairs.len() <= u32::MAX as usize && residues.offsets.len() <= u32::MAX as usize,
        "plan_windows numbers pairs and sequences in u32"
    );
    let size = |&(q, t): &(usize, usize)| (residues.length(q), residues.length(t));
    // One u128 key per pair, computed once: cells descending, then n + m
    // descending, then the pair index, which makes every key distinct, so
    // the unstable parallel sort gives one deterministic order.
    let mut order: Vec<u128> = pairs
        .par_iter()
        .enumerate()
        .map(|(k, pair)| {
            let (n, m) = size(pair);
            let cells = u64::MAX - (n as u64).saturating_mul(m as u64);
            let span = u32::MAX - u32::try_from(n + m).unwrap_or(u32::MAX);
            (u128::from(cells) << 64) | (u128::from(span) << 32) | k as u128
        })
        .collect();
    order.par_sort_unstable();
    let limits = PairLimits::new(scoring);
    let mut windows = Vec::new();
    let mut beyond = Vec::new();
    let mut current = Window::default();
    // The pairs in that order, gathered in parallel: the loop below then
    // reads them one after another instead of at random (8.0 M pairs: the
    // loop took 0.5-0.9 s on the dev VM reading at random, 0.15-0.2 s so).
    // (Pair index, query, target) as the kernels' u32s: 12 bytes a pair.
    let sorted: Vec<[u32; 3]> = order
        .par_iter()
        .map(|&key| {
            let k = (key & u128::from(u32::MAX)) as usize;
            [k as u32, pairs[k].0 as u32, pairs[k].1 as u32]
        })
        .collect();
    drop(order);
    for [k, query, target] in sorted {
        let k = k as usize;
        let (n, m) = size(&(query as usize, target as usize));
        if !limits.fits(n, m) {
            beyond.push(k);
            continue;
        }
        let full = current.tasks.len() >= max_pairs.max(1) || current.bytes_with(n, m) > budget;
        if full && !current.tasks.is_empty() {
            windows.push(std::mem::take(&mut current));
        }
        if current.tasks.is_empty() {
            // The window's first pair is its largest: at least this many fit.
            let fit = budget / pair_bytes(n, m).max(1);
            current.reserve(fit.clamp(1, max_pairs.max(1)).min(pairs.len()));
        }
        current.push(k, query, target, n, m);
    }
    if !current.tasks.is_empty() {
        windows.push(current);
    }
    (windows, beyond)
}

/// Runs jobs `0..jobs` on `workers` workers (threads), each idle worker
/// taking the next job in order, and returns the jobs' results in job order.
///
/// With jobs sorted longest first, as [`plan_windows`] makes the windows,
/// this is Graham's longest-processing-time-first list schedule: seed 003's
/// task manager spreading windows over GPUs. `run(worker, job)` is called
/// once per job.
///
/// ```
/// let squares = host::traceback::run_lpt(5, 2, |_, job| job * job);
/// assert_eq!(squares, vec![0, 1, 4, 9, 16]);
/// ```
pub fn run_lpt<R: Send>(
    jobs: usize,
    workers: usize,
    run: impl Fn(usize, usize) -> R + Sync,
) -> Vec<R> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results: Vec<std::sync::Mutex<Option<R>>> =
        (0..jobs).map(|_| std::sync::Mutex::new(None)).collect();
    std::thread::scope(|scope| {
        for worker in 0..workers.max(1) {
            let (next, results, run) = (&next, &results, &run);
            scope.spawn(move || {
                loop {
                    let job = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    if job >= jobs {
                        break;
                    }
                    let result = run(worker, job);
                    *results[job].lock().unwrap_or_else(|p| p.into_inner()) = Some(result);
                }
            });
        }
    });
    results
        .into_iter()
        .map(|r| {
            r.into_inner()
                .unwrap_or_else(|p| p.into_inner())
                .expect("every job ran")
        })
        .collect()
}

/// The kernels' outputs for one window, before they become [`Alignment`]s.
pub struct WindowOutput {
    /// One result per task.
    pub results: Vec<PairResult>,
    /// The window's op buffer (see `TracebackParams::ops`).
    pub ops: Vec<u32>,
}

/// Turns every task of `window` into its pair's [`Alignment`], stored at
/// the pair's position in `out` (CPU and GPU windows alike).
pub fn store_window(
    window: &Window,
    output: &WindowOutput,
    pairs: &[(usize, usize)],
    residues: &Residues,
    out: &mut [Option<Result<Alignment>>],
) {
    let done: Vec<(usize, Alignment)> = window
        .pair_indices
        .par_iter()
        .enumerate()
        .map(|(slot, &k)| {
            let (q, t) = pairs[k];
            let alignment = finish(
                window,
                output,
                slot,
                residues.sequence(q),
                residues.sequence(t),
            );
            (k, alignment)
        })
        .collect();
    for (k, alignment) in done {
        out[k] = Some(Ok(alignment));
    }
}

/// Turns task `k`'s kernel output into an [`Alignment`].
pub fn finish(
    window: &Window,
    output: &WindowOutput,
    k: usize,
    query: &[u8],
    target: &[u8],
) -> Alignment {
    let r = output.results[k];
    let words = &output.ops[window.tasks[k].ops_offset as usize..];
    // The kernel wrote the ops from the end of the alignment to its start.
    let ops: Vec<Op> = (0..r.ops_len as usize)
        .rev()
        .map(|k| Op::from_code((words[k / OPS_PER_WORD] >> (2 * (k % OPS_PER_WORD)) & 3) as u8))
        .collect();
    Alignment::from_path(
        r.score,
        (r.query_start as usize, r.target_start as usize),
        (r.query_end as usize, r.target_end as usize),
        ops,
        query,
        target,
    )
}

/// A parameter block shared by the emulated threads of one launch: each
/// thread writes only its own pair's slices (the kernels' `# Safety`).
struct SharedParams(TracebackParams);
// SAFETY: the threads of one emulated launch touch disjoint memory.
unsafe impl Sync for SharedParams {}

impl SharedParams {
    /// The block (a method, so closures capture the `Sync` wrapper).
    fn get(&self) -> &TracebackParams {
        &self.0
    }
}

/// Runs kernel 1 then kernel 2 over `window` on the host's cores, as the
/// two launches would on the GPU (same kernel bodies and buffers), except
/// that kernel 1 runs each pair as a launch of one with a row scratch of its
/// own: the GPU layout interleaves the pairs' rows (`j * pairs + t`, so that
/// a warp's accesses coalesce), which on a CPU core would make every row
/// access a cache miss.
pub fn run_window_cpu(
    residues: &Residues,
    matrix: &[i8],
    window: &Window,
    mode: Mode,
    scoring: &Scoring,
) -> WindowOutput {
    assert_eq!(matrix.len(), NUM_CODES * NUM_CODES);
    let mut bits = vec![0u32; window.bits_words];
    let mut ops = vec![0u32; window.ops_words];
    let mut results = vec![PairResult::default(); window.tasks.len()];
    let params = SharedParams(TracebackParams {
        residues: residues.words.as_ptr(),
        offsets: residues.offsets.as_ptr(),
        matrix: matrix.as_ptr(),
        tasks: window.tasks.as_ptr(),
        results: results.as_mut_ptr(),
        bits: bits.as_mut_ptr(),
        rows: std::ptr::null_mut(),
        ops: ops.as_mut_ptr(),
        pairs: window.tasks.len() as u32,
        mode: kernel_mode(mode),
        gaps: scoring.gaps.kernel_gaps(),
    });
    let pairs = window.tasks.len();
    (0..pairs).into_par_iter().for_each_init(
        || vec![[0i32; 2]; window.widest + 1],
        |scratch, t| {
            let one = TracebackParams {
                tasks: params.get().tasks.wrapping_add(t),
                results: params.get().results.wrapping_add(t),
                rows: scratch.as_mut_ptr(),
                pairs: 1,
                ..*params.get()
            };
            // SAFETY: the window's tasks were planned by `plan_windows` over
            // these residues (offsets in bounds, bits and ops slices disjoint
            // and sized by `backtrack_words` and `n + m`), every pair passed
            // `pair_fits`, the matrix has NUM_CODES² entries; `one` is a
            // launch of the single pair `t` (its task and result), whose row
            // scratch holds `widest + 1 >= m + 1` entries of this thread.
            unsafe { fill_pair(&one, 0) }
        },
    );
    // SAFETY: as above, after kernel 1 finished for every pair; the walk
    // reads no row scratch.
    (0..pairs as u32)
        .into_par_iter()
        .for_each(|t| unsafe { walk_pair(params.get(), t) });
    WindowOutput { results, ops }
}

/// Aligns every pair `(q, t)` of `pairs` (indices into `sequences`) in
/// `mode` on the CPU with windows of at most `budget` bytes; results in the
/// order of `pairs`. A pair beyond the kernels' limits ([`pair_fits`]) is
/// aligned by [`crate::checkpointed`]; only a score beyond `i32` is an error.
pub fn align_pairs<S: AsRef<[u8]> + Sync>(
    sequences: &[S],
    pairs: &[(usize, usize)],
    mode: Mode,
    scoring: &Scoring,
    budget: usize,
) -> Vec<Result<Alignment>> {
    let residues = Residues::new(sequences);
    let matrix = kernel_matrix(&scoring.matrix);
    let (windows, beyond) = plan_windows(&residues, pairs, scoring, budget, usize::MAX);
    let mut out = result_slots(pairs.len());
    align_beyond_limits(&beyond, sequences, pairs, mode, scoring, &mut out);
    for window in &windows {
        let output = run_window_cpu(&residues, &matrix, window, mode, scoring);
        store_window(window, &output, pairs, &residues, &mut out);
    }
    filled(out)
}

/// One empty slot per pair, for [`store_window`] and
/// [`align_beyond_limits`] to fill. Made in parallel, as [`filled`] empties
/// them: for millions of pairs the slots take hundreds of megabytes, which
/// one thread takes a good part of a second to write.
pub fn result_slots(pairs: usize) -> Vec<Option<Result<Alignment>>> {
    (0..pairs).into_par_iter().map(|_| None).collect()
}

/// The results in the slots of [`result_slots`], every one of them filled.
pub fn filled(slots: Vec<Option<Result<Alignment>>>) -> Vec<Result<Alignment>> {
    slots
        .into_par_iter()
        .map(|r| r.expect("every pair is planned or refused"))
        .collect()
}

/// Aligns the pairs `beyond` (indices into `pairs`), which the kernels
/// cannot take, with [`crate::checkpointed`], in parallel, into `out`.
pub fn align_beyond_limits<S: AsRef<[u8]> + Sync>(
    beyond: &[usize],
    sequences: &[S],
    pairs: &[(usize, usize)],
    mode: Mode,
    scoring: &Scoring,
    out: &mut [Option<Result<Alignment>>],
) {
    let done: Vec<(usize, Result<Alignment>)> = beyond
        .par_iter()
        .map(|&k| {
            let (q, t) = pairs[k];
            let (q, t) = (sequences[q].as_ref(), sequences[t].as_ref());
            (
                k,
                crate::checkpointed::align_checkpointed(mode, q, t, scoring),
            )
        })
        .collect();
    for (k, alignment) in done {
        out[k] = Some(alignment);
    }
}

/// The optimal alignment of `query` with `target` in `mode`, by the
/// traceback kernels' bodies on the CPU.
///
/// ```
/// use host::alphabet::encode_all;
/// use host::matrix::ScoreMatrix;
/// use host::reference::Mode;
/// use host::scoring::{GapPenalty, Scoring};
/// let s = Scoring { matrix: ScoreMatrix::by_name("blosum50").unwrap(),
///                   gaps: GapPenalty::new(0, 8).unwrap() };
/// let (q, t) = (encode_all(b"HEAGAWGHEE").unwrap(), encode_all(b"PAWHEAE").unwrap());
/// let a = host::traceback::align(Mode::Local, &q, &t, &s).unwrap();
/// assert_eq!((a.score, a.cigar().as_str()), (28, "2M1I2M"));
/// ```
///
/// # Errors
/// [`crate::error::Error::InvalidArgument`] when the score does not fit in
/// an `i32`.
pub fn align(mode: Mode, query: &[u8], target: &[u8], scoring: &Scoring) -> Result<Alignment> {
    align_pairs(&[query, target], &[(0, 1)], mode, scoring, 0)
        .pop()
        .expect("one pair in, one result out")
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::alphabet::encode_all;
    use crate::error::Error;
    use crate::reference::score;
    use crate::scoring::GapPenalty;
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    fn scoring(matrix: &str, open: i32, extend: i32) -> Scoring {
        Scoring {
            matrix: ScoreMatrix::by_name(matrix).unwrap(),
            gaps: GapPenalty::new(open, extend).unwrap(),
        }
    }

    #[test]
    fn lpt_runs_every_job_once_and_each_worker_takes_jobs_in_order() {
        use std::sync::Mutex;
        use std::time::Duration;
        // Windows largest first: job k takes (12 - k) ms.
        let taken: Mutex<Vec<(usize, usize)>> = Mutex::new(Vec::new());
        let got = run_lpt(12, 3, |worker, job| {
            std::thread::sleep(Duration::from_millis(12 - job as u64));
            taken.lock().unwrap().push((worker, job));
            job
        });
        assert_eq!(got, (0..12).collect::<Vec<_>>());
        let taken = taken.into_inner().unwrap();
        assert_eq!(taken.len(), 12);
        for worker in 0..3 {
            let jobs: Vec<usize> = taken
                .iter()
                .filter(|t| t.0 == worker)
                .map(|t| t.1)
                .collect();
            assert!(
                jobs.windows(2).all(|p| p[0] < p[1]),
                "worker {worker}: {jobs:?}"
            );
        }
        // No workers still runs everything (on one thread); no jobs is fine.
        assert_eq!(run_lpt(3, 0, |_, j| j), vec![0, 1, 2]);
        assert!(run_lpt(0, 4, |_, j| j).is_empty());
    }

    #[test]
    fn traceback_durbin_local_and_global() {
        // Durbin, Eddy, Krogh & Mitchison (1998), Figs. 2.5 and 2.6: BLOSUM50,
        // linear gap 8 (open 0, extend 8 here).
        let s = scoring("blosum50", 0, 8);
        let q = encode_all(b"HEAGAWGHEE").unwrap();
        let t = encode_all(b"PAWHEAE").unwrap();
        let local = align(Mode::Local, &q, &t, &s).unwrap();
        assert_eq!(local.score, 28);
        // AWGHE / AW-HE
        assert_eq!(local.cigar(), "2M1I2M");
        assert_eq!((local.query_start, local.query_end), (5, 9));
        assert_eq!((local.target_start, local.target_end), (2, 5));
        let global = align(Mode::Global, &q, &t, &s).unwrap();
        assert_eq!(global.score, 1);
        check_alignment(&global, Mode::Global, &q, &t, &s).unwrap();
        // HEAGAWGHE-E / --P-AW-HEAE
        assert_eq!(global.cigar(), "2I1M1I2M1I2M1D1M");
    }

    #[test]
    fn traceback_random_pairs_match_the_reference() {
        let mut rng = StdRng::seed_from_u64(6);
        for round in 0..300 {
            let alphabet = if round % 3 == 0 { 3 } else { 20 };
            let n = rng.random_range(0..40);
            let m = rng.random_range(0..40);
            let q: Vec<u8> = (0..n).map(|_| rng.random_range(0..alphabet)).collect();
            let t: Vec<u8> = (0..m).map(|_| rng.random_range(0..alphabet)).collect();
            let (open, extend) = [(11, 1), (0, 1), (20, 5), (1, 1)][round % 4];
            let s = scoring("blosum62", open, extend);
            for mode in Mode::ALL {
                let a = align(mode, &q, &t, &s).unwrap();
                assert_eq!(a.score, score(mode, &q, &t, &s), "{mode} {q:?} {t:?}");
                check_alignment(&a, mode, &q, &t, &s)
                    .unwrap_or_else(|e| panic!("{mode} {q:?} {t:?}: {e}"));
            }
        }
    }

    #[test]
    fn traceback_windows_respect_the_budget_and_cover_every_pair() {
        let seqs: Vec<Vec<u8>> = (1..30).map(|k| vec![0u8; k * 7]).collect();
        let pairs: Vec<(usize, usize)> =
            (0..29).flat_map(|a| (a..29).map(move |b| (a, b))).collect();
        let residues = Residues::new(&seqs);
        let s = scoring("blosum62", 11, 1);
        let budget = 64 << 10;
        let (windows, beyond) = plan_windows(&residues, &pairs, &s, budget, 50);
        assert!(beyond.is_empty());
        let mut seen: Vec<usize> = windows
            .iter()
            .flat_map(|w| w.pair_indices.clone())
            .collect();
        seen.sort();
        assert_eq!(seen, (0..pairs.len()).collect::<Vec<_>>());
        for w in &windows {
            assert!(w.tasks.len() <= 50);
            assert!(w.bytes() <= budget || w.tasks.len() == 1);
        }
    }

    #[test]
    fn pairs_beyond_the_kernels_score_range_take_the_checkpointed_traceback() {
        let s = scoring("blosum62", 60_000, 5_000);
        let long = vec![0u8; 5000];
        let seqs = [&long[..], &long[..10]];
        let pairs = [(0, 0), (0, 1), (1, 1)];
        assert!(!pair_fits(5000, 5000, &s));
        let results = align_pairs(&seqs, &pairs, Mode::Global, &s, 1 << 20);
        for (&(a, b), result) in pairs.iter().zip(&results) {
            let alignment = result.as_ref().unwrap();
            assert_eq!(alignment.score, score(Mode::Global, seqs[a], seqs[b], &s));
            check_alignment(alignment, Mode::Global, seqs[a], seqs[b], &s).unwrap();
        }
        // A score beyond i32 is the one error left.
        let huge = scoring("blosum62", 0, 65_536);
        let results = align_pairs(
            &[&vec![0u8; 40_000][..], &[0u8][..]],
            &[(0, 1)],
            Mode::Global,
            &huge,
            1 << 20,
        );
        assert!(matches!(results[0], Err(Error::InvalidArgument(_))));
    }
}
