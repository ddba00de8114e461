//! `warpsw`: the command line over the `host` library. Glue only: parse,
//! validate, call the pipeline's stages, report errors with their context.

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
        cli::Command::Kernels => {
            cli::print_kernels();
            Ok(ExitCode::SUCCESS)
        }
    }
}
