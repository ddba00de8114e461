//! `sw_query_group_i16x2_*`: local alignment scores, a group of lanes per
//! pair of database sequences with the roles of [`crate::group_i16x2`]
//! swapped: the query's columns sit in the group's lanes and the pair's
//! residues stream through the group; each lane reads its columns' scores
//! from a query profile in shared memory, sixteen at a time; 16-bit
//! scores, two sequences per register; out-of-range scores rescued in 32
//! bits by `sw_query_group_i32_rescue`.
//!
//! The group and its shuffles are CUDASW++ 4.0's (Schmidt, B., Kallenborn,
//! F., Chacon, A. & Hundt, C. (2024). *CUDASW++4.0: ultra-fast GPU-based
//! Smith-Waterman protein sequence database search.* BMC Bioinformatics
//! 25:342); the scores come from the query profile of SW-CUDA (Manavski,
//! S. A. & Valle, G. (2008). *CUDA compatible GPU cards as efficient
//! hardware accelerators for Smith-Waterman sequence alignment.* BMC
//! Bioinformatics 9(Suppl 2):S10) and CUDASW++ 2.0 (Liu, Schmidt &
//! Maskell 2010): for a database letter, the scores of consecutive query
//! positions side by side. Why swap: in `group_i16x2` every lane looks up
//! its own (query letter, residue pair) word of a pair table, 32 random
//! words a warp load, which costs the shared-memory pipe about 3.5
//! wavefronts per 64 cells; that pipe, not the arithmetic, sets its pace
//! (benches/RESULTS.md). Here a lane's columns are consecutive query
//! positions, so one 16-byte load brings the scores of 16 of them for one
//! database letter, and the lanes of a warp read disjoint banks: 4
//! wavefronts per 512 cells. Per cell what is left is the cell update and
//! one byte permute that makes the two sequences' scores one `i16x2`.
//!
//! # Thread mapping
//! 1-D grid of blocks of whole warps; global group `p = thread / G` aligns
//! the query with sequences `2p` (low half) and `2p + 1` (high half, absent
//! when the chunk has an odd number) of the chunk (with two queries in the
//! halves, sequence `p` with both: *Two queries* below). A launch is one *pass*:
//! the query columns `pass·W .. (pass+1)·W` (`W = G·R`), lane `l` of the
//! group holding columns `pass·W + l·R ..` of them. The pair's residues
//! stream through the group as a wavefront: at step `t` lane `l` computes
//! database row `t - l` across its `R` columns, then hands its last
//! column's `H`, the `E` leaving it and the row's two residue codes to lane
//! `l + 1` by one shuffle each. Lane 0 takes row `t`'s residues from the
//! chunk and its left border from the pass before (the matrix's left
//! border, `H = 0` and no gap, in the first pass). Every group of a warp
//! runs the same steps, `n + G - 1` rounded up to whole iterations of four,
//! `n` the longest sequence of the warp's pairs. (That is one row a step;
//! the `_2rows` configurations compute two: *Rows a step* below.)
//!
//! A query of `m` residues takes `ceil(m / W)` launches on a chunk, in
//! stream order. Between them, the last lane's `H` and `E` of every row go
//! through the border scratch in global memory, a slot (an `H` and an `E`,
//! two `i16x2`) per step: slot `t` holds what the last lane handed out at
//! step `t` (row `t - G + 1`), and lane 0 of the next pass reads row `r`
//! from slot `r + G - 1`. Each pass keeps the best of its cells and the
//! score written is the best of every pass so far.
//!
//! # Memory layout
//! The chunk in the SIMT layout (residues interleaved by sequence, 4 per
//! word; [`crate::layout`]). The query profile in global memory, built by
//! the host: [`NUM_CODES`] rows of [`profile_row_words`] words, byte `j` of
//! row `c` the score `s(q_j, c)` of query position `j` against residue code
//! `c` (`PAD_SCORE` past the query's end and for the pad code). Each block
//! first copies its pass's columns into shared memory, each byte as its
//! update reads it ([`window_word`]), as its *window*: for residue code `c`, slice
//! `k` (columns `16k .. 16k + 16` of a lane) and lane `l`, 16 bytes at word
//! `((c · K + k) · G + l) · 4` (`K` = [`slices`]`(R)`). A lane's load of
//! slice `k` for a residue reads the 16 bytes at its own offset; eight
//! consecutive lanes read 128 consecutive bytes of the window (same code)
//! or bytes 128 apart in different codes' rows (rows are a multiple of 128
//! bytes), so the load should take its 4 wavefronts (ncu counted more on
//! an H100, for reasons not yet known: benches/RESULTS.md). Lanes of 18
//! columns (`g8_r18_lifted`: a 144-residue query in one pass, no column
//! wasted) start every other one inside a profile word, so those lanes'
//! window words are each put together from two ([`profile_bytes`], in the
//! copy only; the steps read the window as for any other width).
//!
//! # Cell updates
//! Three, one per configuration ([`Update`]); [`update_for`] picks the
//! first that fits the matrix and the gaps:
//! * *lifted* (below), where every score plus `first` lies in `0 ..= 127`
//!   ([`lift_fits`]: BLOSUM62 from `first` 4 to 116);
//! * *biased*, [`crate::group_i16x2`]'s (H kept as `H - first`, five
//!   add-and-max operations a cell, E's chain one of them), where every
//!   window byte plus `first` fits an `i8` ([`bias_fits`]);
//! * *plain*, the recurrence as it is (two configurations).
//!
//! # Lifted update
//! On Hopper every `i16x2` min/max operation (`VIMNMX`, `VIMNMX3`,
//! `VIADDMNMX`) and the permute issue on one pipe at half the rate of
//! issue; ncu measured it 95 % busy under the biased update on an H100
//! (benches/RESULTS.md). The lifted update moves the additions to the FMA
//! pipe: every E, F and the H that the cell returns are kept as themselves
//! plus `first` (H `+ first` is `H'`), the H kept for the next row as it
//! is (`H = H' - first`), E floored at `first` (H = 0 lifted), and the
//! window holds `s + first`:
//!
//! ```text
//! H'  = max(H_diag + (s + first), E', F')   one 32-bit add, one VIMNMX3
//! H   = H' - first                          one 32-bit add
//! E'' = max(E' - extend, H, first)          one 32-bit add, one VIMNMX3
//! F'' = max(F' - extend, H)                 one VIADDMNMX
//! ```
//!
//! Flooring E at zero does not change any H (every H is at least 0, and
//! max(floor(E) - extend, y) floors to the same as max(E - extend, y)), and
//! with E at least `first`, H' is too. So in both halves H lies in `0 ..=
//! 32767 - first`, E' - extend in `first - extend ..` (at least 0), and
//! `H_diag + (s + first)` in `0 ..= 32767 - first + 127`: none of the three
//! adds can carry or borrow from one half into the other, and each is one
//! plain 32-bit addition, which ptxas issues as `IMAD` on the FMA pipe
//! (ptxas 13.0: 3.5 min/max-pipe operations a cell against 5.5 biased,
//! 4.95 min/max-pipe instructions a lane-cell in all against 6.95). The
//! halves never mix, even after one of them leaves 16 bits.
//!
//! E's chain from column to column is three operations (`VIMNMX3`, `IMAD`,
//! `VIMNMX3`). Every rearrangement that shortens it costs the update an
//! operation: E'' = max(E' - extend, T - first) with T = max(H_diag + s +
//! first, F', first) makes it one `VIADDMNMX` but adds a min/max; keeping
//! everything lifted by `first + extend`, F floored instead of E, makes
//! it two (E'' = max(H' - first, E' - extend), one `VIADDMNMX`) but adds a
//! 32-bit add. Flooring the diagonal term instead of E leaves one `IMAD`
//! a cell but adds a min/max. On an H100 each ran slower: the shorter
//! chains raised the issue rate less than they raised the instructions or
//! the min/max pipe's load (benches/RESULTS.md).
//!
//! # Gap costs as immediates
//! The lifted update adds four gap constants to every cell (`-first` and
//! `-extend` as 32-bit addends, `-extend` in both halves, `first` as E's
//! floor). Taken from the launch's parameters, each is a register that
//! every one of those instructions reads; compiled in, each is an
//! immediate operand (`VIADD`, `VIADDMNMX` and `VIMNMX3` take one), and
//! a cell's instructions read about a quarter fewer registers. The same
//! operations, about as many instructions (ptxas 13.0, `g8_r20_queries`:
//! 646 an iteration against 649), yet on an H200 the 20 standard queries
//! ran 12 % faster on 1,000,000 sequences of 128, 256 and 512 residues
//! (benches/RESULTS.md, "Gap costs compiled in"). So every
//! configuration of the lifted update is compiled once more for each gap
//! setting of [`FIXED_GAPS`], an entry point named with its
//! [`FIXED_GAP_SUFFIXES`] (`sw_query_group_i16x2_g8_r20_queries_o11e1`);
//! [`Config::symbol_for`] picks the one for a launch's gaps, and any other
//! gaps run the configuration's own entry point, which takes them from its
//! parameters ([`align_pass`]'s `S`).
//!
//! # Rows a step
//! A lane's row is one dependency chain: E runs through its `R` columns
//! one after another (three operations a column under the lifted update),
//! and the row's first column waits, by a shuffle, for the left
//! neighbour's last. The configurations of two rows a step (`_2rows`,
//! [`Config::rows_per_step`] 2) compute rows `2(t - l)` and `2(t - l) +
//! 1` on lane `l` at step `t`, the second row's cell of a column right
//! after the first's (it needs the first's H and F of that column, and
//! as its diagonal the first's H of the column before): two chains side
//! by side, so that a warp waits less on each. A lane hands both rows'
//! last H and E on (four shuffles a step: as many a row as before) and
//! the rows' window offsets (two shuffles, one with two queries, whose
//! offsets fit 16 bits each), lane 0 takes two rows' residues a step, and
//! the border slots are the
//! same, one a row (slot `r + G - 1` holds row `r`), the last lane
//! writing its two once they are rows of the matrix. The wavefront
//! takes `G - 1` steps of two rows to fill the group ([`pass_steps`]),
//! twice the rows of one. On an H100 (570k synthetic database) one query
//! with the lifted update ran 2 to 4 % faster with two rows a step at 18
//! and 24 columns a lane (not at 20 or 28: the configurations of two rows
//! are those widths', and `g16_r24`, `g8_r16`), while two queries in the
//! halves ran 4 % slower at `g8_r20`: there the extra instructions (2 to
//! 3 % a cell: the second row's addresses and the border's guard) did not
//! issue faster. So the models choose two rows a step only for one query
//! (`g8_r20_queries_2rows` is there to be measured, pinned), weighing
//! them against one row ([`Config::step_cost`]; benches/RESULTS.md).
//!
//! # Exactness
//! Biased and plain as [`crate::group_i16x2`]'s updates, with the scores
//! from the window instead of the pair table (the biased window is `s +
//! first` as an `i8`, [`bias_fits`], so the permute's sign extension is
//! exact): every 16-bit value is exact while every H is at most
//! [`SCORE_LIMIT`]; the first H above it is exact and the best keeps it.
//! Lifted: while every H' is at most [`SCORE_LIMIT`], `H_diag + s + first`
//! is at most `SCORE_LIMIT + 127 - first` and every 16-bit value is exact;
//! the first H' above it is exact and the best keeps it; a kept best above
//! [`SCORE_LIMIT`] is written as it is (above the limit, so the pair is
//! rescued: the score, `first` less, may not be), any other less `first`.
//! Across passes the border carries exact values up to the first
//! out-of-range H, which the pass that computed it keeps in its best; the
//! running best of the passes keeps it too, so the pair is rescued.
//!
//! # Two queries
//! With [`Halves::Queries`] (the `_queries` configurations) the halves
//! hold two queries instead of two sequences: group `p` aligns database
//! sequence `p` of the chunk with both, the low query in the low half.
//! The host builds one profile for the pair ([`pair_row_words`]): for
//! residue code `c`, word `j` holds the scores of position `j` of both
//! queries against `c` as an `i16x2` (the pad score past a query's end),
//! and the window holds each half plus `first` ([`lifted_pair_word`]):
//! for code `c`, slice `k` (columns `4k .. 4k + 4` of a lane) and lane
//! `l`, 16 bytes at word `((c · R/4 + k) · G + l) · 4`
//! ([`pair_window_source`]), so a lane's 16-byte load brings four columns
//! of both queries and the score goes into the update as it is: no byte
//! permute, one residue a row to look up instead of two. Only the lifted
//! update runs (a word a column leaves no room for the biased one's `i8`
//! bytes, and the host pairs queries only where [`lift_fits`]). The
//! shorter query's columns past its end score the pad score, which clamps
//! to `-first` lifted (H = 0), so its best is its own. Each query's best
//! goes to its own scores (`scores` and `high_scores`); each is rescued
//! as one query's. The window holds `R` words a lane and code, against
//! `16 · ceil(R / 16) / 4` ([`Halves::window_words`]: 2.5 times at 20
//! columns); the loads per lane-cell are twice as many (a 16-byte load
//! for 4 lane-cells instead of two loads for 16), still 4 wavefronts a
//! warp's load. ptxas 13.0, steps' loop per lane-cell (g8_r20): 8.29
//! SASS instructions against 9.44 for two sequences, and one min/max-pipe
//! operation fewer (the permute). Whether two queries pair on a chunk is
//! [`queries_pay`]'s call.
//!
//! # Handing a pair's longer query over
//! Past the shorter query's end a pair still computes both halves: its
//! longer query's last columns cost two cells for one. Where the shorter
//! query ends at pass `j`, the host can hand the longer query's remaining
//! columns to a one-query configuration of the lifted update with the same
//! `G`: after the pair's passes `0 .. j` (the last of them writing the
//! border), [`sw_query_group_i16x2_hand_over`] repacks the launch's border
//! in place, the longer query's half of sequence `s`'s slots into half `s
//! mod 2` of group `s / 2`'s, and the one-query passes resume the query at
//! column `j · W` ([`QueryGroupParams::first_column`]: their first pass
//! reads that border and raises the scores the pair's passes left). Both
//! modes keep a slot as an `H` (as it is) and an `E` (plus `first`), row
//! `r` in slot `r + G - 1`, so the repack copies halves. Rows past a
//! sequence's end, which a one-query warp may compute where no pair warp
//! did, get the empty border (`H = 0`, `E = first`). Each query's best is
//! only in its scores, so its rescue after the passes is as without the
//! handover.
//!
//! # A batch of query pairs
//! Many queries against a small database fill a GPU only together: a
//! launch's grid may have several rows, row `y` of blocks aligning *entry*
//! `y` of a batch (two queries in the halves, or one) with the chunk's
//! sequences ([`QueryGroupParams::entry`]). The entries' profile rows lie
//! `profile_stride` words apart (every entry's rows as long, those of the
//! batch's longest query), their scores `scores_stride` apart, and their
//! border scratch one after another, a block of the launch's pairs each.
//! Every entry of a launch runs the same configuration and pass; the host
//! orders the entries longest first and launches pass `k` over the
//! entries that have it, a prefix of the batch, so the grid's rows are
//! the entries still running. An entry's columns past its queries' ends
//! score the pad score, as with one entry, and each block copies its own
//! entry's window, so nothing of one entry reaches another's. Every entry
//! of a launch reads the first entry's `passes`: a shorter entry's scores
//! are the maximum over the passes it has (each pass raises them), and on
//! its last pass it still writes a border for a pass that never comes, to
//! its own scratch block, which nothing reads.
//!
//! # Padding
//! Rows past a sequence's end are the pad code, columns past the query's
//! end score the pad score, and the rows a lane computes before row 0 (the
//! wavefront's fill) use the pad code: they leave `H = 0` and an F of
//! `-first`, which is what row 0 takes from the matrix's top border. Every
//! padded cell's H is `max(0, diag + pad, E, F)` with the pad score -128
//! (`-first` in the lifted window, which clamps it at 0), E and F falling
//! from the H they came from, so no padded cell exceeds the best real
//! cell.

