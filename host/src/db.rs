//! Database preparation: takes encoded records, returns them sorted by length
//! and packed into the chunks the kernels read.
//!
//! Sorting longest-first (SW-CUDA, CUDASW++) puts sequences of similar length
//! side by side, so the threads of a warp finish together; the original order
//! is kept for output and tie-breaking.

use std::ops::Range;
use std::sync::Arc;

use gpu_kernels::layout::PAD_CODE;
use rayon::prelude::*;

use crate::fasta::Record;

/// Bytes that are owned or live in a memory-mapped file.
#[derive(Clone, Debug)]
pub enum Storage {
    /// Owned by the process.
    Owned(Arc<Vec<u8>>),
    /// A range of a memory-mapped file.
    Mapped(Arc<memmap2::Mmap>, Range<usize>),
    /// A range of residues owned by the process and shared with the
    /// database it is a part of ([`Database::part`]).
    Shared(Arc<Vec<u8>>, Range<usize>),
}

impl std::ops::Deref for Storage {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Storage::Owned(v) => v,
            Storage::Mapped(map, range) => &map[range.clone()],
            Storage::Shared(v, range) => &v[range.clone()],
        }
    }
}

/// A database ready to search: residue codes sorted by decreasing length.
///
/// Index `i` below is the *sorted* position; [`Database::original_index`]
/// maps it back to the position in the input file.
#[derive(Clone, Debug)]
pub struct Database {
    /// Ids in input order: the database's own, or a part's parent's,
    /// shared rather than copied (at UniRef50's 60 million sequences a
    /// copy is gigabytes).
    ids: Arc<Vec<String>>,
    /// A part's input position → its id's index in `ids` (`None`: the
    /// same position).
    id_of: Option<Vec<u32>>,
    residues: Storage,
    /// `offsets[i]..offsets[i + 1]` are sequence `i`'s residues.
    offsets: Vec<u64>,
    /// Sorted position → position in the input.
    original: Vec<u32>,
}

/// The most sequences a database may hold: positions are 32-bit in the
/// kernels and the `.wsw` format.
pub const MAX_SEQUENCES: usize = u32::MAX as usize;

impl Database {
    /// [`Database::from_records`] for records read from a user's file:
    /// checks the limits first ([`MAX_SEQUENCES`] sequences, each of at most
    /// [`crate::fasta::MAX_SEQUENCE_LENGTH`] residues).
    ///
    /// # Errors
    /// [`crate::Error::InvalidArgument`] naming the limit (and the record).
    pub fn try_from_records(records: Vec<Record>) -> crate::Result<Database> {
        if records.len() > MAX_SEQUENCES {
            return Err(crate::Error::InvalidArgument(format!(
                "the database has {} sequences; at most {MAX_SEQUENCES} are supported: split it",
                records.len()
            )));
        }
        if let Some(r) = records
            .iter()
            .find(|r| r.codes.len() > crate::fasta::MAX_SEQUENCE_LENGTH)
        {
            return Err(crate::Error::InvalidArgument(format!(
                "sequence '{}' has {} residues; at most {} are supported",
                r.id,
                r.codes.len(),
                crate::fasta::MAX_SEQUENCE_LENGTH
            )));
        }
        Ok(Database::from_records(records))
    }

