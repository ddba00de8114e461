//! The CPU runner: the traceback kernels' own bodies
//! ([`gpu_kernels::traceback`]) over each window on the host's cores
//! ([`run_window_cpu`]), one window after another ([`align_pairs`]); a
//! local pair larger than a core's share of the work first, on every core
//! ([`super::wavefront`]).

use gpu_kernels::layout::{NUM_CODES, PairResult, TracebackParams};
use gpu_kernels::traceback::{fill_pair, walk_pair};
use rayon::prelude::*;

use super::alignment::Alignment;
use super::wavefront::{WAVEFRONT_MIN_CELLS, WAVEFRONT_MIN_THREADS, align_local_wavefront};
use super::windows::{
    Progress, Residues, Window, WindowOutput, align_beyond_limits, filled, kernel_matrix,
    kernel_mode, pair_bytes, pair_fits, plan_windows, result_slots, store_window,
};
use crate::error::Result;
use crate::reference::Mode;
use crate::scoring::Scoring;

/// Default window budget of [`align_pairs`] on the CPU: 1 GiB.
pub const DEFAULT_WINDOW_BYTES: usize = 1 << 30;

/// The largest window [`align_pairs`] runs, whatever its budget: a pair
/// needing more (a 96-residue query against a 50-million-residue sequence
/// needs 2.8 GB) is aligned by [`super::checkpointed`] in a few megabytes.
pub const MAX_WINDOW_BYTES: usize = 1 << 30;

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
/// order of `pairs`. A pair beyond the kernels' limits
/// ([`super::pair_fits`]) or larger than [`MAX_WINDOW_BYTES`] is aligned by
/// [`super::checkpointed`]; only a score
/// beyond `i32` is an error. `progress`, if given, hears the cells (`n · m`
/// summed) of each window, and of each pair beyond the limits, once done.
pub fn align_pairs<S: AsRef<[u8]> + Sync>(
    sequences: &[S],
    pairs: &[(usize, usize)],
    mode: Mode,
    scoring: &Scoring,
    budget: usize,
    progress: Option<&Progress>,
) -> Vec<Result<Alignment>> {
    // A local pair larger than a core's share of all the cells would run
    // alone at the end, one core busy: such pairs (a search's longest hits)
    // go one after another, each on every core ([`super::wavefront`]); the
    // rest in windows, a pair a core, which per core is faster.
    let size = |k: usize| {
        let (q, t) = pairs[k];
        (sequences[q].as_ref().len(), sequences[t].as_ref().len())
    };
    let cells = |(n, m): (usize, usize)| (n as u64).saturating_mul(m as u64);
    let total: u64 = (0..pairs.len()).map(|k| cells(size(k))).sum();
    let threads = rayon::current_num_threads();
    let share = total / threads.max(1) as u64;
    let (long, rest): (Vec<usize>, Vec<usize>) = (0..pairs.len()).partition(|&k| {
        let (n, m) = size(k);
        mode == Mode::Local
            && threads >= WAVEFRONT_MIN_THREADS
            && cells((n, m)) >= WAVEFRONT_MIN_CELLS.max(share)
            && pair_fits(n, m, scoring)
            && pair_bytes(n, m) <= MAX_WINDOW_BYTES
    });
    if long.is_empty() {
        return align_in_windows(sequences, pairs, mode, scoring, budget, progress);
    }
    let mut out = result_slots(pairs.len());
    for &k in &long {
        let (q, t) = pairs[k];
        let (q, t) = (sequences[q].as_ref(), sequences[t].as_ref());
        out[k] = Some(Ok(align_local_wavefront(q, t, scoring)));
        if let Some(progress) = progress {
            progress(q.len() as u64 * t.len() as u64);
        }
    }
    let rest_pairs: Vec<(usize, usize)> = rest.iter().map(|&k| pairs[k]).collect();
    let aligned = align_in_windows(sequences, &rest_pairs, mode, scoring, budget, progress);
    for (k, alignment) in rest.into_iter().zip(aligned) {
        out[k] = Some(alignment);
    }
    filled(out)
}

