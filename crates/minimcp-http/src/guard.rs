//! What a request must carry to be served at all, checked on its I/O thread: `Host`,
//! `Origin` and the bearer token (DNS rebinding and cross-site requests), and `Accept`.

use std::net::SocketAddr;

use super::config::HttpConfig;
use super::grammar;
use super::parse::Request;
use minimcp_base::encoding::constant_time_eq;

/// True when the `Accept` header admits `media` (a missing header admits nothing).
pub(crate) fn accepts(request: &Request, media: &str) -> bool {
    let Some(accept) = request.header("accept") else {
        return false;
    };
    let (kind, _) = media.split_once('/').unwrap_or((media, ""));
    accept.split(',').any(|item| {
        let item = item.split(';').next().unwrap_or_default().trim();
        // `kind/*` is matched in place: this runs twice per POST, so no string is built.
        let wildcard = item
            .strip_suffix("/*")
            .is_some_and(|k| k == "*" || k.eq_ignore_ascii_case(kind));
        item.eq_ignore_ascii_case(media) || wildcard
    })
}

/// `Host`, `Origin` and the bearer token. DNS rebinding: a page on a foreign site can
/// reach a loopback server through the browser, but its requests carry the foreign `Host`
/// (or `Origin`); both must name this machine unless explicitly allowed. The reader has
/// already refused a second `Host`, `Origin` or `Authorization`, and a `Host` that is not
/// RFC 3986 `host [ ":" port ]`.
pub(crate) fn check_access(
    request: &Request,
    config: &HttpConfig,
    local: SocketAddr,
) -> Option<(u16, &'static str)> {
    if let Some(token) = &config.token {
        if !constant_time_eq(bearer(request).as_bytes(), token.as_bytes()) {
            return Some((401, "missing or wrong bearer token"));
        }
    }
    if local.ip().is_loopback() {
        match request.header("host") {
            Some(host) if is_loopback_host(host) => {}
            Some(_) => return Some((403, "Host header does not name this machine")),
            None => return Some((400, "Host header is required")),
        }
        // An absolute-form target names the host instead (RFC 9112 §3.2.2): it too.
        if let Some(authority) = &request.authority {
            if !is_loopback_host(authority) {
                return Some((403, "the request target does not name this machine"));
            }
        }
    }
    if let Some(origin) = request.header("origin") {
        // RFC 6454 §6.2: `scheme "://" host [ ":" port ]`, or `null` (an opaque origin,
        // never this machine's). Anything else is an invalid Origin, which the MCP
        // transport (2025-11-25) answers 403 like a foreign one.
        if origin == "null" {
            return Some((403, "Origin not allowed"));
        }
        let Some((scheme, host)) = split_origin(origin) else {
            return Some((403, "malformed Origin header"));
        };
        let allowed = config.allowed_origins.iter().any(|o| o == origin)
            || (matches!(scheme, "http" | "https") && is_loopback_host(host));
        if !allowed {
            return Some((403, "Origin not allowed"));
        }
    }
    None
}

/// The token of `Authorization: Bearer <token>`: the scheme in any case (RFC 9110
/// §11.1), then one or more spaces; empty when there is none.
fn bearer(request: &Request) -> &str {
    let value = request.header("authorization").unwrap_or_default();
    match value.get(..7) {
        Some(scheme) if scheme.eq_ignore_ascii_case("bearer ") => {
            value[7..].trim_start_matches(' ')
        }
        _ => "",
    }
}

/// An RFC 6454 serialized origin's scheme (lowercase ASCII as browsers send it) and
/// `host [ ":" port ]`: no userinfo, path, query or anything after.
fn split_origin(origin: &str) -> Option<(&str, &str)> {
    let (scheme, host) = origin.split_once("://")?;
    let mut bytes = scheme.bytes();
    let scheme_ok = bytes.next().is_some_and(|b| b.is_ascii_alphabetic())
        && bytes.all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'));
    (scheme_ok && grammar::split_host(host).is_some()).then_some((scheme, host))
}