use core::simd::i16x2;

use crate::group_i16x2::{
    GapAddends, PackedGaps, bits, column_update, group_best, load_slot, pair, row_of_cells, slot,
};
use crate::layout::{NUM_CODES, PAD_CODE, code_byte, score_pair};
use crate::recurrence::{Gaps, Score};
pub use crate::simt_i16x2::{NEG_INF_I16, SCORE_LIMIT, gaps_fit};
use crate::vector::Vector;

/// Columns of one slice of a lane's columns: one 16-byte load.
pub const SLICE_COLUMNS: usize = 16;

/// The widest pass of any configuration (`G · R`): the profile's rows
/// extend this far past the query.
pub const MAX_PASS_COLUMNS: usize = 16 * 32;

/// Slices of a lane of `columns` columns.
pub const fn slices(columns: usize) -> usize {
    columns.div_ceil(SLICE_COLUMNS)
}

/// Words of a profile row for a query of `query_len` residues: every
/// column a pass of any configuration reads, whole 16-byte slices.
pub const fn profile_row_words(query_len: usize) -> usize {
    (query_len + MAX_PASS_COLUMNS).div_ceil(SLICE_COLUMNS) * SLICE_COLUMNS / 4
}

/// Words of a block's window for `lanes` lanes of `columns` columns.
pub const fn window_words(lanes: usize, columns: usize) -> usize {
    NUM_CODES * slices(columns) * lanes * 4
}

/// What the two 16-bit halves of a group's values hold (module docs,
/// *Two queries*).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Halves {
    /// Two database sequences against one query: the window holds a byte
    /// a column, and a byte permute pairs the two sequences' scores.
    Sequences,
    /// Two queries against one database sequence: the window holds both
    /// queries' scores of a column as one `i16x2`, which the update adds
    /// as it is.
    Queries,
}

impl Halves {
    /// Whether the halves hold two queries (the kernels' const generic
    /// argument `Q`).
    pub const fn is_queries(self) -> bool {
        matches!(self, Halves::Queries)
    }

    /// Words of a block's window for `lanes` lanes of `columns` columns.
    pub const fn window_words(self, lanes: usize, columns: usize) -> usize {
        match self {
            Halves::Sequences => window_words(lanes, columns),
            Halves::Queries => NUM_CODES * columns * lanes,
        }
    }
}

/// Words of a row of a query pair's profile for queries of at most
/// `query_len` residues: a word a column (module docs, *Two queries*),
/// every column a pass of any configuration reads.
pub const fn pair_row_words(query_len: usize) -> usize {
    (query_len + MAX_PASS_COLUMNS).next_multiple_of(SLICE_COLUMNS)
}

/// Word `i` of the window of pass `pass` for `lanes` lanes of `columns`
/// columns of a query pair (module docs, *Two queries*): the pair
/// profile's word it copies. For residue code `c`, slice `k` (columns
/// `4k .. 4k + 4` of a lane) and lane `l`, the four words at `((c · R/4 +
/// k) · G + l) · 4`.
#[inline(always)]
pub fn pair_window_source(
    i: usize,
    lanes: usize,
    columns: usize,
    pass: usize,
    row_words: usize,
) -> usize {
    let word = i % 4;
    let lane = (i / 4) % lanes;
    let slice = (i / 4 / lanes) % (columns / 4);
    let code = i / (lanes * columns);
    code * row_words + pass * lanes * columns + lane * columns + 4 * slice + word
}

/// A pair profile's word (two scores, each an `i16`) as the lifted
/// window holds it: each half plus `first`, clamped at 0 (only the pad
/// score is, when [`lift_fits`]) and at 127.
///
/// ```
/// use gpu_kernels::query_group_i16x2::lifted_pair_word;
/// let word = (-128i16 as u16 as u32) | (11 << 16);
/// assert_eq!(lifted_pair_word(word, 11), 22 << 16);
/// ```
#[inline(always)]
pub fn lifted_pair_word(word: u32, first: u32) -> u32 {
    let lift = |half: u32| (i32::from(half as u16 as i16) + first as i32).clamp(0, 127) as u32;
    lift(word & 0xffff) | lift(word >> 16) << 16
}

/// Whether `first` (at least 0) added to every byte of a profile whose
/// largest score is `max` stays an `i8` (module docs, *Exactness*): the
/// smallest byte is the pad score, -128, and `-128 + first` fits.
pub const fn bias_fits(max: i32, first: i32) -> bool {
    first >= 0 && first <= 127 && max + first <= 127
}

/// `word`'s four bytes plus `first` each, as `i8` (no carry between
/// bytes), when every sum fits an `i8` ([`bias_fits`]).
///
/// ```
/// use gpu_kernels::query_group_i16x2::biased_bytes;
/// let word = u32::from_le_bytes([0x80, 0xfc, 11, 0]); // -128, -4, 11, 0
/// assert_eq!(biased_bytes(word, 11).to_le_bytes(), [0x8b, 7, 22, 11]);
/// ```
#[inline(always)]
pub fn biased_bytes(word: u32, first: u32) -> u32 {
    let f = first.wrapping_mul(0x0101_0101);
    ((word & 0x7f7f_7f7f).wrapping_add(f & 0x7f7f_7f7f)) ^ ((word ^ f) & 0x8080_8080)
}

/// How a configuration's cell update keeps its values (module docs,
/// *Cell updates*).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Update {
    /// H as it is, the window holds `s` ([`crate::group_i16x2`]'s plain
    /// update).
    Plain = 0,
    /// H kept as `H - first`, the window holds `s + first`
    /// ([`crate::group_i16x2`], *Biased update*).
    Biased = 1,
    /// Every H, E and F kept as itself plus `first`, the window holds `s +
    /// first` (module docs, *Lifted update*).
    Lifted = 2,
}

/// [`Update::Plain`] as a const generic argument.
pub const PLAIN: u8 = Update::Plain as u8;
/// [`Update::Biased`] as a const generic argument.
pub const BIASED: u8 = Update::Biased as u8;
/// [`Update::Lifted`] as a const generic argument.
pub const LIFTED: u8 = Update::Lifted as u8;

impl Update {
    /// Whether this update runs with a matrix whose scores lie in `min ..=
    /// max` and gap cost `first` (gaps that [`gaps_fit`], with `first` at
    /// least `extend`, as every gap penalty of the host has it: the lifted
    /// update subtracts `extend` from an E of at least `first`): the biased
    /// update needs every window byte plus `first` to fit an `i8`
    /// ([`bias_fits`]), the lifted one needs every real score plus `first`
    /// in `0 ..= 127` ([`lift_fits`]).
    pub const fn fits(self, min: i32, max: i32, first: i32) -> bool {
        match self {
            Update::Plain => true,
            Update::Biased => bias_fits(max, first),
            Update::Lifted => lift_fits(min, max, first),
        }
    }

    /// The update a const generic argument names ([`PLAIN`], [`BIASED`],
    /// [`LIFTED`]).
    pub const fn from_u8(update: u8) -> Update {
        match update {
            BIASED => Update::Biased,
            LIFTED => Update::Lifted,
            _ => Update::Plain,
        }
    }
}

/// Whether every real score of a matrix whose scores lie in `min ..= max`
/// plus `first` lies in `0 ..= 127` (module docs, *Lifted update*): then
/// the permute's sign extension of a window byte is a zero extension, and
/// the pad score, -128 plus `first` clamped at 0, is at most 0.
pub const fn lift_fits(min: i32, max: i32, first: i32) -> bool {
    first >= 0 && min + first >= 0 && max + first <= 127
}

/// A profile word as the window of update `update` holds it: the bytes
/// as they are (plain), plus `first` each ([`biased_bytes`]), or plus
/// `first` each and clamped at 0 (lifted: only the pad score, -128, is
/// clamped, to `-first`, when [`lift_fits`]).
///
/// ```
/// use gpu_kernels::query_group_i16x2::{Update, window_word};
/// let word = u32::from_le_bytes([0x80, 0xfc, 11, 0]); // -128, -4, 11, 0
/// let lifted = window_word(Update::Lifted, word, 11);
/// assert_eq!(lifted.to_le_bytes(), [0, 7, 22, 11]);
/// ```
#[inline(always)]
pub fn window_word(update: Update, word: u32, first: u32) -> u32 {
    match update {
        Update::Biased => biased_bytes(word, first),
        Update::Lifted => u32::from_le_bytes(
            word.to_le_bytes()
                .map(|b| (i32::from(b as i8) + first as i32).clamp(0, 127) as u8),
        ),
        Update::Plain => word,
    }
}

/// The parameter block of the query-group kernels: one pass of the query
/// over a range of the chunk's pairs.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct QueryGroupParams {
    /// The query profile ([`NUM_CODES`] rows of `row_words` words, module
    /// docs).
    pub profile: *const u32,
    /// Packed residues of the chunk, interleaved by sequence as for SIMT.
    pub residues: *const u32,
    /// Length in residues of each sequence of the chunk, `threads` entries.
    pub lengths: *const u32,
    /// One score per sequence of the chunk, `threads` entries: written by
    /// the first pass, raised by the later ones (with two queries, the
    /// low query's).
    pub scores: *mut i32,
    /// With two queries in the halves, the high query's scores as
    /// `scores` holds the low one's; null with two sequences.
    pub high_scores: *mut i32,
    /// The border between passes: `slots` slots of two words for each
    /// pair of the launch, `pair - first_pair` its index, 8-byte aligned
    /// (null when `passes` is 1).
    pub scratch: *mut u32,
    /// Words per profile row ([`profile_row_words`] of the query; with
    /// two queries [`pair_row_words`] of the longer; in a batch, one
    /// width for every entry, at least that of its longest query).
    pub row_words: u32,
    /// Number of sequences in the chunk.
    pub threads: u32,
    /// Words per sequence of the chunk's packed residues.
    pub words: u32,
    /// The launch's pairs are `first_pair .. end_pair`; the groups of its
    /// last block past `end_pair` align nothing (a later launch aligns
    /// their pairs, with a scratch of its own).
    pub first_pair: u32,
    /// The end of the launch's pairs (see `first_pair`).
    pub end_pair: u32,
    /// This launch's pass, `0 .. passes`.
    pub pass: u32,
    /// Passes of the query (`ceil(m / (G · R))`); of a resumed query
    /// (`first_column` above 0), the passes from `first_column` on.
    pub passes: u32,
    /// Slots of border scratch per pair ([`scratch_slots`] of the chunk's
    /// longest sequence): the stride of the groups' blocks, of which each
    /// group uses the first [`scratch_slots`]; a resumed query after a
    /// hand-over has twice that (its block spans the pair's blocks of its
    /// two sequences).
    pub slots: u32,
    /// Gap costs, packed ([`GapAddends::new`] of gaps that [`gaps_fit`]).
    pub gaps: GapAddends,
    /// With a batch of entries in one launch (module docs, *A batch of
    /// query pairs*), words from one entry's profile rows to the next's;
    /// 0 with one entry.
    pub profile_stride: u32,
    /// With a batch, scores from one entry's `scores` (and `high_scores`)
    /// to the next's; 0 with one entry.
    pub scores_stride: u32,
    /// The query column pass 0 starts at: 0, or, for one query
    /// (two sequences in the halves), a later column where the query is
    /// resumed: its pass 0 then reads its left border from the scratch
    /// (written there by the passes before, perhaps of another
    /// configuration) and raises the scores instead of writing them. A
    /// pair of queries whose shorter one has ended can so hand the longer
    /// one's remaining columns to a configuration of one query.
    pub first_column: u32,
}

