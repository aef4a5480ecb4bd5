//! Writing a file so that, killed at any instant, the target holds its old content or its
//! new content, never a mix and never nothing:
//!
//! 1. the new bytes go to a temporary file in the target's own directory (so the rename
//!    below stays on one file system), created exclusively (`O_EXCL`: never an existing file
//!    or link) and named `.minimcp-write.<pid>.<16 hex digits>.tmp`, a form nothing else
//!    takes (`is_temp_name`; such names are refused as targets);
//! 2. they are written and `fsync`ed, and the file gets the original's owner and permission
//!    bits, but never its setuid, setgid or sticky bits (the kernel drops those when anyone
//!    but root writes a file; text a model wrote must not run with another user's rights); a
//!    new file gets the process's default, `0666` less the umask; then the temporary file is
//!    locked (`lock.rs`), so the file is locked by its writer from the instant it appears;
//! 3. it is renamed over the target (atomic on POSIX file systems), or, for a new file,
//!    hard-linked to the target's name, which fails if that name exists (two writers creating
//!    one file cannot both win); the caller then `fsync`s the directory so the new name
//!    survives a power loss.
//!
//! Steps 1 and 2 ([`Prepared::new`]) come before the caller locks and checks the target, so
//! the time between its last check and step 3 is not spent writing. Every step names files
//! through the checked directory handle (see `workspace::target::CheckedDir`). A temporary
//! file left by a killed write is removed at the next start ([`sweep`]), when the process
//! that made it is gone.

use std::collections::hash_map::RandomState;
use std::fs::{self, File, OpenOptions};
use std::hash::{BuildHasher, Hasher};
use std::io::{self, Write};
use std::path::Path;
use std::time::SystemTime;

use crate::workspace::target::{is_temp_name, CheckedDir, TEMP_PREFIX};

/// A fresh temporary file name for this process.
pub(crate) fn temp_name() -> String {
    // RandomState is seeded randomly per process; the clock and a counter make each name
    // of one process differ too. O_EXCL refuses the rare collision, which is retried.
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut hasher = RandomState::new().build_hasher();
    hasher.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    if let Ok(since) = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH) {
        hasher.write_u128(since.as_nanos());
    }
    format!(
        "{TEMP_PREFIX}{}.{:016x}.tmp",
        std::process::id(),
        hasher.finish()
    )
}

/// New content written to a temporary file beside its target, `fsync`ed and locked: ready to
/// be put in place. Dropped before it is, its temporary file is removed; dropped after, its
/// lock is let go.
pub(crate) struct Prepared<'d> {
    dir: &'d CheckedDir,
    temp: String,
    file: File,
    /// Permission bits asked for instead of the replaced file's (Unix).
    mode: Option<u32>,
    /// True once the temporary name is gone (renamed over the target, or unlinked).
    placed: bool,
}

