//! The edit toolset through the real binary over pipes: every tool, every refusal, the path
//! forms (relative, absolute, `file://`), several roots, conflicts with another process,
//! the 2026-07-28 rules, notifications, leftovers of killed writes, and that the toolset is
//! off unless named.

use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

mod common;

use common::scratch::Scratch;

const WAIT: Duration = Duration::from_secs(20);

struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    notifications: Vec<Value>,
    next_id: u64,
    /// The `initialize` result.
    init: Value,
}

impl Client {
    /// The server with the edit toolset on `roots`.
    fn start(roots: &[&Path]) -> Client {
        Client::with_args(roots, &["--toolsets", "workspace,edit"])
    }

    fn with_args(roots: &[&Path], args: &[&str]) -> Client {
        let mut command = Command::new(common::minimcp());
        for root in roots {
            command.arg("--root").arg(root);
        }
        let mut child = command
            .args(args)
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
        let mut client = Client {
            stdin: child.stdin.take(),
            child,
            lines,
            notifications: Vec::new(),
            next_id: 1,
            init: Value::Null,
        };
        let init = client.request("initialize", json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "it", "version": "1"}}));
        assert_eq!(init["result"]["protocolVersion"], "2025-11-25", "{init}");
        client.init = init["result"].clone();
        client.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        client
    }

    fn send(&mut self, message: &Value) {
        let stdin = self.stdin.as_mut().expect("open");
        stdin
            .write_all(format!("{message}\n").as_bytes())
            .expect("write");
        stdin.flush().expect("flush");
    }

    fn next(&mut self, until: Instant) -> Option<Value> {
        let line = self
            .lines
            .recv_timeout(until.saturating_duration_since(Instant::now()))
            .ok()?;
        Some(serde_json::from_str(&line).expect("JSON"))
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let until = Instant::now() + WAIT;
        loop {
            let message = self
                .next(until)
                .unwrap_or_else(|| panic!("no answer to {method}"));
            if message.get("id") == Some(&json!(id)) {
                return message;
            }
            self.notifications.push(message);
        }
    }

    /// A tool call's result.
    fn call(&mut self, tool: &str, arguments: Value) -> Value {
        let response = self.request("tools/call", json!({"name": tool, "arguments": arguments}));
        response["result"].clone()
    }

    /// A call that must succeed: its structured content.
    fn ok(&mut self, tool: &str, arguments: Value) -> Value {
        let result = self.call(tool, arguments.clone());
        assert_ne!(result["isError"], true, "{tool} {arguments}: {result}");
        result["structuredContent"].clone()
    }

    /// A call that must be refused: its message.
    fn refused(&mut self, tool: &str, arguments: Value) -> String {
        let result = self.call(tool, arguments.clone());
        assert_eq!(
            result["isError"], true,
            "{tool} {arguments} was not refused: {result}"
        );
        result["content"][0]["text"]
            .as_str()
            .expect("text")
            .to_string()
    }

    /// `read_file`'s `sha256` for `path`, which the text states as well (for clients that
    /// show the model only the text, and versions without structuredContent).
    fn sha(&mut self, path: &str) -> String {
        let result = self.call("read_file", json!({"path": path}));
        assert_ne!(result["isError"], true, "read_file {path}: {result}");
        let hash = result["structuredContent"]["sha256"]
            .as_str()
            .expect("sha256")
            .to_string();
        let text = result["content"][0]["text"].as_str().expect("text");
        assert!(text.contains(&format!("(sha256 {hash})")), "{text}");
        hash
    }

    fn wait_notification(&mut self, method: &str, timeout: Duration) -> Option<Value> {
        if let Some(i) = self
            .notifications
            .iter()
            .position(|n| n["method"] == method)
        {
            return Some(self.notifications.remove(i));
        }
        let until = Instant::now() + timeout;
        while let Some(message) = self.next(until) {
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
        let _ = self.child.wait();
    }
}

/// SHA-256 of `bytes` the way `sha256sum` spells it, through the crate's own public helper.
fn sha256(bytes: &[u8]) -> String {
    minimcp_base::encoding::sha256_hex(bytes)
}

/// No temporary file of a write is left anywhere below `dir`.
fn assert_no_temp_files(dir: &Path) {
    for entry in fs::read_dir(dir).expect("list") {
        let entry = entry.expect("entry");
        let name = entry.file_name().to_string_lossy().to_string();
        assert!(!name.starts_with(".minimcp-write."), "left behind: {name}");
        if entry.file_type().expect("type").is_dir() {
            assert_no_temp_files(&entry.path());
        }
    }
}

