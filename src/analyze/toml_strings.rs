//! The TOML subset's strings: basic (`"…"`, with TOML 1.0's escapes) and literal (`'…'`),
//! one line each, no control character but tab.

use super::{Error, Parser};

impl Parser<'_> {
    /// `"…"` with TOML's escapes.
    pub(super) fn basic_string(&mut self) -> Result<String, Error> {
        self.at += 1;
        let mut out = String::new();
        loop {
            let rest = &self.text[self.at..];
            let Some(c) = rest.chars().next() else {
                return Err(self.error("a string is not closed".into()));
            };
            self.at += c.len_utf8();
            match c {
                '"' => return Ok(out),
                '\\' => out.push(self.escape()?),
                '\n' | '\r' => return Err(self.error("a string is not closed on its line".into())),
                c if c.is_ascii() => {
                    self.control(c as u8, "a string")?;
                    out.push(c);
                }
                c => out.push(c),
            }
        }
    }

    fn escape(&mut self) -> Result<char, Error> {
        let Some(c) = self.peek() else {
            return Err(self.error("a string is not closed".into()));
        };
        self.at += 1;
        let hex = |p: &mut Self, n: usize| -> Result<char, Error> {
            let digits = p.text.get(p.at..p.at + n).unwrap_or("");
            let code = (digits.len() == n && digits.bytes().all(|b| b.is_ascii_hexdigit()))
                .then(|| u32::from_str_radix(digits, 16).ok())
                .flatten();
            p.at += digits.len();
            code.and_then(char::from_u32).ok_or_else(|| {
                p.error(format!(
                    "`\\{}{digits}` is not a Unicode scalar value",
                    if n == 4 { 'u' } else { 'U' }
                ))
            })
        };
        Ok(match c {
            b'b' => '\u{8}',
            b't' => '\t',
            b'n' => '\n',
            b'f' => '\u{c}',
            b'r' => '\r',
            b'"' => '"',
            b'\\' => '\\',
            b'u' => hex(self, 4)?,
            b'U' => hex(self, 8)?,
            _ => {
                let c = self.text[self.at - 1..].chars().next().unwrap_or(' ');
                return Err(self.error(format!(
                    "unknown escape `\\{}` in a string",
                    c.escape_default()
                )));
            }
        })
    }

    /// `'…'`: no escapes.
    pub(super) fn literal_string(&mut self) -> Result<String, Error> {
        self.at += 1;
        let start = self.at;
        loop {
            let Some(c) = self.text[self.at..].chars().next() else {
                return Err(self.error("a string is not closed".into()));
            };
            match c {
                '\'' => {
                    let s = self.text[start..self.at].to_string();
                    self.at += 1;
                    return Ok(s);
                }
                '\n' | '\r' => return Err(self.error("a string is not closed on its line".into())),
                c if c.is_ascii() => self.control(c as u8, "a string")?,
                _ => {}
            }
            self.at += c.len_utf8();
        }
    }
}
