//! How evenly each `--balance` policy spreads a search over k devices: the
//! real multi-device engine ([`MultiEngine`]: the chunk plan, the batches,
//! the dispatcher) with simulated devices whose time for a unit is its cost
//! (cells: residues × query length) divided by the device's speed. On
//! identical GPUs this is the share of perfect scaling that balance alone
//! allows (benches/RESULTS.md puts it beside one GPU's measured speed on
//! the same plan, and beside the speedups measured on two H200s).
//!
//! ```text
//! cargo run --release -p host --example balance -- DB.fa|DB.wsw QUERIES.fa 1,1 1,1,1,1 1,0.8
//! ```
//!
//! Each argument after the query file is one machine: the relative speeds
//! of its devices. For every policy the example searches every query twice
//! (`weighted` learns the speeds during the first pass) and prints the
//! balance of each pass: ideal time (all cells over the summed speed) /
//! wall time.

use std::ops::Range;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use host::db::Database;
use host::dispatch::{Policy, Round, Unit, Worker, units_from_chunks};
use host::engine::Engine;
use host::engine::gpu::Budget;
use host::engine::multi::{MultiEngine, multi_device_plan};
use host::error::{Error, Result};
use host::kernel::{KernelChoice, Plan, Target};

/// Seconds a device of speed 1 spends per cell: 17 s for the 20 standard
/// queries against the 570k synthetic database (8.5e12 cells), long enough
/// for the sleeps to be accurate and the host's own work (assembling score
/// vectors) to weigh little even on a 2-core machine.
const SECONDS_PER_CELL: f64 = 2e-12;

/// A device that sleeps for its units instead of scoring them.
struct SimulatedDevice {
    name: String,
    speed: f64,
    plan: Arc<Vec<Range<usize>>>,
}

impl Worker for SimulatedDevice {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn run_unit(&mut self, _round: &Round<'_>, unit: &Unit) -> Result<Vec<i32>> {
        std::thread::sleep(Duration::from_secs_f64(
            unit.cost as f64 * SECONDS_PER_CELL / self.speed,
        ));
        Ok(vec![0; self.plan[unit.chunk].len() * unit.queries.len()])
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

/// Balance of two passes over `queries` under `policy`: ideal / wall time.
fn balance(
    policy: Policy,
    speeds: &[f64],
    db: &Database,
    plan: &Arc<Vec<Range<usize>>>,
    queries: &[Vec<u8>],
) -> Result<[f64; 2]> {
    let devices = speeds
        .iter()
        .enumerate()
        .map(|(k, &speed)| SimulatedDevice {
            name: format!("device {k} (speed {speed})"),
            speed,
            plan: plan.clone(),
        })
        .collect();
    let chunks = units_from_chunks(db, plan);
    let mut engine = MultiEngine::new(devices, policy, chunks, db.len())?;
    let query_residues: usize = queries.iter().map(Vec::len).sum();
    let cells = query_residues as f64 * db.total_residues() as f64;
    let ideal = cells * SECONDS_PER_CELL / speeds.iter().sum::<f64>();
    let mut pass = || -> Result<f64> {
        let started = Instant::now();
        for batch in queries.chunks(engine.batch_len()) {
            let batch: Vec<&[u8]> = batch.iter().map(|q| &q[..]).collect();
            engine.score_batch(&batch)?;
        }
        Ok(ideal / started.elapsed().as_secs_f64())
    };
    Ok([pass()?, pass()?])
}

fn run() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [db_path, query_path, machines @ ..] = &args[..] else {
        return Err(usage());
    };
    if machines.is_empty() {
        return Err(usage());
    }
    let db = load(Path::new(db_path))?;
    let queries: Vec<Vec<u8>> = host::fasta::read_fasta(Path::new(query_path))?
        .into_iter()
        .map(|r| r.codes)
        .collect();
    // `auto` on an 80 GB Hopper GPU, where the database is resident.
    let hopper = Target::Gpu { capability: (9, 0) };
    let gaps = gpu_kernels::recurrence::Gaps::new(11, 1);
    let auto = Plan::new(KernelChoice::default(), hopper, &db, gaps);
    let limits = Budget(80 << 30).resident_chunks(&db)?;
    println!("| devices (speeds) | chunks | policy | balance, pass 1 | balance, pass 2 |");
    println!("|---|---:|---|---:|---:|");
    for machine in machines {
        let speeds = parse_speeds(machine)?;
        let plan = Arc::new(multi_device_plan(&db, speeds.len(), limits, &auto));
        for policy in Policy::ALL {
            let [first, second] = balance(policy, &speeds, &db, &plan, &queries)?;
            println!(
                "| {machine} | {} | {policy} | {first:.3} | {second:.3} |",
                plan.len()
            );
        }
    }
    Ok(())
}

fn usage() -> Error {
    Error::InvalidArgument(
        "usage: balance DB.fa|DB.wsw QUERIES.fa SPEEDS... (e.g. 1,1 1,1,1,1 1,0.8)".into(),
    )
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
