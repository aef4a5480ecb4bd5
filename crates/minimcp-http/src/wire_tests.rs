//! The reader's framing, request by request: every rule of `parse` and `grammar`.

use super::super::grammar::{
    chunk_size, crlf_lines, ctl_mask, head_end, is_token_byte, split_host,
};
use super::*;
use std::io::Cursor;
use std::time::Duration;

const BOUNDS: Bounds = Bounds {
    max_head_bytes: 1024,
    max_headers: 8,
    max_body_bytes: 64,
};

fn read(bytes: &[u8]) -> Result<Request, ReadError> {
    let deadline = Instant::now() + Duration::from_secs(5);
    Reader::new(BOUNDS).read(&mut Cursor::new(bytes.to_vec()), deadline, deadline)
}

/// The status `bytes` are refused with; panics when they are read as a request.
fn status(bytes: &[u8]) -> u16 {
    match read(bytes) {
        Err(ReadError::Bad(status, _)) => status,
        other => panic!(
            "expected a refusal of {:?}, got {:?}",
            String::from_utf8_lossy(bytes),
            other.map(|r| (r.method, r.body))
        ),
    }
}

/// A POST with `Host: a`, then `fields` (each ending in CRLF), a blank line and `rest`.
fn post(fields: &str, rest: &str) -> Vec<u8> {
    format!("POST /mcp HTTP/1.1\r\nHost: a\r\n{fields}\r\n{rest}").into_bytes()
}

/// Every request read from `bytes` until the first error or the end: the bodies, and
/// the error's status (0 at a clean end).
fn read_all(bytes: &[u8]) -> (Vec<Vec<u8>>, u16) {
    let mut reader = Reader::new(BOUNDS);
    let mut input = Cursor::new(bytes.to_vec());
    let deadline = Instant::now() + Duration::from_secs(5);
    let mut bodies = Vec::new();
    loop {
        match reader.read(&mut input, deadline, deadline) {
            Ok(request) => bodies.push(request.body),
            Err(ReadError::Bad(status, _)) => return (bodies, status),
            Err(ReadError::Closed) => return (bodies, 0),
            Err(e) => panic!("{e:?}"),
        }
    }
}

#[test]
fn reads_two_pipelined_requests() {
    let mut reader = Reader::new(BOUNDS);
    let mut input = Cursor::new(
        b"POST /mcp?x=1 HTTP/1.1\r\nContent-Length: 2\r\nHost: a\r\n\r\n{}GET /mcp HTTP/1.1\r\nHost: a\r\n\r\n"
            .to_vec(),
    );
    let deadline = Instant::now() + Duration::from_secs(5);
    let first = reader.read(&mut input, deadline, deadline).expect("first");
    assert_eq!(
        (first.method.as_str(), first.path.as_str()),
        ("POST", "/mcp")
    );
    assert_eq!(first.body, b"{}");
    assert_eq!(first.header("HOST"), Some("a"));
    let second = reader.read(&mut input, deadline, deadline).expect("second");
    assert_eq!(second.method, "GET");
    assert!(matches!(
        reader.read(&mut input, deadline, deadline),
        Err(ReadError::Closed)
    ));
}

#[test]
fn header_values_are_trimmed_of_sp_and_htab_only_and_kept_in_order() {
    let request = read(
        b"GET /mcp HTTP/1.1\r\nHost: a\r\nX-A:  one \r\nx-b:\r\nX-A:two\r\nX-C:\t a\tb \t\r\n\r\n",
    )
    .expect("request");
    let fields: Vec<_> = request
        .headers
        .iter()
        .map(|(n, v)| (n.as_str(), v.as_str()))
        .collect();
    assert_eq!(
        fields,
        [
            ("Host", "a"),
            ("X-A", "one"),
            ("x-b", ""),
            ("X-A", "two"),
            ("X-C", "a\tb")
        ]
    );
    assert_eq!(request.header("x-a"), Some("one"));
    assert_eq!(request.header("X-B"), Some(""));
    assert_eq!(request.header("x-d"), None);
    // Other whitespace is not OWS: a vertical tab or form feed is a control character.
    assert_eq!(status(&post("X-A: \x0bone\r\n", "")), 400);
    assert_eq!(status(&post("X-A: one\x0c\r\n", "")), 400);
}

