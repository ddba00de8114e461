//! Every kernel of the catalogue under host emulation against the scalar
//! reference, through its adapter (profile and emulated launch) as the
//! engines run it, plus small instantiations of the vector kernels (VL 4,
//! PL 16) that cross lane and partition boundaries often.

use gpu_kernels::recurrence::Gaps;
use gpu_kernels::vector::HostVector;
use host::alphabet::X_CODE;
use host::db::{ChunkLimits, PackedChunk, plan_chunks};
use host::kernel::KERNELS;
use host::kernel::partitioned::run_partitioned_chunk;
use host::kernel::striped::run_striped_chunk;
use host::matrix::ScoreMatrix;
use host::profile::{partitioned_profile, striped_profile};
use host::reference::local_score;
use host::scoring::GapPenalty;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crate::hay;

/// An emulated launch over one chunk: chunk, query, matrix, gaps.
type Runner = Box<dyn Fn(&PackedChunk, &[u8], &ScoreMatrix, GapPenalty) -> Vec<i32> + Sync>;

/// Every kernel of the catalogue, as its adapter runs it on the host, and
/// small instantiations of the vector kernels (VL 4, 8; PL 16, 64) that
/// cross lane and partition boundaries often.
fn runners() -> Vec<(String, Runner)> {
    let mut runners: Vec<(String, Runner)> = KERNELS
        .iter()
        .map(|info| {
            let kernel = info.kernel;
            let run: Runner = Box::new(move |c, q, m, g| {
                kernel
                    .run_emulated(c, &kernel.profile(q, m), g.kernel_gaps())
                    .expect("the kernel's own profile")
            });
            (info.symbol.to_string(), run)
        })
        .collect();
    let small: [(&str, Runner); 3] = [
        (
            "striped vl4",
            Box::new(|c, q, m, g| {
                run_striped_chunk::<HostVector<4>>(c, &striped_profile(q, m, 4), g.kernel_gaps())
            }),
        ),
        (
            "partitioned vl4 pl16",
            Box::new(|c, q, m, g| {
                let profile = partitioned_profile(q, m, 4, 16);
                run_partitioned_chunk::<HostVector<4>, 4>(c, &profile, g.kernel_gaps())
            }),
        ),
        (
            "partitioned vl8 pl64",
            Box::new(|c, q, m, g| {
                let profile = partitioned_profile(q, m, 8, 64);
                run_partitioned_chunk::<HostVector<8>, 8>(c, &profile, g.kernel_gaps())
            }),
        ),
    ];
    runners.extend(small.into_iter().map(|(name, run)| (name.to_string(), run)));
    runners
}

/// Gap settings: BLOSUM62's usual, free opens and cheap gaps (long lazy-F
/// runs), expensive gaps, no extension cost.
const GAPS: [(i32, i32); 5] = [(11, 1), (0, 1), (1, 1), (20, 5), (3, 0)];

/// Checks every kernel on `query` against every sequence of `seqs`, in
/// chunks of `threads` sequences. Returns the number of pairs checked.
fn check(query: &[u8], seqs: &[Vec<u8>], (open, extend): (i32, i32), threads: usize) -> usize {
    let matrix = ScoreMatrix::by_name("blosum62").unwrap();
    let gaps = GapPenalty::new(open, extend).unwrap();
    let db = hay::database(seqs.to_vec());
    let want: Vec<i32> = (0..db.len())
        .map(|i| local_score(query, db.sequence(i), &matrix, gaps))
        .collect();
    let lengths: Vec<usize> = (0..db.len()).map(|i| db.length(i)).collect();
    let limits = ChunkLimits {
        max_sequences: threads,
        max_bytes: usize::MAX,
    };
    let chunks: Vec<PackedChunk> = plan_chunks(&lengths, limits)
        .into_iter()
        .map(|r| PackedChunk::pack(&db, r))
        .collect();
    let runners = runners();
    std::thread::scope(|scope| {
        for (name, run) in &runners {
            let (chunks, want, db, matrix) = (&chunks, &want, &db, &matrix);
            scope.spawn(move || {
                let got: Vec<i32> = chunks
                    .iter()
                    .flat_map(|c| run(c, query, matrix, gaps))
                    .collect();
                for i in 0..db.len() {
                    assert_eq!(
                        got[i],
                        want[i],
                        "{name}: gaps {open}/{extend}, query length {}, target length {}",
                        query.len(),
                        db.length(i)
                    );
                }
            });
        }
    });
    db.len()
}

fn random_codes(rng: &mut StdRng, len: usize) -> Vec<u8> {
    hay::random_codes(rng, len, true)
}

/// A copy of `seq` with substitutions, deletions and insertions, so that
/// the best alignments have long gaps.
fn mutate(rng: &mut StdRng, seq: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    for &c in seq {
        match rng.random_range(0..20) {
            0 => {}
            1 => out.extend((0..rng.random_range(1..12)).map(|_| rng.random_range(0..20u8))),
            2 => out.push(rng.random_range(0..20)),
            _ => out.push(c),
        }
    }
    out
}

#[test]
fn vector_kernels_match_the_oracle_on_random_pairs() {
    let mut rng = StdRng::seed_from_u64(3);
    let mut pairs = 0;
    for (g, &gaps) in GAPS.iter().enumerate() {
        for q in 0..3 {
            let query_len = rng.random_range(0..=600);
            let query = random_codes(&mut rng, query_len);
            let seqs: Vec<Vec<u8>> = (0..160)
                .map(|i| {
                    if i % 4 == 0 {
                        mutate(&mut rng, &query)
                    } else {
                        let len = rng.random_range(0..=600);
                        random_codes(&mut rng, len)
                    }
                })
                .collect();
            pairs += check(&query, &seqs, gaps, [7, 16, 64][(g + q) % 3]);
        }
    }
    assert!(pairs >= 2000);
}

