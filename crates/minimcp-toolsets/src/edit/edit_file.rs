//! `edit_file`: exact replacements, all or none, answered with a unified diff.

use serde_json::{json, Value};

use super::commit::write_target;
use super::diff::unified;
use super::guard::{self, Need};
use super::matching::{apply, Edit};
use super::work::{Stop, Tick};
use super::write::{commit, expected};
use super::Editor;
use crate::workspace::sandbox::PathError;
use minimcp::{Arguments, Context, HandlerError, ToolOutput};
use minimcp_base::encoding::sha256_hex;

/// Lines of context around each change in the diff.
const CONTEXT_LINES: usize = 3;

/// The edits, each from `old_text`/`new_text` or the aliases `oldText`/`newText`.
fn edits(args: &Arguments) -> Result<Vec<Edit>, HandlerError> {
    let Some(Value::Array(items)) = args.get("edits") else {
        return Err(HandlerError::Invalid(
            "`edits` must be a list of {old_text, new_text}".into(),
        ));
    };
    let field =
        |item: &Value, n: usize, snake: &str, camel: &str| -> Result<String, HandlerError> {
            match (item.get(snake), item.get(camel)) {
                (Some(Value::String(a)), Some(Value::String(b))) if a != b => {
                    Err(HandlerError::Invalid(format!(
                "edit {n}: `{snake}` and its alias `{camel}` are both given and differ; give one"
            )))
                }
                (Some(Value::String(a)), _) | (None, Some(Value::String(a))) => Ok(a.clone()),
                _ => Err(HandlerError::Invalid(format!(
                    "edit {n}: `{snake}` (or `{camel}`) must be a string"
                ))),
            }
        };
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            Ok(Edit {
                old: field(item, i + 1, "old_text", "oldText")?,
                new: field(item, i + 1, "new_text", "newText")?,
            })
        })
        .collect()
}

pub(crate) fn edit_file(
    editor: &Editor,
    args: &Arguments,
    ctx: &mut Context<'_>,
) -> Result<ToolOutput, HandlerError> {
    let edits = edits(args)?;
    let dry_run = match (args.bool("dry_run")?, args.bool("dryRun")?) {
        (Some(a), Some(b)) if a != b => {
            return Err(HandlerError::Invalid(
                "`dry_run` and its alias `dryRun` are both given and differ; give one".into(),
            ))
        }
        (a, b) => a.or(b).unwrap_or(false),
    };
    let expected = expected(args)?;
    let session = ctx.session_id();
    let (sandbox, local) = editor.ws.locate(args.str("path")?)?;
    let target = write_target(&sandbox, &local)?;
    if target.existing.is_none() {
        return Err(HandlerError::NotFound(format!(
            "{}; edit_file changes existing files (write_file creates one)",
            PathError::NotFound(target.rel.clone())
        )));
    }
    let (bytes, now) = guard::current(&target, editor.ws.max_write_bytes)?;
    guard::check(
        &editor.ws,
        session,
        &target,
        Some(&now),
        expected,
        Need::Matched,
    )?;
    let shown = target.rel.to_string();
    let Ok(text) = String::from_utf8(bytes) else {
        return Err(HandlerError::Invalid(format!(
            "`{shown}` is not UTF-8 text, so it cannot be edited by text; replace it whole with write_file and `content_base64`"
        )));
    };
    let budget = ctx.result_budget() / 2;
    let mut cancelled = || ctx.is_cancelled();
    let applied = match apply(&text, &edits, budget, &mut Tick::new(&mut cancelled)) {
        Ok(applied) => applied,
        Err(Stop::Cancelled) => return Err(ctx.cancelled()),
        Err(Stop::Refused(why)) => {
            return Err(HandlerError::Invalid(format!(
                "`{shown}` was not changed: {why}"
            )))
        }
    };
    let new_len = applied.text.len() as u64;
    if new_len > editor.ws.max_write_bytes {
        return Err(HandlerError::Invalid(format!(
            "after the edits `{shown}` would be {new_len} bytes, more than this server writes (--max-write-bytes {}); nothing was written",
            editor.ws.max_write_bytes
        )));
    }
    let changed = applied.text != text;
    let diff = unified(&shown, &text, &applied.text, CONTEXT_LINES);
    // The last moment a cancellation stops the call: after it, the file is written.
    if ctx.is_cancelled() {
        return Err(ctx.cancelled());
    }
    let sha256 = if changed && !dry_run {
        commit(
            editor,
            session,
            &target,
            Some(text.as_bytes()),
            applied.text.as_bytes(),
        )?
    } else {
        editor.ws.served.record(session, &target.path(), &now);
        if changed {
            sha256_hex(applied.text.as_bytes())
        } else {
            now
        }
    };
    let notes: Vec<String> = applied
        .matches
        .iter()
        .enumerate()
        .filter_map(|(i, m)| {
            Some(format!(
                "Note: edit {}: {}; see the diff.",
                i + 1,
                m.note.as_ref()?
            ))
        })
        .collect();
    let mut out = Vec::new();
    out.push(match (dry_run, changed) {
        (true, true) => format!("Dry run: `{shown}` would change as follows; nothing was written."),
        (false, true) => format!("Edited `{shown}`. sha256: {sha256}"),
        (_, false) => format!("The edits leave `{shown}` as it is; nothing was written."),
    });
    out.extend(notes);
    let mut shown_diff = diff.clone();
    if shown_diff.len() > budget {
        let mut cut = budget;
        while !shown_diff.is_char_boundary(cut) {
            cut -= 1;
        }
        shown_diff.truncate(cut);
        shown_diff.push_str("\n[the diff is cut here: it is larger than the result budget; read_file shows the file]\n");
    }
    if !shown_diff.is_empty() {
        out.push(format!("```diff\n{shown_diff}```"));
    }
    let matches: Vec<Value> = applied
        .matches
        .iter()
        .map(|m| json!({"line": m.line, "whitespace_tolerant": m.loose}))
        .collect();
    Ok(ToolOutput::structured_with_text(
        json!({"path": shown, "dry_run": dry_run, "changed": changed, "diff": shown_diff, "sha256": sha256, "matches": matches}),
        out.join("\n"),
    ))
}
