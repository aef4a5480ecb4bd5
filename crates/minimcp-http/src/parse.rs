//! Where one HTTP/1.1 request ends, decided over the bytes read so far and nothing else:
//! no socket, no clock (sans I/O, as `ureq-proto` writes HTTP). [`wire::Reader`] fills a
//! buffer and asks [`Parser::advance`] what the bytes amount to, so the framing rules can
//! be read, tested and fuzzed without a connection.
//!
//! Framing follows RFC 9112 strictly, because a proxy in front (nginx) and this parser must
//! agree on where each request ends: anything either could read two ways is refused, and
//! every refusal closes the connection. The head ends at the first CRLF CRLF and holds no
//! bare CR or LF (§2.2), no other control character but HTAB, no obs-fold (§5.2) and no
//! whitespace before a colon (§5.1); the body is `Content-Length` bytes (§6.3) or chunked
//! (§7.1), never both.
//!
//! The parser's states, one request at a time:
//!
//! ```text
//!   Head ──head parsed──▶ Body(Sized | Chunked: SizeLine ⇄ Data, then Trailers) ──▶ Done
//!    ▲         │ (no body)                                                           │
//!    │         └──────────────────────────────────────────────────────────────────▶ Done
//!    └──────────────────── the next request (the bytes after this one) ◀─────────────┘
//! ```
//!
//! - `Head`: looking for the blank line that ends the head; bytes before `searched` were
//!   checked already (none is refused, no head end among them).
//! - `Body`: the head is parsed into a [`Request`] and announces a body. The parser first
//!   stops with [`Step::Head`], before taking any byte of the body, so the caller can
//!   refuse the request from its head alone (a wrong token, a foreign `Host`) without
//!   reading, let alone buffering, what follows. Asked again, it reads the body: `Sized`
//!   waits for `Content-Length` bytes, `Chunked` decodes chunk by chunk, then skips the
//!   trailers.
//!
//! Any state can refuse ([`Bad`]): the connection then closes, since where the next request
//! would start is unknown.
//!
//! [`wire::Reader`]: super::wire::Reader

use super::grammar::{self, is_token_byte, Bad, Body, Framing};

/// Bounds on one request, from [`super::HttpConfig`].
#[derive(Clone, Copy)]
pub(crate) struct Bounds {
    pub(crate) max_head_bytes: usize,
    pub(crate) max_headers: usize,
    pub(crate) max_body_bytes: usize,
}

/// One parsed request.
#[derive(Clone)]
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

    #[cfg(test)]
    /// A request with these parts, no body and no absolute-form authority: what the tests
    /// of the code that reads requests start from.
    pub(crate) fn test(method: &str, path: &str, headers: &[(&str, &str)]) -> Request {
        Request {
            method: method.into(),
            path: path.into(),
            authority: None,
            headers: headers
                .iter()
                .map(|(n, v)| (n.to_string(), v.to_string()))
                .collect(),
            body: Vec::new(),
            close: false,
        }
    }
}

/// What the bytes so far amount to.
pub(crate) enum Step {
    /// Not a whole request yet: read more, append it, and ask again.
    More,
    /// The head is read and announces a body, of which nothing is taken yet:
    /// [`Parser::head`] is the request without it. Ask again to read the body (or give up
    /// the connection: where the next request starts is then unknown).
    Head,
    /// The head is read and its client waits for `100 Continue` before sending the body
    /// (curl does for a body over 1 KiB, for a second): send it, then ask again. Comes
    /// after [`Step::Head`], so a request refused from its head gets its refusal instead.
    Continue,
    /// A whole request, which took this many bytes from the buffer's start.
    Done(Request, usize),
}

/// One connection's parser: where it is in the request being read.
pub(crate) struct Parser {
    bounds: Bounds,
    state: State,
}

enum State {
    /// Looking for the end of the head; bytes before `searched` were checked.
    Head { searched: usize },
    /// Reading the body of `request`, which starts at `start` in the buffer.
    Body {
        request: Request,
        start: usize,
        body: Framed,
        /// The client waits for `100 Continue`, not sent yet.
        continue_due: bool,
    },
}

/// How far the body is read.
enum Framed {
    /// `Content-Length` bytes (0 without one).
    Sized(usize),
    /// Chunked: the decoded bytes so far are the request's body.
    Chunked(Chunks),
}

/// Where a chunked body's decoding is: the line or data starting at `at`.
struct Chunks {
    at: usize,
    /// Bytes of the current line before this hold no LF.
    scanned: usize,
    part: Part,
}

enum Part {
    /// A chunk size line is next.
    SizeLine,
    /// A chunk of this many bytes, then CRLF.
    Data(usize),
    /// The trailer section, which started at `start`, with `fields` lines so far.
    Trailers { start: usize, fields: usize },
}

