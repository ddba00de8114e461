//! Several GPUs as one, the database split: each GPU holds one part of
//! the sorted database (nearly equal residues, [`Database::residue_parts`])
//! and runs the one-GPU engine on it — its kernels, query pairs and
//! batches, streams, overflow rescue and progress, resident or streamed by
//! its own memory — as an MPI rank runs its part. This layer only shares
//! out each batch of queries, gathers the parts' scores in sorted order and
//! redoes a part whose GPU fails on another GPU.
//!
//! The parts are contiguous ranges of sorted positions, so the whole
//! database's scores of a query are the parts' scores one after another.

use std::ops::Range;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use super::{Engine, Placement, SearchOptions};
use crate::db::Database;
use crate::error::{Error, Result};
use crate::scoring::Scoring;

/// Opens the engine of one part on a GPU: `(part, ordinals to avoid)` →
/// the GPU it chose and its engine.
pub type Reopen = Box<dyn FnMut(usize, &[usize]) -> Result<(usize, Box<dyn Engine>)> + Send>;

/// One part of the database and the engine that scores it.
struct Part {
    /// Its sorted positions in the whole database.
    range: Range<usize>,
    /// The GPU it runs on.
    ordinal: usize,
    engine: Box<dyn Engine>,
}

/// The engine of several GPUs, one part of the database each (module
/// docs).
pub struct SplitEngine {
    parts: Vec<Part>,
    /// Opens a part again elsewhere when its GPU fails.
    reopen: Reopen,
    /// GPUs that have failed.
    failed: Vec<usize>,
    warnings: Vec<String>,
}

impl SplitEngine {
    /// The engine of `parts`: each part's sorted positions, its GPU and its
    /// engine (opened on that part alone), in order and covering the
    /// database; `reopen` opens a part again on another GPU.
    ///
    /// # Errors
    /// An internal error if the parts are not consecutive from 0.
    pub fn new(
        parts: Vec<(Range<usize>, usize, Box<dyn Engine>)>,
        reopen: Reopen,
    ) -> Result<SplitEngine> {
        let mut next = 0;
        for (range, ..) in &parts {
            if range.start != next {
                return Err(Error::Internal(format!(
                    "split parts are not consecutive: {range:?} after {next}"
                )));
            }
            next = range.end;
        }
        Ok(SplitEngine {
            parts: parts
                .into_iter()
                .map(|(range, ordinal, engine)| Part {
                    range,
                    ordinal,
                    engine,
                })
                .collect(),
            reopen,
            failed: Vec::new(),
            warnings: Vec::new(),
        })
    }
}

