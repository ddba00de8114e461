//! `warpsw align` and `warpsw allpairs`: read → pair up → align with
//! traceback (seed 003's kernels on the CPU, `host::traceback`) → write.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Context;
use host::alignment_output::{AlignedPair, AlignmentFormat, write_alignments};
use host::engine::traceback_gpu::align_pairs_gpu;
use host::fasta::{Record, read_fasta};
use host::traceback::{DEFAULT_WINDOW_BYTES, align_pairs};

use crate::cli::{AlignArgs, AlignFormatChoice, AlignmentOutputArgs, AllpairsArgs, DeviceChoice};
use crate::output_file::OutputFile;

/// The GPUs `--devices` names (all present ones for `all`), checked to exist.
fn gpu_ordinals(devices: Option<&str>) -> anyhow::Result<Vec<usize>> {
    let wanted = crate::search::device_list(devices, DeviceChoice::Gpu)?;
    Ok(host::engine::gpu::select_devices(wanted)?)
}

/// Refuses a run of more pairs than the window plan can number (`u32`):
/// they would not fit in memory anyway (16 bytes a pair before alignment).
fn check_pair_count(pairs: u128, what: &str) -> anyhow::Result<()> {
    if pairs > u128::from(u32::MAX) {
        anyhow::bail!(
            "{what} make {pairs} pairs; one run aligns at most {} pairs: split the input",
            u32::MAX
        );
    }
    Ok(())
}

/// `warpsw align`: every query against every target.
pub fn run_align(args: AlignArgs) -> anyhow::Result<ExitCode> {
    crate::search::check_standard_input(&[&args.query, &args.target])?;
    let out = open_output(&args.output, &[&args.query, &args.target])?;
    let queries = read_fasta(&args.query).context("reading the queries (--query)")?;
    let targets = read_fasta(&args.target).context("reading the targets (--target)")?;
    let nq = queries.len();
    check_pair_count(
        nq as u128 * targets.len() as u128,
        &format!("{nq} queries and {} targets", targets.len()),
    )?;
    let pairs: Vec<(usize, usize)> = (0..nq)
        .flat_map(|q| (0..targets.len()).map(move |t| (q, nq + t)))
        .collect();
    let records: Vec<Record> = queries.into_iter().chain(targets).collect();
    run(&records, &pairs, &args.output, out)
}

/// Checks the options and opens the output before any input is read.
fn open_output(opts: &AlignmentOutputArgs, inputs: &[&Path]) -> anyhow::Result<OutputFile> {
    opts.scoring.scoring()?;
    crate::search::device_list(opts.devices.as_deref(), opts.device)?;
    let target = opts
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from(crate::output_file::STANDARD_STREAM));
    OutputFile::create(&target, inputs)
}

/// `warpsw allpairs`: every pair i < j of one file.
pub fn run_allpairs(args: AllpairsArgs) -> anyhow::Result<ExitCode> {
    let out = open_output(&args.output, &[&args.input])?;
    let records = read_fasta(&args.input).context("reading the sequences (--input)")?;
    let n = records.len();
    check_pair_count(
        n as u128 * (n as u128).saturating_sub(1) / 2,
        &format!("{n} sequences"),
    )?;
    let pairs: Vec<(usize, usize)> = (0..n)
        .flat_map(|a| (a + 1..n).map(move |b| (a, b)))
        .collect();
    run(&records, &pairs, &args.output, out)
}

fn run(
    records: &[Record],
    pairs: &[(usize, usize)],
    opts: &AlignmentOutputArgs,
    mut out: OutputFile,
) -> anyhow::Result<ExitCode> {
    let scoring = opts.scoring.scoring()?;
    if let Some(bytes) = opts.gpu_memory {
        host::engine::gpu::limit_memory(bytes);
    }
    let sequences: Vec<&[u8]> = records.iter().map(|r| &r.codes[..]).collect();
    let gpus = match opts.device {
        DeviceChoice::Cpu => None,
        DeviceChoice::Gpu => Some(gpu_ordinals(opts.devices.as_deref())?),
        DeviceChoice::Auto => match host::engine::gpu::devices() {
            Ok(_) => Some(gpu_ordinals(opts.devices.as_deref())?),
            Err(why) => {
                if !opts.quiet {
                    eprintln!("warpsw: {why}; using the CPU");
                }
                None
            }
        },
    };
    let started = Instant::now();
    let (results, engine) = match &gpus {
        Some(ordinals) => {
            let run = align_pairs_gpu(ordinals, &sequences, pairs, opts.mode, &scoring)?;
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
            let results = align_pairs(&sequences, pairs, opts.mode, &scoring, DEFAULT_WINDOW_BYTES);
            (results, "CPU".to_string())
        }
    };
    let seconds = started.elapsed().as_secs_f64();
    let mut alignments = Vec::with_capacity(results.len());
    for (&(q, t), result) in pairs.iter().zip(results) {
        let alignment = result.with_context(|| {
            format!(
                "aligning {} ({} residues) with {} ({} residues)",
                records[q].id,
                sequences[q].len(),
                records[t].id,
                sequences[t].len()
            )
        })?;
        alignments.push(alignment);
    }
    let printed: Vec<AlignedPair<'_>> = pairs
        .iter()
        .zip(&alignments)
        .map(|(&(q, t), alignment)| AlignedPair {
            query_id: &records[q].id,
            target_id: &records[t].id,
            query: sequences[q],
            target: sequences[t],
            alignment,
        })
        .collect();
    let format = match opts.format {
        AlignFormatChoice::Tsv => AlignmentFormat::Tsv,
        AlignFormatChoice::Json => AlignmentFormat::Json,
        AlignFormatChoice::Pairwise => AlignmentFormat::Pairwise,
    };
    let name = out.target().display().to_string();
    write_alignments(&mut out, &printed, format, opts.extended_cigar)
        .with_context(|| format!("writing the alignments to {name}"))?;
    out.commit()?;
    if !opts.quiet {
        let cells: u128 = pairs
            .iter()
            .map(|&(q, t)| sequences[q].len() as u128 * sequences[t].len() as u128)
            .sum();
        eprintln!(
            "warpsw: {}, {:.3e} cells aligned with traceback in {:.3} s = {:.1} GCUPS [{engine}]",
            crate::search::count(pairs.len() as u64, "pair", "pairs"),
            cells as f64,
            seconds,
            crate::search::gcups(cells, seconds),
        );
    }
    Ok(ExitCode::SUCCESS)
}
