#!/usr/bin/env python3
"""One client that never answers must not slow down the others.

Drives `minimcp serve --http` (conformance profile) with the standard library only. Each
round has two phases, run back to back on the same server and alternated in order:

  quiet   CLIENTS clients, each in its own legacy session on a keep-alive connection, call
          `test_simple_text` CALLS times each, concurrently; every call's latency is kept.
  silent  the same, while SILENT other sessions each hold a `test_sampling` call whose
          `sampling/createMessage` request they never answer (the server's default 60 s
          request timeout stays in force, longer than the phase).

Prints p50 and p99 per phase and round, then the medians over the rounds and the ratio
silent/quiet of the p99s; exits 1 when that ratio is over MAX_RATIO (default 2). A
figure for the README, not a test: the numbers depend on the machine.

    python3 benches/stall.py BIN [ROUNDS=5] [CLIENTS=4] [CALLS=500] [SILENT=4]
"""

import http.client
import json
import re
import socket
import statistics
import subprocess
import sys
import threading
import time

ACCEPT = "application/json, text/event-stream"


def arg(name, default):
    for a in sys.argv[2:]:
        if a.startswith(name + "="):
            return type(default)(a.split("=", 1)[1])
    return default


def start(binary):
    proc = subprocess.Popen(
        [binary, "serve", "--profile", "conformance", "--http", "127.0.0.1:0"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    line = proc.stderr.readline()
    port = int(re.search(r"http://127\.0\.0\.1:(\d+)/", line).group(1))
    threading.Thread(target=lambda: [None for _ in proc.stderr], daemon=True).start()
    return proc, port


def post(conn, body, session=None):
    headers = {"Content-Type": "application/json", "Accept": ACCEPT}
    if session:
        headers["Mcp-Session-Id"] = session
    conn.request("POST", "/mcp", json.dumps(body), headers)
    response = conn.getresponse()
    data = response.read()
    return response, data


def session(port, capabilities):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    response, _ = post(conn, {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": capabilities,
        "clientInfo": {"name": "stall-bench", "version": "1"}}})
    sid = response.getheader("Mcp-Session-Id")
    post(conn, {"jsonrpc": "2.0", "method": "notifications/initialized"}, sid)
    return conn, sid


def silent_client(port):
    """A session holding a sampling call it never answers; returns its open socket."""
    _, sid = session(port, {"sampling": {}})
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "test_sampling", "arguments": {"prompt": "never answered"}}}).encode()
    sock = socket.create_connection(("127.0.0.1", port))
    sock.sendall(
        b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        + f"Accept: {ACCEPT}\r\nMcp-Session-Id: {sid}\r\nContent-Length: {len(body)}\r\n\r\n".encode()
        + body)
    seen = b""
    while b"sampling/createMessage" not in seen:
        chunk = sock.recv(65536)
        if not chunk:
            raise SystemExit("the silent client's stream ended before the server asked")
        seen += chunk
    return sock


def caller(port, calls, latencies, failures, ready, go):
    conn, sid = session(port, {})
    ready.release()
    go.wait()
    call = {"jsonrpc": "2.0", "id": 0, "method": "tools/call",
            "params": {"name": "test_simple_text", "arguments": {}}}
    for i in range(calls):
        call["id"] = i + 1
        started = time.perf_counter()
        response, data = post(conn, call, sid)
        latencies.append(time.perf_counter() - started)
        if response.status != 200 or b'"result"' not in data:
            failures.append((response.status, data[:200]))
    conn.close()


def phase(port, clients, calls, silent):
    latencies, failures = [], []
    ready, go = threading.Semaphore(0), threading.Event()
    threads = [threading.Thread(target=caller, args=(port, calls, latencies, failures, ready, go))
               for _ in range(clients)]
    for t in threads:
        t.start()
    for _ in threads:
        ready.acquire()  # every caller has its session before anyone stays silent
    held = [silent_client(port) for _ in range(silent)]
    started = time.perf_counter()
    go.set()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - started
    for sock in held:
        sock.close()
    if failures:
        raise SystemExit(f"calls failed: {failures[:3]}")
    latencies.sort()
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]
    return statistics.median(latencies) * 1e3, p99 * 1e3, latencies[-1] * 1e3, elapsed


def main():
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    binary = sys.argv[1]
    rounds, clients, calls = arg("ROUNDS", 5), arg("CLIENTS", 4), arg("CALLS", 500)
    silent, max_ratio = arg("SILENT", 4), arg("MAX_RATIO", 2.0)
    proc, port = start(binary)
    try:
        results = {"quiet": [], "silent": []}
        for r in range(rounds):
            order = ["quiet", "silent"] if r % 2 == 0 else ["silent", "quiet"]
            for name in order:
                p50, p99, worst, elapsed = phase(
                    port, clients, calls, silent if name == "silent" else 0)
                results[name].append((p50, p99))
                print(f"round {r + 1} {name:6} p50 {p50:7.3f} ms  p99 {p99:7.3f} ms  "
                      f"max {worst:9.3f} ms  "
                      f"({clients * calls} calls in {elapsed:5.2f} s)", flush=True)
    finally:
        proc.kill()
        proc.wait()
    med = {k: (statistics.median(p for p, _ in v), statistics.median(p for _, p in v))
           for k, v in results.items()}
    ratio = med["silent"][1] / med["quiet"][1]
    print(f"median over {rounds} rounds: quiet p50 {med['quiet'][0]:.3f} ms p99 "
          f"{med['quiet'][1]:.3f} ms; with {silent} silent clients p50 {med['silent'][0]:.3f} ms "
          f"p99 {med['silent'][1]:.3f} ms; p99 ratio {ratio:.2f} (bound {max_ratio})")
    sys.exit(0 if ratio <= max_ratio else 1)


if __name__ == "__main__":
    main()
