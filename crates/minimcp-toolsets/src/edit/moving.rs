//! `move_file`: renames within one root; what the move carries along is checked first
//! (`moved_tree.rs`). Without `overwrite`, a file is moved by linking it
//! under its new name (which fails, atomically, when that name exists) and then unlinking the
//! old one, so a destination that appears meanwhile is never replaced; killed in between,
//! both names hold the file. Directories (and file systems without hard links) are renamed
//! after checking that the destination is absent. With `overwrite`, one atomic rename
//! replaces the destination file, which must be unchanged since the session read it (or
//! match `expected_sha256`).

use std::fs;
use std::io;
use std::time::Instant;

use serde_json::json;

use super::commit::{refusal, verify};
use super::guard::{self, Need};
use super::lock::{self, Held, LOCK_WAIT};
use super::moved_tree;
use super::write::expected;
use super::Editor;
use crate::workspace::sandbox::PathError;
use crate::workspace::target::{links, CheckedDir, Target};
use minimcp::{Arguments, Context, HandlerError, ToolOutput};

pub(crate) fn move_file(
    editor: &Editor,
    args: &Arguments,
    ctx: &mut Context<'_>,
) -> Result<ToolOutput, HandlerError> {
    let overwrite = args.bool("overwrite")?.unwrap_or(false);
    let expected = expected(args)?;
    let session = ctx.session_id();
    let (from_root, from_local) = editor.ws.locate(args.str("source")?)?;
    let (to_root, to_local) = editor.ws.locate(args.str("destination")?)?;
    if from_root.root() != to_root.root() {
        return Err(HandlerError::Invalid(format!(
            "`{}` and `{}` are in different workspace roots; move_file never moves between roots. Copy it instead (read_file, then write_file), then remove the original yourself.",
            from_root.label().join_rel(from_local.as_str()),
            to_root.label().join_rel(to_local.as_str()),
        )));
    }
    let source = from_root.entry_at(&from_local)?;
    let Some(source_meta) = &source.existing else {
        return Err(PathError::NotFound(source.rel).into());
    };
    let destination = to_root.entry_at(&to_local)?;
    if source.path() == destination.path() {
        return Err(HandlerError::Invalid(format!(
            "`{}` and `{}` are the same file; nothing was moved",
            source.rel, destination.rel
        )));
    }
    let is_dir = source_meta.is_dir();
    if is_dir && destination.path().starts_with(source.path()) {
        return Err(HandlerError::Invalid(format!(
            "`{}` cannot be moved into itself (`{}`)",
            source.rel, destination.rel
        )));
    }
    if source_meta.file_type().is_symlink() {
        moved_tree::check_link(
            &source.path(),
            &destination.path(),
            (&source.rel, &destination.rel),
        )?;
    } else if is_dir {
        let real = |t: &Target| {
            t.sandbox
                .relative(&t.path())
                .ok_or(PathError::NotUtf8(t.rel.clone()))
        };
        moved_tree::check(
            &source.sandbox,
            (&source.path(), &destination.path()),
            (&real(&source)?, &real(&destination)?),
            &source.rel,
            &editor.ws.bounds,
            ctx,
        )?;
    }
    let replacing = match &destination.existing {
        None => None,
        Some(_) if !overwrite => {
            return Err(HandlerError::Invalid(format!(
                "`{}` already exists; nothing was moved. Pass overwrite: true to replace it (read it first), or choose another destination.",
                destination.rel
            )))
        }
        Some(meta) => {
            if is_dir || !meta.is_file() || links(meta) > 1 {
                return Err(HandlerError::Invalid(format!(
                    "`{}` exists and is not a single regular file, or `{}` is a directory: overwrite replaces one file with another only. Nothing was moved.",
                    destination.rel, source.rel
                )));
            }
            let (bytes, now) = guard::current(&destination, editor.ws.max_write_bytes)?;
            guard::check(&editor.ws, session, &destination, Some(&now), expected, Need::Whole)?;
            Some(bytes)
        }
    };
    let from_dir = source.sandbox.open_dir(&source.dir, &source.rel)?;
    let to_dir = destination
        .sandbox
        .open_dir(&destination.dir, &destination.rel)?;
    let (from, to) = (
        from_dir.entry(&source.name),
        to_dir.entry(&destination.name),
    );
    let failed = |e: io::Error| {
        let busy = if lock::held_open(&e) {
            ": another writer holds one of them open, and Windows replaces no open file; try again in a moment"
        } else {
            ""
        };
        HandlerError::Invalid(format!(
            "`{}` could not be moved to `{}` ({e}){busy}; nothing was moved",
            source.rel, destination.rel
        ))
    };
    // Held until the move is done: no other minimcp replaces either file meanwhile.
    let mut locks = lock_both(
        editor,
        (&source, &from_dir, source_meta.is_file()),
        (&destination, &to_dir, replacing.as_deref()),
    )?;
    let replaced = replacing.is_some();
    if replaced {
        lock::replace_locked(|| locks.clear(), || fs::rename(&from, &to)).map_err(failed)?;
    } else if is_dir {
        // rename(2) replaces only an empty directory or nothing: checked absent above.
        fs::rename(&from, &to).map_err(failed)?;
    } else {
        match fs::hard_link(&from, &to) {
            Ok(()) => {
                to_dir.sync().map_err(failed)?;
                fs::remove_file(&from).map_err(failed)?;
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                return Err(HandlerError::Invalid(format!(
                    "`{}` appeared while moving; nothing was moved. Pass overwrite: true to replace it.",
                    destination.rel
                )))
            }
            // No hard links here (or across devices): rename, the destination checked absent.
            Err(_) => fs::rename(&from, &to).map_err(failed)?,
        }
    }
    to_dir.sync().map_err(failed)?;
    from_dir.sync().map_err(failed)?;
    let known = session.and_then(|s| editor.ws.served.last(s, &source.path()));
    editor.ws.served.forget(&source.path());
    editor.ws.served.forget(&destination.path());
    if let Some(hash) = known {
        editor.ws.served.record(session, &destination.path(), &hash);
    }
    let text = format!(
        "Moved `{}` to `{}`{}.",
        source.rel,
        destination.rel,
        if replaced { ", replacing it" } else { "" }
    );
    Ok(ToolOutput::structured_with_text(
        json!({"source": source.rel.to_string(), "destination": destination.rel.to_string(), "replaced": replaced}),
        text,
    ))
}

