//! GPU memory: what each GPU has free (at most `--gpu-memory`), and every
//! share of it that a plan may use, decided here and nowhere else.
//!
//! * A resident database takes at most half of the free memory
//!   ([`Budget::holds`]); each chunk's row buffer a quarter of the rest,
//!   the scratch of the chunks that run side by side on several streams
//!   an eighth of it ([`Budget::overlap_scratch_bytes`]), and a batch of
//!   queries' profiles and scores another eighth ([`Budget::batch_bytes`]).
//! * A database that does not fit is streamed in parts ([`super::super::parted`]):
//!   chunks of at most an eighth, parts of at most a quarter (two parts and
//!   their row buffers in 3/4), and a GPU sharing parts keeps them in half.
//! * Alignment with traceback plans its windows in half.
//! * A chunk of one very long sequence can exceed its share: it must still
//!   fit, with its row buffer, in 3/4 of what the resident database leaves
//!   ([`Budget::check_resident`]) or in half of a streaming GPU
//!   ([`Budget::check_streamed`]); otherwise the plan is refused before
//!   anything is allocated, naming the sequence and the memory it needs.

use std::ops::Range;

use cudarc::driver::CudaContext;

use crate::db::{ChunkLimits, Database};
use crate::error::gpu_error;
use crate::error::{Error, Result};

/// Most sequences per chunk (one launch).
pub(crate) const MAX_CHUNK_SEQUENCES: usize = 1 << 18;

/// The environment variable that caps a resident database's chunks at
/// fewer sequences than [`MAX_CHUNK_SEQUENCES`], for benchmarks: a
/// database of one length is cut into chunks of that many sequences only,
/// and runs on no more streams than it has chunks (1,000,000 sequences
/// into 4).
pub const CHUNK_SEQUENCES_VARIABLE: &str = "WARPSW_CHUNK_SEQUENCES";

/// The most sequences of a resident database's chunk:
/// [`CHUNK_SEQUENCES_VARIABLE`], or [`MAX_CHUNK_SEQUENCES`] where it is
/// unset or empty.
///
/// # Errors
/// [`Error::InvalidArgument`] for a value that is not a number from 1 to
/// [`MAX_CHUNK_SEQUENCES`].
fn chunk_sequences() -> Result<usize> {
    chunk_sequences_of(std::env::var(CHUNK_SEQUENCES_VARIABLE).ok().as_deref())
}

/// [`chunk_sequences`] for the variable's value (`None`: unset).
fn chunk_sequences_of(value: Option<&str>) -> Result<usize> {
    match value {
        None | Some("") => Ok(MAX_CHUNK_SEQUENCES),
        Some(value) => value
            .parse::<usize>()
            .ok()
            .filter(|n| (1..=MAX_CHUNK_SEQUENCES).contains(n))
            .ok_or_else(|| {
                Error::InvalidArgument(format!(
                    "{CHUNK_SEQUENCES_VARIABLE}={value}: expected a number of sequences from 1 to \
                     {MAX_CHUNK_SEQUENCES}"
                ))
            }),
    }
}

/// The memory the engines may plan with on each GPU: `--gpu-memory`, or all
/// that is free. Passed down from the options; nothing is process-wide.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MemoryCap(Option<usize>);

impl MemoryCap {
    /// All the free memory.
    pub const UNLIMITED: MemoryCap = MemoryCap(None);

    /// At most `bytes` of each GPU (`None`: unlimited).
    pub fn new(bytes: Option<usize>) -> MemoryCap {
        MemoryCap(bytes)
    }

    /// Free memory of GPU `ordinal`, at most the cap.
    pub fn free(self, ordinal: usize) -> Result<Budget> {
        let ctx =
            CudaContext::new(ordinal).map_err(gpu_error(ordinal, "", "opening the device"))?;
        let (free, _) =
            ctx.mem_get_info()
                .map_err(gpu_error(ordinal, "", "querying free memory"))?;
        Ok(Budget(free.min(self.0.unwrap_or(usize::MAX))))
    }

    /// The budget of the smallest of GPUs `ordinals`: what a plan shared by
    /// all of them may use.
    pub fn smallest_free(self, ordinals: &[usize]) -> Result<Budget> {
        let mut smallest = usize::MAX;
        for &ordinal in ordinals {
            smallest = smallest.min(self.free(ordinal)?.0);
        }
        Ok(Budget(if ordinals.is_empty() { 0 } else { smallest }))
    }
}

/// Free bytes of a GPU (or the smallest of several), and the shares of them
/// each part of the engines uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget(pub usize);

