//! `warpsw search`: read → encode → sort/pack → upload → dispatch →
//! statistics and ranking → realign the reported hits → report.
//!
//! Each batch of queries is scored against the whole database; each query's
//! statistics (`host::stats`) are computed from all its scores, its hits
//! ranked by E-value (`host::stats::QueryStatistics::top_hits`), filtered by
//! `--evalue` and `--max-target-seqs`, then realigned with traceback
//! (`host::align`) and checked against the search's scores, unless the
//! output prints nothing of the alignments (`--columns` of ids, lengths,
//! scores, E-values and bits only).
//!
//! The stages are modules: `inputs` (where it runs, the files read),
//! `report` (a batch's statistics, ranking and realignment), `account`
//! (the summary's time and statistics); this one checks the options, runs
//! the scorer and the reports side by side and writes the hits.
//!
//! Options and the output are checked before any input is read; each
//! query's hits are written to the output (`crate::output_file`) as soon as
//! the query is done, in query order, and the progress bar
//! (`crate::progress`) advances by the query's cells.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use anyhow::bail;
use host::db::Database;
use host::engine::{self, Placement, SearchOptions};
use host::fasta::Record;
use host::output::{Format, HitsWriter};
use host::scoring::Scoring;
use host::stats::{DatabaseSize, Method, SequenceLengths, Statistics, check_method};

use crate::cli::{SearchArgs, parse_kernel};
use crate::output_file::{OutputFile, STANDARD_STREAM};
use crate::progress::CellProgress;

mod account;
mod inputs;
mod report;

use account::{SearchTime, StatisticsTally};
pub use inputs::{
    check_standard_input, count, device_list, is_standard_stream, load_db,
    load_db_with_descriptions, load_queries, placement,
};
use report::report_batch;

/// The most bytes of scores the scorer scores ahead while a report is made
/// (they wait in memory: one `i32` per database sequence and query), at
/// least one batch: 256 MiB, what one batch of the multi-GPU engines holds.
pub const MAX_SCORES_AHEAD_BYTES: usize = 1 << 28;

/// A search's options, checked before any input is read, its output,
/// created, and its queries, read: everything before the database.
pub struct Prepared {
    /// The matrix and gap costs.
    pub scoring: Scoring,
    /// Where the engines run (`--device`, `--devices`).
    pub placement: Placement,
    /// The engines' options (`--kernel`, `--balance`, `--gpu-memory`).
    pub options: SearchOptions,
    /// `--stats`.
    pub method: Method,
    /// `--format`.
    pub format: Format,
    /// `--columns`.
    pub columns: Option<Vec<host::output::Column>>,
    /// `--max-target-seqs`.
    pub top: usize,
    /// `ln` of `--evalue`.
    pub max_ln_evalue: f64,
    /// The output's name as given (`-` for standard output).
    pub target: PathBuf,
    /// The output, created and checked.
    pub out: OutputFile,
    /// The queries.
    pub queries: Vec<Record>,
    /// Whether the output shows the database's descriptions (`stitle`, the
    /// pairwise format).
    pub wants_descriptions: bool,
    /// `--quiet`.
    pub quiet: bool,
    /// When the search began (before the options were checked).
    pub started: Instant,
    /// Seconds spent reading the queries.
    pub queries_seconds: f64,
}

/// `--evalue`'s default.
pub const DEFAULT_EVALUE: f64 = 10.0;

/// The columns of a search without statistics (`--stats none`): those
/// asked for, or the format's own less `evalue` and `bitscore`.
///
/// # Errors
/// A column of E-values or bit scores asked for, `--format blast6` without
/// `--columns` (BLAST's 12 columns end with both), or `--evalue`: none of
/// them means anything without statistics.
fn columns_without_statistics(
    columns: Option<Vec<host::output::Column>>,
    format: Format,
    evalue: Option<f64>,
) -> anyhow::Result<Option<Vec<host::output::Column>>> {
    use host::output::{Column, TSV_COLUMNS};
    let statistical = |c: &Column| matches!(c, Column::Evalue | Column::Bits);
    if evalue.is_some() {
        bail!("--evalue cuts hits by E-value, and --stats none computes none: drop one of them");
    }
    match columns {
        Some(columns) => {
            if let Some(c) = columns.iter().find(|c| statistical(c)) {
                bail!(
                    "--stats none computes no E-values or bit scores, and --columns asks for {}: \
                     drop it, or choose other statistics",
                    c.blast_name()
                );
            }
            Ok(Some(columns))
        }
        None if format == Format::Blast6 => bail!(
            "--format blast6 prints BLAST's 12 columns, E-value and bit score among them, and \
             --stats none computes neither: pick the columns (--columns qseqid,sseqid,score), \
             or use --format tsv"
        ),
        None => Ok(match format {
            Format::Tsv | Format::Json => Some(
                TSV_COLUMNS
                    .iter()
                    .copied()
                    .filter(|c| !statistical(c))
                    .collect(),
            ),
            _ => None,
        }),
    }
}