/// `localhost`, `127.0.0.0/8` or `[::1]`, with or without a port; `host` is a valid RFC
/// 3986 `host [ ":" port ]` or not loopback.
fn is_loopback_host(host: &str) -> bool {
    let Some((name, _)) = grammar::split_host(host) else {
        return false;
    };
    // No lowercase copy: this runs on every request.
    name.eq_ignore_ascii_case("localhost")
        || name
            .strip_prefix('[')
            .and_then(|n| n.strip_suffix(']'))
            .and_then(|n| n.parse::<std::net::Ipv6Addr>().ok())
            .is_some_and(|ip| ip.is_loopback())
        || name
            .parse::<std::net::Ipv4Addr>()
            .is_ok_and(|ip| ip.is_loopback())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accept_matches_types_and_wildcards_case_insensitively() {
        let with = |accept: &str| Request::test("POST", "/mcp", &[("Accept", accept)]);
        let json = "application/json";
        for yes in [
            json,
            "Application/JSON",
            "application/*",
            "*/*",
            "text/html, APPLICATION/*;q=0.5",
        ] {
            assert!(accepts(&with(yes), json), "{yes}");
        }
        for no in [
            "text/event-stream",
            "application/xml",
            "app/*",
            "*",
            "application/json*",
            "",
        ] {
            assert!(!accepts(&with(no), json), "{no}");
        }
    }

    #[test]
    fn loopback_hosts_with_and_without_ports() {
        for host in [
            "localhost",
            "LOCALHOST:8080",
            "127.0.0.1:1",
            "127.0.0.1",
            "127.1.2.3:",
            "[::1]:9",
            "[::1]",
            "[0:0:0:0:0:0:0:1]",
        ] {
            assert!(is_loopback_host(host), "{host}");
        }
        for host in [
            "evil.example.com",
            "evil.example.com:80",
            "10.0.0.1:80",
            "localhost.evil",
            "[::2]",
            "127.0.0.01",
            "localhost:1@evil.example",
            "127.0.0.1:80@evil.example",
            "localhost/x",
            "",
        ] {
            assert!(!is_loopback_host(host), "{host}");
        }
    }

    fn access(headers: &[(&str, &str)], authority: Option<&str>, token: bool) -> Option<u16> {
        let mut request = Request::test("POST", "/mcp", headers);
        request.authority = authority.map(str::to_string);
        let mut config = HttpConfig::new(SocketAddr::from(([127, 0, 0, 1], 0)));
        config.allowed_origins = vec!["https://app.example".into()];
        if token {
            config.token = Some("s3cret".into());
        }
        check_access(&request, &config, SocketAddr::from(([127, 0, 0, 1], 0)))
            .map(|(status, _)| status)
    }

    #[test]
    fn origin_is_a_serialized_origin_and_anything_else_is_forbidden() {
        let with = |origin: &str| access(&[("Host", "localhost"), ("Origin", origin)], None, false);
        for ok in [
            "http://localhost",
            "https://127.0.0.1:5173",
            "http://[::1]:80",
            "https://app.example",
        ] {
            assert_eq!(with(ok), None, "{ok}");
        }
        for foreign in [
            "null",
            "http://evil.example",
            "ftp://localhost",
            "https://app.example:1",
        ] {
            assert_eq!(with(foreign), Some(403), "{foreign}");
        }
        for malformed in [
            "*",
            "",
            "http://localhost:1@evil.example",
            "http://user@localhost",
            "http://localhost/",
            "http://localhost/path",
            "http://localhost?x",
            "localhost",
            "http:/localhost",
            "://localhost",
            "1http://localhost",
            "http://",
            "http://local host",
        ] {
            assert_eq!(with(malformed), Some(403), "{malformed}");
        }
    }

    #[test]
    fn an_absolute_target_names_this_machine_too() {
        let host = [("Host", "localhost")];
        assert_eq!(access(&host, Some("127.0.0.1:8080"), false), None);
        assert_eq!(access(&host, Some("evil.example"), false), Some(403));
        assert_eq!(
            access(&[("Host", "evil.example")], Some("localhost"), false),
            Some(403)
        );
        assert_eq!(
            access(&[], Some("localhost"), false),
            Some(400),
            "Host still required"
        );
    }

    #[test]
    fn the_bearer_scheme_is_case_insensitive_with_one_or_more_spaces() {
        let with = |value: &str| {
            access(
                &[("Host", "localhost"), ("Authorization", value)],
                None,
                true,
            )
        };
        for ok in ["Bearer s3cret", "bearer s3cret", "BEARER   s3cret"] {
            assert_eq!(with(ok), None, "{ok}");
        }
        for wrong in [
            "Bearer s3cre",
            "Bearers3cret",
            "Bearer\ts3cret",
            "Basic s3cret",
            "s3cret",
            "Bearer s3cret x",
            "Bearer",
            "",
        ] {
            assert_eq!(with(wrong), Some(401), "{wrong}");
        }
        assert_eq!(access(&[("Host", "localhost")], None, true), Some(401));
    }
}
