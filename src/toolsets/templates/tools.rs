//! The five tools. Every result fits `ctx.result_budget()`: lists page by item and a
//! generated file by byte (`offset` in, `next_offset` out).

use serde_json::{json, Map, Value};

use super::catalog::{self, Entry};
use super::error::TemplateError;
use super::params::{self, declaration, Unknown};
use super::render::Template;
use super::resolve;
use super::search;
use super::sha256;
use crate::{Arguments, Context, HandlerError, Tool, ToolOutput};

/// Bytes of every result kept for its fixed fields (URIs, counts, hints) when sizing a page.
const ENVELOPE_BYTES: usize = 2048;
/// Longest accepted query or URI argument.
const MAX_ARG_BYTES: usize = 512;

/// Every tool of the toolset.
pub(crate) fn tools() -> Vec<Tool> {
    let uri = json!({"type": "string", "minLength": 1, "maxLength": MAX_ARG_BYTES,
        "description": "A template URI, template://<category>/<toolchain>/<variant>, e.g. template://makefile/rust/cli (see list_templates)."});
    let parameters = json!({"type": "object",
        "description": "Parameter values by name, e.g. {\"project_name\": \"my-tool\", \"has_tests\": true}; list_templates shows each template's parameters."});
    let offset = |what: &str| {
        json!({"type": "integer", "minimum": 0, "default": 0,
            "description": format!("Where to continue: the next_offset of the previous call ({what}).")})
    };
    let categories = catalog::distinct(Entry::category);
    let toolchains = catalog::distinct(Entry::toolchain);
    let error_props = json!({"type": "object"});
    vec![
        Tool::new(
            "list_templates",
            "List the embedded project file templates with their URIs, the file each produces and their parameters (name, type, required, default, description, pattern). Filter by toolchain and/or category.",
            json!({
                "type": "object",
                "properties": {
                    "toolchain": {"enum": toolchains, "description": "Only this toolchain's templates."},
                    "category": {"enum": categories, "description": "Only this category's templates."},
                    "offset": offset("a template index"),
                },
                "additionalProperties": false
            }),
            list_templates,
        )
        .title("List project templates")
        .output_schema(paged(json!({
            "templates": {"type": "array", "items": template_schema()},
            "total": {"type": "integer", "minimum": 0},
        }), &["templates", "total"]))
        .annotations(read_only()),
        Tool::new(
            "search_templates",
            "Find templates by free text, e.g. \"docker go\" or \"typescript library makefile\". Each result has a relevance score from 0 to 1: per query word 3 points when it names the category, toolchain or variant (or an alias such as docker, typescript, uv, library), else 2 when it is a word of the title or description, else 1 when it begins one; the sum is divided by 3 x the number of words.",
            json!({
                "type": "object",
                "properties": {
                    "query": {"type": "string", "minLength": 1, "maxLength": MAX_ARG_BYTES, "description": "Words describing the file wanted."},
                    "toolchain": {"enum": toolchains, "description": "Only this toolchain's templates."},
                    "offset": offset("a result index"),
                },
                "required": ["query"],
                "additionalProperties": false
            }),
            search_templates,
        )
        .title("Search project templates")
        .output_schema(paged(json!({
            "query": {"type": "string"},
            "results": {"type": "array", "items": {
                "type": "object",
                "properties": {
                    "uri": {"type": "string"}, "title": {"type": "string"},
                    "description": {"type": "string"}, "filename": {"type": "string"},
                    "score": {"type": "number", "minimum": 0, "maximum": 1},
                },
                "required": ["uri", "title", "description", "filename", "score"]
            }},
            "total": {"type": "integer", "minimum": 0},
        }), &["query", "results", "total"]))
        .annotations(read_only()),
        Tool::new(
            "validate_template",
            "Check parameters against a template's declarations without rendering it: valid, every problem (unknown names, wrong types, values not matching the pattern), and the required parameters missing.",
            json!({
                "type": "object",
                "properties": {"resource_uri": uri, "parameters": parameters},
                "required": ["resource_uri"],
                "additionalProperties": false
            }),
            validate_template,
        )
        .title("Validate template parameters")
        .output_schema(json!({
            "type": "object",
            "properties": {
                "uri": {"type": "string"},
                "valid": {"type": "boolean"},
                "errors": {"type": "array", "items": problem_schema()},
                "missing_required": {"type": "array", "items": {"type": "string"}},
            },
            "required": ["uri", "valid", "errors", "missing_required"]
        }))
        .annotations(read_only()),
        Tool::new(
            "generate_template",
            "Render one template with parameters and return the file's content, its file name and its SHA-256 checksum (of the whole file). Nothing is written to disk. A file larger than the result budget comes in pages: call again with offset = next_offset.",
            json!({
                "type": "object",
                "properties": {
                    "resource_uri": uri, "parameters": parameters,
                    "offset": offset("a byte offset into the file"),
                },
                "required": ["resource_uri"],
                "additionalProperties": false
            }),
            generate_template,
        )
        .title("Generate a file from a template")
        .output_schema(paged(json!({
            "uri": {"type": "string"},
            "filename": {"type": "string"},
            "content": {"type": "string", "description": "The file, or the page of it from offset."},
            "checksum": {"type": "string", "description": "sha256:<64 hex digits> of the whole file, as sha256sum prints it."},
            "size": {"type": "integer", "minimum": 0, "description": "Bytes in the whole file."},
            "offset": {"type": "integer", "minimum": 0},
        }), &["uri", "filename", "content", "checksum", "size", "offset"]))
        .annotations(read_only()),
        Tool::new(
            "scaffold_project",
            "Render several templates of one toolchain with one set of parameters and return the files (path and content), never written to disk. Each failing template is reported in errors and the others are still returned. Without `templates`, every category of the toolchain is rendered.",
            json!({
                "type": "object",
                "properties": {
                    "toolchain": {"enum": toolchains, "description": "The project's toolchain."},
                    "templates": {"type": "array", "maxItems": 32, "items": {"type": "string", "minLength": 1, "maxLength": MAX_ARG_BYTES},
                        "description": "Which files: a category (\"makefile\"), a category/variant (\"readme/lib\") or a template URI. Default: every category."},
                    "variant": {"type": "string", "default": "cli", "maxLength": 32,
                        "description": "The variant for categories given without one (cli, lib or service); a category with a single variant (gitignore, dockerfile, ci) uses it."},
                    "parameters": parameters,
                    "offset": offset("a file index"),
                },
                "required": ["toolchain"],
                "additionalProperties": false
            }),
            scaffold_project,
        )
        .title("Scaffold project files")
        .output_schema(paged(json!({
            "toolchain": {"type": "string"},
            "files": {"type": "array", "items": {
                "type": "object",
                "properties": {
                    "path": {"type": "string"}, "content": {"type": "string"},
                    "uri": {"type": "string"}, "checksum": {"type": "string"},
                },
                "required": ["path", "content", "uri", "checksum"]
            }},
            "errors": {"type": "array", "items": {
                "type": "object",
                "properties": {"template": {"type": "string"}, "error": error_props},
                "required": ["template", "error"]
            }},
            "total": {"type": "integer", "minimum": 0},
        }), &["toolchain", "files", "errors", "total"]))
        .annotations(read_only()),
    ]
}

