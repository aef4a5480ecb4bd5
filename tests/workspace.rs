//! End-to-end tests of the workspace toolset: the real `minimcp` binary, spawned with
//! `--root <temp dir>`, spoken to over pipes in JSON-RPC lines. Each sandbox case of
//! issue 3 is its own test, named `sandbox_*`.
//!
//! Every line the server writes is checked for the absolute root path: it must never reach
//! the client, in errors or anywhere else.

use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

const BIN: &str = env!("CARGO_BIN_EXE_minimcp");
const WAIT: Duration = Duration::from_secs(20);

// ---- Temporary trees ----------------------------------------------------------------------

static COUNTER: AtomicUsize = AtomicUsize::new(0);

/// A directory under the system temp dir with a unique name (pid + counter), removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(label: &str) -> TempDir {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let path =
            std::env::temp_dir().join(format!("minimcp-it-{}-{n}-{label}", std::process::id()));
        let _ = fs::remove_dir_all(&path);
        fs::create_dir_all(&path).expect("create temp dir");
        TempDir(path)
    }

    fn path(&self) -> &Path {
        &self.0
    }

    fn file(&self, rel: &str, contents: impl AsRef<[u8]>) -> &Self {
        let path = self.0.join(rel);
        fs::create_dir_all(path.parent().expect("parent")).expect("create parent");
        fs::write(path, contents).expect("write");
        self
    }

    fn dir(&self, rel: &str) -> &Self {
        fs::create_dir_all(self.0.join(rel)).expect("create dir");
        self
    }

    #[cfg(unix)]
    fn symlink(&self, target: impl AsRef<Path>, rel: &str) -> &Self {
        std::os::unix::fs::symlink(target, self.0.join(rel)).expect("symlink");
        self
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

// ---- A client over pipes ------------------------------------------------------------------

struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    /// Absolute spellings of the root that must never appear in the output.
    secrets: Vec<String>,
    notifications: Vec<Value>,
    next_id: u64,
}

