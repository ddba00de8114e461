//! GPU memory: what each GPU has free (at most `--gpu-memory`), and every
//! share of it that a plan may use, decided here and nowhere else.
//!
//! * A resident database takes at most half of the free memory
//!   ([`Budget::holds`]); each chunk's row buffer a quarter of the rest.
//! * A database that does not fit is streamed in parts ([`super::super::parted`]):
//!   chunks of at most an eighth, parts of at most a quarter (two parts and
//!   their row buffers in 3/4), and a GPU sharing parts keeps them in half.
//! * Alignment with traceback plans its windows in half.

use cudarc::driver::CudaContext;

use super::device::gpu_error;
use crate::db::{ChunkLimits, Database};
use crate::error::{Error, Result};

/// Most sequences per chunk (one launch).
pub(crate) const MAX_CHUNK_SEQUENCES: usize = 1 << 18;

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

    /// Chunk limits with `db` resident: one chunk's row buffer in a quarter
    /// of what is left (64 MiB to 8 GiB).
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
        Ok(ChunkLimits {
            max_sequences: MAX_CHUNK_SEQUENCES,
            max_bytes: ((self.0 - resident) / 4).clamp(64 << 20, 8 << 30),
        })
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

    /// Bytes of traceback windows in flight: half.
    pub fn traceback_bytes(self) -> usize {
        self.0 / 2
    }
}

/// Device bytes `db` needs resident: its residues and per-sequence lengths
/// and scores.
fn resident_bytes(db: &Database) -> usize {
    db.total_residues() as usize + 8 * db.len()
}
