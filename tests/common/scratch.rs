//! Temporary directories for tests: a name unique to the process and the call, removed on
//! drop, so a test never sees another's files and a passing run leaves nothing behind.

use std::fs;
use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

static COUNTER: AtomicUsize = AtomicUsize::new(0);

/// A fresh, empty directory under the system temp dir, removed with its contents on drop.
/// Its path is canonical: the server reports resolved paths, and tests compare with them.
pub(crate) struct Scratch(PathBuf);

impl Scratch {
    /// `label` goes into the directory's name, for whoever finds one a crash left behind.
    /// Kept short by callers that put a Unix socket inside (its path is limited to ~100 bytes).
    pub(crate) fn new(label: &str) -> Scratch {
        Scratch::new_in(&std::env::temp_dir(), label)
    }

    /// [`Scratch::new`] below `base` instead of the system temp dir (a RAM disk, say).
    pub(crate) fn new_in(base: &Path, label: &str) -> Scratch {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let path = base.join(format!("mm-{}-{n}-{label}", std::process::id()));
        let _ = fs::remove_dir_all(&path);
        fs::create_dir_all(&path).expect("create scratch dir");
        Scratch(path.canonicalize().expect("canonical scratch dir"))
    }

    pub(crate) fn path(&self) -> &Path {
        &self.0
    }

    /// The path as a `&str`, for command lines.
    pub(crate) fn str(&self) -> &str {
        self.0.to_str().expect("utf-8 temp dir")
    }

    /// Writes `contents` to `rel`, creating its parent directories.
    pub(crate) fn file(&self, rel: &str, contents: impl AsRef<[u8]>) -> &Self {
        let path = self.0.join(rel);
        fs::create_dir_all(path.parent().expect("parent")).expect("create parent");
        fs::write(path, contents).expect("write");
        self
    }

    /// Creates the directory `rel` and its parents.
    pub(crate) fn dir(&self, rel: &str) -> &Self {
        fs::create_dir_all(self.0.join(rel)).expect("create dir");
        self
    }

    /// Creates `rel` as a symbolic link to `target`.
    #[cfg(unix)]
    pub(crate) fn symlink(&self, target: impl AsRef<Path>, rel: &str) -> &Self {
        std::os::unix::fs::symlink(target, self.0.join(rel)).expect("symlink");
        self
    }

    /// The contents of `rel` as text.
    pub(crate) fn read(&self, rel: &str) -> String {
        fs::read_to_string(self.0.join(rel)).expect("read")
    }
}

/// A scratch directory is used wherever a path is: `&dir`, `dir.join(..)`, `dir.display()`.
impl Deref for Scratch {
    type Target = Path;

    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<std::ffi::OsStr> for Scratch {
    fn as_ref(&self) -> &std::ffi::OsStr {
        self.0.as_os_str()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}
