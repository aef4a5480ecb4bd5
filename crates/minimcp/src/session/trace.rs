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

use std::borrow::Cow;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use serde_json::Value;

use super::{Payload, Reply};
use crate::jsonrpc::{Request, RequestId};
use crate::server::Server;
use minimcp_base::log::{self, clean, Field};

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
            Ok(Payload::Tool(result)) if result.is_error => Ending::ToolError,
            Ok(Payload::Tool(_)) => Ending::Result,
            Ok(Payload::Json(result)) if result.get("isError") == Some(&Value::Bool(true)) => {
                Ending::ToolError
            }
            Ok(Payload::Json(result))
                if result.get("resultType") == Some(&"input_required".into()) =>
            {
                Ending::InputRequired
            }
            Ok(Payload::Json(_)) => Ending::Result,
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

/// A request being served, for its line once it ends. Nothing is formatted before then.
pub(crate) struct Trace<'s> {
    started: Instant,
    req: Option<u64>,
    session: Option<u64>,
    id: RequestId,
    method: Cow<'static, str>,
    name: Option<Cow<'s, str>>,
}

/// The methods a line names without copying them.
const METHODS: &[&str] = &[
    "tools/call",
    "tools/list",
    "resources/read",
    "resources/list",
    "resources/templates/list",
    "resources/subscribe",
    "resources/unsubscribe",
    "prompts/get",
    "prompts/list",
    "completion/complete",
    "ping",
    "initialize",
    "logging/setLevel",
    "server/discover",
    "subscriptions/listen",
];

impl<'s> Trace<'s> {
    /// Starts the line of `request`, HTTP request number `req`, in session `session` (`None`
    /// for a 2026-07-28 request, which belongs to none); `None` when lines are not written.
    pub(crate) fn start(
        request: &Request,
        server: &'s Server,
        req: Option<u64>,
        session: Option<u64>,
    ) -> Option<Trace<'s>> {
        if !log::enabled(log::Level::Info) {
            return None;
        }
        let method = match METHODS.iter().find(|m| **m == request.method) {
            Some(known) => Cow::Borrowed(*known),
            None => Cow::Owned(clean(&request.method)),
        };
        Some(Trace {
            started: Instant::now(),
            req,
            session,
            id: request.id.clone(),
            method,
            name: name(request, server),
        })
    }

    /// The instant the request was first dispatched (a request that waits for its client
    /// keeps it, so its line counts the wait).
    pub(crate) fn started(&self) -> Instant {
        self.started
    }

    /// Counts from `started` instead of now.
    pub(crate) fn since(mut self, started: Instant) -> Self {
        self.started = started;
        self
    }

    /// Writes the line.
    pub(crate) fn finish(self, ending: Ending) {
        let took = i64::try_from(self.started.elapsed().as_micros()).unwrap_or(i64::MAX);
        let count = |n: Option<u64>| n.map_or(Field::Absent, |n| Field::Number(n as i64));
        let id = match &self.id {
            RequestId::Unsigned(n) => i64::try_from(*n).map_or(Field::Absent, Field::Number),
            RequestId::Negative(n) => Field::Number(*n),
            RequestId::Str(s) => Field::Client(s),
        };
        let code = match ending {
            Ending::Error(code) => Field::Number(code),
            _ => Field::Absent,
        };
        let fields = [
            ("req", count(self.req)),
            ("session", count(self.session)),
            ("id", id),
            ("method", Field::Text(&self.method)),
            (
                "name",
                self.name.as_deref().map_or(Field::Absent, Field::Text),
            ),
            ("took_us", Field::Number(took)),
            ("outcome", Field::Text(ending.name())),
            ("code", code),
        ];
        log::structured("request", &fields, |line| {
            // `req=7 session=2 id=5 method=tools/call name=read_file took=412us outcome=result`,
            // written out field by field: this runs for every request.
            let [req, session, id, method, name, took, outcome, code] = fields.map(|(_, v)| v);
            if req != Field::Absent {
                line.push_str(" req="); // over HTTP only
                log::push_field(line, &req);
            }
            for (key, value) in [(" session=", session), (" id=", id)] {
                line.push_str(key);
                log::push_field(line, &value);
            }
            line.push_str(" method=");
            log::push_field(line, &method);
            if name != Field::Absent {
                line.push_str(" name=");
                log::push_field(line, &name);
            }
            line.push_str(" took=");
            log::push_field(line, &took);
            line.push_str("us outcome=");
            log::push_field(line, &outcome);
            if code != Field::Absent {
                line.push_str(" code=");
                log::push_field(line, &code);
            }
        });
    }
}

/// What a request names that the log may say: a tool or prompt the server defines, or the
/// scheme of a resource URI.
fn name<'s>(request: &Request, server: &'s Server) -> Option<Cow<'s, str>> {
    let params = request.params.as_ref()?;
    let text = |key: &str| params.get(key).and_then(Value::as_str);
    match request.method.as_str() {
        "tools/call" => {
            let known = server.tool_index.get_key_value(text("name")?);
            Some(known.map_or(Cow::Borrowed("?"), |(name, _)| Cow::Borrowed(name.as_str())))
        }
        "prompts/get" => {
            let known = server.prompt_index.get_key_value(text("name")?);
            Some(known.map_or(Cow::Borrowed("?"), |(name, _)| Cow::Borrowed(name.as_str())))
        }
        "resources/read" | "resources/subscribe" | "resources/unsubscribe" => {
            let (scheme, _) = text("uri")?.split_once(':')?;
            let valid = !scheme.is_empty()
                && scheme.len() <= 32
                && scheme
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"+-.".contains(&b));
            Some(match valid {
                true => Cow::Owned(format!("{scheme}:")),
                false => Cow::Borrowed("?"),
            })
        }
        _ => None,
    }
}