impl<'d> Prepared<'d> {
    /// Writes `data` to a new temporary file in `dir`. `original` is the metadata of the file
    /// it will replace (`None` for a new file): its owner and permission bits carry over,
    /// unless `mode` gives the permission bits (Unix; their lowest nine only).
    pub(crate) fn new(
        dir: &'d CheckedDir,
        data: &[u8],
        original: Option<&fs::Metadata>,
        mode: Option<u32>,
    ) -> io::Result<Prepared<'d>> {
        let (temp, file) = create_temp(dir, original.is_some() || mode.is_some())?;
        let mut prepared = Prepared {
            dir,
            temp,
            file,
            mode: mode.map(|m| m & 0o777),
            placed: false,
        };
        prepared.file.write_all(data)?;
        prepared.file.flush()?;
        if let Some(original) = original {
            keep_owner_and_mode(&prepared.file, original)?;
        }
        if let Some(mode) = prepared.mode {
            set_mode(&prepared.file, mode)?;
        }
        prepared.file.sync_all()?;
        // Nobody else can have this new file open yet: the lock is had at once.
        prepared.file.try_lock().map_err(io::Error::from)?;
        Ok(prepared)
    }

    /// Gives the new file `original`'s owner and permission bits (or the ones asked for), when
    /// they differ from what it was given (the file it replaces was changed meanwhile).
    pub(crate) fn keep(&self, original: &fs::Metadata) -> io::Result<()> {
        match self.file.metadata() {
            Ok(ours) if same_owner_and_mode(&ours, original, self.mode) => Ok(()),
            _ => {
                keep_owner_and_mode(&self.file, original)?;
                match self.mode {
                    Some(mode) => set_mode(&self.file, mode),
                    None => Ok(()),
                }
            }
        }
    }

    /// The new file's metadata.
    pub(crate) fn meta(&self) -> io::Result<fs::Metadata> {
        self.file.metadata()
    }

    /// Renames the new file over `name`.
    pub(crate) fn replace(&mut self, name: &str) -> io::Result<()> {
        fs::rename(self.dir.entry(&self.temp), self.dir.entry(name))?;
        self.placed = true;
        Ok(())
    }

    /// Puts the new file in place as `name`, which must not exist: `AlreadyExists` when it
    /// does, and nothing is replaced.
    pub(crate) fn create(&mut self, name: &str) -> io::Result<()> {
        let (temp, target) = (self.dir.entry(&self.temp), self.dir.entry(name));
        match fs::hard_link(&temp, &target) {
            Ok(()) => {
                self.placed = fs::remove_file(&temp).is_ok();
                Ok(())
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Err(e),
            // No hard links on this file system: claim the name with an empty file (locked,
            // like every file a writer puts in place), then rename over the claim. Killed in
            // between, the new file is there but empty.
            Err(_) => {
                let claim = OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .open(&target)?;
                let _ = claim.try_lock();
                self.replace(name)
            }
        }
    }
}

impl Drop for Prepared<'_> {
    fn drop(&mut self) {
        if !self.placed {
            let _ = fs::remove_file(self.dir.entry(&self.temp));
        }
    }
}

/// Creates a new temporary file in `dir` (readable by the owner only while it is written
/// when it replaces a file, whose own bits it then gets).
fn create_temp(dir: &CheckedDir, replacing: bool) -> io::Result<(String, File)> {
    let mut last = io::Error::from(io::ErrorKind::AlreadyExists);
    for _ in 0..8 {
        let name = temp_name();
        let mut options = OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(if replacing { 0o600 } else { 0o666 });
        }
        #[cfg(not(unix))]
        let _ = replacing;
        match options.open(dir.entry(&name)) {
            Ok(file) => return Ok((name, file)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = e,
            Err(e) => return Err(e),
        }
    }
    Err(last)
}

/// Gives the temporary file the original's owner and group, then its permission bits
/// without setuid, setgid and sticky. A server that cannot give the file its owner back
/// (not root, and the file is someone else's) refuses the write instead of silently taking
/// the file over.
#[cfg(unix)]
fn keep_owner_and_mode(file: &File, original: &fs::Metadata) -> io::Result<()> {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let ours = file.metadata()?;
    if (ours.uid(), ours.gid()) != (original.uid(), original.gid()) {
        std::os::unix::fs::fchown(file, Some(original.uid()), Some(original.gid())).map_err(
            |e| {
                io::Error::new(
                    e.kind(),
                    format!(
                        "the file belongs to uid {} gid {} and its owner could not be kept: {e}",
                        original.uid(),
                        original.gid()
                    ),
                )
            },
        )?;
    }
    file.set_permissions(fs::Permissions::from_mode(original.mode() & 0o777))
}

#[cfg(not(unix))]
fn keep_owner_and_mode(_file: &File, _original: &fs::Metadata) -> io::Result<()> {
    Ok(())
}

/// True when `ours` has `original`'s owner and group, and its permission bits (setuid,
/// setgid and sticky aside) or else the ones asked for.
#[cfg(unix)]
fn same_owner_and_mode(ours: &fs::Metadata, original: &fs::Metadata, mode: Option<u32>) -> bool {
    use std::os::unix::fs::MetadataExt;
    let bits = mode.unwrap_or(original.mode() & 0o777);
    (ours.uid(), ours.gid(), ours.mode() & 0o777) == (original.uid(), original.gid(), bits)
}

#[cfg(not(unix))]
fn same_owner_and_mode(_ours: &fs::Metadata, _original: &fs::Metadata, _mode: Option<u32>) -> bool {
    true
}

