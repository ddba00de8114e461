//! Scores read back through page-locked host memory: the engine keeps one
//! such buffer of at most [`PINNED_SCORES`] scores, allocated with the
//! engine for a query's scores and grown for a batch's, and a read-back
//! larger than that goes through it piece by piece, each piece copied on
//! into the vector returned.
//!
//! cudarc's `clone_dtoh` copies into a new vector of pageable memory, which
//! the driver fills through its own staging buffer. On one H200 that took
//! 0.85–1.17 ms of the engine stream's time for the 1 MB of scores of half
//! of Swiss-Prot (`WARPSW_TIMELINE`, benches/RESULTS.md), as long as the
//! GPU spent on a query of a few residues; a copy into page-locked memory
//! runs at the bus's speed.

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaStream, CudaView, DriverError, PinnedHostSlice};

/// The most scores the page-locked buffer holds (16 MiB): a query's
/// scores on up to 4 million sequences in one piece, and little of the
/// host's memory locked for a batch's larger read-backs.
pub(super) const PINNED_SCORES: usize = 4 << 20;

/// The engine's page-locked buffer for its read-backs.
#[derive(Default)]
pub(super) struct ReadBack {
    pinned: Option<PinnedHostSlice<i32>>,
    /// Page-locking failed once: reads copy as cudarc does from then on.
    unavailable: bool,
}

impl ReadBack {
    /// A buffer for read-backs of up to `scores` scores (at most
    /// [`PINNED_SCORES`]), allocated now: page-locking host memory takes
    /// a millisecond or more, which a search of a few residues would
    /// otherwise pay at its first read-back. Without page-locked memory,
    /// none (reads then copy as cudarc does).
    pub(super) fn for_scores(ctx: &Arc<CudaContext>, scores: usize) -> ReadBack {
        let mut read_back = ReadBack::default();
        read_back.reserve(ctx, scores.min(PINNED_SCORES));
        read_back
    }

    /// Makes the buffer hold at least `scores` scores where page-locked
    /// memory can be had; leaves none, and tries no more, where it cannot.
    fn reserve(&mut self, ctx: &Arc<CudaContext>, scores: usize) {
        if scores == 0
            || self.unavailable
            || self.pinned.as_ref().is_some_and(|p| p.len() >= scores)
        {
            return;
        }
        // Freed before allocating, as the device buffers are; grown by
        // doubling, so that growing reads allocate few times.
        self.pinned = None;
        let size = scores.next_power_of_two().min(PINNED_SCORES);
        // SAFETY: no element is read before a copy in `read` writes it
        // (only the first of each piece). Flags 0: cacheable, not
        // write-combined as cudarc's `alloc_pinned` makes it, since the
        // host reads it.
        self.pinned = unsafe { ctx.alloc_pinned_with_flags::<i32>(size, 0) }.ok();
        self.unavailable = self.pinned.is_none();
    }

    /// `src`, copied on `stream` once the stream reaches the copy (the
    /// caller has made it wait for whatever writes `src`), through the
    /// page-locked buffer (grown first, up to [`PINNED_SCORES`], where it
    /// is shorter), into a vector; through a pageable one, as cudarc
    /// copies, where no page-locked memory can be had.
    pub(super) fn read(
        &mut self,
        ctx: &Arc<CudaContext>,
        stream: &Arc<CudaStream>,
        src: &CudaView<'_, i32>,
    ) -> Result<Vec<i32>, DriverError> {
        let n = src.len();
        let piece = n.min(PINNED_SCORES);
        if piece == 0 {
            return Ok(Vec::new());
        }
        self.reserve(ctx, piece);
        let Some(pinned) = self.pinned.as_mut() else {
            return stream.clone_dtoh(src);
        };
        let host = pinned.as_mut_slice()?;
        let mut read = Vec::with_capacity(n);
        for start in (0..n).step_by(piece) {
            let end = (start + piece).min(n);
            // Exactly the piece's length: cudarc copies as many elements as
            // the host slice holds. A plain slice, for which cudarc records
            // no event and the copy is asynchronous, so the stream is
            // synchronized before the host reads it.
            let staged = &mut host[..end - start];
            stream.memcpy_dtoh(&src.slice(start..end), staged)?;
            stream.synchronize()?;
            read.extend_from_slice(staged);
        }
        Ok(read)
    }
}
