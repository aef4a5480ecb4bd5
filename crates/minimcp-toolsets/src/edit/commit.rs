//! Putting changes to one or several files in place, all or none, as one step against every
//! other minimcp process: each file still holds exactly the bytes its change was computed
//! from when it is replaced, and nobody else replaces it in between.
//!
//! 1. Every new content is written to its temporary file, `fsync`ed and locked
//!    (`atomic::Prepared`): the slow part, done before anything is locked or checked.
//! 2. Every existing target is locked (`lock.rs`) in ascending order of its canonical path,
//!    the same order in every process, so two writers of overlapping sets of files never wait
//!    for each other in a circle; the wait for all of them together is bounded by
//!    `LOCK_WAIT`. Under its lock each file is read through the locked handle and compared
//!    byte for byte with the bytes the change was computed from; a file to be created must
//!    still be absent. Any difference refuses the whole commit, nothing written.
//! 3. New files are linked into place first (a name that appeared meanwhile refuses the
//!    commit, and the files this commit created are removed again), then each replaced file
//!    is checked to still be at its path and the new one renamed over it, and files to delete
//!    are removed. The directories are `fsync`ed, then every lock is let go.
//!
//! Another program that takes no part in the locking (an editor) can still change a file
//! after it was read under the lock and before the rename; that window is logged at debug
//! level for each file (and measured in SECURITY.md).

use std::collections::BTreeSet;
use std::fs;
use std::io;
use std::path::PathBuf;
use std::time::Instant;

use super::atomic::{read_only, Prepared};
use super::lock::{self, Held, LockError, LOCK_WAIT};
use super::Editor;
use crate::workspace::sandbox::{PathError, RelPath, Sandbox};
use crate::workspace::target::{links, CheckedDir, Target};
use minimcp::HandlerError;
use minimcp_base::encoding::sha256_hex;
use minimcp_base::log;

/// One file of a commit.
pub(crate) struct Change<'a> {
    /// The checked file (`Sandbox::write_target`).
    pub(crate) target: &'a Target,
    /// The bytes the change was computed from, as they were read; `None`: the file must not
    /// exist (it is created).
    pub(crate) base: Option<&'a [u8]>,
    /// The new content; `None`: the file is deleted.
    pub(crate) data: Option<&'a [u8]>,
    /// The new file's permission bits (Unix, the lowest nine), set before it appears; `None`:
    /// the replaced file's, or the default (`0666` less the umask) for a new one.
    pub(crate) mode: Option<u32>,
}

