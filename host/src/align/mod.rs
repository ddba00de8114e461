//! Alignments with traceback: takes pairs of encoded sequences, a [`Mode`]
//! and a [`Scoring`], returns each pair's optimal [`Alignment`] (score,
//! coordinates, CIGAR) computed by the traceback kernels
//! ([`gpu_kernels::traceback`]) on the GPUs or, with the same kernel bodies,
//! on the host's cores. [`align_pairs`] is the entry point: it places the
//! work and runs it.
//!
//! The method is gpu-pairAlign's: Blazewicz, J., Frohmberg, W., Kierzynka,
//! M., Pesch, E. & Wojciechowski, P. (2011). *Protein alignment algorithms
//! with an efficient backtracking routine on multiple GPUs.* BMC
//! Bioinformatics 12:181. Kernel 1 fills the matrices and four backtrack
//! bits per cell, kernel 2 walks back; pairs are sorted by size (largest
//! first) and grouped into *windows* whose backtrack memory fits a budget;
//! a window is what one launch of each kernel computes.
//!
//! # Shape
//! * [`alignment`]: [`Op`], [`Alignment`] (CIGAR, extended CIGAR, columns),
//!   [`rescore`] and [`check_alignment`], which do not trust the kernels.
//! * [`windows`]: the kernels' limits per pair, the window plan, the result
//!   slots both runners fill.
//! * [`cpu`]: the CPU runner (the kernels' bodies, window by window).
//! * [`gpu`]: the GPU runner (windows spread over the GPUs longest first,
//!   [`crate::schedule::run_lpt`]).
//! * [`checkpointed`]: the `O(s·√l)`-memory fallback for pairs beyond the
//!   kernels' limits.
//! * [`output`]: TSV, JSON and pairwise text.
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
//! `4 · ceil(n·m / 8)` bytes of backtrack bits. [`plan_windows`] fills windows
//! up to the runner's budget; a pair larger than the budget runs alone in a
//! window of its own as long as it needs at most [`MAX_PAIR_BYTES`] (on
//! the CPU, [`cpu::MAX_WINDOW_BYTES`]); beyond that, or beyond the i32
//! score range of the kernels ([`pair_fits`]), the pair is aligned by
//! [`checkpointed`] on the CPU: `O(s·√l)` memory for lengths `s ≤ l`, i64
//! scores, the same cells, tie rules and walk, so the same alignment. Only a
//! score beyond `i32` is an error — never a crash, never a silent skip.

pub mod alignment;
pub mod checkpointed;
pub mod cpu;
pub mod gpu;
pub mod output;
pub mod wavefront;
pub mod windows;

use std::time::Instant;

pub use alignment::{Alignment, Op, check_alignment, rescore};
pub use cpu::{DEFAULT_WINDOW_BYTES, align};
pub use gpu::KERNEL_SYMBOLS;
pub use output::{AlignedPair, AlignmentFormat, write_alignments};
pub use windows::{MAX_PAIR_BYTES, Progress, SCORE_RANGE, pair_bytes, pair_fits, plan_windows};

pub use crate::reference::Mode;

use crate::engine::Placement;
use crate::engine::gpu::{MemoryCap, devices, selected_devices};
use crate::error::Result;
use crate::scoring::Scoring;

/// How [`align_pairs`] runs, beyond where.
#[derive(Clone, Copy)]
pub struct AlignOptions<'a> {
    /// The GPU memory the windows may use (`--gpu-memory`).
    pub memory: MemoryCap,
    /// Window budget on the CPU, in bytes.
    pub window_bytes: usize,
    /// Hears the cells done after each window (see [`Progress`]).
    pub progress: Option<&'a Progress<'a>>,
}

impl Default for AlignOptions<'_> {
    fn default() -> Self {
        AlignOptions {
            memory: MemoryCap::UNLIMITED,
            window_bytes: DEFAULT_WINDOW_BYTES,
            progress: None,
        }
    }
}

