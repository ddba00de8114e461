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
//! Options and the output are checked before any input is read; each
//! query's hits are written to the output (`crate::output_file`) as soon as
//! the query is done, in query order, and the progress bar
//! (`crate::progress`) advances by the query's cells.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use anyhow::{Context, bail};
use host::align::{AlignOptions, Alignment, Mode, align_pairs};
use host::db::Database;
use host::engine::gpu::MemoryCap;
use host::engine::{self, Placement, SearchOptions};
use host::fasta::{Record, duplicate_id, read_fasta};
use host::kernel::KernelChoice;
use host::merge::top_hits_at;
use host::output::{Format, HitsWriter, QueryHits, ReportedHit};
use host::scoring::Scoring;
use host::stats::{
    DatabaseSize, Method, QueryStatistics, SequenceLengths, Statistics, check_method,
};
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

/// The `--device`, `--devices`, `--balance`, `--gpu-memory` and
/// `--gpu-streams` choices,
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
    if let (DeviceChoice::Cpu, Some(streams)) = (choice, args.gpu_streams) {
        bail!(
            "--gpu-streams {streams} is for a GPU, but --device cpu runs on the CPU: drop one of them"
        );
    }
    if choice == DeviceChoice::Cpu && args.one_query_a_launch {
        bail!(
            "--one-query-a-launch is for a GPU, but --device cpu runs on the CPU: drop one of them"
        );
    }
    if let Some(batch) = args.gpu_query_batch {
        if choice == DeviceChoice::Cpu {
            bail!(
                "--gpu-query-batch {batch} is for a GPU, but --device cpu runs on the CPU: drop one of them"
            );
        }
        if args.one_query_a_launch && batch > 1 {
            bail!(
                "--gpu-query-batch {batch} puts several queries in a launch, but --one-query-a-launch asks for one: drop one of them"
            );
        }
    }
    let options = SearchOptions {
        kernel,
        policy: args.balance.parse()?,
        memory: MemoryCap::new(args.gpu_memory),
        streams: usize::from(
            args.gpu_streams
                .unwrap_or(host::engine::gpu::DEFAULT_GPU_STREAMS),
        ),
        pair_queries: !args.one_query_a_launch,
        query_batch: args.gpu_query_batch.map(usize::from),
        queries: 1,
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
    warn_nucleotides(path, &records);
    Ok(Database::try_from_records(records)?)
}

/// Reads the database with each sequence's description (input order), for
/// the `stitle` column and the pairwise format.
pub fn load_db_with_descriptions(path: &Path) -> anyhow::Result<(Database, Vec<String>)> {
    if !is_standard_stream(path) && host::dbfile::is_wsw(path)? {
        return Ok(host::dbfile::open_with_descriptions(path)?);
    }
    let records = read_fasta(path).context("reading the database")?;
    warn_duplicates(path, &records);
    warn_nucleotides(path, &records);
    let descriptions = records.iter().map(|r| r.description.clone()).collect();
    Ok((Database::try_from_records(records)?, descriptions))
}

/// Reads the query file.
pub fn load_queries(path: &Path) -> anyhow::Result<Vec<Record>> {
    let records = read_fasta(path).context("reading the queries")?;
    warn_duplicates(path, &records);
    warn_nucleotides(path, &records);
    Ok(records)
}

