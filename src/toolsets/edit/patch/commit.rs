//! Writing a decided patch: all of it, or (when a write fails) none of it.
//!
//! [`prepare`] turns the plan's final state of each path into operations and refuses what
//! the edit tools never do (replacing a directory, a read-only or hard-linked file, a file
//! over `--max-write-bytes`, creating below a file that stays). [`run`] then, for a patch of
//! more than one operation, writes the journal (`journal.rs`), and performs them in one
//! deterministic order — writes whose directories exist or can be made, then deletions
//! (emptied directories removed, as git removes them), then writes that needed a deleted
//! file out of their way — each file atomically through `write.rs`'s commit. When one fails,
//! the ones done are undone (the old bytes written back, created files removed) before the
//! refusal, and the journal is removed.
//!
//! The paths are known, sorted, before the first write: a cross-process lock taken per file
//! can be taken for all of them, in that order, around this whole step.

use std::collections::BTreeMap;
use std::fs::{self, Metadata};

use super::disk::Disk;
use super::journal::{Change, Journal};
use super::plan::{Plan, Refused, Stat, Tree};
use crate::sha256_hex;
use crate::toolsets::edit::dirs::make_dirs;
use crate::toolsets::edit::write::commit;
use crate::toolsets::edit::{atomic, Editor};
use crate::toolsets::workspace::sandbox::{RelPath, Sandbox};
use crate::toolsets::workspace::target::{links, Target};

/// One change to the disk.
#[derive(Debug)]
pub(crate) enum Op {
    /// Create or replace `name` with `bytes`, executable or not.
    Write {
        name: String,
        bytes: Vec<u8>,
        exec: bool,
    },
    /// Remove `name`, then its directories left empty.
    Delete { name: String },
}

impl Op {
    fn name(&self) -> &str {
        match self {
            Op::Write { name, .. } | Op::Delete { name } => name,
        }
    }
}

fn refuse<T>(message: impl Into<String>) -> Result<T, Refused> {
    Err(Refused::Message(message.into()))
}

/// Whether the file may be replaced or removed: writable, one link.
fn changeable(shown: &RelPath, meta: Option<&Metadata>) -> Result<(), Refused> {
    let Some(meta) = meta else { return Ok(()) };
    if atomic::mode_of(meta).is_some_and(|m| m & 0o222 == 0) {
        return refuse(format!("`{shown}` is read-only (no write permission), so it is not changed or removed; make it writable first if it should change"));
    }
    if links(meta) > 1 {
        return refuse(format!("`{shown}` has several hard links; changing one name would split them, so it is left alone"));
    }
    Ok(())
}

/// The operations that take the tree from what `disk` found to what `plan` decided, in the
/// order they run.
pub(crate) fn prepare(disk: &mut Disk<'_>, plan: &Plan) -> Result<Vec<Op>, Refused> {
    let max = disk.max_write_bytes();
    let (mut first, mut deletes, mut last) = (Vec::new(), Vec::new(), Vec::new());
    for (name, wanted) in &plan.finals {
        let stat = disk.stat(name)?;
        let shown = disk.entries[name].shown.clone();
        match (stat, wanted) {
            (Stat::File { .. }, None) => {
                changeable(&shown, disk.entries[name].meta.as_ref())?;
                disk.read(name)?;
                deletes.push(Op::Delete { name: name.clone() });
            }
            (_, None) => {}
            (Stat::Dir, Some(_)) => {
                return refuse(format!("`{shown}` is a directory; the patch would replace it with a file, which apply_patch does not do"))
            }
            (Stat::Special, Some(_)) => {
                return refuse(format!("`{shown}` is not a regular file"))
            }
            (stat, Some((bytes, mode))) => {
                let exec = mode & 0o100 != 0;
                if bytes.len() as u64 > max {
                    return refuse(format!("after the patch `{shown}` would be {} bytes, more than this server writes (--max-write-bytes {max}); nothing was written", bytes.len()));
                }
                if let Stat::File { exec: was } = stat {
                    changeable(&shown, disk.entries[name].meta.as_ref())?;
                    if was == exec && disk.read(name)? == *bytes {
                        continue;
                    }
                }
                disk.charge(bytes.len() as u64)?;
                let op = Op::Write {
                    name: name.clone(),
                    bytes: bytes.clone(),
                    exec,
                };
                if blocked_by_a_deleted_file(disk, plan, name)? {
                    last.push(op);
                } else {
                    first.push(op);
                }
            }
        }
    }
    first.extend(deletes);
    first.extend(last);
    Ok(first)
}

