//! The real binary serving Streamable HTTP over a Unix socket (`serve --http unix:PATH`),
//! driven by a minimal HTTP/1.1 client over real Unix-domain connections: both protocol
//! eras, the socket's mode, which access rules apply there, and what startup does with
//! whatever is already at the path.
#![cfg(unix)]

use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::thread;
use std::time::Duration;

use serde_json::{json, Value};

mod common;

use common::response::{read_response, Response};
use common::scratch::Scratch;

const ACCEPT: &str = "application/json, text/event-stream";
const MODERN: &str = "2026-07-28";

/// A fresh directory for sockets, mode 0755 whatever the umask: a group-writable one would
/// be refused (see `a_directory_another_user_can_change_is_refused`).
fn socket_dir(label: &str) -> Scratch {
    let scratch = Scratch::new(label);
    fs::set_permissions(&scratch, fs::Permissions::from_mode(0o755)).expect("chmod");
    scratch
}

/// A running `minimcp serve --profile conformance --http unix:PATH`, killed on drop.
struct Server {
    child: Child,
    path: PathBuf,
    /// What it wrote to stderr after the listening line, as it arrives.
    stderr: std::sync::mpsc::Receiver<String>,
}

impl Server {
    fn start(path: &Path, extra: &[&str]) -> Server {
        Self::try_start(path, extra).expect("the server starts")
    }

    /// Starts the server; `Err((exit status, stderr))` when it exits instead of listening.
    fn try_start(path: &Path, extra: &[&str]) -> Result<Server, (Option<i32>, String)> {
        Self::try_start_in(Path::new("."), path, extra)
    }

    /// [`Server::try_start`] in the working directory `cwd` (a relative `path` is relative
    /// to it).
    fn try_start_in(
        cwd: &Path,
        path: &Path,
        extra: &[&str],
    ) -> Result<Server, (Option<i32>, String)> {
        let mut child = Command::new(common::minimcp())
            .current_dir(cwd)
            .args(["serve", "--profile", "conformance", "--http"])
            .arg(format!("unix:{}", path.display()))
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn minimcp");
        let mut stderr = BufReader::new(child.stderr.take().expect("stderr is piped"));
        let mut seen = String::new();
        loop {
            let mut line = String::new();
            if stderr.read_line(&mut line).unwrap_or(0) == 0 {
                let status = child.wait().expect("wait");
                return Err((status.code(), seen));
            }
            seen.push_str(&line);
            if line.contains("listening on unix:") {
                break;
            }
        }
        let (tx, rx) = std::sync::mpsc::channel();
        let _ = tx.send(seen);
        // Keep draining stderr so the server never blocks on a full pipe.
        thread::spawn(move || {
            for line in stderr.lines() {
                let Ok(line) = line else { return };
                if tx.send(line + "\n").is_err() {
                    return;
                }
            }
        });
        Ok(Server {
            child,
            path: cwd.join(path),
            stderr: rx,
        })
    }

    /// Sends raw bytes on a fresh connection and reads the whole response.
    fn raw(&self, bytes: &[u8]) -> Response {
        let mut stream = UnixStream::connect(&self.path).expect("connect");
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .expect("timeout");
        stream.write_all(bytes).expect("write");
        read_response(&mut BufReader::new(stream))
    }

    /// A POST of `body` with the usual headers (`Host: localhost`, as curl sends, unless
    /// `extra` has a `Host` of its own: two would be refused), plus `extra` header lines.
    fn post(&self, session: Option<&str>, body: &Value, extra: &[&str]) -> Response {
        let body = body.to_string();
        let own_host = extra
            .iter()
            .any(|l| l.to_ascii_lowercase().starts_with("host:"));
        let host = if own_host { "" } else { "Host: localhost\r\n" };
        let mut head = format!(
            "POST /mcp HTTP/1.1\r\n{host}Content-Type: application/json\r\nAccept: {ACCEPT}\r\nContent-Length: {}\r\nConnection: close\r\n",
            body.len()
        );
        if let Some(session) = session {
            head.push_str(&format!("Mcp-Session-Id: {session}\r\n"));
        }
        for line in extra {
            head.push_str(line);
            head.push_str("\r\n");
        }
        head.push_str("\r\n");
        head.push_str(&body);
        self.raw(head.as_bytes())
    }

