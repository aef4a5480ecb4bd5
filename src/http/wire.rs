//! HTTP/1.1 on the wire: reading one request with bounded head and body, and writing
//! responses (sized JSON, chunked event streams). No method knowledge beyond HTTP's own.

use std::io::{self, Read, Write};
use std::time::Instant;

/// Bounds on one request, from [`super::HttpConfig`].
#[derive(Clone, Copy)]
pub(crate) struct Bounds {
    pub(crate) max_head_bytes: usize,
    pub(crate) max_headers: usize,
    pub(crate) max_body_bytes: usize,
}

/// One parsed request.
pub(crate) struct Request {
    pub(crate) method: String,
    /// The path, without the query string.
    pub(crate) path: String,
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) body: Vec<u8>,
    /// The client asked to close the connection after this exchange (or spoke HTTP/1.0).
    pub(crate) close: bool,
}

impl Request {
    /// The first value of header `name` (case-insensitive).
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// How many times header `name` appears.
    pub(crate) fn header_count(&self, name: &str) -> usize {
        self.headers
            .iter()
            .filter(|(n, _)| n.eq_ignore_ascii_case(name))
            .count()
    }
}

/// Why no request could be read.
#[derive(Debug)]
pub(crate) enum ReadError {
    /// The client closed the connection between requests: not an error.
    Closed,
    /// No byte of a next request came before the deadline: the connection is idle.
    Idle,
    /// The client was too slow (the read deadline passed).
    TimedOut,
    /// Not HTTP we accept: answer with this status and close.
    Bad(u16, &'static str),
    /// The socket failed.
    Io,
}

/// Reads requests from one connection, keeping bytes that arrived early for the next one.
pub(crate) struct Reader {
    buf: Vec<u8>,
    /// Where each `read` lands, zeroed once per connection: a fresh 8 KiB array per read
    /// was zeroed every time, a seventh of the server's instructions per request.
    chunk: Vec<u8>,
    bounds: Bounds,
}

impl Reader {
    pub(crate) fn new(bounds: Bounds) -> Self {
        Reader {
            buf: Vec::new(),
            chunk: vec![0; 8192],
            bounds,
        }
    }

    /// Reads one request. `deadline` bounds the whole request (slow clients time out).
    pub(crate) fn read(
        &mut self,
        stream: &mut (impl Read + Write),
        deadline: Instant,
    ) -> Result<Request, ReadError> {
        // Bytes already searched for the blank line's last LF are not searched again.
        let mut searched = 0;
        let head_end = loop {
            if let Some(end) = head_end(&self.buf, searched) {
                break end;
            }
            searched = self.buf.len();
            if self.buf.len() > self.bounds.max_head_bytes {
                return Err(ReadError::Bad(431, "request head too large"));
            }
            let first = self.buf.is_empty();
            match self.fill(stream, deadline) {
                Ok(0) if first => return Err(ReadError::Closed),
                Ok(0) => return Err(ReadError::Bad(400, "connection closed mid-request")),
                Ok(_) => {}
                Err(ReadError::TimedOut) if first => return Err(ReadError::Idle),
                Err(e) => return Err(e),
            }
        };
        if head_end > self.bounds.max_head_bytes {
            return Err(ReadError::Bad(431, "request head too large"));
        }
        let head = std::str::from_utf8(&self.buf[..head_end])
            .map_err(|_| ReadError::Bad(400, "request head is not UTF-8"))?;
        let mut lines = crlf_lines(head);
        let request_line = lines.next().unwrap_or_default();
        let mut parts = request_line.split(' ');
        let (Some(method), Some(target), Some(version), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(ReadError::Bad(400, "malformed request line"));
        };
        let http10 = match version {
            "HTTP/1.1" => false,
            "HTTP/1.0" => true,
            _ => return Err(ReadError::Bad(400, "unsupported HTTP version")),
        };
        if method.is_empty() || !method.bytes().all(|b| b.is_ascii_uppercase()) {
            return Err(ReadError::Bad(400, "malformed method"));
        }
        if !target.starts_with('/') {
            return Err(ReadError::Bad(400, "malformed request target"));
        }
        let path = target.split('?').next().unwrap_or_default().to_string();
        // Sized for a usual request: growing from empty reallocated twice per request.
        let mut headers = Vec::with_capacity(self.bounds.max_headers.min(16));
        for line in lines {
            if headers.len() >= self.bounds.max_headers {
                return Err(ReadError::Bad(431, "too many headers"));
            }
            let Some((name, value)) = line.split_once(':') else {
                return Err(ReadError::Bad(400, "malformed header"));
            };
            if name.is_empty() || !name.bytes().all(is_token_byte) {
                return Err(ReadError::Bad(400, "malformed header name"));
            }
            headers.push((name.to_string(), value.trim().to_string()));
        }
        let mut request = Request {
            method: method.to_string(),
            path,
            headers,
            body: Vec::new(),
            close: http10,
        };
        if let Some(connection) = request.header("connection") {
            if contains_ignore_case(connection, "close") {
                request.close = true;
            } else if contains_ignore_case(connection, "keep-alive") {
                request.close = false;
            }
        }
        if request.header("transfer-encoding").is_some() {
            return Err(ReadError::Bad(411, "send the body with Content-Length"));
        }
        let length = match request.header_count("content-length") {
            0 => 0,
            1 => request
                .header("content-length")
                .and_then(|v| v.parse::<usize>().ok())
                .ok_or(ReadError::Bad(400, "malformed Content-Length"))?,
            _ => return Err(ReadError::Bad(400, "more than one Content-Length")),
        };
        if length > self.bounds.max_body_bytes {
            return Err(ReadError::Bad(413, "body too large"));
        }
        let body_start = head_end + 4;
        let expects_continue = request
            .header("expect")
            .is_some_and(|e| e.eq_ignore_ascii_case("100-continue"));
        if expects_continue && self.buf.len() < body_start + length {
            // curl waits a second for this before sending a body over 1 KiB.
            stream
                .write_all(b"HTTP/1.1 100 Continue\r\n\r\n")
                .map_err(|_| ReadError::Io)?;
        }
        while self.buf.len() < body_start + length {
            match self.fill(stream, deadline)? {
                0 => return Err(ReadError::Bad(400, "connection closed mid-body")),
                _ => continue,
            }
        }
        request.body = self.buf[body_start..body_start + length].to_vec();
        self.buf.drain(..body_start + length);
        Ok(request)
    }