// SAFETY: plain data with a `#[repr(C)]` layout the PTX entry points share.
#[cfg(feature = "cudarc")]
unsafe impl cudarc::driver::DeviceRepr for QueryGroupParams {}

impl QueryGroupParams {
    /// The parameters of entry `entry` of a batch (module docs, *A batch
    /// of query pairs*): its profile rows `entry` profile strides on, its
    /// scores (and high scores) `entry` score strides on, its border
    /// scratch after that of the `entry` entries before it (a slot block
    /// for each of the launch's pairs each). Entry 0 is `self`.
    ///
    /// # Safety
    /// The buffers hold every entry up to `entry` as the strides lay
    /// them out (the scratch, when not null, `slots` slots for each pair
    /// of the launch of each entry).
    #[inline(always)]
    pub unsafe fn entry(&self, entry: usize) -> QueryGroupParams {
        let mut p = *self;
        p.profile = self.profile.add(entry * self.profile_stride as usize);
        p.scores = self.scores.add(entry * self.scores_stride as usize);
        if !self.high_scores.is_null() {
            p.high_scores = self.high_scores.add(entry * self.scores_stride as usize);
        }
        if !self.scratch.is_null() {
            let pairs = (self.end_pair - self.first_pair) as usize;
            p.scratch = self.scratch.add(entry * pairs * 2 * self.slots as usize);
        }
        p
    }
}

/// The parameter block of [`sw_query_group_i16x2_hand_over`] (module
/// docs, *Handing a pair's longer query over*): one thread a row of each
/// two of a launch's sequences.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct HandOverParams {
    /// The launch's border scratch, [`QueryGroupParams::scratch`]:
    /// before, `slots` slots for each of its pairs (a sequence each, two
    /// queries in the halves); after, the first `slots` of each `2 ·
    /// slots` for each two of its sequences (one query, the two sequences
    /// in the halves), which a one-query launch reads with `2 · slots` as
    /// its [`QueryGroupParams::slots`].
    pub scratch: *mut u64,
    /// Length in residues of each sequence of the chunk.
    pub lengths: *const u32,
    /// The launch's pairs (sequences), `first_pair .. end_pair`,
    /// `first_pair` even.
    pub first_pair: u32,
    /// The end of the launch's pairs.
    pub end_pair: u32,
    /// Slots a pair's block of the pair's launches ([`scratch_slots`]).
    pub slots: u32,
    /// Lanes a group, `G`, of both configurations.
    pub lanes: u32,
    /// The half of the query handed over: 0 (low) or 1 (high).
    pub half: u32,
    /// [`GapAddends::first`]: the empty border's `E` in both halves.
    pub first: u32,
}

// SAFETY: plain data with a `#[repr(C)]` layout the PTX entry point shares.
#[cfg(feature = "cudarc")]
unsafe impl cudarc::driver::DeviceRepr for HandOverParams {}

/// Rows of border a hand-over repacks for each two sequences: slots `G -
/// 1 .. slots`.
pub const fn hand_over_rows(slots: usize, lanes: usize) -> usize {
    slots + 1 - lanes
}

/// Threads of a hand-over of `pairs` sequences: a row of each two.
pub const fn hand_over_threads(pairs: usize, slots: usize, lanes: usize) -> usize {
    pairs.div_ceil(2) * hand_over_rows(slots, lanes)
}

/// Thread `t`'s share of a hand-over: row `r` of group `g` (`t = g ·
/// rows + r`, [`hand_over_rows`]) from the pair blocks of the launch's
/// sequences `2g` and `2g + 1`, `p.half` of each, into the low and the
/// high half of slot `r + G - 1` of the block at `2g · slots`; a row past
/// a sequence's end (or of a sequence past the launch's) the empty border.
/// In place: the slot a thread writes is one that it alone reads, before.
///
/// # Safety
/// `p.lengths` holds the chunk's lengths up to `p.end_pair`; `p.scratch`
/// holds `p.slots` slots for each of the launch's pairs, written where a
/// row lies inside its sequence (the pair's passes), `p.slots >= p.lanes
/// - 1`; no other thread touches them meanwhile but the hand-over's own.
#[inline(always)]
pub unsafe fn hand_over_slot(p: &HandOverParams, t: usize) {
    let (slots, lanes) = (p.slots as usize, p.lanes as usize);
    // At least one (as the duties say): no division by zero to panic on.
    let rows = hand_over_rows(slots, lanes).max(1);
    let (group, row) = (t / rows, t % rows);
    let pairs = (p.end_pair - p.first_pair) as usize;
    if group >= pairs.div_ceil(2) {
        return;
    }
    let half = |word: u32, h: u32| (word >> (16 * h)) & 0xffff;
    let (mut h_word, mut e_word) = (0u32, 0u32);
    for s in 0..2 {
        let sequence = 2 * group + s;
        let inside =
            sequence < pairs && (row as u32) < *p.lengths.add(p.first_pair as usize + sequence);
        let (h, e) = if inside {
            let slot = *p.scratch.add(sequence * slots + row + lanes - 1);
            (half(slot as u32, p.half), half((slot >> 32) as u32, p.half))
        } else {
            (0, half(p.first, s as u32))
        };
        h_word |= h << (16 * s);
        e_word |= e << (16 * s);
    }
    *p.scratch.add(2 * group * slots + row + lanes - 1) =
        u64::from(h_word) | (u64::from(e_word) << 32);
}

/// GPU entry point: the hand-over of a pair's longer query to a one-query
/// configuration (module docs, *Handing a pair's longer query over*),
/// thread `t` [`hand_over_slot`]`(p, t)`.
///
/// # Safety
/// [`hand_over_slot`]'s, after the pair's passes of the launch in stream
/// order; at least [`hand_over_threads`] threads.
#[cfg(target_arch = "nvptx64")]
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn sw_query_group_i16x2_hand_over(p: HandOverParams) {
    hand_over_slot(&p, crate::warp::global_thread_index() as usize);
}

/// The entry point of [`sw_query_group_i16x2_hand_over`].
pub const HAND_OVER_SYMBOL: &str = "sw_query_group_i16x2_hand_over";

/// Steps of a pass over pairs of at most `rows` residues on `lanes` lanes
/// computing `rows_per_step` rows a step (1 or 2): the wavefront fills
/// the group, in whole iterations of four rows (module docs, *Rows a
/// step*).
#[inline(always)]
pub const fn pass_steps(rows: usize, lanes: usize, rows_per_step: usize) -> usize {
    if rows_per_step == 2 {
        (rows.div_ceil(2) + lanes - 1).next_multiple_of(2)
    } else {
        (rows + lanes - 1).next_multiple_of(4)
    }
}

/// Slots of border scratch a pair of sequences of at most `longest`
/// residues needs: the highest slot a pass writes, for groups of up to 32
/// lanes of one row a step (slot `t` at step `t`) or up to 16 of two
/// (slot `row + G - 1`, at most `longest + G + 1`).
pub const fn scratch_slots(longest: usize) -> usize {
    (longest + 31).next_multiple_of(4)
}

/// Rows (residues) of the longer sequence of pair `pair_index` of `p`'s
/// chunk, or with two queries in the halves (`Q`) of sequence
/// `pair_index`; 0 for one past the launch's or the chunk's end.
///
/// # Safety
/// `p.lengths` holds `p.threads` entries.
#[inline(always)]
pub unsafe fn pair_rows<const Q: bool>(p: &QueryGroupParams, pair_index: usize) -> u32 {
    let threads = p.threads as usize;
    if Q {
        return if pair_index < (p.end_pair as usize).min(threads) {
            *p.lengths.add(pair_index)
        } else {
            0
        };
    }
    let low = 2 * pair_index;
    if pair_index >= p.end_pair as usize || low >= threads {
        return 0;
    }
    let high = if low + 1 < threads {
        *p.lengths.add(low + 1)
    } else {
        0
    };
    (*p.lengths.add(low)).max(high)
}

/// Word `i` of the window of pass `pass` from query column `first_column`
/// on, for `lanes` lanes of `columns` columns: the byte of the profile
/// (rows of `4 · row_words` bytes) its
/// four bytes start at ([`profile_bytes`]), or `None` for the words of a
/// slice past the lane's columns, which no lane reads. A lane of a number
/// of columns that is not a multiple of four (`g8_r18`) starts inside a
/// profile word; the last word of such a lane holds a column or two of
/// the next lane's, which it never reads.
#[inline(always)]
pub fn window_source(
    i: usize,
    lanes: usize,
    columns: usize,
    (first_column, pass): (usize, usize),
    row_words: usize,
) -> Option<usize> {
    let word = i % 4;
    let lane = (i / 4) % lanes;
    let slice = (i / 4 / lanes) % slices(columns);
    let code = i / (4 * lanes * slices(columns));
    let column = SLICE_COLUMNS * slice + 4 * word;
    if column >= columns {
        return None;
    }
    Some(4 * code * row_words + first_column + pass * lanes * columns + lane * columns + column)
}

/// The four profile bytes from byte `at` on as one word, `read(w)` the
/// profile's word `w`: one word where `at` is a word's first byte, else
/// the two it spans.
#[inline(always)]
pub fn profile_bytes(at: usize, read: impl Fn(usize) -> u32) -> u32 {
    let (word, shift) = (at / 4, (at % 4) as u32 * 8);
    if shift == 0 {
        read(word)
    } else {
        (read(word) >> shift) | (read(word + 1) << (32 - shift))
    }
}

/// A 16-byte slice of a window row, as one load reads it.
#[cfg(target_arch = "nvptx64")]
#[repr(C, align(16))]
#[derive(Clone, Copy)]
struct Slice([u32; 4]);

/// The slice at `at`: one 16-byte shared-memory load on the GPU (the
/// window is 16-byte aligned there); on the host, where the window is a
/// vector of words, an unaligned read.
///
/// # Safety
/// `at` points at four readable words, 16-byte aligned on the GPU.
#[inline(always)]
unsafe fn load_slice(at: *const u32) -> [u32; 4] {
    #[cfg(target_arch = "nvptx64")]
    {
        (*at.cast::<Slice>()).0
    }
    #[cfg(not(target_arch = "nvptx64"))]
    at.cast::<[u32; 4]>().read_unaligned()
}

/// The gap costs as the lifted update adds them (module docs, *Lifted
/// update*): `first` and `extend` subtracted from both halves by one
/// 32-bit add, which never borrows across the halves there.
#[derive(Clone, Copy)]
struct LiftedGaps {
    /// `-(first · 0x1_0001)`: both halves less `first`.
    minus_first: u32,
    /// `-(extend · 0x1_0001)`.
    minus_extend: u32,
    /// `-extend` in both halves, for F (which is not floored).
    minus_extend_pair: i16x2,
    /// `first` in both halves: H = 0, and E's floor, as lifted.
    first: i16x2,
}

impl LiftedGaps {
    /// The addends of `g` with `S` 0 (module docs, *Gap costs as
    /// immediates*), else of [`FIXED_GAPS`]`[S - 1]`, which `g` must be
    /// (checked on the host), as constants.
    #[inline(always)]
    fn new<const S: u8>(g: GapAddends) -> Self {
        let g = if S == 0 {
            g
        } else {
            let fixed = GapAddends::new(FIXED_GAPS[S as usize - 1]);
            #[cfg(not(target_arch = "nvptx64"))]
            assert!(
                g == fixed,
                "an entry point for gaps {fixed:?} launched with others"
            );
            fixed
        };
        let first = g.first & 0xffff;
        let extend = (g.minus_extend & 0xffff).wrapping_neg() & 0xffff;
        LiftedGaps {
            minus_first: 0u32.wrapping_sub(first * 0x1_0001),
            minus_extend: 0u32.wrapping_sub(extend * 0x1_0001),
            minus_extend_pair: pair(g.minus_extend as i32),
            first: pair(g.first as i32),
        }
    }
}

/// The gap settings that every configuration of the lifted update is also
/// compiled for, with the gaps as immediates (module docs, *Gap costs as
/// immediates*): open 11, extend 1 (warpsw's default, BLAST's for
/// BLOSUM62) and open 10, extend 1 (CUDASW++'s default).
pub const FIXED_GAPS: [Gaps; 2] = [
    Gaps {
        first: 12,
        extend: 1,
    },
    Gaps {
        first: 11,
        extend: 1,
    },
];

/// The entry-point suffix of each of [`FIXED_GAPS`]: `_o<open>e<extend>`.
pub const FIXED_GAP_SUFFIXES: [&str; FIXED_GAPS.len()] = ["_o11e1", "_o10e1"];

/// Which of [`FIXED_GAPS`] the packed gaps `g` are, as [`align_pass`]'s
/// `S`: its index plus one, or 0 for any others.
#[cfg(not(target_arch = "nvptx64"))]
pub fn fixed_gaps(g: GapAddends) -> u8 {
    FIXED_GAPS
        .iter()
        .position(|&fixed| GapAddends::new(fixed) == g)
        .map_or(0, |k| k as u8 + 1)
}

/// `a + b` as one 32-bit addition (no carry may cross the halves: module
/// docs, *Lifted update*), which ptxas can issue on the FMA pipe, beside
/// the min/max pipe that the rest of the update keeps busy.
#[inline(always)]
fn add32(a: i16x2, b: u32) -> i16x2 {
    pair((bits(a) as u32).wrapping_add(b) as i32)
}

