//! `warpsw search`: read → encode → sort/pack → upload → dispatch → merge → report.
//!
//! Options and the output are checked before any input is read; each
//! query's hits are written to the output (`crate::output_file`) as soon as
//! the query is done, in query order, and the progress bar
//! (`crate::progress`) advances by the query's cells.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, bail};
use host::db::Database;
use host::engine::gpu::MemoryCap;
use host::engine::{self, Placement, SearchOptions};
use host::fasta::{Record, duplicate_id, read_fasta};
use host::kernel::KernelChoice;
use host::merge::top_hits;
use host::output::{HitsWriter, QueryHits};
use rayon::prelude::*;

use crate::cli::{DeviceChoice, PlacementArgs, SearchArgs, parse_kernel};
use crate::output_file::{OutputFile, STANDARD_STREAM};
use crate::progress::CellProgress;

/// `--devices`: `None` for `all` (or not given), else the GPU numbers
/// listed; an error with `--device cpu`, where it would mean nothing.
pub fn device_list(
    devices: Option<&str>,
    device: DeviceChoice,
) -> anyhow::Result<Option<Vec<usize>>> {
    let Some(devices) = devices else {
        return Ok(None);
    };
    if device == DeviceChoice::Cpu {
        bail!(
            "--devices {devices} chooses GPUs, but --device cpu runs on the CPU: drop one of them"
        );
    }
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
    let list = device_list(args.devices.as_deref(), choice)?;
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

/// Whether `path` is `-`, standard input or output.
pub fn is_standard_stream(path: &Path) -> bool {
    path.as_os_str() == STANDARD_STREAM
}

/// Reads the database: a `.wsw` file (memory-mapped) or FASTA, by content;
/// `-` is FASTA on standard input.
pub fn load_db(path: &Path) -> anyhow::Result<Database> {
    if !is_standard_stream(path) && host::dbfile::is_wsw(path)? {
        return Ok(host::dbfile::open(path)?);
    }
    let records = read_fasta(path).context("reading the database")?;
    warn_duplicates(path, &records);
    Ok(Database::try_from_records(records)?)
}

/// Reads the query file.
pub fn load_queries(path: &Path) -> anyhow::Result<Vec<Record>> {
    let records = read_fasta(path).context("reading the queries")?;
    warn_duplicates(path, &records);
    Ok(records)
}

/// Warns (as `makeblastdb` would refuse) when two records share an id: the
/// output cannot tell them apart.
pub fn warn_duplicates(path: &Path, records: &[Record]) {
    if let Some(dup) = duplicate_id(records) {
        eprintln!("warpsw: warning: {}: {dup}", path.display());
    }
}

/// Refuses `-` for more than one input (standard input is read once).
pub fn check_standard_input(inputs: &[&Path]) -> anyhow::Result<()> {
    if inputs.iter().filter(|p| is_standard_stream(p)).count() > 1 {
        bail!("only one input can be `-` (standard input)");
    }
    Ok(())
}

/// `n` with `one` or `many`: "1 query", "2 queries".
pub fn count(n: impl Into<u128>, one: &str, many: &str) -> String {
    let n = n.into();
    format!("{n} {}", if n == 1 { one } else { many })
}

pub fn run(args: SearchArgs) -> anyhow::Result<ExitCode> {
    // Everything the user chose is checked before any file is read.
    let scoring = args.scoring.scoring()?;
    let kernel = parse_kernel(&args.kernel, &args.auto)?;
    let (placement, options) = placement(&args.placement, kernel)?;
    let top = usize::try_from(args.top).unwrap_or(usize::MAX);
    let (query_path, db_path) = (&args.inputs.query, &args.inputs.db);
    check_standard_input(&[query_path, db_path])?;
    let target = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from(STANDARD_STREAM));
    let mut out = OutputFile::create(&target, &[query_path, db_path])?;

    let queries = load_queries(query_path)?;
    let read_started = Instant::now();
    let db = Arc::new(load_db(db_path)?);
    let read_seconds = read_started.elapsed().as_secs_f64();

    // The header goes out before any alignment: an output that cannot be
    // written (`/dev/full`) fails now, not after the search.
    let shown = match is_standard_stream(&target) {
        true => "standard output".to_string(),
        false => target.display().to_string(),
    };
    let written = |e: std::io::Error| anyhow::Error::new(e).context(format!("writing {shown}"));
    let mut hits_out = HitsWriter::begin(&mut out, args.format, &db).map_err(written)?;
    out.checkpoint().map_err(written)?;

    let opened = engine::open(placement, db.clone(), scoring, &options)?;
    if let Some(why) = &opened.notice
        && !args.quiet
    {
        eprintln!("warpsw: {why}");
    }
    let mut engine = opened.engine;

    let residues = u128::from(db.total_residues());
    let total_cells = queries.iter().map(|q| q.codes.len() as u128).sum::<u128>() * residues;
    let bar = CellProgress::new(total_cells, "", args.quiet);
    // Cells done so far: per query today; an engine that reports finer
    // steps calls this as it goes.
    let progress = |cells: u128| bar.advance(cells);

    let started = Instant::now();
    let mut cells = 0u128;
    let mut finished = 0usize;
    for batch in queries.chunks(engine.batch_len().max(1)) {
        let codes: Vec<&[u8]> = batch.iter().map(|q| &q.codes[..]).collect();
        let batch_scores = match engine.score_batch(&codes) {
            Ok(scores) => scores,
            Err(e) => {
                bar.finish();
                return Err(keep_finished(out, finished, e.into()));
            }
        };
        for warning in engine.take_warnings() {
            bar.suspend(|| eprintln!("warpsw: warning: {warning}"));
        }
        // The batch's queries are merged side by side: a multi-GPU batch
        // hands back many queries at once, and the GPUs wait meanwhile.
        let merged: Vec<QueryHits> = batch
            .par_iter()
            .zip(batch_scores)
            .map(|(q, sorted_scores)| QueryHits {
                query: q.id.clone(),
                query_length: q.codes.len(),
                hits: top_hits(&db.to_input_order(&sorted_scores), top),
            })
            .collect();
        // Each finished query is written and handed to the system at once:
        // an interrupted run keeps it (in FILE.partial).
        for (q, hits) in batch.iter().zip(&merged) {
            hits_out.query(&mut out, hits).map_err(written)?;
            out.checkpoint().map_err(written)?;
            let query_cells = q.codes.len() as u128 * residues;
            cells += query_cells;
            progress(query_cells);
            finished += 1;
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    bar.finish();
    hits_out.finish(&mut out).map_err(written)?;
    out.commit()?;

    if !args.quiet {
        eprintln!(
            "warpsw: {} x {} ({} residues): {:.3e} cells in {:.3} s = {:.1} GCUPS \
             [{}; database read {:.2} s, prepared/uploaded {:.2} s]",
            count(queries.len() as u64, "query", "queries"),
            count(db.len() as u64, "sequence", "sequences"),
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

/// The error of a search that failed after `finished` queries: their hits
/// are kept in `FILE.partial` (when written to a file) and the error says so.
fn keep_finished(out: OutputFile, finished: usize, error: anyhow::Error) -> anyhow::Error {
    if finished == 0 {
        return error;
    }
    match out.keep_partial() {
        Some(partial) => error.context(format!(
            "the search stopped after {}; their hits are kept in {}",
            count(finished as u64, "query", "queries"),
            partial.display()
        )),
        None => error,
    }
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