fn tool_names(client: &mut Client) -> Vec<String> {
    let list = client.request("tools/list", json!({}));
    list["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| t["name"].as_str().expect("name").to_string())
        .collect()
}

// ---- Off unless named ---------------------------------------------------------------------

#[test]
fn editing_is_off_unless_the_toolset_is_named_and_says_so_when_on() {
    let tree = Scratch::new("default-off");
    tree.file("a.txt", "a\n");
    let mut plain = Client::with_args(&[tree.path()], &[]);
    let names = tool_names(&mut plain);
    for tool in ["write_file", "edit_file", "create_directory", "move_file"] {
        assert!(
            !names.contains(&tool.to_string()),
            "{tool} served by default"
        );
    }
    let refused = plain.request(
        "tools/call",
        json!({"name": "write_file", "arguments": {"path": "b.txt", "content": "x"}}),
    );
    assert!(refused.get("error").is_some() || refused["result"]["isError"] == true);
    assert!(!tree.path().join("b.txt").exists());
    // A read-only server does not spend time hashing what it reads.
    let read = plain.call("read_file", json!({"path": "a.txt"}));
    assert!(read["structuredContent"].get("sha256").is_none(), "{read}");

    let mut on = Client::start(&[tree.path()]);
    let list = on.request("tools/list", json!({}));
    let tools = list["result"]["tools"].as_array().expect("tools");
    for name in ["write_file", "edit_file", "create_directory", "move_file"] {
        let tool = tools.iter().find(|t| t["name"] == name).expect(name);
        let description = tool["description"].as_str().expect("description");
        assert!(
            description.starts_with("MODIFIES FILES"),
            "{name}: {description}"
        );
        assert_eq!(tool["annotations"]["readOnlyHint"], false, "{name}");
        let destructive = name != "create_directory";
        assert_eq!(
            tool["annotations"]["destructiveHint"], destructive,
            "{name}"
        );
        assert_eq!(
            tool["annotations"]["idempotentHint"], !destructive,
            "{name}"
        );
    }
    let instructions = on.init["instructions"].as_str().expect("instructions");
    assert!(instructions.contains("can modify files"), "{instructions}");

    // `serve --help` names the toolset that writes and its limit; with the toolset asked for,
    // the help's first paragraph says this server modifies files, and names every tool that does.
    let help = Command::new(common::minimcp())
        .args(["serve", "--help"])
        .output()
        .expect("help");
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(help.contains("`edit` MODIFIES FILES"), "{help}");
    assert!(help.contains("--max-write-bytes"), "{help}");
    let help = Command::new(common::minimcp())
        .args(["--toolsets", "workspace,edit", "--help"])
        .output()
        .expect("help");
    let help = String::from_utf8_lossy(&help.stdout);
    let (summary, _) = help.split_once("USAGE").expect("a USAGE section");
    assert!(summary.contains("It MODIFIES FILES"), "{summary}");
    for tool in tools {
        let name = tool["name"].as_str().expect("name");
        if tool["annotations"]["readOnlyHint"] == false {
            assert!(summary.contains(name), "{name} missing from: {summary}");
        }
    }
}

// ---- write_file ---------------------------------------------------------------------------

#[test]
fn write_file_creates_and_replaces_only_what_was_read() {
    let tree = Scratch::new("write");
    tree.file("old.txt", "old content\n");
    let mut c = Client::start(&[tree.path()]);
    let made = c.ok(
        "write_file",
        json!({"path": "new.txt", "content": "hello\n"}),
    );
    assert_eq!(made["created"], true);
    assert_eq!(made["sha256"], sha256(b"hello\n"));
    assert_eq!(tree.read("new.txt"), "hello\n");

    // Never read in this session: replacing it whole is refused.
    let err = c.refused("write_file", json!({"path": "old.txt", "content": "x"}));
    assert!(err.contains("not read it in this session"), "{err}");
    assert_eq!(tree.read("old.txt"), "old content\n");

    // Read, then replace.
    let sha = c.sha("old.txt");
    assert_eq!(sha, sha256(b"old content\n"));
    let replaced = c.ok(
        "write_file",
        json!({"path": "old.txt", "content": "new content\n"}),
    );
    assert_eq!(replaced["created"], false);
    assert_eq!(tree.read("old.txt"), "new content\n");
    // What it wrote counts as seen: writing again needs no read.
    c.ok(
        "write_file",
        json!({"path": "old.txt", "content": "third\n"}),
    );

    // expected_sha256: a stale one is refused naming both hashes; the right one works.
    let err = c.refused(
        "write_file",
        json!({"path": "old.txt", "content": "x", "expected_sha256": sha}),
    );
    assert!(
        err.contains(&sha) && err.contains(&sha256(b"third\n")),
        "{err}"
    );
    c.ok(
        "write_file",
        json!({"path": "old.txt", "content": "fourth\n", "expected_sha256": sha256(b"third\n")}),
    );
    assert_eq!(tree.read("old.txt"), "fourth\n");
    let err = c.refused(
        "write_file",
        json!({"path": "nope.txt", "content": "x", "expected_sha256": sha}),
    );
    assert!(err.contains("does not exist"), "{err}");

    // Bytes that are not UTF-8 come as base64.
    c.ok(
        "write_file",
        json!({"path": "bin.dat", "content_base64": "AP/+"}),
    );
    assert_eq!(
        fs::read(tree.path().join("bin.dat")).expect("read"),
        [0, 255, 254]
    );
    let err = c.refused(
        "write_file",
        json!({"path": "b.dat", "content_base64": "*"}),
    );
    assert!(err.contains("not valid base64"), "{err}");
    let err = c.refused("write_file", json!({"path": "b.dat"}));
    assert!(err.contains("exactly one"), "{err}");
    assert_no_temp_files(tree.path());
}

#[cfg(unix)]
#[test]
fn write_file_keeps_permission_bits_and_refuses_what_is_not_one_regular_file() {
    use std::os::unix::fs::PermissionsExt;
    let tree = Scratch::new("kinds");
    tree.file("script.sh", "#!/bin/sh\n")
        .file("dir/x", "x")
        .file("one", "1");
    let script = tree.path().join("script.sh");
    fs::set_permissions(&script, fs::Permissions::from_mode(0o750)).expect("chmod");
    fs::hard_link(tree.path().join("one"), tree.path().join("two")).expect("hard link");
    let fifo = tree.path().join("fifo");
    let made = Command::new("mkfifo").arg(&fifo).status();
    let mut c = Client::start(&[tree.path()]);
    c.sha("script.sh");
    c.ok(
        "write_file",
        json!({"path": "script.sh", "content": "#!/bin/sh\necho hi\n"}),
    );
    let mode = fs::metadata(&script).expect("meta").permissions().mode() & 0o7777;
    assert_eq!(mode, 0o750);

    fs::set_permissions(&script, fs::Permissions::from_mode(0o444)).expect("chmod");
    let err = c.refused("write_file", json!({"path": "script.sh", "content": "x"}));
    assert!(err.contains("read-only"), "{err}");
    assert_eq!(tree.read("script.sh"), "#!/bin/sh\necho hi\n");
    let err = c.refused("write_file", json!({"path": "dir", "content": "x"}));
    assert!(err.contains("is a directory"), "{err}");
    let err = c.refused(
        "write_file",
        json!({"path": "one", "content": "x", "expected_sha256": sha256(b"1")}),
    );
    assert!(err.contains("hard links"), "{err}");
    assert_eq!(tree.read("two"), "1");
    if made.is_ok_and(|s| s.success()) {
        let err = c.refused("write_file", json!({"path": "fifo", "content": "x"}));
        assert!(err.contains("not a regular file"), "{err}");
    }
    let err = c.refused(
        "write_file",
        json!({"path": "missing/dir/f.txt", "content": "x"}),
    );
    assert!(err.contains("create that directory first"), "{err}");
    let err = c.refused(
        "write_file",
        json!({"path": ".minimcp-write.1.0123456789abcdef.tmp", "content": "x"}),
    );
    assert!(err.contains("reserved"), "{err}");
}

#[test]
fn a_rewritten_file_keeps_its_owner_and_loses_setuid_and_setgid() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let tree = Scratch::new("owner");
    tree.file("tool.sh", "#!/bin/sh\n");
    let path = tree.path().join("tool.sh");
    // Giving a file away needs root: elsewhere the owner half cannot be set up.
    let as_root = std::os::unix::fs::chown(&path, Some(1234), Some(4321)).is_ok();
    if !as_root {
        eprintln!("SKIPPED owner half: not root, cannot chown a file to another user");
    }
    fs::set_permissions(&path, fs::Permissions::from_mode(0o6755)).expect("chmod");
    let mut c = Client::start(&[tree.path()]);
    c.sha("tool.sh");
    c.ok(
        "write_file",
        json!({"path": "tool.sh", "content": "#!/bin/sh\necho model\n"}),
    );
    let meta = fs::metadata(&path).expect("meta");
    // Text a model wrote never runs with its owner's rights: the kernel drops these bits
    // on any write by a non-root process, and a rewrite drops them as well.
    assert_eq!(meta.permissions().mode() & 0o7777, 0o755);
    if as_root {
        assert_eq!((meta.uid(), meta.gid()), (1234, 4321), "owner kept");
    }
}

