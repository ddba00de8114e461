//! Kernels under host emulation against the scalar reference, launched the way
//! the GPU engine launches them (GPU-sized chunks, thread-interleaved layouts),
//! the 16-bit SIMT kernel with its 32-bit rescue, and the CPU engine's
//! inter-sequence form of the SIMT kernel on the same chunks.

use host::db::{ChunkLimits, Database, PackedChunk, plan_chunks};
use host::kernel::inter_sequence;
use host::kernel::simt::{run_simt_chunk, run_simt_i16x2_chunk};
use host::profile::sequential_profile;
use host::reference::local_score;
use host::scoring::{GapPenalty, Scoring};
use rand::Rng;
use rayon::prelude::*;

use crate::hay;

/// A way to score one packed chunk against a sequential profile.
type ChunkKernel = fn(&PackedChunk, &[u32], gpu_kernels::recurrence::Gaps) -> Vec<i32>;

/// `sw_simt_i32` and `sw_simt_i16x2` (with its rescue) emulated, and the
/// CPU engine's inter-sequence SIMD form.
const SIMT_KERNELS: [(&str, ChunkKernel); 3] = [
    ("sw_simt_i32", run_simt_chunk),
    ("sw_simt_i16x2", run_simt_i16x2_chunk),
    ("inter-sequence", inter_sequence::score_chunk),
];

/// Scores `query` against every sequence of `db` with both [`SIMT_KERNELS`],
/// in chunks of at most `threads` sequences, and compares with the reference.
fn check_simt(query: &[u8], db: &Database, scoring: &Scoring, threads: usize) -> usize {
    let lengths: Vec<usize> = (0..db.len()).map(|i| db.length(i)).collect();
    let limits = ChunkLimits {
        max_sequences: threads,
        max_bytes: usize::MAX,
    };
    let profile = sequential_profile(query, &scoring.matrix);
    let gaps = scoring.gaps.kernel_gaps();
    let chunks = plan_chunks(&lengths, limits);
    let want: Vec<i32> = (0..db.len())
        .into_par_iter()
        .map(|i| local_score(query, db.sequence(i), &scoring.matrix, scoring.gaps))
        .collect();
    for (name, kernel) in SIMT_KERNELS {
        let got: Vec<i32> = chunks
            .par_iter()
            .flat_map_iter(|range| kernel(&PackedChunk::pack(db, range.clone()), &profile, gaps))
            .collect();
        for i in 0..db.len() {
            assert_eq!(
                got[i],
                want[i],
                "{name}: matrix {}, gaps {:?}, query length {}, target length {}",
                scoring.matrix.name(),
                scoring.gaps,
                query.len(),
                db.length(i)
            );
        }
    }
    db.len()
}

/// ≥ 10,000 random pairs per run: lengths 0–2000, every matrix, every gap
/// setting (free opens and 20/5 included), chunks of 32 to 1024 threads.
#[test]
fn sw_simt_i32_matches_reference_on_10000_random_pairs() {
    let mut rng = hay::rng(10);
    let db_seqs: Vec<Vec<u8>> = hay::skewed_sequences(&mut rng, 1000, 2000, true);
    let db = hay::database(db_seqs);
    let matrices = hay::matrices();
    let mut pairs = 0;
    for q in 0..10 {
        let len = [0, 1, 31, 32, 33, 500, 1000, 1500, 1999, 2000][q];
        let query = hay::random_codes(&mut rng, len, true);
        let (open, extend) = hay::GAP_SETTINGS[q % hay::GAP_SETTINGS.len()];
        let scoring = Scoring {
            matrix: matrices[q % matrices.len()].clone(),
            gaps: GapPenalty::new(open, extend).unwrap(),
        };
        pairs += check_simt(&query, &db, &scoring, [32, 256, 1024][q % 3]);
    }
    assert!(pairs >= 10_000);
}

/// Homologs (long gapped alignments) under every matrix and gap setting.
#[test]
fn sw_simt_i32_matches_reference_on_homologs() {
    let mut rng = hay::rng(11);
    let query = hay::random_codes(&mut rng, 700, false);
    let db = hay::database(
        [0.99, 0.9, 0.7, 0.5, 0.35]
            .iter()
            .flat_map(|&id| {
                (0..4)
                    .map(|_| hay::mutate(&mut rng, &query, id))
                    .collect::<Vec<_>>()
            })
            .collect(),
    );
    for matrix in hay::matrices() {
        for (open, extend) in hay::GAP_SETTINGS {
            let scoring = Scoring {
                matrix: matrix.clone(),
                gaps: GapPenalty::new(open, extend).unwrap(),
            };
            check_simt(&query, &db, &scoring, 64);
        }
    }
}