/// True when a directory `name` needs is a file the patch deletes (written after the
/// deletions); refused when it is a file that stays.
fn blocked_by_a_deleted_file(
    disk: &mut Disk<'_>,
    plan: &Plan,
    name: &str,
) -> Result<bool, Refused> {
    let mut prefix = String::new();
    let components: Vec<&str> = name.split('/').collect();
    for part in &components[..components.len() - 1] {
        if !prefix.is_empty() {
            prefix.push('/');
        }
        prefix.push_str(part);
        match disk.stat(&prefix)? {
            Stat::Missing => return Ok(false),
            Stat::Dir => {}
            Stat::File { .. } if matches!(plan.finals.get(&prefix), Some(None)) => return Ok(true),
            _ => {
                let shown = &disk.entries[&prefix].shown;
                return refuse(format!("`{name}` cannot be created: `{shown}` is a file, not a directory (and the patch does not delete it)"));
            }
        }
    }
    Ok(false)
}

/// How to undo one done operation.
enum Undo {
    Remove(String),
    Restore(String),
}

/// Performs `ops`; on a failure undoes what was done and says what happened.
pub(crate) fn run(
    editor: &Editor,
    session: Option<u64>,
    disk: &mut Disk<'_>,
    ops: &[Op],
) -> Result<BTreeMap<String, String>, Refused> {
    let root = disk
        .root
        .clone()
        .ok_or_else(|| Refused::Message("no root".into()))?;
    let journal = if ops.len() > 1 {
        let changes: Vec<Change> = ops
            .iter()
            .map(|op| {
                let entry = &disk.entries[op.name()];
                Change {
                    path: entry.local.as_str().to_string(),
                    before: entry.content.as_ref().map(|(_, hash)| hash.clone()),
                    after: match op {
                        Op::Write { bytes, .. } => Some(sha256_hex(bytes)),
                        Op::Delete { .. } => None,
                    },
                }
            })
            .collect();
        Some(Journal::begin(&root, &changes).map_err(|e| {
            Refused::Message(format!("the patch's journal could not be written in the workspace root ({e}); nothing was written"))
        })?)
    } else {
        None
    };
    let mut written = BTreeMap::new();
    let mut undo = Vec::new();
    for op in ops {
        match perform(editor, session, disk, &root, op) {
            Ok((step, hash)) => {
                undo.push(step);
                if let Some(hash) = hash {
                    written.insert(op.name().to_string(), hash);
                }
            }
            Err(message) => {
                let left = roll_back(editor, session, disk, &root, undo);
                let end = journal.map(Journal::end);
                let outcome = if left.is_empty() {
                    if matches!(end, Some(Err(_))) {
                        "every file was restored (the journal could not be removed)".to_string()
                    } else {
                        "every file it had written was restored: nothing changed".to_string()
                    }
                } else {
                    format!(
                        "these files could not be restored and hold the patch's content: {}",
                        left.join(", ")
                    )
                };
                return refuse(format!("{message}; {outcome}"));
            }
        }
    }
    if let Some(journal) = journal {
        if let Err(e) = journal.end() {
            crate::log::warn(format_args!("a patch journal could not be removed: {e}"));
        }
    }
    Ok(written)
}