impl Client {
    /// Spawns the server on `root` and completes the 2025-11-25 handshake.
    fn start(root: &Path) -> Client {
        let mut child = Command::new(BIN)
            .arg("--root")
            .arg(root)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn minimcp");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut secrets = vec![root.display().to_string()];
        if let Ok(canonical) = root.canonicalize() {
            secrets.push(canonical.display().to_string());
        }
        let mut client = Client {
            stdin: child.stdin.take(),
            child,
            lines,
            secrets,
            notifications: Vec::new(),
            next_id: 1,
        };
        let init = client.request("initialize", json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "it", "version": "1"}}));
        assert_eq!(init["result"]["protocolVersion"], "2025-11-25", "{init}");
        client.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        client
    }

    fn send(&mut self, message: &Value) {
        self.send_raw(&format!("{message}\n"));
    }

    fn send_raw(&mut self, text: &str) {
        let stdin = self.stdin.as_mut().expect("open");
        stdin.write_all(text.as_bytes()).expect("write");
        stdin.flush().expect("flush");
    }

    /// The next line from the server, checked for leaks; `None` on timeout.
    fn next_line(&mut self, timeout: Duration) -> Option<Value> {
        match self.lines.recv_timeout(timeout) {
            Ok(line) => {
                for secret in &self.secrets {
                    assert!(
                        !line.contains(secret.as_str()),
                        "the output names the absolute root {secret}: {line}"
                    );
                }
                Some(serde_json::from_str(&line).expect("the server writes JSON"))
            }
            Err(RecvTimeoutError::Timeout) => None,
            Err(RecvTimeoutError::Disconnected) => panic!("the server exited"),
        }
    }

    /// The response with `id`; notifications on the way are kept.
    fn wait_response(&mut self, id: u64) -> Value {
        let deadline = Instant::now() + WAIT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let message = self
                .next_line(left)
                .unwrap_or_else(|| panic!("no response to {id}"));
            if message.get("id") == Some(&json!(id)) {
                return message;
            }
            assert!(message.get("id").is_none(), "unexpected response {message}");
            self.notifications.push(message);
        }
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        self.wait_response(id)
    }

    /// A tool call's `result`.
    fn call(&mut self, tool: &str, arguments: Value) -> Value {
        let response = self.request("tools/call", json!({"name": tool, "arguments": arguments}));
        response
            .get("result")
            .cloned()
            .unwrap_or_else(|| panic!("{tool}: {response}"))
    }

    /// The notification `method`, waiting up to `timeout` for it.
    fn wait_notification(&mut self, method: &str, timeout: Duration) -> Option<Value> {
        if let Some(i) = self
            .notifications
            .iter()
            .position(|n| n["method"] == method)
        {
            return Some(self.notifications.remove(i));
        }
        let deadline = Instant::now() + timeout;
        while let Some(message) = self.next_line(deadline.saturating_duration_since(Instant::now()))
        {
            if message["method"] == method {
                return Some(message);
            }
            self.notifications.push(message);
        }
        None
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        drop(self.stdin.take());
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The text of a result's first content block.
fn text(result: &Value) -> String {
    result["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// Asserts a tool result is a refusal mentioning `fragment`.
fn assert_refused(result: &Value, fragment: &str) {
    assert_eq!(result["isError"], true, "expected a refusal: {result}");
    assert!(
        text(result).contains(fragment),
        "expected {fragment:?} in: {}",
        text(result)
    );
}

/// Asserts a JSON-RPC response is an error mentioning `fragment`.
fn assert_error(response: &Value, fragment: &str) {
    let message = response["error"]["message"]
        .as_str()
        .unwrap_or_else(|| panic!("expected an error: {response}"));
    assert!(
        message.contains(fragment),
        "expected {fragment:?} in: {message}"
    );
}

/// Every path-taking entry point refuses `path` with a message containing `fragment`.
fn assert_refused_everywhere(client: &mut Client, path: &str, fragment: &str) {
    assert_refused(&client.call("read_file", json!({"path": path})), fragment);
    assert_refused(
        &client.call("list_directory", json!({"path": path})),
        fragment,
    );
    assert_refused(
        &client.call("search_files", json!({"pattern": "*", "directory": path})),
        fragment,
    );
    assert_refused(
        &client.call("search_text", json!({"query": "x", "path": path})),
        fragment,
    );
    let prompt = client.request(
        "prompts/get",
        json!({"name": "explain_file", "arguments": {"path": path}}),
    );
    assert_error(&prompt, fragment);
}

fn matches(result: &Value) -> Vec<String> {
    result["structuredContent"]["matches"]
        .as_array()
        .expect("matches")
        .iter()
        .map(|m| {
            m.as_str()
                .map(str::to_string)
                .unwrap_or_else(|| m["path"].as_str().expect("path").to_string())
        })
        .collect()
}

fn listed(result: &Value) -> Vec<String> {
    let entries = result["structuredContent"]["entries"]
        .as_array()
        .expect("entries");
    entries
        .iter()
        .map(|e| e["path"].as_str().expect("path").to_string())
        .collect()
}

fn resource_names(client: &mut Client) -> Vec<String> {
    let mut names = Vec::new();
    let mut params = json!({});
    loop {
        let page = client.request("resources/list", params);
        for resource in page["result"]["resources"].as_array().expect("resources") {
            names.push(resource["name"].as_str().expect("name").to_string());
        }
        match page["result"].get("nextCursor") {
            Some(cursor) => params = json!({"cursor": cursor}),
            None => return names,
        }
    }
}

fn complete(client: &mut Client, reference: Value, name: &str, value: &str) -> Vec<String> {
    let response = client.request(
        "completion/complete",
        json!({"ref": reference, "argument": {"name": name, "value": value}}),
    );
    let values = response["result"]["completion"]["values"]
        .as_array()
        .unwrap_or_else(|| panic!("{response}"));
    values
        .iter()
        .map(|v| v.as_str().expect("string").to_string())
        .collect()
}

// ---- The sandbox: one test per case of issue 3 ---------------------------------------------

/// `base/ws` is the root; `base/ws-secret` is a sibling whose name starts with the root's.
#[cfg(unix)]
#[test]
fn sandbox_sibling_directory_sharing_the_root_name_prefix_is_outside() {
    let base = TempDir::new("sibling");
    base.file("ws/readme.md", "inside")
        .file("ws-secret/key.txt", "secret-marker");
    base.symlink("../ws-secret", "ws/link")
        .symlink("../ws-secret/key.txt", "ws/keylink");
    base.symlink(base.path().join("ws-secret"), "ws/abslink");
    let root = base.path().join("ws");
    let mut client = Client::start(&root);
    for path in ["link", "link/key.txt", "keylink", "abslink/key.txt"] {
        assert_refused(
            &client.call("read_file", json!({"path": path})),
            "leads outside the workspace",
        );
    }
    assert_refused(
        &client.call("read_file", json!({"path": "../ws-secret/key.txt"})),
        "`..` is refused",
    );
    assert_eq!(
        listed(&client.call("list_directory", json!({}))),
        ["readme.md"]
    );
    let found = client.call("search_text", json!({"query": "secret-marker"}));
    assert!(matches(&found).is_empty(), "{found}");
    assert_eq!(resource_names(&mut client), ["readme.md"]);
    let response = client.request("resources/read", json!({"uri": "file:///link/key.txt"}));
    assert_error(&response, "leads outside the workspace");
}

#[cfg(unix)]
#[test]
fn sandbox_escaping_symlink_is_not_read_directly() {
    let base = TempDir::new("direct");
    base.file("ws/a.txt", "a")
        .file("outside.txt", "secret-marker");
    base.symlink("../outside.txt", "ws/link.txt");
    let mut client = Client::start(&base.path().join("ws"));
    assert_refused(
        &client.call("read_file", json!({"path": "link.txt"})),
        "`link.txt` is a symbolic link that leads outside the workspace",
    );
    assert_refused(
        &client.call(
            "search_text",
            json!({"query": "secret", "path": "link.txt"}),
        ),
        "leads outside",
    );
    assert_error(
        &client.request("resources/read", json!({"uri": "file:///link.txt"})),
        "leads outside",
    );
    assert_error(
        &client.request("resources/subscribe", json!({"uri": "file:///link.txt"})),
        "resource not found",
    );
    assert_error(
        &client.request(
            "prompts/get",
            json!({"name": "explain_file", "arguments": {"path": "link.txt"}}),
        ),
        "leads outside",
    );
}

#[cfg(unix)]
#[test]
fn sandbox_escaping_symlink_is_not_listed_inside_a_directory() {
    let base = TempDir::new("listed");
    base.file("ws/src/a.rs", "fn a() {}")
        .file("outside/b.rs", "fn secret_marker() {}");
    base.symlink("../../outside/b.rs", "ws/src/b.rs")
        .symlink(base.path().join("outside"), "ws/src/out");
    let mut client = Client::start(&base.path().join("ws"));
    let listing = client.call("list_directory", json!({"path": "src", "depth": 3}));
    assert_eq!(listed(&listing), ["src/a.rs"]);
    assert!(
        text(&listing).contains("2 symbolic links skipped"),
        "{}",
        text(&listing)
    );
    assert_eq!(
        matches(&client.call("search_files", json!({"pattern": "**"}))),
        ["src/", "src/a.rs"]
    );
    assert!(matches(&client.call("search_text", json!({"query": "secret_marker"}))).is_empty());
    assert_eq!(resource_names(&mut client), ["src/a.rs"]);
    let template = json!({"type": "ref/resource", "uri": "file:///{+path}"});
    assert_eq!(
        complete(&mut client, template, "path", "src/"),
        ["src/a.rs"]
    );
}

#[cfg(unix)]
#[test]
fn sandbox_escaping_symlink_is_refused_as_a_parent_component() {
    let base = TempDir::new("parent");
    base.file("ws/a.txt", "a")
        .file("outside/secret.txt", "secret-marker");
    base.symlink(base.path().join("outside"), "ws/out");
    let mut client = Client::start(&base.path().join("ws"));
    assert_refused_everywhere(
        &mut client,
        "out",
        "`out` is a symbolic link that leads outside",
    );
    // What lies behind the link cannot be probed: existing and missing names get one answer.
    let real = client.call("read_file", json!({"path": "out/secret.txt"}));
    let fake = client.call("read_file", json!({"path": "out/no-such-file"}));
    assert_refused(&real, "`out` is a symbolic link that leads outside");
    assert_eq!(text(&real), text(&fake));
    assert_error(
        &client.request("resources/read", json!({"uri": "file:///out/secret.txt"})),
        "leads outside",
    );
    let template = json!({"type": "ref/resource", "uri": "file:///{+path}"});
    assert!(complete(&mut client, template, "path", "out/").is_empty());
}

#[cfg(unix)]
#[test]
fn sandbox_symlink_staying_inside_is_followed() {
    let root = TempDir::new("inside");
    root.file("docs/guide.md", "# Guide\nfollow me\n");
    root.symlink("docs", "manual")
        .symlink("docs/guide.md", "GUIDE.md");
    let mut client = Client::start(root.path());
    let read = client.call("read_file", json!({"path": "GUIDE.md"}));
    assert_eq!(read["structuredContent"]["content"], "# Guide\nfollow me");
    let through = client.call("read_file", json!({"path": "manual/guide.md"}));
    assert_eq!(through["structuredContent"]["total_lines"], 2);
    assert_eq!(
        listed(&client.call("list_directory", json!({"path": "manual"}))),
        ["manual/guide.md"]
    );
    let listing = client.call("list_directory", json!({}));
    let entries = &listing["structuredContent"]["entries"];
    assert_eq!(
        entries[0],
        json!({"path": "GUIDE.md", "kind": "file", "size": 18, "symlink": true})
    );
    assert_eq!(
        entries[2],
        json!({"path": "manual", "kind": "directory", "symlink": true})
    );
    let found = client.call("search_text", json!({"query": "follow me"}));
    assert_eq!(matches(&found), ["GUIDE.md", "docs/guide.md"]);
}

#[test]
fn sandbox_parent_components_are_refused() {
    let root = TempDir::new("dotdot");
    root.file("src/a.rs", "");
    let mut client = Client::start(root.path());
    for path in ["..", "../", "../etc/passwd", "src/../../x", "src/.."] {
        assert_refused_everywhere(&mut client, path, "`..` is refused");
    }
    assert_refused(
        &client.call("search_files", json!({"pattern": "../*"})),
        "`..` is refused in patterns",
    );
    assert_refused(
        &client.call("search_text", json!({"query": "x", "glob": "../**"})),
        "`..` is refused in patterns",
    );
}

#[test]
fn sandbox_absolute_paths_are_refused() {
    let root = TempDir::new("absolute");
    root.file("a.txt", "a");
    let mut client = Client::start(root.path());
    // The root's own absolute path, too: the message must not echo it (the client checks).
    let own = root.path().join("a.txt").display().to_string();
    for path in [
        "/etc/passwd",
        "/",
        own.as_str(),
        "C:/Windows/win.ini",
        "//server/share",
    ] {
        assert_refused_everywhere(&mut client, path, "absolute paths are refused");
    }
    assert_refused(
        &client.call("search_files", json!({"pattern": "/etc/*"})),
        "must be relative",
    );
    // An absolute-looking file URI is read relative to the root, never as an absolute path.
    // (Not the root's own path here: the core echoes a missing URI back to the client.)
    assert_error(
        &client.request("resources/read", json!({"uri": "file:///etc/passwd"})),
        "resource not found",
    );
}

#[test]
fn sandbox_home_paths_are_refused() {
    let root = TempDir::new("home");
    let mut client = Client::start(root.path());
    for path in ["~", "~/.ssh/id_rsa", "~root/.bashrc"] {
        assert_refused_everywhere(&mut client, path, "paths starting with `~` are refused");
    }
    assert_error(
        &client.request("resources/read", json!({"uri": "file:///~/.ssh/id_rsa"})),
        "`~`",
    );
}

#[test]
fn sandbox_nul_bytes_are_refused() {
    let root = TempDir::new("nul");
    root.file("a.txt", "a");
    let mut client = Client::start(root.path());
    for path in ["a.txt\u{0}.png", "\u{0}", "src/\u{0}/x"] {
        assert_refused_everywhere(&mut client, path, "NUL byte");
    }
    assert_error(
        &client.request("resources/read", json!({"uri": "file:///a.txt%00.png"})),
        "NUL byte",
    );
    assert_refused(
        &client.call("search_files", json!({"pattern": "a\u{0}*"})),
        "NUL byte",
    );
}

#[test]
fn sandbox_percent_encoded_traversal_in_uris_is_refused() {
    let base = TempDir::new("percent");
    base.file("ws/a.txt", "a")
        .file("secret.txt", "secret-marker");
    let mut client = Client::start(&base.path().join("ws"));
    for uri in [
        "file:///%2e%2e/secret.txt",
        "file:///%2E%2E/secret.txt",
        "file:///..%2fsecret.txt",
        "file:///a/%2e%2e%2f%2e%2e%2fsecret.txt",
        "file:///../secret.txt",
    ] {
        assert_error(
            &client.request("resources/read", json!({"uri": uri})),
            "`..` is refused",
        );
        assert_error(
            &client.request("resources/subscribe", json!({"uri": uri})),
            "resource not found",
        );
    }
    assert_error(
        &client.request("resources/read", json!({"uri": "file:///%2Fetc%2Fpasswd"})),
        "absolute paths are refused",
    );
    assert_error(
        &client.request(
            "resources/read",
            json!({"uri": "file:///%5c..%5csecret.txt"}),
        ),
        "backslashes are refused",
    );
    assert_error(
        &client.request("resources/read", json!({"uri": "file:///%zz"})),
        "malformed percent-escape",
    );
    // Decoded once: `%252e%252e` names a file literally called `%2e%2e`, which is not there.
    assert_error(
        &client.request(
            "resources/read",
            json!({"uri": "file:///%252e%252e/secret.txt"}),
        ),
        "resource not found",
    );
    let template = json!({"type": "ref/resource", "uri": "file:///{+path}"});
    assert!(complete(&mut client, template, "path", "../").is_empty());
}

#[test]
fn sandbox_windows_separators_are_refused() {
    let root = TempDir::new("backslash");
    root.file("src/main.rs", "");
    let mut client = Client::start(root.path());
    for path in [
        "src\\main.rs",
        "..\\..\\x",
        "C:\\Windows",
        "\\\\server\\share",
    ] {
        assert_refused_everywhere(&mut client, path, "backslashes are refused");
    }
    assert_refused(
        &client.call("search_files", json!({"pattern": "src\\main.rs"})),
        "separate directories with `/`",
    );
}

#[test]
fn sandbox_over_long_paths_are_refused() {
    let root = TempDir::new("long");
    let mut client = Client::start(root.path());
    // Over the schema's 4096 characters: the core refuses before the tool runs.
    let long = "a/".repeat(2100);
    assert_refused(
        &client.call("read_file", json!({"path": long})),
        "at most 4096 characters",
    );
    // Under 4096 characters but over 4096 bytes: the sandbox measures bytes.
    let wide = "é".repeat(3000);
    assert_refused(
        &client.call("read_file", json!({"path": wide})),
        "the path is 6000 bytes long; the limit is 4096 bytes",
    );
    let component = "x".repeat(256);
    assert_refused_everywhere(&mut client, &component, "longer than 255 bytes");
    let uri = format!("file:///{}", "a/".repeat(2100));
    assert_error(
        &client.request("resources/read", json!({"uri": uri})),
        "the limit is 4096 bytes",
    );
}

/// Everything about a tree that a write, create, delete or chmod would change.
#[cfg(unix)]
fn snapshot(dir: &Path) -> Vec<String> {
    use std::os::unix::fs::MetadataExt;
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(path) = stack.pop() {
        let meta = fs::symlink_metadata(&path).expect("stat");
        let mut line = format!(
            "{} mode={:o} size={} mtime={}.{} ctime={}.{}",
            path.display(),
            meta.mode(),
            meta.len(),
            meta.mtime(),
            meta.mtime_nsec(),
            meta.ctime(),
            meta.ctime_nsec()
        );
        if meta.file_type().is_symlink() {
            line.push_str(&format!(
                " -> {}",
                fs::read_link(&path).expect("link").display()
            ));
        } else if meta.is_file() {
            line.push_str(&format!(" bytes={:?}", fs::read(&path).expect("read")));
        } else if meta.is_dir() {
            let mut names: Vec<PathBuf> = fs::read_dir(&path)
                .expect("dir")
                .map(|e| e.expect("entry").path())
                .collect();
            names.sort();
            stack.extend(names);
        }
        out.push(line);
    }
    out.sort();
    out
}

#[cfg(unix)]
#[test]
fn sandbox_nothing_is_written_created_deleted_or_executed() {
    use std::os::unix::fs::PermissionsExt;
    let base = TempDir::new("readonly");
    base.file("ws/.gitignore", "target/\n")
        .file("ws/src/main.rs", "fn main() {}\n")
        .file("ws/target/x.o", [0u8, 1, 2])
        .file("ws/logo.png", [0x89, b'P', b'N', b'G', 0])
        .file("ws/notes.md", "# notes\nrun.sh\n")
        .file("outside/secret.txt", "secret");
    // A script that would leave a marker if anything ever ran it.
    let marker = base.path().join("EXECUTED");
    base.file(
        "ws/run.sh",
        format!("#!/bin/sh\ntouch {}\n", marker.display()),
    );
    fs::set_permissions(
        base.path().join("ws/run.sh"),
        fs::Permissions::from_mode(0o755),
    )
    .expect("chmod");
    base.symlink(base.path().join("outside"), "ws/out");
    let before = snapshot(base.path());
    let mut client = Client::start(&base.path().join("ws"));
    for (tool, args) in [
        ("search_files", json!({"pattern": "**"})),
        (
            "search_files",
            json!({"pattern": "**/*.{rs,sh,md}", "directory": "src"}),
        ),
        ("list_directory", json!({"depth": 10})),
        ("list_directory", json!({"path": "target"})),
        ("read_file", json!({"path": "run.sh"})),
        ("read_file", json!({"path": "logo.png"})),
        (
            "read_file",
            json!({"path": "src/main.rs", "offset": 1, "limit": 1}),
        ),
        ("read_file", json!({"path": "out/secret.txt"})),
        ("search_text", json!({"query": "run.sh"})),
        (
            "search_text",
            json!({"query": "MAIN", "glob": "*.rs", "case_sensitive": true}),
        ),
    ] {
        client.call(tool, args);
    }
    client.request("resources/list", json!({}));
    client.request("resources/templates/list", json!({}));
    client.request("resources/read", json!({"uri": "file:///run.sh"}));
    client.request("resources/read", json!({"uri": "file:///logo.png"}));
    client.request("resources/subscribe", json!({"uri": "file:///src/main.rs"}));
    client.request(
        "resources/unsubscribe",
        json!({"uri": "file:///src/main.rs"}),
    );
    client.request(
        "prompts/get",
        json!({"name": "explain_file", "arguments": {"path": "run.sh"}}),
    );
    client.request(
        "prompts/get",
        json!({"name": "project_overview", "arguments": {}}),
    );
    client.request(
        "prompts/get",
        json!({"name": "code_review", "arguments": {"language": "sh", "code": "rm -rf /"}}),
    );
    complete(
        &mut client,
        json!({"type": "ref/resource", "uri": "file:///{+path}"}),
        "path",
        "s",
    );
    complete(
        &mut client,
        json!({"type": "ref/prompt", "name": "explain_file"}),
        "path",
        "",
    );
    drop(client);
    assert_eq!(snapshot(base.path()), before, "the tree changed");
    assert!(!marker.exists(), "something was executed");
}

#[cfg(unix)]
#[test]
fn sandbox_special_files_are_not_read_and_do_not_hang() {
    let root = TempDir::new("fifo");
    root.file("a.txt", "needle\n");
    let made = Command::new("mkfifo")
        .arg(root.path().join("pipe"))
        .status();
    if !made.is_ok_and(|s| s.success()) {
        return; // no mkfifo here: nothing to test
    }
    let mut client = Client::start(root.path());
    assert_refused(
        &client.call("read_file", json!({"path": "pipe"})),
        "not a regular file",
    );
    let found = client.call("search_text", json!({"query": "needle"}));
    assert_eq!(matches(&found), ["a.txt"]);
    let listing = client.call("list_directory", json!({}));
    assert_eq!(
        listing["structuredContent"]["entries"][1],
        json!({"path": "pipe", "kind": "other"})
    );
    assert_error(
        &client.request("resources/read", json!({"uri": "file:///pipe"})),
        "not a regular file",
    );
}

#[test]
fn sandbox_large_trees_stop_at_the_depth_limit_and_say_so() {
    let root = TempDir::new("deep");
    let deep: String = (0..70).map(|i| format!("d{i}/")).collect();
    root.file(&format!("{deep}deep.txt"), "needle");
    root.file("top.txt", "needle");
    let mut client = Client::start(root.path());
    let found = client.call("search_files", json!({"pattern": "**/*.txt"}));
    assert_eq!(matches(&found), ["top.txt"]);
    assert_eq!(found["structuredContent"]["complete"], false);
    assert!(
        text(&found).contains("1 directory deeper than 64 levels not entered"),
        "{}",
        text(&found)
    );
    let searched = client.call("search_text", json!({"query": "needle"}));
    assert_eq!(searched["structuredContent"]["complete"], false);
    // Starting deeper reaches it.
    let start: String = (0..10).map(|i| format!("d{i}/")).collect();
    let deeper = client.call(
        "search_files",
        json!({"pattern": "**/*.txt", "directory": start}),
    );
    assert_eq!(matches(&deeper).len(), 1);
}

#[test]
fn sandbox_long_searches_report_progress() {
    let root = TempDir::new("progress");
    for i in 0..2600 {
        root.file(
            &format!("d{}/f{i}.txt", i % 26),
            if i % 500 == 0 { "needle" } else { "hay" },
        );
    }
    let mut client = Client::start(root.path());
    let response = client.request("tools/call", json!({"name": "search_text", "arguments": {"query": "needle"}, "_meta": {"progressToken": "search-1"}}));
    assert_eq!(matches(&response["result"]).len(), 6);
    let progress: Vec<&Value> = client
        .notifications
        .iter()
        .filter(|n| n["method"] == "notifications/progress")
        .collect();
    assert_eq!(progress.len(), 2, "{progress:?}");
    assert_eq!(progress[0]["params"]["progressToken"], "search-1");
    assert_eq!(progress[1]["params"]["progress"], 2000.0);
    assert!(progress[1]["params"]["message"]
        .as_str()
        .expect("message")
        .contains("files searched"));
}

#[test]
fn sandbox_long_searches_can_be_cancelled() {
    let root = TempDir::new("cancel");
    for i in 0..5000 {
        root.file(&format!("d{}/f{i}.txt", i % 50), "needle\n");
    }
    let mut client = Client::start(root.path());
    // The call and its cancellation in one write: the first cancellation check sees it.
    let call = json!({"jsonrpc": "2.0", "id": 500, "method": "tools/call", "params": {"name": "search_text", "arguments": {"query": "needle", "max_results": 1000}}});
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 500, "reason": "test"}});
    client.send_raw(&format!("{call}\n{cancel}\n"));
    // Responses come in order: if the call had been answered, that answer would come first.
    let ping = client.request("ping", json!({}));
    assert_eq!(ping["result"], json!({}));
    assert!(
        client.notifications.iter().all(|n| n.get("id").is_none()),
        "the cancelled call was answered"
    );
    // The session goes on.
    let found = client.call("search_files", json!({"pattern": "d0/f0.txt"}));
    assert_eq!(matches(&found), ["d0/f0.txt"]);
}

