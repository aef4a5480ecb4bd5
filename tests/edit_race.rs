//! Two writers at once: several real `minimcp` processes with editing on serve the same root
//! over HTTP, each to several sessions (writers), and the writers change the same file at the
//! same moment. The property: **every acknowledged change is in the file at the end**, and a
//! writer that was not acknowledged was refused with a conflict message (the file changed, it
//! appeared, or another writer held it too long) — never another error.
//!
//! Each round takes one file and one way of changing it, all writers released together by a
//! barrier (each then waits a seeded 0-3 ms, so the calls overlap in every order):
//! - `read-write`: `read_file`, then `write_file` with what was read plus the writer's line;
//! - `edit` / `read-edit`: `edit_file` putting the writer's line before the file's `END` line,
//!   without or after a `read_file`;
//! - `same-hash-write` / `same-hash-edit`: every writer names the same `expected_sha256`, the
//!   file's hash before the round (at most one may succeed);
//! - `create`: `write_file` of a file that does not exist yet (at most one may succeed);
//! - `patch` / `patch-two-files`: `apply_patch` with a hunk putting the writer's line before
//!   `END` (in the round's file, or in it and a second file at once: a writer acknowledged
//!   must be in both, one refused in neither).
//!
//! The oracle is the test's own: each writer's line is unique, and the test records which
//! calls were acknowledged; after the round it reads the file with `std::fs` and looks for
//! every acknowledged line. The content a writer sends is computed from what it read: the
//! `sha256` `read_file` gave, looked up among the versions the test itself made (each writer
//! records its version, hashed by the test's own SHA-256, before sending it); a hash no one
//! made fails the test too. Each round's base file is 1 KB to 400 KB (seeded), since the
//! time a write takes is what a race has to hit.
//!
//! `cargo test` runs a fixed seed: 3 servers × 2 writers, 12 rounds. Longer runs:
//! `MINIMCP_RACE_SEED=N` (or `random`; printed, a failure replays with it),
//! `MINIMCP_RACE_ROUNDS`, `MINIMCP_RACE_SERVERS`, `MINIMCP_RACE_WRITERS`. `MINIMCP_TEST_BIN`
//! runs another build (an older one, to see the lost updates it allows).

mod common;

use std::collections::HashMap;
use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Barrier, Mutex};
use std::thread;
use std::time::Duration;

use serde_json::{json, Value};

use common::response::read_response;
use common::rng::{env_number, Rng};
use common::scratch::Scratch;
use common::sha256;

/// The seed of the bounded run in `cargo test`.
const FIXED_SEED: u64 = 0x5EED_2A7E;
const DEFAULT_ROUNDS: u64 = 12;
const DEFAULT_SERVERS: u64 = 3;
const DEFAULT_WRITERS: u64 = 2;

// ---- Servers and sessions --------------------------------------------------------------------

/// `minimcp serve --http 127.0.0.1:0 --root ROOT --toolsets workspace,edit`, killed on drop.
struct Server {
    child: Child,
    port: u16,
}

