//! Adapter of the group kernels (`gpu_kernels::group_i16x2`): CUDASW++ 4.0's
//! mapping (Schmidt 2024), a group of lanes per pair of database sequences,
//! 16-bit scores, the 32-bit rescue of `simt-i16x2` after it. One
//! configuration (lanes per group × columns per lane) per chunk
//! (`gpu_kernels::group_i16x2::config_for`): the narrowest single-pass one
//! that covers the chunk's longest sequence, or for longer chunks a
//! several-pass one, run in launches of at most what the border scratch
//! holds. Gap penalties beyond 16 bits run `simt`, as for `simt-i16x2`.
//!
//! The profile is four words: a header (the query's length, then three
//! words that keep what follows 16-byte aligned), the sequential profile
//! (for the rescue and the fallbacks), the pair table and the query's codes.

use gpu_kernels::group_i16x2::{
    CONFIGS, Config, GapAddends, GroupParams, SHARED_BYTES, SINGLE_PASS_COLUMNS, TABLE_WORDS,
    align_pair_emulated, config_for, query_words, scratch_words, shared_table,
};
use gpu_kernels::layout::{NUM_CODES, PAD_CODE, PAD_SCORE};
use gpu_kernels::recurrence::Gaps;
use gpu_kernels::simt_i16x2;

use super::Adapter;
use super::simt::{RESCUE_SYMBOL, SimtArgs};
use crate::db::PackedChunk;
use crate::error::{Error, Result};
use crate::kernel::launch::{ChunkLaunch, VECTOR_BLOCK, WorkBuffer, one_thread_each, vector_grid};
use crate::matrix::ScoreMatrix;
use crate::profile::sequential_profile;

/// Words before the sequential profile.
const HEADER_WORDS: usize = 4;

/// Every entry point a group launch may use: each configuration, the
/// rescue, and the fallbacks.
const EXTRA_SYMBOLS: [&str; CONFIGS.len() + 3] = {
    let mut symbols = [RESCUE_SYMBOL; CONFIGS.len() + 3];
    let mut k = 0;
    while k < CONFIGS.len() {
        symbols[k] = CONFIGS[k].symbol;
        k += 1;
    }
    symbols[k + 1] = "sw_simt_i16x2";
    symbols[k + 2] = "sw_simt_i32";
    symbols
};

/// The group kernels' family.
pub(crate) struct Group;

/// The parts of a group profile.
struct Parts<'a> {
    query_len: usize,
    sequential: &'a [u32],
    table: &'a [u32],
    query: &'a [u32],
}

/// Words of the sequential profile of a query of `query_len` residues.
fn sequential_words(query_len: usize) -> usize {
    NUM_CODES * gpu_kernels::layout::profile_words(query_len)
}

/// Words of the whole profile [`Group::profile`] makes for a query of
/// `query_len` residues.
pub(super) fn profile_words(query_len: usize) -> usize {
    HEADER_WORDS + sequential_words(query_len) + TABLE_WORDS + query_words(query_len)
}

/// [`Group::profile`] in a vector with room for `more` words after it
/// (another kernel's part: `super::query_group`'s profile starts with this
/// one).
pub(super) fn group_profile(query: &[u8], matrix: &ScoreMatrix, more: usize) -> Vec<u32> {
    let mut profile = Vec::with_capacity(profile_words(query.len()) + more);
    profile.extend([query.len() as u32, 0, 0, 0]);
    profile.extend(sequential_profile(query, matrix));
    profile.extend(pair_table(matrix));
    // The query's codes, padded with the pad code to `query_words`.
    profile.extend((0..query_words(query.len())).map(|w| {
        u32::from_le_bytes(std::array::from_fn(|k| {
            query.get(4 * w + k).copied().unwrap_or(PAD_CODE)
        }))
    }));
    profile
}

