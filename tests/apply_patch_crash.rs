//! Crash consistency of `apply_patch` across files: the real binary, killed with `SIGKILL`
//! while it applies a patch of several large files, must leave each file whole (its old or
//! its new content, byte for byte), and a state where some files are new and some old must be
//! visible: the patch's journal is on disk, and the next start reports it, in the log and to
//! the first client that calls an edit tool, naming each file as old or new as the test sees
//! it; then the journal is gone and no temporary file is left.
//!
//! Each cycle starts `minimcp --toolsets workspace,edit` on a root with six targets (nested,
//! one with a space; a third to all of `MINIMCP_PATCH_CRASH_KIB` each) and a file that moves
//! between two names; sends one patch that changes the first line of every target and renames
//! the mover (seven writes and a removal); and kills the server: half at a moment uniform over
//! the measured duration of a patch, half as soon as a first file is replaced (at once, or up
//! to a third of that duration later). The oracle is the test's own record of each version,
//! compared with `std::fs` reads. `cargo test` runs 10 kills with a fixed seed (targets up to
//! 48 KiB); `MINIMCP_PATCH_CRASH_SEED=N|random`, `MINIMCP_PATCH_CRASH_KILLS` and
//! `MINIMCP_PATCH_CRASH_KIB` for longer runs (`.ci/run`: 200 kills, up to 256 KiB, against the release binary).

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use common::rng::{env_number, Rng};
use common::scratch::Scratch;
use common::{Out, Peer};

const FIXED_SEED: u64 = 0x7A7C_C4A5;
const DEFAULT_KILLS: usize = 10;
const DEFAULT_KIB: usize = 48;
const ANSWER: Duration = Duration::from_secs(60);
const TARGETS: [&str; 6] = [
    "a.txt",
    "b/c.txt",
    "b/d/e.txt",
    "f g.txt",
    "h/i.txt",
    "j.txt",
];
const MOVER: [&str; 2] = ["m/one.txt", "n/two.txt"];

/// A target's content: a header line naming its version, then seeded lines.
fn body(rng: &mut Rng, size: usize) -> String {
    let mut text = String::with_capacity(size + 64);
    let mut n = 0u64;
    while text.len() < size {
        text.push_str(&format!("line {n:08} {:016x}\n", rng.next()));
        n += 1;
    }
    text
}

fn header(file: usize, version: u64) -> String {
    format!("target {file} version {version}\n")
}

struct Harness {
    root: Scratch,
    rng: Rng,
    /// Each target's current content and version.
    files: Vec<(String, u64)>,
    mover: String,
    /// Where the mover is (index into MOVER).
    mover_at: usize,
    next_id: u64,
    patch_us: f64,
    counts: Counts,
    /// What the next start must say of each target when a journal is left: `new` or `old`.
    expected: Vec<String>,
}

#[derive(Default, Debug)]
struct Counts {
    kills: usize,
    mixed: usize,
    journals_left: usize,
    journals_reported: usize,
    wrong: usize,
}

fn journals(root: &Path) -> Vec<PathBuf> {
    fs::read_dir(root)
        .expect("list")
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(".minimcp-patch."))
        })
        .collect()
}

/// Temporary files of writes anywhere below `dir`.
fn temporaries(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for entry in fs::read_dir(dir).expect("list").flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            out.extend(temporaries(&entry.path()));
        } else if name.starts_with(".minimcp-write.") {
            out.push(name);
        }
    }
    out
}

impl Harness {
    fn new(seed: u64, kib: usize) -> Harness {
        let root = Scratch::new("patch-crash");
        let mut rng = Rng(seed);
        let mut files = Vec::new();
        for (i, name) in TARGETS.iter().enumerate() {
            let size = 1024 * (kib / 3 + rng.below(kib * 2 / 3 + 1));
            let text = format!("{}{}", header(i, 0), body(&mut rng, size));
            root.file(name, &text);
            files.push((text, 0));
        }
        let mover = format!("mover\n{}", body(&mut rng, 1024 * kib / 2));
        root.file(MOVER[0], &mover);
        Harness {
            root,
            rng,
            files,
            mover,
            mover_at: 0,
            next_id: 10,
            patch_us: 0.0,
            counts: Counts::default(),
            expected: Vec::new(),
        }
    }