impl Server {
    fn start(root: &Path) -> Server {
        let mut child = Command::new(common::minimcp())
            .args([
                "serve",
                "--http",
                "127.0.0.1:0",
                "--toolsets",
                "workspace,edit",
            ])
            .arg("--root")
            .arg(root)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn minimcp");
        let mut stderr = BufReader::new(child.stderr.take().expect("stderr is piped"));
        let mut line = String::new();
        let _ = stderr.read_line(&mut line);
        let port = line
            .split("http://127.0.0.1:")
            .nth(1)
            .and_then(|rest| rest.split('/').next())
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| panic!("the server did not say where it listens: {line:?}"));
        // Keep draining stderr so the server never blocks on a full pipe.
        thread::spawn(move || {
            let _ = std::io::copy(&mut stderr, &mut std::io::sink());
        });
        Server { child, port }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One writer: a session of its own with one of the servers.
struct Session {
    port: u16,
    id: String,
    next: u64,
}

/// What a tool call came back with.
enum Outcome {
    /// `structuredContent` of a successful call.
    Done(Value),
    /// The text of a tool error.
    Refused(String),
}

impl Session {
    fn open(server: &Server) -> Session {
        let mut session = Session {
            port: server.port,
            id: String::new(),
            next: 1,
        };
        let (head, _) = session.post(
            &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "edit-race", "version": "1"}}}),
        );
        session.id = head.expect("a session id");
        session.post(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        session
    }

    /// POSTs `body`; the session id the server gave and the JSON-RPC response, if any.
    fn post(&mut self, body: &Value) -> (Option<String>, Option<Value>) {
        let body = body.to_string();
        let mut head = format!(
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n",
            body.len()
        );
        if !self.id.is_empty() {
            head.push_str(&format!(
                "Mcp-Session-Id: {}\r\nMCP-Protocol-Version: 2025-11-25\r\n",
                self.id
            ));
        }
        head.push_str("\r\n");
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).expect("connect");
        stream
            .set_read_timeout(Some(Duration::from_secs(60)))
            .expect("timeout");
        stream.write_all(head.as_bytes()).expect("write head");
        stream.write_all(body.as_bytes()).expect("write body");
        let response = read_response(&mut BufReader::new(stream));
        assert!(
            response.status == 200 || response.status == 202,
            "HTTP {}: {}",
            response.status,
            String::from_utf8_lossy(&response.body)
        );
        let session = response.header("mcp-session-id").map(str::to_string);
        let message = if response.body.is_empty() {
            None
        } else if response
            .header("content-type")
            .is_some_and(|t| t.starts_with("text/event-stream"))
        {
            response
                .events()
                .into_iter()
                .rfind(|e| e.get("id").is_some())
        } else {
            Some(response.json())
        };
        (session, message)
    }

    fn call(&mut self, tool: &str, arguments: Value) -> Outcome {
        let id = self.next;
        self.next += 1;
        let request = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": tool, "arguments": arguments}});
        let (_, response) = self.post(&request);
        let response = response.unwrap_or_else(|| panic!("no answer to {request}"));
        let result = &response["result"];
        assert!(result.is_object(), "{tool}: not a tool result: {response}");
        if result["isError"] == true {
            Outcome::Refused(
                result["content"][0]["text"]
                    .as_str()
                    .unwrap_or("")
                    .to_string(),
            )
        } else {
            Outcome::Done(result["structuredContent"].clone())
        }
    }

    /// `read_file`'s `sha256` of `path` (the first line only is served: the hash is the whole
    /// file's).
    fn read_hash(&mut self, path: &str) -> String {
        match self.call("read_file", json!({"path": path, "limit": 1})) {
            Outcome::Done(result) => result["sha256"]
                .as_str()
                .unwrap_or_else(|| panic!("read_file gave no sha256: {result}"))
                .to_string(),
            Outcome::Refused(text) => panic!("read_file {path} was refused: {text}"),
        }
    }
}

// ---- Rounds -----------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Scenario {
    ReadWrite,
    Edit,
    ReadEdit,
    SameHashWrite,
    SameHashEdit,
    Create,
    Patch,
    PatchTwo,
}

impl Scenario {
    fn name(self) -> &'static str {
        match self {
            Scenario::ReadWrite => "read-write",
            Scenario::Edit => "edit",
            Scenario::ReadEdit => "read-edit",
            Scenario::SameHashWrite => "same-hash-write",
            Scenario::SameHashEdit => "same-hash-edit",
            Scenario::Create => "create",
            Scenario::Patch => "patch",
            Scenario::PatchTwo => "patch-two-files",
        }
    }
}

const SCENARIOS: [Scenario; 8] = [
    Scenario::ReadWrite,
    Scenario::Edit,
    Scenario::ReadEdit,
    Scenario::SameHashWrite,
    Scenario::SameHashEdit,
    Scenario::Create,
    Scenario::Patch,
    Scenario::PatchTwo,
];

/// The refusals a writer may get when another writer got there first: the file changed
/// (named by both hashes), it appeared, or it stayed locked. Anything else fails the test.
const CONFLICTS: [&str; 5] = [
    "has changed: expected_sha256 is",
    "was changed after you last read it",
    "was changed by another writer",
    "exists and you have not read it",
    "is being changed by another writer",
];

/// Every version of the round's file the test made, by SHA-256.
type Versions = Mutex<HashMap<String, String>>;

/// What one writer did.
struct Result {
    /// The writer's line, when its change was acknowledged.
    acked: Option<String>,
    /// The refusal's text otherwise.
    refused: Option<String>,
}

