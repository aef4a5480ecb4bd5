//! Writing a decided patch: all of it or none of it, as one step against every other
//! minimcp process.
//!
//! [`prepare`] turns the plan's final state of each path into operations and refuses what
//! the edit tools never do (replacing a directory, a read-only or hard-linked file, a file
//! over `--max-write-bytes`, creating below a file that stays). [`run`] then, for a patch of
//! more than one operation, writes the journal (`journal.rs`) and hands the operations to the
//! edit toolset's `commit_all` (`edit/commit.rs`): every new content prepared in its temporary
//! file, every file locked in one order (its canonical path's, the same in every process) and
//! checked to hold exactly the bytes the patch was applied to, then all put in place, or none.
//! Git's executable bit is given to the temporary file before it appears. Directories are
//! made before (for new files) and removed after when a deletion emptied them, as git removes
//! them. A patch that turns a file into a directory is two such batches (the deletion first);
//! when the second is refused, the first is undone by a third. The journal is removed after
//! the last, or when nothing was written.

use std::collections::BTreeMap;
use std::fs::{self, Metadata};
use std::path::Path;

use super::disk::Disk;
use super::journal::{Change as Planned, Journal};
use super::plan::{Plan, Refused, Stat, Tree};
use crate::edit::commit::{commit_all, Change};
use crate::edit::dirs::make_dirs;
use crate::edit::{atomic, Editor};
use crate::workspace::sandbox::{RelPath, Sandbox};
use crate::workspace::target::{links, Target};
use minimcp_base::encoding::sha256_hex;