/// Warns when records look like nucleotides
/// ([`host::alphabet::looks_like_nucleotides`]): warpsw would search them
/// as protein, and find nonsense hits.
pub fn warn_nucleotides(path: &Path, records: &[Record]) {
    let dna: Vec<&Record> = records
        .par_iter()
        .filter(|r| host::alphabet::looks_like_nucleotides(&r.codes))
        .collect();
    if dna.is_empty() {
        return;
    }
    let named: Vec<String> = dna
        .iter()
        .take(5)
        .map(|r| format!("'{}'", host::fasta::escape_controls(&r.id)))
        .collect();
    eprintln!(
        "warpsw: warning: {}: {} of {} look like nucleotides (90 % or more A, C, G, T, U, N): {}{}; \
         warpsw compares proteins, and reads them as amino acids",
        path.display(),
        count(dna.len() as u64, "record", "records"),
        records.len(),
        named.join(", "),
        if dna.len() > named.len() { ", ..." } else { "" }
    );
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

/// A batch's reported pairs are realigned on the GPUs (when the search ran
/// there) only from this many pairs on: the traceback kernels run one
/// thread per pair, so a few hundred pairs (10 hits of a batch of queries)
/// leave a GPU nearly idle and the host's cores are faster (on an H100
/// machine, 200 pairs of the 20 standard queries × UniProt 20k took 9.0 s
/// on the GPU in batches of one query and 1.2 s on 16 cores;
/// benches/RESULTS.md).
pub const GPU_ALIGN_MIN_PAIRS: usize = 20_000;

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
    time.gpu = !matches!(placement, Placement::Cpu);

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

/// One batch's reports: for each query its statistics from all its scores
/// (`batch_scores`, sorted database order), the hits ranked by E-value
/// ([`rank_by_evalue`]) and their alignments, realigned with traceback
/// (on the GPUs when the search's placement has them and there are at
/// least [`GPU_ALIGN_MIN_PAIRS`] pairs, else on the CPU) and checked: each
/// alignment's score must equal the search's. With `realign` false (the
/// output prints no alignment column) the hits carry no alignment.
#[allow(clippy::too_many_arguments)]
fn report_batch<'q>(
    batch: &'q [Record],
    batch_scores: Vec<Vec<i32>>,
    db: &Database,
    lengths: &SequenceLengths,
    sorted_of: &[usize],
    statistics: &Statistics,
    scoring: &Scoring,
    placement: &Placement,
    options: &SearchOptions,
    top: usize,
    max_ln_evalue: f64,
    realign: bool,
) -> anyhow::Result<(Vec<QueryHits<'q>>, ReportTime)> {
    let statistics_started = Instant::now();
    // Statistics and ranking, the batch's queries side by side.
    type Ranked = (Option<QueryStatistics>, Vec<usize>, Vec<i32>);
    let ranked: Vec<Ranked> = batch
        .par_iter()
        .zip(batch_scores)
        .map(|(q, sorted_scores)| {
            if statistics.method() == Method::RawScores {
                // The best scores, read in the engines' order.
                let hits = top_hits_at(&sorted_scores, db.original_order(), top);
                let (order, kept) = hits.iter().map(|h| (h.target, h.score)).unzip();
                return (None, order, kept);
            }
            // Input order (`Database::to_input_order`), gathered side by
            // side: on the last batch this is on the critical path.
            let scores: Vec<i32> = sorted_of
                .par_iter()
                .with_min_len(1 << 14)
                .map(|&sorted| sorted_scores[sorted])
                .collect();
            let stats = statistics.for_query(&q.codes, &scores, lengths);
            // Side by side within the query too: with one query a batch (a
            // GPU) the batch's queries give no parallelism.
            let order = stats.top_hits(&scores, lengths, top, max_ln_evalue);
            let kept = order.iter().map(|&i| scores[i]).collect();
            (Some(stats), order, kept)
        })
        .collect();

    let statistics_seconds = statistics_started.elapsed().as_secs_f64();
    let alignments_started = Instant::now();
    // Every reported pair of the batch, realigned in one call, unless the
    // output prints nothing of the alignments (`realign` false).
    // A target reported for several queries is listed once.
    let mut slots = std::collections::HashMap::new();
    let mut sequences: Vec<&[u8]> = batch.iter().map(|q| &q.codes[..]).collect();
    let mut pairs = Vec::new();
    for (qi, (_, order, _)) in ranked.iter().enumerate() {
        for &target in order {
            let slot = *slots.entry(target).or_insert_with(|| {
                sequences.push(db.sequence(sorted_of[target]));
                sequences.len() - 1
            });
            pairs.push((qi, slot));
        }
    }
    let where_ = match placement {
        Placement::Cpu => Placement::Cpu,
        _ if pairs.len() < GPU_ALIGN_MIN_PAIRS => Placement::Cpu,
        other => other.clone(),
    };
    let align_options = AlignOptions {
        memory: options.memory,
        ..AlignOptions::default()
    };
    let mut alignments = match realign {
        true => {
            align_pairs(
                where_,
                &sequences,
                &pairs,
                Mode::Local,
                scoring,
                &align_options,
            )?
            .alignments
        }
        false => Vec::new(),
    }
    .into_iter();

    let mut reports = Vec::with_capacity(batch.len());
    for (q, (stats, order, kept)) in batch.iter().zip(ranked) {
        let mut hits = Vec::with_capacity(order.len());
        for (&target, &score) in order.iter().zip(&kept) {
            let alignment: Option<Alignment> = match realign {
                true => Some(
                    alignments
                        .next()
                        .expect("one alignment per pair")
                        .with_context(|| {
                            format!("aligning query {} with {}", q.id, db.id(target))
                        })?,
                ),
                false => None,
            };
            if let Some(alignment) = &alignment
                && alignment.score != score
            {
                bail!(
                    "internal error (please report it): query {} against {}: the search scored {score}, \
                     the alignment {}",
                    q.id,
                    db.id(target),
                    alignment.score
                );
            }
            let length = lengths.lengths()[target];
            hits.push(ReportedHit {
                target,
                score,
                bits: stats.as_ref().map(|s| s.bits(score, length)),
                evalue: stats.as_ref().map(|s| s.evalue(score, length)),
                alignment,
            });
        }
        reports.push(QueryHits {
            query: &q.id,
            codes: &q.codes,
            statistics: stats,
            hits,
        });
    }
    let time = ReportTime {
        statistics: statistics_seconds,
        alignments: alignments_started.elapsed().as_secs_f64(),
    };
    Ok((reports, time))
}