#[test]
fn max_write_bytes_bounds_what_is_written() {
    let tree = Scratch::new("limit");
    let mut c = Client::with_args(
        &[tree.path()],
        &["--toolsets", "workspace,edit", "--max-write-bytes", "10"],
    );
    c.ok(
        "write_file",
        json!({"path": "small", "content": "0123456789"}),
    );
    let err = c.refused(
        "write_file",
        json!({"path": "big", "content": "0123456789X"}),
    );
    assert!(err.contains("up to 10 bytes"), "{err}");
    assert!(!tree.path().join("big").exists());
}

// ---- The sandbox for writes ---------------------------------------------------------------

#[cfg(unix)]
#[test]
fn writes_never_leave_the_roots_nor_touch_denied_or_git_files() {
    let base = Scratch::new("escape");
    base.file("root/in.txt", "inside\n")
        .file("root/.env", "SECRET=1\n")
        .file("root/.git/config", "[core]\n")
        .file("outside/target.txt", "outside\n")
        .file("root-evil/x.txt", "sibling\n");
    let root = base.path().join("root");
    std::os::unix::fs::symlink(base.path().join("outside"), root.join("out-dir")).expect("ln");
    std::os::unix::fs::symlink(
        base.path().join("outside/target.txt"),
        root.join("out-file"),
    )
    .expect("ln");
    std::os::unix::fs::symlink("in.txt", root.join("in-link")).expect("ln");
    let mut c = Client::start(&[&root]);
    for (path, says) in [
        ("../outside/new.txt", "`..` is refused"),
        ("out-dir/new.txt", "leads outside"),
        ("out-file", "leads outside"),
        (".env", "deny list"),
        ("sub/.env.local", "deny list"),
        (".git/config", "`.git` is refused"),
        (".git/hooks/pre-commit", "`.git` is refused"),
        ("key.pem", "deny list"),
    ] {
        let err = c.refused(
            "write_file",
            json!({"path": path, "content": "pwned", "expected_sha256": sha256(b"x")}),
        );
        assert!(err.contains(says), "{path}: {err}");
    }
    let outside_abs = base.path().join("outside/target.txt");
    let sibling = base.path().join("root-evil/y.txt");
    for path in [
        outside_abs.display().to_string(),
        sibling.display().to_string(),
        format!("file://{}", sibling.display()),
    ] {
        let err = c.refused("write_file", json!({"path": path, "content": "pwned"}));
        assert!(err.contains("outside the workspace"), "{path}: {err}");
    }
    let err = c.refused("create_directory", json!({"path": "out-dir/made"}));
    assert!(err.contains("leads outside"), "{err}");
    let err = c.refused(
        "move_file",
        json!({"source": "in.txt", "destination": "out-dir/in.txt"}),
    );
    assert!(err.contains("leads outside"), "{err}");
    let err = c.refused(
        "move_file",
        json!({"source": ".env", "destination": "visible.txt"}),
    );
    assert!(err.contains("deny list"), "{err}");
    let err = c.refused(
        "move_file",
        json!({"source": "in.txt", "destination": ".env"}),
    );
    assert!(err.contains("deny list"), "{err}");
    assert_eq!(base.read("outside/target.txt"), "outside\n");
    assert!(!base.path().join("outside/new.txt").exists());
    assert!(!base.path().join("outside/made").exists());
    assert!(!sibling.exists());
    assert_eq!(base.read("root/.env"), "SECRET=1\n");
    assert_eq!(base.read("root/.git/config"), "[core]\n");

    // A link inside the root: the file it names is replaced, and the link stays a link.
    c.sha("in-link");
    c.ok(
        "write_file",
        json!({"path": "in-link", "content": "through the link\n"}),
    );
    assert_eq!(base.read("root/in.txt"), "through the link\n");
    assert!(fs::symlink_metadata(root.join("in-link"))
        .expect("meta")
        .file_type()
        .is_symlink());
}