    /// Sorts records by decreasing length (ties keep input order). The
    /// records must be within [`Database::try_from_records`]'s limits.
    pub fn from_records(records: Vec<Record>) -> Database {
        let count = u32::try_from(records.len())
            .expect("at most MAX_SEQUENCES records (checked by try_from_records)");
        let mut order: Vec<u32> = (0..count).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(records[i as usize].codes.len()));
        let total: usize = records.iter().map(|r| r.codes.len()).sum();
        let mut residues = Vec::with_capacity(total);
        let mut offsets = Vec::with_capacity(records.len() + 1);
        offsets.push(0);
        for &i in &order {
            residues.extend_from_slice(&records[i as usize].codes);
            offsets.push(residues.len() as u64);
        }
        let ids = records.into_iter().map(|r| r.id).collect();
        Database {
            ids: Arc::new(ids),
            id_of: None,
            residues: Storage::Owned(Arc::new(residues)),
            offsets,
            original: order,
        }
    }

    /// Assembles a database from its parts (used by [`crate::dbfile`]).
    /// `ids` are in input order; `residues`, `offsets`, `original` in sorted order.
    pub fn from_parts(
        ids: Vec<String>,
        residues: Storage,
        offsets: Vec<u64>,
        original: Vec<u32>,
    ) -> Database {
        Database {
            ids: Arc::new(ids),
            id_of: None,
            residues,
            offsets,
            original,
        }
    }

    /// The sequences at sorted positions `range` as a database of their
    /// own, in the same order, their residues shared with this one (not
    /// copied); its ids are theirs in that order and its input order is its
    /// sorted order (as an MPI rank's part of a `.wsw` file).
    ///
    /// # Panics
    /// If `range` is not within `0..self.len()`.
    pub fn part(&self, range: Range<usize>) -> Database {
        let (first, last) = (self.offsets[range.start], self.offsets[range.end]);
        let bytes = first as usize..last as usize;
        let residues = match &self.residues {
            Storage::Owned(v) => Storage::Shared(v.clone(), bytes),
            Storage::Shared(v, r) => {
                Storage::Shared(v.clone(), r.start + bytes.start..r.start + bytes.end)
            }
            Storage::Mapped(m, r) => {
                Storage::Mapped(m.clone(), r.start + bytes.start..r.start + bytes.end)
            }
        };
        Database {
            ids: self.ids.clone(),
            id_of: Some(
                range
                    .clone()
                    .map(|i| self.id_index(self.original[i] as usize))
                    .collect(),
            ),
            residues,
            offsets: self.offsets[range.start..=range.end]
                .iter()
                .map(|&o| o - first)
                .collect(),
            original: (0..range.len() as u32).collect(),
        }
    }

    /// `parts` consecutive ranges of sorted positions covering the
    /// database, of nearly equal residues each (the boundary nearest each
    /// share; a part may be empty when sequences are fewer than parts).
    pub fn residue_parts(&self, parts: usize) -> Vec<Range<usize>> {
        let offset = |i: usize| self.offsets[i];
        (0..parts)
            .map(|k| {
                crate::dbfile::split::split_point(offset, self.len(), k, parts)
                    ..crate::dbfile::split::split_point(offset, self.len(), k + 1, parts)
            })
            .collect()
    }

    /// Number of sequences.
    pub fn len(&self) -> usize {
        self.original.len()
    }

    /// Whether the database holds no sequence.
    pub fn is_empty(&self) -> bool {
        self.original.is_empty()
    }

    /// Total residues, `|D|` in GCUPS.
    pub fn total_residues(&self) -> u64 {
        *self.offsets.last().unwrap_or(&0)
    }

    /// Residue codes of the sequence at sorted position `i`.
    pub fn sequence(&self, i: usize) -> &[u8] {
        &self.residues[self.offsets[i] as usize..self.offsets[i + 1] as usize]
    }

    /// Length of the sequence at sorted position `i`.
    pub fn length(&self, i: usize) -> usize {
        (self.offsets[i + 1] - self.offsets[i]) as usize
    }

    /// Length of the longest sequence (the first: sorted by decreasing
    /// length), 0 for an empty database.
    pub fn longest(&self) -> usize {
        if self.is_empty() { 0 } else { self.length(0) }
    }

    /// Input position of the sequence at sorted position `i`.
    pub fn original_index(&self, i: usize) -> usize {
        self.original[i] as usize
    }

    /// Id of the sequence at input position `original`.
    pub fn id(&self, original: usize) -> &str {
        &self.ids[self.id_index(original) as usize]
    }

    /// Where the id of input position `original` lies in `ids`.
    fn id_index(&self, original: usize) -> u32 {
        match &self.id_of {
            Some(id_of) => id_of[original],
            None => original as u32,
        }
    }

    /// All ids, in input order.
    pub fn ids(&self) -> impl ExactSizeIterator<Item = &str> {
        (0..self.len()).map(|original| self.id(original))
    }

    /// All residues, sorted order, concatenated.
    pub fn residues(&self) -> &[u8] {
        &self.residues
    }

    /// Sequence boundaries in [`Self::residues`], `len() + 1` entries.
    pub fn offsets(&self) -> &[u64] {
        &self.offsets
    }

    /// Sorted position → input position, `len()` entries.
    pub fn original_order(&self) -> &[u32] {
        &self.original
    }

    /// Reorders `scores` given in sorted order into input order.
    pub fn to_input_order(&self, sorted_scores: &[i32]) -> Vec<i32> {
        let mut out = vec![0; sorted_scores.len()];
        for (i, &s) in sorted_scores.iter().enumerate() {
            out[self.original[i] as usize] = s;
        }
        out
    }
}