/// Opens `db` split over the GPUs `ordinals`: a part of nearly equal
/// residues each (a GPU gets none when there are fewer sequences than
/// GPUs), each part's one-GPU engine opened side by side
/// ([`super::open`] on that GPU alone, with `options`); a part whose GPU
/// fails later is opened again on the first other GPU that takes it.
/// Returns the engine and what the parts' engines say of their plans
/// (each different notice once).
///
/// # Errors
/// A part that cannot be opened on its GPU (its error, naming the GPU).
pub fn open_split(
    ordinals: &[usize],
    db: &Arc<Database>,
    scoring: &Scoring,
    options: &SearchOptions,
) -> Result<(SplitEngine, Option<String>)> {
    let ranges = db.residue_parts(ordinals.len().max(1));
    let open_part = {
        let (db, scoring, options) = (db.clone(), scoring.clone(), options.clone());
        move |ordinal: usize, range: Range<usize>| -> Result<super::Opened> {
            let part = Arc::new(db.part(range));
            super::open(
                Placement::Gpus(Some(vec![ordinal])),
                part,
                scoring.clone(),
                &options,
            )
        }
    };
    // Every part but the empty ones (all of them empty: the first), each
    // on its GPU.
    let mut wanted: Vec<(Range<usize>, usize)> = ranges
        .iter()
        .zip(ordinals)
        .filter(|(r, _)| !r.is_empty())
        .map(|(r, &o)| (r.clone(), o))
        .collect();
    if wanted.is_empty() {
        wanted.push((0..0, ordinals[0]));
    }
    // Parts on one GPU are opened one after another, so that each reads
    // the free memory the other left (`--devices 0,0`, a test's two parts
    // on one GPU); parts on different GPUs side by side.
    let mut distinct = ordinals.to_vec();
    distinct.sort_unstable();
    distinct.dedup();
    let opened: Vec<Result<super::Opened>> = match distinct.len() == ordinals.len() {
        true => std::thread::scope(|s| {
            let handles: Vec<_> = wanted
                .iter()
                .map(|(range, ordinal)| {
                    let open_part = &open_part;
                    s.spawn(move || open_part(*ordinal, range.clone()))
                })
                .collect();
            join_all(handles)
        }),
        false => wanted
            .iter()
            .map(|(range, ordinal)| open_part(*ordinal, range.clone()))
            .collect(),
    };
    // Each part's notice, said once however many parts say it.
    let mut notices: Vec<String> = Vec::new();
    let mut parts = Vec::with_capacity(wanted.len());
    for ((range, ordinal), opened) in wanted.iter().zip(opened) {
        let opened = opened?;
        if let Some(notice) = opened.notice
            && !notices.contains(&notice)
        {
            notices.push(notice);
        }
        parts.push((range.clone(), *ordinal, opened.engine));
    }
    let notice = (!notices.is_empty()).then(|| notices.join("; "));
    let every_gpu = ordinals.to_vec();
    let part_ranges: Vec<Range<usize>> = wanted.into_iter().map(|(r, _)| r).collect();
    let reopen: Reopen = Box::new(move |k, failed| {
        let mut why = Vec::new();
        for &ordinal in every_gpu.iter().filter(|o| !failed.contains(o)) {
            match open_part(ordinal, part_ranges[k].clone()) {
                Ok(opened) => return Ok((ordinal, opened.engine)),
                Err(e) => why.push(format!("GPU {ordinal}: {e}")),
            }
        }
        Err(Error::AllDevicesFailed(match why.is_empty() {
            true => "no GPU is left".into(),
            false => why.join("; "),
        }))
    });
    Ok((SplitEngine::new(parts, reopen)?, notice))
}

impl Engine for SplitEngine {
    fn description(&self) -> String {
        let each: Vec<String> = self
            .parts
            .iter()
            .map(|p| {
                format!(
                    "{} sequences ({} residues) on {}",
                    p.range.len(),
                    p.engine.database_residues(),
                    p.engine.description()
                )
            })
            .collect();
        format!(
            "{} GPUs, the database split by residues: {}",
            self.parts.len(),
            each.join("; ")
        )
    }

    fn score_all(&mut self, query: &[u8]) -> Result<Vec<i32>> {
        let mut scores = self.score_batch(&[query])?;
        Ok(scores.pop().unwrap_or_default())
    }

    /// The largest of the parts' batches, within what the scores of the
    /// whole database may take ([`super::multi::batch_len_for`]): each part
    /// cuts a batch into its own batches, so a part whose plan batches
    /// queries is not fed a few at a time because another part pairs them.
    fn batch_len(&self) -> usize {
        let largest = self.parts.iter().map(|p| p.engine.batch_len()).max();
        let sequences = self.parts.last().map_or(0, |p| p.range.end);
        largest
            .unwrap_or(1)
            .min(super::multi::batch_len_for(sequences))
            .max(1)
    }

    fn score_batch(&mut self, queries: &[&[u8]]) -> Result<Vec<Vec<i32>>> {
        self.score_batch_reporting(queries, &|_| {})
    }

    /// Every part scores the batch on its own thread; a part whose GPU
    /// fails (an error, or a panic of its thread) is opened again on
    /// another GPU (by `reopen`) and scores the batch there, and again on
    /// the next while GPUs are left; the cells it had reported are not
    /// reported again.
    fn score_batch_reporting(
        &mut self,
        queries: &[&[u8]],
        progress: &(dyn Fn(u64) + Sync),
    ) -> Result<Vec<Vec<i32>>> {
        // Cells each part reported, so that a redone part's are not
        // counted twice.
        let reported: Vec<AtomicU64> = self.parts.iter().map(|_| AtomicU64::new(0)).collect();
        let results: Vec<PartResult<Vec<Vec<i32>>>> = std::thread::scope(|s| {
            let handles: Vec<_> = self
                .parts
                .iter_mut()
                .zip(&reported)
                .map(|(part, reported)| {
                    s.spawn(move || {
                        let tell = |cells: u64| {
                            reported.fetch_add(cells, Ordering::Relaxed);
                            progress(cells);
                        };
                        score_in_own_batches(&mut *part.engine, queries, &tell)
                    })
                })
                .collect();
            join_all_caught(handles)
        });
        let mut per_part = Vec::with_capacity(self.parts.len());
        for (k, result) in results.into_iter().enumerate() {
            let scores = match result {
                Ok(scores) => scores,
                Err(failure) => self.redo(k, queries, failure, &reported[k], progress)?,
            };
            check_part(&scores, queries.len(), self.parts[k].range.len())?;
            per_part.push(scores);
        }
        // Each query's scores: the parts' one after another.
        let total = self.parts.last().map_or(0, |p| p.range.end);
        let mut all: Vec<Vec<i32>> = (0..queries.len())
            .map(|_| Vec::with_capacity(total))
            .collect();
        for part in per_part {
            for (query, scores) in all.iter_mut().zip(part) {
                query.extend(scores);
            }
        }
        Ok(all)
    }

