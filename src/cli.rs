//! Command-line arguments (clap derive) and their validation into the
//! library's types.

use std::path::PathBuf;

use anyhow::Context;
use clap::{Args, Parser, Subcommand, ValueEnum};
use host::align::AlignmentFormat;
use host::engine::gpu::resident::batch::MAX_BATCH_QUERIES;
use host::kernel::{AutoOptions, KERNELS, KernelChoice, plan};
use host::matrix::ScoreMatrix;
use host::output::{Column, Format, parse_columns};
use host::scoring::{GapPenalty, Scoring};
use host::stats::Method;

const GAP_HELP: &str = "Gap penalties follow BLAST and CUDASW++: a gap of length k costs \
open + k*extend (so --gap-open 11 --gap-extend 1 charges 12 for a one-residue gap). \
Tools that charge `open` for a gap's first residue mean open' = open + extend.";

/// Exact Smith-Waterman protein search on NVIDIA GPUs (kernels written in Rust).
#[derive(Parser, Debug)]
#[command(name = "warpsw", version, about, after_help = GAP_HELP)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
    /// Worker threads on the CPU (alignment, database preparation); all
    /// cores by default (the RAYON_NUM_THREADS environment variable sets it
    /// too).
    #[arg(long, global = true, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub threads: Option<u16>,
}

/// Subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Search every query against every database sequence; print the top hits.
    #[command(after_help = GAP_HELP)]
    Search(SearchArgs),
    /// Generate a database with planted homologs of a query and search it.
    Demo(DemoArgs),
    /// Time kernels on a resident database; GCUPS per query and kernel.
    #[command(after_help = GAP_HELP)]
    Bench(BenchArgs),
    /// List the kernel variants.
    Kernels,
    /// Prepare a database once: encode, sort by length, write a `.wsw` file
    /// that `search --db` memory-maps instead of parsing FASTA.
    Makedb(MakedbArgs),
    /// Align every query with every target, with traceback (CIGAR,
    /// coordinates, identity): gpu-pairAlign's kernels (Blazewicz 2011), on
    /// the GPUs or the CPU.
    #[command(after_help = GAP_HELP)]
    Align(AlignArgs),
    /// Align every pair (i < j) of one FASTA file, with traceback.
    #[command(after_help = GAP_HELP)]
    Allpairs(AllpairsArgs),
    /// Print database sequences by id, as FASTA (from a `.wsw` file or
    /// FASTA), in the order asked.
    Get(GetArgs),
}

/// `warpsw get`.
#[derive(Args, Debug)]
pub struct GetArgs {
    /// Database: a `.wsw` file from `warpsw makedb`, or FASTA.
    #[arg(value_name = "DB")]
    pub db: PathBuf,
    /// Ids of the sequences to print: the whole id, or its accession or
    /// entry name (`P0AD86` or `LPT_ECOLI` for `sp|P0AD86|LPT_ECOLI`) where
    /// only one record has it.
    #[arg(value_name = "ID", required = true)]
    pub ids: Vec<String>,
    /// Write the FASTA here instead of standard output (`-`); compressed
    /// when the name ends in `.gz`.
    #[arg(short, long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

/// Where the alignment runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum DeviceChoice {
    /// The GPU if a CUDA driver and a GPU are present, else the CPU (said once).
    Auto,
    /// The CPU (all cores).
    Cpu,
    /// GPU 0; an error if there is none.
    Gpu,
}

/// Scoring options shared by the subcommands.
#[derive(Args, Debug, Clone)]
pub struct ScoringArgs {
    /// Built-in substitution matrix: blosum45, blosum50, blosum62, blosum80,
    /// blosum90, pam30, pam70, pam250 (any case; also as ssearch36 spells
    /// them: BL62, P250).
    #[arg(long, default_value = "blosum62", conflicts_with = "matrix_file")]
    pub matrix: String,
    /// A substitution matrix in NCBI's text format (instead of --matrix).
    #[arg(long, value_name = "FILE")]
    pub matrix_file: Option<PathBuf>,
    /// Gap open penalty (a gap of length k costs open + k*extend).
    #[arg(long, default_value_t = 11, allow_negative_numbers = true)]
    pub gap_open: i32,
    /// Gap extension penalty (charged for every residue of a gap).
    #[arg(long, default_value_t = 1, allow_negative_numbers = true)]
    pub gap_extend: i32,
}