/// A batch's report, timed: its statistics and ranking, then its
/// alignments (the rest of [`report_batch`]).
#[derive(Clone, Copy)]
struct ReportTime {
    statistics: f64,
    alignments: f64,
}

/// Where a search's time went, in parts that do not overlap and add up to
/// its whole: the reports (statistics, alignments) run beside the scoring
/// of the next batch, and count here only for the time the search waited
/// for them.
#[derive(Default)]
struct SearchTime {
    queries_read: f64,
    database_read: f64,
    /// Opening the engine: packing, and on GPUs their start, the modules'
    /// loading and the upload.
    open: f64,
    /// Of `open`, the packing, where the engine tells it apart.
    packing: Option<f64>,
    /// Whether the engine runs on GPUs.
    gpu: bool,
    /// Waiting for the engine's scores.
    scoring: f64,
    /// Waiting for statistics and ranking.
    statistics: f64,
    /// Waiting for alignments.
    alignments: f64,
    /// Writing the hits (and committing the output).
    writing: f64,
    /// Statistics and alignments in all, beside the scoring or not.
    statistics_total: f64,
    alignments_total: f64,
}

impl SearchTime {
    /// A report that took `time` and that the search waited `waited`
    /// seconds for after its scoring: the alignments ran last, so the wait
    /// is theirs first.
    fn reported(&mut self, time: ReportTime, waited: f64) {
        let alignments = waited.min(time.alignments);
        self.alignments += alignments;
        self.statistics += (waited - alignments).min(time.statistics);
        self.statistics_total += time.statistics;
        self.alignments_total += time.alignments;
    }

