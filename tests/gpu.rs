//! The same correctness tests on a real GPU. Ignored in CI (no GPU); run on a
//! GPU machine with `--ignored` (scripts/gpu.sh packages this binary).

use gpu_kernels::query_group_i16x2;
use host::db::Database;
use host::engine::Engine;
use host::engine::gpu::{Budget, GpuEngine, MemoryCap, device};
use host::kernel::{AutoOptions, KernelChoice, Plan, Target};
use host::reference::local_score;
use host::scoring::{GapPenalty, Scoring};
use rayon::prelude::*;

use crate::hay;

/// `choice` resolved for GPU 0.
fn gpu0_plan(choice: KernelChoice, db: &Database, scoring: &Scoring) -> Plan {
    let capability = device(0).expect("GPU 0 answers").compute_capability;
    hay::plan(choice, Target::Gpu { capability }, db, scoring)
}

/// `auto` with both stages whatever the database's size.
fn auto_both_stages() -> KernelChoice {
    KernelChoice::Auto(AutoOptions {
        min_sequences: 0,
        group_min_sequences: usize::MAX,
        ..AutoOptions::default()
    })
}

/// GPU 0 holding `db`, scoring by `choice`.
fn gpu0_engine(choice: KernelChoice, db: &Database, scoring: &Scoring) -> GpuEngine {
    let budget = MemoryCap::UNLIMITED.free(0).expect("GPU 0 answers");
    GpuEngine::builder(0, scoring.clone(), gpu0_plan(choice, db, scoring))
        .database(db, budget)
        .expect("GPU 0 opens")
}

/// The reference's score of each query against every sequence of `db`.
fn reference_scores(queries: &[Vec<u8>], db: &Database, scoring: &Scoring) -> Vec<Vec<i32>> {
    queries
        .iter()
        .map(|query| {
            (0..db.len())
                .into_par_iter()
                .map(|i| local_score(query, db.sequence(i), &scoring.matrix, scoring.gaps))
                .collect()
        })
        .collect()
}

