//! `read_file`: one or several files. Text comes back by line range (from a line, from a byte
//! offset, or the last lines) with line numbers, within the result budget and with the next
//! offset in `structuredContent`; images as `image` content; other small binaries as a base64
//! resource. Files of any size are read by range. With the edit toolset on, those small enough
//! to be edited (`--max-write-bytes`) are read whole once, so the result can give the SHA-256
//! of exactly the bytes served, which the edit tools take back as `expected_sha256` (hashing
//! costs about 13 ms per MiB on the release build, so a read-only server does not hash).

use std::io::{Cursor, Read, Seek, SeekFrom};
use std::rc::Rc;

use serde_json::{json, Value};

use super::limits::*;
use super::lines::{window, From, Window};
use super::mime;
use super::output::human_size;
use super::paging::RESERVE_BYTES;
use super::roots::uri_of;
use super::sandbox::{read_capped, PathError, Resolved};
use super::served::Stamp;
use super::text::is_binary;
use super::{Workspace, PATH_HINT};
use minimcp::resource::ResourceContents;
use minimcp::{Arguments, Content, Context, HandlerError, Tool, ToolOutput};
use minimcp_base::encoding::sha256_hex;

/// The tool definition.
pub(crate) fn tool(ws: &Rc<Workspace>) -> Tool {
    let ws = Rc::clone(ws);
    Tool::new(
        "read_file",
        format!("Read a file (or up to {MAX_READ_PATHS} with `paths`) as numbered lines, {DEFAULT_READ_LINES} or the result budget at a time: pass `next_offset` back as `offset` for more. Any size, by range. Images (png, jpeg, gif, webp) up to {} as images, other binary files up to {} as base64.", human_size(MAX_IMAGE_BYTES), human_size(MAX_BINARY_BYTES)),
        json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "minLength": 1, "maxLength": MAX_PATH_BYTES,
                    "description": PATH_HINT},
                "paths": {"type": "array", "minItems": 1, "maxItems": MAX_READ_PATHS,
                    "items": {"type": "string", "minLength": 1, "maxLength": MAX_PATH_BYTES},
                    "description": "Instead of `path`; each gets a share of the budget."},
                "offset": {"type": "integer", "minimum": 1, "description": "First line, 1-based."},
                "limit": {"type": "integer", "minimum": 1, "maximum": MAX_READ_LINES, "description": "Most lines."},
                "tail": {"type": "integer", "minimum": 1, "maximum": MAX_READ_LINES, "description": "The last N lines instead."},
                "byte_offset": {"type": "integer", "minimum": 0, "description": "Start at this byte (`next_byte_offset`)."},
            },
            "additionalProperties": false
        }),
        move |args, ctx| {
            ws.enter(ctx)?;
            read_file(&ws, args, ctx)
        },
    )
    .title("Read files")
    .output_schema(json!({
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "kind": {"enum": ["text", "image", "binary"]},
            "mime_type": {"type": "string"},
            "size": {"type": "integer"},
            "sha256": {"type": "string"},
            "content": {"type": "string", "description": "the lines, without numbers"},
            "start_line": {"type": "integer"},
            "end_line": {"type": "integer"},
            "total_lines": {"type": "integer"},
            "next_offset": {"type": "integer"},
            "next_byte_offset": {"type": "integer"},
            "lossy": {"type": "boolean", "description": "non-UTF-8 bytes became U+FFFD"},
            "error": {"type": "string"},
            "files": {"type": "array", "items": {"type": "object"}, "description": "with `paths`: one result per file"}
        }
    }))
    .annotations(json!({"readOnlyHint": true, "openWorldHint": false}))
}

/// How to read: where to start and how much.
#[derive(Clone, Copy)]
struct Ask {
    from: From,
    limit: u64,
}

/// One file's answer: text for the model, its structured part, and any media.
struct One {
    text: String,
    structured: Value,
    media: Option<Content>,
    media_bytes: u64,
    /// The whole file's SHA-256, when it was read whole.
    sha256: Option<String>,
}