/// One column of a lane's row with the lifted update (module docs,
/// *Lifted update*): `h` holds the column's H in the row above (as it is,
/// not lifted: the next row's diagonal), `diag` the H diagonally
/// above-left, `f` the column's F (lifted), `e` the E entering from the
/// left (lifted, at least `first`), `sub` the window's `s + first`. Leaves
/// the cell's H in `h`, the H above it in `diag`, the E leaving it in `e`,
/// the next row's F in `f`, and returns the cell's H lifted. Three
/// min/max operations and three 32-bit adds.
#[inline(always)]
fn lifted_column(
    h: &mut i16x2,
    f: &mut i16x2,
    diag: &mut i16x2,
    sub: i16x2,
    e: &mut i16x2,
    g: LiftedGaps,
) -> i16x2 {
    let lifted = add32(*diag, bits(sub) as u32).max_score(*e).max_score(*f);
    let cell = add32(lifted, g.minus_first);
    *e = add32(*e, g.minus_extend).max_score(cell).max_score(g.first);
    *f = (*f + g.minus_extend_pair).max_score(cell);
    *diag = *h;
    *h = cell;
    lifted
}

/// The state of one lane: its `R` columns of the query (with the biased
/// update every H kept as `H - first`; with the lifted one F and E kept
/// as themselves plus `first`, the row's H as it is).
struct Lane<const R: usize> {
    /// H of each column in the row the lane computed last.
    h: [i16x2; R],
    /// F of each column in the row the lane computes next.
    f: [i16x2; R],
    /// The best H so far (lifted with the lifted update).
    best: i16x2,
    /// H of the column left of the lane's first, in the row computed last.
    left_h_above: i16x2,
}

impl<const R: usize> Lane<R> {
    /// A lane above the matrix's top row: every H is `h_zero`, the best
    /// `best_zero`, no gap open from above.
    #[inline(always)]
    fn new(h_zero: i16x2, best_zero: i16x2) -> Self {
        Lane {
            h: [h_zero; R],
            f: [i16x2::splat(NEG_INF_I16); R],
            best: best_zero,
            left_h_above: h_zero,
        }
    }

    /// Computes `D` consecutive rows across the lane's columns with update
    /// `U`, the rows interleaved column by column (row `d + 1`'s cell of a
    /// column right after row `d`'s): each row's E chain is its own, so
    /// `D` chains run side by side (module docs, *Rows a step*).
    /// `rows[d]` points at the lane's first slice in the window rows of
    /// row `d`'s two residues, `slice_stride` words apart from one slice
    /// to the next; `left[d]` is the H left of the lane's first column in
    /// row `d` and the E entering it. Returns each row's H of the lane's
    /// last column and the E leaving it. With two queries in the halves
    /// (`Q`) there is one residue a row, the first pointer's, and its row
    /// holds a word a column (the second is not read).
    ///
    /// # Safety
    /// Every row holds [`slices`]`(R)` readable slices `slice_stride`
    /// words apart ([`load_slice`]); with `Q`, the first pointer `R / 4`.
    #[inline(always)]
    unsafe fn rows<const U: u8, const Q: bool, const D: usize>(
        &mut self,
        rows: [(*const u32, *const u32); D],
        slice_stride: usize,
        left: [(i16x2, i16x2); D],
        g: PackedGaps,
        lifted: LiftedGaps,
    ) -> [(i16x2, i16x2); D] {
        if Q {
            // A slice as its first column needs it: fewer live registers
            // than all of them up front.
            let mut words = [[0u32; 4]; D];
            self.cells::<U, D>(left, g, lifted, |d, col| {
                if col % 4 == 0 {
                    words[d] = load_slice(rows[d].0.add(col / 4 * slice_stride));
                }
                pair(words[d][col % 4] as i32)
            })
        } else if D == 1 {
            let mut low = [[0u32; 4]; 2];
            let mut high = [[0u32; 4]; 2];
            for k in 0..slices(R) {
                low[k] = load_slice(rows[0].0.add(k * slice_stride));
                high[k] = load_slice(rows[0].1.add(k * slice_stride));
            }
            self.cells::<U, D>(left, g, lifted, |_, col| {
                let (k, word, byte) = (col / 16, col % 16 / 4, (col % 4) as u32);
                score_pair(low[k][word], high[k][word], byte)
            })
        } else {
            // Several rows: a slice of each as its first column needs it.
            let mut low = [[0u32; 4]; D];
            let mut high = [[0u32; 4]; D];
            self.cells::<U, D>(left, g, lifted, |d, col| {
                if col % 16 == 0 {
                    low[d] = load_slice(rows[d].0.add(col / 16 * slice_stride));
                    high[d] = load_slice(rows[d].1.add(col / 16 * slice_stride));
                }
                let (word, byte) = (col % 16 / 4, (col % 4) as u32);
                score_pair(low[d][word], high[d][word], byte)
            })
        }
    }

    /// The rows' cells with update `U`, `sub(d, col)` the window's score
    /// of column `col` for row `d`'s residue (or residues): [`Lane::rows`].
    /// The best takes two cells at a time, so that one three-way max keeps
    /// the best of both.
    #[inline(always)]
    fn cells<const U: u8, const D: usize>(
        &mut self,
        left: [(i16x2, i16x2); D],
        g: PackedGaps,
        lifted: LiftedGaps,
        mut sub: impl FnMut(usize, usize) -> i16x2,
    ) -> [(i16x2, i16x2); D] {
        let update = |h: &mut i16x2, f: &mut i16x2, diag: &mut i16x2, sub, e: &mut i16x2| match U {
            LIFTED => lifted_column(h, f, diag, sub, e, lifted),
            BIASED => column_update::<true>(h, f, diag, sub, e, g),
            _ => column_update::<false>(h, f, diag, sub, e, g),
        };
        // One row a step as it was before two rows a step came: the loop
        // below, with `D` 1, reorders the best's maxima, and ptxas 13.0
        // then spilled in g8_r16_queries and g16_r16_queries
        // (benches/RESULTS.md).
        if D == 1 {
            let mut diag = self.left_h_above;
            self.left_h_above = left[0].0;
            let mut e = left[0].1;
            let best = self.best;
            self.best = row_of_cells::<R>(best, |col| {
                let sub = sub(0, col);
                update(&mut self.h[col], &mut self.f[col], &mut diag, sub, &mut e)
            });
            return [(self.h[R - 1], e); D];
        }
        // Row `d`'s first diagonal: the H left of the lane's first column
        // in the row above it.
        let mut diag: [i16x2; D] = core::array::from_fn(|d| {
            if d == 0 {
                self.left_h_above
            } else {
                left[d - 1].0
            }
        });
        self.left_h_above = left[D - 1].0;
        let mut e: [i16x2; D] = core::array::from_fn(|d| left[d].1);
        let mut last_h = [i16x2::splat(0); D];
        let mut best = self.best;
        let mut pending: Option<i16x2> = None;
        for col in 0..R {
            for d in 0..D {
                let sub = sub(d, col);
                let cell = update(
                    &mut self.h[col],
                    &mut self.f[col],
                    &mut diag[d],
                    sub,
                    &mut e[d],
                );
                if col == R - 1 {
                    last_h[d] = self.h[R - 1];
                }
                match pending.take() {
                    Some(other) => best = best.max_score(other.max_score(cell)),
                    None => pending = Some(cell),
                }
            }
        }
        if let Some(other) = pending {
            best = best.max_score(other);
        }
        self.best = best;
        core::array::from_fn(|d| (last_h[d], e[d]))
    }
}

/// One pass (`p.pass`) of the query over sequences `2 * pair_index` and
/// `2 * pair_index + 1` of the chunk (with two queries in the halves,
/// `Q`: of both queries over sequence `pair_index`) on one group of
/// `V::VL` lanes of `R` columns each, `window` the block's window of the
/// pass; writes (first pass) or raises (later passes, and every pass of
/// a resumed query: [`QueryGroupParams::first_column`]) the pair's
/// scores, above [`SCORE_LIMIT`] when out of range.
///
/// `N` is the number of lanes the calling code computes: `V::VL` on the host
/// (one call computes the whole group), 1 on the GPU (each thread its own
/// lane). `D` is the rows a lane computes a step, 1 or 2 (module docs,
/// *Rows a step*). `S` is 0, or with the lifted update the gaps
/// [`FIXED_GAPS`]`[S - 1]` compiled in ([`fixed_gaps`]; module docs, *Gap
/// costs as immediates*).
///
/// A pair past the launch's (`pair_index >= p.end_pair`, or past the
/// chunk's end) aligns nothing and writes nothing, but runs every step with
/// its warp. `rows` is the most rows of the warp's pairs ([`pair_rows`],
/// [`crate::warp::warp_max`]): every group of a warp runs as many steps.
///
/// # Safety
/// * `p.gaps` is [`GapAddends::new`] of gaps that [`gaps_fit`] with `first
///   >= extend` (with `S` above 0, of [`FIXED_GAPS`]`[S - 1]`, and `U` the
///   lifted update), and the matrix's scores and `first` [`Update::fits`]
///   update `U` (with `Q`, the lifted one).
/// * `window` holds [`Halves::window_words`]`(V::VL, R)` words (16-byte
///   aligned on the GPU), as [`window_source`], [`profile_bytes`] and
///   [`window_word`] (with `Q`, [`pair_window_source`] and
///   [`lifted_pair_word`]) make them for `p.pass`.
/// * `p.residues` holds `p.words` words per sequence, every sequence of the
///   chunk has at most `4 * p.words` residues, `p.lengths` and `p.scores`
///   (with `Q` also `p.high_scores`) `p.threads` entries; with `p.passes >
///   1` or resumed, `p.scratch` holds `p.slots`
///   (at least [`scratch_slots`] of the chunk's longest sequence) slots of
///   two words for every pair of the launch, and the passes before
///   `p.pass` ran to completion on it (of a resumed query, also those of
///   the pair before it and the hand-over, which wrote its border; its
///   scores hold what the pair's passes found).
/// * No other group writes this pair's scores.
/// * `rows` is at least [`pair_rows`] of this pair and at most the chunk's
///   longest sequence, the same in every group of the warp.
#[inline(always)]
pub unsafe fn align_pass<
    V: Vector,
    const R: usize,
    const N: usize,
    const U: u8,
    const Q: bool,
    const D: usize,
    const S: u8,
