//! The CPU engine's kernel: SWIPE's inter-sequence SIMD in 8-bit lanes,
//! then 16, then 32 for the few pairs that need them; [`lanes`] database
//! sequences a vector (64 on AVX-512BW, else 32), the substitution scores
//! of a column looked up once per distinct query residue.
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
//! The 8-bit pass fills one register: 64 lanes with AVX-512BW (a zmm
//! register of bytes), else 32 (an AVX2 register). The 16-bit pass runs 32
//! lanes (one AVX-512 register of i16, two AVX2 ones), over each 32-lane
//! part of an 8-bit vector that needs it (below): the same code serves
//! both widths, the lane count a const generic, and which one a CPU runs
//! is decided once ([`lanes`], which [`score_chunk`] follows and the CPU
//! engine sizes its chunks by).
//!
//! # The score profile
//! The sequential profile (`crate::profile::sequential_profile`) gives, for
//! each query row, its scores against every residue code: a table of
//! [`NUM_CODES`] bytes. Rows of the same query residue have the same table,
//! so a query has at most `NUM_CODES` distinct ones. For each column each
//! distinct table is looked up with the lanes' codes (a byte shuffle,
//! `pshufb` on x86, [`Lookup`]); a row reads its table's vector. The
//! profile's pad rows (past the query's end) are left out.
//!
//! `vpshufb` looks up 16 entries within each 16-byte lane of a register,
//! ymm or zmm alike, so codes 0-15 and 16-31 are looked up apart, in
//! tables that repeat their 16 entries in every 16-byte lane, and blended
//! by each code's bit 4: two shuffles and a blend (a masked shuffle on
//! AVX-512BW) a table and column, against about ten operations a cell for
//! each of the query's rows, so the one-instruction lookup of AVX-512 VBMI
//! (`vpermb`) would gain too little to be worth a third code path.
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
//! exact, whatever its neighbours score (lanes never mix), and each 32-lane
//! part of a vector with a lane above it runs again in 16 bits. Gap costs
//! beyond a width's range skip it ([`fits`]).

use std::simd::Simd;
use std::simd::cmp::{SimdOrd, SimdPartialEq};
use std::simd::num::{SimdInt, SimdUint};

use gpu_kernels::layout::{NUM_CODES, PAD_CODE, PAD_SCORE};
use gpu_kernels::recurrence::Gaps;

use crate::db::PackedChunk;

/// Entries of a score table: every residue code (and the pad code) is
/// below 32, which two 16-entry byte shuffles look up.
const TABLE_ENTRIES: usize = 32;
const _: () = assert!(NUM_CODES <= TABLE_ENTRIES);

/// Lanes of the 16-bit pass: one AVX-512 register of i16, two AVX2 ones.
const WIDE_LANES: usize = 32;

/// `N` 8-bit lanes.
type Narrow<const N: usize> = Simd<u8, N>;
/// 16-bit lanes.
type Wide = Simd<i16, WIDE_LANES>;
/// The lanes' residue codes (or a table's entries).
type Codes<const N: usize> = Simd<u8, N>;
type Words<const N: usize> = Simd<u32, N>;

/// The code generation a CPU runs, and with it its lanes: chosen at run
/// time from the CPU's features.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Code {
    /// 64 8-bit lanes, one zmm register.
    #[cfg(target_arch = "x86_64")]
    Avx512,
    /// 32 8-bit lanes, one ymm register.
    #[cfg(target_arch = "x86_64")]
    Avx2,
    /// 32 lanes, the baseline's instructions.
    Portable,
}

impl Code {
    /// The best this CPU runs (the features' detection is cached by the
    /// standard library, so this is cheap to ask a chunk at a time).
    fn detect() -> Code {
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx512bw") {
                return Code::Avx512;
            }
            if std::arch::is_x86_feature_detected!("avx2") {
                return Code::Avx2;
            }
        }
        Code::Portable
    }

    /// The instruction set's name, for `--explain`.
    fn name(self) -> &'static str {
        match self {
            #[cfg(target_arch = "x86_64")]
            Code::Avx512 => "AVX-512BW",
            #[cfg(target_arch = "x86_64")]
            Code::Avx2 => "AVX2",
            Code::Portable => "portable SIMD",
        }
    }

    /// Database sequences per 8-bit vector.
    fn lanes(self) -> usize {
        match self {
            #[cfg(target_arch = "x86_64")]
            Code::Avx512 => 64,
            _ => 32,
        }
    }
}

