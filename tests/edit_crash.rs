//! Crash consistency of the edit toolset: the real binary, killed with `SIGKILL` at random
//! moments while it writes large files, must leave every target holding exactly one complete
//! version that was sent to it (never a mix, a prefix or an empty file), and the next start
//! must leave no temporary file behind.
//!
//! Each cycle starts `minimcp --toolsets workspace,edit` on a root with a handful of targets
//! (some nested, some with unusual permission bits), sends a pipelined batch of `write_file`
//! and `edit_file` calls (hundreds of KiB to a few MiB of text each, every version generated
//! from the seed and recorded by its SHA-256, computed by the test's own SHA-256), sleeps a
//! random time drawn from the measured duration of such a batch, and kills the server.
//! Then, from the disk alone:
//! - each target's SHA-256 is one of the versions the server may have reached: the last one
//!   it acknowledged (or, with none acknowledged, what was there before the batch) or any
//!   version sent after it — anything else is counted `corrupt`;
//! - its permission bits are still the ones the test gave it;
//! - after the next start (handshake and one request answered), the tree holds only the
//!   targets and the decoys (names that look like temporary files but are the user's): no
//!   leftover temporary file, and no decoy removed.
//!
//! The oracle knows nothing of how the server writes: it reads the files with `std::fs`.
//! `cargo test` runs 40 kills with a fixed seed (a few seconds); for longer runs:
//! - `MINIMCP_CRASH_SEED=N` (or `random`): the seed, printed at the start and in the summary,
//!   so a failing run replays with `MINIMCP_CRASH_SEED=N MINIMCP_CRASH_KILLS=K`;
//! - `MINIMCP_CRASH_KILLS=K`: kills (`.ci/run` runs 200 with a random seed, against the release binary);
//! - `MINIMCP_CRASH_MIN_KIB=N`, `MINIMCP_CRASH_MAX_KIB=N`: the sizes of the versions written
//!   (default 100 to 300 KiB; `.ci/run` 256 KiB to 4 MiB).

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use common::rng::{env_number, Rng};
use common::sha256;
use common::{Out, Peer};

/// The seed of the bounded run in `cargo test`.
const FIXED_SEED: u64 = 0xC0A5_7E57;
/// Kills in the bounded run.
const DEFAULT_KILLS: usize = 40;
/// The smallest and largest versions written in the bounded run, in KiB.
const DEFAULT_MIN_KIB: usize = 100;
const DEFAULT_MAX_KIB: usize = 300;
/// Requests in one batch at most (pipelined, so a kill may land in any of them).
const MAX_BATCH: usize = 3;
/// How long an answer may take before the run is declared hung.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(60);

/// The targets, relative to the root, and the permission bits each is created with.
const TARGETS: [(&str, u32); 6] = [
    ("a.txt", 0o644),
    ("b.md", 0o600),
    ("script.sh", 0o755),
    ("deep/nested/c.txt", 0o640),
    ("deep/nested/d.log", 0o644),
    ("with space/e.txt", 0o664),
];

/// Files that only look like temporary files (editor backups, other tools' temp names, near
/// misses of the server's own `.minimcp-write.<pid>.<16 hex>.tmp`): the cleanup at start
/// must leave them alone. A name of the server's own form whose writer is alive (this test
/// process) is added at run time.
const DECOYS: [&str; 12] = [
    "a.txt.tmp",
    ".a.txt.tmp",
    "a.txt~",
    ".#a.txt",
    ".a.txt.swp",
    "deep/nested/c.txt.partial",
    "tmp",
    ".minimcp-write.tmp",
    ".minimcp-write.4242.0123456789ABCDEF.tmp",
    "deep/.minimcp-write.4242.0123456789abcdef.tmp.bak",
    "deep/nested/minimcp-write.4242.0123456789abcdef.tmp",
    "with space/.minimcp-write.4242.0123456789abcde.tmp",
];

/// A file's size, modification time (seconds, nanoseconds) and inode.
type Stamp = (u64, i64, i64, u64);

/// What one cycle's requests did to one target: the versions in the order they were sent.
#[derive(Default)]
struct Pending {
    /// `(request id, SHA-256 of the content that request leaves)`, in send order.
    sent: Vec<(u64, String)>,
    /// How many of `sent` were acknowledged (the server answers in order).
    acked: usize,
}