impl ScoringArgs {
    /// The validated scoring.
    pub fn scoring(&self) -> anyhow::Result<Scoring> {
        let matrix = match &self.matrix_file {
            Some(path) => ScoreMatrix::from_file(path)
                .with_context(|| format!("reading --matrix-file {}", path.display()))?,
            None => ScoreMatrix::by_name(&self.matrix)?,
        };
        let gaps = GapPenalty::new(self.gap_open, self.gap_extend)?;
        Ok(Scoring { matrix, gaps })
    }
}

/// The two stages of `--kernel auto`: shared by `search` and `bench`.
#[derive(Args, Debug, Clone)]
pub struct AutoArgs {
    /// With `auto` where the group kernels do not run (GPUs before Hopper,
    /// gaps beyond 16 bits, or fewer than --auto-group-min-sequences
    /// sequences): the longest database sequence (residues) that `simt`
    /// (`simt-i16x2` from Hopper on) aligns; longer ones go to --auto-long.
    #[arg(long, default_value_t = plan::DEFAULT_AUTO_THRESHOLD)]
    pub auto_threshold: usize,
    /// With `auto` where the group kernels do not run: the warp kernel for
    /// sequences above --auto-threshold.
    #[arg(long, default_value_t = plan::DEFAULT_AUTO_LONG.name().to_string())]
    pub auto_long: String,
    /// With `auto` where the group kernels do not run: a database with
    /// fewer sequences up to --auto-threshold than this is aligned by
    /// --auto-long alone (too few threads to fill a GPU); 0 never skips the
    /// first stage.
    #[arg(long, default_value_t = plan::AUTO_MIN_FIRST_STAGE_SEQUENCES)]
    pub auto_min_sequences: usize,
    /// With `auto` on GPUs with DPX (Hopper on) and gaps that fit 16 bits: a
    /// database of at least this many sequences is aligned by the group
    /// kernels alone, every length (`group-i16x2`, and `query-group-i16x2`
    /// for the short ones: --auto-query-group). A search of more than two
    /// queries against fewer than 50,000 sequences on one GPU runs
    /// `query-group-i16x2` throughout instead, in batches of queries.
    #[arg(long, default_value_t = plan::AUTO_GROUP_MIN_SEQUENCES)]
    pub auto_group_min_sequences: usize,
    /// With `auto` where `group-i16x2` aligns every length: chunks whose
    /// longest sequence has at most this many residues run
    /// `query-group-i16x2` instead; 0 none (and no batches of queries).
    #[arg(long, default_value_t = plan::AUTO_QUERY_GROUP_MAX, value_name = "RESIDUES")]
    pub auto_query_group: usize,
    /// With --auto-query-group: a database with fewer sequences up to that
    /// length than this keeps `group-i16x2` for them too (too few pairs to
    /// fill a GPU pass after pass).
    #[arg(long, default_value_t = plan::AUTO_QUERY_GROUP_MIN_SEQUENCES)]
    pub auto_query_group_min_sequences: usize,
}

/// Where a search runs: shared by `search` and `bench`.
#[derive(Args, Debug, Clone)]
pub struct PlacementArgs {
    /// Where to align.
    #[arg(long, value_enum, default_value_t = DeviceChoice::Auto)]
    pub device: DeviceChoice,
    /// GPUs to use: `all` (the default) or a list such as `0,2`. By default
    /// each holds one part of the database (nearly equal residues) and runs
    /// the one-GPU engine on it, streaming what its memory does not hold;
    /// --balance weighted|greedy|dynamic has each hold the whole database
    /// and share its chunks instead.
    #[arg(long, value_name = "all|LIST")]
    pub devices: Option<String>,
    /// How several GPUs share a search: split (the database in parts by
    /// residues, one a GPU, each GPU's part searched as one GPU searches;
    /// a failed GPU's part is redone on another), or each holding the whole
    /// database, its chunks spread by weighted (SW-CUDA: shares by measured
    /// speed, re-weighted after each query), greedy (NESW: longest first to
    /// the least-loaded GPU) or dynamic (GPUs pull from a queue).
    #[arg(long, default_value = "split")]
    pub balance: String,
    /// Use at most this much of each GPU's free memory (e.g. `8GiB`,
    /// `500MB`); a database that does not fit is streamed part by part.
    #[arg(long, value_name = "SIZE", value_parser = parse_memory)]
    pub gpu_memory: Option<usize>,
    /// On one GPU: run the database's chunks side by side on this many
    /// streams, longest first (1: one chunk after another) [default: 16]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=64))]
    pub gpu_streams: Option<u16>,
    /// On one GPU: score every query in launches of its own, never two
    /// queries in one (by default the query-group kernel scores two
    /// queries of similar length in one launch where that is cheaper; the
    /// scores are the same).
    #[arg(long)]
    pub one_query_a_launch: bool,
    /// On one GPU: score up to N queries in one launch sequence where the
    /// kernel batches them (query pairs of similar length, the whole batch
    /// in each launch; what fills the GPU on a small database) [default:
    /// as many as fill the GPU, none where one query fills it; 2 or fewer:
    /// none; at most 512]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=MAX_BATCH_QUERIES as i64))]
    pub gpu_query_batch: Option<u16>,
}

