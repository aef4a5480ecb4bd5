//! The workspace as a patch sees it ([`Tree`] for `plan.rs`): each name the patch gives is
//! placed in a root and checked by the workspace's rules before anything is read, and every
//! file read is remembered for the commit, the journal and the conflict check.
//!
//! - All names must be in one root (`git apply` works in one tree).
//! - The deny list, `.git`, the reserved names of temporary files and journals, and the
//!   depth limit are refused as for the other edit tools.
//! - No symbolic link is followed, as the last component or on the way (`git apply` refuses
//!   "beyond a symbolic link" too): a patch names files by their own paths.
//! - A file read must be a regular file within `--max-write-bytes`, unchanged since this
//!   session last saw it (`guard.rs`); the bytes read by one patch (and the results) are
//!   bounded by [`MAX_PATCH_BYTES_FACTOR`] × `--max-write-bytes`.

use std::collections::HashMap;
use std::fs::{self, Metadata};
use std::io;
use std::path::PathBuf;

use super::plan::{Refused, Stat, Tree};
use crate::edit::atomic;
use crate::edit::guard::{self, Need};
use crate::edit::Editor;
use crate::workspace::sandbox::{PathError, RelPath, Sandbox, MAX_WRITE_DEPTH};
use crate::workspace::target::{is_journal_name, is_temp_name, Target};

/// A patch reads and makes at most this many times `--max-write-bytes` in all.
pub(crate) const MAX_PATCH_BYTES_FACTOR: u64 = 16;

/// The owner's execute bit (git's 100755).
pub(crate) fn is_exec(meta: &Metadata) -> bool {
    atomic::mode_of(meta).is_some_and(|m| m & 0o100 != 0)
}

/// What the patch found at one name.
pub(crate) struct Entry {
    /// Below the root.
    pub(crate) local: RelPath,
    /// As the client sees it (with the root's label when there are several).
    pub(crate) shown: RelPath,
    pub(crate) stat: Stat,
    /// The file's metadata, when it is one.
    pub(crate) meta: Option<Metadata>,
    /// Its bytes and their SHA-256, once read.
    pub(crate) content: Option<(Vec<u8>, String)>,
}

impl Entry {
    /// The file as a write target (its directory is its path's: no link is on the way).
    pub(crate) fn target(&self, sandbox: &Sandbox) -> Target {
        let parent = self
            .local
            .as_str()
            .rsplit_once('/')
            .map_or("", |(dir, _)| dir);
        let dir = if parent.is_empty() {
            sandbox.root().to_path_buf()
        } else {
            sandbox.root().join(parent)
        };
        Target {
            rel: self.shown.clone(),
            dir,
            name: self.local.name().to_string(),
            existing: self.meta.clone(),
            sandbox: sandbox.clone(),
        }
    }
}

/// The workspace side of one `apply_patch` call.
pub(crate) struct Disk<'e> {
    editor: &'e Editor,
    session: Option<u64>,
    pub(crate) root: Option<Sandbox>,
    pub(crate) entries: HashMap<String, Entry>,
    /// Bytes read and made so far, and the bound.
    pub(crate) bytes: u64,
    pub(crate) max_bytes: u64,
}

fn refuse<T>(message: impl Into<String>) -> Result<T, Refused> {
    Err(Refused::Message(message.into()))
}

