//! Window planning, as gpu-pairAlign (Blazewicz 2011) does it: what one
//! pair needs and whether the kernels can take it ([`pair_bytes`],
//! [`pair_fits`]), the run's sequences as the kernels read them
//! ([`Residues`]), pairs grouped largest first into [`Window`]s that fit a
//! memory budget ([`plan_windows`]), and the result slots both runners fill:
//! from a window's kernel output ([`store_window`]) or from the checkpointed
//! traceback ([`align_beyond_limits`]).

use gpu_kernels::layout::{
    MODE_GLOBAL, MODE_LOCAL, MODE_SEMIGLOBAL, NUM_CODES, OPS_PER_WORD, PAD_CODE, PAD_SCORE,
    PairResult, PairTask, backtrack_words, ops_words,
};
use rayon::prelude::*;

use super::alignment::{Alignment, Op};
use super::checkpointed::align_checkpointed;
use crate::error::Result;
use crate::matrix::ScoreMatrix;
use crate::reference::Mode;
use crate::scoring::Scoring;

/// A progress report: called with the cells (`n · m` summed over the pairs)
/// just finished, after each window and each pair aligned by
/// [`super::checkpointed`]; from several threads at once.
pub type Progress<'a> = dyn Fn(u64) + Sync + 'a;

/// The largest window memory one pair may need (16 GiB: about 180,000 ×
/// 180,000 residues); larger pairs get no window and are aligned by
/// [`super::checkpointed`].
pub const MAX_PAIR_BYTES: usize = 16 << 30;

/// The kernels' score-range bound: `(n + m + 2) · (open + extend + max|s|)`
/// must stay below this (see [`gpu_kernels::traceback`], `# Score range`).
pub const SCORE_RANGE: i64 = 1 << 28;

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
/// assert_eq!(host::align::pair_bytes(8, 8), 32 + 72 + 4 + 24 + 24);
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
/// aligned by [`super::checkpointed`] instead.
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
    /// kernels' [`gpu_kernels::layout::TracebackParams::residues`]), at
    /// least one word.
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

    /// Cells (`n · m` summed over the pairs) of the window: what a
    /// progress report counts.
    pub fn cells(&self, residues: &Residues) -> u64 {
        self.tasks
            .iter()
            .map(|t| {
                residues.length(t.query as usize) as u64 * residues.length(t.target as usize) as u64
            })
            .sum()
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
/// gpu-pairAlign does, so a window's threads do similar work and the windows come
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
/// cannot take, with [`super::checkpointed`], in parallel, into `out`;
/// `progress` hears each pair's cells (`n · m`) as it is done.
pub fn align_beyond_limits<S: AsRef<[u8]> + Sync>(
    beyond: &[usize],
    sequences: &[S],
    pairs: &[(usize, usize)],
    mode: Mode,
    scoring: &Scoring,
    out: &mut [Option<Result<Alignment>>],
    progress: Option<&Progress>,
) {
    let done: Vec<(usize, Result<Alignment>)> = beyond
        .par_iter()
        .map(|&k| {
            let (q, t) = pairs[k];
            let (q, t) = (sequences[q].as_ref(), sequences[t].as_ref());
            let alignment = align_checkpointed(mode, q, t, scoring);
            if let Some(progress) = progress {
                progress(q.len() as u64 * t.len() as u64);
            }
            (k, alignment)
        })
        .collect();
    for (k, alignment) in done {
        out[k] = Some(alignment);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::align::test_scoring as scoring;

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
}
