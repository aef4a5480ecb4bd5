//! A strict subset of TOML 1.0, enough for `.minimcp.toml`: comments, `[table]` and
//! `[[array.of.tables]]` headers (bare or quoted keys, dotted), `key = value` with a bare
//! or quoted key, and values that are basic or literal one-line strings, decimal integers,
//! booleans and arrays of those (across lines, comments inside, a trailing comma allowed).
//! Everything else TOML has (dotted keys on the left of `=`, floats, dates, multi-line
//! strings, inline tables, hexadecimal numbers) is refused as unsupported, never misread:
//! what this parser accepts, Python's `tomllib` reads to the same value (a property test,
//! `toml_tests.rs`, checks that on generated documents and their mutations). Every error
//! names its line.

use std::fmt;

#[path = "toml_strings.rs"]
mod strings;

/// A parsed value and the line it starts on.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Item {
    pub(crate) line: u32,
    pub(crate) value: Value,
}

/// A TOML value of the subset.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Value {
    Str(String),
    Int(i64),
    Bool(bool),
    Array(Vec<Item>),
    Table(Table),
    /// `[[name]]`: its tables in order.
    Tables(Vec<Table>),
}

/// A table: its keys in the order written.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Table {
    pub(crate) entries: Vec<(String, Item)>,
    /// Defined by its own `[header]` (a second one is an error), not only implied by a
    /// deeper header.
    explicit: bool,
}

impl Table {
    fn get_mut(&mut self, key: &str) -> Option<&mut Item> {
        self.entries
            .iter_mut()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v)
    }
}

/// What is wrong, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Error {
    pub(crate) line: u32,
    pub(crate) message: String,
    /// Valid TOML that this subset does not read (as opposed to a syntax error).
    pub(crate) unsupported: bool,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

/// Parses `text` into its root table.
pub(crate) fn parse(text: &str) -> Result<Table, Error> {
    let mut p = Parser {
        s: text.as_bytes(),
        text,
        at: 0,
        line: 1,
    };
    let mut root = Table {
        explicit: true,
        ..Table::default()
    };
    // The path of the table that `key = value` lines go to.
    let mut current: Vec<String> = Vec::new();
    loop {
        p.blank();
        if p.at >= p.s.len() {
            return Ok(root);
        }
        let line = p.line;
        if p.peek() == Some(b'[') {
            let many = p.s.get(p.at + 1) == Some(&b'[');
            p.at += if many { 2 } else { 1 };
            p.spaces();
            let path = p.key_path()?;
            p.spaces();
            let close: &[u8] = if many { b"]]" } else { b"]" };
            if !p.s[p.at..].starts_with(close) {
                return Err(p.error(format!("expected `{}` to close the header", p.show(close))));
            }
            p.at += close.len();
            p.end_of_line()?;
            define(&mut root, &path, many, line)?;
            current = path;
        } else {
            let key = p.key()?;
            p.spaces();
            if p.peek() == Some(b'.') {
                return Err(p.unsupported(format!(
                    "dotted key `{key}.…`: write a [table] header instead"
                )));
            }
            if p.peek() != Some(b'=') {
                return Err(p.error(format!("expected `=` after the key `{key}`")));
            }
            p.at += 1;
            p.spaces();
            let value = p.value()?;
            p.end_of_line()?;
            let table = table_at(&mut root, &current);
            if table.get_mut(&key).is_some() {
                return Err(Error {
                    line,
                    message: format!("`{key}` is defined twice"),
                    unsupported: false,
                });
            }
            table.entries.push((key, value));
        }
    }
}

/// The table `path` names (each step into the last table of an array of tables).
fn table_at<'t>(root: &'t mut Table, path: &[String]) -> &'t mut Table {
    let mut table = root;
    for key in path {
        let item = table.get_mut(key).expect("defined by its header");
        table = match &mut item.value {
            Value::Table(t) => t,
            Value::Tables(list) => list.last_mut().expect("never empty"),
            _ => unreachable!("headers only define tables"),
        };
    }
    table
}

