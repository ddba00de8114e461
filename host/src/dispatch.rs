//! Multi-device dispatch: takes a query and the database's work units (chunks),
//! returns every unit's scores, computed concurrently by several devices.
//!
//! Each device ([`Worker`]) holds the whole database resident, so any unit can
//! run anywhere; the [`Policy`] only decides who runs what:
//!
//! * [`Policy::Weighted`] — SW-CUDA (Manavski and Valle 2008, "CUDA compatible
//!   GPU cards as efficient hardware accelerators for Smith-Waterman sequence
//!   alignment"): the sorted database is cut into one contiguous segment per
//!   device, sized by the device's measured speed; speeds are measured again
//!   on every query and the next query is split by them.
//! * [`Policy::Greedy`] — NESW (Dohi, Benkrid, Ling, Hamada and Shibata 2010,
//!   "Highly efficient mapping of the Smith-Waterman algorithm on
//!   CUDA-compatible GPUs", §IV-C): the longest unit goes to the device with
//!   the least work assigned so far (here: the earliest expected finish, the
//!   assigned work divided by the device's speed).
//! * [`Policy::Dynamic`] — the LPT task manager of gpu-pairAlign (Blazewicz,
//!   Frohmberg, Kierzynka, Pesch and Wojciechowski 2011, "Protein alignment
//!   algorithms with an efficient backtracking routine on multiple GPUs"):
//!   units sorted largest first are handed to whichever device becomes idle,
//!   from a shared queue.
//!
//! A device whose [`Worker::run_unit`] fails (or panics) is dropped for the
//! rest of the dispatcher's life; the units it did not finish are redone by
//! the others, and the outcome carries a warning naming it. Every unit is
//! scored exactly once; when no device is left, the query fails as a whole.

use std::fmt;
use std::ops::Range;
use std::str::FromStr;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use crate::db::Database;
use crate::error::{Error, Result};

/// One unit of work: a chunk of the sorted database against some of the
/// round's queries. It carries what the worker needs to know; the queries
/// themselves are borrowed for the round ([`Round`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unit {
    /// The unit's position in the caller's list (and in
    /// [`DispatchOutcome::scores`]); the units of one round number `0..n`.
    pub index: usize,
    /// The unit's work: its residues (every unit against the same queries)
    /// or its cells (residues × query length). Only ratios matter: the
    /// policies balance it and speeds are measured in it per second.
    pub cost: u64,
    /// The chunk (or streamed part) of the plan the unit scores.
    pub chunk: usize,
    /// The positions in [`Round::queries`] of the queries it is scored
    /// against; its result is their scores, one query after another.
    pub queries: Range<usize>,
}

impl Unit {
    /// Unit `index` of cost `cost`: chunk `index` against no query (a
    /// caller sets [`Unit::queries`] for its round).
    pub fn new(index: usize, cost: u64) -> Unit {
        Unit {
            index,
            cost,
            chunk: index,
            queries: 0..0,
        }
    }
}

/// What one round asks: its number (a new number per batch of queries) and
/// the queries its units are scored against.
#[derive(Clone, Copy, Debug)]
pub struct Round<'a> {
    /// The round's number, counted from 0 by the caller.
    pub number: usize,
    /// The round's queries (residue codes).
    pub queries: &'a [&'a [u8]],
}

/// Units for `chunks` (ranges of sorted positions of `db`, for example from
/// [`crate::db::plan_chunks`]), unit `k` being `chunks[k]` costed in residues.
pub fn units_from_chunks(db: &Database, chunks: &[Range<usize>]) -> Vec<Unit> {
    let offsets = db.offsets();
    chunks
        .iter()
        .enumerate()
        .map(|(index, r)| {
            Unit::new(
                index,
                offsets
                    .get(r.end)
                    .zip(offsets.get(r.start))
                    .map_or(0, |(end, start)| end.saturating_sub(*start)),
            )
        })
        .collect()
}

