//! An exclusive lock on a file at a path, against every other minimcp process writing it.
//!
//! What is locked is the file itself (`File::try_lock`: `flock` on Unix, `LockFileEx` on
//! Windows), not a lock file beside it, so nothing is left in the user's tree. Writers replace
//! a file by renaming a new one over it, so a lock on the file that *was* at the path is worth
//! nothing: after taking the lock, the path must still name the locked file (`is_at`), else the
//! handle is dropped and the path opened again. Every writer renames only while it holds the
//! lock on the file it replaces, and locks its new file before it appears (`atomic::Prepared`),
//! so once the check passes no other minimcp can replace the file until the lock is let go.
//!
//! Waiting is bounded: the lock is tried, and tried again after a short sleep, until a
//! deadline; a file still locked then is refused as busy. Each try opens the path afresh, so a
//! writer never waits on a file that was replaced meanwhile.
//!
//! The platform's part is [`same_file`]: the device and inode number on Unix. Elsewhere std
//! offers no file identity, so the size and the creation and modification times stand in.

use std::fs::{File, Metadata, TryLockError};
use std::io::{self, Read, Seek, SeekFrom};
use std::thread;
use std::time::{Duration, Instant};

use crate::workspace::target::CheckedDir;

/// How long a writer waits, at most, for the files of one change to be let go by the others.
pub(crate) const LOCK_WAIT: Duration = Duration::from_secs(2);

/// The first pause between tries; it doubles up to [`MAX_PAUSE`].
const FIRST_PAUSE: Duration = Duration::from_micros(500);
const MAX_PAUSE: Duration = Duration::from_millis(20);

/// Why a file could not be locked.
#[derive(Debug)]
pub(crate) enum LockError {
    /// There is no file at the path (any more).
    Gone,
    /// The path names something else than a regular file now.
    NotAFile,
    /// Another writer held it until the deadline.
    Busy,
    /// The system refused: the open, the lock or a `stat`.
    Io(io::Error),
}

/// An exclusive lock on the file that `dir`/`name` named when it was taken, let go on drop.
pub(crate) struct Held {
    file: File,
    meta: Metadata,
}

impl Held {
    /// The locked file's metadata, as it was when the lock was taken.
    pub(crate) fn meta(&self) -> &Metadata {
        &self.meta
    }

    /// True while `dir`/`name` still names the locked file.
    pub(crate) fn is_at(&self, dir: &CheckedDir, name: &str) -> io::Result<bool> {
        let now = std::fs::symlink_metadata(dir.entry(name))?;
        Ok(now.is_file() && same_file(&self.meta, &now))
    }

    /// The locked file's whole content, read through the locked handle: at most `cap` bytes
    /// (`None` when it holds more).
    pub(crate) fn read(&self, cap: u64) -> io::Result<Option<Vec<u8>>> {
        let mut bytes = Vec::with_capacity(self.meta.len().min(cap) as usize);
        let mut file = &self.file;
        file.seek(SeekFrom::Start(0))?;
        file.take(cap + 1).read_to_end(&mut bytes)?;
        Ok((bytes.len() as u64 <= cap).then_some(bytes))
    }
}

/// Locks the file `dir`/`name` names, waiting until `until` at most for other writers.
pub(crate) fn lock(dir: &CheckedDir, name: &str, until: Instant) -> Result<Held, LockError> {
    let mut pause = FIRST_PAUSE;
    loop {
        let file = match dir.open_entry(name) {
            Ok(file) => file,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(LockError::Gone),
            Err(e) => return Err(LockError::Io(e)),
        };
        let meta = file.metadata().map_err(LockError::Io)?;
        if !meta.is_file() {
            return Err(LockError::NotAFile);
        }
        match try_lock(file, dir, name).map_err(LockError::Io)? {
            Some(file) => {
                let held = Held { file, meta };
                match held.is_at(dir, name) {
                    Ok(true) => return Ok(held),
                    // Replaced between the open and the lock: try the new one at once.
                    Ok(false) => {}
                    Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(LockError::Gone),
                    Err(e) => return Err(LockError::Io(e)),
                }
                if std::fs::symlink_metadata(dir.entry(name)).is_ok_and(|m| !m.is_file()) {
                    return Err(LockError::NotAFile);
                }
            }
            None => {
                let now = Instant::now();
                if now >= until {
                    return Err(LockError::Busy);
                }
                thread::sleep(pause.min(until - now));
                pause = (pause * 2).min(MAX_PAUSE);
            }
        }
    }
}

/// Takes the lock on `file` without waiting: `None` when another handle holds it. Where an
/// exclusive lock needs a handle open for writing (Linux emulates `flock` over NFS with
/// byte-range locks), the file is opened again for writing and that handle locked instead.
fn try_lock(file: File, dir: &CheckedDir, name: &str) -> io::Result<Option<File>> {
    match file.try_lock() {
        Ok(()) => Ok(Some(file)),
        Err(TryLockError::WouldBlock) => Ok(None),
        Err(TryLockError::Error(first)) => {
            let writable = std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .open(dir.entry(name))
                .map_err(|_| first)?;
            match writable.try_lock() {
                Ok(()) => Ok(Some(writable)),
                Err(TryLockError::WouldBlock) => Ok(None),
                Err(TryLockError::Error(e)) => Err(e),
            }
        }
    }
}

