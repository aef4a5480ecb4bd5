//! The access log: one line per HTTP request on stderr, for operators running many
//! instances (which instance answered what, how fast).
//!
//! A line names the instance (if `--instance-id`), the HTTP method, the path (without its
//! query), the MCP method, the status and the time from the request's last byte to the
//! response's, in microseconds:
//!
//! `minimcp: access: a POST /mcp tools/call 200 412us`
//!
//! Never arguments, bodies, session ids, resource URIs, tool names or tokens: the log may be
//! shipped to places the data may not go. Client-chosen text (path, method) is cut short
//! and stripped of anything but visible ASCII, so a client cannot forge log lines.

use std::time::{Duration, Instant};

use super::config::HttpConfig;
use super::parse::Request;
use crate::log;

/// Longest path or MCP method written; longer ones end in `…`.
const MAX_FIELD: usize = 64;

/// True when access lines are written: `--access-log`, or `--log-level info` or more.
pub(crate) fn enabled(config: &HttpConfig) -> bool {
    config.access_log || log::enabled(log::Level::Info)
}

/// Writes the line for one request answered on its I/O thread, when lines are written.
/// `mcp_method` is the body's method if it was read; else the `Mcp-Method` header's; else
/// `-`.
pub(crate) fn write(
    config: &HttpConfig,
    request: Option<&Request>,
    mcp_method: &str,
    status: u16,
    took: Duration,
) {
    if enabled(config) {
        log::access(format_args!(
            "{}",
            line(config, request, mcp_method, status, took)
        ));
    }
}

fn line(
    config: &HttpConfig,
    request: Option<&Request>,
    mcp_method: &str,
    status: u16,
    took: Duration,
) -> String {
    let fields = fields(config, request, mcp_method);
    format!("{fields}{status} {}us", took.as_micros())
}

/// The line of a request handed to the dispatch thread, which completes it with the
/// status once the answer is out.
pub(crate) struct Entry {
    fields: String,
    started: Instant,
}

impl Entry {
    /// Starts the line of `request`, read whole at `started`.
    pub(crate) fn new(
        config: &HttpConfig,
        request: &Request,
        mcp_method: &str,
        started: Instant,
    ) -> Self {
        Entry {
            fields: fields(config, Some(request), mcp_method),
            started,
        }
    }

    /// Writes the line.
    pub(crate) fn write(self, status: u16) {
        let took = self.started.elapsed().as_micros();
        log::access(format_args!("{}{status} {took}us", self.fields));
    }
}

/// Everything before the status, ending in a space.
fn fields(config: &HttpConfig, request: Option<&Request>, mcp_method: &str) -> String {
    let (method, path, header) = match request {
        Some(r) => (
            r.method.as_str(),
            r.path.split('?').next().unwrap_or_default(),
            r.header("mcp-method").unwrap_or_default(),
        ),
        None => ("-", "-", ""),
    };
    let mcp = if mcp_method.is_empty() {
        header
    } else {
        mcp_method
    };
    let mut line = String::new();
    if let Some(id) = &config.instance_id {
        line.push_str(&clean(id));
        line.push(' ');
    }
    for field in [method, path, mcp] {
        line.push_str(&clean(field));
        line.push(' ');
    }
    line
}

/// Visible ASCII only (anything else becomes `?`), at most [`MAX_FIELD`] characters, and
/// `-` for nothing.
fn clean(field: &str) -> String {
    if field.is_empty() {
        return "-".into();
    }
    let mut out: String = field
        .chars()
        .take(MAX_FIELD)
        .map(|c| if c.is_ascii_graphic() { c } else { '?' })
        .collect();
    if field.chars().count() > MAX_FIELD {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::SocketAddr;

    #[test]
    fn a_line_names_instance_method_path_mcp_method_status_and_micros() {
        let mut config = HttpConfig::new(SocketAddr::from(([127, 0, 0, 1], 0)));
        let post = Request::test("POST", "/mcp?token=secret", &[]);
        let took = Duration::from_micros(1234);
        assert_eq!(
            line(&config, Some(&post), "tools/call", 200, took),
            "POST /mcp tools/call 200 1234us"
        );
        config.instance_id = Some("b".into());
        assert_eq!(
            line(&config, None, "", 400, Duration::ZERO),
            "b - - - 400 0us"
        );
        // Without a parsed body, the Mcp-Method header names the MCP method.
        let get = Request::test("GET", "/mcp", &[("Mcp-Method", "tools/list")]);
        assert_eq!(
            line(&config, Some(&get), "", 405, took),
            "b GET /mcp tools/list 405 1234us"
        );
    }

    #[test]
    fn client_text_cannot_forge_lines() {
        assert_eq!(clean("a\nminimcp: access: x"), "a?minimcp:?access:?x");
        let long = "x".repeat(100);
        assert_eq!(clean(&long), format!("{}…", "x".repeat(MAX_FIELD)));
    }
}