fn read_only() -> Value {
    json!({"readOnlyHint": true, "openWorldHint": false})
}

/// An output schema: `properties` plus `next_offset`, present when there is more.
fn paged(mut properties: Value, required: &[&str]) -> Value {
    properties["next_offset"] = json!({"type": "integer", "minimum": 0,
        "description": "Present when there is more: pass it as offset."});
    json!({"type": "object", "properties": properties, "required": required})
}

fn problem_schema() -> Value {
    json!({"type": "object",
        "properties": {"parameter": {"type": "string"}, "message": {"type": "string"}},
        "required": ["parameter", "message"]})
}

fn template_schema() -> Value {
    json!({"type": "object",
        "properties": {
            "uri": {"type": "string"}, "title": {"type": "string"}, "description": {"type": "string"},
            "category": {"type": "string"}, "toolchain": {"type": "string"}, "variant": {"type": "string"},
            "filename": {"type": "string"},
            "parameters": {"type": "array", "items": {"type": "object",
                "properties": {
                    "name": {"type": "string"}, "type": {"enum": ["string", "boolean", "number", "array"]},
                    "required": {"type": "boolean"}, "description": {"type": "string"},
                    "default": {}, "pattern": {"type": "string"},
                    "minimum": {"type": "number"}, "maximum": {"type": "number"},
                },
                "required": ["name", "type", "required", "description"]}},
        },
        "required": ["uri", "title", "description", "category", "toolchain", "variant", "filename", "parameters"]})
}

