//! The operating-system-specific parts of opening a file safely: without blocking on a
//! FIFO, and asking the kernel where the opened file really is.

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
/// opening is enough.
pub(crate) const OPEN_NEVER_BLOCKS: bool = O_NONBLOCK.is_some();

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

/// Opens `path` read-only.
#[cfg(not(unix))]
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

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn the_kernel_names_the_opened_file() {
        let path = std::env::current_exe().expect("test binary");
        let file = open_nonblocking(&path).expect("opens");
        assert_eq!(
            opened_path(&file),
            Some(path.canonicalize().expect("canonical"))
        );
    }
}
