//! Real changes, as git prints them: each changed text file's bytes before and after, and
//! the hunks of `git diff -U3` between them.
//!
//! Only the hunk headers and the `' '`/`'-'`/`'+'` markers of the diff are used; the lines
//! themselves are taken from the files, so every byte (`\r`, trailing blanks, a last line
//! without its newline) is exactly what the file holds. Each file's hunks are checked to
//! rebuild the after-file byte for byte from the before-file before it is used.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

/// Files larger than this (before or after) are left out: the server's default write limit.
const MAX_FILE_BYTES: usize = 4 * 1024 * 1024;

/// One line of a hunk: kept, removed or added.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Op {
    Context,
    Remove,
    Add,
}

/// One hunk of one file.
#[derive(Debug, Clone)]
pub(crate) struct Hunk {
    /// The index (0-based) of the hunk's first line in the before-file.
    pub(crate) old_start: usize,
    /// The index (0-based) of its first line in the after-file.
    pub(crate) new_start: usize,
    /// The diff's lines in order.
    pub(crate) ops: Vec<Op>,
}

impl Hunk {
    /// Lines the hunk spans in the before-file.
    pub(crate) fn old_len(&self) -> usize {
        self.ops.iter().filter(|o| **o != Op::Add).count()
    }

    /// Lines it spans in the after-file.
    pub(crate) fn new_len(&self) -> usize {
        self.ops.iter().filter(|o| **o != Op::Remove).count()
    }
}

/// One file one change touched, with text before and after.
#[derive(Debug, Clone)]
pub(crate) struct Change {
    /// The commit (abbreviated) or the release pair.
    pub(crate) label: String,
    /// The file's path in its tree.
    pub(crate) path: String,
    pub(crate) before: String,
    pub(crate) after: String,
    pub(crate) hunks: Vec<Hunk>,
}

/// What was left out, and why (reported beside the counts).
#[derive(Debug, Default, Clone)]
pub(crate) struct Skipped {
    /// Added, deleted, binary, symbolic link, submodule or mode-only.
    pub(crate) not_an_edit: usize,
    /// Not UTF-8 before or after, or too large.
    pub(crate) not_text: usize,
    /// The hunks did not rebuild the after-file (should stay 0: the oracle itself).
    pub(crate) oracle_mismatch: usize,
}

/// A file's lines, each with its line break (the last may have none).
pub(crate) fn lines(text: &str) -> Vec<&str> {
    text.split_inclusive('\n').collect()
}

/// `git` with the user's and system's configuration left out, so no setting of theirs
/// (a diff driver, colours, a prefix style) changes what is parsed here.
pub(crate) fn git(dir: &Path) -> Command {
    let mut cmd = Command::new("git");
    cmd.current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .args(["-c", "core.quotePath=false", "-c", "core.autocrlf=false"]);
    cmd
}

/// The options every diff here is made with.
const DIFF_OPTIONS: [&str; 6] = [
    "-U3",
    "--no-renames",
    "--no-color",
    "--no-ext-diff",
    "--no-textconv",
    "--full-index",
];

/// One file's part of a diff.
struct FileDiff {
    label: String,
    old_path: Option<String>,
    new_path: Option<String>,
    old_blob: Option<String>,
    new_blob: Option<String>,
    /// A binary patch, a mode other than a regular file's, or a header git quoted.
    unusable: bool,
    hunks: Vec<Hunk>,
}

/// `a` and `b` of `@@ -a,b +c,d @@`: the 0-based start and the count.
fn range(field: &str) -> Option<(usize, usize)> {
    let (start, count) = match field.split_once(',') {
        Some((s, c)) => (s.parse::<usize>().ok()?, c.parse::<usize>().ok()?),
        None => (field.parse::<usize>().ok()?, 1),
    };
    // With a count of 0 the start names the line before the (empty) range.
    Some((
        if count == 0 {
            start
        } else {
            start.checked_sub(1)?
        },
        count,
    ))
}

