//! Running `git log --numstat`: the one subprocess in the codebase. No shell, fixed
//! arguments (only the `--since` value varies, and it is a number the server formats; the
//! paths after `--` are the targets the sandbox resolved, relative to the working directory,
//! and `--literal-pathspecs` keeps them plain paths), the working directory a canonical
//! directory inside the workspace root, `--relative` so only changes below it are reported, a timeout after which the child is killed, and a cap on
//! the output read. A helper thread only reads the child's output (I/O); parsing happens
//! on the handler's thread.

use std::io::{self, Read};
use std::path::Path;
use std::process::{Command, Stdio};
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
}

/// The raw output of `git log --numstat` for the last `days` days in `dir`, and whether it
/// was cut at the output cap.
pub(crate) fn log_numstat(
    dir: &Path,
    shown: &str,
    days: u64,
    pathspecs: &[String],
) -> Result<(String, bool), GitError> {
    let mut child = Command::new("git")
        .current_dir(dir)
        .args([
            // Paths are paths: no `:(glob)`-style magic from a file name.
            "--literal-pathspecs",
            "-c",
            "core.quotepath=off",
            "log",
            "--numstat",
            "--no-renames",
            "--no-color",
            "--relative",
            "--format=%x1e%H%x1f%at%x1f%aN",
        ])
        .arg(format!("--since={days} days ago"))
        .arg("--")
        .args(pathspecs)
        .env("GIT_OPTIONAL_LOCKS", "0")
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("LC_ALL", "C")
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
            let _ = out
                .take(MAX_GIT_OUTPUT_BYTES as u64 + 1)
                .read_to_end(&mut bytes);
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
    let deadline = Instant::now() + GIT_TIMEOUT;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() >= deadline => {
                let _ = child.kill();
                let _ = child.wait();
                let _ = out_reader.join();
                let _ = err_reader.join();
                return Err(GitError::Timeout(GIT_TIMEOUT.as_secs()));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => return Err(GitError::Failed(e.to_string())),
        }
    };
    let mut out = out_reader.join().unwrap_or_default();
    let err = String::from_utf8_lossy(&err_reader.join().unwrap_or_default()).into_owned();
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
        crate::log::warn(format_args!("git log failed: {err}"));
        return Err(GitError::Failed(first.to_string()));
    }
    out.truncate(MAX_GIT_OUTPUT_BYTES);
    Ok((String::from_utf8_lossy(&out).into_owned(), cut))
}
