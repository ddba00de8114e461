//! The 32-bit rescue that follows every 16-bit kernel
//! (`gpu_kernels::query_group_i32`, after CUDASW++ 4.0's recomputation of
//! the alignments its 16-bit kernels could not finish, Schmidt 2024): a
//! block of warps per sequence whose score is above the 16-bit limit,
//! launched on a chunk after the 16-bit kernel with the SIMT kernels'
//! arguments (the sequential profile and the row buffer), where a score
//! can be above it ([`needed`]). Not a kernel of its own for
//! `--kernel`: the 16-bit kernels' adapters launch it.

use cudarc::driver::LaunchConfig;
use gpu_kernels::layout::SimtParams;
use gpu_kernels::query_group_i32::{BLOCK_WARPS, LANES, PASS_ROWS, SHARED_BYTES, rescue_emulated};
use gpu_kernels::recurrence::Gaps;
use gpu_kernels::simt_i16x2::SCORE_LIMIT;
use gpu_kernels::vector::HostVector;

use super::simt::with_chunk_params;
use crate::db::PackedChunk;
use crate::error::Result;
use crate::kernel::launch::{ChunkLaunch, WorkBuffer};
use crate::switch::Switch;

/// The rescue's entry point.
pub const SYMBOL: &str = gpu_kernels::query_group_i32::SYMBOL;

/// Blocks and warps of a block of an emulated rescue: any numbers give the
/// same scores; a few, so that the tests stride through the chunk as the
/// GPU's blocks do and hand rows from warp to warp around the block.
const EMULATED_BLOCKS: usize = 5;
const EMULATED_WARPS: usize = 3;

/// Whether a 16-bit launch on `l`'s chunk may leave a score for the
/// rescue: only if some pair can score above the 16-bit limit, the
/// matrix's best score times the shorter of the query and the chunk's
/// longest sequence. Otherwise every 16-bit score is exact (a real H is at
/// most that bound, `gpu_kernels::simt_i16x2`'s overflow argument) and the
/// rescue's launch is left out: one launch a chunk fewer for every query
/// of up to 2,967 residues with BLOSUM62, and for every chunk of
/// sequences that short.
pub fn needed(l: &ChunkLaunch<'_>) -> bool {
    may_exceed_limit(l.query_len(), l.longest(), l.max_score())
}

/// Whether a query of `query_len` residues may score above the 16-bit
/// limit against a sequence of at most `longest` residues with a matrix
/// whose best score is `max_score`.
fn may_exceed_limit(query_len: usize, longest: usize, max_score: i32) -> bool {
    let cells = query_len.min(longest) as i64;
    i64::from(max_score.max(0)) * cells > i64::from(SCORE_LIMIT)
}

/// The environment variable that turns [`scores_whole_chunk`]'s policy
/// on or off (`on`, the default, or `off`: every chunk by its 16-bit
/// kernel, the rescue after it), for benchmarks and tests.
pub const WHOLE_CHUNKS_VARIABLE: &str = "WARPSW_RESCUE_WHOLE_CHUNKS";

static WHOLE_CHUNKS: Switch = Switch::new(WHOLE_CHUNKS_VARIABLE, true);

/// One warp's speed on one pair in `group-i16x2`, GCUPS: on an H200 titin
/// (34,350 residues) against a record of 35,213 took 510 ms of a search
/// of half of Swiss-Prot (benches/RESULTS.md, "Issue 37 parts 1, 4 and 5
/// at the gap-costs build").
const ONE_WARP_GCUPS: f64 = 2.4;

/// The rescue's speed on one pair with every warp of its block busy,
/// GCUPS: titin against itself ran at about 27 on an H200
/// (benches/RESULTS.md, "A block of 16 warps per out-of-range sequence"),
/// its 68 passes in 5 rounds of 16 warps, 68 of 80 warp-rounds busy.
const BLOCK_GCUPS: f64 = 27.0 * 80.0 / 68.0;

/// A multiprocessor's share of a 16-bit search, GCUPS: about 5,000 on an
/// H200's 132.
const MULTIPROCESSOR_GCUPS: f64 = 38.0;

