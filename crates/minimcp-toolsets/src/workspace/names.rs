//! How paths are spelled on the two families of systems, as functions of strings alone, so
//! the Windows rules are exercised by the tests on every system (the workspace uses the
//! native family, [`Flavor::NATIVE`]):
//!
//! - which single names Windows refuses or reads as something else ([`windows_name`]):
//!   device names (`CON`, `aux.txt`), trailing dots and spaces (`a.txt.` opens `a.txt`),
//!   alternate data streams (`a.txt:x`), 8.3 short names (`PROGRA~1` opens `Program Files`)
//!   and the characters no Windows name may hold;
//! - absolute paths ([`parse_absolute`]): `/…` on Unix; on Windows drive letters (`C:\`,
//!   `C:/`), UNC shares (`\\server\share`), the `\\?\` prefix (read as the path it
//!   prefixes) and paths rooted on the current drive (`\work`);
//! - RFC 8089 `file:` URIs ([`uri_to_path`], [`path_to_uri`]), with Appendix E's Windows
//!   forms (`file:///C:/…`, `file:///c%3A/…` as VS Code sends it, `file:C:/…`, `C|`, and
//!   `file://server/share/…` for UNC);
//! - the folding names are compared with where the file system ignores case and Unicode
//!   normalization ([`fold`]).

use std::borrow::Cow;

use super::nfd::nfd;

/// A family of systems, by how it spells paths.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flavor {
    /// `/` separates names; any other byte but NUL may be in a name.
    Unix,
    /// `\` and `/` separate names; drive letters, UNC shares and reserved names.
    Windows,
}

impl Flavor {
    /// The family of the system this is built for.
    pub(crate) const NATIVE: Flavor = if cfg!(windows) {
        Flavor::Windows
    } else {
        Flavor::Unix
    };

    /// True for the characters that separate names.
    pub(crate) fn is_separator(self, c: char) -> bool {
        c == '/' || (self == Flavor::Windows && c == '\\')
    }

    /// True when `input` is an absolute path (or, on Windows, one rooted on a drive):
    /// something [`parse_absolute`] reads, never a path relative to a root.
    pub(crate) fn is_absolute(self, input: &str) -> bool {
        match self {
            Flavor::Unix => input.starts_with('/'),
            Flavor::Windows => input.starts_with(['/', '\\']) || has_drive(input),
        }
    }
}

/// What is wrong with a name on Windows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WindowsName {
    /// `CON`, `PRN`, `AUX`, `NUL`, `COM0`-`COM9`, `LPT0`-`LPT9` (with any extension): a device.
    Device,
    /// Windows drops trailing dots and spaces, so `a.txt.` would open `a.txt`.
    TrailingDotOrSpace,
    /// `name:stream` names an alternate data stream of `name`.
    Stream,
    /// The form of an 8.3 short name (`PROGRA~1`), which may name a file with another name.
    ShortName,
    /// A character no Windows name may hold: `< > " | ? *` or a control character.
    Character(char),
}

/// What Windows would do with the single name `name` other than open the file it spells;
/// `None` when it is an ordinary name.
pub(crate) fn windows_name(name: &str) -> Option<WindowsName> {
    if let Some(c) = name
        .chars()
        .find(|&c| c < ' ' || matches!(c, '<' | '>' | '"' | '|' | '?' | '*'))
    {
        return Some(WindowsName::Character(c));
    }
    if name.contains(':') {
        return Some(WindowsName::Stream);
    }
    if name.ends_with(['.', ' ']) {
        return Some(WindowsName::TrailingDotOrSpace);
    }
    if is_device(name) {
        return Some(WindowsName::Device);
    }
    if is_short_name(name) {
        return Some(WindowsName::ShortName);
    }
    None
}

/// `CON`, `aux.txt`, `Com1.tar.gz`, `LPT¹`, `CONIN$`: names Windows opens as a device in
/// every directory. What counts is the part before the first dot, trailing spaces dropped.
fn is_device(name: &str) -> bool {
    let stem = name.split('.').next().unwrap_or(name).trim_end_matches(' ');
    let upper = stem.to_ascii_uppercase();
    match upper.as_str() {
        "CON" | "PRN" | "AUX" | "NUL" => true,
        _ if name.eq_ignore_ascii_case("CONIN$") || name.eq_ignore_ascii_case("CONOUT$") => true,
        _ => {
            let port = upper
                .strip_prefix("COM")
                .or_else(|| upper.strip_prefix("LPT"));
            matches!(port, Some(n) if matches!(n, "0" | "1" | "2" | "3" | "4" | "5" | "6" | "7" | "8" | "9" | "¹" | "²" | "³"))
        }
    }
}

