//! The CPU engine's kernel: SWIPE's inter-sequence SIMD in 8-bit lanes,
//! then 16, then 32 for the few pairs that need them; thirty-two database
//! sequences a vector, the substitution scores of a column looked up once
//! per distinct query residue.
//!
//! Rognes, T. (2011). *Faster Smith-Waterman database searches with
//! inter-sequence SIMD parallelisation.* BMC Bioinformatics 12:221. SWIPE
//! aligns one query against many database sequences at once, one per lane,
//! builds for each database column a score profile (for every query
//! residue, the vector of its scores against the lanes' residues, one byte
//! shuffle each), and scores in 8-bit lanes, rescoring in 16 bits the
//! sequences whose score may have saturated. The query's rows then only
//! read that small table, where [`super::inter_sequence`] (32-bit lanes)
//! gathers each lane's scores from the sequential profile.
//!
//! # Lane mapping
//! Lane `l` aligns the query with sequence `first + l` of the chunk. A
//! column of the vector is one residue of each lane (the packed chunk's
//! words, `w * threads + t`, four residues each, as the GPU reads them);
//! lanes past a sequence's end, or past the chunk's last sequence, read the
//! pad code. The query's rows run down two columns at a time, so that a
//! row's H and E are read and written once for both.
//!
//! # The score profile
//! The sequential profile (`crate::profile::sequential_profile`) gives, for
//! each query row, its scores against every residue code: a table of
//! [`NUM_CODES`] bytes. Rows of the same query residue have the same table,
//! so a query has at most `NUM_CODES` distinct ones. For each column each
//! distinct table is looked up with the lanes' codes (a byte shuffle of 32
//! lanes, `pshufb` on x86); a row reads its table's vector. The profile's
//! pad rows (past the query's end) are left out.
//!
//! # Scores and padding
//! 16 bits: signed, saturating; the pad code scores [`PAD_SCORE`], so a pad
//! cell's H is `max(0, diag - 128, E, F)` and never exceeds the best real
//! cell (`gpu_kernels::simt`'s `# Padding`). While a lane's H stays below
//! `i16::MAX` every value is exact (an E or F that saturates at `i16::MIN`
//! is below 0 and never reaches a local H); a lane at `i16::MAX` may have
//! saturated and is realigned in 32 bits.
//!
//! 8 bits: unsigned, saturating, SWIPE's biased scores. Every score of the
//! tables is raised by `bias`, minus the smallest (the pad code scores the
//! smallest real score, or -1: any negative score keeps a pad cell below
//! the best real one, by the argument above), so that `H = (diag + s +
//! bias) - bias` with both steps saturating floors H at 0 by itself, and E
//! and F floored at 0 change no H. The sum saturates only where `diag >
//! 255 - bias - max_score`, and its H is then at least `255 - bias`: so a
//! lane whose best is at most `255 - bias - max_score` ([`NarrowLimit`]) is
//! exact, and a vector with a lane above it runs again in 16 bits. Gap
//! costs beyond a width's range skip it ([`fits`]).

use std::simd::Simd;
use std::simd::cmp::{SimdOrd, SimdPartialEq, SimdPartialOrd};
use std::simd::num::{SimdInt, SimdUint};

use gpu_kernels::layout::{NUM_CODES, PAD_CODE, PAD_SCORE};
use gpu_kernels::recurrence::Gaps;

use crate::db::PackedChunk;

/// Sequences per vector: 32 lanes of u8 (one AVX2 register) or i16 (one
/// AVX-512 register, two AVX2 ones).
pub const LANES: usize = 32;

/// 8-bit lanes.
type Narrow = Simd<u8, LANES>;
/// 16-bit lanes.
type Wide = Simd<i16, LANES>;
type Codes = Simd<u8, LANES>;
type Words = Simd<u32, LANES>;

/// Whether gap costs `gaps` fit 16 bits (else [`score_chunk`] runs the
/// 32-bit kernel).
pub fn fits(gaps: Gaps) -> bool {
    (0..=i32::from(i16::MAX)).contains(&gaps.first)
        && (0..=i32::from(i16::MAX)).contains(&gaps.extend)
}