    /// Reads more bytes; 0 at end of stream.
    fn fill(&mut self, stream: &mut impl Read, deadline: Instant) -> Result<usize, ReadError> {
        if Instant::now() >= deadline {
            return Err(ReadError::TimedOut);
        }
        loop {
            match stream.read(&mut self.chunk) {
                Ok(n) => {
                    self.buf.extend_from_slice(&self.chunk[..n]);
                    return Ok(n);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                    ) =>
                {
                    if Instant::now() >= deadline {
                        return Err(ReadError::TimedOut);
                    }
                    // Early: the dispatch thread had the socket non-blocking for a moment
                    // while writing an answer (see `link`); let it finish.
                    std::thread::yield_now();
                }
                Err(_) => return Err(ReadError::Io),
            }
        }
    }
}

/// Where the blank line ending a request head starts, looking from `from` on. Scans for
/// `\n` (a `memchr`) and checks its neighbours: comparing every 4-byte window as a slice
/// called `memcmp` once per byte of the head.
fn head_end(buf: &[u8], from: usize) -> Option<usize> {
    let mut at = from;
    while let Some(i) = buf.get(at..)?.iter().position(|&b| b == b'\n') {
        let lf = at + i;
        if lf >= 3 && buf[lf - 3..=lf] == *b"\r\n\r\n" {
            return Some(lf - 3);
        }
        at = lf + 1;
    }
    None
}

/// The lines of a request head, split at each CRLF (a bare CR or LF stays inside its line).
/// A `str` pattern would run the two-way substring search per line; a CRLF is an LF with a
/// CR before it.
fn crlf_lines(head: &str) -> impl Iterator<Item = &str> {
    let mut rest = Some(head);
    std::iter::from_fn(move || {
        let text = rest?;
        let bytes = text.as_bytes();
        let mut at = 0;
        while let Some(i) = bytes[at..].iter().position(|&b| b == b'\n') {
            let lf = at + i;
            if lf > 0 && bytes[lf - 1] == b'\r' {
                rest = Some(&text[lf + 1..]);
                return Some(&text[..lf - 1]);
            }
            at = lf + 1;
        }
        rest = None;
        Some(text)
    })
}

/// Whether `haystack` contains the lowercase ASCII `needle`, ignoring ASCII case.
fn contains_ignore_case(haystack: &str, needle: &str) -> bool {
    haystack
        .as_bytes()
        .windows(needle.len())
        .any(|w| w.eq_ignore_ascii_case(needle.as_bytes()))
}

/// RFC 9110 `tchar`. A `match` (one range test per byte), not a search through the list
/// of symbols: this runs for every byte of every header name.
fn is_token_byte(b: u8) -> bool {
    matches!(b, b'0'..=b'9' | b'a'..=b'z' | b'A'..=b'Z' | b'!' | b'#' | b'$' | b'%' | b'&'
        | b'\'' | b'*' | b'+' | b'-' | b'.' | b'^' | b'_' | b'`' | b'|' | b'~')
}

/// The reason phrase for the statuses this server sends.
pub(crate) fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        202 => "Accepted",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        406 => "Not Acceptable",
        408 => "Request Timeout",
        411 => "Length Required",
        413 => "Content Too Large",
        415 => "Unsupported Media Type",
        431 => "Request Header Fields Too Large",
        503 => "Service Unavailable",
        _ => "Error",
    }
}

