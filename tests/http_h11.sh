#!/usr/bin/env bash
# A second, independent oracle for HTTP/1.1 framing: Python's h11, a server-side
# HTTP/1.1 parser nobody here wrote, reads the same bytes minimcp reads. The corpus is the
# named smuggling attacks of tests/http_framing.rs plus random damage of valid requests, each
# followed by a legitimate pipelined request; every request is a 2026-07-28 echo call with
# its own JSON-RPC id, so minimcp's answers say which requests it executed. The rule: every
# request minimcp executes, h11 (`h11.Connection(h11.SERVER)`) also parses, whole, from
# the same bytes. Exits non-zero on any violation, and when PyPI cannot be reached.
#
#   tests/http_h11.sh                       # from anywhere
#   H11_CASES=20000 H11_SEED=7 tests/http_h11.sh
#
# What h11 accepts that minimcp refuses on purpose (so the rule only runs one way):
#   - bare LF as a line end, and LF LF as the end of the head (RFC 9112 §2.2 lets a server
#     refuse; behind nginx a disagreement about line ends is a smuggling vector);
#   - obs-fold continuation lines (h11 unfolds them; §5.2 lets a server answer 400);
#   - an empty line before the request line (minimcp refuses it: strict, simplest);
#   - a Content-Length list of equal values (`5, 5`) or repeated equal fields;
#   - control characters other than NUL, CR, LF in field values (§5.5 forbids them);
#   - non-UTF-8 bytes (obs-text) in the head;
#   - Host values that are not RFC 3986 `host [ ":" port ]` (h11 does not check), and a
#     second Origin or Authorization;
#   - request targets with characters outside RFC 3986 (h11 takes any VCHAR), the asterisk
#     and authority forms, and HTTP versions other than 1.0 and 1.1.
# What minimcp accepts that h11 refuses, and is therefore not generated or is exempt:
#   - a Transfer-Encoding list with empty elements (` ,chunked , `: RFC 9110 §5.6.1 says a
#     recipient must accept empty elements; h11 wants exactly `chunked`), and several
#     Transfer-Encoding field lines that combine to `chunked`;
#   - chunk sizes with more than 20 hex digits (leading zeros; RFC 9112 has no limit);
#   - whitespace between a chunk size and its first `;` (RFC 9112 §7.1.1's BWS, which a
#     recipient must accept; h11 wants the `;` right after the size);
#   - an HTTP/1.0 request with `Connection: keep-alive` keeps the connection (RFC 9112
#     §9.3 allows it; h11 always closes after HTTP/1.0): parsing goes on with a fresh h11
#     connection after such a request.
# Environment: MINIMCP_BIN (default: the debug build, built here), H11_CASES (random cases,
# default 20000), H11_SEED (default random; printed).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [ -z "${MINIMCP_BIN:-}" ]; then
  (cd "$ROOT" && cargo build --quiet --bin minimcp)
  MINIMCP_BIN="${CARGO_TARGET_DIR:-$ROOT/target}/debug/minimcp"
fi

venv="${TMPDIR:-/tmp}/minimcp-h11-venv"
if ! "$venv/bin/python" -c "import h11" 2>/dev/null; then
  python3 -m venv "$venv" || { echo "http_h11: FAILED: cannot create a Python venv" >&2; exit 1; }
  "$venv/bin/python" -m pip install --quiet "h11==0.16.0" \
    || { echo "http_h11: FAILED: cannot install h11 from PyPI" >&2; exit 1; }
fi

exec "$venv/bin/python" - "$MINIMCP_BIN" <<'PYTHON'
import json
import os
import random
import re
import socket
import subprocess
import sys
import threading
import time

import h11

binary = sys.argv[1]
cases = int(os.environ.get("H11_CASES", "20000"))
seed = int(os.environ.get("H11_SEED", str(random.randrange(2**32))))
print(f"http_h11: h11 {h11.__version__}, seed {seed}, {cases} random cases "
      f"(replay: H11_SEED={seed} H11_CASES={cases})")
rng = random.Random(seed)

