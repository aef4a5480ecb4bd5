//! The sandbox extended to writes: every way out of the roots that the read side refuses, tried
//! with each of the four edit tools (`write_file`, `edit_file`, `create_directory`,
//! `move_file`), plus links swapped in while the server works, the deny list, and targets that
//! are not plain files.
//!
//! The oracle does not trust the server's answers: before and after, it records the whole tree
//! outside the root — every name, kind, mode, link count, inode, size, modification time, the
//! SHA-256 of every file's bytes (the test's own SHA-256) and every symlink's target — and
//! requires the two records to be identical. A refusal that still wrote, created, moved or
//! touched anything outside fails, and so does a write that succeeded where it must not.
//!
//! The layout, under one temporary `base/`:
//! - `ws/`: the root; `ws-evil/`: a sibling whose name starts with the root's;
//! - `outside/`: victims with the same contents as files inside (so an edit or a
//!   hash-checked write that followed a link would succeed), and a link back into `ws/`;
//! - in `ws/`: links to `outside/` (relative and absolute, to a directory, to a file, dangling),
//!   links that stay inside, a hard link to an outside file, a FIFO, a device node (when the
//!   test runs as root), a directory.
//!
//! The race tests run a thread that keeps swapping a directory in the root for a symlink to an
//! outside directory of the same shape while the server writes, edits, creates and moves
//! through it; `MINIMCP_ESCAPE_RACE_OPS=N` sets the requests per race (default 400 per race
//! in `cargo test`, `.ci/run` 4000, against the release binary).

mod common;

use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use common::rng::Rng;
use common::sha256;
use common::{Out, Peer};

const WAIT: Duration = Duration::from_secs(30);
/// What the victims inside and outside hold, so that a write that followed a link would pass
/// an `expected_sha256` and an edit's `old_text` would match.
const VICTIM: &str = "victim line one\nvictim MARK-A\nvictim line three\n";

// ---- A client -------------------------------------------------------------------------------

struct Server {
    peer: Peer,
    next_id: u64,
}

impl Server {
    fn start(root: &Path, extra: &[&str]) -> Server {
        let mut args: Vec<String> = vec![
            "--root".into(),
            root.to_str().expect("UTF-8").into(),
            "--toolsets".into(),
            "workspace,edit".into(),
        ];
        args.extend(extra.iter().map(|s| s.to_string()));
        let peer = Peer::spawn(common::minimcp(), &args).expect("minimcp starts");
        let mut server = Server { peer, next_id: 1 };
        let init = server.request(
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "edit-escape", "version": "1"}}),
        );
        assert!(init.get("result").is_some(), "{init}");
        server
            .peer
            .send_line(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        let tools = server.request("tools/list", json!({}));
        let names: Vec<&str> = tools["result"]["tools"]
            .as_array()
            .expect("tools")
            .iter()
            .filter_map(|t| t["name"].as_str())
            .collect();
        for tool in ["write_file", "edit_file", "create_directory", "move_file"] {
            assert!(names.contains(&tool), "{tool} is not served: {names:?}");
        }
        server
    }

    fn send(&mut self, method: &str, params: Value) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        self.peer.send_line(
            &json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string(),
        );
        id
    }

    fn wait(&mut self, id: u64) -> Value {
        let deadline = Instant::now() + WAIT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.peer.recv(left) {
                Ok(Out::Line(line)) => {
                    let message: Value = serde_json::from_slice(&line).expect("JSON");
                    if message.get("id") == Some(&json!(id)) {
                        return message;
                    }
                }
                other => panic!(
                    "no answer to request {id} ({other:?}); the server's stderr:\n{}",
                    self.peer.stderr_text()
                ),
            }
        }
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.send(method, params);
        self.wait(id)
    }

    /// A tool call's result; a JSON-RPC error becomes a refusal with its message.
    fn call(&mut self, tool: &str, arguments: Value) -> Value {
        let response = self.request("tools/call", json!({"name": tool, "arguments": arguments}));
        match response.get("result") {
            Some(result) => result.clone(),
            None => {
                json!({"isError": true, "content": [{"type": "text", "text": response["error"]["message"]}], "jsonrpc_error": true})
            }
        }
    }
}

