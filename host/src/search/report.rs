//! A batch's report: each query's statistics from all its scores, its hits
//! ranked (by E-value, or by score with `--stats none`) and realigned with
//! traceback, each alignment's score checked against the search's.

use std::time::Instant;

use rayon::prelude::*;

use super::Search;
use crate::align::{AlignOptions, Alignment, Mode, align_pairs};
use crate::db::Database;
use crate::engine::Placement;
use crate::error::{Error, Result};
use crate::fasta::Record;
use crate::merge::top_hits_at;
use crate::output::{QueryHits, ReportedHit};
use crate::stats::{Method, QueryStatistics, SequenceLengths, Statistics};

/// A batch's reported pairs are realigned on the GPUs (when the search ran
/// there) only from this many pairs on: the traceback kernels run one
/// thread per pair, so a few hundred pairs (10 hits of a batch of queries)
/// leave a GPU nearly idle and the host's cores are faster (on an H100
/// machine, 200 pairs of the 20 standard queries × UniProt 20k took 9.0 s
/// on the GPU in batches of one query and 1.2 s on 16 cores;
/// benches/RESULTS.md).
const GPU_ALIGN_MIN_PAIRS: usize = 20_000;

/// One batch's reports: for each query its statistics from all its scores
/// (`batch_scores`, sorted database order), the hits ranked by E-value
/// ([`rank_by_evalue`]; by score with `--stats none`, no statistics) and
/// their alignments, realigned with traceback
/// (on the GPUs when the search's placement has them and there are at
/// least [`GPU_ALIGN_MIN_PAIRS`] pairs, else on the CPU) and checked: each
/// alignment's score must equal the search's. With `realign` false (the
/// output prints no alignment column) the hits carry no alignment.
pub(super) fn report_batch<'q>(
    search: &Search,
    batch: &'q [Record],
    batch_scores: Vec<Vec<i32>>,
    db: &Database,
    lengths: &SequenceLengths,
    sorted_of: &[usize],
    statistics: &Statistics,
) -> Result<(Vec<QueryHits<'q>>, ReportTime)> {
    let (top, max_ln_evalue) = (search.top, search.evalue.ln());
    let realign = search.alignments;
    let statistics_started = Instant::now();
    // Statistics and ranking, the batch's queries side by side.
    type Ranked = (Option<QueryStatistics>, Vec<usize>, Vec<i32>);
    let ranked: Vec<Ranked> = batch
        .par_iter()
        .zip(batch_scores)
        .map(|(q, sorted_scores)| {
            if statistics.method() == Method::RawScores {
                // The best scores, read in the engines' order.
                let hits = top_hits_at(&sorted_scores, db.original_order(), top);
                let (order, kept) = hits.iter().map(|h| (h.target, h.score)).unzip();
                return (None, order, kept);
            }
            // Input order (`Database::to_input_order`), gathered side by
            // side: on the last batch this is on the critical path.
            let scores: Vec<i32> = sorted_of
                .par_iter()
                .with_min_len(1 << 14)
                .map(|&sorted| sorted_scores[sorted])
                .collect();
            let stats = statistics.for_query(&q.codes, &scores, lengths);
            // Side by side within the query too: with one query a batch (a
            // GPU) the batch's queries give no parallelism.
            let order = stats.top_hits(&scores, lengths, top, max_ln_evalue);
            let kept = order.iter().map(|&i| scores[i]).collect();
            (Some(stats), order, kept)
        })
        .collect();

    let statistics_seconds = statistics_started.elapsed().as_secs_f64();
    let alignments_started = Instant::now();
    // Every reported pair of the batch, realigned in one call, unless the
    // output prints nothing of the alignments (`realign` false).
    // A target reported for several queries is listed once.
    let mut slots = std::collections::HashMap::new();
    let mut sequences: Vec<&[u8]> = batch.iter().map(|q| &q.codes[..]).collect();
    let mut pairs = Vec::new();
    for (qi, (_, order, _)) in ranked.iter().enumerate() {
        for &target in order {
            let slot = *slots.entry(target).or_insert_with(|| {
                sequences.push(db.sequence(sorted_of[target]));
                sequences.len() - 1
            });
            pairs.push((qi, slot));
        }
    }
    let where_ = match &search.placement {
        Placement::Cpu => Placement::Cpu,
        _ if pairs.len() < GPU_ALIGN_MIN_PAIRS => Placement::Cpu,
        other => other.clone(),
    };
    let align_options = AlignOptions {
        memory: search.gpu_memory,
        ..AlignOptions::default()
    };
    let mut alignments = match realign {
        true => {
            align_pairs(
                where_,
                &sequences,
                &pairs,
                Mode::Local,
                &search.scoring,
                &align_options,
            )?
            .alignments
        }
        false => Vec::new(),
    }
    .into_iter();

    let mut reports = Vec::with_capacity(batch.len());
    for (q, (stats, order, kept)) in batch.iter().zip(ranked) {
        let mut hits = Vec::with_capacity(order.len());
        for (&target, &score) in order.iter().zip(&kept) {
            let alignment: Option<Alignment> =
                match realign {
                    true => Some(alignments.next().expect("one alignment per pair").map_err(
                        |e| Error::Aligning {
                            query: q.id.clone(),
                            target: db.id(target).to_string(),
                            source: Box::new(e),
                        },
                    )?),
                    false => None,
                };
            if let Some(alignment) = &alignment
                && alignment.score != score
            {
                return Err(Error::Internal(format!(
                    "query {} against {}: the search scored {score}, the alignment {}",
                    q.id,
                    db.id(target),
                    alignment.score
                )));
            }
            let length = lengths.lengths()[target];
            hits.push(ReportedHit {
                target,
                score,
                bits: stats.as_ref().map(|s| s.bits(score, length)),
                evalue: stats.as_ref().map(|s| s.evalue(score, length)),
                alignment,
            });
        }
        reports.push(QueryHits {
            query: &q.id,
            codes: &q.codes,
            statistics: stats,
            hits,
        });
    }
    let time = ReportTime {
        statistics: statistics_seconds,
        alignments: alignments_started.elapsed().as_secs_f64(),
    };
    Ok((reports, time))
}

/// A batch's report, timed: its statistics and ranking, then its
/// alignments (the rest of [`report_batch`]).
#[derive(Clone, Copy)]
pub(super) struct ReportTime {
    /// Statistics and ranking.
    pub(super) statistics: f64,
    /// Realignment with traceback.
    pub(super) alignments: f64,
}
