//! Many queries in one launch sequence: the resident engine's batches of
//! query pairs (`gpu_kernels::query_group_i16x2`, *A batch of query
//! pairs*).
//!
//! A small database leaves a GPU mostly idle for one query, or two: 4,000
//! sequences are 4,000 groups of lanes, a tenth of what an H100 holds at
//! once. Where every chunk runs the query-group kernel and it batches
//! ([`crate::kernel::BatchesQueries::batches_queries`]), the engine scores its
//! queries in batches of up to `--gpu-query-batch` queries (the
//! builder's [`super::GpuEngineBuilder::query_batch`]): ordered
//! longest first, paired with their neighbour, every pair an *entry*, and
//! each chunk's launches take every entry at once, a row of blocks an
//! entry (the grid's second dimension). The batch's profile rows go up in
//! one copy and its scores come back in one (through the engine's
//! page-locked buffer, in pieces of at most 16 MiB); the rare scores above the
//! 16-bit limit are rescued afterwards, query by query, with that query's
//! own profile. The scores are those of one query at a time.

use std::sync::Arc;

use cudarc::driver::sys::CUevent_flags;
use cudarc::driver::{CudaSlice, CudaStream};
use gpu_kernels::simt_i16x2::SCORE_LIMIT;

use super::GpuEngine;
use crate::engine::Engine;
use crate::error::{Error, Result};
use crate::kernel::Kernel;
use crate::kernel::launch::{BatchChunk, ChunkLaunch, DeviceChunk, PairBatch, Scratch};
use crate::kernel::query_group::MULTI_PASS_PAIRS_PER_SM;

/// Groups of lanes (one per database sequence and entry) a batch aims to
/// give each multiprocessor: many waves, so that the last wave of a
/// launch, a batch's fixed costs (its profiles up, its scores back) and
/// the last passes of its longest queries are a small part of it. On an
/// H100 (benches/RESULTS.md, "Many queries in one launch"), the 4,136
/// E. coli proteins against UniProt 20k ran at 1,680 GCUPS in batches of
/// 14 queries (1,024 groups a multiprocessor), 2,417 of 64, 2,602 of
/// 128, 2,748 of 256 and 2,799 of 512; the 4,000 Swiss-Prot sequences
/// against themselves at 2,017 in batches of 68, 2,142 of 256, 2,130 of
/// 512. So a batch takes what memory and [`MAX_BATCH_QUERIES`] allow on
/// a database of up to about 50,000 sequences.
pub const BATCH_GROUPS_PER_SM: usize = 32 * 1024;

/// The most queries in one batch.
pub const MAX_BATCH_QUERIES: usize = 512;

/// The entries of a batch of `queries` (module docs): the non-empty ones
/// ordered longest first (the first of equals first), each entry the next
/// two, the second absent for an odd one out. Entries are then longest
/// first too, as a batch's launches need them.
///
/// ```
/// use host::engine::gpu::resident::batch::batch_entries;
/// let queries: [&[u8]; 4] = [&[1, 2], &[], &[3, 4, 5], &[6]];
/// assert_eq!(batch_entries(&queries), [(2, Some(0)), (3, None)]);
/// ```
pub fn batch_entries(queries: &[&[u8]]) -> Vec<(usize, Option<usize>)> {
    let mut order: Vec<usize> = (0..queries.len())
        .filter(|&q| !queries[q].is_empty())
        .collect();
    order.sort_by_key(|&q| std::cmp::Reverse(queries[q].len()));
    order
        .chunks(2)
        .map(|two| (two[0], two.get(1).copied()))
        .collect()
}

