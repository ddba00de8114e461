//! Where a search's time went and which statistics its queries got: the
//! summary line's accounts.

use crate::fasta::Record;
use crate::stats::{DatabaseSize, QueryStatistics};

use super::count;
use super::report::ReportTime;

/// Where a search's time went, in parts that do not overlap and add up to
/// its whole: the reports (statistics, alignments) run beside the scoring
/// of the next batch, and count here only for the time the search waited
/// for them.
#[derive(Clone, Debug, Default)]
pub struct SearchTime {
    /// Reading the queries (the caller's, before [`super::run`]).
    pub queries_read: f64,
    /// Reading the database (the caller's).
    pub database_read: f64,
    /// Opening the engine: packing, and on GPUs their start, the modules'
    /// loading and the upload.
    pub open: f64,
    /// Of `open`, the packing, where the engine tells it apart.
    pub packing: Option<f64>,
    /// Whether the engine runs on GPUs.
    pub gpu: bool,
    /// Waiting for the engine's scores.
    pub scoring: f64,
    /// Waiting for statistics and ranking.
    pub statistics: f64,
    /// Waiting for alignments.
    pub alignments: f64,
    /// Writing the hits (and committing the output).
    pub writing: f64,
    /// Statistics and alignments in all, beside the scoring or not.
    pub statistics_total: f64,
    /// Alignments in all, beside the scoring or not.
    pub alignments_total: f64,
}

impl SearchTime {
    /// A report that took `time` and that the search waited `waited`
    /// seconds for after its scoring: the alignments ran last, so the wait
    /// is theirs first.
    pub(super) fn reported(&mut self, time: ReportTime, waited: f64) {
        let alignments = waited.min(time.alignments);
        self.alignments += alignments;
        self.statistics += (waited - alignments).min(time.statistics);
        self.statistics_total += time.statistics;
        self.alignments_total += time.alignments;
    }

    /// The parts, with what is left of `whole` as `other`, and the reports'
    /// whole time.
    pub fn summary(&self, whole: f64) -> String {
        let mut parts = vec![
            ("queries read", self.queries_read),
            ("database read", self.database_read),
        ];
        match (self.packing, self.gpu) {
            (_, false) => parts.push(("database packed", self.open)),
            (Some(packing), true) => {
                parts.push(("database packed", packing));
                parts.push(("GPU start and upload", self.open - packing));
            }
            (None, true) => parts.push(("GPU start, packing and upload", self.open)),
        }
        parts.extend([
            ("scoring", self.scoring),
            ("statistics", self.statistics),
            ("alignments", self.alignments),
            ("writing", self.writing),
        ]);
        let known: f64 = parts.iter().map(|(_, s)| s).sum();
        parts.push(("other", (whole - known).max(0.0)));
        let listed: Vec<String> = parts
            .iter()
            .map(|(what, s)| format!("{what} {s:.3}"))
            .collect();
        format!(
            "{whole:.3} s in all: {} (statistics {:.3} s and alignments {:.3} s in all, the rest \
             beside the scoring)",
            listed.join(", "),
            self.statistics_total,
            self.alignments_total
        )
    }
}

/// Which statistics a search's queries got: counted for the summary, and
/// the queries that fell back named, once each, on standard error.
#[derive(Clone, Debug, Default)]
pub struct StatisticsTally {
    /// Queries per model (`host::stats::Model::name`), in first-seen order.
    counts: Vec<(&'static str, usize)>,
    /// The models queries fell back to, in first-seen order.
    fallbacks: Vec<FellBack>,
}

/// The queries that fell back to one model.
#[derive(Clone, Debug)]
struct FellBack {
    /// The model (`host::stats::Model::name`).
    model: &'static str,
    /// Each query's id and length.
    queries: Vec<(String, usize)>,
    /// Why the first of them fell back.
    why: String,
}

/// Queries a fallback line names before it says how many more.
const FALLBACKS_NAMED: usize = 10;

impl StatisticsTally {
    /// Counts `query`'s statistics (`None`: `--stats none`, counted as
    /// nothing).
    pub fn add(&mut self, query: &Record, statistics: Option<&QueryStatistics>) {
        // None: `--stats none`.
        let Some(statistics) = statistics else {
            return;
        };
        let model = statistics.model.name();
        match self.counts.iter_mut().find(|(m, _)| *m == model) {
            Some((_, n)) => *n += 1,
            None => self.counts.push((model, 1)),
        }
        let Some(why) = &statistics.fallback else {
            return;
        };
        let named = (crate::fasta::escape_controls(&query.id), query.codes.len());
        match self.fallbacks.iter_mut().find(|f| f.model == model) {
            Some(f) => f.queries.push(named),
            None => self.fallbacks.push(FellBack {
                model,
                queries: vec![named],
                why: why.clone(),
            }),
        }
    }

    /// One line per fallback model: its queries (id and length) and why.
    pub fn fallbacks(&self) -> Vec<String> {
        self.fallbacks
            .iter()
            .map(
                |FellBack {
                     model,
                     queries,
                     why,
                 }| {
                    let mut names: Vec<String> = queries
                        .iter()
                        .take(FALLBACKS_NAMED)
                        .map(|(id, length)| {
                            format!("{id} ({})", count(*length as u64, "residue", "residues"))
                        })
                        .collect();
                    if queries.len() > FALLBACKS_NAMED {
                        names.push(format!("and {} more", queries.len() - FALLBACKS_NAMED));
                    }
                    format!(
                        "{} got {model} statistics: {}; for the first, {why}",
                        count(queries.len() as u64, "query", "queries"),
                        names.join(", ")
                    )
                },
            )
            .collect()
    }

    /// The summary's account: how many queries got each model, over what.
    pub fn summary(&self, database: DatabaseSize) -> String {
        if self.counts.is_empty() {
            return "none: the best raw scores".into();
        }
        let counts: Vec<String> = self
            .counts
            .iter()
            .map(|(model, n)| format!("{model} {n}"))
            .collect();
        format!(
            "{} (queries); E-values over the whole database: {} sequences, {} residues",
            counts.join(", "),
            database.sequences,
            database.residues
        )
    }
}
