//! The GPU runner: the traceback kernels on one or several GPUs. Takes
//! sequences, pairs, a mode and a scoring, returns each pair's
//! [`Alignment`] computed by `sw_traceback_fill_i32` then
//! `sw_traceback_walk` (gpu-pairAlign: Blazewicz, Frohmberg, Kierzynka,
//! Pesch & Wojciechowski (2011), *Protein alignment algorithms with an
//! efficient backtracking routine on multiple GPUs*, BMC Bioinformatics
//! 12:181).
//!
//! The sequences and the matrix are uploaded once per GPU; the pairs are
//! planned into windows ([`plan_windows`]: largest first) whose buffers fit
//! half of the smallest free memory of the GPUs (queried, not assumed, and
//! at most the caller's cap), and the windows are spread over the GPUs
//! longest-processing-time first ([`run_lpt`], as the paper's task manager
//! does). Per window the tasks are
//! uploaded, kernel 1 and kernel 2 are launched in stream order and the
//! results and ops are read back; one host thread turns them into
//! [`Alignment`]s while the GPUs go on with the next windows. Kernel 1 writes
//! every backtrack word, the bit buffer is still zeroed per window so a stale
//! word can never be read.

use std::sync::mpsc::sync_channel;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use cudarc::driver::{
    CudaContext, CudaFunction, CudaSlice, CudaStream, DevicePtr, LaunchConfig, PushKernelArg,
};
use gpu_kernels::layout::{PairResult, TracebackParams};

use super::alignment::Alignment;
use super::windows::{
    Progress, Residues, Window, WindowOutput, align_beyond_limits, filled, kernel_matrix,
    kernel_mode, plan_windows, result_slots, store_window,
};
use crate::engine::gpu::{MemoryCap, gpu_error, kernels_module};
use crate::error::{Error, Result};
use crate::reference::Mode;
use crate::schedule::run_lpt;
use crate::scoring::Scoring;

/// The traceback kernels' PTX entry points (kernel 1, kernel 2).
pub const KERNEL_SYMBOLS: [&str; 2] = ["sw_traceback_fill_i32", "sw_traceback_walk"];

/// Threads per block of both traceback kernels (the paper's 16 × 16).
const BLOCK: u32 = 256;

/// Most pairs per window (one launch of each kernel).
const MAX_WINDOW_PAIRS: usize = 1 << 20;

/// Windows per GPU at least, when several share the work: enough for the
/// longest-first schedule to even out the GPUs' finishing times.
const WINDOWS_PER_DEVICE: usize = 8;

/// What [`align_pairs`] returns: the alignments, and where the time went.
pub struct GpuAlignments {
    /// One result per pair, in the order of the pairs.
    pub alignments: Vec<Result<Alignment>>,
    /// Windows (launches of each kernel).
    pub windows: usize,
    /// Seconds from each window's upload to its results on the host: both
    /// kernels and the transfers (summed over the GPUs).
    pub gpu_seconds: f64,
    /// Of `gpu_seconds`, the part from the window's upload to the end of
    /// kernel 1 (the fill).
    pub fill_seconds: f64,
    /// Seconds turning kernel output into [`Alignment`]s on the host, while
    /// the GPUs run the next windows.
    pub host_seconds: f64,
    /// Seconds before the first window: the GPUs' contexts and modules, the
    /// sequences' upload, the window plan.
    pub setup_seconds: f64,
    /// Of `setup_seconds`, the part spent planning the windows.
    pub plan_seconds: f64,
}

/// Time the GPUs spent on windows, added up over windows and GPUs.
#[derive(Default)]
struct Times {
    gpu: f64,
    fill: f64,
}

/// One GPU with the kernels loaded and the run's residues and matrix on it.
struct DeviceTraceback {
    ordinal: usize,
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    fill: CudaFunction,
    walk: CudaFunction,
    codes: CudaSlice<u32>,
    offsets: CudaSlice<u64>,
    matrix: CudaSlice<i8>,
}

impl DeviceTraceback {
    fn new(ordinal: usize, residues: &Residues, matrix: &[i8]) -> Result<DeviceTraceback> {
        let stage = |s| gpu_error(ordinal, "", s);
        let (ctx, module) = kernels_module(ordinal, "")?;
        let stream = ctx.default_stream();
        Ok(DeviceTraceback {
            ordinal,
            fill: module
                .load_function(KERNEL_SYMBOLS[0])
                .map_err(stage("loading the fill kernel"))?,
            walk: module
                .load_function(KERNEL_SYMBOLS[1])
                .map_err(stage("loading the walk kernel"))?,
            // `Residues` keeps at least one word: the driver refuses empty uploads.
            codes: stream
                .clone_htod(&residues.words)
                .map_err(stage("uploading sequences"))?,
            offsets: stream
                .clone_htod(&residues.offsets)
                .map_err(stage("uploading sequences"))?,
            matrix: stream
                .clone_htod(matrix)
                .map_err(stage("uploading the matrix"))?,
            ctx,
            stream,
        })
    }

