//! `warpsw search`: the options checked, the output created, the queries
//! and the database read, the engine opened, then the library's pipeline
//! ([`host::search`]: score → statistics and ranking → realignment) with a
//! sink that writes each query's hits as soon as it is done, in query
//! order, and a progress bar (`crate::progress`) that advances by the
//! cells the engine reports.
//!
//! `inputs` holds where it runs and the files read; this module checks the
//! options and wires the stages; the MPI driver (`crate::cluster`) calls
//! [`search`] with its own scorer.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use anyhow::bail;
use host::db::Database;
use host::engine::{self, Placement, SearchOptions};
use host::fasta::Record;
use host::output::{Format, HitsWriter, QueryHits};
use host::scoring::Scoring;
use host::search::{DEFAULT_EVALUE, Scorer, Search, Sink};
use host::stats::{DatabaseSize, Method, check_method};

use crate::cli::{SearchArgs, parse_kernel};
use crate::output_file::{OutputFile, STANDARD_STREAM};
use crate::progress::CellProgress;

mod inputs;

pub use host::search::count;
pub use inputs::{
    check_standard_input, device_list, is_standard_stream, load_db, load_db_with_descriptions,
    load_queries, placement,
};

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
    /// `--evalue`.
    pub evalue: f64,
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

/// The checks of the statistics and the output's options that need no
/// file: the same for a search and for `--explain`, so a command a search
/// would refuse prints no plan either. Returns the columns to write.
fn check_output_options(
    args: &SearchArgs,
    scoring: &Scoring,
) -> anyhow::Result<Option<Vec<host::output::Column>>> {
    check_method(args.stats, scoring)?;
    let columns = args.columns.clone().map(|c| c.0);
    if columns.is_some() && args.format == Format::Pairwise {
        bail!("--columns picks the columns of tsv, blast6 or json; the pairwise format has none");
    }
    match args.stats {
        Method::RawScores => columns_without_statistics(columns, args.format, args.evalue),
        _ => Ok(columns),
    }
}

/// Checks every option and the output (created here), then reads the
/// queries; the database is not touched.
pub fn prepare(args: &SearchArgs) -> anyhow::Result<Prepared> {
    let started = Instant::now();
    // Everything the user chose is checked before any file is read.
    let (scoring, placement, mut options) = engine_setup(args)?;
    let columns = check_output_options(args, &scoring)?;
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
        evalue: args.evalue.unwrap_or(DEFAULT_EVALUE),
        target,
        out,
        queries,
        wants_descriptions,
        quiet: args.quiet,
        started,
        queries_seconds,
    })
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
    if args.explain {
        return explain(&args);
    }
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

/// `--explain`: the plan, decided as the search would decide it, printed
/// on standard output; nothing is searched and no output is written.
fn explain(args: &SearchArgs) -> anyhow::Result<ExitCode> {
    let (scoring, placement, mut options) = engine_setup(args)?;
    check_output_options(args, &scoring)?;
    check_standard_input(&[&args.inputs.query, &args.inputs.db])?;
    let queries = load_queries(&args.inputs.query)?;
    options.queries = queries.len();
    let db = load_db(&args.inputs.db)?;
    let lengths: Vec<usize> = queries.iter().map(|q| q.codes.len()).collect();
    let (shortest, longest) = (
        lengths.iter().min().copied().unwrap_or(0),
        lengths.iter().max().copied().unwrap_or(0),
    );
    let mut lines = vec![format!(
        "search: {} ({shortest} to {longest} residues) x {} ({} residues); {}, a gap of k \
         residues costing {} + {}*k",
        count(queries.len() as u64, "query", "queries"),
        count(db.len() as u64, "sequence", "sequences"),
        db.total_residues(),
        scoring.matrix.name(),
        scoring.gaps.open,
        scoring.gaps.extend,
    )];
    lines.extend(engine::explain::explain(
        placement, &db, &scoring, &options, &lengths,
    )?);
    let statistics = match args.stats {
        Method::RawScores => format!(
            "none: the {} best raw scores of each query",
            args.max_target_seqs
        ),
        method => format!(
            "{} over the whole database ({} sequences), each query's from all its scores; the \
             {} best hits of E-value {} at most",
            match method {
                Method::Fitted => "fitted (Pearson 1998; fallbacks named if a fit fails)",
                Method::Fixed => "fixed (Karlin-Altschul, published parameters)",
                _ => "fixed-fasta (FASTA's table)",
            },
            db.len(),
            args.max_target_seqs,
            args.evalue.unwrap_or(DEFAULT_EVALUE)
        ),
    };
    lines.push(format!("statistics: {statistics}"));
    // Printed once everything is decided: an error prints none of it.
    println!("{}", lines.join("\n"));
    Ok(ExitCode::SUCCESS)
}