/// Every kernel on GPU 0 against the reference for every sequence of `db`;
/// returns the number of pairs compared. The reference runs once per query.
fn check_gpu(queries: &[Vec<u8>], db: &Database, scoring: &Scoring) -> usize {
    let expected = reference_scores(queries, db, scoring);
    let mut pairs = 0;
    for kernel in hay::kernels_and_auto() {
        let mut engine = gpu0_engine(kernel, db, scoring);
        for (query, expected) in queries.iter().zip(&expected) {
            let got = engine.score_all(query).expect("the kernel runs");
            let mismatches: Vec<usize> = (0..db.len())
                .into_par_iter()
                .filter(|&i| got[i] != expected[i])
                .collect();
            assert!(
                mismatches.is_empty(),
                "{} on the GPU: {} mismatches of {} (matrix {}, gaps {:?}, query length {}); first at target length {}",
                engine.plan(),
                mismatches.len(),
                db.len(),
                scoring.matrix.name(),
                scoring.gaps,
                query.len(),
                db.length(mismatches[0])
            );
            pairs += db.len();
        }
    }
    pairs
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_matches_reference_on_100000_database_sequences() {
    let mut rng = hay::rng(100);
    let mut seqs: Vec<Vec<u8>> = hay::skewed_sequences(&mut rng, 100_000, 3000, true);
    for len in [12_000, 9_000, 5_000, 0, 1] {
        seqs.push(hay::random_codes(&mut rng, len, false));
    }
    let db = hay::database(seqs);
    let queries: Vec<Vec<u8>> = [144, 567, 1000]
        .iter()
        .map(|&l| hay::random_codes(&mut rng, l, false))
        .collect();
    let pairs = check_gpu(&queries, &db, &hay::blosum62(10, 1));
    eprintln!("gpu: {pairs} pairs compared with the reference, 0 mismatches");
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_matches_reference_for_every_matrix_and_gap_setting() {
    let mut rng = hay::rng(101);
    let query = hay::random_codes(&mut rng, 333, true);
    let mut seqs: Vec<Vec<u8>> = hay::skewed_sequences(&mut rng, 600, 2000, true);
    seqs.extend((0..20).map(|_| hay::mutate(&mut rng, &query, 0.6)));
    let db = hay::database(seqs);
    for matrix in hay::matrices() {
        for (open, extend) in hay::GAP_SETTINGS {
            let scoring = Scoring {
                matrix: matrix.clone(),
                gaps: GapPenalty::new(open, extend).unwrap(),
            };
            check_gpu(std::slice::from_ref(&query), &db, &scoring);
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_adversarial_cases() {
    let mut rng = hay::rng(102);
    let long = hay::random_codes(&mut rng, 9000, false);
    let x = host::alphabet::X_CODE;
    let db = hay::database(vec![
        long.clone(),
        hay::mutate(&mut rng, &long, 0.9),
        vec![x; 300],
        vec![],
        vec![5],
        vec![17; 7000],
    ]);
    let queries = vec![vec![], vec![5], long.clone(), vec![x; 100], vec![17; 7000]];
    check_gpu(&queries, &db, &hay::blosum62(11, 1));
    // A database of one sequence; a database whose sequences share one length.
    check_gpu(
        &[long[..500].to_vec()],
        &hay::database(vec![long.clone()]),
        &hay::blosum62(11, 1),
    );
    let same = hay::database(
        (0..5000)
            .map(|_| hay::random_codes(&mut rng, 256, false))
            .collect(),
    );
    check_gpu(&[long[..256].to_vec()], &same, &hay::blosum62(20, 5));
}

/// The traceback kernels on GPU 0 against the reference and the CPU path on
/// over 1,000,000 pairs (all three modes), 0 mismatches.
#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_traceback_matches_the_reference_on_a_million_pairs() {
    use host::align::check_alignment;
    use host::reference::{Mode, score};
    let mut rng = hay::rng(2011);
    let seqs: Vec<Vec<u8>> = (0..1100)
        .map(|k| {
            let len = 1 + hay::skewed_length(&mut rng, 300);
            if k % 4 == 0 {
                (0..len)
                    .map(|_| rand::Rng::random_range(&mut rng, 0..3))
                    .collect()
            } else {
                hay::random_codes(&mut rng, len, true)
            }
        })
        .collect();
    let pairs: Vec<(usize, usize)> = (0..1100)
        .flat_map(|a| (0..1100).map(move |b| (a, b)))
        .filter(|&(a, b)| a != b || a % 7 == 0)
        .take(1_000_010)
        .collect();
    let mut checked = 0;
    for (k, mode) in Mode::ALL.into_iter().enumerate() {
        let scoring = hay::blosum62([11, 0, 10][k], [1, 1, 2][k]);
        let part: Vec<(usize, usize)> = pairs.iter().copied().skip(k).step_by(3).collect();
        let got = host::align::gpu::align_pairs(
            &[0],
            &seqs,
            &part,
            mode,
            &scoring,
            MemoryCap::UNLIMITED,
            None,
        )
        .expect("GPU 0 runs the traceback")
        .alignments;
        let bad = part
            .par_iter()
            .zip(got.par_iter())
            .filter(|&(&(a, b), r)| {
                let a_ = r.as_ref().expect("no pair refused");
                a_.score != score(mode, &seqs[a], &seqs[b], &scoring)
                    || check_alignment(a_, mode, &seqs[a], &seqs[b], &scoring).is_err()
            })
            .count();
        assert_eq!(bad, 0, "{mode}: {bad} mismatches");
        checked += part.len();
    }
    assert!(checked >= 1_000_000);
}

/// A database streamed part by part (as when it does not fit on the GPU):
/// forced here with a small memory figure, scores equal to the reference.
#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_parted_engine_matches_reference() {
    use host::engine::parted::PartedGpuEngine;
    let mut rng = hay::rng(103);
    let db = std::sync::Arc::new(hay::database(hay::skewed_sequences(
        &mut rng, 20_000, 3000, true,
    )));
    let scoring = hay::blosum62(10, 1);
    let queries: Vec<Vec<u8>> = [500, 0, 1300]
        .iter()
        .map(|&l| hay::random_codes(&mut rng, l, false))
        .collect();
    let batch: Vec<&[u8]> = queries.iter().map(|q| &q[..]).collect();
    for kernel in [
        KernelChoice::One(host::kernel::Kernel::Simt),
        auto_both_stages(),
    ] {
        let plan = gpu0_plan(kernel, &db, &scoring);
        let mut engine = PartedGpuEngine::new(0, &db, scoring.clone(), plan, Budget(16 << 20))
            .expect("the plan fits");
        // One query, then a batch sharing each part's upload.
        let mut got = vec![engine.score_all(&queries[0]).expect("the parts run")];
        got.extend(engine.score_batch(&batch).expect("the parts run"));
        for (query, got) in batch[..1].iter().chain(&batch).zip(&got) {
            let bad = (0..db.len())
                .into_par_iter()
                .filter(|&i| {
                    got[i] != local_score(query, db.sequence(i), &scoring.matrix, scoring.gaps)
                })
                .count();
            assert_eq!(
                bad,
                0,
                "{kernel}, query length {}: {}",
                query.len(),
                engine.description()
            );
        }
    }
}

/// The fixture of the several-workers-on-GPU-0 tests: a 30,000-sequence
/// database, queries of `lengths` residues, and one engine's scores of them.
struct WorkersFixture {
    db: Database,
    scoring: Scoring,
    plan: Plan,
    queries: Vec<Vec<u8>>,
    want: Vec<Vec<i32>>,
}

impl WorkersFixture {
    fn new(seed: u64, lengths: &[usize]) -> WorkersFixture {
        let mut rng = hay::rng(seed);
        let db = hay::database(hay::skewed_sequences(&mut rng, 30_000, 2500, true));
        let scoring = hay::blosum62(10, 1);
        let queries: Vec<Vec<u8>> = lengths
            .iter()
            .map(|&l| hay::random_codes(&mut rng, l, false))
            .collect();
        let plan = gpu0_plan(auto_both_stages(), &db, &scoring);
        let mut single = gpu0_engine(auto_both_stages(), &db, &scoring);
        let want = queries
            .iter()
            .map(|q| single.score_all(q).unwrap())
            .collect();
        WorkersFixture {
            db,
            scoring,
            plan,
            queries,
            want,
        }
    }

    fn batch(&self) -> Vec<&[u8]> {
        self.queries.iter().map(|q| &q[..]).collect()
    }

    /// `workers` (several on GPU 0, balanced by `policy`) against the one
    /// engine: each query alone when `one_at_a_time`, then the whole batch
    /// `batches` times (a streamed engine finds parts resident the second
    /// time), with no warning.
    fn check(
        &self,
        workers: &mut dyn Engine,
        policy: host::dispatch::Policy,
        one_at_a_time: bool,
        batches: usize,
    ) {
        if one_at_a_time {
            for (q, want) in self.queries.iter().zip(&self.want) {
                let got = workers.score_all(q).expect("the workers run");
                assert_eq!(&got, want, "{policy}");
            }
        }
        for _ in 0..batches {
            let got = workers.score_batch(&self.batch()).expect("the workers run");
            assert_eq!(got, self.want, "{policy}");
        }
        assert!(workers.take_warnings().is_empty(), "{policy}");
    }
}

/// The multi-GPU path on real hardware with the one GPU these machines have:
/// two workers on GPU 0 (`--devices 0,0`), every balancing policy, against
/// one engine, one query at a time and as a batch cut into (query, chunk)
/// units: every sequence scored once, the same scores.
#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_two_workers_on_one_gpu_match_one_engine() {
    use host::dispatch::Policy;
    use host::engine::multi::open_gpus;
    let f = WorkersFixture::new(104, &[150, 0, 1200]);
    let budget = MemoryCap::UNLIMITED
        .smallest_free(&[0, 0])
        .expect("GPU 0 answers");
    let gpu0 = device(0).expect("GPU 0 answers");
    for policy in Policy::ALL {
        let (mut two, _) = open_gpus(
            &[gpu0.clone(), gpu0.clone()],
            &[f.plan.clone(), f.plan.clone()],
            &f.db,
            &f.scoring,
            policy,
            budget,
        )
        .expect("two workers open");
        f.check(&mut two, policy, true, 1);
    }
}

/// The database split (the default with several GPUs), two parts on GPU 0
/// (`--devices 0,0`), each part's one-GPU engine with its pairs and
/// batches: against one engine, with seven queries (batches of pairs on
/// each part, a query beyond 16 bits against its own copy), then with one
/// at a time, then with each part streamed (a memory cap under twice the
/// part); and a part that is empty (more GPUs than sequences).
#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_split_parts_on_one_gpu_match_one_engine() {
    use host::engine::SearchOptions;
    use host::engine::split::open_split;
    let mut rng = hay::rng(139);
    let mut seqs = hay::skewed_sequences(&mut rng, 20_000, 2500, true);
    let long = hay::random_codes(&mut rng, 4000, false);
    seqs.push(long.clone()); // 4,000 residues of itself: beyond 16 bits
    let db = std::sync::Arc::new(hay::database(seqs));
    let scoring = hay::blosum62(11, 1);
    let mut queries: Vec<Vec<u8>> = [5, 40, 150, 300, 700, 1500]
        .iter()
        .map(|&l| hay::random_codes(&mut rng, l, false))
        .collect();
    queries.push(long);
    let batch: Vec<&[u8]> = queries.iter().map(|q| &q[..]).collect();
    let mut one = host::engine::open(
        host::engine::Placement::Gpus(Some(vec![0])),
        db.clone(),
        scoring.clone(),
        &SearchOptions::for_queries(queries.len()),
    )
    .expect("one GPU opens")
    .engine;
    let want = one.score_batch(&batch).expect("one engine scores");
    drop(one);
    // A memory cap under twice the larger part: each GPU streams its part.
    let largest_part = db
        .residue_parts(2)
        .into_iter()
        .map(|r| host::engine::gpu::budget::resident_bytes(&db.part(r)))
        .max()
        .unwrap();
    let streamed = SearchOptions {
        memory: MemoryCap::new(Some(largest_part * 3 / 2)),
        ..SearchOptions::for_queries(queries.len())
    };
    for (n, options) in [
        (queries.len(), SearchOptions::for_queries(queries.len())),
        (1, SearchOptions::for_queries(1)),
        (queries.len(), streamed),
    ] {
        let capped = options.memory != MemoryCap::UNLIMITED;
        let (mut split, _) = open_split(&[0, 0], &db, &scoring, &options).expect("parts open");
        let description = split.description();
        assert!(description.starts_with("2 GPUs"), "{description}");
        assert_eq!(
            description.matches("database streamed").count(),
            if capped { 2 } else { 0 },
            "{description}"
        );
        let got: Vec<Vec<i32>> = batch
            .chunks(n)
            .flat_map(|b| split.score_batch(b).expect("the parts score"))
            .collect();
        assert_eq!(got, want, "batches of {n}");
        assert!(split.take_warnings().is_empty());
    }
    // Fewer sequences than GPUs: one part, the other GPU idle.
    let tiny = std::sync::Arc::new(hay::database(vec![queries[1].clone()]));
    let (mut split, _) =
        open_split(&[0, 0], &tiny, &scoring, &SearchOptions::default()).expect("parts open");
    let scores = split.score_all(&queries[1]).expect("the part scores");
    let own = local_score(&queries[1], &queries[1], &scoring.matrix, scoring.gaps);
    assert_eq!(scores, [own]);
}

/// Several GPUs sharing a database none of them holds (forced with a small
/// memory figure): two part workers on GPU 0, every policy, a batch of
/// queries, against one resident engine.
#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_streamed_workers_on_one_gpu_match_one_engine() {
    use host::dispatch::Policy;
    use host::engine::parted::open_streamed_gpus;
    let f = WorkersFixture::new(106, &[150, 0, 1200]);
    for policy in Policy::ALL {
        let gpu0 = device(0).expect("GPU 0 answers");
        let (mut two, _) = open_streamed_gpus(
            &[gpu0.clone(), gpu0],
            &[f.plan.clone(), f.plan.clone()],
            &f.db,
            &f.scoring,
            policy,
            Budget(16 << 20),
        )
        .expect("two part workers open");
        assert!(
            two.description().contains("streamed"),
            "{}",
            two.description()
        );
        f.check(&mut two, policy, false, 2);
    }
}

