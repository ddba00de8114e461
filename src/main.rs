//! `warpsw`: the command line over the `host` library. Glue only: parse,
//! validate, call the pipeline's stages, report errors with their context.

mod align;
mod bench;
mod cli;
#[cfg(feature = "mpi")]
mod cluster;
mod demo;
mod output_file;
mod progress;
mod search;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let args = match cli::Cli::try_parse() {
        Ok(args) => args,
        // Under MPI every rank parses the same command line: rank 0 alone
        // says what is wrong with it.
        #[cfg(feature = "mpi")]
        Err(e) if cluster::launched_rank().is_some_and(|r| r != 0) => {
            return ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2));
        }
        Err(e) => e.exit(),
    };
    match run(args) {
        Ok(code) => code,
        // A rank stopped by another's failure exits 0: a non-zero exit would
        // make the launcher end the job before rank 0 says why; rank 0's
        // exit status (2) is the job's.
        #[cfg(feature = "mpi")]
        Err(err) if err.is::<cluster::Stopped>() => ExitCode::SUCCESS,
        Err(err) => {
            // A closed pipe (`warpsw search … | head`) is not an error.
            if let Some(io) = err.downcast_ref::<std::io::Error>()
                && io.kind() == std::io::ErrorKind::BrokenPipe
            {
                return ExitCode::SUCCESS;
            }
            eprintln!("warpsw: error: {err:#}");
            ExitCode::from(2)
        }
    }
}