#[test]
fn the_head_ends_only_at_crlf_crlf_and_holds_no_bare_cr_or_lf() {
    assert_eq!(head_end(b"a\r\n\r\n", 0), Ok(1));
    assert_eq!(
        head_end(b"a\r\n\r\n", 4),
        Ok(1),
        "a match ending past `from`"
    );
    assert_eq!(head_end(b"\r\n\r\n", 0), Ok(0));
    assert_eq!(head_end(b"a\r\nb\r\n", 0), Err(None));
    assert_eq!(head_end(b"a\r\n\r", 0), Err(None), "a CR waits for its LF");
    assert!(matches!(head_end(b"a\n\r\n", 0), Err(Some(_))));
    assert!(matches!(head_end(b"a\r\r\n", 0), Err(Some(_))));
    assert!(matches!(head_end(b"a\0\r\n\r\n", 0), Err(Some(_))));
    assert!(matches!(head_end(b"a\x7f\r\n\r\n", 0), Err(Some(_))));
    assert_eq!(head_end(b"a\tb\r\n\r\n", 0), Ok(3), "HTAB is allowed");
    // A regression: a bare LF once let body bytes be read as the next request.
    let smuggle = b"POST /mcp HTTP/1.1\r\nHost: a\r\nX: y\nContent-Length: 0\r\n\r\n";
    assert_eq!(status(smuggle), 400);
    assert_eq!(status(b"GET /mcp HTTP/1.1\nHost: a\r\n\r\n"), 400);
    assert_eq!(status(b"GET /mcp HTTP/1.1\r\nHost: a\n\r\n"), 400);
    assert_eq!(status(b"GET /mcp HTTP/1.1\r\nHost: a\r\n\n"), 400);
    assert_eq!(status(b"GET /mcp HTTP/1.1\r\nHost: a\rX: b\r\n\r\n"), 400);
    assert_eq!(
        status(&post("X: a\rb\r\n", "")),
        400,
        "a bare CR in a value"
    );
    assert_eq!(status(&post("X: a\0b\r\n", "")), 400, "NUL in a value");
    assert_eq!(status(b"\r\nGET /mcp HTTP/1.1\r\nHost: a\r\n\r\n"), 400);
    for filler in [b'a', 0x80, 0xff, b' '] {
        for b in 0..=255u8 {
            for at in 0..8 {
                let mut word = [filler; 8];
                word[at] = b;
                let ctl = b < 0x20 || b == 0x7f;
                let mask = ctl_mask(u64::from_le_bytes(word));
                assert_eq!(mask != 0, ctl, "{b:#x} at {at}");
                if ctl {
                    assert_eq!(mask.trailing_zeros() / 8, at as u32, "{b:#x} at {at}");
                }
                // The same head end and refusals wherever the word boundaries fall.
                let mut head = b"GET / HTTP/1.1\r\nHost: a\r\nX: ".to_vec();
                head.extend_from_slice(&word);
                head.extend_from_slice(b"\r\n\r\n");
                let want = match b {
                    b'\t' => Ok(head.len() - 4),
                    _ if ctl => Err(true),
                    _ => Ok(head.len() - 4),
                };
                for from in [0, 3, 17, 27] {
                    let got = head_end(&head, from).map_err(|e| e.is_some());
                    assert_eq!(got, want, "{b:#x} at {at} from {from}");
                }
            }
        }
    }
    // Where `head_end` accepted a head, its lines are those between CRLFs.
    for head in [
        "",
        "GET / HTTP/1.1",
        "a\r\nb",
        "a\r\n\r\nb",
        "\r\n",
        "a\tb\r\nc",
    ] {
        let ours: Vec<_> = crlf_lines(head).collect();
        let std: Vec<_> = head.split("\r\n").collect();
        assert_eq!(ours, std, "{head:?}");
    }
    let tchar = |b: u8| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b);
    assert!((0..=255).all(|b| is_token_byte(b) == tchar(b)));
}

