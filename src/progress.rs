//! A progress bar counted in cells (query residues × target residues), the
//! unit of the work itself: a run of one long query moves as steadily as one
//! of many short ones. Shows the rate (GCUPS) and the time left; hidden when
//! standard error is not a terminal or with `--quiet`.
//!
//! `search` and `bench` advance it per query; `align` and `allpairs` per
//! window of pairs (whatever the engine reports, in cells).

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};

/// A cell-counting progress bar (see the module docs).
pub struct CellProgress {
    bar: ProgressBar,
}

impl CellProgress {
    /// A bar for `total_cells`, drawn on standard error when it is a
    /// terminal and `quiet` is not set.
    pub fn new(total_cells: u128, what: &str, quiet: bool) -> CellProgress {
        let target = if quiet || !std::io::stderr().is_terminal() {
            ProgressDrawTarget::hidden()
        } else {
            ProgressDrawTarget::stderr()
        };
        Self::with_target(total_cells, what, target)
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
        CellProgress { bar }
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

    /// Removes the bar.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
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
    }
}
