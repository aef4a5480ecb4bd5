//! End-to-end tests of the workspace toolset: the real `minimcp` binary, spawned with
//! `--root <temp dir>`, spoken to over pipes in JSON-RPC lines. Each sandbox case is
//! its own test, named `sandbox_*`.
//!
//! Every line the server writes is checked for the absolute root path: it must never reach
//! the client, in errors or anywhere else.

use std::ffi::OsStr;
use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

mod common;

use common::scratch::Scratch;

const WAIT: Duration = Duration::from_secs(20);

// ---- A client over pipes ------------------------------------------------------------------

struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    /// Absolute spellings of the root that must never appear in the output, except as the
    /// start of a `file://` URI (resources name files by their absolute path, RFC 8089).
    secrets: Vec<String>,
    /// `file://` and the root: the URIs of workspace files start with it.
    root_uri: String,
    /// What this client answers to `roots/list` (and whether it declares `roots`).
    roots: Option<Vec<Value>>,
    notifications: Vec<Value>,
    next_id: u64,
}

impl Client {
    /// Spawns the server on `root` and completes the 2025-11-25 handshake.
    fn start(root: &Path) -> Client {
        Client::launch(&[OsStr::new("--root"), root.as_os_str()], None, None, root)
    }

    /// Spawns the server with `args` in `cwd` (with `$HOME` set to `home`); when `roots` is
    /// given, the client declares the `roots` capability and answers `roots/list` with them.
    /// `root` is the directory whose absolute path must not leak.
    fn launch(args: &[&OsStr], cwd: Option<&Path>, home: Option<&Path>, root: &Path) -> Client {
        Client::launch_with_roots(args, cwd, home, root, None)
    }

    fn launch_with_roots(
        args: &[&OsStr],
        cwd: Option<&Path>,
        home: Option<&Path>,
        root: &Path,
        roots: Option<Vec<Value>>,
    ) -> Client {
        let mut command = Command::new(common::minimcp());
        // The workspace toolset alone: these tests count its tools and resources.
        command.args(["--toolsets", "workspace"]);
        command.args(args);
        if let Some(cwd) = cwd {
            command.current_dir(cwd);
        }
        if let Some(home) = home {
            command.env("HOME", home);
        }
        let mut child = command
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
        if common::windows() {
            // As a Windows build spells it, raw and inside a JSON string.
            let native = common::native_path(root);
            secrets.push(native.replace('\\', "\\\\"));
            secrets.push(native);
        }
        let capabilities = match roots {
            Some(_) => json!({"roots": {"listChanged": true}}),
            None => json!({}),
        };
        let mut client = Client {
            stdin: child.stdin.take(),
            child,
            lines,
            secrets,
            root_uri: format!("{}{}", common::uri_prefix(), root.display()),
            roots,
            notifications: Vec::new(),
            next_id: 1,
        };
        let init = client.request("initialize", json!({"protocolVersion": "2025-11-25", "capabilities": capabilities, "clientInfo": {"name": "it", "version": "1"}}));
        assert_eq!(init["result"]["protocolVersion"], "2025-11-25", "{init}");
        client.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        client
    }

