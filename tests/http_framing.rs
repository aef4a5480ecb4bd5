//! HTTP/1.1 framing against request smuggling: the real binary (`serve --http`)
//! is sent named attacks and randomly damaged requests, each followed by a legitimate
//! pipelined request on the same connection, and every request it executes must be one a
//! strict RFC 9112 reader — written here from the grammar, independently of
//! `crates/minimcp-http/src/wire.rs` — also executes.
//!
//! Every request is a 2026-07-28 `tools/call` of the conformance profile's `echo` with its
//! own JSON-RPC id and text, so the answers tell which requests ran. Invariants per case:
//! the ids answered are a subset of the ids in the requests the reference reader accepts
//! (and an answered echo's text is that request's text); the connection ends (the client
//! half-closes after writing, so a server waiting for more body sees the end); the server
//! stays up (a fresh connection is answered).
//!
//! `cargo test` runs a fixed seed and a few thousand cases. `MINIMCP_FUZZ_CASES=N` and
//! `MINIMCP_FUZZ_SEED=S` (a random seed when `MINIMCP_FUZZ_CASES` is set alone) make it
//! longer; the seed is printed so a failure can be replayed. `MINIMCP_FRAMING_BIN` runs
//! the cases against another build (an older one, to see them fail).

use std::collections::{BTreeMap, BTreeSet};
use std::io::{Read, Write};
use std::net::{Shutdown, TcpStream};
use std::process::Child;
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

mod common;

use common::rng::Rng;

const DEFAULT_CASES: usize = 5000;
const DEFAULT_SEED: u64 = 0x5eed_17f4_a11e_d001;

// ---- The server ------------------------------------------------------------------------

struct Server {
    child: Child,
    port: u16,
}

impl Server {
    fn start() -> Server {
        let program =
            std::env::var("MINIMCP_FRAMING_BIN").unwrap_or_else(|_| common::minimcp().to_string());
        let (child, port, mut stderr) =
            common::spawn_http_with(&program, &[]).expect("the server starts");
        thread::spawn(move || {
            let _ = std::io::copy(&mut stderr, &mut std::io::sink());
        });
        Server { child, port }
    }

    /// Sends `bytes`, half-closes, and reads everything until the server closes. `None`
    /// when it neither closes nor finishes within the timeout.
    fn exchange(&self, bytes: &[u8]) -> Option<Vec<u8>> {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).expect("connect");
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .expect("timeout");
        // The server may close before taking everything: a failed write is an answer too.
        let _ = stream.write_all(bytes);
        let _ = stream.shutdown(Shutdown::Write);
        let mut out = Vec::new();
        let started = Instant::now();
        let mut chunk = [0u8; 16 * 1024];
        loop {
            match stream.read(&mut chunk) {
                Ok(0) => return Some(out),
                Ok(n) => out.extend_from_slice(&chunk[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => return Some(out),
                Err(_) => return None,
            }
            if started.elapsed() > Duration::from_secs(10) {
                return None;
            }
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

// ---- Requests ----------------------------------------------------------------------------

/// The JSON body of the echo call `id` (its text is `t<id>`).
fn body(id: u64) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
        "name": "echo", "arguments": {"text": format!("t{id}")},
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                  "io.modelcontextprotocol/clientCapabilities": {}}}})
    .to_string()
}

/// The head of an echo call without its blank line: request line, the usual fields, then
/// `framing` (field lines, each ending in CRLF).
fn head_with(line: &str, framing: &str) -> String {
    format!(
        "{line}\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: echo\r\n{framing}"
    )
}

fn head(framing: &str) -> String {
    head_with("POST /mcp HTTP/1.1", framing)
}

/// A well-framed echo call with Content-Length.
fn sized(id: u64) -> Vec<u8> {
    let b = body(id);
    format!("{}Content-Length: {}\r\n\r\n{b}", head(""), b.len()).into_bytes()
}

/// `data` in chunked coding, in chunks of `size` bytes.
fn chunks(data: &str, size: usize) -> String {
    let mut out = String::new();
    for part in data.as_bytes().chunks(size.max(1)) {
        out.push_str(&format!("{:x}\r\n", part.len()));
        out.push_str(std::str::from_utf8(part).expect("ascii"));
        out.push_str("\r\n");
    }
    out.push_str("0\r\n\r\n");
    out
}

/// A well-framed echo call with chunked coding.
fn chunked(id: u64, size: usize) -> Vec<u8> {
    format!(
        "{}Transfer-Encoding: chunked\r\n\r\n{}",
        head(""),
        chunks(&body(id), size)
    )
    .into_bytes()
}

