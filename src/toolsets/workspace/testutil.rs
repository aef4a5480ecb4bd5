//! Temporary directory trees for the unit tests (test builds only; the toolset itself
//! never writes).

use std::fs;
use std::path::{Path, PathBuf};
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

    /// Creates the directory `rel`.
    pub(crate) fn dir(&self, rel: &str) -> &Self {
        fs::create_dir_all(self.path.join(rel)).expect("create dir");
        self
    }

    /// Creates a symbolic link at `rel` pointing at `target` (taken literally).
    #[cfg(unix)]
    pub(crate) fn symlink(&self, target: impl AsRef<Path>, rel: &str) -> &Self {
        std::os::unix::fs::symlink(target, self.path.join(rel)).expect("create symlink");
        self
    }
}

impl Drop for TempTree {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.path);
    }
}

/// A connection for handlers run directly in unit tests: records notifications and
/// reports cancellation from the `cancel_at`-th poll on.
#[derive(Default)]
pub(crate) struct TestLink {
    pub(crate) notifications: Vec<(String, serde_json::Value)>,
    pub(crate) polls: usize,
    pub(crate) cancel_at: Option<usize>,
}

impl crate::context::Link for TestLink {
    fn notify(&mut self, method: &str, params: serde_json::Value) {
        self.notifications.push((method.to_string(), params));
    }

    fn request(
        &mut self,
        _method: &str,
        _params: serde_json::Value,
        _timeout: std::time::Duration,
    ) -> Result<serde_json::Value, crate::InputError> {
        Err(crate::InputError::Cancelled)
    }

    fn poll_cancelled(&mut self) -> bool {
        self.polls += 1;
        self.cancel_at.is_some_and(|at| self.polls >= at)
    }

    fn client_ready(&self) -> bool {
        true
    }

    fn roots_cache(&mut self) -> Option<&mut crate::session::RootsCache> {
        None
    }
}

/// Runs `f` with a context on `link`; `progress` sets a progress token.
pub(crate) fn with_context<T>(
    link: &mut TestLink,
    progress: bool,
    f: impl FnOnce(&mut crate::Context<'_>) -> T,
) -> T {
    let scope = crate::context::Scope {
        id: crate::jsonrpc::RequestId::number(1),
        version: crate::Version::V2025_11_25,
        progress_token: progress.then(|| serde_json::json!("p")),
        last_progress: None,
        log_level: None,
        client_capabilities: std::rc::Rc::new(serde_json::json!({})),
        client_info: std::rc::Rc::new(serde_json::json!({})),
        request_timeout: std::time::Duration::from_secs(1),
        result_budget: crate::Limits::default().max_result_bytes,
        inputs: crate::context::Inputs::default(),
        notifications: crate::context::NotificationBudget::default(),
    };
    let mut ctx = crate::Context::new(link, scope);
    f(&mut ctx)
}
