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

pub(crate) use super::tokens::RenderError;
use super::tokens::{error, strip_standalone, tokenize, Tag};
use serde_json::Value;

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

#[cfg(test)]
#[path = "render_tests.rs"]
mod tests;