    fn database_residues(&self) -> u64 {
        self.parts
            .iter()
            .map(|p| p.engine.database_residues())
            .sum()
    }

    fn kernel_resources(&self) -> Result<Option<super::gpu::KernelResources>> {
        match self.parts.first() {
            Some(p) => p.engine.kernel_resources(),
            None => Ok(None),
        }
    }

    fn entry_points(&self) -> Result<Vec<super::gpu::EntryPointUse>> {
        match self.parts.first() {
            Some(p) => p.engine.entry_points(),
            None => Ok(Vec::new()),
        }
    }

    fn take_warnings(&mut self) -> Vec<String> {
        let mut warnings = std::mem::take(&mut self.warnings);
        for part in &mut self.parts {
            warnings.extend(part.engine.take_warnings());
        }
        warnings
    }
}

impl SplitEngine {
    /// Part `k` failed on this batch: if its GPU failed (a GPU error, or
    /// a panic of its thread), the GPU is given up, the part opened again
    /// on another GPU and the batch scored there, and so on while one
    /// fails and others are left; the cells reported before are not
    /// reported again. Any other error (a bug, a refused size) would fail
    /// on every GPU alike: it ends the search at once.
    fn redo(
        &mut self,
        k: usize,
        queries: &[&[u8]],
        mut failure: PartFailure,
        reported: &AtomicU64,
        progress: &(dyn Fn(u64) + Sync),
    ) -> Result<Vec<Vec<i32>>> {
        loop {
            let PartFailure { error, gpu_failed } = failure;
            if !gpu_failed {
                return Err(error);
            }
            let lost = self.parts[k].ordinal;
            if !self.failed.contains(&lost) {
                self.failed.push(lost);
            }
            let reopened = (self.reopen)(k, &self.failed).and_then(|(ordinal, engine)| match self
                .failed
                .contains(&ordinal)
            {
                false => Ok((ordinal, engine)),
                true => Err(Error::Internal(format!(
                    "the part was opened again on GPU {ordinal}, which has failed"
                ))),
            });
            let (ordinal, engine) = reopened.map_err(|again| {
                Error::AllDevicesFailed(format!(
                    "GPU {lost} failed ({error}), and its part of the database could not be \
                     opened on another GPU: {again}"
                ))
            })?;
            self.warnings.push(format!(
                "GPU {lost} failed ({error}); its part of the database ({} sequences) is \
                 searched on GPU {ordinal} from now on",
                self.parts[k].range.len()
            ));
            let part = &mut self.parts[k];
            part.ordinal = ordinal;
            part.engine = engine;
            match self.rescore(k, queries, reported, progress) {
                Ok(scores) => return Ok(scores),
                Err(again) => failure = again,
            }
        }
    }

    /// Part `k`'s batch scored again on its (new) engine, reporting only
    /// the cells beyond `reported`, which then counts them too.
    fn rescore(
        &mut self,
        k: usize,
        queries: &[&[u8]],
        reported: &AtomicU64,
        progress: &(dyn Fn(u64) + Sync),
    ) -> PartResult<Vec<Vec<i32>>> {
        let part = &mut self.parts[k];
        let left = AtomicU64::new(reported.load(Ordering::Relaxed));
        // Report only what the failed run had not.
        let tell = |cells: u64| {
            let skip = left
                .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |l| {
                    Some(l.saturating_sub(cells))
                })
                .unwrap_or(0);
            let new = cells.saturating_sub(skip);
            reported.fetch_add(new, Ordering::Relaxed);
            progress(new);
        };
        caught(|| score_in_own_batches(&mut *part.engine, queries, &tell))
    }
}

