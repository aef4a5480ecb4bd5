//! What differs between the systems the binary is built for, checked on the binary under
//! test (`MINIMCP_TEST_BIN`, see tests/common): this system's build in `cargo test`, and in
//! `.ci/cross.sh` the Windows build under Wine, the static x86_64 build and the aarch64 build
//! under qemu.
//!
//! - every build: `--http` names no host it would have to look up (a static glibc binary
//!   cannot use NSS), and other spellings of a secret's or `.git`'s name are refused;
//! - a Windows build: backslashes, drive letters and Windows `file:` URIs name workspace
//!   files; names Windows reads as another file (devices, streams, trailing dots and spaces,
//!   8.3 short names) are refused; Unix links (which Wine shows as plain files) leading out
//!   are refused; writes work; the drive's root and the Windows directory are not served
//!   implicitly. Elsewhere these say SKIPPED.

mod common;

use std::fs;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use common::scratch::Scratch;
use common::{Out, Peer};
use serde_json::{json, Value};

const WAIT: Duration = Duration::from_secs(30);

/// A session with the binary under test over stdio; it answers `roots/list` with `roots`.
struct Session {
    peer: Peer,
    next_id: u64,
    roots: Option<Vec<Value>>,
}

impl Session {
    fn start(args: &[&str], cwd: Option<&Path>, roots: Option<Vec<Value>>) -> Session {
        let program = common::minimcp();
        let mut args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        args.insert(0, "serve".into());
        let peer = match cwd {
            None => Peer::spawn(program, &args).expect("minimcp starts"),
            Some(dir) => {
                // Peer::spawn has no working directory: a shell sets it.
                let mut line = format!("cd '{}' && exec '{program}'", dir.display());
                for arg in &args {
                    line.push_str(&format!(" '{arg}'"));
                }
                Peer::spawn("sh", &["-c".to_string(), line]).expect("sh starts")
            }
        };
        let mut session = Session {
            peer,
            next_id: 1,
            roots,
        };
        let capabilities = match session.roots {
            Some(_) => json!({"roots": {"listChanged": true}}),
            None => json!({}),
        };
        let init = session.request(
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": capabilities, "clientInfo": {"name": "platform", "version": "1"}}),
        );
        assert!(init.get("result").is_some(), "{init}");
        session.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        session
    }

    fn send(&self, message: Value) {
        self.peer.send_line(&message.to_string());
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let line = match self.peer.recv(WAIT) {
                Ok(Out::Line(line)) => line,
                other => panic!(
                    "{method}: no answer ({other:?}); stderr: {}",
                    self.peer.stderr_text()
                ),
            };
            let message: Value = serde_json::from_slice(&line).expect("JSON");
            if message["method"] == "roots/list" {
                let roots = self.roots.clone().unwrap_or_default();
                self.send(
                    json!({"jsonrpc": "2.0", "id": message["id"], "result": {"roots": roots}}),
                );
            } else if message["id"] == id {
                return message;
            }
        }
    }

    fn call(&mut self, tool: &str, args: Value) -> Value {
        let response = self.request("tools/call", json!({"name": tool, "arguments": args}));
        response["result"].clone()
    }
}

