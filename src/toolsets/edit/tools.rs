//! The edit tools' definitions: names and arguments close to the reference filesystem
//! server's (so prompts carry over), snake_case like minimcp's other tools, with its
//! camelCase `oldText`/`newText`/`dryRun` accepted as aliases.

use std::rc::Rc;

use serde_json::{json, Value};

use super::{edit_file, moving, patch, write, Editor};
use crate::toolsets::workspace::limits::MAX_PATH_BYTES;
use crate::{Arguments, Content, Context, HandlerError, Tool, ToolOutput};

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
const MODIFIES: &str = "MODIFIES FILES on the server's disk.";

/// A path argument.
fn path(what: &str) -> Value {
    json!({"type": "string", "minLength": 1, "maxLength": MAX_PATH_BYTES + 16,
        "description": format!("{what} Relative to the workspace root (with several roots, starting with the root's name), an absolute path inside a root, or its file:// URI. No `..`.")})
}

/// The `expected_sha256` argument.
fn expected(what: &str) -> Value {
    json!({"type": "string", "minLength": 64, "maxLength": 64,
        "description": format!("The SHA-256 (hex) {what} must have now, as read_file gave it: the change is refused if the file is different.")})
}

/// Every tool of the toolset.
pub(crate) fn tools(editor: &Rc<Editor>) -> Vec<Tool> {
    let max = editor.ws.max_write_bytes;
    vec![
        Tool::new(
            "write_file",
            format!("{MODIFIES} Create a file, or replace an existing file's whole content. Replacing needs the file to be unchanged since you read it (or `expected_sha256`). The write is atomic: the file holds the old or the new content, never a mix. Up to {max} bytes; UTF-8 text in `content`, or any bytes in `content_base64`. The directory must exist (create_directory)."),
            json!({
                "type": "object",
                "properties": {
                    "path": path("File to write."),
                    "content": {"type": "string", "description": "The whole new content, as UTF-8 text."},
                    "content_base64": {"type": "string", "description": "Instead of `content`: the bytes, base64-encoded (for files that are not UTF-8 text)."},
                    "expected_sha256": expected("the file being replaced"),
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
            format!("{MODIFIES} Replace text in a UTF-8 file: each edit's `old_text` must occur exactly once (else the lines of every match, or the closest near-match, are reported); only if it does not occur exactly is a match ignoring whitespace tried, and the result says so. All edits apply or none. Answers with a unified diff; with `dry_run` the diff only, nothing written. Refused if the file changed since you read it (or differs from `expected_sha256`)."),
            json!({
                "type": "object",
                "properties": {
                    "path": path("File to edit."),
                    "edits": {"type": "array", "minItems": 1, "maxItems": 100,
                        "description": "Replacements, applied in order, each to the text the ones before it left.",
                        "items": {"type": "object", "properties": {
                            "old_text": {"type": "string", "description": "Text to find: exactly as in the file, occurring once."},
                            "new_text": {"type": "string", "description": "What replaces it."},
                            "oldText": {"type": "string", "description": "Alias of old_text."},
                            "newText": {"type": "string", "description": "Alias of new_text."}
                        }, "additionalProperties": false}},
                    "dry_run": {"type": "boolean", "description": "Only show the diff; write nothing. Default false."},
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
            format!("{MODIFIES} Create a directory and any missing parents; a directory that already exists is left as it is (not an error)."),
            json!({
                "type": "object",
                "properties": {"path": path("Directory to create.")},
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
            format!("{MODIFIES} Move or rename a file or directory within one workspace root. An existing destination is refused unless `overwrite` is true (a file only, unchanged since you read it, or matching `expected_sha256`). Moving between roots is refused."),
            json!({
                "type": "object",
                "properties": {
                    "source": path("File or directory to move."),
                    "destination": path("Its new path (in the same root)."),
                    "overwrite": {"type": "boolean", "description": "Replace an existing destination file. Default false."},
                    "expected_sha256": expected("the destination file being replaced"),
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