/// What [`align_pairs`] returns.
pub struct AlignRun {
    /// One result per pair, in the order of the pairs.
    pub alignments: Vec<Result<Alignment>>,
    /// Where the pairs were aligned, in one line: `CPU`, or the GPUs with
    /// where their time went.
    pub engine: String,
    /// How the run differs from what was asked, if it does (say it once to
    /// the user): `Auto` found no GPU and used the CPU.
    pub notice: Option<String>,
    /// Seconds aligning, from after the devices were chosen.
    pub seconds: f64,
}

/// Aligns every pair `(q, t)` of `pairs` (indices into `sequences`) in
/// `mode` where `placement` says: the GPUs ([`gpu::align_pairs`]), or the
/// CPU ([`cpu::align_pairs`]). [`Placement::Auto`] takes the GPUs if the
/// CUDA driver loads and lists one, else the CPU, and says so in
/// [`AlignRun::notice`]. Results come in the order of `pairs`; a pair whose
/// score does not fit in `i32` is an error in its own slot.
///
/// ```
/// use host::align::{AlignOptions, Mode, align_pairs};
/// use host::alphabet::encode_all;
/// use host::engine::Placement;
/// use host::matrix::ScoreMatrix;
/// use host::scoring::{GapPenalty, Scoring};
/// let s = Scoring { matrix: ScoreMatrix::by_name("blosum50").unwrap(),
///                   gaps: GapPenalty::new(0, 8).unwrap() };
/// let seqs = [encode_all(b"HEAGAWGHEE").unwrap(), encode_all(b"PAWHEAE").unwrap()];
/// let run = align_pairs(Placement::Cpu, &seqs, &[(0, 1)], Mode::Local, &s,
///                       &AlignOptions::default()).unwrap();
/// assert_eq!(run.engine, "CPU");
/// assert_eq!(run.alignments[0].as_ref().unwrap().cigar(), "2M1I2M");
/// ```
///
/// # Errors
/// The GPUs' errors: a listed GPU that does not exist, no driver or GPU for
/// [`Placement::Gpus`], a driver error during the run.
pub fn align_pairs<S: AsRef<[u8]> + Sync>(
    placement: Placement,
    sequences: &[S],
    pairs: &[(usize, usize)],
    mode: Mode,
    scoring: &Scoring,
    options: &AlignOptions<'_>,
) -> Result<AlignRun> {
    let ordinals = |wanted: Option<Vec<usize>>| -> Result<Vec<usize>> {
        Ok(selected_devices(wanted.as_deref())?
            .iter()
            .map(|d| d.ordinal)
            .collect())
    };
    let (gpus, notice) = match placement {
        Placement::Cpu => (None, None),
        Placement::Gpus(wanted) => (Some(ordinals(wanted)?), None),
        Placement::Auto(wanted) => match devices() {
            Ok(_) => (Some(ordinals(wanted)?), None),
            Err(why) => (None, Some(format!("{why}; using the CPU"))),
        },
    };
    let started = Instant::now();
    let (alignments, engine) = match gpus {
        Some(ordinals) => {
            let run = gpu::align_pairs(
                &ordinals,
                sequences,
                pairs,
                mode,
                scoring,
                options.memory,
                options.progress,
            )?;
            let engine = format!(
                "GPU {ordinals:?}; {:.3} s setup ({:.3} s planning the windows), {} windows, {:.3} s in kernels and \
                 transfers ({:.3} s to the end of the fill), {:.3} s building alignments beside them",
                run.setup_seconds,
                run.plan_seconds,
                run.windows,
                run.gpu_seconds,
                run.fill_seconds,
                run.host_seconds
            );
            (run.alignments, engine)
        }
        None => {
            let alignments = cpu::align_pairs(
                sequences,
                pairs,
                mode,
                scoring,
                options.window_bytes,
                options.progress,
            );
            (alignments, "CPU".to_string())
        }
    };
    Ok(AlignRun {
        alignments,
        engine,
        notice,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// Scoring by the built-in `matrix` with `open`/`extend`, for the runners'
/// unit tests.
#[cfg(test)]
fn test_scoring(matrix: &str, open: i32, extend: i32) -> Scoring {
    Scoring {
        matrix: crate::matrix::ScoreMatrix::by_name(matrix).unwrap(),
        gaps: crate::scoring::GapPenalty::new(open, extend).unwrap(),
    }
}