#[test]
fn content_length_is_digits_once() {
    // A regression: `+5` was once read as 5, and the body's second request then ran.
    let plus = post("Content-Length: +5\r\n", "{}{}");
    assert_eq!(status(&plus), 400);
    for bad in [
        "-1", "0x10", "1_0", "1 0", "5, 5", "5,6", "", " ", "1e2", "\u{0661}",
    ] {
        assert_eq!(
            status(&post(&format!("Content-Length: {bad}\r\n"), "")),
            400,
            "{bad:?}"
        );
    }
    let twice = post("Content-Length: 2\r\nContent-Length: 2\r\n", "{}");
    assert_eq!(status(&twice), 400, "even equal duplicates");
    let differ = post("Content-Length: 2\r\ncontent-length: 3\r\n", "{}x");
    assert_eq!(status(&differ), 400);
    let huge = post(&format!("Content-Length: {}0\r\n", usize::MAX), "");
    assert_eq!(status(&huge), 413, "saturates, never wraps");
    assert_eq!(status(&post("Content-Length: 65\r\n", "")), 413);
    let zeros = read(&post("Content-Length:  0002\t\r\n", "{}")).expect("zeros");
    assert_eq!(zeros.body, b"{}");
    assert_eq!(status(&post("Content-Length: 5\r\n", "{}")), 400, "short");
}

#[test]
fn chunked_bodies_are_decoded() {
    let te = "Transfer-Encoding: chunked\r\n";
    let (bodies, end) = read_all(
        &[
            post(te, "2\r\n{}\r\n0\r\n\r\n"),
            post(
                te,
                "1;a=b ; c = \"q\\\"s;\"\r\n{\r\n1;n\r\n}\r\n000\r\nX-T: v\r\n\r\n",
            ),
            post("Transfer-Encoding: gzip;q=1\r\n", "")
                .into_iter()
                .take(0)
                .collect(),
            post(
                "transfer-encoding: ,  CHUNKED ,\r\n",
                "A\r\n0123456789\r\n0\r\n\r\n",
            ),
        ]
        .concat(),
    );
    assert_eq!(
        bodies,
        [b"{}".to_vec(), b"{}".to_vec(), b"0123456789".to_vec()]
    );
    assert_eq!(end, 0);
    let two_fields = post(
        "Transfer-Encoding: \r\nTransfer-Encoding: chunked\r\n",
        "0\r\n\r\n",
    );
    assert_eq!(read(&two_fields).expect("combined").body, b"");
}

#[test]
fn transfer_encoding_is_chunked_alone_or_refused() {
    let with = |te: &str, rest: &str| status(&post(&format!("Transfer-Encoding: {te}\r\n"), rest));
    assert_eq!(with("gzip", "0\r\n\r\n"), 400, "final coding not chunked");
    assert_eq!(with("chunked, gzip", "0\r\n\r\n"), 400);
    assert_eq!(with("xchunked", "0\r\n\r\n"), 400);
    assert_eq!(with("chunked;a=b", "0\r\n\r\n"), 400);
    assert_eq!(with("chunked, chunked", "0\r\n\r\n"), 400);
    assert_eq!(with("", "0\r\n\r\n"), 400);
    assert_eq!(with("gzip, chunked", "0\r\n\r\n"), 501);
    assert_eq!(with("\"chunked\"", "0\r\n\r\n"), 400);
    let both = post(
        "Transfer-Encoding: chunked\r\nContent-Length: 5\r\n",
        "0\r\n\r\n",
    );
    assert_eq!(status(&both), 400);
    let old = b"POST /mcp HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n";
    assert_eq!(status(old), 400);
    let split = post(
        "Transfer-Encoding: chunked\r\nTransfer-Encoding: gzip\r\n",
        "",
    );
    assert_eq!(status(&split), 400, "the last coding across fields counts");
}

