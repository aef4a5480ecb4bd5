//! Splitting a template's source into text and `{{…}}` tags, and the standalone rule:
//! a block tag alone on its line takes the line with it (see `render.rs`).

use thiserror::Error;

/// Why a template cannot be parsed or rendered.
#[derive(Debug, Clone, PartialEq, Error)]
#[error("line {line}: {message}")]
pub(crate) struct RenderError {
    /// 1-based line of the template where the problem is.
    pub(crate) line: usize,
    /// What is wrong and what to change.
    pub(crate) message: String,
}

pub(super) fn error(line: usize, message: impl Into<String>) -> RenderError {
    RenderError {
        line,
        message: message.into(),
    }
}

/// One `{{…}}` tag.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Tag {
    Var(String),
    If(String),
    Else,
    EndIf,
    Each(String),
    EndEach,
}

impl Tag {
    pub(super) fn is_block(&self) -> bool {
        !matches!(self, Tag::Var(_))
    }
}

/// The source split into text and tags: `texts[i]` comes before `tags[i]`; there is one
/// more text than tags.
pub(super) struct Tokens {
    pub(super) texts: Vec<String>,
    pub(super) tags: Vec<(Tag, usize)>,
}

pub(super) fn tokenize(source: &str) -> Result<Tokens, RenderError> {
    let mut texts = Vec::new();
    let mut tags = Vec::new();
    let mut text = String::new();
    let mut rest = source;
    let mut line = 1;
    while let Some(open) = rest.find("{{") {
        let before = &rest[..open];
        if let Some(literal) = before.strip_suffix('\\') {
            // `\{{`: the braces are text, the backslash goes.
            text.push_str(literal);
            text.push_str("{{");
            line += before.matches('\n').count();
            rest = &rest[open + 2..];
            continue;
        }
        text.push_str(before);
        line += before.matches('\n').count();
        let after = &rest[open + 2..];
        let close = after
            .find("}}")
            .filter(|&c| !after[..c].contains('\n'))
            .ok_or_else(|| {
                error(
                    line,
                    "`{{` is not closed by `}}` on the same line (write `\\{{` for a literal `{{`)",
                )
            })?;
        tags.push((parse_tag(after[..close].trim(), line)?, line));
        texts.push(std::mem::take(&mut text));
        rest = &after[close + 2..];
    }
    text.push_str(rest);
    texts.push(text);
    Ok(Tokens { texts, tags })
}

fn parse_tag(inner: &str, line: usize) -> Result<Tag, RenderError> {
    let name = |rest: &str, what: &str| -> Result<String, RenderError> {
        let rest = rest.trim();
        if is_name(rest) {
            Ok(rest.to_string())
        } else {
            Err(error(
                line,
                format!("{{{{{what}}}}} needs one variable name, not {rest:?}"),
            ))
        }
    };
    Ok(match inner {
        "else" => Tag::Else,
        "/if" => Tag::EndIf,
        "/each" => Tag::EndEach,
        _ if block(inner, "#if").is_some() => Tag::If(name(block(inner, "#if").unwrap_or(""), "#if")?),
        _ if block(inner, "#each").is_some() => {
            Tag::Each(name(block(inner, "#each").unwrap_or(""), "#each")?)
        }
        _ if is_name(inner) => Tag::Var(inner.to_string()),
        _ => {
            return Err(error(
                line,
                format!("unknown tag {{{{{inner}}}}}: use {{{{name}}}}, {{{{#if name}}}}, {{{{else}}}}, {{{{/if}}}}, {{{{#each name}}}}, {{{{/each}}}} or {{{{this}}}}"),
            ))
        }
    })
}

/// What follows `#if` or `#each` in a tag (`None` for another tag, such as `#iffy`).
fn block<'t>(inner: &'t str, keyword: &str) -> Option<&'t str> {
    inner
        .strip_prefix(keyword)
        .filter(|rest| rest.is_empty() || rest.starts_with(char::is_whitespace))
}

fn is_name(text: &str) -> bool {
    let mut chars = text.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Removes the line of every block tag that stands alone on it (see the module docs).
pub(super) fn strip_standalone(tokens: &mut Tokens) {
    let last = tokens.texts.len() - 1;
    // Cut points per text: keep `[start, end)`.
    let mut cuts: Vec<(usize, usize)> = tokens.texts.iter().map(|t| (0, t.len())).collect();
    for (i, (tag, _)) in tokens.tags.iter().enumerate() {
        if !tag.is_block() {
            continue;
        }
        let before = &tokens.texts[i];
        let after = &tokens.texts[i + 1];
        let line_start = match before.rfind('\n') {
            Some(nl) => Some(nl + 1),
            None if i == 0 => Some(0),
            None => None, // another tag earlier on this line
        };
        let line_end = match after.find('\n') {
            Some(nl) => Some(nl + 1),
            None if i + 1 == last => Some(after.len()),
            None => None,
        };
        let (Some(start), Some(end)) = (line_start, line_end) else {
            continue;
        };
        // The ranges hold at most the line's own newline.
        let blank = |s: &str| s.chars().all(|c| matches!(c, ' ' | '\t' | '\r' | '\n'));
        if blank(&before[start..]) && blank(&after[..end]) {
            cuts[i].1 = cuts[i].1.min(start);
            cuts[i + 1].0 = cuts[i + 1].0.max(end);
        }
    }
    for (text, (start, end)) in tokens.texts.iter_mut().zip(cuts) {
        *text = if start < end {
            text[start..end].to_string()
        } else {
            String::new()
        };
    }
}