impl<'e> Disk<'e> {
    pub(crate) fn new(editor: &'e Editor, session: Option<u64>) -> Disk<'e> {
        Disk {
            editor,
            session,
            root: None,
            entries: HashMap::new(),
            bytes: 0,
            max_bytes: editor
                .ws
                .max_write_bytes
                .saturating_mul(MAX_PATCH_BYTES_FACTOR),
        }
    }

    /// The largest file the server writes (`--max-write-bytes`).
    pub(crate) fn max_write_bytes(&self) -> u64 {
        self.editor.ws.max_write_bytes
    }

    /// Counts `n` more bytes against the bound.
    pub(crate) fn charge(&mut self, n: u64) -> Result<(), Refused> {
        self.bytes = self.bytes.saturating_add(n);
        if self.bytes > self.max_bytes {
            return refuse(format!(
                "the patch reads and writes more than {} bytes in all ({} × --max-write-bytes); send it in smaller parts",
                self.max_bytes, MAX_PATCH_BYTES_FACTOR
            ));
        }
        Ok(())
    }

    /// Places `name` in the root and checks it.
    fn locate(&mut self, name: &str) -> Result<Entry, Refused> {
        let (sandbox, local) = self
            .editor
            .ws
            .locate(name)
            .map_err(|e| Refused::Message(e.to_string()))?;
        let shown = sandbox.label().join_rel(local.as_str());
        match &self.root {
            Some(root) if root.root() != sandbox.root() => {
                return refuse(format!(
                    "`{shown}` is in another workspace root than the patch's other files; a patch applies within one root (send one patch per root)"
                ))
            }
            Some(_) => {}
            None => self.root = Some(sandbox.clone()),
        }
        if local.as_str().is_empty() {
            return refuse("a file section names the root directory itself");
        }
        if is_temp_name(local.name()) || is_journal_name(local.name()) {
            return refuse(format!("`{shown}` has the form of the server's temporary files or patch journals, which are reserved"));
        }
        if local.components().count() > MAX_WRITE_DEPTH {
            return refuse(format!(
                "`{shown}` is more than {MAX_WRITE_DEPTH} directories below its root; the edit tools do not write that deep"
            ));
        }
        if sandbox.is_denied(&local, false) || sandbox.is_denied(&local, true) {
            return refuse(format!(
                "`{shown}` is refused: the server's deny list (--deny) hides it from every tool"
            ));
        }
        if sandbox.is_write_denied(&local, false) {
            return refuse(PathError::WriteDenied(shown).to_string());
        }
        let stat = self.walk(&sandbox, &local, &shown)?;
        let meta = match stat {
            Stat::File { .. } => fs::symlink_metadata(sandbox.root().join(local.as_str())).ok(),
            _ => None,
        };
        Ok(Entry {
            local,
            shown,
            stat,
            meta,
            content: None,
        })
    }

    /// What `local` is, following no link.
    fn walk(&self, sandbox: &Sandbox, local: &RelPath, shown: &RelPath) -> Result<Stat, Refused> {
        let mut real: PathBuf = sandbox.root().to_path_buf();
        let count = local.components().count();
        for (i, name) in local.components().enumerate() {
            real.push(name);
            let last = i + 1 == count;
            let meta = match fs::symlink_metadata(&real) {
                Ok(meta) => meta,
                Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Stat::Missing),
                Err(e) if e.kind() == io::ErrorKind::NotADirectory => return Ok(Stat::NotDir),
                Err(e) => return refuse(format!("`{shown}` cannot be examined: {}", e.kind())),
            };
            if meta.file_type().is_symlink() {
                return refuse(if last {
                    format!("`{shown}` is a symbolic link; apply_patch does not follow or change links (nor does git apply). Patch the file it points to by its own path")
                } else {
                    format!("`{shown}` is beyond a symbolic link (a directory on its way is a link); apply_patch does not follow links (nor does git apply). Name the file by its real path")
                });
            }
            if last {
                return Ok(if meta.is_dir() {
                    Stat::Dir
                } else if meta.is_file() {
                    Stat::File {
                        exec: is_exec(&meta),
                    }
                } else {
                    Stat::Special
                });
            }
            if !meta.is_dir() {
                return Ok(Stat::NotDir);
            }
        }
        Ok(Stat::Dir)
    }
}

impl Tree for Disk<'_> {
    fn stat(&mut self, name: &str) -> Result<Stat, Refused> {
        if let Some(entry) = self.entries.get(name) {
            return Ok(entry.stat);
        }
        let entry = self.locate(name)?;
        let stat = entry.stat;
        self.entries.insert(name.to_string(), entry);
        Ok(stat)
    }

    fn read(&mut self, name: &str) -> Result<Vec<u8>, Refused> {
        self.stat(name)?;
        let root = self
            .root
            .clone()
            .ok_or_else(|| Refused::Message("no root".into()))?;
        let max = self.editor.ws.max_write_bytes;
        let entry = self
            .entries
            .get(name)
            .ok_or_else(|| Refused::Message("no entry".into()))?;
        if let Some((bytes, _)) = &entry.content {
            return Ok(bytes.clone());
        }
        match entry.stat {
            Stat::File { .. } => {}
            Stat::Dir => return refuse(format!("`{}` is a directory, not a file", entry.shown)),
            _ => return refuse(format!("`{}` cannot be read as a file", entry.shown)),
        }
        let target = entry.target(&root);
        let (bytes, hash) =
            guard::current(&target, max).map_err(|e| Refused::Message(e.to_string()))?;
        guard::check(
            &self.editor.ws,
            self.session,
            &target,
            Some(&hash),
            None,
            Need::Matched,
        )
        .map_err(|e| Refused::Message(e.to_string()))?;
        self.charge(bytes.len() as u64)?;
        let entry = self
            .entries
            .get_mut(name)
            .ok_or_else(|| Refused::Message("no entry".into()))?;
        entry.content = Some((bytes.clone(), hash));
        Ok(bytes)
    }
}
