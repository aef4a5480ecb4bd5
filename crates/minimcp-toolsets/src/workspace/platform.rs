//! The operating-system-specific parts of opening a file safely: without blocking on a
//! FIFO, asking the kernel where the opened file really is (Linux), or else checking that
//! the checked path still names the opened file (other Unix systems: by device and inode;
//! Windows: by canonicalizing the path again), and whether a volume ignores case.

use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};

/// `O_NONBLOCK`, where its value is known without a C library binding: opening a FIFO then
/// returns at once instead of waiting for a writer (the `fstat` check that follows refuses
/// it). Reads of regular files are unaffected by the flag. Elsewhere `None`, and only the
/// check made before opening stands between a swapped-in FIFO and a blocked open.
#[cfg(all(
    target_os = "linux",
    any(
        target_arch = "x86",
        target_arch = "x86_64",
        target_arch = "arm",
        target_arch = "aarch64",
        target_arch = "riscv64",
        target_arch = "loongarch64",
        target_arch = "s390x",
        target_arch = "powerpc64"
    )
))]
const O_NONBLOCK: Option<i32> = Some(0o4000);
#[cfg(any(
    target_os = "macos",
    target_os = "ios",
    target_os = "freebsd",
    target_os = "openbsd",
    target_os = "netbsd",
    target_os = "dragonfly"
))]
const O_NONBLOCK: Option<i32> = Some(0x4);
#[cfg(not(any(
    all(
        target_os = "linux",
        any(
            target_arch = "x86",
            target_arch = "x86_64",
            target_arch = "arm",
            target_arch = "aarch64",
            target_arch = "riscv64",
            target_arch = "loongarch64",
            target_arch = "s390x",
            target_arch = "powerpc64"
        )
    ),
    target_os = "macos",
    target_os = "ios",
    target_os = "freebsd",
    target_os = "openbsd",
    target_os = "netbsd",
    target_os = "dragonfly"
)))]
const O_NONBLOCK: Option<i32> = None;

/// True when [`open_nonblocking`] cannot block on a FIFO, so checking the file type after
/// opening is enough. On Windows no file opens as a pipe: pipes live in their own namespace
/// (`\\.\pipe\`), and a device name is a file's name in the verbatim (`\\?\`) paths
/// the sandbox opens, which start from the canonicalized root.
pub(crate) const OPEN_NEVER_BLOCKS: bool = O_NONBLOCK.is_some() || cfg!(windows);

/// Opens `path` read-only, without blocking where the platform allows.
#[cfg(unix)]
pub(crate) fn open_nonblocking(path: &Path) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    let mut options = fs::OpenOptions::new();
    options.read(true);
    if let Some(flag) = O_NONBLOCK {
        options.custom_flags(flag);
    }
    options.open(path)
}

/// Opens `path` read-only. On Windows a directory opens only with backup semantics
/// (`FILE_FLAG_BACKUP_SEMANTICS`), which for a file changes nothing but the privileges
/// checked (and a server has none of the backup ones).
#[cfg(windows)]
pub(crate) fn open_nonblocking(path: &Path) -> io::Result<File> {
    use std::os::windows::fs::OpenOptionsExt;
    const FILE_FLAG_BACKUP_SEMANTICS: u32 = 0x0200_0000;
    let _ = O_NONBLOCK;
    fs::OpenOptions::new()
        .read(true)
        .custom_flags(FILE_FLAG_BACKUP_SEMANTICS)
        .open(path)
}

/// Opens `path` read-only.
#[cfg(not(any(unix, windows)))]
pub(crate) fn open_nonblocking(path: &Path) -> io::Result<File> {
    let _ = O_NONBLOCK;
    File::open(path)
}

/// Where the kernel says an open file is (Linux: `/proc/self/fd/N`), so a path component
/// swapped for a symbolic link between checking and opening is caught. `None` when it
/// cannot tell (no `/proc`, other systems).
#[cfg(target_os = "linux")]
pub(crate) fn opened_path(file: &File) -> Option<PathBuf> {
    use std::os::fd::AsRawFd;
    fs::read_link(format!("/proc/self/fd/{}", file.as_raw_fd())).ok()
}

/// Where an open file is: unknown on this system.
#[cfg(not(target_os = "linux"))]
pub(crate) fn opened_path(_file: &File) -> Option<PathBuf> {
    None
}

/// Without `/proc/self/fd` (macOS, the BSDs, a Linux without `/proc`): true when `real` (a
/// canonical path below `root`, checked before `opened` was opened from it) still names the
/// opened file: no name below `root` is a symbolic link now, and the last one has the opened
/// file's device and inode. A component swapped for a link before the open and left there
/// is caught; one swapped back in time is caught by the identity, unless it is swapped in
/// again while these `lstat`s run (two swaps timed within microseconds: see SECURITY.md).
#[cfg(unix)]
pub(crate) fn still_names(root: &Path, real: &Path, opened: &fs::Metadata) -> bool {
    let Ok(below) = real.strip_prefix(root) else {
        return false;
    };
    let mut path = root.to_path_buf();
    let mut last = None;
    for name in below.components() {
        path.push(name);
        match fs::symlink_metadata(&path) {
            Ok(meta) if !meta.file_type().is_symlink() => last = Some(meta),
            _ => return false,
        }
    }
    let last = match last {
        Some(meta) => meta,
        None => match fs::symlink_metadata(root) {
            Ok(meta) => meta,
            Err(_) => return false,
        },
    };
    file_id(&last) == file_id(opened)
}