#[test]
fn vector_kernels_on_adversarial_inputs() {
    let mut rng = StdRng::seed_from_u64(4);
    let x = X_CODE;
    let base = random_codes(&mut rng, 700);
    let targets = vec![
        vec![],
        vec![base[0]],
        base[..15].to_vec(),
        base.clone(),
        mutate(&mut rng, &base),
        vec![x; 300],
        vec![17; 40], // all W
    ];
    // Empty, length 1, shorter than VL, not a multiple of VL or PL, a whole
    // number of partitions, all-X.
    for query_len in [0, 1, 3, 15, 17, 31, 33, 255, 256, 257, 512, 513, 700] {
        for gaps in [(11, 1), (0, 1), (1, 1), (20, 5)] {
            check(&base[..query_len], &targets, gaps, 3);
        }
    }
    for gaps in [(11, 1), (0, 1)] {
        check(&[x; 77], &targets, gaps, 4);
        check(&[17; 40], &targets, gaps, 4);
    }
}

#[test]
fn vector_kernels_score_beyond_16_bits() {
    let mut rng = StdRng::seed_from_u64(5);
    let long: Vec<u8> = (0..6500).map(|_| rng.random_range(0..20)).collect();
    let matrix = ScoreMatrix::by_name("blosum62").unwrap();
    assert!(local_score(&long, &long, &matrix, GapPenalty::new(11, 1).unwrap()) > 32767);
    check(&long, &[long.clone(), long[..5000].to_vec()], (11, 1), 2);
}

/// A length for each configuration of the group kernel: each single-pass
/// one's width, and the narrowest length that runs each several-pass one.
fn group_config_lengths() -> Vec<usize> {
    use gpu_kernels::group_i16x2::{CONFIGS, SINGLE_PASS_COLUMNS, config_for};
    let mut lengths: Vec<usize> = CONFIGS
        .iter()
        .filter(|c| !c.passes)
        .map(|c| c.width())
        .collect();
    for k in (0..CONFIGS.len()).filter(|&k| CONFIGS[k].passes) {
        let narrowest = (SINGLE_PASS_COLUMNS + 1..=4 * SINGLE_PASS_COLUMNS)
            .find(|&len| config_for(len) == k)
            .expect("every several-pass configuration is chosen for some length");
        lengths.push(narrowest);
    }
    let mut configs: Vec<usize> = lengths.iter().map(|&w| config_for(w)).collect();
    configs.sort();
    configs.dedup();
    assert_eq!(configs.len(), CONFIGS.len(), "every configuration runs");
    lengths
}

/// The group kernel at the edge of 16 bits: a matrix that scores W-W 100
/// takes a 326-residue all-W pair to 32,600 (kept) and a 327-residue one to
/// 32,700 (rescued in 32 bits), and longer ones far beyond; next to ordinary
/// sequences in the same pair, in every single-pass configuration's width
/// and in lengths that run each several-pass configuration (borders handed
/// from pass to pass), plain and biased updates alike.
#[test]
fn group_kernel_rescues_scores_beyond_16_bits_in_every_configuration() {
    use gpu_kernels::simt_i16x2::SCORE_LIMIT;
    use host::kernel::Kernel;
    use host::scoring::Scoring;
    const W: u8 = 17;
    let mut scores = *ScoreMatrix::by_name("blosum62").unwrap().scores();
    scores[W as usize][W as usize] = 100;
    let scoring = Scoring {
        matrix: ScoreMatrix::from_scores("W100", scores),
        gaps: GapPenalty::new(11, 1).unwrap(),
    };
    let kernel = Kernel::GroupI16x2;
    let mut rng = StdRng::seed_from_u64(6);
    for width in group_config_lengths() {
        let seqs = vec![
            vec![W; width.min(327)],
            random_codes(&mut rng, width),
            vec![W; width.min(326)],
            vec![W; width],
            mutate(&mut rng, &vec![W; width]),
            vec![],
            random_codes(&mut rng, width / 2),
        ];
        let db = hay::database(seqs);
        for query in [
            vec![W; 327],
            vec![W; 326],
            vec![W; 2000],
            random_codes(&mut rng, 50),
        ] {
            let want: Vec<i32> = (0..db.len())
                .map(|i| local_score(&query, db.sequence(i), &scoring.matrix, scoring.gaps))
                .collect();
            for threads in [1, 2, 3, 7] {
                let lengths: Vec<usize> = (0..db.len()).map(|i| db.length(i)).collect();
                let limits = ChunkLimits {
                    max_sequences: threads,
                    max_bytes: usize::MAX,
                };
                let profile = kernel.profile(&query, &scoring.matrix);
                let got: Vec<i32> = plan_chunks(&lengths, limits)
                    .into_iter()
                    .flat_map(|r| {
                        kernel
                            .run_emulated(
                                &PackedChunk::pack(&db, r),
                                &profile,
                                scoring.gaps.kernel_gaps(),
                            )
                            .unwrap()
                    })
                    .collect();
                assert_eq!(
                    got,
                    want,
                    "width {width}, query length {}, {threads} a chunk",
                    query.len()
                );
            }
            assert!(want.iter().any(|&s| s > SCORE_LIMIT) || query.len() < 327 || width < 327);
        }
    }
}

