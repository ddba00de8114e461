//! `warpsw search`: read → encode → sort/pack → upload → dispatch → merge → report.

use std::fs::File;
use std::io::{BufWriter, IsTerminal, Write};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use anyhow::Context;
use host::db::Database;
use host::engine::gpu::MemoryCap;
use host::engine::{self, Placement, SearchOptions};
use host::fasta::{Record, read_fasta};
use host::kernel::KernelChoice;
use host::merge::top_hits;
use host::output::{Format, QueryHits, write_hits};
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;

use crate::cli::{DeviceChoice, FormatChoice, PlacementArgs, SearchArgs, parse_kernel};

/// `--devices`: `None` for `all`, else the GPU numbers listed.
pub fn device_list(devices: &str) -> anyhow::Result<Option<Vec<usize>>> {
    Ok(match devices.trim() {
        "all" => None,
        text => Some(
            text.split(',')
                .map(|d| d.trim().parse::<usize>())
                .collect::<Result<Vec<_>, _>>()
                .with_context(|| {
                    format!("--devices takes `all` or GPU numbers such as 0,2; got '{devices}'")
                })?,
        ),
    })
}

/// The `--device`, `--devices`, `--balance` and `--gpu-memory` choices,
/// with `kernel` as the engines' options.
pub fn placement(
    args: &PlacementArgs,
    kernel: KernelChoice,
) -> anyhow::Result<(Placement, SearchOptions)> {
    let choice = args.device;
    let list = device_list(&args.devices)?;
    let placement = match choice {
        DeviceChoice::Auto => Placement::Auto(list),
        DeviceChoice::Cpu => Placement::Cpu,
        DeviceChoice::Gpu => Placement::Gpus(list),
    };
    let options = SearchOptions {
        kernel,
        policy: args.balance.parse()?,
        memory: MemoryCap::new(args.gpu_memory),
    };
    Ok((placement, options))
}

/// Reads the database: a `.wsw` file (memory-mapped) or FASTA, by content.
pub fn load_db(path: &std::path::Path) -> anyhow::Result<Database> {
    if host::dbfile::is_wsw(path)? {
        return Ok(host::dbfile::open(path)?);
    }
    let records = read_fasta(path).context("reading the database")?;
    Ok(Database::from_records(records))
}

/// Reads the query file.
pub fn load_queries(path: &std::path::Path) -> anyhow::Result<Vec<Record>> {
    read_fasta(path).context("reading the queries")
}

pub fn run(args: SearchArgs) -> anyhow::Result<ExitCode> {
    let scoring = args.scoring.scoring()?;
    let kernel = parse_kernel(&args.kernel, &args.auto)?;
    let queries = load_queries(&args.inputs.query)?;
    let read_started = Instant::now();
    let db = Arc::new(load_db(&args.inputs.db)?);
    let read_seconds = read_started.elapsed().as_secs_f64();

    let (placement, options) = placement(&args.placement, kernel)?;
    let opened = engine::open(placement, db.clone(), scoring, &options)?;
    if let Some(why) = &opened.notice {
        eprintln!("warpsw: {why}");
    }
    let mut engine = opened.engine;

    let progress = if !args.quiet && queries.len() > 1 && std::io::stderr().is_terminal() {
        let bar = ProgressBar::new(queries.len() as u64);
        bar.set_style(
            ProgressStyle::with_template("{bar:40} {pos}/{len} queries, {elapsed} ({eta} left)")
                .expect("valid template"),
        );
        bar
    } else {
        ProgressBar::hidden()
    };

    let started = Instant::now();
    let mut results = Vec::with_capacity(queries.len());
    let mut cells = 0u128;
    for batch in queries.chunks(engine.batch_len().max(1)) {
        let codes: Vec<&[u8]> = batch.iter().map(|q| &q.codes[..]).collect();
        let batch_scores = engine.score_batch(&codes)?;
        for warning in engine.take_warnings() {
            progress.suspend(|| eprintln!("warpsw: warning: {warning}"));
        }
        // The batch's queries are merged side by side: a multi-GPU batch
        // hands back many queries at once, and the GPUs wait meanwhile.
        let merged: Vec<QueryHits> = batch
            .par_iter()
            .zip(batch_scores)
            .map(|(q, sorted_scores)| QueryHits {
                query: q.id.clone(),
                query_length: q.codes.len(),
                hits: top_hits(&db.to_input_order(&sorted_scores), args.top),
            })
            .collect();
        results.extend(merged);
        cells +=
            batch.iter().map(|q| q.codes.len() as u128).sum::<u128>() * db.total_residues() as u128;
        progress.inc(batch.len() as u64);
    }
    let seconds = started.elapsed().as_secs_f64();
    progress.finish_and_clear();

    let format = match args.format {
        FormatChoice::Tsv => Format::Tsv,
        FormatChoice::Json => Format::Json,
    };
    match &args.out {
        Some(path) => {
            let file =
                File::create(path).with_context(|| format!("creating {}", path.display()))?;
            let mut out = BufWriter::new(file);
            write_hits(&mut out, format, &db, &results)
                .and_then(|_| out.flush())
                .with_context(|| format!("writing {}", path.display()))?;
        }
        None => {
            let mut out = std::io::stdout().lock();
            write_hits(&mut out, format, &db, &results)?;
            out.flush()?;
        }
    }

    if !args.quiet {
        eprintln!(
            "warpsw: {} queries x {} sequences ({} residues): {:.3e} cells in {:.3} s = {:.1} GCUPS \
             [{}; database read {:.2} s, prepared/uploaded {:.2} s]",
            queries.len(),
            db.len(),
            db.total_residues(),
            cells as f64,
            seconds,
            gcups(cells, seconds),
            engine.description(),
            read_seconds,
            opened.upload_seconds,
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// GCUPS = |Q| × |D| / t / 1e9 (DESIGN.md §4): cells over wall time from
/// query submitted to sorted hits, database already resident.
pub fn gcups(cells: u128, seconds: f64) -> f64 {
    if seconds > 0.0 {
        cells as f64 / seconds / 1e9
    } else {
        0.0
    }
}