/// `--columns`: the columns picked (a named type, so clap keeps the list
/// as one value).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ColumnList(pub Vec<Column>);

fn parse_column_list(text: &str) -> Result<ColumnList, String> {
    parse_columns(text).map(ColumnList)
}

/// Parses `--evalue`: a number, 0 or more (not NaN).
fn parse_evalue(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(x) if x >= 0.0 => Ok(x),
        Ok(x) => Err(format!(
            "{x} is not an E-value: expected a number, 0 or more"
        )),
        Err(e) => Err(format!(
            "{e}: expected a number, 0 or more, such as 10 or 1e-5"
        )),
    }
}

/// Parses `--gpu-memory`: a byte count with an optional unit (`KB`, `MiB`,
/// `GiB`, ...).
fn parse_memory(text: &str) -> Result<usize, String> {
    let bytes = parse_size::parse_size(text)
        .map_err(|e| format!("{e}: expected a size such as 8GiB or 500MB"))?;
    match usize::try_from(bytes) {
        Ok(0) => Err("the size must be more than 0 bytes".into()),
        Ok(bytes) => Ok(bytes),
        Err(_) => Err(format!(
            "{bytes} bytes is more than this machine can address"
        )),
    }
}

/// The queries and the database: shared by `search` and `bench`.
#[derive(Args, Debug, Clone)]
pub struct SearchInputs {
    /// Query sequences (FASTA, optionally gzipped; `-` for standard input).
    #[arg(short, long, value_name = "FILE")]
    pub query: PathBuf,
    /// Database: FASTA (optionally gzipped; `-` for standard input) or a
    /// `.wsw` file from `warpsw makedb`.
    #[arg(short, long, value_name = "FILE")]
    pub db: PathBuf,
}