/// The named attacks, for attack id `a` and smuggled id `s`: each a byte string that a
/// strict reader refuses, or reads differently from a lax one.
fn attacks(a: u64, s: u64) -> Vec<(&'static str, Vec<u8>)> {
    let ba = body(a);
    let n = ba.len();
    let smuggled = String::from_utf8(sized(s)).expect("utf8");
    let with_cl = |name: &'static str, value: &str| {
        let text = format!("{}Content-Length: {value}\r\n\r\n{ba}", head(""));
        (name, text.into_bytes())
    };
    let framed = |name: &'static str, fields: &str, rest: &str| {
        (name, format!("{}{fields}\r\n{rest}", head("")).into_bytes())
    };
    let te = |name: &'static str, value: &str| {
        framed(
            name,
            &format!("Transfer-Encoding: {value}\r\n"),
            &chunks(&ba, 40),
        )
    };
    let line = |name: &'static str, request_line: &str| {
        let text = format!(
            "{}Content-Length: {n}\r\n\r\n{ba}",
            head_with(request_line, "")
        );
        (name, text.into_bytes())
    };
    let mut all = vec![
        with_cl("cl plus", &format!("+{n}")),
        with_cl("cl minus", &format!("-{n}")),
        with_cl("cl leading zeros", &format!("000{n}")),
        with_cl("cl OWS", &format!(" \t{n}\t ")),
        with_cl("cl hex", &format!("0x{n:x}")),
        with_cl("cl inner space", &format!("{} {}", n / 10, n % 10)),
        with_cl("cl list equal", &format!("{n}, {n}")),
        with_cl("cl list differ", &format!("{n}, {}", n + smuggled.len())),
        with_cl("cl overflow", "18446744073709551616"),
        with_cl("cl huge", "99999999999999999999999999999999"),
        with_cl("cl empty", ""),
        with_cl("cl exponent", "1e2"),
        framed(
            "cl duplicate equal",
            &format!("Content-Length: {n}\r\nContent-Length: {n}\r\n"),
            &ba,
        ),
        framed(
            "cl duplicate differ",
            &format!(
                "Content-Length: {}\r\nContent-Length: {n}\r\n",
                n + smuggled.len()
            ),
            &format!("{ba}{smuggled}"),
        ),
        framed(
            "cl hides a request",
            &format!("Content-Length: +{}\r\n", n + smuggled.len()),
            &format!("{ba}{smuggled}"),
        ),
        te("te chunked", "chunked"),
        te("te Chunked", "Chunked"),
        te("te ows", " ,chunked , "),
        te("te twice", "chunked, chunked"),
        te("te gzip chunked", "gzip, chunked"),
        te("te chunked gzip", "chunked, gzip"),
        te("te xchunked", "xchunked"),
        te("te params", "chunked;q=1"),
        te("te identity", "identity"),
        te("te empty", ""),
        te("te quoted", "\"chunked\""),
        framed(
            "te two fields",
            "Transfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n",
            &chunks(&ba, 40),
        ),
        framed(
            "te two fields chunked",
            "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n",
            &chunks(&ba, 40),
        ),
        framed(
            "te and cl",
            &format!("Transfer-Encoding: chunked\r\nContent-Length: {n}\r\n"),
            &chunks(&ba, 40),
        ),
        framed(
            "cl.te smuggle",
            "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n",
            &format!("0\r\n\r\n{smuggled}"),
        ),
        (
            "te in http/1.0",
            format!(
                "{}Transfer-Encoding: chunked\r\n\r\n{}",
                head_with("POST /mcp HTTP/1.0", ""),
                chunks(&ba, 40)
            )
            .into_bytes(),
        ),
        framed(
            "chunk overflow",
            "Transfer-Encoding: chunked\r\n",
            &format!("1{}\r\n{ba}\r\n0\r\n\r\n", "0".repeat(20)),
        ),
        framed(
            "chunk size wraps",
            "Transfer-Encoding: chunked\r\n",
            &format!("10000000000000000{n:x}\r\n{ba}\r\n0\r\n\r\n"),
        ),
        framed(
            "chunk plus",
            "Transfer-Encoding: chunked\r\n",
            &format!("+{n:x}\r\n{ba}\r\n0\r\n\r\n"),
        ),
        framed(
            "chunk 0x",
            "Transfer-Encoding: chunked\r\n",
            &format!("0x{n:x}\r\n{ba}\r\n0\r\n\r\n"),
        ),
        framed(
            "chunk ext",
            "Transfer-Encoding: chunked\r\n",
            &format!("{n:x} ; a=b;c=\"d;\\\"e\"\r\n{ba}\r\n0;z\r\n\r\n"),
        ),
        framed(
            "chunk bad ext",
            "Transfer-Encoding: chunked\r\n",
            &format!("{n:x};\r\n{ba}\r\n0\r\n\r\n"),
        ),
        framed(
            "chunk ext bare LF",
            "Transfer-Encoding: chunked\r\n",
            &format!("{n:x};a\n{ba}\r\n0\r\n\r\n"),
        ),
        framed(
            "chunk size bare LF",
            "Transfer-Encoding: chunked\r\n",
            &format!("{n:x}\n{ba}\r\n0\r\n\r\n"),
        ),
        framed(
            "chunk trailers",
            "Transfer-Encoding: chunked\r\n",
            &format!("{n:x}\r\n{ba}\r\n0\r\nX-T: 1\r\nX-U: 2\r\n\r\n"),
        ),
        framed(
            "chunk trailer obs-fold",
            "Transfer-Encoding: chunked\r\n",
            &format!("{n:x}\r\n{ba}\r\n0\r\nX-T: 1\r\n 2\r\n\r\n"),
        ),
        framed(
            "chunk no crlf after data",
            "Transfer-Encoding: chunked\r\n",
            &format!("{n:x}\r\n{ba}0\r\n\r\n"),
        ),
        framed(
            "chunk short size",
            "Transfer-Encoding: chunked\r\n",
            &format!("{:x}\r\n{ba}\r\n0\r\n\r\n", n - 1),
        ),
        framed(
            "chunk hides a request",
            "Transfer-Encoding: chunked\r\n",
            &format!("{n:x}\r\n{ba}\r\n0\r\n{smuggled}\r\n\r\n"),
        ),
        framed(
            "bare LF between fields",
            &format!("X-A: 1\nContent-Length: {n}\r\n"),
            &ba,
        ),
        framed(
            "bare LF ends the head",
            &format!("Content-Length: {n}\r\n"),
            "",
        ),
        (
            "bare LF head end",
            format!("{}Content-Length: {n}\n\n{ba}", head("")).into_bytes(),
        ),
        (
            "LF CRLF head end",
            format!("{}Content-Length: {n}\n\r\n{ba}", head("")).into_bytes(),
        ),
        framed(
            "bare CR in a value",
            &format!("X-A: 1\r2\r\nContent-Length: {n}\r\n"),
            &ba,
        ),
        framed(
            "bare CR field end",
            &format!("X-A: 1\rContent-Length: {n}\r\n"),
            &ba,
        ),
        framed(
            "NUL in a value",
            &format!("X-A: 1\x002\r\nContent-Length: {n}\r\n"),
            &ba,
        ),
        framed(
            "VT in a value",
            &format!("X-A: \x0b1\r\nContent-Length: {n}\r\n"),
            &ba,
        ),
        framed(
            "obs-fold",
            &format!("X-A: 1\r\n Content-Length: 0\r\nContent-Length: {n}\r\n"),
            &ba,
        ),
        framed(
            "obs-fold tab",
            &format!("Content-Length: {n}\r\n\tX-A: 1\r\n"),
            &ba,
        ),
        framed(
            "space before colon",
            &format!("Content-Length : {n}\r\n"),
            &ba,
        ),
        framed(
            "te space before colon",
            "Transfer-Encoding : chunked\r\n",
            &chunks(&ba, 40),
        ),
        framed(
            "two hosts",
            &format!("Host: 127.0.0.1\r\nContent-Length: {n}\r\n"),
            &ba,
        ),
        framed(
            "two origins",
            &format!(
                "Origin: http://localhost\r\nOrigin: http://localhost\r\nContent-Length: {n}\r\n"
            ),
            &ba,
        ),
        line("absolute form", "POST http://127.0.0.1/mcp HTTP/1.1"),
        line(
            "absolute form userinfo",
            "POST http://127.0.0.1:1@evil.example/mcp HTTP/1.1",
        ),
        line(
            "absolute form foreign",
            "POST http://evil.example/mcp HTTP/1.1",
        ),
        line("asterisk form", "POST * HTTP/1.1"),
        line("authority form", "POST 127.0.0.1:80 HTTP/1.1"),
        line("double space", "POST  /mcp HTTP/1.1"),
        line("tab", "POST\t/mcp HTTP/1.1"),
        line("lowercase method", "post /mcp HTTP/1.1"),
        line("version 1.2", "POST /mcp HTTP/1.2"),
        line("version lowercase", "POST /mcp http/1.1"),
        line("version 1.0", "POST /mcp HTTP/1.0"),
        line("fragment", "POST /mcp#x HTTP/1.1"),
        ("leading CRLF", [b"\r\n".as_slice(), &sized(a)].concat()),
        (
            "connection close",
            format!(
                "{}Connection: close\r\nContent-Length: {n}\r\n\r\n{ba}",
                head("")
            )
            .into_bytes(),
        ),
        (
            "http/1.0 keep-alive",
            format!(
                "{}Connection: keep-alive\r\nContent-Length: {n}\r\n\r\n{ba}",
                head_with("POST /mcp HTTP/1.0", "")
            )
            .into_bytes(),
        ),
    ];
    for host in ["127.0.0.1:1@evil.example", "a b", "", "[::1", "localhost/x"] {
        let text = format!(
            "POST /mcp HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: echo\r\nContent-Length: {n}\r\n\r\n{ba}"
        );
        all.push(("bad host", text.into_bytes()));
    }
    all
}

