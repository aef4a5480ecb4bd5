//! The last few analyses and `git log` results, so that a later page of a result costs
//! about what its own bytes cost instead of a new walk, read and lex of the whole tree.
//!
//! An analysis is kept with the size and modification time of everything it depended on:
//! each measured (or skipped) source file, each directory walked (a directory's time
//! changes when an entry is added, removed or renamed), each `.gitignore` met and each
//! target. It is used again only when its key (roots, targets, toolchain, exclude) is the
//! same and every one of those still stats the same: a stat per file, far cheaper than
//! reading and lexing it. A history is keyed by the working directory, paths, period and
//! the `HEAD` commit id, and kept for [`HISTORY_CACHE_TTL`](super::limits::HISTORY_CACHE_TTL).
//!
//! This file is the mechanism ([`Cache`], its keys, [`Stamp`]); the caches themselves are
//! `complexity.rs`'s `Analyses` (which churn's hotspots share) and `churn.rs`'s
//! `Histories`, each saying when its values are stale and how large they are.
//!
//! Bounds: [`MAX_CACHED_ANALYSES`](super::limits::MAX_CACHED_ANALYSES) analyses and
//! [`MAX_CACHED_FUNCTIONS`](super::limits::MAX_CACHED_FUNCTIONS) functions over all of
//! them; [`MAX_CACHED_HISTORIES`](super::limits::MAX_CACHED_HISTORIES) histories and
//! [`MAX_CACHED_HISTORY_FILES`](super::limits::MAX_CACHED_HISTORY_FILES) files. The least
//! recently used entry goes first; an entry larger than a whole budget is not kept. The
//! server is single-threaded, so the caches are plain `RefCell`s.

use std::cell::{Cell, RefCell};
use std::fs::{self, Metadata};
use std::path::PathBuf;
use std::rc::Rc;
use std::time::{Instant, SystemTime};

use super::lang::Lang;

/// What a file or directory looked like: its size and modification time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Stamp {
    len: u64,
    modified: Option<SystemTime>,
}

impl Stamp {
    fn of(meta: &Metadata) -> Stamp {
        Stamp {
            len: meta.len(),
            modified: meta.modified().ok(),
        }
    }

    /// The size in bytes.
    pub(crate) fn len(&self) -> u64 {
        self.len
    }

    /// The stamp of `path` now (links followed), `None` when it is gone.
    pub(crate) fn now(path: &std::path::Path) -> Option<Stamp> {
        fs::metadata(path).ok().map(|m| Stamp::of(&m))
    }
}

/// What makes two analyses the same, besides the files' contents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct AnalysisKey {
    /// Each target: its root, canonical path and path as shown.
    pub(crate) targets: Vec<(PathBuf, PathBuf, String)>,
    pub(crate) only: Option<Lang>,
    pub(crate) exclude: Vec<String>,
}

/// What makes two `git log` results the same.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct HistoryKey {
    pub(crate) cwd: PathBuf,
    pub(crate) pathspecs: Vec<String>,
    pub(crate) days: u64,
    pub(crate) head: String,
}

struct Slot<K, V> {
    key: K,
    value: Rc<V>,
    size: usize,
    used: u64,
    born: Instant,
}

/// A small least-recently-used list bounded in entries and total size.
struct Lru<K, V> {
    slots: Vec<Slot<K, V>>,
    max_entries: usize,
    max_size: usize,
}

impl<K: PartialEq, V> Lru<K, V> {
    fn new(max_entries: usize, max_size: usize) -> Self {
        Lru {
            slots: Vec::new(),
            max_entries,
            max_size,
        }
    }

    fn get(
        &mut self,
        key: &K,
        tick: u64,
        fresh: impl FnOnce(&V, Instant) -> bool,
    ) -> Option<Rc<V>> {
        let index = self.slots.iter().position(|s| &s.key == key)?;
        if !fresh(&self.slots[index].value, self.slots[index].born) {
            self.slots.swap_remove(index);
            return None;
        }
        self.slots[index].used = tick;
        Some(Rc::clone(&self.slots[index].value))
    }

    fn put(&mut self, key: K, value: Rc<V>, size: usize, tick: u64) {
        self.slots.retain(|s| s.key != key);
        if size > self.max_size {
            return;
        }
        while !self.slots.is_empty()
            && (self.slots.len() >= self.max_entries
                || self.slots.iter().map(|s| s.size).sum::<usize>() + size > self.max_size)
        {
            let oldest = (0..self.slots.len())
                .min_by_key(|&i| self.slots[i].used)
                .unwrap_or(0);
            self.slots.swap_remove(oldest);
        }
        self.slots.push(Slot {
            key,
            value,
            size,
            used: tick,
            born: Instant::now(),
        });
    }
}

/// One cache: a [`Lru`] behind a `RefCell`, with the clock that orders its entries by use.
pub(crate) struct Cache<K, V> {
    lru: RefCell<Lru<K, V>>,
    clock: Cell<u64>,
}

impl<K: PartialEq, V> Cache<K, V> {
    /// An empty cache of at most `max_entries` entries and `max_size` in total size.
    pub(crate) fn new(max_entries: usize, max_size: usize) -> Self {
        Cache {
            lru: RefCell::new(Lru::new(max_entries, max_size)),
            clock: Cell::new(0),
        }
    }

    fn tick(&self) -> u64 {
        self.clock.set(self.clock.get() + 1);
        self.clock.get()
    }

    /// The value kept for `key`, unless `fresh` (given it and when it was kept) says it is
    /// stale; a stale value is dropped.
    pub(crate) fn get(&self, key: &K, fresh: impl FnOnce(&V, Instant) -> bool) -> Option<Rc<V>> {
        let tick = self.tick();
        self.lru.borrow_mut().get(key, tick, fresh)
    }

    /// Keeps `value`, of `size`, for `key`: the least recently used entries go to make room.
    pub(crate) fn put(&self, key: K, value: Rc<V>, size: usize) {
        let tick = self.tick();
        self.lru.borrow_mut().put(key, value, size, tick);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_least_recently_used_goes_first_and_size_is_bounded() {
        let mut lru: Lru<u32, u32> = Lru::new(2, 10);
        lru.put(1, Rc::new(1), 4, 1);
        lru.put(2, Rc::new(2), 4, 2);
        assert!(lru.get(&1, 3, |_, _| true).is_some());
        // Two entries at most: 2 (least recently used) goes.
        lru.put(3, Rc::new(3), 1, 4);
        assert!(lru.get(&2, 5, |_, _| true).is_none());
        // Size: 4 + 1 + 6 > 10, so the oldest (1) goes too.
        lru.put(4, Rc::new(4), 6, 6);
        assert!(lru.get(&1, 7, |_, _| true).is_none());
        assert!(lru.get(&4, 8, |_, _| true).is_some());
        // Larger than the whole budget: not kept.
        lru.put(5, Rc::new(5), 11, 9);
        assert!(lru.get(&5, 10, |_, _| true).is_none());
        // Stale: dropped.
        assert!(lru.get(&4, 11, |_, _| false).is_none());
        assert!(lru.get(&4, 12, |_, _| true).is_none());
    }
}