/// Writes a complete response with a sized body.
pub(crate) fn write_response(
    out: &mut impl Write,
    status: u16,
    headers: &[(&str, &str)],
    content_type: Option<&str>,
    body: &[u8],
    close: bool,
) -> io::Result<()> {
    // Head and body in one buffer and one write: one system call, one TCP segment, and no
    // temporary string per header line.
    // Appended piece by piece: `write!` goes through the formatting machinery for each line.
    let mut all = Vec::with_capacity(160 + body.len());
    all.extend_from_slice(b"HTTP/1.1 ");
    push_decimal(&mut all, status.into());
    all.push(b' ');
    all.extend_from_slice(reason(status).as_bytes());
    all.extend_from_slice(b"\r\n");
    if let Some(ct) = content_type {
        push_header(&mut all, "Content-Type", ct);
    }
    all.extend_from_slice(b"Content-Length: ");
    push_decimal(&mut all, body.len());
    all.extend_from_slice(b"\r\n");
    for (name, value) in headers {
        push_header(&mut all, name, value);
    }
    if close {
        all.extend_from_slice(b"Connection: close\r\n");
    }
    all.extend_from_slice(b"\r\n");
    all.extend_from_slice(body);
    out.write_all(&all)?;
    out.flush()
}

fn push_header(out: &mut Vec<u8>, name: &str, value: &str) {
    out.extend_from_slice(name.as_bytes());
    out.extend_from_slice(b": ");
    out.extend_from_slice(value.as_bytes());
    out.extend_from_slice(b"\r\n");
}

fn push_decimal(out: &mut Vec<u8>, mut n: usize) {
    let mut digits = [0u8; 20];
    let mut start = digits.len();
    loop {
        start -= 1;
        digits[start] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[start..]);
}

/// Starts an event stream (chunked, never buffered by proxies).
pub(crate) fn write_stream_head(out: &mut impl Write, headers: &[(&str, &str)]) -> io::Result<()> {
    let mut head = String::from(
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\nX-Accel-Buffering: no\r\nTransfer-Encoding: chunked\r\n",
    );
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    out.write_all(head.as_bytes())?;
    out.flush()
}

/// Writes one chunk of an event stream: a message event, or a comment when `data` is None.
pub(crate) fn write_event(
    out: &mut impl Write,
    id: Option<&str>,
    data: Option<&[u8]>,
) -> io::Result<()> {
    let mut event = Vec::new();
    if let Some(id) = id {
        event.extend_from_slice(format!("id: {id}\n").as_bytes());
    }
    match data {
        Some(data) => {
            event.extend_from_slice(b"event: message\ndata: ");
            event.extend_from_slice(data);
            event.extend_from_slice(b"\n\n");
        }
        None => event.extend_from_slice(b": keep-alive\n\n"),
    }
    let mut chunk = format!("{:x}\r\n", event.len()).into_bytes();
    chunk.extend_from_slice(&event);
    chunk.extend_from_slice(b"\r\n");
    out.write_all(&chunk)?;
    out.flush()
}

/// Writes the event a resumable stream starts with: its id, a `retry` (milliseconds) and
/// empty data, so the client knows where to resume from before any message came.
pub(crate) fn write_priming_event(out: &mut impl Write, id: &str, retry_ms: u64) -> io::Result<()> {
    let event = format!("id: {id}\nretry: {retry_ms}\ndata: \n\n");
    write!(out, "{:x}\r\n{event}\r\n", event.len())
}

