//! What every tool's result shares: its text (lines, then notes, a partial result said
//! first), human-readable sizes, and the progress/cancellation plumbing of a walk.

use super::limits::PROGRESS_ENTRIES;
use super::walk::PARTIAL;
use minimcp::{Context, ToolOutput};

/// Progress notifications and cancellation checks for a running walk.
pub(crate) struct Ticker<'a, 'c> {
    pub(crate) ctx: &'a mut Context<'c>,
}

impl Ticker<'_, '_> {
    /// Called on each walk tick: sends progress every [`PROGRESS_ENTRIES`] entries (when
    /// the client asked for it) and returns true when the client cancelled the call.
    pub(crate) fn tick(&mut self, visited: usize, message: impl FnOnce() -> String) -> bool {
        if visited.is_multiple_of(PROGRESS_ENTRIES) {
            self.ctx.progress(visited as f64, None, Some(&message()));
        }
        self.ctx.is_cancelled()
    }
}

/// The answer when the client cancelled: the core sends no response for it at all.
pub(crate) fn cancelled() -> ToolOutput {
    ToolOutput::error("The call was cancelled.")
}

/// A text block: `lines`, then each note.
pub(crate) fn text_block(lines: Vec<String>, notes: &[String]) -> String {
    // That the result is partial, why, and how to continue: the first thing said.
    let (partial, other): (Vec<&String>, Vec<&String>) =
        notes.iter().partition(|n| n.starts_with(PARTIAL));
    partial
        .into_iter()
        .cloned()
        .chain(lines)
        .chain(other.into_iter().cloned())
        .collect::<Vec<_>>()
        .join("\n")
}

/// `1234` → `1.2 KiB`.
pub(crate) fn human_size(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_partial_result_says_so_in_its_first_line() {
        let notes = [
            "Showing matches 1-2 of 9.".to_string(),
            format!("{PARTIAL} the walk stopped at its time limit of 15 s."),
        ];
        let text = text_block(vec!["a.rs".into(), "b.rs".into()], &notes);
        assert_eq!(
            text.lines().collect::<Vec<_>>(),
            [
                notes[1].as_str(),
                "a.rs",
                "b.rs",
                "Showing matches 1-2 of 9."
            ]
        );
        assert_eq!(text_block(vec!["x".into()], &[]), "x");
    }
}