/// One writer's turn: change `path` as `scenario` says, adding `line`.
fn write_once(
    session: &mut Session,
    scenario: Scenario,
    path: &str,
    line: &str,
    before: &(String, String),
    versions: &Versions,
) -> Outcome {
    let record = |content: &str| {
        versions
            .lock()
            .expect("versions")
            .insert(sha256::hex(content.as_bytes()), content.to_string());
    };
    let content_of = |hash: &str| -> String {
        versions
            .lock()
            .expect("versions")
            .get(hash)
            .cloned()
            .unwrap_or_else(|| panic!("read_file gave sha256 {hash}, a version no writer made"))
    };
    let edit = json!([{"old_text": "END\n", "new_text": format!("{line}END\n")}]);
    match scenario {
        Scenario::ReadWrite => {
            let hash = session.read_hash(path);
            let content = content_of(&hash) + line;
            record(&content);
            session.call("write_file", json!({"path": path, "content": content}))
        }
        Scenario::Edit | Scenario::ReadEdit => {
            if scenario == Scenario::ReadEdit {
                session.read_hash(path);
            }
            session.call("edit_file", json!({"path": path, "edits": edit}))
        }
        Scenario::SameHashWrite => {
            let (hash, content) = before;
            let content = content.clone() + line;
            session.call(
                "write_file",
                json!({"path": path, "content": content, "expected_sha256": hash}),
            )
        }
        Scenario::SameHashEdit => {
            let hash = &before.0;
            session.call(
                "edit_file",
                json!({"path": path, "edits": edit, "expected_sha256": hash}),
            )
        }
        Scenario::Create => session.call("write_file", json!({"path": path, "content": line})),
        Scenario::Patch | Scenario::PatchTwo => {
            // The hunk names the base's END line; another writer's line moves it, which git
            // (and apply_patch) take as an offset.
            let end = before.1.lines().count();
            let hunk =
                |p: &str| format!("--- a/{p}\n+++ b/{p}\n@@ -{end},1 +{end},2 @@\n+{line} END\n");
            let mut patch = hunk(path);
            if scenario == Scenario::PatchTwo {
                patch.push_str(&hunk(&second_file(path)));
            }
            session.call("apply_patch", json!({"patch": patch}))
        }
    }
}

/// The second file of a `patch-two-files` round.
fn second_file(path: &str) -> String {
    format!("{path}.two")
}

/// A base file of about `size` bytes ending in the `END` line the edits insert before.
fn base_content(rng: &mut Rng, round: u64, size: usize) -> String {
    let mut text = format!("round {round} base\n");
    let mut n = 0u64;
    while text.len() + 4 < size {
        text.push_str(&format!("{n:08} {:016x}\n", rng.next()));
        n += 1;
    }
    text.push_str("END\n");
    text
}

#[derive(Default)]
struct Totals {
    rounds: u64,
    acked: u64,
    refused: u64,
    lost: u64,
    rounds_with_loss: u64,
    /// Refusals by the conflict they name (in the order of [`CONFLICTS`]).
    by_conflict: [u64; CONFLICTS.len()],
    failures: Vec<String>,
}