/// The group kernel alone, through its adapter, on `query` against `seqs`
/// in chunks of `threads` sequences, against the reference.
fn check_group(query: &[u8], seqs: &[Vec<u8>], (open, extend): (i32, i32), threads: usize) {
    use host::kernel::Kernel;
    let matrix = ScoreMatrix::by_name("blosum62").unwrap();
    let gaps = GapPenalty::new(open, extend).unwrap();
    let db = hay::database(seqs.to_vec());
    let lengths: Vec<usize> = (0..db.len()).map(|i| db.length(i)).collect();
    let limits = ChunkLimits {
        max_sequences: threads,
        max_bytes: usize::MAX,
    };
    let kernel = Kernel::GroupI16x2;
    let profile = kernel.profile(query, &matrix);
    let got: Vec<i32> = plan_chunks(&lengths, limits)
        .into_iter()
        .flat_map(|r| {
            kernel
                .run_emulated(&PackedChunk::pack(&db, r), &profile, gaps.kernel_gaps())
                .unwrap()
        })
        .collect();
    for i in 0..db.len() {
        assert_eq!(
            got[i],
            local_score(query, db.sequence(i), &matrix, gaps),
            "gaps {open}/{extend}, query length {}, target length {}",
            query.len(),
            db.length(i)
        );
    }
}

/// The widest single-pass configurations (769–1024 residues; `g32_r32`
/// with the biased update) and the several-pass ones just above them
/// (biased), under every gap setting and at the edge of what fits 16 bits
/// (`first + extend = 2^14`, where the biased update's `E - first` reaches
/// -2^15): random sequences and homologs with long gaps, queries shorter
/// than a group and longer than a pass.
#[test]
fn group_kernel_wide_and_several_pass_configurations_match_the_oracle() {
    use gpu_kernels::group_i16x2::{CONFIGS, config_for};
    let mut rng = StdRng::seed_from_u64(7);
    let base = random_codes(&mut rng, 1100);
    let seqs: Vec<Vec<u8>> = (0..18)
        .map(|i| {
            let len = rng.random_range(769..=1180);
            if i % 3 == 0 {
                mutate(&mut rng, &base[..len.min(base.len())])
            } else {
                random_codes(&mut rng, len)
            }
        })
        .collect();
    // The chunks' configurations: biased single pass and several passes.
    let runs = |threads: usize| {
        let mut lengths: Vec<usize> = seqs.iter().map(Vec::len).collect();
        lengths.sort_unstable_by(|a, b| b.cmp(a));
        lengths
            .chunks(threads)
            .map(|c| CONFIGS[config_for(c[0])])
            .collect::<Vec<_>>()
    };
    assert!(runs(5).iter().any(|c| c.biased && !c.passes));
    assert!(runs(5).iter().any(|c| c.biased && c.passes));
    let gaps = GAPS.iter().copied().chain([(16_382, 1), (0, 8192)]);
    for (k, gaps) in gaps.enumerate() {
        let query = match k % 3 {
            0 => mutate(&mut rng, &base[..700]),
            1 => random_codes(&mut rng, [1, 31, 33][k / 3]),
            _ => base[300..].to_vec(),
        };
        check_group(&query, &seqs, gaps, [5, 7][k % 2]);
    }
}

/// The query-group kernel in configuration `config` through its adapter's
/// emulated run, on `query` against `seqs` in chunks of `threads`
/// sequences, against the reference.
fn check_query_group(
    config: usize,
    query: &[u8],
    seqs: &[Vec<u8>],
    scoring: &host::scoring::Scoring,
    threads: usize,
) {
    use gpu_kernels::query_group_i16x2::{CONFIGS, Halves};
    use host::kernel::Kernel;
    use host::kernel::query_group::run_emulated_config;
    if CONFIGS[config].halves == Halves::Queries {
        // Its partner: a shorter query, rows of pad past its end.
        let partner = query[..query.len() * 2 / 3].to_vec();
        return check_query_pair(Some(config), [query, &partner], seqs, scoring, threads);
    }
    let db = hay::database(seqs.to_vec());
    let lengths: Vec<usize> = (0..db.len()).map(|i| db.length(i)).collect();
    let limits = ChunkLimits {
        max_sequences: threads,
        max_bytes: usize::MAX,
    };
    let profile = Kernel::QueryGroupI16x2.profile(query, &scoring.matrix);
    let got: Vec<i32> = plan_chunks(&lengths, limits)
        .into_iter()
        .flat_map(|r| {
            run_emulated_config(
                config,
                &PackedChunk::pack(&db, r),
                &profile,
                scoring.gaps.kernel_gaps(),
            )
            .unwrap()
        })
        .collect();
    for i in 0..db.len() {
        assert_eq!(
            got[i],
            local_score(query, db.sequence(i), &scoring.matrix, scoring.gaps),
            "configuration {}, gaps {:?}, query length {}, target length {}, {threads} a chunk",
            gpu_kernels::query_group_i16x2::CONFIGS[config].symbol,
            scoring.gaps,
            query.len(),
            db.length(i)
        );
    }
}

/// An emulated run of two queries in the halves over a chunk: their
/// profiles, the pair's profile, the gaps; each query's scores.
type PairRun<'a> =
    &'a dyn Fn(&PackedChunk, [&[u32]; 2], &[u32], Gaps) -> host::error::Result<[Vec<i32>; 2]>;