/// One operation: its undo and, for a write, the new SHA-256.
fn perform(
    editor: &Editor,
    session: Option<u64>,
    disk: &Disk<'_>,
    root: &Sandbox,
    op: &Op,
) -> Result<(Undo, Option<String>), String> {
    let entry = &disk.entries[op.name()];
    let target = entry.target(root);
    match op {
        Op::Write { name, bytes, exec } => {
            let parent =
                RelPath::parse(entry.local.as_str().rsplit_once('/').map_or("", |(d, _)| d))
                    .map_err(|e| e.to_string())?;
            if target.existing.is_none() {
                make_dirs(root, &parent)
                    .map_err(|e| format!("`{}` could not be created ({e})", entry.shown))?;
            }
            let hash = commit(editor, session, &target, bytes).map_err(|e| e.to_string())?;
            set_exec(&target, *exec).map_err(|e| {
                format!(
                    "`{}` was written but its mode could not be set ({e})",
                    entry.shown
                )
            })?;
            let undo = if entry.stat == Stat::Missing || matches!(entry.stat, Stat::NotDir) {
                Undo::Remove(name.clone())
            } else {
                Undo::Restore(name.clone())
            };
            Ok((undo, Some(hash)))
        }
        Op::Delete { name } => {
            let dir = root
                .open_dir(&target.dir, &entry.shown)
                .map_err(|e| e.to_string())?;
            fs::remove_file(dir.entry(&target.name))
                .map_err(|e| format!("`{}` could not be removed ({e})", entry.shown))?;
            dir.sync().map_err(|e| e.to_string())?;
            editor.ws.served.forget(&target.path());
            remove_empty_parents(root, &entry.local);
            Ok((Undo::Restore(name.clone()), None))
        }
    }
}

/// Gives the file at `target` the owner's execute bit (and the group's and others' where
/// they may read), or takes every execute bit away.
fn set_exec(target: &Target, exec: bool) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let (file, meta) = target
            .sandbox
            .open_regular(&target.path(), &target.rel)
            .map_err(|e| std::io::Error::other(e.to_string()))?;
        let mode = meta.permissions().mode() & 0o7777;
        let wanted = if exec {
            mode | ((mode & 0o444) >> 2) | 0o100
        } else {
            mode & !0o111
        };
        if wanted != mode {
            file.set_permissions(fs::Permissions::from_mode(wanted))?;
        }
    }
    #[cfg(not(unix))]
    let _ = (target, exec);
    Ok(())
}

/// Removes the directories above `local` that its removal left empty (never the root).
fn remove_empty_parents(root: &Sandbox, local: &RelPath) {
    let mut dir = local.as_str();
    while let Some((parent, _)) = dir.rsplit_once('/') {
        let (above, name) = parent.rsplit_once('/').unwrap_or(("", parent));
        let above_real = if above.is_empty() {
            root.root().to_path_buf()
        } else {
            root.root().join(above)
        };
        let Ok(handle) = root.open_dir(&above_real, &RelPath::root()) else {
            return;
        };
        if fs::remove_dir(handle.entry(name)).is_err() {
            return;
        }
        let _ = handle.sync();
        dir = parent;
    }
}

/// Undoes `done` in reverse; the files it could not restore.
fn roll_back(
    editor: &Editor,
    session: Option<u64>,
    disk: &Disk<'_>,
    root: &Sandbox,
    done: Vec<Undo>,
) -> Vec<String> {
    let mut left = Vec::new();
    for step in done.into_iter().rev() {
        let (Undo::Remove(name) | Undo::Restore(name)) = &step;
        let entry = &disk.entries[name];
        let target = entry.target(root);
        let restored = match &step {
            Undo::Remove(_) => root
                .open_dir(&target.dir, &entry.shown)
                .ok()
                .and_then(|dir| {
                    fs::remove_file(dir.entry(&target.name))
                        .ok()
                        .map(|()| dir.sync())
                }),
            Undo::Restore(_) => entry.content.as_ref().and_then(|(bytes, hash)| {
                let parent =
                    RelPath::parse(entry.local.as_str().rsplit_once('/').map_or("", |(d, _)| d))
                        .ok()?;
                make_dirs(root, &parent).ok()?;
                let dir = root.open_dir(&target.dir, &entry.shown).ok()?;
                atomic::replace(&dir, &target.name, bytes, entry.meta.as_ref()).ok()?;
                editor.ws.served.record(session, &target.path(), hash);
                Some(Ok(()))
            }),
        };
        if restored.is_none() {
            left.push(format!("`{}`", entry.shown));
        }
    }
    left
}