>(
    p: &QueryGroupParams,
    window: *const u32,
    pair_index: usize,
    rows: u32,
) {
    let threads = p.threads as usize;
    // The low half's sequence; with two queries the high half's too.
    let low = if Q { pair_index } else { 2 * pair_index };
    let in_launch = pair_index < p.end_pair as usize;
    let has_low = in_launch && low < threads;
    let has_high = !Q && in_launch && low + 1 < threads;
    let g = PackedGaps::new(p.gaps);
    let lifted = LiftedGaps::new::<S>(p.gaps);
    // H = 0 as the lanes keep it (`H - first` with the biased update), the
    // best before any cell, and the E where no gap is open (the lifted
    // update's floor, `first`: its H must never fall below it).
    let (h_zero, best_zero, no_e) = if U == LIFTED {
        (i16x2::splat(0), lifted.first, bits(lifted.first))
    } else {
        let zero = if U == BIASED {
            g.zero_h::<true>()
        } else {
            g.zero_h::<false>()
        };
        (zero, zero, bits(i16x2::splat(NEG_INF_I16)))
    };
    let lanes = V::VL;
    let steps = pass_steps(rows as usize, lanes, D) as u32;
    // Rows the last lane computes in a pass: the rows whose left border
    // the pass before wrote.
    let rows_done = D as u32 * (steps - (lanes as u32 - 1));
    // Only one query resumes (a pair hands its longer query to one-query
    // configurations); a constant false for two queries, whose code stays
    // as it was (ptxas 13.0 spilled more in g8_r20_queries otherwise).
    let resumed = !Q && p.first_column > 0;
    let bordered = has_low && (p.passes > 1 || resumed);
    let slots = if bordered {
        p.scratch
            .add((pair_index - p.first_pair as usize) * 2 * p.slots as usize)
            .cast::<u64>()
    } else {
        core::ptr::null_mut()
    };
    let reads_border = bordered && (p.pass > 0 || resumed);
    let writes_border = bordered && p.pass + 1 < p.passes;
    // What lane 0 takes at the left of row `row`: what the last lane handed
    // out of that row in the pass before (slot `row + G - 1`), or the
    // matrix's left border.
    let left_of = |row: u32| -> (i32, i32) {
        // The same bound with one row a step, written as before two rows
        // a step came: `row < rows_done` there let ptxas 13.0 spill in
        // g8_r16_queries and g16_r16_queries (benches/RESULTS.md).
        let written = if D == 1 {
            row + lanes as u32 - 1 < steps
        } else {
            row < rows_done
        };
        if reads_border && written {
            let both = load_slot(slots.add((row + lanes as u32 - 1) as usize));
            (both as u32 as i32, (both >> 32) as u32 as i32)
        } else {
            (bits(h_zero), no_e)
        }
    };
    // A residue code's window row, in words (less than 2^16: at most
    // NUM_CODES * 32 * 32).
    let code_words = if Q { R * lanes } else { slices(R) * lanes * 4 } as u32;
    let slice_stride = lanes * 4;
    let pad_word = u32::from_le_bytes([PAD_CODE; 4]);
    let word_of = |s: usize, has: bool, w: u32| -> u32 {
        if has && w < p.words {
            *p.residues.add(w as usize * threads + s)
        } else {
            pad_word
        }
    };
    // Row `4w + k`'s two residues as their window rows' offsets, the low
    // sequence's in the low 16 bits.
    // With two queries, the one residue's only.
    let offsets = |low_word: u32, high_word: u32, k: u32| -> u32 {
        let low = code_byte(low_word, k) * code_words;
        if Q {
            low
        } else {
            low | ((code_byte(high_word, k) * code_words) << 16)
        }
    };
    let pad_offsets = PAD_CODE as u32 * code_words * if Q { 1 } else { 0x1_0001 };
    // With two queries and two rows a step, both rows' offsets (16 bits
    // each) travel in one shuffle, the first row's in the low half.
    let packs = Q && D == 2;

    let mut state: [Lane<R>; N] = core::array::from_fn(|_| Lane::new(h_zero, best_zero));
    let mut row_offsets: [V; D] = [V::splat(if packs {
        pad_offsets * 0x1_0001
    } else {
        pad_offsets
    } as i32); D];
    let mut left_h: [V; D] = core::array::from_fn(|d| {
        let h = left_of(d as u32).0;
        V::from_lanes(|l| if l == 0 { h } else { bits(h_zero) })
    });
    let mut left_e: [V; D] = core::array::from_fn(|d| {
        let e = left_of(d as u32).1;
        V::from_lanes(|l| if l == 0 { e } else { no_e })
    });
    // The step whose lane 0 computes rows `r0 .. r0 + D`: lane 0 takes those
    // rows' residues (`next`), the others their left neighbour's from the
    // step before; every lane computes its rows and hands each row's last
    // column's H and the E leaving it on; the last lane's (rows `r0 - D(G -
    // 1) ..`) go to their slots for the next pass, and lane 0 takes
    // `border`, the left of rows `r0 + D ..`.
    let mut step = |r0: u32, next: [u32; D], border: [(i32, i32); D]| {
        if packs {
            row_offsets[0] = row_offsets[0].shift_up((next[0] | next[D - 1] << 16) as i32);
        } else {
            for d in 0..D {
                row_offsets[d] = row_offsets[d].shift_up(next[d] as i32);
            }
        }
        let mut in_h = [[0i32; N]; D];
        let mut in_e = [[0i32; N]; D];
        let mut offs = [[0u32; N]; D];
        for d in 0..D {
            left_h[d].for_lanes(|l, x| in_h[d][l % N] = x);
            left_e[d].for_lanes(|l, x| in_e[d][l % N] = x);
            if !packs || d == 0 {
                row_offsets[d].for_lanes(|l, x| offs[d][l % N] = x as u32);
            }
        }
        let mut out_h = [[0i32; N]; D];
        let mut out_e = [[0i32; N]; D];
        row_offsets[0].for_lanes(|l, _| {
            let lane_slice = window.add(l * 4);
            let rows: [(*const u32, *const u32); D] = core::array::from_fn(|d| {
                let both = if packs {
                    offs[0][l % N] >> (16 * d) & 0xffff
                } else {
                    offs[d][l % N]
                };
                (
                    lane_slice.add((both & 0xffff) as usize),
                    lane_slice.add((both >> 16) as usize),
                )
            });
            let left = core::array::from_fn(|d| (pair(in_h[d][l % N]), pair(in_e[d][l % N])));
            let out = state[l % N].rows::<U, Q, D>(rows, slice_stride, left, g, lifted);
            for d in 0..D {
                out_h[d][l % N] = bits(out[d].0);
                out_e[d][l % N] = bits(out[d].1);
            }
        });
        // The last lane's rows start `D (G - 1)` rows behind lane 0's. Its
        // rows of the wavefront's fill (before row 0) have no slot: with
        // two rows a step they are not written, with one they go to slots
        // `0 .. G - 1`, which no pass reads.
        if writes_border && (D == 1 || r0 >= D as u32 * (lanes as u32 - 1)) {
            let first_slot = r0 - (D as u32 - 1) * (lanes as u32 - 1);
            V::from_lanes(|l| out_h[0][l % N]).for_lanes(|l, _| {
                if l == lanes - 1 {
                    for d in 0..D {
                        *slots.add(first_slot as usize + d) =
                            slot(out_h[d][l % N], out_e[d][l % N]);
                    }
                }
            });
        }
        for d in 0..D {
            left_h[d] = V::from_lanes(|l| out_h[d][l % N]).shift_up(border[d].0);
            left_e[d] = V::from_lanes(|l| out_e[d][l % N]).shift_up(border[d].1);
        }
    };
    // Four rows an iteration (a word of each sequence, `4 / D` steps): the
    // next four rows' residues, loaded an iteration ahead, and the left
    // borders lane 0 takes after each of this iteration's steps, loaded
    // at the iteration's start (lane 0 takes the first only after the
    // iteration's first step). Fewer registers then stay live across the
    // steps' loop than with the next iteration's borders in flight
    // (ptxas 13.0: `g8_r20_queries` and `g16_r20_queries` without their
    // spill, 649 instructions an iteration against 663). The one-query
    // configurations of 24 columns or more load them an iteration ahead
    // as before: loaded in the iteration, the lifted ones of one row a
    // step spill in the steps' loop (`g8_r24_lifted` 32 bytes,
    // `g8_r28_lifted` 44 against 24), and for the others the change was
    // not measured on a GPU (benches/RESULTS.md).
    let borders_ahead = !Q && R >= 24;
    let border4 = |r: u32| {
        let r = r + D as u32;
        [left_of(r), left_of(r + 1), left_of(r + 2), left_of(r + 3)]
    };
    let mut low_word = word_of(low, has_low, 0);
    let mut high_word = word_of(low + 1, has_high, 0);
    let mut ahead = if borders_ahead {
        border4(0)
    } else {
        [(0, 0); 4]
    };
    let row_end = D as u32 * steps;
    let mut r0 = 0u32;
    while r0 < row_end {
        let w = r0 / 4 + 1;
        let next_low = word_of(low, has_low, w);
        let next_high = word_of(low + 1, has_high, w);
        let border = if borders_ahead {
            let border = ahead;
            ahead = border4(r0 + 4);
            border
        } else {
            border4(r0)
        };
        for k in 0..4 / D {
            step(
                r0 + (D * k) as u32,
                core::array::from_fn(|d| offsets(low_word, high_word, (D * k + d) as u32)),
                core::array::from_fn(|d| border[D * k + d]),
            );
        }
        low_word = next_low;
        high_word = next_high;
        r0 += 4;
    }

    // The group's best of this pass, per half.
    let best = group_best(best_zero, V::from_lanes(|l| bits(state[l % N].best)));
    // In 32 bits: a biased best above the limit plus `first` must not wrap;
    // a lifted best above the limit stays above it, to be rescued (module
    // docs, *Lifted update*).
    let first = i32::from(lifted.first[0]);
    let score_of = |kept: i32| match U {
        LIFTED if kept > SCORE_LIMIT => kept,
        LIFTED => kept - first,
        BIASED => kept + p.gaps.unbias::<true>(),
        _ => kept,
    };
    let raise = |scores: *mut i32, s: usize, half: usize| {
        let score = score_of(i32::from(best[half]));
        let at = scores.add(s);
        *at = if p.pass == 0 && !resumed {
            score
        } else {
            (*at).max(score)
        };
    };
    V::once(|| {
        if has_low {
            raise(p.scores, low, 0);
            if Q {
                raise(p.high_scores, low, 1);
            } else if has_high {
                raise(p.scores, low + 1, 1);
            }
        }
    });
}

/// Word `i` of the window of pass `p.pass` for `lanes` lanes of `columns`
/// columns whose halves hold `halves`, as update `update` reads it
/// ([`window_source`], [`profile_bytes`] and [`window_word`], or with two
/// queries [`pair_window_source`] and [`lifted_pair_word`]); `read(at)`
/// reads word `at` of the profile's rows.
#[inline(always)]
fn window_entry(
    halves: Halves,
    update: Update,
    i: usize,
    (lanes, columns): (usize, usize),
    p: &QueryGroupParams,
    read: impl Fn(usize) -> u32,
) -> u32 {
    let (pass, row_words) = (p.pass as usize, p.row_words as usize);
    let first = p.gaps.first & 0xffff;
    match halves {
        Halves::Queries => lifted_pair_word(
            read(pair_window_source(i, lanes, columns, pass, row_words)),
            first,
        ),
        Halves::Sequences => window_source(
            i,
            lanes,
            columns,
            (p.first_column as usize, pass),
            row_words,
        )
        .map_or(0, |at| window_word(update, profile_bytes(at, read), first)),
    }
}

/// Copies pass `p.pass`'s window into the block's shared memory as update
/// `U` reads it ([`window_entry`]; every thread of the block takes part,
/// then the block synchronises).
///
/// # Safety
/// `window` holds [`Halves::window_words`]`(G, R)` words; `p.profile`
/// holds [`NUM_CODES`] rows of `p.row_words` words covering the pass's
/// columns; every thread of the block calls it.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
unsafe fn load_window<const G: usize, const R: usize, const U: u8, const Q: bool>(
    p: &QueryGroupParams,
    window: *mut u32,
) {
    use core::arch::nvptx::{_block_dim_x, _syncthreads, _thread_idx_x};
    let halves = if Q {
        Halves::Queries
    } else {
        Halves::Sequences
    };
    let mut i = _thread_idx_x() as usize;
    while i < halves.window_words(G, R) {
        *window.add(i) = window_entry(halves, Update::from_u8(U), i, (G, R), p, |at| {
            *p.profile.add(at)
        });
        i += _block_dim_x() as usize;
    }
    _syncthreads();
}

/// The window of pass `p.pass` for configuration `config` (an index of
/// [`CONFIGS`]) on the host, as a block copies it on the GPU.
#[cfg(not(target_arch = "nvptx64"))]
pub fn host_window(config: usize, p: &QueryGroupParams, profile: &[u32]) -> Vec<u32> {
    let c = CONFIGS[config];
    (0..c.halves.window_words(c.lanes, c.columns))
        .map(|i| {
            window_entry(c.halves, c.update, i, (c.lanes, c.columns), p, |at| {
                profile[at]
            })
        })
        .collect()
}

/// Groups of fewer lanes than this are narrow: the short queries'
/// configurations, one pass each, and groups of [`MULTI_PASS_LANES`]
/// that also run long queries on short sequences ([`Config::runs_alone`]).
pub const NARROW_GROUP_LANES: usize = 8;

/// Groups of fewer lanes than this run a query of one pass only
/// ([`Config::runs_alone`]); groups of this many lanes and at least
/// [`NARROW_MULTI_PASS_COLUMNS`] columns a lane (`g4_r24_lifted`,
/// `g4_r28_lifted`, `g4_r24_lifted_2rows`) also several passes on short
/// sequences. Groups of four fill in three steps where
/// eight take seven: on 1,000,000 sequences of 128 residues (H200, the 20
/// standard queries one at a time, configurations pinned) `g4_r24_lifted_2rows`
/// ran 5 % faster than `g8_r24_lifted_2rows` and `g4_r28_lifted` 3 % faster
/// than `g8_r28_lifted`; 2 % at 256 residues, 1 % at 512 (benches/RESULTS.md).
pub const MULTI_PASS_LANES: usize = 4;

/// The longest chunk rows on which a group of fewer than
/// [`NARROW_GROUP_LANES`] lanes runs a query of several passes
/// ([`Config::runs_alone`]): as far as it was measured.
pub const NARROW_MULTI_PASS_ROWS: usize = 512;

/// The fewest columns a lane of a narrow group that runs a query of
/// several passes has ([`Config::runs_alone`]): the widths measured (24
/// and 28); `g4_r16_lifted` over several passes was not.
pub const NARROW_MULTI_PASS_COLUMNS: usize = 24;

/// What the border costs a narrow group a step of each pass that reads
/// it, in [`Config::cost`]'s units: with it, four lanes of two rows a step
/// cost as much as eight at 512 rows, where they ran alike (measured as
/// at [`MULTI_PASS_LANES`]); they pass half the columns each, so reach
/// the border twice as often a cell.
#[cfg(not(target_arch = "nvptx64"))]
pub const NARROW_BORDER_STEP_COST: usize = 81;

/// One configuration of the query-group kernels: its entry points (one,
/// or with the lifted update one more for each of [`FIXED_GAPS`]) and
/// its shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    /// The PTX entry point (the gaps from its parameters).
    pub symbol: &'static str,
    /// With the lifted update, the entry points of the same configuration
    /// for each of [`FIXED_GAPS`] (module docs, *Gap costs as
    /// immediates*).
    pub fixed_symbols: Option<[&'static str; FIXED_GAPS.len()]>,
    /// Lanes per group, `G`.
    pub lanes: usize,
    /// Query columns per lane, `R`.
    pub columns: usize,
    /// How the cell update keeps its values, and the window its scores.
    pub update: Update,
    /// What the halves hold: two sequences, or two queries.
    pub halves: Halves,
    /// Rows a lane computes a step, `D` (module docs, *Rows a step*).
    pub rows_per_step: usize,
    /// Blocks of [`crate::group_i16x2::BLOCK_THREADS`] one multiprocessor
    /// is meant to hold on `sm_80` and on `sm_90`: the register cap
    /// written into the PTX (host/build.rs).
    pub blocks_per_sm: [u32; 2],
}

impl Config {
    /// Query columns of one pass, `G · R`.
    pub const fn width(&self) -> usize {
        self.lanes * self.columns
    }

    /// [`align_pass`]'s `S` for a launch of this configuration with gaps
    /// `gaps`: [`fixed_gaps`] where it has entry points for them, else 0.
    #[cfg(not(target_arch = "nvptx64"))]
    pub fn fixed_for(&self, gaps: GapAddends) -> u8 {
        match self.fixed_symbols {
            Some(_) => fixed_gaps(gaps),
            None => 0,
        }
    }

