//! File contents: telling text from binary, and finding a literal
//! string line by line.

use std::borrow::Cow;

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

/// `line` cut to at most `max` characters, with `…` when cut.
pub(crate) fn clip(line: &str, max: usize) -> String {
    match line.char_indices().nth(max) {
        None => line.to_string(),
        Some((end, _)) => format!("{}…", &line[..end]),
    }
}

/// A literal (not regex) search for one query.
#[derive(Debug)]
pub(crate) struct Matcher {
    needle: String,
    fold: Fold,
}

#[derive(Debug, PartialEq)]
enum Fold {
    /// Case-sensitive.
    None,
    /// An ASCII query, case-insensitive: the text is lowercased in ASCII only, which keeps
    /// every byte offset, so the whole file is searched in one pass.
    Ascii,
    /// A non-ASCII query, case-insensitive: each line is lowercased (Unicode) and searched.
    Unicode,
}

impl Matcher {
    /// A matcher for `query` (not empty).
    pub(crate) fn new(query: &str, case_sensitive: bool) -> Matcher {
        let fold = match (case_sensitive, query.is_ascii()) {
            (true, _) => Fold::None,
            (false, true) => Fold::Ascii,
            (false, false) => Fold::Unicode,
        };
        let needle = match fold {
            Fold::None => query.to_string(),
            Fold::Ascii => query.to_ascii_lowercase(),
            Fold::Unicode => query.to_lowercase(),
        };
        Matcher { needle, fold }
    }

    /// Calls `found(line number, line)` for each line containing the query, in order, until
    /// it returns false.
    pub(crate) fn each_line(&self, text: &str, mut found: impl FnMut(usize, &str) -> bool) {
        if self.needle.is_empty() {
            return;
        }
        if self.fold == Fold::Unicode {
            for (i, line) in text.lines().enumerate() {
                if line.to_lowercase().contains(&self.needle) && !found(i + 1, line) {
                    return;
                }
            }
            return;
        }
        let haystack: Cow<'_, str> = match self.fold {
            Fold::Ascii => Cow::Owned(text.to_ascii_lowercase()),
            _ => Cow::Borrowed(text),
        };
        let (mut from, mut line_no, mut counted_to) = (0, 1, 0);
        while let Some(offset) = haystack[from..].find(self.needle.as_str()) {
            let at = from + offset;
            let line_start = haystack[..at].rfind('\n').map_or(0, |i| i + 1);
            line_no += bytecount(&text.as_bytes()[counted_to..line_start], b'\n');
            counted_to = line_start;
            let line_end = haystack[at..].find('\n').map_or(text.len(), |i| at + i);
            let line = &text[line_start..line_end];
            if !found(line_no, line.strip_suffix('\r').unwrap_or(line)) {
                return;
            }
            if line_end >= text.len() {
                return;
            }
            from = line_end + 1;
        }
    }
}

fn bytecount(bytes: &[u8], needle: u8) -> usize {
    bytes.iter().filter(|&&b| b == needle).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hits(query: &str, case_sensitive: bool, text: &str) -> Vec<(usize, String)> {
        let mut out = Vec::new();
        Matcher::new(query, case_sensitive).each_line(text, |n, line| {
            out.push((n, line.to_string()));
            true
        });
        out
    }

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
    fn clipping_counts_characters() {
        assert_eq!(clip("short", 10), "short");
        assert_eq!(clip("ééééé", 2), "éé…");
    }

    #[test]
    fn literal_search_reports_each_line_once() {
        let text = "fn main() {\n    main(); main();\n}\nMAIN\n";
        assert_eq!(
            hits("main", true, text),
            [(1, "fn main() {".into()), (2, "    main(); main();".into())]
        );
        assert_eq!(hits("main", false, text).len(), 3);
        assert_eq!(
            hits("MAIN", false, text).last(),
            Some(&(4, "MAIN".to_string()))
        );
        assert!(
            hits("a.*b", true, "axxb\n").is_empty(),
            "literal, not regex"
        );
        assert_eq!(hits("x", true, "a\r\nx\r\n"), [(2, "x".into())]);
        assert_eq!(
            hits("end", true, "no newline at the end"),
            [(1, "no newline at the end".into())]
        );
    }

    #[test]
    fn unicode_queries_fold_per_line() {
        let text = "Grüße\nGRÜSSE\ngrüße\n";
        assert_eq!(
            hits("grüße", false, text)
                .iter()
                .map(|h| h.0)
                .collect::<Vec<_>>(),
            [1, 3]
        );
        assert_eq!(hits("GRÜ", false, text).len(), 3);
        assert_eq!(hits("Grü", true, text).len(), 1);
    }

    #[test]
    fn the_caller_can_stop_early() {
        let mut seen = 0;
        Matcher::new("x", true).each_line("x\nx\nx\n", |_, _| {
            seen += 1;
            seen < 2
        });
        assert_eq!(seen, 2);
    }
}