/// Splits a profile made by [`Group::profile`].
fn parts(profile: &[u32]) -> Result<Parts<'_>> {
    let bad = || Error::Internal("a group profile of the wrong size".into());
    let query_len = *profile.first().ok_or_else(bad)? as usize;
    if profile.len() != profile_words(query_len) {
        return Err(bad());
    }
    let (sequential, rest) = profile[HEADER_WORDS..].split_at(sequential_words(query_len));
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
    // Built row by row from each letter's scores (every query's profile
    // holds the table: its 15,625 words are a search's per-query host work).
    let mut table = Vec::with_capacity(TABLE_WORDS);
    for a in 0..NUM_CODES {
        let row: [u32; NUM_CODES] = std::array::from_fn(|b| u32::from(score(a, b) as u16));
        for low in row {
            table.extend(row.iter().map(|&high| low | high << 16));
        }
    }
    table
}

/// Pairs of long sequences (several passes) a launch aligns at most, per
/// multiprocessor: a few waves of the 32-lane groups, so that the border
/// scratch stays a few hundred MB at the longest queries.
const MULTI_PASS_PAIRS_PER_SM: usize = 96;

/// Where chunk plans split for the group kernels: each single-pass
/// configuration's width (16 to 1024 residues), and beyond them lengths a
/// quarter to a half apart, so that a chunk of long sequences holds lengths
/// within that of its longest (the configuration and its passes are chosen
/// for the longest; a shorter pair wastes at most one pass).
pub(crate) fn chunk_widths() -> Vec<usize> {
    CONFIGS
        .iter()
        .filter(|c| !c.passes)
        .map(|c| c.width())
        .chain(
            [1280, 1536, 2048, 3072, 4096]
                .into_iter()
                .filter(|&w| w > SINGLE_PASS_COLUMNS),
        )
        .collect()
}

/// Pairs a multi-pass launch aligns at most on a GPU of `sm_count`
/// multiprocessors.
fn multi_pass_pairs(sm_count: usize) -> usize {
    sm_count.max(1) * MULTI_PASS_PAIRS_PER_SM
}

impl Adapter for Group {
    fn profile(&self, query: &[u8], matrix: &ScoreMatrix) -> Vec<u32> {
        group_profile(query, matrix, 0)
    }

    fn run_emulated(&self, chunk: &PackedChunk, profile: &[u32], gaps: Gaps) -> Result<Vec<i32>> {
        let parts = parts(profile)?;
        if !simt_i16x2::gaps_fit(gaps) {
            return Ok(super::simt::run_simt_i16x2_chunk(
                chunk,
                parts.sequential,
                gaps,
            ));
        }
        let config = config_for(chunk.longest());
        let threads = chunk.sequences();
        let mut scores = vec![0i32; threads];
        // The table as a block holds it in shared memory (biased or not).
        let mut table = vec![0u32; TABLE_WORDS];
        shared_table(config, parts.table, GapAddends::new(gaps), &mut table);
        // One pair at a time: one pair's border scratch (u64: 8-byte
        // aligned, as the kernel reads it).
        let mut scratch = vec![0u64; scratch_words(parts.query_len).div_ceil(2)];
        let mut params = GroupParams {
            table: parts.table.as_ptr(),
            query: parts.query.as_ptr(),
            residues: chunk.words.as_ptr(),
            lengths: chunk.lengths.as_ptr(),
            scores: scores.as_mut_ptr(),
            query_len: parts.query_len as u32,
            threads: threads as u32,
            gaps: GapAddends::new(gaps),
            first_pair: 0,
            scratch: scratch.as_mut_ptr().cast::<u32>(),
        };
        let pairs = threads.div_ceil(2);
        // SAFETY: the configuration is `config_for` the chunk (wider
        // sequences than its width only with 32 lanes), the gaps fit 16
        // bits, the buffers are the chunk's and the profile's own (the
        // query padded to `query_words`), `table` is `shared_table` of the
        // profile's; pairs run one at a time, each as the first of its
        // launch with the scratch of one pair.
        unsafe {
            for pair in 0..pairs {
                params.first_pair = pair as u32;
                align_pair_emulated(config, &params, table.as_ptr(), pair);
            }
        }
        // The rescue, as the GPU's second launch.
        Ok(super::rescue::run_chunk(
            chunk,
            parts.sequential,
            gaps,
            &scores,
        ))
    }