// ---- Tools, resources, prompts and the binary ---------------------------------------------

#[test]
fn tools_are_listed_read_only_with_strict_schemas() {
    let root = TempDir::new("listing");
    let mut client = Client::start(root.path());
    let tools = client.request("tools/list", json!({}));
    let tools = tools["result"]["tools"].as_array().expect("tools").clone();
    let names: Vec<&str> = tools
        .iter()
        .map(|t| t["name"].as_str().expect("name"))
        .collect();
    assert_eq!(
        names,
        [
            "search_files",
            "list_directory",
            "read_file",
            "search_text",
            "analyze_complexity",
            "analyze_code_churn"
        ]
    );
    for tool in &tools {
        let name = &tool["name"];
        assert!(tool["title"].is_string(), "{name}");
        assert_eq!(
            tool["annotations"],
            json!({"readOnlyHint": true, "openWorldHint": false}),
            "{name}"
        );
        assert_eq!(tool["inputSchema"]["additionalProperties"], false, "{name}");
        assert_eq!(tool["outputSchema"]["type"], "object", "{name}");
    }
    let init = client.request("prompts/list", json!({}));
    let prompts: Vec<&str> = init["result"]["prompts"]
        .as_array()
        .expect("prompts")
        .iter()
        .map(|p| p["name"].as_str().expect("name"))
        .collect();
    assert_eq!(prompts, ["code_review", "explain_file", "project_overview"]);
    // Schema violations come back as tool errors the model can act on.
    assert_refused(&client.call("read_file", json!({})), "path");
    assert_refused(
        &client.call("list_directory", json!({"depth": 11})),
        "depth",
    );
}