fn offset_arg(args: &Arguments) -> Result<usize, HandlerError> {
    Ok(args
        .u64("offset")?
        .unwrap_or(0)
        .try_into()
        .unwrap_or(usize::MAX))
}

fn parameters_arg(args: &Arguments) -> Result<Map<String, Value>, HandlerError> {
    match args.0.get("parameters") {
        None | Some(Value::Null) => Ok(Map::new()),
        Some(Value::Object(map)) => Ok(map.clone()),
        Some(_) => Err(HandlerError::Invalid(
            "`parameters` must be an object of values by name, e.g. {\"project_name\": \"my-tool\"}".into(),
        )),
    }
}

fn optional_str<'a>(args: &'a Arguments, name: &str) -> Option<&'a str> {
    args.0.get(name).and_then(Value::as_str)
}

/// Items (JSON and a text line each) from `offset` while the larger of the text and the
/// JSON stays within `budget` (less [`ENVELOPE_BYTES`]); at least one item, so every call
/// advances. Returns the items, the lines and the next offset when some are left.
fn page(
    items: Vec<(Value, String)>,
    offset: usize,
    budget: usize,
) -> (Vec<Value>, Vec<String>, Option<usize>) {
    let room = budget.saturating_sub(ENVELOPE_BYTES);
    let total = items.len();
    let (mut json_bytes, mut text_bytes) = (0, 0);
    let mut values = Vec::new();
    let mut lines = Vec::new();
    for (value, line) in items.into_iter().skip(offset) {
        let size = serde_json::to_string(&value).map_or(0, |s| s.len()) + 1;
        if !values.is_empty() && (json_bytes + size > room || text_bytes + line.len() + 1 > room) {
            break;
        }
        json_bytes += size;
        text_bytes += line.len() + 1;
        values.push(value);
        lines.push(line);
    }
    let next = offset.saturating_add(values.len());
    (values, lines, (next < total).then_some(next))
}

fn with_next(mut structured: Value, lines: &mut Vec<String>, next: Option<usize>) -> Value {
    if let Some(next) = next {
        structured["next_offset"] = json!(next);
        lines.push(format!("… more: call again with offset {next}."));
    }
    structured
}

/// A filter value that must name a known toolchain or category.
fn filter<'a>(
    args: &'a Arguments,
    name: &str,
    known: &[&str],
) -> Result<Option<&'a str>, TemplateError> {
    match optional_str(args, name) {
        Some(value) if !known.contains(&value) => Err(TemplateError::NotFound(format!(
            "no templates for {name} {value:?}: use one of {}",
            known.join(", ")
        ))),
        other => Ok(other),
    }
}

// ---- list_templates -------------------------------------------------------------------------

