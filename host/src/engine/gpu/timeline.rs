//! Where one query's time goes on a GPU engine, for engineers who want to
//! know whether a search waits on the GPU or on the host:
//! `WARPSW_TIMELINE=on` prints one line a query to standard error, with
//! the host's time between the search's stages (profiles built and
//! uploaded, or only uploaded where a search of pairs built them while
//! the pair before was scoring; launches queued, every chunk joined,
//! scores read back) and the GPU's
//! between the same points, from timed events on the engine's stream, plus
//! the span and sum of the chunks' own launches on their streams.
//!
//! It covers a query (or a pair of queries) scored by one GPU holding the
//! database, the path `bench` and most searches take; batches of many
//! queries against a small database, and a database shared by several
//! GPUs, print none. Timed events cost a little (each is a command on its
//! stream), so the timeline is off unless asked for; a timeline that
//! cannot be recorded or read is a warning, never a failed search.

use std::sync::{Arc, LazyLock};
use std::time::Instant;

use cudarc::driver::sys::CUevent_flags;
use cudarc::driver::{CudaEvent, CudaStream};

use crate::error::{Error, Result};

/// The environment variable that turns the timeline on (`on`) or off
/// (`off`, the default; set and empty is off too).
pub const TIMELINE_VARIABLE: &str = "WARPSW_TIMELINE";

/// How much of a timeline [`TIMELINE_VARIABLE`] asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Detail {
    /// None (`off`, unset or empty).
    Off,
    /// One line a query (`on`).
    Query,
    /// That line, then one a chunk (`chunks`): its kernel, sequences,
    /// stream, launch and when the engine's stream had joined it (its
    /// rescue included).
    Chunks,
}

static TIMELINE: LazyLock<std::result::Result<Detail, String>> =
    LazyLock::new(|| match std::env::var(TIMELINE_VARIABLE).as_deref() {
        Ok("chunks") => Ok(Detail::Chunks),
        _ => crate::switch::on_or_off(TIMELINE_VARIABLE, false)
            .map(|on| if on { Detail::Query } else { Detail::Off })
            .map_err(|why| format!("{why} (or chunks)")),
    });

/// What [`TIMELINE_VARIABLE`] asks for; an error if it is none of off,
/// on and chunks.
pub fn timeline_detail() -> Result<Detail> {
    TIMELINE.clone().map_err(Error::InvalidArgument)
}

/// What a chunk's line names: its kernel, sequences, longest sequence
/// and the stream it ran on.
#[derive(Clone, Debug, PartialEq)]
pub struct ChunkLabel {
    /// The chunk's index in the engine's plan.
    pub index: usize,
    /// Its kernel (and configuration, where the adapter names one).
    pub kernel: String,
    /// Its sequences.
    pub sequences: usize,
    /// Residues of its longest sequence.
    pub longest: usize,
    /// The worker stream it ran on (`None`: the engine's).
    pub stream: Option<usize>,
}

/// A point of the search: when the host passed it, and a timed event the
/// engine's stream passed at the same place in its order.
struct Mark {
    stage: &'static str,
    host: Instant,
    gpu: CudaEvent,
}

/// One query's marks and its chunks' launch events. Best effort: an event
/// that cannot be recorded ends the timeline (its report says why), never
/// the search.
#[derive(Default)]
pub struct Timeline {
    marks: Vec<Mark>,
    /// Each chunk's launch: a timed event before it and one after it on
    /// the stream it ran on.
    chunks: Vec<(CudaEvent, CudaEvent)>,
    /// With [`Detail::Chunks`]: each chunk's label and an event on the
    /// engine's stream once it had joined the chunk (and queued its
    /// rescue), in the order of `chunks`.
    labels: Vec<(ChunkLabel, Option<CudaEvent>)>,
    /// Why the timeline stopped recording, if it did.
    failed: Option<String>,
}

/// An event with timing on `stream` (cudarc's default event has none).
fn timed(stream: &Arc<CudaStream>) -> std::result::Result<CudaEvent, String> {
    stream
        .record_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
        .map_err(|e| format!("recording a timeline event: {e}"))
}