    /// The parts, with what is left of `whole` as `other`, and the reports'
    /// whole time.
    fn summary(&self, whole: f64) -> String {
        let mut parts = vec![
            ("queries read", self.queries_read),
            ("database read", self.database_read),
        ];
        match (self.packing, self.gpu) {
            (_, false) => parts.push(("database packed", self.open)),
            (Some(packing), true) => {
                parts.push(("database packed", packing));
                parts.push(("GPU start and upload", self.open - packing));
            }
            (None, true) => parts.push(("GPU start, packing and upload", self.open)),
        }
        parts.extend([
            ("scoring", self.scoring),
            ("statistics", self.statistics),
            ("alignments", self.alignments),
            ("writing", self.writing),
        ]);
        let known: f64 = parts.iter().map(|(_, s)| s).sum();
        parts.push(("other", (whole - known).max(0.0)));
        let listed: Vec<String> = parts
            .iter()
            .map(|(what, s)| format!("{what} {s:.3}"))
            .collect();
        format!(
            "{whole:.3} s in all: {} (statistics {:.3} s and alignments {:.3} s in all, the rest \
             beside the scoring)",
            listed.join(", "),
            self.statistics_total,
            self.alignments_total
        )
    }
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

/// Which statistics a search's queries got: counted for the summary, and
/// the queries that fell back named, once each, on standard error.
#[derive(Default)]
struct StatisticsTally {
    /// Queries per model (`host::stats::Model::name`), in first-seen order.
    counts: Vec<(&'static str, usize)>,
    /// The models queries fell back to, in first-seen order.
    fallbacks: Vec<FellBack>,
}

/// The queries that fell back to one model.
struct FellBack {
    /// The model (`host::stats::Model::name`).
    model: &'static str,
    /// Each query's id and length.
    queries: Vec<(String, usize)>,
    /// Why the first of them fell back.
    why: String,
}

/// Queries a fallback line names before it says how many more.
const FALLBACKS_NAMED: usize = 10;

impl StatisticsTally {
    fn add(&mut self, query: &Record, statistics: Option<&QueryStatistics>) {
        // None: `--stats none`.
        let Some(statistics) = statistics else {
            return;
        };
        let model = statistics.model.name();
        match self.counts.iter_mut().find(|(m, _)| *m == model) {
            Some((_, n)) => *n += 1,
            None => self.counts.push((model, 1)),
        }
        let Some(why) = &statistics.fallback else {
            return;
        };
        let named = (query.id.clone(), query.codes.len());
        match self.fallbacks.iter_mut().find(|f| f.model == model) {
            Some(f) => f.queries.push(named),
            None => self.fallbacks.push(FellBack {
                model,
                queries: vec![named],
                why: why.clone(),
            }),
        }
    }

    /// One line per fallback model: its queries (id and length) and why.
    fn fallbacks(&self) -> Vec<String> {
        self.fallbacks
            .iter()
            .map(
                |FellBack {
                     model,
                     queries,
                     why,
                 }| {
                    let mut names: Vec<String> = queries
                        .iter()
                        .take(FALLBACKS_NAMED)
                        .map(|(id, length)| {
                            format!("{id} ({})", count(*length as u64, "residue", "residues"))
                        })
                        .collect();
                    if queries.len() > FALLBACKS_NAMED {
                        names.push(format!("and {} more", queries.len() - FALLBACKS_NAMED));
                    }
                    format!(
                        "{} got {model} statistics: {}; for the first, {why}",
                        count(queries.len() as u64, "query", "queries"),
                        names.join(", ")
                    )
                },
            )
            .collect()
    }

    /// The summary's account: how many queries got each model, over what.
    fn summary(&self, database: DatabaseSize) -> String {
        if self.counts.is_empty() {
            return "none: the best raw scores".into();
        }
        let counts: Vec<String> = self
            .counts
            .iter()
            .map(|(model, n)| format!("{model} {n}"))
            .collect();
        format!(
            "{} (queries); E-values over the whole database: {} sequences, {} residues",
            counts.join(", "),
            database.sequences,
            database.residues
        )
    }
}