/// Queries a batch takes on a GPU of `sm_count` multiprocessors holding
/// `sequences` database sequences: as many entries as give it
/// [`BATCH_GROUPS_PER_SM`] groups each, two queries an entry, at most
/// [`MAX_BATCH_QUERIES`] and at most `memory_entries` entries.
///
/// None on a database that fills the GPU one query at a time (at least a
/// full launch of several passes of eight lanes,
/// [`MULTI_PASS_PAIRS_PER_SM`] pairs of sequences a multiprocessor: from
/// 67,583 sequences on an H200's 132), whatever its lengths: there a batch runs
/// no faster than its queries in pairs, and on databases of one length
/// slower. On an H200 (benches/RESULTS.md, "Batches only where one query
/// leaves the GPU idle"), whole searches of the 20 standard queries in
/// batches (the rule before: every database of sequences above 256
/// residues) against query pairs alone: 1,000,000 sequences of 512
/// residues 4,911.1–4,958.5 against 5,288.4–5,304.2 GCUPS, of 1,024
/// 5,098.8–5,109.8 against 5,429.1–5,430.1; half of Swiss-Prot, 570,000 and 2,500,000
/// synthetic sequences within 1 % either way; of 128 and 256 residues
/// batches ran 8 % and 2.5 % slower than each query alone. Likely why,
/// read from the code but not measured apart: a batch runs one
/// configuration for all its entries (`batch_config_for`) and hands no
/// longer query over where its partner ends, where each pair gets its own
/// configuration and hand-over (`pair_tail`); on a database that one
/// query fills, the batch's only gain, filling the GPU, is none. The
/// threshold itself was not measured: batches ran faster on 4,000 and 20,000
/// sequences, and no faster from 258,186 up.
///
/// ```
/// use host::engine::gpu::resident::batch::auto_batch_queries;
/// // Many queries against 20,000 sequences: batches of 434.
/// assert_eq!(auto_batch_queries(132, 20_000, 1_000), 434);
/// // 4,000 sequences: as many as memory allows, at most 512.
/// assert_eq!(auto_batch_queries(132, 4_000, 1_000), 512);
/// // 1,000,000 sequences, or 100,000: one query fills the GPU, none.
/// assert_eq!(auto_batch_queries(132, 1_000_000, 1_000), 0);
/// assert_eq!(auto_batch_queries(132, 100_000, 1_000), 0);
/// ```
pub fn auto_batch_queries(sm_count: usize, sequences: usize, memory_entries: usize) -> usize {
    let fills_alone = sequences.div_ceil(2) >= sm_count * MULTI_PASS_PAIRS_PER_SM;
    if fills_alone {
        return 0;
    }
    let entries = (sm_count * BATCH_GROUPS_PER_SM).div_ceil(sequences.max(1));
    2 * entries.min(memory_entries).min(MAX_BATCH_QUERIES / 2)
}

/// What one batch keeps on the device between batches (grown on demand).
#[derive(Default)]
pub(super) struct BatchBuffers {
    /// Every entry's profile rows.
    rows: Option<CudaSlice<u32>>,
    /// Every entry's scores: the low query's, then the high one's, each
    /// one per database position.
    scores: Option<CudaSlice<i32>>,
}

impl BatchBuffers {
    /// Room for `rows` profile words and `scores` scores: where either
    /// buffer is too small, both are freed and allocated for this batch,
    /// so that together they never hold more than one batch's (within
    /// the budget's share, [`super::super::Budget::batch_bytes`]).
    fn grown(
        &mut self,
        rows: usize,
        scores: usize,
        stream: &Arc<CudaStream>,
    ) -> std::result::Result<(), cudarc::driver::DriverError> {
        let short = |len: Option<usize>, needed: usize| len.is_none_or(|len| len < needed);
        if short(self.rows.as_ref().map(CudaSlice::len), rows)
            || short(self.scores.as_ref().map(CudaSlice::len), scores)
        {
            // Freed before allocating.
            (self.rows, self.scores) = (None, None);
            self.rows = Some(stream.alloc_zeros::<u32>(rows.max(1))?);
            self.scores = Some(stream.alloc_zeros::<i32>(scores.max(1))?);
        }
        Ok(())
    }
}

impl GpuEngine {
    /// Whether this engine scores batches of query pairs: every chunk runs
    /// a kernel that batches them with the engine's scoring (the kernel a
    /// chunk runs does not depend on the query's length but for `simt`'s
    /// long queries, which do not batch), and batches hold more than two.
    pub(super) fn batches(&self) -> bool {
        self.query_batch > 2 && self.batch_kernel().is_some()
    }

    /// The kernel every chunk runs, if it batches queries.
    fn batch_kernel(&self) -> Option<Kernel> {
        let gaps = self.scoring.gaps.kernel_gaps();
        let range = (
            self.scoring.matrix.min_score(),
            self.scoring.matrix.max_score(),
        );
        let mut kernels = (0..self.chunks.len()).map(|k| self.chunk_kernel_for(k, 1).ok());
        let first = kernels.next()??;
        let same = kernels.all(|k| k == Some(first));
        let batches = first.adapter().batches();
        (same && batches.is_some_and(|b| b.batches_queries(gaps, range))).then_some(first)
    }

    /// Scratch pairs a batch's border scratch takes at most per entry,
    /// every chunk side by side with queries of several passes.
    pub(super) fn batch_scratch_per_entry(&self) -> usize {
        let Some(kernel) = self.batch_kernel() else {
            return 0;
        };
        // A query of two of the widest passes: one that no configuration
        // finishes in one pass, so every chunk's scratch is counted.
        let long = [2 * gpu_kernels::query_group_i16x2::MAX_PASS_COLUMNS];
        self.chunks
            .iter()
            .map(|c| {
                let batches = kernel.adapter().batches();
                batches.map_or(0, |b| {
                    b.batch_scratch_pairs(&long, c.shape(), self.sm_count)
                })
            })
            .sum()
    }