#[allow(clippy::too_many_arguments)]
fn round(
    rng: &mut Rng,
    root: &Path,
    sessions: &mut [Session],
    round: u64,
    scenario: Scenario,
    size: usize,
    totals: &mut Totals,
) {
    let path = format!("r{round}.txt");
    let file = root.join(&path);
    let versions: Versions = Mutex::new(HashMap::new());
    let before = if scenario == Scenario::Create {
        (String::new(), String::new())
    } else {
        let content = base_content(rng, round, size);
        fs::write(&file, &content).expect("write the base");
        let hash = sha256::hex(content.as_bytes());
        versions
            .lock()
            .expect("versions")
            .insert(hash.clone(), content.clone());
        if scenario == Scenario::PatchTwo {
            fs::write(root.join(second_file(&path)), &content).expect("write the second base");
        }
        (hash, content)
    };
    let delays: Vec<u64> = sessions.iter().map(|_| rng.below(3_000) as u64).collect();
    let barrier = Barrier::new(sessions.len());
    let results: Vec<Result> = thread::scope(|scope| {
        let handles: Vec<_> = sessions
            .iter_mut()
            .enumerate()
            .map(|(w, session)| {
                let (barrier, versions, before, path) = (&barrier, &versions, &before, &path);
                let delay = Duration::from_micros(delays[w]);
                scope.spawn(move || {
                    let line = format!("round {round} writer {w} was here\n");
                    barrier.wait();
                    thread::sleep(delay);
                    match write_once(session, scenario, path, &line, before, versions) {
                        Outcome::Done(_) => Result {
                            acked: Some(line),
                            refused: None,
                        },
                        Outcome::Refused(text) => Result {
                            acked: None,
                            refused: Some(text),
                        },
                    }
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("writer thread"))
            .collect()
    });
    let end = fs::read_to_string(&file).unwrap_or_default();
    if scenario == Scenario::PatchTwo {
        // One patch, two files: each writer's line is in both or in neither.
        let two = fs::read_to_string(root.join(second_file(&path))).unwrap_or_default();
        for (w, result) in results.iter().enumerate() {
            let line = format!("round {round} writer {w} was here\n");
            if end.contains(&line) != two.contains(&line)
                || (result.acked.is_none() && end.contains(&line))
            {
                totals.failures.push(format!(
                    "round {round} (patch-two-files) writer {w}: its line is in {} of the two files (acknowledged: {})",
                    usize::from(end.contains(&line)) + usize::from(two.contains(&line)),
                    result.acked.is_some()
                ));
            }
        }
    }
    totals.rounds += 1;
    let mut lost = 0;
    for (w, result) in results.iter().enumerate() {
        if let Some(line) = &result.acked {
            totals.acked += 1;
            if !end.contains(line.as_str()) {
                lost += 1;
            }
        }
        if let Some(text) = &result.refused {
            totals.refused += 1;
            if let Some(i) = CONFLICTS.iter().position(|c| text.contains(c)) {
                totals.by_conflict[i] += 1;
            } else {
                totals.failures.push(format!(
                    "round {round} ({}) writer {w}: refused without a conflict: {text}",
                    scenario.name()
                ));
            }
        }
    }
    let acked = results.iter().filter(|r| r.acked.is_some()).count();
    if matches!(
        scenario,
        Scenario::SameHashWrite | Scenario::SameHashEdit | Scenario::Create
    ) && acked > 1
    {
        totals.failures.push(format!(
            "round {round} ({}): {acked} writers were told they succeeded against the same version",
            scenario.name()
        ));
    }
    if lost > 0 {
        totals.lost += lost;
        totals.rounds_with_loss += 1;
        totals.failures.push(format!(
            "round {round} ({}, {size} bytes): {lost} of {acked} acknowledged changes are not in the file",
            scenario.name()
        ));
    }
    let leftovers: Vec<String> = fs::read_dir(root)
        .expect("list the root")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".minimcp"))
        .collect();
    if !leftovers.is_empty() {
        totals.failures.push(format!(
            "round {round} ({}): files left in the root: {leftovers:?}",
            scenario.name()
        ));
    }
}

#[test]
fn every_acknowledged_change_survives_writers_in_other_processes() {
    let seed = env_number("MINIMCP_RACE_SEED").unwrap_or(FIXED_SEED);
    let rounds = env_number("MINIMCP_RACE_ROUNDS").unwrap_or(DEFAULT_ROUNDS);
    let servers = env_number("MINIMCP_RACE_SERVERS").unwrap_or(DEFAULT_SERVERS);
    let writers = env_number("MINIMCP_RACE_WRITERS").unwrap_or(DEFAULT_WRITERS);
    eprintln!(
        "edit_race: MINIMCP_RACE_SEED={seed} MINIMCP_RACE_ROUNDS={rounds} MINIMCP_RACE_SERVERS={servers} MINIMCP_RACE_WRITERS={writers}"
    );
    // `MINIMCP_RACE_SCENARIOS=create,edit`: only these (names as printed, lowercase).
    let only: Vec<Scenario> = std::env::var("MINIMCP_RACE_SCENARIOS")
        .unwrap_or_default()
        .split(',')
        .filter(|n| !n.is_empty())
        .map(|name| {
            *SCENARIOS
                .iter()
                .find(|s| s.name() == name)
                .unwrap_or_else(|| panic!("MINIMCP_RACE_SCENARIOS: no scenario {name:?}"))
        })
        .collect();
    let mut rng = Rng(seed);
    let root = Scratch::new("race");
    let running: Vec<Server> = (0..servers).map(|_| Server::start(root.path())).collect();
    let mut sessions: Vec<Session> = running
        .iter()
        .flat_map(|server| (0..writers).map(move |_| Session::open(server)))
        .collect();
    let mut totals = Totals::default();
    for r in 0..rounds {
        // The fixed run goes through every scenario in turn; a random one draws them.
        let scenario = if !only.is_empty() {
            *rng.pick(&only)
        } else if std::env::var("MINIMCP_RACE_SEED").is_ok() {
            *rng.pick(&SCENARIOS)
        } else {
            SCENARIOS[r as usize % SCENARIOS.len()]
        };
        let size = match rng.below(3) {
            0 => 1_000,
            1 => 400_000,
            _ => 1_000 + rng.below(400_000),
        };
        round(
            &mut rng,
            root.path(),
            &mut sessions,
            r,
            scenario,
            size,
            &mut totals,
        );
    }
    drop(running);
    eprintln!(
        "edit_race: seed {seed}: {} rounds, {} writers in {servers} processes: {} acknowledged, {} refused, {} lost in {} rounds",
        totals.rounds,
        sessions.len(),
        totals.acked,
        totals.refused,
        totals.lost,
        totals.rounds_with_loss
    );
    for (conflict, count) in CONFLICTS.iter().zip(totals.by_conflict) {
        eprintln!("edit_race:   refused {count:>5} times: \"… {conflict} …\"");
    }
    assert!(
        totals.failures.is_empty(),
        "replay with MINIMCP_RACE_SEED={seed} MINIMCP_RACE_ROUNDS={rounds}:\n{}",
        totals.failures.join("\n")
    );
}
