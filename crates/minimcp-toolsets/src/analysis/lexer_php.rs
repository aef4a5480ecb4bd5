//! The lexer's PHP rules: only the text between `<?php` (or `<?=`, `<?`) and `?>` is code,
//! the rest one string token; `#` comments besides `//` and `/* */` (but `#[` opens an
//! attribute); single-line comments end at `?>` too; heredocs and nowdocs (`<<<EOT`,
//! `<<<'EOT'`) are strings up to their closing marker, which may be indented.

use super::{is_ident, is_ident_start, Kind, Lexer};

impl Lexer<'_> {
    // Out of line: the loop of the other languages stays as it was compiled alone.
    #[inline(never)]
    pub(super) fn run_php(&mut self) {
        self.php_text();
        while self.i < self.b.len() {
            let c = self.b[self.i];
            if is_ident(c) && !c.is_ascii_digit() {
                self.word();
                continue;
            }
            match c {
                b'\n' => {
                    // With the next line's indentation: one turn of the loop, not two.
                    self.newline();
                    self.skip_blank();
                }
                b' ' | b'\t' | b'\r' | 0x0c => self.skip_blank(),
                b'#' if self.peek(1) != b'[' => self.php_line_comment(),
                b'/' if self.peek(1) == b'/' => self.php_line_comment(),
                b'/' if self.peek(1) == b'*' => self.block_comment(),
                b'?' if self.peek(1) == b'>' => {
                    // `?>` ends the code as a `;` does.
                    let start = self.i;
                    self.i += 2;
                    self.push(Kind::Op, start, self.line);
                    self.php_text();
                }
                b'<' if self.b[self.i..].starts_with(b"<<<") && self.heredoc() => {}
                b'"' | b'\'' | b'`' => self.quoted(),
                // The commonest punctuation, which starts no longer operator: straight to
                // its token, past `op`'s search of the operator tables.
                b'(' | b')' | b'[' | b']' | b'{' | b'}' | b';' | b',' => self.php_op(1),
                // So are PHP's commonest longer operators, none of them the start of a longer
                // one: `$this->x`, `A::b`, `'k' => $v`.
                b'-' | b'=' if self.peek(1) == b'>' => self.php_op(2),
                b':' if self.peek(1) == b':' => self.php_op(2),
                // And assignment, when no `==`, `===` follows.
                b'=' if self.peek(1) != b'=' => self.php_op(1),
                b'0'..=b'9' => self.number(),
                b'.' if self.peek(1).is_ascii_digit() => self.number(),
                // Concatenation, when it is not `.=`, `..` or `...`.
                b'.' if !matches!(self.peek(1), b'.' | b'=') => self.php_op(1),
                _ => self.op(),
            }
        }
    }

    /// The operator of `len` bytes at `i`.
    #[inline(always)]
    fn php_op(&mut self, len: usize) {
        let start = self.i;
        self.i += len;
        self.push(Kind::Op, start, self.line);
    }

    /// Text outside the code, up to the next `<?php`, `<?=` or `<?` (consumed): one string.
    fn php_text(&mut self) {
        let (start, line) = (self.i, self.line);
        let rest = &self.b[self.i..];
        let (text, tag) = match rest.windows(2).position(|w| w == b"<?") {
            Some(p) => {
                let after = &rest[p + 2..];
                let tag = if after.len() >= 3 && after[..3].eq_ignore_ascii_case(b"php") {
                    5
                } else if after.first() == Some(&b'=') {
                    3
                } else {
                    2
                };
                (p, tag)
            }
            None => (rest.len(), 0),
        };
        self.bump(text);
        if text > 0 {
            self.push(Kind::Str, start, line);
        }
        self.bump(tag);
        self.skip_to_char_boundary();
        self.spaced = true;
    }

    /// `//` or `#` to the end of the line or to a `?>`, whichever comes first.
    fn php_line_comment(&mut self) {
        while self.i < self.b.len() {
            match self.b[self.i] {
                b'\n' => break,
                b'?' if self.peek(1) == b'>' => break,
                _ => self.i += 1,
            }
        }
        self.skip_to_char_boundary();
        self.spaced = true;
    }

    /// `<<<ID`, `<<<"ID"` or `<<<'ID'`, then lines up to the one that starts (after any
    /// indentation) with `ID` not followed by a name's character. False (nothing consumed)
    /// when no name follows the `<<<`.
    fn heredoc(&mut self) -> bool {
        let (start, line) = (self.i, self.line);
        let mut j = self.i + 3;
        while matches!(self.b.get(j), Some(b' ' | b'\t')) {
            j += 1;
        }
        let quoted = matches!(self.b.get(j), Some(b'"' | b'\''));
        let name_start = j + usize::from(quoted);
        if !self.b.get(name_start).is_some_and(|&c| is_ident_start(c)) {
            return false;
        }
        let name_end = name_start
            + self.b[name_start..]
                .iter()
                .position(|&c| !is_ident(c))
                .unwrap_or(self.b.len() - name_start);
        let name = &self.b[name_start..name_end];
        // The body starts on the next line.
        let mut at = self.b[name_end..]
            .iter()
            .position(|&c| c == b'\n')
            .map_or(self.b.len(), |p| name_end + p + 1);
        let end = loop {
            if at >= self.b.len() {
                break self.b.len();
            }
            let text = &self.b[at..];
            let indent = text
                .iter()
                .position(|&c| c != b' ' && c != b'\t')
                .unwrap_or(text.len());
            let rest = &text[indent..];
            if rest.starts_with(name) && !rest.get(name.len()).is_some_and(|&c| is_ident(c)) {
                break at + indent + name.len();
            }
            at = text
                .iter()
                .position(|&c| c == b'\n')
                .map_or(self.b.len(), |p| at + p + 1);
        };
        self.bump(end - self.i);
        self.skip_to_char_boundary();
        self.push(Kind::Str, start, line);
        true
    }
}