/// Limits that decide how sequences are grouped into chunks.
#[derive(Clone, Copy, Debug)]
pub struct ChunkLimits {
    /// Most sequences (threads) in one chunk.
    pub max_sequences: usize,
    /// Most bytes one chunk may occupy on the device: packed residues plus
    /// the SIMT kernel's row buffer (`8 * 4` bytes per packed word).
    pub max_bytes: usize,
}

impl ChunkLimits {
    /// Device bytes a chunk of `sequences` sequences of at most `max_len`
    /// residues needs: residues, lengths, scores and the row buffer.
    pub fn chunk_bytes(sequences: usize, max_len: usize) -> usize {
        let words = max_len.div_ceil(4);
        sequences * (words * (4 + 4 * 8) + 8)
    }
}

/// Cuts the sorted database into consecutive ranges of sorted positions, each
/// within `limits`. Every sequence lands in exactly one range, in order.
///
/// ```
/// use host::db::{plan_chunks, ChunkLimits};
/// let lengths = [9, 7, 7, 3, 1];
/// let limits = ChunkLimits { max_sequences: 2, max_bytes: usize::MAX };
/// assert_eq!(plan_chunks(&lengths, limits), vec![0..2, 2..4, 4..5]);
/// ```
pub fn plan_chunks(sorted_lengths: &[usize], limits: ChunkLimits) -> Vec<Range<usize>> {
    let mut chunks = Vec::new();
    let mut start = 0;
    while start < sorted_lengths.len() {
        // Longest first: the first sequence of a chunk sets its width.
        let width = sorted_lengths[start];
        let mut end = start + 1;
        while end < sorted_lengths.len()
            && end - start < limits.max_sequences
            && ChunkLimits::chunk_bytes(end + 1 - start, width) <= limits.max_bytes
        {
            end += 1;
        }
        chunks.push(start..end);
        start = end;
    }
    chunks
}

/// [`plan_chunks`], with no chunk holding sequences on both sides of any of
/// `thresholds` residues (for `auto`'s two stages, and for kernels that run
/// one configuration per chunk by its longest sequence).
///
/// ```
/// use host::db::{plan_chunks_split, ChunkLimits};
/// let limits = ChunkLimits { max_sequences: 10, max_bytes: usize::MAX };
/// assert_eq!(plan_chunks_split(&[9, 7, 7, 3, 1], limits, &[5]), vec![0..3, 3..5]);
/// assert_eq!(plan_chunks_split(&[9, 7, 7, 3, 1], limits, &[2, 8]), vec![0..1, 1..4, 4..5]);
/// ```
pub fn plan_chunks_split(
    sorted_lengths: &[usize],
    limits: ChunkLimits,
    thresholds: &[usize],
) -> Vec<Range<usize>> {
    let mut bounds: Vec<usize> = thresholds
        .iter()
        .map(|&t| sorted_lengths.partition_point(|&len| len > t))
        .chain([0, sorted_lengths.len()])
        .collect();
    bounds.sort_unstable();
    bounds.dedup();
    bounds
        .windows(2)
        .flat_map(|w| {
            plan_chunks(&sorted_lengths[w[0]..w[1]], limits)
                .into_iter()
                .map(move |r| r.start + w[0]..r.end + w[0])
        })
        .collect()
}