#[test]
fn gitignore_keeps_target_and_node_modules_out() {
    let root = TempDir::new("gitignore");
    root.file(".gitignore", "/target/\nnode_modules/\n*.log\n!keep.log\n")
        .file(".git/config", "[core]")
        .file("src/app.js", "needle")
        .file("target/debug/app.js", "needle")
        .file("web/node_modules/dep/index.js", "needle")
        .file("web/.gitignore", "dist/\n")
        .file("web/dist/bundle.js", "needle")
        .file("web/main.js", "needle")
        .file("debug.log", "needle")
        .file("keep.log", "needle");
    let mut client = Client::start(root.path());
    let found = client.call("search_files", json!({"pattern": "**/*.js"}));
    assert_eq!(matches(&found), ["src/app.js", "web/main.js"]);
    let searched = client.call("search_text", json!({"query": "needle"}));
    assert_eq!(
        matches(&searched),
        ["keep.log", "src/app.js", "web/main.js"]
    );
    let names = resource_names(&mut client);
    assert_eq!(
        names,
        [
            ".gitignore",
            "keep.log",
            "src/app.js",
            "web/.gitignore",
            "web/main.js"
        ]
    );
    // Ignored files are left out of walks, but can be read by path.
    let read = client.call("read_file", json!({"path": "target/debug/app.js"}));
    assert_eq!(read["structuredContent"]["content"], "needle");
    assert_refused(
        &client.call("read_file", json!({"path": ".git/config"})),
        "`.git` is refused",
    );
}

