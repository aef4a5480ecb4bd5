//! A stdio MCP server under test, driven from outside like a real client drives it.
//!
//! The child's stdout is read on a helper thread that splits it into lines and hands them
//! over a channel, so every read can time out (a silent or hung server fails a test instead
//! of hanging it) and the child never blocks on a full stdout pipe. Input goes through a
//! writer thread for the same reason: a server that stops reading cannot block the test.
//! stderr is collected (bounded) for failure reports.

// Each test binary uses a different subset of these helpers.
#![allow(dead_code)]

pub(crate) mod response;
pub(crate) mod rng;
pub(crate) mod scratch;
pub(crate) mod sha256;

use std::io::{self, BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

/// Bytes of the child's stderr kept for reports (the start and the end are what matter).
const STDERR_KEEP: usize = 16 * 1024;

/// One event from the child's stdout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Out {
    /// A complete line, without its `\n`.
    Line(Vec<u8>),
    /// Bytes after the last `\n` when stdout closed: a message without its line ending.
    Partial(Vec<u8>),
    /// stdout is closed.
    Eof,
}

/// Nothing arrived within the timeout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TimedOut;

/// A running server process.
pub(crate) struct Peer {
    child: Child,
    input: Option<Sender<Vec<u8>>>,
    writer: Option<thread::JoinHandle<()>>,
    output: Receiver<Out>,
    stderr: Arc<Mutex<Vec<u8>>>,
    saw_eof: bool,
}

impl Peer {
    /// Starts `program args…` with piped stdin, stdout and stderr.
    pub(crate) fn spawn(program: &str, args: &[String]) -> io::Result<Peer> {
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()?;
        let stdin = child.stdin.take().expect("stdin is piped");
        let stdout = child.stdout.take().expect("stdout is piped");
        let stderr = child.stderr.take().expect("stderr is piped");

        let (input, writer_rx) = mpsc::channel::<Vec<u8>>();
        let writer = thread::spawn(move || write_all(stdin, writer_rx));

        let (tx, output) = mpsc::channel();
        thread::spawn(move || read_lines(stdout, tx));

        let collected = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&collected);
        thread::spawn(move || collect_stderr(stderr, sink));

        Ok(Peer {
            child,
            input: Some(input),
            writer: Some(writer),
            output,
            stderr: collected,
            saw_eof: false,
        })
    }

    /// The child's process id.
    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Queues `bytes` for the child's stdin, exactly as given. Ignored after [`Peer::close`].
    pub(crate) fn send(&self, bytes: impl Into<Vec<u8>>) {
        if let Some(input) = &self.input {
            // The writer thread only stops when the child stops reading; a test notices that
            // from the child's output, not from here.
            let _ = input.send(bytes.into());
        }
    }

    /// Queues one line: `line` and a `\n`.
    pub(crate) fn send_line(&self, line: &str) {
        let mut bytes = Vec::with_capacity(line.len() + 1);
        bytes.extend_from_slice(line.as_bytes());
        bytes.push(b'\n');
        self.send(bytes);
    }

    /// Closes the child's stdin once everything queued has been written.
    pub(crate) fn close(&mut self) {
        self.input = None;
    }

    /// True once [`Peer::close`] was called.
    pub(crate) fn is_closed(&self) -> bool {
        self.input.is_none()
    }

    /// The next stdout event, waiting at most `timeout`. After `Eof`, always `Eof`.
    pub(crate) fn recv(&mut self, timeout: Duration) -> Result<Out, TimedOut> {
        if self.saw_eof {
            return Ok(Out::Eof);
        }
        match self.output.recv_timeout(timeout) {
            Ok(Out::Eof) | Err(RecvTimeoutError::Disconnected) => {
                self.saw_eof = true;
                Ok(Out::Eof)
            }
            Ok(out) => Ok(out),
            Err(RecvTimeoutError::Timeout) => Err(TimedOut),
        }
    }

    /// Closes stdin and waits up to `timeout` for the child to exit; kills it otherwise and
    /// returns `None`.
    pub(crate) fn wait_exit(&mut self, timeout: Duration) -> Option<ExitStatus> {
        self.close();
        let deadline = Instant::now() + timeout;
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => {
                    if let Some(writer) = self.writer.take() {
                        let _ = writer.join();
                    }
                    return Some(status);
                }
                Ok(None) if Instant::now() < deadline => thread::sleep(Duration::from_millis(2)),
                _ => {
                    let _ = self.child.kill();
                    let _ = self.child.wait();
                    return None;
                }
            }
        }
    }

    /// Kills the child at once (`SIGKILL` on Unix: no handler, no cleanup, no flush) and
    /// reaps it. What it wrote to stdout before dying can still be read with [`Peer::recv`].
    pub(crate) fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        self.input = None;
    }

    /// What the child wrote to stderr so far (at most the first and last 8 KiB).
    pub(crate) fn stderr_text(&self) -> String {
        let bytes = self.stderr.lock().map(|b| b.clone()).unwrap_or_default();
        String::from_utf8_lossy(&bytes).into_owned()
    }

    /// The child's peak resident set size in KiB (`VmHWM` in `/proc/<pid>/status`), while it
    /// is still running. `None` where `/proc` does not exist.
    pub(crate) fn peak_rss_kib(&self) -> Option<u64> {
        // Under Wine the process is Wine's loader, whose own memory (about 65 MiB) is counted.
        if windows() {
            return None;
        }
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.pid())).ok()?;
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmHWM:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        self.input = None;
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}

