//! What a crash between two files of a patch leaves, made visible.
//!
//! Each file of a patch is replaced atomically (`atomic.rs`), so after a crash each holds its
//! old or its new content; but a patch of several files written one after the other may be
//! cut between two of them. Before its first write, `apply_patch` writes a journal into the
//! root, `.minimcp-patch.<pid>.<16 hex digits>.json` (a reserved name, written atomically),
//! listing every file it will change with the SHA-256 it has before and will have after
//! (`null`: absent); it removes the journal after its last write (or after undoing a failed
//! one). A journal still there when the next server with editing on starts, whose process
//! is gone, is a patch that was interrupted: [`scan`] compares each file with its two hashes
//! and says which are old and which new, in the log and to the first client that calls an
//! edit tool; the journal is removed once a client has been told.

use std::fs;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::edit::atomic;
use crate::workspace::sandbox::{RelPath, Sandbox};
use crate::workspace::target::{is_journal_name, CheckedDir, JOURNAL_PREFIX};
use minimcp_base::encoding::sha256_hex;

/// The largest journal read back (a patch names at most `MAX_PATCH_FILES` files).
const MAX_JOURNAL_BYTES: u64 = 4 << 20;

/// One file of a patch: its root-relative path, and its SHA-256 before and after.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub(crate) struct Change {
    pub(crate) path: String,
    pub(crate) before: Option<String>,
    pub(crate) after: Option<String>,
}

#[derive(Serialize, Deserialize)]
struct Record {
    minimcp_patch_journal: u32,
    pid: u32,
    files: Vec<Change>,
}

/// A journal being kept while a patch writes.
pub(crate) struct Journal {
    dir: CheckedDir,
    name: String,
}

impl Journal {
    /// Writes the journal of `changes` into `root` (durably: it is renamed into place and
    /// the directory synced before this returns).
    pub(crate) fn begin(root: &Sandbox, changes: &[Change]) -> io::Result<Journal> {
        let dir = root
            .open_dir(root.root(), &RelPath::root())
            .map_err(|e| io::Error::other(e.to_string()))?;
        let random = atomic::temp_name();
        let hex = random.rsplit('.').nth(1).unwrap_or("0000000000000000");
        let name = format!("{JOURNAL_PREFIX}{}.{hex}.json", std::process::id());
        let record = Record {
            minimcp_patch_journal: 1,
            pid: std::process::id(),
            files: changes.to_vec(),
        };
        let text = serde_json::to_vec_pretty(&record).map_err(io::Error::other)?;
        let mut prepared = atomic::Prepared::new(&dir, &text, None, None)?;
        prepared.replace(&name)?;
        drop(prepared);
        dir.sync()?;
        Ok(Journal { dir, name })
    }

    /// Removes the journal: the patch is complete (or undone).
    pub(crate) fn end(self) -> io::Result<()> {
        fs::remove_file(self.dir.entry(&self.name))?;
        self.dir.sync()
    }
}

/// An interrupted patch found at start: its journal and what to tell.
#[derive(Debug, Clone)]
pub(crate) struct Interrupted {
    pub(crate) journal: PathBuf,
    pub(crate) message: String,
}

/// True while the process that wrote a journal may still be writing: this one, or (Linux)
/// any live process with its id.
fn writer_alive(pid: u32) -> bool {
    if pid == std::process::id() {
        return true;
    }
    #[cfg(target_os = "linux")]
    {
        Path::new(&format!("/proc/{pid}")).exists()
    }
    #[cfg(not(target_os = "linux"))]
    {
        false
    }
}

/// The journals of interrupted patches at the top of `root`, each with what its files hold
/// now (files larger than `max_bytes` are not hashed).
pub(crate) fn scan(root: &Sandbox, max_bytes: u64) -> Vec<Interrupted> {
    let Ok(entries) = fs::read_dir(root.root()) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if !is_journal_name(name) || !entry.file_type().is_ok_and(|t| t.is_file()) {
            continue;
        }
        let pid = name
            .strip_prefix(JOURNAL_PREFIX)
            .and_then(|r| r.split('.').next())
            .and_then(|p| p.parse::<u32>().ok())
            .unwrap_or(0);
        if writer_alive(pid) {
            continue;
        }
        let path = entry.path();
        let message = match read_record(root, &path, name) {
            Some(record) => describe(root, &record, name, max_bytes),
            None => format!("an unreadable patch journal `{name}` was found in the workspace root: an apply_patch of an earlier server was interrupted, but which files it changed is unknown"),
        };
        found.push(Interrupted {
            journal: path,
            message,
        });
    }
    found.sort_by(|a, b| a.journal.cmp(&b.journal));
    found
}