/// Parses `git log -p` or `git diff` output. A line `commit X` outside a hunk starts commit X.
fn parse(out: &[u8], mut label: String) -> Vec<FileDiff> {
    let mut files: Vec<FileDiff> = Vec::new();
    let mut rows = out.split(|b| *b == b'\n').peekable();
    while let Some(row) = rows.next() {
        let text = String::from_utf8_lossy(row);
        if let Some(commit) = text.strip_prefix("commit ") {
            label = commit.chars().take(10).collect();
        } else if text.starts_with("diff --git ") {
            files.push(FileDiff {
                label: label.clone(),
                old_path: None,
                new_path: None,
                old_blob: None,
                new_blob: None,
                unusable: text.contains('"'),
                hunks: Vec::new(),
            });
        } else if let Some(file) = files.last_mut() {
            let path = |p: &str| p.trim_end_matches('\t').to_string();
            if let Some(p) = text.strip_prefix("--- a/") {
                file.old_path = Some(path(p));
            } else if let Some(p) = text.strip_prefix("+++ b/") {
                file.new_path = Some(path(p));
            } else if let Some(ids) = text.strip_prefix("index ") {
                let mut parts = ids.split(' ');
                let (old, new) = parts
                    .next()
                    .unwrap_or("")
                    .split_once("..")
                    .unwrap_or(("", ""));
                file.old_blob = Some(old.to_string());
                file.new_blob = Some(new.to_string());
                if parts
                    .next()
                    .is_some_and(|mode| mode != "100644" && mode != "100755")
                {
                    file.unusable = true;
                }
            } else if text.starts_with("Binary files ")
                || text.starts_with("GIT binary patch")
                || text.starts_with("old mode ")
                || text.starts_with("new file mode ")
                || text.starts_with("deleted file mode ")
            {
                file.unusable = true;
            } else if let Some(header) = text.strip_prefix("@@ -") {
                let mut fields = header.split(' ');
                let old = fields.next().and_then(range);
                let new = fields
                    .next()
                    .and_then(|f| f.strip_prefix('+'))
                    .and_then(range);
                let (Some((old_start, old_n)), Some((new_start, new_n))) = (old, new) else {
                    file.unusable = true;
                    continue;
                };
                let (mut left_old, mut left_new) = (old_n, new_n);
                let mut ops = Vec::new();
                while left_old > 0 || left_new > 0 {
                    let Some(body) = rows.next() else { break };
                    match body.first() {
                        Some(b' ') => {
                            ops.push(Op::Context);
                            left_old = left_old.saturating_sub(1);
                            left_new = left_new.saturating_sub(1);
                        }
                        Some(b'-') => {
                            ops.push(Op::Remove);
                            left_old = left_old.saturating_sub(1);
                        }
                        Some(b'+') => {
                            ops.push(Op::Add);
                            left_new = left_new.saturating_sub(1);
                        }
                        Some(b'\\') => {}
                        _ => {
                            file.unusable = true;
                            break;
                        }
                    }
                }
                file.hunks.push(Hunk {
                    old_start,
                    new_start,
                    ops,
                });
            }
        }
    }
    files
}

/// The after-file the hunks make of `before`, taking each hunk's new lines from `after`:
/// equal to `after` when the hunks are right.
fn rebuild(before: &[&str], after: &[&str], hunks: &[Hunk]) -> Option<String> {
    let mut out = String::new();
    let mut at = 0;
    for hunk in hunks {
        out.extend(before.get(at..hunk.old_start)?.iter().copied());
        out.extend(
            after
                .get(hunk.new_start..hunk.new_start + hunk.new_len())?
                .iter()
                .copied(),
        );
        at = hunk.old_start + hunk.old_len();
    }
    out.extend(before.get(at..)?.iter().copied());
    Some(out)
}

/// Keeps the files that are edits of text, with their bytes, counting what is left out.
fn changes(
    files: Vec<FileDiff>,
    mut bytes: impl FnMut(&FileDiff, bool) -> Option<Vec<u8>>,
    skipped: &mut Skipped,
) -> Vec<Change> {
    let mut out = Vec::new();
    for file in files {
        let (Some(old_path), Some(new_path)) = (&file.old_path, &file.new_path) else {
            skipped.not_an_edit += 1;
            continue;
        };
        if file.unusable || old_path != new_path || file.hunks.is_empty() {
            skipped.not_an_edit += 1;
            continue;
        }
        let text = |b: Option<Vec<u8>>| {
            b.filter(|b| b.len() <= MAX_FILE_BYTES && !b.is_empty())
                .and_then(|b| String::from_utf8(b).ok())
        };
        let (Some(before), Some(after)) = (text(bytes(&file, false)), text(bytes(&file, true)))
        else {
            skipped.not_text += 1;
            continue;
        };
        if rebuild(&lines(&before), &lines(&after), &file.hunks).as_deref() != Some(&after) {
            skipped.oracle_mismatch += 1;
            continue;
        }
        out.push(Change {
            label: file.label.clone(),
            path: new_path.clone(),
            before,
            after,
            hunks: file.hunks,
        });
    }
    out
}

/// `git cat-file --batch`: blobs by id, one process for all of them.
struct Blobs {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
}