/// `warpsw search`.
#[derive(Args, Debug)]
pub struct SearchArgs {
    #[command(flatten)]
    pub inputs: SearchInputs,
    #[command(flatten)]
    pub scoring: ScoringArgs,
    /// Hits reported per query, at most (at least 1), best E-value first
    /// (ties: higher score, then database order); with --stats none the
    /// best scores (ties: database order).
    #[arg(long, visible_alias = "top", default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_target_seqs: u64,
    /// Report only hits with an E-value up to this (a number, 0 or more;
    /// default 10). Not with --stats none, which computes no E-values.
    #[arg(long, value_parser = parse_evalue, allow_negative_numbers = true)]
    pub evalue: Option<f64>,
    /// How E-values and bit scores are computed: fitted to this search's
    /// own scores (Pearson 1998, as SSEARCH does; a query whose scores
    /// cannot be fitted falls back to the published parameters, else to a
    /// fit of its scores against random sequences, else to the matrix's
    /// ungapped parameters, and stderr names it), fixed (Karlin-Altschul
    /// with the published lambda and K of the matrix and gap costs,
    /// Altschul & Gish 1996, and the finite-size correction of Park et al.
    /// 2012 as blastp applies it), or fixed-fasta (Karlin-Altschul with
    /// FASTA's table of Altschul-Gish lambda, K, H, each pair's lengths
    /// shortened by ln(K m n)/H, E over the database's sequences, as
    /// `ssearch36 -z 3`; BLOSUM50 and BLOSUM62 at the gap costs of FASTA's
    /// table), or none (no E-values or bit scores: the --max-target-seqs
    /// best raw scores, ties in database order; tsv and json leave those
    /// columns out, and the evalue and bitscore columns, --evalue and
    /// --format blast6 without --columns are refused).
    #[arg(long, value_enum, default_value_t = Method::Fitted)]
    pub stats: Method,
    /// Columns of the tsv, blast6 or json output, by BLAST's names, comma
    /// separated: qseqid qlen sseqid slen stitle qstart qend sstart send
    /// qseq sseq evalue bitscore score length pident nident mismatch
    /// positive gapopen gaps ppos qcovhsp cigar, or std (BLAST's 12).
    #[arg(long, value_name = "LIST", value_parser = parse_column_list)]
    pub columns: Option<ColumnList>,
    /// Kernel variant (see `warpsw kernels`), or `auto`: the plan `warpsw
    /// kernels` describes (on GPUs from Hopper on with gaps that fit 16
    /// bits, `query-group-i16x2` and `group-i16x2`; on other GPUs `simt` or
    /// `simt-i16x2` up to --auto-threshold residues, --auto-long above; on
    /// the CPU `simt`).
    #[arg(long, default_value = "auto")]
    pub kernel: String,
    #[command(flatten)]
    pub auto: AutoArgs,
    #[command(flatten)]
    pub placement: PlacementArgs,
    /// Output format: tsv (header line; qseqid sseqid score bitscore evalue
    /// qlen slen pident length mismatch gapopen qstart qend sstart send
    /// cigar), blast6 (BLAST's -outfmt 6), json, or pairwise (statistics,
    /// hit table and alignments, like SSEARCH).
    #[arg(long, value_enum, default_value_t = Format::Tsv)]
    pub format: Format,
    /// Write hits here instead of standard output (`-`); compressed when
    /// the name ends in `.gz`. Written to a temporary file beside it and
    /// renamed when complete; an interrupted search keeps its finished
    /// queries in FILE.partial.
    #[arg(short, long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// No summary, notice or progress bar on standard error (warnings and
    /// errors still show).
    #[arg(long)]
    pub quiet: bool,
    /// Print the plan instead of searching: where the search would run,
    /// whether the database stays resident, which kernel (and
    /// configuration) scores which chunks for each length of query,
    /// whether queries are paired or batched, and the statistics; reads the
    /// queries and the database, writes no output file.
    #[arg(long)]
    pub explain: bool,
}

/// `warpsw demo`.
#[derive(Args, Debug)]
pub struct DemoArgs {
    /// Database sequences to generate.
    #[arg(long, default_value_t = 20_000)]
    pub sequences: usize,
    /// Random seed.
    #[arg(long, default_value_t = 7)]
    pub seed: u64,
    /// Where to align.
    #[arg(long, value_enum, default_value_t = DeviceChoice::Auto)]
    pub device: DeviceChoice,
    /// Keep the generated FASTA files in this directory.
    #[arg(long, value_name = "DIR")]
    pub keep: Option<PathBuf>,
}

/// `warpsw bench`: one row per query.
#[derive(Args, Debug)]
pub struct BenchArgs {
    #[command(flatten)]
    pub inputs: SearchInputs,
    #[command(flatten)]
    pub scoring: ScoringArgs,
    /// Kernels to time, comma separated; `auto` (the default) is what
    /// `search` runs.
    #[arg(long, default_value = "auto", value_delimiter = ',')]
    pub kernels: Vec<String>,
    #[command(flatten)]
    pub auto: AutoArgs,
    #[command(flatten)]
    pub placement: PlacementArgs,
    /// Untimed runs per query and kernel before timing.
    #[arg(long, default_value_t = 1)]
    pub warmup: usize,
    /// Timed runs per query and kernel (the median is reported).
    #[arg(long, default_value_t = 3)]
    pub repeat: usize,
    /// Database sequences per query whose scores are checked against the
    /// scalar reference (a timing counts only if they all match).
    #[arg(long, default_value_t = 300)]
    pub check: usize,
    /// Append one CSV row per timed run to this file (the file is replaced
    /// by its old rows plus the new ones once the run completes).
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
}

/// `warpsw makedb`.
#[derive(Args, Debug)]
pub struct MakedbArgs {
    /// Database (FASTA, optionally gzipped).
    #[arg(value_name = "FASTA")]
    pub input: PathBuf,
    /// The `.wsw` file to write (never the input).
    #[arg(short, long, value_name = "FILE")]
    pub out: PathBuf,
}