    fn extra_symbols(&self) -> &'static [&'static str] {
        &EXTRA_SYMBOLS
    }

    fn scratch_pairs(
        &self,
        query_len: usize,
        threads: usize,
        longest: usize,
        sm_count: usize,
    ) -> usize {
        if longest <= SINGLE_PASS_COLUMNS {
            return 0;
        }
        // A pair's scratch is `scratch_words`, two words a slot: one pair
        // of i32 a slot.
        threads.div_ceil(2).min(multi_pass_pairs(sm_count)) * scratch_words(query_len) / 2
    }

    fn dynamic_shared_bytes(&self, symbol: &str) -> usize {
        if CONFIGS.iter().any(|c| c.symbol == symbol) {
            SHARED_BYTES
        } else {
            0
        }
    }

    fn overlaps(&self, gaps: Gaps) -> bool {
        // The 16-bit launches use no row buffer; the 32-bit fallback does.
        simt_i16x2::gaps_fit(gaps)
    }

    fn after_overlap(&self, l: &ChunkLaunch<'_>) -> Result<()> {
        simt_launch(l, RESCUE_SYMBOL, 0)
    }

    fn launch(&self, l: &ChunkLaunch<'_>) -> Result<()> {
        launch_group(l, 0)
    }
}

/// [`Group`]'s launch on `l`'s chunk, whose profile is a group profile
/// followed by `suffix` words of another kernel's (the query-group
/// kernels' profile starts with one: `super::query_group`).
pub(super) fn launch_group(l: &ChunkLaunch<'_>, suffix: usize) -> Result<()> {
    let threads = l.sequences();
    let query_len = l.query_len();
    l.check_sizes(l.profile_words() == profile_words(query_len) + suffix)?;
    let gaps = l.gaps();
    if !simt_i16x2::gaps_fit(gaps) {
        return simt_launch(l, "sw_simt_i32", suffix);
    }
    if super::rescue::scores_whole_chunk(l)? {
        // The rescue scores every pair of the chunk: beside other chunks
        // once the engine's stream has joined this one, or here where
        // chunks are launched one after another.
        super::rescue::preset_out_of_range(l)?;
        if l.overlapping() {
            return Ok(());
        }
        return simt_launch(l, RESCUE_SYMBOL, suffix);
    }
    let config = config_for(l.longest());
    let Config {
        symbol,
        lanes,
        passes: multi_pass,
        ..
    } = CONFIGS[config];
    let pairs = threads.div_ceil(2);
    // The several-pass configurations (chosen for chunks wider than
    // every single pass) take a border scratch of `scratch_words` per
    // pair of the launch: such chunks run in launches of at most what
    // the scratch holds.
    let per_launch = if multi_pass {
        let fit = 2 * l.scratch_pairs() / scratch_words(query_len).max(1);
        whole_blocks(fit, pairs, VECTOR_BLOCK as usize / lanes)
    } else {
        pairs
    };
    l.check_sizes(per_launch > 0 || pairs == 0)?;
    let ptrs = l.pointers(if multi_pass {
        WorkBuffer::Scratch
    } else {
        WorkBuffer::Nothing
    })?;
    let sequential = ptrs.profile + 4 * HEADER_WORDS as u64;
    let table = sequential + 4 * sequential_words(query_len) as u64;
    let mut first_pair = 0;
    while first_pair < pairs {
        let launch_pairs = per_launch.min(pairs - first_pair);
        let params = GroupParams {
            table: table as *const u32,
            query: (table + 4 * TABLE_WORDS as u64) as *const u32,
            residues: ptrs.residues as *const u32,
            lengths: ptrs.lengths as *const u32,
            scores: ptrs.scores as *mut i32,
            query_len: query_len as u32,
            threads: threads as u32,
            gaps: GapAddends::new(gaps),
            first_pair: first_pair as u32,
            scratch: if multi_pass {
                ptrs.buffer as *mut u32
            } else {
                std::ptr::null_mut()
            },
        };
        let grid = vector_grid(launch_pairs * lanes, SHARED_BYTES as u32);
        // SAFETY: `sw_group_i16x2_*`'s duties: the gaps fit 16 bits, the
        // configuration is `config_for` the chunk (wider sequences only
        // with 32 lanes, and then the scratch holds `launch_pairs` pairs'
        // borders, checked above), the profile holds the table and the
        // query's codes where `params` points (size checked above),
        // blocks of whole warps with the table's shared memory (the
        // limit set when the module was loaded), a group for every pair
        // of the launch; launches in stream order share the scratch.
        unsafe { l.launch_params(symbol, &params, grid, "running the group kernel")? };
        first_pair += launch_pairs;
    }
    drop(ptrs);
    // Beside other chunks the rescue waits: it needs the row buffer.
    if l.overlapping() {
        Ok(())
    } else {
        simt_launch(l, RESCUE_SYMBOL, suffix)
    }
}