    /// A 2026-07-28 echo of `text`, with its routing headers.
    fn echo(&self, text: &str, extra: &[&str]) -> Response {
        let body = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
            "name": "echo", "arguments": {"text": text},
            "_meta": {"io.modelcontextprotocol/protocolVersion": MODERN,
                      "io.modelcontextprotocol/clientCapabilities": {}}}});
        let version = format!("MCP-Protocol-Version: {MODERN}");
        let mut headers = vec![version.as_str(), "Mcp-Method: tools/call", "Mcp-Name: echo"];
        headers.extend_from_slice(extra);
        self.post(None, &body, &headers)
    }

    /// Everything written to stderr so far, waiting up to `wait` for a line containing
    /// `needle`.
    fn stderr_until(&self, needle: &str, wait: Duration) -> String {
        let mut all = String::new();
        let deadline = std::time::Instant::now() + wait;
        while let Some(left) = deadline.checked_duration_since(std::time::Instant::now()) {
            match self.stderr.recv_timeout(left) {
                Ok(line) => {
                    all.push_str(&line);
                    if line.contains(needle) {
                        break;
                    }
                }
                Err(_) => break,
            }
        }
        all
    }

    /// Kills the server (SIGKILL: it gets no chance to clean up).
    fn kill(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn both_eras_over_a_unix_socket_with_mode_0600() {
    let scratch = socket_dir("eras");
    let path = scratch.join("m.sock");
    let server = Server::start(&path, &["--access-log"]);

    let meta = fs::symlink_metadata(&path).expect("the socket exists");
    assert!(meta.file_type().is_socket());
    assert_eq!(
        meta.permissions().mode() & 0o777,
        0o600,
        "only this user may connect"
    );
    let names: Vec<_> = fs::read_dir(scratch.path())
        .expect("list")
        .map(|e| e.expect("entry").file_name())
        .collect();
    assert_eq!(names, ["m.sock"], "no temporary directory left behind");

    // Legacy: initialize, initialized, tools/list, DELETE.
    let init = server.post(
        None,
        &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "unix-test", "version": "1"}}}),
        &[],
    );
    assert_eq!(init.status, 200, "{init:?}");
    let id = init
        .header("mcp-session-id")
        .expect("a session id")
        .to_string();
    let done = server.post(
        Some(&id),
        &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        &[],
    );
    assert_eq!(done.status, 202);
    let listed = server.post(
        Some(&id),
        &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
        &["MCP-Protocol-Version: 2025-11-25"],
    );
    assert_eq!(listed.status, 200, "{listed:?}");
    let tools = listed.json()["result"]["tools"].clone();
    assert!(tools
        .as_array()
        .is_some_and(|t| t.iter().any(|t| t["name"] == "echo")));
    let delete = format!(
        "DELETE /mcp HTTP/1.1\r\nHost: localhost\r\nMcp-Session-Id: {id}\r\nConnection: close\r\n\r\n"
    );
    assert_eq!(server.raw(delete.as_bytes()).status, 200);
    assert_eq!(server.raw(delete.as_bytes()).status, 404, "already ended");

    // 2026-07-28: no session, routing headers.
    let echoed = server.echo("over a socket file", &[]);
    assert_eq!(echoed.status, 200, "{echoed:?}");
    assert_eq!(
        echoed.json()["result"]["content"][0]["text"],
        "over a socket file"
    );

    // Keep-alive works as over TCP: two requests on one connection.
    let mut stream = UnixStream::connect(&path).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    let health = b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n";
    stream.write_all(health).expect("write");
    stream.write_all(health).expect("write");
    let mut reader = BufReader::new(stream);
    assert_eq!(read_response(&mut reader).body, b"ok\n");
    assert_eq!(read_response(&mut reader).body, b"ok\n");

    let log = server.stderr_until("POST /mcp tools/call 200", Duration::from_secs(5));
    assert!(log.contains("access: POST /mcp initialize 200"), "{log}");
    assert!(log.contains("access: POST /mcp tools/call 200"), "{log}");
}