/// Configuration `config` of two queries in the halves, or with `None`
/// the kernel's own choice (`Kernel::run_emulated_pair`), on `queries`
/// against every sequence of `seqs` in chunks of `threads` sequences,
/// each query's scores against the oracle.
fn check_query_pair(
    config: Option<usize>,
    queries: [&[u8]; 2],
    seqs: &[Vec<u8>],
    scoring: &host::scoring::Scoring,
    threads: usize,
) {
    use host::kernel::Kernel;
    use host::kernel::query_group::run_emulated_pair_config;
    let run = |chunk: &PackedChunk, profiles: [&[u32]; 2], pair: &[u32], gaps: Gaps| match config {
        Some(k) => run_emulated_pair_config(k, chunk, profiles, pair, gaps),
        None => Kernel::QueryGroupI16x2.run_emulated_pair(chunk, profiles, pair, gaps),
    };
    let name = config.map_or("the kernel's choice", |k| {
        gpu_kernels::query_group_i16x2::CONFIGS[k].symbol
    });
    check_pair_run(name, &run, queries, seqs, scoring, threads);
}

/// `run` (named `name`) on `queries` in the halves against every sequence
/// of `seqs` in chunks of `threads` sequences, each query's scores
/// against the oracle.
fn check_pair_run(
    name: &str,
    run: PairRun<'_>,
    queries: [&[u8]; 2],
    seqs: &[Vec<u8>],
    scoring: &host::scoring::Scoring,
    threads: usize,
) {
    use host::kernel::Kernel;
    let db = hay::database(seqs.to_vec());
    let lengths: Vec<usize> = (0..db.len()).map(|i| db.length(i)).collect();
    let limits = ChunkLimits {
        max_sequences: threads,
        max_bytes: usize::MAX,
    };
    let kernel = Kernel::QueryGroupI16x2;
    let profiles = queries.map(|q| kernel.profile(q, &scoring.matrix));
    let profiles = [&profiles[0][..], &profiles[1][..]];
    let pair = kernel.pair_profile(queries[0], queries[1], &scoring.matrix);
    let gaps = scoring.gaps.kernel_gaps();
    let mut got = [Vec::new(), Vec::new()];
    for r in plan_chunks(&lengths, limits) {
        let chunk = PackedChunk::pack(&db, r);
        let [low, high] = run(&chunk, profiles, &pair, gaps).unwrap();
        got[0].extend(low);
        got[1].extend(high);
    }
    for (q, query) in queries.iter().enumerate() {
        for i in 0..db.len() {
            assert_eq!(
                got[q][i],
                local_score(query, db.sequence(i), &scoring.matrix, scoring.gaps),
                "{name}, query {q} of a pair of lengths {} and {}, gaps {:?}, target length {}, {threads} a chunk",
                queries[0].len(),
                queries[1].len(),
                scoring.gaps,
                db.length(i)
            );
        }
    }
}

/// Two queries through the kernel's own choice (`Kernel::run_emulated_pair`):
/// in one launch where the lifted update fits and the model says it pays
/// (queries of similar lengths; 300 with 610, the longer handed over to a
/// one-query configuration where the shorter ends), each alone otherwise
/// (lengths far apart, gaps past the lifted update), with the high query
/// the longer or the shorter one; every score against the oracle.
#[test]
fn query_group_scores_two_queries_as_each_alone() {
    use gpu_kernels::query_group_i16x2::{pair_config_for, pair_tail, queries_pay};
    use host::scoring::Scoring;
    let mut rng = StdRng::seed_from_u64(11);
    let matrix = ScoreMatrix::by_name("blosum62").unwrap();
    let base = random_codes(&mut rng, 700);
    for (j, &(a, b, open, extend)) in [
        (144, 189, 10, 1),
        (189, 144, 10, 1),
        (600, 610, 10, 1),
        (300, 610, 10, 1),
        (610, 300, 10, 1),
        (30, 650, 10, 1),
        (300, 290, 2, 1),
        (300, 300, 120, 5),
        (5, 5, 0, 4),
    ]
    .iter()
    .enumerate()
    {
        let handed_over = (a.min(b), a.max(b)) == (300, 610);
        let queries = if handed_over {
            // Of these very lengths: the model hands the longer over on
            // every chunk here whose longest sequence has 6 residues or
            // more, and by its costs pairs them from 46 rows on.
            for rows in 6..=700 {
                assert_eq!(queries_pay(a, b, rows, true), rows >= 46, "{rows}");
                assert!(pair_tail(pair_config_for(a.max(b), rows), a, b, rows).is_some());
            }
            [base[..a].to_vec(), random_codes(&mut rng, b)]
        } else {
            [mutate(&mut rng, &base[..a]), random_codes(&mut rng, b)]
        };
        let mut seqs: Vec<Vec<u8>> = (0..13)
            .map(|i| match i % 3 {
                0 => mutate(&mut rng, &queries[i % 2]),
                1 => {
                    let len = rng.random_range(0..400);
                    random_codes(&mut rng, len)
                }
                _ => base[..rng.random_range(1..700)].to_vec(),
            })
            .collect();
        seqs.push(vec![]);
        let scoring = Scoring {
            matrix: matrix.clone(),
            gaps: GapPenalty::new(open, extend).unwrap(),
        };
        let threads = [5, 14][j % 2];
        check_query_pair(None, [&queries[0], &queries[1]], &seqs, &scoring, threads);
    }
}

