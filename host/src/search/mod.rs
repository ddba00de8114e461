//! A whole search as a library call: queries scored against every database
//! sequence, each query's statistics computed from all its scores, its
//! hits ranked and cut (`--evalue`, `--max-target-seqs`), realigned with
//! traceback and handed to a [`Sink`] in query order.
//!
//! ```text
//! queries ─▶ Scorer::score_batch ─▶ report (statistics → ranking → alignments) ─▶ Sink::query
//!            (this thread)           (another thread, beside the next batch)
//! ```
//!
//! The [`Scorer`] is an engine ([`crate::engine::open`]: the CPU, one GPU
//! or several) or anything that scores batches of queries in the database's
//! sorted order (`warpsw`'s MPI driver gathers its ranks' parts behind
//! one). The [`Sink`] receives each query's [`QueryHits`] once the query
//! is done; [`crate::output::HitsWriter`] writes them as tsv, BLAST
//! tabular, JSON or pairwise text (ripgrep's searcher and printer meet the
//! same way). The command line's `warpsw search` is this call with a sink
//! that writes a file and a progress bar.
//!
//! ```no_run
//! use std::sync::Arc;
//! use host::db::Database;
//! use host::engine::{self, Placement, SearchOptions};
//! use host::search::{Search, each_query};
//!
//! # fn main() -> host::Result<()> {
//! let queries = host::fasta::read_fasta("queries.fasta".as_ref())?;
//! let db = Arc::new(Database::from_records(host::fasta::read_fasta("db.fasta".as_ref())?));
//! let search = Search::default(); // BLOSUM62 11/1, fitted E-values, 10 hits
//! let options = SearchOptions::for_queries(queries.len());
//! let opened = engine::open(Placement::Auto(None), db.clone(), search.scoring.clone(), &options)?;
//! let mut engine = opened.engine;
//! let mut print = each_query(|hits| {
//!     for hit in &hits.hits {
//!         println!("{}\t{}\t{}", hits.query, db.id(hit.target), hit.score);
//!     }
//!     Ok(())
//! });
//! let progress = |_cells: u64| {}; // a progress bar's advance
//! search.run(&queries, &db, &mut engine, &mut print, &progress)?;
//! # Ok(())
//! # }
//! ```

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use crate::db::Database;
use crate::engine::gpu::MemoryCap;
use crate::engine::{self, Placement};
use crate::fasta::Record;
use crate::output::QueryHits;
use crate::scoring::Scoring;
use crate::stats::{DatabaseSize, Method, SequenceLengths, Statistics};

mod account;
mod report;

pub use account::{SearchTime, StatisticsTally};
use report::report_batch;

/// The most bytes of scores the scorer scores ahead while a report is made
/// (they wait in memory: one `i32` per database sequence and query), at
/// least one batch: 256 MiB, what one batch of the multi-GPU engines holds.
pub const MAX_SCORES_AHEAD_BYTES: usize = 1 << 28;

/// `--evalue`'s default.
pub const DEFAULT_EVALUE: f64 = 10.0;

/// `--max-target-seqs`' default.
pub const DEFAULT_TOP: usize = 10;

/// What a search computes of each query's hits: the scoring, the
/// statistics, how many hits, and whether they are realigned.
#[derive(Clone, Debug)]
pub struct Search {
    /// The matrix and gap costs (those the scorer was opened with).
    pub scoring: Scoring,
    /// The statistics (`--stats`).
    pub method: Method,
    /// Hits kept per query at most (`--max-target-seqs`).
    pub top: usize,
    /// Hits with an E-value above this are left out (`--evalue`; not used
    /// with [`Method::RawScores`]).
    pub evalue: f64,
    /// Whether the hits are realigned with traceback (their
    /// [`crate::output::ReportedHit::alignment`]); an output of ids,
    /// scores and E-values only needs none.
    pub alignments: bool,
    /// Where the realignment runs: on the GPUs from
    /// some twenty thousand pairs a batch, else on the CPU's cores.
    pub placement: Placement,
    /// The GPU memory the realignment may use (`--gpu-memory`).
    pub gpu_memory: MemoryCap,
}

