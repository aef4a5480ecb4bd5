//! HTTP/1.1 on a connection: reading requests into a buffer for [`Parser`] to frame, and
//! writing responses (sized JSON, chunked event streams). No method knowledge beyond
//! HTTP's own.

use std::io::{self, Read, Write};
use std::time::Instant;

use serde_json::{json, Value};

use super::parse::{Bounds, Parser, Request, Step};

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

/// What [`Reader::next`] read.
pub(crate) enum Got<'r> {
    /// The head of a request that announces a body, before any byte of the body is taken:
    /// the next call reads the body (sending `100 Continue` first if the client waits for
    /// it). A caller that refuses the request from its head closes the connection instead:
    /// where the next request would start is unknown.
    Head(&'r Request),
    /// A whole request.
    Whole(Request),
}

/// Reads requests from one connection, keeping bytes that arrived early for the next one.
pub(crate) struct Reader {
    buf: Vec<u8>,
    /// Where each `read` lands, zeroed once per connection: a fresh 8 KiB array per read
    /// was zeroed every time, a seventh of the server's instructions per request.
    chunk: Vec<u8>,
    parser: Parser,
}

impl Reader {
    pub(crate) fn new(bounds: Bounds) -> Self {
        Reader {
            buf: Vec::new(),
            chunk: vec![0; 8192],
            parser: Parser::new(bounds),
        }
    }

    /// Reads one request (framed by [`Parser`]), its body included. `deadline` bounds the
    /// whole request (slow clients time out), and `head_by` its head.
    #[cfg(test)]
    pub(crate) fn read(
        &mut self,
        stream: &mut (impl Read + Write),
        head_by: Instant,
        deadline: Instant,
    ) -> Result<Request, ReadError> {
        loop {
            if let Got::Whole(request) = self.next(stream, head_by, deadline)? {
                return Ok(request);
            }
        }
    }

    /// Reads on until a request's head announcing a body is complete, or a whole request
    /// (see [`Got`]). `deadline` bounds the whole request (slow clients time out), and
    /// `head_by` its head.
    pub(crate) fn next(
        &mut self,
        stream: &mut (impl Read + Write),
        head_by: Instant,
        deadline: Instant,
    ) -> Result<Got<'_>, ReadError> {
        if let Some(request) = self.advance(stream, head_by, deadline)? {
            return Ok(Got::Whole(request));
        }
        match self.parser.head() {
            Some(head) => Ok(Got::Head(head)),
            None => Err(ReadError::Io), // unreachable: `advance` stopped at a head
        }
    }

    /// Reads until the parser has a whole request, or (`None`) the head of one whose body
    /// is still to be read.
    fn advance(
        &mut self,
        stream: &mut (impl Read + Write),
        head_by: Instant,
        deadline: Instant,
    ) -> Result<Option<Request>, ReadError> {
        loop {
            let step = self.parser.advance(&self.buf);
            match step.map_err(|(status, why)| ReadError::Bad(status, why))? {
                Step::Done(request, used) => {
                    self.buf.drain(..used);
                    return Ok(Some(request));
                }
                Step::Head => return Ok(None),
                Step::Continue => stream
                    .write_all(b"HTTP/1.1 100 Continue\r\n\r\n")
                    .map_err(|_| ReadError::Io)?,
                Step::More => {
                    let first = self.buf.is_empty();
                    let by = match self.parser.in_head() {
                        true => head_by.min(deadline),
                        false => deadline,
                    };
                    match self.fill(stream, by) {
                        Ok(0) if first => return Err(ReadError::Closed),
                        Ok(0) => return Err(ReadError::Bad(400, self.parser.truncated())),
                        Ok(_) => {}
                        Err(ReadError::TimedOut) if first => return Err(ReadError::Idle),
                        Err(e) => return Err(e),
                    }
                }
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

/// A complete response as bytes: JSON when there is a body, else empty.
pub(crate) fn response(status: u16, body: Option<&[u8]>, session: Option<&str>) -> Vec<u8> {
    let headers: Vec<(&str, &str)> = session.map(|s| ("Mcp-Session-Id", s)).into_iter().collect();
    let content_type = body.map(|_| "application/json");
    let mut bytes = Vec::new();
    // Writing to memory cannot fail.
    let _ = write_response(
        &mut bytes,
        status,
        &headers,
        content_type,
        body.unwrap_or_default(),
        false,
    );
    bytes
}

/// A JSON-RPC error response without an id (or with the one recovered), as an HTTP body.
pub(crate) fn error_body(code: i64, message: &str, id: Option<Value>) -> Vec<u8> {
    let mut body = json!({"jsonrpc": "2.0", "error": {"code": code, "message": message}});
    body["id"] = id.unwrap_or(Value::Null);
    body.to_string().into_bytes()
}

/// Writes an error status with a JSON-RPC error body (with the request's id, when it had
/// one), and the challenge a 401 needs.
pub(crate) fn refuse(
    stream: &mut impl Write,
    status: u16,
    code: i64,
    why: &str,
    id: Option<Value>,
    close: bool,
) -> io::Result<()> {
    let body = error_body(code, why, id);
    let headers: &[(&str, &str)] = if status == 401 {
        &[("WWW-Authenticate", "Bearer")]
    } else {
        &[]
    };
    write_response(
        stream,
        status,
        headers,
        Some("application/json"),
        &body,
        close,
    )
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
#[path = "wire_tests.rs"]
mod tests;