/// The scoring and where and how the engines run: what every process of a
/// search needs, MPI ranks included.
pub fn engine_setup(args: &SearchArgs) -> anyhow::Result<(Scoring, Placement, SearchOptions)> {
    let scoring = args.scoring.scoring()?;
    let kernel = parse_kernel(&args.kernel, &args.auto)?;
    let (placement, options) = placement(&args.placement, kernel)?;
    Ok((scoring, placement, options))
}

/// Checks every option and the output (created here), then reads the
/// queries; the database is not touched.
pub fn prepare(args: &SearchArgs) -> anyhow::Result<Prepared> {
    let started = Instant::now();
    // Everything the user chose is checked before any file is read.
    let (scoring, placement, mut options) = engine_setup(args)?;
    check_method(args.stats, &scoring)?;
    let columns = args.columns.clone().map(|c| c.0);
    if columns.is_some() && args.format == Format::Pairwise {
        bail!("--columns picks the columns of tsv, blast6 or json; the pairwise format has none");
    }
    let columns = match args.stats {
        Method::RawScores => columns_without_statistics(columns, args.format, args.evalue)?,
        _ => columns,
    };
    let (query_path, db_path) = (&args.inputs.query, &args.inputs.db);
    check_standard_input(&[query_path, db_path])?;
    let target = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from(STANDARD_STREAM));
    let out = OutputFile::create(&target, &[query_path, db_path])?;
    let queries_started = Instant::now();
    let queries = load_queries(query_path)?;
    let queries_seconds = queries_started.elapsed().as_secs_f64();
    options.queries = queries.len();
    let wants_descriptions = args.format == Format::Pairwise
        || columns
            .as_ref()
            .is_some_and(|c| c.contains(&host::output::Column::TargetTitle));
    Ok(Prepared {
        scoring,
        placement,
        options,
        method: args.stats,
        format: args.format,
        columns,
        top: usize::try_from(args.max_target_seqs).unwrap_or(usize::MAX),
        max_ln_evalue: args.evalue.unwrap_or(DEFAULT_EVALUE).ln(),
        target,
        out,
        queries,
        wants_descriptions,
        quiet: args.quiet,
        started,
        queries_seconds,
    })
}

/// Scores batches of queries against the whole database, in its sorted
/// order: one process's engine, or the ranks of an MPI job
/// (`crate::cluster`).
pub trait Scorer {
    /// How many queries a batch should hold.
    fn batch_len(&self) -> usize;

    /// Every query's scores against every database sequence (sorted
    /// order), telling `progress` the cells done as it goes (as
    /// [`host::engine::Engine::score_batch_reporting`]).
    fn score_batch(
        &mut self,
        queries: &[&[u8]],
        progress: &(dyn Fn(u64) + Sync),
    ) -> anyhow::Result<Vec<Vec<i32>>>;

    /// Warnings gathered since the last call, for the caller to print.
    fn take_warnings(&mut self) -> Vec<String>;

    /// One line naming the engine and its hardware, for the summary.
    fn description(&self) -> String;
}

impl Scorer for Box<dyn engine::Engine> {
    fn batch_len(&self) -> usize {
        engine::Engine::batch_len(&**self)
    }

    fn score_batch(
        &mut self,
        queries: &[&[u8]],
        progress: &(dyn Fn(u64) + Sync),
    ) -> anyhow::Result<Vec<Vec<i32>>> {
        Ok(self.score_batch_reporting(queries, progress)?)
    }

    fn take_warnings(&mut self) -> Vec<String> {
        engine::Engine::take_warnings(&mut **self)
    }

    fn description(&self) -> String {
        engine::Engine::description(&**self)
    }
}

/// A [`Scorer`] ready to search, and how it got there.
pub struct Ready<S> {
    /// The scorer, database resident.
    pub scorer: S,
    /// Seconds spent packing the database, of the time opening the scorer
    /// took (`None`: not told apart).
    pub pack_seconds: Option<f64>,
    /// Whether the scorer runs on GPUs.
    pub on_gpus: bool,
    /// How the engine differs from what was asked (said once, unless
    /// `--quiet`).
    pub notice: Option<String>,
}