/// Bytes of working memory one vector (one CPU thread at a time) holds for
/// a query of `query_len` residues: H and E of each row, in both widths.
pub fn working_bytes(query_len: usize) -> usize {
    2 * query_len * (std::mem::size_of::<Narrow>() + std::mem::size_of::<Wide>())
}

/// A query's score profile: its distinct score tables and which one each
/// row reads.
struct QueryTables {
    /// Per distinct table, its scores by residue code (past
    /// [`NUM_CODES`]: 0, never read), and its codes 0-15 and 16-31 each
    /// twice (what a byte shuffle within 16-byte halves looks up,
    /// [`Lookup`]): the scores as they are, for 16 bits.
    wide: Vec<Table>,
    /// The same, biased for 8 bits (module docs); `None` where the scores
    /// leave 8 bits no room.
    narrow: Option<(Vec<Table>, NarrowLimit)>,
    /// Per query row, its table.
    row_table: Vec<u8>,
}

/// One table: by code, and in halves for a byte shuffle.
struct Table {
    full: Codes,
    halves: (Codes, Codes),
}

impl Table {
    fn new(scores: [u8; LANES]) -> Table {
        Table {
            full: Codes::from_array(scores),
            halves: (
                Codes::from_array(std::array::from_fn(|i| scores[i % 16])),
                Codes::from_array(std::array::from_fn(|i| scores[16 + i % 16])),
            ),
        }
    }
}

/// The 8-bit scores' bias and the best score up to which an 8-bit lane is
/// exact (module docs).
#[derive(Clone, Copy)]
struct NarrowLimit {
    bias: u8,
    exact_up_to: u8,
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
        // At most one table per residue code: a search of the few is
        // cheaper than hashing every row (this runs once per chunk).
        let mut distinct: Vec<[i8; NUM_CODES]> = Vec::new();
        let row_table = rows
            .iter()
            .map(|row| match distinct.iter().position(|t| t == row) {
                Some(k) => k as u8,
                None => {
                    distinct.push(*row);
                    (distinct.len() - 1) as u8
                }
            })
            .collect();
        let real = |t: &[i8; NUM_CODES]| {
            t.iter()
                .enumerate()
                .filter(|&(code, _)| code != usize::from(PAD_CODE))
                .map(|(_, &s)| i32::from(s))
                .collect::<Vec<_>>()
        };
        let min = distinct.iter().flat_map(real).min().unwrap_or(0).min(-1);
        let max = distinct.iter().flat_map(real).max().unwrap_or(0).max(0);
        let bias = -min;
        let exact_up_to = 255 - bias - max;
        let narrow = (exact_up_to > 0).then(|| {
            let limit = NarrowLimit {
                bias: bias as u8,
                exact_up_to: exact_up_to as u8,
            };
            let tables = distinct
                .iter()
                .map(|t| {
                    let mut bytes = [0u8; LANES];
                    for (code, (b, &s)) in bytes.iter_mut().zip(t).enumerate() {
                        let s = if code == usize::from(PAD_CODE) {
                            min
                        } else {
                            i32::from(s)
                        };
                        *b = (s + bias) as u8;
                    }
                    Table::new(bytes)
                })
                .collect();
            (tables, limit)
        });
        let wide = distinct
            .iter()
            .map(|t| {
                let mut bytes = [0u8; LANES];
                for (b, &s) in bytes.iter_mut().zip(t) {
                    *b = s as u8;
                }
                Table::new(bytes)
            })
            .collect();
        QueryTables {
            wide,
            narrow,
            row_table,
        }
    }
}

/// How a column's scores are looked up in a table: each lane's code (all
/// below 32) indexes it.
trait Lookup {
    /// `table` at each lane's code of `codes`; `high` has its top bit set
    /// in the lanes whose code is above 15.
    fn bytes(table: &Table, codes: Codes, high: Codes) -> Codes;
}

/// Portable: `swizzle_dyn`.
struct Portable;

impl Lookup for Portable {
    #[inline(always)]
    fn bytes(table: &Table, codes: Codes, _high: Codes) -> Codes {
        table.full.swizzle_dyn(codes)
    }
}