    /// The entry point a launch with gaps `gaps` runs: the one with them
    /// compiled in where there is one ([`Config::fixed_for`]).
    #[cfg(not(target_arch = "nvptx64"))]
    pub fn symbol_for(&self, gaps: GapAddends) -> &'static str {
        match (self.fixed_for(gaps), self.fixed_symbols) {
            (k @ 1.., Some(fixed)) => fixed[k as usize - 1],
            _ => self.symbol,
        }
    }

    /// Every entry point of this configuration.
    #[cfg(not(target_arch = "nvptx64"))]
    pub fn symbols(&self) -> impl Iterator<Item = &'static str> + use<> {
        core::iter::once(self.symbol).chain(self.fixed_symbols.into_iter().flatten())
    }

    /// Passes a query of `query_len` residues takes (at least one).
    #[cfg(not(target_arch = "nvptx64"))]
    pub const fn passes(&self, query_len: usize) -> usize {
        let p = query_len.div_ceil(self.width());
        if p == 0 { 1 } else { p }
    }

    /// Whether the cost models may give this configuration a query of
    /// `query_len` residues alone on a chunk whose longest sequence has
    /// `rows` residues. Groups of fewer than [`NARROW_GROUP_LANES`] lanes
    /// (the short queries' configurations, whose group fills in a step or
    /// three) take a query of one pass; those of [`MULTI_PASS_LANES`] or
    /// more lanes of at least [`NARROW_MULTI_PASS_COLUMNS`] columns also
    /// one of several passes on chunks of at most
    /// [`NARROW_MULTI_PASS_ROWS`] rows, where their shorter fill was
    /// measured to pay. Over the many passes of a narrow configuration the
    /// border (two words a row a pair of sequences in global memory, a
    /// pass's writes read by the next) is most of the traffic;
    /// [`Config::cost`] counts it for them.
    #[cfg(not(target_arch = "nvptx64"))]
    pub const fn runs_alone(&self, query_len: usize, rows: usize) -> bool {
        self.lanes >= NARROW_GROUP_LANES
            || self.passes(query_len) == 1
            || (self.lanes >= MULTI_PASS_LANES
                && self.columns >= NARROW_MULTI_PASS_COLUMNS
                && rows <= NARROW_MULTI_PASS_ROWS)
    }

    /// Bytes of the block's window (dynamic shared memory).
    pub const fn window_bytes(&self) -> usize {
        4 * self.halves.window_words(self.lanes, self.columns)
    }

    /// The register cap of this configuration's entry point in the PTX
    /// for `sm_90` (`hopper`) or `sm_80`.
    pub const fn max_registers(&self, hopper: bool) -> u32 {
        crate::group_i16x2::max_registers(self.blocks_per_sm[hopper as usize])
    }

    /// The model [`config_for`] and [`pair_config_for`] minimise and
    /// [`queries_pay`] compares, in quarters of an instruction:
    /// a group's lane-steps over every pass times what a lane spends a
    /// step (for each row of the step: 26 a column for the cell updates and
    /// the permute, 25 with two rows a step, whose instructions issue
    /// faster, 23 with two queries, which need no permute: SASS of the
    /// steps' loop, ptxas 13.0; 56 for the shuffles, the residues and the
    /// loads), plus a pass's own
    /// (4,000 a lane: the group's best, the scores, its share of the
    /// window). A group aligns two sequences, or with two queries one.
    ///
    /// A group of fewer than [`NARROW_GROUP_LANES`] lanes also pays
    /// [`NARROW_BORDER_STEP_COST`] a step of each pass after the first:
    /// the border it reads, which the pass before wrote, for fewer
    /// columns a pass than the groups of eight and sixteen lanes on which
    /// the other terms were measured.
    #[cfg(not(target_arch = "nvptx64"))]
    pub const fn cost(&self, query_len: usize, rows: usize) -> usize {
        let passes = self.passes(query_len);
        let border = if self.lanes < NARROW_GROUP_LANES {
            (passes - 1) * self.steps(rows) * NARROW_BORDER_STEP_COST
        } else {
            0
        };
        passes * self.pass_cost(rows) + border
    }

    /// [`Config::cost`] of one pass.
    #[cfg(not(target_arch = "nvptx64"))]
    pub const fn pass_cost(&self, rows: usize) -> usize {
        self.lanes * (self.steps(rows) * self.step_cost() + 4000)
    }

    /// Steps of a pass over a sequence of `rows` residues (the wavefront
    /// fills the group, in whole iterations of four).
    pub const fn steps(&self, rows: usize) -> usize {
        pass_steps(rows, self.lanes, self.rows_per_step)
    }

    /// What a lane spends a step, in quarters of an instruction
    /// ([`Config::cost`]).
    #[cfg(not(target_arch = "nvptx64"))]
    pub const fn step_cost(&self) -> usize {
        let per_column = match (self.halves, self.rows_per_step) {
            (Halves::Sequences, 1) => 26,
            // Two rows a step issue 2 % more instructions a cell but ran
            // about 5 % faster a row (g8_r18 on an H100, its longer fill
            // counted: benches/RESULTS.md); 25 against 26 credits them
            // 3.5 % a row, to stay on the safe side.
            (Halves::Sequences, _) => 25,
            (Halves::Queries, _) => 23,
        };
        (per_column * self.columns + 56) * self.rows_per_step
    }
}

/// The configurations, each `(entry point, lanes per group G, columns per
/// lane R, update, halves, rows a step D, [blocks per SM on sm_80, on
/// sm_90])`: a PTX entry point each (with the lifted update also one for
/// each of [`FIXED_GAPS`]: module docs, *Gap costs as immediates*),
/// [`CONFIGS`], and the host's emulated run ([`align_pass_emulated`]),
/// from one list.
macro_rules! query_group_configs {
    ($(($name:ident, $g:literal, $r:literal, $update:ident, $halves:ident, $d:literal, $blocks:expr)),* $(,)?) => {
        $(
            query_group_entry!($name, $g, $r, $update, $halves, $d, 0);
            fixed_gap_entries!($update, $name, $g, $r, $halves, $d);
        )*

        /// The compiled configurations; [`config_for`] picks one per chunk.
        pub const CONFIGS: [Config; [$($g),*].len()] = [$(Config {
            symbol: stringify!($name),
            fixed_symbols: fixed_gap_symbols!($update, $name),
            lanes: $g,
            columns: $r,
            update: Update::$update,
            halves: Halves::$halves,
            rows_per_step: $d,
            blocks_per_sm: $blocks,
        }),*];

        /// [`align_pass`] on the host for configuration `config` (an index
        /// of [`CONFIGS`]) with `S` = `fixed`, the whole group in one call.
        ///
        /// # Safety
        /// [`align_pass`]'s, with `window` [`host_window`] of `p` for
        /// `config` and `rows` the most of [`pair_rows`] over the pairs
        /// that share the pair's warp on the GPU; `config <
        /// CONFIGS.len()`; `fixed` 0, or with the lifted update at most
        /// [`FIXED_GAPS`]`.len()`.
        #[cfg(not(target_arch = "nvptx64"))]
        pub unsafe fn align_pass_emulated(
            config: usize,
            fixed: u8,
            p: &QueryGroupParams,
            window: *const u32,
            pair_index: usize,
            rows: u32,
        ) {
            let mut k = 0;
            $(
                if config == k {
                    emulated_pass!($update, fixed, $g, $r, $halves, $d, p, window, pair_index, rows);
                    return;
                }
                k += 1;
            )*
            let _ = k;
            unreachable!("query-group configuration {config} of {}", CONFIGS.len());
        }
    };
}

/// One GPU entry point of a configuration ([`query_group_configs`]), its
/// gaps from the parameters (`$fixed` 0) or [`FIXED_GAPS`]`[$fixed - 1]`.
macro_rules! query_group_entry {
    ($name:ident, $g:literal, $r:literal, $update:ident, $halves:ident, $d:literal, $fixed:literal) => {
        /// GPU entry point: `G` lanes per pair of sequences (or per
        /// sequence, two queries in the halves), `R` query columns per
        /// lane, one pass of the query (module docs); entry points with a
        /// gap suffix have those gaps compiled in (module docs, *Gap costs
        /// as immediates*).
        ///
        /// # Safety
        /// [`align_pass`]'s duties for every pair but the window's (the
        /// entry point copies it) of every entry its grid's rows take
        /// ([`QueryGroupParams::entry`]'s for the grid's `gridDim.y`
        /// entries; a grid of one row: `p` itself); blocks a multiple of
        /// 32 threads, at most [`crate::group_i16x2::BLOCK_THREADS`],
        /// with [`Config::window_bytes`] of dynamic shared memory.
        #[cfg(target_arch = "nvptx64")]
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(p: QueryGroupParams) {
            // Block row `y` aligns entry `y` of a batch (the launch's
            // one entry for a grid of one row).
            let p = p.entry(core::arch::nvptx::_block_idx_y() as usize);
            // Declared as 16-byte slices: the window's loads are 16 bytes.
            let window =
                core::intrinsics::gpu::gpu_launch_sized_workgroup_mem::<Slice>().cast::<u32>();
            const Q: bool = Halves::$halves.is_queries();
            load_window::<$g, $r, { Update::$update as u8 }, Q>(&p, window);
            // Every group of the warp runs (a group past the launch's
            // pairs aligns nothing and writes nothing).
            let pair_index = (p.first_pair + crate::warp::global_thread_index() / $g) as usize;
            let rows = crate::warp::warp_max(pair_rows::<Q>(&p, pair_index));
            align_pass::<
                crate::vector::WarpVector<$g, true>,
                $r,
                1,
                { Update::$update as u8 },
                Q,
                $d,
                $fixed,
            >(&p, window, pair_index, rows);
        }
    };
}

/// A configuration's entry points for [`FIXED_GAPS`]: one each with the
/// lifted update (suffixes as [`FIXED_GAP_SUFFIXES`]), none otherwise.
macro_rules! fixed_gap_entries {
    (Lifted, $name:ident, $g:literal, $r:literal, $halves:ident, $d:literal) => {
        query_group_entry!(${concat($name, _o11e1)}, $g, $r, Lifted, $halves, $d, 1);
        query_group_entry!(${concat($name, _o10e1)}, $g, $r, Lifted, $halves, $d, 2);
    };
    ($update:ident, $name:ident, $g:literal, $r:literal, $halves:ident, $d:literal) => {};
}

/// [`Config::fixed_symbols`] of a configuration ([`fixed_gap_entries`]).
macro_rules! fixed_gap_symbols {
    (Lifted, $name:ident) => {
        Some([stringify!(${concat($name, _o11e1)}), stringify!(${concat($name, _o10e1)})])
    };
    ($update:ident, $name:ident) => {
        None
    };
}

/// [`align_pass_emulated`]'s call for one configuration: `S` = `$fixed`
/// where the update is the lifted one, else 0.
macro_rules! emulated_pass {
    (Lifted, $fixed:ident, $g:literal, $r:literal, $halves:ident, $d:literal, $($args:ident),*) => {
        match $fixed {
            0 => emulated_pass!(@ 0, $g, $r, Lifted, $halves, $d, $($args),*),
            1 => emulated_pass!(@ 1, $g, $r, Lifted, $halves, $d, $($args),*),
            2 => emulated_pass!(@ 2, $g, $r, Lifted, $halves, $d, $($args),*),
            _ => unreachable!("gap setting {} of {}", $fixed, FIXED_GAPS.len()),
        }
    };
    (@ $s:literal, $g:literal, $r:literal, $update:ident, $halves:ident, $d:literal, $p:ident, $window:ident, $pair_index:ident, $rows:ident) => {
        align_pass::<
            crate::vector::HostVector<$g>,
            $r,
            $g,
            { Update::$update as u8 },
            { Halves::$halves.is_queries() },
            $d,
            $s,
        >($p, $window, $pair_index, $rows)
    };
    ($update:ident, $fixed:ident, $g:literal, $r:literal, $halves:ident, $d:literal, $($args:ident),*) => {{
        assert_eq!($fixed, 0, "gaps compiled in only with the lifted update");
        emulated_pass!(@ 0, $g, $r, $update, $halves, $d, $($args),*)
    }};
}