/// One change to the disk.
#[derive(Debug)]
pub(crate) enum Op {
    /// Create or replace `name` with `bytes`, executable or not; `later` when a file the
    /// patch deletes is in the way (it becomes a directory): written after the deletions.
    Write {
        name: String,
        bytes: Vec<u8>,
        exec: bool,
        later: bool,
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
    if atomic::read_only(meta) {
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
                let later = blocked_by_a_deleted_file(disk, plan, name)?;
                let op = Op::Write {
                    name: name.clone(),
                    bytes: bytes.clone(),
                    exec,
                    later,
                };
                if later {
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

/// The permission bits a write asks for: the file's own with the execute bits given or taken
/// (where it may be read) when git's mode changes them; 0755 for a new executable.
fn mode_for(meta: Option<&Metadata>, exec: bool) -> Option<u32> {
    let now = meta.and_then(atomic::mode_of).map(|m| m & 0o777);
    match now {
        Some(m) if (m & 0o100 != 0) == exec => None,
        Some(m) if exec => Some(m | ((m & 0o444) >> 2) | 0o100),
        Some(m) => Some(m & !0o111),
        None => exec.then_some(0o755),
    }
}

/// The parent of a root-relative path.
fn parent_of(local: &RelPath) -> Result<RelPath, Refused> {
    RelPath::parse(local.as_str().rsplit_once('/').map_or("", |(d, _)| d))
        .map_err(|e| Refused::Message(e.to_string()))
}

/// One batch of operations as `commit_all` takes them: every file locked in one order, each
/// checked to hold what the patch read, then all put in place or none.
fn commit_batch(
    editor: &Editor,
    session: Option<u64>,
    disk: &Disk<'_>,
    root: &Sandbox,
    ops: &[&Op],
) -> Result<Vec<Option<String>>, String> {
    for op in ops {
        let entry = &disk.entries[op.name()];
        if matches!(op, Op::Write { .. }) && entry.meta.is_none() {
            make_dirs(
                root,
                &parent_of(&entry.local).map_err(|e| format!("{e:?}"))?,
            )
            .map_err(|e| format!("`{}` could not be created ({e})", entry.shown))?;
        }
    }
    let targets: Vec<Target> = ops
        .iter()
        .map(|op| disk.entries[op.name()].target(root))
        .collect();
    let changes: Vec<Change<'_>> = ops
        .iter()
        .zip(&targets)
        .map(|(op, target)| {
            let entry = &disk.entries[op.name()];
            let base = entry.content.as_ref().map(|(bytes, _)| bytes.as_slice());
            match op {
                Op::Write { bytes, exec, .. } => Change {
                    target,
                    base,
                    data: Some(bytes),
                    mode: mode_for(entry.meta.as_ref(), *exec),
                },
                Op::Delete { .. } => Change {
                    target,
                    base,
                    data: None,
                    mode: None,
                },
            }
        })
        .collect();
    commit_all(editor, session, &changes).map_err(|e| e.to_string())
}

/// What `path` holds now: its SHA-256, `None` when absent.
fn hash_now(path: &Path, max: u64) -> Option<String> {
    let meta = fs::symlink_metadata(path).ok()?;
    if !meta.is_file() || meta.len() > max {
        return Some(String::new());
    }
    fs::read(path).ok().map(|b| sha256_hex(&b))
}

/// The files of `ops` that hold what the patch would make of them (so a failed batch wrote
/// them: another writer's change is not ours).
fn written_by(disk: &Disk<'_>, root: &Sandbox, ops: &[&Op]) -> Vec<String> {
    ops.iter()
        .filter_map(|op| {
            let entry = &disk.entries[op.name()];
            let ours = match op {
                Op::Write { bytes, .. } => Some(sha256_hex(bytes)),
                Op::Delete { .. } => None,
            };
            let now = hash_now(&entry.target(root).path(), disk.max_write_bytes());
            (now == ours).then(|| format!("`{}`", entry.shown))
        })
        .collect()
}

/// Puts back what the first batch changed, as one more batch (each file checked to hold
/// what the first batch wrote).
fn undo(
    editor: &Editor,
    session: Option<u64>,
    disk: &Disk<'_>,
    root: &Sandbox,
    ops: &[&Op],
) -> Result<(), String> {
    let mut targets = Vec::new();
    for op in ops {
        let entry = &disk.entries[op.name()];
        let mut target = entry.target(root);
        if let Op::Delete { .. } = op {
            make_dirs(
                root,
                &parent_of(&entry.local).map_err(|e| format!("{e:?}"))?,
            )
            .map_err(|e| e.to_string())?;
        }
        target.existing = fs::symlink_metadata(target.path()).ok();
        targets.push(target);
    }
    let changes: Vec<Change<'_>> = ops
        .iter()
        .zip(&targets)
        .map(|(op, target)| {
            let entry = &disk.entries[op.name()];
            let old = entry.content.as_ref().map(|(bytes, _)| bytes.as_slice());
            let old_mode = entry
                .meta
                .as_ref()
                .and_then(atomic::mode_of)
                .map(|m| m & 0o777);
            match op {
                Op::Write { bytes, .. } => Change {
                    target,
                    base: Some(bytes),
                    data: old,
                    mode: old_mode,
                },
                Op::Delete { .. } => Change {
                    target,
                    base: None,
                    data: old,
                    mode: old_mode,
                },
            }
        })
        .collect();
    commit_all(editor, session, &changes)
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// Performs `ops`: in one batch, or two when a file must be deleted before a directory takes
/// its name; the journal around them. The new SHA-256 of every file written.
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
        let changes: Vec<Planned> = ops
            .iter()
            .map(|op| {
                let entry = &disk.entries[op.name()];
                Planned {
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
    let first: Vec<&Op> = ops
        .iter()
        .filter(|op| !matches!(op, Op::Write { later: true, .. }))
        .collect();
    let second: Vec<&Op> = ops
        .iter()
        .filter(|op| matches!(op, Op::Write { later: true, .. }))
        .collect();
    let end = |journal: Option<Journal>, outcome: String| -> Refused {
        if let Some(journal) = journal {
            if let Err(e) = journal.end() {
                minimcp_base::log::warn(format_args!("a patch journal could not be removed: {e}"));
            }
        }
        Refused::Message(outcome)
    };
    let mut hashes = match commit_batch(editor, session, disk, &root, &first) {
        Ok(hashes) => hashes,
        Err(message) => {
            let changed = written_by(disk, &root, &first);
            if changed.is_empty() {
                return Err(end(
                    journal,
                    format!("{}. Nothing was written.", message.trim_end_matches('.')),
                ));
            }
            // Publishing failed part-way (a disk error): the journal stays, as after a crash.
            return Err(Refused::Message(format!("{message} These files hold the patch's content: {}; the others are as they were (the journal in the root lists them)", changed.join(", "))));
        }
    };
    for op in &first {
        if let Op::Delete { name } = op {
            remove_empty_parents(&root, &disk.entries[name].local);
        }
    }
    if !second.is_empty() {
        match commit_batch(editor, session, disk, &root, &second) {
            Ok(more) => hashes.extend(more),
            Err(message) => {
                let outcome = match undo(editor, session, disk, &root, &first) {
                    Ok(()) => "every file it had written was restored: nothing changed".to_string(),
                    Err(e) => format!(
                        "the files written before could not be restored ({e}): {}",
                        written_by(disk, &root, &first).join(", ")
                    ),
                };
                return Err(end(journal, format!("{message}; {outcome}")));
            }
        }
    }
    if let Some(journal) = journal {
        if let Err(e) = journal.end() {
            minimcp_base::log::warn(format_args!("a patch journal could not be removed: {e}"));
        }
    }
    Ok(first
        .iter()
        .chain(&second)
        .zip(hashes)
        .filter_map(|(op, hash)| hash.map(|h| (op.name().to_string(), h)))
        .collect())
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
