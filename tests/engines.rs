//! Engines against the scalar reference: the CPU engine runs the kernels'
//! own source, so these are kernel tests at the level of a whole search.

use std::sync::Arc;

use host::engine::{Engine, cpu::CpuEngine};
use host::kernel::{KernelChoice, Target};
use host::reference::local_score;
use host::scoring::Scoring;

use crate::hay;

/// Every kernel on the CPU engine equals the reference for every sequence.
pub fn assert_engine_matches_reference(query: &[u8], db_seqs: Vec<Vec<u8>>, scoring: &Scoring) {
    let db = Arc::new(hay::database(db_seqs));
    for kernel in hay::kernels_and_auto() {
        let plan = hay::plan(kernel, Target::Cpu, &db, scoring);
        let mut engine = CpuEngine::new(db.clone(), scoring.clone(), plan);
        let scores = engine.score_all(query).unwrap();
        assert_eq!(scores.len(), db.len());
        for (i, &got) in scores.iter().enumerate() {
            let want = local_score(query, db.sequence(i), &scoring.matrix, scoring.gaps);
            assert_eq!(
                got,
                want,
                "kernel {}, matrix {}, gaps {:?}, query len {}, target len {}",
                kernel,
                scoring.matrix.name(),
                scoring.gaps,
                query.len(),
                db.length(i)
            );
        }
    }
}

#[test]
fn cpu_engine_matches_reference_on_homologs_and_random_sequences() {
    let mut rng = hay::rng(1);
    let query = hay::random_codes(&mut rng, 420, false);
    let mut db: Vec<Vec<u8>> = hay::skewed_sequences(&mut rng, 150, 1500, true);
    for identity in [0.95, 0.7, 0.5, 0.3] {
        db.push(hay::mutate(&mut rng, &query, identity));
    }
    for (open, extend) in hay::GAP_SETTINGS {
        assert_engine_matches_reference(&query, db.clone(), &hay::blosum62(open, extend));
    }
}

#[test]
fn cpu_engine_handles_empty_query_and_empty_sequences() {
    let mut rng = hay::rng(2);
    let db = vec![
        vec![],
        vec![3],
        hay::random_codes(&mut rng, 77, false),
        vec![],
    ];
    assert_engine_matches_reference(&[], db.clone(), &hay::blosum62(11, 1));
    assert_engine_matches_reference(&[7], db.clone(), &hay::blosum62(11, 1));
    assert_engine_matches_reference(
        &hay::random_codes(&mut rng, 33, false),
        db,
        &hay::blosum62(11, 1),
    );
}

#[test]
fn cpu_engine_on_a_database_of_one_sequence_and_of_equal_lengths() {
    let mut rng = hay::rng(3);
    let query = hay::random_codes(&mut rng, 250, false);
    assert_engine_matches_reference(
        &query,
        vec![hay::mutate(&mut rng, &query, 0.8)],
        &hay::blosum62(10, 1),
    );
    let same: Vec<Vec<u8>> = (0..97)
        .map(|_| hay::random_codes(&mut rng, 128, false))
        .collect();
    assert_engine_matches_reference(&query, same, &hay::blosum62(10, 1));
}

#[test]
fn cpu_engine_on_identical_long_sequences_scores_beyond_16_bits() {
    let mut rng = hay::rng(4);
    let query = hay::random_codes(&mut rng, 9000, false);
    let scoring = hay::blosum62(11, 1);
    let self_score = local_score(&query, &query, &scoring.matrix, scoring.gaps);
    assert!(
        self_score > 40_000,
        "self score {self_score} should exceed i16"
    );
    assert_engine_matches_reference(
        &query,
        vec![query.clone(), hay::mutate(&mut rng, &query, 0.9)],
        &scoring,
    );
    // All-W: 11 per residue, 7000 residues: 77,000 > u16::MAX.
    let w = vec![17u8; 7000];
    assert_engine_matches_reference(&w, vec![w.clone(), w[..3000].to_vec()], &scoring);
}

#[test]
fn cpu_engine_on_all_x_sequences() {
    let x = host::alphabet::X_CODE;
    let scoring = hay::blosum62(11, 1);
    assert_engine_matches_reference(
        &[x; 100],
        vec![vec![x; 100], vec![x; 1], vec![0; 50]],
        &scoring,
    );
}