/// A valid request damaged at a few random bytes (changed, inserted or deleted), with a
/// bias for the bytes framing is made of.
fn damaged(rng: &mut Rng, id: u64) -> Vec<u8> {
    let mut bytes = match rng.below(3) {
        0 => sized(id),
        1 => chunked(id, 1 + rng.below(80)),
        _ => {
            let b = body(id);
            let fields = format!("Content-Length: {}\r\nConnection: keep-alive\r\n", b.len());
            format!("{}\r\n{b}", head(&fields)).into_bytes()
        }
    };
    const INTERESTING: &[u8] = b"\r\n\r\n \t:;,+-0123456789aAfF\"=\x00\x0b\x7f\xff/?@[]";
    for _ in 0..1 + rng.below(4) {
        // Mostly in the head and around the framing, where it matters.
        let head_len = bytes
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .map_or(bytes.len(), |p| p + 4);
        let at = if rng.below(4) == 0 {
            rng.below(bytes.len() + 1)
        } else {
            rng.below(head_len + 12).min(bytes.len())
        };
        let byte = if rng.below(5) == 0 {
            rng.next() as u8
        } else {
            *rng.pick(INTERESTING)
        };
        match rng.below(3) {
            0 if at < bytes.len() => bytes[at] = byte,
            1 if at < bytes.len() => {
                bytes.remove(at);
            }
            _ => bytes.insert(at, byte),
        }
    }
    bytes
}

