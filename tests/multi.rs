//! Multi-device search with CPU workers standing in for GPUs: every policy,
//! with and without a device failing mid-search, equals one device.

use std::sync::Arc;
use std::time::Duration;

use host::db::{ChunkLimits, Database};
use host::dispatch::Round;
use host::dispatch::{Policy, Unit, Worker, units_from_chunks};
use host::engine::Engine;
use host::engine::cpu::CpuEngine;
use host::engine::multi::{CpuWorker, MultiEngine, multi_device_plan};
use host::error::{Error, Result};
use host::fasta::Record;
use host::kernel::{AutoOptions, Kernel, KernelChoice, Plan, Target};

use crate::hay;

/// A CPU worker that fails once it has run `fail_after` units, or, beside
/// one that does, takes `delay` before each unit.
struct FlakyWorker {
    inner: CpuWorker,
    fail_after: Option<usize>,
    done: usize,
    delay: Duration,
}

impl Worker for FlakyWorker {
    fn name(&self) -> String {
        self.inner.name()
    }
    fn run_unit(&mut self, round: &Round<'_>, unit: &Unit) -> Result<Vec<i32>> {
        if self.fail_after.is_some_and(|n| self.done >= n) {
            return Err(Error::InvalidArgument(
                "injected failure: device lost".into(),
            ));
        }
        self.done += 1;
        std::thread::sleep(self.delay);
        self.inner.run_unit(round, unit)
    }
}

/// How long the healthy devices take before each unit when another is to
/// fail: under `dynamic` the devices take units from one queue (a unit
/// each per query here), and healthy devices fast enough to take two
/// before the failing one takes its first would leave it nothing to fail
/// on. Thread starts take microseconds.
const HEALTHY_DELAY: Duration = Duration::from_millis(30);

fn setup() -> (Arc<Database>, Vec<Vec<u8>>) {
    let mut rng = hay::rng(50);
    let seqs: Vec<Record> = (0..700)
        .map(|i| Record {
            id: format!("m{i}"),
            description: String::new(),
            codes: {
                let len = hay::skewed_length(&mut rng, 900);
                hay::random_codes(&mut rng, len, true)
            },
        })
        .collect();
    let queries = (0..3)
        .map(|k| hay::random_codes(&mut rng, 100 + 150 * k, false))
        .collect();
    (Arc::new(Database::from_records(seqs)), queries)
}

/// One CPU device's scores of every query: what every multi-device run must give.
fn one_device_scores(db: &Arc<Database>, queries: &[Vec<u8>]) -> Vec<Vec<i32>> {
    let mut single = CpuEngine::new(db.clone(), hay::blosum62(11, 1), Plan::one(Kernel::Simt));
    queries
        .iter()
        .map(|q| single.score_all(q).unwrap())
        .collect()
}

fn multi(
    db: &Arc<Database>,
    devices: usize,
    policy: Policy,
    fail: &[Option<usize>],
) -> MultiEngine<FlakyWorker> {
    let scoring = hay::blosum62(11, 1);
    let limits = ChunkLimits {
        max_sequences: usize::MAX,
        max_bytes: usize::MAX,
    };
    let plan = Arc::new(multi_device_plan(
        db,
        devices,
        limits,
        &Plan::one(Kernel::Simt),
    ));
    let units: Vec<Unit> = units_from_chunks(db, &plan);
    let one_fails = fail.iter().any(Option::is_some);
    let workers = (0..devices)
        .map(|k| {
            let fail_after = fail.get(k).copied().flatten();
            FlakyWorker {
                inner: CpuWorker::new(
                    &format!("fake GPU {k}"),
                    db.clone(),
                    plan.clone(),
                    scoring.clone(),
                ),
                fail_after,
                done: 0,
                delay: if one_fails && fail_after.is_none() {
                    HEALTHY_DELAY
                } else {
                    Duration::ZERO
                },
            }
        })
        .collect();
    MultiEngine::new(workers, policy, units, db.len()).unwrap()
}

