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

mod time;

use std::fmt::{Arguments, Write as _};
use std::io::Write;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Mutex;
use std::time::SystemTime;

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

/// Request and access lines not written yet: a system call per line would be a third of
/// what a pipelined request costs, so they go out together when the transport flushes its
/// own output ([`flush`]), before any other line, or past [`HELD_BYTES`].
static HELD: Mutex<String> = Mutex::new(String::new());

/// How much [`HELD`] keeps before it is written whatever happens.
const HELD_BYTES: usize = 16 * 1024;

/// Sets the process-wide stderr log level.
pub fn set_level(level: Level) {
    LEVEL.store(level as u8, Ordering::Relaxed);
}

/// Sets the process-wide format of log lines.
pub fn set_format(format: Format) {
    FORMAT.store(format as u8, Ordering::Relaxed);
}

fn json() -> bool {
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
    let mut line = start();
    if json() {
        let _ = write!(line, "\"level\":\"{level}\",\"msg\":");
        let text = message
            .as_str()
            .map_or_else(|| message.to_string(), str::to_string);
        json_string(&text, &mut line);
        line.push('}');
    } else if labelled {
        let _ = write!(line, "minimcp: {level}: {message}");
    } else {
        let _ = write!(line, "minimcp: {message}");
    }
    emit(line);
}

/// A value of a structured line's field.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Field<'a> {
    /// Text (already cut short and reduced to visible ASCII where it came from a client).
    Text(&'a str),
    /// A whole number.
    Number(i64),
    /// Not known: `-` in text, left out of JSON.
    Absent,
}

/// A structured line at `info` (the caller decides whether it is written): in text,
/// `minimcp: EVENT: ` and what `text` writes; in JSON, `event` and the `fields` by name. It
/// is held until the next [`flush`].
pub(crate) fn structured(
    event: &str,
    fields: &[(&str, Field<'_>)],
    text: impl FnOnce(&mut String),
) {
    let mut line = start();
    if json() {
        let _ = write!(line, "\"level\":\"info\",\"event\":\"{event}\"");
        for (name, value) in fields {
            match value {
                Field::Text(text) => {
                    let _ = write!(line, ",\"{name}\":");
                    json_string(text, &mut line);
                }
                Field::Number(n) => {
                    let _ = write!(line, ",\"{name}\":{n}");
                }
                Field::Absent => {}
            }
        }
        line.push('}');
    } else {
        let _ = write!(line, "minimcp: {event}: ");
        text(&mut line);
    }
    line.push('\n');
    let mut held = HELD.lock().unwrap_or_else(|e| e.into_inner());
    held.push_str(&line);
    if held.len() >= HELD_BYTES {
        write_out(&mut held);
    }
}

/// Writes the request and access lines held so far. The transports call it when they flush
/// their own output (stdio) or finish a turn of the dispatch loop (HTTP); the binary before
/// it exits.
pub fn flush() {
    let mut held = HELD.lock().unwrap_or_else(|e| e.into_inner());
    if !held.is_empty() {
        write_out(&mut held);
    }
}

/// Writes `held` with one call and empties it.
fn write_out(held: &mut String) {
    // A failed stderr write has nowhere to be reported; ignoring it is all we can do.
    let _ = std::io::stderr().lock().write_all(held.as_bytes());
    held.clear();
}

/// A new line with its timestamp: `TIMESTAMP ` in text, `{"ts":"TIMESTAMP",` in JSON.
fn start() -> String {
    let mut line = String::with_capacity(160);
    let json = json();
    if json {
        line.push_str("{\"ts\":\"");
    }
    time::rfc3339(SystemTime::now(), &mut line);
    line.push_str(if json { "\"," } else { " " });
    line
}

/// Appends `text` as a JSON string: quoted, with `"`, `\` and control characters escaped.
fn json_string(text: &str, out: &mut String) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Writes one whole line with one `write` call, after the lines held (so lines keep their
/// order): stderr is unbuffered, so formatting straight into it costs a system call per
/// piece (a dozen for a typical line), and lines from different threads could interleave
/// with other writers of the same pipe.
fn emit(line: String) {
    let mut held = HELD.lock().unwrap_or_else(|e| e.into_inner());
    held.push_str(&line);
    held.push('\n');
    write_out(&mut held);
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

/// Client-chosen text as a log may hold it: visible ASCII only (anything else becomes `?`),
/// at most 64 characters (then `…`), and `-` for nothing. A client cannot forge a line with
/// it, nor make one long.
pub(crate) fn clean(field: &str) -> String {
    const MAX_FIELD: usize = 64;
    if field.is_empty() {
        return "-".into();
    }
    let mut out: String = field
        .chars()
        .take(MAX_FIELD)
        .map(|c| if c.is_ascii_graphic() { c } else { '?' })
        .collect();
    if field.chars().nth(MAX_FIELD).is_some() {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_strings_escape_what_json_requires() {
        let mut out = String::new();
        json_string("a\"b\\c\nd\u{1}é\u{7f}", &mut out);
        assert_eq!(out, r#""a\"b\\c\nd\u0001é\u007f""#);
        let parsed: String = serde_json::from_str(&out).expect("valid JSON");
        assert_eq!(parsed, "a\"b\\c\nd\u{1}é\u{7f}");
    }

    #[test]
    fn client_text_cannot_forge_lines() {
        assert_eq!(clean("a\nminimcp: access: x"), "a?minimcp:?access:?x");
        let long = "x".repeat(100);
        assert_eq!(clean(&long), format!("{}…", "x".repeat(64)));
        assert_eq!(clean(&"y".repeat(64)), "y".repeat(64));
        assert_eq!(clean(""), "-");
    }
}