/// `queries` scored by `engine` in batches of its own length.
fn score_in_own_batches(
    engine: &mut dyn Engine,
    queries: &[&[u8]],
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Vec<Vec<i32>>> {
    let mut scores = Vec::with_capacity(queries.len());
    for batch in queries.chunks(engine.batch_len().max(1)) {
        scores.extend(engine.score_batch_reporting(batch, progress)?);
    }
    Ok(scores)
}

/// Each thread's result, in order; a thread's panic goes on in this one.
fn join_all<T>(handles: Vec<std::thread::ScopedJoinHandle<'_, T>>) -> Vec<T> {
    handles
        .into_iter()
        .map(|h| {
            h.join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        })
        .collect()
}

/// How a part failed: its error, and whether its GPU did (a GPU error, or
/// a panic of the part's thread, as from a driver call), so that another
/// GPU may do better.
struct PartFailure {
    error: Error,
    gpu_failed: bool,
}

impl From<Error> for PartFailure {
    fn from(error: Error) -> PartFailure {
        let gpu_failed = matches!(error, Error::Gpu { .. } | Error::AllDevicesFailed(_));
        PartFailure { error, gpu_failed }
    }
}

/// A part's result.
type PartResult<T> = std::result::Result<T, PartFailure>;

/// Each part thread's result, in order, a panic as a failure of that
/// part's GPU.
fn join_all_caught<T>(
    handles: Vec<std::thread::ScopedJoinHandle<'_, Result<T>>>,
) -> Vec<PartResult<T>> {
    handles
        .into_iter()
        .map(|h| match h.join() {
            Ok(result) => result.map_err(PartFailure::from),
            Err(panic) => Err(panicked(&*panic)),
        })
        .collect()
}

/// `f`'s result, a panic as a failure of the part's GPU.
fn caught<T>(f: impl FnOnce() -> Result<T>) -> PartResult<T> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(result) => result.map_err(PartFailure::from),
        Err(panic) => Err(panicked(&*panic)),
    }
}

/// A panic's message as a failure of the part's GPU.
fn panicked(panic: &(dyn std::any::Any + Send)) -> PartFailure {
    let message = panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "no message".into());
    PartFailure {
        error: Error::Internal(format!("a part's thread panicked: {message}")),
        gpu_failed: true,
    }
}

