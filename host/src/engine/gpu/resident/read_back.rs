//! Scores read back through page-locked host memory: the engine keeps one
//! such buffer, grown to the largest read-back it has made, and copies each
//! read-back from it into the vector it returns.
//!
//! cudarc's `clone_dtoh` copies into a new vector of pageable memory, which
//! the driver fills through its own staging buffer while the new pages are
//! touched for the first time. On one H200 that took 0.85–1.17 ms of the
//! engine stream's time for the 1 MB of scores of half of Swiss-Prot
//! (`WARPSW_TIMELINE`, benches/RESULTS.md), as long as the GPU spent on a
//! query of a few residues; a copy into page-locked memory runs at the
//! bus's speed.

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaStream, CudaView, DriverError, PinnedHostSlice};

/// The engine's page-locked buffer for its read-backs.
#[derive(Default)]
pub(super) struct ReadBack {
    pinned: Option<PinnedHostSlice<i32>>,
}

impl ReadBack {
    /// `src`, copied on `stream` once the stream reaches the copy (the
    /// caller has made it wait for whatever writes `src`), into the buffer
    /// (grown first where it is shorter) and from there into a vector.
    pub(super) fn read(
        &mut self,
        ctx: &Arc<CudaContext>,
        stream: &Arc<CudaStream>,
        src: &CudaView<'_, i32>,
    ) -> Result<Vec<i32>, DriverError> {
        let n = src.len();
        if n == 0 {
            return Ok(Vec::new());
        }
        if self.pinned.as_ref().is_none_or(|p| p.len() < n) {
            // Freed before allocating, as the device buffers are.
            self.pinned = None;
        }
        let pinned = match &mut self.pinned {
            Some(pinned) => pinned,
            // SAFETY: no element is read before the copy below writes it
            // (only the first `n`, each read-back's own). Flags 0:
            // cacheable, not write-combined as cudarc's `alloc_pinned`
            // makes it, since the host reads it.
            empty => empty.insert(unsafe { ctx.alloc_pinned_with_flags::<i32>(n, 0)? }),
        };
        let host = &mut pinned.as_mut_slice()?[..n];
        // A plain host slice: cudarc records no event for it, and the copy
        // is asynchronous into page-locked memory, so the stream is
        // synchronized before the host reads it.
        stream.memcpy_dtoh(src, host)?;
        stream.synchronize()?;
        Ok(host.to_vec())
    }
}