server = subprocess.Popen(
    [binary, "serve", "--profile", "conformance", "--http", "127.0.0.1:0"],
    stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
first = server.stderr.readline().decode()
match = re.search(r"http://127\.0\.0\.1:(\d+)/", first)
if not match:
    sys.exit(f"http_h11: FAILED: the server did not start: {first}")
port = int(match.group(1))
threading.Thread(target=lambda: server.stderr.read(), daemon=True).start()


def body(i):
    return json.dumps({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {
        "name": "echo", "arguments": {"text": f"t{i}"},
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                  "io.modelcontextprotocol/clientCapabilities": {}}}}).encode()


def head(line=b"POST /mcp HTTP/1.1", fields=b""):
    return (line + b"\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n"
            b"Mcp-Method: tools/call\r\nMcp-Name: echo\r\n" + fields)


def sized(i):
    b = body(i)
    return head(fields=b"Content-Length: %d\r\n" % len(b)) + b"\r\n" + b


def chunks(data, size=40):
    out = b""
    for k in range(0, len(data), size):
        part = data[k:k + size]
        out += b"%x\r\n" % len(part) + part + b"\r\n"
    return out + b"0\r\n\r\n"


def chunked(i, size):
    return head(fields=b"Transfer-Encoding: chunked\r\n") + b"\r\n" + chunks(body(i), size)


def attacks(a, s):
    ba, n, sm = body(a), len(body(a)), sized(s)
    cl = lambda v: head(fields=b"Content-Length: " + v + b"\r\n") + b"\r\n" + ba
    framed = lambda fields, rest: head(fields=fields) + b"\r\n" + rest
    te = lambda v: framed(b"Transfer-Encoding: " + v + b"\r\n", chunks(ba))
    line = lambda l: head(line=l, fields=b"Content-Length: %d\r\n" % n) + b"\r\n" + ba
    nb = str(n).encode()
    out = {
        "cl plus": cl(b"+" + nb), "cl minus": cl(b"-" + nb), "cl zeros": cl(b"000" + nb),
        "cl ows": cl(b" \t" + nb + b"\t "), "cl hex": cl(b"0x%x" % n),
        "cl list equal": cl(nb + b", " + nb), "cl list differ": cl(nb + b", %d" % (n + len(sm))),
        "cl overflow": cl(b"18446744073709551616"), "cl empty": cl(b""),
        "cl twice": framed(b"Content-Length: %d\r\nContent-Length: %d\r\n" % (n, n), ba),
        "cl differ": framed(b"Content-Length: %d\r\nContent-Length: %d\r\n" % (n + len(sm), n), ba + sm),
        "te chunked": te(b"chunked"), "te Chunked": te(b"Chunked"), "te ows": te(b" ,chunked , "), "te twice": te(b"chunked, chunked"),
        "te gzip": te(b"gzip, chunked"), "te last gzip": te(b"chunked, gzip"),
        "te xchunked": te(b"xchunked"), "te params": te(b"chunked;q=1"), "te empty": te(b""),
        "te two fields": framed(b"Transfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n", chunks(ba)),
        "te and cl": framed(b"Transfer-Encoding: chunked\r\nContent-Length: %d\r\n" % n, chunks(ba)),
        "cl.te": framed(b"Content-Length: 5\r\nTransfer-Encoding: chunked\r\n", b"0\r\n\r\n" + sm),
        "te 1.0": head(line=b"POST /mcp HTTP/1.0", fields=b"Transfer-Encoding: chunked\r\n") + b"\r\n" + chunks(ba),
        "chunk overflow": framed(b"Transfer-Encoding: chunked\r\n", b"1" + b"0" * 16 + b"\r\n" + ba + b"\r\n0\r\n\r\n"),
        "chunk plus": framed(b"Transfer-Encoding: chunked\r\n", b"+%x\r\n" % n + ba + b"\r\n0\r\n\r\n"),
        "chunk ext": framed(b"Transfer-Encoding: chunked\r\n", b"%x;a=b ; c = \"d;\\\"e\"\r\n" % n + ba + b"\r\n0;z\r\n\r\n"),
        "chunk bad ext": framed(b"Transfer-Encoding: chunked\r\n", b"%x;\r\n" % n + ba + b"\r\n0\r\n\r\n"),
        "chunk LF": framed(b"Transfer-Encoding: chunked\r\n", b"%x\n" % n + ba + b"\r\n0\r\n\r\n"),
        "chunk trailers": framed(b"Transfer-Encoding: chunked\r\n", b"%x\r\n" % n + ba + b"\r\n0\r\nX-T: 1\r\n\r\n"),
        "chunk no CRLF": framed(b"Transfer-Encoding: chunked\r\n", b"%x\r\n" % n + ba + b"0\r\n\r\n"),
        "chunk short": framed(b"Transfer-Encoding: chunked\r\n", b"%x\r\n" % (n - 1) + ba + b"\r\n0\r\n\r\n"),
        "chunk hides": framed(b"Transfer-Encoding: chunked\r\n", b"%x\r\n" % n + ba + b"\r\n0\r\n" + sm + b"\r\n\r\n"),
        "bare LF": framed(b"X-A: 1\nContent-Length: %d\r\n" % len(sm), sm),
        "LF LF": head(fields=b"Content-Length: %d\n" % n) + b"\n" + ba,
        "bare CR": framed(b"X-A: 1\rContent-Length: %d\r\n" % n, ba),
        "NUL": framed(b"X-A: 1\x002\r\nContent-Length: %d\r\n" % n, ba),
        "obs-fold": framed(b"X-A: 1\r\n Content-Length: 0\r\nContent-Length: %d\r\n" % n, ba),
        "space colon": framed(b"Content-Length : %d\r\n" % n, ba),
        "two hosts": framed(b"Host: 127.0.0.1\r\nContent-Length: %d\r\n" % n, ba),
        "absolute": line(b"POST http://127.0.0.1/mcp HTTP/1.1"),
        "absolute userinfo": line(b"POST http://127.0.0.1:1@evil.example/mcp HTTP/1.1"),
        "asterisk": line(b"POST * HTTP/1.1"), "double space": line(b"POST  /mcp HTTP/1.1"),
        "lowercase": line(b"post /mcp HTTP/1.1"), "1.2": line(b"POST /mcp HTTP/1.2"),
        "1.0": line(b"POST /mcp HTTP/1.0"), "leading CRLF": b"\r\n" + sized(a),
        "close": framed(b"Connection: close\r\nContent-Length: %d\r\n" % n, ba),
        "1.0 keep-alive": head(line=b"POST /mcp HTTP/1.0", fields=b"Connection: keep-alive\r\nContent-Length: %d\r\n" % n) + b"\r\n" + ba,
    }
    for host in [b"127.0.0.1:1@evil.example", b"a b", b"", b"[::1"]:
        out["bad host " + host.decode()] = sized(a).replace(b"Host: 127.0.0.1", b"Host: " + host, 1)
    return out


