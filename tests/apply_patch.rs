//! `apply_patch` through the real binary over pipes: a multi-file patch (changes, creations in
//! new directories, deletions, renames, modes) applied whole; dry runs that write nothing;
//! all or nothing when one hunk of one file does not apply, with the refusal naming the file
//! and hunk and showing the file's current lines within the result budget, and when one file
//! cannot be written; the conflict check against what the session read; the deny
//! list, `.git`, links, paths out of the root, read-only and hard-linked files, sizes and
//! binary patches refused; and an interrupted patch's journal reported at the next start.
//! `tests/apply_patch_oracle.rs` compares the results with `git apply`.

mod common;

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use serde_json::{json, Value};

use common::scratch::Scratch;
use common::{Out, Peer};

const WAIT: Duration = Duration::from_secs(30);

struct Client {
    peer: Peer,
    next: u64,
}

impl Client {
    fn start(root: &Path, extra: &[&str]) -> Client {
        let mut args: Vec<String> = vec![
            "--root".into(),
            root.to_str().expect("utf-8").into(),
            "--toolsets".into(),
            "workspace,edit".into(),
        ];
        args.extend(extra.iter().map(|s| s.to_string()));
        let peer = Peer::spawn(common::minimcp(), &args).expect("spawn minimcp");
        let mut client = Client { peer, next: 1 };
        let init = client.request("initialize", json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}));
        assert!(init["result"].is_object(), "{init}");
        client
            .peer
            .send_line(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        client
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next;
        self.next += 1;
        self.peer.send_line(
            &json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string(),
        );
        loop {
            match self.peer.recv(WAIT) {
                Ok(Out::Line(line)) => {
                    let message: Value = serde_json::from_slice(&line).expect("JSON");
                    if message["id"] == id {
                        return message;
                    }
                }
                other => panic!(
                    "no answer to {method}: {other:?}\n{}",
                    self.peer.stderr_text()
                ),
            }
        }
    }

    fn call(&mut self, tool: &str, arguments: Value) -> Value {
        self.request("tools/call", json!({"name": tool, "arguments": arguments}))["result"].clone()
    }

    fn patch(&mut self, patch: &str) -> Value {
        self.call("apply_patch", json!({"patch": patch}))
    }

    /// A patch that must apply: its structured result.
    fn applied(&mut self, patch: &str) -> Value {
        let result = self.patch(patch);
        assert_ne!(result["isError"], true, "{result}");
        result["structuredContent"].clone()
    }

    /// A patch that must be refused: its message.
    fn refused(&mut self, patch: &str) -> String {
        let result = self.patch(patch);
        assert_eq!(result["isError"], true, "not refused: {result}");
        text(&result)
    }
}

