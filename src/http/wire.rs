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
    /// The authority of an absolute-form target (`POST http://host:port/mcp`), checked
    /// like `Host`.
    pub(crate) authority: Option<String>,
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
    /// Not HTTP we accept: answer with this status and close the connection. Nothing
    /// after it on the connection is read: where the next request would start is unknown.
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
    ///
    /// Framing follows RFC 9112 strictly, because a proxy in front (nginx) and this reader
    /// must agree on where each request ends: anything either could read two ways is
    /// refused, and every refusal closes the connection (see [`ReadError::Bad`]). The head
    /// ends at the first CRLF CRLF and holds no bare CR or LF (§2.2), no other control
    /// character but HTAB, no obs-fold (§5.2) and no whitespace before a colon (§5.1).
    pub(crate) fn read(
        &mut self,
        stream: &mut (impl Read + Write),
        deadline: Instant,
    ) -> Result<Request, ReadError> {
        // Bytes already checked are not checked again.
        let mut searched = 0;
        let head_end = loop {
            match head_end(&self.buf, searched) {
                Ok(end) => break end,
                Err(Some(why)) => return Err(ReadError::Bad(400, why)),
                Err(None) => {}
            }
            // A CR last in the buffer is checked again once its next byte came.
            searched = self.buf.len().saturating_sub(1);
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
        // Every LF in the head ends a CRLF (checked by `head_end`): the lines are exact.
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
            // RFC 9112 §2.3: a well-formed version this server does not speak.
            v if is_http_version(v) => return Err(ReadError::Bad(505, "unsupported HTTP version")),
            _ => return Err(ReadError::Bad(400, "malformed HTTP version")),
        };
        if method.is_empty() || !method.bytes().all(is_token_byte) {
            return Err(ReadError::Bad(400, "malformed method"));
        }
        let (path, authority) = parse_target(target)?;
        // Sized for a usual request: growing from empty reallocated twice per request.
        let mut headers = Vec::with_capacity(self.bounds.max_headers.min(16));
        let mut framing = Framing::default();
        for line in lines {
            if headers.len() >= self.bounds.max_headers {
                return Err(ReadError::Bad(431, "too many headers"));
            }
            let (name, value) = field_line(line)?;
            framing.note(name, value)?;
            headers.push((name.to_string(), value.to_string()));
        }
        let body = framing.body(http10)?;
        let close = framing.close || (http10 && !framing.keep_alive);
        let mut request = Request {
            method: method.to_string(),
            path: path.to_string(),
            authority: authority.map(str::to_string),
            headers,
            body: Vec::new(),
            close,
        };
        let body_start = head_end + 4;
        let length = match body {
            Body::Length(length) => length,
            Body::Chunked => {
                if framing.expects_continue && self.buf.len() == body_start {
                    stream
                        .write_all(b"HTTP/1.1 100 Continue\r\n\r\n")
                        .map_err(|_| ReadError::Io)?;
                }
                let (body, end) = self.read_chunked(stream, deadline, body_start)?;
                request.body = body;
                self.buf.drain(..end);
                return Ok(request);
            }
        };
        if length > self.bounds.max_body_bytes {
            return Err(ReadError::Bad(413, "body too large"));
        }
        if framing.expects_continue && self.buf.len() < body_start + length {
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

    /// Reads a chunked body (RFC 9112 §7.1) starting at `start` in the buffer: the decoded
    /// bytes, and where the message ends. Chunk extensions and trailer fields are checked
    /// and dropped. The data is bounded by `max_body_bytes` (413), each chunk line and the
    /// trailer section by `max_head_bytes`, and the whole encoding by twice the one plus
    /// the other (so a stream of one-byte chunks cannot buffer without end).
    fn read_chunked(
        &mut self,
        stream: &mut impl Read,
        deadline: Instant,
        start: usize,
    ) -> Result<(Vec<u8>, usize), ReadError> {
        let max_body = self.bounds.max_body_bytes;
        let max_encoded = 2 * max_body + self.bounds.max_head_bytes;
        let mut body = Vec::new();
        let mut at = start;
        loop {
            let end = self.line(stream, deadline, at)?;
            let size = chunk_size(&self.buf[at..end], max_body - body.len())?;
            at = end + 2;
            if size == 0 {
                break;
            }
            if at + size + 2 - start > max_encoded {
                return Err(ReadError::Bad(413, "body too large"));
            }
            while self.buf.len() < at + size + 2 {
                if self.fill(stream, deadline)? == 0 {
                    return Err(ReadError::Bad(400, "connection closed mid-body"));
                }
            }
            body.extend_from_slice(&self.buf[at..at + size]);
            if self.buf[at + size..at + size + 2] != *b"\r\n" {
                return Err(ReadError::Bad(400, "chunk data not followed by CRLF"));
            }
            at += size + 2;
        }
        // The trailer section: field lines as in the head, then an empty line.
        let trailers_start = at;
        let mut fields = 0;
        loop {
            let end = self.line(stream, deadline, at)?;
            if end == at {
                return Ok((body, end + 2));
            }
            fields += 1;
            if fields > self.bounds.max_headers || end - trailers_start > self.bounds.max_head_bytes
            {
                return Err(ReadError::Bad(431, "trailer section too large"));
            }
            let line = std::str::from_utf8(&self.buf[at..end])
                .map_err(|_| ReadError::Bad(400, "trailer field is not UTF-8"))?;
            field_line(line)?;
            at = end + 2;
        }
    }

    /// Where the line starting at `at` ends (the index of its CRLF), reading as needed. A
    /// line holds no control character but HTAB (a bare CR or LF is refused) and is at most
    /// `max_head_bytes` long.
    fn line(
        &mut self,
        stream: &mut impl Read,
        deadline: Instant,
        at: usize,
    ) -> Result<usize, ReadError> {
        let mut from = at;
        loop {
            if let Some(i) = self.buf[from..].iter().position(|&b| b == b'\n') {
                let lf = from + i;
                if lf - at > self.bounds.max_head_bytes {
                    return Err(ReadError::Bad(431, "chunk line too long"));
                }
                if lf == at || self.buf[lf - 1] != b'\r' {
                    return Err(ReadError::Bad(400, "bare LF in a chunked body"));
                }
                if self.buf[at..lf - 1]
                    .iter()
                    .any(|&b| is_ctl(b) && b != b'\t')
                {
                    return Err(ReadError::Bad(400, "control character in a chunk line"));
                }
                return Ok(lf - 1);
            }
            from = self.buf.len();
            if from - at > self.bounds.max_head_bytes {
                return Err(ReadError::Bad(431, "chunk line too long"));
            }
            if self.fill(stream, deadline)? == 0 {
                return Err(ReadError::Bad(400, "connection closed mid-body"));
            }
        }
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

/// Where the blank line ending a request head starts, checking bytes from `from` on:
/// `Err(None)` when no head end came yet, `Err(Some(why))` for a byte no head may hold.
/// Every LF must end a CRLF and every CR start one (RFC 9112 §2.2: a bare CR is invalid;
/// a bare LF is refused too, so the head ends only at CRLF CRLF and splitting it into lines
/// at CRLF finds every line), and no other control character but HTAB may appear.
fn head_end(buf: &[u8], from: usize) -> Result<usize, Option<&'static str>> {
    // Eight bytes at a time: most words of a head hold no control character at all, and
    // checking them whole costs a few instructions instead of a few per byte.
    let mut at = from;
    while let Some(word) = buf.get(at..at + 8) {
        let mask = ctl_mask(u64::from_le_bytes(word.try_into().unwrap_or_default()));
        if mask == 0 {
            at += 8;
            continue;
        }
        // The lowest flagged byte is a control character (see `ctl_mask`): go straight to
        // it, then on from the byte after it.
        let i = at + (mask.trailing_zeros() / 8) as usize;
        if let Some(found) = check_head_byte(buf, i)? {
            return Ok(found);
        }
        at = i + 1;
    }
    for i in at..buf.len() {
        if let Some(found) = check_head_byte(buf, i)? {
            return Ok(found);
        }
    }
    Err(None)
}

/// The high bit of each byte of `word` (little-endian) that is below 0x20 or is 0x7f (a
/// control character, or HTAB), exact up to the lowest flagged byte; bytes above it may
/// be flagged wrongly (a borrow carries on), so only the lowest one is to be trusted, and
/// zero means none.
fn ctl_mask(word: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // A byte below 0x20 borrows when 0x20 is taken from it (bytes of 0x80 and up are
    // masked out by `!word`); a DEL byte is the zero byte of `word ^ 0x7f…`.
    let low = word.wrapping_sub(0x20 * ONES) & !word & HIGH;
    let del = word ^ (0x7f * ONES);
    low | (del.wrapping_sub(ONES) & !del & HIGH)
}

/// Checks byte `i` of a head being searched: `Ok(Some(start))` when it is the last LF of
/// the blank line that ends the head, which starts at `start`.
fn check_head_byte(buf: &[u8], i: usize) -> Result<Option<usize>, Option<&'static str>> {
    let b = buf[i];
    if !is_ctl(b) || b == b'\t' {
        return Ok(None);
    }
    match b {
        b'\r' => match buf.get(i + 1) {
            Some(b'\n') => Ok(None),
            Some(_) => Err(Some("bare CR in the request head")),
            None => Err(None),
        },
        b'\n' => {
            if i == 0 || buf[i - 1] != b'\r' {
                return Err(Some("bare LF in the request head"));
            }
            if i >= 3 && buf[i - 3..i - 1] == *b"\r\n" {
                return Ok(Some(i - 3));
            }
            Ok(None)
        }
        _ => Err(Some("control character in the request head")),
    }
}

/// The lines of a head whose every LF ends a CRLF (see [`head_end`]), without their CRLF.
/// A loop over bytes: `str::split` at `\n` calls `memchr` per line, which costs more than
/// it saves on lines this short.
fn crlf_lines(head: &str) -> impl Iterator<Item = &str> {
    let mut rest = Some(head);
    std::iter::from_fn(move || {
        let text = rest?;
        match text.bytes().position(|b| b == b'\n') {
            Some(lf) => {
                rest = Some(&text[lf + 1..]);
                Some(&text[..lf.saturating_sub(1)])
            }
            None => {
                rest = None;
                Some(text)
            }
        }
    })
}

/// A control character (RFC 5234 `CTL`).
#[inline(always)]
fn is_ctl(b: u8) -> bool {
    b < 0x20 || b == 0x7f
}

/// `HTTP/` DIGIT `.` DIGIT (RFC 9112 §2.3).
fn is_http_version(v: &str) -> bool {
    matches!(v.as_bytes(), [b'H', b'T', b'T', b'P', b'/', major, b'.', minor]
        if major.is_ascii_digit() && minor.is_ascii_digit())
}

/// The path of a request target (without its query) and, for the absolute form, its
/// authority (RFC 9112 §3.2). Origin form (`/path?query`) and absolute form
/// (`http://host:port/path?query`) are served; the asterisk and authority forms are not
/// (400), nor a target with a byte outside RFC 3986's `pchar`, `/` and `?`.
fn parse_target(target: &str) -> Result<(&str, Option<&str>), ReadError> {
    let bad = ReadError::Bad(400, "malformed request target");
    let (authority, rest) = if target.starts_with('/') {
        (None, target)
    } else {
        let (scheme, rest) = target.split_once("://").ok_or(bad)?;
        if !(scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https")) {
            return Err(ReadError::Bad(400, "malformed request target"));
        }
        let end = rest.find(['/', '?']).unwrap_or(rest.len());
        let authority = &rest[..end];
        if split_host(authority).is_none() {
            return Err(ReadError::Bad(
                400,
                "malformed authority in the request target",
            ));
        }
        (Some(authority), &rest[end..])
    };
    let bytes = rest.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        let ok = match b {
            b'%' => {
                bytes.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
                    && bytes.get(i + 2).is_some_and(u8::is_ascii_hexdigit)
            }
            b'/' | b'?' | b':' | b'@' => true,
            _ => is_unreserved(b) || is_sub_delim(b),
        };
        if !ok {
            return Err(ReadError::Bad(400, "malformed request target"));
        }
    }
    let path = rest.split('?').next().unwrap_or_default();
    // `http://host` and `http://host?q` name the path `/` (RFC 9112 §3.2.1).
    Ok((if path.is_empty() { "/" } else { path }, authority))
}