/// True for names shaped like an 8.3 short name: at most eight characters, a `~` after the
/// first and more characters after it (`PROGRA~1`, `ENV~1.LOC`, Wine's `ABCDE~XY`), then at
/// most three after a dot. Such a name can open a file whose long name is something else
/// (`.env.local`), which every check by name would then miss.
fn is_short_name(name: &str) -> bool {
    let (stem, extension) = name.rsplit_once('.').unwrap_or((name, ""));
    let Some(tilde) = stem.find('~') else {
        return false;
    };
    let tail = &stem[tilde + 1..];
    stem.chars().count() <= 8
        && extension.chars().count() <= 3
        && tilde > 0
        && !tail.is_empty()
        && tail.chars().all(|c| c.is_ascii_alphanumeric())
}

/// True when `input` starts with a drive letter and a colon (`C:`).
fn has_drive(input: &str) -> bool {
    let b = input.as_bytes();
    b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':'
}

/// An absolute path: where it starts, and its names in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Absolute {
    /// `""` on Unix and for a Windows path rooted on the current drive (`\work`); `C:` (the
    /// letter upper-cased) for a drive; `\\server\share` for a UNC share.
    pub(crate) prefix: String,
    /// The names below the prefix, `.` dropped.
    pub(crate) names: Vec<String>,
}

/// Why an absolute path cannot be used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AbsoluteError {
    /// It has a `..` component (never resolved lexically).
    Parent,
    /// A Windows device path (`\\.\`), a volume GUID (`\\?\Volume{…}`), a drive-relative
    /// path (`C:x`) or an incomplete UNC path (`\\server`).
    Unsupported,
}

/// Splits the absolute path `input` (`None` when it is not one, see [`Flavor::is_absolute`]).
pub(crate) fn parse_absolute(
    input: &str,
    flavor: Flavor,
) -> Option<Result<Absolute, AbsoluteError>> {
    if !flavor.is_absolute(input) {
        return None;
    }
    let (prefix, rest) = match flavor {
        Flavor::Unix => (String::new(), input),
        Flavor::Windows => match windows_prefix(input) {
            Ok(split) => split,
            Err(e) => return Some(Err(e)),
        },
    };
    let mut names = Vec::new();
    for name in rest.split(|c| flavor.is_separator(c)) {
        match name {
            "" | "." => {}
            ".." => return Some(Err(AbsoluteError::Parent)),
            name => names.push(name.to_string()),
        }
    }
    Some(Ok(Absolute { prefix, names }))
}

/// The prefix of a Windows absolute path and what follows it.
fn windows_prefix(input: &str) -> Result<(String, &str), AbsoluteError> {
    let sep = |c: char| c == '/' || c == '\\';
    let unc_or_verbatim = input.len() >= 2 && input[..2].chars().all(sep);
    if !unc_or_verbatim {
        if has_drive(input) {
            let rest = &input[2..];
            if !rest.is_empty() && !rest.starts_with(sep) {
                return Err(AbsoluteError::Unsupported);
            }
            return Ok((input[..2].to_ascii_uppercase(), rest));
        }
        return Ok((String::new(), input));
    }
    let after = &input[2..];
    // `\\?\C:\x` and `\\?\UNC\server\share\x` name `C:\x` and `\\server\share\x`; `\\.\` is
    // the device namespace, never a file of a workspace.
    if let Some(verbatim) = after
        .strip_prefix("?\\")
        .or_else(|| after.strip_prefix("?/"))
    {
        if has_drive(verbatim) {
            return windows_prefix(verbatim);
        }
        let unc = verbatim
            .get(..4)
            .filter(|p| p[..3].eq_ignore_ascii_case("UNC") && p.ends_with(sep));
        return match unc {
            Some(_) => share(&verbatim[4..]),
            None => Err(AbsoluteError::Unsupported),
        };
    }
    if after.starts_with(['.', '?']) {
        return Err(AbsoluteError::Unsupported);
    }
    share(after)
}

/// `server\share\rest` as the prefix `\\server\share` and the rest.
fn share(text: &str) -> Result<(String, &str), AbsoluteError> {
    let sep = |c: char| c == '/' || c == '\\';
    let mut parts = text.splitn(3, sep);
    let (Some(server), Some(share)) = (parts.next(), parts.next()) else {
        return Err(AbsoluteError::Unsupported);
    };
    if server.is_empty() || share.is_empty() || server == "." || server == "?" {
        return Err(AbsoluteError::Unsupported);
    }
    let rest = &text[server.len() + 1 + share.len()..];
    Ok((format!("\\\\{server}\\{share}"), rest))
}

impl Absolute {
    /// The names of `self` below `base`, when `base` is `self` or one of its ancestors;
    /// with `fold`, names are compared as a case-insensitive volume compares them. A prefix
    /// of `""` (rooted on the current drive) matches a drive prefix.
    pub(crate) fn below<'a>(&'a self, base: &Absolute, fold: bool) -> Option<&'a [String]> {
        let same = |a: &str, b: &str| a == b || (fold && self::fold(a) == self::fold(b));
        // Drive letters and server names never depend on case.
        let prefix_matches = self::fold(&self.prefix) == self::fold(&base.prefix)
            || (self.prefix.is_empty() && base.prefix.len() == 2 && base.prefix.ends_with(':'));
        if !prefix_matches || self.names.len() < base.names.len() {
            return None;
        }
        let matched = self.names.iter().zip(&base.names).all(|(a, b)| same(a, b));
        matched.then(|| &self.names[base.names.len()..])
    }
}