/// A batch of query pairs (`Kernel::run_emulated_batch`, entries as the
/// engine makes them: longest first, neighbours paired) against every
/// sequence of `seqs` in chunks of `threads` sequences, each query's
/// scores against the oracle.
fn check_query_batch(
    queries: &[Vec<u8>],
    seqs: &[Vec<u8>],
    scoring: &host::scoring::Scoring,
    threads: usize,
) {
    use host::engine::gpu::resident::batch::batch_entries;
    use host::kernel::Kernel;
    let db = hay::database(seqs.to_vec());
    let lengths: Vec<usize> = (0..db.len()).map(|i| db.length(i)).collect();
    let limits = ChunkLimits {
        max_sequences: threads,
        max_bytes: usize::MAX,
    };
    let kernel = Kernel::QueryGroupI16x2;
    let refs: Vec<&[u8]> = queries.iter().map(|q| &q[..]).collect();
    let entries = batch_entries(&refs);
    let pairs: Vec<[&[u8]; 2]> = entries
        .iter()
        .map(|&(low, high)| [refs[low], high.map_or(&[][..], |h| refs[h])])
        .collect();
    let owned: Vec<Vec<u32>> = pairs
        .iter()
        .flatten()
        .map(|q| match q.is_empty() {
            true => Vec::new(),
            false => kernel.profile(q, &scoring.matrix),
        })
        .collect();
    let profiles: Vec<&[u32]> = owned.iter().map(|p| &p[..]).collect();
    let mut got = vec![Vec::new(); profiles.len()];
    for r in plan_chunks(&lengths, limits) {
        let chunk = PackedChunk::pack(&db, r);
        let scores = kernel
            .run_emulated_batch(
                &chunk,
                &profiles,
                &pairs,
                &scoring.matrix,
                scoring.gaps.kernel_gaps(),
            )
            .unwrap();
        for (all, part) in got.iter_mut().zip(scores) {
            all.extend(part);
        }
    }
    for (query, scores) in pairs.iter().flatten().zip(&got) {
        if query.is_empty() {
            assert!(scores.is_empty());
            continue;
        }
        for i in 0..db.len() {
            assert_eq!(
                scores[i],
                local_score(query, db.sequence(i), &scoring.matrix, scoring.gaps),
                "a batch of {} entries, query length {}, gaps {:?}, target length {}, {threads} a chunk",
                pairs.len(),
                query.len(),
                scoring.gaps,
                db.length(i)
            );
        }
    }
}

/// Batches of query pairs: queries of one residue, of one pass and one
/// column past it, of several passes (entries that leave the later
/// passes' launches), equal lengths, an odd count (an entry with no high
/// query), homologs with gaps; empty, one-residue and long sequences;
/// gap settings the lifted update takes and ones it does not (each query
/// alone then); scores beyond 16 bits (rescued query by query).
#[test]
fn query_group_batches_match_the_oracle() {
    use host::scoring::Scoring;
    let mut rng = StdRng::seed_from_u64(12);
    let matrix = ScoreMatrix::by_name("blosum62").unwrap();
    let base = random_codes(&mut rng, 1200);
    let mut queries: Vec<Vec<u8>> = [1, 7, 150, 159, 160, 161, 320, 333, 700, 45, 300, 300, 1100]
        .iter()
        .enumerate()
        .map(|(i, &m)| match i % 2 {
            0 => mutate(&mut rng, &base[..m]),
            _ => random_codes(&mut rng, m),
        })
        .collect();
    queries.push(Vec::new());
    let mut seqs: Vec<Vec<u8>> = (0..30)
        .map(|i| match i % 3 {
            0 => mutate(&mut rng, &queries[i % queries.len()]),
            1 => {
                let len = rng.random_range(0..600);
                random_codes(&mut rng, len)
            }
            _ => base[..rng.random_range(1..1200)].to_vec(),
        })
        .collect();
    seqs.extend([vec![], vec![7], random_codes(&mut rng, 2500)]);
    for (j, &(open, extend)) in [(10, 1), (11, 1), (20, 5), (3, 0), (116, 1), (117, 1)]
        .iter()
        .enumerate()
    {
        let scoring = Scoring {
            matrix: matrix.clone(),
            gaps: GapPenalty::new(open, extend).unwrap(),
        };
        check_query_batch(&queries[j % 2..], &seqs, &scoring, [5, 13, 40][j % 3]);
    }
    // Scores beyond 16 bits: W-W scores 100.
    const W: u8 = 17;
    let mut scores = *matrix.scores();
    scores[W as usize][W as usize] = 100;
    let scoring = Scoring {
        matrix: ScoreMatrix::from_scores("W100", scores),
        gaps: GapPenalty::new(10, 1).unwrap(),
    };
    let mut tail_w = random_codes(&mut rng, 300);
    tail_w.extend(vec![W; 327]);
    let seqs = vec![
        vec![W; 327],
        random_codes(&mut rng, 500),
        vec![W; 326],
        tail_w.clone(),
        vec![],
    ];
    let queries = [
        vec![W; 327],
        vec![W; 326],
        tail_w,
        vec![W; 1000],
        random_codes(&mut rng, 90),
    ];
    check_query_batch(&queries, &seqs, &scoring, 3);
}

/// A batch against a chunk of no sequences: every query's scores, each
/// empty (none left out).
#[test]
fn a_query_batch_on_an_empty_chunk_gives_every_query_no_scores() {
    use host::kernel::Kernel;
    let mut rng = StdRng::seed_from_u64(13);
    let matrix = ScoreMatrix::by_name("blosum62").unwrap();
    let db = hay::database(vec![random_codes(&mut rng, 40)]);
    let chunk = PackedChunk::pack(&db, 0..0);
    let queries: Vec<Vec<u8>> = [300, 200, 100, 50, 20]
        .iter()
        .map(|&m| random_codes(&mut rng, m))
        .collect();
    let pairs: Vec<[&[u8]; 2]> = vec![
        [&queries[0], &queries[1]],
        [&queries[2], &queries[3]],
        [&queries[4], &[]],
    ];
    let kernel = Kernel::QueryGroupI16x2;
    let owned: Vec<Vec<u32>> = pairs
        .iter()
        .flatten()
        .map(|q| match q.is_empty() {
            true => Vec::new(),
            false => kernel.profile(q, &matrix),
        })
        .collect();
    let profiles: Vec<&[u32]> = owned.iter().map(|p| &p[..]).collect();
    let scores = kernel
        .run_emulated_batch(
            &chunk,
            &profiles,
            &pairs,
            &matrix,
            GapPenalty::new(11, 1).unwrap().kernel_gaps(),
        )
        .unwrap();
    assert_eq!(scores.len(), profiles.len());
    assert!(scores.iter().all(Vec::is_empty));
}