/// RFC 3986 `unreserved`.
#[inline(always)]
fn is_unreserved(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~')
}

/// RFC 3986 `sub-delims`.
#[inline(always)]
fn is_sub_delim(b: u8) -> bool {
    matches!(
        b,
        b'!' | b'$' | b'&' | b'\'' | b'(' | b')' | b'*' | b'+' | b',' | b';' | b'='
    )
}

/// Splits `host [ ":" port ]` (RFC 3986 §3.2.2–3.2.3, as `Host` carries it, RFC 9110
/// §7.2) into the host and the port's digits; `None` unless the whole value is exactly
/// that, with a host that is not empty: no userinfo, path, spaces or anything else. The
/// host is an IP literal (`[` IPv6 or IPvFuture `]`), or a reg-name (which covers IPv4).
pub(crate) fn split_host(value: &str) -> Option<(&str, &str)> {
    let (host, port) = if let Some(inner) = value.strip_prefix('[') {
        let (literal, rest) = inner.split_once(']')?;
        let future = literal
            .strip_prefix(['v', 'V'])
            .and_then(|f| f.split_once('.'));
        let valid = match future {
            Some((version, text)) => {
                !version.is_empty()
                    && version.bytes().all(|b| b.is_ascii_hexdigit())
                    && !text.is_empty()
                    && text
                        .bytes()
                        .all(|b| is_unreserved(b) || is_sub_delim(b) || b == b':')
            }
            None => literal.parse::<std::net::Ipv6Addr>().is_ok(),
        };
        if !valid {
            return None;
        }
        let port = match rest {
            "" => "",
            _ => rest.strip_prefix(':')?,
        };
        (&value[..literal.len() + 2], port)
    } else {
        // One pass to the colon (a reg-name has none), checking every byte on the way.
        let bytes = value.as_bytes();
        let mut i = 0;
        while i < bytes.len() && bytes[i] != b':' {
            match bytes[i] {
                b'%' if bytes.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
                    && bytes.get(i + 2).is_some_and(u8::is_ascii_hexdigit) =>
                {
                    i += 3
                }
                b if is_unreserved(b) || is_sub_delim(b) => i += 1,
                _ => return None,
            }
        }
        if i == 0 {
            return None;
        }
        (&value[..i], value.get(i + 1..).unwrap_or_default())
    };
    port.bytes()
        .all(|b| b.is_ascii_digit())
        .then_some((host, port))
}

