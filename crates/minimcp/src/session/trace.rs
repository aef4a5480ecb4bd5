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
use std::time::Instant;

use serde_json::Value;

use super::{Payload, Reply, Session};
use crate::jsonrpc::{Request, RequestId};
use crate::protocol::{request_meta, Era, Method};
use crate::server::Server;
use minimcp_base::log::{self, clean, Field};

/// A request being served, for its line once it ends. Nothing is formatted before then.
pub(crate) struct Trace<'s> {
    /// When the request was first dispatched: one that waits for its client counts the wait.
    pub(super) started: Instant,
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

/// How the text form writes each field: what goes before it, and whether it is written
/// when absent (`-`). `req=7 session=2 id=5 method=tools/call name=read_file took=412us
/// outcome=result`; `req` over HTTP only.
const TEXT: [(&str, bool); 8] = [
    (" req=", false),
    (" session=", true),
    (" id=", true),
    (" method=", true),
    (" name=", false),
    (" took=", true),
    ("us outcome=", true),
    (" code=", false),
];

impl<'s> Session<'s> {
    /// The line of `request`, first dispatched at `started` (`None`: now), when lines are
    /// written: numbered by its exchange where the transport numbers them (the access
    /// line's `req=`), and by this session unless it is a 2026-07-28 request (which belongs
    /// to none).
    pub(super) fn trace(&self, request: &Request, started: Option<Instant>) -> Option<Trace<'s>> {
        if !log::enabled(log::Level::Info) {
            return None; // before anything is worked out: this is every request's path
        }
        let meta = request_meta(request.params.as_ref());
        let stateless = Era::of_request(Method::parse(&request.method), meta) == Era::Stateless;
        let method = match METHODS.iter().find(|m| **m == request.method) {
            Some(known) => Cow::Borrowed(*known),
            None => Cow::Owned(clean(&request.method)),
        };
        Some(Trace {
            started: started.unwrap_or_else(Instant::now),
            req: self.port.request_number(self.origin),
            session: (!stateless).then_some(self.number),
            id: request.id.clone(),
            method,
            name: name(request, self.server),
        })
    }
}

impl Trace<'_> {
    /// Writes the line of a request answered with `Ok(reply)`, or that ended with none as
    /// `Err(outcome)`.
    pub(super) fn end(self, ending: Result<&Reply, &str>) {
        let is = |result: &Value, key: &str, value: Value| result.get(key) == Some(&value);
        let (outcome, code) = match ending.map(|reply| &reply.outcome) {
            Ok(Ok(Payload::Tool(result))) if result.is_error => ("tool_error", None),
            Ok(Ok(Payload::Json(result))) if is(result, "isError", Value::Bool(true)) => {
                ("tool_error", None)
            }
            Ok(Ok(Payload::Json(result))) if is(result, "resultType", "input_required".into()) => {
                ("input_required", None)
            }
            Ok(Ok(_)) => ("result", None),
            Ok(Err(error)) => ("error", Some(error.code)),
            Err(outcome) => (outcome, None),
        };
        let took = i64::try_from(self.started.elapsed().as_micros()).unwrap_or(i64::MAX);
        let number = |n: Option<u64>| n.map_or(Field::Absent, |n| Field::Number(n as i64));
        let id = match &self.id {
            RequestId::Unsigned(n) => i64::try_from(*n).map_or(Field::Absent, Field::Number),
            RequestId::Negative(n) => Field::Number(*n),
            RequestId::Str(s) => Field::Client(s),
        };
        let name = self.name.as_deref().map_or(Field::Absent, Field::Text);
        let fields = [
            ("req", number(self.req)),
            ("session", number(self.session)),
            ("id", id),
            ("method", Field::Text(&self.method)),
            ("name", name),
            ("took_us", Field::Number(took)),
            ("outcome", Field::Text(outcome)),
            ("code", code.map_or(Field::Absent, Field::Number)),
        ];
        log::structured("request", &fields, |line| {
            for ((before, always), (_, value)) in TEXT.iter().zip(&fields) {
                if *always || *value != Field::Absent {
                    line.push_str(before);
                    log::push_field(line, value);
                }
            }
        });
    }
}

/// What a request names that the log may say: a tool or prompt the server defines, or the
/// scheme of a resource URI.
fn name<'s>(request: &Request, server: &'s Server) -> Option<Cow<'s, str>> {
    let params = request.params.as_ref()?;
    let text = |key: &str| params.get(key).and_then(Value::as_str);
    let index = match request.method.as_str() {
        "tools/call" => &server.tool_index,
        "prompts/get" => &server.prompt_index,
        "resources/read" | "resources/subscribe" | "resources/unsubscribe" => {
            let (scheme, _) = text("uri")?.split_once(':')?;
            let scheme_byte = |b: u8| b.is_ascii_alphanumeric() || b"+-.".contains(&b);
            let valid = !scheme.is_empty() && scheme.len() <= 32 && scheme.bytes().all(scheme_byte);
            return Some(match valid {
                true => Cow::Owned(format!("{scheme}:")),
                false => Cow::Borrowed("?"),
            });
        }
        _ => return None,
    };
    let known = index.get_key_value(text("name")?);
    Some(Cow::Borrowed(known.map_or("?", |(name, _)| name.as_str())))
}
