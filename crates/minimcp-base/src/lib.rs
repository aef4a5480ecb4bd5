//! # minimcp-base
//!
//! Part of [minimcp](https://crates.io/crates/minimcp): what its protocol library, its HTTP
//! transport and its toolsets share that knows nothing of MCP. Each part is checked against
//! an independent oracle in its tests.
//!
//! - [`schema`]: a small JSON Schema validator for tool arguments, with messages a model can
//!   act on (checked against Python's `jsonschema`);
//! - [`encoding`]: base64, SHA-256, HMAC-SHA256 and random keys (FIPS and RFC vectors), and
//!   the FNV-1a hash;
//! - [`uri_template`]: matching URIs against RFC 6570 templates;
//! - [`request_state`]: state sealed with HMAC-SHA256, bound to a request and expiring;
//! - [`log`]: diagnostics on stderr, never stdout;
//! - [`lines`]: newline-delimited framing of a stream read on a thread, each line bounded;
//! - [`json_size`] and [`to_json_limited`]: a value as compact JSON, measured or written up
//!   to a limit, without building more of it than fits.

#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod encoding;
pub mod lines;
pub mod log;
pub mod request_state;
pub mod schema;
pub mod uri_template;

use serde::Serialize;

/// The length of `value` as compact JSON, without building the string: what a tool that
/// pages its result measures against its result budget (`Context::result_budget` in
/// minimcp).
pub fn json_size(value: &impl Serialize) -> usize {
    let mut count = Limited {
        buf: &mut Vec::new(),
        written: 0,
        limit: 0,
    };
    match serde_json::to_writer(&mut count, value) {
        Ok(()) => count.written,
        // Serializing a Value or a derived struct cannot fail; if it did, count it as
        // unbounded so the budget check refuses it rather than letting it through.
        Err(_) => usize::MAX,
    }
}

/// A value did not fit the limit of [`to_json_limited`]: the bytes it took.
#[derive(Debug)]
pub struct TooLarge(pub usize);

/// Appends `value` to `buf` as compact JSON, unless it would exceed `limit` bytes (then
/// `buf` is left as it was). Serializing counts past the limit without keeping the bytes.
pub fn to_json_limited(
    value: &impl Serialize,
    limit: usize,
    buf: &mut Vec<u8>,
) -> Result<(), TooLarge> {
    let mark = buf.len();
    let mut writer = Limited {
        buf,
        written: 0,
        limit,
    };
    let ok = serde_json::to_writer(&mut writer, value).is_ok();
    let written = writer.written;
    if !ok || written > limit {
        buf.truncate(mark);
        return Err(TooLarge(written));
    }
    Ok(())
}

/// Counts bytes, keeps at most `limit` of them.
struct Limited<'a> {
    buf: &'a mut Vec<u8>,
    written: usize,
    limit: usize,
}

impl std::io::Write for Limited<'_> {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        self.written += data.len();
        if self.written <= self.limit {
            self.buf.extend_from_slice(data);
        }
        Ok(data.len())
    }
    /// serde_json writes every token with `write_all`; the default one loops around
    /// `write`, which here always takes everything.
    fn write_all(&mut self, data: &[u8]) -> std::io::Result<()> {
        self.write(data).map(drop)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_refuses_messages_over_the_limit_without_writing_any_part() {
        let mut out = Vec::new();
        to_json_limited(&"short", 100, &mut out).expect("fits");
        let err = to_json_limited(&"x".repeat(200), 100, &mut out).expect_err("too large");
        assert_eq!(err.0, 202);
        assert_eq!(out, b"\"short\"");
    }
}
