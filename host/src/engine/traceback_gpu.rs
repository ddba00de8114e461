//! The traceback kernels on a GPU: takes sequences, pairs, a mode and a
//! scoring, returns each pair's [`Alignment`] computed by
//! `sw_traceback_fill_i32` then `sw_traceback_walk` (seed 003: Blazewicz,
//! Frohmberg, Kierzynka, Pesch & Wojciechowski (2011), *Protein alignment
//! algorithms with an efficient backtracking routine on multiple GPUs*, BMC
//! Bioinformatics 12:181).
//!
//! The sequences and the matrix are uploaded once; the pairs are planned
//! into windows ([`plan_windows`]: largest first) whose buffers fit half of
//! the device's free memory (queried, not assumed); per window the tasks are
//! uploaded, kernel 1 and kernel 2 are launched in stream order and the
//! results and ops are read back. Kernel 1 writes every backtrack word, the
//! bit buffer is still zeroed per window so a stale word can never be read.

use std::time::Instant;

use cudarc::driver::{DevicePtr, LaunchConfig, PushKernelArg};
use gpu_kernels::layout::{PairResult, TracebackParams};

use super::gpu::{free_memory, gpu_error, kernels_module};
use crate::error::{Error, Result};
use crate::reference::Mode;
use crate::scoring::Scoring;
use crate::traceback::{
    Alignment, KERNEL_SYMBOLS, Residues, WindowOutput, kernel_matrix, kernel_mode, plan_windows,
    store_window,
};

/// Threads per block of both traceback kernels (the paper's 16 × 16).
const BLOCK: u32 = 256;

/// Most pairs per window (one launch of each kernel).
const MAX_WINDOW_PAIRS: usize = 1 << 20;

/// What [`align_pairs_gpu`] returns: the alignments, and where the time went.
pub struct GpuAlignments {
    /// One result per pair, in the order of the pairs.
    pub alignments: Vec<Result<Alignment>>,
    /// Windows (launches of each kernel).
    pub windows: usize,
    /// Seconds from each window's upload to its results on the host: both
    /// kernels and the transfers.
    pub gpu_seconds: f64,
    /// Of `gpu_seconds`, the part from the window's upload to the end of
    /// kernel 1 (the fill).
    pub fill_seconds: f64,
    /// Seconds turning kernel output into [`Alignment`]s on the host.
    pub host_seconds: f64,
}

