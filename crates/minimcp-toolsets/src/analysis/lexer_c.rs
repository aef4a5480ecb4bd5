//! The lexer's C and C++ rules: preprocessor lines and raw strings; and the operators the
//! languages added after the first five bring (`?->`, `<=>`, `.=`, `->*`).

use super::{Kind, Lang, Lexer};

/// Operators of the newer languages that the shared table lacks, longest first; `None` for
/// the first five languages (declared first in `Lang`), whose lexing this leaves as it was.
#[inline(always)]
pub(super) fn more_operators(lang: Lang, c: u8) -> Option<&'static [&'static str]> {
    if (lang as u8) <= (Lang::Go as u8) {
        return None;
    }
    Some(match c {
        b'?' if lang == Lang::Php => &["?->"],
        b'<' => &["<=>"],
        b'.' if lang == Lang::Php => &[".="],
        b'-' if lang == Lang::Cpp => &["->*"],
        b'=' if lang == Lang::Ruby => &["=~"],
        b'!' if lang == Lang::Ruby => &["!~"],
        _ => &[],
    })
}

impl Lexer<'_> {
    /// A preprocessor line (`#` first on its line): one keyword token for the directive
    /// (`#if`, `# ifdef`, `#define`), the rest of the line (and its continuations) dropped.
    /// A macro's body is not code of the function it appears in, and its brackets need not
    /// balance; a condition's expression is one decision, counted at its directive.
    pub(super) fn directive(&mut self) {
        let (start, line) = (self.i, self.line);
        self.i += 1;
        while matches!(self.peek(0), b' ' | b'\t') {
            self.i += 1;
        }
        self.ident_tail();
        if self.i > start + 1 {
            self.push(Kind::Keyword, start, line);
        }
        while self.i < self.b.len() {
            match self.b[self.i] {
                b'\n' => break,
                b'\\' if matches!(self.peek(1), b'\n' | b'\r') => {
                    self.bump(if self.peek(1) == b'\r' { 3 } else { 2 });
                }
                b'/' if self.peek(1) == b'*' => self.block_comment(),
                b'/' if self.peek(1) == b'/' => self.line_comment(),
                quote @ (b'"' | b'\'') => {
                    // A quote in `#error don't` or `#include "a/*b"`: to its closing quote
                    // or the end of the line.
                    self.i += 1;
                    while self.i < self.b.len() && !matches!(self.b[self.i], b'\n') {
                        let c = self.b[self.i];
                        if c == b'\\' && self.peek(1) == b'\n' {
                            self.line += 1;
                        }
                        self.i += if c == b'\\' { 2 } else { 1 };
                        if c == quote {
                            break;
                        }
                    }
                    self.i = self.i.min(self.b.len());
                }
                _ => self.i += 1,
            }
        }
        self.skip_to_char_boundary();
        self.spaced = true;
    }

    /// `R"delim(…)delim"` (any prefix: `u8R`, `LR`); `i` is at the opening quote.
    pub(super) fn cpp_raw_string(&mut self, start: usize) {
        let line = self.line;
        let open = self.i + 1;
        let paren = self.b[open..]
            .iter()
            .take(17)
            .position(|&c| c == b'(')
            .map(|p| open + p);
        let Some(paren) = paren else {
            // Not a raw string after all (the delimiter is at most 16 characters).
            self.quoted_from(start);
            return;
        };
        let mut close = Vec::with_capacity(paren - open + 2);
        close.push(b')');
        close.extend_from_slice(&self.b[open..paren]);
        close.push(b'"');
        let body = paren + 1;
        let end = self.b[body..]
            .windows(close.len())
            .position(|w| w == close.as_slice())
            .map_or(self.b.len(), |p| body + p + close.len());
        self.line += self.b[self.i..end].iter().filter(|&&c| c == b'\n').count() as u32;
        self.i = end;
        self.skip_to_char_boundary();
        self.push(Kind::Str, start, line);
    }
}
