//! The write side of the sandbox: where a file may be created or replaced, and directories
//! made, for the edit toolset. It adds to the read side (`sandbox.rs`), whose gates every
//! path still passes:
//!
//! - The path is checked lexically as for reads (no `..`, no `.git`, no `~user`); `file://`
//!   URIs and absolute paths must lie inside a root.
//! - The directory that will hold the file must already exist and resolve inside the root
//!   (every link on the way checked, as for reads). It is then opened, and on Linux the
//!   kernel is asked where the opened directory is; every later step (the temporary file, the
//!   rename, `mkdir`) names its file through that handle (`/proc/self/fd/N/name`), so a
//!   directory swapped for a link after the check cannot redirect the write. Elsewhere the
//!   checked path must still name the opened directory (`platform::still_names`), and later
//!   steps name files by that path: a swap after that check is not caught (SECURITY.md).
//! - A target that is a symbolic link inside the roots is followed: the file it points to is
//!   replaced (when that file is inside the same root and allowed), and the link stays a
//!   link. A link that leads outside the root, or nowhere, is refused.
//! - Directories, FIFOs, sockets, devices and files with several hard links (replacing one
//!   name would silently split them) are refused as targets.
//! - The deny list refuses a target by the name asked for and by the file it leads to, as
//!   it does for reads; `.git` is refused at every level. So does the write deny list
//!   (`--deny-write`: `.ssh/`, shell start-up files, …), compared without regard to case.
//! - Names of the temporary files writes use are refused as targets (so nothing a client
//!   writes can be mistaken for a leftover and removed at the next start).

use std::fs::{self, File, Metadata};
use std::io;
use std::path::{Path, PathBuf};

use super::platform::{open_nonblocking, opened_path, still_names};
use super::roots::{absolute_text, uri_path};
use super::sandbox::{PathError, RelPath, Sandbox, MAX_WRITE_DEPTH};
use super::Workspace;
use super::{split_absolute, split_label};

/// The prefix of every temporary file a write makes; see [`is_temp_name`].
pub(crate) const TEMP_PREFIX: &str = ".minimcp-write.";

/// True for the names writes give their temporary files: `.minimcp-write.<pid>.<16 hex
/// digits>.tmp`, nothing else.
pub(crate) fn is_temp_name(name: &str) -> bool {
    is_reserved(name, TEMP_PREFIX, ".tmp")
}

/// The prefix of the journal a multi-file patch keeps while it writes; see [`is_journal_name`].
pub(crate) const JOURNAL_PREFIX: &str = ".minimcp-patch.";

/// True for the names of `apply_patch`'s journals: `.minimcp-patch.<pid>.<16 hex
/// digits>.json`. Reserved like the temporary files' names.
pub(crate) fn is_journal_name(name: &str) -> bool {
    is_reserved(name, JOURNAL_PREFIX, ".json")
}

