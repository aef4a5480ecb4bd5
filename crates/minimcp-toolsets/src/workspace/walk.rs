//! The one way the toolset visits a tree: depth-first, each directory's entries sorted by
//! name (so results come out sorted, component by component), bounded in entries, depth and
//! time, and reporting why it stopped.
//!
//! What a walk never does: enter `.git`; enter a directory `.gitignore` rules exclude; list,
//! follow or read a symbolic link whose target leaves the root; descend into a symbolic
//! link to a directory (its target, being inside the root, is walked in its own place, and
//! not following links means no cycles).

use std::fs::{self, FileType};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::gitignore::Rules;
use super::limits::{
    MAX_GITIGNORE_BYTES, MAX_WALK_DEPTH, MAX_WALK_ENTRIES, MAX_WALK_TIME, TICK_ENTRIES,
};
use super::platform::{entry_ino, FileId};
use super::sandbox::{RelPath, Resolved, Sandbox};

/// How far one walk may go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Bounds {
    pub(crate) max_entries: usize,
    pub(crate) max_depth: usize,
    pub(crate) max_time: Duration,
}

impl Default for Bounds {
    fn default() -> Self {
        Bounds {
            max_entries: MAX_WALK_ENTRIES,
            max_depth: MAX_WALK_DEPTH,
            max_time: MAX_WALK_TIME,
        }
    }
}

/// What an entry is (after following a symbolic link that stays inside).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    File,
    Dir,
    /// A device, socket or FIFO: listed, never read.
    Other,
}

impl Kind {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Kind::File => "file",
            Kind::Dir => "directory",
            Kind::Other => "other",
        }
    }
}

/// One entry met by a walk.
#[derive(Debug)]
pub(crate) struct Entry {
    /// Root-relative path, below the path the walk was asked to start from.
    pub(crate) rel: RelPath,
    /// Canonical path on disk (for a link: its target), inside the root.
    pub(crate) real: PathBuf,
    pub(crate) kind: Kind,
    /// True for a symbolic link (whose target stays inside the root).
    pub(crate) symlink: bool,
    /// 1 for entries directly in the starting directory.
    pub(crate) depth: usize,
    /// Device and inode as the checked directory listing gave them (not for links): lets
    /// [`Sandbox::open_listed`] recognise the very file.
    pub(crate) id: Option<FileId>,
}

impl Entry {
    /// Size in bytes for files (following a link), `None` otherwise or when unknown.
    pub(crate) fn size(&self) -> Option<u64> {
        if self.kind != Kind::File {
            return None;
        }
        fs::metadata(&self.real).ok().map(|m| m.len())
    }
}

/// What the visitor wants next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flow {
    Continue,
    /// Do not enter this directory.
    Skip,
    /// End the walk (the visitor has what it needs).
    Stop,
}

/// Why a walk ended before visiting everything.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stopped {
    Entries,
    Time,
    Cancelled,
    /// The visitor asked to stop.
    Visitor,
}

/// What a walk saw and skipped.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Summary {
    pub(crate) visited: usize,
    pub(crate) stopped: Option<Stopped>,
    /// Directories not entered because they are deeper than the depth bound.
    pub(crate) too_deep: usize,
    pub(crate) ignored: usize,
    pub(crate) escaping_links: usize,
    pub(crate) unreadable: usize,
    pub(crate) not_utf8: usize,
}

/// Receives a walk's entries.
pub(crate) trait Visitor {
    /// One entry, in walk order.
    fn visit(&mut self, entry: &Entry) -> Flow;

    /// Called every [`TICK_ENTRIES`] entries with the count so far; returning true ends
    /// the walk as cancelled.
    fn tick(&mut self, _visited: usize) -> bool {
        false
    }
}

/// A listed name, its type, and its inode number where known.
type Listed = (String, FileType, Option<u64>);

struct Frame {
    entries: std::vec::IntoIter<Listed>,
    /// The directory's device, when its listing came through a checked handle.
    dev: Option<u64>,
    real: PathBuf,
    /// Path shown to the client.
    rel: RelPath,
    /// Canonical root-relative path, for `.gitignore` matching.
    real_rel: RelPath,
    depth: usize,
    has_rules: bool,
}

/// The `.gitignore` rules in force at some point of a walk: one level per directory from
/// the root down that has a `.gitignore`. Only `.gitignore` files inside the root are read
/// (not `.git/info/exclude` or the global excludes file), each through the sandbox and
/// capped at [`MAX_GITIGNORE_BYTES`].
#[derive(Debug, Default)]
pub(crate) struct IgnoreStack {
    levels: Vec<(RelPath, Rules)>,
}

impl IgnoreStack {
    /// The rules in force in the directory `dir_rel` (root-relative, canonical): those of
    /// the root and of every directory down to and including `dir_rel`.
    pub(crate) fn for_dir(sandbox: &Sandbox, dir_rel: &RelPath) -> IgnoreStack {
        let mut stack = IgnoreStack::default();
        let mut rel = RelPath::root();
        let mut real = sandbox.root().to_path_buf();
        stack.enter(sandbox, &real, &rel);
        for name in dir_rel.components() {
            rel = rel.join(name);
            real.push(name);
            stack.enter(sandbox, &real, &rel);
        }
        stack
    }