INTERESTING = b"\r\n\r\n \t:;,+-0123456789aAfF\"=\x00\x0b\x7f\xff/?@[]"


def damaged(i):
    kind = rng.randrange(3)
    data = bytearray(sized(i) if kind == 0 else chunked(i, rng.randrange(1, 80)) if kind == 1 else
                     head(fields=b"Content-Length: %d\r\nConnection: keep-alive\r\n" % len(body(i))) + b"\r\n" + body(i))
    for _ in range(rng.randrange(1, 5)):
        end = data.find(b"\r\n\r\n")
        head_len = len(data) if end < 0 else end + 4
        at = rng.randrange(len(data) + 1) if rng.randrange(4) == 0 else min(rng.randrange(head_len + 12), len(data))
        byte = rng.randrange(256) if rng.randrange(5) == 0 else INTERESTING[rng.randrange(len(INTERESTING))]
        op = rng.randrange(3)
        if op == 0 and at < len(data):
            data[at] = byte
        elif op == 1 and at < len(data):
            del data[at]
        else:
            data.insert(at, byte)
    return bytes(data)


def h11_reads(data):
    """The bodies h11 reads whole from `data`, as a server, in order."""
    bodies, rest = [], data
    while True:
        conn = h11.Connection(h11.SERVER)
        conn.receive_data(rest)
        conn.receive_data(b"")
        body, again = b"", None
        while again is None:
            try:
                event = conn.next_event()
            except h11.RemoteProtocolError:
                return bodies
            if event is h11.NEED_DATA or isinstance(event, h11.ConnectionClosed):
                return bodies
            if isinstance(event, h11.Request):
                request, body = event, b""
            elif isinstance(event, h11.Data):
                body += event.data
            elif isinstance(event, h11.EndOfMessage):
                bodies.append(body)
                conn.send(h11.Response(status_code=200, headers=[("Content-Length", "0")]))
                conn.send(h11.EndOfMessage())
                if conn.our_state is h11.MUST_CLOSE:
                    options = [o.strip().lower() for name, value in request.headers
                               if name == b"connection" for o in value.split(b",")]
                    if request.http_version == b"1.0" and b"keep-alive" in options and b"close" not in options:
                        again = conn.trailing_data[0]  # RFC 9112 §9.3: minimcp keeps it
                    else:
                        return bodies
                else:
                    conn.start_next_cycle()
        rest = again