impl Default for Search {
    /// `warpsw search`'s defaults: BLOSUM62 with gaps 11/1, fitted
    /// statistics, the 10 best hits of E-value 10 at most, realigned on
    /// the CPU.
    fn default() -> Search {
        Search {
            scoring: Scoring::default(),
            method: Method::Fitted,
            top: DEFAULT_TOP,
            evalue: DEFAULT_EVALUE,
            alignments: true,
            placement: Placement::Cpu,
            gpu_memory: MemoryCap::default(),
        }
    }
}

/// Scores batches of queries against the whole database, in its sorted
/// order ([`Database::original_order`] maps it back): an engine, or the
/// ranks of an MPI job.
pub trait Scorer {
    /// Its errors (a [`Sink`]'s error type takes them).
    type Error;

    /// How many queries a batch should hold.
    fn batch_len(&self) -> usize;

    /// Every query's scores against every database sequence (sorted
    /// order), telling `progress` the cells done as it goes (as
    /// [`crate::engine::Engine::score_batch_reporting`]).
    fn score_batch(
        &mut self,
        queries: &[&[u8]],
        progress: &(dyn Fn(u64) + Sync),
    ) -> Result<Vec<Vec<i32>>, Self::Error>;

    /// Warnings gathered since the last call, for the [`Sink`].
    fn take_warnings(&mut self) -> Vec<String> {
        Vec::new()
    }

    /// One line naming the scorer and its hardware, for a summary.
    fn description(&self) -> String {
        String::new()
    }
}

impl Scorer for Box<dyn engine::Engine> {
    type Error = crate::Error;

    fn batch_len(&self) -> usize {
        engine::Engine::batch_len(&**self)
    }

    fn score_batch(
        &mut self,
        queries: &[&[u8]],
        progress: &(dyn Fn(u64) + Sync),
    ) -> crate::Result<Vec<Vec<i32>>> {
        self.score_batch_reporting(queries, progress)
    }

    fn take_warnings(&mut self) -> Vec<String> {
        engine::Engine::take_warnings(&mut **self)
    }

    fn description(&self) -> String {
        engine::Engine::description(&**self)
    }
}

/// Where a search's reports go, in query order, on the thread that called
/// [`Search::run`].
pub trait Sink {
    /// Its errors: the search's own ([`crate::Error`]) convert into them.
    type Error: From<crate::Error>;