// ---- The reference reader, from RFC 9112's grammar ----------------------------------------

/// What a strict reader makes of a byte stream: the bodies of the requests it executes,
/// in order, and whether it stopped at an error.
fn reference(stream: &[u8]) -> (Vec<Vec<u8>>, bool) {
    let mut bodies = Vec::new();
    let mut at = 0;
    while at < stream.len() {
        match message(stream, at) {
            Some((body, next, close)) => {
                bodies.push(body);
                if close {
                    return (bodies, false);
                }
                at = next;
            }
            None => return (bodies, true),
        }
    }
    (bodies, false)
}

fn tchar(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

fn unreserved(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"-._~".contains(&b)
}

fn sub_delim(b: u8) -> bool {
    b"!$&'()*+,;=".contains(&b)
}

/// `s` is made of `allowed` bytes and `%HH` escapes.
fn pct_chars(s: &[u8], allowed: impl Fn(u8) -> bool) -> bool {
    let mut i = 0;
    while i < s.len() {
        if s[i] == b'%' {
            if !(i + 2 < s.len() && s[i + 1].is_ascii_hexdigit() && s[i + 2].is_ascii_hexdigit()) {
                return false;
            }
            i += 3;
        } else if allowed(s[i]) {
            i += 1;
        } else {
            return false;
        }
    }
    true
}

/// RFC 3986 `host [ ":" port ]` with a non-empty host (RFC 9110 §4.2.1, §7.2).
fn uri_host_port(s: &[u8]) -> bool {
    let (host, port): (&[u8], &[u8]) = if s.first() == Some(&b'[') {
        let Some(close) = s.iter().position(|&b| b == b']') else {
            return false;
        };
        let inner = &s[1..close];
        let literal = match inner.first() {
            Some(b'v' | b'V') => {
                let Some(dot) = inner.iter().position(|&b| b == b'.') else {
                    return false;
                };
                dot > 1
                    && inner[1..dot].iter().all(u8::is_ascii_hexdigit)
                    && dot + 1 < inner.len()
                    && inner[dot + 1..]
                        .iter()
                        .all(|&b| unreserved(b) || sub_delim(b) || b == b':')
            }
            _ => std::str::from_utf8(inner)
                .ok()
                .and_then(|t| t.parse::<std::net::Ipv6Addr>().ok())
                .is_some(),
        };
        if !literal {
            return false;
        }
        match &s[close + 1..] {
            [] => (&s[..=close], &[]),
            [b':', port @ ..] => (&s[..=close], port),
            _ => return false,
        }
    } else {
        match s.iter().position(|&b| b == b':') {
            Some(colon) => (&s[..colon], &s[colon + 1..]),
            None => (s, &[]),
        }
    };
    !host.is_empty()
        && (host[0] == b'[' || pct_chars(host, |b| unreserved(b) || sub_delim(b)))
        && port.iter().all(u8::is_ascii_digit)
}

/// origin-form or absolute-form (http/https, no userinfo) request target.
fn request_target(t: &[u8]) -> bool {
    let pchar = |b: u8| unreserved(b) || sub_delim(b) || b == b':' || b == b'@';
    let path_query = |p: &[u8]| {
        let (path, query) = match p.iter().position(|&b| b == b'?') {
            Some(q) => (&p[..q], &p[q + 1..]),
            None => (p, &[][..]),
        };
        pct_chars(path, |b| pchar(b) || b == b'/')
            && pct_chars(query, |b| pchar(b) || b == b'/' || b == b'?')
    };
    if t.first() == Some(&b'/') {
        return path_query(t);
    }
    let lower = t.to_ascii_lowercase();
    let rest = if lower.starts_with(b"http://") {
        &t[7..]
    } else if lower.starts_with(b"https://") {
        &t[8..]
    } else {
        return false;
    };
    let end = rest
        .iter()
        .position(|&b| b == b'/' || b == b'?')
        .unwrap_or(rest.len());
    uri_host_port(&rest[..end]) && path_query(&rest[end..])
}

/// The line starting at `at`, up to its CRLF, and where the next one starts. `None` for a
/// bare CR or LF, or when the stream ends first.
fn crlf_line(s: &[u8], at: usize) -> Option<(&[u8], usize)> {
    let mut i = at;
    loop {
        match *s.get(i)? {
            b'\r' => return (*s.get(i + 1)? == b'\n').then_some((&s[at..i], i + 2)),
            b'\n' => return None,
            _ => i += 1,
        }
    }
}

fn ows(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

fn trim_ows(mut v: &[u8]) -> &[u8] {
    while v.first().copied().is_some_and(ows) {
        v = &v[1..];
    }
    while v.last().copied().is_some_and(ows) {
        v = &v[..v.len() - 1];
    }
    v
}

/// `field-name ":" OWS field-value OWS`: the lowercase name and the value.
fn field(line: &[u8]) -> Option<(Vec<u8>, &[u8])> {
    let colon = line.iter().position(|&b| b == b':')?;
    let (name, value) = (&line[..colon], trim_ows(&line[colon + 1..]));
    let content = |b: u8| b == b' ' || b == b'\t' || (0x21..=0x7e).contains(&b) || b >= 0x80;
    (!name.is_empty() && name.iter().all(|&b| tchar(b)) && value.iter().all(|&b| content(b)))
        .then(|| (name.to_ascii_lowercase(), value))
}

/// One message from `at`: its body, where the next starts, and whether the connection
/// closes after it. `None`: a strict reader stops here.
fn message(s: &[u8], at: usize) -> Option<(Vec<u8>, usize, bool)> {
    let (line, mut at) = crlf_line(s, at)?;
    let parts: Vec<&[u8]> = line.split(|&b| b == b' ').collect();
    let [method, target, version] = parts.as_slice() else {
        return None;
    };
    if method.is_empty() || !method.iter().all(|&b| tchar(b)) || !request_target(target) {
        return None;
    }
    let http10 = match *version {
        b"HTTP/1.1" => false,
        b"HTTP/1.0" => true,
        _ => return None,
    };
    let mut fields: Vec<(Vec<u8>, &[u8])> = Vec::new();
    loop {
        let (line, next) = crlf_line(s, at)?;
        at = next;
        if line.is_empty() {
            break;
        }
        fields.push(field(line)?);
    }
    let all = |name: &[u8]| -> Vec<&[u8]> {
        fields
            .iter()
            .filter(|(n, _)| n == name)
            .map(|(_, v)| *v)
            .collect()
    };
    let list = |name: &[u8]| -> Vec<Vec<u8>> {
        all(name)
            .iter()
            .flat_map(|v| v.split(|&b| b == b','))
            .map(|item| trim_ows(item).to_ascii_lowercase())
            .filter(|item| !item.is_empty())
            .collect()
    };
    let hosts = all(b"host");
    if hosts.len() > 1 || (hosts.is_empty() && !http10) || !hosts.iter().all(|h| uri_host_port(h)) {
        return None;
    }
    let options = list(b"connection");
    let close = options.iter().any(|o| o == b"close")
        || (http10 && !options.iter().any(|o| o == b"keep-alive"));
    let lengths = all(b"content-length");
    let codings = list(b"transfer-encoding");
    let has_te = !all(b"transfer-encoding").is_empty();
    if has_te {
        if http10 || !lengths.is_empty() || codings != [b"chunked".to_vec()] {
            return None;
        }
        let (body, next) = chunked_body(s, at)?;
        return Some((body, next, close));
    }
    let length: usize = match lengths.as_slice() {
        [] => 0,
        [one] if !one.is_empty() && one.iter().all(u8::is_ascii_digit) => {
            std::str::from_utf8(one).ok()?.parse().ok()?
        }
        _ => return None,
    };
    let end = at.checked_add(length)?;
    Some((s.get(at..end)?.to_vec(), end, close))
}

/// `*chunk last-chunk trailer-section CRLF` from `at`: the data and where it ends.
fn chunked_body(s: &[u8], mut at: usize) -> Option<(Vec<u8>, usize)> {
    let mut data = Vec::new();
    loop {
        let (line, next) = crlf_line(s, at)?;
        let digits = line.iter().take_while(|b| b.is_ascii_hexdigit()).count();
        if digits == 0 || !chunk_ext(&line[digits..]) {
            return None;
        }
        let size = usize::from_str_radix(std::str::from_utf8(&line[..digits]).ok()?, 16).ok()?;
        at = next;
        if size == 0 {
            break;
        }
        let end = at.checked_add(size)?;
        data.extend_from_slice(s.get(at..end)?);
        if s.get(end..end + 2)? != b"\r\n" {
            return None;
        }
        at = end + 2;
    }
    loop {
        let (line, next) = crlf_line(s, at)?;
        at = next;
        if line.is_empty() {
            return Some((data, at));
        }
        field(line)?;
    }
}

/// `*( BWS ";" BWS name [ BWS "=" BWS ( token / quoted-string ) ] )`.
fn chunk_ext(mut e: &[u8]) -> bool {
    let skip_ws = |e: &mut &[u8]| {
        while e.first().copied().is_some_and(ows) {
            *e = &e[1..];
        }
    };
    let token = |e: &mut &[u8]| {
        let n = e.iter().take_while(|&&b| tchar(b)).count();
        *e = &e[n..];
        n > 0
    };
    while !e.is_empty() {
        skip_ws(&mut e);
        let Some(rest) = e.strip_prefix(b";") else {
            return false;
        };
        e = rest;
        skip_ws(&mut e);
        if !token(&mut e) {
            return false;
        }
        let mut look = e;
        skip_ws(&mut look);
        if let Some(rest) = look.strip_prefix(b"=") {
            e = rest;
            skip_ws(&mut e);
            if e.first() == Some(&b'"') {
                let mut i = 1;
                loop {
                    match e.get(i) {
                        None => return false,
                        Some(b'"') => break,
                        Some(b'\\') => {
                            let q = e.get(i + 1).copied();
                            if !q.is_some_and(|q| {
                                q == b'\t' || q == b' ' || (0x21..=0x7e).contains(&q) || q >= 0x80
                            }) {
                                return false;
                            }
                            i += 2;
                        }
                        Some(&b)
                            if b == b'\t'
                                || b == b' '
                                || b == 0x21
                                || (0x23..=0x7e).contains(&b)
                                || b >= 0x80 =>
                        {
                            i += 1
                        }
                        Some(_) => return false,
                    }
                }
                e = &e[i + 1..];
            } else if !token(&mut e) {
                return false;
            }
        } else if !look.is_empty() && look[0] != b';' {
            return false;
        } else if look.is_empty() && !e.is_empty() {
            return false; // whitespace last
        }
    }
    true
}

// ---- Reading the answers ------------------------------------------------------------------

/// Every answer in `bytes`: status and body (1xx skipped, a chunked body decoded).
fn answers(mut bytes: &[u8]) -> Vec<(u16, Vec<u8>)> {
    let mut out = Vec::new();
    while let Some(end) = bytes.windows(4).position(|w| w == b"\r\n\r\n") {
        let head = String::from_utf8_lossy(&bytes[..end]).into_owned();
        bytes = &bytes[end + 4..];
        let status: u16 = head
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("a status line: {head:?}"));
        let value = |name: &str| {
            head.split("\r\n").find_map(|l| {
                let (n, v) = l.split_once(':')?;
                n.eq_ignore_ascii_case(name).then(|| v.trim().to_string())
            })
        };
        if status < 200 {
            continue;
        }
        let body = if let Some(length) = value("content-length") {
            let length: usize = length.parse().expect("length");
            let body = bytes[..length.min(bytes.len())].to_vec();
            bytes = &bytes[length.min(bytes.len())..];
            body
        } else {
            let mut body = Vec::new();
            while let Some(nl) = bytes.windows(2).position(|w| w == b"\r\n") {
                let size = usize::from_str_radix(&String::from_utf8_lossy(&bytes[..nl]), 16)
                    .expect("chunk size");
                let start = nl + 2;
                body.extend_from_slice(&bytes[start..(start + size).min(bytes.len())]);
                bytes = &bytes[(start + size + 2).min(bytes.len())..];
                if size == 0 {
                    break;
                }
            }
            body
        };
        out.push((status, body));
    }
    out
}

/// The JSON-RPC messages of an answer's body (JSON, or event-stream data lines).
fn messages(body: &[u8]) -> Vec<Value> {
    if let Ok(value) = serde_json::from_slice::<Value>(body) {
        return vec![value];
    }
    String::from_utf8_lossy(body)
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .filter_map(|d| serde_json::from_str(d).ok())
        .collect()
}

/// The id and echo text of a request body, when it has a numeric id.
fn id_and_text(body: &[u8]) -> Option<(u64, Option<String>)> {
    let value: Value = serde_json::from_slice(body).ok()?;
    let id = value.get("id")?.as_u64()?;
    let text = value
        .pointer("/params/arguments/text")
        .and_then(Value::as_str)
        .map(str::to_string);
    Some((id, text))
}

// ---- The run -------------------------------------------------------------------------------

#[derive(Default)]
struct Stats {
    cases: usize,
    /// Cases where the reference reader stopped at an error.
    refused_by_reference: usize,
    /// Requests the reference executes, and those the server answered with their id.
    reference_requests: usize,
    executed: usize,
    /// Follow-ups answered, and follow-ups the reference reads that the server did not
    /// run: refused for something other than framing (a damaged method gets 405, a damaged
    /// Accept 406, a duplicate Origin 403), or framing stricter than the reference's.
    followups_answered: usize,
    not_run: usize,
}

/// Runs one case; panics with the bytes when an invariant breaks.
fn check(server: &Server, name: &str, bytes: &[u8], followup: u64, stats: &mut Stats) {
    let (bodies, stopped) = reference(bytes);
    let mut expected: BTreeMap<u64, BTreeSet<Option<String>>> = BTreeMap::new();
    for body in &bodies {
        if let Some((id, text)) = id_and_text(body) {
            expected.entry(id).or_default().insert(text);
        }
    }
    stats.cases += 1;
    stats.refused_by_reference += usize::from(stopped);
    stats.reference_requests += bodies.len();
    let shown = || String::from_utf8_lossy(bytes).into_owned();
    let Some(out) = server.exchange(bytes) else {
        panic!(
            "{name}: the connection neither finished nor closed: {:?}",
            shown()
        );
    };
    let mut answered = BTreeSet::new();
    for (status, body) in answers(&out) {
        for message in messages(&body) {
            let Some(id) = message.get("id").and_then(Value::as_u64) else {
                continue;
            };
            let Some(texts) = expected.get(&id) else {
                panic!(
                    "{name}: the server executed id {id} ({status}), which a strict reader never \
                     reads as a request\nsent: {:?}\nreference bodies: {:?}\nanswers: {:?}",
                    shown(),
                    bodies
                        .iter()
                        .map(|b| String::from_utf8_lossy(b).into_owned())
                        .collect::<Vec<_>>(),
                    String::from_utf8_lossy(&out)
                );
            };
            let failed = message.pointer("/result/isError") == Some(&Value::Bool(true));
            if let Some(text) = message
                .pointer("/result/content/0/text")
                .filter(|_| !failed)
                .and_then(Value::as_str)
            {
                assert!(
                    texts.contains(&Some(text.to_string())),
                    "{name}: id {id} answered {text:?}, not its request's text\nsent: {:?}",
                    shown()
                );
            }
            answered.insert(id);
            stats.executed += 1;
        }
    }
    if answered.contains(&followup) {
        stats.followups_answered += 1;
    } else if expected.contains_key(&followup) {
        stats.not_run += 1;
        if std::env::var("MINIMCP_FUZZ_SHOW").is_ok() {
            let first = String::from_utf8_lossy(&out)
                .lines()
                .next()
                .map(str::to_string);
            eprintln!("not run: {:?}\n  -> {first:?}", shown());
        }
    }
}

/// A fresh connection is answered: the server is up.
fn assert_up(server: &Server, id: u64) {
    let out = server
        .exchange(&sized(id))
        .expect("a fresh connection is answered");
    let answered = answers(&out);
    assert_eq!(answered.len(), 1, "{:?}", String::from_utf8_lossy(&out));
    assert_eq!(answered[0].0, 200);
    assert_eq!(messages(&answered[0].1)[0]["id"], id);
}

#[test]
fn the_reference_reader_reads_what_the_rfc_allows() {
    let two = [sized(1), chunked(2, 7)].concat();
    let (bodies, stopped) = reference(&two);
    assert!(!stopped);
    assert_eq!(bodies, [body(1).into_bytes(), body(2).into_bytes()]);
    let (bodies, stopped) = reference(
        &[
            sized(1),
            b"GET / HTTP/1.1\r\nHost: a\nX: b\r\n\r\n".to_vec(),
        ]
        .concat(),
    );
    assert_eq!((bodies.len(), stopped), (1, true));
    assert!(chunk_ext(b" ; a = \"b\\\"\" ;c"));
    assert!(!chunk_ext(b";a "));
    assert!(!chunk_ext(b" "));
    assert!(uri_host_port(b"[::1]:80") && uri_host_port(b"a.b:") && !uri_host_port(b"a@b"));
}

#[test]
fn named_attacks_and_damaged_requests_never_run_what_a_strict_reader_would_not() {
    let cases: usize = std::env::var("MINIMCP_FUZZ_CASES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(DEFAULT_CASES);
    let seed: u64 = match std::env::var("MINIMCP_FUZZ_SEED") {
        Ok(s) => s.parse().expect("MINIMCP_FUZZ_SEED is a number"),
        Err(_) if std::env::var("MINIMCP_FUZZ_CASES").is_ok() => {
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos() as u64);
            nanos ^ u64::from(std::process::id()).rotate_left(32)
        }
        Err(_) => DEFAULT_SEED,
    };
    eprintln!("http_framing: seed {seed} ({cases} random cases); replay with MINIMCP_FUZZ_SEED={seed} MINIMCP_FUZZ_CASES={cases}");
    let started = Instant::now();
    let server = Server::start();
    let mut rng = Rng(seed);
    let mut stats = Stats::default();
    let mut next_id = 1_000u64;
    let mut ids = || {
        next_id += 3;
        (next_id, next_id + 1, next_id + 2)
    };
    // Every named attack, alone and followed by a legitimate request.
    let (a, s, _) = ids();
    let named = attacks(a, s);
    for (name, _) in &named {
        let (a, s, f) = ids();
        let bytes = attacks(a, s)
            .into_iter()
            .find(|(n, _)| n == name)
            .map(|(_, b)| b)
            .expect("same list");
        check(&server, name, &bytes, f, &mut stats);
        check(&server, name, &[bytes, sized(f)].concat(), f, &mut stats);
    }
    let named_cases = stats.cases;
    for case in 0..cases {
        let (a, s, f) = ids();
        let mut bytes = if rng.below(4) == 0 {
            let mut list = attacks(a, s);
            let at = rng.below(list.len());
            list.swap_remove(at).1
        } else {
            damaged(&mut rng, a)
        };
        // Sometimes a damaged attack, sometimes two attacks in a row.
        if rng.below(8) == 0 {
            let pos = rng.below(bytes.len() + 1);
            bytes.insert(pos, *rng.pick(b"\r\n \t0:;"));
        }
        bytes.extend(sized(f));
        check(&server, "random", &bytes, f, &mut stats);
        if case % 500 == 499 {
            assert_up(&server, ids().0);
        }
    }
    assert_up(&server, ids().0);
    eprintln!(
        "http_framing: {} cases ({named_cases} named) in {:.1?}: the reference refused {}, \
         executed {} requests; the server answered {} ids, the follow-up {} times; \
         {} follow-ups the reference reads were not run (refused for other reasons)",
        stats.cases,
        started.elapsed(),
        stats.refused_by_reference,
        stats.reference_requests,
        stats.executed,
        stats.followups_answered,
        stats.not_run,
    );
    assert!(
        stats.followups_answered > stats.cases / 10,
        "the follow-ups mostly ran"
    );
}

/// A regression test: `Content-Length: +NN` was read as NN (nginx refuses it), so the
/// request ran, and a body written for a reader that counts differently could hide another.
#[test]
fn a_plus_content_length_is_refused_and_closes() {
    let server = Server::start();
    let mut stats = Stats::default();
    let b = body(1);
    let plus = format!("{}Content-Length: +{}\r\n\r\n{b}", head(""), b.len());
    let bytes = [plus.into_bytes(), sized(2)].concat();
    check(&server, "plus", &bytes, 2, &mut stats);
    let out = String::from_utf8_lossy(&server.exchange(&bytes).expect("closed")).into_owned();
    assert!(out.starts_with("HTTP/1.1 400 "), "{out}");
    assert!(out.contains("Connection: close"), "{out}");
    assert_eq!(
        answers(out.as_bytes()).len(),
        1,
        "nothing after the refusal: {out}"
    );
    assert_eq!(stats.executed, 0);
}

/// A regression test: a bare LF inside the head hid a `Content-Length` from the
/// CRLF-only line splitter, so the body (another request) ran as the next request.
#[test]
fn a_bare_lf_in_the_head_never_runs_the_body_as_a_request() {
    let server = Server::start();
    let mut stats = Stats::default();
    let hidden = String::from_utf8(sized(2)).expect("utf8");
    let lf = format!(
        "{}X-A: 1\nContent-Length: {}\r\n\r\n{hidden}",
        head(""),
        hidden.len()
    );
    check(&server, "bare LF", lf.as_bytes(), 3, &mut stats);
    let out =
        String::from_utf8_lossy(&server.exchange(lf.as_bytes()).expect("closed")).into_owned();
    assert!(out.starts_with("HTTP/1.1 400 "), "{out}");
    assert_eq!(
        answers(out.as_bytes()).len(),
        1,
        "nothing after the refusal: {out}"
    );
    assert_eq!(stats.executed, 0);
}

/// A request refused from its head (here a foreign `Origin`) is answered before any byte of
/// its body is read, and its connection ends: the body, whatever it holds, is never read.
/// So a damaged chunk in it changes nothing (403, where reading the body first answered the
/// chunk's 400), and a request hidden in it never runs, nor does one after it.
#[test]
fn a_head_refused_before_its_body_ends_the_connection_unread() {
    let server = Server::start();
    let mut stats = Stats::default();
    let foreign = head("Origin: http://evil.example\r\n");
    let damaged = format!("{foreign}Transfer-Encoding: chunked\r\n\r\nzz\r\n{{}}\r\n0\r\n\r\n");
    let hidden = String::from_utf8(sized(2)).expect("utf8");
    let smuggling = format!("{foreign}Content-Length: {}\r\n\r\n{hidden}", hidden.len());
    for (name, first) in [("damaged chunk", damaged), ("hidden request", smuggling)] {
        let bytes = [first.into_bytes(), sized(3)].concat();
        check(&server, name, &bytes, 3, &mut stats);
        let out = String::from_utf8_lossy(&server.exchange(&bytes).expect("closed")).into_owned();
        assert!(out.starts_with("HTTP/1.1 403 "), "{name}: {out}");
        assert!(out.contains("Connection: close"), "{name}: {out}");
        assert_eq!(
            answers(out.as_bytes()).len(),
            1,
            "{name}: nothing after the refusal: {out}"
        );
    }
    assert_eq!(stats.executed, 0);
}
