//! `validate_template` and `generate_template`, and the rendering `scaffold_project` shares.

use serde_json::{json, Map, Value};

use super::args::{offset_arg, parameters_arg, ENVELOPE_BYTES};
use super::catalog::Entry;
use super::error::TemplateError;
use super::render::Template;
use super::resolve;
use super::validate::{self, Unknown};
use minimcp::{Arguments, Context, HandlerError, ToolOutput};

// ---- validate_template and generate_template ------------------------------------------------

pub(super) fn validate_template(
    args: &Arguments,
    _ctx: &mut Context<'_>,
) -> Result<ToolOutput, HandlerError> {
    let entry = match resolve(args.str("resource_uri")?) {
        Ok(entry) => entry,
        Err(e) => return Ok(e.to_output()),
    };
    let checked = validate::check(&entry, &parameters_arg(args)?, Unknown::Refuse);
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
        "errors": checked.errors.iter().map(validate::Problem::to_json).collect::<Vec<_>>(),
        "missing_required": checked.missing_required,
    });
    Ok(ToolOutput::structured_with_text(
        structured,
        lines.join("\n"),
    ))
}

/// Renders `entry` with `given`, or says why not.
pub(super) fn render(
    entry: &Entry,
    given: &Map<String, Value>,
    unknown: Unknown,
) -> Result<String, TemplateError> {
    let checked = validate::check(entry, given, unknown);
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

pub(super) fn generate_template(
    args: &Arguments,
    ctx: &mut Context<'_>,
) -> Result<ToolOutput, HandlerError> {
    let entry = match resolve(args.str("resource_uri")?) {
        Ok(entry) => entry,
        Err(e) => return Ok(e.to_output()),
    };
    let content = match render(&entry, &parameters_arg(args)?, Unknown::Refuse) {
        Ok(content) => content,
        Err(e) => return Ok(e.to_output()),
    };
    let checksum = format!(
        "sha256:{}",
        minimcp_base::encoding::sha256_hex(content.as_bytes())
    );
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
