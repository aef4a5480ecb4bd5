//! The template language, parsed and rendered here (no template crate: three dependencies).
//!
//! - `{{name}}` inserts a value: a string as is, a number in its JSON form, a boolean as
//!   `true`/`false`. A list must go through `{{#each}}`.
//! - `{{#if name}}…{{else}}…{{/if}}`: the first part when the value is true, a non-empty
//!   string or list, or a non-zero number; the `{{else}}` part is optional.
//! - `{{#each name}}…{{/each}}` repeats its body once per item of a list; `{{this}}` is the
//!   item. Outer values stay visible inside.
//! - `\{{` is a literal `{{` (GitHub Actions' `${{ … }}`, for instance).
//! - A block tag (`#if`, `else`, `/if`, `#each`, `/each`) alone on its line takes the whole
//!   line with it, indentation and newline included, so sections toggle without leaving
//!   blank lines behind (Mustache's "standalone" rule).
//!
//! Errors name the line: an unknown variable, an unclosed or unmatched block, an unclosed
//! `{{`, a tag that is not one of the above.

use std::collections::BTreeMap;

use serde_json::Value;
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

fn error(line: usize, message: impl Into<String>) -> RenderError {
    RenderError {
        line,
        message: message.into(),
    }
}

/// A parsed template.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Template {
    nodes: Vec<Node>,
}

#[derive(Debug, Clone, PartialEq)]
enum Node {
    Text(String),
    Var {
        name: String,
        line: usize,
    },
    If {
        name: String,
        line: usize,
        then: Vec<Node>,
        otherwise: Vec<Node>,
    },
    Each {
        name: String,
        line: usize,
        body: Vec<Node>,
    },
}

/// One `{{…}}` tag.
#[derive(Debug, Clone, PartialEq)]
enum Tag {
    Var(String),
    If(String),
    Else,
    EndIf,
    Each(String),
    EndEach,
}

impl Tag {
    fn is_block(&self) -> bool {
        !matches!(self, Tag::Var(_))
    }
}

/// The source split into text and tags: `texts[i]` comes before `tags[i]`; there is one
/// more text than tags.
struct Tokens {
    texts: Vec<String>,
    tags: Vec<(Tag, usize)>,
}

impl Template {
    /// Parses `source`; the error names the line of the first problem.
    pub(crate) fn parse(source: &str) -> Result<Template, RenderError> {
        let mut tokens = tokenize(source)?;
        strip_standalone(&mut tokens);
        let mut texts = tokens.texts.into_iter();
        let mut tags = tokens.tags.into_iter();
        // A stack of open blocks: (the tag that opened it, its line, nodes so far, and for
        // an `if` the nodes of its first part once `else` is seen).
        struct Open {
            tag: Tag,
            line: usize,
            nodes: Vec<Node>,
            then: Option<Vec<Node>>,
        }
        let mut stack: Vec<Open> = Vec::new();
        let mut nodes: Vec<Node> = Vec::new();
        loop {
            let current = stack.last_mut().map_or(&mut nodes, |o| &mut o.nodes);
            if let Some(text) = texts.next().filter(|t| !t.is_empty()) {
                current.push(Node::Text(text));
            }
            let Some((tag, line)) = tags.next() else {
                break;
            };
            match tag {
                Tag::Var(name) => current.push(Node::Var { name, line }),
                Tag::If(_) | Tag::Each(_) => stack.push(Open {
                    tag,
                    line,
                    nodes: Vec::new(),
                    then: None,
                }),
                Tag::Else => match stack.last_mut() {
                    Some(
                        open @ Open {
                            tag: Tag::If(_), ..
                        },
                    ) if open.then.is_none() => {
                        open.then = Some(std::mem::take(&mut open.nodes));
                    }
                    Some(Open {
                        tag: Tag::If(_), ..
                    }) => return Err(error(line, "a second {{else}} in one {{#if}} block")),
                    _ => return Err(error(line, "{{else}} outside an {{#if}} block")),
                },
                Tag::EndIf | Tag::EndEach => {
                    let closing = if tag == Tag::EndIf { "if" } else { "each" };
                    let Some(open) = stack.pop() else {
                        return Err(error(
                            line,
                            format!("{{{{/{closing}}}}} without an open {{{{#{closing}}}}}"),
                        ));
                    };
                    let node = match (open.tag, &tag) {
                        (Tag::If(name), Tag::EndIf) => {
                            let (then, otherwise) = match open.then {
                                Some(then) => (then, open.nodes),
                                None => (open.nodes, Vec::new()),
                            };
                            Node::If {
                                name,
                                line: open.line,
                                then,
                                otherwise,
                            }
                        }
                        (Tag::Each(name), Tag::EndEach) => Node::Each {
                            name,
                            line: open.line,
                            body: open.nodes,
                        },
                        (opened, _) => {
                            let opened = if matches!(opened, Tag::If(_)) {
                                "if"
                            } else {
                                "each"
                            };
                            return Err(error(
                                line,
                                format!("{{{{/{closing}}}}} closes the {{{{#{opened}}}}} opened on line {}; close it with {{{{/{opened}}}}} first", open.line),
                            ));
                        }
                    };
                    stack
                        .last_mut()
                        .map_or(&mut nodes, |o| &mut o.nodes)
                        .push(node);
                }
            }
        }
        if let Some(open) = stack.pop() {
            let (kind, name) = match open.tag {
                Tag::If(name) => ("if", name),
                Tag::Each(name) => ("each", name),
                _ => ("?", String::new()),
            };
            return Err(error(
                open.line,
                format!("{{{{#{kind} {name}}}}} is never closed; add {{{{/{kind}}}}}"),
            ));
        }
        Ok(Template { nodes })
    }

