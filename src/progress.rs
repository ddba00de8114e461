//! A progress bar counted in cells (query residues × target residues), the
//! unit of the work itself: a run of one long query moves as steadily as one
//! of many short ones. Shows the rate (GCUPS) and the time left. When
//! standard error is not a terminal (a batch job, a pipeline, Slurm's log)
//! a plain line says the same every [`LOG_INTERVAL`] instead
//! (`WARPSW_PROGRESS_SECONDS` sets another interval); `--quiet` shows
//! neither.
//!
//! `search` and `bench` advance it per query; `align` and `allpairs` per
//! window of pairs (whatever the engine reports, in cells).

use std::io::IsTerminal;
use std::sync::Mutex;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};

/// How often the plain progress line is printed where standard error is
/// not a terminal.
pub const LOG_INTERVAL: Duration = Duration::from_secs(10);

/// The environment variable that sets [`LOG_INTERVAL`] in seconds.
pub const LOG_INTERVAL_VARIABLE: &str = "WARPSW_PROGRESS_SECONDS";

/// A cell-counting progress bar (see the module docs).
pub struct CellProgress {
    bar: ProgressBar,
    /// The plain progress lines' thread, where standard error is not a
    /// terminal: it stops when the sender is dropped.
    log: Mutex<Option<(mpsc::Sender<()>, JoinHandle<()>)>>,
}

impl CellProgress {
    /// A bar for `total_cells`, drawn on standard error when it is a
    /// terminal and `quiet` is not set; else, without `quiet`, a plain line
    /// every [`LOG_INTERVAL`].
    pub fn new(total_cells: u128, what: &str, quiet: bool) -> CellProgress {
        if quiet {
            return Self::with_target(total_cells, what, ProgressDrawTarget::hidden());
        }
        if std::io::stderr().is_terminal() {
            return Self::with_target(total_cells, what, ProgressDrawTarget::stderr());
        }
        let progress = Self::with_target(total_cells, what, ProgressDrawTarget::hidden());
        let interval = log_interval();
        let (stop, stopped) = mpsc::channel::<()>();
        let bar = progress.bar.clone();
        let started = Instant::now();
        let thread = std::thread::spawn(move || {
            let mut next = interval;
            // Waits for the next line's time or the stop, whichever comes
            // first: no line after `finish`, and no wait at the end.
            while let Err(RecvTimeoutError::Timeout) =
                stopped.recv_timeout(next.saturating_sub(started.elapsed()))
            {
                let elapsed = started.elapsed();
                if elapsed >= next {
                    eprintln!("warpsw: progress: {}", log_line(&bar, elapsed));
                    next += interval;
                }
            }
        });
        *progress.log.lock().unwrap_or_else(|p| p.into_inner()) = Some((stop, thread));
        progress
    }

    /// A bar drawn to `target`.
    pub fn with_target(total_cells: u128, what: &str, target: ProgressDrawTarget) -> CellProgress {
        let bar = ProgressBar::with_draw_target(Some(saturate(total_cells)), target);
        let template = format!(
            "{{bar:40}} {{percent:>3}}% of {{total_cells}} cells{what}{{msg}}, {{gcups}}, {{elapsed}} ({{eta}} left)"
        );
        bar.set_style(
            ProgressStyle::with_template(&template)
                .expect("a valid template")
                .with_key(
                    "total_cells",
                    |s: &ProgressState, w: &mut dyn std::fmt::Write| {
                        let _ = write!(w, "{:.2e}", s.len().unwrap_or(0) as f64);
                    },
                )
                .with_key("gcups", |s: &ProgressState, w: &mut dyn std::fmt::Write| {
                    let _ = write!(w, "{:.1} GCUPS", s.per_sec() / 1e9);
                }),
        );
        // Redrawn twice a second between advances, so the elapsed time
        // moves while a long query runs.
        if !bar.is_hidden() {
            // Drawn at once: the total is on screen before the first query
            // ends.
            bar.tick();
            bar.enable_steady_tick(std::time::Duration::from_millis(500));
        }
        CellProgress {
            bar,
            log: Mutex::new(None),
        }
    }

    /// Counts `cells` more as done.
    pub fn advance(&self, cells: u128) {
        self.bar.inc(saturate(cells));
    }

    /// Shows `done` of `total` queries scored beside the cells: a search
    /// of many queries (scored in batches of hundreds) moves by queries.
    pub fn queries_scored(&self, done: usize, total: usize) {
        self.bar
            .set_message(format!(", {done} of {total} queries scored"));
    }

    /// Runs `f` (which prints to standard error) with the bar out of the way.
    pub fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        self.bar.suspend(f)
    }

    /// Removes the bar (stops the plain lines: none is printed after).
    pub fn finish(&self) {
        self.stop_log();
        self.bar.finish_and_clear();
    }

    /// Stops the plain lines' thread and waits for it.
    fn stop_log(&self) {
        let log = self.log.lock().unwrap_or_else(|p| p.into_inner()).take();
        if let Some((stop, thread)) = log {
            drop(stop);
            let _ = thread.join();
        }
    }
}

impl Drop for CellProgress {
    fn drop(&mut self) {
        self.stop_log();
    }
}

/// [`LOG_INTERVAL`], or `WARPSW_PROGRESS_SECONDS` where it is a positive
/// number.
fn log_interval() -> Duration {
    std::env::var(LOG_INTERVAL_VARIABLE)
        .ok()
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s > 0.0)
        .map_or(LOG_INTERVAL, Duration::from_secs_f64)
}

/// The plain progress line: cells done of all, the queries' message, the
/// rate so far, the time spent and the time left at that rate.
fn log_line(bar: &ProgressBar, elapsed: Duration) -> String {
    let (done, total) = (bar.position() as f64, bar.length().unwrap_or(0) as f64);
    let seconds = elapsed.as_secs_f64();
    let rate = if seconds > 0.0 { done / seconds } else { 0.0 };
    let left = match rate > 0.0 {
        true => format!("{:.0} s left", (total - done).max(0.0) / rate),
        false => "time left unknown".to_string(),
    };
    let percent = if total > 0.0 {
        100.0 * done / total
    } else {
        0.0
    };
    format!(
        "{percent:.0}% of {total:.2e} cells{}, {:.1} GCUPS, {seconds:.0} s, {left}",
        bar.message(),
        rate / 1e9
    )
}

fn saturate(cells: u128) -> u64 {
    u64::try_from(cells).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_cells_not_items() {
        let progress = CellProgress::with_target(5147 * 1000, "", ProgressDrawTarget::hidden());
        assert_eq!(progress.bar.length().unwrap(), 5_147_000);
        progress.advance(5147 * 300);
        assert_eq!(progress.bar.position(), 1_544_100);
        assert_eq!(saturate(u128::MAX), u64::MAX);
        progress.queries_scored(512, 4136);
        assert_eq!(progress.bar.message(), ", 512 of 4136 queries scored");
        let line = log_line(&progress.bar, Duration::from_secs(2));
        assert_eq!(
            line,
            "30% of 5.15e6 cells, 512 of 4136 queries scored, 0.0 GCUPS, 2 s, 5 s left"
        );
    }
}