impl Budget {
    /// Whether `db` can stay resident: half of the memory at most, the rest
    /// for row buffers, profiles and scores.
    pub fn holds(self, db: &Database) -> bool {
        resident_bytes(db) <= self.0 / 2
    }

    /// What `db` resident leaves of the memory.
    fn left_by(self, db: &Database) -> usize {
        self.0.saturating_sub(resident_bytes(db))
    }

    /// Chunk limits with `db` resident: one chunk's row buffer in a quarter
    /// of what is left (64 MiB to 8 GiB), at most [`chunk_sequences`]
    /// sequences.
    pub fn resident_chunks(self, db: &Database) -> Result<ChunkLimits> {
        let resident = resident_bytes(db);
        if !self.holds(db) {
            return Err(Error::InvalidArgument(format!(
                "the database needs about {} MiB of GPU memory and only {} MiB are free; \
                 split it into smaller files",
                resident >> 20,
                self.0 >> 20
            )));
        }
        // Never above what `check_resident` accepts: only a chunk of one
        // sequence can be refused.
        let left = self.0 - resident;
        Ok(ChunkLimits {
            max_sequences: chunk_sequences()?,
            max_bytes: (left / 4).clamp(64 << 20, 8 << 30).min(left / 4 * 3),
        })
    }

    /// Bytes the column scratch of chunks running side by side may take
    /// for one query, `db` resident: an eighth of what the database leaves
    /// (a query needing more runs its chunks one after another).
    pub fn overlap_scratch_bytes(self, db: &Database) -> usize {
        self.left_by(db) / 8
    }

    /// Bytes a batch of queries' profile rows and scores may take, `db`
    /// resident: an eighth of what the database leaves (a batch needing
    /// more is scored in smaller ones).
    pub fn batch_bytes(self, db: &Database) -> usize {
        self.left_by(db) / 8
    }

    /// Chunk limits of a streamed database: a chunk and its row buffer in
    /// an eighth of the memory.
    pub fn streamed_chunks(self) -> ChunkLimits {
        ChunkLimits {
            max_sequences: MAX_CHUNK_SEQUENCES,
            max_bytes: (self.0 / 8).max(1 << 20),
        }
    }

    /// Bytes of one streamed part: a quarter, so that two parts (one
    /// running, the next uploading) with their row buffers take 3/4.
    pub fn part_bytes(self) -> usize {
        self.0 / 4
    }

    /// Bytes of parts a GPU sharing a streamed database keeps: half.
    pub fn kept_parts_bytes(self) -> usize {
        self.0 / 2
    }

    /// Checks that every chunk of `chunks` (a plan of `db` resident on the
    /// GPU) fits with its row buffer in 3/4 of the memory the database
    /// leaves (the rest for profiles, scratch and scores).
    pub fn check_resident(self, db: &Database, chunks: &[Range<usize>]) -> Result<()> {
        let left = self.left_by(db);
        check_chunks(db, chunks, left / 4 * 3, self.0)
    }

    /// Checks that every chunk of `chunks` (a plan of `db` streamed in
    /// parts) fits with its row buffer in half of the memory: a part of its
    /// own, beside the next part uploading.
    pub fn check_streamed(self, db: &Database, chunks: &[Range<usize>]) -> Result<()> {
        check_chunks(db, chunks, self.0 / 2, self.0)
    }

    /// Bytes of traceback windows in flight: half.
    pub fn traceback_bytes(self) -> usize {
        self.0 / 2
    }
}

/// The error for the first chunk of `chunks` whose bytes
/// ([`ChunkLimits::chunk_bytes`]: residues and the SIMT kernels' row
/// buffer, about 9 bytes per residue of its longest sequence for each
/// sequence) exceed `share` of a GPU's `free` bytes.
fn check_chunks(db: &Database, chunks: &[Range<usize>], share: usize, free: usize) -> Result<()> {
    for range in chunks {
        let Some(longest) = range.clone().max_by_key(|&i| db.length(i)) else {
            continue;
        };
        let length = db.length(longest);
        let bytes = ChunkLimits::chunk_bytes(range.len(), length);
        if bytes > share {
            let mib = |b: usize| b.div_ceil(1 << 20);
            return Err(Error::InvalidArgument(format!(
                "sequence {} ({length} residues) needs about {} MiB of GPU memory \
                 (its residues and the kernels' row buffer{}), more than the {} MiB \
                 this GPU can give it ({} MiB free); search it with --device cpu \
                 (its memory does not grow with the sequence) or on a larger GPU",
                db.id(db.original_index(longest)),
                mib(bytes),
                match range.len() {
                    1 => String::new(),
                    n => format!(", with {} other sequences padded to its length", n - 1),
                },
                mib(share),
                mib(free),
            )));
        }
    }
    Ok(())
}