impl Parser {
    pub(crate) fn new(bounds: Bounds) -> Self {
        Parser {
            bounds,
            state: State::Head { searched: 0 },
        }
    }

    /// True while the head of the request being read is not complete.
    pub(crate) fn in_head(&self) -> bool {
        matches!(self.state, State::Head { .. })
    }

    /// The request whose body is being read, without its body: after [`Step::Head`].
    pub(crate) fn head(&self) -> Option<&Request> {
        match &self.state {
            State::Body { request, .. } => Some(request),
            State::Head { .. } => None,
        }
    }

    /// Why a request the client stopped sending in the middle is refused.
    pub(crate) fn truncated(&self) -> &'static str {
        match self.state {
            State::Head { .. } => "connection closed mid-request",
            State::Body { .. } => "connection closed mid-body",
        }
    }

    /// What `buf` (every byte of this request read so far, from its first) amounts to. After
    /// [`Step::Done`] the parser starts on the next request, whose bytes then come first.
    pub(crate) fn advance(&mut self, buf: &[u8]) -> Result<Step, Bad> {
        if let State::Head { searched } = &mut self.state {
            let end = match grammar::head_end(buf, *searched) {
                Ok(end) => end,
                Err(Some(why)) => return Err((400, why)),
                Err(None) => {
                    // A CR last in the buffer is checked again once its next byte came.
                    *searched = buf.len().saturating_sub(1);
                    if buf.len() > self.bounds.max_head_bytes {
                        return Err((431, "request head too large"));
                    }
                    return Ok(Step::More);
                }
            };
            let (request, start, body, continue_due) = start_body(self.bounds, buf, end)?;
            // A request without a body (most GETs) is whole with its head.
            if let Framed::Sized(0) = body {
                *searched = 0;
                return Ok(Step::Done(request, start));
            }
            self.state = State::Body {
                request,
                start,
                body,
                continue_due,
            };
            return Ok(Step::Head);
        }
        let State::Body {
            request,
            start,
            body,
            continue_due,
        } = &mut self.state
        else {
            return Ok(Step::More);
        };
        if std::mem::take(continue_due) {
            return Ok(Step::Continue);
        }
        let end = match body {
            Framed::Sized(length) => {
                let end = *start + *length;
                if buf.len() < end {
                    return Ok(Step::More);
                }
                request.body = buf[*start..end].to_vec();
                end
            }
            Framed::Chunked(chunks) => {
                match chunks.advance(buf, *start, &mut request.body, self.bounds)? {
                    Some(end) => end,
                    None => return Ok(Step::More),
                }
            }
        };
        let State::Body { request, .. } =
            std::mem::replace(&mut self.state, State::Head { searched: 0 })
        else {
            return Ok(Step::More); // unreachable: matched above
        };
        Ok(Step::Done(request, end))
    }
}

/// Parses the head, which ends at `head_end`: the request without its body, where its body
/// starts and how it is framed, and whether the client waits for `100 Continue`.
fn start_body(
    bounds: Bounds,
    buf: &[u8],
    head_end: usize,
) -> Result<(Request, usize, Framed, bool), Bad> {
    if head_end > bounds.max_head_bytes {
        return Err((431, "request head too large"));
    }
    let head =
        std::str::from_utf8(&buf[..head_end]).map_err(|_| (400, "request head is not UTF-8"))?;
    let (request, framing, http10) = parse_head(bounds, head)?;
    let start = head_end + 4;
    let (body, wants_continue) = match framing.body(http10)? {
        Body::Length(length) => {
            if length > bounds.max_body_bytes {
                return Err((413, "body too large"));
            }
            let waiting = buf.len() < start + length;
            (Framed::Sized(length), framing.expects_continue && waiting)
        }
        Body::Chunked => {
            let chunks = Chunks {
                at: start,
                scanned: start,
                part: Part::SizeLine,
            };
            let waiting = buf.len() == start;
            (Framed::Chunked(chunks), framing.expects_continue && waiting)
        }
    };
    Ok((request, start, body, wants_continue))
}