/// `<prefix><pid>.<16 lowercase hex digits><suffix>`: the form of every name the edit tools
/// reserve for their own files.
fn is_reserved(name: &str, prefix: &str, suffix: &str) -> bool {
    let Some(rest) = name
        .strip_prefix(prefix)
        .and_then(|r| r.strip_suffix(suffix))
    else {
        return false;
    };
    let Some((pid, random)) = rest.split_once('.') else {
        return false;
    };
    (1..=10).contains(&pid.len())
        && pid.bytes().all(|b| b.is_ascii_digit())
        && random.len() == 16
        && random
            .bytes()
            .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// A file to create or replace, or an entry to move, checked.
#[derive(Debug)]
pub(crate) struct Target {
    /// The path as the client named it (with the root's label when there are several).
    pub(crate) rel: RelPath,
    /// The canonical directory that holds (or will hold) the file, inside the root.
    pub(crate) dir: PathBuf,
    /// The file's name in `dir` (the linked file's name when `rel` is a link).
    pub(crate) name: String,
    /// The file there now; `None` when there is none.
    pub(crate) existing: Option<Metadata>,
    /// The root it is in.
    pub(crate) sandbox: Sandbox,
}

impl Target {
    /// The canonical path of the file.
    pub(crate) fn path(&self) -> PathBuf {
        self.dir.join(&self.name)
    }
}

/// An open directory checked to be inside a root; the names of its entries are reached
/// through the handle ([`CheckedDir::entry`]).
pub(crate) struct CheckedDir {
    handle: File,
    /// Where names are reached on systems without `/proc/self/fd`.
    #[cfg_attr(target_os = "linux", allow(dead_code))]
    path: PathBuf,
}

impl CheckedDir {
    /// The path naming `name` inside this very directory: through the handle on Linux
    /// (`/proc/self/fd/N/name`), by its checked path elsewhere.
    pub(crate) fn entry(&self, name: &str) -> PathBuf {
        #[cfg(target_os = "linux")]
        {
            use std::os::fd::AsRawFd;
            PathBuf::from(format!("/proc/self/fd/{}", self.handle.as_raw_fd())).join(name)
        }
        #[cfg(not(target_os = "linux"))]
        {
            self.path.join(name)
        }
    }

    /// Flushes the directory's entries to disk (after a rename or a new name in it).
    #[cfg(not(windows))]
    pub(crate) fn sync(&self) -> io::Result<()> {
        self.handle.sync_all()
    }

    /// Windows cannot flush a directory (`FlushFileBuffers` wants a handle opened for
    /// writing, which a directory does not get): the rename is left to NTFS's journal.
    #[cfg(windows)]
    pub(crate) fn sync(&self) -> io::Result<()> {
        let _ = &self.handle;
        Ok(())
    }

    /// Opens the entry `name` read-only, without blocking on a FIFO where the platform
    /// allows (the caller checks what it opened).
    pub(crate) fn open_entry(&self, name: &str) -> io::Result<File> {
        open_nonblocking(&self.entry(name))
    }
}

impl Sandbox {
    /// Opens the canonical directory `dir` (inside the root) and checks through the kernel
    /// that the opened directory is that one.
    pub(crate) fn open_dir(&self, dir: &Path, shown: &RelPath) -> Result<CheckedDir, PathError> {
        let io = |e: io::Error| PathError::Io(shown.clone(), e.kind());
        let handle = open_nonblocking(dir).map_err(io)?;
        let meta = handle.metadata().map_err(io)?;
        if !meta.is_dir() {
            return Err(PathError::NotADirectory(shown.clone()));
        }
        let inside = match opened_path(&handle) {
            Some(opened) => opened == dir && self.contains(&opened),
            None => still_names(self.root(), dir, &meta),
        };
        if !inside {
            return Err(PathError::Escapes(shown.clone()));
        }
        Ok(CheckedDir {
            handle,
            path: dir.to_path_buf(),
        })
    }

    /// The entry `local` names (a path below this root), its final component not followed:
    /// what a move takes away or puts in place. Its directory must exist and resolve inside
    /// the root; the name and what it leads to must pass the deny list.
    pub(crate) fn entry_at(&self, local: &RelPath) -> Result<Target, PathError> {
        let shown = self.label().join_rel(local.as_str());
        let name = local.name();
        if name.is_empty() {
            return Err(PathError::IsADirectory(shown));
        }
        if is_temp_name(name) || is_journal_name(name) {
            return Err(PathError::Reserved(shown));
        }
        if local.components().count() > MAX_WRITE_DEPTH {
            return Err(PathError::TooDeep(shown));
        }
        if self.is_denied(local, false) || self.is_denied(local, true) {
            return Err(PathError::Denied(shown));
        }
        if self.is_write_denied(local, false) || self.is_write_denied(local, true) {
            return Err(PathError::WriteDenied(shown));
        }
        let parent_local = RelPath::parse(
            local
                .as_str()
                .strip_suffix(name)
                .unwrap_or("")
                .trim_end_matches('/'),
        )?;
        let parent = self.resolve(&parent_local).map_err(|e| match e {
            PathError::NotFound(_) | PathError::NotADirectory(_) => {
                PathError::NoParent(self.label().join_rel(parent_local.as_str()))
            }
            other => other,
        })?;
        if !parent.meta.is_dir() {
            return Err(PathError::NoParent(parent.rel));
        }
        let real_local = parent.real_rel.join(name);
        if self.is_denied(&real_local, false) || self.is_denied(&real_local, true) {
            return Err(PathError::Denied(shown));
        }
        if self.is_write_denied(&real_local, false) || self.is_write_denied(&real_local, true) {
            return Err(PathError::WriteDenied(shown));
        }
        let existing = match fs::symlink_metadata(parent.real.join(name)) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(e) => return Err(PathError::Io(shown, e.kind())),
            Ok(meta) => Some(meta),
        };
        Ok(Target {
            rel: shown,
            dir: parent.real,
            name: name.to_string(),
            existing,
            sandbox: self.clone(),
        })
    }

    /// Checks `local` (a path below this root) as a file to create or replace: an in-root
    /// link is followed to the file it names (which must be allowed too), and only a
    /// regular file with one link may be replaced.
    pub(crate) fn write_target(&self, local: &RelPath) -> Result<Target, PathError> {
        let mut target = self.entry_at(local)?;
        let shown = target.rel.clone();
        if target
            .existing
            .as_ref()
            .is_some_and(|m| m.file_type().is_symlink())
        {
            let real = self.follow(&target.path(), &shown)?;
            let (Some(parent), Some(file)) =
                (real.parent(), real.file_name().and_then(|n| n.to_str()))
            else {
                return Err(PathError::IsADirectory(shown));
            };
            target.dir = parent.to_path_buf();
            target.name = file.to_string();
            target.existing = Some(
                fs::symlink_metadata(&real).map_err(|e| PathError::Io(shown.clone(), e.kind()))?,
            );
            let real_local = self
                .relative(&real)
                .ok_or_else(|| PathError::NotUtf8(shown.clone()))?;
            if real_local
                .components()
                .any(|c| c.eq_ignore_ascii_case(".git"))
            {
                return Err(PathError::Git);
            }
            if self.is_denied(&real_local, false)
                || is_temp_name(&target.name)
                || is_journal_name(&target.name)
            {
                return Err(PathError::Denied(shown));
            }
            if self.is_write_denied(&real_local, false) {
                return Err(PathError::WriteDenied(shown));
            }
        }
        if let Some(meta) = &target.existing {
            if meta.is_dir() {
                return Err(PathError::IsADirectory(shown));
            }
            if !meta.is_file() {
                return Err(PathError::Special(shown));
            }
            if links(meta) > 1 {
                return Err(PathError::HardLinked(shown));
            }
        }
        Ok(target)
    }
}