#[test]
fn on_a_socket_any_host_is_served_but_a_token_and_origin_still_count() {
    let scratch = socket_dir("access");
    let open = Server::start(&scratch.join("open.sock"), &[]);
    // No loopback Host rule: the socket file has no address to rebind.
    for host in ["Host: example.com", "Host: 10.0.0.1:80"] {
        let reply = open.echo("hi", &[host]);
        assert_eq!(reply.status, 200, "{host}: {reply:?}");
    }
    // But an HTTP/1.1 request must still carry exactly one (RFC 9112 §3.2), as over TCP.
    let plain = open.raw(b"GET /elsewhere HTTP/1.1\r\nConnection: close\r\n\r\n");
    assert_eq!(plain.status, 400, "no Host at all");
    // Only browsers send Origin, and a browser reaches a socket file only through a
    // bridge: a foreign Origin is refused, a loopback one is fine.
    assert_eq!(
        open.echo("hi", &["Origin: https://evil.example"]).status,
        403
    );
    assert_eq!(open.echo("hi", &["Origin: http://localhost"]).status, 200);

    // A token given explicitly is still required.
    let token = scratch.join("token");
    fs::write(&token, "s3cret-token\n").expect("token file");
    let guarded = Server::start(
        &scratch.join("tok.sock"),
        &["--token-file", token.to_str().expect("utf8")],
    );
    let without = guarded.echo("hi", &[]);
    assert_eq!(without.status, 401, "{without:?}");
    assert_eq!(without.header("www-authenticate"), Some("Bearer"));
    assert_eq!(
        guarded
            .echo("hi", &["Authorization: Bearer s3cret-token"])
            .status,
        200
    );
}

#[test]
fn a_stale_socket_is_replaced_and_a_live_one_refused() {
    let scratch = socket_dir("stale");
    let path = scratch.join("s.sock");

    // A socket file nobody listens on any more (its server was killed).
    drop(UnixListener::bind(&path).expect("bind"));
    assert!(fs::symlink_metadata(&path).is_ok(), "the file stays behind");
    let first = Server::start(&path, &[]);
    assert_eq!(first.echo("replaced", &[]).status, 200);

    // While it runs, a second server on the same path is refused, and the first one
    // keeps serving.
    let (code, stderr) = Server::try_start(&path, &[])
        .err()
        .expect("the second server must not start");
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "another server is listening on {}",
            path.display()
        )),
        "{stderr}"
    );
    assert_eq!(first.echo("still here", &[]).status, 200);

    // Killed without a chance to clean up (kill -9): the next start replaces its socket.
    first.kill();
    assert!(
        fs::symlink_metadata(&path).is_ok(),
        "left behind by kill -9"
    );
    let second = Server::start(&path, &[]);
    let said = second.stderr_until("removing the stale socket", Duration::from_secs(5));
    assert!(said.contains("removing the stale socket"), "{said}");
    assert_eq!(second.echo("third", &[]).status, 200);
    let mode = fs::metadata(&path).expect("socket").permissions().mode();
    assert_eq!(mode & 0o777, 0o600);
}

