//! # minimcp-base
//!
//! Part of [minimcp](https://crates.io/crates/minimcp): what its protocol library, its HTTP
//! transport and its toolsets share that knows nothing of MCP. Each part is checked against
//! an independent oracle in its tests.
//!
//! - [`schema`]: a small JSON Schema validator for tool arguments, with messages a model can
//!   act on (checked against Python's `jsonschema`);
//! - [`encoding`]: base64, SHA-256, HMAC-SHA256 and random keys (FIPS and RFC vectors);
//! - [`uri_template`]: matching URIs against RFC 6570 templates;
//! - [`request_state`]: state sealed with HMAC-SHA256, bound to a request and expiring;
//! - [`log`]: diagnostics on stderr, never stdout;
//! - [`lines`]: newline-delimited framing of a stream read on a thread, each line bounded;
//! - [`json_size`]: the length of a value as compact JSON, without building it.

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
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 += bytes.len();
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    match serde_json::to_writer(&mut count, value) {
        Ok(()) => count.0,
        // Serializing a Value or a derived struct cannot fail; if it did, count it as
        // unbounded so the budget check refuses it rather than letting it through.
        Err(_) => usize::MAX,
    }
}