fn list_templates(args: &Arguments, ctx: &mut Context<'_>) -> Result<ToolOutput, HandlerError> {
    let toolchain = match filter(args, "toolchain", &catalog::distinct(Entry::toolchain)) {
        Ok(t) => t,
        Err(e) => return Ok(e.to_output()),
    };
    let category = match filter(args, "category", &catalog::distinct(Entry::category)) {
        Ok(c) => c,
        Err(e) => return Ok(e.to_output()),
    };
    let items: Vec<(Value, String)> = catalog::entries()
        .filter(|e| toolchain.is_none_or(|t| t == e.toolchain()))
        .filter(|e| category.is_none_or(|c| c == e.category()))
        .map(|e| {
            let declared: Vec<Value> = e.params().iter().map(|p| declaration(p)).collect();
            let summary: Vec<String> = e
                .params()
                .iter()
                .map(|p| match p.default {
                    None => format!("{}*", p.name),
                    Some(d) => format!("{}={d}", p.name),
                })
                .collect();
            let line = format!(
                "{} — {} → {} ({})",
                e.uri(),
                e.title(),
                e.filename(),
                if summary.is_empty() {
                    "no parameters".to_string()
                } else {
                    summary.join(", ")
                }
            );
            let value = json!({
                "uri": e.uri(), "title": e.title(), "description": e.source.description,
                "category": e.category(), "toolchain": e.toolchain(), "variant": e.variant,
                "filename": e.filename(), "parameters": declared,
            });
            (value, line)
        })
        .collect();
    let total = items.len();
    let (templates, mut lines, next) = page(items, offset_arg(args)?, ctx.result_budget());
    if total == 0 {
        lines.push("No templates match these filters.".into());
    } else {
        lines.insert(0, format!("{total} templates (* = required):"));
    }
    let structured = with_next(
        json!({"templates": templates, "total": total}),
        &mut lines,
        next,
    );
    Ok(ToolOutput::structured_with_text(
        structured,
        lines.join("\n"),
    ))
}

// ---- search_templates -----------------------------------------------------------------------

fn search_templates(args: &Arguments, ctx: &mut Context<'_>) -> Result<ToolOutput, HandlerError> {
    let query = args.str("query")?;
    let toolchain = match filter(args, "toolchain", &catalog::distinct(Entry::toolchain)) {
        Ok(t) => t,
        Err(e) => return Ok(e.to_output()),
    };
    let terms = search::terms(query);
    if terms.is_empty() {
        return Err(HandlerError::Invalid(
            "`query` has no words: describe the file, e.g. \"rust cli makefile\"".into(),
        ));
    }
    let mut scored: Vec<(Entry, f64)> = catalog::entries()
        .filter(|e| toolchain.is_none_or(|t| t == e.toolchain()))
        .map(|e| (e, search::score(&e, &terms)))
        .filter(|(_, s)| *s > 0.0)
        .collect();
    // Stable: equal scores keep manifest order.
    scored.sort_by(|a, b| b.1.total_cmp(&a.1));
    let items: Vec<(Value, String)> = scored
        .iter()
        .map(|(e, score)| {
            (
                json!({"uri": e.uri(), "title": e.title(), "description": e.source.description,
                    "filename": e.filename(), "score": score}),
                format!("{score:.3}  {} — {}", e.uri(), e.title()),
            )
        })
        .collect();
    let total = items.len();
    let (results, mut lines, next) = page(items, offset_arg(args)?, ctx.result_budget());
    if total == 0 {
        lines.push(format!(
            "No template matches {query:?}; list_templates shows them all."
        ));
    }
    let structured = with_next(
        json!({"query": query, "results": results, "total": total}),
        &mut lines,
        next,
    );
    Ok(ToolOutput::structured_with_text(
        structured,
        lines.join("\n"),
    ))
}

// ---- validate_template and generate_template ------------------------------------------------

fn validate_template(args: &Arguments, _ctx: &mut Context<'_>) -> Result<ToolOutput, HandlerError> {
    let entry = match resolve(args.str("resource_uri")?) {
        Ok(entry) => entry,
        Err(e) => return Ok(e.to_output()),
    };
    let checked = params::check(&entry, &parameters_arg(args)?, Unknown::Refuse);
    let valid = checked.is_valid();
    let mut lines = vec![if valid {
        format!("The parameters of {} are valid.", entry.uri())
    } else {
        format!("The parameters of {} are not valid:", entry.uri())
    }];
    if !checked.missing_required.is_empty() {
        lines.push(format!(
            "- missing required: {}",
            checked.missing_required.join(", ")
        ));
    }
    lines.extend(checked.errors.iter().map(|p| format!("- {}", p.message)));
    let structured = json!({
        "uri": entry.uri(), "valid": valid,
        "errors": checked.errors.iter().map(params::Problem::to_json).collect::<Vec<_>>(),
        "missing_required": checked.missing_required,
    });
    Ok(ToolOutput::structured_with_text(
        structured,
        lines.join("\n"),
    ))
}

