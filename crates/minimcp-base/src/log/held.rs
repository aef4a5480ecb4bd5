//! Where lines are written: one buffer that request and access lines are held in until the
//! transport flushes its own output, and that every other line goes through so lines keep
//! their order. A request's line at `info` must cost little beside the request (a pipelined
//! `tools/call` is about 17,000 instructions): so one `write` for many lines, the date and
//! time formatted once a second, and numbers and client text written without `core::fmt`.

use std::io::Write;
use std::sync::Mutex;
use std::time::SystemTime;

use super::time::Stamp;

/// Lines not written yet, and the clock's text.
struct Held {
    text: String,
    stamp: Stamp,
}

static HELD: Mutex<Held> = Mutex::new(Held {
    text: String::new(),
    stamp: Stamp::new(),
});

/// How much is held before it is written whatever happens.
const HELD_BYTES: usize = 16 * 1024;

/// A value of a structured line's field.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Field<'a> {
    /// Text the server chose, or client text already [`clean`]ed: written as it is
    /// (escaped in JSON).
    Text(&'a str),
    /// Text the client chose: written as `push_clean` writes it.
    Client(&'a str),
    /// A whole number.
    Number(i64),
    /// Not known: `-` in text, left out of JSON.
    Absent,
}

fn held() -> std::sync::MutexGuard<'static, Held> {
    HELD.lock().unwrap_or_else(|e| e.into_inner())
}

/// Appends one line, its timestamp first (`TIMESTAMP ` in text, `{"ts":"TIMESTAMP",` in
/// JSON), then what `body` writes (told whether the format is JSON), and returns the buffer
/// for the caller to write out or keep.
fn append(held: &mut Held, body: impl FnOnce(&mut String, bool)) {
    let json = super::json();
    let Held { text, stamp } = held;
    if json {
        text.push_str("{\"ts\":\"");
    }
    stamp.write(SystemTime::now(), text);
    text.push_str(if json { "\"," } else { " " });
    body(text, json);
    text.push('\n');
}

/// A line written now, after every line held (so lines keep their order).
pub(super) fn line(body: impl FnOnce(&mut String, bool)) {
    let mut held = held();
    append(&mut held, body);
    write_out(&mut held.text);
}