/// Sets a file's permission bits (nothing outside Unix).
#[cfg(unix)]
fn set_mode(file: &File, mode: u32) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    file.set_permissions(fs::Permissions::from_mode(mode))
}

#[cfg(not(unix))]
fn set_mode(_file: &File, _mode: u32) -> io::Result<()> {
    Ok(())
}

/// The permission bits of a file's metadata.
pub(crate) fn mode_of(meta: &fs::Metadata) -> Option<u32> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        Some(meta.permissions().mode())
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        None
    }
}

/// True when the file's owner marked it unwritable: no write permission bit on Unix, the
/// read-only attribute on Windows (where std shows no permission bits).
pub(crate) fn read_only(meta: &fs::Metadata) -> bool {
    match mode_of(meta) {
        Some(mode) => mode & 0o222 == 0,
        None => meta.permissions().readonly(),
    }
}

/// At most this many entries are examined by one [`sweep`] of a root.
pub(crate) const SWEEP_ENTRIES: usize = 100_000;
/// Directory levels a [`sweep`] descends: at least as deep as any write may be.
const SWEEP_DEPTH: usize = crate::workspace::sandbox::MAX_WRITE_DEPTH;

/// Removes the temporary files killed writes left below `root`: names of the form
/// [`temp_name`] makes whose process is gone. Bounded by [`SWEEP_ENTRIES`] entries and
/// [`SWEEP_DEPTH`] levels; links are not followed and `.git` is not entered. Returns how many
/// were removed.
pub(crate) fn sweep(root: &Path) -> usize {
    let mut removed = 0;
    let mut seen = 0;
    let mut stack = vec![(root.to_path_buf(), 0)];
    while let Some((dir, depth)) = stack.pop() {
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            seen += 1;
            if seen > SWEEP_ENTRIES {
                return removed;
            }
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let name = entry.file_name();
            let Some(name) = name.to_str() else {
                continue;
            };
            if kind.is_dir() && depth < SWEEP_DEPTH && !name.eq_ignore_ascii_case(".git") {
                stack.push((entry.path(), depth + 1));
            } else if kind.is_file()
                && is_temp_name(name)
                && !writer_alive(name)
                && fs::remove_file(entry.path()).is_ok()
            {
                removed += 1;
            }
        }
    }
    removed
}

/// True while the process that named a temporary file may still be writing it: this
/// process, or (Linux) any live process with its id. Elsewhere only this process counts.
fn writer_alive(name: &str) -> bool {
    let pid = name
        .strip_prefix(TEMP_PREFIX)
        .and_then(|r| r.split('.').next())
        .and_then(|p| p.parse::<u32>().ok());
    match pid {
        Some(pid) if pid == std::process::id() => true,
        #[cfg(target_os = "linux")]
        Some(pid) => Path::new(&format!("/proc/{pid}")).exists(),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temporary_names_are_recognised_and_distinct() {
        let a = temp_name();
        let b = temp_name();
        assert_ne!(a, b);
        assert!(is_temp_name(&a), "{a}");
        assert!(a.starts_with(&format!(".minimcp-write.{}.", std::process::id())));
    }

    #[test]
    fn a_sweep_removes_only_dead_writers_leftovers() {
        let dir = std::env::temp_dir().join(format!("minimcp-sweep-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(dir.join("sub/.git")).expect("dirs");
        // Pid 4294967295 is never a live process (above every kernel's pid_max).
        let dead = ".minimcp-write.4294967295.0123456789abcdef.tmp";
        let mine = temp_name();
        for path in [
            dir.join(dead),
            dir.join("sub").join(dead),
            dir.join("sub/.git").join(dead),
            dir.join(&mine),
            dir.join("keep.tmp"),
        ] {
            fs::write(path, "x").expect("write");
        }
        assert_eq!(sweep(&dir), 2);
        assert!(!dir.join(dead).exists());
        assert!(!dir.join("sub").join(dead).exists());
        assert!(
            dir.join("sub/.git").join(dead).exists(),
            ".git is not entered"
        );
        assert!(dir.join(&mine).exists(), "a live writer's file stays");
        assert!(dir.join("keep.tmp").exists());
        fs::remove_dir_all(&dir).expect("clean up");
    }
}