fn text(result: &Value) -> String {
    result["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

fn assert_refused(result: &Value, fragment: &str, what: &str) {
    assert_eq!(
        result["isError"], true,
        "{what}: expected a refusal: {result}"
    );
    assert!(
        text(result).contains(fragment),
        "{what}: expected {fragment:?} in {}",
        text(result)
    );
}

fn read(session: &mut Session, path: &str) -> Value {
    session.call("read_file", json!({"path": path}))
}

/// True (and says so) unless the binary under test is a Windows build.
fn skipped_off_windows(test: &str) -> bool {
    if common::windows() {
        return false;
    }
    eprintln!("SKIPPED {test}: it checks a Windows build (MINIMCP_TEST_TARGET names a *-windows-* target in .ci/cross.sh)");
    true
}

#[test]
fn http_names_no_host_that_would_need_a_lookup() {
    // `localhost` is loopback by the binary's own reading, never by NSS (which a static
    // glibc binary cannot load): it listens on 127.0.0.1.
    let mut child = Command::new(common::minimcp())
        .args(["serve", "--profile", "conformance", "--http", "localhost:0"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut line = String::new();
    BufReader::new(child.stderr.take().expect("stderr"))
        .read_line(&mut line)
        .expect("stderr line");
    let _ = child.kill();
    let _ = child.wait();
    assert!(line.contains("listening on http://127.0.0.1:"), "{line}");
    // Any other name is refused with what to give instead, never looked up.
    for addr in ["example.com:8080", "LOCALHOST.:80", "my-host:80"] {
        let out = Command::new(common::minimcp())
            .args(["serve", "--http", addr])
            .output()
            .expect("run");
        assert_eq!(out.status.code(), Some(2), "{addr}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("--http wants ADDR:PORT such as 127.0.0.1:8080"),
            "{addr}: {stderr}"
        );
    }
}

#[test]
fn other_spellings_of_secrets_and_git_are_refused() {
    let root = Scratch::new("spellings");
    root.file(".env", "SECRET=1\n")
        .file("keys/server.pem", "key")
        .file(".git/config", "[core]\n")
        .file("ok.txt", "ok\n");
    // Where case tells names apart these are files of their own: refused all the same.
    for other in [".ENV", "keys/SERVER.PEM"] {
        if !root.path().join(other).exists() {
            root.file(other, "other spelling\n");
        }
    }
    let mut session = Session::start(
        &["--root", root.str(), "--toolsets", "workspace,edit"],
        None,
        None,
    );
    // `.Env` and `KEYS/server.Pem` exist only where case is ignored; elsewhere they are not
    // found, which is all a client learns.
    let spellings: &[&str] = if common::windows() {
        &[".ENV", ".Env", "keys/SERVER.PEM", "KEYS/server.Pem"]
    } else {
        &[".ENV", "keys/SERVER.PEM"]
    };
    for &denied in spellings {
        assert_refused(&read(&mut session, denied), "deny list", denied);
        let write = session.call("write_file", json!({"path": denied, "content": "x"}));
        assert_refused(&write, "deny list", denied);
    }
    for git in [".GIT/config", ".Git/config", "sub/.gIt"] {
        assert_refused(&read(&mut session, git), "`.git` is refused", git);
    }
    let listed = session.call("search_files", json!({"pattern": "**"}));
    let found: Vec<&str> = listed["structuredContent"]["matches"]
        .as_array()
        .expect("matches")
        .iter()
        .filter_map(|m| m.as_str().or_else(|| m["path"].as_str()))
        .collect();
    assert_eq!(found, ["keys/", "ok.txt"], "{listed}");
    assert_eq!(
        fs::read_to_string(root.path().join(".env")).expect("kept"),
        "SECRET=1\n"
    );
}

#[test]
fn windows_spellings_name_the_same_file() {
    if skipped_off_windows("windows_spellings_name_the_same_file") {
        return;
    }
    let root = Scratch::new("spelled");
    root.file("src/main.rs", "fn main() {}\n");
    let mut session = Session::start(&["--root", root.str()], None, None);
    let native = common::native_path(root.path());
    let upper = native.to_uppercase();
    for path in [
        "src\\main.rs".to_string(),
        ".\\src/main.rs".to_string(),
        format!("{native}\\src\\main.rs"),
        format!("{}/src/main.rs", native.replace('\\', "/")),
        format!("{upper}\\SRC\\MAIN.RS"),
        format!("\\\\?\\{native}\\src\\main.rs"),
        format!("{}\\src\\main.rs", &native[2..]),
    ] {
        let result = read(&mut session, &path);
        assert_eq!(
            result["structuredContent"]["content"], "fn main() {}",
            "{path}: {result}"
        );
    }
    let tail = native[2..].replace('\\', "/");
    for uri in [
        common::native_uri(&root.path().join("src/main.rs")),
        format!("file:///z%3A{tail}/src/main.rs"),
        format!("file:///Z|{tail}/src/main.rs"),
        format!("file://localhost/Z:{tail}/src/main.rs"),
        format!("file:Z:{tail}/src/main.rs"),
    ] {
        let response = session.request("resources/read", json!({"uri": uri}));
        assert_eq!(
            response["result"]["contents"][0]["text"], "fn main() {}\n",
            "{uri}: {response}"
        );
    }
    let listed = session.request("resources/list", json!({}));
    assert_eq!(
        listed["result"]["resources"][0]["uri"],
        common::native_uri(&root.path().join("src/main.rs")),
        "{listed}"
    );
}

#[test]
fn windows_names_that_open_something_else_are_refused() {
    if skipped_off_windows("windows_names_that_open_something_else_are_refused") {
        return;
    }
    let root = Scratch::new("win-names");
    root.file("a.txt", "a\n")
        .file(".env.local", "SECRET=1\n")
        .dir("Program Files");
    let mut session = Session::start(
        &["--root", root.str(), "--toolsets", "workspace,edit"],
        None,
        None,
    );
    let cases = [
        ("CON", "device name"),
        ("src\\NUL", "device name"),
        ("aux.txt", "device name"),
        ("COM1", "device name"),
        ("lpt9.log", "device name"),
        ("a.txt.", "ends with a dot or a space"),
        ("a.txt ", "ends with a dot or a space"),
        (".env.local.", "ends with a dot or a space"),
        ("a.txt:x", "alternate data stream"),
        ("a.txt::$DATA", "alternate data stream"),
        (".env.local::$DATA", "alternate data stream"),
        ("PROGRA~1\\x.txt", "8.3 short name"),
        ("ENV~1.LOC", "8.3 short name"),
        ("\\\\.\\COM1", "outside the workspace roots"),
        ("\\\\server\\share\\x.txt", "outside the workspace roots"),
        ("C:relative.txt", "outside the workspace roots"),
        ("..\\a.txt", "`..` is refused"),
    ];
    for (path, fragment) in cases {
        assert_refused(&read(&mut session, path), fragment, path);
        let write = session.call("write_file", json!({"path": path, "content": "x"}));
        assert_refused(&write, fragment, path);
    }
    // Nothing was created or changed by any of them.
    let mut names: Vec<String> = fs::read_dir(root.path())
        .expect("list")
        .map(|e| e.expect("entry").file_name().into_string().expect("utf-8"))
        .collect();
    names.sort();
    assert_eq!(names, [".env.local", "Program Files", "a.txt"]);
    assert_eq!(
        fs::read_to_string(root.path().join("a.txt")).expect("a"),
        "a\n"
    );
}

#[test]
fn windows_links_leading_out_are_refused() {
    if skipped_off_windows("windows_links_leading_out_are_refused") {
        return;
    }
    // Wine shows a Unix symbolic link as the file or directory it leads to: the server sees
    // no link at all, only where the path ends up once canonicalized.
    let base = Scratch::new("win-links");
    base.file("ws/a.txt", "inside\n")
        .file("outside/secret.txt", "secret\n")
        .symlink(base.path().join("outside/secret.txt"), "ws/file-out.txt")
        .symlink(base.path().join("outside"), "ws/dir-out")
        .symlink("a.txt", "ws/file-in.txt")
        .symlink(".env", "ws/to-env.txt")
        .file("ws/.env", "SECRET=1\n");
    let ws = base.path().join("ws");
    let mut session = Session::start(
        &[
            "--root",
            ws.to_str().expect("utf-8"),
            "--toolsets",
            "workspace,edit",
        ],
        None,
        None,
    );
    for path in ["file-out.txt", "dir-out/secret.txt", "dir-out"] {
        assert_refused(
            &read(&mut session, path),
            "leads outside the workspace",
            path,
        );
    }
    assert_refused(
        &session.call("list_directory", json!({"path": "dir-out"})),
        "leads outside",
        "dir-out",
    );
    assert_refused(&read(&mut session, "to-env.txt"), "deny list", "to-env.txt");
    for path in ["dir-out/new.txt", "file-out.txt"] {
        let write = session.call("write_file", json!({"path": path, "content": "x"}));
        assert_eq!(write["isError"], true, "{path}: {write}");
    }
    let inside = read(&mut session, "file-in.txt");
    assert_eq!(inside["structuredContent"]["content"], "inside", "{inside}");
    let found = session.call("search_text", json!({"query": "secret"}));
    assert_eq!(found["structuredContent"]["matches"], json!([]), "{found}");
    assert_eq!(
        fs::read_to_string(base.path().join("outside/secret.txt")).expect("kept"),
        "secret\n"
    );
    assert!(!base.path().join("outside/new.txt").exists());
}

#[test]
fn windows_client_roots_are_file_uris_with_drive_letters() {
    if skipped_off_windows("windows_client_roots_are_file_uris_with_drive_letters") {
        return;
    }
    let root = Scratch::new("win-roots");
    root.file("notes.md", "# notes\n");
    // As VS Code sends a root: the drive letter lower-cased, its colon percent-encoded.
    let tail = common::native_path(root.path())[2..].replace('\\', "/");
    let roots = vec![json!({"uri": format!("file:///z%3A{tail}"), "name": "proj"})];
    let mut session = Session::start(&[], Some(Path::new("/")), Some(roots));
    let listed = session.call("list_directory", json!({}));
    assert_eq!(
        listed["structuredContent"]["entries"][0]["path"], "notes.md",
        "{listed}"
    );
    let resources = session.request("resources/list", json!({}));
    let uri = resources["result"]["resources"][0]["uri"]
        .as_str()
        .expect("uri")
        .to_string();
    assert!(
        uri.starts_with("file:///") && uri.ends_with("/notes.md") && uri.contains(':'),
        "{uri}"
    );
    let read = session.request("resources/read", json!({"uri": uri}));
    assert_eq!(read["result"]["contents"][0]["text"], "# notes\n", "{read}");
}

#[test]
fn windows_drive_roots_and_the_windows_directory_are_not_served_implicitly() {
    if skipped_off_windows(
        "windows_drive_roots_and_the_windows_directory_are_not_served_implicitly",
    ) {
        return;
    }
    let prefix = std::env::var("WINEPREFIX").expect("WINEPREFIX names the Wine prefix under test");
    let system32 = Path::new(&prefix).join("drive_c/windows/system32");
    for cwd in [Path::new("/"), system32.as_path()] {
        let mut session = Session::start(&[], Some(cwd), None);
        let result = session.call("list_directory", json!({}));
        assert_refused(
            &result,
            "no workspace root is configured",
            &cwd.display().to_string(),
        );
    }
}

#[test]
fn windows_writes_replace_create_and_move_atomically() {
    if skipped_off_windows("windows_writes_replace_create_and_move_atomically") {
        return;
    }
    let root = Scratch::new("win-writes");
    root.file("src/lib.rs", "pub fn a() {}\n");
    let mut session = Session::start(
        &["--root", root.str(), "--toolsets", "workspace,edit"],
        None,
        None,
    );
    let created = session.call(
        "write_file",
        json!({"path": "src\\new.rs", "content": "// new\n"}),
    );
    assert_eq!(created["structuredContent"]["created"], true, "{created}");
    let made = session.call("create_directory", json!({"path": "docs\\guide\\en"}));
    assert_eq!(made["isError"], json!(null), "{made}");
    assert!(root.path().join("docs/guide/en").is_dir());
    assert_eq!(read(&mut session, "src/lib.rs")["isError"], json!(null));
    let edited = session.call(
        "edit_file",
        json!({"path": "src\\lib.rs", "edits": [{"old_text": "a()", "new_text": "b()"}]}),
    );
    assert_eq!(edited["isError"], json!(null), "{edited}");
    let replaced = session.call(
        "write_file",
        json!({"path": "src/lib.rs", "content": "pub fn c() {}\n"}),
    );
    assert_eq!(replaced["structuredContent"]["changed"], true, "{replaced}");
    let moved = session.call(
        "move_file",
        json!({"source": "src\\new.rs", "destination": "docs\\guide\\en\\new.rs"}),
    );
    assert_eq!(moved["isError"], json!(null), "{moved}");
    assert_eq!(root.read("src/lib.rs"), "pub fn c() {}\n");
    assert_eq!(root.read("docs/guide/en/new.rs"), "// new\n");
    assert!(!root.path().join("src/new.rs").exists());
    // The read-only attribute is honoured (Windows has no permission bits to look at).
    root.file("locked.txt", "keep\n");
    let mut perms = fs::metadata(root.path().join("locked.txt"))
        .expect("stat")
        .permissions();
    perms.set_readonly(true);
    fs::set_permissions(root.path().join("locked.txt"), perms).expect("read-only");
    assert_eq!(read(&mut session, "locked.txt")["isError"], json!(null));
    let locked = session.call("write_file", json!({"path": "locked.txt", "content": "x"}));
    assert_refused(&locked, "read-only", "locked.txt");
    assert_eq!(root.read("locked.txt"), "keep\n");
    let leftovers: Vec<String> = fs::read_dir(root.path().join("src"))
        .expect("list")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".minimcp-write."))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}
