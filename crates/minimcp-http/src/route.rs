//! Where a POST goes, checked on its I/O thread before any session sees it: its headers
//! and body (`Accept`, `Content-Type`, JSON), its era (a 2026-07-28 request and its routing
//! headers, or a legacy session), and the session it names or starts.

use std::collections::HashMap;

use serde_json::Value;

use super::config::HttpConfig;
use super::guard::accepts;
use super::parse::Request;
use super::reply::{Kind, Route};
use minimcp::transport::{self, code, meta, request_meta, Era, Method};
use minimcp::{ErrorObject, Server, Version};
use minimcp_base::encoding;

/// Why a POST is refused: the HTTP status, the JSON-RPC error code and message, and the
/// request's id when it had one.
pub(crate) type Refusal = (u16, i64, String, Option<Value>);

/// Per tool, the string arguments its input schema marks with `x-mcp-header`, and the
/// `Mcp-Param-<suffix>` header each is mirrored in.
pub(crate) type ParamHeaders = HashMap<String, Vec<(String, String)>>;

/// Per tool, the string arguments its input schema marks with `x-mcp-header`.
pub(crate) fn param_headers(server: &Server) -> ParamHeaders {
    let mut map = HashMap::new();
    for tool in server.tools() {
        let Some(properties) = tool
            .input_schema()
            .get("properties")
            .and_then(|p| p.as_object())
        else {
            continue;
        };
        let marked: Vec<(String, String)> = properties
            .iter()
            .filter_map(|(name, schema)| {
                let suffix = schema.get("x-mcp-header")?.as_str()?;
                Some((name.clone(), suffix.to_ascii_lowercase()))
            })
            .collect();
        if !marked.is_empty() {
            map.insert(tool.name().to_string(), marked);
        }
    }
    map
}

/// Checks a POST and works out where it goes.
pub(crate) fn post(
    request: &Request,
    session: Option<String>,
    mcp_method: &mut String,
    config: &HttpConfig,
    param_headers: &ParamHeaders,
) -> Result<Kind, Refusal> {
    let refuse = |status, why: &str| Err((status, code::INVALID_REQUEST, why.to_string(), None));
    if !(accepts(request, "application/json") && accepts(request, "text/event-stream")) {
        return refuse(
            406,
            "Accept must include both application/json and text/event-stream",
        );
    }
    let content_type = request.header("content-type").unwrap_or_default();
    let json = "application/json";
    if !content_type
        .get(..json.len())
        .is_some_and(|t| t.eq_ignore_ascii_case(json))
    {
        return refuse(415, "Content-Type must be application/json");
    }
    let header_version = request.header("mcp-protocol-version");
    let unit = transport::parse(&request.body);
    let Some(value) = unit.value() else {
        let message = unit.error_message().unwrap_or_default();
        return Err((400, code::PARSE_ERROR, message, None));
    };
    let method = value.get("method").and_then(Value::as_str);
    mcp_method.push_str(method.unwrap_or_default());
    let parsed = method.and_then(Method::parse);
    let params = value.get("params").and_then(Value::as_object);
    let meta = request_meta(params);
    // The session's rule (`Era::of_request`), plus HTTP's own: the version header.
    let stateless = Era::of_request(parsed, meta) == Era::Stateless
        || header_version
            .and_then(Version::parse)
            .is_some_and(Version::is_stateless);
    let id = || value.get("id").cloned();
    if stateless {
        let body_version = meta
            .and_then(|m| m.get(meta::PROTOCOL_VERSION))
            .and_then(Value::as_str);
        if let Err(why) =
            check_stateless(request, value, header_version, body_version, param_headers)
        {
            return Err((400, code::HEADER_MISMATCH, why, id()));
        }
        let complete = meta.is_some_and(|m| {
            m.contains_key(meta::PROTOCOL_VERSION) && m.contains_key(meta::CLIENT_CAPABILITIES)
        });
        let initialize = parsed == Some(Method::Initialize);
        if method.is_some() && value.get("id").is_some() && !complete && !initialize {
            let why = "a 2026-07-28 request needs params._meta with \"io.modelcontextprotocol/protocolVersion\" and \"io.modelcontextprotocol/clientCapabilities\"";
            let error = ErrorObject::new(code::INVALID_PARAMS, why, None);
            return Err((400, error.code, error.message, id()));
        }
        if initialize {
            let why = "2026-07-28 has no initialize; call server/discover";
            let error = ErrorObject::new(code::METHOD_NOT_FOUND, why, None);
            return Err((404, error.code, error.message, id()));
        }
        return Ok(Kind::Post {
            route: Route::Stateless,
            unit,
        });
    }
    if let Some(version) = header_version {
        if Version::parse(version).is_none() {
            return Err((
                400,
                code::INVALID_REQUEST,
                "unsupported MCP-Protocol-Version header".into(),
                id(),
            ));
        }
    }
    let route = if let Some(session) = session {
        Route::Session(session)
    } else if parsed == Some(Method::Initialize) {
        let header = config.session_route_header.as_deref();
        Route::Initialize(
            session_route(request, header)
                .map_err(|why| (400, code::INVALID_REQUEST, why, id()))?,
        )
    } else if method.is_some() && value.get("id").is_some() {
        return Err((
            400,
            code::INVALID_REQUEST,
            "Mcp-Session-Id header is required: send initialize first".into(),
            id(),
        ));
    } else {
        Route::Stateless
    };
    Ok(Kind::Post { route, unit })
}