/// `count` sequences of 1 to `max_len + 1` residues of all 24 codes, drawn
/// from test `seed`, and every pair `(a, b)` of them with `a < b`.
fn traceback_inputs(
    seed: u64,
    count: usize,
    max_len: usize,
) -> (Vec<Vec<u8>>, Vec<(usize, usize)>) {
    let mut rng = hay::rng(seed);
    let seqs: Vec<Vec<u8>> = (0..count)
        .map(|_| {
            let len = 1 + hay::skewed_length(&mut rng, max_len);
            hay::random_codes(&mut rng, len, true)
        })
        .collect();
    let pairs: Vec<(usize, usize)> = (0..count)
        .flat_map(|a| (a + 1..count).map(move |b| (a, b)))
        .collect();
    (seqs, pairs)
}

/// The GPU traceback runner's local alignments of `pairs` on the device
/// slots `ordinals`; panics with `what` if it fails.
fn local_on_gpus(
    ordinals: &[usize],
    seqs: &[Vec<u8>],
    pairs: &[(usize, usize)],
    scoring: &Scoring,
    memory: MemoryCap,
    progress: Option<&host::align::Progress>,
    what: &str,
) -> host::align::gpu::GpuAlignments {
    host::align::gpu::align_pairs(
        ordinals,
        seqs,
        pairs,
        host::align::Mode::Local,
        scoring,
        memory,
        progress,
    )
    .expect(what)
}

/// The traceback's longest-first schedule over two device slots (both GPU 0)
/// gives the alignments of one.
#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_traceback_on_two_device_slots_matches_one() {
    let (seqs, pairs) = traceback_inputs(105, 400, 600);
    let scoring = hay::blosum62(10, 1);
    let local = |slots: &[usize], what: &str| {
        local_on_gpus(
            slots,
            &seqs,
            &pairs,
            &scoring,
            MemoryCap::UNLIMITED,
            None,
            what,
        )
    };
    let one = local(&[0], "one slot");
    let two = local(&[0, 0], "two slots");
    assert!(two.windows >= 8, "{} windows", two.windows);
    for (k, (a, b)) in one.alignments.iter().zip(&two.alignments).enumerate() {
        assert_eq!(a.as_ref().unwrap(), b.as_ref().unwrap(), "pair {k}");
    }
}