    fn start(&self) -> Peer {
        let args: Vec<String> = [
            "--root",
            self.root.str(),
            "--toolsets",
            "workspace,edit",
            "--log-level",
            "warn",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let mut peer = Peer::spawn(common::minimcp(), &args).expect("spawn");
        peer.send_line(&json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "crash", "version": "1"}}}).to_string());
        peer.send_line(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        loop {
            match peer.recv(ANSWER) {
                Ok(Out::Line(line)) => {
                    let message: Value = serde_json::from_slice(&line).expect("JSON");
                    if message["id"] == 1 {
                        return peer;
                    }
                }
                other => panic!(
                    "the server did not start: {other:?}\n{}",
                    peer.stderr_text()
                ),
            }
        }
    }

    /// The targets' inode numbers (a replaced file gets a new one).
    fn inodes(&self) -> Vec<u64> {
        use std::os::unix::fs::MetadataExt;
        TARGETS
            .iter()
            .map(|t| fs::metadata(self.root.join(t)).map_or(0, |m| m.ino()))
            .collect()
    }

    /// The patch to the next versions, and those versions.
    fn patch(&mut self) -> (String, Vec<String>, String) {
        let mut patch = String::new();
        let mut next = Vec::new();
        for (i, (text, version)) in self.files.iter().enumerate() {
            let name = TARGETS[i];
            let old = header(i, *version);
            let new = header(i, *version + 1);
            let context: Vec<&str> = text.split_inclusive('\n').skip(1).take(2).collect();
            patch.push_str(&format!("diff --git a/{name} b/{name}\n--- a/{name}\n+++ b/{name}\n@@ -1,3 +1,3 @@\n-{old}+{new} {} {}", context[0], context[1]));
            next.push(text.replacen(&old, &new, 1));
        }
        let (from, to) = (MOVER[self.mover_at], MOVER[1 - self.mover_at]);
        let moved = format!("mover {}\n", self.rng.below(1000));
        let old_first = self.mover.lines().next().expect("line").to_string();
        let second = self.mover.split_inclusive('\n').nth(1).expect("line");
        patch.push_str(&format!("diff --git a/{from} b/{to}\nsimilarity index 99%\nrename from {from}\nrename to {to}\n--- a/{from}\n+++ b/{to}\n@@ -1,2 +1,2 @@\n-{old_first}\n+{moved} {second}"));
        let mover = self.mover.replacen(&format!("{old_first}\n"), &moved, 1);
        (patch, next, mover)
    }

    /// One cycle: start (checking what the last kill left is reported), patch, maybe kill,
    /// check the disk.
    fn cycle(&mut self, kill: bool) -> Result<(), String> {
        let left = journals(&self.root);
        let mut peer = self.start();
        let (patch, next, mover) = self.patch();
        let id = self.next_id;
        self.next_id += 1;
        peer.send_line(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "apply_patch", "arguments": {"patch": patch}}}).to_string());
        let inodes = self.inodes();
        let started = Instant::now();
        let watch = kill && self.rng.one_in(2);
        let deadline = kill.then(|| {
            let us = if watch {
                self.patch_us * 2.0 + 20_000.0
            } else {
                self.rng.below((self.patch_us * 1.2) as usize + 2000) as f64
            };
            started + Duration::from_micros(us as u64)
        });
        let mut answer = None;
        loop {
            if let Some(deadline) = deadline {
                if Instant::now() >= deadline {
                    break;
                }
                if watch && self.inodes() != inodes {
                    // A file was replaced: the patch is putting its files in place (a burst of
                    // renames); half the time killed at once, half a little later.
                    if self.rng.one_in(2) {
                        let us = self.rng.below(self.patch_us as usize / 3 + 1000);
                        std::thread::sleep(Duration::from_micros(us as u64));
                    }
                    break;
                }
            }
            let wait = if watch {
                // Poll as fast as possible: putting a patch's files in place takes microseconds.
                std::thread::yield_now();
                Duration::ZERO
            } else {
                deadline.map_or(ANSWER, |d| d.saturating_duration_since(Instant::now()))
            };
            match peer.recv(wait) {
                Ok(Out::Line(line)) => {
                    let message: Value = serde_json::from_slice(&line).expect("JSON");
                    if message["id"] == id {
                        answer = Some(message);
                        let us = started.elapsed().as_micros() as f64;
                        self.patch_us = if self.patch_us == 0.0 {
                            us
                        } else {
                            0.8 * self.patch_us + 0.2 * us
                        };
                        break;
                    }
                }
                Ok(other) => {
                    return Err(format!(
                        "the server stopped: {other:?}\n{}",
                        peer.stderr_text()
                    ))
                }
                Err(_) if deadline.is_some() => {}
                Err(_) => return Err(format!("no answer\n{}", peer.stderr_text())),
            }
        }
        if kill {
            peer.kill();
            self.counts.kills += 1;
        }
        // What the start told about the last kill (stderr is collected by a thread: wait
        // for it to catch up with a process that is gone).
        let mut log = peer.stderr_text();
        let waited = Instant::now();
        while !left.is_empty()
            && !log.contains("was interrupted")
            && waited.elapsed() < Duration::from_secs(5)
        {
            std::thread::sleep(Duration::from_millis(20));
            log = peer.stderr_text();
        }
        if !left.is_empty() {
            if !log.contains("was interrupted between two files") {
                return Err(format!(
                    "a journal was left but the start did not report it: {log}"
                ));
            }
            self.counts.journals_reported += 1;
            // The answer (if any) carried the note, and the journal is then gone.
            if let Some(answer) = &answer {
                let first = answer["result"]["content"][0]["text"]
                    .as_str()
                    .unwrap_or("");
                if !first.starts_with("Note: apply_patch in an earlier server process") {
                    return Err(format!(
                        "the first edit answer after an interrupted patch did not say so: {answer}"
                    ));
                }
                if left.iter().any(|j| j.exists()) {
                    return Err("the journal stayed after a client was told".into());
                }
            }
        }
        if let Some(answer) = &answer {
            if answer["result"]["isError"] == true {
                return Err(format!("the patch was refused: {answer}"));
            }
        }
        self.check(next, mover)
    }

    /// Each file old or new; a mixed state has a journal; the states the next start would
    /// report are the ones seen here (checked by that start).
    fn check(&mut self, next: Vec<String>, mover: String) -> Result<(), String> {
        let mut new = 0;
        let mut old = 0;
        let mut problems = Vec::new();
        self.expected.clear();
        for (i, name) in TARGETS.iter().enumerate() {
            let now = fs::read_to_string(self.root.join(name)).unwrap_or_default();
            if now == next[i] {
                new += 1;
                self.files[i] = (now, self.files[i].1 + 1);
                self.expected.push(format!("`{name}` new"));
            } else if now == self.files[i].0 {
                old += 1;
                self.expected.push(format!("`{name}` old"));
            } else {
                problems.push(format!(
                    "{name} holds neither version ({} bytes)",
                    now.len()
                ));
            }
        }
        let (from, to) = (MOVER[self.mover_at], MOVER[1 - self.mover_at]);
        let at_from = fs::read_to_string(self.root.join(from)).ok();
        let at_to = fs::read_to_string(self.root.join(to)).ok();
        match (&at_from, &at_to) {
            (Some(a), None) if *a == self.mover => old += 1,
            (None, Some(b)) if *b == mover => {
                new += 1;
                self.mover = mover.clone();
                self.mover_at = 1 - self.mover_at;
            }
            (Some(a), Some(b)) if *a == self.mover && *b == mover => {
                // Written under the new name, not yet removed: both are whole; the next patch
                // renames the old name again, so put the tree back to one name.
                new += 1;
                old += 1;
                fs::remove_file(self.root.join(to)).expect("tidy");
            }
            _ => problems.push(format!(
                "the mover is wrong: {from} {:?} bytes, {to} {:?} bytes",
                at_from.map(|s| s.len()),
                at_to.map(|s| s.len())
            )),
        }
        let journal = !journals(&self.root).is_empty();
        if journal {
            self.counts.journals_left += 1;
        }
        if new > 0 && old > 0 {
            self.counts.mixed += 1;
            if !journal {
                problems.push(format!(
                    "{new} file(s) new and {old} old, and no journal says so"
                ));
            }
        }
        if problems.is_empty() {
            Ok(())
        } else {
            self.counts.wrong += 1;
            Err(problems.join("; "))
        }
    }
}

