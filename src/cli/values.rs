//! Each flag's value, read and checked: numbers, durations, addresses, names.

#[cfg(feature = "http")]
use std::net::SocketAddr;
#[cfg(not(feature = "workspace"))]
use std::path::PathBuf;
use std::time::Duration;

use minimcp::{Limits, Version};
use minimcp_base::log::Level;
#[cfg(feature = "http")]
use minimcp_http::Listen;
#[cfg(feature = "workspace")]
pub(super) use minimcp_toolsets::workspace::{expand_home, DEFAULT_DENY, DEFAULT_DENY_WRITE};

use super::features::{missing_feature, OPTIONAL_TOOLSETS};

/// Without the workspace toolset there is no deny list to start from.
#[cfg(not(feature = "workspace"))]
pub(super) const DEFAULT_DENY: &[&str] = &[];
/// Nor a write deny list.
#[cfg(not(feature = "workspace"))]
pub(super) const DEFAULT_DENY_WRITE: &[&str] = &[];

/// `~` and `~/…` with `$HOME` put in, as the workspace toolset's `expand_home` does (for
/// `--http unix:~/…` in a build without that toolset).
#[cfg(not(feature = "workspace"))]
pub(super) fn expand_home(path: &str) -> PathBuf {
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .filter(|h| h.is_absolute());
    match (path.strip_prefix('~'), home) {
        (Some(""), Some(home)) => home,
        (Some(rest), Some(home)) if rest.starts_with('/') => home.join(&rest[1..]),
        _ => PathBuf::from(path),
    }
}

/// What reading a flag's value gives: the value, or "FLAG needs a value".
pub(super) type Value = Result<String, String>;

/// The limits of the limits table (docs/limits.md).
pub(super) fn limit_flag(
    limits: &mut Limits,
    flag: &str,
    value: &mut impl FnMut(&str) -> Value,
) -> Result<bool, String> {
    match flag {
        "--max-message-bytes" => limits.max_message_bytes = number(&value(flag)?, flag, 1024)?,
        "--max-response-bytes" => limits.max_response_bytes = number(&value(flag)?, flag, 1024)?,
        "--max-result-bytes" => limits.max_result_bytes = number(&value(flag)?, flag, 1024)?,
        "--rate-limit" => limits.rate_limit = Some(rate(&value(flag)?)?),
        "--page-size" => limits.page_size = number(&value(flag)?, flag, 1)?,
        "--request-timeout" => limits.request_timeout = seconds(&value(flag)?, flag)?,
        _ => return Ok(false),
    }
    Ok(true)
}

/// `--deny PATTERN`, `--deny-write PATTERN`: `none` clears the list (defaults included),
/// later patterns add again.
pub(super) fn deny(list: &mut Vec<String>, flag: &str, pattern: &str) -> Result<(), String> {
    match pattern {
        "none" => list.clear(),
        "" => return Err(format!("{flag} needs a pattern such as '*.pem', or none")),
        pattern => list.push(pattern.to_string()),
    }
    Ok(())
}

pub(super) fn log_format(format: &str) -> Result<minimcp_base::log::Format, String> {
    minimcp_base::log::Format::parse(format)
        .ok_or_else(|| format!("unknown log format {format:?}; use text or json"))
}

pub(super) fn log_level(level: &str) -> Result<Level, String> {
    Level::parse(level)
        .ok_or_else(|| format!("unknown log level {level:?}; use off, error, warn, info or debug"))
}

/// `--rate-limit N/s` (the `/s` is optional) → requests per second, finite and positive.
pub(super) fn rate(text: &str) -> Result<f64, String> {
    let per_second = text.strip_suffix("/s").unwrap_or(text);
    per_second
        .parse()
        .ok()
        .filter(|r: &f64| r.is_finite() && *r > 0.0)
        .ok_or_else(|| {
            format!("--rate-limit wants requests per second such as 100/s, not {text:?}")
        })
}

/// `--http`: ADDR:PORT, or a bare PORT or localhost:PORT, which mean loopback; or
/// `unix:PATH` (`~` expanded).
#[cfg(feature = "http")]
pub(super) fn http_addr(text: &str) -> Result<Listen, String> {
    if let Some(path) = text.strip_prefix("unix:") {
        if path.is_empty() {
            return Err(
                "--http unix: needs a path, such as unix:/run/user/1000/minimcp.sock".into(),
            );
        }
        return Ok(Listen::Unix(expand_home(path)));
    }
    text.parse::<SocketAddr>()
        .ok()
        .or_else(|| {
            let port = text.strip_prefix("localhost:").unwrap_or(text);
            port.parse::<u16>()
                .ok()
                .map(|p| SocketAddr::from(([127, 0, 0, 1], p)))
        })
        .map(Listen::Tcp)
        .ok_or_else(|| {
            format!("--http wants ADDR:PORT such as 127.0.0.1:8080, or unix:PATH, not {text:?}")
        })
}

#[cfg(feature = "http")]
pub(super) fn http_path(path: String) -> Result<String, String> {
    if !path.starts_with('/') {
        return Err("--http-path must start with '/'".into());
    }
    Ok(path)
}

/// `--session-route-header`: a header name (letters, digits, `-`), never empty.
#[cfg(feature = "http")]
pub(super) fn header_name(name: String) -> Result<String, String> {
    if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-') {
        return Err(format!(
            "--session-route-header wants a header name such as X-Mcp-Route, not {name:?}"
        ));
    }
    Ok(name)
}

pub(super) fn protocol(text: &str) -> Result<Version, String> {
    Version::parse(text).ok_or_else(|| {
        let known: Vec<&str> = Version::ALL.iter().map(|v| v.as_str()).collect();
        format!(
            "unknown protocol version {text:?}; use one of {}",
            known.join(", ")
        )
    })
}

/// A whole number of seconds, at least one.
pub(super) fn seconds(text: &str, flag: &str) -> Result<Duration, String> {
    Ok(Duration::from_secs(number(text, flag, 1)? as u64))
}

pub(super) fn all_toolsets() -> Vec<&'static str> {
    super::registry::TOOLSETS.iter().map(|t| t.name).collect()
}

/// `workspace,templates` → the names, each checked against the known toolsets.
pub(super) fn toolsets(list: &str) -> Result<Vec<&'static str>, String> {
    let known = all_toolsets();
    let mut chosen = Vec::new();
    for name in list.split(',').map(str::trim) {
        let Some(found) = known.iter().find(|k| **k == name) else {
            if OPTIONAL_TOOLSETS.contains(&name) {
                return Err(missing_feature(name));
            }
            return Err(format!(
                "unknown toolset {name:?} in --toolsets; use a comma-separated list of {}",
                known.join(", ")
            ));
        };
        if !chosen.contains(found) {
            chosen.push(*found);
        }
    }
    Ok(chosen)
}

pub(super) fn number(text: &str, flag: &str, minimum: usize) -> Result<usize, String> {
    text.parse::<usize>()
        .ok()
        .filter(|n| *n >= minimum)
        .ok_or_else(|| format!("{flag} wants a whole number of at least {minimum}, not {text:?}"))
}