/// Windows: true when canonicalizing `real` (a canonical path below `root`) gives `real`
/// again: no name on the way is a link or junction now, nor a Unix link Wine shows as a
/// plain file. std gives no file identity on Windows, so the opened handle itself cannot be
/// compared: a path swapped and swapped back between the open and this check is not caught.
#[cfg(windows)]
pub(crate) fn still_names(root: &Path, real: &Path, _opened: &fs::Metadata) -> bool {
    real.starts_with(root) && fs::canonicalize(real).is_ok_and(|now| now == real)
}

/// Elsewhere: nothing can be checked.
#[cfg(not(any(unix, windows)))]
pub(crate) fn still_names(_root: &Path, _real: &Path, _opened: &fs::Metadata) -> bool {
    true
}

/// True when the volume holding `root` looks names up regardless of case (Windows, macOS's
/// default APFS, a FAT stick), found by asking for one of `root`'s entries (or `root`
/// itself) with a letter's case flipped: the same file answers only on such a volume. With
/// nothing to ask about, the system's usual volumes decide (Windows and macOS: yes).
pub(crate) fn folds_case(root: &Path) -> bool {
    let usual = cfg!(any(windows, target_vendor = "apple"));
    let entry = fs::read_dir(root).ok().and_then(|entries| {
        entries
            .take(64)
            .flatten()
            .find_map(|e| flipped(&e.file_name().into_string().ok()?).map(|f| (e.path(), f)))
    });
    let own = || {
        let name = root.file_name()?.to_str()?;
        Some((root.to_path_buf(), flipped(name)?))
    };
    let Some((path, flipped)) = entry.or_else(own) else {
        return usual;
    };
    let Some(parent) = path.parent() else {
        return usual;
    };
    same_file(&path, &parent.join(flipped)).unwrap_or(usual)
}

/// `name` with its case changed (upper-cased, or lower-cased when it has no lower-case
/// letter); `None` when it has no letter with a case.
fn flipped(name: &str) -> Option<String> {
    let upper = name.to_uppercase();
    if upper != name {
        return Some(upper);
    }
    let lower = name.to_lowercase();
    (lower != name).then_some(lower)
}

/// Whether `a` and `b` name one file; `None` when it cannot be told.
fn same_file(a: &Path, b: &Path) -> Option<bool> {
    match fs::symlink_metadata(b) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Some(false),
        Err(_) => return None,
        Ok(_) => {}
    }
    #[cfg(unix)]
    {
        let (a, b) = (fs::symlink_metadata(a).ok()?, fs::symlink_metadata(b).ok()?);
        Some(file_id(&a) == file_id(&b))
    }
    #[cfg(not(unix))]
    {
        Some(fs::canonicalize(a).ok()? == fs::canonicalize(b).ok()?)
    }
}

/// A file's device and inode numbers: what names one file on one file system.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FileId {
    pub(crate) dev: u64,
    pub(crate) ino: u64,
}

/// The identity of the file `meta` describes (`None` where the system has no inodes).
#[cfg(unix)]
pub(crate) fn file_id(meta: &fs::Metadata) -> Option<FileId> {
    use std::os::unix::fs::MetadataExt;
    Some(FileId {
        dev: meta.dev(),
        ino: meta.ino(),
    })
}

/// The identity of a file: unknown on this system.
#[cfg(not(unix))]
pub(crate) fn file_id(_meta: &fs::Metadata) -> Option<FileId> {
    None
}

/// The inode number a directory listing gives for an entry (no system call).
#[cfg(unix)]
pub(crate) fn entry_ino(entry: &fs::DirEntry) -> Option<u64> {
    use std::os::unix::fs::DirEntryExt;
    Some(entry.ino())
}

/// The inode number of a listed entry: unknown on this system.
#[cfg(not(unix))]
pub(crate) fn entry_ino(_entry: &fs::DirEntry) -> Option<u64> {
    None
}

/// Lists the directory `file` (opened at `dir`) through the handle itself
/// (`/proc/self/fd/N`), so the names come from the very directory whose location was
/// checked, even if `dir` was since swapped for a link. `None` when the system cannot
/// (then list by path, and leave every file to the full check).
#[cfg(target_os = "linux")]
pub(crate) fn read_dir_of(file: &File) -> Option<fs::ReadDir> {
    use std::os::fd::AsRawFd;
    fs::read_dir(format!("/proc/self/fd/{}", file.as_raw_fd())).ok()
}

/// Lists an opened directory: not possible on this system.
#[cfg(not(target_os = "linux"))]
pub(crate) fn read_dir_of(_file: &File) -> Option<fs::ReadDir> {
    None
}

#[cfg(test)]
#[path = "platform_tests.rs"]
mod tests;
