//! `warpsw bench`: times kernels on one resident database, query by query,
//! and counts a timing only if its scores match the scalar reference.

use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use anyhow::bail;
use host::engine;
use host::engine::gpu::KernelResources;
use host::kernel::KernelChoice;
use host::merge::top_hits_at;
use host::reference::local_score;
use rayon::prelude::*;

use crate::cli::{BenchArgs, parse_kernel};
use crate::output_file::OutputFile;
use crate::progress::CellProgress;
use crate::search::{gcups, load_db, load_queries, placement};

/// One query's timing with one kernel.
struct Row {
    kernel: KernelChoice,
    query: String,
    query_length: usize,
    median_seconds: f64,
}

pub fn run(args: BenchArgs) -> anyhow::Result<ExitCode> {
    let scoring = args.scoring.scoring()?;
    let kernels: Vec<KernelChoice> = args
        .kernels
        .iter()
        .map(|k| parse_kernel(k, &args.auto))
        .collect::<Result<_, _>>()?;
    if args.repeat == 0 {
        bail!("--repeat must be at least 1");
    }
    let (query_path, db_path) = (&args.inputs.query, &args.inputs.db);
    crate::search::check_standard_input(&[query_path, db_path])?;
    crate::search::placement(&args.placement, KernelChoice::default())?;
    // The CSV's old rows and the new ones go to a temporary file, renamed
    // over the old one when the run completes.
    let mut csv = match &args.csv {
        Some(path) => {
            let new = std::fs::metadata(path).map_or(true, |m| m.len() == 0);
            let mut f = OutputFile::append(path, &[query_path, db_path])?;
            if new {
                writeln!(
                    f,
                    "device,kernel,gap_open,gap_extend,query,query_length,db_sequences,db_residues,iter,seconds,gcups,upload_seconds"
                )?;
            }
            Some(f)
        }
        None => None,
    };
    let queries = load_queries(query_path)?;
    let db = Arc::new(load_db(db_path)?);
    let residues = db.total_residues();

    // Evenly spaced sorted positions, the longest and the shortest included.
    let checked: Vec<usize> = if db.is_empty() || args.check == 0 {
        Vec::new()
    } else {
        let n = args.check.min(db.len());
        (0..n)
            .map(|k| k * (db.len() - 1) / (n - 1).max(1))
            .collect()
    };

    let runs_per_query = (args.warmup + args.repeat) as u128;
    let query_residues: u128 = queries.iter().map(|q| q.codes.len() as u128).sum();
    let bar = CellProgress::new(
        kernels.len() as u128 * runs_per_query * query_residues * u128::from(residues),
        " (warm-up and timed runs)",
        false,
    );
    // Cells done so far: per run of a query today.
    let progress = |cells: u128| bar.advance(cells);

    let mut rows = Vec::new();
    let mut resources = Vec::new();
    let mut entry_points = Vec::new();
    for &kernel in &kernels {
        let (placement, options) = placement(&args.placement, kernel)?;
        let opened = engine::open(placement, db.clone(), scoring.clone(), &options)?;
        if let Some(why) = &opened.notice {
            bar.suspend(|| eprintln!("warpsw: {why}"));
        }
        let mut engine = opened.engine;
        let device = engine.description();
        let used = engine.kernel_resources()?;
        resources.push(used);
        entry_points.push((kernel, engine.entry_points()?));
        bar.suspend(|| {
            eprintln!(
                "{device}; database prepared/uploaded in {:.3} s",
                opened.upload_seconds
            )
        });

        for q in &queries {
            let cells = q.codes.len() as u128 * u128::from(residues);
            for _ in 0..args.warmup {
                engine.score_all(&q.codes)?;
                progress(cells);
            }
            let mut times = Vec::with_capacity(args.repeat);
            let mut last = Vec::new();
            for iter in 0..args.repeat {
                let started = Instant::now();
                let sorted_scores = engine.score_all(&q.codes)?;
                let hits = top_hits_at(&sorted_scores, db.original_order(), 10);
                let seconds = started.elapsed().as_secs_f64();
                std::hint::black_box(hits);
                times.push(seconds);
                progress(cells);
                if let Some(f) = csv.as_mut() {
                    writeln!(
                        f,
                        "{},{},{},{},{},{},{},{residues},{iter},{seconds:.6},{:.2},{:.4}",
                        csv_field(&device),
                        csv_field(&kernel.to_string()),
                        args.scoring.gap_open,
                        args.scoring.gap_extend,
                        csv_field(&q.id),
                        q.codes.len(),
                        db.len(),
                        gcups(cells, seconds),
                        opened.upload_seconds
                    )?;
                }
                last = sorted_scores;
            }
            let mismatches: Vec<usize> = checked
                .par_iter()
                .copied()
                .filter(|&i| {
                    last[i] != local_score(&q.codes, db.sequence(i), &scoring.matrix, scoring.gaps)
                })
                .collect();
            if !mismatches.is_empty() {
                bail!(
                    "kernel {kernel}, query {}: {} of {} checked scores differ from the reference (first: sorted position {})",
                    q.id,
                    mismatches.len(),
                    checked.len(),
                    mismatches[0]
                );
            }
            times.sort_by(f64::total_cmp);
            rows.push(Row {
                kernel,
                query: q.id.clone(),
                query_length: q.codes.len(),
                median_seconds: times[times.len() / 2],
            });
        }
    }
    bar.finish();
    if let Some(csv) = csv {
        csv.commit()?;
    }
    print_table(
        &rows,
        &kernels,
        &resources,
        &queries,
        residues,
        checked.len(),
    );
    print_entry_points(&entry_points);
    Ok(ExitCode::SUCCESS)
}

