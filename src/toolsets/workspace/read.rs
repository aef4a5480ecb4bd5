//! `read_file`: a text file by line range with line numbers, or a small binary file as a
//! base64 resource.

use std::rc::Rc;

use serde_json::json;

use super::limits::*;
use super::mime;
use super::resources::file_uri;
use super::sandbox::{read_capped, PathError, Resolved};
use super::text::{decode, is_binary, slice_lines};
use super::tools::human_size;
use super::Workspace;
use crate::{Arguments, Content, Context, HandlerError, ResourceContents, Tool, ToolOutput};

/// The tool definition.
pub(crate) fn tool(ws: &Rc<Workspace>, path_hint: &str) -> Tool {
    let ws = Rc::clone(ws);
    Tool::new(
        "read_file",
        format!("Read a file from the workspace. Text comes back with line numbers, {DEFAULT_READ_LINES} lines at a time unless `limit` says otherwise; continue with `offset` as the result suggests. Binary files up to {} come back as a base64 resource. Files over {} are refused.", human_size(MAX_BINARY_BYTES), human_size(MAX_READ_FILE_BYTES)),
        json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "minLength": 1, "maxLength": MAX_PATH_BYTES,
                    "description": format!("File to read. {path_hint}")},
                "offset": {"type": "integer", "minimum": 1,
                    "description": "First line to return (1-based). Default: 1."},
                "limit": {"type": "integer", "minimum": 1, "maximum": MAX_READ_LINES,
                    "description": format!("Most lines to return. Default: {DEFAULT_READ_LINES}.")},
            },
            "required": ["path"],
            "additionalProperties": false
        }),
        move |args, ctx| read_file(&ws, args, ctx),
    )
    .title("Read a file")
    .output_schema(json!({
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "kind": {"enum": ["text", "binary"]},
            "mime_type": {"type": "string"},
            "size": {"type": "integer", "minimum": 0},
            "content": {"type": "string", "description": "The lines returned, without line numbers."},
            "start_line": {"type": "integer", "minimum": 1},
            "end_line": {"type": "integer", "minimum": 0},
            "total_lines": {"type": "integer", "minimum": 0},
            "next_offset": {"type": "integer", "minimum": 1, "description": "Pass as `offset` to read on."},
            "lossy": {"type": "boolean", "description": "True when bytes that are not UTF-8 were replaced by U+FFFD."}
        },
        "required": ["path", "kind", "mime_type", "size"]
    }))
    .annotations(json!({"readOnlyHint": true, "openWorldHint": false}))
}

fn read_file(
    ws: &Workspace,
    args: &Arguments,
    _ctx: &mut Context<'_>,
) -> Result<ToolOutput, HandlerError> {
    let file = ws.resolve(args.str("path")?)?;
    let offset = args.u64("offset")?.unwrap_or(1);
    let limit = args
        .u64("limit")?
        .unwrap_or(DEFAULT_READ_LINES)
        .clamp(1, MAX_READ_LINES);
    let bytes = read_whole(ws, &file, MAX_READ_FILE_BYTES, "read_file")?;
    let shown = file.rel.to_string();
    let size = bytes.len() as u64;
    if is_binary(&bytes) {
        let mime_type = mime::for_contents(file.rel.name(), false);
        if size > MAX_BINARY_BYTES {
            return Err(HandlerError::Invalid(format!(
                "`{shown}` is a binary file ({mime_type}, {}); binary files are returned up to {}.",
                human_size(size),
                human_size(MAX_BINARY_BYTES)
            )));
        }
        let structured =
            json!({"path": shown, "kind": "binary", "mime_type": mime_type, "size": size});
        let resource = ResourceContents::blob(file_uri(&file.rel), Some(mime_type), &bytes);
        return Ok(ToolOutput {
            content: vec![
                Content::text(format!("`{shown}` is a binary file ({mime_type}, {}); its bytes are attached base64-encoded as a resource.", human_size(size))),
                Content::Resource { resource },
            ],
            structured: Some(structured),
            is_error: false,
        });
    }
    let (text, lossy) = decode(bytes);
    let slice = slice_lines(&text, offset as usize, limit as usize, MAX_READ_TEXT_BYTES).map_err(
        |total| {
            HandlerError::Invalid(format!(
                "`offset` {offset} is past the end of `{shown}`, which has {total} lines."
            ))
        },
    )?;
    let mime_type = mime::for_contents(file.rel.name(), true);
    let end = slice.end();
    let mut structured = json!({
        "path": shown, "kind": "text", "mime_type": mime_type, "size": size,
        "content": slice.lines.join("\n"), "start_line": slice.start, "end_line": end,
        "total_lines": slice.total, "lossy": lossy,
    });
    let mut out = Vec::with_capacity(slice.lines.len() + 2);
    out.push(match slice.total {
        0 => format!("`{shown}` is empty."),
        total => format!("`{shown}` lines {}-{end} of {total}:", slice.start),
    });
    let width = end.to_string().len().max(4);
    for (i, line) in slice.lines.iter().enumerate() {
        out.push(format!("{:>width$}\t{line}", slice.start + i));
    }
    if slice.cut {
        out.push(format!(
            "[line {end} is longer than {MAX_READ_TEXT_BYTES} bytes and was cut]"
        ));
    }
    if end < slice.total {
        structured["next_offset"] = json!(end + 1);
        out.push(format!(
            "[{} more lines; call read_file with offset={} to continue]",
            slice.total - end,
            end + 1
        ));
    }
    if lossy {
        out.push("[the file is not valid UTF-8; invalid bytes are shown as U+FFFD]".into());
    }
    Ok(ToolOutput::structured_with_text(structured, out.join("\n")))
}

/// The bytes of a resolved regular file of at most `cap` bytes; `what` names the caller in
/// the refusal.
pub(crate) fn read_whole(
    ws: &Workspace,
    file: &Resolved,
    cap: u64,
    what: &str,
) -> Result<Vec<u8>, HandlerError> {
    let (handle, meta) = ws.sandbox.open_regular(&file.real, &file.rel)?;
    if meta.len() > cap {
        return Err(HandlerError::Invalid(format!(
            "`{}` is {}; {what} handles files up to {}.{}",
            file.rel,
            human_size(meta.len()),
            human_size(cap),
            if what == "read_file" {
                ""
            } else {
                " Use read_file with offset and limit to read it in parts."
            }
        )));
    }
    read_capped(handle, meta.len(), cap)
        .map_err(|e| PathError::Io(file.rel.clone(), e.kind()).into())
}