/// A structured line at `info` (the caller decides whether it is written): in text,
/// `minimcp: EVENT:` and what `text` writes (starting with a space); in JSON, `event` and the `fields` by name. It
/// is held until the next [`flush`].
pub fn structured(event: &str, fields: &[(&str, Field<'_>)], text: impl FnOnce(&mut String)) {
    let mut held = held();
    append(&mut held, |line, json| {
        if json {
            line.push_str("\"level\":\"info\",\"event\":\"");
            line.push_str(event);
            line.push('"');
            for (name, value) in fields {
                let start = |line: &mut String| {
                    line.push_str(",\"");
                    line.push_str(name);
                    line.push_str("\":");
                };
                match value {
                    Field::Text(text) => {
                        start(line);
                        json_string(text, line);
                    }
                    Field::Client(text) => {
                        start(line);
                        line.push('"');
                        push_clean(line, text, true);
                        line.push('"');
                    }
                    Field::Number(n) => {
                        start(line);
                        push_number(line, *n);
                    }
                    Field::Absent => {}
                }
            }
            line.push('}');
        } else {
            line.push_str("minimcp: ");
            line.push_str(event);
            line.push(':');
            text(line);
        }
    });
    if held.text.len() >= HELD_BYTES {
        write_out(&mut held.text);
    }
}

/// Appends a field's value as text: a number, text, or `-`.
pub fn push_field(line: &mut String, value: &Field<'_>) {
    match value {
        Field::Text(text) => line.push_str(text),
        Field::Client(text) => push_clean(line, text, false),
        Field::Number(n) => push_number(line, *n),
        Field::Absent => line.push('-'),
    }
}

/// Writes the lines held so far. The transports call it when they flush their own output
/// (stdio) or finish a turn of the dispatch loop (HTTP); the binary before it exits.
pub fn flush() {
    let mut held = held();
    if !held.text.is_empty() {
        write_out(&mut held.text);
    }
}

/// Writes `text` with one call and empties it.
fn write_out(text: &mut String) {
    // A failed stderr write has nowhere to be reported; ignoring it is all we can do.
    let _ = std::io::stderr().lock().write_all(text.as_bytes());
    text.clear();
}

/// Appends `n` in decimal.
pub fn push_number(out: &mut String, n: i64) {
    if n < 0 {
        out.push('-');
    }
    push_unsigned(out, n.unsigned_abs());
}

/// Appends `n` in decimal, most significant digits first.
fn push_unsigned(out: &mut String, n: u64) {
    const DIGITS: [&str; 10] = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9"];
    if n >= 10 {
        push_unsigned(out, n / 10);
    }
    out.push_str(DIGITS[(n % 10) as usize]);
}

/// The most characters of client-chosen text a line holds.
const MAX_FIELD: usize = 64;

/// Appends client-chosen text as a log may hold it: visible ASCII only (anything else becomes
/// `?`), at most [`MAX_FIELD`] characters (then `…`), and `-` for nothing; escaped for the
/// inside of a JSON string when `json`. A client cannot forge a line with it, nor make one
/// long.
fn push_clean(out: &mut String, field: &str, json: bool) {
    if field.is_empty() {
        return out.push('-');
    }
    // Nearly always: short visible ASCII with nothing to escape, copied whole.
    let plain = |b: &u8| b.is_ascii_graphic() && !(json && (*b == b'"' || *b == b'\\'));
    if field.len() <= MAX_FIELD && field.as_bytes().iter().all(plain) {
        return out.push_str(field);
    }
    let mut chars = field.chars();
    for c in chars.by_ref().take(MAX_FIELD) {
        if json && (c == '"' || c == '\\') {
            out.push('\\');
        }
        out.push(if c.is_ascii_graphic() { c } else { '?' });
    }
    if chars.next().is_some() {
        out.push('…');
    }
}

/// `push_clean` into a new string.
pub fn clean(field: &str) -> String {
    let mut out = String::new();
    push_clean(&mut out, field, false);
    out
}

/// Appends `text` as a JSON string: quoted, with `"`, `\` and control characters escaped.
pub(super) fn json_string(text: &str, out: &mut String) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                out.push_str("\\u00");
                for nibble in [(c as u32) >> 4, (c as u32) & 0xf] {
                    out.push(char::from_digit(nibble, 16).unwrap_or('0'));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_strings_escape_what_json_requires() {
        let mut out = String::new();
        json_string("a\"b\\c\nd\u{1}é\u{7f}\u{1f}", &mut out);
        assert_eq!(out, r#""a\"b\\c\nd\u0001é\u007f\u001f""#);
        let parsed: String = serde_json::from_str(&out).expect("valid JSON");
        assert_eq!(parsed, "a\"b\\c\nd\u{1}é\u{7f}\u{1f}");
    }

    #[test]
    fn client_text_cannot_forge_lines() {
        assert_eq!(clean("a\nminimcp: access: x"), "a?minimcp:?access:?x");
        let long = "x".repeat(100);
        assert_eq!(clean(&long), format!("{}…", "x".repeat(MAX_FIELD)));
        assert_eq!(clean(&"y".repeat(MAX_FIELD)), "y".repeat(MAX_FIELD));
        assert_eq!(clean(""), "-");
    }

    #[test]
    fn numbers_are_written_as_format_writes_them() {
        for n in [0, 7, -7, 10, 412, -32602, i64::MAX, i64::MIN] {
            let mut out = String::new();
            push_number(&mut out, n);
            assert_eq!(out, n.to_string());
        }
    }

    #[test]
    fn fields_are_written_as_text() {
        let mut line = String::new();
        for field in [
            Field::Number(-7),
            Field::Absent,
            Field::Client("tools/call\n"),
            Field::Text("tools/call"),
        ] {
            push_field(&mut line, &field);
            line.push(' ');
        }
        assert_eq!(line, "-7 - tools/call? tools/call ");
    }
}
