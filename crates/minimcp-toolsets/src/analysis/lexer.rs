//! One lexer for every language: it turns source text into the tokens the metrics need
//! and nothing more. It knows each language's comments and string forms so that a `{` or an
//! `if` inside a string or comment is never taken for code: Rust raw strings (`r#"…"#`),
//! byte and C strings, char literals versus lifetimes and labels (`'a'` vs `'a`), nested
//! block comments; Python string prefixes and triple-quoted strings, and the indentation of
//! each logical line; JavaScript/TypeScript template literals (the `${…}` parts are lexed
//! as code) and regular-expression literals; Go raw strings and runes; Java text blocks;
//! C and C++ preprocessor lines (`lexer_c.rs`), raw strings and digit separators; PHP's
//! text outside `<?php … ?>`, `#` comments and heredocs (`lexer_php.rs`); Ruby's
//! interpolation, symbols, `%w[…]` literals, heredocs and `=begin` blocks (`lexer_rb.rs`).
//!
//! Comments are dropped. Malformed input (an unterminated string, a stray byte) never
//! fails: the lexer takes the rest of the line or the single byte and goes on, so hostile
//! input costs linear time and produces some tokens.

use super::bytes;
use super::keywords::is_keyword;
use super::lang::Lang;

#[path = "lexer_c.rs"]
mod c;
#[path = "lexer_js.rs"]
mod js;
#[path = "lexer_php.rs"]
mod php;
#[path = "lexer_rb.rs"]
mod rb;
#[path = "lexer_strings.rs"]
mod strings;

/// What a token is, as far as the metrics care.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A name (also Rust lifetimes and labels, JavaScript `#private` names).
    Ident,
    /// A word the language reserves.
    Keyword,
    Number,
    /// A string, char, regular-expression or template-literal piece.
    Str,
    /// Punctuation and operators, longest match first.
    Op,
}

/// One token: a slice of the source and where it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Token<'s> {
    pub(crate) kind: Kind,
    pub(crate) text: &'s str,
    /// 1-based line of the token's first character.
    pub(crate) line: u32,
    /// Python only: the indentation (in columns) when this token starts a logical line,
    /// otherwise `None`. Other languages leave it `None`.
    pub(crate) indent: Option<u32>,
    /// True when whitespace (or a comment) separates this token from the previous one.
    pub(crate) spaced: bool,
    /// JavaScript/TypeScript: true inside a template literal's `${…}`.
    pub(crate) templated: bool,
}

impl Token<'_> {
    /// True for an operator or keyword spelled `s`.
    #[inline(always)]
    pub(crate) fn is(&self, s: &str) -> bool {
        matches!(self.kind, Kind::Op | Kind::Keyword) && self.text == s
    }
}

/// The operators longer than one byte that start with `c`, longest first (so the first
/// match is the longest). Most punctuation starts none, and answers without a comparison.
#[inline(always)]
fn operators(c: u8) -> &'static [&'static str] {
    match c {
        b'>' => &[">>>=", ">>>", ">>=", ">=", ">>"],
        b'<' => &["<<=", "<=", "<<", "<-"],
        b'=' => &["===", "=>", "=="],
        b'!' => &["!==", "!="],
        b'.' => &["...", "..=", ".."],
        b'*' => &["**=", "*=", "**"],
        b'?' => &["??=", "?.", "??"],
        b'&' => &["&&=", "&&", "&=", "&^"],
        b'|' => &["||=", "||", "|="],
        b'/' => &["//=", "/="],
        b'-' => &["->", "--", "-="],
        b':' => &["::", ":="],
        b'+' => &["++", "+="],
        b'%' => &["%="],
        b'^' => &["^="],
        _ => &[],
    }
}

