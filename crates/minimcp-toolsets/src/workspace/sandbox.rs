//! Path confinement: the security core of the workspace toolset.
//!
//! Every path a client gives passes two gates before the file system is asked anything else:
//!
//! 1. [`RelPath::parse`] is lexical. It refuses NUL bytes, backslashes, absolute paths
//!    (including `C:` drive paths), `~`, `..`, `.git`, and over-long paths or components,
//!    and normalizes what is left to `/`-separated normal components. (Absolute paths inside
//!    a root are made relative to it first, by the workspace, never by resolving `..`.)
//! 2. [`Sandbox::resolve`] walks those components one at a time from the canonical root.
//!    A component that is a symbolic link is canonicalized *on its own* and must still lie
//!    inside the root, compared by path components (so `/work/ws-evil` is not inside
//!    `/work/ws`). Checking each link as it is met, rather than canonicalizing the whole
//!    path at the end, means a client cannot append names behind an escaping link to probe
//!    what exists outside: the answer is "leads outside" whatever follows.
//!
//! Elsewhere than Linux the whole path is then canonicalized once more: a name may be a
//! link the walk could not see (Wine shows Unix links as plain files), or spell a file
//! other than by its own name (`.ENV` for `.env` on a case-insensitive volume, `a.txt.` or a
//! short name on Windows), and the checks below must see the names the file system stores.
//!
//! Files are then opened by [`Sandbox::open_regular`], which opens without blocking (a FIFO
//! would otherwise hang the single-threaded server), checks with `fstat` that it got a
//! regular file, and on Linux checks through `/proc/self/fd` that the file it opened really
//! is inside the root — closing the window in which a path component could be swapped for a
//! symbolic link between the check and the open. Without `/proc/self/fd` the checked path
//! must still name the opened file ([`still_names`]: device and inode on Unix, a second
//! canonicalization on Windows), which narrows that window without closing it.
//!
//! Walks list each directory through a handle checked the same way ([`Sandbox::list_dir`]),
//! so a listing names what the checked directory holds; a file it names is then opened by
//! [`Sandbox::open_listed`], which accepts it without the `/proc` round trip when the
//! opened file has the device and inode number the listing gave (it is that very file),
//! and falls back to the full check otherwise.
//!
//! A path the deny list matches — by the name asked for or by the file it leads to, letter
//! case ignored — is refused as [`PathError::Denied`] after resolution.
//!
//! Error messages name the problem and the path as the client gave it (root-relative, with
//! the root's label first when there are several roots).

use std::fs::{self, File, Metadata};
use std::io::{self, Read};
use std::path::{Component, Path, PathBuf};
use std::rc::Rc;

use super::gitignore::Rules;
#[cfg(feature = "edit")]
pub(crate) use super::path::MAX_WRITE_DEPTH;
pub(crate) use super::path::{PathError, RelPath, NO_ROOT};
use super::platform::{
    file_id, folds_case, open_nonblocking, opened_path, read_dir_of, still_names, FileId,
    OPEN_NEVER_BLOCKS,
};

/// A path that passed both gates.
#[derive(Debug, Clone)]
pub(crate) struct Resolved {
    /// The path as the client gave it (normalized).
    pub(crate) rel: RelPath,
    /// The canonical path on disk, inside the root.
    pub(crate) real: PathBuf,
    /// `real`, relative to the root (differs from `rel` when a link inside the root was
    /// followed).
    pub(crate) real_rel: RelPath,
    /// The metadata of `real` (links followed).
    pub(crate) meta: Metadata,
    /// The root it was found in.
    pub(crate) sandbox: Sandbox,
}

/// One workspace root, canonicalized once when it is configured. Cheap to clone.
#[derive(Debug, Clone)]
pub(crate) struct Sandbox {
    root: Rc<Path>,
    /// The root as configured, made absolute (not canonicalized): how URIs name it.
    given: Rc<Path>,
    /// With several roots, the name paths of this root start with (`""` with one root).
    label: RelPath,
    /// Files hidden and refused everywhere (`--deny`), matched like `.gitignore` rules.
    deny: Rc<Rules>,
    /// True when the root's volume ignores letter case in names (see [`folds_case`]).
    fold: bool,
    /// Files never written (`--deny-write`): see [`Sandbox::is_write_denied`].
    deny_write: Rc<Rules>,
}