/// The balancer's routing key for a new session: 1–64 lowercase hex digits (what nginx's
/// `$request_id` is), so the session id stays visible ASCII and the balancer's `map` can
/// find it again. Absent (no balancer in front): a plain id.
fn session_route(request: &Request, header: Option<&str>) -> Result<Option<String>, String> {
    let Some(value) = header.and_then(|h| request.header(h)) else {
        return Ok(None);
    };
    let valid = (1..=64).contains(&value.len())
        && value
            .bytes()
            .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
    if !valid {
        return Err(format!(
            "the session routing header {} must be 1-64 lowercase hex digits",
            header.unwrap_or_default()
        ));
    }
    Ok(Some(value.to_string()))
}

/// The 2026-07-28 routing headers: `MCP-Protocol-Version` equals the body's version,
/// `Mcp-Method` the method, `Mcp-Name` the tool, prompt or resource, and every
/// `Mcp-Param-*` the argument it mirrors (`x-mcp-header`). Values may be sent as
/// `=?base64?…?=`.
fn check_stateless(
    request: &Request,
    value: &Value,
    header_version: Option<&str>,
    body_version: Option<&str>,
    param_headers: &ParamHeaders,
) -> Result<(), String> {
    if let Some(body) = body_version {
        if header_version.map(str::trim) != Some(body) {
            return Err(format!(
                "header mismatch: MCP-Protocol-Version must equal params._meta protocolVersion ({body})"
            ));
        }
    }
    let Some(method) = value.get("method").and_then(Value::as_str) else {
        return Ok(()); // a response
    };
    let given = header(request, "mcp-method")?;
    if given.as_deref() != Some(method) {
        return Err(format!("header mismatch: Mcp-Method must be {method:?}"));
    }
    let params = value.get("params");
    let Some(parsed) = Method::parse(method) else {
        return Ok(());
    };
    let Some(name) = parsed.named_by().map(|key| params.and_then(|p| p.get(key))) else {
        return Ok(());
    };
    if let Some(name) = name.and_then(Value::as_str) {
        if header(request, "mcp-name")?.as_deref().map(str::trim) != Some(name) {
            return Err(format!("header mismatch: Mcp-Name must be {name:?}"));
        }
    }
    if parsed != Method::ToolsCall {
        return Ok(());
    }
    let tool = name.and_then(Value::as_str).unwrap_or_default();
    let arguments = params.and_then(|p| p.get("arguments"));
    for (property, suffix) in param_headers.get(tool).into_iter().flatten() {
        let expected = match arguments.and_then(|a| a.get(property)) {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(other) => Some(other.to_string()),
        };
        let given = header(request, &format!("mcp-param-{suffix}"))?;
        if given != expected {
            return Err(format!(
                "header mismatch: Mcp-Param-{suffix} must mirror the argument {property:?}"
            ));
        }
    }
    Ok(())
}