#[test]
fn every_policy_on_several_devices_equals_one_device() {
    let (db, queries) = setup();
    let expected = one_device_scores(&db, &queries);
    for policy in Policy::ALL {
        for devices in [1, 2, 4] {
            let mut engine = multi(&db, devices, policy, &[]);
            for (q, want) in queries.iter().zip(&expected) {
                assert_eq!(
                    &engine.score_all(q).unwrap(),
                    want,
                    "{policy}, {devices} devices"
                );
            }
            assert!(engine.take_warnings().is_empty());
        }
    }
}

#[test]
fn a_failing_device_loses_nothing_and_is_named() {
    let (db, queries) = setup();
    let expected = one_device_scores(&db, &queries);
    for policy in Policy::ALL {
        let mut engine = multi(&db, 3, policy, &[None, Some(1), None]);
        for (q, want) in queries.iter().zip(&expected) {
            assert_eq!(&engine.score_all(q).unwrap(), want, "{policy}");
        }
        let warnings = engine.take_warnings();
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(warnings[0].contains("fake GPU 1"), "{}", warnings[0]);
    }
}

/// Batches of queries, an empty one among them: a resident database cuts
/// a batch into (query, chunk) units (one query at a time under
/// `weighted`), a streamed one into parts covering the whole batch; with a
/// device failing mid-batch, every policy still equals one device query by
/// query.
#[test]
fn batches_of_queries_equal_one_query_at_a_time() {
    let (db, mut queries) = setup();
    queries.insert(1, Vec::new());
    let expected = one_device_scores(&db, &queries);
    let batch: Vec<&[u8]> = queries.iter().map(|q| &q[..]).collect();
    for policy in Policy::ALL {
        for streamed in [false, true] {
            for fail in [&[][..], &[None, Some(1), None]] {
                let mut engine = multi(&db, 3, policy, fail);
                if streamed {
                    engine = engine.streamed(3, "in batches".into());
                    assert_eq!(engine.batch_len(), 3);
                    assert!(engine.description().contains("; in batches;"));
                } else if policy == Policy::Weighted {
                    assert_eq!(engine.batch_len(), 1);
                } else {
                    assert!(engine.batch_len() >= batch.len(), "{policy}");
                }
                let label = format!("{policy}, streamed: {streamed}, failing: {fail:?}");
                assert_eq!(engine.score_batch(&batch).unwrap(), expected, "{label}");
                assert_eq!(
                    engine.score_batch(&batch[1..]).unwrap(),
                    expected[1..],
                    "{label}"
                );
                assert!(engine.score_batch(&[]).unwrap().is_empty());
                assert_eq!(engine.take_warnings().len(), fail.len().min(1), "{label}");
            }
        }
    }
}

#[test]
fn all_devices_failing_is_an_error_not_a_partial_result() {
    let (db, queries) = setup();
    // Device 0 fails at once, device 1 on its second unit: the plan has at
    // least one unit per device, so device 1 meets the redone one and fails.
    let mut engine = multi(&db, 2, Policy::Dynamic, &[Some(0), Some(1)]);
    assert!(engine.score_all(&queries[0]).is_err());
}

/// With `auto`, no chunk of a multi-GPU plan mixes the two stages.
#[test]
fn multi_device_plan_splits_auto_at_its_threshold() {
    let mut rng = hay::rng(77);
    let db = hay::database(hay::skewed_sequences(&mut rng, 500, 3000, false));
    let limits = ChunkLimits {
        max_sequences: usize::MAX,
        max_bytes: usize::MAX,
    };
    let auto = KernelChoice::Auto(AutoOptions {
        threshold: 1000,
        min_sequences: 0,
        group_min_sequences: usize::MAX,
        ..AutoOptions::default()
    });
    let gpu = Target::Gpu { capability: (9, 0) };
    let plan = multi_device_plan(
        &db,
        3,
        limits,
        &hay::plan(auto, gpu, &db, &hay::blosum62(11, 1)),
    );
    assert_eq!(plan.iter().map(|r| r.len()).sum::<usize>(), db.len());
    for range in plan {
        let long = range.clone().filter(|&i| db.length(i) > 1000).count();
        assert!(
            long == 0 || long == range.len(),
            "chunk {range:?} mixes the stages"
        );
    }
}