/// Splits `src` into tokens.
pub(crate) fn lex(src: &str, lang: Lang) -> Vec<Token<'_>> {
    let mut lexer = Lexer {
        src,
        b: src.as_bytes(),
        i: 0,
        line: 1,
        lang,
        // Real code has a token every three to six bytes: room for one every three means
        // the vector (the lexer's largest write) almost never grows and copies itself.
        out: Vec::with_capacity(src.len() / 3 + 16),
        spaced: true,
        depth: 0,
        line_start: true,
        indent: 0,
        braces: 0,
        templates: Vec::new(),
        heredocs: Vec::new(),
        quotes: Vec::new(),
    };
    match lang {
        Lang::Php => lexer.run_php(),
        Lang::Ruby => lexer.run_ruby(),
        _ => lexer.run(),
    }
    lexer.out
}

struct Lexer<'s> {
    src: &'s str,
    b: &'s [u8],
    i: usize,
    line: u32,
    lang: Lang,
    out: Vec<Token<'s>>,
    spaced: bool,
    /// Python: bracket depth (newlines inside brackets do not end a logical line).
    depth: u32,
    /// Python: the next token starts a logical line.
    line_start: bool,
    /// Python: columns of indentation of the current physical line.
    indent: u32,
    /// JavaScript: `{` depth, to find the `}` that ends a template literal's `${`.
    braces: u32,
    /// JavaScript: the brace depth at each open `${` (Ruby: `#{`).
    templates: Vec<u32>,
    /// Ruby: the heredocs opened on this line, whose bodies start on the next.
    heredocs: Vec<rb::Heredoc<'s>>,
    /// Ruby: the quote that ends the string around each open `#{`.
    quotes: Vec<u8>,
}

fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_' || c == b'$' || c >= 0x80
}

fn is_ident(c: u8) -> bool {
    IDENT[usize::from(c)]
}

/// The bytes that continue a name: one load instead of four comparisons, for the byte the
/// lexer looks at most.
static IDENT: [bool; 256] = {
    let mut table = [false; 256];
    let mut c = 0;
    while c < 256 {
        table[c] =
            matches!(c as u8, b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'_' | b'$' | 0x80..);
        c += 1;
    }
    table
};

impl<'s> Lexer<'s> {
    fn peek(&self, ahead: usize) -> u8 {
        self.b.get(self.i + ahead).copied().unwrap_or(0)
    }

    #[inline(always)]
    fn push(&mut self, kind: Kind, start: usize, line: u32) {
        // `start..i` always falls on char boundaries: the lexer only stops on ASCII
        // bytes or at the end, and multi-byte sequences are consumed whole.
        let text = self.src.get(start..self.i).unwrap_or("");
        let kind = match kind {
            // After `.` a reserved word is a property name (`gen.if(…)`, `promise.catch(…)`,
            // Ruby's `range.end`, PHP's `$q->match(…)`, Java's `Foo.class`). Asked only of
            // reserved words: most names are none, and `is_keyword` turns them away sooner.
            Kind::Ident
                if is_keyword(self.lang, text)
                    && !(self.lang.has_keyword_members() && self.member_name()) =>
            {
                Kind::Keyword
            }
            other => other,
        };
        let indent = (self.lang == Lang::Python && self.line_start).then_some(self.indent);
        self.line_start = false;
        self.out.push(Token {
            kind,
            text,
            line,
            indent,
            spaced: self.spaced,
            templated: !self.templates.is_empty(),
        });
        self.spaced = false;
    }

    /// Advances over `n` bytes, counting newlines.
    fn bump(&mut self, n: usize) {
        let end = (self.i + n).min(self.b.len());
        self.line += self.b[self.i..end].iter().filter(|&&c| c == b'\n').count() as u32;
        self.i = end;
    }

    /// Moves `i` forward to a char boundary (after consuming part of a multi-byte char).
    fn skip_to_char_boundary(&mut self) {
        while self.i < self.b.len() && !self.src.is_char_boundary(self.i) {
            self.i += 1;
        }
    }