/// Defines the table (or a new element of the array of tables) a header names.
fn define(root: &mut Table, path: &[String], many: bool, line: u32) -> Result<(), Error> {
    let fail = |message: String| Error {
        line,
        message,
        unsupported: false,
    };
    let mut table = root;
    for (depth, key) in path.iter().enumerate() {
        let last = depth + 1 == path.len();
        if table.get_mut(key).is_none() {
            let value = if last && many {
                Value::Tables(vec![Table {
                    explicit: true,
                    ..Table::default()
                }])
            } else {
                Value::Table(Table {
                    explicit: last,
                    ..Table::default()
                })
            };
            table.entries.push((key.clone(), Item { line, value }));
            if last {
                return Ok(());
            }
        } else if last {
            let item = table.get_mut(key).expect("present");
            return match (&mut item.value, many) {
                (Value::Tables(list), true) => {
                    list.push(Table {
                        explicit: true,
                        ..Table::default()
                    });
                    Ok(())
                }
                (Value::Table(t), false) if !t.explicit => {
                    t.explicit = true;
                    Ok(())
                }
                _ => Err(fail(format!("`{}` is defined twice", path.join(".")))),
            };
        }
        let item = table.get_mut(key).expect("present");
        table = match &mut item.value {
            Value::Table(t) => t,
            Value::Tables(list) => list.last_mut().expect("never empty"),
            _ => {
                return Err(fail(format!(
                    "`{}` is not a table",
                    path[..=depth].join(".")
                )))
            }
        };
    }
    Ok(())
}