impl Sandbox {
    /// A sandbox for `root`, which must be an existing directory. The message is for the
    /// operator (it goes to stderr at startup), so it may name the path.
    pub(crate) fn new(root: &Path) -> Result<Sandbox, String> {
        let asked = root;
        let shown = root.display();
        let root = fs::canonicalize(root).map_err(|e| match e.kind() {
            io::ErrorKind::NotFound => format!("the workspace root {shown} does not exist"),
            _ => format!("the workspace root {shown} cannot be opened: {e}"),
        })?;
        if !root.is_dir() {
            return Err(format!("the workspace root {shown} is not a directory"));
        }
        fs::read_dir(&root)
            .map_err(|e| format!("the workspace root {shown} cannot be listed: {e}"))?;
        // URIs spell the root as configured (made absolute), when that still names it.
        let given = std::path::absolute(asked)
            .ok()
            .filter(|given| fs::canonicalize(given).is_ok_and(|same| same == root))
            .unwrap_or_else(|| root.clone());
        Ok(Sandbox {
            fold: folds_case(&root),
            root: root.into(),
            given: given.into(),
            label: RelPath::root(),
            deny: Rc::new(Rules::default()),
            deny_write: Rc::new(Rules::default()),
        })
    }

    /// This sandbox with a deny list, and a write deny list whose patterns are lowercased.
    pub(crate) fn with_deny(mut self, deny: Rc<Rules>, deny_write: Rc<Rules>) -> Sandbox {
        self.deny = deny;
        self.deny_write = deny_write;
        self
    }

    /// This sandbox as one of several roots, its paths shown below `label`.
    pub(crate) fn with_label(mut self, label: &str) -> Sandbox {
        self.label = RelPath(label.to_string());
        self
    }

    /// The canonical root, for opening files.
    pub(crate) fn root(&self) -> &Path {
        &self.root
    }

    /// The root as configured (absolute, not canonicalized): what URIs and absolute paths
    /// are spelled from.
    pub(crate) fn given(&self) -> &Path {
        &self.given
    }

    /// True when the root's volume ignores letter case: absolute paths are matched against
    /// the root without regard to it.
    pub(crate) fn folds_case(&self) -> bool {
        self.fold
    }

    /// With several roots, the first component of every path in this root (`""` otherwise).
    pub(crate) fn label(&self) -> &RelPath {
        &self.label
    }

    /// True when the deny list hides the entry `local` itself (its directories were checked
    /// when the walk entered them): one rule check per entry, not one per component.
    pub(crate) fn is_denied_entry(&self, local: &RelPath, is_dir: bool) -> bool {
        !self.deny.is_empty() && self.deny.decide(local.as_str(), is_dir) == Some(true)
    }

    /// True when the deny list hides `local` (a root-relative path) or a directory above it.
    pub(crate) fn is_denied(&self, local: &RelPath, is_dir: bool) -> bool {
        denies(&self.deny, local.as_str(), is_dir)
    }