/// Renders `entry` with `given`, or says why not.
fn render(
    entry: &Entry,
    given: &Map<String, Value>,
    unknown: Unknown,
) -> Result<String, TemplateError> {
    let checked = params::check(entry, given, unknown);
    if !checked.is_valid() {
        return Err(TemplateError::InvalidParameters {
            uri: entry.uri(),
            errors: checked.errors,
            missing_required: checked.missing_required,
        });
    }
    // The manifest's sources parse and read only declared values (unit-tested); an error
    // here would be ours, reported rather than hidden.
    Template::parse(entry.source.text)
        .and_then(|t| t.render(&checked.values))
        .map_err(|e| TemplateError::NotFound(format!("{} cannot be rendered: {e}", entry.uri())))
}

/// The end of the page of `content` from `start` whose JSON string form (escapes
/// included) takes at most `room` bytes; at least one character, on a char boundary.
fn page_end(content: &str, start: usize, room: usize) -> usize {
    let mut used = 0;
    let mut end = start;
    for c in content[start..].chars() {
        let cost = match c {
            '"' | '\\' | '\n' | '\r' | '\t' | '\u{8}' | '\u{c}' => 2,
            c if (c as u32) < 0x20 => 6,
            c => c.len_utf8(),
        };
        if used + cost > room && end > start {
            break;
        }
        used += cost;
        end += c.len_utf8();
    }
    end
}

fn generate_template(args: &Arguments, ctx: &mut Context<'_>) -> Result<ToolOutput, HandlerError> {
    let entry = match resolve(args.str("resource_uri")?) {
        Ok(entry) => entry,
        Err(e) => return Ok(e.to_output()),
    };
    let content = match render(&entry, &parameters_arg(args)?, Unknown::Refuse) {
        Ok(content) => content,
        Err(e) => return Ok(e.to_output()),
    };
    let checksum = format!("sha256:{}", sha256::hex(content.as_bytes()));
    let offset = offset_arg(args)?;
    if offset > content.len() || !content.is_char_boundary(offset) {
        return Err(HandlerError::Invalid(format!(
            "`offset` {offset} is not a page boundary of this {}-byte file: use 0 or a next_offset",
            content.len()
        )));
    }
    let end = page_end(
        &content,
        offset,
        ctx.result_budget().saturating_sub(ENVELOPE_BYTES),
    );
    let page = &content[offset..end];
    let mut text = format!(
        "{} from {} ({} bytes, {checksum})",
        entry.filename(),
        entry.uri(),
        content.len()
    );
    if offset > 0 || end < content.len() {
        text.push_str(&format!(", bytes {offset}..{end}"));
    }
    text.push_str(":\n\n");
    text.push_str(page);
    let mut structured = json!({
        "uri": entry.uri(), "filename": entry.filename(), "content": page,
        "checksum": checksum, "size": content.len(), "offset": offset,
    });
    if end < content.len() {
        structured["next_offset"] = json!(end);
        text.push_str(&format!("\n… more: call again with offset {end}."));
    }
    Ok(ToolOutput::structured_with_text(structured, text))
}

// ---- scaffold_project -----------------------------------------------------------------------

/// The template a `templates[]` item names for `toolchain`.
fn pick(item: &str, toolchain: &str, variant: &str) -> Result<Entry, TemplateError> {
    if item.starts_with(super::SCHEME) {
        let entry = resolve(item)?;
        if entry.toolchain() != toolchain {
            return Err(TemplateError::NotFound(format!(
                "{item} is a {} template, and this project's toolchain is {toolchain}",
                entry.toolchain()
            )));
        }
        return Ok(entry);
    }
    let (category, wanted) = match item.split_once('/') {
        Some((category, variant)) => (category, Some(variant)),
        None => (item, None),
    };
    let variants: Vec<Entry> = catalog::entries()
        .filter(|e| e.category() == category && e.toolchain() == toolchain)
        .collect();
    let chosen = match (wanted, variants.as_slice()) {
        (Some(v), _) => variants.iter().find(|e| e.variant == v),
        (None, [only]) => Some(only),
        (None, _) => variants.iter().find(|e| e.variant == variant),
    };
    chosen.copied().ok_or_else(|| {
        // Let resolve() word the message: it lists what exists.
        let v = wanted.unwrap_or(variant);
        match resolve(&format!("{}{category}/{toolchain}/{v}", super::SCHEME)) {
            Err(e) => e,
            Ok(_) => TemplateError::NotFound(format!("no template {item:?}")),
        }
    })
}

