//! Adapter of the group kernels (`gpu_kernels::group_i16x2`): CUDASW++ 4.0's
//! mapping (Schmidt 2024), a group of lanes per pair of database sequences,
//! 16-bit scores, the 32-bit rescue of `simt-i16x2` after it. One
//! configuration (lanes per group × columns per lane) per chunk, the
//! narrowest whose width covers the chunk's longest sequence; a chunk wider
//! than every configuration runs `simt-i16x2`, and gap penalties beyond 16
//! bits run `simt`, as for `simt-i16x2`.
//!
//! The profile is four words: a header (the query's length, then three
//! words that keep what follows 16-byte aligned), the sequential profile
//! (for the rescue and the fallbacks), the pair table and the query's codes.

use gpu_kernels::group_i16x2::{
    CONFIGS, GapAddends, GroupParams, PAIR_CODES, SHARED_BYTES, TABLE_WORDS,
};
use gpu_kernels::layout::{NUM_CODES, PAD_CODE, PAD_SCORE, SimtParams};
use gpu_kernels::recurrence::Gaps;
use gpu_kernels::simt_i16x2;
use gpu_kernels::vector::HostVector;

use super::Adapter;
use super::simt::{RESCUE_SYMBOL, SimtArgs, with_chunk_params};
use crate::db::PackedChunk;
use crate::engine::gpu::launch::{ChunkLaunch, WorkBuffer, one_thread_each, vector_grid};
use crate::error::{Error, Result};
use crate::matrix::ScoreMatrix;
use crate::profile::sequential_profile;

/// Words before the sequential profile.
const HEADER_WORDS: usize = 4;

/// The group kernels' family.
pub(crate) struct Group;

/// The parts of a group profile.
struct Parts<'a> {
    query_len: usize,
    sequential: &'a [u32],
    table: &'a [u32],
    query: &'a [u32],
}

/// Splits a profile made by [`Group::profile`].
fn parts(profile: &[u32]) -> Result<Parts<'_>> {
    let bad = || Error::Internal("a group profile of the wrong size".into());
    let query_len = *profile.first().ok_or_else(bad)? as usize;
    let sequential_words = NUM_CODES * gpu_kernels::layout::profile_words(query_len);
    let query_words = query_len.div_ceil(4);
    if profile.len() != HEADER_WORDS + sequential_words + TABLE_WORDS + query_words {
        return Err(bad());
    }
    let (sequential, rest) = profile[HEADER_WORDS..].split_at(sequential_words);
    let (table, query) = rest.split_at(TABLE_WORDS);
    Ok(Parts {
        query_len,
        sequential,
        table,
        query,
    })
}

/// The pair table of `matrix` (`gpu_kernels::group_i16x2`): for query letter
/// `a` and pair code `low · NUM_CODES + high`, `(s(a, low), s(a, high))`.
pub fn pair_table(matrix: &ScoreMatrix) -> Vec<u32> {
    let score = |a: usize, b: usize| -> i16 {
        if a == PAD_CODE as usize || b == PAD_CODE as usize {
            i16::from(PAD_SCORE)
        } else {
            matrix.score(a as u8, b as u8) as i16
        }
    };
    let mut table = Vec::with_capacity(TABLE_WORDS);
    for a in 0..NUM_CODES {
        for code in 0..PAIR_CODES {
            let (low, high) = (code / NUM_CODES, code % NUM_CODES);
            table.push(u32::from(score(a, low) as u16) | (u32::from(score(a, high) as u16) << 16));
        }
    }
    table
}

/// Which configuration of [`CONFIGS`] runs a chunk whose longest sequence
/// has `longest` residues (`None`: wider than all of them).
pub fn config_for(longest: usize) -> Option<usize> {
    CONFIGS.iter().position(|&(_, g, r)| g * r >= longest)
}

impl Adapter for Group {
    fn profile(&self, query: &[u8], matrix: &ScoreMatrix) -> Vec<u32> {
        let mut profile = vec![query.len() as u32, 0, 0, 0];
        profile.extend(sequential_profile(query, matrix));
        profile.extend(pair_table(matrix));
        profile.extend(query.chunks(4).map(|codes| {
            u32::from_le_bytes(std::array::from_fn(|k| {
                codes.get(k).copied().unwrap_or(PAD_CODE)
            }))
        }));
        profile
    }

