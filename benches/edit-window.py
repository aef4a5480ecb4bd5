#!/usr/bin/env python3
"""How long a program that takes no part in minimcp's locking (an editor writing the file
directly) has to lose its change to a write of the edit toolset: the time between the server's
last look at the file's content and the rename that replaces it.

Drives `BIN --root DIR --toolsets workspace,edit --log-level debug` over stdio with the
standard library only. For each size, ROUNDS times: `read_file` (the session's read), then
`write_file` and `edit_file` of one line (each the real thing: temporary file, fsync,
lock, check, rename). The server logs, at debug level, for each replaced file:

    `NAME`: unguarded for N µs from reading it under the lock to the rename, M µs from the
    comparison (B bytes)

N runs from the moment it starts reading the file it compares (a change to a part already
read is not seen) to the moment the rename returns; M from the end of the comparison.
An older build is measured the same way when it is given the same log line (scratch
instrumentation; see benches/README.md). Prints p50, p99 and max per size. A figure for
SECURITY.md, not a test: the numbers depend on the machine and its load.

    python3 benches/edit-window.py BIN [ROUNDS=200] [SIZES=1000,400000]
"""

import json
import re
import statistics
import subprocess
import sys
import tempfile
import threading

LINE = re.compile(
    r"unguarded for (\d+) µs from reading it under the lock to the rename, (\d+) µs from the comparison \((\d+) bytes\)"
)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    binary = sys.argv[1]
    args = dict(a.split("=", 1) for a in sys.argv[2:])
    rounds = int(args.get("ROUNDS", 200))
    sizes = [int(s) for s in args.get("SIZES", "1000,400000").split(",")]
    with tempfile.TemporaryDirectory(prefix="edit-window-") as root:
        server = subprocess.Popen(
            [binary, "--root", root, "--toolsets", "workspace,edit", "--log-level", "debug"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        windows = []
        reader = threading.Thread(target=collect, args=(server.stderr, windows), daemon=True)
        reader.start()
        ids = iter(range(1, 10**9))

        def request(method, params):
            message = {"jsonrpc": "2.0", "id": next(ids), "method": method, "params": params}
            server.stdin.write(json.dumps(message) + "\n")
            server.stdin.flush()
            answer = {}
            while answer.get("id") != message["id"]:  # notifications come in between
                answer = json.loads(server.stdout.readline())
            if "result" not in answer or answer["result"].get("isError"):
                sys.exit(f"{method} {params.get('name')}: {answer}")
            return answer["result"]

        request("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                               "clientInfo": {"name": "edit-window", "version": "1"}})
        server.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
        for size in sizes:
            name = f"f{size}.txt"
            body = "".join(f"{i:08} some text of the file\n" for i in range(size // 30))
            base = (body + "x" * size)[: size - 4] + "END\n"
            with open(f"{root}/{name}", "w") as f:
                f.write(base)
            for r in range(rounds):
                call = lambda tool, arguments: request("tools/call", {"name": tool, "arguments": arguments})
                call("read_file", {"path": name, "limit": 1})
                content = base[:-4] + f"{r:04}" + "END\n"
                call("write_file", {"path": name, "content": content})
                call("edit_file", {"path": name, "edits": [{"old_text": f"{r:04}END\n", "new_text": "END\n"}]})
        server.stdin.close()
        server.wait(timeout=60)
        reader.join(timeout=10)
    print(f"{binary}: {rounds} rounds of write_file + edit_file per size")
    print("| file | writes | from the read: p50 µs | p99 µs | max µs | from the comparison: p50 µs | p99 µs |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for size in sizes:
        mine = [(read, compared) for read, compared, b in windows if abs(b - size) <= 8]
        if not mine:
            sys.exit(f"no window was logged for {size} bytes: does {binary} log it?")
        read = sorted(r for r, _ in mine)
        compared = sorted(c for _, c in mine)
        p99 = lambda xs: xs[min(len(xs) - 1, int(len(xs) * 0.99))]
        print(
            f"| {size:,} bytes | {len(mine)} | {statistics.median(read):,.0f} | {p99(read):,} | {read[-1]:,} "
            f"| {statistics.median(compared):,.0f} | {p99(compared):,} |"
        )


def collect(stream, windows):
    for line in stream:
        found = LINE.search(line)
        if found:
            windows.append((int(found.group(1)), int(found.group(2)), int(found.group(3))))


if __name__ == "__main__":
    main()
