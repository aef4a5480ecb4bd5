//! Temporary directory trees for the unit tests (test builds only; the toolset itself
//! never writes).

use std::fs;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

static COUNTER: AtomicUsize = AtomicUsize::new(0);

/// A directory under the system temp dir, removed when dropped.
pub(crate) struct TempTree {
    /// The directory (not canonicalized).
    pub(crate) path: PathBuf,
}

impl TempTree {
    /// A fresh, empty directory with a unique name (process id and a counter).
    pub(crate) fn new(label: &str) -> TempTree {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let path =
            std::env::temp_dir().join(format!("minimcp-unit-{}-{n}-{label}", std::process::id()));
        let _ = fs::remove_dir_all(&path);
        fs::create_dir_all(&path).expect("create temp dir");
        TempTree { path }
    }

    /// Writes `contents` to `rel`, creating parent directories.
    pub(crate) fn file(&self, rel: &str, contents: impl AsRef<[u8]>) -> &Self {
        let path = self.path.join(rel);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).expect("create parent");
        }
        fs::write(&path, contents).expect("write file");
        self
    }

    /// The `file:` URI of `rel` in this tree, spelled out here rather than by the code the
    /// tests check (`file:///C:/…` on Windows).
    pub(crate) fn uri(&self, rel: &str) -> String {
        let root = self
            .path
            .to_str()
            .expect("utf-8 temp dir")
            .replace('\\', "/");
        let slash = if cfg!(windows) { "/" } else { "" };
        format!("file://{slash}{root}/{rel}")
    }

    /// Creates the directory `rel`.
    pub(crate) fn dir(&self, rel: &str) -> &Self {
        fs::create_dir_all(self.path.join(rel)).expect("create dir");
        self
    }

    /// Creates a symbolic link at `rel` pointing at `target` (taken literally).
    #[cfg(unix)]
    pub(crate) fn symlink(&self, target: impl AsRef<std::path::Path>, rel: &str) -> &Self {
        std::os::unix::fs::symlink(target, self.path.join(rel)).expect("create symlink");
        self
    }
}

impl Drop for TempTree {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.path);
    }
}

/// The client handlers run against in unit tests: the library's public [`minimcp::TestClient`].
pub(crate) type TestLink = minimcp::TestClient;

/// Runs `f` with a context from `client`; `progress` makes the request ask for progress.
pub(crate) fn with_context<T>(
    client: &mut TestLink,
    progress: bool,
    f: impl FnOnce(&mut minimcp::Context<'_>) -> T,
) -> T {
    client.progress = progress;
    f(&mut client.context())
}