/// A part's scores are one vector a query, one score a sequence of the
/// part.
fn check_part(scores: &[Vec<i32>], queries: usize, sequences: usize) -> Result<()> {
    if scores.len() == queries && scores.iter().all(|s| s.len() == sequences) {
        Ok(())
    } else {
        let lengths: Vec<usize> = scores.iter().map(Vec::len).collect();
        Err(Error::Internal(format!(
            "a part of {sequences} sequences gave scores of lengths {lengths:?} for {queries} \
             queries"
        )))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

    use super::*;
    use crate::db::Database;
    use crate::engine::cpu::CpuEngine;
    use crate::kernel::{Kernel, Plan};
    use crate::scoring::Scoring;

    /// A CPU engine that fails its `fail_at`-th batch (counted from 1),
    /// with an error or, if `panics`, a panic.
    struct Failing {
        inner: CpuEngine,
        batches: Arc<AtomicUsize>,
        fail_at: usize,
        panics: bool,
    }

    impl Engine for Failing {
        fn description(&self) -> String {
            "failing".into()
        }
        fn score_all(&mut self, query: &[u8]) -> Result<Vec<i32>> {
            self.inner.score_all(query)
        }
        fn score_batch_reporting(
            &mut self,
            queries: &[&[u8]],
            progress: &(dyn Fn(u64) + Sync),
        ) -> Result<Vec<Vec<i32>>> {
            if self.batches.fetch_add(1, Ordering::SeqCst) + 1 == self.fail_at {
                // Half of its cells reported before it fails.
                progress(crate::engine::batch_cells(queries, self.database_residues()) / 2);
                if self.panics {
                    panic!("the driver call panicked");
                }
                return Err(Error::Gpu {
                    device: 0,
                    name: "the device fell off the bus".into(),
                    stage: "scoring",
                    source: cudarc::driver::DriverError(
                        cudarc::driver::sys::CUresult::CUDA_ERROR_LAUNCH_FAILED,
                    ),
                });
            }
            self.inner.score_batch_reporting(queries, progress)
        }
        fn database_residues(&self) -> u64 {
            self.inner.database_residues()
        }
    }

    fn database(n: usize, seed: u64) -> Database {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let records = (0..n)
            .map(|i| {
                let len = rng.random_range(1..400);
                let codes = (0..len)
                    .map(|_| rng.random_range(0..20u8))
                    .collect::<Vec<_>>();
                crate::db::tests::record(&format!("s{i}"), &codes)
            })
            .collect();
        Database::from_records(records)
    }

    fn cpu(db: Database) -> CpuEngine {
        CpuEngine::new(Arc::new(db), Scoring::default(), Plan::one(Kernel::Simt))
    }

    /// Part `range` of `db` on a CPU engine, as a split engine holds it.
    fn cpu_part(db: &Database, range: &Range<usize>) -> Box<dyn Engine> {
        Box::new(cpu(db.part(range.clone())))
    }

    /// Part `range` of `db` on an engine that fails its first batch: with
    /// a GPU error, or if `panics` a panic.
    fn failing_part(db: &Database, range: &Range<usize>, panics: bool) -> Box<dyn Engine> {
        Box::new(Failing {
            inner: cpu(db.part(range.clone())),
            batches: Arc::new(AtomicUsize::new(0)),
            fail_at: 1,
            panics,
        })
    }

    #[test]
    fn parts_score_as_the_whole_database_and_a_failed_part_is_redone() {
        let db = database(700, 39);
        let queries: Vec<Vec<u8>> = (0..5).map(|q| db.sequence(q * 97).to_vec()).collect();
        let queries: Vec<&[u8]> = queries.iter().map(|q| &q[..]).collect();
        let whole = cpu(db.clone()).score_batch(&queries).unwrap();
        for parts in [1, 2, 3, 800] {
            for fail_at in [None, Some(1), Some(2)] {
                let ranges = db.residue_parts(parts);
                assert_eq!(ranges.len(), parts);
                assert_eq!(ranges.last().unwrap().end, db.len());
                let batches = Arc::new(AtomicUsize::new(0));
                let opened: Vec<(Range<usize>, usize, Box<dyn Engine>)> = ranges
                    .iter()
                    .enumerate()
                    .map(|(k, r)| {
                        let inner = cpu(db.part(r.clone()));
                        let engine: Box<dyn Engine> = match (k, fail_at) {
                            (0, Some(fail_at)) => Box::new(Failing {
                                inner,
                                batches: batches.clone(),
                                fail_at,
                                panics: false,
                            }),
                            _ => Box::new(inner),
                        };
                        (r.clone(), k, engine)
                    })
                    .collect();
                let (whole_db, parts_of) = (db.clone(), ranges.clone());
                let reopened = Arc::new(AtomicUsize::new(0));
                let counted = reopened.clone();
                let reopen: Reopen = Box::new(move |k, failed| {
                    assert_eq!(failed, [0], "only GPU 0 fails");
                    counted.fetch_add(1, Ordering::SeqCst);
                    Ok((99, cpu_part(&whole_db, &parts_of[k])))
                });
                let mut split = SplitEngine::new(opened, reopen).unwrap();
                let cells = AtomicU64::new(0);
                let progress = |c: u64| {
                    cells.fetch_add(c, Ordering::SeqCst);
                };
                let case = format!("{parts} parts, failing at {fail_at:?}");
                for round in 0..2 {
                    let scores = split.score_batch_reporting(&queries, &progress).unwrap();
                    assert_eq!(scores, whole, "{case}, round {round}");
                }
                let expected = 2 * crate::engine::batch_cells(&queries, db.total_residues());
                assert_eq!(cells.load(Ordering::SeqCst), expected, "{case}");
                let redone = usize::from(fail_at.is_some());
                assert_eq!(reopened.load(Ordering::SeqCst), redone, "{case}");
                assert_eq!(split.take_warnings().len(), redone, "{case}");
            }
        }
    }

    #[test]
    fn a_part_that_cannot_be_redone_fails_the_search_naming_both_errors() {
        let db = database(100, 7);
        let ranges = db.residue_parts(2);
        let opened: Vec<(Range<usize>, usize, Box<dyn Engine>)> = vec![
            (ranges[0].clone(), 0, failing_part(&db, &ranges[0], false)),
            (ranges[1].clone(), 1, cpu_part(&db, &ranges[1])),
        ];
        let reopen: Reopen = Box::new(|_, _| Err(Error::Internal("no GPU has room for it".into())));
        let mut split = SplitEngine::new(opened, reopen).unwrap();
        let error = split
            .score_batch(&[db.sequence(0)])
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("fell off the bus") && error.contains("no GPU has room"),
            "{error}"
        );
    }

    #[test]
    fn a_part_that_panics_or_fails_again_is_redone_on_the_next_gpu() {
        let db = database(300, 11);
        let queries: Vec<&[u8]> = vec![db.sequence(3), db.sequence(200)];
        let whole = cpu(db.clone()).score_batch(&queries).unwrap();
        let ranges = db.residue_parts(2);
        let opened: Vec<(Range<usize>, usize, Box<dyn Engine>)> = vec![
            (ranges[0].clone(), 0, failing_part(&db, &ranges[0], true)),
            (ranges[1].clone(), 1, cpu_part(&db, &ranges[1])),
        ];
        // GPU 2 takes the part and fails it too; GPU 3 scores it.
        let (whole_db, parts_of) = (db.clone(), ranges.clone());
        let avoided = Arc::new(std::sync::Mutex::new(Vec::new()));
        let seen = avoided.clone();
        let reopen: Reopen = Box::new(move |k, failed| {
            seen.lock().unwrap().push(failed.to_vec());
            Ok(match failed.contains(&2) {
                false => (2, failing_part(&whole_db, &parts_of[k], false)),
                true => (3, cpu_part(&whole_db, &parts_of[k])),
            })
        });
        let mut split = SplitEngine::new(opened, reopen).unwrap();
        let cells = AtomicU64::new(0);
        let scores = split
            .score_batch_reporting(&queries, &|c| {
                cells.fetch_add(c, Ordering::SeqCst);
            })
            .unwrap();
        assert_eq!(scores, whole);
        assert_eq!(*avoided.lock().unwrap(), [vec![0], vec![0, 2]]);
        assert_eq!(
            cells.load(Ordering::SeqCst),
            crate::engine::batch_cells(&queries, db.total_residues())
        );
        let warnings = split.take_warnings();
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert!(warnings[0].contains("panicked"), "{warnings:?}");
        assert!(warnings[1].contains("fell off the bus"), "{warnings:?}");
    }

    /// An engine whose every batch fails with an error no GPU would fix.
    struct Refusing(CpuEngine);

    impl Engine for Refusing {
        fn description(&self) -> String {
            "refusing".into()
        }
        fn score_all(&mut self, _query: &[u8]) -> Result<Vec<i32>> {
            Err(Error::Internal("a rule broken".into()))
        }
        fn database_residues(&self) -> u64 {
            self.0.database_residues()
        }
    }

    #[test]
    fn an_error_no_gpu_would_fix_ends_the_search_without_a_redo() {
        let db = database(60, 5);
        let ranges = db.residue_parts(2);
        let opened: Vec<(Range<usize>, usize, Box<dyn Engine>)> = vec![
            (ranges[0].clone(), 0, cpu_part(&db, &ranges[0])),
            (
                ranges[1].clone(),
                1,
                Box::new(Refusing(cpu(db.part(ranges[1].clone())))),
            ),
        ];
        let reopen: Reopen = Box::new(|_, _| panic!("nothing is redone"));
        let mut split = SplitEngine::new(opened, reopen).unwrap();
        let error = split.score_batch(&[db.sequence(0)]).unwrap_err();
        assert!(error.to_string().contains("a rule broken"), "{error}");
        assert!(split.take_warnings().is_empty());
    }

    #[test]
    fn a_part_is_the_sequences_of_its_range_in_order() {
        let db = database(50, 3);
        for range in [0..0, 0..50, 10..11, 7..33] {
            let part = db.part(range.clone());
            assert_eq!(part.len(), range.len());
            for (i, sorted) in range.clone().enumerate() {
                assert_eq!(part.sequence(i), db.sequence(sorted));
                assert_eq!(part.id(i), db.id(db.original_index(sorted)));
            }
            let nested = part.part(part.len() / 2..part.len());
            for i in 0..nested.len() {
                let sorted = range.start + part.len() / 2 + i;
                assert_eq!(nested.sequence(i), db.sequence(sorted));
                assert_eq!(nested.id(i), db.id(db.original_index(sorted)));
            }
        }
    }
}