#[test]
fn chunk_framing_is_strict() {
    let chunked = |rest: &str| status(&post("Transfer-Encoding: chunked\r\n", rest));
    for bad in [
        "x\r\n",
        "\r\n",
        "+2\r\n{}\r\n0\r\n\r\n",
        "0x2\r\n{}\r\n0\r\n\r\n",
        "2 \r\n{}\r\n0\r\n\r\n",
        " 2\r\n{}\r\n0\r\n\r\n",
        "2;\r\n{}\r\n0\r\n\r\n",
        "2;a=\r\n{}\r\n0\r\n\r\n",
        "2;a=\"x\r\n{}\r\n0\r\n\r\n",
        "2;a b\r\n{}\r\n0\r\n\r\n",
        "2\n{}\r\n0\r\n\r\n",
        "2\r\n{}0\r\n\r\n",
        "2\r\n{}\n0\r\n\r\n",
        "2\r\n{}x\r\n0\r\n\r\n",
        "2\r\n{}\r\n0\r\n",
        "2\r\n{}\r\n0\r\nX-T: v\n\r\n",
        "2\r\n{}\r\n0\r\n X-T: v\r\n\r\n",
        "2\r\n{}\r\n0\r\nX-T : v\r\n\r\n",
        "2\r\n{}\r\n0\r\nno colon\r\n\r\n",
        "2\r\n{}\r\n0\r\nX-T: a\0b\r\n\r\n",
        "2\r\n{}\r\n0\r\n\n",
    ] {
        assert_eq!(chunked(bad), 400, "{bad:?}");
    }
    assert_eq!(chunked("41\r\n"), 413, "over the body limit at once");
    assert_eq!(chunked("40\r\n"), 400, "then closed mid-body");
    let over = format!(
        "20\r\n{0}\r\n20\r\n{0}\r\n1\r\nx\r\n0\r\n\r\n",
        "a".repeat(32)
    );
    assert_eq!(chunked(&over), 413, "over the limit in total");
    let overflow = format!("{}\r\n", "f".repeat(40));
    assert_eq!(chunked(&overflow), 413, "saturates, never wraps");
    let long_ext = format!("1;a={}\r\nx\r\n0\r\n\r\n", "b".repeat(2000));
    assert_eq!(chunked(&long_ext), 431);
    let many = "X-T: v\r\n".repeat(9);
    assert_eq!(chunked(&format!("0\r\n{many}\r\n")), 431);
    assert_eq!(chunk_size(b"0", 0).ok(), Some(0));
    assert_eq!(chunk_size(b"fF", 255).ok(), Some(255));
    assert_eq!(chunk_size(b"1;a=\"\\\"\";b", 1).ok(), Some(1));
    assert_eq!(chunk_size(b"1 ;a\t=\tb", 1).ok(), Some(1));
    assert!(chunk_size(b"1;a=b c", 1).is_err());
}

#[test]
fn field_lines_are_token_colon_value() {
    assert_eq!(
        status(&post("X-A : b\r\n", "")),
        400,
        "space before the colon"
    );
    assert_eq!(status(&post("X-A\t: b\r\n", "")), 400);
    assert_eq!(status(&post("X-A: b\r\n c\r\n", "")), 400, "obs-fold");
    assert_eq!(status(&post("X-A: b\r\n\tc\r\n", "")), 400, "obs-fold");
    assert_eq!(status(&post("no colon\r\n", "")), 400);
    assert_eq!(status(&post(": b\r\n", "")), 400);
    assert_eq!(status(&post("X(A): b\r\n", "")), 400);
}