/// Device bytes `db` needs resident: its residues and per-sequence lengths
/// and scores.
pub fn resident_bytes(db: &Database) -> usize {
    db.total_residues() as usize + 8 * db.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::plan_chunks;
    use crate::fasta::Record;

    /// A database of sequences of `lengths` residues (ids `s0`, `s1`, ...).
    fn database(lengths: &[usize]) -> Database {
        Database::from_records(
            lengths
                .iter()
                .enumerate()
                .map(|(k, &len)| Record {
                    id: format!("s{k}"),
                    description: String::new(),
                    codes: vec![0; len],
                })
                .collect(),
        )
    }

    fn plan(db: &Database, limits: ChunkLimits) -> Vec<Range<usize>> {
        let lengths: Vec<usize> = (0..db.len()).map(|i| db.length(i)).collect();
        plan_chunks(&lengths, limits)
    }

    #[test]
    fn chunk_sequences_take_a_number_up_to_the_most() {
        assert_eq!(chunk_sequences_of(None).unwrap(), MAX_CHUNK_SEQUENCES);
        assert_eq!(chunk_sequences_of(Some("")).unwrap(), MAX_CHUNK_SEQUENCES);
        assert_eq!(chunk_sequences_of(Some("65536")).unwrap(), 65_536);
        for bad in ["0", "-3", "many", "262145"] {
            let err = chunk_sequences_of(Some(bad)).unwrap_err().to_string();
            assert!(
                err.contains(&format!("WARPSW_CHUNK_SEQUENCES={bad}: expected a number")),
                "{err}"
            );
        }
    }

    #[test]
    fn a_sequence_whose_row_buffer_does_not_fit_is_refused_by_name() {
        // 3 million residues: about 27 MiB of residues and row buffer alone
        // in a chunk, more than 3/4 of what 32 MiB leave beside them.
        let db = database(&[300, 3_000_000, 20, 5]);
        let budget = Budget(32 << 20);
        let chunks = plan(&db, budget.resident_chunks(&db).unwrap());
        let err = budget.check_resident(&db, &chunks).unwrap_err().to_string();
        assert!(err.contains("sequence s1 (3000000 residues)"), "{err}");
        assert!(err.contains("needs about 26 MiB"), "{err}");
        assert!(err.contains("--device cpu"), "{err}");
        // Streamed, the same GPU gives a chunk half of it: still too little.
        let chunks = plan(&db, budget.streamed_chunks());
        let err = budget.check_streamed(&db, &chunks).unwrap_err().to_string();
        assert!(err.contains("sequence s1"), "{err}");
        // With 64 MiB both plans fit.
        let budget = Budget(64 << 20);
        let chunks = plan(&db, budget.resident_chunks(&db).unwrap());
        budget.check_resident(&db, &chunks).unwrap();
        let chunks = plan(&db, budget.streamed_chunks());
        budget.check_streamed(&db, &chunks).unwrap();
    }

    #[test]
    fn a_plan_that_fits_allocates_within_the_budget() {
        // Every chunk a plan passes allocates (residues, lengths, scores and
        // the row buffer of the largest) within the budget, and leaves the
        // shares of the scratch and a batch of queries.
        for free in [8 << 20, 48 << 20, 1 << 30] {
            let budget = Budget(free);
            let db = database(&[1_500_000, 400_000, 400_000, 9_000, 300, 300, 1]);
            let Ok(limits) = budget.resident_chunks(&db) else {
                continue;
            };
            let chunks = plan(&db, limits);
            if budget.check_resident(&db, &chunks).is_err() {
                continue;
            }
            let residues: usize = chunks
                .iter()
                .map(|r| 4 * (r.len() * db.length(r.start).div_ceil(4) + r.len()))
                .sum();
            let row_buffer = chunks
                .iter()
                .map(|r| 32 * r.len() * db.length(r.start).div_ceil(4))
                .max()
                .unwrap();
            // With the side-by-side scratch and a batch of queries too.
            let shares = budget.overlap_scratch_bytes(&db) + budget.batch_bytes(&db);
            assert!(
                residues + row_buffer + 4 * db.len() + shares <= free,
                "{free}: {residues} + {row_buffer} + {shares}"
            );
        }
    }
}
