//! Diagnostics on stderr, never stdout (stdout carries protocol messages only:
//! conformance/REQUIREMENTS.md S-3).
//!
//! One global level and one format, set once from `--log-level` and `--log-format`. Every
//! line starts with when it was written, in RFC 3339 UTC to the millisecond:
//!
//! ```text
//! 2026-05-04T09:12:33.418Z minimcp: warn: <message>
//! 2026-05-04T09:12:33.421Z minimcp: request: req=7 session=2 id=5 method=tools/call name=read_file took=412us outcome=result
//! ```
//!
//! With [`Format::Json`] each line is one JSON object instead, with the same content:
//! `{"ts":"…","level":"warn","msg":"…"}`, and for the per-request and access lines their
//! fields by name (`{"ts":"…","level":"info","event":"request","req":7,…}`). Nothing logged
//! here is sent to the client, and no line ever holds a tool's arguments, a file's contents
//! or a token: only names the server defines, numbers, and client text that is cut short and
//! reduced to visible ASCII.

mod held;
mod time;

pub use held::flush;
pub use held::push_number;
pub use held::{clean, push_field, structured, Field};

use std::fmt::{Arguments, Write as _};
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
    /// Session start and end, negotiated version, one line per request (and per HTTP
    /// request, the access line).
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

/// How each line is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Format {
    /// `TIMESTAMP minimcp: LEVEL: message`, for people.
    Text = 0,
    /// One JSON object per line, for log collectors.
    Json = 1,
}

impl Format {
    /// Parses `text` or `json`.
    pub fn parse(s: &str) -> Option<Format> {
        match s {
            "text" => Some(Format::Text),
            "json" => Some(Format::Json),
            _ => None,
        }
    }
}

static LEVEL: AtomicU8 = AtomicU8::new(Level::Warn as u8);
static FORMAT: AtomicU8 = AtomicU8::new(Format::Text as u8);

/// Sets the process-wide stderr log level.
pub fn set_level(level: Level) {
    LEVEL.store(level as u8, Ordering::Relaxed);
}

/// Sets the process-wide format of log lines.
pub fn set_format(format: Format) {
    FORMAT.store(format as u8, Ordering::Relaxed);
}

pub(crate) fn json() -> bool {
    FORMAT.load(Ordering::Relaxed) == Format::Json as u8
}

/// True when messages at `level` are written.
pub fn enabled(level: Level) -> bool {
    level != Level::Off && level as u8 <= LEVEL.load(Ordering::Relaxed)
}

fn write(level: Level, message: Arguments<'_>) {
    if enabled(level) {
        message_line(level.name(), true, message);
    }
}

/// A line of free text: `minimcp: LEVEL: message`, or `{"ts","level","msg"}`. `labelled`:
/// whether the text form names the level (a notice does not).
fn message_line(level: &str, labelled: bool, message: Arguments<'_>) {
    held::line(|line, json| {
        if json {
            let _ = write!(line, "\"level\":\"{level}\",\"msg\":");
            let text = message
                .as_str()
                .map_or_else(|| message.to_string(), str::to_string);
            held::json_string(&text, line);
            line.push('}');
        } else if labelled {
            let _ = write!(line, "minimcp: {level}: {message}");
        } else {
            let _ = write!(line, "minimcp: {message}");
        }
    });
}

/// Logs a fact the operator needs whatever the level (unless `off`): where the server
/// listens.
pub fn notice(message: Arguments<'_>) {
    if enabled(Level::Error) {
        message_line("notice", false, message);
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
