//! The lexer's names and string forms: string prefixes (Rust's `r#"…"#`, `b'…'`, Python's
//! `rb"…"`, C++'s `R"x(…)x"` and `u8"…"`), char literals versus Rust's lifetimes, and the
//! quoted forms of every language (triple-quoted, raw, spanning lines or not).

use super::{is_ident_start, Kind, Lang, Lexer};

impl Lexer<'_> {
    /// An identifier or keyword, or a string with a prefix (`r"…"`, `b'…'`, `f"…"`).
    #[inline(always)]
    pub(super) fn word(&mut self) {
        let start = self.i;
        self.ident_tail();
        // Bytes, not `&str`: slicing a `str` checks both ends for char boundaries, on
        // every name.
        let word = &self.b[start..self.i];
        let next = self.peek(0);
        match self.lang {
            Lang::Rust => {
                if matches!(word, b"r" | b"br" | b"cr") && (next == b'"' || next == b'#') {
                    if self.rust_raw_string(start) {
                        return;
                    }
                } else if matches!(word, b"b" | b"c") && (next == b'"' || next == b'\'') {
                    self.i = start + 1;
                    self.quoted_from(start);
                    return;
                } else if word == b"r" && next == b'#' && is_ident_start(self.peek(1)) {
                    // A raw identifier, `r#type`.
                    self.i += 1;
                    self.ident_tail();
                    self.push(Kind::Ident, start, self.line);
                    return;
                }
            }
            Lang::Python => {
                let prefix = word.len() <= 3
                    && word.iter().all(|c| {
                        matches!(c.to_ascii_lowercase(), b'r' | b'b' | b'u' | b'f' | b't')
                    });
                if prefix && (next == b'"' || next == b'\'') {
                    self.quoted_from(start);
                    return;
                }
            }
            Lang::C | Lang::Cpp if next == b'"' || next == b'\'' => {
                if matches!(word, b"R" | b"u8R" | b"uR" | b"UR" | b"LR") && next == b'"' {
                    self.cpp_raw_string(start);
                    return;
                }
                if matches!(word, b"u8" | b"u" | b"U" | b"L") {
                    self.quoted_from(start);
                    return;
                }
            }
            _ => {}
        }
        self.push(Kind::Ident, start, self.line);
    }

    /// `r"…"`, `r#"…"#` (any number of `#`); `i` is after the prefix. False when it is not
    /// a raw string after all (`r#` followed by something else).
    fn rust_raw_string(&mut self, start: usize) -> bool {
        let line = self.line;
        let mut hashes = 0;
        while self.peek(hashes) == b'#' {
            hashes += 1;
        }
        if self.peek(hashes) != b'"' {
            return false;
        }
        self.i += hashes + 1;
        loop {
            if self.i >= self.b.len() {
                break;
            }
            if self.b[self.i] == b'"' && (1..=hashes).all(|k| self.b.get(self.i + k) == Some(&b'#'))
            {
                self.i += hashes + 1;
                break;
            }
            if self.b[self.i] == b'\n' {
                self.line += 1;
            }
            self.i += 1;
        }
        self.skip_to_char_boundary();
        self.push(Kind::Str, start, line);
        true
    }

    #[inline(always)]
    pub(super) fn quoted(&mut self) {
        let start = self.i;
        if self.lang == Lang::Rust && self.b[self.i] == b'\'' && !self.rust_char() {
            // A lifetime or label: `'a`.
            self.i += 1;
            self.ident_tail();
            self.push(Kind::Ident, start, self.line);
            return;
        }
        self.quoted_from(start);
    }

    /// True when the `'` at `i` opens a Rust char literal rather than a lifetime.
    fn rust_char(&self) -> bool {
        match self.peek(1) {
            b'\\' => true,
            c if c >= 0x80 => {
                // One multi-byte char, then the closing quote.
                let rest = &self.src[self.i + 1..];
                let len = rest.chars().next().map_or(1, char::len_utf8);
                rest.as_bytes().get(len) == Some(&b'\'')
            }
            _ => self.peek(2) == b'\'',
        }
    }

    /// A string from `start` (the prefix, if any) with its opening quote at or after `i`.
    #[inline(always)]
    pub(super) fn quoted_from(&mut self, start: usize) {
        while self.i < self.b.len() && !matches!(self.b[self.i], b'"' | b'\'' | b'`') {
            self.i += 1;
        }
        let line = self.line;
        let quote = self.peek(0);
        // Python's triple-quoted strings, Java's text blocks.
        let triple = matches!(self.lang, Lang::Python | Lang::Java)
            && self.peek(1) == quote
            && self.peek(2) == quote;
        let raw = (self.lang == Lang::Go && quote == b'`')
            || (self.lang == Lang::Python
                && self.src[start..self.i]
                    .bytes()
                    .any(|c| c == b'r' || c == b'R'));
        if self.lang.is_js() && quote == b'`' {
            self.i += 1;
            self.template(start, line);
            return;
        }
        self.i += if triple { 3 } else { 1 };
        // Rust strings may span lines; elsewhere only triple-quoted and Go raw strings do.
        // So do every PHP and Ruby string.
        let multiline = triple
            || (raw && self.lang == Lang::Go)
            || (self.lang == Lang::Rust && quote == b'"')
            || matches!(self.lang, Lang::Php | Lang::Ruby);
        while self.i < self.b.len() {
            // Straight to the next byte that can matter: strings (docstrings above all)
            // are long runs of bytes that do not.
            let rest = &self.b[self.i..];
            self.i += rest
                .iter()
                .position(|&c| c == quote || c == b'\\' || c == b'\n')
                .unwrap_or(rest.len());
            let Some(&c) = self.b.get(self.i) else {
                break;
            };
            if c == b'\\' && (!raw || self.lang == Lang::Python) {
                // In Python raw strings a backslash still keeps the quote from closing.
                if self.peek(1) == b'\n' {
                    self.line += 1;
                }
                self.i += 2;
                continue;
            }
            if c == quote {
                if !triple {
                    self.i += 1;
                    break;
                }
                if self.peek(1) == quote && self.peek(2) == quote {
                    self.i += 3;
                    break;
                }
            }
            if c == b'\n' {
                if !multiline {
                    // Unterminated: the string ends with the line.
                    break;
                }
                self.line += 1;
            }
            self.i += 1;
        }
        self.i = self.i.min(self.b.len());
        self.skip_to_char_boundary();
        self.push(Kind::Str, start, line);
    }
}