/// The last chunk of an event stream (chunked transfer's zero-length chunk).
pub(crate) const STREAM_END: &[u8] = b"0\r\n\r\n";

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;
    use std::time::Duration;

    const BOUNDS: Bounds = Bounds {
        max_head_bytes: 1024,
        max_headers: 8,
        max_body_bytes: 64,
    };

    fn read(bytes: &[u8]) -> Result<Request, ReadError> {
        Reader::new(BOUNDS).read(
            &mut Cursor::new(bytes.to_vec()),
            Instant::now() + Duration::from_secs(5),
        )
    }

    #[test]
    fn reads_two_pipelined_requests() {
        let mut reader = Reader::new(BOUNDS);
        let mut input = Cursor::new(
            b"POST /mcp?x=1 HTTP/1.1\r\nContent-Length: 2\r\nHost: a\r\n\r\n{}GET /mcp HTTP/1.1\r\n\r\n"
                .to_vec(),
        );
        let deadline = Instant::now() + Duration::from_secs(5);
        let first = reader.read(&mut input, deadline).expect("first");
        assert_eq!(
            (first.method.as_str(), first.path.as_str()),
            ("POST", "/mcp")
        );
        assert_eq!(first.body, b"{}");
        assert_eq!(first.header("HOST"), Some("a"));
        let second = reader.read(&mut input, deadline).expect("second");
        assert_eq!(second.method, "GET");
        assert!(matches!(
            reader.read(&mut input, deadline),
            Err(ReadError::Closed)
        ));
    }

    #[test]
    fn header_values_are_trimmed_and_kept_in_order() {
        let request =
            read(b"GET /mcp HTTP/1.1\r\nX-A:  one \r\nx-b:\r\nX-A:two\r\nX-C: a\rb\tc\r\n\r\n")
                .expect("request");
        let fields: Vec<_> = request
            .headers
            .iter()
            .map(|(n, v)| (n.as_str(), v.as_str()))
            .collect();
        assert_eq!(
            fields,
            [
                ("X-A", "one"),
                ("x-b", ""),
                ("X-A", "two"),
                ("X-C", "a\rb\tc")
            ]
        );
        assert_eq!(request.header("x-a"), Some("one"));
        assert_eq!(request.header_count("X-A"), 2);
        assert_eq!(request.header("X-B"), Some(""));
        assert_eq!(request.header("x-d"), None);
        let bare = read(b"GET / HTTP/1.1\r\n\r\n").expect("no headers");
        assert!(bare.headers.is_empty());
    }

    #[test]
    fn heads_split_at_crlf_only_as_str_split_does() {
        for head in [
            "",
            "GET / HTTP/1.1",
            "a\r\nb\r\n",
            "a\nb\r\nc\rd\r\r\n\r\ne",
            "\r\n\r\n",
            "x\n\r\n",
        ] {
            let ours: Vec<_> = crlf_lines(head).collect();
            let std: Vec<_> = head.split("\r\n").collect();
            assert_eq!(ours, std, "{head:?}");
        }
        assert_eq!(head_end(b"a\r\n\r\n", 0), Some(1));
        assert_eq!(
            head_end(b"a\r\n\r\n", 4),
            Some(1),
            "a match ending past `from`"
        );
        assert_eq!(head_end(b"a\n\r\n\r\r\n", 0), None);
        assert_eq!(head_end(b"\r\n\r\n", 0), Some(0));
        let mut out = Vec::new();
        for n in [0, 7, 10, 80_000, usize::MAX] {
            out.clear();
            push_decimal(&mut out, n);
            assert_eq!(out, n.to_string().as_bytes());
        }
        assert!(contains_ignore_case("Keep-Alive, CLOSE", "close"));
        assert!(!contains_ignore_case("clos", "close"));
        let tchar = |b: u8| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b);
        assert!((0..=255).all(|b| is_token_byte(b) == tchar(b)));
    }

    #[test]
    fn refuses_malformed_and_oversized_requests() {
        let status = |bytes: &[u8]| match read(bytes) {
            Err(ReadError::Bad(status, _)) => status,
            other => panic!("expected a refusal, got {:?}", other.map(|r| r.method)),
        };
        assert_eq!(status(b"GARBAGE\r\n\r\n"), 400);
        assert_eq!(status(b"POST /mcp HTTP/2\r\n\r\n"), 400);
        assert_eq!(status(b"POST /mcp HTTP/1.1\r\nno colon\r\n\r\n"), 400);
        assert_eq!(
            status(b"POST /mcp HTTP/1.1\r\nContent-Length: x\r\n\r\n"),
            400
        );
        assert_eq!(
            status(b"POST /mcp HTTP/1.1\r\nContent-Length: 999\r\n\r\n"),
            413
        );
        assert_eq!(
            status(b"POST /mcp HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"),
            411
        );
        let many = format!("GET / HTTP/1.1\r\n{}\r\n", "A: b\r\n".repeat(9));
        assert_eq!(status(many.as_bytes()), 431);
        let long = format!("GET /{} HTTP/1.1\r\n\r\n", "a".repeat(2000));
        assert_eq!(status(long.as_bytes()), 431);
        assert_eq!(
            status(b"POST /mcp HTTP/1.1\r\nContent-Length: 5\r\n\r\n{}"),
            400
        );
    }
}
