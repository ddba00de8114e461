//! How evenly each `--balance` policy spreads a real database's chunk plan
//! over k devices: the real dispatcher and plan, with simulated devices
//! whose time for a chunk is its residues divided by the device's speed.
//! On identical GPUs this is the share of perfect scaling that balance
//! alone allows (benches/RESULTS.md puts it beside one GPU's measured speed
//! on the same plan).
//!
//! ```text
//! cargo run --release -p host --example balance -- DB.fa|DB.wsw 1,1 1,1,1,1 1,0.8
//! ```
//!
//! Each argument after the database is one machine: the relative speeds of
//! its devices. For every policy the example runs five queries (`weighted`
//! re-weights from the first) and prints the balance of the first and of
//! the last: ideal time (all residues over the summed speed) / makespan.

use std::path::Path;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use host::db::Database;
use host::dispatch::{Dispatcher, Policy, Unit, Worker, units_from_chunks};
use host::engine::Kernel;
use host::engine::gpu::chunk_limits;
use host::engine::multi::multi_device_plan;
use host::error::{Error, Result};

/// Seconds a device of speed 1 spends per residue: 0.8 s for the 570k
/// synthetic database's 205 M residues, long enough for the sleeps (chunks
/// of milliseconds) to be accurate.
const SECONDS_PER_RESIDUE: f64 = 4e-9;

/// A device that sleeps for its chunks instead of scoring them.
struct SimulatedDevice {
    name: String,
    speed: f64,
}

impl Worker for SimulatedDevice {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn run_unit(&mut self, _query: usize, unit: &Unit) -> Result<Vec<i32>> {
        std::thread::sleep(Duration::from_secs_f64(
            unit.cost as f64 * SECONDS_PER_RESIDUE / self.speed,
        ));
        Ok(Vec::new())
    }
}

fn load(path: &Path) -> Result<Database> {
    if host::dbfile::is_wsw(path)? {
        return host::dbfile::open(path);
    }
    Ok(Database::from_records(host::fasta::read_fasta(path)?))
}

fn parse_speeds(arg: &str) -> Result<Vec<f64>> {
    arg.split(',')
        .map(|s| match s.trim().parse::<f64>() {
            Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
            _ => Err(Error::InvalidArgument(format!(
                "'{arg}': expected comma-separated positive speeds, e.g. 1,1,0.8"
            ))),
        })
        .collect()
}

/// Balance of each of `queries` queries under `policy`: ideal / makespan.
fn balance(policy: Policy, speeds: &[f64], units: &[Unit], queries: usize) -> Result<Vec<f64>> {
    let devices = speeds
        .iter()
        .enumerate()
        .map(|(k, &speed)| SimulatedDevice {
            name: format!("device {k} (speed {speed})"),
            speed,
        })
        .collect();
    let mut dispatcher = Dispatcher::new(devices, policy)?;
    let residues: u64 = units.iter().map(|u| u.cost).sum();
    let ideal = residues as f64 * SECONDS_PER_RESIDUE / speeds.iter().sum::<f64>();
    (0..queries)
        .map(|query| {
            let started = Instant::now();
            dispatcher.run_query(query, units)?;
            Ok(ideal / started.elapsed().as_secs_f64())
        })
        .collect()
}

fn run() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((db_path, machines)) = args.split_first().filter(|(_, m)| !m.is_empty()) else {
        return Err(Error::InvalidArgument(
            "usage: balance DB.fa|DB.wsw SPEEDS... (e.g. 1,1 1,1,1,1 1,0.8)".into(),
        ));
    };
    let db = load(Path::new(db_path))?;
    let kernel: Kernel = "auto".parse()?;
    // The plan of an 80 GB GPU, where the database is resident.
    let limits = chunk_limits(&db, 80 << 30)?;
    println!("| devices (speeds) | chunks | policy | balance, query 1 | balance, query 5 |");
    println!("|---|---:|---|---:|---:|");
    for machine in machines {
        let speeds = parse_speeds(machine)?;
        let plan = multi_device_plan(&db, speeds.len(), limits, kernel);
        let units = units_from_chunks(&db, &plan);
        for policy in Policy::ALL {
            let b = balance(policy, &speeds, &units, 5)?;
            println!(
                "| {machine} | {} | {policy} | {:.3} | {:.3} |",
                units.len(),
                b[0],
                b[b.len() - 1]
            );
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("balance: {e}");
            ExitCode::FAILURE
        }
    }
}