/// The GPU runner under a memory cap plans more, smaller windows and gives
/// the same alignments; progress hears every cell once; the library entry
/// point on GPU 0 gives the CPU runner's alignments.
#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_traceback_memory_cap_progress_and_entry_point() {
    use host::align::{AlignOptions, Mode, align_pairs};
    use host::engine::Placement;
    use std::sync::atomic::{AtomicU64, Ordering};
    let (seqs, pairs) = traceback_inputs(2024, 300, 800);
    let cells: u64 = pairs
        .iter()
        .map(|&(a, b)| seqs[a].len() as u64 * seqs[b].len() as u64)
        .sum();
    let scoring = hay::blosum62(11, 1);
    let whole = local_on_gpus(
        &[0],
        &seqs,
        &pairs,
        &scoring,
        MemoryCap::UNLIMITED,
        None,
        "GPU 0 runs the traceback",
    );
    let heard = AtomicU64::new(0);
    let progress = |c: u64| {
        heard.fetch_add(c, Ordering::Relaxed);
    };
    // 16 MiB: windows of at most 8 MiB.
    let capped = local_on_gpus(
        &[0],
        &seqs,
        &pairs,
        &scoring,
        MemoryCap::new(Some(16 << 20)),
        Some(&progress),
        "GPU 0 runs the traceback under a cap",
    );
    assert!(
        capped.windows > whole.windows,
        "{} windows capped, {} not",
        capped.windows,
        whole.windows
    );
    assert_eq!(heard.into_inner(), cells);
    let run = align_pairs(
        Placement::Gpus(Some(vec![0])),
        &seqs,
        &pairs,
        Mode::Local,
        &scoring,
        &AlignOptions::default(),
    )
    .expect("the entry point runs on GPU 0");
    assert!(run.engine.starts_with("GPU [0]"), "{}", run.engine);
    assert!(run.notice.is_none());
    let cpu = host::align::cpu::align_pairs(&seqs, &pairs, Mode::Local, &scoring, 1 << 30, None);
    for (k, ((a, b), (c, d))) in whole
        .alignments
        .iter()
        .zip(&capped.alignments)
        .zip(run.alignments.iter().zip(&cpu))
        .enumerate()
    {
        let a = a.as_ref().unwrap();
        assert_eq!(a, b.as_ref().unwrap(), "pair {k}");
        assert_eq!(a, c.as_ref().unwrap(), "pair {k}");
        assert_eq!(a, d.as_ref().unwrap(), "pair {k}");
    }
}

/// GPU 0 tells the progress callback each chunk's cells as it finishes:
/// the same scores as without a callback, the cells adding up to the
/// query's.
#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_engine_reports_progress_per_chunk() {
    use std::sync::Mutex;
    let mut rng = hay::rng(107);
    let db = hay::database(hay::skewed_sequences(&mut rng, 30_000, 2500, true));
    let scoring = hay::blosum62(10, 1);
    let queries: Vec<Vec<u8>> = [300, 0, 1200]
        .iter()
        .map(|&l| hay::random_codes(&mut rng, l, false))
        .collect();
    let batch: Vec<&[u8]> = queries.iter().map(|q| &q[..]).collect();
    let mut engine = gpu0_engine(auto_both_stages(), &db, &scoring);
    let want = engine.score_batch(&batch).expect("GPU 0 scores");
    let reports = Mutex::new(Vec::new());
    let got = engine
        .score_batch_reporting(&batch, &|cells| reports.lock().unwrap().push(cells))
        .expect("GPU 0 scores");
    assert_eq!(got, want);
    let reports = reports.into_inner().unwrap();
    let cells: u64 = queries
        .iter()
        .map(|q| q.len() as u64 * db.total_residues())
        .sum();
    assert_eq!(reports.iter().sum::<u64>(), cells);
    assert!(reports.len() > queries.len(), "{} reports", reports.len());
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_a_sequence_beyond_the_memory_budget_is_refused_before_allocating() {
    use host::engine::parted::PartedGpuEngine;
    let mut rng = hay::rng(111);
    // 8 million residues need about 69 MiB (residues and row buffer) alone
    // in a chunk: more than 64 MiB can give, resident or streamed. 2
    // million (about 17 MiB) fit, and score as the reference does.
    let mut seqs = hay::skewed_sequences(&mut rng, 2000, 800, true);
    seqs.push(hay::random_codes(&mut rng, 8_000_000, false));
    let too_long = hay::database(seqs.clone());
    seqs.pop();
    seqs.push(hay::random_codes(&mut rng, 2_000_000, false));
    let fits = hay::database(seqs);
    let scoring = hay::blosum62(10, 1);
    let budget = Budget(64 << 20);
    let plan = gpu0_plan(
        KernelChoice::One(host::kernel::Kernel::Simt),
        &too_long,
        &scoring,
    );
    let err = GpuEngine::builder(0, scoring.clone(), plan.clone())
        .database(&too_long, budget)
        .err()
        .expect("refused")
        .to_string();
    assert!(err.contains("sequence s2000 (8000000 residues)"), "{err}");
    let err = PartedGpuEngine::new(0, &too_long, scoring.clone(), plan.clone(), budget)
        .err()
        .expect("refused")
        .to_string();
    assert!(err.contains("sequence s2000 (8000000 residues)"), "{err}");

    let query = hay::random_codes(&mut rng, 100, false);
    for kernel in hay::kernels_and_auto() {
        let plan = gpu0_plan(kernel, &fits, &scoring);
        let mut engine = GpuEngine::builder(0, scoring.clone(), plan)
            .database(&fits, budget)
            .expect("fits in 64 MiB");
        let got = engine.score_all(&query).expect("the kernel runs");
        for i in [0, 1, fits.len() - 1] {
            let want = local_score(&query, fits.sequence(i), &scoring.matrix, scoring.gaps);
            assert_eq!(got[i], want, "{kernel:?}, sequence {i}");
        }
    }
}

