//! The CPU engine's 16-bit kernel: SWIPE's inter-sequence SIMD, thirty-two
//! database sequences in the 16-bit lanes of a vector, the substitution
//! scores of a column looked up once per distinct query residue.
//!
//! Rognes, T. (2011). *Faster Smith-Waterman database searches with
//! inter-sequence SIMD parallelisation.* BMC Bioinformatics 12:221. SWIPE
//! aligns one query against many database sequences at once, one per lane,
//! and builds for each database column a score profile: for every query
//! residue, the vector of its scores against the lanes' residues, one byte
//! shuffle each. The query's rows then only read that small table, where
//! [`super::inter_sequence`] (32-bit lanes) gathers each lane's scores from
//! the sequential profile, a gather per four rows.
//!
//! # Lane mapping
//! Lane `l` aligns the query with sequence `first + l` of the chunk. A
//! column of the vector is one residue of each lane (the packed chunk's
//! words, `w * threads + t`, four residues each, as the GPU reads them);
//! lanes past a sequence's end, or past the chunk's last sequence, read the
//! pad code, which scores [`PAD_SCORE`] against every query residue and
//! cannot raise a local score (`gpu_kernels::simt`'s `# Padding`).
//!
//! # The score profile
//! The sequential profile (`crate::profile::sequential_profile`) gives, for
//! each query row, its scores against every residue code: a table of
//! [`NUM_CODES`] bytes. Rows of the same query residue have the same table,
//! so a query has at most `NUM_CODES` distinct ones. For each column each
//! distinct table is looked up with the lanes' codes (a byte shuffle of 32
//! lanes, `pshufb` on x86) and widened to 16 bits; a row reads its table's
//! vector. The profile's pad rows (past the query's end, [`PAD_SCORE`]
//! against every code) are left out.
//!
//! # Scores
//! Saturating 16-bit arithmetic. While a lane's H stays below `i16::MAX`
//! every value is exact (E and F that saturate at `i16::MIN` are below 0 and
//! never reach a local H), so a lane whose best is below `i16::MAX` holds its
//! exact score; a lane at `i16::MAX` may have saturated and is realigned in
//! 32 bits by [`super::inter_sequence`]. Gap costs beyond 16 bits run there
//! throughout ([`fits`]).

use std::collections::HashMap;
use std::simd::Simd;
use std::simd::cmp::{SimdOrd, SimdPartialEq};
use std::simd::num::{SimdInt, SimdUint};

use gpu_kernels::layout::{NUM_CODES, PAD_CODE, PAD_SCORE};
use gpu_kernels::recurrence::Gaps;

use crate::db::PackedChunk;

/// Sequences per vector: 32 × i16, one AVX-512 register or two AVX2 ones.
pub const LANES: usize = 32;

type Scores = Simd<i16, LANES>;
type Codes = Simd<u8, LANES>;
type Words = Simd<u32, LANES>;

/// Whether gap costs `gaps` fit the kernel's 16 bits (else
/// [`score_chunk`] runs the 32-bit kernel).
pub fn fits(gaps: Gaps) -> bool {
    (0..=i32::from(i16::MAX)).contains(&gaps.first)
        && (0..=i32::from(i16::MAX)).contains(&gaps.extend)
}

/// Bytes of working memory one vector (one CPU thread at a time) holds for
/// a query of `query_len` residues: H and E of each row.
pub fn working_bytes(query_len: usize) -> usize {
    2 * query_len * std::mem::size_of::<Scores>()
}

/// A query's score profile: its distinct score tables and which one each
/// row reads.
struct QueryTables {
    /// Per distinct table, its scores by residue code (past
    /// [`NUM_CODES`]: 0, never read).
    tables: Vec<Codes>,
    /// Per distinct table, its codes 0-15 and 16-31, each twice: what a
    /// byte shuffle within 16-byte halves looks up ([`Lookup`]).
    halves: Vec<(Codes, Codes)>,
    /// Per query row, its table.
    row_table: Vec<u8>,
}