/// AVX2: `vpshufb` looks up 16 entries within each 16-byte half, so codes
/// 0-15 and 16-31 are looked up apart and blended by `high`; SWIPE's
/// lookup (Rognes 2011), 32 lanes at a time.
#[cfg(target_arch = "x86_64")]
struct Avx2;

#[cfg(target_arch = "x86_64")]
impl Lookup for Avx2 {
    #[inline(always)]
    fn bytes(table: &Table, codes: Codes, high: Codes) -> Codes {
        use std::arch::x86_64::{__m256i, _mm256_blendv_epi8, _mm256_shuffle_epi8};
        let (low_half, high_half) = table.halves;
        // SAFETY: only instantiated in functions compiled for AVX2 (or
        // AVX-512BW, which implies it), called where the CPU has it.
        let bytes: __m256i = unsafe {
            _mm256_blendv_epi8(
                _mm256_shuffle_epi8(low_half.into(), codes.into()),
                _mm256_shuffle_epi8(high_half.into(), codes.into()),
                high.into(),
            )
        };
        Codes::from(bytes)
    }
}

/// Gap costs and the bias in a width's lanes.
#[derive(Clone, Copy)]
struct Costs<S> {
    /// A gap's first residue.
    first: S,
    /// Each further one.
    extend: S,
    /// What the substitution scores were raised by (8 bits only).
    bias: S,
}

/// A lane width: its saturating recurrence.
trait Width: Copy {
    /// The lanes' scores of table `k` of `tables` at `codes`.
    fn scores<L: Lookup>(tables: &QueryTables, k: usize, codes: Codes, high: Codes) -> Self;
    /// H of an empty alignment.
    fn zero() -> Self;
    /// E or F before any gap.
    fn floor() -> Self;
    /// `gaps` (which fit, [`fits`]) and the bias in the width's lanes.
    fn costs(gaps: Gaps, tables: &QueryTables) -> Costs<Self>;
    /// `a - b`, lane by lane, saturating.
    fn minus(self, other: Self) -> Self;
    /// The larger, lane by lane.
    fn max(self, other: Self) -> Self;
    /// H before E and F: `diag + sub` (saturating) floored at 0, which
    /// takes a maximum in 16 bits and removing the bias in 8.
    fn diagonal(diag: Self, sub: Self, costs: Costs<Self>) -> Self;

    /// One cell: from the H and E of the cell to the left, the H of the
    /// cell above with the F that runs down the column (updated), the H
    /// up and to the left and the substitution score; its E and H.
    #[inline(always)]
    fn cell(
        (left_h, left_e): (Self, Self),
        (up, f): (Self, &mut Self),
        diag: Self,
        sub: Self,
        c: Costs<Self>,
    ) -> (Self, Self) {
        let e = left_e.minus(c.extend).max(left_h.minus(c.first));
        *f = f.minus(c.extend).max(up.minus(c.first));
        let h = Self::diagonal(diag, sub, c).max(e).max(*f);
        (e, h)
    }
}

impl Width for Wide {
    #[inline(always)]
    fn scores<L: Lookup>(tables: &QueryTables, k: usize, codes: Codes, high: Codes) -> Wide {
        L::bytes(&tables.wide[k], codes, high).cast::<i8>().cast()
    }
    #[inline(always)]
    fn zero() -> Wide {
        Wide::splat(0)
    }
    #[inline(always)]
    fn floor() -> Wide {
        Wide::splat(i16::MIN)
    }
    #[inline(always)]
    fn costs(gaps: Gaps, _tables: &QueryTables) -> Costs<Wide> {
        Costs {
            first: Wide::splat(gaps.first as i16),
            extend: Wide::splat(gaps.extend as i16),
            bias: Wide::splat(0),
        }
    }
    #[inline(always)]
    fn minus(self, other: Wide) -> Wide {
        self.saturating_sub(other)
    }
    #[inline(always)]
    fn max(self, other: Wide) -> Wide {
        self.simd_max(other)
    }
    #[inline(always)]
    fn diagonal(diag: Wide, sub: Wide, _costs: Costs<Wide>) -> Wide {
        diag.saturating_add(sub).simd_max(Wide::splat(0))
    }
}