/// Chunks side by side on several streams (`--gpu-streams`) give the scores
/// of one stream and of the reference: the longest pairs in several passes
/// (each chunk its own border scratch), scores above 16 bits (the rescue
/// deferred to the engine's stream), progress by chunk, an empty query
/// between others, a scratch too small to overlap (one stream again), and
/// gap costs beyond 16 bits (no overlap: the 32-bit fallback). The
/// 8,000-residue query's chunks go to the workers as they come free (each
/// finished chunk's rescue queued at once), the others' all at once.
#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_chunks_on_several_streams_match_one_stream_and_the_reference() {
    use host::kernel::Kernel;
    use std::sync::Mutex;
    let mut rng = hay::rng(112);
    let long = hay::random_codes(&mut rng, 8000, false);
    assert!(
        host::engine::gpu::Dispatch::Auto.as_freed(long.len())
            && !host::engine::gpu::Dispatch::Auto.as_freed(1000),
        "the test covers both ways of dispatching chunks"
    );
    let mut seqs = hay::skewed_sequences(&mut rng, 12_000, 2000, true);
    for len in [15_000, 9_000, 6_000, 4_500, 3_000, 1_500, 1_100] {
        seqs.push(hay::random_codes(&mut rng, len, false));
    }
    // Self-similar pairs scoring far above 32,640: rescued in 32 bits.
    seqs.push(long.clone());
    seqs.push(hay::mutate(&mut rng, &long, 0.95));
    let db = hay::database(seqs);
    let queries: Vec<Vec<u8>> = vec![
        hay::random_codes(&mut rng, 150, false),
        long.clone(),
        Vec::new(),
        hay::random_codes(&mut rng, 1000, false),
    ];
    let batch: Vec<&[u8]> = queries.iter().map(|q| &q[..]).collect();
    let budget = MemoryCap::UNLIMITED.free(0).expect("GPU 0 answers");
    for (open, extend) in [(10, 1), (11, 1), (12_000, 3_000)] {
        let scoring = hay::blosum62(open, extend);
        let expected = reference_scores(&queries, &db, &scoring);
        for choice in [
            KernelChoice::One(Kernel::GroupI16x2),
            KernelChoice::default(),
        ] {
            let plan = gpu0_plan(choice, &db, &scoring);
            for streams in [1, 3, 8] {
                let mut engine = GpuEngine::builder(0, scoring.clone(), plan.clone())
                    .streams(streams)
                    .database(&db, budget)
                    .expect("GPU 0 opens");
                let reports = Mutex::new(Vec::new());
                let got = engine
                    .score_batch_reporting(&batch, &|cells| reports.lock().unwrap().push(cells))
                    .expect("GPU 0 scores");
                for (k, (got, want)) in got.iter().zip(&expected).enumerate() {
                    let wrong = (0..db.len()).filter(|&i| got[i] != want[i]).count();
                    assert_eq!(
                        wrong, 0,
                        "{plan} on {streams} streams, gaps {open}/{extend}, query {k}: {wrong} mismatches"
                    );
                }
                let cells: u64 = queries
                    .iter()
                    .map(|q| q.len() as u64 * db.total_residues())
                    .sum();
                assert_eq!(reports.into_inner().unwrap().iter().sum::<u64>(), cells);
                // One query at a time, through `score_all`.
                assert_eq!(
                    engine.score_all(&queries[1]).expect("GPU 0 scores"),
                    expected[1]
                );
            }
        }
    }
    // Too little memory for the chunks' own scratch: one stream's order.
    let scoring = hay::blosum62(10, 1);
    let plan = gpu0_plan(KernelChoice::One(Kernel::GroupI16x2), &db, &scoring);
    let mut small = GpuEngine::builder(0, scoring.clone(), plan.clone())
        .streams(8)
        .database(&db, Budget(db.total_residues() as usize * 3))
        .expect("GPU 0 opens");
    let mut one = GpuEngine::builder(0, scoring, plan)
        .database(&db, budget)
        .expect("GPU 0 opens");
    assert_eq!(
        small.score_all(&long).expect("GPU 0 scores"),
        one.score_all(&long).expect("GPU 0 scores")
    );
}

/// Two queries in one launch on the GPU (`Engine::score_batch` pairs
/// them) against the reference: 100,000 database sequences (and 9,000-
/// and 5,000-residue ones, an empty one, a one-residue one); 144 and
/// 189, partners whom the model runs each alone on every chunk (two
/// queries of one pass each), a pair whose longer query is handed over to
/// a one-query configuration where the shorter ends (300 with 610), and a
/// query left alone (1,000); `auto` (its second stage runs the long
/// chunks one query at a time) and the query-group kernel; 1 and 8
/// streams, and a budget too small for the chunks' own border scratch
/// regions (every chunk on the shared one). Then pairs of many passes whose scores
/// pass 16 bits (rescued), one of them handed over (3,000 with 7,000),
/// and gap costs the lifted update cannot take (each query alone).
#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_query_pairs_match_the_reference() {
    use host::kernel::Kernel;
    let mut rng = hay::rng(121);
    let mut seqs: Vec<Vec<u8>> = hay::skewed_sequences(&mut rng, 100_000, 1500, true);
    for len in [9_000, 5_000, 0, 1] {
        seqs.push(hay::random_codes(&mut rng, len, false));
    }
    let db = hay::database(seqs);
    let queries: Vec<Vec<u8>> = [300, 144, 1000, 189, 610]
        .iter()
        .map(|&l| hay::random_codes(&mut rng, l, false))
        .collect();
    // The model pairs 300 with 610 and hands 610 over on chunks of these
    // lengths.
    for rows in [300, 1500, 9000] {
        let pair = query_group_i16x2::pair_config_for(610, rows);
        assert!(query_group_i16x2::pair_tail(pair, 300, 610, rows).is_some());
        assert!(query_group_i16x2::queries_pay(300, 610, rows, true));
    }
    let scoring = hay::blosum62(10, 1);
    let expected = reference_scores(&queries, &db, &scoring);
    let budget = MemoryCap::UNLIMITED.free(0).expect("GPU 0 answers");
    let small = Budget(db.total_residues() as usize * 3);
    let batch: Vec<&[u8]> = queries.iter().map(|q| &q[..]).collect();
    let runs = [
        (KernelChoice::One(Kernel::QueryGroupI16x2), 8, budget),
        (KernelChoice::One(Kernel::QueryGroupI16x2), 1, budget),
        (KernelChoice::One(Kernel::QueryGroupI16x2), 8, small),
        (KernelChoice::default(), 8, budget),
    ];
    for (choice, streams, budget) in runs {
        let plan = gpu0_plan(choice, &db, &scoring);
        let mut engine = GpuEngine::builder(0, scoring.clone(), plan.clone())
            .streams(streams)
            .database(&db, budget)
            .expect("GPU 0 opens");
        let got = engine.score_batch(&batch).expect("GPU 0 scores");
        for (q, want) in expected.iter().enumerate() {
            let wrong: Vec<usize> = (0..db.len()).filter(|&i| got[q][i] != want[i]).collect();
            assert!(
                wrong.is_empty(),
                "{plan} on {streams} streams, query length {}: {} mismatches of {}, first at target length {}",
                queries[q].len(),
                wrong.len(),
                db.len(),
                db.length(wrong[0])
            );
        }
    }
    eprintln!(
        "gpu: two queries a launch, {} pairs compared with the reference, 0 mismatches",
        runs.len() * queries.len() * db.len()
    );

    // 7,000 residues: about 40,000 against itself with BLOSUM62.
    let long = hay::random_codes(&mut rng, 7000, false);
    let mut seqs: Vec<Vec<u8>> = hay::skewed_sequences(&mut rng, 2_000, 2000, true);
    seqs.push(long.clone());
    seqs.push(hay::mutate(&mut rng, &long, 0.95));
    let db = hay::database(seqs);
    // Sorted by length: 3,000 with 7,000 handed over, then the two
    // 7,000s in one pass each.
    let queries = [
        long[2000..5000].to_vec(),
        hay::mutate(&mut rng, &long, 0.97),
        long.clone(),
        long.clone(),
    ];
    let pair = query_group_i16x2::pair_config_for(7000, 7000);
    assert!(query_group_i16x2::pair_tail(pair, 3000, 7000, 7000).is_some());
    let batch: Vec<&[u8]> = queries.iter().map(|q| &q[..]).collect();
    for (open, extend) in [(10, 1), (2, 1), (116, 1)] {
        let scoring = hay::blosum62(open, extend);
        let expected = reference_scores(&queries, &db, &scoring);
        // The 7,000-residue query itself passes 16 bits.
        assert!(
            expected[2]
                .iter()
                .any(|&s| s > gpu_kernels::simt_i16x2::SCORE_LIMIT)
        );
        let plan = gpu0_plan(KernelChoice::One(Kernel::QueryGroupI16x2), &db, &scoring);
        let mut engine = GpuEngine::builder(0, scoring.clone(), plan)
            .streams(8)
            .database(&db, budget)
            .expect("GPU 0 opens");
        let got = engine.score_batch(&batch).expect("GPU 0 scores");
        assert_eq!(got, expected, "gaps {open}/{extend}");
    }
}