    /// The scores of every query of `queries` (module docs): each
    /// query's scores in the order of `queries`; `progress` told the
    /// batch's cells once they are back.
    pub(super) fn score_batched(
        &mut self,
        queries: &[&[u8]],
        progress: &(dyn Fn(u64) + Sync),
    ) -> Result<Vec<Vec<i32>>> {
        let kernel = self
            .batch_kernel()
            .ok_or_else(|| Error::Internal("a batch of queries on chunks that score one".into()))?;
        self.ctx
            .bind_to_thread()
            .map_err(self.info.error("binding the device"))?;
        // Whatever a query scored alone left queued is done first.
        self.join_all()?;
        let n = self.positions.len();
        let mut all = vec![vec![0; n]; queries.len()];
        let entries = batch_entries(queries);
        if entries.is_empty() {
            return Ok(all);
        }
        let adapter = kernel.adapter();
        let batches = adapter.batches().ok_or_else(|| {
            Error::Internal(format!(
                "a batch of queries for {kernel}, which scores one a launch"
            ))
        })?;
        let pairs: Vec<[&[u8]; 2]> = entries
            .iter()
            .map(|&(low, high)| [queries[low], high.map_or(&[][..], |h| queries[h])])
            .collect();
        let lens: Vec<usize> = pairs.iter().map(|p| p[0].len()).collect();
        let shapes: Vec<BatchChunk> = self.chunks.iter().map(DeviceChunk::shape).collect();
        let (rows, row_words) =
            batches.batch_profile(&pairs, &self.scoring.matrix, &shapes, self.sm_count);
        let bytes = std::mem::size_of::<u32>() * rows.len()
            + std::mem::size_of::<i32>() * 2 * n * pairs.len();
        if bytes > self.batch_bytes_limit {
            // Too large for the memory: the longer half of the queries,
            // then the rest, each in batches that fit.
            let longer: Vec<usize> = entries[..entries.len().div_ceil(2)]
                .iter()
                .flat_map(|&(low, high)| std::iter::once(low).chain(high))
                .collect();
            let shorter: Vec<usize> = (0..queries.len())
                .filter(|q| !longer.contains(q) && !queries[*q].is_empty())
                .collect();
            drop(rows);
            for part in [longer, shorter] {
                let chosen: Vec<&[u8]> = part.iter().map(|&q| queries[q]).collect();
                let scores = self.score_batch_reporting(&chosen, progress)?;
                for (q, got) in part.into_iter().zip(scores) {
                    all[q] = got;
                }
            }
            return Ok(all);
        }
        let batch = PairBatch {
            lens,
            row_words,
            scores_stride: 2 * n,
            high_offset: n,
        };

        // Each chunk's border scratch, side by side where the kernel
        // allows and the limit holds them, else one region for all.
        let gaps = self.scoring.gaps.kernel_gaps();
        let needs: Vec<usize> = shapes
            .iter()
            .map(|&c| batches.batch_scratch_pairs(&batch.lens, c, self.sm_count))
            .collect();
        let side_by_side = !self.workers.is_empty()
            && adapter.overlaps(gaps)
            && needs.iter().sum::<usize>() <= self.overlap_scratch_limit;
        let regions: Vec<std::ops::Range<usize>> = match side_by_side {
            true => needs
                .iter()
                .scan(0, |end, &pairs| {
                    *end += pairs;
                    Some(*end - pairs..*end)
                })
                .collect(),
            false => {
                let most = needs.iter().copied().max().unwrap_or(0);
                let shared = most.min(self.overlap_scratch_limit.max(1));
                // A launch takes at least one group of every entry: where
                // the limit holds not even that, pairs as before.
                let least = needs
                    .iter()
                    .zip(&shapes)
                    .map(|(&pairs, c)| pairs.div_ceil(c.sequences.max(1)))
                    .max()
                    .unwrap_or(0);
                if shared < least {
                    return self.score_paired(queries, progress);
                }
                vec![0..shared; needs.len()]
            }
        };
        let scratch_end = regions.iter().map(|r| r.end).max().unwrap_or(0);
        if scratch_end > 0 {
            self.reserve_scratch(scratch_end)?;
        }
        let stage = |s| self.info.error(s);
        self.batch
            .grown(rows.len(), 2 * n * pairs.len(), &self.stream)
            .map_err(stage("allocating a batch"))?;
        if let Some(buffer) = &mut self.batch.rows {
            self.stream
                .memcpy_htod(&rows, &mut buffer.slice_mut(..rows.len()))
                .map_err(stage("uploading a batch's profiles"))?;
        }
        let (Some(rows_buffer), Some(scores)) = (&self.batch.rows, &self.batch.scores) else {
            return Err(Error::Internal("a batch's buffers are missing".into()));
        };

        // The workers start once the profiles are on the device.
        let no_timing = Some(CUevent_flags::CU_EVENT_DISABLE_TIMING);
        let ordering = self.info.error("ordering the streams");
        if side_by_side {
            let ready = self.stream.record_event(no_timing).map_err(&ordering)?;
            for worker in &self.workers {
                worker.wait(&ready).map_err(&ordering)?;
            }
        }
        let mut done = Vec::new();
        // Longest chunk first: the first worker has the highest priority.
        let queued = (0..self.chunks.len())
            .rev()
            .enumerate()
            .try_for_each(|(turn, k)| {
                let stream = match side_by_side {
                    true => &self.workers[turn % self.workers.len()],
                    false => &self.stream,
                };
                let launch = self.batch_launch(k, stream, rows_buffer, scores, regions[k].clone());
                batches.launch_batch(&launch, &batch)?;
                if side_by_side {
                    done.push(stream.record_event(no_timing).map_err(&ordering)?);
                }
                Ok(())
            });
        if let Err(error) = queued {
            // The engine's stream waits for whatever was queued on the
            // workers: the next batch's profiles and scores reuse these
            // buffers. The launch's error is the one told.
            for worker in &self.workers {
                self.ctx.record_err(self.stream.join(worker));
            }
            return Err(error);
        }
        if let Err(error) = done.iter().try_for_each(|event| self.stream.wait(event)) {
            // As above: nothing may reuse the buffers before the workers end.
            for worker in &self.workers {
                self.ctx.record_err(self.stream.join(worker));
            }
            return Err(ordering(error));
        }
        let mut got = self
            .read_back
            .read(&self.stream, &scores.slice(..2 * n * pairs.len()))
            .map_err(stage("reading the scores back"))?;

        // Rescues, query by query: a chunk with a score above the limit
        // runs the 32-bit rescue with the query's own profile.
        for (e, &(low, high)) in entries.iter().enumerate() {
            for (half, q) in [(0, Some(low)), (1, high)] {
                let Some(q) = q else { continue };
                let row = (2 * e + half) * n;
                let mut profile = None;
                for k in 0..self.chunks.len() {
                    let local = self.local(&self.chunks[k]);
                    let range = row + local.start..row + local.end;
                    if got[range.clone()].iter().all(|&s| s <= SCORE_LIMIT) {
                        continue;
                    }
                    if profile.is_none() {
                        let words = adapter.profile(queries[q], &self.scoring.matrix);
                        profile = Some(
                            self.stream
                                .clone_htod(&words)
                                .map_err(stage("uploading the query profile"))?,
                        );
                    }
                    let Some(profile) = &profile else { continue };
                    let mut launch = self.batch_launch(k, &self.stream, profile, scores, 0..0);
                    launch.score_offset = range.start;
                    launch.query_len = queries[q].len();
                    adapter.after_overlap(&launch)?;
                    self.read_back
                        .read_into(&self.stream, &scores.slice(range.clone()), &mut got[range])
                        .map_err(stage("reading the scores back"))?;
                }
                all[q] = got[row..row + n].to_vec();
            }
        }
        progress(crate::engine::batch_cells(
            queries,
            self.database_residues(),
        ));
        Ok(all)
    }