#[test]
fn anything_but_a_socket_at_the_path_is_refused_and_left_alone() {
    let scratch = socket_dir("occupied");
    let file = scratch.join("file.sock");
    fs::write(&file, "precious").expect("file");
    let dir = scratch.join("dir.sock");
    fs::create_dir(&dir).expect("dir");
    let link = scratch.join("link.sock");
    std::os::unix::fs::symlink(&file, &link).expect("symlink");
    for (path, what) in [
        (&file, "a regular file"),
        (&dir, "a directory"),
        (&link, "a symbolic link"),
    ] {
        let (code, stderr) = Server::try_start(path, &[]).err().expect("must not start");
        assert_eq!(code, Some(2), "{stderr}");
        assert!(
            stderr.contains(&format!("{} exists and is {what}", path.display())),
            "{stderr}"
        );
    }
    assert_eq!(fs::read_to_string(&file).expect("kept"), "precious");
    assert!(dir.is_dir());
    assert!(fs::symlink_metadata(&link)
        .expect("kept")
        .file_type()
        .is_symlink());
    let names = fs::read_dir(scratch.path()).expect("list").count();
    assert_eq!(names, 3, "no temporary directory left behind");

    // A directory that does not exist: a clear message naming the cause.
    let (code, stderr) = Server::try_start(&scratch.join("no/such.sock"), &[])
        .err()
        .expect("must not start");
    assert_eq!(code, Some(2));
    assert!(
        stderr.contains("cannot listen on unix:") && stderr.contains("No such file"),
        "{stderr}"
    );
}

#[test]
fn allow_remote_is_refused_with_a_unix_socket() {
    let scratch = socket_dir("remote");
    let path = scratch.join("r.sock");
    let (code, stderr) = Server::try_start(&path, &["--allow-remote"])
        .err()
        .expect("must not start");
    assert_eq!(code, Some(2));
    assert!(stderr.contains("--allow-remote does not apply"), "{stderr}");
    assert!(fs::symlink_metadata(&path).is_err(), "nothing was created");
}

/// Whether this process may give files away (root): another user is simulated by a uid
/// nobody has.
fn can_chown(scratch: &Path) -> bool {
    let probe = scratch.join("probe");
    fs::create_dir(&probe).expect("probe");
    let can = std::os::unix::fs::chown(&probe, Some(OTHER_UID), None).is_ok();
    fs::remove_dir(&probe).expect("probe removed");
    if !can {
        eprintln!("skipped: directories and links of another user (this test is not root)");
    }
    can
}

const OTHER_UID: u32 = 4242;

/// Starts a server at `path` expecting a refusal that names `dir` and says `why`; nothing
/// may be left at `path`.
fn refused_for(path: &Path, dir: &Path, why: &str) {
    let (code, stderr) = Server::try_start(path, &[])
        .err()
        .unwrap_or_else(|| panic!("{} must not be served", path.display()));
    assert_eq!(code, Some(2), "{stderr}");
    let named = format!("{} can be changed by another user", dir.display());
    assert!(
        stderr.contains(&named) && stderr.contains(why),
        "{}: wanted {named:?} and {why:?}:\n{stderr}",
        path.display()
    );
    assert!(fs::symlink_metadata(path).is_err(), "nothing at the path");
}