/// Locks the source (when it is a regular file: directories are not locked) and the
/// destination being replaced (checked to hold `base`, the bytes the session saw), in the
/// order of their paths, as every writer does.
fn lock_both(
    editor: &Editor,
    (source, from_dir, source_is_file): (&Target, &CheckedDir, bool),
    (destination, to_dir, base): (&Target, &CheckedDir, Option<&[u8]>),
) -> Result<Vec<Held>, HandlerError> {
    let until = Instant::now() + LOCK_WAIT;
    let lock_source = || {
        lock::lock(from_dir, &source.name, until).map_err(|e| {
            let moved = HandlerError::Invalid(format!(
                "`{}` was moved, removed or replaced by something else than a file meanwhile; nothing was moved",
                source.rel
            ));
            match e {
                lock::LockError::Gone | lock::LockError::NotAFile => moved,
                other => refusal(source, &[], other),
            }
        })
    };
    let lock_destination = |base| verify(editor, destination, to_dir, base, until).map(|(h, _)| h);
    let mut held = Vec::new();
    match (source_is_file, base) {
        (false, None) => {}
        (true, None) => held.push(lock_source()?),
        (false, Some(base)) => held.push(lock_destination(base)?),
        (true, Some(base)) if source.path() < destination.path() => {
            held.push(lock_source()?);
            held.push(lock_destination(base)?);
        }
        (true, Some(base)) => {
            held.push(lock_destination(base)?);
            held.push(lock_source()?);
        }
    }
    Ok(held)
}
