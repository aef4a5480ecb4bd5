//! File contents: telling text from binary, and clipping lines for display.

use super::limits::BINARY_SNIFF_BYTES;

/// True when the first [`BINARY_SNIFF_BYTES`] contain a NUL byte (what git and grep use:
/// text files essentially never contain one, and UTF-16 text is not served as text).
pub(crate) fn is_binary(bytes: &[u8]) -> bool {
    bytes[..bytes.len().min(BINARY_SNIFF_BYTES)].contains(&0)
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
    }

    #[test]
    fn clipping_counts_characters() {
        assert_eq!(clip("short", 10), "short");
        assert_eq!(clip("ééééé", 2), "éé…");
    }
}