fn write_all(mut stdin: ChildStdin, chunks: Receiver<Vec<u8>>) {
    for chunk in chunks {
        if stdin
            .write_all(&chunk)
            .and_then(|()| stdin.flush())
            .is_err()
        {
            return;
        }
    }
    // Dropping stdin here closes the pipe: the server sees end of input.
}

fn read_lines(stdout: impl Read, tx: Sender<Out>) {
    let mut reader = BufReader::with_capacity(64 * 1024, stdout);
    loop {
        let mut line = Vec::new();
        match reader.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => {
                let _ = tx.send(Out::Eof);
                return;
            }
            Ok(_) if line.last() == Some(&b'\n') => {
                line.pop();
                if tx.send(Out::Line(line)).is_err() {
                    return;
                }
            }
            Ok(_) => {
                let _ = tx.send(Out::Partial(line));
                let _ = tx.send(Out::Eof);
                return;
            }
        }
    }
}

fn collect_stderr(mut stderr: impl Read, sink: Arc<Mutex<Vec<u8>>>) {
    let mut chunk = [0u8; 8192];
    loop {
        match stderr.read(&mut chunk) {
            Ok(0) | Err(_) => return,
            Ok(n) => {
                let Ok(mut kept) = sink.lock() else { return };
                kept.extend_from_slice(&chunk[..n]);
                if kept.len() > STDERR_KEEP {
                    // Keep the first and the last half: how it started and how it ended.
                    let half = STDERR_KEEP / 2;
                    let at = kept.len() - half;
                    let tail = kept.split_off(at);
                    kept.truncate(half);
                    kept.extend_from_slice(b"\n[...]\n");
                    kept.extend_from_slice(&tail);
                }
            }
        }
    }
}

/// The `minimcp` binary the tests run: the one cargo built for this test run, or the program
/// `MINIMCP_TEST_BIN` names. `.ci/cross.sh` points it at a script that runs another build
/// of the same commit (Windows under Wine, static x86_64, aarch64 under qemu), so the same
/// tests check that build; `MINIMCP_TEST_TARGET` then names its target ([`target_os`]).
pub(crate) fn minimcp() -> &'static str {
    static BIN: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    BIN.get_or_init(|| match std::env::var("MINIMCP_TEST_BIN") {
        Ok(bin) if !bin.is_empty() => bin,
        _ => env!("CARGO_BIN_EXE_minimcp").to_string(),
    })
}