// Register caps: up to 12 columns a lane 80 (three blocks of 256 an SM),
// wider 128 (two), the least without spills in the steps' loop (ptxas
// 13.0, scripts/codegen.sh; counts in benches/RESULTS.md); the lifted
// update from 12 columns 128 (at 80, 12 to 20 columns spilled and ran 1.5
// to 9 % slower on an H100), and up to 28 columns (at 28 it spills 24
// bytes, four local loads an iteration of 112 lane-cells, and was still
// the fastest on queries of 222, 657 and from 1,500 residues; at 32 it
// spills 52). Two rows a step (module docs, *Rows a step*) take no more:
// at 128 none of them spills, up to 28 columns (the second row's values
// loaded as its columns need them). They are here at 16, 18 and 24
// columns: one query at a time on an H100 they ran 2 to 4 % faster at 18
// and 24, 2 to 5 % slower at 20 (queries of 464 and 2,504 residues) and
// 1 % faster on average at 28, less than the columns the cost model
// then spent to take them (benches/RESULTS.md).
// Three updates
// (module docs, *Cell updates*): the lifted one where the matrix and gaps
// allow it ([`Update::fits`]), else the biased one, else the plain one,
// whose two configurations are also there to be measured against the
// others (`WARPSW_QUERY_GROUP_CONFIG`, host, pins any). The narrow groups
// of 1, 2 and 4 lanes are the short queries' (one pass; `g4_r24` and
// `g4_r28` also several on short sequences: [`Config::runs_alone`],
// [`MULTI_PASS_LANES`]): their group fills in at most three steps where
// eight lanes take seven, and a 5-residue query leaves 3 of 8 columns
// empty rather than 59 of 64. Each pinned in turn on an H200 (half of
// Swiss-Prot, queries of 5 to 256 residues), g1_r8 led up to 8 residues,
// g2_r8 to 16, g2_r16 (g4_r8 within 2 %) to 32 and g4_r16 to 64; g4_r4,
// g4_r8, g8_r4 and g1_r16 never did, and are not compiled
// (benches/RESULTS.md).
#[rustfmt::skip]
query_group_configs!(
    (sw_query_group_i16x2_g8_r8, 8, 8, Biased, Sequences, 1, [2, 3]),
    (sw_query_group_i16x2_g8_r12, 8, 12, Biased, Sequences, 1, [2, 3]),
    (sw_query_group_i16x2_g8_r16, 8, 16, Biased, Sequences, 1, [1, 2]),
    (sw_query_group_i16x2_g8_r20, 8, 20, Biased, Sequences, 1, [1, 2]),
    (sw_query_group_i16x2_g8_r24, 8, 24, Biased, Sequences, 1, [1, 2]),
    (sw_query_group_i16x2_g8_r28, 8, 28, Biased, Sequences, 1, [1, 2]),
    (sw_query_group_i16x2_g8_r32, 8, 32, Biased, Sequences, 1, [1, 2]),
    (sw_query_group_i16x2_g16_r16, 16, 16, Biased, Sequences, 1, [1, 2]),
    (sw_query_group_i16x2_g16_r20, 16, 20, Biased, Sequences, 1, [1, 2]),
    (sw_query_group_i16x2_g16_r24, 16, 24, Biased, Sequences, 1, [1, 2]),
    (sw_query_group_i16x2_g16_r28, 16, 28, Biased, Sequences, 1, [1, 2]),
    (sw_query_group_i16x2_g16_r32, 16, 32, Biased, Sequences, 1, [1, 2]),
    (sw_query_group_i16x2_g8_r20_plain, 8, 20, Plain, Sequences, 1, [1, 2]),
    (sw_query_group_i16x2_g8_r24_plain, 8, 24, Plain, Sequences, 1, [1, 2]),
    (sw_query_group_i16x2_g1_r8_lifted, 1, 8, Lifted, Sequences, 1, [2, 3]),
    (sw_query_group_i16x2_g2_r8_lifted, 2, 8, Lifted, Sequences, 1, [2, 3]),
    (sw_query_group_i16x2_g2_r16_lifted, 2, 16, Lifted, Sequences, 1, [1, 2]),
    (sw_query_group_i16x2_g4_r16_lifted, 4, 16, Lifted, Sequences, 1, [1, 2]),
    (sw_query_group_i16x2_g4_r24_lifted, 4, 24, Lifted, Sequences, 1, [1, 2]),
    (sw_query_group_i16x2_g4_r28_lifted, 4, 28, Lifted, Sequences, 1, [1, 2]),
    (sw_query_group_i16x2_g8_r8_lifted, 8, 8, Lifted, Sequences, 1, [2, 3]),
    (sw_query_group_i16x2_g8_r12_lifted, 8, 12, Lifted, Sequences, 1, [1, 2]),
    (sw_query_group_i16x2_g8_r16_lifted, 8, 16, Lifted, Sequences, 1, [1, 2]),
    (sw_query_group_i16x2_g8_r18_lifted, 8, 18, Lifted, Sequences, 1, [1, 2]),
    (sw_query_group_i16x2_g8_r20_lifted, 8, 20, Lifted, Sequences, 1, [1, 2]),
    (sw_query_group_i16x2_g8_r24_lifted, 8, 24, Lifted, Sequences, 1, [1, 2]),
    (sw_query_group_i16x2_g8_r28_lifted, 8, 28, Lifted, Sequences, 1, [1, 2]),
    (sw_query_group_i16x2_g16_r16_lifted, 16, 16, Lifted, Sequences, 1, [1, 2]),
    (sw_query_group_i16x2_g16_r20_lifted, 16, 20, Lifted, Sequences, 1, [1, 2]),
    (sw_query_group_i16x2_g16_r24_lifted, 16, 24, Lifted, Sequences, 1, [1, 2]),
    (sw_query_group_i16x2_g8_r8_queries, 8, 8, Lifted, Queries, 1, [2, 3]),
    (sw_query_group_i16x2_g8_r12_queries, 8, 12, Lifted, Queries, 1, [1, 2]),
    (sw_query_group_i16x2_g8_r16_queries, 8, 16, Lifted, Queries, 1, [1, 2]),
    (sw_query_group_i16x2_g8_r20_queries, 8, 20, Lifted, Queries, 1, [1, 2]),
    (sw_query_group_i16x2_g16_r16_queries, 16, 16, Lifted, Queries, 1, [1, 2]),
    (sw_query_group_i16x2_g16_r20_queries, 16, 20, Lifted, Queries, 1, [1, 2]),
    (sw_query_group_i16x2_g8_r16_lifted_2rows, 8, 16, Lifted, Sequences, 2, [1, 2]),
    (sw_query_group_i16x2_g8_r18_lifted_2rows, 8, 18, Lifted, Sequences, 2, [1, 2]),
    (sw_query_group_i16x2_g8_r24_lifted_2rows, 8, 24, Lifted, Sequences, 2, [1, 2]),
    (sw_query_group_i16x2_g4_r24_lifted_2rows, 4, 24, Lifted, Sequences, 2, [1, 2]),
    (sw_query_group_i16x2_g16_r24_lifted_2rows, 16, 24, Lifted, Sequences, 2, [1, 2]),
    (sw_query_group_i16x2_g8_r20_queries_2rows, 8, 20, Lifted, Queries, 2, [1, 2]),
);

/// The update a chunk runs with a matrix whose scores lie in `min ..=
/// max` and gap cost `first` (open + extend): the lifted one where it
/// [fits](Update::fits), else the biased one, else the plain one.
pub const fn update_for(min: i32, max: i32, first: i32) -> Update {
    if Update::Lifted.fits(min, max, first) {
        Update::Lifted
    } else if Update::Biased.fits(min, max, first) {
        Update::Biased
    } else {
        Update::Plain
    }
}

/// Which configuration of [`CONFIGS`] runs a query of `query_len` residues
/// on a chunk whose longest sequence has `rows` residues with update
/// `update`: the one of least [`Config::cost`] (the first of equals).
#[cfg(not(target_arch = "nvptx64"))]
pub fn config_for(query_len: usize, rows: usize, update: Update) -> usize {
    cheapest_alone(query_len, rows, update, |_| true)
}

/// [`config_for`] among the configurations `keep` keeps.
#[cfg(not(target_arch = "nvptx64"))]
fn cheapest_alone(
    query_len: usize,
    rows: usize,
    update: Update,
    keep: impl Fn(&Config) -> bool,
) -> usize {
    (0..CONFIGS.len())
        .filter(|&k| CONFIGS[k].update == update && CONFIGS[k].halves == Halves::Sequences)
        .filter(|&k| keep(&CONFIGS[k]) && CONFIGS[k].runs_alone(query_len, rows))
        .min_by_key(|&k| CONFIGS[k].cost(query_len, rows))
        .expect("every update has configurations")
}

/// Which configuration of [`CONFIGS`] runs two queries of at most
/// `query_len` residues in the halves (the lifted update) on a chunk whose
/// longest sequence has `rows` residues: the one of least [`Config::cost`]
/// of one row a step ([`pair_configs`]).
#[cfg(not(target_arch = "nvptx64"))]
pub fn pair_config_for(query_len: usize, rows: usize) -> usize {
    pair_configs()
        .min_by_key(|&k| CONFIGS[k].cost(query_len, rows))
        .expect("two queries have configurations")
}

/// The configurations the models choose from for two queries in the
/// halves: those of one row a step (two rows a step ran slower with two
/// queries: module docs, *Rows a step*; `g8_r20_queries_2rows` is there
/// to be measured, pinned).
#[cfg(not(target_arch = "nvptx64"))]
fn pair_configs() -> impl Iterator<Item = usize> {
    (0..CONFIGS.len())
        .filter(|&k| CONFIGS[k].halves == Halves::Queries && CONFIGS[k].rows_per_step == 1)
}

/// Whether two queries of `a_len` and `b_len` residues cost less in one
/// launch, in the halves ([`pair_config_for`] of the longer; with
/// `hand_over`, the longer one handed over where [`pair_tail`] says it
/// pays), than each in its own ([`config_for`], the lifted update, one
/// row a step) on a chunk whose longest sequence has `rows` residues, by
/// [`Config::cost`]: a launch of two queries runs a group a sequence, one
/// of one query a group a pair of sequences. Against the cheaper cost of
/// two rows a step fewer queries pair, and whole searches ran slower
/// (benches/RESULTS.md): two rows a step are for the queries that stay
/// alone. On chunks of short sequences too: on an H200, whole searches of
/// the 20 standard queries on 1,000,000 sequences of 128 residues ran
/// 4,817.9–4,831.6 GCUPS with pairs against 4,469.1–4,483.5 without, of
/// 256 residues 5,069.7–5,092.6 against 4,663.1–4,674.2
/// (benches/RESULTS.md, "Batches only where one query leaves the GPU
/// idle"; what had made two queries in the halves look slow there was the
/// batches they ran in).
#[cfg(not(target_arch = "nvptx64"))]
pub fn queries_pay(a_len: usize, b_len: usize, rows: usize, hand_over: bool) -> bool {
    let longer = a_len.max(b_len);
    let pair = pair_config_for(longer, rows);
    let together = match pair_tail(pair, a_len, b_len, rows).filter(|_| hand_over) {
        Some((handoff, tail)) => tail_cost(pair, handoff, tail, longer, rows),
        None => 2 * CONFIGS[pair].cost(longer, rows),
    };
    let alone = |len| {
        let k = cheapest_alone(len, rows, Update::Lifted, |c| c.rows_per_step == 1);
        CONFIGS[k].cost(len, rows)
    };
    together < alone(a_len) + alone(b_len)
}

/// What a hand-over costs for each two sequences a row of the chunk's
/// longest, in [`Config::cost`]'s units: a thread a row, about forty
/// instructions (two slots read, one written).
#[cfg(not(target_arch = "nvptx64"))]
const HAND_OVER_ROW_COST: usize = 160;

/// Whether two queries of `a_len` and `b_len` residues in the halves with
/// configuration `pair` on a chunk whose longest sequence has `rows`
/// residues hand the longer one over where the shorter one ends (module
/// docs, *Handing a pair's longer query over*): `Some((j, tail))`, the
/// pair's passes before the hand-over and the one-query configuration of
/// the lifted update with the pair's lanes (of least [`Config::cost`] for
/// the columns left, two rows a step or one), where by [`Config::cost`]
/// that configuration and the hand-over cost less than the pair's passes
/// from `j` on; `None` where they do not, or the queries end in the same
/// pass.
#[cfg(not(target_arch = "nvptx64"))]
pub fn pair_tail(pair: usize, a_len: usize, b_len: usize, rows: usize) -> Option<(usize, usize)> {
    let c = CONFIGS[pair];
    let (shorter, longer) = (a_len.min(b_len), a_len.max(b_len));
    let (handoff, passes) = (c.passes(shorter), c.passes(longer));
    if c.halves != Halves::Queries || handoff >= passes {
        return None;
    }
    let left = longer - handoff * c.width();
    let tail = cheapest_alone(left, rows, Update::Lifted, |t| t.lanes == c.lanes);
    (tail_cost(pair, handoff, tail, longer, rows) < 2 * c.cost(longer, rows))
        .then_some((handoff, tail))
}

/// [`Config::cost`] for two sequences of two queries in the halves with
/// configuration `pair` whose longer one, of `longer` residues, is handed
/// over to configuration `tail` after `handoff` passes ([`pair_tail`]):
/// the pair's passes, which align a sequence a group, the hand-over and
/// the tail's passes, which align two.
#[cfg(not(target_arch = "nvptx64"))]
fn tail_cost(pair: usize, handoff: usize, tail: usize, longer: usize, rows: usize) -> usize {
    let c = CONFIGS[pair];
    let left = longer - handoff * c.width();
    2 * handoff * c.pass_cost(rows) + HAND_OVER_ROW_COST * rows + CONFIGS[tail].cost(left, rows)
}

/// Cycles a warp takes per instruction in the steps' loop under load:
/// ncu on g8_r20 of two queries (H100) counted 0.70 instructions issued a
/// scheduler a cycle with 3.74 warps a scheduler.
#[cfg(not(target_arch = "nvptx64"))]
const WARP_CYCLES_PER_INSTRUCTION: f64 = 3.74 / 0.70;

/// Instructions a multiprocessor issues a cycle (four schedulers at 0.70,
/// as measured; in lane-instructions, 32 a warp's).
#[cfg(not(target_arch = "nvptx64"))]
const SM_LANE_INSTRUCTIONS_PER_CYCLE: f64 = 4.0 * 0.70 * 32.0;

/// Which configuration of [`CONFIGS`] runs a batch of entries (module
/// docs, *A batch of query pairs*), each two queries of at most `lens[e]`
/// residues in the halves (longest first), on a chunk of `groups`
/// sequences whose longest has `rows` residues, on a GPU of `sm_count`
/// multiprocessors: the one whose batch ends first by a two-part model.
/// Its work ([`Config::cost`] of every entry, every group) spread over
/// the GPU, or, if longer, its critical path: the first entry's passes,
/// one launch after another, each as long as its longest warp's steps.
/// A few long queries against long sequences take many passes, and their
/// last ones run alone (20 standard queries against UniProt 20k, H100:
/// 2,645 GCUPS with g16_r20 against 1,958 with g8_r20); many short ones
/// are the work's (g8 ran 14 to 18 % faster than g16 on 4,000 sequences
/// against themselves and on 4,136 E. coli proteins against UniProt 20k:
/// benches/RESULTS.md).
#[cfg(not(target_arch = "nvptx64"))]
pub fn batch_config_for(lens: &[usize], rows: usize, groups: usize, sm_count: usize) -> usize {
    let first = lens.first().copied().unwrap_or(0);
    let cycles = |k: usize| -> f64 {
        let c = CONFIGS[k];
        let work: usize = lens.iter().map(|&m| c.cost(m, rows)).sum();
        let spread = (groups * work) as f64
            / 4.0
            / (sm_count.max(1) as f64 * SM_LANE_INSTRUCTIONS_PER_CYCLE);
        let serial = c.passes(first) * c.steps(rows) * c.step_cost();
        let critical = serial as f64 / 4.0 * WARP_CYCLES_PER_INSTRUCTION;
        spread.max(critical)
    };
    pair_configs()
        .min_by(|&a, &b| cycles(a).total_cmp(&cycles(b)))
        .expect("two queries have configurations")
}