/// A chunk's longest pair on one warp that takes more than this share of
/// the search it is part of is a pole the search waits on. On an H200
/// against half of Swiss-Prot a long query's pole is 0.79 of its search
/// alone and about 0.4 paired with the next query in length: scored whole
/// at 0.79 the queries of 5,030–35,213 residues ran 0.98–0.99 of their
/// speed without their hits beyond 16 bits (0.85–1.00 not, the titins
/// 0.85–0.96); at 0.4 the 20
/// standard queries' search ran 4 % slower scored whole (0.72 s against
/// 0.69), with a share of 0.5 as fast as not (benches/RESULTS.md, "Chunks
/// scored whole by the rescue").
const POLE_SHARE: f64 = 0.5;

/// The environment variable that sets [`POLE_SHARE`] (a number), for
/// benchmarks.
pub const POLE_SHARE_VARIABLE: &str = "WARPSW_POLE_SHARE";

/// [`POLE_SHARE`], or [`POLE_SHARE_VARIABLE`]'s value where it is set.
fn pole_share() -> Result<f64> {
    static SHARE: std::sync::LazyLock<std::result::Result<f64, String>> =
        std::sync::LazyLock::new(|| match std::env::var(POLE_SHARE_VARIABLE) {
            Ok(v) if !v.is_empty() => v
                .parse::<f64>()
                .ok()
                .filter(|share| share.is_finite() && *share >= 0.0)
                .ok_or_else(|| {
                    format!("{POLE_SHARE_VARIABLE} must be a number of at least 0, not {v:?}")
                }),
            _ => Ok(POLE_SHARE),
        });
    SHARE.clone().map_err(crate::error::Error::InvalidArgument)
}

/// Whether `l`'s chunk is scored whole by the rescue (every score preset
/// out of range, [`preset_out_of_range`]) instead of its 16-bit kernel:
/// where the chunk's longest pair, which the 16-bit kernels give one warp,
/// would run for more than [`POLE_SHARE`] of the search of every query
/// loaded with it (a partner's chunks run beside the pole), and the
/// rescue's blocks of warps (a pair each) score the whole chunk in less
/// than half that. Such chunks are the few longest sequences against a
/// long query: titin against half of Swiss-Prot ran its chunk of the 146
/// longest records for 510 ms of a 625 ms search on one warp; the rescue's
/// block takes that pair in about 45 ms. Only where a score can leave 16
/// bits ([`needed`]), so that the rescue runs after the launch anyway.
///
/// # Errors
/// [`WHOLE_CHUNKS_VARIABLE`] set to neither `on` nor `off`, or
/// [`POLE_SHARE_VARIABLE`] to no number of at least 0.
pub fn scores_whole_chunk(l: &ChunkLaunch<'_>) -> Result<bool> {
    let search = PoleSearch {
        query_len: l.query_len(),
        loaded_query_residues: l.loaded_query_residues(),
        longest: l.longest(),
        chunk_residues: l.chunk_residues(),
        database_residues: l.database_residues(),
        sm_count: l.sm_count(),
    };
    scores_whole(&search, l.max_score())
}

/// What [`scores_whole_chunk`] judges a chunk's launch by (what
/// `--explain` gives it for a query alone).
#[derive(Clone, Copy, Debug)]
pub struct PoleSearch {
    /// The query's residues.
    pub query_len: usize,
    /// Residues of every query loaded with it, its own included (its own
    /// where it runs alone).
    pub loaded_query_residues: usize,
    /// The chunk's longest sequence.
    pub longest: usize,
    /// Residues of the chunk's sequences.
    pub chunk_residues: u64,
    /// Residues of the engine's database (or part), every chunk's.
    pub database_residues: u64,
    /// The GPU's multiprocessors.
    pub sm_count: usize,
}

/// [`scores_whole_chunk`] for `search`, with a matrix whose best score is
/// `max_score`.
///
/// # Errors
/// [`WHOLE_CHUNKS_VARIABLE`] set to neither `on` nor `off`, or
/// [`POLE_SHARE_VARIABLE`] to no number of at least 0.
pub fn scores_whole(search: &PoleSearch, max_score: i32) -> Result<bool> {
    Ok(
        may_exceed_limit(search.query_len, search.longest, max_score)
            && WHOLE_CHUNKS.on()?
            && whole_chunk_pays(search, pole_share()?),
    )
}

