//! Running `git log --numstat` and reading what it prints (and `git rev-parse HEAD`, for
//! the history cache's key; and `git diff --unified=0 REV` for `minimcp analyze --diff`):
//! the only subprocesses in the codebase. No shell, fixed arguments (only the `--since` value
//! varies, and it is a number the server formats; `diff` takes the user's revision as one
//! argument, refused when it starts with `-`; the paths after `--` are the targets the
//! sandbox resolved, relative to the working directory, and `--literal-pathspecs` keeps
//! them plain paths), the working directory a canonical directory inside the workspace
//! root, `--relative` so only changes below it are reported, a timeout after which the
//! child is killed, a cap on the output read, and cancellation: the client's
//! `notifications/cancelled` is polled every few milliseconds while git runs, and git is
//! killed when it comes. Helper threads only read the child's output (I/O); parsing
//! happens on the handler's thread.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::io::{self, Read};
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use super::limits::{GIT_TIMEOUT, MAX_GIT_OUTPUT_BYTES};

/// Why `git log` gave no history.
#[derive(Debug, thiserror::Error)]
pub(crate) enum GitError {
    #[error(
        "git is not installed or not on PATH; analyze_code_churn needs the git command-line tool"
    )]
    Missing,
    #[error("`{0}` is not inside a git repository; pick a directory of a repository")]
    NotARepository(String),
    #[error("git log did not finish within {0} s; analyze a smaller directory or period")]
    Timeout(u64),
    #[error("git log failed: {0}")]
    Failed(String),
    #[error("the call was cancelled")]
    Cancelled,
}

/// The commit id `HEAD` names in `dir`, when there is one (an empty repository has none).
pub(crate) fn head(dir: &Path, cancelled: &mut dyn FnMut() -> bool) -> Option<String> {
    let mut command = git(dir);
    command.args(["rev-parse", "--verify", "-q", "HEAD"]);
    let (out, _, status) = run(command, 4096, cancelled).ok()?;
    let id = String::from_utf8(out).ok()?.trim().to_string();
    (status.success() && !id.is_empty()).then_some(id)
}

/// `--since-as-filter` when this git has it (2.37 and later), else `--since`. `--since`
/// ends the walk at the first commit dated before the period, so one commit made on a
/// machine with a wrong clock hides every commit behind it, however recent; the filter
/// walks the whole history (commits only: no diffs for those outside the period) and keeps
/// what is in it. Asked once per process.
fn since_option(dir: &Path, cancelled: &mut dyn FnMut() -> bool) -> &'static str {
    static HAS_FILTER: OnceLock<bool> = OnceLock::new();
    let has_filter = match HAS_FILTER.get() {
        Some(known) => *known,
        None => {
            let mut command = git(dir);
            command.arg("--version");
            // Remembered only when git answered: a cancelled call asks again next time.
            match run(command, 1024, cancelled) {
                Ok((out, _, _)) => *HAS_FILTER.get_or_init(|| version(&out) >= Some((2, 37))),
                Err(_) => false,
            }
        }
    };
    match has_filter {
        true => "--since-as-filter",
        false => "--since",
    }
}

/// Major and minor of `git --version`'s `git version 2.47.3` (or `2.39.5 (Apple Git-154)`).
fn version(out: &[u8]) -> Option<(u32, u32)> {
    let text = std::str::from_utf8(out)
        .ok()?
        .strip_prefix("git version ")?;
    let mut numbers = text.split(|c: char| !c.is_ascii_digit());
    Some((numbers.next()?.parse().ok()?, numbers.next()?.parse().ok()?))
}