/// How units are spread over devices (`--balance`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Policy {
    /// Contiguous segments sized by measured speed, re-weighted after every
    /// query (SW-CUDA).
    Weighted,
    /// Longest unit first to the least-loaded device (NESW).
    Greedy,
    /// Devices pull units, largest first, from a shared queue (LPT).
    #[default]
    Dynamic,
}

impl Policy {
    /// Every policy, in `--help` order.
    pub const ALL: [Policy; 3] = [Policy::Weighted, Policy::Greedy, Policy::Dynamic];

    /// The policy's name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Policy::Weighted => "weighted",
            Policy::Greedy => "greedy",
            Policy::Dynamic => "dynamic",
        }
    }
}

impl fmt::Display for Policy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Policy {
    type Err = Error;
    fn from_str(s: &str) -> Result<Policy> {
        Policy::ALL
            .into_iter()
            .find(|p| p.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| {
                Error::InvalidArgument(format!(
                    "unknown dispatch policy '{s}'; policies: weighted, greedy, dynamic"
                ))
            })
    }
}

/// A device that can score any unit of the (resident) database.
pub trait Worker: Send {
    /// The device's name for warnings and the run summary (e.g. "GPU 1 (NVIDIA H100)").
    fn name(&self) -> String;

    /// The scores of `unit`'s chunk against each of its queries of
    /// `round`, one query after another, in sorted order. An error marks the
    /// device as failed.
    fn run_unit(&mut self, round: &Round<'_>, unit: &Unit) -> Result<Vec<i32>>;
}

/// What one device did in one round.
#[derive(Clone, Debug, PartialEq)]
pub struct WorkerStats {
    /// [`Worker::name`].
    pub name: String,
    /// Units it scored.
    pub units: usize,
    /// The summed [`Unit::cost`] of those units.
    pub cost: u64,
    /// Seconds it spent inside [`Worker::run_unit`].
    pub seconds: f64,
    /// `cost / seconds`, when it scored units of non-zero cost.
    pub speed: Option<f64>,
    /// Whether it has failed (during this query or an earlier one).
    pub failed: bool,
}

/// The result of [`Dispatcher::run_round`].
#[derive(Clone, Debug)]
pub struct DispatchOutcome {
    /// Scores of each unit, indexed by [`Unit::index`].
    pub scores: Vec<Vec<i32>>,
    /// One entry per worker, in the dispatcher's order.
    pub workers: Vec<WorkerStats>,
    /// One sentence per device that failed during this query, naming it and
    /// its error (the CLI prints them).
    pub warnings: Vec<String>,
}

impl DispatchOutcome {
    /// All scores in unit order, concatenated: the database's sorted order
    /// when the units are its chunks in order.
    pub fn concatenated(&self) -> Vec<i32> {
        self.scores.concat()
    }
}

/// Who runs what in one round.
enum Plan {
    /// Positions (into the unit slice) per worker, in the order to run them.
    Lists(Vec<Vec<usize>>),
    /// One shared queue of positions, pulled in order.
    Queue(Vec<usize>),
}

/// What one worker's thread reports after a round.
#[derive(Default)]
struct Report {
    units: usize,
    cost: u64,
    seconds: f64,
    /// The position of the unit it failed on (unknown after a panic) and the
    /// error; `None` when it did not fail.
    failure: Option<(Option<usize>, String)>,
}

/// Spreads each round's units (a query's chunks, or a batch's) over several
/// [`Worker`]s by a [`Policy`], running the workers concurrently, one OS
/// thread each.
pub struct Dispatcher<W: Worker> {
    workers: Vec<W>,
    policy: Policy,
    /// Relative speed of each worker (cost per second, or 1 before the
    /// first measurement); only ratios matter.
    weights: Vec<f64>,
    /// Why a worker failed, if it did.
    failures: Vec<Option<String>>,
}

impl<W: Worker> Dispatcher<W> {
    /// A dispatcher over `workers`, all weighted equally to start with.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `workers` is empty.
    pub fn new(workers: Vec<W>, policy: Policy) -> Result<Dispatcher<W>> {
        if workers.is_empty() {
            return Err(Error::InvalidArgument(
                "multi-device dispatch needs at least one device".into(),
            ));
        }
        let n = workers.len();
        Ok(Dispatcher {
            workers,
            policy,
            weights: vec![1.0; n],
            failures: vec![None; n],
        })
    }