/// Every configuration of the query-group kernel on queries shorter than
/// a group, one column short of a pass, a whole pass, one column past it
/// and several passes; pairs of unequal lengths (rows past the shorter
/// one), empty and one-residue sequences, odd counts, homologs with gaps;
/// under every gap setting, and at the edge of the 8-bit bias (`first` =
/// 116 with BLOSUM62's 11: every window byte up to 127) and past it, where
/// `group-i16x2` runs instead.
#[test]
fn query_group_kernel_matches_the_oracle_in_every_configuration() {
    use gpu_kernels::query_group_i16x2::CONFIGS;
    use host::scoring::Scoring;
    let mut rng = StdRng::seed_from_u64(8);
    let matrix = ScoreMatrix::by_name("blosum62").unwrap();
    let base = random_codes(&mut rng, 1200);
    let gaps: Vec<(i32, i32)> = GAPS.iter().copied().chain([(115, 1), (116, 1)]).collect();
    for (k, config) in CONFIGS.iter().enumerate() {
        let w = config.width();
        let lengths = [1, w - 1, w, w + 1, (2 * w + 3).min(1100), config.lanes - 1];
        for (j, &m) in lengths.iter().enumerate() {
            let query = if j % 2 == 0 {
                mutate(&mut rng, &base[..m.min(base.len())])
            } else {
                random_codes(&mut rng, m)
            };
            let mut seqs: Vec<Vec<u8>> = (0..9)
                .map(|i| match i % 3 {
                    0 => mutate(&mut rng, &query),
                    1 => {
                        let len = rng.random_range(0..300);
                        random_codes(&mut rng, len)
                    }
                    _ => base[..rng.random_range(1..400)].to_vec(),
                })
                .collect();
            seqs.extend([vec![], vec![7], random_codes(&mut rng, 37)]);
            let (open, extend) = gaps[(k + j) % gaps.len()];
            let scoring = Scoring {
                matrix: matrix.clone(),
                gaps: GapPenalty::new(open, extend).unwrap(),
            };
            check_query_group(k, &query, &seqs, &scoring, [3, 7, 12][j % 3]);
        }
    }
}

/// Every configuration of the lifted update under the gap settings it is
/// also compiled for (`FIXED_GAPS`: open 11 and open 10, extend 1), whose
/// launches (and emulated runs) take the gaps as constants, equals the
/// oracle: homologs with long gaps, random sequences, scores past 16 bits
/// (a query against itself and a close copy), one pass and several.
#[test]
fn query_group_gaps_compiled_in_match_the_oracle() {
    use gpu_kernels::group_i16x2::GapAddends;
    use gpu_kernels::query_group_i16x2::{CONFIGS, FIXED_GAP_SUFFIXES, FIXED_GAPS, Update};
    use host::scoring::Scoring;
    let mut rng = StdRng::seed_from_u64(37);
    let matrix = ScoreMatrix::by_name("blosum62").unwrap();
    let base = random_codes(&mut rng, 7000);
    // Each suffix names its gaps: `_o<open>e<extend>`.
    for (suffix, fixed) in FIXED_GAP_SUFFIXES.iter().zip(FIXED_GAPS) {
        let (open, extend) = suffix.trim_start_matches("_o").split_once('e').unwrap();
        assert_eq!(
            open.parse::<i32>().unwrap(),
            fixed.first - fixed.extend,
            "{suffix}"
        );
        assert_eq!(extend.parse::<i32>().unwrap(), fixed.extend, "{suffix}");
    }
    let mut checked = 0;
    for (k, config) in CONFIGS.iter().enumerate() {
        let Some(symbols) = config.fixed_symbols else {
            assert_ne!(config.update, Update::Lifted, "{}", config.symbol);
            continue;
        };
        for (f, fixed) in FIXED_GAPS.iter().enumerate() {
            let addends = GapAddends::new(*fixed);
            assert_eq!(config.fixed_for(addends), f as u8 + 1);
            assert_eq!(config.symbol_for(addends), symbols[f]);
            assert_eq!(
                symbols[f],
                format!("{}{}", config.symbol, FIXED_GAP_SUFFIXES[f])
            );
            let scoring = Scoring {
                matrix: matrix.clone(),
                gaps: GapPenalty::new(fixed.first - fixed.extend, fixed.extend).unwrap(),
            };
            // The configuration itself runs (no fall-back to group-i16x2).
            let (min, max) = (matrix.min_score(), matrix.max_score());
            assert!(host::kernel::query_group::config_runs(k, *fixed, min, max));
            let w = config.width();
            for (j, m) in [w - 1, 2 * w + 3].into_iter().enumerate() {
                let query = mutate(&mut rng, &base[..m]);
                let mut seqs: Vec<Vec<u8>> = (0..7)
                    .map(|i| match i % 2 {
                        0 => mutate(&mut rng, &query),
                        _ => {
                            let len = rng.random_range(0..400);
                            random_codes(&mut rng, len)
                        }
                    })
                    .collect();
                seqs.extend([vec![], vec![7], query.clone()]);
                check_query_group(k, &query, &seqs, &scoring, [3, 8][j]);
                checked += 1;
            }
        }
    }
    // Past 16 bits: 7,000 residues score about 40,000 against themselves.
    let k = CONFIGS
        .iter()
        .position(|c| c.symbol.ends_with("g8_r20_queries"))
        .unwrap();
    let long = base.clone();
    let seqs = vec![
        long.clone(),
        mutate(&mut rng, &long),
        random_codes(&mut rng, 900),
    ];
    for fixed in FIXED_GAPS {
        let scoring = Scoring {
            matrix: matrix.clone(),
            gaps: GapPenalty::new(fixed.first - fixed.extend, fixed.extend).unwrap(),
        };
        check_query_group(k, &long, &seqs, &scoring, 3);
    }
    assert!(checked >= 2 * FIXED_GAPS.len() * 20, "{checked} runs");
}