/// [`align_pairs`] in windows: each window's pairs side by side, a pair a
/// core.
fn align_in_windows<S: AsRef<[u8]> + Sync>(
    sequences: &[S],
    pairs: &[(usize, usize)],
    mode: Mode,
    scoring: &Scoring,
    budget: usize,
    progress: Option<&Progress>,
) -> Vec<Result<Alignment>> {
    let residues = Residues::new(sequences);
    let matrix = kernel_matrix(&scoring.matrix);
    let budget = budget.min(MAX_WINDOW_BYTES);
    let (windows, beyond_limits) = plan_windows(&residues, pairs, scoring, budget, usize::MAX);
    let mut out = result_slots(pairs.len());
    // A pair larger than the largest window (alone in a window beyond the
    // budget) takes the checkpointed traceback too: twice the cells, but
    // memory along the shorter sequence only, not `n · m / 2` bytes.
    let (large, windows): (Vec<Window>, Vec<Window>) = windows
        .into_iter()
        .partition(|w| w.bytes() > MAX_WINDOW_BYTES);
    let beyond: Vec<usize> = beyond_limits
        .into_iter()
        .chain(large.iter().flat_map(|w| w.pair_indices.iter().copied()))
        .collect();
    align_beyond_limits(&beyond, sequences, pairs, mode, scoring, &mut out, progress);
    for window in &windows {
        let output = run_window_cpu(&residues, &matrix, window, mode, scoring);
        store_window(window, &output, pairs, &residues, &mut out);
        if let Some(progress) = progress {
            progress(window.cells(&residues));
        }
    }
    filled(out)
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
/// let a = host::align::align(Mode::Local, &q, &t, &s).unwrap();
/// assert_eq!((a.score, a.cigar().as_str()), (28, "2M1I2M"));
/// ```
///
/// # Errors
/// [`crate::error::Error::InvalidArgument`] when the score does not fit in
/// an `i32`.
pub fn align(mode: Mode, query: &[u8], target: &[u8], scoring: &Scoring) -> Result<Alignment> {
    align_pairs(&[query, target], &[(0, 1)], mode, scoring, 0, None)
        .pop()
        .expect("one pair in, one result out")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::align::{check_alignment, pair_fits, test_scoring as scoring};
    use crate::alphabet::encode_all;
    use crate::error::Error;
    use crate::reference::score;
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    #[test]
    fn a_long_local_pair_on_every_core_equals_its_window_alignment() {
        // 4,200 × 4,000 cells, most of the call's: the wavefront's, with
        // enough threads; a stretch of the query in the target makes a
        // long path.
        let mut rng = StdRng::seed_from_u64(5);
        let q: Vec<u8> = (0..4200).map(|_| rng.random_range(0..20)).collect();
        let mut t: Vec<u8> = (0..4000).map(|_| rng.random_range(0..20)).collect();
        t[1000..3000].copy_from_slice(&q[2000..4000]);
        let short: Vec<u8> = q[..50].to_vec();
        let seqs = [q, t, short];
        let pairs = [(0, 1), (2, 1), (0, 2)];
        let s = scoring("blosum62", 11, 1);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(WAVEFRONT_MIN_THREADS)
            .build()
            .unwrap();
        let got = pool.install(|| align_pairs(&seqs, &pairs, Mode::Local, &s, 0, None));
        let want = align_in_windows(&seqs, &pairs, Mode::Local, &s, 0, None);
        assert_eq!(got.len(), 3);
        for (got, want) in got.into_iter().zip(want) {
            assert_eq!(got.unwrap(), want.unwrap());
        }
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
    fn pairs_beyond_the_kernels_score_range_take_the_checkpointed_traceback() {
        let s = scoring("blosum62", 60_000, 5_000);
        let long = vec![0u8; 5000];
        let seqs = [&long[..], &long[..10]];
        let pairs = [(0, 0), (0, 1), (1, 1)];
        assert!(!pair_fits(5000, 5000, &s));
        let results = align_pairs(&seqs, &pairs, Mode::Global, &s, 1 << 20, None);
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
            None,
        );
        assert!(matches!(results[0], Err(Error::InvalidArgument(_))));
    }

    #[test]
    fn progress_hears_every_cell_once_windows_and_checkpointed_pairs_alike() {
        use std::sync::atomic::{AtomicU64, Ordering};
        // Gaps this large put the 3000-residue pairs beyond the kernels'
        // score range, so both kinds of work report.
        let s = scoring("blosum62", 60_000, 5_000);
        let seqs: Vec<Vec<u8>> = [3000, 10, 17, 40, 3000]
            .iter()
            .map(|&n| (0..n).map(|k| (k % 20) as u8).collect())
            .collect();
        let pairs: Vec<(usize, usize)> = (0..5).flat_map(|a| (a..5).map(move |b| (a, b))).collect();
        assert!(
            pairs
                .iter()
                .any(|&(a, b)| !pair_fits(seqs[a].len(), seqs[b].len(), &s))
        );
        assert!(
            pairs
                .iter()
                .any(|&(a, b)| pair_fits(seqs[a].len(), seqs[b].len(), &s))
        );
        let want: u64 = pairs
            .iter()
            .map(|&(a, b)| seqs[a].len() as u64 * seqs[b].len() as u64)
            .sum();
        let (heard, calls) = (AtomicU64::new(0), AtomicU64::new(0));
        let progress = |cells: u64| {
            heard.fetch_add(cells, Ordering::Relaxed);
            calls.fetch_add(1, Ordering::Relaxed);
        };
        // A small budget: several windows.
        let results = align_pairs(&seqs, &pairs, Mode::Local, &s, 4 << 10, Some(&progress));
        assert!(results.iter().all(|r| r.is_ok()));
        assert_eq!(heard.into_inner(), want);
        assert!(calls.into_inner() > 2);
    }
}