/// The instruction set this CPU's 8-bit pass runs (as [`lanes`] decides
/// it): `AVX-512BW`, `AVX2` or `portable SIMD`.
pub fn simd_name() -> &'static str {
    Code::detect().name()
}

/// Database sequences a vector of this CPU's 8-bit pass holds: 64 with
/// AVX-512BW, else 32. [`score_chunk`] takes any number of sequences; the
/// CPU engine packs chunks of whole vectors.
pub fn lanes() -> usize {
    Code::detect().lanes()
}

/// Whether gap costs `gaps` fit 16 bits (else [`score_chunk`] runs the
/// 32-bit kernel).
pub fn fits(gaps: Gaps) -> bool {
    (0..=i32::from(i16::MAX)).contains(&gaps.first)
        && (0..=i32::from(i16::MAX)).contains(&gaps.extend)
}

/// Bytes of working memory one vector (one CPU thread at a time) holds for
/// a query of `query_len` residues: H and E of each row, in both widths.
pub fn working_bytes(query_len: usize) -> usize {
    2 * query_len * (lanes() + std::mem::size_of::<Wide>())
}

/// A query's score profile for `N` 8-bit lanes: its distinct score tables
/// and which one each row reads.
struct QueryTables<const N: usize> {
    /// Per distinct table, its scores by residue code (past [`NUM_CODES`]:
    /// 0, never read), as they are, for 16 bits.
    wide: Vec<Table<WIDE_LANES>>,
    /// The same, biased for 8 bits (module docs); `None` where the scores
    /// leave 8 bits no room.
    narrow: Option<(Vec<Table<N>>, NarrowLimit)>,
    /// Per query row, its table.
    row_table: Vec<u8>,
}

/// One table in vectors of `N` lanes: by code, and in halves for a byte
/// shuffle.
struct Table<const N: usize> {
    /// Entry `c` in lane `c` (lanes past [`TABLE_ENTRIES`]: 0).
    full: Codes<N>,
    /// Codes 0-15, then 16-31, in every 16-byte lane: what a byte shuffle
    /// within 16-byte lanes looks up ([`Lookup`]).
    halves: (Codes<N>, Codes<N>),
}