/// A routing header's value: `=?base64?…?=` decoded (strictly), else the literal text.
fn header(request: &Request, name: &str) -> Result<Option<String>, String> {
    let Some(raw) = request.header(name) else {
        return Ok(None);
    };
    match raw
        .strip_prefix("=?base64?")
        .and_then(|rest| rest.strip_suffix("?="))
    {
        Some(encoded) => base64_decode(encoded)
            .and_then(|bytes| String::from_utf8(bytes).ok())
            .map(Some)
            .ok_or_else(|| format!("header mismatch: {name} is not valid =?base64?…?=")),
        None => Ok(Some(raw.to_string())),
    }
}

/// Decodes standard, padded base64 strictly: wrong padding or a stray character is `None`.
fn base64_decode(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(4) {
        return None;
    }
    let unpadded = text.trim_end_matches('=');
    if text.len() - unpadded.len() > 2 {
        return None;
    }
    let url: String = unpadded
        .chars()
        .map(|c| match c {
            '+' => '-',
            '/' => '_',
            '-' | '_' => '!',
            c => c,
        })
        .collect();
    let out = encoding::base64url_decode(&url)?;
    (encoding::base64(&out) == text).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn stateless_call(headers: &[(&str, &str)], region: Option<&str>) -> Result<(), String> {
        let request = Request::test("POST", "/mcp", headers);
        let mut arguments = json!({});
        if let Some(region) = region {
            arguments["region"] = json!(region);
        }
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
            "name": "weather", "arguments": arguments,
            "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}});
        let params = HashMap::from([(
            "weather".to_string(),
            vec![("region".to_string(), "region".to_string())],
        )]);
        check_stateless(
            &request,
            &body,
            Some("2026-07-28"),
            Some("2026-07-28"),
            &params,
        )
    }

    #[test]
    fn routing_headers_must_mirror_the_body() {
        let base = [("Mcp-Method", "tools/call"), ("Mcp-Name", " weather ")];
        let with = |extra: &[(&'static str, &'static str)], region| {
            let mut headers = base.to_vec();
            headers.extend_from_slice(extra);
            stateless_call(&headers, region)
        };
        assert_eq!(with(&[], None), Ok(()));
        assert_eq!(
            with(
                &[("Mcp-Param-Region", "=?base64?SGVsbG8=?=")],
                Some("Hello")
            ),
            Ok(())
        );
        assert_eq!(
            with(&[("mcp-param-region", "SGVsbG8=")], Some("SGVsbG8=")),
            Ok(())
        );
        assert_eq!(
            with(
                &[("Mcp-Param-Region", "=?base64?SGVsbG8=")],
                Some("=?base64?SGVsbG8=")
            ),
            Ok(())
        );
        assert!(with(&[("Mcp-Param-Region", "=?base64?SGVsbG8?=")], Some("Hello")).is_err());
        assert!(with(
            &[("Mcp-Param-Region", "=?base64?SGVs!!!bG8=?=")],
            Some("Hello")
        )
        .is_err());
        assert!(with(&[], Some("test-value")).is_err(), "header missing");
        assert!(
            stateless_call(&[("Mcp-Method", "tools/call")], None).is_err(),
            "no Mcp-Name"
        );
        assert!(stateless_call(
            &[("Mcp-Method", "TOOLS/CALL"), ("Mcp-Name", "weather")],
            None
        )
        .is_err());
        assert!(
            stateless_call(&[("Mcp-Name", "weather")], None).is_err(),
            "no Mcp-Method"
        );
        assert!(
            stateless_call(&[("Mcp-Method", "tools/call"), ("Mcp-Name", "other")], None).is_err()
        );
    }

    #[test]
    fn a_session_route_is_hex_from_the_configured_header_only() {
        let with = |value: &str| Request::test("POST", "/mcp", &[("X-Mcp-Route", value)]);
        let key = "0123456789abcdef0123456789abcdef";
        assert_eq!(
            session_route(&with(key), Some("x-mcp-route")),
            Ok(Some(key.into()))
        );
        assert_eq!(session_route(&with(key), None), Ok(None));
        for bad in ["", "ABC", "12.34", "xyz", &"a".repeat(65)] {
            assert!(
                session_route(&with(bad), Some("X-Mcp-Route")).is_err(),
                "{bad:?}"
            );
        }
    }
}