fn read_file(
    ws: &Workspace,
    args: &Arguments,
    ctx: &mut Context<'_>,
) -> Result<ToolOutput, HandlerError> {
    let limit = args
        .u64("limit")?
        .unwrap_or(DEFAULT_READ_LINES)
        .clamp(1, MAX_READ_LINES);
    let from = match (
        args.u64("tail")?,
        args.u64("byte_offset")?,
        args.u64("offset")?,
    ) {
        (Some(n), None, None) => From::Tail(n.clamp(1, MAX_READ_LINES)),
        (None, Some(at), None) => From::Byte(at),
        (None, None, offset) => From::Line(offset.unwrap_or(1).max(1)),
        _ => {
            return Err(HandlerError::Invalid(
                "give at most one of `offset`, `byte_offset` and `tail`".into(),
            ))
        }
    };
    let ask = Ask { from, limit };
    let budget = ctx.result_budget().saturating_sub(RESERVE_BYTES).max(1024);
    let session = ctx.session_id();
    let paths = match (args.get("path"), args.get("paths")) {
        (Some(Value::String(path)), None) => {
            let one = read_one(ws, path, ask, budget, MAX_IMAGE_BYTES, session)?;
            return Ok(ToolOutput {
                content: std::iter::once(Content::text(one.text))
                    .chain(one.media)
                    .collect(),
                structured: Some(one.structured),
                is_error: false,
            });
        }
        (None, Some(Value::Array(paths))) if !paths.is_empty() => paths,
        _ => {
            return Err(HandlerError::Invalid(format!(
            "give `path` (one file) or `paths` (a list of 1 to {MAX_READ_PATHS} files), not both"
        )))
        }
    };
    if paths.len() > MAX_READ_PATHS {
        return Err(HandlerError::Invalid(format!(
            "`paths` lists {} files; read at most {MAX_READ_PATHS} per call",
            paths.len()
        )));
    }
    // Each file gets an equal share, less what frames it (its header line, its error or its
    // structured fields: path, kind, sizes, offsets).
    const FRAME_BYTES: usize = 512;
    let share = (budget / paths.len()).saturating_sub(FRAME_BYTES).max(256);
    let mut media_left = MAX_IMAGE_BYTES;
    let mut content = Vec::new();
    let mut texts = Vec::new();
    let mut files = Vec::new();
    for path in paths {
        let Some(path) = path.as_str() else {
            return Err(HandlerError::Invalid(
                "`paths` must be a list of strings".into(),
            ));
        };
        match read_one(ws, path, ask, share, media_left, session) {
            Ok(one) => {
                texts.push(one.text);
                files.push(one.structured);
                media_left -= one.media_bytes;
                content.extend(one.media);
            }
            Err(e) => {
                let message = e.to_string();
                texts.push(format!("`{path}`: error: {message}"));
                files.push(json!({"path": path, "error": message}));
            }
        }
    }
    content.insert(0, Content::text(texts.join("\n\n")));
    Ok(ToolOutput {
        content,
        structured: Some(json!({ "files": files })),
        is_error: false,
    })
}

/// Reads one file within `budget` bytes (of text and of JSON) and `media_left` bytes of image,
/// and gives (and remembers for `session`) the whole file's SHA-256 when it is small enough
/// to be edited.
fn read_one(
    ws: &Workspace,
    path: &str,
    ask: Ask,
    budget: usize,
    media_left: u64,
    session: Option<u64>,
) -> Result<One, HandlerError> {
    let file = ws.resolve(path)?;
    let mut one = read_resolved(ws, &file, ask, budget, media_left)?;
    if let Some(hash) = one.sha256.take() {
        ws.served.record(session, &file.real, &hash);
        // In the text too: a client that shows the model only the text (and the versions
        // before 2025-06-18, which have no structuredContent) must still see the hash.
        let first_line = one.text.find('\n').unwrap_or(one.text.len());
        let at = match one.text[..first_line].ends_with(':') {
            true => first_line - 1,
            false => first_line,
        };
        one.text.insert_str(at, &format!(" (sha256 {hash})"));
        one.structured["sha256"] = Value::String(hash);
    }
    Ok(one)
}

