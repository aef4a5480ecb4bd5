#!/usr/bin/env python3
"""What peers without the token cost the HTTP server in memory: PEERS connections (default 64,
the `--max-connections` default) each send a head with a wrong bearer token announcing a
1,000,000-byte body (under the 1 MiB `--max-message-bytes`), then 990,000 bytes of it, and
wait.

Drives `minimcp serve --http --token-file` (conformance profile) with the standard library
only. Prints the server's resident memory (VmRSS, Linux /proc) before and after, its peak,
and how many peers got their 401 within 3 s. A server that reads a body before checking the
token holds every one of them and answers none until `--http-timeout` (60 s here); one that
checks the head first answers at once and holds none. A figure, not a test (the test is
`tests/http.rs` `refused_heads_leave_their_bodies_unread_so_memory_stays_flat`).

    python3 benches/refused_bodies.py BIN [PEERS]
"""

import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time

LENGTH, SENT = 1_000_000, 990_000


def main():
    binary = sys.argv[1]
    peers = int(sys.argv[2]) if len(sys.argv) > 2 else 64
    with tempfile.NamedTemporaryFile("w", suffix=".token", delete=False) as token:
        token.write("s3cret\n")
    server = subprocess.Popen(
        [binary, "serve", "--profile", "conformance", "--http", "127.0.0.1:0",
         "--token-file", token.name, "--http-timeout", "60"],
        stdin=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        listening = re.search(rb"127\.0\.0\.1:(\d+)", server.stderr.readline())
        port = int(listening.group(1))
        threading.Thread(target=lambda: server.stderr.read(), daemon=True).start()

        def kib(field):
            with open(f"/proc/{server.pid}/status") as status:
                for line in status:
                    if line.startswith(field + ":"):
                        return int(line.split()[1])
            return 0

        time.sleep(0.3)
        before = kib("VmRSS")
        head = ("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                "Accept: application/json, text/event-stream\r\nAuthorization: Bearer wrong\r\n"
                f"Content-Length: {LENGTH}\r\n\r\n").encode()
        streams, answers = [], []

        def peer():
            stream = socket.create_connection(("127.0.0.1", port))
            streams.append(stream)  # kept open until the figure is taken
            try:
                stream.sendall(head + b" " * SENT)
                stream.settimeout(3)
                answers.append(stream.recv(12))
            except OSError:
                pass

        threads = [threading.Thread(target=peer) for _ in range(peers)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        time.sleep(0.5)
        after, peak = kib("VmRSS"), kib("VmHWM")
        refused = sum(1 for a in answers if a.startswith(b"HTTP/1.1 401"))
        print(f"{peers} peers, {SENT:,} bytes each: RSS {before:,} KiB before, {after:,} KiB "
              f"after (+{after - before:,} KiB), peak {peak:,} KiB; 401 within 3 s: {refused}")
        for stream in streams:
            stream.close()
    finally:
        server.kill()
        server.wait()
        os.unlink(token.name)


if __name__ == "__main__":
    main()
