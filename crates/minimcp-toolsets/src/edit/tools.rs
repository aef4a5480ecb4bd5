//! The edit tools' definitions: names and arguments close to the reference filesystem
//! server's (so prompts carry over), snake_case like minimcp's other tools, with its
//! camelCase `oldText`/`newText`/`dryRun` accepted as aliases.

use std::rc::Rc;

use serde_json::{json, Value};

use super::{edit_file, moving, patch, write, Editor};
use crate::workspace::limits::MAX_PATH_BYTES;
use crate::workspace::PATH_HINT;
use minimcp::{Arguments, Content, Context, HandlerError, Tool, ToolOutput};

/// A handler of the toolset.
type Handler = fn(&Editor, &Arguments, &mut Context<'_>) -> Result<ToolOutput, HandlerError>;

/// Wraps `handler` so the workspace's roots are brought up to date first, and any root
/// not swept of leftovers yet is; an interrupted patch found in a root is told in the first
/// answer that succeeds.
fn with_editor(
    editor: &Rc<Editor>,
    handler: Handler,
) -> impl Fn(&Arguments, &mut Context<'_>) -> Result<ToolOutput, HandlerError> + 'static {
    let editor = Rc::clone(editor);
    move |args: &Arguments, ctx: &mut Context<'_>| {
        editor.ws.enter(ctx)?;
        editor.sweep_roots();
        let mut output = handler(&editor, args, ctx)?;
        if let Some(note) = editor.take_interrupted() {
            // In the text and the structured result both: some clients show only one.
            if let Some(serde_json::Value::Object(fields)) = &mut output.structured {
                fields.insert(
                    "interrupted_patch".into(),
                    serde_json::Value::String(note.clone()),
                );
            }
            output.content.insert(0, Content::text(note));
        }
        Ok(output)
    }
}

/// What every tool says first: it changes files.
const MODIFIES: &str = "MODIFIES FILES.";

/// A path argument: the same forms as the workspace tools' paths.
fn path(what: &str) -> Value {
    json!({"type": "string", "minLength": 1, "maxLength": MAX_PATH_BYTES + 16,
        "description": format!("{what}{PATH_HINT}")})
}

/// The `expected_sha256` argument.
fn expected(what: &str) -> Value {
    json!({"type": "string", "minLength": 64, "maxLength": 64,
        "description": format!("read_file's `sha256` of {what}; refused if it differs.")})
}

/// Every tool of the toolset.
pub(crate) fn tools(editor: &Rc<Editor>) -> Vec<Tool> {
    let max = editor.ws.max_write_bytes;
    vec![
        Tool::new(
            "write_file",
            format!("{MODIFIES} Create a file or replace its whole content, atomically; up to {max} bytes. Replacing needs the file unchanged since you read it (or `expected_sha256`). The directory must exist."),
            json!({
                "type": "object",
                "properties": {
                    "path": path(""),
                    "content": {"type": "string", "description": "UTF-8 text."},
                    "content_base64": {"type": "string", "description": "Instead of `content`: bytes, base64."},
                    "expected_sha256": expected("the file"),
                },
                "required": ["path"],
                "additionalProperties": false
            }),
            with_editor(editor, write::write_file),
        )
        .title("Write a file")
        .output_schema(json!({
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "created": {"type": "boolean"},
                "changed": {"type": "boolean"},
                "size": {"type": "integer", "minimum": 0},
                "sha256": {"type": "string", "description": "The new content's SHA-256: pass it as expected_sha256 to change the file again."}
            },
            "required": ["path", "created", "changed", "size", "sha256"]
        }))
        .annotations(json!({"readOnlyHint": false, "destructiveHint": true, "idempotentHint": false, "openWorldHint": false})),
        Tool::new(
            "edit_file",
            format!("{MODIFIES} Replace text in a UTF-8 file. Each `old_text` must occur exactly once; if it occurs nowhere, whitespace is ignored and `new_text` re-indented to fit (the diff shows it). A refusal shows the lines to copy. All edits or none. Returns a unified diff. Refused if the file changed since you read it (or differs from `expected_sha256`)."),
            json!({
                "type": "object",
                "properties": {
                    "path": path(""),
                    "edits": {"type": "array", "minItems": 1, "maxItems": 100,
                        "description": "Applied in order, each to the result of the ones before.",
                        "items": {"type": "object", "properties": {
                            "old_text": {"type": "string", "description": "Exact text to replace."},
                            "new_text": {"type": "string"},
                            "oldText": {"type": "string", "description": "Alias of old_text."},
                            "newText": {"type": "string", "description": "Alias of new_text."}
                        }, "additionalProperties": false}},
                    "dry_run": {"type": "boolean", "description": "Show the diff; write nothing."},
                    "dryRun": {"type": "boolean", "description": "Alias of dry_run."},
                    "expected_sha256": expected("the file"),
                },
                "required": ["path", "edits"],
                "additionalProperties": false
            }),
            with_editor(editor, edit_file::edit_file),
        )
        .title("Edit a file")
        .output_schema(json!({
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "dry_run": {"type": "boolean"},
                "changed": {"type": "boolean"},
                "diff": {"type": "string"},
                "sha256": {"type": "string", "description": "The file's SHA-256 after the edit (with dry_run: now)."},
                "matches": {"type": "array", "items": {"type": "object", "properties": {
                    "line": {"type": "integer", "minimum": 1},
                    "whitespace_tolerant": {"type": "boolean"}}}}
            },
            "required": ["path", "dry_run", "changed", "diff", "sha256", "matches"]
        }))
        .annotations(json!({"readOnlyHint": false, "destructiveHint": true, "idempotentHint": false, "openWorldHint": false})),
        Tool::new(
            "apply_patch",
            format!("{MODIFIES} {}", patch::DESCRIPTION),
            patch::input_schema(),
            with_editor(editor, patch::apply_patch),
        )
        .title("Apply a patch")
        .output_schema(patch::output_schema())
        .annotations(json!({"readOnlyHint": false, "destructiveHint": true, "idempotentHint": false, "openWorldHint": false})),
        Tool::new(
            "create_directory",
            format!("{MODIFIES} Create a directory and missing parents; one that exists is not an error."),
            json!({
                "type": "object",
                "properties": {"path": path("")},
                "required": ["path"],
                "additionalProperties": false
            }),
            with_editor(editor, write::create_directory),
        )
        .title("Create a directory")
        .output_schema(json!({
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "created": {"type": "array", "items": {"type": "string"}}
            },
            "required": ["path", "created"]
        }))
        .annotations(json!({"readOnlyHint": false, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false})),
        Tool::new(
            "move_file",
            format!("{MODIFIES} Move or rename a file or directory within one root. An existing destination is refused unless `overwrite` (a file only, unchanged since you read it, or matching `expected_sha256`)."),
            json!({
                "type": "object",
                "properties": {
                    "source": path(""),
                    "destination": path("In the same root. "),
                    "overwrite": {"type": "boolean", "description": "Replace an existing destination file."},
                    "expected_sha256": expected("the destination"),
                },
                "required": ["source", "destination"],
                "additionalProperties": false
            }),
            with_editor(editor, moving::move_file),
        )
        .title("Move a file")
        .output_schema(json!({
            "type": "object",
            "properties": {
                "source": {"type": "string"},
                "destination": {"type": "string"},
                "replaced": {"type": "boolean"}
            },
            "required": ["source", "destination", "replaced"]
        }))
        .annotations(json!({"readOnlyHint": false, "destructiveHint": true, "idempotentHint": false, "openWorldHint": false})),
    ]
}
