//! `cargo bench`: drives the release binary over pipes, as a client would, and prints
//! throughput, latency, CPU per request, peak memory, startup and exit time.
//!
//! No timing is asserted anywhere (numbers belong in notes, not in tests); every run does
//! check that each request got exactly one correct answer. For side-by-side numbers against
//! rmcp and the official SDKs use `../shared/bench/run-peers.sh` (see benches/README.md).
//!
//! Options (after `--`): `--requests N` (default 200000), `--window W` (default 256),
//! `--modern` (2026-07-28 requests with per-request `_meta` instead of a handshake),
//! `--bin PATH` (another build, such as main's, to compare side by side; default: this
//! package's release binary), `--server-arg ARG` (repeatable: appended to the server's
//! command line, such as `--server-arg --log-level --server-arg info`; its stderr goes to
//! /dev/null).

// A benchmark report is meant for stdout; the lint guards the server, not this program.
#![allow(clippy::print_stdout)]

use std::io::{BufRead, BufReader, BufWriter, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_minimcp");

struct Options {
    requests: u64,
    window: u64,
    modern: bool,
    bin: String,
    server_args: Vec<String>,
}

fn options() -> Options {
    let mut o = Options {
        requests: 200_000,
        window: 256,
        modern: false,
        bin: BIN.to_string(),
        server_args: Vec::new(),
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--requests" => {
                o.requests = args
                    .next()
                    .and_then(|v| v.parse().ok())
                    .unwrap_or(o.requests)
            }
            "--window" => o.window = args.next().and_then(|v| v.parse().ok()).unwrap_or(o.window),
            "--modern" => o.modern = true,
            "--bin" => o.bin = args.next().unwrap_or(o.bin),
            "--server-arg" => o.server_args.extend(args.next()),
            _ => {} // cargo bench passes `--bench`
        }
    }
    o
}

struct Server {
    child: Child,
    stdin: Option<BufWriter<ChildStdin>>,
    stdout: Option<BufReader<ChildStdout>>,
    modern: bool,
}

impl Server {
    fn start(o: &Options) -> Server {
        let modern = o.modern;
        let mut child = Command::new(&o.bin)
            .args(["serve", "--profile", "conformance"])
            .args(&o.server_args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn the release binary");
        let stdin = BufWriter::new(child.stdin.take().expect("stdin"));
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let mut server = Server {
            child,
            stdin: Some(stdin),
            stdout: Some(stdout),
            modern,
        };
        if !modern {
            server.send(r#"{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}"#);
            server.flush();
            server.read_line();
            server.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        }
        server
    }

    fn request(&self, id: u64, method: &str) -> String {
        let params = if method == "ping" {
            String::new()
        } else {
            r#","params":{"name":"echo","arguments":{"text":"hello"}"#.to_string()
        };
        let meta = if self.modern {
            r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#
        } else {
            ""
        };
        match (params.is_empty(), meta.is_empty()) {
            (true, true) => format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}"}}"#),
            (true, false) => {
                format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{{{meta}}}}}"#)
            }
            (false, true) => {
                format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}"{params}}}}}"#)
            }
            (false, false) => {
                format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}"{params},{meta}}}}}"#)
            }
        }
    }

    fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("open");
        stdin.write_all(line.as_bytes()).expect("write");
        stdin.write_all(b"\n").expect("write");
    }

    fn flush(&mut self) {
        self.stdin.as_mut().expect("open").flush().expect("flush");
    }

    fn read_line(&mut self) -> String {
        let mut line = String::new();
        self.stdout
            .as_mut()
            .expect("open")
            .read_line(&mut line)
            .expect("read");
        line
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }

    /// CPU time (user + system) of the server so far.
    fn cpu(&self) -> Duration {
        let stat =
            std::fs::read_to_string(format!("/proc/{}/stat", self.pid())).unwrap_or_default();
        let fields: Vec<&str> = stat
            .rsplit(')')
            .next()
            .unwrap_or("")
            .split_whitespace()
            .collect();
        let ticks: u64 = fields.get(11).and_then(|v| v.parse().ok()).unwrap_or(0)
            + fields.get(12).and_then(|v| v.parse().ok()).unwrap_or(0);
        Duration::from_millis(ticks * 10) // USER_HZ is 100 on Linux
    }

    fn peak_rss_kib(&self) -> u64 {
        std::fs::read_to_string(format!("/proc/{}/status", self.pid()))
            .unwrap_or_default()
            .lines()
            .find_map(|l| l.strip_prefix("VmHWM:"))
            .and_then(|v| v.split_whitespace().next()?.parse().ok())
            .unwrap_or(0)
    }

    /// Closes stdin and returns how long the server took to exit.
    fn close(mut self) -> Duration {
        drop(self.stdin.take());
        let start = Instant::now();
        let status = self.child.wait().expect("wait");
        assert!(status.success(), "exit status {status}");
        start.elapsed()
    }
}