#[cfg(test)]
thread_local! {
    /// `git log` runs on this thread: tests show that a later page runs none.
    pub(crate) static LOG_RUNS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// `git` with the options every call shares, in `dir`.
fn git(dir: &Path) -> Command {
    let mut command = Command::new("git");
    command
        .current_dir(dir)
        // Paths are paths: no `:(glob)`-style magic from a file name.
        .args(["--literal-pathspecs", "-c", "core.quotepath=off"])
        .env("GIT_OPTIONAL_LOCKS", "0")
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("LC_ALL", "C");
    command
}

/// The raw output of `git log --numstat` for the last `days` days in `dir`, restricted to
/// `pathspecs` (relative to `dir`), and whether it was cut at the output cap.
/// `cancelled` is polled while git runs; when it says so, git is killed.
pub(crate) fn log_numstat(
    dir: &Path,
    shown: &str,
    days: u64,
    pathspecs: &[String],
    cancelled: &mut dyn FnMut() -> bool,
) -> Result<(String, bool), GitError> {
    #[cfg(test)]
    LOG_RUNS.with(|runs| runs.set(runs.get() + 1));
    let mut command = git(dir);
    command
        .args([
            "log",
            // NUL-terminated entries: paths as they are, never C-quoted (see `parse`).
            "-z",
            "--numstat",
            // Renames followed (see `parse`), whatever diff.renames says.
            "-M",
            "--no-color",
            "--relative",
            "--format=%x1e%H%x1f%at%x1f%aN",
            // What the user's settings would change: log.showRoot=false drops the first
            // commit's files, i18n.logOutputEncoding re-encodes author names.
            "--root",
            "--encoding=UTF-8",
        ])
        .arg(format!("{}={days} days ago", since_option(dir, cancelled)))
        .arg("--")
        .args(pathspecs);
    let (mut out, err, status) = run(command, MAX_GIT_OUTPUT_BYTES, cancelled)?;
    let err = String::from_utf8_lossy(&err).into_owned();
    let cut = out.len() > MAX_GIT_OUTPUT_BYTES;
    if !status.success() && !cut {
        if err.contains("not a git repository") {
            return Err(GitError::NotARepository(shown.to_string()));
        }
        let first = err.lines().next().unwrap_or("no message").trim();
        // Never echo absolute paths back: keep git's message only when it names none.
        let first = if first.contains('/') {
            "see the server log"
        } else {
            first
        };
        minimcp_base::log::warn(format_args!("git log failed: {err}"));
        return Err(GitError::Failed(first.to_string()));
    }
    out.truncate(MAX_GIT_OUTPUT_BYTES);
    Ok((String::from_utf8_lossy(&out).into_owned(), cut))
}

/// One file's history in the period.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct FileChurn {
    pub(crate) commits: u32,
    pub(crate) additions: u64,
    pub(crate) deletions: u64,
    pub(crate) authors: BTreeSet<String>,
    /// Unix seconds.
    pub(crate) first: i64,
    pub(crate) last: i64,
}

/// Everything `git log` said.
#[derive(Debug, Default)]
pub(crate) struct Churn {
    pub(crate) files: BTreeMap<String, FileChurn>,
    pub(crate) commits: usize,
    pub(crate) authors: usize,
}