fn refused(result: &Value) -> bool {
    result["isError"] == true
}

fn text(result: &Value) -> String {
    result["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

// ---- Trees and their records ----------------------------------------------------------------

static COUNTER: AtomicUsize = AtomicUsize::new(0);

struct Base(PathBuf);

impl Base {
    fn new(label: &str) -> Base {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let path =
            std::env::temp_dir().join(format!("minimcp-escape-{}-{n}-{label}", std::process::id()));
        let _ = fs::remove_dir_all(&path);
        fs::create_dir_all(&path).expect("create base");
        Base(path)
    }

    fn p(&self, rel: &str) -> PathBuf {
        self.0.join(rel)
    }

    fn file(&self, rel: &str, contents: &str) -> &Self {
        let path = self.p(rel);
        fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        fs::write(path, contents).expect("write");
        self
    }

    fn link(&self, target: impl AsRef<Path>, rel: &str) -> &Self {
        std::os::unix::fs::symlink(target, self.p(rel)).expect("symlink");
        self
    }

    fn abs(&self, rel: &str) -> String {
        self.p(rel).display().to_string()
    }

    fn uri(&self, rel: &str) -> String {
        format!("file://{}", self.abs(rel))
    }
}

impl Drop for Base {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = fs::remove_dir_all(&self.0);
        }
    }
}

