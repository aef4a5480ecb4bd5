//! Diagnostics on stderr, never stdout (stdout carries protocol messages only:
//! conformance/REQUIREMENTS.md S-3).
//!
//! One global level, set once from `--log-level`. Lines look like
//! `minimcp: warn: <message>`. Nothing logged here is sent to the client.

use std::fmt::Arguments;
use std::io::Write;
use std::sync::atomic::{AtomicU8, Ordering};

/// How much minimcp writes to stderr.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[repr(u8)]
pub enum Level {
    /// Nothing at all.
    Off = 0,
    /// Failures that end the session.
    Error = 1,
    /// Problems the session survives: bad input, refused requests.
    Warn = 2,
    /// Session start and end, negotiated version.
    Info = 3,
    /// Every message handled.
    Debug = 4,
}

impl Level {
    const ALL: [(Level, &'static str); 5] = [
        (Level::Off, "off"),
        (Level::Error, "error"),
        (Level::Warn, "warn"),
        (Level::Info, "info"),
        (Level::Debug, "debug"),
    ];

    /// Parses `off`, `error`, `warn`, `info` or `debug`.
    pub fn parse(s: &str) -> Option<Level> {
        Level::ALL
            .iter()
            .find(|(_, name)| *name == s)
            .map(|(level, _)| *level)
    }

    fn name(self) -> &'static str {
        Level::ALL[self as usize].1
    }
}

static LEVEL: AtomicU8 = AtomicU8::new(Level::Warn as u8);

/// Sets the process-wide stderr log level.
pub fn set_level(level: Level) {
    LEVEL.store(level as u8, Ordering::Relaxed);
}

/// True when messages at `level` are written.
pub fn enabled(level: Level) -> bool {
    level != Level::Off && level as u8 <= LEVEL.load(Ordering::Relaxed)
}

fn write(level: Level, message: Arguments<'_>) {
    if enabled(level) {
        emit(format_args!("minimcp: {}: {message}\n", level.name()));
    }
}

/// Writes one whole line with one `write` call: stderr is unbuffered, so formatting
/// straight into it costs a system call per piece (a dozen for a typical line), and lines
/// from different threads could interleave with other writers of the same pipe.
fn emit(line: Arguments<'_>) {
    let line = std::fmt::format(line);
    // A failed stderr write has nowhere to be reported; ignoring it is all we can do.
    let _ = std::io::stderr().lock().write_all(line.as_bytes());
}

/// Logs a fact the operator needs whatever the level (unless `off`): where the server
/// listens.
pub fn notice(message: Arguments<'_>) {
    if enabled(Level::Error) {
        emit(format_args!("minimcp: {message}\n"));
    }
}

/// Logs a failure that ends the session.
pub fn error(message: Arguments<'_>) {
    write(Level::Error, message);
}

/// Logs a problem the session survives.
pub fn warn(message: Arguments<'_>) {
    write(Level::Warn, message);
}

/// Logs a session milestone.
pub fn info(message: Arguments<'_>) {
    write(Level::Info, message);
}

/// Logs per-message detail.
pub fn debug(message: Arguments<'_>) {
    write(Level::Debug, message);
}

/// One access line per HTTP request (the caller decides whether: `--access-log` writes
/// them at any level). The line's content and what it must never hold: `http::access`.
#[cfg(feature = "http")]
pub(crate) fn access(line: Arguments<'_>) {
    emit(format_args!("minimcp: access: {line}\n"));
}