/// Parses `git log -z --numstat -M --format=%x1e%H%x1f%at%x1f%aN` output. Every header
/// and every numstat entry ends with a NUL, so nothing inside them splits them: a path comes
/// as is (without `-z` git C-quotes one holding a quote, a backslash or a control
/// character, `core.quotePath` or not, and the name matched no file), and an author's name
/// may hold the separators (`%x1e`, `%x1f`) or a tab. What follows the last NUL is a read
/// cut at the output cap, left out.
///
/// Renames are followed: a rename's entry is `ADDED\tDELETED\t` with an empty path, then
/// the old and the new path, each NUL-terminated. git prints the newest commit first, so
/// once a commit renames `old` to `new`, the older commits' changes to `old` are counted
/// for the name `new` has now (renames chain). The alias takes effect after the renaming
/// commit's own entries: a file created at `old` in that same commit keeps its own history.
pub(crate) fn parse(output: &str) -> Churn {
    let mut churn = Churn::default();
    let mut commits = HashSet::new();
    let mut authors = HashSet::new();
    let mut pieces: Vec<&str> = output.split('\0').collect();
    pieces.pop();
    let mut pieces = pieces.into_iter();
    let mut commit: Option<(i64, &str)> = None;
    // Older name → the name it has now.
    let mut renamed: HashMap<String, String> = HashMap::new();
    let mut pending: Vec<(String, String)> = Vec::new();
    let now = |renamed: &HashMap<String, String>, path: &str| -> String {
        let mut name = path;
        // Bounded: a chain longer than the aliases known would be a cycle.
        for _ in 0..=renamed.len() {
            match renamed.get(name) {
                Some(next) if next != name => name = next,
                _ => break,
            }
        }
        name.to_string()
    };
    while let Some(piece) = pieces.next() {
        // git puts a line break between a header and its first numstat entry.
        let piece = piece.strip_prefix('\n').unwrap_or(piece);
        if let Some(header) = piece.strip_prefix('\u{1e}') {
            for (old, new) in pending.drain(..) {
                renamed.insert(old, new);
            }
            let mut fields = header.splitn(3, '\u{1f}');
            commit = match (fields.next(), fields.next(), fields.next()) {
                (Some(hash), Some(time), Some(author)) => {
                    commits.insert(hash.to_string());
                    authors.insert(author.to_string());
                    Some((time.trim().parse().unwrap_or(0), author))
                }
                _ => None,
            };
            continue;
        }
        let Some((time, author)) = commit else {
            continue;
        };
        let mut parts = piece.splitn(3, '\t');
        let (Some(added), Some(deleted), Some(path)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        let path = if path.is_empty() {
            // A rename: the old path, then the new one.
            let (Some(old), Some(new)) = (pieces.next(), pieces.next()) else {
                break;
            };
            let current = now(&renamed, new);
            pending.push((old.to_string(), current.clone()));
            current
        } else {
            now(&renamed, path)
        };
        let entry = churn.files.entry(path).or_insert_with(|| FileChurn {
            first: time,
            last: time,
            ..FileChurn::default()
        });
        entry.commits += 1;
        entry.additions += added.parse::<u64>().unwrap_or(0);
        entry.deletions += deleted.parse::<u64>().unwrap_or(0);
        entry.authors.insert(author.to_string());
        entry.first = entry.first.min(time);
        entry.last = entry.last.max(time);
    }
    churn.commits = commits.len();
    churn.authors = authors.len();
    churn
}

/// The output of `git diff --unified=0 REV` in `dir`: the working tree against `rev`,
/// paths relative to `dir` and only below it. `rev` is one argument, before `--`, and the
/// caller refuses one that starts with `-` (it would be read as an option).
pub(crate) fn diff_zero_context(dir: &Path, rev: &str) -> Result<String, GitError> {
    let mut command = git(dir);
    command
        .args([
            "diff",
            "--unified=0",
            "--no-color",
            "--no-ext-diff",
            "--no-renames",
            "--no-textconv",
            "--relative",
            // The user's diff.noprefix or diff.mnemonicPrefix would change `+++ b/PATH`
            // (every file then dropped); diff.interHunkContext would join hunks across
            // unchanged lines (judged as touched).
            "--src-prefix=a/",
            "--dst-prefix=b/",
            "--inter-hunk-context=0",
        ])
        .arg(rev)
        .arg("--");
    let (out, err, status) = run(command, MAX_GIT_OUTPUT_BYTES, &mut || false)?;
    if out.len() > MAX_GIT_OUTPUT_BYTES {
        return Err(GitError::Failed(format!(
            "the diff is larger than {MAX_GIT_OUTPUT_BYTES} bytes"
        )));
    }
    if !status.success() {
        let err = String::from_utf8_lossy(&err);
        if err.to_ascii_lowercase().contains("not a git repository") {
            return Err(GitError::NotARepository(dir.display().to_string()));
        }
        let first = err.lines().next().unwrap_or("no message").trim();
        return Err(GitError::Failed(format!("git diff {rev}: {first}")));
    }
    Ok(String::from_utf8_lossy(&out).into_owned())
}

/// The bytes of `path` (relative to `dir`) as it was at revision `rev`, from `git cat-file
/// blob REV:./PATH`; `None` when it did not exist there (or is larger than the output cap).
/// `rev` is checked by the caller as for [`diff_zero_context`].
pub(crate) fn show(dir: &Path, rev: &str, path: &str) -> Result<Option<Vec<u8>>, GitError> {
    let mut command = git(dir);
    command
        .args(["cat-file", "blob"])
        .arg(format!("{rev}:./{path}"));
    let (out, _, status) = run(command, MAX_GIT_OUTPUT_BYTES, &mut || false)?;
    Ok((status.success() && out.len() <= MAX_GIT_OUTPUT_BYTES).then_some(out))
}

/// Runs `command`: its stdout (up to `cap` + 1 bytes), stderr (up to 64 KiB) and status.
fn run(
    mut command: Command,
    cap: usize,
    cancelled: &mut dyn FnMut() -> bool,
) -> Result<(Vec<u8>, Vec<u8>, ExitStatus), GitError> {
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| match e.kind() {
            io::ErrorKind::NotFound => GitError::Missing,
            _ => GitError::Failed(e.to_string()),
        })?;
    let stdout = child.stdout.take();
    let stderr = child.stderr.take();
    // I/O only: read until end or the cap (dropping the pipe then stops git with SIGPIPE).
    let out_reader = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        if let Some(out) = stdout {
            let _ = out.take(cap as u64 + 1).read_to_end(&mut bytes);
        }
        bytes
    });
    let err_reader = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        if let Some(err) = stderr {
            let _ = err.take(64 * 1024).read_to_end(&mut bytes);
        }
        bytes
    });
    // On a timeout or a cancellation the readers are not joined: they end when the pipes
    // close, which a grandchild holding them could delay; the answer must not wait for it.
    let status = wait(&mut child, Instant::now() + GIT_TIMEOUT, cancelled)?;
    let out = out_reader.join().unwrap_or_default();
    let err = err_reader.join().unwrap_or_default();
    Ok((out, err, status))
}