impl QueryTables {
    /// The tables of the sequential profile `profile` (`NUM_CODES` rows of
    /// `query_words` words), its trailing pad rows left out.
    fn new(profile: &[u32], query_words: usize) -> QueryTables {
        let score = |code: usize, row: usize| {
            profile[code * query_words + row / 4].to_le_bytes()[row % 4] as i8
        };
        let pad = [PAD_SCORE; NUM_CODES];
        let mut rows: Vec<[i8; NUM_CODES]> = (0..query_words * 4)
            .map(|row| std::array::from_fn(|code| score(code, row)))
            .collect();
        while rows.last() == Some(&pad) {
            rows.pop();
        }
        let mut index: HashMap<[i8; NUM_CODES], u8> = HashMap::new();
        let mut tables = Vec::new();
        let row_table = rows
            .iter()
            .map(|row| {
                *index.entry(*row).or_insert_with(|| {
                    let mut bytes = [0u8; LANES];
                    for (b, &s) in bytes.iter_mut().zip(row) {
                        *b = s as u8;
                    }
                    tables.push(Codes::from_array(bytes));
                    (tables.len() - 1) as u8
                })
            })
            .collect();
        let halves = tables
            .iter()
            .map(|t| {
                let t = t.to_array();
                (
                    Codes::from_array(std::array::from_fn(|i| t[i % 16])),
                    Codes::from_array(std::array::from_fn(|i| t[16 + i % 16])),
                )
            })
            .collect();
        QueryTables {
            tables,
            halves,
            row_table,
        }
    }
}

/// How a column's scores are looked up in a query's tables: each lane's
/// code indexes table `k`.
trait Lookup {
    /// Table `k` of `tables` at each lane's code of `codes` (all below 32),
    /// widened to 16 bits.
    fn scores(tables: &QueryTables, k: usize, codes: Codes, high: Codes) -> Scores;
}

/// Portable: `swizzle_dyn` (a byte shuffle where the target has a 32-byte
/// one).
struct Portable;

impl Lookup for Portable {
    #[inline(always)]
    fn scores(tables: &QueryTables, k: usize, codes: Codes, _high: Codes) -> Scores {
        tables.tables[k].swizzle_dyn(codes).cast::<i8>().cast()
    }
}

/// AVX2: `vpshufb` looks up 16 entries within each 16-byte half, so codes
/// 0-15 and 16-31 are looked up apart and blended by `high` (its top bit
/// set in the lanes whose code is above 15); SWIPE's lookup (Rognes 2011),
/// 32 lanes at a time.
#[cfg(target_arch = "x86_64")]
struct Avx2;

#[cfg(target_arch = "x86_64")]
impl Lookup for Avx2 {
    #[inline(always)]
    fn scores(tables: &QueryTables, k: usize, codes: Codes, high: Codes) -> Scores {
        use std::arch::x86_64::{__m256i, _mm256_blendv_epi8, _mm256_shuffle_epi8};
        let (low_half, high_half) = tables.halves[k];
        // SAFETY: only instantiated in functions compiled for AVX2 (or
        // AVX-512BW, which implies it), called where the CPU has it.
        let bytes: __m256i = unsafe {
            _mm256_blendv_epi8(
                _mm256_shuffle_epi8(low_half.into(), codes.into()),
                _mm256_shuffle_epi8(high_half.into(), codes.into()),
                high.into(),
            )
        };
        Codes::from(bytes).cast::<i8>().cast()
    }
}

/// Scores of every sequence of `chunk` against the query whose sequential
/// profile is `profile`: 16-bit lanes where the gaps fit and no lane
/// saturates, [`super::inter_sequence`]'s 32-bit ones for the rest.
pub fn score_chunk(chunk: &PackedChunk, profile: &[u32], gaps: Gaps) -> Vec<i32> {
    if !fits(gaps) {
        return super::inter_sequence::score_chunk(chunk, profile, gaps);
    }
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx512bw") {
        // SAFETY: the CPU has AVX-512BW, checked just above.
        return unsafe { score_chunk_avx512(chunk, profile, gaps) };
    }
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2, checked just above.
        return unsafe { score_chunk_avx2(chunk, profile, gaps) };
    }
    score_chunk_portable(chunk, profile, gaps)
}