#[test]
fn a_patch_killed_between_files_leaves_each_whole_and_says_so_at_the_next_start() {
    let seed = env_number("MINIMCP_PATCH_CRASH_SEED").unwrap_or(FIXED_SEED);
    let kills = env_number("MINIMCP_PATCH_CRASH_KILLS").map_or(DEFAULT_KILLS, |k| k as usize);
    let kib = env_number("MINIMCP_PATCH_CRASH_KIB").map_or(DEFAULT_KIB, |k| k as usize);
    eprintln!("apply_patch_crash: seed {seed}, {kills} kills, targets up to {kib} KiB; replay with MINIMCP_PATCH_CRASH_SEED={seed} MINIMCP_PATCH_CRASH_KILLS={kills} MINIMCP_PATCH_CRASH_KIB={kib}");
    let started = Instant::now();
    let mut h = Harness::new(seed, kib);
    let mut failures = Vec::new();
    for _ in 0..2 {
        if let Err(e) = h.cycle(false) {
            failures.push(format!("calibration: {e}"));
        }
    }
    while h.counts.kills < kills && failures.len() < 5 {
        let n = h.counts.kills;
        if let Err(e) = h.cycle(true) {
            failures.push(format!("kill {n}: {e}"));
        }
    }
    if let Err(e) = h.cycle(false) {
        failures.push(format!("final start: {e}"));
    }
    let left = temporaries(&h.root);
    if !left.is_empty() {
        failures.push(format!(
            "temporary files left after the last start: {left:?}"
        ));
    }
    let c = &h.counts;
    eprintln!(
        "apply_patch_crash: seed {seed}: {} kills; {} left some files new and some old (each with its journal); {} journals left, {} reported at the next start; wrong {}; {:.0} ms per patch; {:.1} s",
        c.kills, c.mixed, c.journals_left, c.journals_reported, c.wrong, h.patch_us / 1000.0, started.elapsed().as_secs_f64()
    );
    assert!(failures.is_empty(), "seed {seed}:\n{}", failures.join("\n"));
    // A long run whose kills never left a journal checked nothing of it.
    assert!(
        c.journals_reported > 0 || kills < 20,
        "no kill landed while a patch was being written: the timing is off"
    );
}