    /// Reads `dir/.gitignore` if there is one; true when it added a level (to be
    /// [`leave`](Self::leave)n when the walk leaves `dir`).
    pub(crate) fn enter(&mut self, sandbox: &Sandbox, dir: &Path, rel: &RelPath) -> bool {
        let Some(bytes) = sandbox.read_entry(&dir.join(".gitignore"), MAX_GITIGNORE_BYTES) else {
            return false;
        };
        let rules = Rules::parse(&String::from_utf8_lossy(&bytes));
        if rules.is_empty() {
            return false;
        }
        self.levels.push((rel.clone(), rules));
        true
    }

    /// Drops the level the last successful [`enter`](Self::enter) added.
    pub(crate) fn leave(&mut self) {
        self.levels.pop();
    }

    /// True when `path` (root-relative, canonical) is ignored.
    pub(crate) fn is_ignored(&self, path: &RelPath, is_dir: bool) -> bool {
        for (base, rules) in self.levels.iter().rev() {
            if let Some(below) = path.strip_prefix(base).filter(|b| !b.is_empty()) {
                if let Some(ignored) = rules.decide(below, is_dir) {
                    return ignored;
                }
            }
        }
        false
    }
}

/// Walks the directory `start` (already resolved through the sandbox).
pub(crate) fn walk(
    sandbox: &Sandbox,
    start: &Resolved,
    bounds: &Bounds,
    visitor: &mut dyn Visitor,
) -> Summary {
    let deadline = Instant::now() + bounds.max_time;
    let mut summary = Summary::default();
    // The start's own .gitignore (and its ancestors') apply; `enter` is not called again.
    let mut ignores = IgnoreStack::for_dir(sandbox, &start.real_rel);
    let mut stack = Vec::new();
    match read_sorted(sandbox, &start.real, None) {
        Some((entries, not_utf8, dev)) => {
            summary.not_utf8 += not_utf8;
            stack.push(Frame {
                entries: entries.into_iter(),
                dev,
                real: start.real.clone(),
                rel: start.rel.clone(),
                real_rel: start.real_rel.clone(),
                depth: 1,
                has_rules: false,
            });
        }
        None => summary.unreadable += 1,
    }
    while let Some(frame) = stack.last_mut() {
        let Some((name, file_type, ino)) = frame.entries.next() else {
            if frame.has_rules {
                ignores.leave();
            }
            stack.pop();
            continue;
        };
        if name.eq_ignore_ascii_case(".git") {
            continue;
        }
        summary.visited += 1;
        if summary.visited > bounds.max_entries {
            summary.visited -= 1;
            summary.stopped = Some(Stopped::Entries);
            break;
        }
        if summary.visited.is_multiple_of(TICK_ENTRIES) {
            if visitor.tick(summary.visited) {
                summary.stopped = Some(Stopped::Cancelled);
                break;
            }
            if Instant::now() >= deadline {
                summary.stopped = Some(Stopped::Time);
                break;
            }
        }
        let path = frame.real.join(&name);
        let (real, kind, symlink) = if file_type.is_symlink() {
            match sandbox.follow(&path, &RelPath::root()) {
                Ok(target) => match fs::metadata(&target) {
                    Ok(meta) => (target, kind_of(meta.file_type()), true),
                    Err(_) => continue,
                },
                Err(_) => {
                    // Broken or escaping: either way neither listed nor followed.
                    summary.escaping_links += 1;
                    continue;
                }
            }
        } else {
            (path, kind_of(file_type), false)
        };
        let real_rel = frame.real_rel.join(&name);
        if ignores.is_ignored(&real_rel, kind == Kind::Dir) {
            summary.ignored += 1;
            continue;
        }
        // Denied files are hidden without a trace (not even counted in the notes).
        let is_dir = kind == Kind::Dir;
        if sandbox.is_denied_entry(&real_rel, is_dir)
            || (symlink
                && sandbox
                    .relative(&real)
                    .is_some_and(|target| sandbox.is_denied(&target, is_dir)))
        {
            continue;
        }
        let id = match (frame.dev, ino, symlink) {
            (Some(dev), Some(ino), false) => Some(FileId { dev, ino }),
            _ => None,
        };
        let entry = Entry {
            rel: frame.rel.join(&name),
            real,
            kind,
            symlink,
            depth: frame.depth,
            id,
        };
        match visitor.visit(&entry) {
            Flow::Stop => {
                summary.stopped = Some(Stopped::Visitor);
                break;
            }
            Flow::Skip => continue,
            Flow::Continue if kind != Kind::Dir || symlink => continue,
            Flow::Continue => {}
        }
        if entry.depth >= bounds.max_depth {
            summary.too_deep += 1;
            continue;
        }
        let Some((entries, not_utf8, dev)) = read_sorted(sandbox, &entry.real, entry.id) else {
            summary.unreadable += 1;
            continue;
        };
        summary.not_utf8 += not_utf8;
        // The listing already says whether there is a `.gitignore` to read.
        let has_rules = entries
            .binary_search_by(|e| e.0.as_str().cmp(".gitignore"))
            .is_ok()
            && ignores.enter(sandbox, &entry.real, &real_rel);
        stack.push(Frame {
            entries: entries.into_iter(),
            dev,
            real: entry.real,
            rel: entry.rel,
            real_rel,
            depth: entry.depth + 1,
            has_rules,
        });
    }
    summary
}

