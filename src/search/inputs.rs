//! A search's inputs: where it runs (`--device`, `--devices`, the GPU
//! options), its query and database files read (FASTA or `.wsw`), with the
//! warnings their records deserve (duplicate ids, nucleotides).

use std::path::Path;

use anyhow::{Context, bail};
use host::db::Database;
use host::dispatch::Policy;
use host::engine::gpu::MemoryCap;
use host::engine::{Placement, SearchOptions};
use host::fasta::{Record, duplicate_id, read_fasta};
use host::kernel::KernelChoice;
use host::search::count;
use rayon::prelude::*;

use crate::cli::{DeviceChoice, PlacementArgs};
use crate::output_file::STANDARD_STREAM;

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
        split: args.balance.eq_ignore_ascii_case("split"),
        policy: match args.balance.eq_ignore_ascii_case("split") {
            true => Policy::default(),
            false => args.balance.parse().map_err(|_| {
                anyhow::anyhow!(
                    "unknown dispatch policy '{}'; policies: split, weighted, greedy, dynamic",
                    args.balance
                )
            })?,
        },
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
    warn_about(path, &records);
    Ok(Database::try_from_records(records)?)
}

/// Reads the database with each sequence's description (input order), for
/// the `stitle` column and the pairwise format.
pub fn load_db_with_descriptions(path: &Path) -> anyhow::Result<(Database, Vec<String>)> {
    if !is_standard_stream(path) && host::dbfile::is_wsw(path)? {
        return Ok(host::dbfile::open_with_descriptions(path)?);
    }
    let records = read_fasta(path).context("reading the database")?;
    warn_about(path, &records);
    let descriptions = records.iter().map(|r| r.description.clone()).collect();
    Ok((Database::try_from_records(records)?, descriptions))
}

/// Reads the query file.
pub fn load_queries(path: &Path) -> anyhow::Result<Vec<Record>> {
    let records = read_fasta(path).context("reading the queries")?;
    warn_about(path, &records);
    Ok(records)
}

/// What a file's records deserve a warning for: ids twice, nucleotides.
fn warn_about(path: &Path, records: &[Record]) {
    warn_duplicates(path, records);
    warn_nucleotides(path, records);
}

/// Warns when records look like nucleotides
/// ([`host::alphabet::looks_like_nucleotides`]): warpsw would search them
/// as protein, and find nonsense hits.
fn warn_nucleotides(path: &Path, records: &[Record]) {
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
fn warn_duplicates(path: &Path, records: &[Record]) {
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