/// Puts every change in place or none. Returns each change's new SHA-256 (`None` for a
/// deletion), which the session now knows.
pub(crate) fn commit_all(
    editor: &Editor,
    session: Option<u64>,
    changes: &[Change<'_>],
) -> Result<Vec<Option<String>>, HandlerError> {
    let mut seen = BTreeSet::new();
    for change in changes {
        if change.base.is_none() && change.data.is_none() {
            return Err(HandlerError::Invalid(format!(
                "`{}`: nothing to create and nothing to delete",
                change.target.rel
            )));
        }
        if !seen.insert(change.target.path()) {
            return Err(HandlerError::Invalid(format!(
                "`{}` is named twice; change each file once",
                change.target.rel
            )));
        }
        refuse_read_only(change.target, change.target.existing.as_ref())?;
    }
    // One handle per directory; each file holds two more (its new content and its lock)
    // until the commit is done.
    let mut opened: Vec<(&PathBuf, CheckedDir)> = Vec::new();
    let mut dir_of = Vec::with_capacity(changes.len());
    for change in changes {
        let target = change.target;
        match opened.iter().position(|(path, _)| **path == target.dir) {
            Some(at) => dir_of.push(at),
            None => {
                dir_of.push(opened.len());
                let dir = target.sandbox.open_dir(&target.dir, &target.rel)?;
                opened.push((&target.dir, dir));
            }
        }
    }
    let dirs: Vec<&CheckedDir> = dir_of.iter().map(|&at| &opened[at].1).collect();
    let mut prepared = Vec::with_capacity(changes.len());
    for (change, &dir) in changes.iter().zip(&dirs) {
        prepared.push(match change.data {
            Some(data) => Some(
                Prepared::new(dir, data, change.target.existing.as_ref(), change.mode)
                    .map_err(|e| not_written(change.target, &e))?,
            ),
            None => None,
        });
    }
    let mut order: Vec<usize> = (0..changes.len()).collect();
    order.sort_by_key(|&i| changes[i].target.path());
    let until = Instant::now() + LOCK_WAIT;
    let mut held: Vec<Option<Held>> = changes.iter().map(|_| None).collect();
    let mut checked_at: Vec<Option<Checked>> = changes.iter().map(|_| None).collect();
    for &i in &order {
        let (change, dir) = (&changes[i], dirs[i]);
        match change.base {
            Some(base) => {
                let (file, checked) = verify(editor, change.target, dir, base, until)?;
                if let Some(new) = &prepared[i] {
                    new.keep(file.meta())
                        .map_err(|e| not_written(change.target, &e))?;
                }
                held[i] = Some(file);
                checked_at[i] = Some(checked);
            }
            None => {
                if fs::symlink_metadata(dir.entry(&change.target.name)).is_ok() {
                    return Err(appeared(change.target));
                }
            }
        }
    }
    publish(changes, &dirs, &mut prepared, &mut held, &checked_at)?;
    for (at, (_, dir)) in opened.iter().enumerate() {
        if let Some(i) = dir_of.iter().position(|&d| d == at) {
            dir.sync().map_err(|e| not_synced(changes[i].target, &e))?;
        }
    }
    drop(held);
    drop(prepared);
    Ok(changes
        .iter()
        .map(|change| {
            let path = change.target.path();
            match change.data {
                Some(data) => {
                    let hash = sha256_hex(data);
                    editor.ws.served.record(session, &path, &hash);
                    Some(hash)
                }
                None => {
                    editor.ws.served.forget(&path);
                    None
                }
            }
        })
        .collect())
}

/// `Sandbox::write_target`, waiting out another writer's new file: for an instant it has two
/// names (its temporary one too), which `write_target` refuses as a hard-linked file, while
/// its writer holds its lock.
pub(crate) fn write_target(sandbox: &Sandbox, local: &RelPath) -> Result<Target, HandlerError> {
    match sandbox.write_target(local) {
        Err(PathError::HardLinked(_)) => {
            let entry = sandbox.entry_at(local)?;
            if let Ok(dir) = sandbox.open_dir(&entry.dir, &entry.rel) {
                drop(lock::lock(&dir, &entry.name, Instant::now() + LOCK_WAIT));
            }
            Ok(sandbox.write_target(local)?)
        }
        other => Ok(other?),
    }
}

/// When a file was checked under its lock: from then until the rename, a program that takes
/// no part in the locking can still change it unseen.
pub(crate) struct Checked {
    /// Reading the file began (a change to a part already read is not seen).
    read: Instant,
    /// The bytes were compared.
    compared: Instant,
}

/// Locks `target` and checks, under the lock, that it holds exactly `base`; the lock, and when
/// the file was read and compared under it.
pub(crate) fn verify(
    editor: &Editor,
    target: &Target,
    dir: &CheckedDir,
    base: &[u8],
    until: Instant,
) -> Result<(Held, Checked), HandlerError> {
    let file = lock::lock(dir, &target.name, until).map_err(|e| refusal(target, base, e))?;
    if links(file.meta()) > 1 {
        return Err(PathError::HardLinked(target.rel.clone()).into());
    }
    refuse_read_only(target, Some(file.meta()))?;
    let max = editor.ws.max_write_bytes;
    let read = Instant::now();
    let now = file
        .read(max)
        .map_err(|e| HandlerError::from(PathError::Io(target.rel.clone(), e.kind())))?;
    match now {
        Some(now) if now == base => Ok((
            file,
            Checked {
                read,
                compared: Instant::now(),
            },
        )),
        Some(now) => Err(changed(target, base, &format!("now {}", sha256_hex(&now)))),
        None => Err(changed(
            target,
            base,
            &format!("now more than --max-write-bytes ({max})"),
        )),
    }
}

/// Puts the checked changes in place: creations first, then replacements and deletions.
fn publish(
    changes: &[Change<'_>],
    dirs: &[&CheckedDir],
    prepared: &mut [Option<Prepared<'_>>],
    held: &mut [Option<Held>],
    checked_at: &[Option<Checked>],
) -> Result<(), HandlerError> {
    let mut created: Vec<usize> = Vec::new();
    for i in (0..changes.len()).filter(|&i| changes[i].base.is_none()) {
        let Some(new) = prepared[i].as_mut() else {
            continue;
        };
        match new.create(&changes[i].target.name) {
            Ok(()) => created.push(i),
            Err(e) => {
                for &j in &created {
                    take_back(dirs[j], &changes[j].target.name, prepared[j].as_ref());
                }
                return Err(if e.kind() == io::ErrorKind::AlreadyExists {
                    appeared(changes[i].target)
                } else {
                    not_written(changes[i].target, &e)
                });
            }
        }
    }
    // A program that takes no part in the locking may have renamed a file over one of them
    // since it was checked: the last look before anything is replaced.
    for (i, file) in held.iter().enumerate() {
        if let Some(file) = file {
            if !file
                .is_at(dirs[i], &changes[i].target.name)
                .unwrap_or(false)
            {
                for &j in &created {
                    take_back(dirs[j], &changes[j].target.name, prepared[j].as_ref());
                }
                let base = changes[i].base.unwrap_or_default();
                return Err(changed(changes[i].target, base, "it was replaced"));
            }
        }
    }
    let mut done: Vec<String> = created
        .iter()
        .map(|&i| changes[i].target.rel.to_string())
        .collect();
    for (i, change) in changes.iter().enumerate() {
        if change.base.is_none() {
            continue;
        }
        let name = &change.target.name;
        let new = &mut prepared[i];
        let result = lock::replace_locked(
            || drop(held[i].take()),
            || match new.as_mut() {
                Some(new) => new.replace(name),
                None => fs::remove_file(dirs[i].entry(name)),
            },
        );
        if let Err(e) = result {
            let e = if lock::held_open(&e) {
                format!("{e}: it is being changed by another writer, which holds it open, and Windows replaces no open file; try again in a moment")
            } else {
                e.to_string()
            };
            return Err(HandlerError::Invalid(match done.as_slice() {
                [] => format!(
                    "`{}` could not be written ({e}); nothing was written",
                    change.target.rel
                ),
                done => format!(
                    "`{}` could not be written ({e}); it was left as it was, but {} had already been changed",
                    change.target.rel,
                    done.iter().map(|d| format!("`{d}`")).collect::<Vec<_>>().join(", ")
                ),
            }));
        }
        if let Some(checked) = &checked_at[i] {
            log::debug(format_args!(
                "`{}`: unguarded for {} µs from reading it under the lock to the rename, {} µs from the comparison ({} bytes)",
                change.target.rel,
                checked.read.elapsed().as_micros(),
                checked.compared.elapsed().as_micros(),
                change.base.map_or(0, <[u8]>::len)
            ));
        }
        done.push(change.target.rel.to_string());
    }
    Ok(())
}

/// Removes a file this commit created, when the name still holds it.
fn take_back(dir: &CheckedDir, name: &str, new: Option<&Prepared<'_>>) {
    let Some(ours) = new.and_then(|n| n.meta().ok()) else {
        return;
    };
    if fs::symlink_metadata(dir.entry(name)).is_ok_and(|now| lock::same_file(&ours, &now)) {
        let _ = fs::remove_file(dir.entry(name));
    }
}

/// Renaming over a file needs only the directory's permission: a file its owner made
/// read-only would be replaced all the same, so that mark is honoured here.
fn refuse_read_only(target: &Target, meta: Option<&fs::Metadata>) -> Result<(), HandlerError> {
    if meta.is_some_and(read_only) {
        return Err(HandlerError::Invalid(format!(
            "`{}` is read-only (no write permission), so it is not replaced; make it writable first if it should change",
            target.rel
        )));
    }
    Ok(())
}

/// The refusal when `target` could not be locked (`base`: what the change was computed from).
pub(crate) fn refusal(target: &Target, base: &[u8], error: LockError) -> HandlerError {
    match error {
        LockError::Gone => changed(target, base, "it was removed"),
        LockError::NotAFile => changed(target, base, "it is no longer a regular file"),
        LockError::Busy => HandlerError::Invalid(format!(
            "`{}` is being changed by another writer: it stayed locked for {} s (another minimcp server writing it, or a program holding a lock on it). Nothing was written; try again in a moment.",
            target.rel,
            LOCK_WAIT.as_secs()
        )),
        LockError::Io(e) => HandlerError::Invalid(format!(
            "`{}` could not be locked against other writers ({e}); nothing was written",
            target.rel
        )),
    }
}

/// The refusal when the file is not what the change was computed from.
fn changed(target: &Target, base: &[u8], now: &str) -> HandlerError {
    HandlerError::Invalid(format!(
        "`{}` was changed by another writer while this change was being made (SHA-256 then {}, {now}). Nothing was written. Read it again and redo the change against what it holds now.",
        target.rel,
        sha256_hex(base)
    ))
}

/// The refusal when a file to create appeared meanwhile.
fn appeared(target: &Target) -> HandlerError {
    HandlerError::Invalid(format!(
        "`{}` was changed by another writer while this change was being made: it did not exist then, and now it does. Nothing was written. Read it, then redo the change against what it holds.",
        target.rel
    ))
}

fn not_written(target: &Target, e: &io::Error) -> HandlerError {
    HandlerError::Invalid(format!(
        "`{}` could not be written ({e}); it was left as it was",
        target.rel
    ))
}

fn not_synced(target: &Target, e: &io::Error) -> HandlerError {
    HandlerError::Invalid(format!(
        "`{}` was written, but its directory could not be flushed to disk ({e})",
        target.rel
    ))
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;
    use std::rc::Rc;

    use super::*;
    use crate::workspace::testutil::TempTree;
    use crate::workspace::Workspace;

    fn editor(tree: &TempTree) -> Editor {
        let editor = Editor {
            ws: Rc::new(Workspace::open(&tree.path).expect("workspace")),
            swept: RefCell::new(Vec::new()),
            interrupted: RefCell::new(Vec::new()),
        };
        editor.ws.served.enable();
        editor
    }

    fn target(editor: &Editor, path: &str) -> Target {
        let sandbox = editor.ws.roots()[0].clone();
        write_target(&sandbox, &RelPath::parse(path).expect("path")).expect("a target")
    }

    fn names(tree: &TempTree) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(&tree.path)
            .expect("list")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn several_files_change_together_or_not_at_all() {
        let tree = TempTree::new("commit-all");
        tree.file("a.txt", "a1")
            .file("b.txt", "b1")
            .file("gone.txt", "g1");
        let editor = editor(&tree);
        let (a, b, gone, new) = (
            target(&editor, "a.txt"),
            target(&editor, "b.txt"),
            target(&editor, "gone.txt"),
            target(&editor, "new.sh"),
        );
        let change = |target, base, data, mode| Change {
            target,
            base,
            data,
            mode,
        };
        // b.txt is not what this batch was computed from: nothing at all is written.
        let stale = [
            change(&a, Some(&b"a1"[..]), Some(&b"a2"[..]), None),
            change(&b, Some(&b"b0"[..]), Some(&b"b2"[..]), None),
            change(&new, None, Some(&b"#!/bin/sh\n"[..]), Some(0o755)),
            change(&gone, Some(&b"g1"[..]), None, None),
        ];
        let Err(HandlerError::Invalid(why)) = commit_all(&editor, Some(1), &stale) else {
            panic!("a stale base must refuse the batch");
        };
        assert!(
            why.contains("`b.txt` was changed by another writer"),
            "{why}"
        );
        assert!(
            why.contains(&sha256_hex(b"b1")),
            "names the hash now: {why}"
        );
        assert_eq!(
            names(&tree),
            ["a.txt", "b.txt", "gone.txt"],
            "nothing written, no leftovers"
        );
        assert_eq!(fs::read(tree.path.join("a.txt")).expect("a"), b"a1");

        let fresh = [
            change(&a, Some(&b"a1"[..]), Some(&b"a2"[..]), None),
            change(&b, Some(&b"b1"[..]), Some(&b"b2"[..]), None),
            change(&new, None, Some(&b"#!/bin/sh\n"[..]), Some(0o755)),
            change(&gone, Some(&b"g1"[..]), None, None),
        ];
        let hashes = commit_all(&editor, Some(1), &fresh).expect("the batch applies");
        assert_eq!(hashes[0].as_deref(), Some(sha256_hex(b"a2").as_str()));
        assert_eq!(hashes[3], None, "a deletion has no hash");
        assert_eq!(names(&tree), ["a.txt", "b.txt", "new.sh"]);
        assert_eq!(fs::read(tree.path.join("b.txt")).expect("b"), b"b2");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = fs::metadata(tree.path.join("new.sh"))
                .expect("meta")
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o755);
        }
        assert_eq!(
            editor.ws.served.last(1, &a.path()).as_deref(),
            Some(sha256_hex(b"a2").as_str()),
            "the session knows what it wrote"
        );
    }

    #[test]
    fn a_file_that_appeared_or_a_name_given_twice_refuses_the_batch() {
        let tree = TempTree::new("commit-appeared");
        tree.file("a.txt", "a1");
        let editor = editor(&tree);
        let (a, new) = (target(&editor, "a.txt"), target(&editor, "new.txt"));
        tree.file("new.txt", "someone else's");
        let batch = [
            Change {
                target: &a,
                base: Some(b"a1"),
                data: Some(b"a2"),
                mode: None,
            },
            Change {
                target: &new,
                base: None,
                data: Some(b"mine"),
                mode: None,
            },
        ];
        let Err(HandlerError::Invalid(why)) = commit_all(&editor, None, &batch) else {
            panic!("a file that appeared must refuse the batch");
        };
        assert!(
            why.contains("it did not exist then, and now it does"),
            "{why}"
        );
        assert_eq!(
            fs::read(tree.path.join("new.txt")).expect("new"),
            b"someone else's"
        );
        assert_eq!(fs::read(tree.path.join("a.txt")).expect("a"), b"a1");
        let twice = [
            Change {
                target: &a,
                base: Some(b"a1"),
                data: Some(b"x"),
                mode: None,
            },
            Change {
                target: &a,
                base: Some(b"a1"),
                data: Some(b"y"),
                mode: None,
            },
        ];
        assert!(commit_all(&editor, None, &twice).is_err());
        assert_eq!(names(&tree), ["a.txt", "new.txt"]);
    }
}