/// `name` as a case- and normalization-insensitive volume compares it: lower-cased, in
/// Unicode's decomposed form (NFD: `É` and `E` + U+0301 fold alike). Borrowed when ASCII
/// without an upper-case letter.
pub(crate) fn fold(name: &str) -> Cow<'_, str> {
    if !name.is_ascii() {
        return Cow::Owned(nfd(&name.to_lowercase()).into_owned());
    }
    if name.bytes().any(|b| b.is_ascii_uppercase()) {
        Cow::Owned(name.to_ascii_lowercase())
    } else {
        Cow::Borrowed(name)
    }
}

/// The absolute path an RFC 8089 `file:` URI names, with `/` separating its names: `None`
/// when `uri` is not a `file:` URI, `Err` (a message for the client) when it is one this
/// flavor cannot use.
pub(crate) fn uri_to_path(uri: &str, flavor: Flavor) -> Option<Result<String, &'static str>> {
    let scheme = uri.get(..5)?;
    if !scheme.eq_ignore_ascii_case("file:") {
        return None;
    }
    let rest = &uri[5..];
    Some(uri_rest_to_path(rest, flavor))
}

fn uri_rest_to_path(rest: &str, flavor: Flavor) -> Result<String, &'static str> {
    const LOCAL: &str = "file URIs name a local absolute path, such as file:///home/me/project/src/main.rs (file:///C:/Users/me/project/src/main.rs on Windows)";
    if rest.contains(['?', '#']) {
        return Err("file URIs take no query or fragment");
    }
    let (host, path) = match rest.strip_prefix("//") {
        Some(after) => after.split_at(after.find('/').unwrap_or(after.len())),
        None => ("", rest),
    };
    let decoded = minimcp_base::uri_template::percent_decode(path)
        .ok_or("the URI has a malformed percent-escape or does not decode to UTF-8")?;
    if decoded.contains('\0') {
        return Err("the URI contains a NUL byte");
    }
    let local = host.is_empty() || host.eq_ignore_ascii_case("localhost");
    match flavor {
        Flavor::Unix if !local => Err(LOCAL),
        Flavor::Unix if decoded.starts_with('/') => Ok(decoded),
        Flavor::Unix => Err(LOCAL),
        Flavor::Windows if !local => {
            let host = minimcp_base::uri_template::percent_decode(host).ok_or(LOCAL)?;
            Ok(format!("//{host}{decoded}"))
        }
        Flavor::Windows => {
            // `/C:/x`, `/C|/x` (legacy) and `C:/x` name the drive; `//server/share` is a
            // UNC path written with an empty authority.
            let path = decoded
                .strip_prefix('/')
                .filter(|p| is_drive_spec(p))
                .unwrap_or(&decoded);
            if is_drive_spec(path) {
                Ok(format!("{}:{}", &path[..1], &path[2..]))
            } else if path.starts_with('/') {
                Ok(path.to_string())
            } else {
                Err(LOCAL)
            }
        }
    }
}

/// `C:` or `C|` followed by a separator or nothing.
fn is_drive_spec(path: &str) -> bool {
    let b = path.as_bytes();
    b.len() >= 2
        && b[0].is_ascii_alphabetic()
        && matches!(b[1], b':' | b'|')
        && (b.len() == 2 || b[2] == b'/' || b[2] == b'\\')
}

/// The RFC 8089 URI of an absolute path: `file:///home/me/my%20proj/x` on Unix,
/// `file:///C:/Users/me/x` or `file://server/share/x` on Windows (`\\?\` dropped). Every byte
/// but the unreserved ones, `/` and a drive's colon is percent-encoded.
pub(crate) fn path_to_uri(path: &str, flavor: Flavor) -> String {
    let mut uri = String::from("file://");
    let mut text = path.to_string();
    if flavor == Flavor::Windows {
        text = text.replace('\\', "/");
        if let Some(verbatim) = text.strip_prefix("//?/") {
            text = match verbatim.get(..4) {
                Some(unc) if unc.eq_ignore_ascii_case("UNC/") => format!("//{}", &verbatim[4..]),
                _ => verbatim.to_string(),
            };
        }
        if let Some(unc) = text.strip_prefix("//") {
            // The server is the authority: file://server/share/x.
            let (server, rest) = unc.split_at(unc.find('/').unwrap_or(unc.len()));
            encode_into(&mut uri, server);
            text = rest.to_string();
        } else if has_drive(&text) {
            uri.push('/');
            uri.push_str(&text[..2]);
            text = text[2..].to_string();
        }
    }
    encode_into(&mut uri, &text);
    uri
}

fn encode_into(uri: &mut String, text: &str) {
    for &b in text.as_bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/') {
            uri.push(b as char);
        } else {
            uri.push_str(&format!("%{b:02X}"));
        }
    }
}

#[cfg(test)]
#[path = "names_tests.rs"]
mod tests;