def exchange(data):
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        try:
            sock.sendall(data)
            sock.shutdown(socket.SHUT_WR)
        except OSError:
            pass
        out = b""
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                chunk = sock.recv(65536)
            except ConnectionResetError:
                return out
            if not chunk:
                return out
            out += chunk
        raise AssertionError(f"the connection did not end: {data!r}")


def executed(out):
    """The JSON-RPC ids minimcp answered in `out`."""
    ids = []
    while True:
        end = out.find(b"\r\n\r\n")
        if end < 0:
            return ids
        head_text, out = out[:end].decode("latin-1"), out[end + 4:]
        status = int(head_text.split(" ")[1])
        fields = {l.split(":", 1)[0].lower(): l.split(":", 1)[1].strip()
                  for l in head_text.split("\r\n")[1:] if ":" in l}
        if status < 200:
            continue
        if "content-length" in fields:
            n = int(fields["content-length"])
            payload, out = out[:n], out[n:]
        else:
            payload = b""
            while True:
                nl = out.find(b"\r\n")
                size = int(out[:nl], 16)
                payload += out[nl + 2:nl + 2 + size]
                out = out[nl + 4 + size:]
                if size == 0:
                    break
        try:
            messages = [json.loads(payload)]
        except ValueError:
            messages = [json.loads(l[6:]) for l in payload.decode().splitlines() if l.startswith("data: ") and l[6:]]
        ids += [m["id"] for m in messages if isinstance(m.get("id"), int)]


def ids_of(bodies):
    out = set()
    for b in bodies:
        try:
            value = json.loads(b)
        except ValueError:
            continue
        if isinstance(value, dict) and isinstance(value.get("id"), int):
            out.add(value["id"])
    return out


EMPTY_ELEMENTS = re.compile(rb"(?i)Transfer-Encoding:[ \t,]*chunked[ \t,]*\r\n")
counter = [10_000]


def fresh():
    counter[0] += 3
    return counter[0], counter[0] + 1, counter[0] + 2


failures, ran, answered, h11_refused, exempt = [], 0, 0, 0, 0
named = list(attacks(0, 0))
start = time.monotonic()
for step in range(len(named) * 2 + cases):
    a, s, f = fresh()
    if step < len(named) * 2:
        name = named[step // 2]
        data = attacks(a, s)[name] + (sized(f) if step % 2 else b"")
    else:
        name = "random"
        data = (attacks(a, s)[rng.choice(named)] if rng.randrange(4) == 0 else damaged(a)) + sized(f)
    ours = executed(exchange(data))
    theirs = ids_of(h11_reads(data))
    ran += 1
    answered += len(ours)
    h11_refused += len(theirs) == 0
    extra = set(ours) - theirs
    if extra and EMPTY_ELEMENTS.search(data):
        # A Transfer-Encoding list with empty elements, which h11 refuses (see the header):
        # h11 must read the same requests once they are dropped.
        extra -= ids_of(h11_reads(EMPTY_ELEMENTS.sub(b"Transfer-Encoding: chunked\r\n", data)))
        exempt += not extra
    if extra:
        failures.append((name, sorted(extra), data))
        if len(failures) >= 5:
            break
check = executed(exchange(sized(1)))
server.kill()
print(f"http_h11: {ran} cases ({len(named) * 2} named) in {time.monotonic() - start:.1f}s; "
      f"minimcp answered {answered} ids; h11 read nothing in {h11_refused}; "
      f"{exempt} accepted only with a Transfer-Encoding list's empty elements dropped")
if check != [1]:
    sys.exit("http_h11: FAILED: the server no longer answers")
for name, extra, data in failures:
    print(f"http_h11: FAILED: {name}: minimcp executed {extra}, which h11 does not read: {data!r}")
if failures:
    sys.exit(1)
print("http_h11: ok: every request minimcp executed, h11 read too")
PYTHON