// ---- edit_file ----------------------------------------------------------------------------

#[test]
fn a_home_directory_root_keeps_login_files_and_ssh_keys_from_the_model() {
    let home = Scratch::new("home");
    home.file(".ssh/authorized_keys", "ssh-ed25519 AAAA mine\n")
        .file(".bashrc", "alias ll='ls -l'\n")
        .file(".profile", "PATH=$HOME/bin:$PATH\n")
        .file(".config/fish/config.fish", "set -x EDITOR vi\n")
        .file("project/.zshrc", "# a dotfiles repository's copy\n")
        .file("notes.txt", "mine\n")
        .dir(".config/autostart");
    std::os::unix::fs::symlink(".bashrc", home.path().join("rc-link")).expect("ln");
    let before = |rel: &str| home.read(rel);
    let kept: Vec<(&str, String)> = [
        ".ssh/authorized_keys",
        ".bashrc",
        ".profile",
        ".config/fish/config.fish",
        "project/.zshrc",
    ]
    .into_iter()
    .map(|rel| (rel, before(rel)))
    .collect();
    let mut c = Client::start(&[home.path()]);
    let mut refusals = Vec::new();
    for path in [
        ".ssh/authorized_keys",
        ".ssh/authorized_keys2",
        ".ssh/config",
        ".SSH/authorized_keys",
        ".bashrc",
        ".BashRC",
        ".bash_profile",
        ".profile",
        ".zshrc",
        ".zshenv",
        "project/.zshrc",
        ".config/fish/config.fish",
        ".config/fish/conf.d/evil.fish",
        ".config/autostart/evil.desktop",
        ".config/systemd/user/evil.service",
        ".pam_environment",
        ".xsession",
        "rc-link",
    ] {
        // The model read what exists, so only the write deny list stands in the way.
        if home.path().join(path).is_file() {
            c.sha(path);
        }
        refusals.push((
            path,
            c.refused("write_file", json!({"path": path, "content": "pwned\n"})),
        ));
    }
    c.sha(".bashrc");
    refusals.push((
        ".bashrc (edit)",
        c.refused(
            "edit_file",
            json!({"path": ".bashrc", "edits": [{"old_text": "ll", "new_text": "pwned"}]}),
        ),
    ));
    refusals.push((
        "onto .profile",
        c.refused(
            "move_file",
            json!({"source": "notes.txt", "destination": ".profile", "overwrite": true}),
        ),
    ));
    refusals.push((
        ".bashrc away",
        c.refused(
            "move_file",
            json!({"source": ".bashrc", "destination": "bashrc.txt"}),
        ),
    ));
    refusals.push((
        ".ssh away",
        c.refused("move_file", json!({"source": ".ssh", "destination": "ssh"})),
    ));
    refusals.push((
        "mkdir .config/systemd",
        c.refused("create_directory", json!({"path": ".config/systemd/user"})),
    ));
    // A tree built under an innocent name cannot be moved to where its files would count,
    // and the user's `.config` cannot be moved away with what it holds.
    c.ok("create_directory", json!({"path": "cfg/autostart"}));
    c.ok(
        "write_file",
        json!({"path": "cfg/autostart/evil.desktop", "content": "[Desktop Entry]\n"}),
    );
    refusals.push((
        ".config away",
        c.refused(
            "move_file",
            json!({"source": ".config", "destination": "config-old"}),
        ),
    ));
    c.ok("create_directory", json!({"path": "dot"}));
    refusals.push((
        "cfg to dot/.config",
        c.refused(
            "move_file",
            json!({"source": "cfg", "destination": "dot/.config"}),
        ),
    ));
    c.ok(
        "move_file",
        json!({"source": "cfg", "destination": "dot/cfg"}),
    );
    for (what, err) in &refusals {
        assert!(
            err.contains("write deny list") && err.contains("--deny-write"),
            "{what}: {err}"
        );
    }
    for (rel, content) in &kept {
        assert_eq!(&home.read(rel), content, "{rel} changed");
    }
    for absent in [
        ".ssh/authorized_keys2",
        ".bash_profile",
        ".config/fish/conf.d",
        ".config/systemd",
        "bashrc.txt",
        "ssh",
        "dot/.config",
        "config-old",
    ] {
        assert!(!home.path().join(absent).exists(), "{absent} was made");
    }
    // Reading them is not writing them; ordinary files are written as ever.
    c.sha(".ssh/authorized_keys");
    c.ok(
        "write_file",
        json!({"path": "bashrc-notes.md", "content": "ok\n"}),
    );
    assert_no_temp_files(home.path());
    drop(c);

    // The person starting the server decides: `none` clears the list, patterns add to it.
    let mut c = Client::with_args(
        &[home.path()],
        &[
            "--toolsets",
            "workspace,edit",
            "--deny-write",
            "none",
            "--deny-write",
            "*.LOCK",
        ],
    );
    c.sha(".bashrc");
    c.ok(
        "write_file",
        json!({"path": ".bashrc", "content": "alias l=ls\n"}),
    );
    assert_eq!(home.read(".bashrc"), "alias l=ls\n");
    let err = c.refused("write_file", json!({"path": "Cargo.lock", "content": "x"}));
    assert!(err.contains("write deny list"), "{err}");
}