/// One line per entry under `dir` (links not followed), sorted: everything a write, create,
/// move, delete, chmod or link would change. `skip` names entries (relative) left out, with
/// everything under them.
fn record(dir: &Path, skip: &[&str]) -> Vec<String> {
    fn walk(root: &Path, dir: &Path, skip: &[&str], out: &mut Vec<String>) {
        let mut entries: Vec<_> = fs::read_dir(dir)
            .expect("read_dir")
            .map(|e| e.expect("entry").path())
            .collect();
        entries.sort();
        for path in entries {
            let rel = path
                .strip_prefix(root)
                .expect("under")
                .display()
                .to_string();
            if skip.contains(&rel.as_str()) {
                continue;
            }
            let meta = fs::symlink_metadata(&path).expect("lstat");
            let kind = meta.file_type();
            let what = if kind.is_symlink() {
                format!(
                    "link -> {}",
                    fs::read_link(&path).expect("readlink").display()
                )
            } else if kind.is_file() {
                format!(
                    "file sha256 {}",
                    sha256::hex(&fs::read(&path).expect("read"))
                )
            } else if kind.is_dir() {
                "dir".to_string()
            } else {
                "special".to_string()
            };
            out.push(format!(
                "{rel}: {what} mode {:o} nlink {} ino {} size {} mtime {}.{:09}",
                meta.mode(),
                meta.nlink(),
                meta.ino(),
                if kind.is_dir() { 0 } else { meta.size() },
                meta.mtime(),
                meta.mtime_nsec()
            ));
            if kind.is_dir() {
                walk(root, &path, skip, out);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, skip, &mut out);
    out
}

/// A record without directories' modification times.
fn without_dir_times(record: &[String]) -> Vec<String> {
    record
        .iter()
        .map(|line| match line.split_once(": dir ") {
            Some(_) => line.split(" mtime ").next().unwrap_or(line).to_string(),
            None => line.clone(),
        })
        .collect()
}

/// The first difference between two records, for a readable failure.
fn diff(before: &[String], after: &[String]) -> String {
    let gone: Vec<&String> = before.iter().filter(|l| !after.contains(l)).collect();
    let new: Vec<&String> = after.iter().filter(|l| !before.contains(l)).collect();
    format!("before only: {gone:#?}\nafter only: {new:#?}")
}

// ---- The world ------------------------------------------------------------------------------

/// `base/` with the root `ws/` and everything around it (see the module comment).
fn world(label: &str) -> Base {
    let base = Base::new(label);
    base.file("ws/inside.txt", VICTIM)
        .file("ws/sub/inside2.txt", VICTIM)
        .file("ws/adir/keep.txt", "keep\n")
        .file("ws-evil/victim.txt", VICTIM)
        .file("outside/victim.txt", VICTIM)
        .file("outside/hardvictim.txt", VICTIM)
        .file("outside/deeper/victim.txt", VICTIM);
    let outside = base.p("outside");
    base.link(&outside, "ws/out_dir")
        .link("../outside", "ws/out_dir_rel")
        .link("../outside/victim.txt", "ws/out_file")
        .link(outside.join("victim.txt"), "ws/out_file_abs")
        .link("../outside/new-by-link.txt", "ws/dangling_out")
        .link("sub/../../outside", "ws/out_via_sub")
        .link("inside.txt", "ws/in_file")
        .link("sub", "ws/in_dir")
        .link("../ws", "outside/into_ws")
        .link("/dev/null", "ws/devnull");
    fs::hard_link(base.p("outside/hardvictim.txt"), base.p("ws/hard_out")).expect("hard link");
    base
}

/// Every spelling of "outside the root" the read side refuses, for one victim file name.
fn escape_paths(base: &Base) -> Vec<String> {
    let mut paths: Vec<String> = [
        "../outside/victim.txt",
        "sub/../../outside/victim.txt",
        "./../outside/victim.txt",
        "../ws-evil/victim.txt",
        "out_dir/victim.txt",
        "out_dir/deeper/victim.txt",
        "out_dir/new-file.txt",
        "out_dir/new-dir/new-file.txt",
        "out_dir_rel/victim.txt",
        "out_via_sub/victim.txt",
        "out_file",
        "out_file_abs",
        "dangling_out",
        "hard_out",
        "devnull",
        "~/minimcp-escape-probe",
        "..\\outside\\victim.txt",
        "sub\\..\\..\\outside\\victim.txt",
        "ws-evil/../../outside/victim.txt",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    paths.extend([
        base.abs("outside/victim.txt"),
        base.abs("outside/new-file.txt"),
        base.abs("ws-evil/victim.txt"),
        base.abs("ws-evil/new-file.txt"),
        format!("{}/../outside/victim.txt", base.abs("ws")),
        format!("{}/./../outside/victim.txt", base.abs("ws")),
        base.abs("ws/out_dir/victim.txt"),
        base.abs("outside/into_ws/inside.txt"),
        base.abs("outside/into_ws"),
        base.uri("outside/victim.txt"),
        base.uri("ws-evil/victim.txt"),
        base.uri("ws/out_dir/victim.txt"),
        format!("{}/%2e%2e/outside/victim.txt", base.uri("ws")),
        format!("{}/..%2foutside%2fvictim.txt", base.uri("ws")),
        format!(
            "file://{}",
            base.abs("outside/victim.txt").replace('/', "%2F")
        ),
        base.abs("ws") + "-evil/victim.txt",
        format!("{}/outside/victim.txt", base.0.display()).replacen('/', "//", 1),
    ]);
    paths
}

/// Every tool, every argument position, with `path` as the way out; `label` starts the
/// paths of files inside (`ws/` with several roots).
fn attempts(path: &str, label: &str) -> Vec<(&'static str, Value)> {
    let inside = format!("{label}inside.txt");
    let sub = format!("{label}sub");
    let sha = sha256::hex(VICTIM.as_bytes());
    let edit = json!([{"old_text": "MARK-A", "new_text": "PWNED"}]);
    vec![
        ("write_file", json!({"path": path, "content": "PWNED\n"})),
        (
            "write_file",
            json!({"path": path, "content": "PWNED\n", "expected_sha256": sha}),
        ),
        ("edit_file", json!({"path": path, "edits": edit})),
        (
            "edit_file",
            json!({"path": path, "edits": edit, "expected_sha256": sha}),
        ),
        (
            "edit_file",
            json!({"path": path, "edits": [{"oldText": "MARK-A", "newText": "PWNED"}], "expected_sha256": sha}),
        ),
        ("create_directory", json!({"path": path})),
        (
            "create_directory",
            json!({"path": format!("{path}/pwned-dir/deeper")}),
        ),
        ("move_file", json!({"source": inside, "destination": path})),
        (
            "move_file",
            json!({"source": inside, "destination": path, "overwrite": true}),
        ),
        ("move_file", json!({"source": sub, "destination": path})),
        (
            "move_file",
            json!({"source": sub, "destination": format!("{path}/sub"), "overwrite": true}),
        ),
        // Last: a link moved away leaves nothing for the attempts after it.
        (
            "move_file",
            json!({"source": path, "destination": format!("{sub}/inside2.txt"), "overwrite": true}),
        ),
        (
            "move_file",
            json!({"source": path, "destination": format!("{label}stolen.txt")}),
        ),
    ]
}

// ---- SHA-256: the oracle's own hash is right ------------------------------------------------

#[test]
fn the_tests_sha256_matches_the_standard_and_sha256sum() {
    assert_eq!(
        sha256::hex(b""),
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    );
    assert_eq!(
        sha256::hex(b"abc"),
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
    assert_eq!(
        sha256::hex(b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
    );
    let base = Base::new("sha");
    let mut rng = Rng(7);
    for len in [0usize, 1, 55, 56, 63, 64, 65, 119, 120, 1000, 100_000] {
        let data: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        let path = base.p(&format!("blob-{len}"));
        fs::write(&path, &data).expect("write");
        let Ok(out) = Command::new("sha256sum").arg(&path).output() else {
            eprintln!("SKIPPED: sha256sum is not installed; the FIPS vectors above still ran");
            return;
        };
        let theirs = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            theirs.split(' ').next(),
            Some(sha256::hex(&data).as_str()),
            "{len} bytes"
        );
    }
}

// ---- Every escape, every tool ---------------------------------------------------------------

/// Every spelling, every tool; with `second`, the server has a second root beside `ws/`
/// (paths then resolve by root label or by the one root holding their directory).
fn escapes(second: bool) {
    let spellings = escape_paths(&world("count")).len();
    let roots: &[&str] = if second { &["ws", "second"] } else { &["ws"] };
    let mut tried = 0;
    let mut link_moves = 0;
    let mut failures = Vec::new();
    // A fresh world and server for each spelling: what one attempt did cannot hide another.
    for i in 0..spellings {
        let base = world(&format!("paths-{i}"));
        base.file("second/other.txt", VICTIM);
        let mut path = escape_paths(&base)[i].clone();
        // With several roots a relative path names its root first.
        let label = if second { "ws/" } else { "" };
        if !path.starts_with(['/', '~']) && !path.starts_with("file:") {
            path = format!("{label}{path}");
        }
        let extra = base.abs("second");
        let extra: &[&str] = if second { &["--root", &extra] } else { &[] };
        let mut server = Server::start(&base.p("ws"), extra);
        let inside = record(&base.p("ws"), &[]);
        // The read side's verdict on this spelling: the write side must be at least as strict.
        let read_refused = refused(&server.call("read_file", json!({"path": path})));
        let local = base.p("ws").join(path.strip_prefix(label).unwrap_or(&path));
        let is_link = fs::symlink_metadata(&local)
            .map(|m| m.file_type().is_symlink())
            .unwrap_or(false);
        let mut all_refused = true;
        for (tool, arguments) in attempts(&path, label) {
            let before = record(&base.0, roots);
            let link_before = fs::read_link(&local).ok();
            let result = server.call(tool, arguments.clone());
            tried += 1;
            let after = record(&base.0, roots);
            if before != after {
                failures.push(format!(
                    "{tool} {arguments} changed the tree outside the root (answer: {}):\n{}",
                    text(&result),
                    diff(&before, &after)
                ));
                break;
            }
            if refused(&result) {
                continue;
            }
            all_refused = false;
            // Moving a link inside the root moves the link, not what it leads to (which the
            // record above shows untouched): allowed when the link arrives intact.
            let moved_link = tool == "move_file"
                && is_link
                && arguments["source"] == json!(path)
                && arguments["destination"].as_str().and_then(|d| {
                    fs::read_link(base.p("ws").join(d.strip_prefix(label).unwrap_or(d))).ok()
                }) == link_before;
            if moved_link {
                link_moves += 1;
            } else if read_refused {
                failures.push(format!(
                    "{tool} {arguments} succeeded although read_file refuses {path:?}: {}",
                    text(&result)
                ));
            }
        }
        // Refused everywhere: then the root itself is untouched too.
        if all_refused {
            let now = record(&base.p("ws"), &[]);
            if now != inside {
                failures.push(format!(
                    "every attempt with {path:?} was refused, yet the root changed:\n{}",
                    diff(&inside, &now)
                ));
            }
        }
        if failures.len() > 5 {
            break;
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    eprintln!(
        "edit_escape: {} root(s): {tried} attempts over {spellings} path spellings, none reached \
         outside ({link_moves} moved a link itself, intact)",
        roots.len()
    );
}

#[test]
fn no_escape_the_read_side_refuses_changes_anything_outside_with_any_edit_tool() {
    escapes(false);
}

#[test]
fn with_two_roots_no_escape_changes_anything_outside_either() {
    escapes(true);
}

// ---- Links swapped in while the server works ------------------------------------------------

/// Keeps swapping `ws/<name>` between the real directory and a symlink to `outside/<name>`
/// (a directory of the same shape) until `stop`; counts the swaps. `lock` is held during each
/// pair of renames, so the test can find the real directory between them.
fn racer(
    base: &Path,
    name: &str,
    stop: Arc<AtomicBool>,
    lock: Arc<Mutex<()>>,
    seed: u64,
) -> std::thread::JoinHandle<usize> {
    let dir = base.join("ws").join(name);
    let parked = base.join("ws").join(format!(".{name}.real"));
    let link = base.join("ws").join(format!(".{name}.link"));
    std::os::unix::fs::symlink(base.join("outside").join(name), &link).expect("symlink");
    std::thread::spawn(move || {
        let mut rng = Rng(seed);
        let mut swaps = 0;
        while !stop.load(Ordering::Relaxed) {
            {
                // The directory out, the link in: the path now leads outside.
                let _held = lock.lock().expect("lock");
                fs::rename(&dir, &parked).expect("park the directory");
                // The server may make the directory anew in between (create_directory makes
                // missing parents): that one is inside the root, and goes.
                put(&link, &dir);
                swaps += 1;
            }
            spin(&mut rng);
            {
                let _held = lock.lock().expect("lock");
                fs::rename(&dir, &link).expect("link out");
                put(&parked, &dir);
            }
            spin(&mut rng);
        }
        swaps
    })
}

/// Renames `from` to `to`, first removing a directory the server made at `to` meanwhile
/// (retried: the server may be filling it while it goes).
fn put(from: &Path, to: &Path) {
    for _ in 0..1000 {
        if fs::rename(from, to).is_ok() {
            return;
        }
        let made = fs::symlink_metadata(to).expect("something is at the place");
        assert!(made.is_dir(), "not a directory at {}", to.display());
        let _ = fs::remove_dir_all(to);
    }
    panic!("could not put {} back at {}", from.display(), to.display());
}

/// A short random pause: sometimes none, sometimes up to 200 µs.
fn spin(rng: &mut Rng) {
    match rng.below(4) {
        0 => {}
        1 => std::thread::yield_now(),
        _ => std::thread::sleep(Duration::from_micros(rng.below(200) as u64)),
    }
}

fn race_ops() -> usize {
    std::env::var("MINIMCP_ESCAPE_RACE_OPS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(400)
}

/// The race: `dir` (a path inside the root, whose first component is swapped) holds
/// `victim.txt` inside and out; the model writes, edits, creates and moves through it.
fn race(label: &str, swapped: &str, dir: &str, seed: u64) {
    let base = world(label);
    // The same shape inside and out, same bytes, so every operation is plausible on both.
    for side in ["ws", "outside"] {
        base.file(&format!("{side}/{dir}/victim.txt"), VICTIM);
        base.file(&format!("{side}/{dir}/other.txt"), VICTIM);
    }
    let big: String = (0..4000).map(|i| format!("line {i:06} {VICTIM}")).collect();
    let mut server = Server::start(&base.p("ws"), &[]);
    let before = record(&base.0, &["ws"]);
    let stop = Arc::new(AtomicBool::new(false));
    let lock = Arc::new(Mutex::new(()));
    let handle = racer(&base.0, swapped, Arc::clone(&stop), Arc::clone(&lock), seed);
    let mut rng = Rng(seed);
    let (mut ok, mut no) = (0usize, 0usize);
    let sha = sha256::hex(VICTIM.as_bytes());
    let ops = race_ops();
    let started = Instant::now();
    for i in 0..ops {
        let victim = format!("{dir}/victim.txt");
        let (tool, arguments) = match rng.below(9) {
            0 => (
                "write_file",
                json!({"path": victim, "content": VICTIM, "expected_sha256": sha}),
            ),
            1 => (
                "write_file",
                json!({"path": format!("{dir}/new-{}.txt", i % 8), "content": big}),
            ),
            2 => (
                "edit_file",
                json!({"path": victim, "edits": [{"old_text": "MARK-A", "new_text": "MARK-A"}], "expected_sha256": sha}),
            ),
            3 => (
                "edit_file",
                json!({"path": format!("{dir}/other.txt"), "edits": [{"old_text": "line one", "new_text": "line one"}], "expected_sha256": sha}),
            ),
            4 => (
                "create_directory",
                json!({"path": format!("{dir}/made-{i}/deeper")}),
            ),
            5 => (
                "move_file",
                json!({"source": victim, "destination": format!("moved-{i}.txt")}),
            ),
            6 => (
                "move_file",
                json!({"source": "inside.txt", "destination": format!("{dir}/arrived-{i}.txt")}),
            ),
            7 => (
                "move_file",
                json!({"source": format!("{dir}/other.txt"), "destination": format!("{dir}/other-{i}.txt")}),
            ),
            _ => (
                "write_file",
                json!({"path": format!("{dir}/victim.txt"), "content": big, "expected_sha256": sha}),
            ),
        };
        let result = server.call(tool, arguments);
        if refused(&result) {
            no += 1;
        } else {
            ok += 1;
        }
        // Put back what a successful operation took away, so the next one has a target; with
        // the racer between swaps, so this never writes through its link.
        {
            let _held = lock.lock().expect("lock");
            let parked = base.p(&format!("ws/.{swapped}.real"));
            let real = if fs::symlink_metadata(&parked).is_ok() {
                parked
            } else {
                base.p(&format!("ws/{swapped}"))
            };
            assert!(!fs::symlink_metadata(&real)
                .expect("real")
                .file_type()
                .is_symlink());
            let below = dir
                .strip_prefix(swapped)
                .unwrap_or("")
                .trim_start_matches('/');
            for name in ["victim.txt", "other.txt"] {
                fs::write(real.join(below).join(name), VICTIM).expect("restore");
            }
        }
        fs::write(base.p("ws/inside.txt"), VICTIM).expect("restore inside.txt");
        if i % 50 == 49 {
            let now = record(&base.0, &["ws"]);
            if now != before {
                stop.store(true, Ordering::Relaxed);
                let _ = handle.join();
                panic!(
                    "after {} requests through `{dir}` while `{swapped}` was being swapped, the tree outside changed:\n{}",
                    i + 1,
                    diff(&before, &now)
                );
            }
        }
    }
    stop.store(true, Ordering::Relaxed);
    let swaps = handle.join().expect("racer");
    let after = record(&base.0, &["ws"]);
    assert!(
        before == after,
        "the tree outside changed while `{swapped}` was being swapped:\n{}",
        diff(&before, &after)
    );
    eprintln!(
        "edit_escape: race through `{dir}` ({swapped} swapped {swaps} times): {ops} requests, {ok} done, {no} refused, {:.1} s; outside unchanged",
        started.elapsed().as_secs_f64()
    );
    assert!(
        swaps > 10,
        "the racer swapped only {swaps} times: the race tested nothing"
    );
    assert!(
        ok > 0,
        "every request was refused: the race tested only refusals"
    );
}

#[test]
fn a_directory_swapped_for_an_outside_link_during_writes_changes_nothing_outside() {
    race("race-leaf", "race", "race", 0x5EED_0001);
}

#[test]
fn an_ancestor_swapped_for_an_outside_link_during_writes_changes_nothing_outside() {
    race("race-deep", "tree", "tree/a/b", 0x5EED_0002);
}

// ---- The deny list --------------------------------------------------------------------------

#[test]
fn the_deny_list_refuses_every_write_and_git_internals_are_denied_by_default() {
    let base = Base::new("deny");
    let secret = "TOKEN=secret\n";
    base.file("ws/.env", secret)
        .file("ws/config/.env.local", secret)
        .file("ws/secret.env", secret)
        .file("ws/keys/id_rsa", secret)
        .file("ws/keys/id_ed25519", secret)
        .file("ws/certs/server.pem", secret)
        .file("ws/certs/server.key", secret)
        .file("ws/.git/HEAD", "ref: refs/heads/main\n")
        .file("ws/.git/config", "[core]\n")
        .file("ws/.git/hooks/README", "hooks\n")
        .file("ws/vendor/lib/.git/config", "[core]\n")
        .file("ws/a.txt", "plain\n");
    base.link(".env", "ws/innocent.txt")
        .link(".git/hooks", "ws/hooks");
    let mut server = Server::start(&base.p("ws"), &[]);
    let before = record(&base.0, &[]);
    let mut attempts: Vec<(&str, Value)> = Vec::new();
    for path in [
        ".env",
        "config/.env.local",
        "config/.env.production",
        "secret.env",
        "keys/id_rsa",
        "keys/id_ed25519",
        "certs/server.pem",
        "certs/server.key",
        "innocent.txt",
        ".git/HEAD",
        ".git/config",
        ".git/hooks/pre-commit",
        ".git/new-file",
        "hooks/post-checkout",
        "vendor/lib/.git/config",
        "vendor/lib/.git/hooks/pre-commit",
    ] {
        attempts.push(("write_file", json!({"path": path, "content": "PWNED\n"})));
        attempts.push((
            "edit_file",
            json!({"path": path, "edits": [{"old_text": "secret", "new_text": "PWNED"}]}),
        ));
        attempts.push(("move_file", json!({"source": "a.txt", "destination": path})));
        attempts.push((
            "move_file",
            json!({"source": "a.txt", "destination": path, "overwrite": true}),
        ));
        attempts.push((
            "move_file",
            json!({"source": path, "destination": "stolen.txt"}),
        ));
    }
    for path in [
        ".git/hooks/new",
        ".git/objects/xx",
        "vendor/lib/.git/hooks/x",
    ] {
        attempts.push(("create_directory", json!({"path": path})));
    }
    attempts.push((
        "move_file",
        json!({"source": ".git", "destination": "git-moved"}),
    ));
    // A directory holding denied files or a repository's `.git` is not moved either: that
    // would move them away with it.
    for dir in ["keys", "config", "certs", "vendor", "vendor/lib"] {
        attempts.push((
            "move_file",
            json!({"source": dir, "destination": "moved-dir"}),
        ));
    }
    attempts.push((
        "move_file",
        json!({"source": "a.txt", "destination": ".git", "overwrite": true}),
    ));
    let mut allowed = Vec::new();
    let mut link_moves = 0;
    for (tool, arguments) in &attempts {
        let source = arguments["source"].as_str().map(|s| base.p("ws").join(s));
        let link_before = source.as_ref().and_then(|s| fs::read_link(s).ok());
        let result = server.call(tool, arguments.clone());
        if !refused(&result) {
            // A link moved as a link leaves what it leads to alone (see the escape test):
            // allowed when it arrives intact; put back so the record can compare.
            let destination = arguments["destination"]
                .as_str()
                .map(|d| base.p("ws").join(d));
            let arrived = destination.as_ref().and_then(|d| fs::read_link(d).ok());
            match (source, destination) {
                (Some(source), Some(destination))
                    if link_before.is_some() && arrived == link_before =>
                {
                    fs::rename(destination, source).expect("put the link back");
                    link_moves += 1;
                }
                _ => allowed.push(format!("{tool} {arguments}: {}", text(&result))),
            }
        }
        // Directory times aside (a link put back touches its directory), nothing changed.
        let after = record(&base.0, &[]);
        let (was, now) = (without_dir_times(&before), without_dir_times(&after));
        assert!(
            was == now,
            "{tool} {arguments} changed the tree (answer: {}):\n{}",
            text(&result),
            diff(&was, &now)
        );
    }
    eprintln!(
        "edit_escape: {} deny-list attempts refused ({link_moves} moved a link itself, intact)",
        attempts.len() - link_moves
    );
    assert!(allowed.is_empty(), "not refused:\n{}", allowed.join("\n"));
    // The same tools work on an ordinary file: the refusals above were the deny list's.
    let done = server.call("write_file", json!({"path": "b.txt", "content": "fine\n"}));
    assert!(!refused(&done), "{done}");
    assert_eq!(
        fs::read_to_string(base.p("ws/b.txt")).expect("b.txt"),
        "fine\n"
    );
}

// ---- Targets that are not plain files -------------------------------------------------------

#[test]
fn hard_links_fifos_devices_and_directories_are_refused_as_targets() {
    let base = world("special");
    base.file("ws/orig.txt", VICTIM);
    fs::hard_link(base.p("ws/orig.txt"), base.p("ws/hard_in")).expect("hard link");
    let fifo = Command::new("mkfifo").arg(base.p("ws/pipe")).status();
    assert!(fifo.map(|s| s.success()).unwrap_or(false), "mkfifo failed");
    // A device node needs root (CAP_MKNOD); elsewhere the case is skipped, visibly.
    let device = Command::new("mknod")
        .arg(base.p("ws/null"))
        .args(["c", "1", "3"])
        .status()
        .map(|s| s.success())
        .unwrap_or(false);
    if !device {
        eprintln!("SKIPPED: mknod is not permitted here; the device-node case did not run");
    }
    let mut server = Server::start(&base.p("ws"), &[]);
    let before = record(&base.0, &[]);
    let sha = sha256::hex(VICTIM.as_bytes());
    let mut targets = vec![
        "hard_in", "orig.txt", "hard_out", "pipe", "adir", "sub", "devnull",
    ];
    if device {
        targets.push("null");
    }
    let mut allowed = Vec::new();
    for path in &targets {
        let tries = [
            ("write_file", json!({"path": path, "content": "PWNED\n"})),
            (
                "write_file",
                json!({"path": path, "content": "PWNED\n", "expected_sha256": sha}),
            ),
            (
                "edit_file",
                json!({"path": path, "edits": [{"old_text": "MARK-A", "new_text": "PWNED"}], "expected_sha256": sha}),
            ),
            (
                "move_file",
                json!({"source": "inside.txt", "destination": path, "overwrite": true}),
            ),
        ];
        for (tool, arguments) in tries {
            let started = Instant::now();
            let result = server.call(tool, arguments.clone());
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "{tool} {arguments} hung"
            );
            if !refused(&result) {
                allowed.push(format!("{tool} {arguments}: {}", text(&result)));
            }
            let after = record(&base.0, &[]);
            assert!(
                after == before,
                "{tool} {arguments} changed the tree (answer: {}):\n{}",
                text(&result),
                diff(&before, &after)
            );
        }
    }
    assert!(allowed.is_empty(), "not refused:\n{}", allowed.join("\n"));
    // `hard_in` shares its inode with `orig.txt`: both are refused, and both keep the bytes.
    assert_eq!(
        fs::read_to_string(base.p("ws/orig.txt")).expect("orig"),
        VICTIM
    );
    let mode = fs::metadata(base.p("ws/orig.txt"))
        .expect("orig")
        .permissions()
        .mode();
    assert_eq!(
        fs::metadata(base.p("ws/hard_in"))
            .expect("hard")
            .permissions()
            .mode(),
        mode
    );
}