/// A batch of pairs whose two queries' scores do not fit the engine's
/// page-locked buffer together (2,100,000 sequences: 4,200,000 scores a
/// pair, above its 4 Mi) read each query's back in turn, and the pairs
/// whose scores fit (the first 100,000 sequences) come out of the buffer
/// after the next pair is launched: every score equals the query scored
/// alone, and the reference on every 499th sequence.
#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_query_pairs_beyond_the_page_locked_buffer_match_each_query_alone() {
    let mut rng = hay::rng(125);
    let seqs: Vec<Vec<u8>> = (0..2_100_000)
        .map(|_| {
            let len = rand::Rng::random_range(&mut rng, 46..=64);
            hay::random_codes(&mut rng, len, false)
        })
        .collect();
    // 300 with 610 run in one launch on every chunk (the hand-over on, as
    // by default); 144 with 189 load together but run each alone: both
    // pairs' scores come back by the pairs' path.
    for rows in 46..=64 {
        assert!(
            query_group_i16x2::queries_pay(300, 610, rows, true),
            "{rows}"
        );
    }
    let queries: Vec<Vec<u8>> = [300, 610, 144, 189]
        .iter()
        .map(|&l| hay::random_codes(&mut rng, l, false))
        .collect();
    let batch: Vec<&[u8]> = queries.iter().map(|q| &q[..]).collect();
    let scoring = hay::blosum62(10, 1);
    let budget = MemoryCap::UNLIMITED.free(0).expect("GPU 0 answers");
    for sequences in [2_100_000, 100_000] {
        let db = hay::database(seqs[..sequences].to_vec());
        let plan = gpu0_plan(KernelChoice::default(), &db, &scoring);
        let mut engine = GpuEngine::builder(0, scoring.clone(), plan.clone())
            .streams(8)
            .database(&db, budget)
            .expect("GPU 0 opens");
        let got = engine.score_batch(&batch).expect("GPU 0 scores");
        for (q, query) in queries.iter().enumerate() {
            let alone = engine.score_all(query).expect("GPU 0 scores");
            assert!(
                got[q] == alone,
                "{plan}, {sequences} sequences, query length {}: the batch's scores differ from the query's alone",
                query.len()
            );
            let wrong: Vec<usize> = (0..db.len())
                .into_par_iter()
                .step_by(499)
                .filter(|&i| {
                    got[q][i] != local_score(query, db.sequence(i), &scoring.matrix, scoring.gaps)
                })
                .collect();
            assert!(
                wrong.is_empty(),
                "{plan}, {sequences} sequences, query length {}: {} of the sampled scores differ from the reference",
                query.len(),
                wrong.len()
            );
        }
    }
}

/// A pair handing its longer query over where the chunk's borders do not
/// fit one launch: 60,001 sequences of 280 residues in one chunk, more
/// than the border scratch holds on a GPU of up to 234 multiprocessors
/// (256 borders each), so the pair's launches take an even number of its
/// sequences and the last one an odd number; 300 with 610 (handed over,
/// as the model decides on such chunks); every score against the
/// reference, on one stream and on eight.
#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_query_pair_hands_over_in_launches_of_part_of_a_chunk() {
    use host::kernel::Kernel;
    const SEQUENCES: usize = 60_001;
    const LENGTH: usize = 280;
    const { assert!(SEQUENCES > 234 * 256) };
    let pair = query_group_i16x2::pair_config_for(610, LENGTH);
    assert!(query_group_i16x2::pair_tail(pair, 300, 610, LENGTH).is_some());
    assert!(query_group_i16x2::queries_pay(300, 610, LENGTH, true));
    let mut rng = hay::rng(135);
    let queries = [
        hay::random_codes(&mut rng, 300, false),
        hay::random_codes(&mut rng, 610, false),
    ];
    let seqs: Vec<Vec<u8>> = (0..SEQUENCES)
        .map(|i| {
            // A quarter from either query (so that scores vary), the rest
            // random; every one of the same length.
            let mut seq = match i % 8 {
                0 | 1 => {
                    let query = &queries[i % 2];
                    let at = (i * 7) % (query.len() - LENGTH);
                    hay::mutate(&mut rng, &query[at..at + LENGTH], 0.85)
                }
                _ => Vec::new(),
            };
            seq.truncate(LENGTH);
            while seq.len() < LENGTH {
                seq.push(hay::random_codes(&mut rng, 1, false)[0]);
            }
            seq
        })
        .collect();
    let db = hay::database(seqs);
    let scoring = hay::blosum62(10, 1);
    let expected = reference_scores(&queries, &db, &scoring);
    let budget = MemoryCap::UNLIMITED.free(0).expect("GPU 0 answers");
    let batch: Vec<&[u8]> = queries.iter().map(|q| &q[..]).collect();
    for streams in [1, 8] {
        let plan = gpu0_plan(KernelChoice::One(Kernel::QueryGroupI16x2), &db, &scoring);
        // One chunk of them all.
        let limits = budget.resident_chunks(&db).expect("the database fits");
        let chunks = host::engine::gpu::resident::plan_for(&plan, &db, limits);
        assert_eq!(chunks.len(), 1);
        assert_eq!(chunks[0].len(), SEQUENCES);
        let mut engine = GpuEngine::builder(0, scoring.clone(), plan)
            .streams(streams)
            .database(&db, budget)
            .expect("GPU 0 opens");
        let got = engine.score_batch(&batch).expect("GPU 0 scores");
        for (q, want) in expected.iter().enumerate() {
            let wrong = (0..db.len()).filter(|&i| got[q][i] != want[i]).count();
            assert_eq!(
                wrong,
                0,
                "{streams} streams, query length {}: mismatches of {}",
                queries[q].len(),
                db.len()
            );
        }
    }
    eprintln!(
        "gpu: a pair handed over in launches of part of a chunk, {} pairs compared with the reference, 0 mismatches",
        2 * 2 * SEQUENCES
    );
}

