#!/usr/bin/env python3
"""A real client's latency while idle or slow connections hold the HTTP server's places.

Drives `minimcp serve --http` (conformance profile) with the standard library only. Each
round runs three phases back to back on one server:

  unloaded  a real client sends REQUESTS 2026-07-28 `tools/call` echo requests, one at a
            time, each on a new connection (the case a full server hurts most: a
            keep-alive client already has its connection);
  idle      the same, while HOLDERS other connections connect and send nothing;
  slow      the same, while HOLDERS connections send a partial request head and then one
            byte a second (slowloris).

The holders run in a separate process and reconnect the moment the server closes them. A
request that is refused (503) or whose connection is closed before its answer is sent again
at once; its latency runs from the first attempt to the answer. A request not answered
within 2 s counts as lost (2000 ms) and a phase stops after 30 s, so a server that never
lets the client in still ends the run.

Prints, per phase, the p50 and p99 over the rounds' requests, how many requests needed more
than one attempt, the holders' reconnections per second, and the warning lines the server
wrote. A figure for benches/README.md, not a test: the numbers depend on the machine.

    python3 benches/idle_connections.py BIN [--rounds 3] [--requests 1000] [--holders 200]
                                            [--token] [-- SERVER FLAGS...]
"""

import argparse
import json
import os
import re
import selectors
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

LOST_S = 2.0
PHASE_S = 30.0


def hold(port, holders, slow, seconds):
    """The holders: `holders` connections, each reconnecting once closed."""
    sel = selectors.DefaultSelector()
    reconnects = 0
    partial = b"POST /mcp HTTP/1.1\r\nHost: local"

    def connect():
        s = socket.socket()
        s.setblocking(False)
        s.connect_ex(("127.0.0.1", port))
        sel.register(s, selectors.EVENT_WRITE, "connecting")

    for _ in range(holders):
        connect()
    stopped = []
    signal.signal(signal.SIGTERM, lambda *_: stopped.append(1))
    end = time.monotonic() + seconds
    next_drip = time.monotonic() + 1
    while time.monotonic() < end and not stopped:
        for key, _ in sel.select(timeout=0.1):
            s = key.fileobj
            if key.data == "connecting":
                if s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) != 0:
                    sel.unregister(s)
                    s.close()
                    connect()
                    continue
                if slow:
                    try:
                        s.send(partial)
                    except OSError:
                        pass
                sel.modify(s, selectors.EVENT_READ, "open")
                continue
            try:
                data = s.recv(4096)
            except BlockingIOError:
                continue
            except OSError:
                data = b""
            if not data:
                sel.unregister(s)
                s.close()
                reconnects += 1
                connect()
        if slow and time.monotonic() >= next_drip:
            next_drip += 1
            for key in list(sel.get_map().values()):
                if key.data == "open":
                    try:
                        key.fileobj.send(b"h")
                    except OSError:
                        pass
    print(reconnects, flush=True)


def request_bytes(token):
    body = json.dumps({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "echo", "arguments": {"text": "hi"},
                   "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                             "io.modelcontextprotocol/clientCapabilities": {}}}}).encode()
    head = ("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            "Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n"
            "Mcp-Method: tools/call\r\nMcp-Name: echo\r\nConnection: close\r\n"
            f"Content-Length: {len(body)}\r\n")
    if token:
        head += f"Authorization: Bearer {token}\r\n"
    return (head + "\r\n").encode() + body


def attempt(port, payload):
    """One request on a new connection: its status, or None when it got no answer."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=LOST_S) as s:
            s.sendall(payload)
            got = b""
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                got += chunk
    except OSError:
        return None
    m = re.match(rb"HTTP/1\.1 (\d{3})", got)
    return int(m.group(1)) if m else None


def client(port, payload, requests):
    """Latencies in ms of `requests` requests, and how many needed a second attempt."""
    latencies, retried = [], 0
    phase_end = time.monotonic() + PHASE_S
    for _ in range(requests):
        if time.monotonic() > phase_end:
            break
        start = time.perf_counter()
        tries = 0
        while True:
            tries += 1
            status = attempt(port, payload)
            took = time.perf_counter() - start
            if status == 200:
                latencies.append(took * 1000)
                break
            if took >= LOST_S:
                latencies.append(LOST_S * 1000)
                break
        retried += tries > 1
    return latencies, retried


def pct(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--hold":
        port, holders, slow, seconds = sys.argv[2:6]
        hold(int(port), int(holders), slow == "slow", float(seconds))
        return
    argv = sys.argv[1:]
    extra = []
    if "--" in argv:
        extra = argv[argv.index("--") + 1:]
        argv = argv[:argv.index("--")]
    ap = argparse.ArgumentParser()
    ap.add_argument("bin")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--requests", type=int, default=1000)
    ap.add_argument("--holders", type=int, default=200)
    ap.add_argument("--token", action="store_true")
    args = ap.parse_args(argv)

    token = None
    cmd = [args.bin, "serve", "--profile", "conformance", "--http", "127.0.0.1:0"] + extra
    scratch = tempfile.mkdtemp()
    if args.token:
        token = "bench-token"
        path = os.path.join(scratch, "token")
        with open(path, "w") as f:
            f.write(token + "\n")
        cmd += ["--token-file", path]
    server = subprocess.Popen(cmd, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    line = server.stderr.readline().decode()
    port = int(re.search(r"127\.0\.0\.1:(\d+)", line).group(1))
    warnings = []

    def drain():
        for raw in server.stderr:
            if b": warn:" in raw:
                warnings.append(raw)

    threading.Thread(target=drain, daemon=True).start()
    payload = request_bytes(token)
    client(port, payload, 50)  # warm up

    results = {p: ([], 0, [], 0) for p in ("unloaded", "idle", "slow")}
    for _ in range(args.rounds):
        for phase in ("unloaded", "idle", "slow"):
            holder = None
            before = len(warnings)
            if phase != "unloaded":
                holder = subprocess.Popen(
                    [sys.executable, __file__, "--hold", str(port), str(args.holders), phase,
                     str(PHASE_S + 5)], stdout=subprocess.PIPE)
                time.sleep(1.0)  # every holder connected, the places taken
            started = time.monotonic()
            lat, retried = client(port, payload, args.requests)
            took = time.monotonic() - started
            rate = 0
            if holder:
                holder.terminate()
                out = holder.communicate()[0].decode().strip()
                rate = int(out) / (took + 1.0) if out else 0
            all_lat, all_retried, rates, logged = results[phase]
            all_lat.extend(lat)
            rates.append(rate)
            results[phase] = (all_lat, all_retried + retried, rates, logged + len(warnings) - before)
            time.sleep(0.5)
    server.kill()
    server.wait()

    print(f"{args.bin} {' '.join(extra)}{' --token-file' if token else ''}: "
          f"{args.rounds} rounds x {args.requests} requests, {args.holders} holders")
    print("| phase | requests | p50 ms | p99 ms | max ms | retried | lost | holder reconnects/s | warning lines |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for phase, (lat, retried, rates, logged) in results.items():
        lost = sum(1 for v in lat if v >= LOST_S * 1000)
        print(f"| {phase} | {len(lat)} | {statistics.median(lat):.3f} | {pct(lat, 0.99):.3f} | "
              f"{max(lat):.1f} | {retried} | {lost} | {statistics.median(rates):,.0f} | {logged} |")
    base = pct(results["unloaded"][0], 0.99)
    for phase in ("idle", "slow"):
        print(f"p99 {phase}/unloaded: {pct(results[phase][0], 0.99) / base:.2f}")


if __name__ == "__main__":
    main()