#[test]
fn edit_file_replaces_exactly_once_all_or_nothing_with_a_diff() {
    let tree = Scratch::new("edit");
    let original = "fn main() {\n    let x  = 1;\n    println!(\"{x}\");\n}\n// x = 1\n// x = 1\n";
    tree.file("main.rs", original);
    let mut c = Client::start(&[tree.path()]);

    // Dry run with the reference server's aliases: a diff, nothing written.
    let dry = c.ok(
        "edit_file",
        json!({"path": "main.rs", "edits": [{"oldText": "fn main()", "newText": "fn start()"}], "dryRun": true}),
    );
    assert_eq!(dry["dry_run"], true);
    assert!(
        dry["diff"]
            .as_str()
            .expect("diff")
            .contains("-fn main() {\n+fn start() {\n"),
        "{dry}"
    );
    assert_eq!(tree.read("main.rs"), original);

    // Several matches: refused with every line.
    let err = c.refused(
        "edit_file",
        json!({"path": "main.rs", "edits": [{"old_text": "// x = 1", "new_text": "y"}]}),
    );
    assert!(err.contains("occurs 2 times, at lines 5, 6"), "{err}");
    // No match: the closest text.
    let err = c.refused(
        "edit_file",
        json!({"path": "main.rs", "edits": [{"old_text": "println!(\"{y}\");", "new_text": "y"}]}),
    );
    assert!(err.contains("closest text is at line 3"), "{err}");
    // All or nothing: the first edit would apply, the second cannot.
    let err = c.refused(
        "edit_file",
        json!({"path": "main.rs", "edits": [
        {"old_text": "fn main()", "new_text": "fn start()"},
        {"old_text": "no such text", "new_text": "y"}]}),
    );
    assert!(err.contains("edit 2 of 2"), "{err}");
    assert_eq!(tree.read("main.rs"), original);

    // Whitespace-tolerant only when the exact match fails, and said so: here the lines came
    // without their indentation, which new_text gets back.
    let result = c.call("edit_file", json!({"path": "main.rs", "edits": [{"old_text": "let x  = 1;\nprintln!(\"{x}\");", "new_text": "let x = 2;\nprintln!(\"{x}\");"}]}));
    assert_ne!(result["isError"], true, "{result}");
    let text = result["content"][0]["text"].as_str().expect("text");
    assert!(
        text.contains("only with whitespace ignored: no indentation became 4 spaces"),
        "{text}"
    );
    assert!(
        text.contains("-    let x  = 1;\n+    let x = 2;\n"),
        "{text}"
    );
    assert_eq!(
        result["structuredContent"]["matches"][0]["whitespace_tolerant"],
        true
    );
    assert!(tree.read("main.rs").contains("    let x = 2;\n"));
    // A changed line whose spaces inside did not match: which spaces are meant is unclear.
    let err = c.refused("edit_file", json!({"path": "main.rs", "edits": [{"old_text": "let x  =  2;", "new_text": "    let x = 3;"}]}));
    assert!(
        err.contains("differs from `old_text` in more than indentation"),
        "{err}"
    );
    assert!(err.contains("```\n    let x = 2;\n```"), "{err}");

    // Several edits in one call, each seeing the ones before.
    let done = c.ok(
        "edit_file",
        json!({"path": "main.rs", "edits": [
        {"old_text": "fn main()", "new_text": "fn start()"},
        {"old_text": "fn start() {", "new_text": "fn start() -> () {"}]}),
    );
    assert_eq!(done["sha256"], sha256(tree.read("main.rs").as_bytes()));
    assert!(tree.read("main.rs").starts_with("fn start() -> () {\n"));
    let err = c.refused(
        "edit_file",
        json!({"path": "absent.rs", "edits": [{"old_text": "a", "new_text": "b"}]}),
    );
    assert!(err.contains("write_file creates"), "{err}");
    assert_no_temp_files(tree.path());
}

/// jsonschema's `_utils.py`, where a whitespace-tolerant match once moved a method out of
/// its class.
const URIDICT: &str = "class URIDict(MutableMapping):\n    \"\"\"\n    Dictionary which uses normalized URIs as keys.\n    \"\"\"\n\n    def normalize(self, uri):\n        return urlsplit(uri).geturl()\n\n    def __init__(self, *args, **kwargs):\n        self.store = dict()\n        self.store.update(*args, **kwargs)\n\n    def __getitem__(self, uri):\n        return self.store[self.normalize(uri)]\n\n    def __setitem__(self, uri, value):\n        self.store[self.normalize(uri)] = value\n";

#[test]
fn a_method_sent_without_its_class_indentation_stays_in_the_class() {
    let tree = Scratch::new("uridict");
    let mut c = Client::start(&[tree.path()]);
    let old = "def __getitem__(self, uri):\n    return self.store[self.normalize(uri)]";
    let new = "def __getitem__(self, uri):\n    return self.store[self.normalize(str(uri))]";
    let want = URIDICT.replace("self.normalize(uri)]\n", "self.normalize(str(uri))]\n");
    // As the model wrote it (spaces), and with tabs: the file's four spaces either way.
    for (old, new) in [
        (old.to_string(), new.to_string()),
        (old.replace("    ", "\t"), new.replace("    ", "\t")),
    ] {
        tree.file("u.py", URIDICT);
        let sha = sha256(URIDICT.as_bytes());
        let result = c.call(
            "edit_file",
            json!({"path": "u.py", "edits": [{"old_text": old, "new_text": new}], "expected_sha256": sha}),
        );
        assert_ne!(result["isError"], true, "{result}");
        assert_eq!(tree.read("u.py"), want, "{old:?}");
        // What the fallback changed is in the diff, not only in the note.
        let diff = result["structuredContent"]["diff"].as_str().expect("diff");
        assert!(
            diff.contains("-        return self.store[self.normalize(uri)]\n+        return self.store[self.normalize(str(uri))]\n"),
            "{diff}"
        );
        let text = result["content"][0]["text"].as_str().expect("text");
        assert!(
            text.contains("Note: edit 1: matched lines 13-14 only with whitespace ignored"),
            "{text}"
        );
    }
    // Indentation that no one change maps onto the file's: refused, with the lines to copy.
    tree.file("u.py", URIDICT);
    let sha = sha256(URIDICT.as_bytes());
    let err = c.refused(
        "edit_file",
        json!({"path": "u.py", "edits": [{"old_text": "def __getitem__(self, uri):\n  return self.store[self.normalize(uri)]\n\n    def __setitem__(self, uri, value):", "new_text": "x"}], "expected_sha256": sha}),
    );
    assert!(
        err.contains("does not map onto the file's by one consistent change"),
        "{err}"
    );
    assert!(err.contains("```\n    def __getitem__(self, uri):\n        return self.store[self.normalize(uri)]\n\n    def __setitem__(self, uri, value):\n```"), "{err}");
    assert_eq!(tree.read("u.py"), URIDICT);
}

