//! File contents: telling text from binary, and slicing line ranges.

use super::limits::BINARY_SNIFF_BYTES;

/// True when the first [`BINARY_SNIFF_BYTES`] contain a NUL byte (what git and grep use:
/// text files essentially never contain one, and UTF-16 text is not served as text).
pub(crate) fn is_binary(bytes: &[u8]) -> bool {
    bytes[..bytes.len().min(BINARY_SNIFF_BYTES)].contains(&0)
}

/// The bytes as text; true when some were not UTF-8 and were replaced by U+FFFD.
pub(crate) fn decode(bytes: Vec<u8>) -> (String, bool) {
    match String::from_utf8(bytes) {
        Ok(text) => (text, false),
        Err(e) => (String::from_utf8_lossy(e.as_bytes()).into_owned(), true),
    }
}

/// A range of lines.
#[derive(Debug, PartialEq)]
pub(crate) struct Slice<'a> {
    /// 1-based number of the first line returned.
    pub(crate) start: usize,
    /// The lines, without line endings.
    pub(crate) lines: Vec<&'a str>,
    /// Lines in the whole text.
    pub(crate) total: usize,
    /// True when the one line returned was cut at the byte budget.
    pub(crate) cut: bool,
}

impl Slice<'_> {
    /// 1-based number of the last line returned (`start - 1` when none).
    pub(crate) fn end(&self) -> usize {
        self.start + self.lines.len() - 1
    }
}

/// Lines from `start` (1-based): at most `limit` lines and about `max_bytes` bytes (always
/// at least one line, cut at a character boundary if it alone is too long). `Err(total)`
/// when `start` is past the last line.
pub(crate) fn slice_lines(
    text: &str,
    start: usize,
    limit: usize,
    max_bytes: usize,
) -> Result<Slice<'_>, usize> {
    let total = text.lines().count();
    let start = start.max(1);
    if total == 0 {
        return Ok(Slice {
            start: 1,
            lines: Vec::new(),
            total,
            cut: false,
        });
    }
    if start > total {
        return Err(total);
    }
    let mut lines = Vec::new();
    let mut bytes = 0;
    let mut cut = false;
    for line in text.lines().skip(start - 1).take(limit) {
        if !lines.is_empty() && bytes + line.len() + 1 > max_bytes {
            break;
        }
        if line.len() > max_bytes {
            let mut end = max_bytes;
            while !line.is_char_boundary(end) {
                end -= 1;
            }
            lines.push(&line[..end]);
            cut = true;
            break;
        }
        bytes += line.len() + 1;
        lines.push(line);
    }
    Ok(Slice {
        start,
        lines,
        total,
        cut,
    })
}

/// `line` cut to at most `max` characters, with `…` when cut.
pub(crate) fn clip(line: &str, max: usize) -> String {
    match line.char_indices().nth(max) {
        None => line.to_string(),
        Some((end, _)) => format!("{}…", &line[..end]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binary_is_sniffed_by_nul() {
        assert!(!is_binary(b"plain text\n"));
        assert!(is_binary(b"PNG\0\x01"));
        let mut late = vec![b'a'; BINARY_SNIFF_BYTES];
        late.push(0);
        assert!(!is_binary(&late));
        assert_eq!(decode(b"ok".to_vec()), ("ok".to_string(), false));
        assert_eq!(decode(b"a\xffb".to_vec()), ("a\u{fffd}b".to_string(), true));
    }

    #[test]
    fn line_ranges() {
        let text = "one\ntwo\r\nthree\nfour\n";
        let s = slice_lines(text, 2, 2, 1000).expect("in range");
        assert_eq!((s.start, s.end(), s.total), (2, 3, 4));
        assert_eq!(s.lines, ["two", "three"]);
        assert_eq!(slice_lines(text, 9, 1, 1000), Err(4));
        let all = slice_lines(text, 0, 100, 1000).expect("from the top");
        assert_eq!(all.lines.len(), 4);
        // The byte budget stops at a line boundary.
        let s = slice_lines(text, 1, 100, 9).expect("in range");
        assert_eq!(s.lines, ["one", "two"]);
        // One overlong line is cut at a character boundary.
        let s = slice_lines("ééééé", 1, 10, 5).expect("in range");
        assert_eq!((s.lines.clone(), s.cut), (vec!["éé"], true));
        let empty = slice_lines("", 1, 10, 10).expect("empty");
        assert_eq!((empty.total, empty.end()), (0, 0));
    }

    #[test]
    fn clipping_counts_characters() {
        assert_eq!(clip("short", 10), "short");
        assert_eq!(clip("ééééé", 2), "éé…");
    }
}