    /// True when the write deny list refuses `local` (a root-relative path) or a directory
    /// above it to the edit tools. Compared without regard to case or Unicode normalization,
    /// as the deny list is: on a file system that ignores case (macOS, Windows),
    /// `.SSH/Authorized_Keys` is `.ssh/authorized_keys`.
    #[cfg_attr(
        not(feature = "edit"),
        allow(dead_code, reason = "only the edit toolset writes")
    )]
    pub(crate) fn is_write_denied(&self, local: &RelPath, is_dir: bool) -> bool {
        denies(&self.deny_write, local.as_str(), is_dir)
    }

    /// True when the canonical path `real` is the root or below it, compared by components.
    pub(crate) fn contains(&self, real: &Path) -> bool {
        real.starts_with(&self.root)
    }

    /// `real` (canonical, inside the root) relative to the root.
    pub(crate) fn relative(&self, real: &Path) -> Option<RelPath> {
        let rest = real.strip_prefix(&self.root).ok()?;
        let mut out = RelPath::root();
        for component in rest.components() {
            match component {
                Component::Normal(name) => out = out.join(name.to_str()?),
                _ => return None,
            }
        }
        Some(out)
    }

    /// Finds `rel` on disk (gate 2): component by component, checking every symbolic link.
    pub(crate) fn resolve(&self, rel: &RelPath) -> Result<Resolved, PathError> {
        let mut real = self.root.to_path_buf();
        let mut asked = self.label.clone();
        for name in rel.components() {
            let parent = asked.clone();
            asked = asked.join(name);
            let next = real.join(name);
            let meta = fs::symlink_metadata(&next).map_err(|e| match e.kind() {
                io::ErrorKind::NotADirectory => PathError::NotADirectory(parent.clone()),
                // Windows says "path not found" for a name below a file.
                io::ErrorKind::NotFound if cfg!(windows) && real.is_file() => {
                    PathError::NotADirectory(parent.clone())
                }
                _ => io_error(&asked, &e),
            })?;
            real = if meta.file_type().is_symlink() {
                self.follow(&next, &asked)?
            } else {
                next
            };
        }
        #[cfg(not(target_os = "linux"))]
        let real = self.settle(&real, &asked)?;
        let real_rel = self
            .relative(&real)
            .ok_or_else(|| PathError::NotUtf8(asked.clone()))?;
        if real_rel
            .components()
            .any(|c| c.eq_ignore_ascii_case(".git"))
        {
            return Err(PathError::Git);
        }
        let meta = fs::metadata(&real).map_err(|e| io_error(&asked, &e))?;
        // Both the name asked for and the file it leads to: a link to `.env` is refused too.
        if self.is_denied(rel, meta.is_dir()) || self.is_denied(&real_rel, meta.is_dir()) {
            return Err(PathError::Denied(asked));
        }
        Ok(Resolved {
            rel: self.label.join_rel(rel.as_str()),
            real,
            real_rel,
            meta,
            sandbox: self.clone(),
        })
    }

    /// The whole of `real` canonicalized, which must still be inside: the names the file
    /// system stores, whatever spelling was asked for, with every link resolved.
    #[cfg(not(target_os = "linux"))]
    fn settle(&self, real: &Path, shown: &RelPath) -> Result<PathBuf, PathError> {
        let settled = fs::canonicalize(real).map_err(|e| io_error(shown, &e))?;
        if self.contains(&settled) {
            Ok(settled)
        } else {
            Err(PathError::Escapes(shown.clone()))
        }
    }

    /// Canonicalizes the symbolic link at `link`; refuses it unless it stays inside.
    pub(crate) fn follow(&self, link: &Path, shown: &RelPath) -> Result<PathBuf, PathError> {
        let target = fs::canonicalize(link).map_err(|e| match e.kind() {
            io::ErrorKind::NotFound => PathError::BrokenLink(shown.clone()),
            _ => io_error(shown, &e),
        })?;
        if self.contains(&target) {
            Ok(target)
        } else {
            Err(PathError::Escapes(shown.clone()))
        }
    }

    /// Opens the regular file at the canonical path `real` (inside the root) for reading.
    pub(crate) fn open_regular(
        &self,
        real: &Path,
        shown: &RelPath,
    ) -> Result<(File, Metadata), PathError> {
        // Where opening could block on a FIFO, look before opening; elsewhere the `fstat`
        // below is the check (one system call less per file searched).
        if !OPEN_NEVER_BLOCKS {
            let before = fs::metadata(real).map_err(|e| io_error(shown, &e))?;
            if let Some(error) = kind_error(&before, shown) {
                return Err(error);
            }
        }
        let file = open_nonblocking(real).map_err(|e| io_error(shown, &e))?;
        let meta = file.metadata().map_err(|e| io_error(shown, &e))?;
        if let Some(error) = kind_error(&meta, shown) {
            return Err(error);
        }
        self.check_opened(file, meta, real, shown)
    }

    /// Checks that the open `file`, opened from `real`, is inside the root: through the
    /// kernel on Linux, else by whether `real` still names it ([`still_names`]).
    fn check_opened(
        &self,
        file: File,
        meta: Metadata,
        real: &Path,
        shown: &RelPath,
    ) -> Result<(File, Metadata), PathError> {
        let inside = match opened_path(&file) {
            Some(opened) => self.contains(&opened),
            None => still_names(&self.root, real, &meta),
        };
        if !inside {
            return Err(PathError::Escapes(shown.clone()));
        }
        Ok((file, meta))
    }

    /// Opens the directory at the canonical path `real` (inside the root) for listing, and
    /// checks where the opened directory is: it is the one a checked listing named when it
    /// has the identity `id` that listing gave, and otherwise the kernel is asked (Linux:
    /// `/proc/self/fd`). The listing is then read through that handle, so it names the
    /// entries of the checked directory, whatever a concurrent rename does to the path.
    pub(crate) fn list_dir(&self, real: &Path, id: Option<FileId>) -> io::Result<Listing> {
        let dir = open_nonblocking(real)?;
        let meta = dir.metadata()?;
        if !meta.is_dir() {
            return Err(io::ErrorKind::NotADirectory.into());
        }
        let escapes = || io::Error::from(io::ErrorKind::PermissionDenied);
        let checked = if id.is_some() && file_id(&meta) == id {
            true
        } else {
            match opened_path(&dir) {
                Some(opened) if !self.contains(&opened) => return Err(escapes()),
                Some(_) => true,
                None if !still_names(&self.root, real, &meta) => return Err(escapes()),
                None => false,
            }
        };
        if checked {
            if let Some(entries) = read_dir_of(&dir) {
                let dev = file_id(&meta).map(|id| id.dev);
                return Ok(Listing { entries, dev });
            }
        }
        // Listed by path: checked again after the listing was opened, so the directory it
        // read was this one unless a link came and went twice in between.
        let entries = fs::read_dir(real)?;
        if !still_names(&self.root, real, &meta) {
            return Err(escapes());
        }
        Ok(Listing { entries, dev: None })
    }

    /// Opens a regular file a [`Listing`] named, at its canonical path `real`. When `id`
    /// (the listing's device and inode for it) is known and the opened file has exactly
    /// that identity, the file is the one the checked directory holds, and the per-file
    /// check through `/proc/self/fd` is skipped (one system call less per file searched).
    /// Any other outcome (a path swapped since, or a file system whose listings report other
    /// inode numbers) gets the full check of [`open_regular`](Self::open_regular).
    pub(crate) fn open_listed(
        &self,
        real: &Path,
        shown: &RelPath,
        id: Option<FileId>,
    ) -> Result<(File, Metadata), PathError> {
        let Some(id) = id.filter(|_| OPEN_NEVER_BLOCKS) else {
            return self.open_regular(real, shown);
        };
        let file = open_nonblocking(real).map_err(|e| io_error(shown, &e))?;
        let meta = file.metadata().map_err(|e| io_error(shown, &e))?;
        if let Some(error) = kind_error(&meta, shown) {
            return Err(error);
        }
        if file_id(&meta) == Some(id) {
            return Ok((file, meta));
        }
        self.check_opened(file, meta, real, shown)
    }

    /// Reads the file at `path` (a directory entry inside the root, possibly a symbolic
    /// link) if it is a regular file inside the root of at most `cap` bytes.
    pub(crate) fn read_entry(&self, path: &Path, cap: u64) -> Option<Vec<u8>> {
        let meta = fs::symlink_metadata(path).ok()?;
        let real = if meta.file_type().is_symlink() {
            self.follow(path, &RelPath::root()).ok()?
        } else {
            path.to_path_buf()
        };
        let local = self.relative(&real)?;
        if self.is_denied(&local, false) {
            return None;
        }
        let (file, meta) = self.open_regular(&real, &RelPath::root()).ok()?;
        if meta.len() > cap {
            return None;
        }
        read_capped(file, meta.len(), cap).ok()
    }
}