/// A 0600 socket is only as safe as the directories on the way to it: another user who can
/// change one of them (or a symbolic link followed) could unlink the socket, bind their own
/// and take the next request. Such a path is refused, naming the directory and why; one
/// with the sticky bit (like /tmp) is fine, as is anything this user or root owns.
#[test]
fn a_directory_another_user_can_change_is_refused() {
    let scratch = socket_dir("dirs");
    let dir = |name: &str, mode: u32| {
        let dir = scratch.join(name);
        fs::create_dir(&dir).expect("mkdir");
        fs::set_permissions(&dir, fs::Permissions::from_mode(mode)).expect("chmod");
        dir
    };
    let open = dir("open", 0o777);
    refused_for(
        &open.join("m.sock"),
        &open,
        "writable by others without the sticky bit: mode 777",
    );
    let group = dir("group", 0o775);
    refused_for(
        &group.join("m.sock"),
        &group,
        "writable by its group without the sticky bit: mode 775",
    );
    // Whoever can rename a directory higher up can swap the whole tree below it.
    let inner = open.join("inner");
    fs::create_dir(&inner).expect("mkdir");
    fs::set_permissions(&inner, fs::Permissions::from_mode(0o700)).expect("chmod");
    refused_for(&inner.join("m.sock"), &open, "mode 777");
    // A link of this user's own, but to such a directory: what it leads to counts.
    let to_open = scratch.join("to-open");
    std::os::unix::fs::symlink(&open, &to_open).expect("symlink");
    refused_for(&to_open.join("m.sock"), &open, "mode 777");
    let relative = scratch.join("to-inner");
    std::os::unix::fs::symlink("open/./inner/..", &relative).expect("symlink");
    refused_for(&relative.join("m.sock"), &open, "mode 777");

    // The sticky bit: only a file's owner may remove or rename it there.
    let sticky = dir("sticky", 0o1777);
    let server = Server::start(&sticky.join("m.sock"), &[]);
    assert_eq!(server.echo("in a sticky directory", &[]).status, 200);
    drop(server);

    if !can_chown(&scratch) {
        return;
    }
    let theirs = dir("theirs", 0o755);
    std::os::unix::fs::chown(&theirs, Some(OTHER_UID), None).expect("chown");
    refused_for(&theirs.join("m.sock"), &theirs, "owned by uid 4242");
    // Sticky, but its owner may remove anything in it.
    let their_sticky = dir("their-sticky", 0o1777);
    std::os::unix::fs::chown(&their_sticky, Some(OTHER_UID), None).expect("chown");
    refused_for(
        &their_sticky.join("m.sock"),
        &their_sticky,
        "owned by uid 4242",
    );
    // A link another user owns, to a safe directory: they may point it elsewhere.
    let safe = dir("safe", 0o755);
    let their_link = sticky.join("their-link");
    std::os::unix::fs::symlink(&safe, &their_link).expect("symlink");
    std::os::unix::fs::lchown(&their_link, Some(OTHER_UID), None).expect("lchown");
    refused_for(
        &their_link.join("m.sock"),
        &their_link,
        "a symbolic link owned by uid 4242",
    );
    let server = Server::start(&safe.join("m.sock"), &[]);
    assert_eq!(server.echo("in a safe directory", &[]).status, 200);
}

/// A socket path must fit a socket address (107 bytes on Linux) as the absolute path a
/// client is given: a relative `m.sock` in a deep working directory is refused, not served
/// where no client given its absolute path can connect. A short relative one is served,
/// and the listening line names it absolutely.
#[test]
fn a_path_longer_than_a_socket_address_is_refused_even_when_given_relative() {
    let scratch = socket_dir("long");
    let mut deep = scratch.to_path_buf();
    while deep.as_os_str().len() + "/m.sock".len() < 145 {
        deep.push("d1234567");
    }
    fs::create_dir_all(&deep).expect("deep dirs");
    let absolute = deep.join("m.sock");
    assert!(absolute.as_os_str().len() >= 145);
    let (code, stderr) = Server::try_start_in(&deep, Path::new("m.sock"), &[])
        .err()
        .expect("must not start");
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("unix:m.sock does not fit a Unix socket address")
            && stderr.contains(&format!("{} is ", absolute.display())),
        "{stderr}"
    );
    assert!(fs::symlink_metadata(&absolute).is_err(), "nothing created");
    let (code, stderr) = Server::try_start(&absolute, &[])
        .err()
        .expect("must not start");
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("does not fit a Unix socket address"),
        "{stderr}"
    );

    let server = Server::try_start_in(&scratch, Path::new("rel.sock"), &[]).expect("starts");
    let said = server.stderr_until("listening", Duration::from_secs(5));
    assert!(
        said.contains(&format!(
            "listening on unix:{}",
            scratch.join("rel.sock").display()
        )),
        "{said}"
    );
    assert_eq!(server.echo("relative", &[]).status, 200);
}