/// Groups consecutive chunks, whose sizes are `bytes`, into parts of at
/// most `budget` bytes (a chunk larger than the budget is a part of its
/// own): the parts of a database streamed through a GPU too small for it.
///
/// ```
/// use host::db::group_parts;
/// assert_eq!(group_parts(&[4, 4, 3, 9, 1, 1], 8), vec![0..2, 2..3, 3..4, 4..6]);
/// assert!(group_parts(&[], 8).is_empty());
/// ```
pub fn group_parts(bytes: &[usize], budget: usize) -> Vec<Range<usize>> {
    let mut parts = Vec::new();
    let (mut start, mut used) = (0, 0);
    for (k, &b) in bytes.iter().enumerate() {
        if k > start && used + b > budget {
            parts.push(start..k);
            (start, used) = (k, 0);
        }
        used += b;
    }
    if start < bytes.len() {
        parts.push(start..bytes.len());
    }
    parts
}

/// Rows of a packed chunk written together ([`PackedChunk::pack`]): 64
/// residues, one cache line, of each sequence.
const PACK_BAND_ROWS: usize = 16;

/// One chunk's sequences packed four residues per word, interleaved by
/// thread (see `gpu_kernels::layout`).
#[derive(Clone, Debug)]
pub struct PackedChunk {
    /// Sorted positions of the chunk's sequences.
    pub range: Range<usize>,
    /// Words per sequence (the longest sequence's, rounded up).
    pub words_per_sequence: usize,
    /// `words_per_sequence * range.len()` words; word `w` of thread `t` at
    /// `w * range.len() + t`.
    pub words: Vec<u32>,
    /// Length of each sequence.
    pub lengths: Vec<u32>,
}

impl PackedChunk {
    /// Packs sorted positions `range` of `db`.
    pub fn pack(db: &Database, range: Range<usize>) -> PackedChunk {
        let threads = range.len();
        // Every length fits: checked when read (fasta::MAX_SEQUENCE_LENGTH,
        // and the same limit in dbfile::open).
        let lengths: Vec<u32> = range
            .clone()
            .map(|i| u32::try_from(db.length(i)).expect("a length within MAX_SEQUENCE_LENGTH"))
            .collect();
        let words_per_sequence = lengths
            .iter()
            .map(|&l| (l as usize).div_ceil(4))
            .max()
            .unwrap_or(0);
        let pad_word = u32::from_le_bytes([PAD_CODE; 4]);
        // Filled in parallel too: for the largest chunks, writing hundreds
        // of megabytes fresh from the allocator takes one thread a while.
        let mut words: Vec<u32> = (0..words_per_sequence * threads)
            .into_par_iter()
            .map(|_| pad_word)
            .collect();
        // Row w holds word w of every sequence. Written one band of
        // PACK_BAND_ROWS rows at a time, sequence after sequence, so that
        // the writes run along the rows: a sequence at a time they would
        // jump a whole row (a megabyte for 262,144 sequences) per word.
        // The bands are independent and packed in parallel.
        words
            .par_chunks_mut(PACK_BAND_ROWS * threads.max(1))
            .enumerate()
            .for_each(|(band, rows)| {
                let first = 4 * PACK_BAND_ROWS * band;
                for (t, i) in range.clone().enumerate() {
                    let tail = db.sequence(i).get(first..).unwrap_or_default();
                    for (r, quad) in tail.chunks(4).take(PACK_BAND_ROWS).enumerate() {
                        let mut bytes = [PAD_CODE; 4];
                        bytes[..quad.len()].copy_from_slice(quad);
                        rows[r * threads + t] = u32::from_le_bytes(bytes);
                    }
                }
            });
        PackedChunk {
            range,
            words_per_sequence,
            words,
            lengths,
        }
    }