impl<const N: usize> Table<N> {
    fn new(scores: [u8; TABLE_ENTRIES]) -> Table<N> {
        Table {
            full: Codes::from_array(std::array::from_fn(|i| scores.get(i).copied().unwrap_or(0))),
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

impl<const N: usize> QueryTables<N> {
    /// The tables of the sequential profile `profile` (`NUM_CODES` rows of
    /// `query_words` words), its trailing pad rows left out.
    fn new(profile: &[u32], query_words: usize) -> QueryTables<N> {
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
                    let mut bytes = [0u8; TABLE_ENTRIES];
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
                let mut bytes = [0u8; TABLE_ENTRIES];
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

/// How a column's scores are looked up in a table of `N` lanes: each
/// lane's code (all below [`TABLE_ENTRIES`]) indexes it.
trait Lookup<const N: usize> {
    /// `table` at each lane's code of `codes`; `high` has its top bit set
    /// in the lanes whose code is above 15.
    fn bytes(table: &Table<N>, codes: Codes<N>, high: Codes<N>) -> Codes<N>;
}

/// Portable: `swizzle_dyn`, any lane count.
struct Portable;

impl<const N: usize> Lookup<N> for Portable {
    #[inline(always)]
    fn bytes(table: &Table<N>, codes: Codes<N>, _high: Codes<N>) -> Codes<N> {
        table.full.swizzle_dyn(codes)
    }
}

/// AVX2: `vpshufb` looks up 16 entries within each 16-byte half, so codes
/// 0-15 and 16-31 are looked up apart and blended by `high`; SWIPE's
/// lookup (Rognes 2011), 32 lanes at a time.
#[cfg(target_arch = "x86_64")]
struct Avx2;

#[cfg(target_arch = "x86_64")]
impl Lookup<32> for Avx2 {
    #[inline(always)]
    fn bytes(table: &Table<32>, codes: Codes<32>, high: Codes<32>) -> Codes<32> {
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

/// 64 lanes in two AVX2 registers (a form the tests and the timing
/// compare; this CPU's choice is [`lanes`]).
#[cfg(all(test, target_arch = "x86_64"))]
impl Lookup<64> for Avx2 {
    #[inline(always)]
    fn bytes(table: &Table<64>, codes: Codes<64>, high: Codes<64>) -> Codes<64> {
        let split = |v: Codes<64>| -> [Codes<32>; 2] {
            // SAFETY: 64 bytes either way, every bit pattern valid.
            unsafe { std::mem::transmute(v) }
        };
        let [low_half_a, low_half_b] = split(table.halves.0);
        let [high_half_a, high_half_b] = split(table.halves.1);
        let [codes_a, codes_b] = split(codes);
        let [high_a, high_b] = split(high);
        let half = |low: Codes<32>, high_half: Codes<32>, codes, high| {
            let table = Table {
                full: Codes::splat(0),
                halves: (low, high_half),
            };
            <Avx2 as Lookup<32>>::bytes(&table, codes, high)
        };
        let parts = [
            half(low_half_a, high_half_a, codes_a, high_a),
            half(low_half_b, high_half_b, codes_b, high_b),
        ];
        // SAFETY: as `split`.
        unsafe { std::mem::transmute::<[Codes<32>; 2], Codes<64>>(parts) }
    }
}

/// AVX-512BW: the same lookup in one zmm register (`vpshufb` zmm shuffles
/// within each of its four 16-byte lanes, which the halves fill alike),
/// the codes above 15 shuffled over the others under a mask; the 16-bit
/// pass's 32 lanes as [`Avx2`].
#[cfg(target_arch = "x86_64")]
struct Avx512;

#[cfg(target_arch = "x86_64")]
impl Lookup<64> for Avx512 {
    #[inline(always)]
    fn bytes(table: &Table<64>, codes: Codes<64>, high: Codes<64>) -> Codes<64> {
        use std::arch::x86_64::{
            __m512i, _mm512_mask_shuffle_epi8, _mm512_movepi8_mask, _mm512_shuffle_epi8,
        };
        let (low_half, high_half) = table.halves;
        // SAFETY: only instantiated in functions compiled for AVX-512BW,
        // called where the CPU has it.
        let bytes: __m512i = unsafe {
            let codes: __m512i = codes.into();
            _mm512_mask_shuffle_epi8(
                _mm512_shuffle_epi8(low_half.into(), codes),
                _mm512_movepi8_mask(high.into()),
                high_half.into(),
                codes,
            )
        };
        Codes::from(bytes)
    }
}

#[cfg(target_arch = "x86_64")]
impl Lookup<32> for Avx512 {
    #[inline(always)]
    fn bytes(table: &Table<32>, codes: Codes<32>, high: Codes<32>) -> Codes<32> {
        <Avx2 as Lookup<32>>::bytes(table, codes, high)
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

/// A lane width, `N` lanes: its saturating recurrence.
trait Width<const N: usize>: Copy {
    /// The lanes' scores from a table's bytes.
    fn from_bytes(bytes: Codes<N>) -> Self;
    /// H of an empty alignment.
    fn zero() -> Self;
    /// E or F before any gap.
    fn floor() -> Self;
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

impl Width<WIDE_LANES> for Wide {
    #[inline(always)]
    fn from_bytes(bytes: Codes<WIDE_LANES>) -> Wide {
        bytes.cast::<i8>().cast()
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

impl<const N: usize> Width<N> for Narrow<N> {
    #[inline(always)]
    fn from_bytes(bytes: Codes<N>) -> Narrow<N> {
        bytes
    }
    #[inline(always)]
    fn zero() -> Narrow<N> {
        Narrow::splat(0)
    }
    #[inline(always)]
    fn floor() -> Narrow<N> {
        Narrow::splat(0)
    }
    #[inline(always)]
    fn minus(self, other: Narrow<N>) -> Narrow<N> {
        self.saturating_sub(other)
    }
    #[inline(always)]
    fn max(self, other: Narrow<N>) -> Narrow<N> {
        self.simd_max(other)
    }
    #[inline(always)]
    fn diagonal(diag: Narrow<N>, sub: Narrow<N>, c: Costs<Narrow<N>>) -> Narrow<N> {
        diag.saturating_add(sub).saturating_sub(c.bias)
    }
}

/// Whether gap costs `gaps` fit 8 bits.
fn fits_narrow(gaps: Gaps) -> bool {
    (0..=255).contains(&gaps.first) && (0..=255).contains(&gaps.extend)
}

/// Scores of every sequence of `chunk` against the query whose sequential
/// profile is `profile`: 8-bit lanes where the scores and gaps allow, 16
/// for the 32-lane parts of vectors with a lane beyond 8, [`super::inter_sequence`]'s 32-bit
/// ones for lanes beyond 16 and gaps beyond 16 bits. [`lanes`] sequences a vector.
pub fn score_chunk(chunk: &PackedChunk, profile: &[u32], gaps: Gaps) -> Vec<i32> {
    if !fits(gaps) {
        return super::inter_sequence::score_chunk(chunk, profile, gaps);
    }
    match Code::detect() {
        // SAFETY: the CPU has AVX-512BW (Code::detect).
        #[cfg(target_arch = "x86_64")]
        Code::Avx512 => unsafe { score_chunk_avx512(chunk, profile, gaps) },
        // SAFETY: the CPU has AVX2 (Code::detect).
        #[cfg(target_arch = "x86_64")]
        Code::Avx2 => unsafe { score_chunk_avx2(chunk, profile, gaps) },
        Code::Portable => score_chunk_portable(chunk, profile, gaps),
    }
}

/// [`score_chunk`] compiled for AVX2: 32 lanes.
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn score_chunk_avx2(chunk: &PackedChunk, profile: &[u32], gaps: Gaps) -> Vec<i32> {
    score_chunk_with::<32, Avx2>(chunk, profile, gaps)
}

/// [`score_chunk`] compiled for AVX-512BW: 64 8-bit lanes, one register
/// per vector of either width.
///
/// # Safety
/// The CPU must support AVX-512BW.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512bw")]
unsafe fn score_chunk_avx512(chunk: &PackedChunk, profile: &[u32], gaps: Gaps) -> Vec<i32> {
    score_chunk_with::<64, Avx512>(chunk, profile, gaps)
}

/// [`score_chunk`] with the portable lookup, compiled for the baseline.
fn score_chunk_portable(chunk: &PackedChunk, profile: &[u32], gaps: Gaps) -> Vec<i32> {
    score_chunk_with::<32, Portable>(chunk, profile, gaps)
}

/// A width's working memory: H and E of each query row, and the column's
/// scores (two columns) per table.
struct Work<S> {
    h: Vec<S>,
    e: Vec<S>,
    column_scores: Vec<[S; 2]>,
}

impl<S: Copy> Work<S> {
    fn new(rows: usize, tables: usize, zero: S) -> Work<S> {
        Work {
            h: vec![zero; rows],
            e: vec![zero; rows],
            column_scores: vec![[zero; 2]; tables],
        }
    }
}

/// [`score_chunk`] in vectors of `N` 8-bit lanes, tables looked up by `L`
/// (at `N` lanes, and at the 16-bit pass's 32).
#[inline(always)]
fn score_chunk_with<const N: usize, L: Lookup<N> + Lookup<WIDE_LANES>>(
    chunk: &PackedChunk,
    profile: &[u32],
    gaps: Gaps,
) -> Vec<i32> {
    let threads = chunk.sequences();
    let query_words = profile.len() / NUM_CODES;
    let tables = QueryTables::<N>::new(profile, query_words);
    let rows = tables.row_table.len();
    let narrow = tables.narrow.as_ref().filter(|_| fits_narrow(gaps));
    let narrow_costs = |limit: NarrowLimit| Costs {
        first: Narrow::<N>::splat(gaps.first as u8),
        extend: Narrow::splat(gaps.extend as u8),
        bias: Narrow::splat(limit.bias),
    };
    let mut narrow_work = Work::new(rows, tables.wide.len(), Narrow::<N>::splat(0));
    let mut wide_work = Work::new(rows, tables.wide.len(), Wide::splat(0));
    let mut scores = Vec::with_capacity(threads + N);
    for first in (0..threads).step_by(N) {
        let lanes = N.min(threads - first);
        let narrow_best = narrow.map(|(narrow_tables, limit)| {
            let best = score_lanes::<N, L, Narrow<N>>(
                chunk,
                (first, lanes),
                (narrow_tables, &tables.row_table),
                narrow_costs(*limit),
                &mut narrow_work,
            );
            (best.to_array(), limit.exact_up_to)
        });
        // Each 32-lane part: its 8-bit scores if every one is exact, else
        // the part again in 16 bits.
        for part in (first..first + lanes).step_by(WIDE_LANES) {
            let part_lanes = WIDE_LANES.min(first + lanes - part);
            if let Some((best, limit)) = &narrow_best {
                let part_best = &best[part - first..part - first + part_lanes];
                if part_best.iter().all(|s| s <= limit) {
                    scores.extend(part_best.iter().map(|&s| i32::from(s)));
                    continue;
                }
            }
            let best = score_lanes::<WIDE_LANES, L, Wide>(
                chunk,
                (part, part_lanes),
                (&tables.wide, &tables.row_table),
                Costs {
                    first: Wide::splat(gaps.first as i16),
                    extend: Wide::splat(gaps.extend as i16),
                    bias: Wide::splat(0),
                },
                &mut wide_work,
            );
            let saturated = best.simd_eq(Wide::splat(i16::MAX));
            let mut got: Vec<i32> = best.to_array()[..part_lanes]
                .iter()
                .map(|&s| i32::from(s))
                .collect();
            if saturated.any() {
                // Rare (a long, high-scoring pair): the part again in 32
                // bits.
                let exact =
                    super::inter_sequence::score_range(chunk, profile, gaps, part, part_lanes);
                for (lane, score) in got.iter_mut().enumerate() {
                    if saturated.test(lane) {
                        *score = exact[lane];
                    }
                }
            }
            scores.extend(got);
        }
    }
    scores
}

/// The best local score of sequences `first .. first + lanes` (`lanes` at
/// most `N`) of `chunk` in width `S` (saturated), with the tables and each
/// row's table of `tables`, the gap costs `costs` and `work` as working
/// memory.
#[inline(always)]
fn score_lanes<const N: usize, L: Lookup<N>, S: Width<N>>(
    chunk: &PackedChunk,
    (first, lanes): (usize, usize),
    (tables, row_table): (&[Table<N>], &[u8]),
    costs: Costs<S>,
    work: &mut Work<S>,
) -> S {
    let threads = chunk.sequences();
    let words = chunk.vector_words(first, lanes);
    let pad_word = Words::<N>::splat(u32::from_le_bytes([PAD_CODE; 4]));
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
        let residues = Words::<N>::load_or(row, pad_word);
        // Two columns a pass down the query: each row's H and E are read
        // and written once for both, and the two chains of F run side by
        // side.
        for pair in [0, 2] {
            let codes = |k: u32| -> Codes<N> {
                ((residues >> Words::splat(8 * k)) & Words::splat(0xff)).cast()
            };
            let (codes_a, codes_b) = (codes(pair), codes(pair + 1));
            // Bit 4 of a code (16-31) in the top bit, which `vpblendvb`
            // (and `vpmovb2m`) reads.
            let (high_a, high_b) = (codes_a << Codes::splat(3), codes_b << Codes::splat(3));
            for (table, scores) in tables.iter().zip(column_scores.iter_mut()) {
                *scores = [
                    S::from_bytes(L::bytes(table, codes_a, high_a)),
                    S::from_bytes(L::bytes(table, codes_b, high_b)),
                ];
            }
            // Down the columns: for each, the row above's H (0 above the
            // first row) and F, and H of the row above one column to the
            // left.
            let (mut up_a, mut up_b) = (S::zero(), S::zero());
            let (mut f_a, mut f_b) = (S::floor(), S::floor());
            let (mut diag_a, mut diag_b) = (S::zero(), S::zero());
            for ((h, e), &t) in h.iter_mut().zip(e.iter_mut()).zip(row_table) {
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

    /// What `vpshufb` and the blend compute, lane by lane, at any lane count:
    /// the halves' layout that [`Avx512`] reads, checked where the CPU cannot
    /// run it.
    struct ShuffleModel;

    impl<const N: usize> Lookup<N> for ShuffleModel {
        fn bytes(table: &Table<N>, codes: Codes<N>, high: Codes<N>) -> Codes<N> {
            let shuffle = |t: Codes<N>| -> Codes<N> {
                Codes::from_array(std::array::from_fn(|i| {
                    if codes[i] & 0x80 != 0 {
                        0
                    } else {
                        t[i / 16 * 16 + usize::from(codes[i] & 0x0f)]
                    }
                }))
            };
            let (low, high_half) = (shuffle(table.halves.0), shuffle(table.halves.1));
            Codes::from_array(std::array::from_fn(|i| {
                if high[i] & 0x80 != 0 {
                    high_half[i]
                } else {
                    low[i]
                }
            }))
        }
    }
    use crate::db::{Database, PackedChunk};
    use crate::fasta::Record;
    use crate::matrix::ScoreMatrix;
    use crate::profile::sequential_profile;
    use crate::reference::local_score;
    use crate::scoring::GapPenalty;

    use crate::align::checkpointed::tests::codes;

    /// Tryptophan: it scores 11 against itself with BLOSUM62.
    const W: u8 = 17;
    /// Proline: -4 against tryptophan, so a run of W followed by P scores
    /// the run's 11 a residue against a query of W.
    const P: u8 = 14;

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

    /// [`score_chunk_with`] at 64 lanes with the portable lookup, compiled
    /// for the baseline.
    fn score_chunk_portable64(chunk: &PackedChunk, profile: &[u32], gaps: Gaps) -> Vec<i32> {
        score_chunk_with::<64, Portable>(chunk, profile, gaps)
    }

    /// At 64 lanes with [`ShuffleModel`]: the AVX-512 lookup's tables and
    /// blend, on any CPU.
    fn score_chunk_shuffle64(chunk: &PackedChunk, profile: &[u32], gaps: Gaps) -> Vec<i32> {
        score_chunk_with::<64, ShuffleModel>(chunk, profile, gaps)
    }

    /// At 64 lanes in pairs of AVX2 registers.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn score_chunk_avx2_64(chunk: &PackedChunk, profile: &[u32], gaps: Gaps) -> Vec<i32> {
        score_chunk_with::<64, Avx2>(chunk, profile, gaps)
    }

    /// Says, past the test harness's capture, which variants this CPU
    /// cannot run, once: a missing variant is skipped, not passed.
    fn report_skipped(names: &str, feature: &str) {
        use std::io::Write;
        static ONCE: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
        let mut said = ONCE.lock().unwrap();
        if !said.iter().any(|s| s == names) {
            said.push(names.to_string());
            let _ = writeln!(
                std::io::stderr(),
                "inter_sequence_narrow: SKIPPED {names}: this CPU lacks {feature}"
            );
        }
    }

    /// Every code generation of the kernel this CPU can run: name, lanes
    /// of the 8-bit pass, function.
    fn variants() -> Vec<(&'static str, usize, Variant)> {
        let mut v: Vec<(&'static str, usize, Variant)> = vec![
            ("portable", 32, score_chunk_portable),
            ("portable64", 64, score_chunk_portable64),
            ("shuffle64", 64, score_chunk_shuffle64),
        ];
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx2") {
                // SAFETY: AVX2 is present.
                v.push(("avx2", 32, |c, p, g| unsafe { score_chunk_avx2(c, p, g) }));
                // SAFETY: AVX2 is present.
                v.push(("avx2-64", 64, |c, p, g| unsafe {
                    score_chunk_avx2_64(c, p, g)
                }));
            } else {
                report_skipped("avx2, avx2-64", "AVX2");
            }
            if std::arch::is_x86_feature_detected!("avx512bw") {
                // SAFETY: AVX-512BW is present.
                v.push(("avx512", 64, |c, p, g| unsafe {
                    score_chunk_avx512(c, p, g)
                }));
            } else {
                report_skipped("avx512", "AVX-512BW");
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
        for (name, _, variant) in variants {
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
    fn the_cpu_runs_64_lanes_with_avx512bw_else_32() {
        let avx512 = {
            #[cfg(target_arch = "x86_64")]
            {
                std::arch::is_x86_feature_detected!("avx512bw")
            }
            #[cfg(not(target_arch = "x86_64"))]
            {
                false
            }
        };
        assert_eq!(lanes(), if avx512 { 64 } else { 32 });
        assert_eq!(Code::detect().lanes(), lanes());
    }

    #[test]
    fn equals_the_reference_on_uneven_lanes_and_a_partial_vector() {
        let lengths = [
            0, 1, 7, 33, 64, 65, 100, 5, 300, 2, 31, 32, 129, 90, 11, 4, 250, 77, 1, 40, 41, 3,
            200, 17, 18, 19, 60, 61, 62, 63, 8, 9, 10, 500, 12,
        ];
        let mut seqs: Vec<Vec<u8>> = lengths
            .iter()
            .enumerate()
            .map(|(k, &n)| codes(k as u64, n, 24))
            .collect();
        let db = database(seqs.clone());
        // 35 sequences: one vector of 64 lanes, partly filled, and two of
        // 32; 100: a full vector of 64 and a partial one.
        seqs.extend((0..65).map(|k| codes(500 + k, 20 + (k as usize * 7) % 150, 24)));
        let db100 = database(seqs);
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
                check(&db100, &query, &matrix, open, extend);
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
        // 2,978 W score 32,758, 2,979 score 32,769.
        let query = vec![W; 3_100];
        let mut seqs = Vec::new();
        for n in [2_977, 2_978, 2_979, 2_980, 3_100, 100] {
            seqs.push(vec![W; n]);
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

    /// The same boundary in the second 32-lane part of a 64-lane vector
    /// (lanes 32 and 33: the second vector of 32 lanes), the first part's
    /// lanes all exact in 16 bits but for one at its last lane: fails if a
    /// part's 16-bit pass or its rescue reads another part's lanes.
    #[test]
    fn lanes_beyond_16_bits_are_realigned_in_either_part_of_a_vector() {
        let matrix = ScoreMatrix::by_name("blosum62").unwrap();
        let query = vec![W; 3_000];
        let len = 2_980;
        // Equal lengths keep the input's order (the sort is stable).
        let run = |n: usize| {
            let mut s = vec![W; n];
            s.resize(len, P);
            s
        };
        let mut seqs: Vec<Vec<u8>> = (0..36).map(|k| codes(k, len, 24)).collect();
        seqs[31] = run(2_980);
        seqs[32] = run(2_978);
        seqs[33] = run(2_979);
        let db = database(seqs);
        let gaps = GapPenalty::new(10, 1).unwrap();
        let scores: Vec<i32> = (0..db.len())
            .map(|i| local_score(&query, db.sequence(i), &matrix, gaps))
            .collect();
        assert_eq!(scores[31..34], [32_780, 32_758, 32_769]);
        assert!(scores.iter().filter(|&&s| s > 255).count() == 3);
        check(&db, &query, &matrix, 10, 1);
    }

    /// Lanes at the 8-bit boundary: a query against copies of its
    /// prefixes scoring from well below to well above what 8-bit lanes
    /// hold exactly (240 with BLOSUM62), each vector with one of them
    /// among ordinary sequences. Fails if a vector with a lane beyond the
    /// limit keeps its 8-bit scores.
    #[test]
    fn lanes_beyond_8_bits_are_realigned_in_16() {
        let matrix = ScoreMatrix::by_name("blosum62").unwrap();
        // n W score 11 n.
        let query = vec![W; 40];
        let mut seqs = Vec::new();
        for n in 18..=30 {
            seqs.push(vec![W; n]);
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

    /// The 8-bit boundary at each edge of the 32-lane parts of two 64-lane
    /// vectors (and of four 32-lane ones): one lane scoring 231 (exact in
    /// 8 bits), 242 (beyond the limit) or 264 (beyond 8 bits) among
    /// sequences of ordinary scores, then two such lanes in different
    /// parts. Fails if a lane beyond the limit keeps its 8-bit score, or
    /// a part is judged by another's lanes.
    #[test]
    fn a_lane_beyond_8_bits_is_realigned_in_any_part() {
        let matrix = ScoreMatrix::by_name("blosum62").unwrap();
        let query = vec![W; 40];
        let len = 30;
        let run = |n: usize| {
            let mut s = vec![W; n];
            s.resize(len, P);
            s
        };
        let ordinary: Vec<Vec<u8>> = (0..128).map(|k| codes(7_000 + k, len, 24)).collect();
        let gaps = GapPenalty::new(10, 1).unwrap();
        let mut cases: Vec<Vec<(usize, usize)>> = Vec::new();
        for at in [0, 1, 31, 32, 33, 63, 64, 95, 96, 127] {
            for n in [21, 22, 24] {
                cases.push(vec![(at, n)]);
            }
        }
        cases.push(vec![(31, 24), (32, 21)]);
        cases.push(vec![(30, 21), (33, 24)]);
        cases.push(vec![(63, 24), (64, 24), (100, 21)]);
        for case in cases {
            let mut seqs = ordinary.clone();
            for &(at, n) in &case {
                seqs[at] = run(n);
            }
            let db = database(seqs);
            for &(at, n) in &case {
                let score = local_score(&query, db.sequence(at), &matrix, gaps);
                assert_eq!(score, 11 * n as i32, "{case:?}");
            }
            let others = (0..db.len()).filter(|i| !case.iter().any(|&(at, _)| at == *i));
            for i in others {
                assert!(local_score(&query, db.sequence(i), &matrix, gaps) < 200);
            }
            check(&db, &query, &matrix, 10, 1);
        }
    }

    /// Gap costs beyond 8 bits run in 16, beyond 16 in 32.
    #[test]
    fn gaps_beyond_8_bits_run_in_16() {
        let matrix = ScoreMatrix::by_name("blosum62").unwrap();
        let db = database((0..70).map(|k| codes(k, 50 + k as usize, 24)).collect());
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
        let tables = QueryTables::<64>::new(&profile, profile.len() / NUM_CODES);
        assert_eq!(tables.row_table.len(), 1_000);
        assert!(tables.wide.len() <= 24);
        assert_eq!(working_bytes(1_000), 2 * 1_000 * (lanes() + 64));
        // BLOSUM62: -4 to 11, so 8-bit lanes are exact up to 255 - 4 - 11.
        let (narrow, limit) = tables.narrow.as_ref().unwrap();
        assert_eq!((limit.bias, limit.exact_up_to), (4, 240));
        assert_eq!(narrow.len(), tables.wide.len());
    }

    /// Each lookup against the table by code, every code in every lane.
    #[test]
    fn the_lookups_read_every_code_in_every_lane() {
        fn check<const N: usize>()
        where
            Portable: Lookup<N>,
            ShuffleModel: Lookup<N>,
        {
            let table = Table::<N>::new(std::array::from_fn(|c| 100 + c as u8));
            for shift in 0..TABLE_ENTRIES {
                let codes = Codes::<N>::from_array(std::array::from_fn(|l| {
                    ((l + shift) % TABLE_ENTRIES) as u8
                }));
                let high = codes << Codes::splat(3);
                let want = codes + Codes::splat(100);
                let portable = <Portable as Lookup<N>>::bytes(&table, codes, high);
                assert_eq!(portable, want, "portable, {N} lanes");
                let model = <ShuffleModel as Lookup<N>>::bytes(&table, codes, high);
                assert_eq!(model, want, "shuffle model, {N} lanes");
            }
        }
        check::<32>();
        check::<64>();
    }

    /// Times every variant this CPU runs on one query against a few
    /// thousand random sequences, packed in chunks of two vectors of each
    /// variant's lanes (as the CPU engine packs them), on one thread and on
    /// all of them: `cargo test -p host --release inter_sequence_narrow --
    /// --ignored --nocapture`.
    #[test]
    #[ignore]
    fn time_the_variants() {
        use rayon::prelude::*;
        let matrix = ScoreMatrix::by_name("blosum62").unwrap();
        let seqs: Vec<Vec<u8>> = (0..4_000)
            .map(|k| codes(k, 50 + (k as usize * 7_919) % 750, 20))
            .collect();
        let db = database(seqs);
        let gaps = GapPenalty::new(11, 1).unwrap().kernel_gaps();
        let variants = variants();
        let packed: Vec<Vec<PackedChunk>> = variants
            .iter()
            .map(|&(_, lanes, _)| {
                (0..db.len())
                    .step_by(2 * lanes)
                    .map(|first| PackedChunk::pack(&db, first..db.len().min(first + 2 * lanes)))
                    .collect()
            })
            .collect();
        let threads = rayon::current_num_threads();
        println!("GCUPS on 1 and {threads} threads");
        for query_len in [100, 300, 1_000] {
            let query = codes(1, query_len, 20);
            let profile = sequential_profile(&query, &matrix);
            let cells = query_len as f64 * db.total_residues() as f64;
            // Rounds over every variant in turn, the best of each kept: a
            // shared machine's slow moments fall on all of them alike.
            let mut best = vec![(f64::INFINITY, f64::INFINITY); variants.len()];
            for _ in 0..5 {
                for ((_, _, variant), (chunks, best)) in
                    variants.iter().zip(packed.iter().zip(&mut best))
                {
                    let start = std::time::Instant::now();
                    for chunk in chunks {
                        std::hint::black_box(variant(chunk, &profile, gaps));
                    }
                    best.0 = best.0.min(start.elapsed().as_secs_f64());
                    let start = std::time::Instant::now();
                    chunks.par_iter().for_each(|chunk| {
                        std::hint::black_box(variant(chunk, &profile, gaps));
                    });
                    best.1 = best.1.min(start.elapsed().as_secs_f64());
                }
            }
            for ((name, lanes, _), (one, all)) in variants.iter().zip(best) {
                println!(
                    "query {query_len:>5}  {name:<10} {lanes} lanes  {:6.2}  {:7.2}",
                    cells / one / 1e9,
                    cells / all / 1e9
                );
            }
        }
    }
}