#[test]
fn read_file_pages_text_and_attaches_binary() {
    let root = TempDir::new("read");
    let body: String = (1..=2500).map(|i| format!("line {i}\n")).collect();
    root.file("long.txt", body)
        .file("img.png", [0x89, b'P', b'N', b'G', 0, 0xff]);
    let mut client = Client::start(root.path());
    let first = client.call("read_file", json!({"path": "long.txt"}));
    let s = &first["structuredContent"];
    assert_eq!(
        (
            s["start_line"].as_u64(),
            s["end_line"].as_u64(),
            s["next_offset"].as_u64()
        ),
        (Some(1), Some(2000), Some(2001))
    );
    assert!(text(&first).contains("call read_file with offset=2001"));
    let rest = client.call("read_file", json!({"path": "long.txt", "offset": 2001}));
    assert_eq!(rest["structuredContent"]["end_line"], 2500);
    let image = client.call("read_file", json!({"path": "img.png"}));
    assert_eq!(image["content"][1]["type"], "resource");
    assert_eq!(image["content"][1]["resource"]["blob"], "iVBORwD/");
    assert_eq!(image["content"][1]["resource"]["mimeType"], "image/png");
}

#[test]
fn resources_are_listed_paginated_read_and_completed() {
    let root = TempDir::new("resources");
    for i in 0..150 {
        root.file(&format!("f{i:03}.txt"), format!("file {i}"));
    }
    root.file("src/lib.rs", "pub fn f() {}\n")
        .file("src/logo.png", [0x89, b'P', 0]);
    let mut client = Client::start(root.path());
    let first = client.request("resources/list", json!({}));
    let page = first["result"]["resources"].as_array().expect("resources");
    assert_eq!(page.len(), 100);
    assert_eq!(
        page[0],
        json!({"uri": "file:///f000.txt", "name": "f000.txt", "title": "f000.txt", "mimeType": "text/plain", "size": 6})
    );
    let names = resource_names(&mut client);
    assert_eq!(names.len(), 152);
    assert_eq!(&names[150..], ["src/lib.rs", "src/logo.png"]);
    let text_read = client.request("resources/read", json!({"uri": "file:///src/lib.rs"}));
    assert_eq!(
        text_read["result"]["contents"][0]["text"],
        "pub fn f() {}\n"
    );
    let blob = client.request("resources/read", json!({"uri": "file:///src/logo.png"}));
    assert_eq!(blob["result"]["contents"][0]["blob"], "iVAA");
    let templates = client.request("resources/templates/list", json!({}));
    assert_eq!(
        templates["result"]["resourceTemplates"][0]["uriTemplate"],
        "file:///{+path}"
    );
    let template = json!({"type": "ref/resource", "uri": "file:///{+path}"});
    assert_eq!(
        complete(&mut client, template.clone(), "path", "sr"),
        ["src/"]
    );
    assert_eq!(
        complete(&mut client, template, "path", "src/l"),
        ["src/lib.rs", "src/logo.png"]
    );
    assert_error(
        &client.request("resources/read", json!({"uri": "file:///nope.txt"})),
        "resource not found",
    );
}

