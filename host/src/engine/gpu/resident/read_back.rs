//! Scores read back through page-locked host memory: the engine keeps one
//! such buffer of at most [`PINNED_SCORES`] scores, allocated with the
//! engine for a query's scores (a pair's where queries pair) and enlarged
//! for a batch's, and a read-back larger than the buffer goes through it
//! piece by piece, each piece copied on into the vector returned (or the
//! caller's slice). A pair's scores can also stay in it
//! ([`ReadBack::stage`]) until the host copies them out, after the next
//! pair is launched.
//!
//! cudarc's `clone_dtoh` copies into a new vector of pageable memory, which
//! the driver fills through its own staging buffer. On one H200 the
//! read-back of the 1 MB of scores of half of Swiss-Prot took 0.85–1.17 ms
//! of the engine stream's time that way, as long as the GPU spent on a
//! query of a few residues, and 0.74 ms through this buffer against 0.93
//! in the same call (`WARPSW_TIMELINE`, whose own events are in both);
//! `bench` of the 22 short queries ran 1–3 % faster (benches/RESULTS.md,
//! "Scores read back through page-locked memory").

use std::ops::Range;
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
    /// Page-locking failed once: the buffer stays as it is from then on.
    unavailable: bool,
    /// Scores the last [`ReadBack::stage`] left at the buffer's start.
    staged: usize,
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
    /// memory can be had, its length the next power of two (so that
    /// growing reads allocate few times) up to [`PINNED_SCORES`]; where it
    /// cannot, keeps the buffer it has and tries no more.
    fn reserve(&mut self, ctx: &Arc<CudaContext>, scores: usize) {
        if scores == 0
            || self.unavailable
            || self.pinned.as_ref().is_some_and(|p| p.len() >= scores)
        {
            return;
        }
        let size = scores.next_power_of_two().min(PINNED_SCORES);
        // SAFETY: the buffer's users are `through` (for `read` and
        // `read_into`) and `stage`; each copies into elements of the
        // buffer and reads only elements it (or, for `staged`, the last
        // `stage`) copied into. cudarc records no event on the buffer for
        // copies into a plain slice, so it must not be reused or freed
        // while a copy into it is in flight: both synchronize the stream
        // after their copies, failed or not, before they return, and
        // every write resets `staged`, so that `staged` hands out only
        // what the last `stage` left. Flags 0: cacheable, not
        // write-combined as cudarc's `alloc_pinned` makes it, since the
        // host reads it.
        match unsafe { ctx.alloc_pinned_with_flags::<i32>(size, 0) } {
            Ok(pinned) => self.pinned = Some(pinned),
            Err(_) => self.unavailable = true,
        }
    }

    /// `src`, copied on `stream` once the stream reaches the copy (the
    /// caller has made it wait for whatever writes `src`), through the
    /// page-locked buffer (enlarged first, up to [`PINNED_SCORES`], where
    /// it is shorter and can be), into a vector; through a pageable one,
    /// as cudarc copies, where the engine has no page-locked buffer.
    pub(super) fn read(
        &mut self,
        stream: &Arc<CudaStream>,
        src: &CudaView<'_, i32>,
    ) -> Result<Vec<i32>, DriverError> {
        if src.is_empty() {
            return Ok(Vec::new());
        }
        let Some(pinned) = self.buffer_for(stream, src.len()) else {
            return stream.clone_dtoh(src);
        };
        let mut read = Vec::with_capacity(src.len());
        through(pinned, stream, src, |_, piece| {
            read.extend_from_slice(piece)
        })?;
        Ok(read)
    }

    /// `src` copied into `dst`, as [`ReadBack::read`] copies it, with no
    /// vector of its own between the buffer and `dst`.
    ///
    /// # Panics
    /// If `dst` is not as long as `src`.
    pub(super) fn read_into(
        &mut self,
        stream: &Arc<CudaStream>,
        src: &CudaView<'_, i32>,
        dst: &mut [i32],
    ) -> Result<(), DriverError> {
        assert_eq!(
            src.len(),
            dst.len(),
            "a read-back into a slice of another length"
        );
        if src.is_empty() {
            return Ok(());
        }
        let Some(pinned) = self.buffer_for(stream, src.len()) else {
            stream.memcpy_dtoh(src, dst)?;
            return stream.synchronize();
        };
        through(pinned, stream, src, |start, piece| {
            dst[start..start + piece.len()].copy_from_slice(piece);
        })
    }

    /// `srcs` copied on `stream` once the stream reaches the copies, one
    /// after another into the page-locked buffer (enlarged first where it
    /// is shorter and can be), where together they fit in it: `true`, and
    /// [`ReadBack::staged`] hands them out until the next stage. `false`,
    /// nothing copied, where they do not fit or the engine has no buffer.
    /// What a read-back of several queries' scores leaves for later: the
    /// copy out of the buffer, which the host can do while the GPU scores
    /// the next queries.
    pub(super) fn stage(
        &mut self,
        stream: &Arc<CudaStream>,
        srcs: &[CudaView<'_, i32>],
    ) -> Result<bool, DriverError> {
        self.staged = 0;
        let total: usize = srcs.iter().map(|src| src.len()).sum();
        if total > PINNED_SCORES {
            return Ok(false);
        }
        let Some(pinned) = self.buffer_for(stream, total) else {
            return Ok(false);
        };
        if pinned.len() < total {
            return Ok(false);
        }
        let host = pinned.as_mut_slice()?;
        let copied = (|| {
            let mut at = 0;
            for src in srcs.iter().filter(|src| !src.is_empty()) {
                // Exactly the source's length: cudarc copies as many
                // elements as the host slice holds.
                stream.memcpy_dtoh(src, &mut host[at..at + src.len()])?;
                at += src.len();
            }
            Ok(())
        })();
        // As `reserve`'s safety asks, even after a failed copy (an earlier
        // one may be in flight): nothing reads the buffer, copies into it
        // or frees it before these copies are done.
        let synchronized = stream.synchronize();
        copied.and(synchronized)?;
        self.staged = total;
        Ok(true)
    }

    /// Positions `range` of what the last [`ReadBack::stage`] copied (its
    /// sources one after another); `None` beyond it.
    pub(super) fn staged(&self, range: Range<usize>) -> Result<Option<&[i32]>, DriverError> {
        let Some(pinned) = self.pinned.as_ref().filter(|_| range.end <= self.staged) else {
            return Ok(None);
        };
        // The stage synchronized its stream after its copies; the buffer's
        // own event has nothing newer to wait for.
        Ok(Some(&pinned.as_slice()?[range]))
    }

    /// The page-locked buffer for a read-back of `n` scores, enlarged
    /// first where it is shorter and can be; none where the engine has
    /// none.
    fn buffer_for(
        &mut self,
        stream: &Arc<CudaStream>,
        n: usize,
    ) -> Option<&mut PinnedHostSlice<i32>> {
        // Whatever was staged is about to be written over.
        self.staged = 0;
        self.reserve(stream.context(), n.min(PINNED_SCORES));
        self.pinned.as_mut()
    }
}

/// `src` copied on `stream` through `pinned`, piece by piece, each piece
/// handed to `take` with its first position once the stream has copied it
/// (the stream synchronized after each copy, as [`ReadBack::reserve`]'s
/// safety asks).
fn through(
    pinned: &mut PinnedHostSlice<i32>,
    stream: &Arc<CudaStream>,
    src: &CudaView<'_, i32>,
    mut take: impl FnMut(usize, &[i32]),
) -> Result<(), DriverError> {
    let n = src.len();
    let host = pinned.as_mut_slice()?;
    let piece = n.min(host.len());
    for start in (0..n).step_by(piece) {
        let end = (start + piece).min(n);
        // Exactly the piece's length: cudarc copies as many elements as
        // the host slice holds.
        let staged = &mut host[..end - start];
        stream.memcpy_dtoh(&src.slice(start..end), staged)?;
        stream.synchronize()?;
        take(start, staged);
    }
    Ok(())
}
