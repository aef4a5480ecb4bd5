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
        let mut child = Command::new(common::minimcp())
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
            path: path.to_path_buf(),
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
    let scratch = Scratch::new("eras");
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
    let scratch = Scratch::new("access");
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
    let scratch = Scratch::new("stale");
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
    let scratch = Scratch::new("occupied");
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
    let scratch = Scratch::new("remote");
    let path = scratch.join("r.sock");
    let (code, stderr) = Server::try_start(&path, &["--allow-remote"])
        .err()
        .expect("must not start");
    assert_eq!(code, Some(2));
    assert!(stderr.contains("--allow-remote does not apply"), "{stderr}");
    assert!(fs::symlink_metadata(&path).is_err(), "nothing was created");
}