/// A query resumed at a later pass (`QueryGroupParams::first_column`: the
/// launches from that column on read their first border from the scratch
/// and raise the scores), in every configuration of one query that runs
/// three passes or more, equals the oracle: what a pair of queries would
/// hand its longer query's remaining columns to.
#[test]
fn query_group_resumed_query_matches_the_oracle() {
    use gpu_kernels::query_group_i16x2::{CONFIGS, Halves};
    use host::kernel::Kernel;
    use host::kernel::query_group::run_emulated_config_resumed;
    let mut rng = StdRng::seed_from_u64(19);
    let matrix = ScoreMatrix::by_name("blosum62").unwrap();
    for (k, config) in CONFIGS.iter().enumerate() {
        if config.halves != Halves::Sequences {
            continue;
        }
        let w = config.width();
        let query = random_codes(&mut rng, (3 * w + w / 2).min(1500));
        let passes = query.len().div_ceil(w);
        let mut seqs: Vec<Vec<u8>> = (0..14)
            .map(|i| match i % 2 {
                0 => {
                    let from = rng.random_range(0..w);
                    mutate(&mut rng, &query[from..])
                }
                _ => {
                    let len = rng.random_range(1..300);
                    random_codes(&mut rng, len)
                }
            })
            .collect();
        seqs.extend([vec![], vec![7]]);
        let (open, extend) = GAPS[k % GAPS.len()];
        let gaps = GapPenalty::new(open, extend).unwrap();
        let db = hay::database(seqs.clone());
        let lengths: Vec<usize> = (0..db.len()).map(|i| db.length(i)).collect();
        let limits = ChunkLimits {
            max_sequences: 7,
            max_bytes: usize::MAX,
        };
        let profile = Kernel::QueryGroupI16x2.profile(&query, &matrix);
        for resume_at in [1, passes - 1] {
            let got: Vec<i32> = plan_chunks(&lengths, limits)
                .into_iter()
                .flat_map(|r| {
                    run_emulated_config_resumed(
                        k,
                        &PackedChunk::pack(&db, r),
                        &profile,
                        gaps.kernel_gaps(),
                        resume_at,
                    )
                    .unwrap()
                })
                .collect();
            for i in 0..db.len() {
                assert_eq!(
                    got[i],
                    local_score(&query, db.sequence(i), &matrix, gaps),
                    "configuration {}, resumed at pass {resume_at} of {passes}, target length {}",
                    config.symbol,
                    db.length(i)
                );
            }
        }
    }
}

/// Two queries in the halves whose longer one, past the shorter one's
/// passes, goes on in a one-query configuration of the same lanes from
/// its border handed over (`run_emulated_pair_with_tail`): both queries'
/// scores equal the oracle, for every pair configuration and every
/// one-query configuration of the lifted update it could hand over to,
/// the longer query in either half.
#[test]
fn query_group_pair_hands_its_longer_query_to_one_query() {
    use gpu_kernels::query_group_i16x2::{CONFIGS, Halves, Update};
    use host::kernel::query_group::run_emulated_pair_with_tail;
    let mut rng = StdRng::seed_from_u64(23);
    let matrix = ScoreMatrix::by_name("blosum62").unwrap();
    for (k, pc) in CONFIGS.iter().enumerate() {
        if pc.halves != Halves::Queries {
            continue;
        }
        let w = pc.width();
        let short = random_codes(&mut rng, w - 3);
        let long = random_codes(&mut rng, 3 * w + 5);
        let mut seqs: Vec<Vec<u8>> = (0..31)
            .map(|i| match i % 3 {
                0 => {
                    let from = rng.random_range(0..w);
                    mutate(&mut rng, &long[from..])
                }
                1 => mutate(&mut rng, &short),
                _ => {
                    let len = rng.random_range(1..250);
                    random_codes(&mut rng, len)
                }
            })
            .collect();
        seqs.extend([vec![], vec![7]]);
        // Gaps the lifted update takes (where it does not, no pair is launched).
        let (open, extend) = [(10, 1), (11, 1), (8, 2), (40, 3)][k % 4];
        let scoring = host::scoring::Scoring {
            matrix: matrix.clone(),
            gaps: GapPenalty::new(open, extend).unwrap(),
        };
        let tails = CONFIGS.iter().enumerate().filter(|(_, t)| {
            t.halves == Halves::Sequences && t.update == Update::Lifted && t.lanes == pc.lanes
        });
        for (t, tc) in tails {
            for handoff in [1, 2] {
                let name = format!(
                    "{} handing over to {} at pass {handoff}",
                    pc.symbol, tc.symbol
                );
                let run = |chunk: &PackedChunk, profiles: [&[u32]; 2], pair: &[u32], gaps| {
                    run_emulated_pair_with_tail((k, t), chunk, profiles, pair, gaps, handoff)
                };
                // The longer query high, then low.
                for queries in [[&short[..], &long[..]], [&long[..], &short[..]]] {
                    check_pair_run(&name, &run, queries, &seqs, &scoring, 30);
                }
            }
        }
    }
}