pub fn run(args: SearchArgs) -> anyhow::Result<ExitCode> {
    let prepared = prepare(&args)?;
    // The GPUs start while the database is read (`engine::open` then finds
    // them ready).
    let gpus = match &prepared.placement {
        Placement::Cpu => None,
        Placement::Auto(list) | Placement::Gpus(list) => Some(list.clone()),
    };
    let warming =
        gpus.map(|list| std::thread::spawn(move || host::engine::gpu::warm_up(list.as_deref())));
    let read_started = Instant::now();
    let db_path = &args.inputs.db;
    let (db, descriptions) = match prepared.wants_descriptions {
        true => {
            let (db, d) = load_db_with_descriptions(db_path)?;
            (db, Some(d))
        }
        false => (load_db(db_path)?, None),
    };
    let db = Arc::new(db);
    let read_seconds = read_started.elapsed().as_secs_f64();
    let (placement, scoring, options) = (
        prepared.placement.clone(),
        prepared.scoring.clone(),
        prepared.options.clone(),
    );
    let engine_db = db.clone();
    search(prepared, db, descriptions, read_seconds, move || {
        if let Some(warming) = warming {
            let _ = warming.join();
        }
        let opened = engine::open(placement, engine_db, scoring, &options)?;
        Ok(Ready {
            scorer: opened.engine,
            pack_seconds: opened.pack_seconds,
            on_gpus: opened.on_gpus,
            notice: opened.notice,
        })
    })?;
    Ok(ExitCode::SUCCESS)
}