#[test]
fn the_request_line_is_three_parts() {
    let ok = |line: &str| read(format!("{line}\r\nHost: a\r\n\r\n").as_bytes());
    assert!(ok("GET /mcp HTTP/1.1").is_ok());
    assert_eq!(
        ok("M-SEARCH /mcp HTTP/1.1").expect("token").method,
        "M-SEARCH"
    );
    let path = ok("GET /a%20b/c:d@e;f=g?q=/?x HTTP/1.1").expect("pchars");
    assert_eq!(path.path, "/a%20b/c:d@e;f=g");
    for (line, want) in [
        ("GET  /mcp HTTP/1.1", 400),
        ("GET /mcp  HTTP/1.1", 400),
        ("GET /mcp HTTP/1.1 ", 400),
        (" GET /mcp HTTP/1.1", 400),
        ("GET\t/mcp HTTP/1.1", 400),
        ("G(T /mcp HTTP/1.1", 400),
        ("GET /mcp http/1.1", 400),
        ("GET /mcp HTTP/1.10", 400),
        ("GET /mcp HTTP/2", 400),
        ("GET /mcp HTTP/2.0", 505),
        ("GET /mcp HTTP/1.2", 505),
        ("GET * HTTP/1.1", 400),
        ("CONNECT localhost:80 HTTP/1.1", 400),
        ("GET /a\"b HTTP/1.1", 400),
        ("GET /a%2 HTTP/1.1", 400),
        ("GET /a#b HTTP/1.1", 400),
        ("GET /é HTTP/1.1", 400),
        ("GET mcp HTTP/1.1", 400),
        ("GET ftp://localhost/mcp HTTP/1.1", 400),
        ("GET http:///mcp HTTP/1.1", 400),
        ("GET http://u@localhost/mcp HTTP/1.1", 400),
        ("GET http://localhost:1@evil.example/mcp HTTP/1.1", 400),
    ] {
        assert_eq!(
            status(format!("{line}\r\nHost: a\r\n\r\n").as_bytes()),
            want,
            "{line}"
        );
    }
    let absolute = ok("POST http://127.0.0.1:8080/mcp?x HTTP/1.1").expect("absolute");
    assert_eq!(absolute.path, "/mcp");
    assert_eq!(absolute.authority.as_deref(), Some("127.0.0.1:8080"));
    let bare = ok("GET HTTPS://[::1] HTTP/1.1").expect("absolute, no path");
    assert_eq!(
        (bare.path.as_str(), bare.authority.as_deref()),
        ("/", Some("[::1]"))
    );
    assert_eq!(
        ok("GET /mcp HTTP/1.1").expect("origin form").authority,
        None
    );
}

#[test]
fn host_is_one_rfc_3986_host_and_port() {
    assert_eq!(status(b"GET /mcp HTTP/1.1\r\n\r\n"), 400, "missing");
    let old = read(b"GET /mcp HTTP/1.0\r\n\r\n").expect("HTTP/1.0 may omit it");
    assert!(old.close);
    assert_eq!(status(&post("Host: a\r\n", "")), 400, "two, even equal");
    assert_eq!(
        status(&post("Origin: http://a\r\norigin: http://a\r\n", "")),
        403,
        "two Origins are an invalid one"
    );
    assert_eq!(
        status(&post(
            "Authorization: Bearer a\r\nAuthorization: Bearer a\r\n",
            ""
        )),
        400
    );
    for good in [
        "localhost",
        "a.b-c_d~e",
        "127.0.0.1:8080",
        "LOCALHOST:",
        "[::1]",
        "[::1]:9",
        "[v1.x:y]",
        "%41b",
        "a!$&'()*+,;=",
    ] {
        assert!(split_host(good).is_some(), "{good}");
    }
    for bad in [
        "",
        ":80",
        "a b",
        "a/b",
        "a@b",
        "127.0.0.1:80@evil.example",
        "a:b",
        "a:1:2",
        "[::1",
        "[::1]x",
        "[::g]",
        "[v.x]",
        "[vx.y]",
        "[1.2.3.4]",
        "a?b",
        "a#b",
        "%4",
        "é",
    ] {
        assert!(split_host(bad).is_none(), "{bad}");
        let request = format!("GET /mcp HTTP/1.1\r\nHost: {bad}\r\n\r\n");
        assert_eq!(status(request.as_bytes()), 400, "{bad}");
    }
    assert_eq!(split_host("[::1]:80"), Some(("[::1]", "80")));
    assert_eq!(split_host("Local:"), Some(("Local", "")));
}