/// Reads at most `cap` bytes of `file`, whose size was `size` when it was opened. Sizing the
/// buffer up front makes a whole small file one `read` (plus the one that finds the end)
/// instead of a series of growing ones; the size is a hint, not trusted as the length.
pub(crate) fn read_capped(file: File, size: u64, cap: u64) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::with_capacity(size.min(cap) as usize + 1);
    file.take(cap).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// A directory's entries, read through a handle checked to be inside the root.
#[derive(Debug)]
pub(crate) struct Listing {
    pub(crate) entries: fs::ReadDir,
    /// The directory's device, when the entries were read through the checked handle: with
    /// an entry's inode number it identifies the file (see [`Sandbox::open_listed`]).
    pub(crate) dev: Option<u64>,
}

/// The error for opening something that is not a regular file.
fn kind_error(meta: &Metadata, shown: &RelPath) -> Option<PathError> {
    if meta.is_dir() {
        Some(PathError::IsADirectory(shown.clone()))
    } else if !meta.is_file() {
        Some(PathError::Special(shown.clone()))
    } else {
        None
    }
}

/// True when `rules` refuse `local` (a root-relative path) or a directory above it.
fn denies(rules: &Rules, local: &str, is_dir: bool) -> bool {
    if rules.is_empty() || local.is_empty() {
        return false;
    }
    let count = local.split('/').count();
    let mut end = 0;
    for (i, name) in local.split('/').enumerate() {
        end += name.len() + usize::from(i > 0);
        let last = i + 1 == count;
        if rules.decide(&local[..end], !last || is_dir) == Some(true) {
            return true;
        }
    }
    false
}

fn io_error(shown: &RelPath, e: &io::Error) -> PathError {
    match e.kind() {
        io::ErrorKind::NotFound => PathError::NotFound(shown.clone()),
        kind => PathError::Io(shown.clone(), kind),
    }
}

#[cfg(test)]
#[path = "sandbox_tests.rs"]
mod tests;