    /// The policy in use.
    pub fn policy(&self) -> Policy {
        self.policy
    }

    /// Each worker's current relative speed (only ratios matter).
    pub fn weights(&self) -> &[f64] {
        &self.weights
    }

    /// Sets starting weights, e.g. from a previous run (SW-CUDA's "pre-fixed
    /// weights for the first run").
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] unless there is one finite positive weight
    /// per worker.
    pub fn set_weights(&mut self, weights: &[f64]) -> Result<()> {
        if weights.len() != self.workers.len() || !weights.iter().all(|w| w.is_finite() && *w > 0.0)
        {
            return Err(Error::InvalidArgument(format!(
                "{} weights for {} devices; each must be a positive number",
                weights.len(),
                self.workers.len()
            )));
        }
        self.weights = weights.to_vec();
        Ok(())
    }

    /// The workers, in the order given to [`Dispatcher::new`].
    pub fn workers(&self) -> &[W] {
        &self.workers
    }

    /// Why worker `k` failed, or `None` while it is in use.
    pub fn failure(&self, k: usize) -> Option<&str> {
        self.failures.get(k).and_then(|f| f.as_deref())
    }

    /// Number of workers still in use.
    pub fn healthy(&self) -> usize {
        self.failures.iter().filter(|f| f.is_none()).count()
    }

    /// Scores every unit of round number `round` (one query's chunks, or a
    /// batch of queries' units; the number is passed through to
    /// [`Worker::run_unit`]); then re-weights the workers by the speed each
    /// achieved.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when the units' indices are not `0..n`;
    /// [`Error::AllDevicesFailed`] when every worker has failed (no partial
    /// result is ever returned).
    pub fn run_round(&mut self, round: &Round<'_>, units: &[Unit]) -> Result<DispatchOutcome> {
        check_indices(units)?;
        if self.healthy() == 0 {
            return Err(self.all_failed());
        }
        let n = self.workers.len();
        let mut stats: Vec<WorkerStats> = self
            .workers
            .iter()
            .zip(&self.failures)
            .map(|(w, f)| WorkerStats {
                name: w.name(),
                units: 0,
                cost: 0,
                seconds: 0.0,
                speed: None,
                failed: f.is_some(),
            })
            .collect();
        let results: Mutex<Vec<Option<Vec<i32>>>> = Mutex::new(vec![None; units.len()]);
        let mut warnings = Vec::new();
        let mut remaining: Vec<usize> = (0..units.len()).collect();
        while !remaining.is_empty() {
            let healthy: Vec<bool> = self.failures.iter().map(|f| f.is_none()).collect();
            if !healthy.contains(&true) {
                return Err(self.all_failed());
            }
            let plan = plan(self.policy, units, &remaining, &self.weights, &healthy);
            let reports = self.run_plan(round, units, plan, &results);
            let mut any_failed = false;
            for (k, report) in reports.into_iter().enumerate() {
                let s = &mut stats[k];
                s.units += report.units;
                s.cost += report.cost;
                s.seconds += report.seconds;
                if let Some((position, error)) = report.failure {
                    any_failed = true;
                    s.failed = true;
                    let on = position
                        .map(|p| format!(" on chunk {}", units[p].index))
                        .unwrap_or_default();
                    warnings.push(format!(
                        "{} failed{on} and is no longer used: {error}; \
                         its unfinished chunks were redone on the other devices",
                        s.name
                    ));
                    self.failures[k] = Some(error);
                }
            }
            let done = lock(&results);
            remaining.retain(|&p| done[units[p].index].is_none());
            if !remaining.is_empty() && !any_failed {
                // Cannot happen: a round only leaves units undone when a
                // worker fails. Refuse rather than loop.
                return Err(Error::InvalidArgument(format!(
                    "dispatch left {} chunk(s) unscored without any device failing",
                    remaining.len()
                )));
            }
        }
        for s in &mut stats {
            if s.cost > 0 && s.seconds > 0.0 {
                s.speed = Some(s.cost as f64 / s.seconds);
            }
        }
        self.reweight(&stats);
        let scores = results
            .into_inner()
            .unwrap_or_else(|p| p.into_inner())
            .into_iter()
            .map(Option::unwrap_or_default)
            .collect();
        debug_assert_eq!(stats.len(), n);
        Ok(DispatchOutcome {
            scores,
            workers: stats,
            warnings,
        })
    }