/// One target: what it holds now (as far as the test knows) and its mode.
struct Target {
    rel: &'static str,
    mode: u32,
    content: String,
    /// The SHA-256 of `content`.
    sha: String,
    /// The version number of the last version generated for it.
    version: u64,
    pending: Pending,
    /// Contents by SHA-256 of every version this cycle may have left on disk.
    candidates: BTreeMap<String, String>,
}

#[derive(Default)]
struct Counts {
    writes: usize,
    edits: usize,
    acked: usize,
    kills: usize,
    kills_mid_request: usize,
    kills_leaving_temp: usize,
    files_checked: usize,
    corrupt: usize,
    modes_changed: usize,
    temp_left_after_start: usize,
    decoys_lost: usize,
}

/// A version of a target: a header naming it, then numbered lines of seeded text, `size`
/// bytes in all (ASCII, so any prefix, suffix or mix of two versions has another hash).
fn version_text(rng: &mut Rng, file: usize, version: u64, size: usize) -> String {
    let mut text = String::with_capacity(size + 128);
    text.push_str(&header(file, version, size));
    let mut line = 0u64;
    while text.len() < size {
        let word = rng.next();
        text.push_str(&format!(
            "f{file} v{version} line {line:08} {word:016x} {:016x}\n",
            word.rotate_left(17) ^ version
        ));
        line += 1;
    }
    text.truncate(size.max(text.find('\n').unwrap_or(0) + 1));
    if !text.ends_with('\n') {
        text.pop();
        text.push('\n');
    }
    text
}

/// [`DECOYS`], and a temporary name of the server's form whose writer (this test) is alive:
/// another server's write in progress, which a start must not remove.
fn decoys() -> Vec<String> {
    let mut all: Vec<String> = DECOYS.iter().map(|d| d.to_string()).collect();
    all.push(format!(
        "deep/nested/.minimcp-write.{}.0123456789abcdef.tmp",
        std::process::id()
    ));
    all
}

fn header(file: usize, version: u64, size: usize) -> String {
    format!("minimcp crash harness: target {file}, version {version}, about {size} bytes\n")
}

fn first_line(text: &str) -> &str {
    text.split('\n').next().unwrap_or("")
}

struct Harness {
    root: PathBuf,
    rng: Rng,
    min_bytes: usize,
    max_bytes: usize,
    targets: Vec<Target>,
    counts: Counts,
    next_id: u64,
    /// Measured microseconds per byte of a batch (from batches answered in full).
    us_per_kib: f64,
}