#[test]
fn auto_parses_with_its_defaults() {
    let auto: KernelChoice = "auto".parse().unwrap();
    assert_eq!(
        auto,
        KernelChoice::Auto(host::kernel::AutoOptions {
            threshold: host::kernel::plan::DEFAULT_AUTO_THRESHOLD,
            long: host::kernel::plan::DEFAULT_AUTO_LONG,
            min_sequences: host::kernel::plan::AUTO_MIN_FIRST_STAGE_SEQUENCES,
            group_min_sequences: host::kernel::plan::AUTO_GROUP_MIN_SEQUENCES,
            query_group_max: host::kernel::plan::AUTO_QUERY_GROUP_MAX,
            query_group_min_sequences: host::kernel::plan::AUTO_QUERY_GROUP_MIN_SEQUENCES,
        })
    );
    assert_eq!(
        "partitioned-vl32-pl512".parse::<KernelChoice>().unwrap(),
        KernelChoice::One(host::kernel::plan::DEFAULT_AUTO_LONG)
    );
}

/// One query moves a progress bar chunk by chunk: the CPU engine reports
/// each chunk's cells as it is done, and the reports add up to the query's
/// cells (issue: a single long query's bar stood still until it ended).
#[test]
fn cpu_engine_reports_progress_per_chunk() {
    use std::sync::Mutex;
    let mut rng = hay::rng(31);
    let db = Arc::new(hay::database(hay::skewed_sequences(
        &mut rng, 300, 900, true,
    )));
    let scoring = hay::blosum62(11, 1);
    let query = hay::random_codes(&mut rng, 250, false);
    let plan = host::kernel::Plan::one(host::kernel::Kernel::Simt);
    let mut engine = CpuEngine::new(db.clone(), scoring, plan);
    let reports = Mutex::new(Vec::new());
    let got = engine
        .score_batch_reporting(&[&query], &|cells| reports.lock().unwrap().push(cells))
        .unwrap();
    assert_eq!(got, vec![engine.score_all(&query).unwrap()]);
    let reports = reports.into_inner().unwrap();
    assert!(reports.len() > 1, "{} reports", reports.len());
    assert_eq!(
        reports.iter().sum::<u64>(),
        query.len() as u64 * db.total_residues()
    );
    assert_eq!(engine.database_residues(), db.total_residues());
}

/// A small database on the CPU: its queries side by side, a batch of
/// several (the chunks alone leave threads idle), each query's scores the
/// reference's and its progress adding up to the batch's cells; a large
/// database one query at a time.
#[test]
fn cpu_engine_scores_queries_side_by_side_on_a_small_database() {
    use std::sync::atomic::{AtomicU64, Ordering};
    let mut rng = hay::rng(32);
    let db = Arc::new(hay::database(hay::skewed_sequences(
        &mut rng, 20, 400, true,
    )));
    let scoring = hay::blosum62(11, 1);
    let mut queries: Vec<Vec<u8>> = (0..9)
        .map(|i| hay::random_codes(&mut rng, 20 + 37 * i, false))
        .collect();
    queries.insert(3, Vec::new());
    let refs: Vec<&[u8]> = queries.iter().map(|q| &q[..]).collect();
    for kernel in hay::kernels_and_auto() {
        let plan = hay::plan(kernel, Target::Cpu, &db, &scoring);
        let mut engine = CpuEngine::new(db.clone(), scoring.clone(), plan);
        assert!(engine.batch_len() > 1, "{kernel}: {}", engine.batch_len());
        let cells = AtomicU64::new(0);
        let got = engine
            .score_batch_reporting(&refs, &|c| {
                cells.fetch_add(c, Ordering::Relaxed);
            })
            .unwrap();
        assert_eq!(
            cells.into_inner(),
            host::engine::batch_cells(&refs, db.total_residues())
        );
        for (query, scores) in queries.iter().zip(&got) {
            let want: Vec<i32> = (0..db.len())
                .map(|i| local_score(query, db.sequence(i), &scoring.matrix, scoring.gaps))
                .collect();
            assert_eq!(scores, &want, "{kernel}, query length {}", query.len());
        }
    }
    let threads = rayon::current_num_threads();
    let large = host::engine::cpu::cpu_batch_len(8 * threads, threads, 16 * 8 * threads);
    assert_eq!(large, 1);
}

