//! `list_templates` and `search_templates`.

use serde_json::{json, Value};

use super::args::{filter, offset_arg, page, with_next};
use super::catalog::{self, Entry};
use super::search;
use super::validate::declaration;
use minimcp::{Arguments, Context, HandlerError, ToolOutput};

// ---- list_templates -------------------------------------------------------------------------

pub(super) fn list_templates(
    args: &Arguments,
    ctx: &mut Context<'_>,
) -> Result<ToolOutput, HandlerError> {
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

pub(super) fn search_templates(
    args: &Arguments,
    ctx: &mut Context<'_>,
) -> Result<ToolOutput, HandlerError> {
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