    /// Every variable the template reads (not `this`), with the line of its first use
    /// (the manifest's tests check them against the declarations).
    #[cfg(test)]
    pub(crate) fn variables(&self) -> BTreeMap<String, usize> {
        fn walk(nodes: &[Node], out: &mut BTreeMap<String, usize>) {
            for node in nodes {
                match node {
                    Node::Text(_) => {}
                    Node::Var { name, line } => {
                        if name != "this" {
                            out.entry(name.clone()).or_insert(*line);
                        }
                    }
                    Node::If {
                        name,
                        line,
                        then,
                        otherwise,
                    } => {
                        out.entry(name.clone()).or_insert(*line);
                        walk(then, out);
                        walk(otherwise, out);
                    }
                    Node::Each { name, line, body } => {
                        out.entry(name.clone()).or_insert(*line);
                        walk(body, out);
                    }
                }
            }
        }
        let mut out = BTreeMap::new();
        walk(&self.nodes, &mut out);
        out
    }

    /// Renders with `values`; an unknown variable or a value of the wrong kind is an error.
    pub(crate) fn render(&self, values: &BTreeMap<String, Value>) -> Result<String, RenderError> {
        let mut out = String::new();
        render_nodes(&self.nodes, values, None, &mut out)?;
        Ok(out)
    }
}

fn lookup<'v>(
    name: &str,
    line: usize,
    values: &'v BTreeMap<String, Value>,
    this: Option<&'v Value>,
) -> Result<&'v Value, RenderError> {
    if name == "this" {
        return this.ok_or_else(|| error(line, "{{this}} outside an {{#each}} block"));
    }
    values.get(name).ok_or_else(|| {
        let known: Vec<&str> = values.keys().map(String::as_str).collect();
        error(
            line,
            format!(
                "unknown variable {name:?}; known variables: {}",
                known.join(", ")
            ),
        )
    })
}

fn render_nodes(
    nodes: &[Node],
    values: &BTreeMap<String, Value>,
    this: Option<&Value>,
    out: &mut String,
) -> Result<(), RenderError> {
    for node in nodes {
        match node {
            Node::Text(text) => out.push_str(text),
            Node::Var { name, line } => match lookup(name, *line, values, this)? {
                Value::String(s) => out.push_str(s),
                Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
                Value::Number(n) => out.push_str(&n.to_string()),
                Value::Null => {}
                _ => {
                    return Err(error(
                        *line,
                        format!(
                            "{name:?} is a list: repeat it with {{{{#each {name}}}}}…{{{{/each}}}}"
                        ),
                    ))
                }
            },
            Node::If {
                name,
                line,
                then,
                otherwise,
            } => {
                let branch = if truthy(lookup(name, *line, values, this)?) {
                    then
                } else {
                    otherwise
                };
                render_nodes(branch, values, this, out)?;
            }
            Node::Each { name, line, body } => {
                let Value::Array(items) = lookup(name, *line, values, this)? else {
                    return Err(error(
                        *line,
                        format!("{{{{#each {name}}}}} needs a list, and {name:?} is not one"),
                    ));
                };
                for item in items {
                    render_nodes(body, values, Some(item), out)?;
                }
            }
        }
    }
    Ok(())
}

fn truthy(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64() != Some(0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
    }
}