/// The system the binary under test was built for: `"windows"` when `MINIMCP_TEST_TARGET`
/// is a Windows target triple, else this system's.
pub(crate) fn target_os() -> &'static str {
    match std::env::var("MINIMCP_TEST_TARGET") {
        Ok(triple) if triple.contains("windows") => "windows",
        _ => std::env::consts::OS,
    }
}

/// True when the binary under test is a Windows build (run under Wine).
pub(crate) fn windows() -> bool {
    target_os() == "windows"
}

/// `path` (an absolute path of this system) as the binary under test spells it: under Wine,
/// whose drive `Z:` is this system's `/`, `/tmp/x` is `Z:\tmp\x`.
pub(crate) fn native_path(path: &std::path::Path) -> String {
    let text = path.to_str().expect("utf-8 path");
    if windows() {
        format!("Z:{}", text.replace('/', "\\"))
    } else {
        text.to_string()
    }
}

/// What the binary under test puts before an absolute path of this system to make its
/// `file:` URI: `file://` here, `file:///Z:` under Wine.
pub(crate) fn uri_prefix() -> &'static str {
    if windows() {
        "file:///Z:"
    } else {
        "file://"
    }
}

/// The `file:` URI the binary under test gives `path` (an absolute path of this system):
/// `file:///tmp/x` here, `file:///Z:/tmp/x` under Wine. Spelled out here (RFC 8089), not by
/// the server's code.
pub(crate) fn native_uri(path: &std::path::Path) -> String {
    let text = path.to_str().expect("utf-8 path");
    let mut uri = String::from(uri_prefix());
    for &b in text.as_bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/') {
            uri.push(b as char);
        } else {
            uri.push_str(&format!("%{b:02X}"));
        }
    }
    uri
}

/// Arguments that start `minimcp` with the fixture profile, plus `extra`.
pub(crate) fn conformance_args(extra: &[&str]) -> Vec<String> {
    ["serve", "--profile", "transcripts"]
        .iter()
        .chain(extra)
        .map(|s| s.to_string())
        .collect()
}

/// Starts `minimcp serve --profile conformance --http 127.0.0.1:0` plus `extra` and reads
/// its first stderr line, which names the port it listens on. Returns the child, the port
/// and the rest of its stderr (which the caller must keep reading, so the child never
/// blocks on a full pipe); `Err(stderr)` when it exits instead of listening.
pub(crate) fn spawn_http(
    extra: &[&str],
) -> Result<(Child, u16, BufReader<std::process::ChildStderr>), String> {
    spawn_http_with(minimcp(), extra)
}

/// [`spawn_http`] with another `minimcp` binary (an older build, to show a test fails on it).
pub(crate) fn spawn_http_with(
    program: &str,
    extra: &[&str],
) -> Result<(Child, u16, BufReader<std::process::ChildStderr>), String> {
    let mut child = Command::new(program)
        .args(["serve", "--profile", "conformance", "--http", "127.0.0.1:0"])
        .args(extra)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("spawn minimcp: {e}"))?;
    let mut stderr = BufReader::new(child.stderr.take().expect("stderr is piped"));
    let mut line = String::new();
    let _ = stderr.read_line(&mut line);
    let port = line
        .split("http://127.0.0.1:")
        .nth(1)
        .and_then(|rest| rest.split('/').next())
        .and_then(|p| p.parse().ok());
    match port {
        Some(port) => Ok((child, port, stderr)),
        None => {
            let mut rest = String::new();
            let _ = stderr.read_to_string(&mut rest);
            let _ = child.wait();
            Err(line + &rest)
        }
    }
}

/// Runs `git ARGS` in `dir` as a test's own committer, with the user's and the system's git
/// configuration left out (a global `commit.gpgsign` or hook must not decide a test);
/// false when git is missing or fails.
pub(crate) fn git(dir: &std::path::Path, args: &[&str]) -> bool {
    Command::new("git")
        .args(["-c", "user.name=Ann", "-c", "user.email=ann@example.com"])
        .args([
            "-c",
            "commit.gpgsign=false",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .is_ok_and(|o| o.status.success())
}