fn read_resolved(
    ws: &Workspace,
    file: &Resolved,
    ask: Ask,
    budget: usize,
    media_left: u64,
) -> Result<One, HandlerError> {
    let (mut handle, meta) = file.sandbox.open_regular(&file.real, &file.rel)?;
    let io = |e: std::io::Error| HandlerError::from(PathError::Io(file.rel.clone(), e.kind()));
    let shown = file.rel.to_string();
    let mut size = meta.len();
    let mut head = Vec::with_capacity(BINARY_SNIFF_BYTES);
    (&mut handle)
        .take(BINARY_SNIFF_BYTES as u64)
        .read_to_end(&mut head)
        .map_err(io)?;
    if let Some(mime_type) = mime::image_type(&head) {
        return image(
            file,
            handle,
            size,
            mime_type,
            media_left,
            ws.served.enabled(),
        );
    }
    if is_binary(&head) {
        return binary(file, handle, size, ws.served.enabled());
    }
    handle.seek(SeekFrom::Start(0)).map_err(io)?;
    // A file small enough to be edited is read whole once: the hash given is of exactly the
    // bytes the lines come from. Pages of an unchanged file reuse it.
    let hashing = ws.served.enabled() && size <= ws.max_write_bytes;
    let stamp = Stamp::of(&meta);
    let known = stamp
        .as_ref()
        .filter(|_| hashing)
        .and_then(|s| ws.served.cached(&file.real, s));
    let (window, sha256) = if hashing && known.is_none() {
        let bytes = read_capped(handle, size, ws.max_write_bytes.saturating_add(1)).map_err(io)?;
        let hash = sha256_hex(&bytes);
        if let Some(stamp) = stamp.filter(|_| bytes.len() as u64 == size) {
            ws.served.remember(&file.real, stamp, &hash);
        }
        size = bytes.len() as u64;
        (
            window(Cursor::new(bytes), size, ask.from, ask.limit, budget),
            Some(hash),
        )
    } else {
        (window(handle, size, ask.from, ask.limit, budget), known)
    };
    let window = window.map_err(|e| {
        if e.kind() == std::io::ErrorKind::FileTooLarge {
            HandlerError::Invalid(format!("line {} is more than {} into `{shown}`; use `tail`, or `byte_offset` to start at a byte", match ask.from { From::Line(n) => n, _ => 0 }, human_size(MAX_SCAN_BYTES)))
        } else {
            io(e)
        }
    })?;
    if window.past_end {
        return Err(HandlerError::Invalid(format!(
            "`offset` is past the end of `{shown}`, which has {} lines; use `tail` for the last lines.",
            window.total_lines.unwrap_or(0)
        )));
    }
    let mut one = text(file, size, &window);
    one.sha256 = sha256;
    Ok(one)
}

/// The text answer for a window.
fn text(file: &Resolved, size: u64, window: &Window) -> One {
    let shown = file.rel.to_string();
    let mime_type = mime::for_contents(file.rel.name(), true);
    let mut structured = json!({
        "path": shown, "kind": "text", "mime_type": mime_type, "size": size,
        "content": window.lines.join("\n"), "lossy": window.lossy,
    });
    let end_line = window.end_line();
    if let Some(start) = window.start_line {
        structured["start_line"] = json!(start);
        structured["end_line"] = json!(end_line);
    }
    if let Some(total) = window.total_lines {
        structured["total_lines"] = json!(total);
    }
    let more = window.end_byte < size;
    let range = match (window.start_line, end_line) {
        (Some(start), Some(end)) if !window.lines.is_empty() => format!("lines {start}-{end}"),
        _ => format!("bytes {}-{}", window.start_byte, window.end_byte),
    };
    let total = window
        .total_lines
        .map_or_else(|| human_size(size), |t| format!("{t} lines"));
    let mut out = Vec::with_capacity(window.lines.len() + 3);
    out.push(if size == 0 {
        format!("`{shown}` is empty.")
    } else {
        format!("`{shown}` {range} of {total}:")
    });
    let width = end_line.unwrap_or(0).to_string().len().max(4);
    for (i, line) in window.lines.iter().enumerate() {
        match window.start_line {
            Some(start) => out.push(format!("{:>width$}\t{line}", start + i as u64)),
            None => out.push(line.clone()),
        }
    }
    if window.cut {
        out.push(
            "[a line longer than the result budget was cut; continue with byte_offset]".into(),
        );
    }
    if more {
        structured["next_byte_offset"] = json!(window.end_byte);
        // The path is named: in a read of several files each has its own place to go on.
        let hint = match end_line.filter(|_| !window.cut) {
            Some(end) => {
                structured["next_offset"] = json!(end + 1);
                format!(
                    "call read_file with path={shown:?} and offset={} to continue",
                    end + 1
                )
            }
            None => format!(
                "call read_file with path={shown:?} and byte_offset={} to continue",
                window.end_byte
            ),
        };
        let left = match (window.total_lines, end_line.filter(|_| !window.cut)) {
            (Some(total), Some(end)) => format!("{} more lines", total.saturating_sub(end)),
            _ => format!("{} more bytes", size - window.end_byte),
        };
        out.push(format!("[{left}; {hint}]"));
    }
    if window.lossy {
        out.push("[the file is not valid UTF-8; invalid bytes are shown as U+FFFD]".into());
    }
    One {
        text: out.join("\n"),
        structured,
        media: None,
        media_bytes: 0,
        sha256: None,
    }
}