/// The number of hard links to a file (1 where the system cannot tell).
pub(crate) fn links(meta: &Metadata) -> u64 {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        meta.nlink()
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        1
    }
}

impl Workspace {
    /// Which root a path to write names, and the path below that root: relative (with
    /// several roots, starting with a root's label, or else below a directory that exists
    /// in exactly one root), absolute or `~/` inside a root, or a `file://` URI of one.
    pub(crate) fn locate(&self, input: &str) -> Result<(Sandbox, RelPath), PathError> {
        let roots = self.roots();
        if roots.is_empty() {
            return Err(PathError::NoRoot);
        }
        let absolute = match uri_path(input) {
            Some(Ok(path)) => Some(path),
            Some(Err(_)) => return Err(PathError::Outside(input.to_string())),
            None => absolute_text(input),
        };
        if let Some(path) = absolute {
            let (root, rel) = split_absolute(&roots, input, &path)?;
            return Ok((root.clone(), rel));
        }
        let rel = RelPath::parse(input)?;
        if roots.len() == 1 {
            return Ok((roots[0].clone(), rel));
        }
        if let Some((root, below)) = split_label(&roots, &rel)? {
            return Ok((root.clone(), below));
        }
        // Not named by label: the one root whose directory would hold it.
        let parent = rel.as_str().rsplit_once('/').map_or("", |(p, _)| p);
        let parent = RelPath::parse(parent)?;
        let holding: Vec<&Sandbox> = roots
            .iter()
            .filter(|r| r.resolve(&parent).is_ok_and(|p| p.meta.is_dir()))
            .collect();
        match holding.as_slice() {
            [one] => Ok(((*one).clone(), rel)),
            [] => Err(PathError::NoParent(parent)),
            _ => Err(PathError::Ambiguous(
                rel.clone(),
                holding
                    .iter()
                    .map(|r| r.label().join_rel(rel.as_str()).to_string())
                    .collect(),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_journal_names_of_their_own_form_are_recognised() {
        assert!(is_journal_name(".minimcp-patch.4242.0123456789abcdef.json"));
        for name in [
            ".minimcp-patch.4242.0123456789abcdef",
            ".minimcp-patch.4242.0123456789abcdeg.json",
            ".minimcp-patch..0123456789abcdef.json",
            ".minimcp-write.4242.0123456789abcdef.tmp",
            "minimcp-patch.4242.0123456789abcdef.json",
        ] {
            assert!(!is_journal_name(name), "{name}");
        }
    }

    #[test]
    fn the_default_write_deny_list_covers_login_files_at_any_depth_and_in_any_case() {
        let tree = super::super::testutil::TempTree::new("deny-write");
        let ws = Workspace::open(&tree.path).expect("workspace");
        let sandbox = &ws.roots()[0];
        for (path, denied) in [
            (".ssh/authorized_keys", true),
            (".SSH/Authorized_Keys", true),
            ("home/alice/.ssh/known_hosts", true),
            ("etc/ssh/authorized_keys", true),
            (".bashrc", true),
            (".BASHRC", true),
            ("dotfiles/.bashrc", true),
            (".profile", true),
            (".zshenv", true),
            (".config/fish/config.fish", true),
            ("a/.config/fish/functions/f.fish", true),
            (".config/autostart/x.desktop", true),
            (".config/systemd/user/x.service", true),
            (".gnupg/gpg-agent.conf", true),
            (".bashrc.orig", false),
            ("bashrc", false),
            (".config/fishy", false),
            (".config/git/config", false),
            ("docs/ssh.md", false),
            ("src/main.rs", false),
        ] {
            let local = RelPath::parse(path).expect("a valid path");
            assert_eq!(sandbox.is_write_denied(&local, false), denied, "{path}");
            assert!(!sandbox.is_denied(&local, false), "{path} stays readable");
        }
        assert!(sandbox.is_write_denied(&RelPath::parse(".ssh").expect("path"), true));
    }

    #[test]
    fn only_the_writes_own_temporary_names_are_recognised() {
        assert!(is_temp_name(".minimcp-write.4242.0123456789abcdef.tmp"));
        for name in [
            ".minimcp-write.4242.0123456789abcdef",
            ".minimcp-write.4242.0123456789ABCDEF.tmp",
            ".minimcp-write.42x2.0123456789abcdef.tmp",
            ".minimcp-write..0123456789abcdef.tmp",
            ".minimcp-write.4242.0123456789abcde.tmp",
            "minimcp-write.4242.0123456789abcdef.tmp",
            ".minimcp-write.4242.0123456789abcdef.tmp.bak",
            "notes.tmp",
        ] {
            assert!(!is_temp_name(name), "{name}");
        }
    }
}