    /// One query's hits, ranked, with their statistics and alignments. An
    /// error stops the search.
    fn query(&mut self, hits: &QueryHits<'_>) -> Result<(), Self::Error>;

    /// The first `done` of `total` queries are scored (their reports may
    /// still be under way).
    fn scored(&mut self, _done: usize, _total: usize) {}

    /// A warning of the scorer's (a GPU lost and its work redone, ...).
    fn warning(&mut self, _text: &str) {}
}

/// A [`Sink`] that calls a closure with each query's hits.
pub struct EachQuery<F>(F);

/// A [`Sink`] made of a closure (module docs).
pub fn each_query<F: FnMut(&QueryHits<'_>) -> crate::Result<()>>(f: F) -> EachQuery<F> {
    EachQuery(f)
}

impl<F: FnMut(&QueryHits<'_>) -> crate::Result<()>> Sink for EachQuery<F> {
    type Error = crate::Error;

    fn query(&mut self, hits: &QueryHits<'_>) -> crate::Result<()> {
        (self.0)(hits)
    }
}

/// What a search did: its cells, wall time and where the time went, and
/// the statistics its queries got.
#[derive(Clone, Debug)]
pub struct Searched {
    /// Queries whose hits went to the sink.
    pub queries: usize,
    /// Query residues × database residues of those queries.
    pub cells: u128,
    /// Seconds from the first batch to the last report.
    pub seconds: f64,
    /// Where the time went ([`SearchTime::open`], the reading and the
    /// writing are the caller's to add).
    pub time: SearchTime,
    /// The statistics the queries got.
    pub statistics: StatisticsTally,
}

impl Search {
    /// Searches `queries` against `db` with `scorer` (opened on `db` with
    /// [`Search::scoring`]), each query's report handed to `sink` in query
    /// order; `progress` is told the cells scored as they are. The
    /// reports (statistics, ranking, realignment) of the batches scored so
    /// far are made on another thread while the scorer scores the next
    /// ones on this one, so the GPUs do not wait for the host's work on
    /// the hits; the scorer stays on this thread (an MPI job's collectives
    /// are called from the thread that started MPI).
    ///
    /// # Errors
    /// The statistics cannot be had for [`Search::scoring`] (a matrix
    /// without local statistics); the scorer, a realignment or the sink
    /// failed. After a scoring error the batches scored before it are
    /// still reported, then the error is returned: the sink holds every
    /// query before the first that failed.
    pub fn run<S: Scorer, K: Sink>(
        &self,
        queries: &[Record],
        db: &Database,
        scorer: &mut S,
        sink: &mut K,
        progress: &(dyn Fn(u64) + Sync),
    ) -> Result<Searched, K::Error>
    where
        K::Error: From<S::Error>,
    {
        let database = DatabaseSize {
            sequences: db.len() as u64,
            residues: db.total_residues(),
        };
        let statistics = Statistics::new(self.method, &self.scoring, database)?;
        // Lengths in input order, for the fit and the E-values.
        let mut lengths = vec![0usize; db.len()];
        let mut sorted_of = vec![0usize; db.len()];
        for (sorted, &original) in db.original_order().iter().enumerate() {
            lengths[original as usize] = db.length(sorted);
            sorted_of[original as usize] = sorted;
        }
        let lengths = SequenceLengths::new(lengths);
        let residues = u128::from(db.total_residues());

        let started = Instant::now();
        let mut done = Searched {
            queries: 0,
            cells: 0,
            seconds: 0.0,
            time: SearchTime::default(),
            statistics: StatisticsTally::default(),
        };
        // The scorer keeps scoring until the report is done (up to
        // MAX_SCORES_AHEAD_BYTES of scores), and the next report takes
        // every batch scored meanwhile: the realignments of many queries
        // then run side by side, instead of one query's longest pair after
        // another's.
        let batch_len = scorer.batch_len().max(1);
        let mut scored_upto = 0usize; // queries[..scored_upto] are scored
        let mut pending: Option<(usize, Vec<Vec<i32>>)> = None; // first query, scores
        let mut failed: Option<S::Error> = None;
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
                        self,
                        group,
                        group_scores,
                        db,
                        &lengths,
                        &sorted_of,
                        &statistics,
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
                    match scorer.score_batch(&codes, progress) {
                        Ok(batch_scores) => scores.extend(batch_scores),
                        Err(e) => {
                            error = Some(e);
                            break;
                        }
                    }
                    next += batch.len();
                    sink.scored(next, queries.len());
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
                done.time.scoring += (scored_at - scoring_started).as_secs_f64();
                ((scores, error), reported, waited)
            });
            if let Some((group, reports)) = reported {
                let (reports, report_time) = reports?;
                done.time.reported(report_time, waited);
                let writing = Instant::now();
                for (q, hits) in group.iter().zip(&reports) {
                    done.statistics.add(q, hits.statistics.as_ref());
                    sink.query(hits)?;
                    done.cells += q.codes.len() as u128 * residues;
                    done.queries += 1;
                }
                done.time.writing += writing.elapsed().as_secs_f64();
            }
            let (new_scores, error) = scored;
            if !new_scores.is_empty() {
                pending = Some((scored_upto, new_scores));
                scored_upto += pending.as_ref().map_or(0, |p| p.1.len());
            }
            for warning in scorer.take_warnings() {
                sink.warning(&warning);
            }
            if let Some(e) = error {
                failed = Some(e);
            }
        }
        if let Some(e) = failed {
            return Err(e.into());
        }
        done.seconds = started.elapsed().as_secs_f64();
        Ok(done)
    }
}

/// `n` and the noun that goes with it: `1 query`, `2 queries`.
pub fn count(n: impl Into<u128>, one: &str, many: &str) -> String {
    let n = n.into();
    format!("{n} {}", if n == 1 { one } else { many })
}