fn kind_of(file_type: FileType) -> Kind {
    if file_type.is_dir() {
        Kind::Dir
    } else if file_type.is_file() {
        Kind::File
    } else {
        Kind::Other
    }
}

/// A directory's entries sorted by name, how many names were skipped for not being UTF-8
/// (they could not be named in JSON or given back to us), and the directory's device when
/// the listing came through a checked handle (see [`Sandbox::list_dir`]; `id` is the
/// directory's identity in its parent's listing, when known).
///
/// The whole directory is read before sorting, so the walk's limits always cut in sorted
/// order and the same tree gives the same partial result. Only a single directory of more
/// than [`MAX_WALK_ENTRIES`] entries is cut in the file system's order (to bound memory).
fn read_sorted(
    sandbox: &Sandbox,
    dir: &Path,
    id: Option<FileId>,
) -> Option<(Vec<Listed>, usize, Option<u64>)> {
    let listing = sandbox.list_dir(dir, id).ok()?;
    let mut entries = Vec::new();
    let mut not_utf8 = 0;
    for item in listing.entries.take(MAX_WALK_ENTRIES + 1) {
        let Ok(item) = item else { continue };
        let Ok(file_type) = item.file_type() else {
            continue;
        };
        let ino = entry_ino(&item);
        match item.file_name().into_string() {
            Ok(name) => entries.push((name, file_type, ino)),
            Err(_) => not_utf8 += 1,
        }
    }
    entries.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    Some((entries, not_utf8, listing.dev))
}

impl Summary {
    /// Adds the counts of a later walk (of another root) to these.
    pub(crate) fn absorb(&mut self, other: Summary) {
        self.visited += other.visited;
        self.stopped = self.stopped.or(other.stopped);
        self.too_deep += other.too_deep;
        self.ignored += other.ignored;
        self.escaping_links += other.escaping_links;
        self.unreadable += other.unreadable;
        self.not_utf8 += other.not_utf8;
    }

    /// True when no bound stopped the walk early. A visitor that stopped it (a page is
    /// full) is not a bound: what it did not take is reported as more to come, not as missing.
    pub(crate) fn complete(&self) -> bool {
        matches!(self.stopped, None | Some(Stopped::Visitor)) && self.too_deep == 0
    }

    /// Plain-language notes about what was skipped or cut short, for tool results.
    pub(crate) fn notes(&self, bounds: &Bounds) -> Vec<String> {
        let mut notes = Vec::new();
        match self.stopped {
            Some(Stopped::Entries) => notes.push(format!(
                "{PARTIAL} the walk stopped at its limit of {} entries; search a narrower directory or pattern.",
                bounds.max_entries
            )),
            Some(Stopped::Time) => notes.push(format!(
                "{PARTIAL} the walk stopped at its time limit of {} s; search a narrower directory or pattern (a second search is faster: the files are cached by then).",
                bounds.max_time.as_secs()
            )),
            Some(Stopped::Cancelled) => notes.push(format!("{PARTIAL} cancelled.")),
            Some(Stopped::Visitor) | None => {}
        }
        let counted = [
            (
                self.too_deep,
                ("directory", "directories"),
                format!(
                    "deeper than {} levels not entered (start deeper to see inside)",
                    bounds.max_depth
                ),
            ),
            (
                self.ignored,
                ("entry", "entries"),
                "skipped by .gitignore rules".to_string(),
            ),
            (
                self.escaping_links,
                ("symbolic link", "symbolic links"),
                "skipped: broken, or leading outside the workspace".to_string(),
            ),
            (
                self.unreadable,
                ("directory", "directories"),
                "could not be read".to_string(),
            ),
            (
                self.not_utf8,
                ("entry", "entries"),
                "skipped: the name is not valid UTF-8".to_string(),
            ),
        ];
        for (count, noun, what) in counted {
            if count > 0 {
                notes.push(format!("{} {what}.", plural(count, noun)));
            }
        }
        notes
    }
}

/// How a note saying that a result is partial starts: [`super::output::text_block`] puts
/// such notes first, so a model reading only the start of a long result knows.
pub(crate) const PARTIAL: &str = "Partial result:";

/// `1 entry`, `2 entries`.
pub(crate) fn plural(count: usize, (one, many): (&str, &str)) -> String {
    format!("{count} {}", if count == 1 { one } else { many })
}

#[cfg(test)]
#[path = "walk_tests.rs"]
mod tests;
