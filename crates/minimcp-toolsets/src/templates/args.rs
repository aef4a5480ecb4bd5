//! What the tool handlers share: reading their arguments (`offset`, `parameters`,
//! filters) and paging a result to fit `ctx.result_budget()` (`offset` in,
//! `next_offset` out).

use serde_json::{json, Map, Value};

use super::error::TemplateError;
use minimcp::{Arguments, HandlerError};

/// Bytes of every result kept for its fixed fields (URIs, counts, hints) when sizing a page.
pub(super) const ENVELOPE_BYTES: usize = 2048;

pub(super) fn offset_arg(args: &Arguments) -> Result<usize, HandlerError> {
    Ok(args
        .u64("offset")?
        .unwrap_or(0)
        .try_into()
        .unwrap_or(usize::MAX))
}

pub(super) fn parameters_arg(args: &Arguments) -> Result<Map<String, Value>, HandlerError> {
    match args.get("parameters") {
        None | Some(Value::Null) => Ok(Map::new()),
        Some(Value::Object(map)) => Ok(map.clone()),
        Some(_) => Err(HandlerError::Invalid(
            "`parameters` must be an object of values by name, e.g. {\"project_name\": \"my-tool\"}".into(),
        )),
    }
}

pub(super) fn optional_str<'a>(args: &'a Arguments, name: &str) -> Option<&'a str> {
    args.get(name).and_then(Value::as_str)
}

/// Items (JSON and a text line each) from `offset` while the larger of the text and the
/// JSON stays within `budget` (less [`ENVELOPE_BYTES`]); at least one item, so every call
/// advances. Returns the items, the lines and the next offset when some are left.
pub(super) fn page(
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

pub(super) fn with_next(
    mut structured: Value,
    lines: &mut Vec<String>,
    next: Option<usize>,
) -> Value {
    if let Some(next) = next {
        structured["next_offset"] = json!(next);
        lines.push(format!("… more: call again with offset {next}."));
    }
    structured
}

/// A filter value that must name a known toolchain or category.
pub(super) fn filter<'a>(
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