/// The search itself, once the database is read: the header written, the
/// scorer opened by `open`, the library's pipeline run with a sink that
/// writes each query's hits, the output committed and the summary printed.
/// Returns the scorer, for a caller that adds to the summary.
pub fn search<S>(
    prepared: Prepared,
    db: Arc<Database>,
    descriptions: Option<Vec<String>>,
    read_seconds: f64,
    open: impl FnOnce() -> anyhow::Result<Ready<S>>,
) -> anyhow::Result<S>
where
    S: Scorer,
    anyhow::Error: From<S::Error>,
{
    let Prepared {
        scoring,
        placement,
        options,
        method,
        format,
        columns,
        top,
        evalue,
        target,
        mut out,
        queries,
        quiet,
        started: search_started,
        queries_seconds,
        ..
    } = prepared;
    // The header goes out before any alignment: an output that cannot be
    // written (`/dev/full`) fails now, not after the search.
    let shown = match is_standard_stream(&target) {
        true => "standard output".to_string(),
        false => target.display().to_string(),
    };
    let hits_out = HitsWriter::begin(
        &mut out,
        format,
        columns,
        &db,
        descriptions.as_deref(),
        &scoring.matrix,
    )
    .map_err(|e| written(&shown, e))?;
    out.checkpoint().map_err(|e| written(&shown, e))?;
    let search = Search {
        alignments: hits_out.needs_alignments(),
        scoring: scoring.clone(),
        method,
        top,
        evalue,
        placement,
        gpu_memory: options.memory,
    };

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
    let mut sink = WriteHits {
        hits_out,
        out,
        shown: &shown,
        bar: &bar,
        finished: 0,
        failed_writing: false,
    };
    // Cells done so far, as the engine reports them: per chunk on one GPU
    // or the CPU, so that one long query moves the bar too.
    let progress = |cells: u64| bar.advance(u128::from(cells));
    let searched = search.run(&queries, &db, &mut scorer, &mut sink, &progress);
    bar.finish();
    let WriteHits {
        hits_out,
        mut out,
        finished,
        failed_writing,
        ..
    } = sink;
    let mut searched = match searched {
        Ok(searched) => searched,
        // An output that cannot be written keeps nothing (its last query
        // may be cut): the temporary file goes with `out`.
        Err(e) if failed_writing => return Err(e),
        Err(e) => return Err(keep_finished(out, finished, e)),
    };
    let writing = Instant::now();
    hits_out.finish(&mut out).map_err(|e| written(&shown, e))?;
    out.commit()?;
    let time = &mut searched.time;
    time.writing += writing.elapsed().as_secs_f64();
    time.queries_read = queries_seconds;
    time.database_read = read_seconds;
    time.open = open_seconds;
    time.packing = ready.pack_seconds;
    time.gpu = ready.on_gpus;

    if !quiet {
        for line in searched.statistics.fallbacks() {
            eprintln!("warpsw: statistics: {line}");
        }
        let database = DatabaseSize {
            sequences: db.len() as u64,
            residues: db.total_residues(),
        };
        eprintln!(
            "warpsw: {} x {} ({} residues): {:.3e} cells in {:.3} s = {:.1} GCUPS [{}]; {}; \
             statistics {}",
            count(queries.len() as u64, "query", "queries"),
            count(db.len() as u64, "sequence", "sequences"),
            db.total_residues(),
            searched.cells as f64,
            searched.seconds,
            gcups(searched.cells, searched.seconds),
            scorer.description(),
            searched
                .time
                .summary(search_started.elapsed().as_secs_f64()),
            searched.statistics.summary(database),
        );
    }
    Ok(scorer)
}

/// An error writing the output, naming it.
fn written(shown: &str, e: std::io::Error) -> anyhow::Error {
    anyhow::Error::new(e).context(format!("writing {shown}"))
}

/// The command line's [`Sink`]: each finished query written and handed to
/// the system at once (an interrupted run keeps it, in `FILE.partial`);
/// the bar told the queries scored, warnings printed above it.
struct WriteHits<'a> {
    hits_out: HitsWriter<'a>,
    out: OutputFile,
    /// The output's name, for errors.
    shown: &'a str,
    bar: &'a CellProgress,
    /// Queries written.
    finished: usize,
    /// Whether writing the output failed.
    failed_writing: bool,
}

impl Sink for WriteHits<'_> {
    type Error = anyhow::Error;

    fn query(&mut self, hits: &QueryHits<'_>) -> anyhow::Result<()> {
        let written_out = self
            .hits_out
            .query(&mut self.out, hits)
            .and_then(|()| self.out.checkpoint());
        if let Err(e) = written_out {
            self.failed_writing = true;
            return Err(written(self.shown, e));
        }
        self.finished += 1;
        Ok(())
    }

    fn scored(&mut self, done: usize, total: usize) {
        if total > 1 {
            self.bar.queries_scored(done, total);
        }
    }

    fn warning(&mut self, text: &str) {
        self.bar.suspend(|| eprintln!("warpsw: warning: {text}"));
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