#[test]
fn subscriptions_report_updates_and_list_changes() {
    let root = TempDir::new("subscribe");
    root.file("watched.txt", "one");
    let mut client = Client::start(root.path());
    let init_caps = client.request("ping", json!({}));
    assert_eq!(init_caps["result"], json!({}));
    let subscribed = client.request("resources/subscribe", json!({"uri": "file:///watched.txt"}));
    assert_eq!(subscribed["result"], json!({}), "{subscribed}");
    // Let the first poll record the current state, then change the file.
    std::thread::sleep(Duration::from_millis(1500));
    root.file("watched.txt", "two");
    let updated =
        client.wait_notification("notifications/resources/updated", Duration::from_secs(5));
    assert_eq!(
        updated.expect("updated")["params"]["uri"],
        "file:///watched.txt"
    );
    root.file("new/appeared.txt", "new");
    let changed = client.wait_notification(
        "notifications/resources/list_changed",
        Duration::from_secs(5),
    );
    assert!(changed.is_some(), "no list_changed after a file appeared");
    let unsubscribed = client.request(
        "resources/unsubscribe",
        json!({"uri": "file:///watched.txt"}),
    );
    assert_eq!(unsubscribed["result"], json!({}));
}

#[test]
fn prompts_embed_files_and_complete_arguments() {
    let root = TempDir::new("prompts");
    root.file("README.md", "# Demo\n")
        .file("src/main.rs", "fn main() {}\n");
    let mut client = Client::start(root.path());
    let explained = client.request(
        "prompts/get",
        json!({"name": "explain_file", "arguments": {"path": "src/main.rs"}}),
    );
    let first = &explained["result"]["messages"][0]["content"];
    assert_eq!(first["type"], "resource");
    assert_eq!(first["resource"]["uri"], "file:///src/main.rs");
    assert_eq!(first["resource"]["text"], "fn main() {}\n");
    let overview = client.request(
        "prompts/get",
        json!({"name": "project_overview", "arguments": {}}),
    );
    let messages = overview["result"]["messages"].as_array().expect("messages");
    assert!(messages[0]["content"]["text"]
        .as_str()
        .expect("text")
        .contains("README.md"));
    assert_eq!(
        messages[1]["content"]["resource"]["uri"],
        "file:///README.md"
    );
    let review = client.request(
        "prompts/get",
        json!({"name": "code_review", "arguments": {"language": "rust", "code": "fn f() {}"}}),
    );
    assert!(review["result"]["messages"][0]["content"]["text"]
        .as_str()
        .expect("text")
        .contains("```rust\nfn f() {}\n```"));
    let prompt = |name: &str| json!({"type": "ref/prompt", "name": name});
    assert_eq!(
        complete(&mut client, prompt("code_review"), "language", "ru"),
        ["ruby", "rust"]
    );
    assert_eq!(
        complete(&mut client, prompt("explain_file"), "path", "src/"),
        ["src/main.rs"]
    );
    assert_eq!(
        complete(&mut client, prompt("project_overview"), "directory", ""),
        ["src/"]
    );
}