#[test]
fn an_old_text_matching_everywhere_is_refused_with_its_count_not_the_budget_error() {
    let tree = Scratch::new("many");
    tree.file("big.txt", "x\n".repeat(200_000));
    let mut c = Client::start(&[tree.path()]);
    let sha = sha256("x\n".repeat(200_000).as_bytes());
    let err = c.refused(
        "edit_file",
        json!({"path": "big.txt", "edits": [{"old_text": "x", "new_text": "y"}], "expected_sha256": sha}),
    );
    assert!(
        err.contains("`old_text` occurs 200000 times, at lines 1, 2, 3, "),
        "{err}"
    );
    assert!(
        err.contains(", 40, … (200000 in all); it must occur exactly once. Add to `old_text` (and `new_text`) a neighbouring line"),
        "{err}"
    );
    // The server goes on answering.
    assert_eq!(c.request("ping", json!({}))["result"], json!({}));
}

#[test]
fn a_file_changed_by_another_process_after_the_read_is_refused() {
    let tree = Scratch::new("conflict");
    tree.file("notes.md", "draft one\n");
    let mut c = Client::start(&[tree.path()]);
    let seen = c.sha("notes.md");
    // Another program changes the file between the model's read and its edit.
    let status = Command::new("sh")
        .args(["-c", "printf 'edited by a person\\n' > notes.md"])
        .current_dir(tree.path())
        .status()
        .expect("sh");
    assert!(status.success());
    let now = sha256(b"edited by a person\n");
    for (tool, args) in [
        (
            "edit_file",
            json!({"path": "notes.md", "edits": [{"old_text": "person", "new_text": "model"}]}),
        ),
        (
            "write_file",
            json!({"path": "notes.md", "content": "the model's version\n"}),
        ),
        (
            "edit_file",
            json!({"path": "notes.md", "edits": [{"old_text": "person", "new_text": "model"}], "expected_sha256": seen}),
        ),
    ] {
        let err = c.refused(tool, args);
        assert!(err.contains(&seen) && err.contains(&now), "{tool}: {err}");
    }
    assert_eq!(tree.read("notes.md"), "edited by a person\n");
    // Read again: now it may be edited.
    c.sha("notes.md");
    c.ok(
        "edit_file",
        json!({"path": "notes.md", "edits": [{"old_text": "person", "new_text": "model"}]}),
    );
    assert_eq!(tree.read("notes.md"), "edited by a model\n");
}

// ---- create_directory and move_file -------------------------------------------------------

#[test]
fn create_directory_makes_parents_and_is_idempotent() {
    let tree = Scratch::new("mkdir");
    tree.file("file", "x");
    let mut c = Client::start(&[tree.path()]);
    let made = c.ok("create_directory", json!({"path": "a/b/c"}));
    assert_eq!(made["created"], json!(["a", "a/b", "a/b/c"]));
    assert!(tree.path().join("a/b/c").is_dir());
    let again = c.ok("create_directory", json!({"path": "a/b/c"}));
    assert_eq!(again["created"], json!([]));
    let err = c.refused("create_directory", json!({"path": "file/sub"}));
    assert!(err.contains("not a directory"), "{err}");
    let err = c.refused("create_directory", json!({"path": ".git/x"}));
    assert!(err.contains(".git"), "{err}");

    // Depth is bounded: a path of thousands of components once kept the server busy for
    // minutes (one checked open and fsync per directory). 64 levels, as deep as the sweep.
    let deep = |n: usize| vec!["d"; n].join("/");
    let made = c.ok("create_directory", json!({"path": deep(64)}));
    assert_eq!(made["created"].as_array().map(Vec::len), Some(64));
    let err = c.refused("create_directory", json!({"path": deep(65)}));
    assert!(err.contains("more than 64 directories"), "{err}");
    assert!(!tree.path().join(deep(65)).exists());
    let err = c.refused(
        "write_file",
        json!({"path": format!("{}/f", deep(64)), "content": "x"}),
    );
    assert!(err.contains("more than 64 directories"), "{err}");
    // An absolute path passes the read side's own length bound (one shared rule).
    let base = format!("{}/", tree.path().display());
    let long = format!("{base}{}", "x/".repeat((4100 - base.len()) / 2));
    let err = c.refused("write_file", json!({"path": long, "content": "x"}));
    assert!(err.contains("bytes long"), "{err}");
}