/// Pairs a launch of a several-pass chunk of `pairs` pairs aligns when the
/// scratch holds `fit` pairs' borders: all of them, or whole blocks of
/// `per_block` groups. The kernel has no end for a launch's pairs but the
/// chunk's, so a launch that ended inside a block would leave that block's
/// last groups aligning the next launch's pairs, their borders past this
/// launch's scratch.
fn whole_blocks(fit: usize, pairs: usize, per_block: usize) -> usize {
    if fit >= pairs {
        pairs
    } else {
        fit / per_block * per_block
    }
}

/// The sequential part of a group profile (for the rescue and the
/// fallbacks); an internal error if `profile` is no group profile.
pub(super) fn sequential_part(profile: &[u32]) -> Result<&[u32]> {
    parts(profile).map(|p| p.sequential)
}

/// Queues SIMT entry point `symbol` (`sw_simt_i32`, `sw_simt_i16x2` or the
/// rescue, where [`super::rescue::needed`]) on `l`'s chunk, one thread a
/// sequence (the rescue: its own grid, [`super::rescue::grid`]), with the
/// group profile's
/// sequential part and the row buffer; the profile is a group profile and
/// `suffix` words after it.
pub(super) fn simt_launch(l: &ChunkLaunch<'_>, symbol: &str, suffix: usize) -> Result<()> {
    if symbol == RESCUE_SYMBOL && !super::rescue::needed(l) {
        return Ok(());
    }
    let threads = l.sequences();
    let query_len = l.query_len();
    // The sequential profile's words per residue code (whole strips).
    let strip_words = gpu_kernels::layout::profile_words(query_len);
    l.check_sizes(
        l.profile_words() == profile_words(query_len) + suffix
            && l.row_buffer_pairs() >= l.words_per_sequence() * 4 * threads,
    )?;
    let profile = l.pointers(WorkBuffer::Rows)?.profile;
    let sequential = profile + 4 * HEADER_WORDS as u64;
    let simt = SimtArgs::new(l, Some(sequential), strip_words, threads)?;
    // SAFETY: the duties of `sw_simt_i32`, `sw_simt_i16x2` and its rescue,
    // checked above as in the `simt` adapter: the sequential part of the
    // profile has NUM_CODES * strip_words words (whole strips), the chunk's
    // buffers and the row buffer their sizes; launches run in stream order
    // (the rescue after the group launch on one stream, or, for an
    // overlapping launch, after the engine's stream waited for it), so the
    // rescue reads the scores the 16-bit launch wrote.
    let config = if symbol == RESCUE_SYMBOL {
        super::rescue::grid(l.sm_count())
    } else {
        one_thread_each(threads)
    };
    unsafe { simt.launch(l, symbol, config) }
}

#[cfg(test)]
mod tests {
    use super::whole_blocks;

    /// A chunk in several launches ends each but the last at a block's end.
    #[test]
    fn launches_of_a_chunk_end_at_whole_blocks() {
        assert_eq!(whole_blocks(15_001, 12_000, 8), 12_000);
        assert_eq!(whole_blocks(15_001, 20_000, 8), 15_000);
        assert_eq!(whole_blocks(12_672, 20_000, 8), 12_672);
        assert_eq!(whole_blocks(7, 20_000, 8), 0);
    }
}