struct Parser<'a> {
    s: &'a [u8],
    text: &'a str,
    at: usize,
    line: u32,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.at).copied()
    }

    fn error(&self, message: String) -> Error {
        Error {
            line: self.line,
            message,
            unsupported: false,
        }
    }

    fn unsupported(&self, message: String) -> Error {
        Error {
            line: self.line,
            message: format!("{message} (not in the TOML subset this file is read with)"),
            unsupported: true,
        }
    }

    fn show(&self, bytes: &[u8]) -> String {
        String::from_utf8_lossy(bytes).into_owned()
    }

    fn spaces(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t')) {
            self.at += 1;
        }
    }

    /// A comment to the end of its line (not the line break).
    fn comment(&mut self) -> Result<(), Error> {
        if self.peek() != Some(b'#') {
            return Ok(());
        }
        while let Some(c) = self.peek() {
            if c == b'\n' || (c == b'\r' && self.s.get(self.at + 1) == Some(&b'\n')) {
                break;
            }
            self.control(c, "a comment")?;
            self.at += 1;
        }
        Ok(())
    }

    /// Refuses a control character (tab is allowed) where text is.
    fn control(&self, c: u8, place: &str) -> Result<(), Error> {
        if (c < 0x20 && c != b'\t') || c == 0x7f {
            return Err(self.error(format!("control character U+{c:04X} in {place}")));
        }
        Ok(())
    }

    /// A line break (LF or CRLF), if one is here.
    fn newline(&mut self) -> Result<bool, Error> {
        match self.peek() {
            Some(b'\n') => self.at += 1,
            Some(b'\r') if self.s.get(self.at + 1) == Some(&b'\n') => self.at += 2,
            Some(b'\r') => return Err(self.error("a carriage return without a line feed".into())),
            _ => return Ok(false),
        }
        self.line += 1;
        Ok(true)
    }

    /// Blank lines, comment lines and the spaces before the next item.
    fn blank(&mut self) {
        loop {
            self.spaces();
            if self.comment().is_err() {
                return;
            }
            match self.newline() {
                Ok(true) => continue,
                _ => return,
            }
        }
    }

    /// Spaces, a comment, then a line break or the end of the text.
    fn end_of_line(&mut self) -> Result<(), Error> {
        self.spaces();
        self.comment()?;
        if self.at >= self.s.len() || self.newline()? {
            return Ok(());
        }
        let rest: String = self.text[self.at..]
            .chars()
            .take_while(|&c| c != '\n')
            .take(20)
            .collect();
        Err(self.error(format!("unexpected `{rest}` after the value")))
    }

    /// `a.b."c d"` in a header.
    fn key_path(&mut self) -> Result<Vec<String>, Error> {
        let mut path = vec![self.key()?];
        loop {
            self.spaces();
            if self.peek() != Some(b'.') {
                return Ok(path);
            }
            self.at += 1;
            self.spaces();
            path.push(self.key()?);
        }
    }

    /// A bare key (letters, digits, `_`, `-`) or a quoted one.
    fn key(&mut self) -> Result<String, Error> {
        match self.peek() {
            Some(b'"') => return self.basic_string(),
            Some(b'\'') => return self.literal_string(),
            _ => {}
        }
        let start = self.at;
        while matches!(self.peek(), Some(c) if c.is_ascii_alphanumeric() || c == b'_' || c == b'-')
        {
            self.at += 1;
        }
        if start == self.at {
            let found = self.text[self.at..].chars().next();
            return Err(self.error(match found {
                Some(c) => format!("expected a key, found `{}`", c.escape_default()),
                None => "expected a key, found the end of the file".into(),
            }));
        }
        Ok(self.text[start..self.at].to_string())
    }

    fn value(&mut self) -> Result<Item, Error> {
        let line = self.line;
        let value = match self.peek() {
            Some(b'"') if self.s[self.at..].starts_with(b"\"\"\"") => {
                return Err(self.unsupported("a multi-line string".into()))
            }
            Some(b'\'') if self.s[self.at..].starts_with(b"'''") => {
                return Err(self.unsupported("a multi-line string".into()))
            }
            Some(b'"') => Value::Str(self.basic_string()?),
            Some(b'\'') => Value::Str(self.literal_string()?),
            Some(b'[') => Value::Array(self.array()?),
            Some(b'{') => return Err(self.unsupported("an inline table".into())),
            Some(b't') if self.word("true") => Value::Bool(true),
            Some(b'f') if self.word("false") => Value::Bool(false),
            Some(c) if c.is_ascii_alphanumeric() || c == b'+' || c == b'-' => {
                Value::Int(self.integer()?)
            }
            None => return Err(self.error("expected a value, found the end of the file".into())),
            Some(_) => {
                let c = self.text[self.at..].chars().next().unwrap_or(' ');
                return Err(self.error(format!(
                    "expected a value (a \"string\", a number, true, false or [an, array]), found `{}`",
                    c.escape_default()
                )));
            }
        };
        Ok(Item { line, value })
    }

    /// `true` or `false` not followed by a key character.
    fn word(&mut self, word: &str) -> bool {
        let end = self.at + word.len();
        let next = self.s.get(end).copied();
        if self.s[self.at..].starts_with(word.as_bytes())
            && !matches!(next, Some(c) if c.is_ascii_alphanumeric() || c == b'_' || c == b'-' || c == b'.')
        {
            self.at = end;
            return true;
        }
        false
    }

    /// A decimal integer: optional sign, no leading zero, `_` only between digits.
    fn integer(&mut self) -> Result<i64, Error> {
        let start = self.at;
        while matches!(self.peek(), Some(c) if c.is_ascii_alphanumeric() || matches!(c, b'_' | b'+' | b'-' | b'.' | b':'))
        {
            self.at += 1;
        }
        let word = &self.text[start..self.at];
        let digits = word.strip_prefix(['+', '-']).unwrap_or(word);
        let well_formed = !digits.is_empty()
            && digits.bytes().all(|c| c.is_ascii_digit() || c == b'_')
            && !digits.starts_with('_')
            && !digits.ends_with('_')
            && !digits.contains("__")
            && (digits == "0" || !digits.starts_with('0'));
        let value = digits.replace('_', "");
        let parsed = if word.starts_with('-') {
            format!("-{value}").parse::<i64>()
        } else {
            value.parse::<i64>()
        };
        match parsed {
            Ok(n) if well_formed => Ok(n),
            _ => Err(self.unsupported(format!(
                "`{word}`: only whole decimal numbers, strings, true, false and arrays are read"
            ))),
        }
    }

    /// `[ v, v, ]` across lines, with comments.
    fn array(&mut self) -> Result<Vec<Item>, Error> {
        self.at += 1;
        let mut items = Vec::new();
        loop {
            self.array_space()?;
            if self.peek() == Some(b']') {
                self.at += 1;
                return Ok(items);
            }
            items.push(self.value()?);
            self.array_space()?;
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(b']') => {
                    self.at += 1;
                    return Ok(items);
                }
                _ => return Err(self.error("expected `,` or `]` in the array".into())),
            }
        }
    }

    fn array_space(&mut self) -> Result<(), Error> {
        loop {
            self.spaces();
            self.comment()?;
            if !self.newline()? {
                return Ok(());
            }
        }
    }
}

/// The value as JSON (tables as objects, keys sorted), for comparing with another reader.
#[cfg(test)]
pub(crate) fn to_json(table: &Table) -> serde_json::Value {
    fn item(v: &Value) -> serde_json::Value {
        match v {
            Value::Str(s) => serde_json::json!(s),
            Value::Int(n) => serde_json::json!(n),
            Value::Bool(b) => serde_json::json!(b),
            Value::Array(items) => items.iter().map(|i| item(&i.value)).collect(),
            Value::Table(t) => to_json(t),
            Value::Tables(list) => list.iter().map(to_json).collect(),
        }
    }
    serde_json::Value::Object(
        table
            .entries
            .iter()
            .map(|(k, v)| (k.clone(), item(&v.value)))
            .collect(),
    )
}

#[cfg(test)]
#[path = "toml_tests.rs"]
mod tests;