#[test]
fn move_file_renames_refuses_to_overwrite_unless_asked_and_never_crosses_roots() {
    let one = Scratch::new("move-one");
    let two = Scratch::new("move-two");
    one.file("a.txt", "A\n")
        .file("b.txt", "B\n")
        .file("dir/inner.txt", "I\n");
    two.file("other.txt", "O\n");
    let mut c = Client::start(&[one.path(), two.path()]);
    let l1 = one
        .path()
        .file_name()
        .expect("name")
        .to_string_lossy()
        .to_string();
    let l2 = two
        .path()
        .file_name()
        .expect("name")
        .to_string_lossy()
        .to_string();

    c.ok(
        "move_file",
        json!({"source": format!("{l1}/a.txt"), "destination": format!("{l1}/c.txt")}),
    );
    assert!(!one.path().join("a.txt").exists());
    assert_eq!(one.read("c.txt"), "A\n");

    let err = c.refused(
        "move_file",
        json!({"source": format!("{l1}/c.txt"), "destination": format!("{l1}/b.txt")}),
    );
    assert!(
        err.contains("already exists") && err.contains("overwrite"),
        "{err}"
    );
    assert_eq!(one.read("b.txt"), "B\n");
    // Overwriting needs the destination read (or its hash).
    let err = c.refused("move_file", json!({"source": format!("{l1}/c.txt"), "destination": format!("{l1}/b.txt"), "overwrite": true}));
    assert!(err.contains("not read it"), "{err}");
    c.sha(&format!("{l1}/b.txt"));
    let moved = c.ok("move_file", json!({"source": format!("{l1}/c.txt"), "destination": format!("{l1}/b.txt"), "overwrite": true}));
    assert_eq!(moved["replaced"], true);
    assert_eq!(one.read("b.txt"), "A\n");

    // A directory, by absolute path and by file:// URI.
    let from = one.path().join("dir");
    let to = format!("file://{}/moved", one.path().display());
    c.ok(
        "move_file",
        json!({"source": from.display().to_string(), "destination": to}),
    );
    assert_eq!(one.read("moved/inner.txt"), "I\n");

    let err = c.refused(
        "move_file",
        json!({"source": format!("{l1}/b.txt"), "destination": format!("{l2}/b.txt")}),
    );
    assert!(err.contains("different workspace roots"), "{err}");
    assert!(one.path().join("b.txt").exists() && !two.path().join("b.txt").exists());
    let err = c.refused(
        "move_file",
        json!({"source": format!("{l1}/nothing"), "destination": format!("{l1}/x")}),
    );
    assert!(err.contains("does not exist"), "{err}");
    assert_no_temp_files(one.path());
}

#[test]
fn a_move_keeps_what_relative_links_mean_and_never_carries_denied_files() {
    let tree = Scratch::new("carry");
    tree.file("a/target.txt", "t\n")
        .file("a/b/x.txt", "x\n")
        .file("d/s/t.txt", "t\n")
        .file("d/plain.txt", "p\n")
        .file("secret/.env", "TOKEN=1\n")
        .dir("e");
    std::os::unix::fs::symlink("target.txt", tree.path().join("a/link")).expect("link");
    std::os::unix::fs::symlink("../a/target.txt", tree.path().join("d/up")).expect("link");
    std::os::unix::fs::symlink("s/t.txt", tree.path().join("d/within")).expect("link");
    let mut c = Client::start(&[tree.path()]);
    // Renamed in its directory, a relative link still leads to the same file.
    c.ok(
        "move_file",
        json!({"source": "a/link", "destination": "a/renamed"}),
    );
    assert_eq!(tree.read("a/renamed"), "t\n");
    // Moved deeper it would lead to a/b/target.txt, which is another file (or none).
    let err = c.refused(
        "move_file",
        json!({"source": "a/renamed", "destination": "a/b/link"}),
    );
    assert!(
        err.contains("is a symbolic link to `target.txt`, which is read from where the link is"),
        "{err}"
    );
    assert!(tree.path().join("a/renamed").exists() && !tree.path().join("a/b/link").exists());
    // A directory whose link leads out of it, moved to another depth: refused; its link
    // within it moves along.
    let err = c.refused("move_file", json!({"source": "d", "destination": "e/d"}));
    assert!(err.contains("holds the symbolic link `d/up`"), "{err}");
    fs::remove_file(tree.path().join("d/up")).expect("unlink");
    c.ok("move_file", json!({"source": "d", "destination": "e/d"}));
    assert_eq!(tree.read("e/d/within"), "t\n");
    // A directory holding a file of the deny list stays where it is.
    let err = c.refused(
        "move_file",
        json!({"source": "secret", "destination": "public"}),
    );
    assert!(
        err.contains("holds `secret/.env`, which this server does not touch"),
        "{err}"
    );
    assert!(tree.path().join("secret/.env").exists() && !tree.path().join("public").exists());
}

#[test]
fn every_path_form_reaches_the_same_file_and_several_roots_need_a_label() {
    let one = Scratch::new("forms-one");
    let two = Scratch::new("forms-two");
    one.file("sub/f.txt", "1\n");
    two.file("sub/g.txt", "2\n");
    let mut single = Client::start(&[one.path()]);
    single.ok("write_file", json!({"path": "rel.txt", "content": "r"}));
    single.ok(
        "write_file",
        json!({"path": one.path().join("abs.txt").display().to_string(), "content": "a"}),
    );
    single.ok(
        "write_file",
        json!({"path": format!("file://{}/uri%20name.txt", one.path().display()), "content": "u"}),
    );
    assert_eq!(one.read("rel.txt"), "r");
    assert_eq!(one.read("abs.txt"), "a");
    assert_eq!(one.read("uri name.txt"), "u");
    drop(single);

    let mut both = Client::start(&[one.path(), two.path()]);
    let l2 = two
        .path()
        .file_name()
        .expect("name")
        .to_string_lossy()
        .to_string();
    both.ok(
        "write_file",
        json!({"path": format!("{l2}/sub/new.txt"), "content": "n"}),
    );
    assert_eq!(two.read("sub/new.txt"), "n");
    // Without a label: the one root whose directory exists, else a clear refusal.
    let err = both.refused("write_file", json!({"path": "sub/h.txt", "content": "h"}));
    assert!(err.contains("several workspace roots"), "{err}");
}

// ---- The stateless era, notifications, leftovers ------------------------------------------