/// Extreme gap penalties: the largest accepted, and none at all.
#[test]
fn sw_simt_i32_with_extreme_gap_penalties() {
    let mut rng = hay::rng(12);
    let query = hay::random_codes(&mut rng, 300, false);
    let db = hay::database(
        (0..40)
            .map(|_| hay::mutate(&mut rng, &query, 0.6))
            .collect(),
    );
    for (open, extend) in [(0, 0), (65_000, 536), (0, 65_536), (1000, 0)] {
        check_simt(&query, &db, &hay::blosum62(open, extend), 32);
    }
}

/// Scores at the edge of 16 bits: exactly `SCORE_LIMIT` (kept by the 16-bit
/// kernel), one above it and far above it (rescued in 32 bits), next to
/// ordinary scores in the same thread's other half; chunks of odd and even
/// sizes, so that a last thread with one sequence is covered too.
#[test]
fn sw_simt_i16x2_rescues_scores_beyond_16_bits() {
    use gpu_kernels::simt_i16x2::SCORE_LIMIT;
    const W: u8 = 17; // BLOSUM62: W-W 11, A-A 4
    const A: u8 = 0;
    let scoring = hay::blosum62(11, 1);
    let at_limit = [vec![W; 2964], vec![A; 9]].concat();
    let above = [vec![W; 2967], vec![A; 1]].concat();
    let self_score = |s: &[u8]| local_score(s, s, &scoring.matrix, scoring.gaps);
    assert_eq!(self_score(&at_limit), SCORE_LIMIT);
    assert_eq!(self_score(&above), SCORE_LIMIT + 1);
    let mut rng = hay::rng(13);
    let db = hay::database(vec![
        above.clone(),
        hay::random_codes(&mut rng, 2970, false),
        at_limit.clone(),
        vec![W; 7000],
        hay::mutate(&mut rng, &above, 0.95),
        vec![],
        above.clone(),
    ]);
    for query in [&above, &at_limit, &vec![W; 7000]] {
        for threads in [1, 2, 3, 4, 7] {
            check_simt(query, &db, &scoring, threads);
        }
    }
}

/// BLOSUM62 times twelve (clamped to the profile's `i8`): a close homolog
/// passes 16 bits after some 600 residues, so pairs that overflow stay
/// small enough to emulate by the dozen.
fn blosum62_times_12(open: i32, extend: i32) -> Scoring {
    use host::matrix::ScoreMatrix;
    let blosum = ScoreMatrix::by_name("blosum62").unwrap();
    let scores = blosum
        .scores()
        .map(|row| row.map(|s| (i32::from(s) * 12).clamp(-127, 127) as i8));
    Scoring {
        matrix: ScoreMatrix::from_scores("BLOSUM62x12", scores),
        gaps: GapPenalty::new(open, extend).unwrap(),
    }
}

/// Scores of `query` against every sequence of `db` by the rescue alone,
/// in chunks of `threads`, the 16-bit kernel's scores given as `given`.
fn rescue_scores(
    query: &[u8],
    db: &Database,
    scoring: &Scoring,
    threads: usize,
    given: &[i32],
) -> Vec<i32> {
    let lengths: Vec<usize> = (0..db.len()).map(|i| db.length(i)).collect();
    let limits = ChunkLimits {
        max_sequences: threads,
        max_bytes: usize::MAX,
    };
    let profile = sequential_profile(query, &scoring.matrix);
    plan_chunks(&lengths, limits)
        .par_iter()
        .flat_map_iter(|range| {
            host::kernel::rescue::run_chunk(
                &PackedChunk::pack(db, range.clone()),
                &profile,
                scoring.gaps.kernel_gaps(),
                &given[range.clone()],
            )
        })
        .collect()
}