/// The request line and header fields: the request without its body, what the fields say
/// about framing, and whether it is HTTP/1.0.
fn parse_head(bounds: Bounds, head: &str) -> Result<(Request, Framing, bool), Bad> {
    // Every LF in the head ends a CRLF (checked by `head_end`): the lines are exact.
    let mut lines = grammar::crlf_lines(head);
    let request_line = lines.next().unwrap_or_default();
    let mut parts = request_line.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err((400, "malformed request line"));
    };
    let http10 = match version {
        "HTTP/1.1" => false,
        "HTTP/1.0" => true,
        // RFC 9112 §2.3: a well-formed version this server does not speak.
        v if grammar::is_http_version(v) => return Err((505, "unsupported HTTP version")),
        _ => return Err((400, "malformed HTTP version")),
    };
    if method.is_empty() || !method.bytes().all(is_token_byte) {
        return Err((400, "malformed method"));
    }
    let (path, authority) = grammar::parse_target(target)?;
    // Sized for a usual request: growing from empty reallocated twice per request.
    let mut headers = Vec::with_capacity(bounds.max_headers.min(16));
    let mut framing = Framing::default();
    for line in lines {
        if headers.len() >= bounds.max_headers {
            return Err((431, "too many headers"));
        }
        let (name, value) = grammar::field_line(line)?;
        framing.note(name, value)?;
        headers.push((name.to_string(), value.to_string()));
    }
    let request = Request {
        method: method.to_string(),
        path: path.to_string(),
        authority: authority.map(str::to_string),
        headers,
        body: Vec::new(),
        close: framing.close || (http10 && !framing.keep_alive),
    };
    Ok((request, framing, http10))
}

impl Chunks {
    /// Decodes what `buf` holds of a chunked body (RFC 9112 §7.1) that starts at `start`,
    /// appending the data to `body`: where the message ends once its last chunk and
    /// trailer section came, else `None`. Chunk extensions and trailer fields are checked
    /// and dropped. The data is bounded by `max_body_bytes` (413), each chunk line and the
    /// trailer section by `max_head_bytes`, and the whole encoding by twice the one plus
    /// the other (so a stream of one-byte chunks cannot buffer without end).
    fn advance(
        &mut self,
        buf: &[u8],
        start: usize,
        body: &mut Vec<u8>,
        bounds: Bounds,
    ) -> Result<Option<usize>, Bad> {
        let max_encoded = 2 * bounds.max_body_bytes + bounds.max_head_bytes;
        loop {
            match self.part {
                Part::SizeLine => {
                    let Some(end) = self.line(buf, bounds.max_head_bytes)? else {
                        return Ok(None);
                    };
                    let size = grammar::chunk_size(
                        &buf[self.at..end],
                        bounds.max_body_bytes - body.len(),
                    )?;
                    self.next_line(end + 2);
                    self.part = if size == 0 {
                        Part::Trailers {
                            start: self.at,
                            fields: 0,
                        }
                    } else if self.at + size + 2 - start > max_encoded {
                        return Err((413, "body too large"));
                    } else {
                        Part::Data(size)
                    };
                }
                Part::Data(size) => {
                    let at = self.at;
                    if buf.len() < at + size + 2 {
                        return Ok(None);
                    }
                    body.extend_from_slice(&buf[at..at + size]);
                    if buf[at + size..at + size + 2] != *b"\r\n" {
                        return Err((400, "chunk data not followed by CRLF"));
                    }
                    self.next_line(at + size + 2);
                    self.part = Part::SizeLine;
                }
                Part::Trailers { start, fields } => {
                    // Field lines as in the head, then an empty line.
                    let Some(end) = self.line(buf, bounds.max_head_bytes)? else {
                        return Ok(None);
                    };
                    if end == self.at {
                        return Ok(Some(end + 2));
                    }
                    if fields + 1 > bounds.max_headers || end - start > bounds.max_head_bytes {
                        return Err((431, "trailer section too large"));
                    }
                    let line = std::str::from_utf8(&buf[self.at..end])
                        .map_err(|_| (400, "trailer field is not UTF-8"))?;
                    grammar::field_line(line)?;
                    self.next_line(end + 2);
                    self.part = Part::Trailers {
                        start,
                        fields: fields + 1,
                    };
                }
            }
        }
    }

    fn next_line(&mut self, at: usize) {
        self.at = at;
        self.scanned = at;
    }

    /// Where the line at `self.at` ends (the index of its CRLF), once `buf` holds its end. A
    /// line holds no control character but HTAB (a bare CR or LF is refused) and is at most
    /// `max` bytes long.
    fn line(&mut self, buf: &[u8], max: usize) -> Result<Option<usize>, Bad> {
        let at = self.at;
        let Some(i) = buf[self.scanned..].iter().position(|&b| b == b'\n') else {
            self.scanned = buf.len();
            if buf.len() - at > max {
                return Err((431, "chunk line too long"));
            }
            return Ok(None);
        };
        let lf = self.scanned + i;
        if lf - at > max {
            return Err((431, "chunk line too long"));
        }
        if lf == at || buf[lf - 1] != b'\r' {
            return Err((400, "bare LF in a chunked body"));
        }
        if buf[at..lf - 1]
            .iter()
            .any(|&b| grammar::is_ctl(b) && b != b'\t')
        {
            return Err((400, "control character in a chunk line"));
        }
        Ok(Some(lf - 1))
    }
}
