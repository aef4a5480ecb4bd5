//! What each session was last shown of each file: the SHA-256 of the whole file when
//! `read_file` served it, or when an edit tool wrote it. The edit toolset refuses to change
//! a file whose content no longer has the hash this session last saw, so a model never
//! overwrites a change it has not read (made by a person, another process or another
//! session) unless it passes the hash it means with `expected_sha256`.
//!
//! Nothing is kept unless the edit toolset turned it on ([`Served::enable`]); then at most
//! [`MAX_SERVED`] entries, the oldest forgotten first. A forgotten entry only means "not read
//! in this session": the edit is refused with the advice to read the file again, never let
//! through.

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, HashMap};
use std::fs::Metadata;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use super::platform::{file_id, FileId};

/// At most this many (session, file) pairs are remembered.
pub(crate) const MAX_SERVED: usize = 16_384;

/// At most this many file hashes are kept for reuse by later reads ([`Served::cached`]).
pub(crate) const MAX_CACHED: usize = 256;

/// What identifies one version of a file without reading it: its identity, size and
/// modification time (nanoseconds on the usual file systems).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Stamp {
    id: Option<FileId>,
    len: u64,
    modified: SystemTime,
}

impl Stamp {
    /// The stamp of an opened file's metadata (`None` without a modification time).
    pub(crate) fn of(meta: &Metadata) -> Option<Stamp> {
        Some(Stamp {
            id: file_id(meta),
            len: meta.len(),
            modified: meta.modified().ok()?,
        })
    }
}

/// The hashes served, by session and canonical path.
#[derive(Default)]
pub(crate) struct Served {
    enabled: Cell<bool>,
    inner: RefCell<Inner>,
    /// Canonical path → the stamp and hash of its version last hashed, so paging through a
    /// file hashes it once. Only a speed-up: the edit tools always hash the file they change.
    cache: RefCell<HashMap<PathBuf, (Stamp, String)>>,
}

#[derive(Default)]
struct Inner {
    /// (session, canonical path) → (hash, sequence number).
    hashes: HashMap<(u64, PathBuf), (String, u64)>,
    /// Sequence number → key: the oldest entry is the first.
    order: BTreeMap<u64, (u64, PathBuf)>,
    next: u64,
}

#[cfg_attr(
    not(feature = "edit"),
    allow(dead_code, reason = "only the edit toolset writes")
)]
impl Served {
    /// Starts remembering (the edit toolset calls this when it is added).
    pub(crate) fn enable(&self) {
        self.enabled.set(true);
    }

    /// True once the edit toolset turned the memory on: only then does `read_file` hash
    /// what it serves (a read-only server has no use for the hashes).
    pub(crate) fn enabled(&self) -> bool {
        self.enabled.get()
    }

    /// The hash of `path` when its version `stamp` was hashed before.
    pub(crate) fn cached(&self, path: &Path, stamp: &Stamp) -> Option<String> {
        match self.cache.borrow().get(path) {
            Some((seen, hash)) if seen == stamp => Some(hash.clone()),
            _ => None,
        }
    }

    /// Keeps the hash of `path`'s version `stamp` for later reads.
    pub(crate) fn remember(&self, path: &Path, stamp: Stamp, hash: &str) {
        let mut cache = self.cache.borrow_mut();
        if cache.len() >= MAX_CACHED && !cache.contains_key(path) {
            cache.clear();
        }
        cache.insert(path.to_path_buf(), (stamp, hash.to_string()));
    }

    /// Remembers that `session` was shown `path` (canonical) with this SHA-256.
    pub(crate) fn record(&self, session: Option<u64>, path: &Path, sha256: &str) {
        let Some(session) = session.filter(|_| self.enabled.get()) else {
            return;
        };
        let mut inner = self.inner.borrow_mut();
        let seq = inner.next;
        inner.next += 1;
        let key = (session, path.to_path_buf());
        if let Some((_, old)) = inner.hashes.insert(key.clone(), (sha256.to_string(), seq)) {
            inner.order.remove(&old);
        }
        inner.order.insert(seq, key);
        while inner.hashes.len() > MAX_SERVED {
            let Some((_, oldest)) = inner.order.pop_first() else {
                break;
            };
            inner.hashes.remove(&oldest);
        }
    }

    /// The hash `session` was last shown for `path`, if it is remembered.
    pub(crate) fn last(&self, session: u64, path: &Path) -> Option<String> {
        let inner = self.inner.borrow();
        inner
            .hashes
            .get(&(session, path.to_path_buf()))
            .map(|(hash, _)| hash.clone())
    }

    /// Forgets `path` for every session (after a move, the old name holds nothing).
    pub(crate) fn forget(&self, path: &Path) {
        let mut inner = self.inner.borrow_mut();
        let gone: Vec<(u64, PathBuf)> = inner
            .hashes
            .keys()
            .filter(|(_, p)| p == path)
            .cloned()
            .collect();
        for key in gone {
            if let Some((_, seq)) = inner.hashes.remove(&key) {
                inner.order.remove(&seq);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remembers_per_session_only_when_enabled_and_forgets_the_oldest() {
        let served = Served::default();
        let a = Path::new("/r/a");
        served.record(Some(1), a, "h1");
        assert_eq!(served.last(1, a), None, "off until enabled");
        served.enable();
        served.record(Some(1), a, "h1");
        served.record(None, a, "stateless");
        assert_eq!(served.last(1, a).as_deref(), Some("h1"));
        assert_eq!(served.last(2, a), None, "another session saw nothing");
        served.record(Some(1), a, "h2");
        assert_eq!(served.last(1, a).as_deref(), Some("h2"));
        for i in 0..MAX_SERVED as u64 {
            served.record(Some(2), &PathBuf::from(format!("/r/{i}")), "x");
        }
        assert_eq!(served.last(1, a), None, "the oldest entry went first");
        assert_eq!(served.inner.borrow().hashes.len(), MAX_SERVED);
        assert_eq!(served.inner.borrow().order.len(), MAX_SERVED);
        served.forget(Path::new("/r/5"));
        assert_eq!(served.last(2, Path::new("/r/5")), None);
    }

    #[test]
    fn a_cached_hash_is_reused_only_for_the_same_version() {
        let tree = crate::workspace::testutil::TempTree::new("stamp");
        tree.file("f", "one");
        let path = tree.path.join("f");
        let stamp = |p: &Path| Stamp::of(&std::fs::metadata(p).expect("meta")).expect("mtime");
        let served = Served::default();
        let first = stamp(&path);
        assert_eq!(served.cached(&path, &first), None);
        served.remember(&path, first.clone(), "h1");
        assert_eq!(served.cached(&path, &first).as_deref(), Some("h1"));
        tree.file("f", "three");
        assert_eq!(served.cached(&path, &stamp(&path)), None, "a new version");
        for i in 0..MAX_CACHED {
            served.remember(&PathBuf::from(format!("/c/{i}")), first.clone(), "x");
        }
        assert!(served.cache.borrow().len() <= MAX_CACHED);
    }
}