#[test]
fn a_missing_or_non_directory_root_is_refused_at_startup() {
    let base = TempDir::new("badroot");
    base.file("plain.txt", "x").dir("empty");
    for (root, expected) in [
        (base.path().join("missing"), "does not exist"),
        (base.path().join("plain.txt"), "is not a directory"),
    ] {
        let output = Command::new(BIN)
            .arg("--root")
            .arg(&root)
            .stdin(Stdio::null())
            .output()
            .expect("run");
        assert_eq!(output.status.code(), Some(2), "{expected}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains(expected) && stderr.contains("--root"),
            "{stderr}"
        );
        assert!(output.stdout.is_empty(), "nothing on stdout");
    }
    let ok = Command::new(BIN)
        .arg("--root")
        .arg(base.path().join("empty"))
        .stdin(Stdio::null())
        .output()
        .expect("run");
    assert_eq!(
        ok.status.code(),
        Some(0),
        "an empty directory is a fine root"
    );
}

#[test]
fn call_search_files_works_on_the_crate_itself() {
    let output = Command::new(BIN)
        .args([
            "call",
            "search_files",
            r#"{"pattern":"**/*.rs"}"#,
            "--root",
            env!("CARGO_MANIFEST_DIR"),
        ])
        .output()
        .expect("run");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let result: Value = serde_json::from_slice(&output.stdout).expect("JSON on stdout");
    let found = matches(&result);
    assert!(found.iter().any(|p| p == "src/lib.rs"), "{found:?}");
    assert!(found.iter().any(|p| p == "tests/workspace.rs"), "{found:?}");
    assert!(
        found.iter().all(|p| !p.starts_with("target/")),
        "target/ is .gitignored"
    );
    assert_eq!(result["structuredContent"]["complete"], true);
}