impl Harness {
    fn new(seed: u64, min_bytes: usize, max_bytes: usize) -> Harness {
        let root =
            std::env::temp_dir().join(format!("minimcp-crash-{}-{seed:x}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        fs::create_dir_all(&root).expect("create the root");
        let mut rng = Rng(seed);
        let mut targets = Vec::new();
        for (i, (rel, mode)) in TARGETS.iter().enumerate() {
            let path = root.join(rel);
            fs::create_dir_all(path.parent().expect("parent")).expect("create parent");
            let content = version_text(&mut rng, i, 0, 4096 + i * 1000);
            fs::write(&path, &content).expect("write a target");
            fs::set_permissions(&path, fs::Permissions::from_mode(*mode)).expect("chmod");
            targets.push(Target {
                rel,
                mode: *mode,
                sha: sha256::hex(content.as_bytes()),
                content,
                version: 0,
                pending: Pending::default(),
                candidates: BTreeMap::new(),
            });
        }
        for decoy in decoys() {
            let path = root.join(&decoy);
            fs::create_dir_all(path.parent().expect("parent")).expect("create parent");
            fs::write(&path, format!("decoy {decoy}\n")).expect("write a decoy");
        }
        Harness {
            root,
            rng,
            min_bytes,
            max_bytes,
            targets,
            counts: Counts::default(),
            next_id: 100,
            us_per_kib: 0.0,
        }
    }

    fn start(&self) -> Peer {
        let args: Vec<String> = [
            "--root",
            self.root.to_str().expect("UTF-8 root"),
            "--toolsets",
            "workspace,edit",
            "--max-message-bytes",
            "67108864",
            "--max-write-bytes",
            "33554432",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let mut peer = Peer::spawn(common::minimcp(), &args).expect("minimcp starts");
        peer.send_line(&json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "edit-crash", "version": "1"}}}).to_string());
        peer.send_line(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        peer.send_line(r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#);
        let mut answered = 0;
        while answered < 2 {
            match peer.recv(ANSWER_TIMEOUT) {
                Ok(Out::Line(line)) => {
                    let message: Value = serde_json::from_slice(&line).expect("JSON");
                    if message.get("id").is_some() {
                        assert!(
                            message.get("result").is_some(),
                            "start: {message}\n{}",
                            peer.stderr_text()
                        );
                        if message["id"] == 2 {
                            let names: Vec<&str> = message["result"]["tools"]
                                .as_array()
                                .expect("tools")
                                .iter()
                                .filter_map(|t| t["name"].as_str())
                                .collect();
                            assert!(
                                names.contains(&"write_file") && names.contains(&"edit_file"),
                                "the edit toolset is not served: {names:?}"
                            );
                        }
                        answered += 1;
                    }
                }
                other => panic!(
                    "the server did not start: {other:?}\n{}",
                    peer.stderr_text()
                ),
            }
        }
        peer
    }

    /// Every path under the root that is neither a target, a decoy nor a directory leading
    /// to one.
    fn strangers(&self) -> Vec<String> {
        let mut known: BTreeSet<String> = TARGETS.iter().map(|(r, _)| r.to_string()).collect();
        known.extend(decoys());
        for path in known.clone() {
            let mut dir = Path::new(&path).parent();
            while let Some(d) = dir.filter(|d| !d.as_os_str().is_empty()) {
                known.insert(d.display().to_string());
                dir = d.parent();
            }
        }
        let mut found = Vec::new();
        walk(&self.root, &self.root, &mut |rel| {
            if !known.contains(rel) {
                found.push(rel.to_string());
            }
        });
        found
    }

    /// What a write in progress changes: the names in the tree, and each target's size,
    /// modification time and inode.
    fn fingerprint(&self) -> (Vec<String>, Vec<Stamp>) {
        use std::os::unix::fs::MetadataExt;
        let files = self
            .targets
            .iter()
            .map(|t| {
                fs::symlink_metadata(self.root.join(t.rel)).map_or((0, 0, 0, 0), |m| {
                    (m.size(), m.mtime(), m.mtime_nsec(), m.ino())
                })
            })
            .collect();
        (self.strangers(), files)
    }

    fn missing_decoys(&self) -> usize {
        decoys()
            .iter()
            .filter(|d| fs::read(self.root.join(d)).ok() != Some(format!("decoy {d}\n").into()))
            .count()
    }

    /// Sends one batch of writes and edits; returns the ids in send order, each with the
    /// bytes sent up to and including it.
    fn send_batch(&mut self, peer: &Peer) -> Vec<(u64, usize)> {
        let count = 1 + self.rng.below(MAX_BATCH);
        let mut ids = Vec::new();
        let mut bytes = 0;
        for _ in 0..count {
            let t = self.rng.below(self.targets.len());
            let id = self.next_id;
            self.next_id += 1;
            let target = &mut self.targets[t];
            // What the request expects to replace: the last version sent, or the content.
            let (before, expected) = match target.pending.sent.last() {
                Some((_, sha)) => (&target.candidates[sha], sha.clone()),
                None => (&target.content, target.sha.clone()),
            };
            target.version += 1;
            let (after, request) = if self.rng.one_in(4) {
                // An edit of the header line: the whole file is rewritten through the same
                // temporary-file path with a one-line change.
                let old = first_line(before).to_string();
                let new = format!("{old} (edit {})", target.version);
                let after = before.replacen(&old, &new, 1);
                self.counts.edits += 1;
                let args = json!({"path": target.rel, "edits": [{"old_text": old, "new_text": new}], "expected_sha256": expected});
                (after, ("edit_file", args))
            } else {
                let span = self.max_bytes.saturating_sub(self.min_bytes).max(1);
                let size = self.min_bytes + self.rng.below(span);
                let after = version_text(&mut self.rng, t, target.version, size);
                self.counts.writes += 1;
                let args =
                    json!({"path": target.rel, "content": after, "expected_sha256": expected});
                (after, ("write_file", args))
            };
            bytes += after.len();
            let sha = sha256::hex(after.as_bytes());
            target.candidates.insert(sha.clone(), after);
            target.pending.sent.push((id, sha));
            let (name, arguments) = request;
            peer.send_line(
                &json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": arguments}})
                    .to_string(),
            );
            ids.push((id, bytes));
        }
        ids
    }

    /// Records one answer: the request it acknowledges must have succeeded.
    fn acknowledge(&mut self, message: &Value, errors: &mut Vec<String>) {
        let id = message["id"].as_u64().expect("numeric id");
        let result = &message["result"];
        if !result.is_object() || result["isError"] == true {
            // Counted as unanswered: the check below still allows only complete versions.
            errors.push(format!("request {id} failed: {message}"));
            return;
        }
        for target in &mut self.targets {
            if let Some(i) = target.pending.sent.iter().position(|(sent, _)| *sent == id) {
                assert_eq!(
                    i, target.pending.acked,
                    "answers came out of order for {}",
                    target.rel
                );
                target.pending.acked += 1;
                self.counts.acked += 1;
                return;
            }
        }
        panic!("an answer to a request never sent: {message}");
    }

    /// One cycle: start, send a batch, kill at a random moment, check the disk.
    fn cycle(&mut self, kill: bool) -> Result<(), String> {
        let mut peer = self.start();
        let left = self.strangers();
        if !left.is_empty() {
            self.counts.temp_left_after_start += left.len();
            return Err(format!(
                "after a start the tree still holds files the test never made: {left:?}"
            ));
        }
        let mut errors = Vec::new();
        let quiet = self.fingerprint();
        let started = Instant::now();
        let ids = self.send_batch(&peer);
        let bytes = ids.last().map_or(0, |(_, b)| *b);
        // Half the kills at a moment uniform over the batch's expected duration and a little
        // beyond it, so they land before, inside and after every phase of a request. The
        // other half aim at the write itself: as soon as the tree shows one (a name the test
        // did not make, or a target whose size, time or inode moved: a temporary file or a
        // write in place, however the server goes about it), plus 0-3 ms; a server that shows
        // nothing is killed at the end of the expected duration.
        let estimate_us = (self.us_per_kib * bytes as f64 / 1024.0) as usize;
        let watch = kill && self.rng.one_in(2);
        let deadline = match (kill, watch) {
            (false, _) => None,
            (true, false) => Some(self.rng.below(estimate_us * 5 / 4 + 500)),
            (true, true) => Some(estimate_us * 3 / 2 + 500),
        }
        .map(|us| started + Duration::from_micros(us as u64));
        let mut answered = 0;
        loop {
            let mut wait = match deadline {
                Some(d) => d.saturating_duration_since(Instant::now()),
                None if answered == ids.len() => break,
                None => ANSWER_TIMEOUT,
            };
            if deadline.is_some() && wait.is_zero() {
                break;
            }
            if watch {
                if self.fingerprint() != quiet {
                    if self.rng.one_in(3) {
                        std::thread::sleep(Duration::from_micros(self.rng.below(3000) as u64));
                    }
                    break;
                }
                // Poll fast: a write in place of a few hundred KiB takes about a millisecond.
                wait = Duration::ZERO;
                std::thread::yield_now();
            }
            match peer.recv(wait) {
                Ok(Out::Line(line)) => {
                    let message: Value = serde_json::from_slice(&line).expect("JSON");
                    if let Some(&(_, upto)) = ids.iter().find(|(id, _)| message["id"] == *id) {
                        self.acknowledge(&message, &mut errors);
                        answered += 1;
                        // How long a KiB takes, from every answer: the next kills' clock.
                        let sample = started.elapsed().as_micros() as f64 / (upto as f64 / 1024.0);
                        self.us_per_kib = if self.us_per_kib == 0.0 {
                            sample
                        } else {
                            0.8 * self.us_per_kib + 0.2 * sample
                        };
                    }
                }
                Ok(other) => {
                    return Err(format!(
                        "the server stopped: {other:?}\n{}",
                        peer.stderr_text()
                    ))
                }
                Err(_) if watch => {}
                Err(_) if deadline.is_some() => break,
                Err(_) => {
                    return Err(format!(
                        "no answer within {ANSWER_TIMEOUT:?}\n{}",
                        peer.stderr_text()
                    ))
                }
            }
        }
        if kill {
            peer.kill();
            self.counts.kills += 1;
            if answered < ids.len() {
                self.counts.kills_mid_request += 1;
            }
            // Answers written before the kill still count: the server said they were done.
            while let Ok(Out::Line(line)) = peer.recv(ANSWER_TIMEOUT) {
                let message: Value = serde_json::from_slice(&line).expect("JSON");
                if message.get("id").is_some() {
                    self.acknowledge(&message, &mut errors);
                }
            }
            if !self.strangers().is_empty() {
                self.counts.kills_leaving_temp += 1;
            }
        } else {
            drop(peer);
        }
        let checked = self.check_targets();
        if let Err(e) = checked {
            errors.push(e);
        }
        if errors.is_empty() {
            Ok(())
        } else {
            Err(errors.join("\n"))
        }
    }

    /// Every target holds one version it may hold, with its mode; what it holds becomes the
    /// test's view of it.
    fn check_targets(&mut self) -> Result<(), String> {
        let mut problems = Vec::new();
        for (t, target) in self.targets.iter_mut().enumerate() {
            let path = self.root.join(target.rel);
            self.counts.files_checked += 1;
            let bytes = fs::read(&path).unwrap_or_default();
            let pending = std::mem::take(&mut target.pending);
            // What it may hold: the last acknowledged version (or, with none, what it held
            // before the batch), or any version sent after that one. Compared byte for byte
            // (each version's SHA-256 was computed when it was sent).
            let floor = match pending.acked {
                0 => None,
                n => Some(&pending.sent[n - 1].1),
            };
            let mut allowed: Vec<(&str, &[u8])> = vec![match floor {
                Some(sha) => (sha.as_str(), target.candidates[sha].as_bytes()),
                None => (target.sha.as_str(), target.content.as_bytes()),
            }];
            for (_, sha) in &pending.sent[pending.acked..] {
                allowed.push((sha.as_str(), target.candidates[sha].as_bytes()));
            }
            let found = allowed
                .iter()
                .find(|(_, content)| *content == bytes.as_slice())
                .map(|(sha, _)| sha.to_string());
            if let Some(sha) = found {
                if sha != target.sha {
                    target.content = target.candidates[&sha].clone();
                    target.sha = sha;
                }
            } else {
                self.counts.corrupt += 1;
                let text = String::from_utf8_lossy(&bytes);
                let sha = sha256::hex(&bytes);
                let known = target.candidates.contains_key(&sha) || sha == target.sha;
                problems.push(format!(
                    "{}: {} bytes, first line {:?}, last line {:?}, {}; allowed: {} version(s) ({} acknowledged of {} sent)",
                    target.rel,
                    bytes.len(),
                    first_line(&text),
                    text.trim_end().rsplit('\n').next().unwrap_or(""),
                    if known { "an older complete version" } else { "no version ever sent" },
                    allowed.len(),
                    pending.acked,
                    pending.sent.len()
                ));
                // Carry on from a fresh version the test writes, so one failure does not
                // cascade into the next requests.
                target.version += 1;
                target.content = version_text(&mut self.rng, t, target.version, 4096);
                target.sha = sha256::hex(target.content.as_bytes());
                fs::write(&path, &target.content).expect("rewrite a corrupt target");
            }
            target.candidates.clear();
            let mode = fs::metadata(&path).map(|m| m.permissions().mode() & 0o7777);
            if mode.as_ref().ok() != Some(&target.mode) {
                self.counts.modes_changed += 1;
                let now = mode.map_or_else(|e| e.to_string(), |m| format!("{m:o}"));
                problems.push(format!(
                    "{}: mode {now}, created {:o}",
                    target.rel, target.mode
                ));
                let _ = fs::set_permissions(&path, fs::Permissions::from_mode(target.mode));
            }
        }
        let lost = self.missing_decoys();
        if lost > 0 {
            self.counts.decoys_lost += lost;
            problems.push(format!("{lost} decoy file(s) removed or changed"));
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(problems.join("\n"))
        }
    }
}

impl Drop for Harness {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = fs::remove_dir_all(&self.root);
        }
    }
}

