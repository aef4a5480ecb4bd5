//! The function rows of a JSON report written by hand (`minimcp analyze --format json`),
//! the same bytes as serde_json's pretty printer writes for
//! [`function_row`](super::report::function_row).

use super::lang::Lang;
use super::measure::Measured;
use super::report::round;

/// Writes the rows [`function_row`](super::report::function_row) makes as serde_json's pretty printer writes them inside
/// an array, byte for byte, without serde in between: the numbers and strings through
/// serde_json's own formatting (or the same digits), the keys with their line breaks and
/// indentation made once. A report of every function is mostly these rows, and writing
/// them one serde call per key, value and indentation took a seventh of its time.
pub(crate) struct RowWriter {
    /// What comes before each value (and, last, after the row): punctuation, line break,
    /// indentation, key.
    pieces: Vec<Vec<u8>>,
}

impl RowWriter {
    /// For rows at `level` (their own indentation, in two-space steps).
    pub(crate) fn new(level: usize) -> Self {
        let line = |depth: usize, text: &str| {
            let mut piece = b"\n".to_vec();
            piece.resize(1 + 2 * depth, b' ');
            piece.extend_from_slice(text.as_bytes());
            piece
        };
        let (fields, inner) = (level + 1, level + 2);
        let key = |depth: usize, name: &str| {
            [b",".to_vec(), line(depth, &format!("\"{name}\": "))].concat()
        };
        let mut pieces = vec![[b"{".to_vec(), line(fields, "\"cognitive\": ")].concat()];
        pieces.extend(["cyclomatic", "end_line", "file"].map(|k| key(fields, k)));
        pieces.push(
            [
                key(fields, "halstead"),
                b"{".to_vec(),
                line(inner, "\"difficulty\": "),
            ]
            .concat(),
        );
        pieces.extend(
            [
                "distinct_operands",
                "distinct_operators",
                "effort",
                "operands",
                "operators",
                "volume",
            ]
            .map(|k| key(inner, k)),
        );
        pieces.push([line(fields, "}"), key(fields, "language")].concat());
        pieces.extend(["lines", "max_nesting", "name", "start_line"].map(|k| key(fields, k)));
        pieces.push(line(level, "}"));
        RowWriter { pieces }
    }

    /// Appends one function's row; `path` is its file's path as a JSON string ([`string`]),
    /// made once for all the functions of a file.
    pub(crate) fn write(&self, out: &mut Vec<u8>, path: &[u8], lang: Lang, m: &Measured) {
        let h = &m.halstead;
        let mut pieces = self.pieces.iter();
        let mut next =
            |out: &mut Vec<u8>| out.extend_from_slice(pieces.next().map_or(&[][..], Vec::as_slice));
        next(out);
        digits(out, m.cognitive);
        next(out);
        digits(out, m.cyclomatic);
        next(out);
        digits(out, m.end_line);
        next(out);
        out.extend_from_slice(path);
        next(out);
        float(out, round(h.difficulty));
        next(out);
        digits(out, h.distinct_operands);
        next(out);
        digits(out, h.distinct_operators);
        next(out);
        float(out, round(h.effort));
        next(out);
        digits(out, h.operands);
        next(out);
        digits(out, h.operators);
        next(out);
        float(out, round(h.volume));
        next(out);
        string(out, lang.as_str());
        next(out);
        digits(out, m.lines());
        next(out);
        digits(out, m.max_nesting);
        next(out);
        string(out, &m.name);
        next(out);
        digits(out, m.start_line);
        next(out);
    }
}

/// `n` in decimal, as serde_json writes it.
fn digits(out: &mut Vec<u8>, mut n: u32) {
    // Most counts are one digit (nesting, cognitive, cyclomatic): one push, not a copy.
    if n < 10 {
        out.push(b'0' + n as u8);
        return;
    }
    let mut buf = [0u8; 10];
    let mut at = buf.len();
    loop {
        at -= 1;
        buf[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&buf[at..]);
}

/// `x` as serde_json writes an `f64` (`null` when not finite). Writing to a `Vec` cannot
/// fail.
fn float(out: &mut Vec<u8>, x: f64) {
    use serde_json::ser::{CompactFormatter, Formatter};
    let _ = if x.is_finite() {
        CompactFormatter.write_f64(out, x)
    } else {
        CompactFormatter.write_null(out)
    };
}

/// `s` as a JSON string, escaped as serde_json escapes it: it escapes only control
/// characters, `"` and `\`, so a string without them (nearly every path and name) is
/// copied as it is.
pub(crate) fn string(out: &mut Vec<u8>, s: &str) {
    if s.bytes().any(|c| c < 0x20 || c == b'"' || c == b'\\') {
        let _ = serde_json::to_writer(&mut *out, s);
        return;
    }
    out.push(b'"');
    out.extend_from_slice(s.as_bytes());
    out.push(b'"');
}