/// Waits for `child` until it exits, `deadline` passes or `cancelled` says so (polled every
/// [`POLL`]); in the last two cases the child is killed and reaped.
pub(crate) fn wait(
    child: &mut Child,
    deadline: Instant,
    cancelled: &mut dyn FnMut() -> bool,
) -> Result<ExitStatus, GitError> {
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Ok(status),
            Ok(None) => {
                let stop = if cancelled() {
                    Some(GitError::Cancelled)
                } else if Instant::now() >= deadline {
                    Some(GitError::Timeout(GIT_TIMEOUT.as_secs()))
                } else {
                    None
                };
                if let Some(error) = stop {
                    let _ = child.kill();
                    let _ = child.wait();
                    return Err(error);
                }
                std::thread::sleep(POLL);
            }
            Err(e) => return Err(GitError::Failed(e.to_string())),
        }
    }
}

/// How often a running git is checked on (exit, timeout, cancellation).
const POLL: Duration = Duration::from_millis(5);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn git_versions_are_read_from_what_git_prints() {
        assert_eq!(version(b"git version 2.47.3\n"), Some((2, 47)));
        assert_eq!(
            version(b"git version 2.39.5 (Apple Git-154)\n"),
            Some((2, 39))
        );
        assert_eq!(version(b"git version 2.37.0.windows.1\n"), Some((2, 37)));
        assert_eq!(version(b"not git"), None);
        assert!(version(b"git version 2.36.6\n") < Some((2, 37)));
        assert!(version(b"git version 3.0.0\n") >= Some((2, 37)));
    }

    #[test]
    fn parses_numstat_records() {
        let out = "\u{1e}aaa\u{1f}100\u{1f}Ann\0\n3\t1\tsrc/a.rs\0-\t-\tlogo.png\0\u{1e}bbb\u{1f}200\u{1f}Bob\0\n2\t0\tsrc/a.rs\0";
        let churn = parse(out);
        assert_eq!((churn.commits, churn.authors), (2, 2));
        let a = &churn.files["src/a.rs"];
        assert_eq!(
            (a.commits, a.additions, a.deletions, a.first, a.last),
            (2, 5, 1, 100, 200)
        );
        assert_eq!(a.authors.len(), 2);
        assert_eq!(churn.files["logo.png"].additions, 0);
    }

    /// With `-z` a path is never quoted and a name may hold what once split records: the
    /// header's separators, tabs, line breaks; a cut piece after the last NUL is left out.
    #[test]
    fn names_are_taken_as_git_prints_them_with_z() {
        let out = "\u{1e}aaa\u{1f}100\u{1f}Rec\u{1e}Unit\u{1f}Tab\tName\0\n1\t0\tq\"x\\y\tz\n.py\0\u{1e}bbb\u{1f}200\u{1f}Ann\0\n2\t0\t\u{1e}cut";
        let churn = parse(out);
        assert_eq!((churn.commits, churn.authors), (2, 2));
        let names: Vec<&String> = churn.files.keys().collect();
        assert_eq!(names, ["q\"x\\y\tz\n.py"]);
        let file = &churn.files["q\"x\\y\tz\n.py"];
        assert_eq!(
            file.authors.iter().collect::<Vec<_>>(),
            ["Rec\u{1e}Unit\u{1f}Tab\tName"]
        );
    }

    /// Newest first: `c.rs` was `b.rs`, which was `a.rs`; a new `a.rs` made in the commit
    /// that renamed the old one away keeps its own history.
    #[test]
    fn renames_carry_history_to_the_current_name() {
        let out = "\u{1e}c3\u{1f}300\u{1f}Ann\0\n0\t0\t\0b.rs\0c.rs\0\u{1e}c2\u{1f}200\u{1f}Bob\0\n1\t0\t\0a.rs\0b.rs\0\n4\t0\ta.rs\0\u{1e}c1\u{1f}100\u{1f}Ann\0\n9\t0\ta.rs\0-\t-\t\0x.bin\0y.bin\0";
        let churn = parse(out);
        let c = &churn.files["c.rs"];
        assert_eq!((c.commits, c.additions, c.first, c.last), (3, 10, 100, 300));
        assert_eq!(c.authors.len(), 2);
        let a = &churn.files["a.rs"];
        assert_eq!((a.commits, a.additions), (1, 4));
        assert_eq!(churn.files["y.bin"].commits, 1);
        assert_eq!(churn.files.len(), 3, "{:?}", churn.files.keys());
    }

    #[test]
    #[cfg(unix)]
    fn a_cancellation_kills_the_child_instead_of_waiting_for_it() {
        let Ok(mut child) = Command::new("sleep").arg("120").spawn() else {
            eprintln!("skipped: no sleep command");
            return;
        };
        let start = Instant::now();
        let mut polls = 0;
        let mut cancelled = || {
            polls += 1;
            polls >= 3
        };
        let waited = wait(&mut child, start + GIT_TIMEOUT, &mut cancelled);
        let elapsed = start.elapsed();
        assert!(matches!(waited, Err(GitError::Cancelled)), "{waited:?}");
        // Three polls 5 ms apart take milliseconds; the bound only has to tell "killed" from
        // "waited for sleep's 120 s", so a loaded machine cannot make it fail.
        assert!(elapsed < Duration::from_secs(60), "{elapsed:?}");
        // Killed and reaped.
        assert!(child.try_wait().is_ok_and(|s| s.is_some()));
    }

    #[test]
    #[cfg(unix)]
    fn a_child_that_exits_is_waited_for() {
        let Ok(mut child) = Command::new("true").spawn() else {
            return;
        };
        let waited = wait(&mut child, Instant::now() + GIT_TIMEOUT, &mut || false);
        assert!(waited.is_ok_and(|s| s.success()));
    }
}