    /// A launch of chunk `k` on `stream` reading `profile` and writing
    /// `scores` from the chunk's first position on, with scratch region
    /// `region` (pairs; empty: none). Its query length is 0 until the
    /// caller sets it; a batch's adapter reads the batch's.
    fn batch_launch<'a>(
        &'a self,
        k: usize,
        stream: &'a Arc<CudaStream>,
        profile: &'a CudaSlice<u32>,
        scores: &'a CudaSlice<i32>,
        region: std::ops::Range<usize>,
    ) -> ChunkLaunch<'a> {
        let chunk = &self.chunks[k];
        let scratch = self.scratch.as_ref().map(|buffer| Scratch {
            buffer,
            first_pair: region.start,
            pairs: region.len(),
        });
        ChunkLaunch {
            symbol: self
                .plan
                .kernel_for(1, chunk.longest, chunk.range.len())
                .info()
                .symbol,
            device: (self.info.ordinal, &self.info.name),
            stream,
            functions: &self.functions,
            chunk,
            score_offset: self.local(chunk).start,
            scores,
            profile,
            query_len: 0,
            row_buffer: &self.row_buffer,
            scratch,
            sm_count: self.sm_count,
            database_residues: self.resident_residues,
            // A batch's launches never judge a pole (`rescue::scores_whole_chunk`).
            loaded_query_residues: 0,
            gaps: self.scoring.gaps.kernel_gaps(),
            max_score: self.scoring.matrix.max_score(),
            min_score: self.scoring.matrix.min_score(),
            overlapping: !Arc::ptr_eq(stream, &self.stream),
        }
    }
}