/// [`score_chunk`] compiled for AVX2.
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn score_chunk_avx2(chunk: &PackedChunk, profile: &[u32], gaps: Gaps) -> Vec<i32> {
    score_chunk_with::<Avx2>(chunk, profile, gaps)
}

/// [`score_chunk`] compiled for AVX-512BW (one register per vector).
///
/// # Safety
/// The CPU must support AVX-512BW.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512bw")]
unsafe fn score_chunk_avx512(chunk: &PackedChunk, profile: &[u32], gaps: Gaps) -> Vec<i32> {
    score_chunk_with::<Avx2>(chunk, profile, gaps)
}

/// [`score_chunk`] with the portable lookup, compiled for the baseline.
fn score_chunk_portable(chunk: &PackedChunk, profile: &[u32], gaps: Gaps) -> Vec<i32> {
    score_chunk_with::<Portable>(chunk, profile, gaps)
}

#[inline(always)]
fn score_chunk_with<L: Lookup>(chunk: &PackedChunk, profile: &[u32], gaps: Gaps) -> Vec<i32> {
    let threads = chunk.sequences();
    let query_words = profile.len() / NUM_CODES;
    let tables = QueryTables::new(profile, query_words);
    let rows = tables.row_table.len();
    let mut h = vec![Scores::splat(0); rows];
    let mut e = vec![Scores::splat(i16::MIN); rows];
    let mut column_scores = vec![[Scores::splat(0); 2]; tables.tables.len()];
    let mut scores = Vec::with_capacity(threads + LANES);
    for first in (0..threads).step_by(LANES) {
        let best = score_lanes::<L>(
            chunk,
            first,
            &tables,
            gaps,
            (&mut h, &mut e, &mut column_scores),
        );
        let lanes = LANES.min(threads - first);
        let saturated = best.simd_eq(Scores::splat(i16::MAX));
        let mut got: Vec<i32> = best.to_array()[..lanes]
            .iter()
            .map(|&s| i32::from(s))
            .collect();
        if saturated.any() {
            // Rare (a long, high-scoring pair): the 32 lanes again in 32 bits.
            let exact = super::inter_sequence::score_range(chunk, profile, gaps, first, lanes);
            for (lane, score) in got.iter_mut().enumerate() {
                if saturated.test(lane) {
                    *score = exact[lane];
                }
            }
        }
        scores.extend(got);
    }
    scores
}

/// One cell of the recurrence in saturating 16 bits: from the H and E of
/// the cell to the left, the H of the cell above with the F that runs down
/// the column (updated), the H up and to the left and the substitution
/// score; returns its E and H. `costs`: the gap's first residue, each
/// further one.
#[inline(always)]
fn cell(
    (left_h, left_e): (Scores, Scores),
    (up, f): (Scores, &mut Scores),
    diag: Scores,
    sub: Scores,
    (first, extend): (Scores, Scores),
) -> (Scores, Scores) {
    let e = left_e
        .saturating_sub(extend)
        .simd_max(left_h.saturating_sub(first));
    *f = f.saturating_sub(extend).simd_max(up.saturating_sub(first));
    let h = diag
        .saturating_add(sub)
        .simd_max(e)
        .simd_max(*f)
        .simd_max(Scores::splat(0));
    (e, h)
}

