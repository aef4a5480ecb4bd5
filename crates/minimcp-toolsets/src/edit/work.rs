//! What the matching of `edit_file` shares: how it stops (refused, or cancelled), the
//! counting of work between cancellation checks, and how it lists the lines of matches.

/// Why edits were not applied.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Stop {
    /// Refused: the message says which edit and what to send instead.
    Refused(String),
    /// The client cancelled the call.
    Cancelled,
}

/// Units of work (lines, compared characters) between two cancellation checks.
const CHECK_EVERY: usize = 1 << 16;

/// Counts work and asks, every [`CHECK_EVERY`] units, whether the call was cancelled.
pub(crate) struct Tick<'a> {
    cancelled: Option<&'a mut dyn FnMut() -> bool>,
    work: usize,
}

impl<'a> Tick<'a> {
    pub(crate) fn new(cancelled: &'a mut dyn FnMut() -> bool) -> Tick<'a> {
        Tick {
            cancelled: Some(cancelled),
            work: 0,
        }
    }

    /// A tick that is never cancelled (for tests).
    #[cfg(test)]
    pub(crate) fn never() -> Tick<'static> {
        Tick {
            cancelled: None,
            work: 0,
        }
    }

    pub(crate) fn step(&mut self) -> Result<(), Stop> {
        self.steps(1)
    }

    pub(crate) fn steps(&mut self, units: usize) -> Result<(), Stop> {
        self.work += units;
        if self.work < CHECK_EVERY {
            return Ok(());
        }
        self.work = 0;
        self.check()
    }

    /// Asks now.
    pub(crate) fn check(&mut self) -> Result<(), Stop> {
        match &mut self.cancelled {
            Some(cancelled) => match cancelled() {
                true => Err(Stop::Cancelled),
                false => Ok(()),
            },
            None => Ok(()),
        }
    }
}

/// Lines of matches named in a refusal (enough to name the one meant, mostly); the rest are
/// counted.
pub(crate) const LISTED: usize = 40;

/// `1, 5, 9` or `1, 5, 9, … (12 in all)`: 0-based lines shown 1-based.
pub(crate) fn listed(count: usize, firsts: &[usize]) -> String {
    let shown: Vec<String> = firsts.iter().map(|l| (l + 1).to_string()).collect();
    if count > firsts.len() {
        format!("{}, … ({count} in all)", shown.join(", "))
    } else {
        shown.join(", ")
    }
}
