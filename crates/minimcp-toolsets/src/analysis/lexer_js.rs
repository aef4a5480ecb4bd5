//! The lexer's JavaScript/TypeScript rules: template literals (with their `${…}` parts lexed
//! as code), regular-expression literals versus division, and reserved words used as
//! property names.

use super::{Kind, Lang, Lexer};

/// Keywords after which a `/` starts a regular expression in JavaScript.
const REGEX_AFTER: &[&str] = &[
    "return",
    "typeof",
    "case",
    "do",
    "else",
    "in",
    "of",
    "new",
    "delete",
    "void",
    "throw",
    "yield",
    "await",
    "instanceof",
];

impl Lexer<'_> {
    /// The previous token is a member access: `.` or `?.` (PHP: `->`, `?->` or `::`).
    pub(super) fn member_name(&self) -> bool {
        self.out.last().is_some_and(|t| {
            t.kind == Kind::Op
                && if self.lang == Lang::Php {
                    matches!(t.text, "->" | "?->" | "::")
                } else {
                    matches!(t.text, "." | "?.")
                }
        })
    }

    /// The rest of a template literal from `i` (after a backtick or a `${…}`'s `}`) up to
    /// its closing backtick or the next `${`.
    pub(super) fn template(&mut self, start: usize, line: u32) {
        while self.i < self.b.len() {
            match self.b[self.i] {
                b'\\' => {
                    if self.peek(1) == b'\n' {
                        self.line += 1;
                    }
                    self.i += 2;
                }
                b'`' => {
                    self.i += 1;
                    break;
                }
                b'$' if self.peek(1) == b'{' => {
                    self.i += 2;
                    self.templates.push(self.braces);
                    self.braces += 1;
                    break;
                }
                b'\n' => {
                    self.line += 1;
                    self.i += 1;
                }
                _ => self.i += 1,
            }
        }
        self.i = self.i.min(self.b.len());
        self.skip_to_char_boundary();
        self.push(Kind::Str, start, line);
    }

    /// True when a `/` here starts a regular expression (JavaScript): at the start, or
    /// after an operator other than a closing bracket, or after certain keywords.
    pub(super) fn regex_allowed(&self) -> bool {
        match self.out.last() {
            None => true,
            Some(t) => match t.kind {
                Kind::Op => !matches!(t.text, ")" | "]" | "}" | "++" | "--"),
                Kind::Keyword => REGEX_AFTER.contains(&t.text),
                _ => false,
            },
        }
    }

    /// A regular-expression literal; false (nothing consumed) when the line ends first.
    pub(super) fn regex(&mut self) -> bool {
        let start = self.i;
        let mut j = self.i + 1;
        let mut class = false;
        while j < self.b.len() {
            match self.b[j] {
                b'\n' => return false,
                b'\\' => j += 1,
                b'[' => class = true,
                b']' => class = false,
                b'/' if !class => break,
                _ => {}
            }
            j += 1;
        }
        if j >= self.b.len() {
            return false;
        }
        self.i = j + 1;
        while self.i < self.b.len() && self.b[self.i].is_ascii_alphabetic() {
            self.i += 1;
        }
        self.push(Kind::Str, start, self.line);
        true
    }
}