/// Pipelined requests with at most `window` in flight; every id must come back once.
fn throughput(o: &Options, method: &str) {
    let mut server = Server::start(o);
    let stdout = server.stdout.take().expect("stdout");
    let answered = Arc::new(AtomicU64::new(0));
    let seen = Arc::clone(&answered);
    let total = o.requests;
    let checker = method.to_string();
    let reader = std::thread::spawn(move || {
        let mut got = vec![false; total as usize];
        let mut lines = stdout.lines();
        while seen.load(Ordering::Relaxed) < total {
            let line = lines.next().expect("a response").expect("read");
            let value: serde_json::Value = serde_json::from_str(&line).expect("JSON");
            let id = value["id"].as_u64().expect("an integer id");
            assert!(!got[id as usize], "id {id} answered twice");
            got[id as usize] = true;
            if checker == "tools/call" {
                assert_eq!(value["result"]["content"][0]["text"], "hello", "{line}");
            } else {
                assert!(value["result"].is_object(), "{line}");
            }
            seen.fetch_add(1, Ordering::Relaxed);
        }
    });
    let cpu_before = server.cpu();
    let start = Instant::now();
    let mut sent = 0;
    while sent < total {
        while sent < total && sent - answered.load(Ordering::Relaxed) < o.window {
            let line = server.request(sent, method);
            server.send(&line);
            sent += 1;
        }
        server.flush();
        std::hint::spin_loop();
    }
    reader.join().expect("every request answered exactly once");
    let elapsed = start.elapsed();
    let cpu = server.cpu().saturating_sub(cpu_before);
    let rss = server.peak_rss_kib();
    server.close();
    println!(
        "{method:<10} {total} requests, window {}: {:>9.0} req/s, server CPU {:.2} µs/request, peak RSS {:.1} MiB",
        o.window,
        total as f64 / elapsed.as_secs_f64(),
        cpu.as_secs_f64() * 1e6 / total as f64,
        rss as f64 / 1024.0
    );
}

/// One request at a time: write, flush, wait for the answer.
fn latency(o: &Options) {
    let mut server = Server::start(o);
    let n = 20_000;
    let mut samples = Vec::with_capacity(n);
    for id in 0..n as u64 {
        let line = server.request(id, "tools/call");
        let start = Instant::now();
        server.send(&line);
        server.flush();
        let answer = server.read_line();
        samples.push(start.elapsed());
        assert!(answer.contains("hello"), "{answer}");
    }
    server.close();
    samples.sort();
    let pct = |p: f64| samples[((samples.len() as f64 - 1.0) * p) as usize].as_secs_f64() * 1e6;
    println!(
        "latency    {n} requests one at a time: p50 {:.1} µs, p90 {:.1} µs, p99 {:.1} µs, p99.9 {:.1} µs",
        pct(0.50),
        pct(0.90),
        pct(0.99),
        pct(0.999)
    );
}

/// Spawn → first answer, and stdin close → exit, as medians of 20 runs.
fn startup(o: &Options) {
    let mut starts = Vec::new();
    let mut exits = Vec::new();
    for _ in 0..20 {
        let spawned = Instant::now();
        let mut server = Server::start(o);
        if o.modern {
            let line = server.request(0, "tools/call");
            server.send(&line);
            server.flush();
            server.read_line();
        }
        starts.push(spawned.elapsed());
        exits.push(server.close());
    }
    starts.sort();
    exits.sort();
    println!(
        "startup    spawn → first answer {:.2} ms (median of 20); stdin closed → exit {:.2} ms",
        starts[10].as_secs_f64() * 1e3,
        exits[10].as_secs_f64() * 1e3
    );
}

fn main() {
    let o = options();
    let era = if o.modern {
        "2026-07-28 (stateless)"
    } else {
        "2025-11-25 (handshake)"
    };
    println!(
        "minimcp over pipes, {era}, binary {} {}",
        o.bin,
        o.server_args.join(" ")
    );
    throughput(&o, "tools/call");
    let ping = if o.modern { "tools/list" } else { "ping" };
    throughput(&o, ping);
    latency(&o);
    startup(&o);
}