impl Blobs {
    fn open(repo: &Path) -> Option<Blobs> {
        let mut child = git(repo)
            .args(["cat-file", "--batch"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .ok()?;
        let input = child.stdin.take()?;
        let output = BufReader::new(child.stdout.take()?);
        Some(Blobs {
            child,
            input,
            output,
        })
    }

    fn get(&mut self, id: &str) -> Option<Vec<u8>> {
        writeln!(self.input, "{id}").ok()?;
        self.input.flush().ok()?;
        let mut header = String::new();
        self.output.read_line(&mut header).ok()?;
        let size: usize = header.split(' ').nth(2)?.trim().parse().ok()?;
        let mut blob = vec![0; size + 1];
        self.output.read_exact(&mut blob).ok()?;
        blob.pop();
        Some(blob)
    }
}

impl Drop for Blobs {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The commits of the repository at `repo`, oldest first, without merges, as changes;
/// `None` when git is missing or there is no history there.
/// With `limit`, only the files up to the one that brings the hunks to it are read (and
/// counted in `skipped`).
pub(crate) fn history(
    repo: &Path,
    limit: Option<usize>,
    skipped: &mut Skipped,
) -> Option<Vec<Change>> {
    let out = git(repo)
        .args([
            "log",
            "--reverse",
            "--no-merges",
            "-p",
            "--format=commit %H",
        ])
        .args(DIFF_OPTIONS)
        .stderr(Stdio::null())
        .output()
        .ok()?;
    if !out.status.success() || out.stdout.is_empty() {
        return None;
    }
    let mut blobs = Blobs::open(repo)?;
    let mut files = parse(&out.stdout, String::new());
    if let Some(limit) = limit {
        let mut total = 0;
        let end = files
            .iter()
            .position(|f| {
                if !f.unusable && f.old_path.is_some() && f.old_path == f.new_path {
                    total += f.hunks.len();
                }
                total >= limit
            })
            .map_or(files.len(), |i| i + 1);
        files.truncate(end);
    }
    let found = changes(
        files,
        |file, after| {
            let id = if after {
                &file.new_blob
            } else {
                &file.old_blob
            };
            blobs.get(id.as_deref()?)
        },
        skipped,
    );
    Some(found)
}

/// The files `paths` as they were in the parent of `commit` (those that existed there), with
/// their executable bit.
pub(crate) fn parent_files(
    repo: &Path,
    commit: &str,
    paths: &[String],
) -> Vec<(String, Vec<u8>, bool)> {
    let Some(mut blobs) = Blobs::open(repo) else {
        return Vec::new();
    };
    let listing = git(repo)
        .args(["ls-tree", "-z", &format!("{commit}^"), "--"])
        .args(paths)
        .stderr(Stdio::null())
        .output()
        .map(|o| o.stdout)
        .unwrap_or_default();
    let executable: Vec<String> = listing
        .split(|b| *b == 0)
        .filter_map(|entry| {
            let entry = String::from_utf8_lossy(entry);
            let (meta, path) = entry.split_once('\t')?;
            meta.starts_with("100755").then(|| path.to_string())
        })
        .collect();
    paths
        .iter()
        .filter_map(|p| {
            let bytes = blobs.get(&format!("{commit}^:{p}"))?;
            Some((p.clone(), bytes, executable.contains(p)))
        })
        .collect()
}

/// The raw diff of one commit, as `git show` prints it (for `apply_patch` and `git apply`).
pub(crate) fn commit_patch(repo: &Path, commit: &str) -> Option<Vec<u8>> {
    let out = git(repo)
        .args(["show", "--format=", "--binary"])
        .args(DIFF_OPTIONS)
        .arg(commit)
        .stderr(Stdio::null())
        .output()
        .ok()?;
    out.status.success().then_some(out.stdout)
}

/// The diff of the trees `parent/a` and `parent/b` (two releases of a package), with paths
/// `a/…` and `b/…` as git writes them for a repository; its changes are labelled `label`.
pub(crate) fn releases(
    parent: &Path,
    label: &str,
    skipped: &mut Skipped,
) -> (Vec<u8>, Vec<Change>) {
    let out = git(parent)
        .args([
            "diff",
            "--no-index",
            "--binary",
            "--src-prefix=",
            "--dst-prefix=",
        ])
        .args(DIFF_OPTIONS)
        .args(["a", "b"])
        .output()
        .unwrap_or_else(|e| panic!("git diff --no-index in {}: {e}", parent.display()));
    // Exit status 1 means "they differ".
    assert!(
        out.status.code().is_some_and(|c| c <= 1),
        "git diff --no-index in {} failed: {}",
        parent.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let files = parse(&out.stdout, label.to_string());
    let found = changes(
        files,
        |file, after| {
            let (side, path) = if after {
                ("b", &file.new_path)
            } else {
                ("a", &file.old_path)
            };
            std::fs::read(parent.join(side).join(path.as_deref()?)).ok()
        },
        skipped,
    );
    (out.stdout, found)
}