fn text(result: &Value) -> String {
    result["content"]
        .as_array()
        .expect("content")
        .iter()
        .filter_map(|c| c["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every file below `dir` and its bytes (no directories), for "nothing changed" checks.
fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in fs::read_dir(&d).expect("list").flatten() {
            let path = entry.path();
            let kind = entry.file_type().expect("type");
            if kind.is_dir() {
                stack.push(path);
            } else {
                let bytes = if kind.is_symlink() {
                    Vec::new()
                } else {
                    fs::read(&path).expect("read")
                };
                out.push((
                    path.strip_prefix(dir).expect("below").display().to_string(),
                    bytes,
                ));
            }
        }
    }
    out.sort();
    out
}

fn sha256(bytes: &[u8]) -> String {
    common::sha256::hex(bytes)
}

const MULTI: &str = "\
diff --git a/src/lib.rs b/src/lib.rs
index 1111111..2222222 100644
--- a/src/lib.rs
+++ b/src/lib.rs
@@ -1,4 +1,4 @@
 fn a() {}
-fn b() {}
+fn b() { println!(\"b\"); }
 fn c() {}
 fn d() {}
@@ -8,3 +8,4 @@ fn g() {}
 fn h() {}
 fn i() {}
 fn j() {}
+fn k() {}
diff --git a/docs/new/guide.md b/docs/new/guide.md
new file mode 100644
index 0000000..3333333
--- /dev/null
+++ b/docs/new/guide.md
@@ -0,0 +1,2 @@
+# Guide
+No newline here
\\ No newline at end of file
diff --git a/old.txt b/old.txt
deleted file mode 100644
index 4444444..0000000
--- a/old.txt
+++ /dev/null
@@ -1,2 +0,0 @@
-goodbye
-world
diff --git a/from dir/name.txt b/to/name.txt
similarity index 80%
rename from from dir/name.txt
rename to to/name.txt
index 5555555..6666666
--- a/from dir/name.txt
+++ b/to/name.txt
@@ -1,3 +1,3 @@
 one
-two
+TWO
 three
diff --git a/run.sh b/run.sh
old mode 100644
new mode 100755
";

fn multi_tree(tree: &Scratch) {
    tree.file("src/lib.rs", "fn a() {}\nfn b() {}\nfn c() {}\nfn d() {}\nfn e() {}\nfn f() {}\nfn g() {}\nfn h() {}\nfn i() {}\nfn j() {}\n");
    tree.file("old.txt", "goodbye\nworld\n");
    tree.file("from dir/name.txt", "one\ntwo\nthree\n");
    tree.file("run.sh", "echo hi\n");
}

#[test]
fn a_patch_of_many_files_applies_whole_with_creations_deletions_renames_and_modes() {
    let tree = Scratch::new("patch-multi");
    multi_tree(&tree);
    let mut c = Client::start(tree.path(), &[]);
    let names = c.request("tools/list", json!({}));
    let tool = names["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .find(|t| t["name"] == "apply_patch")
        .expect("apply_patch is listed")
        .clone();
    assert!(
        tool["description"]
            .as_str()
            .expect("description")
            .starts_with("MODIFIES FILES"),
        "{tool}"
    );
    assert_eq!(tool["annotations"]["destructiveHint"], true);

    let done = c.applied(MULTI);
    assert_eq!(tree.read("src/lib.rs"), "fn a() {}\nfn b() { println!(\"b\"); }\nfn c() {}\nfn d() {}\nfn e() {}\nfn f() {}\nfn g() {}\nfn h() {}\nfn i() {}\nfn j() {}\nfn k() {}\n");
    assert_eq!(tree.read("docs/new/guide.md"), "# Guide\nNo newline here");
    assert!(!tree.join("old.txt").exists());
    assert_eq!(tree.read("to/name.txt"), "one\nTWO\nthree\n");
    assert!(
        !tree.join("from dir").exists(),
        "the directory a rename emptied is removed, as git removes it"
    );
    let mode = fs::metadata(tree.join("run.sh"))
        .expect("run.sh")
        .permissions()
        .mode();
    assert_eq!(mode & 0o111, 0o111, "run.sh is executable: {mode:o}");
    let files = done["files"].as_array().expect("files");
    let status: Vec<(&str, &str)> = files
        .iter()
        .map(|f| (f["path"].as_str().unwrap(), f["status"].as_str().unwrap()))
        .collect();
    assert_eq!(
        status,
        [
            ("src/lib.rs", "modified"),
            ("docs/new/guide.md", "created"),
            ("old.txt", "deleted"),
            ("to/name.txt", "renamed"),
            ("run.sh", "modified")
        ]
    );
    assert_eq!(files[3]["from"], "from dir/name.txt");
    assert_eq!(
        files[0]["sha256"],
        sha256(&fs::read(tree.join("src/lib.rs")).expect("read"))
    );
    assert_eq!(done["dry_run"], false);
    assert_no_leftovers(tree.path());

    // What the session wrote counts as read: the next patch of the same file applies.
    c.applied("--- a/to/name.txt\n+++ b/to/name.txt\n@@ -1,3 +1,3 @@\n-one\n+ONE\n TWO\n three\n");
    assert_eq!(tree.read("to/name.txt"), "ONE\nTWO\nthree\n");
}

fn assert_no_leftovers(dir: &Path) {
    for (name, _) in snapshot(dir) {
        let base = name.rsplit('/').next().unwrap_or(&name).to_string();
        assert!(
            !base.starts_with(".minimcp-write.") && !base.starts_with(".minimcp-patch."),
            "left behind: {name}"
        );
    }
}

#[test]
fn a_dry_run_shows_the_diff_and_writes_nothing() {
    let tree = Scratch::new("patch-dry");
    multi_tree(&tree);
    let before = snapshot(tree.path());
    let mut c = Client::start(tree.path(), &[]);
    let result = c.call("apply_patch", json!({"patch": MULTI, "dry_run": true}));
    assert_ne!(result["isError"], true, "{result}");
    assert_eq!(snapshot(tree.path()), before, "a dry run wrote something");
    let diff = result["structuredContent"]["diff"].as_str().expect("diff");
    assert!(
        diff.contains("--- a/from dir/name.txt\n+++ b/to/name.txt\n"),
        "{diff}"
    );
    assert!(
        diff.contains("--- /dev/null\n+++ b/docs/new/guide.md\n"),
        "{diff}"
    );
    assert!(diff.contains("+++ /dev/null\n"), "{diff}");
    assert!(
        text(&result).starts_with("Dry run: the patch applies"),
        "{result}"
    );
}

#[test]
fn one_hunk_that_does_not_apply_refuses_the_whole_patch_and_shows_the_current_lines() {
    let tree = Scratch::new("patch-none");
    multi_tree(&tree);
    // The renamed file's hunk expects `TWO`, the file has `two`.
    let broken = MULTI.replace("-two\n+TWO\n", "-Two\n+TWO\n");
    let before = snapshot(tree.path());
    let mut c = Client::start(tree.path(), &[]);
    let message = c.refused(&broken);
    assert_eq!(
        snapshot(tree.path()),
        before,
        "a refused patch changed the tree"
    );
    assert!(
        message.starts_with(
            "`from dir/name.txt`: hunk 1 of 1 (`@@ -1,3 +1,3 @@`, patch line 40) does not apply"
        ),
        "{message}"
    );
    assert!(
        message.contains("where the hunk's line 2 `Two` differs from line 2: `two`"),
        "{message}"
    );
    assert!(message.contains("     2\ttwo\n"), "{message}");
    assert!(message.contains("Nothing was written."), "{message}");

    // A hunk in a large file with the result budget small: the refusal stays within it.
    let big: String = (0..5000)
        .map(|i| format!("line {i} {}\n", "x".repeat(200)))
        .collect();
    tree.file("big.txt", &big);
    let mut small = Client::start(tree.path(), &["--max-result-bytes", "4000"]);
    let mut hunk = String::from("--- a/big.txt\n+++ b/big.txt\n@@ -2000,60 +2000,60 @@\n");
    for i in 1999..2059 {
        hunk.push_str(&format!(" line {i} {}\n", "y".repeat(200)));
    }
    hunk.push_str("-gone\n+here\n");
    hunk = hunk.replace("@@ -2000,60 +2000,60 @@", "@@ -2000,61 +2000,61 @@");
    let result = small.patch(&hunk);
    assert_eq!(result["isError"], true, "{result}");
    let size = serde_json::to_string(&result["content"])
        .expect("json")
        .len();
    assert!(size <= 4000, "{size} bytes: {result}");
    assert!(
        text(&result).contains("The file's lines 1997-"),
        "refused for the budget, not for the hunk: {result}"
    );
}

#[test]
fn a_patch_of_hundreds_of_files_answers_within_the_result_budget() {
    let tree = Scratch::new("patch-many");
    let mut patch = String::new();
    for i in 0..400 {
        patch.push_str(&format!("diff --git a/many/file{i}.txt b/many/file{i}.txt\nnew file mode 100644\n--- /dev/null\n+++ b/many/file{i}.txt\n@@ -0,0 +1 @@\n+content {i}\n"));
    }
    let mut c = Client::start(tree.path(), &["--max-result-bytes", "8000"]);
    for dry_run in [true, false] {
        let result = c.call("apply_patch", json!({"patch": patch, "dry_run": dry_run}));
        assert_ne!(result["isError"], true, "{result}");
        // The budget counts the larger of the text and the structured content.
        let size = |v: &Value| serde_json::to_string(v).expect("json").len();
        let largest = size(&result["content"]).max(size(&result["structuredContent"]));
        assert!(largest <= 8000, "{largest} bytes with dry_run {dry_run}");
        assert!(text(&result).contains("more file section(s)"), "{result}");
        let listed = result["structuredContent"]["files"]
            .as_array()
            .expect("files")
            .len();
        assert_eq!(
            result["structuredContent"]["files_not_listed"],
            400 - listed,
            "{result}"
        );
    }
    assert_eq!(tree.read("many/file399.txt"), "content 399\n");
}

#[test]
fn hunks_apply_at_an_offset_and_say_so() {
    let tree = Scratch::new("patch-offset");
    tree.file("f.txt", "new 1\nnew 2\na\nb\nc\nd\n");
    let mut c = Client::start(tree.path(), &[]);
    let result = c.patch("--- a/f.txt\n+++ b/f.txt\n@@ -2,3 +2,3 @@\n b\n-c\n+C\n d\n");
    assert_ne!(result["isError"], true, "{result}");
    assert_eq!(tree.read("f.txt"), "new 1\nnew 2\na\nb\nC\nd\n");
    assert!(
        text(&result).contains("hunk 1 at line 4, 2 lines below its header's"),
        "{result}"
    );
}

#[test]
fn lines_past_a_hunks_counts_are_ignored_as_git_ignores_them_and_said_so() {
    let tree = Scratch::new("patch-stray");
    tree.file("f.txt", "a\nb\n");
    let mut c = Client::start(tree.path(), &[]);
    // The header counts 2 and 2: `+C` and ` c` are past the hunk; git applies the rest.
    let result = c.patch("--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n+C\n c\n");
    assert_ne!(result["isError"], true, "{result}");
    assert_eq!(tree.read("f.txt"), "a\nB\n");
    let note = result["structuredContent"]["notes"][0]
        .as_str()
        .expect("a note");
    assert!(
        note.starts_with("patch line 7 (`+C`) comes after the last hunk of `f.txt`"),
        "{note}"
    );
    assert!(text(&result).contains(note), "{result}");
}

#[test]
fn a_file_that_cannot_be_written_leaves_every_file_as_it_was() {
    let tree = Scratch::new("patch-undo");
    tree.file("a.txt", "a\n");
    tree.file("z/b.txt", "b\n");
    let locked = tree.join("z");
    // An immutable directory refuses a new file even to root; a read-only one to others.
    let immutable = Command::new("chattr")
        .arg("+i")
        .arg(&locked)
        .status()
        .is_ok_and(|s| s.success());
    if !immutable {
        fs::set_permissions(&locked, fs::Permissions::from_mode(0o555)).expect("chmod");
        if fs::write(locked.join("probe"), "x").is_ok() {
            let _ = fs::remove_file(locked.join("probe"));
            fs::set_permissions(&locked, fs::Permissions::from_mode(0o755)).expect("chmod");
            eprintln!(
                "SKIPPED: neither chattr +i nor a read-only directory stops this user from writing"
            );
            return;
        }
    }
    let before = snapshot(tree.path());
    let mut c = Client::start(tree.path(), &[]);
    let result = c.patch("--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+A\n--- a/z/b.txt\n+++ b/z/b.txt\n@@ -1 +1 @@\n-b\n+B\n");
    if immutable {
        let _ = Command::new("chattr").arg("-i").arg(&locked).status();
    } else {
        fs::set_permissions(&locked, fs::Permissions::from_mode(0o755)).expect("chmod");
    }
    assert_eq!(result["isError"], true, "{result}");
    let message = text(&result);
    assert!(
        message.contains("`z/b.txt` could not be written"),
        "{message}"
    );
    assert!(message.ends_with("Nothing was written."), "{message}");
    assert_eq!(snapshot(tree.path()), before, "a file was written");
    assert_no_leftovers(tree.path());
}

#[test]
fn a_file_changed_since_the_session_read_it_is_refused() {
    let tree = Scratch::new("patch-conflict");
    tree.file("f.txt", "one\ntwo\n");
    let mut c = Client::start(tree.path(), &[]);
    let read = c.call("read_file", json!({"path": "f.txt"}));
    assert_ne!(read["isError"], true, "{read}");
    fs::write(tree.join("f.txt"), "one\ntwo\nthree\n").expect("another program writes");
    let message = c.refused("--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+TWO\n");
    assert!(
        message.contains("was changed after you last read it"),
        "{message}"
    );
    assert_eq!(tree.read("f.txt"), "one\ntwo\nthree\n");
}

#[test]
fn what_the_edit_tools_refuse_a_patch_cannot_do() {
    let outside = Scratch::new("patch-outside");
    outside.file("secret.txt", "outside\n");
    let tree = Scratch::new("patch-refuse");
    tree.file("ok.txt", "ok\n");
    tree.file(".env", "KEY=1\n");
    tree.file("real/f.txt", "f\n");
    tree.symlink("real", "linkdir");
    tree.symlink(outside.join("secret.txt"), "out.txt");
    tree.symlink("real/f.txt", "link.txt");
    tree.file("ro.txt", "ro\n");
    fs::set_permissions(tree.join("ro.txt"), fs::Permissions::from_mode(0o444)).expect("chmod");
    tree.file("hard.txt", "h\n");
    fs::hard_link(tree.join("hard.txt"), tree.join("hard2.txt")).expect("link");
    let before = snapshot(tree.path());
    let outside_before = snapshot(outside.path());
    let mut c = Client::start(tree.path(), &["--max-write-bytes", "64"]);
    let change = |path: &str, old: &str, new: &str| {
        format!("--- a/{path}\n+++ b/{path}\n@@ -1 +1 @@\n-{old}\n+{new}\n")
    };
    let create = |path: &str| {
        format!("diff --git a/{path} b/{path}\nnew file mode 100644\n--- /dev/null\n+++ b/{path}\n@@ -0,0 +1 @@\n+x\n")
    };
    let cases: Vec<(String, &str)> = vec![
        (change(".env", "KEY=1", "KEY=2"), "deny list"),
        (create("keys/id_rsa"), "deny list"),
        (create(".bashrc"), "write deny list"),
        (create("home/.ssh/authorized_keys"), "write deny list"),
        (create(".git/config"), "invalid path"),
        (create("../escape.txt"), "invalid path"),
        (format!("{}{}", change("ok.txt", "ok", "OK"), create("../../escape.txt")), "invalid path"),
        (change("linkdir/f.txt", "f", "F"), "beyond a symbolic link"),
        (change("out.txt", "outside", "x"), "is a symbolic link"),
        (change("link.txt", "f", "F"), "is a symbolic link"),
        (change("ro.txt", "ro", "RO"), "read-only"),
        (change("hard.txt", "h", "H"), "hard links"),
        (create(".minimcp-patch.1.0123456789abcdef.json"), "reserved"),
        (format!("--- a/ok.txt\n+++ b/ok.txt\n@@ -1 +1 @@\n-ok\n+{}\n", "x".repeat(100)), "--max-write-bytes"),
        ("diff --git a/b.png b/b.png\nindex 1111111..2222222 100644\nBinary files a/b.png and b/b.png differ\n".to_string(), "binary patch"),
        ("diff --git a/l b/l\nnew file mode 120000\n--- /dev/null\n+++ b/l\n@@ -0,0 +1 @@\n+/etc/passwd\n\\ No newline at end of file\n".to_string(), "symbolic link"),
        ("--- a/ok.txt\n+++ b/ok.txt\n@@ -1 +1 @@\n-ok\n+\0\n".to_string(), "NUL"),
        ("not a patch at all\n".to_string(), "no file section"),
        ("--- a/ok.txt\n+++ b/ok.txt\n@@ -1,2 +1 @@\n-ok\n".to_string(), "corrupt"),
        (create("ok.txt"), "already exists"),
        (change("missing.txt", "a", "b"), "does not exist"),
    ];
    for (patch, why) in &cases {
        let message = c.refused(patch);
        assert!(
            message.contains(why),
            "{patch:?}: expected {why:?} in: {message}"
        );
        assert!(
            message.contains("Nothing was written") || message.contains("nothing was written"),
            "{message}"
        );
    }
    assert_eq!(
        snapshot(tree.path()),
        before,
        "a refused patch changed the tree"
    );
    assert_eq!(
        snapshot(outside.path()),
        outside_before,
        "a refused patch changed a file outside the root"
    );
}

#[test]
fn an_interrupted_patch_is_reported_at_the_next_start_and_then_forgotten() {
    let tree = Scratch::new("patch-journal");
    tree.file("a.txt", "new\n");
    tree.file("b.txt", "old\n");
    let journal = ".minimcp-patch.4294967295.0123456789abcdef.json";
    let record = json!({"minimcp_patch_journal": 1, "pid": 4294967295u32, "files": [
        {"path": "a.txt", "before": sha256(b"old\n"), "after": sha256(b"new\n")},
        {"path": "b.txt", "before": sha256(b"old\n"), "after": sha256(b"new\n")},
    ]});
    tree.file(journal, record.to_string());
    let mut c = Client::start(tree.path(), &["--log-level", "warn"]);
    // A read tool does not count as telling: the note waits for an edit tool's answer.
    let read = c.call("read_file", json!({"path": "a.txt"}));
    assert!(!text(&read).contains("interrupted"), "{read}");
    let listed = c.call(
        "apply_patch",
        json!({"patch": "--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-old\n+new\n", "dry_run": true}),
    );
    let told = text(&listed);
    assert!(told.starts_with("Note: apply_patch in an earlier server process (pid 4294967295) was interrupted between two files: `a.txt` new (the patch's content), `b.txt` old (not yet written)"), "{told}");
    assert_eq!(
        listed["structuredContent"]["interrupted_patch"].as_str(),
        Some(told.lines().next().unwrap_or("")),
        "{listed}"
    );
    assert!(
        !tree.join(journal).exists(),
        "the journal is removed once a client was told"
    );
    let again = c.call(
        "apply_patch",
        json!({"patch": "--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-old\n+new\n", "dry_run": true}),
    );
    assert!(!text(&again).contains("interrupted"), "told twice: {again}");
    drop(c);
    // The log says it at the start, with the same states.
    tree.file(journal, record.to_string());
    let mut peer = Peer::spawn(
        common::minimcp(),
        &[
            "--root".to_string(),
            tree.str().to_string(),
            "--toolsets".into(),
            "workspace,edit".into(),
        ],
    )
    .expect("spawn");
    peer.close();
    let _ = peer.wait_exit(WAIT);
    let log = peer.stderr_text();
    assert!(log.contains("was interrupted between two files: `a.txt` new (the patch's content), `b.txt` old (not yet written)"), "{log}");
    assert!(
        tree.join(journal).exists(),
        "no client was told: the journal stays"
    );
}