#[test]
fn connection_options_are_a_token_list() {
    let with = |line: &str, value: &str| {
        read(format!("{line}\r\nHost: a\r\nConnection: {value}\r\n\r\n").as_bytes())
            .expect("request")
            .close
    };
    assert!(with("GET / HTTP/1.1", "Keep-Alive, CLOSE"));
    assert!(!with("GET / HTTP/1.1", "closed"));
    assert!(!with("GET / HTTP/1.0", "keep-alive"));
    assert!(with("GET / HTTP/1.0", "xkeep-alive"));
}

#[test]
fn refuses_oversized_requests() {
    let many = format!("GET / HTTP/1.1\r\n{}\r\n", "A: b\r\n".repeat(9));
    assert_eq!(status(many.as_bytes()), 431);
    let long = format!("GET /{} HTTP/1.1\r\n\r\n", "a".repeat(2000));
    assert_eq!(status(long.as_bytes()), 431);
    assert_eq!(status(b"GARBAGE\r\n\r\n"), 400);
}

/// A client that sends its bytes `step` at a time, and what the reader wrote back to it.
struct Trickle {
    input: Vec<u8>,
    at: usize,
    step: usize,
    written: Vec<u8>,
}

impl std::io::Read for Trickle {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.step.min(buf.len()).min(self.input.len() - self.at);
        buf[..n].copy_from_slice(&self.input[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

impl std::io::Write for Trickle {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.written.extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Like [`read_all`], for bytes arriving `step` at a time: the bodies, the error's status
/// (0 at a clean end) and what the reader wrote (`100 Continue`).
fn read_trickled(bytes: &[u8], step: usize) -> (Vec<Vec<u8>>, u16, Vec<u8>) {
    let mut reader = Reader::new(BOUNDS);
    let mut input = Trickle {
        input: bytes.to_vec(),
        at: 0,
        step,
        written: Vec::new(),
    };
    let deadline = Instant::now() + Duration::from_secs(5);
    let mut bodies = Vec::new();
    loop {
        match reader.read(&mut input, deadline, deadline) {
            Ok(request) => bodies.push(request.body),
            Err(ReadError::Bad(status, _)) => return (bodies, status, input.written),
            Err(ReadError::Closed) => return (bodies, 0, input.written),
            Err(e) => panic!("{e:?}"),
        }
    }
}

#[test]
fn the_parser_frames_the_same_however_the_bytes_are_split() {
    let te = "Transfer-Encoding: chunked\r\n";
    let chunked = post(
        te,
        "1;a=b ; c = \"q\\\"s;\"\r\n{\r\n1;n\r\n}\r\n000\r\nX-T: v\r\n\r\n",
    );
    let cases: Vec<Vec<u8>> = vec![
        [post("Content-Length: 2\r\n", "{}"), post("", "")].concat(),
        [chunked.clone(), post("Content-Length: 1\r\n", "x")].concat(),
        post(te, "A\r\n0123456789\r\n0\r\n\r\n"),
        post("X: a\rb\r\n", ""),
        post("X: a\nb\r\n", ""),
        post(te, "2\r\n{}\r\n0\r\nX-T: v\n\r\n"),
        post(te, "2\r\n{}x\r\n0\r\n\r\n"),
        post(te, &format!("1;a={}\r\nx\r\n0\r\n\r\n", "b".repeat(2000))),
        post(te, &format!("0\r\n{}\r\n", "X-T: v\r\n".repeat(9))),
        post("Content-Length: 65\r\n", ""),
        post("Content-Length: 5\r\n", "{}"),
        format!("GET /{} HTTP/1.1\r\n\r\n", "a".repeat(2000)).into_bytes(),
    ];
    for bytes in &cases {
        let (bodies, status) = read_all(bytes);
        for step in [1, 2, 3, 7] {
            let (trickled, end, written) = read_trickled(bytes, step);
            let text = String::from_utf8_lossy(bytes);
            assert_eq!(
                (&trickled, end),
                (&bodies, status),
                "{step} at a time: {text:?}"
            );
            assert!(written.is_empty(), "{text:?}");
        }
    }
    // `100 Continue` goes out once, when the head came without its body.
    for (fields, rest) in [
        ("Content-Length: 2\r\n", "{}"),
        (te, "2\r\n{}\r\n0\r\n\r\n"),
    ] {
        let bytes = post(&format!("Expect: 100-continue\r\n{fields}"), rest);
        let head = bytes.len() - rest.len();
        let (bodies, _, written) = read_trickled(&bytes, head);
        assert_eq!(bodies, [b"{}".to_vec()]);
        assert_eq!(written, b"HTTP/1.1 100 Continue\r\n\r\n", "{fields}");
        let (_, _, written) = read_trickled(&bytes, bytes.len());
        assert!(written.is_empty(), "the body came with the head: {fields}");
    }
}

/// A head announcing a body is shown before any byte of the body is read (so a request
/// refused from its head costs no read of its body), and before `100 Continue`; one
/// without a body is whole at once.
#[test]
fn a_head_announcing_a_body_is_shown_before_its_body_is_read() {
    let te = "Transfer-Encoding: chunked\r\n";
    let expect = "Expect: 100-continue\r\n";
    let deadline = Instant::now() + Duration::from_secs(5);
    for (fields, rest, body) in [
        ("Content-Length: 2\r\n".to_string(), "{}", "{}"),
        (format!("{expect}Content-Length: 2\r\n"), "{}", "{}"),
        (te.to_string(), "2\r\n{}\r\n0\r\n\r\n", "{}"),
        (format!("{expect}{te}"), "0\r\n\r\n", ""),
    ] {
        let bytes = post(&format!("X-Mark: m\r\n{fields}"), rest);
        let head = bytes.len() - rest.len();
        let mut input = Trickle {
            input: bytes.clone(),
            at: 0,
            step: head,
            written: Vec::new(),
        };
        let mut reader = Reader::new(BOUNDS);
        match reader.next(&mut input, deadline, deadline) {
            Ok(Got::Head(request)) => assert_eq!(request.header("x-mark"), Some("m")),
            Ok(Got::Whole(_)) => panic!("whole before its body: {fields}"),
            Err(e) => panic!("{e:?}"),
        }
        assert_eq!(input.at, head, "no byte of the body read: {fields}");
        assert!(input.written.is_empty(), "no 100 Continue yet: {fields}");
        // Asked again, the reader reads the body (after `100 Continue` when expected).
        let Ok(Got::Whole(request)) = reader.next(&mut input, deadline, deadline) else {
            panic!("the whole request: {fields}");
        };
        assert_eq!(request.body, body.as_bytes(), "{fields}");
        let continued = input.written == b"HTTP/1.1 100 Continue\r\n\r\n";
        assert_eq!(continued, fields.starts_with("Expect"), "{fields}");
    }
    // Without a body (no Content-Length, or 0), the head is the whole request.
    for fields in ["", "Content-Length: 0\r\n"] {
        let mut input = Cursor::new(post(fields, ""));
        let mut reader = Reader::new(BOUNDS);
        let got = reader.next(&mut input, deadline, deadline);
        assert!(matches!(got, Ok(Got::Whole(_))), "{fields:?}");
    }
}