    fn all_failed(&self) -> Error {
        let list: Vec<String> = self
            .workers
            .iter()
            .zip(&self.failures)
            .map(|(w, f)| format!("{}: {}", w.name(), f.as_deref().unwrap_or("not run")))
            .collect();
        Error::AllDevicesFailed(list.join("; "))
    }

    /// New weights from this query's speeds. A healthy worker that scored
    /// nothing keeps its ratio to the others (scaled by how much the measured
    /// workers' speeds moved), so that it is never starved.
    fn reweight(&mut self, stats: &[WorkerStats]) {
        let (mut old, mut new) = (0.0, 0.0);
        for (k, s) in stats.iter().enumerate() {
            if let (Some(speed), None) = (s.speed, &self.failures[k]) {
                old += self.weights[k];
                new += speed;
            }
        }
        if old <= 0.0 || !new.is_finite() || new <= 0.0 {
            return;
        }
        let scale = new / old;
        for (k, s) in stats.iter().enumerate() {
            if self.failures[k].is_some() {
                continue;
            }
            self.weights[k] = s.speed.unwrap_or(self.weights[k] * scale);
        }
        // Keep the numbers readable: mean weight 1 over healthy workers.
        let healthy = self.healthy() as f64;
        let sum: f64 = (0..self.weights.len())
            .filter(|&k| self.failures[k].is_none())
            .map(|k| self.weights[k])
            .sum();
        if sum > 0.0 && sum.is_finite() {
            for w in &mut self.weights {
                *w *= healthy / sum;
            }
        }
    }

    /// Runs `plan` (all of a round's units, or those left after a failure),
    /// one thread per worker with work; records each finished unit's scores
    /// in `results`.
    fn run_plan(
        &mut self,
        round: &Round<'_>,
        units: &[Unit],
        plan: Plan,
        results: &Mutex<Vec<Option<Vec<i32>>>>,
    ) -> Vec<Report> {
        let next = AtomicUsize::new(0);
        let (lists, queue) = match plan {
            Plan::Lists(lists) => (lists, Vec::new()),
            Plan::Queue(queue) => (vec![Vec::new(); self.workers.len()], queue),
        };
        let dynamic = !queue.is_empty();
        let (queue, next) = (&queue, &next);
        std::thread::scope(|scope| {
            let handles: Vec<_> = self
                .workers
                .iter_mut()
                .zip(&self.failures)
                .zip(lists)
                .map(|((worker, failure), list)| {
                    if failure.is_some() || (!dynamic && list.is_empty()) {
                        return None;
                    }
                    Some(scope.spawn(move || {
                        let mut report = Report::default();
                        let mut own = list.into_iter();
                        loop {
                            let position = if dynamic {
                                match queue.get(next.fetch_add(1, Ordering::Relaxed)) {
                                    Some(&p) => p,
                                    None => break,
                                }
                            } else {
                                match own.next() {
                                    Some(p) => p,
                                    None => break,
                                }
                            };
                            let unit = &units[position];
                            let started = Instant::now();
                            let outcome = worker.run_unit(round, unit);
                            let seconds = started.elapsed().as_secs_f64();
                            match outcome {
                                Ok(scores) => {
                                    lock(results)[unit.index] = Some(scores);
                                    report.units += 1;
                                    report.cost += unit.cost;
                                    report.seconds += seconds;
                                }
                                Err(e) => {
                                    report.failure = Some((Some(position), chain(&e)));
                                    break;
                                }
                            }
                        }
                        report
                    }))
                })
                .collect();
            handles
                .into_iter()
                .map(|h| match h {
                    None => Report::default(),
                    // A panicking worker is a failed one; what it scored
                    // before is in `results`, the rest is redone.
                    Some(h) => h.join().unwrap_or_else(|payload| Report {
                        failure: Some((None, format!("panicked: {}", panic_message(&payload)))),
                        ..Report::default()
                    }),
                })
                .collect()
        })
    }
}

