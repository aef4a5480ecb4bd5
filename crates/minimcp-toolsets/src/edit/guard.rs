//! Conflict checks: a file is replaced only when its content is what the model last saw.
//!
//! - With `expected_sha256`, the file's SHA-256 now must equal it; a mismatch is refused
//!   with a message naming both hashes.
//! - Without it, in a session: a file this session was shown (by `read_file`, or written by
//!   an edit tool) must still have the hash it had then. A file the session never saw may be
//!   changed by `edit_file` (its `old_text` must match the content, which is itself the
//!   check), but not replaced whole by `write_file` or `move_file` (read it first).
//! - In 2026-07-28 there is no session to remember anything: replacing a whole existing file
//!   needs `expected_sha256`; `edit_file` relies on its `old_text` matching.

use std::io::Read;

use crate::workspace::sandbox::PathError;
use crate::workspace::target::Target;
use crate::workspace::Workspace;
use minimcp::HandlerError;
use minimcp_base::encoding::sha256_hex;

/// How much the caller must know about the file it replaces.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Need {
    /// The whole content goes: the model must have seen it (or name its hash).
    Whole,
    /// Parts are replaced by exact matches: a file never seen may be edited.
    Matched,
}

/// The current bytes of an existing target (at most `cap`; larger files are refused) and
/// their SHA-256.
pub(crate) fn current(target: &Target, cap: u64) -> Result<(Vec<u8>, String), HandlerError> {
    let (file, meta) = target.sandbox.open_regular(&target.path(), &target.rel)?;
    if meta.len() > cap {
        return Err(HandlerError::Invalid(format!(
            "`{}` is {} bytes, more than the server writes (--max-write-bytes {cap}); it is left as it is",
            target.rel,
            meta.len()
        )));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(cap + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| HandlerError::from(PathError::Io(target.rel.clone(), e.kind())))?;
    if bytes.len() as u64 > cap {
        return Err(HandlerError::Invalid(format!(
            "`{}` grew past --max-write-bytes ({cap}) while it was read; it is left as it is",
            target.rel
        )));
    }
    let hash = sha256_hex(&bytes);
    Ok((bytes, hash))
}

/// Checks that the model may change `target`, whose content hashes to `now` (`None`: there
/// is no file).
pub(crate) fn check(
    ws: &Workspace,
    session: Option<u64>,
    target: &Target,
    now: Option<&str>,
    expected: Option<&str>,
    need: Need,
) -> Result<(), HandlerError> {
    let shown = &target.rel;
    match (expected, now) {
        (Some(expected), Some(now)) if !expected.eq_ignore_ascii_case(now) => {
            Err(HandlerError::Invalid(format!(
                "`{shown}` has changed: expected_sha256 is {expected} but the file's SHA-256 is now {now}. Nothing was written. Read the file again (read_file gives its sha256) and redo the change against what it holds now."
            )))
        }
        (Some(_), Some(_)) => Ok(()),
        (Some(expected), None) => Err(HandlerError::Invalid(format!(
            "`{shown}` does not exist, so it cannot have SHA-256 {expected}. Nothing was written; leave out expected_sha256 to create it."
        ))),
        (None, None) => Ok(()),
        (None, Some(now)) => {
            let Some(session) = session else {
                return match need {
                    Need::Matched => Ok(()),
                    Need::Whole => Err(HandlerError::Invalid(format!(
                        "`{shown}` exists; replacing a whole file needs expected_sha256 in protocol 2026-07-28 (there is no session to remember what you read). Its SHA-256 is given by read_file; nothing was written."
                    ))),
                };
            };
            match ws.served.last(session, &target.path()) {
                Some(seen) if seen == now => Ok(()),
                Some(seen) => Err(HandlerError::Invalid(format!(
                    "`{shown}` was changed after you last read it (SHA-256 then {seen}, now {now}), by someone else or another program. Nothing was written. Read it again and redo the change, or pass expected_sha256 to replace exactly the version you mean."
                ))),
                None if need == Need::Matched => Ok(()),
                None => Err(HandlerError::Invalid(format!(
                    "`{shown}` exists and you have not read it in this session, so replacing it could lose what it holds. Nothing was written. Read it first (read_file), or pass its SHA-256 as expected_sha256, or use edit_file to change parts of it."
                ))),
            }
        }
    }
}