fn tokenize(source: &str) -> Result<Tokens, RenderError> {
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
fn strip_standalone(tokens: &mut Tokens) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn values(v: Value) -> BTreeMap<String, Value> {
        v.as_object()
            .expect("object")
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    }

    fn render(source: &str, v: Value) -> Result<String, RenderError> {
        Template::parse(source)?.render(&values(v))
    }

    #[test]
    fn variables_are_replaced() {
        assert_eq!(
            render(
                "name={{name}} n={{ n }} ok={{ok}}",
                json!({"name": "app", "n": 3, "ok": true})
            ),
            Ok("name=app n=3 ok=true".into())
        );
    }

    #[test]
    fn values_are_inserted_literally_never_rendered_again() {
        assert_eq!(
            render("{{a}}", json!({"a": "{{b}} \\{{c}}", "b": "no"})),
            Ok("{{b}} \\{{c}}".into())
        );
    }

    #[test]
    fn if_else_toggles_sections_inline_and_on_their_own_lines() {
        let source = "a\n{{#if t}}\nyes\n{{else}}\nno\n{{/if}}\nb\n";
        assert_eq!(render(source, json!({"t": true})), Ok("a\nyes\nb\n".into()));
        assert_eq!(render(source, json!({"t": false})), Ok("a\nno\nb\n".into()));
        assert_eq!(
            render("[{{#if s}}set{{else}}unset{{/if}}]", json!({"s": ""})),
            Ok("[unset]".into())
        );
        assert_eq!(
            render("  {{#if t}}\n  x\n  {{/if}}\n", json!({"t": 1})),
            Ok("  x\n".into()),
            "indented standalone tags take their indentation with them"
        );
        assert_eq!(
            render("{{#if t}}x{{/if}}", json!({"t": []})),
            Ok(String::new())
        );
    }

    #[test]
    fn each_repeats_with_this_and_sees_outer_values() {
        let source = "deps:\n{{#each deps}}\n  - {{this}} for {{name}}\n{{/each}}\nend";
        assert_eq!(
            render(source, json!({"deps": ["a", "b"], "name": "x"})),
            Ok("deps:\n  - a for x\n  - b for x\nend".into())
        );
        assert_eq!(
            render(source, json!({"deps": [], "name": "x"})),
            Ok("deps:\nend".into())
        );
        assert_eq!(
            render(
                "{{#each xs}}{{#each ys}}{{this}}{{/each}};{{/each}}",
                json!({"xs": [1, 2], "ys": ["a"]})
            ),
            Ok("a;a;".into())
        );
    }

    #[test]
    fn escaped_braces_are_literal() {
        assert_eq!(
            render(r"run: ${\{{ matrix.os }}} {{x}}", json!({"x": "y"})),
            Ok("run: ${{{ matrix.os }}} y".into())
        );
        assert_eq!(
            render("\\{{not a tag}}", json!({})),
            Ok("{{not a tag}}".into())
        );
    }

    #[test]
    fn errors_name_the_line_and_the_fix() {
        let cases = [
            (
                "a\n{{nope}}",
                json!({"x": 1}),
                2,
                "unknown variable \"nope\"; known variables: x",
            ),
            (
                "{{#if a}}\nx\n",
                json!({"a": 1}),
                1,
                "{{#if a}} is never closed; add {{/if}}",
            ),
            (
                "x\n\n{{/if}}",
                json!({}),
                3,
                "{{/if}} without an open {{#if}}",
            ),
            (
                "{{#each a}}\n{{/if}}",
                json!({}),
                2,
                "closes the {{#each}} opened on line 1",
            ),
            (
                "{{else}}",
                json!({}),
                1,
                "{{else}} outside an {{#if}} block",
            ),
            (
                "{{#if a}}{{else}}{{else}}{{/if}}",
                json!({}),
                1,
                "a second {{else}}",
            ),
            ("x {{oops\n}}", json!({}), 1, "`{{` is not closed"),
            ("{{> partial}}", json!({}), 1, "unknown tag {{> partial}}"),
            ("{{#if}}{{/if}}", json!({}), 1, "needs one variable name"),
            ("{{#each s}}{{/each}}", json!({"s": "x"}), 1, "needs a list"),
            ("{{l}}", json!({"l": [1]}), 1, "is a list"),
            ("{{this}}", json!({}), 1, "outside an {{#each}}"),
        ];
        for (source, v, line, message) in cases {
            let err = render(source, v).expect_err(source);
            assert_eq!(err.line, line, "{source}: {err}");
            assert!(err.message.contains(message), "{source}: {err}");
        }
    }

    #[test]
    fn variables_are_listed_with_their_first_line() {
        let t = Template::parse("{{a}}\n{{#if b}}{{a}}{{/if}}\n{{#each c}}{{this}}{{/each}}")
            .expect("valid");
        let vars: Vec<(String, usize)> = t.variables().into_iter().collect();
        assert_eq!(vars, [("a".into(), 1), ("b".into(), 2), ("c".into(), 3)]);
    }
}
