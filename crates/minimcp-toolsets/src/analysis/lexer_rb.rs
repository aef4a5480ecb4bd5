//! The lexer's Ruby rules: `#` comments and `=begin … =end` blocks, `__END__`; names that
//! end in `?` or `!` (`empty?`, `save!`), instance and class variables (`@a`, `@@b`),
//! symbols (`:name`) and hash labels (`key:`, so `if:` is not an `if`); double-quoted
//! strings whose `#{…}` parts are lexed as code (as lizard reads them); `%w[…]`-style
//! literals; regular expressions where a value is expected; and heredocs (`<<~EOS`), whose
//! bodies start on the next line.

use super::{is_ident, is_ident_start, Kind, Lexer};

/// A heredoc opened on the current line: its terminator, and whether it may be indented.
pub(super) struct Heredoc<'s> {
    name: &'s [u8],
    indented: bool,
}

/// Keywords after which a `/` starts a regular expression.
const VALUE_AFTER: &[&str] = &[
    "if", "elsif", "unless", "while", "until", "when", "and", "or", "not", "return", "then",
    "else", "case", "in", "do", "yield",
];

impl Lexer<'_> {
    // Out of line: the loop of the other languages stays as it was compiled alone.
    #[inline(never)]
    pub(super) fn run_ruby(&mut self) {
        while self.i < self.b.len() {
            let c = self.b[self.i];
            if is_ident(c) && !c.is_ascii_digit() {
                if self.line_start && self.b[self.i..].starts_with(b"__END__") {
                    let after = self.peek(7);
                    if after == b'\n' || after == b'\r' || after == 0 {
                        // The rest of the file is data.
                        self.i = self.b.len();
                        return;
                    }
                }
                self.ruby_word();
                continue;
            }
            match c {
                b'\n' => {
                    self.newline();
                    if !self.heredocs.is_empty() {
                        self.heredoc_bodies();
                    }
                }
                b' ' | b'\t' | b'\r' | 0x0c => self.blank(),
                b'\\' if self.peek(1) == b'\n' || self.peek(1) == b'\r' => self.continuation(),
                b'#' => self.line_comment(),
                b'=' if self.line_start && self.b[self.i..].starts_with(b"=begin") => {
                    self.embedded_document();
                }
                quote @ (b'"' | b'`') => {
                    let (start, line) = (self.i, self.line);
                    self.i += 1;
                    self.interpolated(start, line, Some(quote));
                }
                b'\'' => self.quoted(),
                b'0'..=b'9' => self.number(),
                b'@' => {
                    let start = self.i;
                    while self.peek(0) == b'@' {
                        self.i += 1;
                    }
                    self.ident_tail();
                    self.push(Kind::Ident, start, self.line);
                }
                b':' if self.peek(1) == b'"' => {
                    let start = self.i;
                    self.i += 1;
                    self.quoted_from(start);
                }
                b':' if self.peek(1) != b':'
                    && is_ident_start(self.peek(1))
                    && !self.after_colon() =>
                {
                    let start = self.i;
                    self.i += 1;
                    self.ident_tail();
                    if matches!(self.peek(0), b'?' | b'!' | b'=') && self.peek(1) != b'=' {
                        self.i += 1;
                    }
                    self.push(Kind::Ident, start, self.line);
                }
                b'%' if self.percent_literal() => {}
                b'/' if self.value_expected() && self.regex() => {}
                b'<' if self.peek(1) == b'<' && self.heredoc_start() => {}
                _ => self.op(),
            }
        }
    }

    /// True after `::` (a constant path's `A::B` is not a symbol `:B`).
    fn after_colon(&self) -> bool {
        self.i > 0 && self.b[self.i - 1] == b':'
    }

    /// A name, keyword or label: `empty?` and `save!` take their last character (not the
    /// `!` of `a!=b`), and `key:` (not `A::B`) is a hash label, never a keyword.
    fn ruby_word(&mut self) {
        let start = self.i;
        self.ident_tail();
        if self.i == start + 1 && self.b[start] == b'$' && self.peek(0).is_ascii_punctuation() {
            // A special global: `$!`, `` $` ``, `$~`, `$;`.
            self.i += 1;
            self.push(Kind::Ident, start, self.line);
            return;
        }
        let next = self.peek(0);
        if (next == b'?' || next == b'!') && !matches!(self.peek(1), b'=' | b'~') {
            self.i += 1;
        }
        if self.peek(0) == b':' && self.peek(1) != b':' && !self.member_name() {
            self.i += 1;
        }
        self.push(Kind::Ident, start, self.line);
    }

    /// True where a value is expected, so that `/` and `%(` open a literal: at the start,
    /// after an operator other than a closing bracket, after a keyword such as `if`, or
    /// after a name followed by a space but not by one after the `/` (`split /,/`).
    fn value_expected(&self) -> bool {
        match self.out.last() {
            None => true,
            Some(t) => match t.kind {
                Kind::Op => !matches!(t.text, ")" | "]" | "}"),
                Kind::Keyword => VALUE_AFTER.contains(&t.text),
                Kind::Ident => self.spaced && !matches!(self.peek(1), b' ' | b'=' | b'\n'),
                Kind::Number | Kind::Str => false,
            },
        }
    }

    /// The rest of a double-quoted string (or backtick command) from `i`, up to its
    /// closing quote or the next `#{`, whose code is lexed like any other until its `}`.
    /// `quote` is the opening quote, `None` where the string resumes after a `}`.
    pub(super) fn interpolated(&mut self, start: usize, line: u32, quote: Option<u8>) {
        let quote = quote.unwrap_or_else(|| self.quotes.pop().unwrap_or(b'"'));
        while self.i < self.b.len() {
            match self.b[self.i] {
                b'\\' => {
                    if self.peek(1) == b'\n' {
                        self.line += 1;
                    }
                    self.i += 2;
                }
                b'#' if self.peek(1) == b'{' => {
                    self.i += 2;
                    self.templates.push(self.braces);
                    self.quotes.push(quote);
                    self.braces += 1;
                    break;
                }
                b'\n' => {
                    self.line += 1;
                    self.i += 1;
                }
                c if c == quote => {
                    self.i += 1;
                    break;
                }
                _ => self.i += 1,
            }
        }
        self.i = self.i.min(self.b.len());
        self.skip_to_char_boundary();
        self.push(Kind::Str, start, line);
    }

    /// `=begin` … `=end`, both at the start of a line: a comment.
    fn embedded_document(&mut self) {
        loop {
            let rest = &self.b[self.i..];
            let Some(eol) = rest.iter().position(|&c| c == b'\n') else {
                self.i = self.b.len();
                break;
            };
            let is_end = rest.starts_with(b"=end");
            self.i += eol;
            if is_end {
                break;
            }
            self.i += 1;
            self.line += 1;
        }
        self.skip_to_char_boundary();
        self.spaced = true;
    }

    /// `%w[…]`, `%i(…)`, `%q{…}`, `%r{…}`, `%(…)`: a string to the matching delimiter
    /// (brackets nest). False (nothing consumed) for the `%` operator.
    fn percent_literal(&mut self) -> bool {
        let kind = self.peek(1);
        let typed = matches!(
            kind,
            b'q' | b'Q' | b'w' | b'W' | b'i' | b'I' | b'r' | b's' | b'x'
        );
        let open_at = self.i + 1 + usize::from(typed);
        let open = self.b.get(open_at).copied().unwrap_or(0);
        let bracket = matches!(open, b'(' | b'[' | b'{' | b'<');
        let literal = if typed {
            open.is_ascii_punctuation() && open != b'='
        } else {
            (bracket || matches!(open, b'|' | b'!' | b'/' | b'^')) && self.value_expected()
        };
        if !literal {
            return false;
        }
        let close = match open {
            b'(' => b')',
            b'[' => b']',
            b'{' => b'}',
            b'<' => b'>',
            c => c,
        };
        let (start, line) = (self.i, self.line);
        let mut depth = 0u32;
        self.i = open_at + 1;
        while self.i < self.b.len() {
            let c = self.b[self.i];
            self.i += 1;
            match c {
                b'\\' => self.i += 1,
                b'\n' => self.line += 1,
                c if c == close && depth == 0 => break,
                c if c == close => depth -= 1,
                c if c == open && bracket => depth += 1,
                _ => {}
            }
        }
        self.i = self.i.min(self.b.len());
        self.skip_to_char_boundary();
        self.push(Kind::Str, start, line);
        true
    }

    /// `<<~EOS`, `<<-EOS`, `<<EOS` or a quoted name: the marker is a string token and the
    /// body is read at the end of the line. False (nothing consumed) for the `<<` operator:
    /// an unquoted name right after `<<` must be in capitals where a value could also end.
    fn heredoc_start(&mut self) -> bool {
        let mut j = self.i + 2;
        let indented = matches!(self.b.get(j), Some(b'~' | b'-'));
        j += usize::from(indented);
        let quote = self
            .b
            .get(j)
            .copied()
            .filter(|c| matches!(c, b'"' | b'\'' | b'`'));
        let name_start = j + usize::from(quote.is_some());
        let first = self.b.get(name_start).copied().unwrap_or(0);
        let plausible = quote.is_some()
            || indented && is_ident_start(first)
            || (first.is_ascii_uppercase() || first == b'_') && self.value_expected();
        if !plausible || !is_ident_start(first) {
            return false;
        }
        let name_end = name_start
            + self.b[name_start..]
                .iter()
                .position(|&c| !is_ident(c))
                .unwrap_or(self.b.len() - name_start);
        if quote.is_some() && self.b.get(name_end).copied() != quote {
            return false;
        }
        let start = self.i;
        self.i = name_end + usize::from(quote.is_some());
        self.heredocs.push(Heredoc {
            name: &self.b[name_start..name_end],
            indented,
        });
        self.push(Kind::Str, start, self.line);
        true
    }

    /// The bodies of the heredocs opened on the line just ended, each a string token.
    fn heredoc_bodies(&mut self) {
        for doc in std::mem::take(&mut self.heredocs) {
            let (start, line) = (self.i, self.line);
            while self.i < self.b.len() {
                let rest = &self.b[self.i..];
                let eol = rest.iter().position(|&c| c == b'\n').unwrap_or(rest.len());
                let text = &rest[..eol];
                let text = if doc.indented {
                    let indent = text.iter().position(|&c| c != b' ' && c != b'\t');
                    &text[indent.unwrap_or(text.len())..]
                } else {
                    text
                };
                let text = text.strip_suffix(b"\r").unwrap_or(text);
                self.i += eol;
                if text == doc.name {
                    break;
                }
                if self.i < self.b.len() {
                    self.i += 1;
                    self.line += 1;
                }
            }
            self.skip_to_char_boundary();
            if self.i > start {
                self.push(Kind::Str, start, line);
            }
        }
        // The terminator's line ends like any other.
        self.spaced = true;
    }
}