/// An image as `image` content (never base64 in `structuredContent`).
fn image(
    file: &Resolved,
    mut handle: std::fs::File,
    size: u64,
    mime_type: &str,
    media_left: u64,
    hash: bool,
) -> Result<One, HandlerError> {
    let shown = file.rel.to_string();
    if size > media_left {
        return Err(HandlerError::Invalid(format!(
            "`{shown}` is an image ({mime_type}, {}); images are returned up to {} per call.",
            human_size(size),
            human_size(MAX_IMAGE_BYTES)
        )));
    }
    let io = |e: std::io::Error| HandlerError::from(PathError::Io(file.rel.clone(), e.kind()));
    handle.seek(SeekFrom::Start(0)).map_err(io)?;
    let bytes = read_capped(handle, size, media_left).map_err(io)?;
    Ok(One {
        text: format!(
            "`{shown}` is an image ({mime_type}, {}); it is attached.",
            human_size(size)
        ),
        structured: json!({"path": shown, "kind": "image", "mime_type": mime_type, "size": size}),
        media: Some(Content::image(&bytes, mime_type)),
        media_bytes: bytes.len() as u64,
        sha256: hash.then(|| sha256_hex(&bytes)),
    })
}

/// Another binary file, as a base64 resource when small enough.
fn binary(
    file: &Resolved,
    mut handle: std::fs::File,
    size: u64,
    hash: bool,
) -> Result<One, HandlerError> {
    let shown = file.rel.to_string();
    let mime_type = mime::for_contents(file.rel.name(), false);
    if size > MAX_BINARY_BYTES {
        return Err(HandlerError::Invalid(format!(
            "`{shown}` is a binary file ({mime_type}, {}); binary files are returned up to {}.",
            human_size(size),
            human_size(MAX_BINARY_BYTES)
        )));
    }
    let io = |e: std::io::Error| HandlerError::from(PathError::Io(file.rel.clone(), e.kind()));
    handle.seek(SeekFrom::Start(0)).map_err(io)?;
    let bytes = read_capped(handle, size, MAX_BINARY_BYTES).map_err(io)?;
    let resource = ResourceContents::blob(uri_of(file), Some(mime_type), &bytes);
    let sha256 = hash.then(|| sha256_hex(&bytes));
    Ok(One {
        text: format!("`{shown}` is a binary file ({mime_type}, {}); its bytes are attached base64-encoded as a resource.", human_size(size)),
        structured: json!({"path": shown, "kind": "binary", "mime_type": mime_type, "size": size}),
        media: Some(Content::Resource { resource }),
        media_bytes: 0,
        sha256,
    })
}

/// The bytes of a resolved regular file of at most `cap` bytes; `what` names the caller in
/// the refusal.
pub(crate) fn read_whole(file: &Resolved, cap: u64, what: &str) -> Result<Vec<u8>, HandlerError> {
    let (handle, meta) = file.sandbox.open_regular(&file.real, &file.rel)?;
    if meta.len() > cap {
        return Err(HandlerError::Invalid(format!(
            "`{}` is {}; {what} handles files up to {}. Use read_file with offset and limit to read it in parts.",
            file.rel,
            human_size(meta.len()),
            human_size(cap),
        )));
    }
    read_capped(handle, meta.len(), cap)
        .map_err(|e| PathError::Io(file.rel.clone(), e.kind()).into())
}