    /// Number of sequences.
    pub fn sequences(&self) -> usize {
        self.range.len()
    }

    /// Residue words of the longest of sequences `first .. first + lanes`
    /// of the chunk: the columns, four a word, of a SIMD vector of them.
    pub fn vector_words(&self, first: usize, lanes: usize) -> usize {
        self.lengths[first..first + lanes]
            .iter()
            .map(|&l| (l as usize).div_ceil(4))
            .max()
            .unwrap_or(0)
    }

    /// Length of the chunk's longest sequence (its first: the database is
    /// sorted longest first).
    pub fn longest(&self) -> usize {
        self.lengths.iter().copied().max().unwrap_or(0) as usize
    }

    /// Bytes the chunk occupies on a device (residue words and lengths).
    pub fn device_bytes(&self) -> usize {
        4 * (self.words.len() + self.lengths.len())
    }

    /// Residues of the chunk's sequences.
    pub fn residues(&self) -> u64 {
        self.lengths.iter().map(|&l| l as u64).sum()
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A record with an empty description (also used by `dbfile`'s tests).
    pub(crate) fn record(id: &str, codes: &[u8]) -> Record {
        Record {
            id: id.into(),
            description: String::new(),
            codes: codes.to_vec(),
        }
    }

    #[test]
    fn sorts_longest_first_and_keeps_input_order() {
        let db = Database::from_records(vec![
            record("a", &[1]),
            record("b", &[1, 2, 3]),
            record("c", &[4]),
            record("d", &[]),
        ]);
        assert_eq!(db.original_order(), &[1, 0, 2, 3]);
        assert_eq!(db.sequence(0), &[1, 2, 3]);
        assert_eq!(db.id(db.original_index(2)), "c");
        assert_eq!(db.total_residues(), 5);
        assert_eq!(db.to_input_order(&[30, 10, 40, 0]), vec![10, 30, 40, 0]);
    }

    #[test]
    fn chunks_cover_everything_once_within_limits() {
        let lengths: Vec<usize> = (0..1000).rev().map(|i| i % 97 * 13).collect();
        let mut sorted = lengths.clone();
        sorted.sort_by(|a, b| b.cmp(a));
        let limits = ChunkLimits {
            max_sequences: 64,
            max_bytes: 200_000,
        };
        let chunks = plan_chunks(&sorted, limits);
        let mut next = 0;
        for c in &chunks {
            assert_eq!(c.start, next);
            assert!(c.len() <= 64);
            assert!(c.len() == 1 || ChunkLimits::chunk_bytes(c.len(), sorted[c.start]) <= 200_000);
            next = c.end;
        }
        assert_eq!(next, sorted.len());
    }

    #[test]
    fn packing_interleaves_and_pads() {
        let db = Database::from_records(vec![record("a", &[1, 2, 3, 4, 5]), record("b", &[6, 7])]);
        let chunk = PackedChunk::pack(&db, 0..2);
        assert_eq!(chunk.words_per_sequence, 2);
        assert_eq!(chunk.words[0], u32::from_le_bytes([1, 2, 3, 4]));
        assert_eq!(
            chunk.words[1],
            u32::from_le_bytes([6, 7, PAD_CODE, PAD_CODE])
        );
        assert_eq!(
            chunk.words[2],
            u32::from_le_bytes([5, PAD_CODE, PAD_CODE, PAD_CODE])
        );
        assert_eq!(chunk.words[3], u32::from_le_bytes([PAD_CODE; 4]));
        assert_eq!(chunk.lengths, vec![5, 2]);
    }
}