/// The search itself, once the database is read: the header written, the
/// scorer opened by `open`, every batch scored, reported and written, the
/// output committed and the summary printed. Returns the scorer, for a
/// caller that adds to the summary.
pub fn search<S: Scorer>(
    prepared: Prepared,
    db: Arc<Database>,
    descriptions: Option<Vec<String>>,
    read_seconds: f64,
    open: impl FnOnce() -> anyhow::Result<Ready<S>>,
) -> anyhow::Result<S> {
    let Prepared {
        scoring,
        placement,
        options,
        method,
        format,
        columns,
        top,
        max_ln_evalue,
        target,
        mut out,
        queries,
        quiet,
        started: search_started,
        queries_seconds,
        ..
    } = prepared;
    let database = DatabaseSize {
        sequences: db.len() as u64,
        residues: db.total_residues(),
    };
    let statistics = Statistics::new(method, &scoring, database)?;
    // Lengths in input order, for the fit and the E-values.
    let mut lengths = vec![0usize; db.len()];
    let mut sorted_of = vec![0usize; db.len()];
    for (sorted, &original) in db.original_order().iter().enumerate() {
        lengths[original as usize] = db.length(sorted);
        sorted_of[original as usize] = sorted;
    }
    let lengths = SequenceLengths::new(lengths);

    // The header goes out before any alignment: an output that cannot be
    // written (`/dev/full`) fails now, not after the search.
    let shown = match is_standard_stream(&target) {
        true => "standard output".to_string(),
        false => target.display().to_string(),
    };
    let written = |e: std::io::Error| anyhow::Error::new(e).context(format!("writing {shown}"));
    let mut hits_out = HitsWriter::begin(
        &mut out,
        format,
        columns,
        &db,
        descriptions.as_deref(),
        &scoring.matrix,
    )
    .map_err(written)?;
    out.checkpoint().map_err(written)?;
    let realign = hits_out.needs_alignments();

    let open_started = Instant::now();
    let ready = open()?;
    let open_seconds = open_started.elapsed().as_secs_f64();
    if let Some(why) = &ready.notice
        && !quiet
    {
        eprintln!("warpsw: {why}");
    }
    let mut scorer = ready.scorer;

    let residues = u128::from(db.total_residues());
    let total_cells = queries.iter().map(|q| q.codes.len() as u128).sum::<u128>() * residues;
    let bar = CellProgress::new(total_cells, "", quiet);
    // Cells done so far, as the engine reports them: per chunk on one GPU
    // or the CPU, so that one long query moves the bar too.
    let progress = |cells: u64| bar.advance(u128::from(cells));

    let started = Instant::now();
    let mut cells = 0u128;
    let mut finished = 0usize;
    let mut time = SearchTime::default();
    let mut models = StatisticsTally::default();
    // The reports (statistics, ranking, realignment) of the batches scored
    // so far are made on another thread while the scorer scores the next
    // ones on this one: two stages of a pipeline, so the GPUs do not wait
    // for the host's work on the hits. The scorer keeps scoring until the
    // report is done (up to MAX_SCORES_AHEAD_BYTES of scores), and the next
    // report takes every batch scored meanwhile: the realignments of many
    // queries then run side by side, instead of one query's longest pair
    // after another's. (The scorer stays on this thread: an MPI job's
    // collectives are called from the thread that started MPI.)
    let batch_len = scorer.batch_len().max(1);
    let mut scored_upto = 0usize; // queries[..scored_upto] are scored
    let mut pending: Option<(usize, Vec<Vec<i32>>)> = None; // first query, scores
    let mut failed: Option<anyhow::Error> = None;
    // After a scoring error the batches scored before it are still
    // reported, then the search stops.
    while pending.is_some() || (failed.is_none() && scored_upto < queries.len()) {
        let reporting = pending.take();
        let report_done = AtomicBool::new(false);
        let has_report = reporting.is_some();
        let first_unscored = match failed {
            None => scored_upto,
            Some(_) => queries.len(),
        };
        let (scored, reported, waited) = std::thread::scope(|s| {
            let report = s.spawn(|| {
                let (first, group_scores) = reporting?;
                let group = &queries[first..first + group_scores.len()];
                let reports = report_batch(
                    group,
                    group_scores,
                    &db,
                    &lengths,
                    &sorted_of,
                    &statistics,
                    &scoring,
                    &placement,
                    &options,
                    top,
                    max_ln_evalue,
                    realign,
                );
                report_done.store(true, Ordering::Release);
                Some((group, reports))
            });
            let scoring_started = Instant::now();
            let mut scores = Vec::new();
            let mut error = None;
            let mut next = first_unscored;
            let query_bytes = 4 * db.len().max(1);
            while next < queries.len() {
                let batch = &queries[next..(next + batch_len).min(queries.len())];
                let codes: Vec<&[u8]> = batch.iter().map(|q| &q.codes[..]).collect();
                match scorer.score_batch(&codes, &progress) {
                    Ok(batch_scores) => scores.extend(batch_scores),
                    Err(e) => {
                        error = Some(e);
                        break;
                    }
                }
                next += batch.len();
                if queries.len() > 1 {
                    bar.queries_scored(next, queries.len());
                }
                if !has_report
                    || report_done.load(Ordering::Acquire)
                    || scores.len() * query_bytes >= MAX_SCORES_AHEAD_BYTES
                {
                    break;
                }
            }
            let scored_at = Instant::now();
            let reported = report
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            let waited = scored_at.elapsed().as_secs_f64();
            time.scoring += (scored_at - scoring_started).as_secs_f64();
            ((scores, error), reported, waited)
        });
        if let Some((group, reports)) = reported {
            let (reports, report_time) = match reports {
                Ok(reports) => reports,
                Err(e) => {
                    bar.finish();
                    return Err(keep_finished(out, finished, e));
                }
            };
            time.reported(report_time, waited);
            let writing = Instant::now();
            // Each finished query is written and handed to the system at
            // once: an interrupted run keeps it (in FILE.partial).
            for (q, hits) in group.iter().zip(&reports) {
                models.add(q, hits.statistics.as_ref());
                hits_out.query(&mut out, hits).map_err(written)?;
                out.checkpoint().map_err(written)?;
                cells += q.codes.len() as u128 * residues;
                finished += 1;
            }
            time.writing += writing.elapsed().as_secs_f64();
        }
        let (new_scores, error) = scored;
        if !new_scores.is_empty() {
            pending = Some((scored_upto, new_scores));
            scored_upto += pending.as_ref().map_or(0, |p| p.1.len());
        }
        for warning in scorer.take_warnings() {
            bar.suspend(|| eprintln!("warpsw: warning: {warning}"));
        }
        if let Some(e) = error {
            failed = Some(e);
        }
    }
    if let Some(e) = failed {
        bar.finish();
        return Err(keep_finished(out, finished, e));
    }
    let seconds = started.elapsed().as_secs_f64();
    bar.finish();
    let writing = Instant::now();
    hits_out.finish(&mut out).map_err(written)?;
    out.commit()?;
    time.writing += writing.elapsed().as_secs_f64();
    time.queries_read = queries_seconds;
    time.database_read = read_seconds;
    time.open = open_seconds;
    time.packing = ready.pack_seconds;
    time.gpu = ready.on_gpus;

    if !quiet {
        for line in models.fallbacks() {
            eprintln!("warpsw: statistics: {line}");
        }
        eprintln!(
            "warpsw: {} x {} ({} residues): {:.3e} cells in {:.3} s = {:.1} GCUPS [{}]; {}; \
             statistics {}",
            count(queries.len() as u64, "query", "queries"),
            count(db.len() as u64, "sequence", "sequences"),
            db.total_residues(),
            cells as f64,
            seconds,
            gcups(cells, seconds),
            scorer.description(),
            time.summary(search_started.elapsed().as_secs_f64()),
            models.summary(database),
        );
    }
    Ok(scorer)
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

/// GCUPS = |Q| × |D| / t / 1e9 (docs/design.md §4): cells over wall time from
/// query submitted to sorted hits, database already resident.
pub fn gcups(cells: u128, seconds: f64) -> f64 {
    if seconds > 0.0 {
        cells as f64 / seconds / 1e9
    } else {
        0.0
    }
}