/// Parses `--kernel` / `--kernels` values; `auto` takes `--auto-threshold`,
/// `--auto-long` and `--auto-min-sequences`.
pub fn parse_kernel(name: &str, auto: &AutoArgs) -> anyhow::Result<KernelChoice> {
    Ok(match name.parse::<KernelChoice>()? {
        KernelChoice::Auto(_) => KernelChoice::Auto(AutoOptions {
            threshold: auto.auto_threshold,
            long: auto.auto_long.parse()?,
            min_sequences: auto.auto_min_sequences,
            group_min_sequences: auto.auto_group_min_sequences,
            query_group_max: auto.auto_query_group,
            query_group_min_sequences: auto.auto_query_group_min_sequences,
        }),
        one => one,
    })
}

/// `warpsw kernels`: the `KERNELS` table.
pub fn print_kernels() {
    let name = KERNELS.iter().map(|k| k.name.len()).max().unwrap_or(4);
    let symbol = KERNELS.iter().map(|k| k.symbol.len()).max().unwrap_or(6);
    println!(
        "{:<name$}  {:<symbol$}   bits  mapping; paper",
        "name", "symbol"
    );
    for k in KERNELS {
        println!(
            "{:<name$}  {:<symbol$}  {:>5}  {}; {}",
            k.name, k.symbol, k.score_bits, k.mapping, k.paper
        );
    }
    println!(
        "{:<name$}  {:<symbol$}  {:>5}  on GPUs from Hopper on when the gap penalties fit 16 bits: \
         query-group-i16x2 throughout for a search of more than two queries against fewer than {} \
         sequences on one GPU (batches of queries), else on databases of --auto-group-min-sequences ({}) \
         or more group-i16x2, with query-group-i16x2 for chunks up to --auto-query-group ({}) residues; otherwise \
         simt up to --auto-threshold ({}) residues (simt-i16x2 on GPUs from Hopper on, \
         when the gap penalties fit 16 bits), --auto-long ({}) above; --auto-long throughout for queries of {}+ \
         residues (first stage simt only) or when fewer than --auto-min-sequences ({}) sequences are for the first stage (the default)",
        "auto",
        "-",
        "16/32",
        plan::AUTO_BATCH_MAX_SEQUENCES,
        plan::AUTO_GROUP_MIN_SEQUENCES,
        plan::AUTO_QUERY_GROUP_MAX,
        plan::DEFAULT_AUTO_THRESHOLD,
        plan::DEFAULT_AUTO_LONG,
        plan::AUTO_LONG_QUERY,
        plan::AUTO_MIN_FIRST_STAGE_SEQUENCES
    );
    println!(
        "\nOn the CPU (no GPU, or --device cpu) simt and auto run the inter-sequence SIMD kernel;\n\
         every other kernel runs its own source with the warp emulated."
    );
    let sass = host::engine::gpu::sass_architectures();
    match sass.is_empty() {
        true => println!(
            "This build carries PTX only: the driver compiles it on a GPU's first search (and \
             caches it)."
        ),
        false => println!(
            "This build carries machine code for {} (each also serves the later minor \
             versions of its major); other GPUs compile the PTX on their first search.",
            sass.join(", ")
        ),
    }
    print_group_configs();
    print_query_group_configs();
}

/// The configurations of `query-group-i16x2`: shape, the register cap
/// written into each PTX build and the blocks per multiprocessor it gives
/// (256 threads and the window a block).
fn print_query_group_configs() {
    println!(
        "\nquery-group-i16x2 configurations (one per query and chunk, by a cost model; rows: rows a lane computes a step);\n\
         registers capped in the PTX (sm_80 build / sm_90 build) and blocks per multiprocessor at the cap (A100 / H100):"
    );
    println!(
        "{:<42} {:>5} {:>5} {:>4}  {:<7} {:>7} {:>13} {:>13}",
        "symbol", "lanes", "width", "rows", "update", "window", "max registers", "blocks per SM"
    );
    for g in host::kernel::occupancy::query_group_configs() {
        let c = g.config;
        println!(
            "{:<42} {:>5} {:>5} {:>4}  {:<7} {:>7} {:>13} {:>13}",
            c.symbol,
            c.lanes,
            c.width(),
            c.rows_per_step,
            format!("{:?}", c.update).to_lowercase(),
            c.window_bytes(),
            format!("{} / {}", g.max_registers[0], g.max_registers[1]),
            format!("{} / {}", g.blocks[0], g.blocks[1]),
        );
    }
    let fixed: Vec<String> = host::kernel::query_group::fixed_gap_settings()
        .map(|(open, extend, suffix)| format!("open {open} / extend {extend} ({suffix})"))
        .collect();
    println!(
        "Each configuration of the lifted update is also compiled with the gaps as constants, \
         the entry point a search with those gaps runs: {}.",
        fixed.join(", ")
    );
}