fn scaffold_project(args: &Arguments, ctx: &mut Context<'_>) -> Result<ToolOutput, HandlerError> {
    let toolchain = args.str("toolchain")?;
    if let Err(e) = filter(args, "toolchain", &catalog::distinct(Entry::toolchain)) {
        return Ok(e.to_output());
    }
    let variant = optional_str(args, "variant").unwrap_or("cli");
    let given = parameters_arg(args)?;
    let requested: Vec<String> = match args.0.get("templates").and_then(Value::as_array) {
        Some(items) => items
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect(),
        None => catalog::distinct(Entry::category)
            .into_iter()
            .filter(|c| {
                catalog::entries().any(|e| e.category() == *c && e.toolchain() == toolchain)
            })
            .map(str::to_string)
            .collect(),
    };
    let mut files: Vec<(Value, String)> = Vec::new();
    let mut errors: Vec<Value> = Vec::new();
    let mut error_lines: Vec<String> = Vec::new();
    let mut used: Vec<Entry> = Vec::new();
    for item in &requested {
        let outcome = pick(item, toolchain, variant).and_then(|entry| {
            if used.iter().any(|u| u.filename() == entry.filename()) {
                return Err(TemplateError::InvalidUri(format!(
                    "{item} would write {} a second time: ask for one template per file",
                    entry.filename()
                )));
            }
            used.push(entry);
            render(&entry, &given, Unknown::Ignore).map(|content| (entry, content))
        });
        match outcome {
            Ok((entry, content)) => {
                let checksum = format!("sha256:{}", sha256::hex(content.as_bytes()));
                let line = format!(
                    "=== {} ({}, {checksum})\n{content}",
                    entry.filename(),
                    entry.uri()
                );
                files.push((
                    json!({"path": entry.filename(), "content": content, "uri": entry.uri(), "checksum": checksum}),
                    line,
                ));
            }
            Err(e) => {
                error_lines.push(format!("{item}: {e} (templates error {})", e.spec_code()));
                errors.push(json!({"template": item, "error": e.to_json()}));
            }
        }
    }
    // Parameters no chosen template declares are most likely typos: say so.
    for name in given.keys() {
        if !used
            .iter()
            .any(|e| e.params().iter().any(|p| p.name == name))
        {
            let e = TemplateError::InvalidParameters {
                uri: "the chosen templates".into(),
                errors: vec![params::Problem {
                    parameter: name.clone(),
                    message: format!("no chosen template has a parameter {name:?}: remove it or check its spelling"),
                }],
                missing_required: Vec::new(),
            };
            error_lines.push(format!("{name}: {e}"));
            errors.push(json!({"template": "*", "error": e.to_json()}));
        }
    }
    let total = files.len();
    let (files, mut lines, next) = page(
        files,
        offset_arg(args)?,
        ctx.result_budget().saturating_sub(errors_size(&errors)),
    );
    lines.insert(
        0,
        format!("{total} files for a {toolchain} project (returned, not written):"),
    );
    lines.extend(error_lines);
    let structured = with_next(
        json!({"toolchain": toolchain, "files": files, "errors": errors, "total": total}),
        &mut lines,
        next,
    );
    Ok(ToolOutput::structured_with_text(
        structured,
        lines.join("\n"),
    ))
}

fn errors_size(errors: &[Value]) -> usize {
    serde_json::to_string(errors).map_or(0, |s| s.len())
}

#[cfg(test)]
#[path = "tools_tests.rs"]
mod tests;