impl Width for Narrow {
    #[inline(always)]
    fn scores<L: Lookup>(tables: &QueryTables, k: usize, codes: Codes, high: Codes) -> Narrow {
        match &tables.narrow {
            Some((narrow, _)) => L::bytes(&narrow[k], codes, high),
            None => Narrow::splat(0),
        }
    }
    #[inline(always)]
    fn zero() -> Narrow {
        Narrow::splat(0)
    }
    #[inline(always)]
    fn floor() -> Narrow {
        Narrow::splat(0)
    }
    #[inline(always)]
    fn costs(gaps: Gaps, tables: &QueryTables) -> Costs<Narrow> {
        let bias = tables.narrow.as_ref().map_or(0, |(_, l)| l.bias);
        Costs {
            first: Narrow::splat(gaps.first.min(255) as u8),
            extend: Narrow::splat(gaps.extend.min(255) as u8),
            bias: Narrow::splat(bias),
        }
    }
    #[inline(always)]
    fn minus(self, other: Narrow) -> Narrow {
        self.saturating_sub(other)
    }
    #[inline(always)]
    fn max(self, other: Narrow) -> Narrow {
        self.simd_max(other)
    }
    #[inline(always)]
    fn diagonal(diag: Narrow, sub: Narrow, c: Costs<Narrow>) -> Narrow {
        diag.saturating_add(sub).saturating_sub(c.bias)
    }
}

/// Whether gap costs `gaps` fit 8 bits.
fn fits_narrow(gaps: Gaps) -> bool {
    (0..=255).contains(&gaps.first) && (0..=255).contains(&gaps.extend)
}

/// Scores of every sequence of `chunk` against the query whose sequential
/// profile is `profile`: 8-bit lanes where the scores and gaps allow, 16
/// for vectors with a lane beyond 8, [`super::inter_sequence`]'s 32-bit
/// ones for lanes beyond 16 and gaps beyond 16 bits.
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

/// [`score_chunk`] compiled for AVX-512BW (one register per 16-bit vector).
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

/// A width's working memory: H and E of each query row, and the column's
/// scores (two columns) per table.
struct Work<S> {
    h: Vec<S>,
    e: Vec<S>,
    column_scores: Vec<[S; 2]>,
}

impl<S: Width> Work<S> {
    fn new(tables: &QueryTables) -> Work<S> {
        let rows = tables.row_table.len();
        Work {
            h: vec![S::zero(); rows],
            e: vec![S::floor(); rows],
            column_scores: vec![[S::zero(); 2]; tables.wide.len()],
        }
    }
}

