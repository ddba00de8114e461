//! `warpsw align` and `warpsw allpairs`: read → pair up → align with
//! traceback ([`host::align::align_pairs`], which places the work on the
//! GPUs or the CPU) → write ([`host::align::write_alignments`]).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use host::align::{AlignOptions, AlignedPair, align_pairs, write_alignments};
use host::engine::Placement;
use host::fasta::{Record, read_fasta};

use crate::cli::{AlignArgs, AlignmentOutputArgs, AllpairsArgs, DeviceChoice};
use crate::output_file::OutputFile;
use crate::progress::CellProgress;

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
    let sequences: Vec<&[u8]> = records.iter().map(|r| &r.codes[..]).collect();
    let wanted = crate::search::device_list(opts.devices.as_deref(), opts.device)?;
    let placement = match opts.device {
        DeviceChoice::Auto => Placement::Auto(wanted),
        DeviceChoice::Cpu => Placement::Cpu,
        DeviceChoice::Gpu => Placement::Gpus(wanted),
    };
    let cells: u128 = pairs
        .iter()
        .map(|&(q, t)| sequences[q].len() as u128 * sequences[t].len() as u128)
        .sum();
    // The bar moves by cells, window by window (a window holds pairs of
    // similar sizes, so pairs would move it unevenly).
    let bar = CellProgress::new(cells, "aligned", opts.quiet);
    let progress = |done: u64| bar.advance(u128::from(done));
    let options = AlignOptions {
        memory: host::engine::gpu::MemoryCap::new(opts.gpu_memory),
        progress: Some(&progress),
        ..AlignOptions::default()
    };
    let run = align_pairs(placement, &sequences, pairs, opts.mode, &scoring, &options);
    bar.finish();
    let run = run?;
    if let Some(notice) = &run.notice
        && !opts.quiet
    {
        eprintln!("warpsw: {notice}");
    }
    let mut alignments = Vec::with_capacity(run.alignments.len());
    for (&(q, t), result) in pairs.iter().zip(run.alignments) {
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
    let name = out.target().display().to_string();
    write_alignments(&mut out, &printed, opts.format, opts.extended_cigar)
        .with_context(|| format!("writing the alignments to {name}"))?;
    out.commit()?;
    if !opts.quiet {
        eprintln!(
            "warpsw: {}, {:.3e} cells aligned with traceback in {:.3} s = {:.1} GCUPS [{}]",
            crate::search::count(pairs.len() as u64, "pair", "pairs"),
            cells as f64,
            run.seconds,
            crate::search::gcups(cells, run.seconds),
            run.engine,
        );
    }
    Ok(ExitCode::SUCCESS)
}