    /// The URI of `rel` in the root.
    fn u(&self, rel: &str) -> String {
        format!("{}/{rel}", self.root_uri)
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
                    let mut scrubbed =
                        line.replace(&format!("{}{secret}", common::uri_prefix()), "file://ROOT");
                    if common::windows() {
                        // The template's `path` (`Z:/tmp/…`), which completions echo.
                        scrubbed = scrubbed.replace(&format!("Z:{secret}"), "ROOT");
                    }
                    assert!(
                        !scrubbed.contains(secret.as_str()),
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
            if message.get("id") == Some(&json!(id)) && message.get("method").is_none() {
                return message;
            }
            if message["method"] == "roots/list" {
                let answer = json!({"jsonrpc": "2.0", "id": message["id"], "result": {"roots": self.roots.clone().unwrap_or_default()}});
                self.send(&answer);
                continue;
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

/// A listing entry without the facts that vary from run to run (time, permissions).
fn bare(entry: &Value) -> Value {
    let mut entry = entry.clone();
    if let Some(object) = entry.as_object_mut() {
        object.remove("modified");
        object.remove("permissions");
    }
    entry
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

/// Completes an argument; for the `file:///{+path}` template, `value` and the answers are
/// relative to the root (the variable itself is the absolute path without its first `/`).
fn complete(client: &mut Client, reference: Value, name: &str, value: &str) -> Vec<String> {
    let template = reference["type"] == "ref/resource";
    let root = client.root_uri["file:///".len()..].to_string();
    let value = if template {
        format!("{root}/{value}")
    } else {
        value.to_string()
    };
    let response = client.request(
        "completion/complete",
        json!({"ref": reference, "argument": {"name": name, "value": value}}),
    );
    let values = response["result"]["completion"]["values"]
        .as_array()
        .unwrap_or_else(|| panic!("{response}"));
    values
        .iter()
        .map(|v| v.as_str().expect("string"))
        .map(|v| match v.strip_prefix(&format!("{root}/")) {
            Some(rel) if template => rel.to_string(),
            _ => v.to_string(),
        })
        .collect()
}

// ---- The sandbox: one test per case ---------------------------------------------------------

/// `base/ws` is the root; `base/ws-secret` is a sibling whose name starts with the root's.
#[cfg(unix)]
#[test]
fn sandbox_sibling_directory_sharing_the_root_name_prefix_is_outside() {
    let base = Scratch::new("sibling");
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
    let response = client.request("resources/read", json!({"uri": client.u("link/key.txt")}));
    assert_error(&response, "leads outside the workspace");
}

#[cfg(unix)]
#[test]
fn sandbox_escaping_symlink_is_not_read_directly() {
    let base = Scratch::new("direct");
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
        &client.request("resources/read", json!({"uri": client.u("link.txt")})),
        "leads outside",
    );
    assert_error(
        &client.request("resources/subscribe", json!({"uri": client.u("link.txt")})),
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
    let base = Scratch::new("listed");
    base.file("ws/src/a.rs", "fn a() {}")
        .file("outside/b.rs", "fn secret_marker() {}");
    base.symlink("../../outside/b.rs", "ws/src/b.rs")
        .symlink(base.path().join("outside"), "ws/src/out");
    let mut client = Client::start(&base.path().join("ws"));
    let listing = client.call("list_directory", json!({"path": "src", "depth": 3}));
    assert_eq!(listed(&listing), ["a.rs"]);
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
    let base = Scratch::new("parent");
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
        &client.request("resources/read", json!({"uri": client.u("out/secret.txt")})),
        "leads outside",
    );
    let template = json!({"type": "ref/resource", "uri": "file:///{+path}"});
    assert!(complete(&mut client, template, "path", "out/").is_empty());
}

#[cfg(unix)]
#[test]
fn sandbox_symlink_staying_inside_is_followed() {
    let root = Scratch::new("inside");
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
        ["guide.md"]
    );
    let listing = client.call("list_directory", json!({}));
    let entries = &listing["structuredContent"]["entries"];
    assert_eq!(
        bare(&entries[0]),
        json!({"path": "GUIDE.md", "kind": "file", "size": 18, "symlink": true})
    );
    assert_eq!(
        bare(&entries[2]),
        json!({"path": "manual", "kind": "directory", "symlink": true})
    );
    let found = client.call("search_text", json!({"query": "follow me"}));
    assert_eq!(matches(&found), ["GUIDE.md", "docs/guide.md"]);
}

#[test]
fn sandbox_parent_components_are_refused() {
    let root = Scratch::new("dotdot");
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
fn sandbox_absolute_paths_outside_the_root_are_refused() {
    let base = Scratch::new("absolute");
    base.file("ws/a.txt", "a").file("ws-secret/key.txt", "k");
    let root = base.path().join("ws");
    let mut client = Client::start(&root);
    // This client sends absolute paths itself; the answers may echo them.
    client.secrets.clear();
    let sibling = base.path().join("ws-secret/key.txt").display().to_string();
    for path in ["/etc/passwd", "/", "//server/share", sibling.as_str()] {
        assert_refused_everywhere(&mut client, path, "outside the workspace roots");
    }
    // Elsewhere than Windows a drive letter makes a relative path that climbs nowhere.
    let drive = if common::windows() {
        "outside the workspace roots"
    } else {
        "not inside a workspace root"
    };
    assert_refused_everywhere(&mut client, "C:/Windows/win.ini", drive);
    let climbing = format!("{}/../ws-secret/key.txt", root.display());
    assert_refused(
        &client.call("read_file", json!({"path": climbing})),
        "`..` is refused",
    );
    assert_refused(
        &client.call("search_files", json!({"pattern": "/etc/*"})),
        "must be relative",
    );
    assert_error(
        &client.request("resources/read", json!({"uri": "file:///etc/passwd"})),
        "outside the workspace roots",
    );
}

#[test]
fn absolute_paths_inside_the_root_work_everywhere_and_results_stay_short() {
    let root = Scratch::new("abs-inside");
    root.file("src/main.rs", "fn main() {}\n")
        .file("src/lib.rs", "");
    let mut client = Client::start(root.path());
    // This client sends absolute paths itself; completions may echo them.
    client.secrets.clear();
    let abs = |rel: &str| format!("{}/{rel}", root.path().display());
    let read = client.call("read_file", json!({"path": abs("src/main.rs")}));
    assert_eq!(read["structuredContent"]["path"], "src/main.rs", "{read}");
    let listing = client.call("list_directory", json!({"path": abs("src")}));
    assert_eq!(listed(&listing), ["lib.rs", "main.rs"]);
    let found = client.call(
        "search_files",
        json!({"pattern": "*.rs", "directory": abs("src")}),
    );
    assert_eq!(matches(&found), ["src/lib.rs", "src/main.rs"]);
    let grep = client.call("search_text", json!({"query": "main", "path": abs("src")}));
    assert_eq!(matches(&grep), ["src/main.rs"]);
    let root_itself = client.call("list_directory", json!({"path": abs("")}));
    assert_eq!(listed(&root_itself), ["src"]);
    let prompt = client.request(
        "prompts/get",
        json!({"name": "explain_file", "arguments": {"path": abs("src/main.rs")}}),
    );
    assert!(prompt["result"]["messages"].is_array(), "{prompt}");
    let prompt_ref = json!({"type": "ref/prompt", "name": "explain_file"});
    assert_eq!(
        complete(&mut client, prompt_ref, "path", &abs("src/m")),
        [abs("src/main.rs")]
    );
}

#[test]
fn file_uris_with_spaces_and_non_ascii_round_trip() {
    let root = Scratch::new("uri names");
    root.file("dir with space/naïve #1.txt", "hello\n");
    let mut client = Client::start(root.path());
    let listed = client.request("resources/list", json!({}));
    let uri = listed["result"]["resources"][0]["uri"]
        .as_str()
        .expect("uri")
        .to_string();
    assert!(
        uri.ends_with("uri%20names/dir%20with%20space/na%C3%AFve%20%231.txt"),
        "{uri}"
    );
    let read = client.request("resources/read", json!({"uri": uri}));
    assert_eq!(read["result"]["contents"][0]["text"], "hello\n", "{read}");
    let subscribed = client.request("resources/subscribe", json!({"uri": uri}));
    assert_eq!(subscribed["result"], json!({}), "{subscribed}");
    let template = json!({"type": "ref/resource", "uri": "file:///{+path}"});
    assert_eq!(
        complete(&mut client, template, "path", "dir with space/n"),
        ["dir with space/naïve #1.txt"]
    );
}

#[test]
fn sandbox_home_paths_are_refused() {
    let root = Scratch::new("home");
    let mut client = Client::start(root.path());
    for path in ["~", "~/.ssh/id_rsa"] {
        assert_refused_everywhere(&mut client, path, "outside the workspace roots");
    }
    assert_refused_everywhere(&mut client, "~root/.bashrc", "`~user` paths are refused");
    assert_error(
        &client.request("resources/read", json!({"uri": "file:///~/.ssh/id_rsa"})),
        "outside the workspace roots",
    );
}

#[test]
fn sandbox_nul_bytes_are_refused() {
    let root = Scratch::new("nul");
    root.file("a.txt", "a");
    let mut client = Client::start(root.path());
    for path in ["a.txt\u{0}.png", "\u{0}", "src/\u{0}/x"] {
        assert_refused_everywhere(&mut client, path, "NUL byte");
    }
    assert_error(
        &client.request("resources/read", json!({"uri": client.u("a.txt%00.png")})),
        "NUL byte",
    );
    assert_refused(
        &client.call("search_files", json!({"pattern": "a\u{0}*"})),
        "NUL byte",
    );
}

#[test]
fn sandbox_percent_encoded_traversal_in_uris_is_refused() {
    let base = Scratch::new("percent");
    base.file("ws/a.txt", "a")
        .file("secret.txt", "secret-marker");
    let mut client = Client::start(&base.path().join("ws"));
    for uri in [
        client.u("%2e%2e/secret.txt"),
        client.u("%2E%2E/secret.txt"),
        client.u("..%2fsecret.txt"),
        client.u("a/%2e%2e%2f%2e%2e%2fsecret.txt"),
        client.u("../secret.txt"),
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
        "outside the workspace roots",
    );
    // On Windows a backslash separates names: this is `..` there.
    assert_error(
        &client.request(
            "resources/read",
            json!({"uri": client.u("%5c..%5csecret.txt")}),
        ),
        if common::windows() {
            "`..` is refused"
        } else {
            "backslashes are refused"
        },
    );
    assert_error(
        &client.request("resources/read", json!({"uri": client.u("%zz")})),
        "malformed percent-escape",
    );
    // Decoded once: `%252e%252e` names a file literally called `%2e%2e`, which is not there.
    assert_error(
        &client.request(
            "resources/read",
            json!({"uri": client.u("%252e%252e/secret.txt")}),
        ),
        "resource not found",
    );
    let template = json!({"type": "ref/resource", "uri": "file:///{+path}"});
    assert!(complete(&mut client, template, "path", "../").is_empty());
}

#[test]
fn sandbox_windows_separators_are_refused() {
    let root = Scratch::new("backslash");
    root.file("src/main.rs", "");
    let mut client = Client::start(root.path());
    if common::windows() {
        // There they are separators: relative and absolute spellings name the same file.
        client.secrets.clear();
        let absolute = common::native_path(&root.path().join("src/main.rs"));
        for path in ["src\\main.rs", ".\\src/main.rs", absolute.as_str()] {
            let read = client.call("read_file", json!({"path": path}));
            assert_eq!(read["structuredContent"]["path"], "src/main.rs", "{read}");
        }
        assert_refused_everywhere(&mut client, "..\\..\\x", "`..` is refused");
        for outside in ["C:\\Windows", "\\\\server\\share"] {
            assert_refused_everywhere(&mut client, outside, "outside the workspace roots");
        }
        return;
    }
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
    let root = Scratch::new("long");
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
    let uri = client.u(&"a/".repeat(2100));
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
    let base = Scratch::new("readonly");
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
    client.request("resources/read", json!({"uri": client.u("run.sh")}));
    client.request("resources/read", json!({"uri": client.u("logo.png")}));
    client.request(
        "resources/subscribe",
        json!({"uri": client.u("src/main.rs")}),
    );
    client.request(
        "resources/unsubscribe",
        json!({"uri": client.u("src/main.rs")}),
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
    let root = Scratch::new("fifo");
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
        bare(&listing["structuredContent"]["entries"][1]),
        json!({"path": "pipe", "kind": "other"})
    );
    assert_error(
        &client.request("resources/read", json!({"uri": client.u("pipe")})),
        "not a regular file",
    );
}

#[test]
fn sandbox_large_trees_stop_at_the_depth_limit_and_say_so() {
    let root = Scratch::new("deep");
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
    let root = Scratch::new("progress");
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
    let root = Scratch::new("cancel");
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
    let root = Scratch::new("listing");
    let mut client = Client::start(root.path());
    let tools = client.request("tools/list", json!({}));
    let tools = tools["result"]["tools"].as_array().expect("tools").clone();
    let names: Vec<&str> = tools
        .iter()
        .map(|t| t["name"].as_str().expect("name"))
        .collect();
    assert_eq!(
        names,
        ["search_files", "list_directory", "read_file", "search_text"]
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
    let root = Scratch::new("gitignore");
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
    let root = Scratch::new("read");
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
    assert!(text(&first).contains("call read_file with path=\"long.txt\" and offset=2001"));
    let rest = client.call("read_file", json!({"path": "long.txt", "offset": 2001}));
    assert_eq!(rest["structuredContent"]["end_line"], 2500);
    let image = client.call("read_file", json!({"path": "img.png"}));
    assert_eq!(image["content"][1]["type"], "resource");
    assert_eq!(image["content"][1]["resource"]["blob"], "iVBORwD/");
    assert_eq!(image["content"][1]["resource"]["mimeType"], "image/png");
}

#[test]
fn resources_are_listed_paginated_read_and_completed() {
    let root = Scratch::new("resources");
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
        json!({"uri": client.u("f000.txt"), "name": "f000.txt", "title": "f000.txt", "mimeType": "text/plain", "size": 6})
    );
    let names = resource_names(&mut client);
    assert_eq!(names.len(), 152);
    assert_eq!(&names[150..], ["src/lib.rs", "src/logo.png"]);
    let text_read = client.request("resources/read", json!({"uri": client.u("src/lib.rs")}));
    assert_eq!(
        text_read["result"]["contents"][0]["text"],
        "pub fn f() {}\n"
    );
    let blob = client.request("resources/read", json!({"uri": client.u("src/logo.png")}));
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
        &client.request("resources/read", json!({"uri": client.u("nope.txt")})),
        "resource not found",
    );
}

#[test]
fn subscriptions_report_updates_and_list_changes() {
    let root = Scratch::new("subscribe");
    root.file("watched.txt", "one");
    let mut client = Client::start(root.path());
    let init_caps = client.request("ping", json!({}));
    assert_eq!(init_caps["result"], json!({}));
    let subscribed = client.request(
        "resources/subscribe",
        json!({"uri": client.u("watched.txt")}),
    );
    assert_eq!(subscribed["result"], json!({}), "{subscribed}");
    // Let the first poll record the current state, then change the file.
    std::thread::sleep(Duration::from_millis(1500));
    root.file("watched.txt", "two");
    let updated =
        client.wait_notification("notifications/resources/updated", Duration::from_secs(5));
    assert_eq!(
        updated.expect("updated")["params"]["uri"],
        client.u("watched.txt")
    );
    root.file("new/appeared.txt", "new");
    let changed = client.wait_notification(
        "notifications/resources/list_changed",
        Duration::from_secs(5),
    );
    assert!(changed.is_some(), "no list_changed after a file appeared");
    let unsubscribed = client.request(
        "resources/unsubscribe",
        json!({"uri": client.u("watched.txt")}),
    );
    assert_eq!(unsubscribed["result"], json!({}));
}

#[test]
fn prompts_embed_files_and_complete_arguments() {
    let root = Scratch::new("prompts");
    root.file("README.md", "# Demo\n")
        .file("src/main.rs", "fn main() {}\n");
    let mut client = Client::start(root.path());
    let explained = client.request(
        "prompts/get",
        json!({"name": "explain_file", "arguments": {"path": "src/main.rs"}}),
    );
    let first = &explained["result"]["messages"][0]["content"];
    assert_eq!(first["type"], "resource");
    assert_eq!(first["resource"]["uri"], client.u("src/main.rs"));
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
        client.u("README.md")
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
    let base = Scratch::new("badroot");
    base.file("plain.txt", "x").dir("empty");
    for (root, expected) in [
        (base.path().join("missing"), "does not exist"),
        (base.path().join("plain.txt"), "is not a directory"),
    ] {
        let output = Command::new(common::minimcp())
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
    let ok = Command::new(common::minimcp())
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
    let output = Command::new(common::minimcp())
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
    assert!(found.iter().any(|p| p == "src/main.rs"), "{found:?}");
    assert!(found.iter().any(|p| p == "tests/workspace.rs"), "{found:?}");
    assert!(
        found.iter().any(|p| p == "crates/minimcp/src/lib.rs"),
        "{found:?}"
    );
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
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/minimcp-toolsets/src/workspace");
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

// ---- Roots: several, from the client, never / or $HOME implicitly ----------------------------

fn uri_of(path: &Path) -> String {
    common::native_uri(path)
}

#[test]
fn roots_come_from_the_client_and_follow_its_changes() {
    let base = Scratch::new("client-roots");
    base.file("cwd/fallback.txt", "fallback")
        .file("app/only-app.txt", "app")
        .file("app/common.txt", "app common")
        .file("lib é/common.txt", "lib common")
        .file("lib é/src/x.rs", "fn x() {}\n");
    let (app, lib) = (base.path().join("app"), base.path().join("lib é"));
    let roots = vec![
        json!({"uri": uri_of(&app), "name": "app"}),
        json!({"uri": uri_of(&lib)}),
    ];
    let mut client = Client::launch_with_roots(
        &[],
        Some(&base.path().join("cwd")),
        None,
        base.path(),
        Some(roots),
    );
    // The client names its own roots; the answers may use their absolute paths.
    client.secrets.clear();
    let top = client.call("list_directory", json!({}));
    assert_eq!(listed(&top), ["app", "lib é"], "{top}");
    let only = client.call("read_file", json!({"path": "only-app.txt"}));
    assert_eq!(only["structuredContent"]["path"], "app/only-app.txt");
    let labelled = client.call("read_file", json!({"path": "lib é/common.txt"}));
    assert_eq!(labelled["structuredContent"]["content"], "lib common");
    assert_refused(
        &client.call("read_file", json!({"path": "common.txt"})),
        "exists in several workspace roots; name the one you mean: app/common.txt, lib é/common.txt",
    );
    let absolute = client.call(
        "read_file",
        json!({"path": lib.join("src/x.rs").display().to_string()}),
    );
    assert_eq!(absolute["structuredContent"]["path"], "lib é/src/x.rs");
    let found = client.call("search_files", json!({"pattern": "**/*.txt"}));
    assert_eq!(
        matches(&found),
        ["app/common.txt", "app/only-app.txt", "lib é/common.txt"]
    );
    assert_refused(
        &client.call("read_file", json!({"path": "fallback.txt"})),
        "does not exist",
    );
    let listed_uris = client.request("resources/list", json!({}));
    let first = &listed_uris["result"]["resources"][0];
    assert_eq!(first["uri"], format!("{}/common.txt", uri_of(&app)));
    assert_eq!(first["name"], "app/common.txt");
    // The client drops a root: the next request asks again and paths are short again.
    client.roots = Some(vec![json!({"uri": uri_of(&lib)})]);
    client.send(&json!({"jsonrpc": "2.0", "method": "notifications/roots/list_changed"}));
    let after = client.call("list_directory", json!({}));
    assert_eq!(listed(&after), ["common.txt", "src"], "{after}");
    // No roots at all: the working directory, as without the capability.
    client.roots = Some(Vec::new());
    client.send(&json!({"jsonrpc": "2.0", "method": "notifications/roots/list_changed"}));
    let fallback = client.call("read_file", json!({"path": "fallback.txt"}));
    assert_eq!(fallback["structuredContent"]["content"], "fallback");
}

#[test]
fn several_roots_on_the_command_line() {
    let base = Scratch::new("two-roots");
    base.file("one/src/a.rs", "one").file("two/src/a.rs", "two");
    let (one, two) = (base.path().join("one"), base.path().join("two"));
    let mut client = Client::launch(
        &[
            OsStr::new("--root"),
            one.as_os_str(),
            OsStr::new("--root"),
            two.as_os_str(),
        ],
        None,
        None,
        base.path(),
    );
    client.secrets.clear();
    assert_eq!(
        matches(&client.call("search_files", json!({"pattern": "**/a.rs"}))),
        ["one/src/a.rs", "two/src/a.rs"]
    );
    let grep = client.call("search_text", json!({"query": "two"}));
    assert_eq!(matches(&grep), ["two/src/a.rs"]);
    let read = client.call(
        "read_file",
        json!({"path": two.join("src/a.rs").display().to_string()}),
    );
    assert_eq!(read["structuredContent"]["path"], "two/src/a.rs");
    assert_refused(
        &client.call("read_file", json!({"path": "src/a.rs"})),
        "one/src/a.rs, two/src/a.rs",
    );
    let prompt_ref = json!({"type": "ref/prompt", "name": "explain_file"});
    assert_eq!(complete(&mut client, prompt_ref, "path", "t"), ["two/"]);
    let overview = client.request(
        "prompts/get",
        json!({"name": "project_overview", "arguments": {}}),
    );
    let layout = overview["result"]["messages"][0]["content"]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("{overview}"));
    assert!(
        layout.contains("one/\n  src/\n    a.rs\ntwo/\n  src/"),
        "{layout}"
    );
}

#[test]
fn a_bare_directory_argument_is_the_root() {
    let root = Scratch::new("bare");
    root.file("hello.txt", "hi");
    let mut client = Client::launch(&[root.path().as_os_str()], None, None, root.path());
    let read = client.call("read_file", json!({"path": "hello.txt"}));
    assert_eq!(read["structuredContent"]["content"], "hi");
}

#[test]
fn slash_and_home_are_never_served_implicitly() {
    let home = Scratch::new("home-dir");
    home.file(".ssh/config", "Host *")
        .file("notes.txt", "private");
    for cwd in [Path::new("/"), home.path()] {
        let mut client = Client::launch(&[], Some(cwd), Some(home.path()), home.path());
        for (tool, args) in [
            ("read_file", json!({"path": "etc/passwd"})),
            ("read_file", json!({"path": "/etc/passwd"})),
            ("list_directory", json!({})),
            ("search_files", json!({"pattern": "**"})),
            ("search_text", json!({"query": "root"})),
        ] {
            let result = client.call(tool, args);
            assert_refused(&result, "no workspace root is configured");
            assert!(text(&result).contains("--root"), "{result}");
        }
        let resources = client.request("resources/list", json!({}));
        assert_eq!(resources["result"]["resources"], json!([]), "{resources}");
        let prompt = client.request(
            "prompts/get",
            json!({"name": "explain_file", "arguments": {"path": "notes.txt"}}),
        );
        assert_error(&prompt, "no workspace root is configured");
    }
    // Named explicitly, the home directory is served.
    let mut client = Client::launch(
        &[OsStr::new("--root"), OsStr::new("~")],
        None,
        Some(home.path()),
        home.path(),
    );
    let notes = client.call("read_file", json!({"path": "notes.txt"}));
    assert_eq!(notes["structuredContent"]["content"], "private");
}

// ---- Secrets: the deny list --------------------------------------------------------------------

#[cfg(unix)]
#[test]
fn denied_files_are_hidden_and_refused_everywhere() {
    let root = Scratch::new("deny");
    root.file(".env", "TOKEN=marker-1")
        .file("config/.env.local", "TOKEN=marker-2")
        .file("secret.env", "TOKEN=marker-3")
        .file("keys/id_rsa", "marker-4")
        .file("certs/server.pem", "marker-5")
        .file("certs/server.key", "marker-6")
        .file("src/main.rs", "fn main() {} // marker-0\n")
        .file(".gitignore", "ignored.txt\n")
        .file("ignored.txt", "gitignored but readable marker-7");
    root.symlink(".env", "innocent.txt");
    let mut client = Client::start(root.path());
    for path in [
        ".env",
        "config/.env.local",
        "secret.env",
        "keys/id_rsa",
        "certs/server.pem",
        "certs/server.key",
        "innocent.txt",
    ] {
        assert_refused(
            &client.call("read_file", json!({"path": path})),
            "deny list",
        );
        assert_refused(
            &client.call("search_text", json!({"query": "marker", "path": path})),
            "deny list",
        );
        assert_error(
            &client.request("resources/read", json!({"uri": client.u(path)})),
            "deny list",
        );
        assert!(
            client
                .request("resources/subscribe", json!({"uri": client.u(path)}))
                .get("error")
                .is_some(),
            "{path}: subscribed"
        );
        assert_error(
            &client.request(
                "prompts/get",
                json!({"name": "explain_file", "arguments": {"path": path}}),
            ),
            "deny list",
        );
    }
    let all = client.call("list_directory", json!({"depth": 3}));
    assert_eq!(
        listed(&all),
        [
            ".gitignore",
            "certs",
            "config",
            "keys",
            "src",
            "src/main.rs"
        ],
        "{all}"
    );
    assert!(
        !text(&all).contains("env"),
        "not even counted: {}",
        text(&all)
    );
    let grep = client.call("search_text", json!({"query": "marker"}));
    assert_eq!(matches(&grep), ["src/main.rs"]);
    let found = client.call("search_files", json!({"pattern": "**/*"}));
    assert!(matches(&found)
        .iter()
        .all(|m| !m.contains("env") && !m.contains("id_rsa")));
    assert_eq!(resource_names(&mut client), [".gitignore", "src/main.rs"]);
    let prompt_ref = json!({"type": "ref/prompt", "name": "explain_file"});
    assert_eq!(
        complete(&mut client, prompt_ref.clone(), "path", "."),
        [".gitignore"]
    );
    assert!(complete(&mut client, prompt_ref, "path", "certs/").is_empty());
    // .gitignore shapes listings and search, not reads.
    let ignored = client.call("read_file", json!({"path": "ignored.txt"}));
    assert_eq!(
        ignored["structuredContent"]["content"],
        "gitignored but readable marker-7"
    );
    // `--deny none` clears the defaults; `--deny` adds patterns.
    let mut open = Client::launch(
        &[
            OsStr::new("--root"),
            root.path().as_os_str(),
            OsStr::new("--deny"),
            OsStr::new("none"),
            OsStr::new("--deny"),
            OsStr::new("src/"),
        ],
        None,
        None,
        root.path(),
    );
    let env = open.call("read_file", json!({"path": ".env"}));
    assert_eq!(env["structuredContent"]["content"], "TOKEN=marker-1");
    assert_refused(
        &open.call("read_file", json!({"path": "src/main.rs"})),
        "deny list",
    );
}

// ---- The result budget ------------------------------------------------------------------------

/// The budget's measure of a tool result: the larger of its text and its structured part.
fn result_size(result: &Value) -> usize {
    let text: usize = result["content"]
        .as_array()
        .map(|blocks| {
            blocks
                .iter()
                .filter_map(|b| b["text"].as_str())
                .map(str::len)
                .sum()
        })
        .unwrap_or(0);
    let structured = result
        .get("structuredContent")
        .map_or(0, |s| s.to_string().len());
    text.max(structured)
}

/// Follows `next_offset` from `args` to the end; every page within the budget. Returns the
/// items of every page (under `key`) and the largest page.
fn page_all(client: &mut Client, tool: &str, args: Value, key: &str) -> (Vec<Value>, usize) {
    let (mut items, mut largest, mut args) = (Vec::new(), 0, args);
    loop {
        let page = client.call(tool, args.clone());
        assert_ne!(page["isError"], true, "{tool}: {}", text(&page));
        largest = largest.max(result_size(&page));
        items.extend(
            page["structuredContent"][key]
                .as_array()
                .expect(key)
                .iter()
                .cloned(),
        );
        match page["structuredContent"].get("next_offset") {
            Some(next) => args["offset"] = next.clone(),
            None => return (items, largest),
        }
    }
}

#[test]
fn every_default_result_fits_the_budget_on_a_hostile_tree() {
    const BUDGET: usize = 80_000;
    let root = Scratch::new("budget");
    // A log far larger than 32 MiB: line n is "line n" and padding.
    let huge_lines = 700_000u64;
    {
        let file = fs::File::create(root.path().join("huge.log")).expect("create");
        let mut out = std::io::BufWriter::new(file);
        for n in 1..=huge_lines {
            writeln!(out, "line {n} {}", "x".repeat(40 + (n % 23) as usize)).expect("write");
        }
    }
    assert!(
        fs::metadata(root.path().join("huge.log"))
            .expect("meta")
            .len()
            > 33 << 20
    );
    root.file("min.js", "a".repeat(2 << 20))
        .file("control.txt", "\u{1}".repeat(200_000))
        .file("quotes.txt", "\"\\".repeat(100_000) + "\n");
    for i in 0..3000 {
        root.file(&format!("wide/{i:05}-{}.txt", "n".repeat(60)), "");
    }
    for f in 0..60 {
        let body: String = (0..100).map(|l| format!("needle {f} {l}\n")).collect();
        root.file(&format!("hits/{f:03}.txt"), body);
    }
    let mut client = Client::start(root.path());
    let mut largest = 0;
    let mut measured = Vec::new();
    let twenty = [["min.js", "control.txt", "quotes.txt", "huge.log", "nope"]; 4].concat();
    for (tool, args) in [
        ("read_file", json!({"path": "huge.log"})),
        ("read_file", json!({"path": "min.js"})),
        ("read_file", json!({"path": "control.txt"})),
        ("read_file", json!({"path": "quotes.txt"})),
        (
            "read_file",
            json!({"paths": ["huge.log", "min.js", "control.txt", "quotes.txt", "nope"]}),
        ),
        ("read_file", json!({"path": "huge.log", "tail": 10000})),
        ("read_file", json!({"paths": twenty.clone()})),
        ("read_file", json!({"path": "huge.log", "limit": 10000})),
        ("list_directory", json!({"path": "wide"})),
        ("list_directory", json!({"depth": 10})),
        ("search_files", json!({"pattern": "**"})),
        ("search_text", json!({"query": "needle"})),
    ] {
        let result = client.call(tool, args.clone());
        assert_ne!(result["isError"], true, "{tool} {args}: {}", text(&result));
        let size = result_size(&result);
        measured.push(format!("{tool} {args}: {size}"));
        largest = largest.max(size);
    }
    eprintln!(
        "budget: largest default result {largest} bytes\n{}",
        measured.join("\n")
    );
    assert!(
        largest <= BUDGET,
        "{largest} > {BUDGET}:\n{}",
        measured.join("\n")
    );

    // Paging reaches everything, each page within the budget; the count is the file system's.
    let (entries, page_max) = page_all(
        &mut client,
        "list_directory",
        json!({"path": "wide"}),
        "entries",
    );
    let on_disk = fs::read_dir(root.path().join("wide")).expect("dir").count();
    assert_eq!(entries.len(), on_disk);
    assert!(page_max <= BUDGET);
    let (found, page_max) = page_all(
        &mut client,
        "search_files",
        json!({"pattern": "wide/*"}),
        "matches",
    );
    assert_eq!(found.len(), on_disk);
    assert!(page_max <= BUDGET);

    // A line range deep in the huge file, read without reading it whole.
    let deep = client.call(
        "read_file",
        json!({"path": "huge.log", "offset": 650_000, "limit": 2}),
    );
    let content = deep["structuredContent"]["content"]
        .as_str()
        .expect("content");
    assert!(content.starts_with("line 650000 "), "{content}");
    assert!(content.contains("\nline 650001 "), "{content}");
    assert_eq!(deep["structuredContent"]["next_offset"], 650_002);
    // The last lines, checked against coreutils `tail` when it is installed.
    let tail = client.call("read_file", json!({"path": "huge.log", "tail": 3}));
    let ours = tail["structuredContent"]["content"]
        .as_str()
        .expect("content")
        .to_string();
    if let Ok(out) = Command::new("tail")
        .args(["-n", "3"])
        .arg(root.path().join("huge.log"))
        .output()
    {
        assert_eq!(
            ours,
            String::from_utf8_lossy(&out.stdout).trim_end_matches('\n')
        );
    } else {
        eprintln!("budget: coreutils tail not found; tail checked by construction only");
    }
    assert!(ours.starts_with(&format!("line {} ", huge_lines - 2)));
    // Continuing by byte offset through a single line longer than the budget.
    let first = client.call("read_file", json!({"path": "min.js"}));
    let next = first["structuredContent"]["next_byte_offset"]
        .as_u64()
        .expect("more");
    let second = client.call("read_file", json!({"path": "min.js", "byte_offset": next}));
    let rest = second["structuredContent"]["content"]
        .as_str()
        .expect("content");
    assert!(!rest.is_empty() && rest.bytes().all(|b| b == b'a'));
    let after = second["structuredContent"]["next_byte_offset"]
        .as_u64()
        .expect("more");
    assert_eq!(
        after,
        next + rest.len() as u64,
        "pages of one line join up exactly"
    );
}

#[test]
fn images_come_back_as_image_content() {
    let root = Scratch::new("images");
    let png = [&b"\x89PNG\r\n\x1a\n"[..], &[0, 0, 0, 13], b"IHDR"].concat();
    root.file("a.png", &png)
        .file("b.jpg", [0xFF, 0xD8, 0xFF, 0xE0, 0, 16])
        .file("c.gif", b"GIF89a\x01\x00")
        .file("d.webp", b"RIFF\x04\x00\x00\x00WEBPVP8 ");
    let mut client = Client::start(root.path());
    for (name, mime) in [
        ("a.png", "image/png"),
        ("b.jpg", "image/jpeg"),
        ("c.gif", "image/gif"),
        ("d.webp", "image/webp"),
    ] {
        let result = client.call("read_file", json!({"path": name}));
        assert_eq!(result["content"][1]["type"], "image", "{result}");
        assert_eq!(result["content"][1]["mimeType"], mime);
        assert_eq!(result["structuredContent"]["kind"], "image");
        assert!(
            !result["structuredContent"].to_string().contains("data"),
            "no base64 in structuredContent"
        );
    }
    let several = client.call("read_file", json!({"paths": ["a.png", "missing.txt"]}));
    let files = &several["structuredContent"]["files"];
    assert_eq!(files[0]["kind"], "image");
    assert!(files[1]["error"]
        .as_str()
        .expect("error")
        .contains("does not exist"));
    assert_eq!(several["content"][1]["type"], "image");
}

#[test]
fn in_the_stateless_era_roots_come_with_input_required() {
    let base = Scratch::new("mrtr-roots");
    base.file("cwd/fallback.txt", "fallback")
        .file("proj/a.txt", "from the client's root");
    let proj = base.path().join("proj");
    let mut client = Client::launch(&[], Some(&base.path().join("cwd")), None, base.path());
    client.secrets.clear();
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"roots": {}},
    });
    let first = client.request(
        "tools/call",
        json!({"name": "read_file", "arguments": {"path": "a.txt"}, "_meta": meta}),
    );
    let result = &first["result"];
    assert_eq!(result["resultType"], "input_required", "{first}");
    let (key, asked) = result["inputRequests"]
        .as_object()
        .and_then(|m| m.iter().next())
        .expect("one input request");
    assert_eq!(asked["method"], "roots/list");
    let answer = json!({key.clone(): {"roots": [{"uri": uri_of(&proj)}]}});
    let retry = client.request(
        "tools/call",
        json!({"name": "read_file", "arguments": {"path": "a.txt"}, "_meta": meta,
               "inputResponses": answer, "requestState": result["requestState"]}),
    );
    assert_eq!(retry["result"]["resultType"], "complete", "{retry}");
    assert_eq!(
        retry["result"]["structuredContent"]["content"],
        "from the client's root"
    );
    // Listings cannot answer input_required: they use the roots as they are.
    let listed = client.request("resources/list", json!({"_meta": meta}));
    assert_eq!(listed["result"]["resultType"], "complete", "{listed}");
}

#[test]
fn walk_bounds_are_flags_and_a_partial_result_says_so_first() {
    // Over the crate's own tree (hundreds of entries), a walk allowed five stops early; the
    // text's first line says the result is partial, why, and what to do.
    let output = Command::new(common::minimcp())
        .args([
            "call",
            "search_files",
            r#"{"pattern":"**/*.rs"}"#,
            "--root",
            env!("CARGO_MANIFEST_DIR"),
            "--walk-max-entries",
            "5",
            "--text",
        ])
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&output.stdout);
    let first = text.lines().next().unwrap_or_default();
    assert!(
        first.starts_with("Partial result: the walk stopped at its limit of 5 entries"),
        "{text}"
    );
    let refused = Command::new(common::minimcp())
        .args(["--walk-timeout", "0"])
        .output()
        .expect("run");
    assert_eq!(
        refused.status.code(),
        Some(2),
        "a zero timeout is a usage error"
    );
}