/// The journal at `path` (in `root`, opened and checked to be inside it), parsed.
fn read_record(root: &Sandbox, path: &Path, name: &str) -> Option<Record> {
    let (file, _) = root.open_regular(path, &RelPath::root().join(name)).ok()?;
    let mut bytes = Vec::new();
    file.take(MAX_JOURNAL_BYTES).read_to_end(&mut bytes).ok()?;
    serde_json::from_slice(&bytes).ok()
}

/// The SHA-256 of the regular file `path` below `root` (no link followed), `None` when
/// there is none; `Err` when it cannot be told.
fn current(root: &Sandbox, path: &str, max_bytes: u64) -> Result<Option<String>, ()> {
    let local = RelPath::parse(path).map_err(|_| ())?;
    let mut real = root.root().to_path_buf();
    let count = local.components().count();
    for (i, name) in local.components().enumerate() {
        real.push(name);
        match fs::symlink_metadata(&real) {
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
                ) =>
            {
                return Ok(None)
            }
            Err(_) => return Err(()),
            Ok(meta) if meta.file_type().is_symlink() => return Err(()),
            Ok(meta) if i + 1 < count && !meta.is_dir() => return Ok(None),
            Ok(meta) if i + 1 == count && (!meta.is_file() || meta.len() > max_bytes) => {
                return Err(())
            }
            Ok(_) => {}
        }
    }
    let (file, meta) = root.open_regular(&real, &local).map_err(|_| ())?;
    let bytes =
        crate::workspace::sandbox::read_capped(file, meta.len(), max_bytes).map_err(|_| ())?;
    Ok(Some(sha256_hex(&bytes)))
}

/// What an interrupted patch's files hold now, in a sentence per file.
fn describe(root: &Sandbox, record: &Record, journal: &str, max_bytes: u64) -> String {
    let mut states = Vec::new();
    for change in &record.files {
        let shown = root.label().join_rel(&change.path);
        let state = match current(root, &change.path, max_bytes) {
            Ok(now) if now == change.after && now == change.before => "unchanged by the patch",
            Ok(now) if now == change.after => match now {
                Some(_) => "new (the patch's content)",
                None => "deleted (as the patch leaves it)",
            },
            Ok(now) if now == change.before => match now {
                Some(_) => "old (not yet written)",
                None => "absent (not yet created)",
            },
            Ok(_) => "changed since (neither the old nor the new content)",
            Err(()) => "unreadable",
        };
        states.push(format!("`{shown}` {state}"));
    }
    format!(
        "apply_patch in an earlier server process (pid {}) was interrupted between two files: {}. Each file is whole (old or new); finish or undo the change, then check with read_file. [journal {journal}]",
        record.pid,
        states.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_journal_of_a_dead_process_is_reported_with_each_files_state() {
        let dir = std::env::temp_dir().join(format!("minimcp-journal-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(dir.join("d")).expect("dirs");
        let root = Sandbox::new(&dir).expect("sandbox");
        fs::write(dir.join("new.txt"), "B").expect("write");
        fs::write(dir.join("d/old.txt"), "A").expect("write");
        let (a, b) = (sha256_hex(b"A"), sha256_hex(b"B"));
        let changes = vec![
            Change {
                path: "new.txt".into(),
                before: Some(a.clone()),
                after: Some(b.clone()),
            },
            Change {
                path: "d/old.txt".into(),
                before: Some(a.clone()),
                after: Some(b.clone()),
            },
            Change {
                path: "gone.txt".into(),
                before: Some(a.clone()),
                after: None,
            },
            Change {
                path: "made.txt".into(),
                before: None,
                after: Some(b.clone()),
            },
        ];
        let journal = Journal::begin(&root, &changes).expect("journal");
        assert!(
            scan(&root, 1 << 20).is_empty(),
            "this process's own journal is not reported"
        );
        // Pid 4294967295 is never a live process.
        let dead = dir.join(format!("{JOURNAL_PREFIX}4294967295.0123456789abcdef.json"));
        fs::rename(journal.dir.entry(&journal.name), &dead).expect("rename");
        let found = scan(&root, 1 << 20);
        assert_eq!(found.len(), 1);
        let message = &found[0].message;
        for part in [
            "`new.txt` new",
            "`d/old.txt` old",
            "`gone.txt` deleted",
            "`made.txt` absent (not yet created)",
        ] {
            assert!(message.contains(part), "{part}: {message}");
        }
        fs::remove_dir_all(&dir).expect("clean up");
    }
}