/// A header (or trailer) field line's name and value (RFC 9112 §5): the name a token
/// right before the colon (whitespace there is refused, §5.1), no obs-fold (a line
/// starting with whitespace, §5.2), the value without the SP/HTAB around it. Control
/// characters were refused with the line.
fn field_line(line: &str) -> Result<(&str, &str), ReadError> {
    if line.starts_with([' ', '\t']) {
        return Err(ReadError::Bad(400, "obs-fold (a folded header line)"));
    }
    let Some((name, value)) = line.split_once(':') else {
        return Err(ReadError::Bad(400, "malformed header"));
    };
    if name.is_empty() || !name.bytes().all(is_token_byte) {
        return Err(ReadError::Bad(400, "malformed header name"));
    }
    Ok((name, trim_ows(value)))
}

/// `value` without the SP and HTAB (OWS) around it, and nothing else trimmed.
fn trim_ows(value: &str) -> &str {
    let bytes = value.as_bytes();
    let ows = |b: &u8| *b == b' ' || *b == b'\t';
    let start = bytes.iter().position(|b| !ows(b)).unwrap_or(bytes.len());
    let end = bytes.iter().rposition(|b| !ows(b)).map_or(start, |e| e + 1);
    // Both ends are next to ASCII bytes: character boundaries.
    &value[start..end]
}