/// The configuration named `sw_query_group_i16x2_<name>` (`g16_r32`, say),
/// for benchmarks that compare configurations.
#[cfg(not(target_arch = "nvptx64"))]
pub fn config_named(name: &str) -> Option<usize> {
    CONFIGS
        .iter()
        .position(|c| c.symbol.strip_prefix("sw_query_group_i16x2_") == Some(name))
}

#[cfg(all(test, not(target_arch = "nvptx64")))]
mod tests {
    use super::*;

    /// A pair hands its longer query over only where the shorter one ends
    /// passes before it, at that pass, to a one-query configuration of the
    /// lifted update with the pair's lanes, whichever half holds it, and
    /// where the model counts it cheaper; with it more pairs pay.
    #[test]
    fn pair_tail_hands_over_where_the_model_says_it_pays() {
        let mut handed = 0;
        for rows in [40, 300, 1200, 6000] {
            for a in (1..3000).step_by(97) {
                for b in [a, a + 5, a + 150, 2 * a + 400] {
                    let k = pair_config_for(b, rows);
                    let c = CONFIGS[k];
                    let tail = pair_tail(k, a, b, rows);
                    assert_eq!(tail, pair_tail(k, b, a, rows));
                    if let Some((handoff, t)) = tail {
                        handed += 1;
                        let tc = CONFIGS[t];
                        assert_eq!(handoff, c.passes(a));
                        assert!(handoff < c.passes(b));
                        assert_eq!(tc.halves, Halves::Sequences);
                        assert_eq!(tc.update, Update::Lifted);
                        assert_eq!(tc.lanes, c.lanes);
                        assert!(tail_cost(k, handoff, t, b, rows) < 2 * c.cost(b, rows));
                    } else if c.passes(a) < c.passes(b) {
                        // Not handed over although it could be: the
                        // model says so.
                        let left = b - c.passes(a) * c.width();
                        let t = cheapest_alone(left, rows, Update::Lifted, |t| t.lanes == c.lanes);
                        assert!(tail_cost(k, c.passes(a), t, b, rows) >= 2 * c.cost(b, rows));
                    }
                    // Pairing with the hand-over pays wherever it did
                    // without.
                    assert!(!queries_pay(a, b, rows, false) || queries_pay(a, b, rows, true));
                }
            }
        }
        assert!(handed > 100, "{handed}");
        // Queries ending in the same pass never hand over; a short query
        // with a long one does.
        let k = pair_config_for(729, 256);
        assert_eq!(pair_tail(k, 657, 729, 256), None);
        let k = pair_config_for(3005, 256);
        assert!(pair_tail(k, 2504, 3005, 256).is_some());
        // Not a configuration of two queries.
        assert_eq!(
            pair_tail(config_for(3005, 256, Update::Lifted), 100, 3005, 256),
            None
        );
    }

    /// Every window word a lane reads comes from inside the profile row,
    /// and the lanes' slices tile the pass's columns exactly once.
    #[test]
    fn windows_tile_the_pass_columns() {
        for c in CONFIGS.iter().filter(|c| c.halves == Halves::Sequences) {
            let m = 3 * c.width() + 5;
            let row_words = profile_row_words(m);
            for pass in 0..c.passes(m) {
                let mut seen = vec![0u32; row_words * 4];
                for i in 0..window_words(c.lanes, c.columns) {
                    if let Some(at) = window_source(i, c.lanes, c.columns, (0, pass), row_words) {
                        let code = at / (4 * row_words);
                        assert!(code < NUM_CODES);
                        // A word that starts inside one reads the next:
                        // its last byte, `at + 3`, lies in word
                        // `ceil(at / 4)`.
                        assert!(at.div_ceil(4) < NUM_CODES * row_words);
                        // The bytes of the lane's own columns (a lane of
                        // 18 columns: its last word's first two).
                        let column =
                            SLICE_COLUMNS * (i / 4 / c.lanes % slices(c.columns)) + 4 * (i % 4);
                        if code == 0 {
                            for b in 0..4.min(c.columns - column) {
                                seen[at % (4 * row_words) + b] += 1;
                            }
                        }
                    }
                }
                let columns = pass * c.width()..(pass + 1) * c.width();
                for (j, &n) in seen.iter().enumerate() {
                    assert_eq!(
                        n,
                        u32::from(columns.contains(&j)),
                        "{} column {j}",
                        c.symbol
                    );
                }
            }
        }
    }

    /// With two queries, every window word comes from inside the pair
    /// profile's row, and the lanes' slices tile the pass's columns
    /// exactly once, each word once a code.
    #[test]
    fn pair_windows_tile_the_pass_columns() {
        for c in CONFIGS.iter().filter(|c| c.halves == Halves::Queries) {
            let m = 3 * c.width() + 5;
            let row_words = pair_row_words(m);
            for pass in 0..c.passes(m) {
                let mut seen = vec![0u32; NUM_CODES * row_words];
                for i in 0..c.halves.window_words(c.lanes, c.columns) {
                    seen[pair_window_source(i, c.lanes, c.columns, pass, row_words)] += 1;
                }
                let columns = pass * c.width()..(pass + 1) * c.width();
                for (at, &n) in seen.iter().enumerate() {
                    let j = at % row_words;
                    assert_eq!(n, u32::from(columns.contains(&j)), "{} word {at}", c.symbol);
                }
            }
        }
    }

    /// A batch's configuration: a few long queries on long sequences take
    /// the widest pass (their critical path), many short ones the
    /// narrower groups (their work).
    #[test]
    fn batches_weigh_work_against_the_critical_path() {
        let name = |k: usize| {
            CONFIGS[k]
                .symbol
                .trim_start_matches("sw_query_group_i16x2_")
        };
        let few_long = [5478, 4743, 4061, 3005, 2005, 1000, 729, 567, 375, 189];
        assert!(CONFIGS[batch_config_for(&few_long, 8081, 250, 132)].lanes == 16);
        let many_short: Vec<usize> = (0..256).map(|e| 500 - 400 * e / 256).collect();
        let k = batch_config_for(&many_short, 500, 4000, 132);
        assert_eq!(CONFIGS[k].lanes, 8, "{}", name(k));
        for (rows, groups) in [(300, 5000), (1000, 3000), (2000, 1000), (8081, 250)] {
            let k = batch_config_for(&few_long, rows, groups, 132);
            eprintln!("few long, {rows} rows, {groups} groups: {}", name(k));
            let k = batch_config_for(&many_short, rows, groups, 132);
            eprintln!("many short, {rows} rows, {groups} groups: {}", name(k));
        }
    }

    /// Long queries of similar lengths pair on chunks of short sequences
    /// too, from 128 rows up (measured: [`queries_pay`]'s docs).
    #[test]
    fn similar_long_queries_pair_on_short_chunks_too() {
        for rows in [128, 256, 512, 2048] {
            assert!(queries_pay(5147, 5478, rows, true), "x {rows}");
            assert!(queries_pay(4548, 4743, rows, true), "x {rows}");
        }
    }

    /// Rows of the window are whole 128-byte lines from eight lanes on
    /// (module docs, *Memory layout*), whole 16-byte loads in the narrow
    /// groups, and offsets fit 16 bits.
    #[test]
    fn window_rows_are_whole_lines() {
        for c in CONFIGS {
            let row_bytes = 4 * c.halves.window_words(c.lanes, c.columns) / NUM_CODES;
            let line = if c.lanes >= NARROW_GROUP_LANES {
                128
            } else {
                16 * c.lanes
            };
            assert!(row_bytes.is_multiple_of(line), "{}", c.symbol);
            assert!(NUM_CODES * row_bytes / 4 < 1 << 16);
            assert!(
                c.columns.is_multiple_of(2)
                    && c.columns <= 32
                    && c.width() <= MAX_PASS_COLUMNS
                    && (c.columns.is_multiple_of(4) || c.halves == Halves::Sequences)
            );
        }
    }

    /// The cost model prefers one pass that fits and few empty columns.
    #[test]
    fn short_queries_take_one_narrow_pass() {
        for update in [Update::Lifted, Update::Biased] {
            let c = CONFIGS[config_for(144, 400, update)];
            assert_eq!(c.passes(144), 1, "{c:?}");
            assert!(c.width() - 144 < 32, "{c:?}");
            let c = CONFIGS[config_for(5478, 500, update)];
            assert!(c.width() * c.passes(5478) - 5478 < 5478 / 8, "{c:?}");
            assert_eq!(c.update, update);
        }
        assert_eq!(
            CONFIGS[config_for(144, 400, Update::Plain)].update,
            Update::Plain
        );
        assert_eq!(
            config_named("g16_r32").map(|k| CONFIGS[k].width()),
            Some(512)
        );
        assert_eq!(config_named("g99"), None);
    }

    /// Queries of up to 64 residues take a group of fewer than eight
    /// lanes, in one pass. Longer ones take groups of four in one pass
    /// (up to 112 residues), or in several only on sequences of at most
    /// `NARROW_MULTI_PASS_ROWS` residues, where the fill weighs most; no
    /// group of fewer than four lanes runs a query of several passes.
    #[test]
    fn the_shortest_queries_take_narrow_groups() {
        for (len, lanes) in [(5, 1), (8, 1), (12, 2), (16, 2), (32, 2), (64, 4)] {
            let c = CONFIGS[config_for(len, 400, Update::Lifted)];
            assert_eq!((c.lanes, c.passes(len)), (lanes, 1), "{len}: {c:?}");
        }
        let mut four_lanes = 0;
        for len in (65..6000).step_by(37) {
            for rows in [30, 128, 400, 1000, 2000] {
                let c = CONFIGS[config_for(len, rows, Update::Lifted)];
                if c.passes(len) > 1 {
                    assert!(c.lanes >= MULTI_PASS_LANES, "{len} x {rows}: {c:?}");
                    assert!(
                        c.lanes >= NARROW_GROUP_LANES || c.columns >= NARROW_MULTI_PASS_COLUMNS
                    );
                }
                if c.lanes < NARROW_GROUP_LANES && c.passes(len) > 1 {
                    assert!(rows <= NARROW_MULTI_PASS_ROWS, "{len} x {rows}: {c:?}");
                    four_lanes += 1;
                }
            }
        }
        // 128 residues a sequence: the long queries' passes in groups of four.
        assert!(four_lanes > 0);
        assert_eq!(CONFIGS[config_for(5478, 128, Update::Lifted)].lanes, 4);
    }

    /// One query on long sequences takes two rows a step, where the
    /// wavefront's fill is small against the rows; on short ones, one.
    #[test]
    fn long_chunks_take_two_rows_a_step() {
        let c = CONFIGS[config_for(144, 400, Update::Lifted)];
        assert_eq!((c.width(), c.rows_per_step), (144, 2), "{c:?}");
        let c = CONFIGS[config_for(144, 20, Update::Lifted)];
        assert_eq!((c.width(), c.rows_per_step), (144, 1), "{c:?}");
        for rows in [0, 1, 2, 3, 100, 401] {
            for lanes in [8, 16] {
                let steps = pass_steps(rows, lanes, 2);
                // The last lane reaches every row, in whole iterations of
                // four rows.
                assert!(2 * (steps - (lanes - 1)) >= rows && (2 * steps).is_multiple_of(4));
                assert!(2 * steps < rows + 2 * lanes + 4);
                // Its last slot lies inside the pair's scratch.
                assert!(2 * steps - (lanes - 1) <= scratch_slots(rows));
            }
        }
    }

    /// The lifted update takes BLOSUM62 (-4 ..= 11) from `first` 4 to 116,
    /// and the others where they fit.
    #[test]
    fn lift_fits_unsigned_bytes() {
        assert!(lift_fits(-4, 11, 4) && lift_fits(-4, 11, 116));
        assert!(!lift_fits(-4, 11, 3) && !lift_fits(-4, 11, 117));
        assert_eq!(update_for(-4, 11, 12), Update::Lifted);
        assert_eq!(update_for(-4, 11, 3), Update::Biased);
        assert_eq!(update_for(-4, 11, 200), Update::Plain);
        for w in [0u32, 0x8080_8080, 0x7f00_ff01, 0x0bfc_0480] {
            let got = window_word(Update::Lifted, w, 4).to_le_bytes();
            for (b, &x) in w.to_le_bytes().iter().enumerate() {
                assert_eq!(i32::from(got[b]), (i32::from(x as i8) + 4).clamp(0, 127));
            }
        }
    }

    #[test]
    fn bias_fits_i8() {
        assert!(bias_fits(11, 11));
        assert!(bias_fits(11, 116));
        assert!(!bias_fits(11, 117));
        assert!(!bias_fits(-5, 130));
        for w in [0u32, 0x8080_8080, 0x7f00_ff01, 0x1234_5678] {
            let first = 7;
            let got = biased_bytes(w, first).to_le_bytes();
            for (b, &x) in w.to_le_bytes().iter().enumerate() {
                let sum = i32::from(x as i8) + first as i32;
                if (-128..=127).contains(&sum) {
                    assert_eq!(got[b] as i8 as i32, sum);
                }
            }
        }
    }
}