/// The toolset's own code (not its tests) uses no API that writes, deletes, spawns or
/// executes: a check that fails the moment someone adds one.
#[test]
fn the_toolset_source_uses_no_writing_or_executing_api() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/toolsets/workspace");
    let forbidden = [
        "std::process",
        "Command",
        "fs::write",
        "File::create",
        "create_dir",
        "remove_file",
        "remove_dir",
        "fs::rename",
        "fs::copy",
        "set_permissions",
        "hard_link",
        "fs::symlink(",
        "symlink_dir(",
        "symlink_file(",
        ".write(true)",
        ".append(true)",
        ".create(true)",
        ".truncate(true)",
        "thread::spawn",
        "unsafe",
    ];
    let mut checked = 0;
    for entry in fs::read_dir(&dir).expect("toolset dir") {
        let path = entry.expect("entry").path();
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .expect("name")
            .to_string();
        if !name.ends_with(".rs") || name.ends_with("_tests.rs") || name == "testutil.rs" {
            continue;
        }
        // Fixtures that write live in `*_tests.rs` and `testutil.rs`; everything else, inline
        // unit tests included, is scanned whole.
        let source = fs::read_to_string(&path).expect("read");
        for word in forbidden {
            assert!(!source.contains(word), "{name} uses {word}");
        }
        checked += 1;
    }
    assert!(checked >= 10, "only {checked} files checked");
}