/// `error` and its sources, as `{:#}` prints an error chain.
fn chain(error: &Error) -> String {
    let mut text = error.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        text.push_str(&format!(": {cause}"));
        source = cause.source();
    }
    text
}

fn panic_message(payload: &Box<dyn std::any::Any + Send>) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into())
}

/// Locks `m`, ignoring poisoning (a panicking worker never leaves the result
/// table half-written: each entry is one assignment).
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

fn check_indices(units: &[Unit]) -> Result<()> {
    let mut seen = vec![false; units.len()];
    for u in units {
        match seen.get_mut(u.index) {
            Some(s) if !*s => *s = true,
            _ => {
                return Err(Error::InvalidArgument(format!(
                    "chunk index {} repeated or out of range: the indices of {} chunks must be 0..{}",
                    u.index,
                    units.len(),
                    units.len()
                )));
            }
        }
    }
    Ok(())
}

/// Who runs which of the `remaining` positions of `units`, among the workers
/// marked `healthy`.
fn plan(
    policy: Policy,
    units: &[Unit],
    remaining: &[usize],
    weights: &[f64],
    healthy: &[bool],
) -> Plan {
    match policy {
        Policy::Weighted => Plan::Lists(plan_weighted(units, remaining, weights, healthy)),
        Policy::Greedy => Plan::Lists(plan_greedy(units, remaining, weights, healthy)),
        Policy::Dynamic => Plan::Queue(largest_first(units, remaining)),
    }
}

fn largest_first(units: &[Unit], remaining: &[usize]) -> Vec<usize> {
    let mut order = remaining.to_vec();
    order.sort_by_key(|&p| (std::cmp::Reverse(units[p].cost), units[p].index));
    order
}

/// SW-CUDA: consecutive runs of `remaining` (in order), each healthy worker's
/// cost proportional to its weight. A unit goes to the worker whose share
/// holds the unit's midpoint.
fn plan_weighted(
    units: &[Unit],
    remaining: &[usize],
    weights: &[f64],
    healthy: &[bool],
) -> Vec<Vec<usize>> {
    let mut lists = vec![Vec::new(); weights.len()];
    let active: Vec<usize> = (0..weights.len()).filter(|&k| healthy[k]).collect();
    if active.is_empty() {
        return lists;
    }
    let total: f64 = remaining.iter().map(|&p| units[p].cost as f64).sum();
    let weight_sum: f64 = active.iter().map(|&k| weights[k]).sum();
    // Upper boundary of each active worker's share, in cost.
    let mut bounds = Vec::with_capacity(active.len());
    let mut acc = 0.0;
    for &k in &active {
        acc += weights[k];
        bounds.push(total * acc / weight_sum);
    }
    let mut before = 0.0;
    let mut a = 0;
    for &p in remaining {
        let r = units[p].cost as f64;
        let mid = before + r / 2.0;
        while a + 1 < active.len() && mid >= bounds[a] {
            a += 1;
        }
        lists[active[a]].push(p);
        before += r;
    }
    lists
}