/// The query-group kernel at the edge of 16 bits (a matrix that scores W-W
/// 100: a 327-residue all-W pair reaches 32,700 and is rescued in 32 bits,
/// a 326-residue one stays at 32,600), with the out-of-range H in the
/// first pass, in a later one, and carried over a pass border.
#[test]
fn query_group_kernel_rescues_scores_beyond_16_bits() {
    use gpu_kernels::simt_i16x2::SCORE_LIMIT;
    use host::scoring::Scoring;
    const W: u8 = 17;
    let mut scores = *ScoreMatrix::by_name("blosum62").unwrap().scores();
    scores[W as usize][W as usize] = 100;
    let scoring = Scoring {
        matrix: ScoreMatrix::from_scores("W100", scores),
        gaps: GapPenalty::new(10, 1).unwrap(),
    };
    let mut rng = StdRng::seed_from_u64(9);
    // One configuration of each width class (one pass and several) and
    // of each update.
    let named = |name: &str| gpu_kernels::query_group_i16x2::config_named(name).unwrap();
    for k in [
        0,
        4,
        named("g8_r24_plain"),
        named("g8_r8_lifted"),
        named("g16_r24_lifted"),
        named("g8_r8_queries"),
        named("g16_r20_queries"),
        named("g8_r18_lifted_2rows"),
        named("g16_r24_lifted_2rows"),
        named("g8_r20_queries_2rows"),
    ] {
        let mut tail_w = random_codes(&mut rng, 300);
        tail_w.extend(vec![W; 327]);
        let seqs = vec![
            vec![W; 327],
            random_codes(&mut rng, 500),
            vec![W; 326],
            tail_w.clone(),
            mutate(&mut rng, &vec![W; 400]),
            vec![],
            vec![W; 900],
        ];
        for query in [vec![W; 327], vec![W; 326], tail_w.clone(), vec![W; 1000]] {
            check_query_group(k, &query, &seqs, &scoring, 3);
            let best = local_score(&query, &seqs[0], &scoring.matrix, scoring.gaps);
            assert!(best > SCORE_LIMIT || query.len() < 327);
        }
    }
}

/// The lifted update (every score plus `first` in 0..=127, the pad score
/// clamped to `-first`) under every built-in matrix, at the edges of what
/// it takes (`first` equal to minus the smallest score, and the largest
/// score plus `first` equal to 127) and just past them, where the pinned
/// lifted configuration gives way to `group-i16x2`; with no extension
/// cost and with `extend` equal to `first` (where E's 32-bit subtraction
/// comes closest to borrowing); one pass and several.
#[test]
fn query_group_lifted_update_matches_the_oracle_at_its_edges() {
    use gpu_kernels::query_group_i16x2::{Update, config_named, update_for};
    use host::scoring::Scoring;
    let mut rng = StdRng::seed_from_u64(10);
    let base = random_codes(&mut rng, 900);
    let mut lifted_runs = 0;
    for (m, name) in host::matrix::BUILTIN.iter().enumerate() {
        let matrix = ScoreMatrix::by_name(name).unwrap();
        let (min, max) = (matrix.min_score(), matrix.max_score());
        // (open, extend, whether lifted fits) with first = -min, -min - 1,
        // 127 - max, 128 - max, then 20 with no extension cost and all
        // extension.
        let gaps = [
            (-min - 1, 1, true),
            (-min - 2, 1, false),
            (126 - max, 1, true),
            (127 - max, 1, false),
            (20, 0, true),
            (0, 20, true),
        ];
        for (j, &(open, extend, lifts)) in gaps.iter().enumerate() {
            if open < 0 {
                continue;
            }
            let first = open + extend;
            let fits = Update::Lifted.fits(min, max, first);
            assert_eq!(fits, lifts, "{name} {open}/{extend}");
            lifted_runs += usize::from(update_for(min, max, first) == Update::Lifted);
            let config = ["g8_r8_lifted", "g16_r24_lifted", "g8_r16_queries"][(m + j) % 3];
            let k = config_named(config).unwrap();
            // The lifted path itself runs where it fits (no silent fallback).
            let kernel_gaps = GapPenalty::new(open, extend).unwrap().kernel_gaps();
            assert_eq!(
                host::kernel::query_group::config_runs(k, kernel_gaps, min, max),
                fits,
                "{name} {open}/{extend}"
            );
            let query = mutate(&mut rng, &base[..[60, 800][(m + j) % 2]]);
            let mut seqs: Vec<Vec<u8>> = (0..6)
                .map(|i| match i % 2 {
                    0 => mutate(&mut rng, &query),
                    _ => {
                        let len = rng.random_range(1..500);
                        random_codes(&mut rng, len)
                    }
                })
                .collect();
            seqs.push(vec![]);
            let scoring = Scoring {
                matrix: matrix.clone(),
                gaps: GapPenalty::new(open, extend).unwrap(),
            };
            check_query_group(k, &query, &seqs, &scoring, 3);
        }
    }
    // Three fitting settings a matrix (the two edges and 20/0).
    assert!(lifted_runs >= 3 * host::matrix::BUILTIN.len());
}