#[test]
fn in_2026_07_28_replacing_a_file_needs_expected_sha256() {
    let tree = Scratch::new("stateless");
    tree.file("s.txt", "one\n");
    let mut c = Client::start(&[tree.path()]);
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}});
    let call = |c: &mut Client, name: &str, arguments: Value| {
        c.request(
            "tools/call",
            json!({"name": name, "arguments": arguments, "_meta": meta}),
        )["result"]
            .clone()
    };
    let read = call(&mut c, "read_file", json!({"path": "s.txt"}));
    let sha = read["structuredContent"]["sha256"]
        .as_str()
        .unwrap_or_else(|| panic!("{read}"))
        .to_string();
    let refused = call(
        &mut c,
        "write_file",
        json!({"path": "s.txt", "content": "two\n"}),
    );
    assert_eq!(refused["isError"], true, "{refused}");
    assert!(refused["content"][0]["text"]
        .as_str()
        .expect("text")
        .contains("2026-07-28"));
    let done = call(
        &mut c,
        "write_file",
        json!({"path": "s.txt", "content": "two\n", "expected_sha256": sha}),
    );
    assert_ne!(done["isError"], true, "{done}");
    assert_eq!(tree.read("s.txt"), "two\n");
    let edited = call(
        &mut c,
        "edit_file",
        json!({"path": "s.txt", "edits": [{"old_text": "two", "new_text": "three"}]}),
    );
    assert_ne!(edited["isError"], true, "{edited}");
    let created = call(
        &mut c,
        "write_file",
        json!({"path": "fresh.txt", "content": "f"}),
    );
    assert_ne!(created["isError"], true, "{created}");
    assert_eq!(tree.read("s.txt"), "three\n");
}

#[test]
fn a_subscribed_file_changed_by_a_tool_is_announced() {
    let tree = Scratch::new("notify");
    tree.file("watched.txt", "before\n");
    let mut c = Client::start(&[tree.path()]);
    let uri = format!("file://{}/watched.txt", tree.path().display());
    let subscribed = c.request("resources/subscribe", json!({"uri": uri}));
    assert!(subscribed.get("result").is_some(), "{subscribed}");
    c.sha("watched.txt");
    c.ok(
        "write_file",
        json!({"path": "watched.txt", "content": "after, longer\n"}),
    );
    let updated = c
        .wait_notification("notifications/resources/updated", Duration::from_secs(10))
        .expect("notifications/resources/updated");
    assert_eq!(updated["params"]["uri"], uri);
    c.ok(
        "write_file",
        json!({"path": "appeared.txt", "content": "new"}),
    );
    assert!(
        c.wait_notification(
            "notifications/resources/list_changed",
            Duration::from_secs(10)
        )
        .is_some(),
        "a new file is announced as a list change"
    );
}

#[test]
fn leftovers_of_killed_writes_are_swept_at_start_only_with_editing_on() {
    let tree = Scratch::new("sweep");
    // Pid 4294967295 is above every kernel's pid_max: its writer is surely gone.
    let dead = ".minimcp-write.4294967295.0123456789abcdef.tmp";
    tree.file(dead, "half a write")
        .file(&format!("deep/er/{dead}"), "x")
        .file("keep.tmp", "mine");
    drop(Client::with_args(&[tree.path()], &[]));
    assert!(
        tree.path().join(dead).exists(),
        "read-only servers delete nothing"
    );
    drop(Client::start(&[tree.path()]));
    assert!(!tree.path().join(dead).exists());
    assert!(!tree.path().join("deep/er").join(dead).exists());
    assert_eq!(tree.read("keep.tmp"), "mine");
}

// ---- Sessions over HTTP: what one session read does not vouch for another ---------------

/// Over HTTP many sessions share one process: a file session A read and session B then
/// changed is refused to A until it reads again, and B's knowledge never lets A through.
#[cfg(feature = "http")]
#[test]
fn over_http_each_session_answers_for_what_it_read_itself() {
    use std::net::TcpStream;
    let tree = Scratch::new("http-sessions");
    tree.file("shared.txt", "v1\n");
    let root = tree.path().display().to_string();
    let (mut child, port, mut stderr) = common::spawn_http(&[
        "--profile",
        "workspace",
        "--toolsets",
        "workspace,edit",
        "--root",
        &root,
    ])
    .expect("the server listens");
    std::thread::spawn(move || {
        let _ = std::io::copy(&mut stderr, &mut std::io::sink());
    });
    let post = |session: Option<&str>, body: Value| {
        let body = body.to_string();
        let mut head = format!(
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n",
            body.len()
        );
        if let Some(session) = session {
            head.push_str(&format!(
                "Mcp-Session-Id: {session}\r\nMCP-Protocol-Version: 2025-11-25\r\n"
            ));
        }
        let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .expect("timeout");
        stream
            .write_all(format!("{head}\r\n{body}").as_bytes())
            .expect("write");
        common::response::read_response(&mut BufReader::new(stream))
    };
    let session = || {
        let init = post(
            None,
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "edit-http", "version": "1"}}}),
        );
        let id = init.header("mcp-session-id").expect("session").to_string();
        post(
            Some(&id),
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        );
        id
    };
    let call = |session: &str, name: &str, arguments: Value| -> Value {
        let response = post(
            Some(session),
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name, "arguments": arguments}}),
        );
        let message = match response.header("content-type") {
            Some(t) if t.starts_with("text/event-stream") => {
                response.events().pop().expect("an event")
            }
            _ => response.json(),
        };
        message["result"].clone()
    };
    let (a, b) = (session(), session());
    let read = call(&a, "read_file", json!({"path": "shared.txt"}));
    assert!(read["structuredContent"]["sha256"].is_string(), "{read}");
    // B never read it: B may not replace it whole, whatever A read.
    let refused = call(
        &b,
        "write_file",
        json!({"path": "shared.txt", "content": "b\n"}),
    );
    assert_eq!(refused["isError"], true, "{refused}");
    // B reads and changes it; A's read is now stale.
    call(&b, "read_file", json!({"path": "shared.txt"}));
    let written = call(
        &b,
        "write_file",
        json!({"path": "shared.txt", "content": "v2 by b\n"}),
    );
    assert_ne!(written["isError"], true, "{written}");
    let stale = call(
        &a,
        "write_file",
        json!({"path": "shared.txt", "content": "v2 by a\n"}),
    );
    assert_eq!(stale["isError"], true, "{stale}");
    assert!(stale["content"][0]["text"]
        .as_str()
        .expect("text")
        .contains("changed after you last read it"));
    assert_eq!(tree.read("shared.txt"), "v2 by b\n");
    let _ = child.kill();
    let _ = child.wait();
}
