//! One stderr line, rewritten in place, that shows how a long run goes: what is done, the
//! elapsed time and the rate. Only at a terminal: a script's stderr stays quiet.

use std::time::{Duration, Instant};

/// Redrawing more often than this only costs time: nobody reads that fast.
const REDRAW: Duration = Duration::from_millis(100);

/// The progress line of one run.
pub(crate) struct Progress {
    live: bool,
    started: Instant,
    /// When the line was last drawn; `None` before the first time.
    drawn: Option<Instant>,
}

impl Progress {
    /// A line that is drawn only when `live`.
    pub(crate) fn new(live: bool) -> Self {
        Progress {
            live,
            started: Instant::now(),
            drawn: None,
        }
    }

    /// Whether anything is drawn at all.
    pub(crate) fn is_live(&self) -> bool {
        self.live
    }

    /// Draws `what`, the elapsed time and `done` per second (when `done` counts something),
    /// at most every [`REDRAW`] unless `last` (the final count is always shown).
    pub(crate) fn show(&mut self, what: &str, done: f64, last: bool) {
        if !self.live || (!last && self.drawn.is_some_and(|at| at.elapsed() < REDRAW)) {
            return;
        }
        let seconds = self.started.elapsed().as_secs_f64();
        let rate = if seconds > 0.0 && done > 0.0 {
            format!(", {:.0}/s", done / seconds)
        } else {
            String::new()
        };
        // `\r` and clear-to-end: the same line, rewritten.
        eprint!("\r\x1b[Kminimcp: {what} ({seconds:.1} s{rate})");
        self.drawn = Some(Instant::now());
    }

    /// Ends the line, if one was drawn, so what follows starts on a line of its own.
    pub(crate) fn finish(&mut self) {
        if self.drawn.take().is_some() {
            eprintln!();
        }
    }
}