    fn run_emulated(&self, chunk: &PackedChunk, profile: &[u32], gaps: Gaps) -> Result<Vec<i32>> {
        let parts = parts(profile)?;
        let config = config_for(chunk.longest());
        if !simt_i16x2::gaps_fit(gaps) || config.is_none() {
            return Ok(super::simt::run_simt_i16x2_chunk(
                chunk,
                parts.sequential,
                gaps,
            ));
        }
        let threads = chunk.sequences();
        let mut scores = vec![0i32; threads];
        let params = GroupParams {
            table: parts.table.as_ptr(),
            query: parts.query.as_ptr(),
            residues: chunk.words.as_ptr(),
            lengths: chunk.lengths.as_ptr(),
            scores: scores.as_mut_ptr(),
            query_len: parts.query_len as u32,
            threads: threads as u32,
            gaps: GapAddends::new(gaps),
        };
        let pairs = threads.div_ceil(2);
        // SAFETY: the chunk's sequences fit the configuration's width
        // (`config_for`), the gaps fit 16 bits, the buffers are the chunk's
        // and the profile's own; pairs run one at a time.
        unsafe {
            for pair in 0..pairs {
                match config {
                    Some(0) => align::<4, 16>(&params, pair),
                    Some(1) => align::<8, 16>(&params, pair),
                    Some(2) => align::<16, 16>(&params, pair),
                    Some(3) => align::<32, 16>(&params, pair),
                    _ => align::<32, 32>(&params, pair),
                }
            }
        }
        // The rescue, as the GPU's second launch.
        let rescued = with_chunk_params(chunk, parts.sequential, gaps, |simt: &SimtParams| {
            // SAFETY: as `run_simt_i16x2_chunk`'s rescue: the SIMT buffers
            // come from `with_chunk_params`, the scores from the group run.
            unsafe {
                for t in 0..threads {
                    *simt.scores.add(t) = scores[t];
                    simt_i16x2::rescue_sequence(simt, t as u32);
                }
            }
        });
        Ok(rescued)
    }

    fn extra_symbols(&self) -> &'static [&'static str] {
        &[
            "sw_group_i16x2_g4_r16",
            "sw_group_i16x2_g8_r16",
            "sw_group_i16x2_g32_r16",
            "sw_group_i16x2_g32_r32",
            RESCUE_SYMBOL,
            "sw_simt_i16x2",
            "sw_simt_i32",
        ]
    }

    fn dynamic_shared_bytes(&self, symbol: &str) -> usize {
        if CONFIGS.iter().any(|&(s, _, _)| s == symbol) {
            SHARED_BYTES
        } else {
            0
        }
    }

    fn launch(&self, l: &ChunkLaunch<'_>) -> Result<()> {
        let threads = l.sequences();
        let query_len = l.query_len();
        let sequential_words = NUM_CODES * gpu_kernels::layout::profile_words(query_len);
        let query_words = sequential_words / NUM_CODES;
        l.check_sizes(
            l.profile_words()
                == HEADER_WORDS + sequential_words + TABLE_WORDS + query_len.div_ceil(4)
                && l.row_buffer_pairs() >= l.words_per_sequence() * 4 * threads,
        )?;
        let gaps = l.gaps();
        let profile = l.pointers(WorkBuffer::Rows)?.profile;
        let sequential = profile + 4 * HEADER_WORDS as u64;
        let simt = SimtArgs::new(l, Some(sequential), query_words, threads)?;
        // SAFETY (the SIMT launches below): the duties of `sw_simt_i32`,
        // `sw_simt_i16x2` and its rescue, checked above as in the `simt`
        // adapter: the sequential part of the profile has NUM_CODES *
        // query_words words (whole strips), the chunk's buffers and the row
        // buffer their sizes; launches run in stream order, so the rescue
        // reads the scores the 16-bit launch wrote.
        let simt_launch = |symbol: &str, threads: usize| unsafe {
            simt.launch(l, symbol, one_thread_each(threads))
        };
        if !simt_i16x2::gaps_fit(gaps) {
            return simt_launch("sw_simt_i32", threads);
        }
        let Some(config) = config_for(l.longest()) else {
            simt_launch("sw_simt_i16x2", threads.div_ceil(2))?;
            return simt_launch(RESCUE_SYMBOL, threads);
        };
        let (symbol, lanes, _) = CONFIGS[config];
        let ptrs = l.pointers(WorkBuffer::Rows)?;
        let table = sequential + 4 * sequential_words as u64;
        let params = GroupParams {
            table: table as *const u32,
            query: (table + 4 * TABLE_WORDS as u64) as *const u32,
            residues: ptrs.residues as *const u32,
            lengths: ptrs.lengths as *const u32,
            scores: ptrs.scores as *mut i32,
            query_len: query_len as u32,
            threads: threads as u32,
            gaps: GapAddends::new(gaps),
        };
        let grid = vector_grid(threads.div_ceil(2) * lanes, SHARED_BYTES as u32);
        // SAFETY: `sw_group_i16x2_*`'s duties: the gaps fit 16 bits, every
        // sequence of the chunk fits the configuration's width
        // (`config_for`), the profile holds the table and the query's codes
        // where `params` points (size checked above), blocks of whole warps
        // with the table's shared memory (the limit set when the module was
        // loaded), a group for every pair.
        unsafe { l.launch_params(symbol, &params, grid, "running the group kernel")? };
        drop(ptrs);
        simt_launch(RESCUE_SYMBOL, threads)
    }
}

/// One pair on an emulated group of `G` lanes of `R` columns.
///
/// # Safety
/// As `gpu_kernels::group_i16x2::align_pair` with `N = G`.
unsafe fn align<const G: usize, const R: usize>(params: &GroupParams, pair: usize) {
    gpu_kernels::group_i16x2::align_pair::<HostVector<G>, R, G>(params, params.table, pair);
}
