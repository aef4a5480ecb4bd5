//! `write_file` and `create_directory`, and the commit every tool that writes a file ends
//! with.

use serde_json::{json, Value};

use super::commit::{commit_all, write_target, Change};
use super::guard::{self, Need};
use super::{base64, dirs, Editor};
use crate::workspace::target::Target;
use minimcp::{Arguments, Context, HandlerError, ToolOutput};
use minimcp_base::encoding::sha256_hex;

/// Writes `data` to `target` atomically, as one step against other writers: only while the
/// file still holds `base`, the bytes the change was computed from (`None`: while there is
/// no file). Remembers that `session` knows the result; the new hash.
pub(crate) fn commit(
    editor: &Editor,
    session: Option<u64>,
    target: &Target,
    base: Option<&[u8]>,
    data: &[u8],
) -> Result<String, HandlerError> {
    let change = Change {
        target,
        base,
        data: Some(data),
        mode: None,
    };
    let hashes = commit_all(editor, session, &[change])?;
    Ok(hashes.into_iter().flatten().next().unwrap_or_default())
}

/// The optional `expected_sha256` argument.
pub(crate) fn expected(args: &Arguments) -> Result<Option<&str>, HandlerError> {
    match args.get("expected_sha256") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if s.len() == 64 && s.bytes().all(|b| b.is_ascii_hexdigit()) => {
            Ok(Some(s))
        }
        Some(_) => Err(HandlerError::Invalid(
            "`expected_sha256` must be 64 hexadecimal digits, the `sha256` read_file gave".into(),
        )),
    }
}

pub(crate) fn write_file(
    editor: &Editor,
    args: &Arguments,
    ctx: &mut Context<'_>,
) -> Result<ToolOutput, HandlerError> {
    let data: Vec<u8> = match (args.get("content"), args.get("content_base64")) {
        (Some(Value::String(text)), None) => text.as_bytes().to_vec(),
        (None, Some(Value::String(encoded))) => base64::decode(encoded).ok_or_else(|| {
            HandlerError::Invalid("`content_base64` is not valid base64 (RFC 4648, `+/` alphabet); for text, give `content` instead".into())
        })?,
        _ => {
            return Err(HandlerError::Invalid(
                "give the new content as `content` (UTF-8 text) or `content_base64` (any bytes), exactly one of them".into(),
            ))
        }
    };
    let max = editor.ws.max_write_bytes;
    if data.len() as u64 > max {
        return Err(HandlerError::Invalid(format!(
            "the content is {} bytes; this server writes files up to {max} bytes (--max-write-bytes). Nothing was written.",
            data.len()
        )));
    }
    let expected = expected(args)?;
    let session = ctx.session_id();
    let (sandbox, local) = editor.ws.locate(args.str("path")?)?;
    let target = write_target(&sandbox, &local)?;
    let now = match target.existing {
        Some(_) => Some(guard::current(&target, max)?),
        None => None,
    };
    guard::check(
        &editor.ws,
        session,
        &target,
        now.as_ref().map(|(_, hash)| hash.as_str()),
        expected,
        Need::Whole,
    )?;
    let created = now.is_none();
    let new_hash = sha256_hex(&data);
    let changed = now.as_ref().is_none_or(|(_, hash)| *hash != new_hash);
    if changed {
        let base = now.as_ref().map(|(bytes, _)| bytes.as_slice());
        commit(editor, session, &target, base, &data)?;
    } else {
        editor.ws.served.record(session, &target.path(), &new_hash);
    }
    let shown = target.rel.to_string();
    let text = match (created, changed) {
        (true, _) => format!(
            "Created `{shown}` ({} bytes). sha256: {new_hash}",
            data.len()
        ),
        (false, true) => format!(
            "Replaced `{shown}` ({} bytes). sha256: {new_hash}",
            data.len()
        ),
        (false, false) => format!(
            "`{shown}` already holds exactly this content; nothing was written. sha256: {new_hash}"
        ),
    };
    Ok(ToolOutput::structured_with_text(
        json!({"path": shown, "created": created, "changed": changed, "size": data.len(), "sha256": new_hash}),
        text,
    ))
}

pub(crate) fn create_directory(
    editor: &Editor,
    args: &Arguments,
    _ctx: &mut Context<'_>,
) -> Result<ToolOutput, HandlerError> {
    let (sandbox, local) = editor.ws.locate(args.str("path")?)?;
    let created = dirs::make_dirs(&sandbox, &local)?;
    let shown = sandbox.label().join_rel(local.as_str()).to_string();
    let text = match created.as_slice() {
        [] => format!("`{shown}` already exists; nothing was created."),
        [one] => format!("Created `{one}`."),
        all => format!(
            "Created {}.",
            all.iter()
                .map(|p| format!("`{p}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let created: Vec<String> = created.iter().map(ToString::to_string).collect();
    Ok(ToolOutput::structured_with_text(
        json!({"path": shown, "created": created}),
        text,
    ))
}
