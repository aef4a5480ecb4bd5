//! The access log: one line per HTTP request on stderr, for operators running many
//! instances (which instance answered what, how fast).
//!
//! A line names the instance (if `--instance-id`), the HTTP method, the path (without its
//! query), the MCP method, the status, the time from the request's last byte to the
//! response's in microseconds, and the request's number in this process (`req`), which the
//! request's own line (`minimcp: request: req=…`, `crate::session`) carries too:
//!
//! `minimcp: access: a POST /mcp tools/call 200 412us req=17`
//!
//! With `--log-format json`: `{"ts":…,"level":"info","event":"access","instance":"a",
//! "req":17,"http_method":"POST","path":"/mcp","mcp_method":"tools/call","status":200,
//! "took_us":412}`.
//!
//! Never arguments, bodies, session ids, resource URIs, tool names or tokens: the log may be
//! shipped to places the data may not go. Client-chosen text (path, method) is cut short
//! and stripped of anything but visible ASCII, so a client cannot forge log lines.

use std::time::{Duration, Instant};

use super::config::HttpConfig;
use super::parse::Request;
use minimcp_base::log::{self, clean, Field};

/// True when access lines are written: `--access-log`, or `--log-level info` or more.
pub(crate) fn enabled(config: &HttpConfig) -> bool {
    config.access_log || log::enabled(log::Level::Info)
}

/// Writes the line for one request answered on its I/O thread, when lines are written.
/// `mcp_method` is the body's method if it was read; else the `Mcp-Method` header's; else
/// `-`. `req`: the request's number (`None`: nothing could be read as a request); `started`:
/// when it was read whole.
pub(crate) fn write(
    config: &HttpConfig,
    request: Option<&Request>,
    mcp_method: &str,
    req: Option<u64>,
    status: u16,
    started: Instant,
) {
    if enabled(config) {
        Entry::new(config, request, mcp_method, req, started).write(status);
        // This thread has no turn that ends: the line goes out now.
        log::flush();
    }
}

/// The line of one request, completed with the status once the answer is out (on the
/// dispatch thread, for a request handed to it).
pub(crate) struct Entry {
    instance: Option<String>,
    method: String,
    path: String,
    mcp: String,
    req: Option<u64>,
    started: Instant,
}

impl Entry {
    /// Starts the line of `request`, number `req`, read whole at `started`.
    pub(crate) fn new(
        config: &HttpConfig,
        request: Option<&Request>,
        mcp_method: &str,
        req: Option<u64>,
        started: Instant,
    ) -> Self {
        let (method, path, header) = match request {
            Some(r) => (
                r.method.as_str(),
                r.path.split('?').next().unwrap_or_default(),
                r.header("mcp-method").unwrap_or_default(),
            ),
            None => ("", "", ""),
        };
        let mcp = if mcp_method.is_empty() {
            header
        } else {
            mcp_method
        };
        Entry {
            instance: config.instance_id.as_deref().map(clean),
            method: clean(method),
            path: clean(path),
            mcp: clean(mcp),
            req,
            started,
        }
    }

    /// Writes the line.
    pub(crate) fn write(self, status: u16) {
        let took = self.started.elapsed();
        let fields = self.fields(status, took);
        log::structured("access", &fields, |line| self.text(status, took, line));
    }

    fn fields(&self, status: u16, took: Duration) -> [(&'static str, Field<'_>); 7] {
        [
            (
                "instance",
                self.instance.as_deref().map_or(Field::Absent, Field::Text),
            ),
            ("req", self.req.map_or(Field::Absent, number)),
            ("http_method", Field::Text(&self.method)),
            ("path", Field::Text(&self.path)),
            ("mcp_method", Field::Text(&self.mcp)),
            ("status", Field::Number(status.into())),
            ("took_us", number(took.as_micros() as u64)),
        ]
    }

    /// `[INSTANCE] METHOD PATH MCP-METHOD STATUS MICROSus req=N`.
    fn text(&self, status: u16, took: Duration, line: &mut String) {
        line.push(' ');
        if let Some(instance) = &self.instance {
            line.push_str(instance);
            line.push(' ');
        }
        for part in [&self.method, &self.path, &self.mcp] {
            line.push_str(part);
            line.push(' ');
        }
        log::push_number(line, status.into());
        line.push(' ');
        log::push_number(line, i64::try_from(took.as_micros()).unwrap_or(i64::MAX));
        line.push_str("us req=");
        log::push_field(line, &self.req.map_or(Field::Absent, number));
    }
}

/// A count as a JSON number (a count past `i64::MAX` would take centuries to reach).
fn number(n: u64) -> Field<'static> {
    Field::Number(i64::try_from(n).unwrap_or(i64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::SocketAddr;

    fn line(config: &HttpConfig, request: Option<&Request>, mcp: &str, req: Option<u64>) -> String {
        let entry = Entry::new(config, request, mcp, req, Instant::now());
        let mut line = String::new();
        entry.text(200, Duration::from_micros(1234), &mut line);
        line
    }

    #[test]
    fn a_line_names_instance_method_path_mcp_method_status_micros_and_number() {
        let mut config = HttpConfig::new(SocketAddr::from(([127, 0, 0, 1], 0)));
        let post = Request::test("POST", "/mcp?token=secret", &[]);
        assert_eq!(
            line(&config, Some(&post), "tools/call", Some(17)),
            " POST /mcp tools/call 200 1234us req=17"
        );
        config.instance_id = Some("b".into());
        assert_eq!(line(&config, None, "", None), " b - - - 200 1234us req=-");
        // Without a parsed body, the Mcp-Method header names the MCP method.
        let get = Request::test("GET", "/mcp", &[("Mcp-Method", "tools/list")]);
        assert_eq!(
            line(&config, Some(&get), "", Some(3)),
            " b GET /mcp tools/list 200 1234us req=3"
        );
        let entry = Entry::new(&config, Some(&get), "", Some(3), Instant::now());
        let fields = entry.fields(405, Duration::from_micros(9));
        assert_eq!(fields[0], ("instance", Field::Text("b")));
        assert_eq!(fields[1], ("req", Field::Number(3)));
        assert_eq!(fields[5], ("status", Field::Number(405)));
        assert_eq!(fields[6], ("took_us", Field::Number(9)));
    }
}