/// The best local score of sequences `first .. first + LANES` of `chunk`
/// (saturated at `i16::MAX`), with `h`, `e` (a vector per query row) and
/// `column_scores` (two vectors per table) as working memory.
#[inline(always)]
fn score_lanes<L: Lookup>(
    chunk: &PackedChunk,
    first: usize,
    tables: &QueryTables,
    gaps: Gaps,
    (h, e, column_scores): (&mut [Scores], &mut [Scores], &mut [[Scores; 2]]),
) -> Scores {
    let threads = chunk.sequences();
    let lanes = LANES.min(threads - first);
    let words = chunk.vector_words(first, lanes);
    let pad_word = Words::splat(u32::from_le_bytes([PAD_CODE; 4]));
    let costs = (
        Scores::splat(gaps.first as i16),
        Scores::splat(gaps.extend as i16),
    );
    let zero = Scores::splat(0);
    h.fill(zero);
    e.fill(Scores::splat(i16::MIN));
    let mut best = zero;
    for w in 0..words {
        let row = &chunk.words[w * threads + first..w * threads + first + lanes];
        let residues = Words::load_or(row, pad_word);
        // Two columns a pass down the query: each row's H and E are read
        // and written once for both, and the two chains of F run side by
        // side.
        for pair in [0, 2] {
            let codes = |k: u32| -> Codes {
                ((residues >> Words::splat(8 * k)) & Words::splat(0xff)).cast()
            };
            let (codes_a, codes_b) = (codes(pair), codes(pair + 1));
            // Bit 4 of a code (16-31) in the top bit, which `vpblendvb` reads.
            let (high_a, high_b) = (codes_a << Codes::splat(3), codes_b << Codes::splat(3));
            for (k, scores) in column_scores.iter_mut().enumerate() {
                *scores = [
                    L::scores(tables, k, codes_a, high_a),
                    L::scores(tables, k, codes_b, high_b),
                ];
            }
            // Down the columns: for each, the row above's H (0 above the
            // first row) and F, and H of the row above one column to the
            // left.
            let (mut up_a, mut up_b) = (zero, zero);
            let (mut f_a, mut f_b) = (Scores::splat(i16::MIN), Scores::splat(i16::MIN));
            let (mut diag_a, mut diag_b) = (zero, zero);
            for ((h, e), &t) in h.iter_mut().zip(e.iter_mut()).zip(&tables.row_table) {
                let [sub_a, sub_b] = column_scores[t as usize];
                let (e_a, cell_a) = cell((*h, *e), (up_a, &mut f_a), diag_a, sub_a, costs);
                // Column b: its left neighbour is column a's cell.
                let (e_b, cell_b) = cell((cell_a, e_a), (up_b, &mut f_b), diag_b, sub_b, costs);
                diag_a = *h;
                diag_b = cell_a;
                up_a = cell_a;
                up_b = cell_b;
                *h = cell_b;
                *e = e_b;
                best = best.simd_max(cell_a.simd_max(cell_b));
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::{Database, PackedChunk};
    use crate::fasta::Record;
    use crate::matrix::ScoreMatrix;
    use crate::profile::sequential_profile;
    use crate::reference::local_score;
    use crate::scoring::GapPenalty;

    use crate::align::checkpointed::tests::codes;

    fn database(seqs: Vec<Vec<u8>>) -> Database {
        Database::from_records(
            seqs.into_iter()
                .enumerate()
                .map(|(k, codes)| Record {
                    id: format!("s{k}"),
                    description: String::new(),
                    codes,
                })
                .collect(),
        )
    }

    type Variant = fn(&PackedChunk, &[u32], Gaps) -> Vec<i32>;

    /// Every code generation of the kernel this CPU can run.
    fn variants() -> Vec<(&'static str, Variant)> {
        let mut v: Vec<(&'static str, Variant)> = vec![("portable", score_chunk_portable)];
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx2") {
                // SAFETY: AVX2 is present.
                v.push(("avx2", |c, p, g| unsafe { score_chunk_avx2(c, p, g) }));
            }
            if std::arch::is_x86_feature_detected!("avx512bw") {
                // SAFETY: AVX-512BW is present.
                v.push(("avx512", |c, p, g| unsafe { score_chunk_avx512(c, p, g) }));
            }
        }
        v
    }

    fn check(db: &Database, query: &[u8], matrix: &ScoreMatrix, open: i32, extend: i32) {
        let chunk = PackedChunk::pack(db, 0..db.len());
        let gaps = GapPenalty::new(open, extend).unwrap();
        let profile = sequential_profile(query, matrix);
        let want: Vec<i32> = (0..db.len())
            .map(|i| local_score(query, db.sequence(i), matrix, gaps))
            .collect();
        // The 16-bit code itself only for the gaps it takes.
        let variants = if fits(gaps.kernel_gaps()) {
            variants()
        } else {
            Vec::new()
        };
        for (name, variant) in variants {
            let got = variant(&chunk, &profile, gaps.kernel_gaps());
            assert_eq!(
                got,
                want,
                "{name}, query length {}, gaps {open}/{extend}",
                query.len()
            );
        }
        assert_eq!(score_chunk(&chunk, &profile, gaps.kernel_gaps()), want);
    }

    #[test]
    fn equals_the_reference_on_uneven_lanes_and_a_partial_vector() {
        let lengths = [
            0, 1, 7, 33, 64, 65, 100, 5, 300, 2, 31, 32, 129, 90, 11, 4, 250, 77, 1, 40, 41, 3,
            200, 17, 18, 19, 60, 61, 62, 63, 8, 9, 10, 500, 12,
        ];
        let db = database(
            lengths
                .iter()
                .enumerate()
                .map(|(k, &n)| codes(k as u64, n, 24))
                .collect(),
        );
        for name in ["blosum62", "blosum45", "pam30"] {
            let matrix = ScoreMatrix::by_name(name).unwrap();
            for (query_len, open, extend) in [
                (0, 11, 1),
                (1, 11, 1),
                (45, 10, 1),
                (70, 0, 1),
                (33, 40, 3),
                (130, 5, 2),
            ] {
                let query = codes(99 + query_len as u64, query_len, 24);
                check(&db, &query, &matrix, open, extend);
            }
        }
    }

    /// Lanes at the 16-bit boundary: a query against copies of itself and
    /// of its prefixes whose scores lie just below, at and above
    /// `i16::MAX`, beside ordinary lanes. Fails if a saturated lane is
    /// returned as it is (the rescue removed) or an exact one is rescued
    /// wrongly.
    #[test]
    fn lanes_beyond_16_bits_are_realigned_in_32() {
        let matrix = ScoreMatrix::by_name("blosum62").unwrap();
        // Tryptophan scores 11 against itself: 2,978 of them score 32,758,
        // 2,979 score 32,769.
        let w = 17;
        let query = vec![w; 3_100];
        let mut seqs = Vec::new();
        for n in [2_977, 2_978, 2_979, 2_980, 3_100, 100] {
            seqs.push(vec![w; n]);
        }
        for k in 0..40 {
            seqs.push(codes(k, 200 + k as usize, 24));
        }
        let db = database(seqs);
        check(&db, &query, &matrix, 10, 1);
        let gaps = GapPenalty::new(10, 1).unwrap();
        let scores: Vec<i32> = (0..db.len())
            .map(|i| local_score(&query, db.sequence(i), &matrix, gaps))
            .collect();
        let limit = i32::from(i16::MAX);
        assert!(
            scores.contains(&32_758) && scores.contains(&32_769),
            "{scores:?}"
        );
        assert!(scores.iter().filter(|&&s| s > limit).count() == 3);
    }

    #[test]
    fn gaps_beyond_16_bits_run_in_32() {
        let matrix = ScoreMatrix::by_name("blosum62").unwrap();
        let db = database((0..40).map(|k| codes(k, 50 + k as usize, 24)).collect());
        let query = codes(7, 60, 24);
        assert!(!fits(GapPenalty::new(40_000, 1).unwrap().kernel_gaps()));
        check(&db, &query, &matrix, 40_000, 1);
    }

    #[test]
    fn a_query_has_at_most_one_table_per_residue() {
        let matrix = ScoreMatrix::by_name("blosum62").unwrap();
        let query = codes(3, 1_000, 24);
        let profile = sequential_profile(&query, &matrix);
        let tables = QueryTables::new(&profile, profile.len() / NUM_CODES);
        assert_eq!(tables.row_table.len(), 1_000);
        assert!(tables.tables.len() <= 24);
        assert_eq!(working_bytes(1_000), 2 * 1_000 * 64);
    }
}