    fn run(&mut self) {
        while self.i < self.b.len() {
            let c = self.b[self.i];
            // Names first: the commonest token, and no other rule starts with a letter.
            if is_ident(c) && !c.is_ascii_digit() {
                self.word();
                continue;
            }
            match c {
                b'\n' => self.newline(),
                b' ' | b'\t' | b'\r' | 0x0c => self.blank(),
                b'\\' if self.peek(1) == b'\n' || self.peek(1) == b'\r' => self.continuation(),
                b'#' if self.lang == Lang::Python => self.line_comment(),
                b'/' if self.lang != Lang::Python && self.peek(1) == b'/' => self.line_comment(),
                b'/' if self.lang != Lang::Python && self.peek(1) == b'*' => self.block_comment(),
                b'"' | b'\'' | b'`' => self.quoted(),
                b'0'..=b'9' => self.number(),
                b'.' if self.peek(1).is_ascii_digit() => self.number(),
                b'#' if self.lang.is_c() && self.line_start => self.directive(),
                b'#' if self.lang.is_js() && is_ident_start(self.peek(1)) => {
                    let start = self.i;
                    self.i += 1;
                    self.ident_tail();
                    self.push(Kind::Ident, start, self.line);
                }
                b'/' if self.lang.is_js() && self.regex_allowed() && self.regex() => {}
                _ => self.op(),
            }
        }
    }

    #[inline(always)]
    fn newline(&mut self) {
        self.i += 1;
        self.line += 1;
        self.spaced = true;
        if self.depth == 0 {
            self.line_start = true;
        }
        self.indent = 0;
    }

    /// A backslash ending the line: the logical line goes on.
    fn continuation(&mut self) {
        let keep = self.line_start;
        self.bump(if self.peek(1) == b'\r' { 3 } else { 2 });
        self.line_start = keep && self.out.is_empty();
        self.spaced = true;
    }

    /// A run of spaces and tabs in one loop (indentation is a large share of the bytes).
    #[inline(always)]
    fn blank(&mut self) {
        let (mut i, mut indent) = (self.i, self.indent);
        while let Some(&c @ (b' ' | b'\t' | b'\r' | 0x0c)) = self.b.get(i) {
            indent += if c == b'\t' { 8 - indent % 8 } else { 1 };
            i += 1;
        }
        if self.line_start {
            self.indent = indent;
        }
        self.i = i;
        self.spaced = true;
    }

    /// A run of spaces and tabs where nothing reads the indentation (PHP).
    #[inline(always)]
    fn skip_blank(&mut self) {
        let rest = &self.b[self.i..];
        self.i += rest
            .iter()
            .position(|&c| !matches!(c, b' ' | b'\t' | b'\r' | 0x0c))
            .unwrap_or(rest.len());
        self.spaced = true;
    }

    #[inline(always)]
    fn line_comment(&mut self) {
        let rest = &self.b[self.i..];
        self.i += rest.iter().position(|&c| c == b'\n').unwrap_or(rest.len());
        self.spaced = true;
    }

    /// A block comment from the `/*` at `i`; Rust's nest.
    #[inline(always)]
    fn block_comment(&mut self) {
        if self.lang != Lang::Rust {
            self.flat_block_comment();
            return;
        }
        let mut level = 0u32;
        while self.i < self.b.len() {
            if self.peek(0) == b'/' && self.peek(1) == b'*' {
                level += 1;
                self.i += 2;
            } else if self.peek(0) == b'*' && self.peek(1) == b'/' {
                level = level.saturating_sub(1);
                self.i += 2;
                if level == 0 {
                    break;
                }
            } else {
                if self.b[self.i] == b'\n' {
                    self.line += 1;
                }
                self.i += 1;
            }
        }
        self.spaced = true;
    }

