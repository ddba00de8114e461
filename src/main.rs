//! `warpsw`: the command line over the `host` library. Glue only: parse,
//! validate, call the pipeline's stages, report errors with their context.

mod align;
mod bench;
mod cli;
mod demo;
mod search;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let args = cli::Cli::parse();
    match run(args) {
        Ok(code) => code,
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
    match args.command {
        cli::Command::Search(a) => search::run(a),
        cli::Command::Demo(a) => demo::run(a),
        cli::Command::Bench(a) => bench::run(a),
        cli::Command::Makedb(a) => makedb(a),
        cli::Command::Align(a) => align::run_align(a),
        cli::Command::Allpairs(a) => align::run_allpairs(a),
        cli::Command::Kernels => {
            cli::print_kernels();
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// `warpsw makedb`: FASTA in, `.wsw` out.
fn makedb(args: cli::MakedbArgs) -> anyhow::Result<ExitCode> {
    use anyhow::Context;
    let started = std::time::Instant::now();
    let db = search::load_db(&args.input)?;
    let read = started.elapsed().as_secs_f64();
    host::dbfile::write(&db, &args.out)
        .with_context(|| format!("writing {}", args.out.display()))?;
    eprintln!(
        "warpsw: {} sequences, {} residues: read and sorted in {:.2} s, {} written in {:.2} s",
        db.len(),
        db.total_residues(),
        read,
        args.out.display(),
        started.elapsed().as_secs_f64() - read
    );
    Ok(ExitCode::SUCCESS)
}