/// The configurations of `group-i16x2`: shape, update, the register cap
/// written into each PTX build and the blocks per multiprocessor it gives
/// (256 threads and the 62.5 KB pair table a block).
fn print_group_configs() {
    println!(
        "\ngroup-i16x2 configurations (one per chunk, by its longest sequence); registers capped in the PTX\n\
         (sm_80 build / sm_90 build) and blocks per multiprocessor at the cap (A100 / H100):"
    );
    println!(
        "{:<30} {:>5} {:>6}  {:<6} {:>13} {:>13}",
        "symbol", "width", "passes", "update", "max registers", "blocks per SM"
    );
    for g in host::kernel::occupancy::group_configs() {
        let c = g.config;
        println!(
            "{:<30} {:>5} {:>6}  {:<6} {:>13} {:>13}",
            c.symbol,
            c.width(),
            if c.passes { "many" } else { "one" },
            if c.biased { "biased" } else { "plain" },
            format!("{} / {}", g.max_registers[0], g.max_registers[1]),
            format!("{} / {}", g.blocks[0], g.blocks[1]),
        );
    }
}

/// Output options of `align` and `allpairs`.
#[derive(Args, Debug, Clone)]
pub struct AlignmentOutputArgs {
    /// Alignment mode: local (Smith-Waterman), global (Needleman-Wunsch,
    /// end gaps charged) or semiglobal (end gaps free).
    #[arg(long)]
    pub mode: host::align::Mode,
    #[command(flatten)]
    pub scoring: ScoringArgs,
    /// Output format: tsv (one line per pair), json, or pairwise (the aligned
    /// sequences, like EMBOSS needle/water).
    #[arg(long, value_enum, default_value_t = AlignmentFormat::Tsv)]
    pub format: AlignmentFormat,
    /// Write the alignments here instead of standard output (`-`);
    /// compressed when the name ends in `.gz`; written to a temporary file
    /// beside it and renamed when complete.
    #[arg(short, long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// CIGAR with `=` (identical residues) and `X` (different) instead of `M`.
    #[arg(long)]
    pub extended_cigar: bool,
    /// Where to align: the GPUs when present (auto), the CPU, or the GPUs.
    #[arg(long, value_enum, default_value_t = DeviceChoice::Auto)]
    pub device: DeviceChoice,
    /// GPUs to use: `all` (the default) or a list such as `0,2`. Windows of
    /// pairs go to them longest first (gpu-pairAlign's LPT schedule).
    #[arg(long, value_name = "all|LIST")]
    pub devices: Option<String>,
    /// Use at most this much of each GPU's free memory (e.g. `8GiB`,
    /// `500MB`); windows of pairs are sized to it.
    #[arg(long, value_name = "SIZE", value_parser = parse_memory)]
    pub gpu_memory: Option<usize>,
    /// No summary, notice or progress bar on standard error.
    #[arg(long)]
    pub quiet: bool,
}

/// `warpsw align`.
#[derive(Args, Debug)]
pub struct AlignArgs {
    /// Query sequences (FASTA, optionally gzipped).
    #[arg(short, long, value_name = "FILE")]
    pub query: PathBuf,
    /// Target sequences (FASTA, optionally gzipped).
    #[arg(short, long, value_name = "FILE")]
    pub target: PathBuf,
    #[command(flatten)]
    pub output: AlignmentOutputArgs,
}

/// `warpsw allpairs`.
#[derive(Args, Debug)]
pub struct AllpairsArgs {
    /// Sequences (FASTA, optionally gzipped); every pair i < j is aligned.
    #[arg(short, long, value_name = "FILE")]
    pub input: PathBuf,
    #[command(flatten)]
    pub output: AlignmentOutputArgs,
}
