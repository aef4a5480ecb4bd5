//! The line each request leaves in the log at `info`: which request (its HTTP request number
//! `req`, the one its access line carries; its session; its JSON-RPC id), what it asked (the
//! method, and the tool, prompt or kind of resource), how long it took from dispatch to
//! answer, and how it ended (a result, a tool error, `input_required`, a JSON-RPC error code,
//! or cancelled):
//!
//! `minimcp: request: req=7 session=2 id=5 method=tools/call name=read_file took=412us outcome=result`
//!
//! Never an argument: a tool or prompt is named only when the server defines that name, a
//! resource only by its URI's scheme (`file:`; the rest of a URI is a path the client chose),
//! and the method and id, which the client chose, are cut short and reduced to visible ASCII.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use serde_json::Value;

use super::answer::{Answer, Reply};
use crate::jsonrpc::{Request, RequestId};
use crate::log::{self, clean, Field};
use crate::server::Server;

/// Numbers the sessions of this process, in the order they start, for the log.
static SESSIONS: AtomicU64 = AtomicU64::new(1);

/// The next session's number.
pub(crate) fn next_session() -> u64 {
    SESSIONS.fetch_add(1, Ordering::Relaxed)
}

/// How a request ended, as its line says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ending {
    Result,
    ToolError,
    InputRequired,
    Error(i64),
    Cancelled,
    /// A `subscriptions/listen` stream opened: answered when it ends.
    Stream,
}

impl Ending {
    /// How `reply` ends its request.
    pub(crate) fn of(reply: &Reply) -> Ending {
        match &reply.outcome {
            Ok(Answer::Tool(result)) if result.is_error => Ending::ToolError,
            Ok(Answer::Tool(_)) => Ending::Result,
            Ok(Answer::Json(result)) if result.get("isError") == Some(&Value::Bool(true)) => {
                Ending::ToolError
            }
            Ok(Answer::Json(result))
                if result.get("resultType") == Some(&"input_required".into()) =>
            {
                Ending::InputRequired
            }
            Ok(Answer::Json(_)) => Ending::Result,
            Err(error) => Ending::Error(error.code),
        }
    }

    fn name(self) -> &'static str {
        match self {
            Ending::Result => "result",
            Ending::ToolError => "tool_error",
            Ending::InputRequired => "input_required",
            Ending::Error(_) => "error",
            Ending::Cancelled => "cancelled",
            Ending::Stream => "stream",
        }
    }
}

/// A request being served, for its line once it ends.
pub(crate) struct Trace {
    started: Instant,
    req: Option<u64>,
    session: Option<u64>,
    id: Id,
    method: String,
    name: Option<String>,
}

/// A JSON-RPC id as logged: a number stays one.
enum Id {
    Number(i64),
    Text(String),
}

impl Trace {
    /// Starts the line of `request`, HTTP request number `req`, in session `session` (`None`
    /// for a 2026-07-28 request, which belongs to none); `None` when lines are not written.
    pub(crate) fn start(
        request: &Request,
        server: &Server,
        req: Option<u64>,
        session: Option<u64>,
    ) -> Option<Trace> {
        if !log::enabled(log::Level::Info) {
            return None;
        }
        let id = match &request.id {
            RequestId::Unsigned(n) => {
                i64::try_from(*n).map_or_else(|_| Id::Text(n.to_string()), Id::Number)
            }
            RequestId::Negative(n) => Id::Number(*n),
            RequestId::Str(s) => Id::Text(clean(s)),
        };
        Some(Trace {
            started: Instant::now(),
            req,
            session,
            id,
            method: clean(&request.method),
            name: name(request, server),
        })
    }

    /// The instant the request was first dispatched (a request that waits for its client
    /// keeps it, so its line counts the wait).
    pub(crate) fn started(&self) -> Instant {
        self.started
    }

    /// Counts from `started` instead of now.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn since(mut self, started: Instant) -> Self {
        self.started = started;
        self
    }

    /// Writes the line.
    pub(crate) fn finish(self, ending: Ending) {
        let took = self.started.elapsed().as_micros();
        let took = i64::try_from(took).unwrap_or(i64::MAX);
        let count = |n: Option<u64>| n.map_or(Field::Absent, |n| Field::Number(n as i64));
        let fields = [
            ("req", count(self.req)),
            ("session", count(self.session)),
            (
                "id",
                match &self.id {
                    Id::Number(n) => Field::Number(*n),
                    Id::Text(s) => Field::Text(s),
                },
            ),
            ("method", Field::Text(&self.method)),
            (
                "name",
                self.name.as_deref().map_or(Field::Absent, Field::Text),
            ),
            ("took_us", Field::Number(took)),
            ("outcome", Field::Text(ending.name())),
            (
                "code",
                match ending {
                    Ending::Error(code) => Field::Number(code),
                    _ => Field::Absent,
                },
            ),
        ];
        log::structured("request", &fields, |line| {
            use std::fmt::Write;
            for (key, value) in &fields {
                let _ = match value {
                    Field::Text(text) => write!(line, "{key}={text} "),
                    Field::Number(n) if *key == "took_us" => write!(line, "took={n}us "),
                    Field::Number(n) => write!(line, "{key}={n} "),
                    Field::Absent if *key == "code" || *key == "name" => Ok(()),
                    Field::Absent => write!(line, "{key}=- "),
                };
            }
            line.pop();
        });
    }
}

/// What a request names that the log may say: a tool or prompt the server defines, or the
/// scheme of a resource URI.
fn name(request: &Request, server: &Server) -> Option<String> {
    let params = request.params.as_ref()?;
    let text = |key: &str| params.get(key).and_then(Value::as_str);
    match request.method.as_str() {
        "tools/call" => {
            let name = text("name")?;
            Some(match server.tool_index.contains_key(name) {
                true => name.to_string(),
                false => "?".into(),
            })
        }
        "prompts/get" => {
            let name = text("name")?;
            Some(match server.prompt_index.contains_key(name) {
                true => name.to_string(),
                false => "?".into(),
            })
        }
        "resources/read" | "resources/subscribe" | "resources/unsubscribe" => {
            let (scheme, _) = text("uri")?.split_once(':')?;
            let valid = !scheme.is_empty()
                && scheme.len() <= 32
                && scheme
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"+-.".contains(&b));
            Some(if valid {
                format!("{scheme}:")
            } else {
                "?".into()
            })
        }
        _ => None,
    }
}
