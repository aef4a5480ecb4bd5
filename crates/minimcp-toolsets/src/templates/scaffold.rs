//! `scaffold_project`: several templates of one toolchain rendered with one parameter set.

use serde_json::{json, Value};

use super::args::{filter, offset_arg, optional_str, page, parameters_arg, with_next};
use super::catalog::{self, Entry};
use super::error::TemplateError;
use super::generate::render;
use super::resolve;
use super::validate::{self, Unknown};
use minimcp::{Arguments, Context, HandlerError, ToolOutput};

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

pub(super) fn scaffold_project(
    args: &Arguments,
    ctx: &mut Context<'_>,
) -> Result<ToolOutput, HandlerError> {
    let toolchain = args.str("toolchain")?;
    if let Err(e) = filter(args, "toolchain", &catalog::distinct(Entry::toolchain)) {
        return Ok(e.to_output());
    }
    let variant = optional_str(args, "variant").unwrap_or("cli");
    let given = parameters_arg(args)?;
    let requested: Vec<String> = match args.get("templates").and_then(Value::as_array) {
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
                let checksum = format!(
                    "sha256:{}",
                    minimcp_base::encoding::sha256_hex(content.as_bytes())
                );
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
                errors: vec![validate::Problem {
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