/// Aligns every pair `(q, t)` of `pairs` (indices into `sequences`) on GPU
/// `ordinal`; results in the order of `pairs`, a pair beyond
/// [`crate::traceback::check_pair`]'s limits or the device's memory gets
/// its error.
pub fn align_pairs_gpu<S: AsRef<[u8]>>(
    ordinal: usize,
    sequences: &[S],
    pairs: &[(usize, usize)],
    mode: Mode,
    scoring: &Scoring,
) -> Result<GpuAlignments> {
    let stage = |s| gpu_error(ordinal, "", s);
    let residues = Residues::new(sequences);
    let matrix = kernel_matrix(&scoring.matrix);
    let (ctx, module) = kernels_module(ordinal, "")?;
    let stream = ctx.default_stream();
    let fill = module
        .load_function(KERNEL_SYMBOLS[0])
        .map_err(stage("loading the fill kernel"))?;
    let walk = module
        .load_function(KERNEL_SYMBOLS[1])
        .map_err(stage("loading the walk kernel"))?;
    // `Residues` keeps at least one word: the driver refuses empty uploads.
    let d_codes = stream
        .clone_htod(&residues.words)
        .map_err(stage("uploading sequences"))?;
    let d_offsets = stream
        .clone_htod(&residues.offsets)
        .map_err(stage("uploading sequences"))?;
    let d_matrix = stream
        .clone_htod(&matrix)
        .map_err(stage("uploading the matrix"))?;
    let budget = free_memory(ordinal)? / 2;
    let (windows, refused) = plan_windows(&residues, pairs, scoring, budget, MAX_WINDOW_PAIRS);

    let mut out: Vec<Option<Result<Alignment>>> = (0..pairs.len()).map(|_| None).collect();
    for (k, e) in refused {
        out[k] = Some(Err(e));
    }
    let (mut gpu_seconds, mut fill_seconds, mut host_seconds) = (0.0, 0.0, 0.0);
    for window in &windows {
        let started = Instant::now();
        let n_pairs = window.tasks.len();
        if window.bytes() > budget {
            // A single pair larger than the device's window memory.
            let k = window.pair_indices[0];
            out[k] = Some(Err(Error::InvalidArgument(format!(
                "pair {k} needs {} MiB of backtrack memory; GPU {ordinal} has {} MiB for a window",
                window.bytes() >> 20,
                budget >> 20
            ))));
            continue;
        }
        let d_tasks = stream
            .clone_htod(&window.tasks)
            .map_err(stage("uploading a window"))?;
        let d_results = stream
            .alloc_zeros::<PairResult>(n_pairs)
            .map_err(stage("allocating a window"))?;
        let d_bits = stream
            .alloc_zeros::<u32>(window.bits_words.max(1))
            .map_err(stage("allocating a window"))?;
        let d_rows = stream
            .alloc_zeros::<i32>(2 * window.row_entries().max(1))
            .map_err(stage("allocating a window"))?;
        let d_ops = stream
            .alloc_zeros::<u32>(window.ops_words.max(1))
            .map_err(stage("allocating a window"))?;
        // The guards keep the buffers' stream tracking alive through both launches.
        let (codes_ptr, _a) = d_codes.device_ptr(&stream);
        let (offsets_ptr, _b) = d_offsets.device_ptr(&stream);
        let (matrix_ptr, _c) = d_matrix.device_ptr(&stream);
        let (tasks_ptr, _d) = d_tasks.device_ptr(&stream);
        let (results_ptr, _e) = d_results.device_ptr(&stream);
        let (bits_ptr, _f) = d_bits.device_ptr(&stream);
        let (rows_ptr, _g) = d_rows.device_ptr(&stream);
        let (ops_ptr, _h) = d_ops.device_ptr(&stream);
        let params = TracebackParams {
            residues: codes_ptr as *const u32,
            offsets: offsets_ptr as *const u64,
            matrix: matrix_ptr as *const i8,
            tasks: tasks_ptr as *const _,
            results: results_ptr as *mut PairResult,
            bits: bits_ptr as *mut u32,
            rows: rows_ptr as *mut [i32; 2],
            ops: ops_ptr as *mut u32,
            pairs: n_pairs as u32,
            mode: kernel_mode(mode),
            gaps: scoring.gaps.kernel_gaps(),
        };
        let cfg = LaunchConfig {
            grid_dim: ((n_pairs as u32).div_ceil(BLOCK), 1, 1),
            block_dim: (BLOCK, 1, 1),
            shared_mem_bytes: 0,
        };
        for (k, (function, name)) in [
            (&fill, "running the fill kernel"),
            (&walk, "running the walk kernel"),
        ]
        .into_iter()
        .enumerate()
        {
            if k == 1 {
                // Time the fill on its own (one extra wait per window).
                stream.synchronize().map_err(stage(name))?;
                fill_seconds += started.elapsed().as_secs_f64();
            }
            let mut launch = stream.launch_builder(function);
            launch.arg(&params);
            // SAFETY: the window was planned by `plan_windows` over the
            // uploaded residues: every task's offsets lie within the bits,
            // rows and ops buffers allocated above with the window's sizes,
            // slices are disjoint, every pair passed `check_pair`, the matrix
            // has NUM_CODES² entries; the buffers outlive both launches
            // (synchronised below) and the walk runs after the fill in stream
            // order.
            unsafe { launch.launch(cfg) }.map_err(stage(name))?;
        }
        drop((_a, _b, _c, _d, _e, _f, _g, _h));
        let output = WindowOutput {
            results: stream
                .clone_dtoh(&d_results)
                .map_err(stage("reading a window back"))?,
            ops: stream
                .clone_dtoh(&d_ops)
                .map_err(stage("reading a window back"))?,
        };
        stream.synchronize().map_err(stage("finishing a window"))?;
        let stored = Instant::now();
        gpu_seconds += (stored - started).as_secs_f64();
        store_window(window, &output, pairs, &residues, &mut out);
        host_seconds += stored.elapsed().as_secs_f64();
    }
    Ok(GpuAlignments {
        alignments: out
            .into_iter()
            .map(|r| r.expect("every pair is planned or refused"))
            .collect(),
        windows: windows.len(),
        gpu_seconds,
        fill_seconds,
        host_seconds,
    })
}