/// Runs `step`, a rename over (or a removal of) a file this process holds locked. Windows 10
/// and later replace a file that is open (std falls back to POSIX semantics), so the lock is
/// kept throughout. Older Windows and Wine replace no file that is open, this process's own
/// lock included: there `let_go` drops the lock and `step` is tried once more. Another writer
/// that takes the lock in between either finds the file replaced (its size or times differ)
/// or still holds it open, and then the second try fails too ([`held_open`]): never both.
pub(crate) fn replace_locked<T>(
    let_go: impl FnOnce(),
    mut step: impl FnMut() -> io::Result<T>,
) -> io::Result<T> {
    let first = step();
    #[cfg(windows)]
    if first.as_ref().is_err_and(held_open) {
        let_go();
        return step();
    }
    #[cfg(not(windows))]
    drop(let_go);
    first
}

/// True when `error` is Windows refusing to replace or remove a file another handle holds
/// open (Access denied): a writer is at work on it.
pub(crate) fn held_open(error: &io::Error) -> bool {
    cfg!(windows) && error.kind() == io::ErrorKind::PermissionDenied
}

/// True when two metadata describe the same file: its device and inode number.
#[cfg(unix)]
pub(crate) fn same_file(a: &Metadata, b: &Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    (a.dev(), a.ino()) == (b.dev(), b.ino())
}

/// True when two metadata describe the same file, as far as std can tell here (it has no file
/// identity outside Unix): the same size, creation and modification times. A file renamed over
/// the path by another writer is a new file, created later.
#[cfg(not(unix))]
pub(crate) fn same_file(a: &Metadata, b: &Metadata) -> bool {
    a.len() == b.len()
        && a.created().ok() == b.created().ok()
        && a.modified().ok() == b.modified().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workspace::testutil::TempTree;
    use crate::workspace::Workspace;

    fn dir_of(tree: &TempTree) -> CheckedDir {
        let ws = Workspace::open(&tree.path).expect("workspace");
        let sandbox = ws.roots()[0].clone();
        let shown = crate::workspace::sandbox::RelPath::root();
        sandbox
            .open_dir(sandbox.root(), &shown)
            .expect("open the root")
    }

    #[test]
    fn a_second_lock_waits_until_the_deadline_and_is_refused_as_busy() {
        let tree = TempTree::new("lock-busy");
        tree.file("f", "one");
        let dir = dir_of(&tree);
        let first = lock(&dir, "f", Instant::now()).expect("the first lock");
        let asked = Instant::now();
        let second = lock(&dir, "f", asked + Duration::from_millis(30));
        assert!(matches!(second, Err(LockError::Busy)), "{:?}", second.err());
        assert!(asked.elapsed() >= Duration::from_millis(30), "it waited");
        drop(first);
        let third = lock(&dir, "f", Instant::now()).expect("free again");
        assert_eq!(third.read(100).expect("read").as_deref(), Some(&b"one"[..]));
        assert_eq!(third.read(2).expect("read"), None, "over the cap");
    }

    #[test]
    fn a_lock_on_a_file_renamed_over_is_not_at_the_path_and_the_new_one_is_locked() {
        let tree = TempTree::new("lock-renamed");
        tree.file("f", "old");
        let dir = dir_of(&tree);
        let old = lock(&dir, "f", Instant::now()).expect("lock");
        let locked = old.meta().clone();
        assert!(old.is_at(&dir, "f").expect("stat"));
        // The same size: only the times tell the files apart where there is no inode.
        tree.file("new", "new");
        replace_locked(
            || drop(old),
            || std::fs::rename(tree.path.join("new"), tree.path.join("f")),
        )
        .expect("rename");
        let now = std::fs::symlink_metadata(tree.path.join("f")).expect("stat");
        assert!(!same_file(&locked, &now), "the path names another file");
        let new = lock(&dir, "f", Instant::now()).expect("the new file is not locked");
        assert!(new.is_at(&dir, "f").expect("stat"));
        assert_eq!(new.read(100).expect("read").as_deref(), Some(&b"new"[..]));
    }

    #[test]
    fn a_missing_file_or_a_directory_is_not_locked() {
        let tree = TempTree::new("lock-missing");
        tree.file("d/x", "x");
        let dir = dir_of(&tree);
        assert!(matches!(
            lock(&dir, "nothing", Instant::now()),
            Err(LockError::Gone)
        ));
        assert!(matches!(
            lock(&dir, "d", Instant::now()),
            Err(LockError::NotAFile)
        ));
    }
}