impl Timeline {
    /// A timeline whose first mark, `start`, is on `stream` (the engine's).
    pub fn start(stream: &Arc<CudaStream>) -> Timeline {
        let mut timeline = Timeline::default();
        timeline.mark("start", stream);
        timeline
    }

    /// An event on `stream`, unless the timeline has stopped (or stops now).
    fn record(&mut self, stream: &Arc<CudaStream>) -> Option<CudaEvent> {
        if self.failed.is_some() {
            return None;
        }
        timed(stream).map_err(|why| self.failed = Some(why)).ok()
    }

    /// Marks `stage` on the host and on `stream` (the engine's).
    pub fn mark(&mut self, stage: &'static str, stream: &Arc<CudaStream>) {
        if let Some(gpu) = self.record(stream) {
            self.marks.push(Mark {
                stage,
                host: Instant::now(),
                gpu,
            });
        }
    }

    /// An event on `stream` before a chunk's launch; [`Timeline::chunk_end`]
    /// records its end.
    pub fn chunk_start(&mut self, stream: &Arc<CudaStream>) -> Option<CudaEvent> {
        self.record(stream)
    }

    /// The end of the chunk launch that `start` began, on `stream`.
    pub fn chunk_end(&mut self, start: Option<CudaEvent>, stream: &Arc<CudaStream>) {
        if let Some(start) = start
            && let Some(end) = self.record(stream)
        {
            self.chunks.push((start, end));
        }
    }

    /// Names the chunk whose launch [`Timeline::chunk_end`] recorded last
    /// (for [`Detail::Chunks`]).
    pub fn label_chunk(&mut self, label: ChunkLabel) {
        if self.labels.len() < self.chunks.len() {
            self.labels.push((label, None));
        }
    }

    /// Marks, on `stream` (the engine's), the point where chunk `index`
    /// has been joined and what it left there queued.
    pub fn chunk_joined(&mut self, index: usize, stream: &Arc<CudaStream>) {
        if let Some(at) = self.labels.iter().position(|(l, _)| l.index == index)
            && let Some(event) = self.record(stream)
        {
            self.labels[at].1 = Some(event);
        }
    }

    /// This query's numbers, once the last mark's event is done.
    pub fn report(&self) -> Result<Report> {
        if let Some(why) = &self.failed {
            return Err(Error::Internal(why.clone()));
        }
        let failed = |e| Error::Internal(format!("reading the timeline: {e}"));
        let mut report = Report::default();
        let Some(last) = self.marks.last() else {
            return Ok(report);
        };
        last.gpu.synchronize().map_err(failed)?;
        for pair in self.marks.windows(2) {
            report.stages.push(Stage {
                name: pair[1].stage,
                host_ms: pair[1].host.duration_since(pair[0].host).as_secs_f64() * 1e3,
                gpu_ms: f64::from(pair[0].gpu.elapsed_ms(&pair[1].gpu).map_err(failed)?),
            });
        }
        let origin = &self.marks[0].gpu;
        let since = |event: &CudaEvent| -> Result<f64> {
            Ok(f64::from(origin.elapsed_ms(event).map_err(failed)?))
        };
        for (start, end) in &self.chunks {
            report.chunks.push((since(start)?, since(end)?));
        }
        for ((label, joined), &(start, end)) in self.labels.iter().zip(&report.chunks) {
            report.details.push(ChunkTimes {
                label: label.clone(),
                start,
                end,
                joined: joined.as_ref().map(since).transpose()?,
            });
        }
        Ok(report)
    }
}

/// One stage of a [`Report`]: the host's and the GPU's time since the
/// stage before.
#[derive(Clone, Debug, PartialEq)]
pub struct Stage {
    /// The point the stage ends at.
    pub name: &'static str,
    /// Milliseconds on the host.
    pub host_ms: f64,
    /// Milliseconds between the stream's events.
    pub gpu_ms: f64,
}

/// A query's timeline in milliseconds: its stages in order, and each
/// chunk launch's start and end after the first mark.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Report {
    /// The stages, in order.
    pub stages: Vec<Stage>,
    /// Each chunk launch's start and end.
    pub chunks: Vec<(f64, f64)>,
    /// With [`Detail::Chunks`], each chunk's line.
    pub details: Vec<ChunkTimes>,
}