/// Batches of query pairs on the GPU against the reference: 41 queries
/// (one empty, one of one residue, lengths to 1,500, a 7,000-residue one
/// whose scores pass 16 bits and are rescued) against 5,000 sequences
/// (and long, empty and one-residue ones): the batch the engine sizes
/// itself on 8 streams, batches of 6 on one stream (one scratch region
/// for every chunk), a budget that leaves room for few entries, `auto`
/// for a search of many queries; whole and in the engine's own batch
/// lengths, as a search hands them.
#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_query_batches_match_the_reference() {
    use host::kernel::Kernel;
    let mut rng = hay::rng(131);
    let mut seqs: Vec<Vec<u8>> = hay::skewed_sequences(&mut rng, 5_000, 1500, true);
    let long = hay::random_codes(&mut rng, 7000, false);
    for len in [4_000, 0, 1] {
        seqs.push(hay::random_codes(&mut rng, len, false));
    }
    seqs.push(long.clone());
    seqs.push(hay::mutate(&mut rng, &long, 0.95));
    let db = hay::database(seqs);
    let mut queries: Vec<Vec<u8>> = (0..37)
        .map(|i| {
            let len = [1, 50, 144, 159, 161, 300, 480, 700, 1000, 1500][i % 10] + i;
            hay::random_codes(&mut rng, len, false)
        })
        .collect();
    queries.push(Vec::new());
    queries.push(vec![5]);
    queries.push(hay::mutate(&mut rng, &long, 0.97));
    queries.push(long.clone());
    let scoring = hay::blosum62(10, 1);
    let expected = reference_scores(&queries, &db, &scoring);
    assert!(
        expected[40]
            .iter()
            .any(|&s| s > gpu_kernels::simt_i16x2::SCORE_LIMIT)
    );
    let budget = MemoryCap::UNLIMITED.free(0).expect("GPU 0 answers");
    let small = Budget(db.total_residues() as usize * 40);
    let batch: Vec<&[u8]> = queries.iter().map(|q| &q[..]).collect();
    let capability = device(0).expect("GPU 0 answers").compute_capability;
    let searching = Plan::for_search(
        KernelChoice::default(),
        Target::Gpu { capability },
        &db,
        scoring.gaps.kernel_gaps(),
        true,
    );
    let query_group = gpu0_plan(KernelChoice::One(Kernel::QueryGroupI16x2), &db, &scoring);
    let runs = [
        (&query_group, 8, budget, None, true),
        (&query_group, 1, budget, Some(6), true),
        (&query_group, 8, small, None, false),
        (&searching, 8, budget, None, true),
    ];
    let mut compared = 0;
    for (plan, streams, budget, query_batch, batches) in runs {
        let mut engine = GpuEngine::builder(0, scoring.clone(), plan.clone())
            .streams(streams)
            .query_batch(query_batch)
            .database(&db, budget)
            .expect("GPU 0 opens");
        let batch_len = engine.query_batch_len();
        assert!(!batches || batch_len > 2, "{plan}: batches of {batch_len}");
        let whole = engine.score_batch(&batch).expect("GPU 0 scores");
        let mut in_parts = Vec::new();
        for part in batch.chunks(engine.batch_len()) {
            in_parts.extend(engine.score_batch(part).expect("GPU 0 scores"));
        }
        for got in [whole, in_parts] {
            for (q, want) in expected.iter().enumerate() {
                let wrong: Vec<usize> = (0..db.len()).filter(|&i| got[q][i] != want[i]).collect();
                assert!(
                    wrong.is_empty(),
                    "{plan} on {streams} streams, batches of {batch_len}, query length {}: {} mismatches of {}, first at target length {}",
                    queries[q].len(),
                    wrong.len(),
                    db.len(),
                    db.length(wrong[0])
                );
                compared += db.len();
            }
        }
        eprintln!("gpu: {plan} on {streams} streams, batches of {batch_len} queries: scores equal");
    }
    eprintln!(
        "gpu: batches of query pairs, {compared} pairs compared with the reference, 0 mismatches"
    );
}