#[inline(always)]
fn score_chunk_with<L: Lookup>(chunk: &PackedChunk, profile: &[u32], gaps: Gaps) -> Vec<i32> {
    let threads = chunk.sequences();
    let query_words = profile.len() / NUM_CODES;
    let tables = QueryTables::new(profile, query_words);
    let narrow = tables
        .narrow
        .as_ref()
        .map(|&(_, limit)| limit)
        .filter(|_| fits_narrow(gaps));
    let mut narrow_work = Work::<Narrow>::new(&tables);
    let mut wide_work = Work::<Wide>::new(&tables);
    let mut scores = Vec::with_capacity(threads + LANES);
    for first in (0..threads).step_by(LANES) {
        let lanes = LANES.min(threads - first);
        if let Some(limit) = narrow {
            let best = score_lanes::<L, Narrow>(chunk, first, &tables, gaps, &mut narrow_work);
            if best.simd_le(Narrow::splat(limit.exact_up_to)).all() {
                scores.extend(best.to_array()[..lanes].iter().map(|&s| i32::from(s)));
                continue;
            }
        }
        let best = score_lanes::<L, Wide>(chunk, first, &tables, gaps, &mut wide_work);
        let saturated = best.simd_eq(Wide::splat(i16::MAX));
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

/// The best local score of sequences `first .. first + LANES` of `chunk`
/// in width `S` (saturated), with `work` as working memory.
#[inline(always)]
fn score_lanes<L: Lookup, S: Width>(
    chunk: &PackedChunk,
    first: usize,
    tables: &QueryTables,
    gaps: Gaps,
    work: &mut Work<S>,
) -> S {
    let threads = chunk.sequences();
    let lanes = LANES.min(threads - first);
    let words = chunk.vector_words(first, lanes);
    let pad_word = Words::splat(u32::from_le_bytes([PAD_CODE; 4]));
    let costs = S::costs(gaps, tables);
    let Work {
        h,
        e,
        column_scores,
    } = work;
    h.fill(S::zero());
    e.fill(S::floor());
    let mut best = S::zero();
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
                    S::scores::<L>(tables, k, codes_a, high_a),
                    S::scores::<L>(tables, k, codes_b, high_b),
                ];
            }
            // Down the columns: for each, the row above's H (0 above the
            // first row) and F, and H of the row above one column to the
            // left.
            let (mut up_a, mut up_b) = (S::zero(), S::zero());
            let (mut f_a, mut f_b) = (S::floor(), S::floor());
            let (mut diag_a, mut diag_b) = (S::zero(), S::zero());
            for ((h, e), &t) in h.iter_mut().zip(e.iter_mut()).zip(&tables.row_table) {
                let [sub_a, sub_b] = column_scores[t as usize];
                let (e_a, cell_a) = S::cell((*h, *e), (up_a, &mut f_a), diag_a, sub_a, costs);
                // Column b: its left neighbour is column a's cell.
                let (e_b, cell_b) = S::cell((cell_a, e_a), (up_b, &mut f_b), diag_b, sub_b, costs);
                diag_a = *h;
                diag_b = cell_a;
                up_a = cell_a;
                up_b = cell_b;
                *h = cell_b;
                *e = e_b;
                best = best.max(cell_a.max(cell_b));
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

    /// Lanes at the 8-bit boundary: a query against copies of its
    /// prefixes scoring from well below to well above what 8-bit lanes
    /// hold exactly (240 with BLOSUM62), each vector with one of them
    /// among ordinary sequences. Fails if a vector with a lane beyond the
    /// limit keeps its 8-bit scores.
    #[test]
    fn lanes_beyond_8_bits_are_realigned_in_16() {
        let matrix = ScoreMatrix::by_name("blosum62").unwrap();
        // Tryptophan scores 11 against itself: n of them score 11 n.
        let w = 17;
        let query = vec![w; 40];
        let mut seqs = Vec::new();
        for n in 18..=30 {
            seqs.push(vec![w; n]);
            for k in 0..31 {
                seqs.push(codes(1_000 * n as u64 + k, 30 + k as usize, 24));
            }
        }
        let db = database(seqs);
        check(&db, &query, &matrix, 10, 1);
        let gaps = GapPenalty::new(10, 1).unwrap();
        let scores: Vec<i32> = (0..db.len())
            .map(|i| local_score(&query, db.sequence(i), &matrix, gaps))
            .collect();
        assert!(scores.contains(&231) && scores.contains(&330), "{scores:?}");
    }

    /// Gap costs beyond 8 bits run in 16, beyond 16 in 32.
    #[test]
    fn gaps_beyond_8_bits_run_in_16() {
        let matrix = ScoreMatrix::by_name("blosum62").unwrap();
        let db = database((0..40).map(|k| codes(k, 50 + k as usize, 24)).collect());
        let query = codes(7, 60, 24);
        let gaps = GapPenalty::new(300, 2).unwrap().kernel_gaps();
        assert!(fits(gaps) && !fits_narrow(gaps));
        check(&db, &query, &matrix, 300, 2);
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
        assert!(tables.wide.len() <= 24);
        assert_eq!(working_bytes(1_000), 2 * 1_000 * (32 + 64));
        // BLOSUM62: -4 to 11, so 8-bit lanes are exact up to 255 - 4 - 11.
        let (narrow, limit) = tables.narrow.as_ref().unwrap();
        assert_eq!((limit.bias, limit.exact_up_to), (4, 240));
        assert_eq!(narrow.len(), tables.wide.len());
    }
}