/// Every entry point each kernel's plan may launch on the GPU (each
/// configuration, rescue and fallback), as the driver compiled it: registers
/// and local memory (spills) per thread, shared memory per block, and the
/// blocks of 256 threads one multiprocessor holds, with what limits them.
fn print_entry_points(kernels: &[(KernelChoice, Vec<host::engine::gpu::EntryPointUse>)]) {
    for (kernel, uses) in kernels {
        if uses.is_empty() {
            continue;
        }
        println!();
        println!(
            "{kernel}: {:<30} {:>9} {:>11} {:>12} {:>13}",
            "entry point", "registers", "local bytes", "shared bytes", "blocks per SM"
        );
        let indent = kernel.to_string().len() + 2;
        for u in uses {
            println!(
                "{:indent$}{:<30} {:>9} {:>11} {:>12} {:>5} ({:?})",
                "",
                u.symbol,
                u.resources.registers,
                u.resources.local_bytes,
                u.shared_bytes,
                u.occupancy.blocks,
                u.occupancy.limit
            );
        }
    }
}

/// `text` as one CSV field (RFC 4180): quoted, inner quotes doubled, when
/// it holds a comma, a quote or a line end.
fn csv_field(text: &str) -> std::borrow::Cow<'_, str> {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\"")).into()
    } else {
        text.into()
    }
}

fn print_table(
    rows: &[Row],
    kernels: &[KernelChoice],
    resources: &[Option<KernelResources>],
    queries: &[host::fasta::Record],
    residues: u64,
    checked: usize,
) {
    let short = |id: &str| id.split('|').nth(1).unwrap_or(id).to_string();
    print!("{:<14} {:>6}", "query", "length");
    for k in kernels {
        print!(" {:>14}", format!("{} GCUPS", k.to_string()));
    }
    println!();
    for q in queries {
        print!("{:<14} {:>6}", short(&q.id), q.codes.len());
        for k in kernels {
            let row = rows
                .iter()
                .find(|r| r.kernel == *k && r.query == q.id)
                .expect("every pair timed");
            let cells = row.query_length as u128 * residues as u128;
            print!(" {:>14.1}", gcups(cells, row.median_seconds));
        }
        println!();
    }
    print!("{:<14} {:>6}", "overall", "");
    for k in kernels {
        let (cells, seconds) =
            rows.iter()
                .filter(|r| r.kernel == *k)
                .fold((0u128, 0.0), |(c, s), r| {
                    (
                        c + r.query_length as u128 * residues as u128,
                        s + r.median_seconds,
                    )
                });
        print!(" {:>14.1}", gcups(cells, seconds));
    }
    println!();
    // What the driver reports for each kernel's entry point (`auto`: its
    // first stage); local memory holds spills and local arrays.
    let per_kernel = |label: &str, field: fn(&KernelResources) -> i32| {
        print!("{label:<21}");
        for used in resources {
            match used {
                Some(r) => print!(" {:>14}", field(r)),
                None => print!(" {:>14}", "-"),
            }
        }
        println!();
    };
    per_kernel("registers/thread", |r| r.registers);
    per_kernel("local bytes/thread", |r| r.local_bytes);
    println!(
        "(median of timed runs; {checked} database sequences per query checked against the scalar reference: all equal)"
    );
}