/// [`scores_whole_chunk`]'s cost model: whether `s`'s pole takes more
/// than `pole_share` of the search and the rescue scores the chunk in
/// less than half the pole.
fn whole_chunk_pays(s: &PoleSearch, pole_share: f64) -> bool {
    let query = s.query_len as f64;
    let sms = s.sm_count.max(1) as f64;
    let pair = query * s.longest as f64;
    let pole = pair / ONE_WARP_GCUPS;
    // Every query loaded with this one (a partner) is scored in the same
    // search, on the multiprocessors the pole leaves.
    let loaded = s.loaded_query_residues.max(s.query_len) as f64;
    let search = loaded * s.database_residues as f64 / (sms * MULTIPROCESSOR_GCUPS);
    // A block's warps take the query's passes in rounds, a pass each.
    let passes = s.query_len.div_ceil(PASS_ROWS).max(1);
    let rounds = passes.div_ceil(BLOCK_WARPS);
    let block = BLOCK_GCUPS * passes as f64 / (BLOCK_WARPS * rounds) as f64;
    let whole = (pair / block).max(query * s.chunk_residues as f64 / (sms * block));
    pole > pole_share * search && 2.0 * whole < pole
}

/// The byte [`preset_out_of_range`] writes: each score then reads
/// [`PRESET_SCORE`], above the 16-bit limit, so the rescue realigns it.
pub const PRESET_BYTE: u8 = 0x7F;

/// A score of [`PRESET_BYTE`]s.
pub const PRESET_SCORE: i32 = i32::from_ne_bytes([PRESET_BYTE; 4]);

const _: () = assert!(PRESET_SCORE > SCORE_LIMIT);

/// Queues on `l`'s stream the write of [`PRESET_SCORE`] to every score of
/// its chunk, in place of its 16-bit kernel ([`scores_whole_chunk`]).
pub fn preset_out_of_range(l: &ChunkLaunch<'_>) -> Result<()> {
    let ptrs = l.pointers(WorkBuffer::Nothing)?;
    // The driver call below needs the device's context on this thread
    // (cudarc's own calls bind it themselves).
    l.stream()
        .context()
        .bind_to_thread()
        .map_err(l.error("binding the device"))?;
    // SAFETY: `ptrs.scores` is the chunk's first score in the engine's
    // scores, which hold the chunk's `sequences()` from there; the write
    // is queued on the launch's stream, in the order the chunk's kernel
    // would have been.
    unsafe {
        cudarc::driver::result::memset_d8_async(
            ptrs.scores,
            PRESET_BYTE,
            4 * l.sequences(),
            l.stream().cu_stream(),
        )
    }
    .map_err(l.error("presetting the scores for the rescue"))
}

/// The rescue's launch on a GPU of `sm_count` multiprocessors: a block of
/// [`BLOCK_WARPS`] warps a multiprocessor (its registers hold one), the
/// blocks looking after the chunk's sequences between them.
pub fn grid(sm_count: usize) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (sm_count.max(1) as u32, 1, 1),
        block_dim: ((BLOCK_WARPS * LANES) as u32, 1, 1),
        shared_mem_bytes: SHARED_BYTES as u32,
    }
}

/// The rescue on the host, as its launch runs on the GPU: every score of
/// `params.scores` above the 16-bit limit realigned in 32 bits.
///
/// # Safety
/// `params` meets `gpu_kernels::query_group_i32::align_pass`'s duties: the
/// buffers of a SIMT launch over a chunk, its scores those of a 16-bit
/// kernel.
pub unsafe fn run_emulated(params: &SimtParams) {
    // SAFETY: the caller's duties.
    unsafe { rescue_emulated::<HostVector<LANES>>(params, EMULATED_BLOCKS, EMULATED_WARPS) };
}

/// The rescue's launch on `chunk` on the host: `scores` (a 16-bit
/// kernel's, one per sequence of the chunk) with every score above the
/// 16-bit limit realigned in 32 bits, `sequential` the query's sequential
/// profile ([`crate::profile::sequential_profile`]).
pub fn run_chunk(chunk: &PackedChunk, sequential: &[u32], gaps: Gaps, scores: &[i32]) -> Vec<i32> {
    assert_eq!(scores.len(), chunk.sequences(), "one score per sequence");
    with_chunk_params(chunk, sequential, gaps, |params| {
        // SAFETY: `with_chunk_params` allocates a SIMT launch's buffers for
        // the chunk and the profile, its scores one per sequence as
        // `scores` (checked above).
        unsafe {
            std::slice::from_raw_parts_mut(params.scores, scores.len()).copy_from_slice(scores);
            run_emulated(params);
        }
    })
}