    /// A block comment that does not nest (every language's but Rust's): from the `/*` at
    /// `i` to the first `*/` after it, counting its lines, in jumps from one `*` or line
    /// break to the next (docblocks are long runs of neither: this took PHP's comments from
    /// about 14 instructions a byte to 6). A `*` right after a `/` in the comment is that
    /// `/*`'s and closes nothing (`/* a /*/ b */` ends at the last `*/`), as the byte loop
    /// that nesting needs reads it.
    #[inline(always)]
    fn flat_block_comment(&mut self) {
        let mut at = self.i + 2;
        while let Some(p) = bytes::find_any(&self.b[at..], [b'*', b'\n']) {
            at += p + 1;
            if self.b[at - 1] == b'\n' {
                self.line += 1;
            } else if self.b.get(at) == Some(&b'/')
                && !(at - 2 > self.i + 1 && self.b[at - 2] == b'/')
            {
                self.i = at + 1;
                self.spaced = true;
                return;
            }
        }
        self.i = self.b.len();
        self.spaced = true;
    }

    #[inline(always)]
    fn ident_tail(&mut self) {
        let rest = &self.b[self.i..];
        self.i += rest
            .iter()
            .position(|&c| !is_ident(c))
            .unwrap_or(rest.len());
        // Every byte of a multi-byte char continues a name, so `i` stops on an ASCII byte
        // or at the end: a char boundary.
        debug_assert!(self.src.is_char_boundary(self.i));
    }

    #[inline(always)]
    fn number(&mut self) {
        let start = self.i;
        self.i += 1;
        while self.i < self.b.len() {
            let c = self.b[self.i];
            let exponent_sign = (c == b'+' || c == b'-')
                && matches!(self.b[self.i - 1], b'e' | b'E')
                && !self.src[start..self.i].starts_with("0x");
            // C and C++'s digit separators: `1'000'000`.
            let separator = c == b'\'' && self.lang.is_c() && self.peek(1).is_ascii_hexdigit();
            if is_ident(c)
                || exponent_sign
                || (c == b'.' && self.peek(1).is_ascii_digit())
                || separator
            {
                self.i += 1;
            } else {
                break;
            }
        }
        self.skip_to_char_boundary();
        self.push(Kind::Number, start, self.line);
    }

    #[inline(always)]
    fn op(&mut self) {
        let start = self.i;
        let rest = &self.b[self.i..];
        let c = rest[0];
        // Byte by byte: `starts_with` called `memcmp`, dearer than these 1-4 byte compares.
        let len = match c::more_operators(self.lang, c) {
            // The newer languages' own operators first (longer than the shared ones).
            Some(more) => more
                .iter()
                .chain(operators(c))
                .find(|op| op.len() <= rest.len() && op.bytes().zip(rest).all(|(a, &b)| a == b))
                .map_or(1, |op| op.len()),
            None => operators(c)
                .iter()
                .find(|op| op.len() <= rest.len() && op.bytes().zip(rest).all(|(a, &b)| a == b))
                .map_or(1, |op| op.len()),
        };
        // Python has no `?`-operators, `->` is an annotation arrow; the table is shared and
        // harmless for the others. A stray non-ASCII byte cannot reach here (it is an
        // identifier start), so one byte is one char.
        self.i += len;
        if self.lang == Lang::Python {
            match c {
                b'(' | b'[' | b'{' => self.depth += 1,
                b')' | b']' | b'}' => self.depth = self.depth.saturating_sub(1),
                _ => {}
            }
        }
        if (self.lang.is_js() || self.lang == Lang::Ruby) && len == 1 {
            if c == b'{' {
                self.braces += 1;
            } else if c == b'}' {
                self.braces = self.braces.saturating_sub(1);
                if self.templates.last() == Some(&self.braces) {
                    self.templates.pop();
                    // The `}` closes a `${` (`#{`): the template literal (string) goes on.
                    let line = self.line;
                    if self.lang == Lang::Ruby {
                        self.interpolated(self.i, line, None);
                    } else {
                        self.template(self.i, line);
                    }
                    return;
                }
            }
        }
        self.push(Kind::Op, start, self.line);
    }
}

#[cfg(test)]
#[path = "lexer_tests.rs"]
mod tests;
