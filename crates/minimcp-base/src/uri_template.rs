//! Matching URIs against RFC 6570 templates, for resource templates.
//!
//! Supported: literal text, simple expansion `{var}` (one path segment: no `/`, `?` or `#`)
//! and reserved expansion `{+var}` (anything, including `/`). Matched values are
//! percent-decoded; a value that does not decode to UTF-8 does not match. Other operators
//! (`{/var}`, `{?var}`, ...) are refused when the template is registered.

use std::collections::BTreeMap;

#[derive(Debug, Clone, PartialEq)]
enum Part {
    Literal(String),
    Var { name: String, reserved: bool },
}

/// A parsed URI template.
#[derive(Debug, Clone, PartialEq)]
pub struct UriTemplate {
    parts: Vec<Part>,
}

impl UriTemplate {
    /// Parses a template; an error says what is not supported.
    pub fn parse(template: &str) -> Result<UriTemplate, String> {
        let mut parts = Vec::new();
        let mut rest = template;
        while let Some(open) = rest.find('{') {
            if open > 0 {
                parts.push(Part::Literal(rest[..open].to_string()));
            }
            let close = rest[open..]
                .find('}')
                .ok_or_else(|| format!("unclosed '{{' in URI template {template:?}"))?
                + open;
            let expr = &rest[open + 1..close];
            let (name, reserved) = match expr.strip_prefix('+') {
                Some(name) => (name, true),
                None => (expr, false),
            };
            let valid = !name.is_empty()
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.');
            if !valid {
                return Err(format!(
                    "unsupported expression {{{expr}}} in URI template {template:?}: only {{name}} and {{+name}} are supported"
                ));
            }
            if matches!(parts.last(), Some(Part::Var { .. })) {
                return Err(format!(
                    "URI template {template:?} has two variables with nothing between them"
                ));
            }
            parts.push(Part::Var {
                name: name.to_string(),
                reserved,
            });
            rest = &rest[close + 1..];
        }
        if rest.contains('}') {
            return Err(format!("unmatched '}}' in URI template {template:?}"));
        }
        if !rest.is_empty() {
            parts.push(Part::Literal(rest.to_string()));
        }
        Ok(UriTemplate { parts })
    }

    /// The variables' values when `uri` matches, else `None`.
    pub fn matches(&self, uri: &str) -> Option<BTreeMap<String, String>> {
        let mut vars = BTreeMap::new();
        match_parts(&self.parts, uri, &mut vars).then_some(vars)
    }
}

fn match_parts(parts: &[Part], uri: &str, vars: &mut BTreeMap<String, String>) -> bool {
    match parts.split_first() {
        None => uri.is_empty(),
        Some((Part::Literal(text), rest)) => uri
            .strip_prefix(text.as_str())
            .is_some_and(|tail| match_parts(rest, tail, vars)),
        Some((Part::Var { name, reserved }, rest)) => {
            // The longest value that lets the rest match (greedy, then backtrack).
            let limit = if *reserved {
                uri.len()
            } else {
                uri.find(['/', '?', '#']).unwrap_or(uri.len())
            };
            for end in (1..=limit).rev().filter(|&e| uri.is_char_boundary(e)) {
                if match_parts(rest, &uri[end..], vars) {
                    match percent_decode(&uri[..end]) {
                        Some(value) => {
                            vars.insert(name.clone(), value);
                            return true;
                        }
                        None => return false,
                    }
                }
            }
            false
        }
    }
}

/// Decodes `%XX` escapes (RFC 3986 §2.1), as a tool reading `file://` URIs or template
/// variables needs; `None` for a malformed escape or a result that is not UTF-8.
pub fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(template: &str, uri: &str) -> Option<Vec<(String, String)>> {
        UriTemplate::parse(template)
            .expect("valid template")
            .matches(uri)
            .map(|v| v.into_iter().collect())
    }

    fn pair(k: &str, v: &str) -> (String, String) {
        (k.into(), v.into())
    }

    #[test]
    fn simple_variables_match_one_segment() {
        assert_eq!(
            vars("test://template/{id}/data", "test://template/123/data"),
            Some(vec![pair("id", "123")])
        );
        assert_eq!(
            vars("test://template/{id}/data", "test://template/1/2/data"),
            None
        );
        assert_eq!(
            vars("test://template/{id}/data", "test://template//data"),
            None
        );
        assert_eq!(
            vars("test://template/{id}/data", "test://template/1/data/x"),
            None
        );
        assert_eq!(
            vars("x://{a}/{b}", "x://one/t%20wo"),
            Some(vec![pair("a", "one"), pair("b", "t wo")])
        );
    }

    #[test]
    fn reserved_variables_span_slashes() {
        assert_eq!(
            vars("file:///{+path}", "file:///src/main.rs"),
            Some(vec![pair("path", "src/main.rs")])
        );
        assert_eq!(
            vars("repo://{+path}/raw", "repo://a/b/raw"),
            Some(vec![pair("path", "a/b")])
        );
        assert_eq!(vars("file:///{+path}", "file:///bad%zz"), None);
        assert_eq!(vars("file:///{+path}", "file:///%ff"), None);
    }

    #[test]
    fn unsupported_templates_are_refused() {
        for bad in [
            "x://{/a}",
            "x://{?q}",
            "x://{a",
            "x://a}",
            "x://{}",
            "x://{a}{b}",
        ] {
            assert!(UriTemplate::parse(bad).is_err(), "{bad}");
        }
    }
}
