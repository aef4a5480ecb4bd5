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
use std::path::{Path, PathBuf};

/// At most this many (session, file) pairs are remembered.
pub(crate) const MAX_SERVED: usize = 16_384;

/// The hashes served, by session and canonical path.
#[derive(Default)]
pub(crate) struct Served {
    enabled: Cell<bool>,
    inner: RefCell<Inner>,
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
}