fn run(args: cli::Cli) -> anyhow::Result<ExitCode> {
    if let Some(threads) = args.threads {
        rayon::ThreadPoolBuilder::new()
            .num_threads(usize::from(threads))
            .build_global()
            .map_err(|e| anyhow::anyhow!("--threads {threads}: {e}"))?;
    }
    output_file::install_signal_handlers();
    // A diagnostic setting is checked before any work, on every device.
    host::engine::gpu::timeline::timeline_detail()?;
    host::engine::gpu::Dispatch::from_environment()?;
    host::engine::gpu::sass_on()?;
    #[cfg(feature = "mpi")]
    if cluster::launched_rank().is_some() {
        // Started by an MPI launcher (mpirun, srun): the search is split
        // over the ranks; any other command would run once per rank.
        return match args.command {
            cli::Command::Search(a) => cluster::run(a, args.threads.is_some()),
            _ if cluster::launched_rank() == Some(0) => anyhow::bail!(
                "only `search` runs under MPI (mpirun, srun); run the other commands directly"
            ),
            _ => Ok(ExitCode::from(2)),
        };
    }
    match args.command {
        cli::Command::Search(a) => search::run(a),
        cli::Command::Demo(a) => demo::run(a),
        cli::Command::Bench(a) => bench::run(a),
        cli::Command::Makedb(a) => makedb(a),
        cli::Command::Align(a) => align::run_align(a),
        cli::Command::Allpairs(a) => align::run_allpairs(a),
        cli::Command::Get(a) => get(a),
        cli::Command::Kernels => {
            cli::print_kernels();
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// `warpsw makedb`: FASTA in, `.wsw` out (written to a temporary file and
/// renamed by `host::dbfile::write`). Ids must be unique, as for
/// `makeblastdb`.
fn makedb(args: cli::MakedbArgs) -> anyhow::Result<ExitCode> {
    use anyhow::{Context, bail};
    if search::is_standard_stream(&args.out) {
        bail!("makedb writes a file that search memory-maps: give it a name, not `-`");
    }
    output_file::check_target(&args.out, &[&args.input])?;
    let started = std::time::Instant::now();
    let records = host::fasta::read_fasta(&args.input).context("reading the database")?;
    if let Some(dup) = host::fasta::duplicate_id(&records) {
        bail!(
            "{}: {dup}; a database needs unique ids",
            args.input.display()
        );
    }
    // Full headers are kept: `warpsw get` prints them back.
    let descriptions: Vec<String> = records.iter().map(|r| r.description.clone()).collect();
    let db = host::db::Database::try_from_records(records)?;
    let read = started.elapsed().as_secs_f64();
    host::dbfile::write_with_descriptions(&db, &descriptions, &args.out)
        .with_context(|| format!("writing {}", args.out.display()))?;
    eprintln!(
        "warpsw: {}, {} residues: read and sorted in {:.2} s, {} written in {:.2} s",
        search::count(db.len() as u64, "sequence", "sequences"),
        db.total_residues(),
        read,
        args.out.display(),
        started.elapsed().as_secs_f64() - read
    );
    Ok(ExitCode::SUCCESS)
}

/// `warpsw get`: sequences by id or accession ([`find_record`]), as FASTA
/// (the full header, 60 residues a line). Every id is looked up before
/// anything is written; an unknown or ambiguous one is an error.
fn get(args: cli::GetArgs) -> anyhow::Result<ExitCode> {
    use std::io::Write;
    let target = args
        .out
        .clone()
        .unwrap_or_else(|| std::path::PathBuf::from(output_file::STANDARD_STREAM));
    let mut out = output_file::OutputFile::create(&target, &[&args.db])?;
    let (db, descriptions) = load_with_descriptions(&args.db)?;
    let mut sorted_position = vec![0; db.len()];
    for (sorted, &original) in db.original_order().iter().enumerate() {
        sorted_position[original as usize] = sorted;
    }
    let index = RecordIndex::new(db.ids());
    let wanted = args
        .ids
        .iter()
        .map(|id| {
            find_record(&index, id)
                .map(|original| sorted_position[original])
                .map_err(|why| anyhow::anyhow!("{}: {why}", args.db.display()))
        })
        .collect::<anyhow::Result<Vec<usize>>>()?;
    for sorted in wanted {
        let original = db.original_index(sorted);
        let id = db.id(original);
        match descriptions.get(original).filter(|d| !d.is_empty()) {
            Some(description) => writeln!(out, ">{id} {description}")?,
            None => writeln!(out, ">{id}")?,
        }
        for line in db.sequence(sorted).chunks(60) {
            writeln!(out, "{}", host::alphabet::decode_all(line))?;
        }
    }
    out.commit()?;
    Ok(ExitCode::SUCCESS)
}

/// The record (input order) `wanted` names among `ids`: its whole id (the
/// first of duplicates, in a FASTA database), else one `|`-separated field
/// of a UniProt- or NCBI-style id past its database tag (`P0AD86` or
/// `LPT_ECOLI` for `sp|P0AD86|LPT_ECOLI`), when one record alone has it.
///
/// # Errors
/// A sentence: no record has the id, or several have the field (the
/// first few named).
fn find_record(index: &RecordIndex<'_>, wanted: &str) -> Result<usize, String> {
    if let Some(&i) = index.whole.get(wanted) {
        return Ok(i);
    }
    let shown = host::fasta::escape_controls(wanted);
    match index.fields.get(wanted).map(Vec::as_slice) {
        None | Some([]) => Err(format!("no sequence has the id or accession '{shown}'")),
        Some(&[i]) => Ok(i),
        Some(matching) => {
            let named: Vec<String> = matching
                .iter()
                .take(5)
                .map(|&i| host::fasta::escape_controls(index.ids[i]))
                .collect();
            Err(format!(
                "'{shown}' is a field of {} ids ({}{}): give the whole id",
                matching.len(),
                named.join(", "),
                if matching.len() > 5 { ", ..." } else { "" }
            ))
        }
    }
}

/// The ids of a database, looked up by whole id and by the `|`-separated
/// fields past a UniProt- or NCBI-style id's database tag, each built once.
struct RecordIndex<'a> {
    ids: Vec<&'a str>,
    /// Whole id → the first record (input order) with it.
    whole: std::collections::HashMap<&'a str, usize>,
    /// Field → every record whose id has it.
    fields: std::collections::HashMap<&'a str, Vec<usize>>,
}

impl<'a> RecordIndex<'a> {
    fn new(ids: impl ExactSizeIterator<Item = &'a str>) -> RecordIndex<'a> {
        let ids: Vec<&'a str> = ids.collect();
        let mut whole = std::collections::HashMap::with_capacity(ids.len());
        let mut fields: std::collections::HashMap<&str, Vec<usize>> =
            std::collections::HashMap::new();
        for (i, &id) in ids.iter().enumerate() {
            whole.entry(id).or_insert(i);
            if id.split('|').count() >= 3 {
                for field in id.split('|').skip(1).filter(|f| !f.is_empty()) {
                    let records = fields.entry(field).or_default();
                    if records.last() != Some(&i) {
                        records.push(i);
                    }
                }
            }
        }
        RecordIndex { ids, whole, fields }
    }
}

/// A database (`.wsw` or FASTA) with its descriptions, input order.
fn load_with_descriptions(
    path: &std::path::Path,
) -> anyhow::Result<(host::db::Database, Vec<String>)> {
    use anyhow::Context;
    if !search::is_standard_stream(path) && host::dbfile::is_wsw(path)? {
        return Ok(host::dbfile::open_with_descriptions(path)?);
    }
    let records = host::fasta::read_fasta(path).context("reading the database")?;
    let descriptions = records.iter().map(|r| r.description.clone()).collect();
    Ok((host::db::Database::try_from_records(records)?, descriptions))
}