/// Calls `found` with every path under `dir`, relative to `root`, without following links.
fn walk(root: &Path, dir: &Path, found: &mut dyn FnMut(&str)) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let rel = path
            .strip_prefix(root)
            .expect("under the root")
            .display()
            .to_string();
        found(&rel);
        if entry.file_type().map(|t| t.is_dir()).unwrap_or(false) {
            walk(root, &path, found);
        }
    }
}

#[test]
fn killed_writes_leave_one_complete_version_and_no_temporary_file() {
    let seed = env_number("MINIMCP_CRASH_SEED").unwrap_or(FIXED_SEED);
    let kills = env_number("MINIMCP_CRASH_KILLS").map_or(DEFAULT_KILLS, |k| k as usize);
    let min_kib = env_number("MINIMCP_CRASH_MIN_KIB").map_or(DEFAULT_MIN_KIB, |k| k as usize);
    let max_kib = env_number("MINIMCP_CRASH_MAX_KIB").map_or(DEFAULT_MAX_KIB, |k| k as usize);
    let replay = format!(
        "MINIMCP_CRASH_SEED={seed} MINIMCP_CRASH_KILLS={kills} MINIMCP_CRASH_MIN_KIB={min_kib} \
         MINIMCP_CRASH_MAX_KIB={max_kib}"
    );
    eprintln!("edit_crash: seed {seed}, {kills} kills, versions of {min_kib} to {max_kib} KiB; replay with {replay}");
    let started = Instant::now();
    let mut harness = Harness::new(
        seed,
        min_kib * 1024,
        (max_kib * 1024).max(min_kib * 1024 + 1),
    );
    let mut failures = Vec::new();
    // Two batches answered in full first: they measure how long a batch takes.
    for _ in 0..2 {
        if let Err(e) = harness.cycle(false) {
            failures.push(format!("calibration: {e}"));
        }
    }
    while harness.counts.kills < kills && failures.len() < 5 {
        let n = harness.counts.kills;
        if let Err(e) = harness.cycle(true) {
            failures.push(format!("kill {n}: {e}"));
        }
        // A long run shows it is alive.
        if (n + 1).is_multiple_of(100) {
            let c = &harness.counts;
            eprintln!(
                "edit_crash: {} kills, {} files checked, corrupt: {}, {:.0} s",
                n + 1,
                c.files_checked,
                c.corrupt,
                started.elapsed().as_secs_f64()
            );
        }
    }
    // The last start: whatever the last kill left must be gone.
    match harness.cycle(false) {
        Ok(()) => {}
        Err(e) => failures.push(format!("final start: {e}")),
    }
    let c = &harness.counts;
    eprintln!(
        "edit_crash: seed {seed}: {} writes and {} edits sent, {} acknowledged; {} kills ({} \
         with a request unanswered, {} leaving a temporary file); {} files checked; corrupt: {}; \
         modes changed: {}; temporary files left after a start: {}; decoys lost: {}; {:.0} µs per \
         KiB answered; {:.1} s",
        c.writes,
        c.edits,
        c.acked,
        c.kills,
        c.kills_mid_request,
        c.kills_leaving_temp,
        c.files_checked,
        c.corrupt,
        c.modes_changed,
        c.temp_left_after_start,
        c.decoys_lost,
        harness.us_per_kib,
        started.elapsed().as_secs_f64()
    );
    assert!(
        failures.is_empty(),
        "seed {seed} (replay with {replay}):\n{}",
        failures.join("\n")
    );
    // A harness whose kills all land after the answers checks nothing.
    assert!(
        c.kills_mid_request * 2 >= c.kills,
        "only {} of {} kills landed while a request was unanswered: the kill timing is off",
        c.kills_mid_request,
        c.kills
    );
}