/// How a request's body is framed.
enum Body {
    /// `Content-Length`, or none (0).
    Length(usize),
    /// `Transfer-Encoding: chunked`.
    Chunked,
}

/// What the header fields say about framing and the connection, gathered in one pass.
#[derive(Default)]
struct Framing {
    hosts: u8,
    origins: u8,
    authorizations: u8,
    /// Content-Length fields seen, and the value of the last one.
    lengths: u8,
    length: Option<usize>,
    /// Transfer-Encoding: the codings seen, across every field line, in order.
    te: bool,
    chunked: u8,
    other_coding: bool,
    bad_coding: bool,
    last_chunked: bool,
    close: bool,
    keep_alive: bool,
    expects_continue: bool,
}

impl Framing {
    /// Takes one header field into account. Only the names that matter are compared, and
    /// only when their length matches: this runs for every header of every request.
    fn note(&mut self, name: &str, value: &str) -> Result<(), ReadError> {
        let is = |known: &str| name.eq_ignore_ascii_case(known);
        match name.len() {
            4 if is("host") => {
                self.hosts += 1;
                // RFC 9112 §3.2: more than one Host, or an invalid one, is a 400.
                if self.hosts > 1 {
                    return Err(ReadError::Bad(400, "more than one Host header"));
                }
                if split_host(value).is_none() {
                    return Err(ReadError::Bad(400, "malformed Host header"));
                }
            }
            6 if is("origin") => {
                self.origins += 1;
                if self.origins > 1 {
                    return Err(ReadError::Bad(400, "more than one Origin header"));
                }
            }
            6 if is("expect") => {
                self.expects_continue = value.eq_ignore_ascii_case("100-continue");
            }
            10 if is("connection") => {
                for option in value.split(',').map(trim_ows) {
                    if option.eq_ignore_ascii_case("close") {
                        self.close = true;
                    } else if option.eq_ignore_ascii_case("keep-alive") {
                        self.keep_alive = true;
                    }
                }
            }
            13 if is("authorization") => {
                self.authorizations += 1;
                if self.authorizations > 1 {
                    return Err(ReadError::Bad(400, "more than one Authorization header"));
                }
            }
            14 if is("content-length") => {
                // RFC 9112 §6.3: `1*DIGIT`, once. No sign, no list (not even of equal
                // values), no whitespace inside: anything else is how smuggling starts.
                self.lengths = self.lengths.saturating_add(1);
                if self.lengths > 1 {
                    return Err(ReadError::Bad(400, "more than one Content-Length"));
                }
                if value.is_empty() || !value.bytes().all(|b| b.is_ascii_digit()) {
                    return Err(ReadError::Bad(400, "malformed Content-Length"));
                }
                // Saturating, never wrapping: too large is too large (413).
                let length = value.bytes().fold(0usize, |n, d| {
                    n.saturating_mul(10).saturating_add(usize::from(d - b'0'))
                });
                self.length = Some(length);
            }
            17 if is("transfer-encoding") => {
                self.te = true;
                for coding in value.split(',').map(trim_ows) {
                    if coding.is_empty() {
                        continue; // an empty list element (RFC 9110 §5.6.1)
                    }
                    self.last_chunked = coding.eq_ignore_ascii_case("chunked");
                    if self.last_chunked {
                        self.chunked = self.chunked.saturating_add(1);
                        continue;
                    }
                    let name = coding.split(';').next().unwrap_or_default();
                    let name = name.trim_end_matches([' ', '\t']);
                    if !name.is_empty() && name.bytes().all(is_token_byte) {
                        self.other_coding = true;
                    } else {
                        self.bad_coding = true;
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// How the body is framed, once every field was noted (RFC 9112 §6).
    fn body(&self, http10: bool) -> Result<Body, ReadError> {
        if self.hosts == 0 && !http10 {
            return Err(ReadError::Bad(400, "Host header is required"));
        }
        if !self.te {
            return Ok(Body::Length(self.length.unwrap_or(0)));
        }
        let bad = |why| Err(ReadError::Bad(400, why));
        if http10 {
            return bad("Transfer-Encoding in an HTTP/1.0 request");
        }
        if self.length.is_some() {
            return bad("both Transfer-Encoding and Content-Length");
        }
        if self.bad_coding || !self.last_chunked {
            return bad("Transfer-Encoding must end in chunked");
        }
        if self.chunked > 1 {
            return bad("chunked applied more than once");
        }
        if self.other_coding {
            return Err(ReadError::Bad(
                501,
                "only the chunked transfer coding is served",
            ));
        }
        Ok(Body::Chunked)
    }
}

/// The size of a chunk from its line (RFC 9112 §7.1): `1*HEXDIG`, then optional chunk
/// extensions (`;name` or `;name=value`, value a token or quoted string, whitespace
/// allowed only around `;` and `=`), which are checked and ignored. More than `room`
/// bytes is 413.
fn chunk_size(line: &[u8], room: usize) -> Result<usize, ReadError> {
    let bad = || ReadError::Bad(400, "malformed chunk size line");
    // Whitespace is allowed only around `;` and `=`, never last.
    if line.last().is_some_and(|&b| b == b' ' || b == b'\t') {
        return Err(bad());
    }
    let digits = line.iter().take_while(|b| b.is_ascii_hexdigit()).count();
    if digits == 0 {
        return Err(bad());
    }
    let mut size = 0usize;
    for &d in &line[..digits] {
        let value = (d as char).to_digit(16).unwrap_or(0) as usize;
        size = size.saturating_mul(16).saturating_add(value);
    }
    if size > room {
        return Err(ReadError::Bad(413, "body too large"));
    }
    let mut rest = &line[digits..];
    let ows = |s: &[u8]| -> usize { s.iter().take_while(|&&b| b == b' ' || b == b'\t').count() };
    while !rest.is_empty() {
        rest = &rest[ows(rest)..];
        rest = rest.strip_prefix(b";").ok_or_else(bad)?;
        rest = &rest[ows(rest)..];
        let name = rest.iter().take_while(|&&b| is_token_byte(b)).count();
        if name == 0 {
            return Err(bad());
        }
        rest = &rest[name..];
        let after = ows(rest);
        if rest.get(after) != Some(&b'=') {
            // No value: only whitespace before the next `;` or the end is allowed.
            if after < rest.len() && rest[after] != b';' {
                return Err(bad());
            }
            rest = &rest[after..];
            continue;
        }
        rest = &rest[after + 1..];
        rest = &rest[ows(rest)..];
        let taken = if rest.first() == Some(&b'"') {
            quoted_string(rest).ok_or_else(bad)?
        } else {
            rest.iter().take_while(|&&b| is_token_byte(b)).count()
        };
        if taken == 0 {
            return Err(bad());
        }
        rest = &rest[taken..];
        let after = ows(rest);
        if after < rest.len() && rest[after] != b';' {
            return Err(bad());
        }
    }
    Ok(size)
}

/// The length of the quoted string `text` starts with (RFC 9110 §5.6.4), if it is one.
fn quoted_string(text: &[u8]) -> Option<usize> {
    let mut i = 1;
    loop {
        match *text.get(i)? {
            b'"' => return Some(i + 1),
            b'\\' => {
                let escaped = *text.get(i + 1)?;
                if is_ctl(escaped) && escaped != b'\t' {
                    return None;
                }
                i += 2;
            }
            b if is_ctl(b) && b != b'\t' => return None,
            _ => i += 1,
        }
    }
}

/// RFC 9110 `tchar`. A `match` (one range test per byte), not a search through the list
/// of symbols: this runs for every byte of every header name.
#[inline(always)]
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
        413 => "Content Too Large",
        415 => "Unsupported Media Type",
        431 => "Request Header Fields Too Large",
        501 => "Not Implemented",
        503 => "Service Unavailable",
        505 => "HTTP Version Not Supported",
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
            match reader.read(&mut input, deadline) {
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
        // Issue 17: a bare LF let body bytes be read as the next request.
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
        // Issue 17: `+5` was read as 5 and the body's second request then ran.
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
        let with =
            |te: &str, rest: &str| status(&post(&format!("Transfer-Encoding: {te}\r\n"), rest));
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
            400
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
}