/// One chunk's times in milliseconds after the first mark.
#[derive(Clone, Debug, PartialEq)]
pub struct ChunkTimes {
    /// What the chunk is.
    pub label: ChunkLabel,
    /// Its launch's start on its stream.
    pub start: f64,
    /// Its launch's end.
    pub end: f64,
    /// When the engine's stream had joined it (and run what it queued
    /// there, the rescue), if recorded.
    pub joined: Option<f64>,
}

impl std::fmt::Display for ChunkTimes {
    /// `chunk 3: group-i16x2 (g32_r16), 4096 sequences of up to 3021
    /// residues, stream 2: 0.105 to 3.000 ms, joined at 6.022 ms`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let l = &self.label;
        write!(
            f,
            "chunk {}: {}, {} sequences of up to {} residues, {}: {:.3} to {:.3} ms",
            l.index,
            l.kernel,
            l.sequences,
            l.longest,
            match l.stream {
                Some(s) => format!("stream {s}"),
                None => "the engine's stream".into(),
            },
            self.start,
            self.end
        )?;
        if let Some(joined) = self.joined {
            write!(f, ", joined at {joined:.3} ms")?;
        }
        Ok(())
    }
}

impl std::fmt::Display for Report {
    /// One line: each stage's host/GPU milliseconds, then the chunks'
    /// span, the sum of their launches and the longest.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "timeline (ms, host/GPU):")?;
        for stage in &self.stages {
            write!(
                f,
                " {} {:.3}/{:.3}",
                stage.name, stage.host_ms, stage.gpu_ms
            )?;
        }
        if self.chunks.is_empty() {
            return Ok(());
        }
        let first = self
            .chunks
            .iter()
            .map(|c| c.0)
            .fold(f64::INFINITY, f64::min);
        let last = self
            .chunks
            .iter()
            .map(|c| c.1)
            .fold(f64::NEG_INFINITY, f64::max);
        let sum: f64 = self.chunks.iter().map(|c| c.1 - c.0).sum();
        let longest = self.chunks.iter().map(|c| c.1 - c.0).fold(0.0, f64::max);
        write!(
            f,
            "; {} chunks from {first:.3} to {last:.3}, launches' sum {sum:.3}, longest {longest:.3}",
            self.chunks.len()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_report_is_one_line_of_stages_then_the_chunks() {
        let stage = |name, host_ms, gpu_ms| Stage {
            name,
            host_ms,
            gpu_ms,
        };
        let report = Report {
            stages: vec![
                stage("profiles", 0.09, 0.0904),
                stage("joined", 0.37, 6.0224),
            ],
            chunks: vec![(0.105, 3.0), (0.2, 6.435), (1.0, 2.0)],
            details: Vec::new(),
        };
        assert_eq!(
            report.to_string(),
            "timeline (ms, host/GPU): profiles 0.090/0.090 joined 0.370/6.022; \
             3 chunks from 0.105 to 6.435, launches' sum 10.130, longest 6.235"
        );
        let no_chunks = Report {
            chunks: Vec::new(),
            ..report
        };
        assert_eq!(
            no_chunks.to_string(),
            "timeline (ms, host/GPU): profiles 0.090/0.090 joined 0.370/6.022"
        );
        assert_eq!(Report::default().to_string(), "timeline (ms, host/GPU):");
    }

    #[test]
    fn a_chunk_line_names_its_kernel_stream_and_times() {
        let label = ChunkLabel {
            index: 3,
            kernel: "group-i16x2".into(),
            sequences: 4096,
            longest: 3021,
            stream: Some(2),
        };
        let times = ChunkTimes {
            label: label.clone(),
            start: 0.105,
            end: 3.0,
            joined: Some(6.0224),
        };
        assert_eq!(
            times.to_string(),
            "chunk 3: group-i16x2, 4096 sequences of up to 3021 residues, stream 2: 0.105 to \
             3.000 ms, joined at 6.022 ms"
        );
        let alone = ChunkTimes {
            label: ChunkLabel {
                stream: None,
                ..label
            },
            joined: None,
            ..times
        };
        assert!(
            alone
                .to_string()
                .ends_with("the engine's stream: 0.105 to 3.000 ms")
        );
    }
}