#[cfg(test)]
mod tests {
    use super::{POLE_SHARE, PoleSearch, may_exceed_limit, whole_chunk_pays};

    /// The search of a query of `query_len` residues loaded with others
    /// to `loaded` in all, on a chunk of `longest` at most and `chunk`
    /// residues of `database`, on an H200's 132 multiprocessors.
    fn search(
        query_len: usize,
        loaded: usize,
        longest: usize,
        chunk: u64,
        database: u64,
    ) -> PoleSearch {
        PoleSearch {
            query_len,
            loaded_query_residues: loaded,
            longest,
            chunk_residues: chunk,
            database_residues: database,
            sm_count: 132,
        }
    }

    /// [`whole_chunk_pays`] for a query searched alone.
    fn alone(query_len: usize, longest: usize, chunk: u64, database: u64) -> bool {
        whole_chunk_pays(
            &search(query_len, query_len, longest, chunk, database),
            POLE_SHARE,
        )
    }

    /// Half of Swiss-Prot 2014_01 on an H200 (132 multiprocessors): its
    /// 146 longest records (4,114 to 35,213 residues) are the first chunk,
    /// the next 185 (up to 4,092) the second.
    const SPROT_HALF: u64 = 93_275_735;
    const CHUNK_0: (usize, u64) = (35_213, 875_666);
    const CHUNK_1: (usize, u64) = (4_092, 641_752);

    #[test]
    fn the_longest_records_against_a_long_query_go_whole_to_the_rescue() {
        for query_len in [3_000, 5_030, 18_141, 34_350] {
            assert!(
                alone(query_len, CHUNK_0.0, CHUNK_0.1, SPROT_HALF),
                "{query_len}"
            );
            // The second chunk's longest pair is no pole.
            assert!(
                !alone(query_len, CHUNK_1.0, CHUNK_1.1, SPROT_HALF),
                "{query_len}"
            );
        }
        // A longest record of 12,000 residues takes a quarter of the
        // search on its warp: the others' chunks run beside it.
        assert!(!alone(34_350, 12_000, 800_000, SPROT_HALF));
        // A database a hundred times as large leaves the pole in the crowd.
        assert!(!alone(34_350, CHUNK_0.0, CHUNK_0.1, 100 * SPROT_HALF));
        // A chunk of many long sequences scores faster in 16 bits.
        assert!(!alone(34_350, 6_000, 2_000_000_000, 4 * SPROT_HALF));
    }

    /// Paired with a query as long, a query's pole is half the share of
    /// the search it is alone: the partner's chunks run beside it.
    #[test]
    fn a_partner_hides_the_pole() {
        for query_len in [5_030, 10_421] {
            let paired = |partner: usize| {
                let s = search(
                    query_len,
                    query_len + partner,
                    CHUNK_0.0,
                    CHUNK_0.1,
                    SPROT_HALF,
                );
                whole_chunk_pays(&s, POLE_SHARE)
            };
            assert!(paired(0), "{query_len}");
            assert!(!paired(query_len), "{query_len}");
        }
    }

    /// BLOSUM62's best score is 11: 2,967 cells reach 32,637, within the
    /// limit; 2,968 may not be.
    #[test]
    fn the_rescue_runs_only_where_a_score_can_leave_16_bits() {
        assert!(!may_exceed_limit(2_967, 35_000, 11));
        assert!(may_exceed_limit(2_968, 35_000, 11));
        assert!(!may_exceed_limit(35_000, 2_967, 11));
        assert!(may_exceed_limit(35_000, 2_968, 11));
        assert!(!may_exceed_limit(5, 35_000, 127));
        assert!(!may_exceed_limit(1_000_000, 1_000_000, 0));
        assert!(!may_exceed_limit(1_000_000, 1_000_000, -3));
    }
}