    /// Runs both kernels over `window` and reads their output back.
    fn run(
        &self,
        window: &Window,
        mode: Mode,
        scoring: &Scoring,
        times: &mut Times,
    ) -> Result<WindowOutput> {
        let stage = |s| gpu_error(self.ordinal, "", s);
        let stream = &self.stream;
        self.ctx
            .bind_to_thread()
            .map_err(stage("binding the device"))?;
        let started = Instant::now();
        let n_pairs = window.tasks.len();
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
        let (codes_ptr, _a) = self.codes.device_ptr(stream);
        let (offsets_ptr, _b) = self.offsets.device_ptr(stream);
        let (matrix_ptr, _c) = self.matrix.device_ptr(stream);
        let (tasks_ptr, _d) = d_tasks.device_ptr(stream);
        let (results_ptr, _e) = d_results.device_ptr(stream);
        let (bits_ptr, _f) = d_bits.device_ptr(stream);
        let (rows_ptr, _g) = d_rows.device_ptr(stream);
        let (ops_ptr, _h) = d_ops.device_ptr(stream);
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
            (&self.fill, "running the fill kernel"),
            (&self.walk, "running the walk kernel"),
        ]
        .into_iter()
        .enumerate()
        {
            if k == 1 {
                // Time the fill on its own (one extra wait per window).
                stream.synchronize().map_err(stage(name))?;
                times.fill += started.elapsed().as_secs_f64();
            }
            let mut launch = stream.launch_builder(function);
            launch.arg(&params);
            // SAFETY: the window was planned by `plan_windows` over the
            // uploaded residues: every task's offsets lie within the bits,
            // rows and ops buffers allocated above with the window's sizes,
            // slices are disjoint, every pair passed `pair_fits`, the matrix
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
        times.gpu += started.elapsed().as_secs_f64();
        Ok(output)
    }
}

/// Aligns every pair `(q, t)` of `pairs` (indices into `sequences`) on the
/// GPUs `ordinals`; results in the order of `pairs`, a pair beyond
/// [`super::pair_fits`]'s limits or the devices' memory is aligned on the
/// CPU ([`super::checkpointed`]). The windows use half of what `memory` lets
/// them have of each GPU's free memory ([`crate::engine::gpu::Budget::traceback_bytes`]). `progress`, if given, hears the cells (`n · m` summed) of each
/// window, and of each pair aligned on the CPU, once done. A driver error
/// on any GPU ends the run with that error.
pub fn align_pairs<S: AsRef<[u8]> + Sync>(
    ordinals: &[usize],
    sequences: &[S],
    pairs: &[(usize, usize)],
    mode: Mode,
    scoring: &Scoring,
    memory: MemoryCap,
    progress: Option<&Progress>,
) -> Result<GpuAlignments> {
    if ordinals.is_empty() {
        return Err(Error::InvalidArgument("no GPU to align on".into()));
    }
    let started = Instant::now();
    let residues = Residues::new(sequences);
    let matrix = kernel_matrix(&scoring.matrix);
    // Every GPU opens (context, module, sequences) at once.
    let devices = std::thread::scope(|scope| {
        let (residues, matrix) = (&residues, &matrix);
        let opening: Vec<_> = ordinals
            .iter()
            .map(|&o| scope.spawn(move || DeviceTraceback::new(o, residues, matrix)))
            .collect();
        opening
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect::<Result<Vec<_>>>()
    })?;
    let budget = memory.smallest_free(ordinals)?.traceback_bytes();
    let max_pairs = match ordinals.len() {
        1 => MAX_WINDOW_PAIRS,
        n => MAX_WINDOW_PAIRS.min(pairs.len().div_ceil(WINDOWS_PER_DEVICE * n).max(1)),
    };
    let planning = Instant::now();
    let (windows, beyond_limits) = plan_windows(&residues, pairs, scoring, budget, max_pairs);
    let plan_seconds = planning.elapsed().as_secs_f64();
    let setup_seconds = started.elapsed().as_secs_f64();

    let mut out = result_slots(pairs.len());
    // Pairs beyond the kernels' limits, and single pairs larger than the
    // GPUs' window memory, go to the checkpointed traceback on the CPU.
    let beyond: Vec<usize> = beyond_limits
        .into_iter()
        .chain(
            windows
                .iter()
                .filter(|w| w.bytes() > budget)
                .flat_map(|w| w.pair_indices.iter().copied()),
        )
        .collect();
    align_beyond_limits(&beyond, sequences, pairs, mode, scoring, &mut out, progress);
    let runnable: Vec<&Window> = windows.iter().filter(|w| w.bytes() <= budget).collect();
    let times = Mutex::new(Times::default());
    // One window's output per GPU may wait for the storing thread.
    let (finished, to_store) = sync_channel::<(usize, WindowOutput)>(devices.len());
    let (ran, host_seconds) = std::thread::scope(|scope| {
        let (out, residues, runnable) = (&mut out, &residues, &runnable);
        let storer = scope.spawn(move || {
            let mut seconds = 0.0;
            for (w, output) in to_store {
                let stored = Instant::now();
                store_window(runnable[w], &output, pairs, residues, out);
                seconds += stored.elapsed().as_secs_f64();
                if let Some(progress) = progress {
                    progress(runnable[w].cells(residues));
                }
            }
            seconds
        });
        let ran = run_lpt(runnable.len(), devices.len(), |device, w| -> Result<()> {
            let mut own = Times::default();
            let output = devices[device].run(runnable[w], mode, scoring, &mut own)?;
            {
                let mut times = times.lock().unwrap_or_else(|p| p.into_inner());
                times.gpu += own.gpu;
                times.fill += own.fill;
            }
            // Fails only if the storer panicked; its join below re-raises that.
            let _ = finished.send((w, output));
            Ok(())
        });
        drop(finished);
        let host_seconds = storer
            .join()
            .unwrap_or_else(|p| std::panic::resume_unwind(p));
        (ran, host_seconds)
    });
    ran.into_iter().collect::<Result<Vec<()>>>()?;
    let times = times.into_inner().unwrap_or_else(|p| p.into_inner());
    Ok(GpuAlignments {
        alignments: filled(out),
        windows: windows.len(),
        gpu_seconds: times.gpu,
        fill_seconds: times.fill,
        host_seconds,
        setup_seconds,
        plan_seconds,
    })
}
