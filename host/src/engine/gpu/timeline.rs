//! Where one query's time goes on a GPU engine, for engineers who want to
//! know whether a search waits on the GPU or on the host:
//! `WARPSW_TIMELINE=on` prints one line a query to standard error, with
//! the host's time between the search's stages (profiles uploaded,
//! launches queued, every chunk joined, scores read back) and the GPU's
//! between the same points, from timed events on the engine's stream, plus
//! the span and sum of the chunks' own launches on their streams.
//!
//! Timed events cost a little (each is a command on its stream), so the
//! timeline is off unless asked for.

use std::sync::{Arc, LazyLock};
use std::time::Instant;

use cudarc::driver::sys::CUevent_flags;
use cudarc::driver::{CudaEvent, CudaStream};

use crate::error::{Error, Result};

/// The environment variable that turns the timeline on (`on`) or off
/// (`off`, the default; set and empty is off too).
pub const TIMELINE_VARIABLE: &str = "WARPSW_TIMELINE";

static TIMELINE_ON: LazyLock<std::result::Result<bool, String>> =
    LazyLock::new(|| match std::env::var(TIMELINE_VARIABLE) {
        Err(_) => Ok(false),
        Ok(value) => match value.as_str() {
            "" | "off" => Ok(false),
            "on" => Ok(true),
            _ => Err(format!("{TIMELINE_VARIABLE}={value}: expected on or off")),
        },
    });

/// Whether [`TIMELINE_VARIABLE`] asks for a timeline; an error if it is
/// neither on nor off.
pub fn timeline_on() -> Result<bool> {
    TIMELINE_ON.clone().map_err(Error::InvalidArgument)
}

/// A point of the search: when the host passed it, and a timed event the
/// engine's stream passed at the same place in its order.
struct Mark {
    stage: &'static str,
    host: Instant,
    gpu: CudaEvent,
}

/// One query's marks and its chunks' launch events.
#[derive(Default)]
pub struct Timeline {
    marks: Vec<Mark>,
    /// Each chunk's launch: a timed event before it and one after it on
    /// the stream it ran on.
    chunks: Vec<(CudaEvent, CudaEvent)>,
}

/// An event with timing on `stream` (cudarc's default event has none).
fn timed(stream: &Arc<CudaStream>) -> Result<CudaEvent> {
    stream
        .record_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
        .map_err(|e| Error::Internal(format!("recording a timeline event: {e}")))
}

impl Timeline {
    /// Marks `stage` on the host and on `stream` (the engine's).
    pub fn mark(&mut self, stage: &'static str, stream: &Arc<CudaStream>) -> Result<()> {
        let gpu = timed(stream)?;
        self.marks.push(Mark {
            stage,
            host: Instant::now(),
            gpu,
        });
        Ok(())
    }

    /// An event on `stream` before a chunk's launch; [`Timeline::chunk_end`]
    /// records its end.
    pub fn chunk_start(&self, stream: &Arc<CudaStream>) -> Result<CudaEvent> {
        timed(stream)
    }

    /// The end of the chunk launch that `start` began, on `stream`.
    pub fn chunk_end(&mut self, start: CudaEvent, stream: &Arc<CudaStream>) -> Result<()> {
        let end = timed(stream)?;
        self.chunks.push((start, end));
        Ok(())
    }

    /// The line for this query, once the last mark's event is done: each
    /// stage's host and GPU milliseconds, then the chunks' span from the
    /// first mark and the sum of their launches.
    pub fn report(&self) -> Result<String> {
        let failed = |e| Error::Internal(format!("reading the timeline: {e}"));
        let Some(last) = self.marks.last() else {
            return Ok(String::from("timeline: no marks"));
        };
        last.gpu.synchronize().map_err(failed)?;
        let mut line = String::from("timeline (ms, host/GPU):");
        for pair in self.marks.windows(2) {
            let host = pair[1].host.duration_since(pair[0].host).as_secs_f64() * 1e3;
            let gpu = pair[0].gpu.elapsed_ms(&pair[1].gpu).map_err(failed)?;
            line.push_str(&format!(" {} {host:.3}/{gpu:.3}", pair[1].stage));
        }
        if !self.chunks.is_empty() {
            let origin = &self.marks[0].gpu;
            let (mut first, mut last_end, mut sum, mut longest) =
                (f32::INFINITY, f32::NEG_INFINITY, 0f32, 0f32);
            for (start, end) in &self.chunks {
                let s = origin.elapsed_ms(start).map_err(failed)?;
                let e = origin.elapsed_ms(end).map_err(failed)?;
                first = first.min(s);
                last_end = last_end.max(e);
                sum += e - s;
                longest = longest.max(e - s);
            }
            line.push_str(&format!(
                "; {} chunks from {first:.3} to {last_end:.3}, launches' sum {sum:.3}, longest {longest:.3}",
                self.chunks.len()
            ));
        }
        Ok(line)
    }
}