/// The 32-bit rescue told that every score ran out of range: each pair
/// equals the reference. Queries on both sides of its passes' boundaries
/// (512 rows) and of a lane's 16 rows, sequences shorter and longer than
/// its wavefront (32 lanes) and empty ones, homologs with indels so that
/// gaps cross lanes and passes; every gap setting, chunks of 1 to 64.
#[test]
fn rescue_realigns_every_pair_it_is_given() {
    use gpu_kernels::simt_i16x2::SCORE_LIMIT;
    let mut rng = hay::rng(41);
    for query_len in [1, 15, 16, 17, 511, 512, 513, 1100] {
        let query = hay::random_codes(&mut rng, query_len, true);
        let mut seqs = vec![vec![], query.clone()];
        for len in [1, 2, 30, 31, 32, 33, 64, 700] {
            seqs.push(hay::random_codes(&mut rng, len, true));
        }
        for identity in [0.97, 0.8, 0.5] {
            seqs.push(hay::mutate(&mut rng, &query, identity));
        }
        let db = hay::database(seqs);
        for (open, extend) in hay::GAP_SETTINGS {
            let scoring = hay::blosum62(open, extend);
            let want: Vec<i32> = (0..db.len())
                .map(|i| local_score(&query, db.sequence(i), &scoring.matrix, scoring.gaps))
                .collect();
            // Just above the limit, and the preset of a chunk the rescue
            // scores whole (`rescue::scores_whole_chunk`).
            for given in [SCORE_LIMIT + 1, host::kernel::rescue::PRESET_SCORE] {
                let out_of_range = vec![given; db.len()];
                for threads in [1, 5, 64] {
                    let got = rescue_scores(&query, &db, &scoring, threads, &out_of_range);
                    assert_eq!(
                        got, want,
                        "query length {query_len}, gaps {open}/{extend}, {threads} a chunk, given {given}"
                    );
                }
            }
        }
    }
}

/// Scores at or below the limit are the 16-bit kernel's and stay as they
/// were given; the others, beside them in the same chunk, are realigned.
#[test]
fn rescue_leaves_scores_within_16_bits_alone() {
    use gpu_kernels::simt_i16x2::SCORE_LIMIT;
    let mut rng = hay::rng(42);
    let query = hay::random_codes(&mut rng, 600, false);
    let db = hay::database(
        (0..40)
            .map(|_| hay::mutate(&mut rng, &query, 0.7))
            .collect(),
    );
    let scoring = hay::blosum62(11, 1);
    let given: Vec<i32> = (0..db.len())
        .map(|i| match i % 4 {
            0 => SCORE_LIMIT,
            1 => i as i32,
            _ => SCORE_LIMIT + 1 + i as i32,
        })
        .collect();
    let got = rescue_scores(&query, &db, &scoring, 16, &given);
    for i in 0..db.len() {
        let want = if given[i] > SCORE_LIMIT {
            local_score(&query, db.sequence(i), &scoring.matrix, scoring.gaps)
        } else {
            given[i]
        };
        assert_eq!(got[i], want, "sequence {i}");
    }
}

/// Many pairs of one chunk beyond 16 bits at once, long queries against
/// long sequences: two queries of 1,100 and 2,100 residues against 48
/// homologs of 800–2,200 residues (every one above 16 bits) among random
/// sequences, through every 16-bit kernel and its rescue as the engines run
/// them.
#[test]
fn sixteen_bit_kernels_rescue_many_long_pairs_of_one_chunk() {
    use gpu_kernels::simt_i16x2::SCORE_LIMIT;
    use host::kernel::Kernel;
    let mut rng = hay::rng(43);
    let scoring = blosum62_times_12(11, 1);
    for query_len in [1100, 2100] {
        let query = hay::random_codes(&mut rng, query_len, false);
        let mut seqs = Vec::new();
        for k in 0..48 {
            let start = rng.random_range(0..query_len / 8);
            let end = (start + 800 + 30 * k).min(query_len);
            seqs.push(hay::mutate(&mut rng, &query[start..end], 0.9));
            seqs.push(hay::random_codes(&mut rng, 300 + 40 * k, false));
        }
        let db = hay::database(seqs);
        let want: Vec<i32> = (0..db.len())
            .into_par_iter()
            .map(|i| local_score(&query, db.sequence(i), &scoring.matrix, scoring.gaps))
            .collect();
        let over = want.iter().filter(|&&s| s > SCORE_LIMIT).count();
        assert!(over >= 40, "{over} pairs beyond 16 bits");
        let lengths: Vec<usize> = (0..db.len()).map(|i| db.length(i)).collect();
        let chunk = PackedChunk::pack(&db, 0..lengths.len());
        for kernel in [
            Kernel::SimtI16x2,
            Kernel::GroupI16x2,
            Kernel::QueryGroupI16x2,
        ] {
            let got = kernel
                .run_emulated(
                    &chunk,
                    &kernel.profile(&query, &scoring.matrix),
                    scoring.gaps.kernel_gaps(),
                )
                .unwrap();
            assert_eq!(got, want, "{kernel}, query length {query_len}");
        }
    }
}