/// NESW: largest unit first, each to the worker that would finish it first
/// (assigned cost over weight); ties to the lower worker number.
fn plan_greedy(
    units: &[Unit],
    remaining: &[usize],
    weights: &[f64],
    healthy: &[bool],
) -> Vec<Vec<usize>> {
    let jobs = largest_first(units, remaining)
        .into_iter()
        .map(|p| (p, units[p].cost as f64));
    crate::schedule::assign_lpt(jobs, weights, healthy)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::time::Duration;

    /// Round number `number`, with no queries (the fakes score by number).
    fn round(number: usize) -> Round<'static> {
        Round {
            number,
            queries: &[],
        }
    }

    /// The scores a fake device returns: a function of query and unit only.
    fn expected(query: usize, unit: &Unit) -> Vec<i32> {
        (0..(unit.cost % 5 + 1) as i32)
            .map(|j| (query * 100_000 + unit.index * 10) as i32 + j)
            .collect()
    }

    #[derive(Clone)]
    enum Fault {
        None,
        /// Fails after this many successful units.
        After(usize),
        Always,
        Panic,
    }

    struct Fake {
        name: String,
        nanos_per_cost: u64,
        fault: Fault,
        /// Successful calls, shared by all fakes of a test: (query, unit index).
        scored: Arc<Mutex<Vec<(usize, usize)>>>,
        own_calls: Arc<AtomicUsize>,
        done: usize,
    }

    impl Worker for Fake {
        fn name(&self) -> String {
            self.name.clone()
        }
        fn run_unit(&mut self, round: &Round<'_>, unit: &Unit) -> Result<Vec<i32>> {
            let query = round.number;
            self.own_calls.fetch_add(1, Ordering::SeqCst);
            let fail = match self.fault {
                Fault::None => false,
                Fault::After(n) => self.done >= n,
                Fault::Always => true,
                Fault::Panic => panic!("fake device {} exploded", self.name),
            };
            if fail {
                return Err(Error::Internal(format!("{}: injected fault", self.name)));
            }
            if self.nanos_per_cost > 0 {
                std::thread::sleep(Duration::from_nanos(self.nanos_per_cost * unit.cost));
            }
            self.done += 1;
            lock(&self.scored).push((query, unit.index));
            Ok(expected(query, unit))
        }
    }

    struct Rig {
        scored: Arc<Mutex<Vec<(usize, usize)>>>,
        calls: Vec<Arc<AtomicUsize>>,
    }

    fn fakes(specs: &[(u64, Fault)]) -> (Vec<Fake>, Rig) {
        let scored = Arc::new(Mutex::new(Vec::new()));
        let calls: Vec<_> = specs
            .iter()
            .map(|_| Arc::new(AtomicUsize::new(0)))
            .collect();
        let workers = specs
            .iter()
            .enumerate()
            .map(|(k, (speed, fault))| Fake {
                name: format!("fake GPU {k}"),
                nanos_per_cost: *speed,
                fault: fault.clone(),
                scored: scored.clone(),
                own_calls: calls[k].clone(),
                done: 0,
            })
            .collect();
        (workers, Rig { scored, calls })
    }

    /// Units of uneven sizes, in decreasing-length database order.
    fn units(n: usize) -> Vec<Unit> {
        (0..n)
            .map(|index| Unit::new(index, 4000 - (index as u64 * 37) % 3000))
            .collect()
    }

    fn check_exactly_once(rig: &Rig, query: usize, units: &[Unit], outcome: &DispatchOutcome) {
        let expect: Vec<Vec<i32>> = units.iter().map(|u| expected(query, u)).collect();
        assert_eq!(outcome.scores, expect);
        let mut seen: Vec<usize> = lock(&rig.scored)
            .iter()
            .filter(|(q, _)| *q == query)
            .map(|&(_, i)| i)
            .collect();
        seen.sort();
        assert_eq!(
            seen,
            (0..units.len()).collect::<Vec<_>>(),
            "each unit scored once"
        );
        let counted: usize = outcome.workers.iter().map(|w| w.units).sum();
        assert_eq!(counted, units.len());
    }

    #[test]
    fn policy_names_round_trip() {
        for p in Policy::ALL {
            assert_eq!(p.to_string().parse::<Policy>().unwrap(), p);
        }
        assert_eq!("GREEDY".parse::<Policy>().unwrap(), Policy::Greedy);
        assert!(matches!(
            "lpt".parse::<Policy>(),
            Err(Error::InvalidArgument(_))
        ));
    }

    #[test]
    fn weighted_plan_is_contiguous_and_proportional() {
        let units: Vec<Unit> = (0..100).map(|index| Unit::new(index, 10)).collect();
        let all: Vec<usize> = (0..100).collect();
        let lists = plan_weighted(&units, &all, &[3.0, 1.0, 0.5], &[true, true, false]);
        assert_eq!(lists[0], (0..75).collect::<Vec<_>>());
        assert_eq!(lists[1], (75..100).collect::<Vec<_>>());
        assert!(lists[2].is_empty());
    }

    #[test]
    fn greedy_plan_balances_longest_first() {
        let sizes = [9, 8, 7, 6, 5, 4, 3];
        let units: Vec<Unit> = sizes
            .iter()
            .enumerate()
            .map(|(index, &r)| Unit::new(index, r))
            .collect();
        let all: Vec<usize> = (0..units.len()).collect();
        let lists = plan_greedy(&units, &all, &[1.0, 1.0], &[true, true]);
        let load = |l: &Vec<usize>| l.iter().map(|&p| units[p].cost).sum::<u64>();
        // LPT: 9 6 5 | 8 7 4 3  →  20 | 22 (within the largest unit of even).
        assert_eq!(load(&lists[0]), 20);
        assert_eq!(load(&lists[1]), 22);
        assert_eq!(lists[0], vec![0, 3, 4]);
        // A twice-as-fast worker gets about twice the work.
        let lists = plan_greedy(&units, &all, &[2.0, 1.0], &[true, true]);
        assert!(load(&lists[0]) >= 2 * load(&lists[1]) - 9);
    }

    #[test]
    fn every_policy_matches_a_single_worker() {
        let units = units(40);
        let (single, rig) = fakes(&[(0, Fault::None)]);
        let mut one = Dispatcher::new(single, Policy::Dynamic).unwrap();
        let reference = one.run_round(&round(0), &units).unwrap();
        check_exactly_once(&rig, 0, &units, &reference);
        for policy in Policy::ALL {
            let (workers, rig) = fakes(&[(20, Fault::None), (60, Fault::None), (0, Fault::None)]);
            let mut d = Dispatcher::new(workers, policy).unwrap();
            for query in 0..2 {
                let outcome = d.run_round(&round(query), &units).unwrap();
                assert!(outcome.warnings.is_empty());
                check_exactly_once(&rig, query, &units, &outcome);
            }
            let outcome = d.run_round(&round(0), &units).unwrap();
            assert_eq!(outcome.scores, reference.scores, "{policy}");
            assert_eq!(outcome.concatenated(), reference.concatenated());
        }
    }

    #[test]
    fn a_failing_device_is_dropped_and_its_units_redone() {
        let units = units(24);
        for policy in Policy::ALL {
            for fault in [
                Fault::After(2),
                Fault::After(0),
                Fault::Always,
                Fault::Panic,
            ] {
                let (workers, rig) =
                    fakes(&[(300, Fault::None), (300, fault.clone()), (300, Fault::None)]);
                let mut d = Dispatcher::new(workers, policy).unwrap();
                let outcome = d.run_round(&round(0), &units).unwrap();
                check_exactly_once(&rig, 0, &units, &outcome);
                assert_eq!(outcome.warnings.len(), 1, "{policy}");
                assert!(
                    outcome.warnings[0].contains("fake GPU 1"),
                    "{}",
                    outcome.warnings[0]
                );
                if !matches!(fault, Fault::Panic) {
                    assert!(outcome.warnings[0].contains("injected fault"));
                }
                assert!(outcome.workers[1].failed);
                assert_eq!(d.healthy(), 2);
                assert!(d.failure(1).is_some());
                // Not used for later queries.
                let calls_before = rig.calls[1].load(Ordering::SeqCst);
                let outcome = d.run_round(&round(1), &units).unwrap();
                check_exactly_once(&rig, 1, &units, &outcome);
                assert!(outcome.warnings.is_empty());
                assert_eq!(rig.calls[1].load(Ordering::SeqCst), calls_before);
                assert_eq!(outcome.workers[1].units, 0);
            }
        }
    }

    #[test]
    fn all_devices_failing_is_an_error() {
        let units = units(10);
        for policy in Policy::ALL {
            let (workers, _) = fakes(&[(0, Fault::After(1)), (0, Fault::Always)]);
            let mut d = Dispatcher::new(workers, policy).unwrap();
            let err = d.run_round(&round(0), &units).unwrap_err();
            let Error::AllDevicesFailed(m) = &err else {
                panic!("{err}")
            };
            assert!(m.contains("fake GPU 0") && m.contains("fake GPU 1"), "{m}");
            assert!(matches!(
                d.run_round(&round(1), &units),
                Err(Error::AllDevicesFailed(_))
            ));
        }
    }

    #[test]
    fn weights_adapt_to_measured_speed() {
        // Worker 0 is four times as fast as worker 1.
        let units: Vec<Unit> = (0..20).map(|index| Unit::new(index, 10_000)).collect();
        let share = |o: &DispatchOutcome| {
            o.workers[0].cost as f64 / (o.workers[0].cost + o.workers[1].cost) as f64
        };
        let (workers, rig) = fakes(&[(50, Fault::None), (200, Fault::None)]);
        let mut d = Dispatcher::new(workers, Policy::Weighted).unwrap();
        let first = d.run_round(&round(0), &units).unwrap();
        check_exactly_once(&rig, 0, &units, &first);
        assert!((share(&first) - 0.5).abs() < 1e-9, "equal split first");
        assert!(d.weights()[0] > 2.0 * d.weights()[1], "{:?}", d.weights());
        let second = d.run_round(&round(1), &units).unwrap();
        check_exactly_once(&rig, 1, &units, &second);
        assert!(
            share(&second) > 0.65,
            "fast worker's share {}",
            share(&second)
        );
        assert!(second.workers[0].speed.unwrap() > second.workers[1].speed.unwrap());
    }

    #[test]
    fn greedy_and_dynamic_favour_the_faster_device() {
        let units = units(30);
        for policy in [Policy::Greedy, Policy::Dynamic] {
            let (workers, _) = fakes(&[(100, Fault::None), (800, Fault::None)]);
            let mut d = Dispatcher::new(workers, policy).unwrap();
            d.run_round(&round(0), &units).unwrap();
            let o = d.run_round(&round(1), &units).unwrap();
            assert!(
                o.workers[0].cost > 2 * o.workers[1].cost,
                "{policy}: {:?}",
                o.workers
            );
        }
    }

    #[test]
    fn bad_input_is_rejected() {
        let (workers, _) = fakes(&[(0, Fault::None)]);
        let mut d = Dispatcher::new(workers, Policy::Greedy).unwrap();
        let dup = [Unit::new(0, 1), Unit::new(0, 1)];
        assert!(matches!(
            d.run_round(&round(0), &dup),
            Err(Error::InvalidArgument(_))
        ));
        let gap = [Unit::new(1, 1)];
        assert!(matches!(
            d.run_round(&round(0), &gap),
            Err(Error::InvalidArgument(_))
        ));
        assert!(d.set_weights(&[0.0]).is_err());
        assert!(d.set_weights(&[1.0, 2.0]).is_err());
        d.set_weights(&[3.0]).unwrap();
        let empty = d.run_round(&round(0), &[]).unwrap();
        assert!(empty.scores.is_empty());
        assert!(matches!(
            Dispatcher::<Fake>::new(Vec::new(), Policy::Weighted),
            Err(Error::InvalidArgument(_))
        ));
    }

    #[test]
    fn units_follow_chunks() {
        use crate::fasta::Record;
        let rec = |n: usize| Record {
            id: format!("s{n}"),
            description: String::new(),
            codes: vec![0; n],
        };
        let db = Database::from_records(vec![rec(3), rec(9), rec(5), rec(1)]);
        let u = units_from_chunks(&db, &[0..2, 2..4]);
        assert_eq!(u, vec![Unit::new(0, 14), Unit::new(1, 4)]);
    }
}