/// The query-group kernel on the GPU against the reference: 100,000
/// database sequences (and 12,000-, 9,000- and 5,000-residue ones, an empty
/// one, a one-residue one) with queries of one pass and several, on 1
/// and 8 streams; a budget too small for the chunks' own border scratch
/// (one stream's order, the shared scratch); then every matrix and gap setting
/// on a small database, with scores above 16 bits (rescued), gap costs the
/// 8-bit profile cannot take (`group-i16x2` runs) and beyond 16 bits.
#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_query_group_matches_the_reference() {
    use host::kernel::Kernel;
    let choice = KernelChoice::One(Kernel::QueryGroupI16x2);
    let mut rng = hay::rng(120);
    // Up to 2,000 residues (the reference's time; the test took 187 s on
    // an H100's host with 3,000), and the long ones below.
    let mut seqs: Vec<Vec<u8>> = hay::skewed_sequences(&mut rng, 100_000, 2000, true);
    for len in [12_000, 9_000, 5_000, 0, 1] {
        seqs.push(hay::random_codes(&mut rng, len, false));
    }
    let db = hay::database(seqs);
    // The narrow groups of the shortest queries (g1_r8 at 5 and 8, g2_r8
    // at 13, g2_r16 at 30, g4_r16 at 64), one pass of g8_r18 (the
    // 144-residue query), seven of it (1,000: lanes that start inside a
    // profile word, pass after pass) and eight of g8_r24 (1,500), the
    // lifted configurations `config_for` picks: two rows a step on the
    // chunks of longer sequences, one on the shortest.
    let queries: Vec<Vec<u8>> = [5, 8, 13, 30, 64, 144, 1000, 1500]
        .iter()
        .map(|&l| hay::random_codes(&mut rng, l, false))
        .collect();
    let scoring = hay::blosum62(10, 1);
    let expected = reference_scores(&queries, &db, &scoring);
    let plan = gpu0_plan(choice, &db, &scoring);
    let budget = MemoryCap::UNLIMITED.free(0).expect("GPU 0 answers");
    let small = Budget(db.total_residues() as usize * 3);
    for (streams, budget) in [(1, budget), (8, budget), (8, small)] {
        let mut engine = GpuEngine::builder(0, scoring.clone(), plan.clone())
            .streams(streams)
            .database(&db, budget)
            .expect("GPU 0 opens");
        for (query, want) in queries.iter().zip(&expected) {
            let got = engine.score_all(query).expect("GPU 0 scores");
            let wrong: Vec<usize> = (0..db.len()).filter(|&i| got[i] != want[i]).collect();
            assert!(
                wrong.is_empty(),
                "{plan} on {streams} streams, query length {}: {} mismatches of {}, first at target length {}",
                query.len(),
                wrong.len(),
                db.len(),
                db.length(wrong[0])
            );
        }
    }
    eprintln!(
        "gpu: query-group-i16x2, {} pairs compared with the reference, 0 mismatches",
        3 * queries.len() * db.len()
    );

    let long = hay::random_codes(&mut rng, 3000, false);
    let query = hay::random_codes(&mut rng, 700, true);
    let mut seqs: Vec<Vec<u8>> = hay::skewed_sequences(&mut rng, 2_000, 2000, true);
    seqs.extend((0..20).map(|_| hay::mutate(&mut rng, &query, 0.6)));
    // Self-similar pairs scoring far above 32,640: rescued in 32 bits.
    seqs.push(long.clone());
    seqs.push(hay::mutate(&mut rng, &long, 0.95));
    let db = hay::database(seqs);
    let gaps = hay::GAP_SETTINGS
        .iter()
        .copied()
        .chain([(115, 1), (116, 1), (12_000, 3_000)]);
    for matrix in hay::matrices() {
        for (open, extend) in gaps.clone() {
            let scoring = host::scoring::Scoring {
                matrix: matrix.clone(),
                gaps: GapPenalty::new(open, extend).unwrap(),
            };
            // The long query (several passes, rescued scores) with
            // BLOSUM62 and the gap costs of each path.
            let mut queries = vec![query.clone()];
            if matrix.name().eq_ignore_ascii_case("blosum62")
                && [(10, 1), (116, 1), (12_000, 3_000)].contains(&(open, extend))
            {
                queries.push(long.clone());
            }
            let expected = reference_scores(&queries, &db, &scoring);
            let plan = gpu0_plan(choice, &db, &scoring);
            let mut engine = GpuEngine::builder(0, scoring.clone(), plan)
                .streams(8)
                .database(&db, budget)
                .expect("GPU 0 opens");
            for (q, want) in queries.iter().zip(&expected) {
                let got = engine.score_all(q).expect("GPU 0 scores");
                let wrong = (0..db.len()).filter(|&i| got[i] != want[i]).count();
                assert_eq!(
                    wrong,
                    0,
                    "{} {open}/{extend}, query length {}",
                    matrix.name(),
                    q.len()
                );
            }
        }
    }
}

/// Many pairs of one chunk beyond 16 bits at once, long queries against
/// long sequences, on the GPU: 7,000- and 6,100-residue queries against 64
/// of their homologs of 5,000–7,000 residues (every one above 16 bits, all
/// in the chunks of the longest sequences) among 20,000 ordinary sequences;
/// each 16-bit kernel and `auto`, on one stream and on eight (where the
/// rescue waits for the chunk beside the others), one query at a time and
/// (query-group) in a batch.
#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_many_long_pairs_beyond_16_bits_are_rescued() {
    use gpu_kernels::simt_i16x2::SCORE_LIMIT;
    use host::kernel::Kernel;
    const W: u8 = 17;
    let mut rng = hay::rng(140);
    // A W every third residue: about 7 a residue in a self-alignment
    // (BLOSUM62's W-W is 11), so that homologs of 5,000 residues pass
    // 16 bits.
    let mut long = hay::random_codes(&mut rng, 7000, false);
    long.iter_mut().step_by(3).for_each(|c| *c = W);
    let mut seqs: Vec<Vec<u8>> = hay::skewed_sequences(&mut rng, 20_000, 1000, true);
    for k in 0..64 {
        let start = (k * 31) % 2000;
        seqs.push(hay::mutate(&mut rng, &long[start..start + 5000], 0.96));
        seqs.push(hay::mutate(&mut rng, &long, 0.9 + k as f64 / 1000.0));
    }
    let db = hay::database(seqs);
    let queries = vec![long.clone(), hay::mutate(&mut rng, &long[500..6600], 0.97)];
    let scoring = hay::blosum62(10, 1);
    let expected = reference_scores(&queries, &db, &scoring);
    for want in &expected {
        let over = want.iter().filter(|&&s| s > SCORE_LIMIT).count();
        assert!(over >= 64, "{over} pairs beyond 16 bits");
    }
    let budget = MemoryCap::UNLIMITED.free(0).expect("GPU 0 answers");
    let choices = [
        KernelChoice::One(Kernel::SimtI16x2),
        KernelChoice::One(Kernel::GroupI16x2),
        KernelChoice::One(Kernel::QueryGroupI16x2),
        KernelChoice::Auto(AutoOptions::default()),
    ];
    for choice in choices {
        let plan = gpu0_plan(choice, &db, &scoring);
        for streams in [1, 8] {
            let mut engine = GpuEngine::builder(0, scoring.clone(), plan.clone())
                .streams(streams)
                .database(&db, budget)
                .expect("GPU 0 opens");
            let refs: Vec<&[u8]> = queries.iter().map(Vec::as_slice).collect();
            let batch = engine.score_batch(&refs).expect("GPU 0 scores");
            for (q, want) in expected.iter().enumerate() {
                let one = engine.score_all(&queries[q]).expect("GPU 0 scores");
                for (how, got) in [("alone", &one), ("in a batch", &batch[q])] {
                    let wrong: Vec<usize> = (0..db.len()).filter(|&i| got[i] != want[i]).collect();
                    assert!(
                        wrong.is_empty(),
                        "{plan} on {streams} streams, query {q} {how}: {} mismatches of {}, first at target length {}",
                        wrong.len(),
                        db.len(),
                        db.length(wrong[0])
                    );
                }
            }
        }
    }
    eprintln!(
        "gpu: rescues of long pairs, {} pairs compared with the reference, 0 mismatches",
        4 * 2 * 2 * queries.len() * db.len()
    );
}