/// `auto`'s group plan split by `--auto-query-group` (as resolved for a
/// GPU with DPX), run by the CPU engine with the kernels' own source:
/// `query-group-i16x2` on the chunks up to the split, `group-i16x2`
/// above, every score the reference's, for queries of one pass and of
/// several.
#[test]
fn the_group_plan_split_at_a_length_matches_the_reference() {
    use host::kernel::{AutoOptions, Kernel};
    let mut rng = hay::rng(3);
    let mut seqs = hay::skewed_sequences(&mut rng, 300, 1400, true);
    let query = hay::random_codes(&mut rng, 600, false);
    seqs.extend((0..5).map(|_| hay::mutate(&mut rng, &query, 0.7)));
    let db = Arc::new(hay::database(seqs));
    let scoring = hay::blosum62(10, 1);
    let auto = KernelChoice::Auto(AutoOptions {
        group_min_sequences: 0,
        query_group_max: 512,
        query_group_min_sequences: 0,
        ..AutoOptions::default()
    });
    let plan = hay::plan(auto, Target::Gpu { capability: (9, 0) }, &db, &scoring);
    assert_eq!(
        plan.kernels(),
        [Kernel::QueryGroupI16x2, Kernel::GroupI16x2]
    );
    let mut engine = CpuEngine::new(db.clone(), scoring.clone(), plan);
    for query in [query.clone(), hay::random_codes(&mut rng, 150, true)] {
        let scores = engine.score_all(&query).unwrap();
        for (i, &got) in scores.iter().enumerate() {
            let want = local_score(&query, db.sequence(i), &scoring.matrix, scoring.gaps);
            assert_eq!(
                got,
                want,
                "query length {}, target length {}",
                query.len(),
                db.length(i)
            );
        }
    }
}

/// Many queries against a database of fewer sequences than a CPU chunk
/// holds: the SIMD kernel swaps the roles (the queries packed, each
/// database sequence their query), and every score is still the
/// reference's, beyond 8 bits (homologs) and beyond 16 bits (a 7,000-residue
/// sequence and its copy among the queries), with empty queries and
/// queries of one residue, in batches of the engine's size and of others.
#[test]
fn cpu_engine_swaps_roles_for_many_queries_against_a_few_sequences() {
    let mut rng = hay::rng(33);
    let mut seqs = hay::skewed_sequences(&mut rng, 15, 600, true);
    let long = hay::random_codes(&mut rng, 7_000, false);
    seqs.push(long.clone());
    seqs.push(hay::random_codes(&mut rng, 1, false));
    let db = Arc::new(hay::database(seqs.clone()));
    let scoring = hay::blosum62(11, 1);
    let mut queries: Vec<Vec<u8>> = (0..140)
        .map(|i| hay::random_codes(&mut rng, 1 + (i * 37) % 450, true))
        .collect();
    let mut longest: Vec<&Vec<u8>> = seqs.iter().take(15).collect();
    longest.sort_by_key(|s| std::cmp::Reverse(s.len()));
    queries.extend(
        longest
            .iter()
            .take(8)
            .map(|s| hay::mutate(&mut rng, s, 0.9)),
    );
    queries.push(long);
    queries.insert(5, Vec::new());
    let plan = host::kernel::Plan::one(host::kernel::Kernel::Simt);
    assert!(host::engine::cpu::swaps_roles(&plan, db.len(), 7_000));
    let mut engine = CpuEngine::new(db.clone(), scoring.clone(), plan);
    // Batches of whole chunks of queries (one chunk a query unswapped).
    assert_eq!(engine.batch_len() % 64, 0, "{}", engine.batch_len());
    let want: Vec<Vec<i32>> = queries
        .iter()
        .map(|q| {
            (0..db.len())
                .map(|i| local_score(q, db.sequence(i), &scoring.matrix, scoring.gaps))
                .collect()
        })
        .collect();
    assert!(want.iter().flatten().any(|&s| s > i32::from(i16::MAX)));
    assert!(want.iter().flatten().filter(|&&s| s > 255).count() >= 4);
    let refs: Vec<&[u8]> = queries.iter().map(|q| &q[..]).collect();
    for batch in [engine.batch_len(), 2, 33, refs.len()] {
        let mut got = Vec::new();
        for part in refs.chunks(batch) {
            got.extend(engine.score_batch_reporting(part, &|_| ()).unwrap());
        }
        for (k, (g, w)) in got.iter().zip(&want).enumerate() {
            assert_eq!(
                g,
                w,
                "batch {batch}, query {k} of length {}",
                queries[k].len()
            );
        }
    }
}
