//! The stdio transport: newline-delimited JSON over any pair of byte streams. It does every
//! read and write of a stdio session; the session ([`Session`]) only sees parsed units.
//!
//! One helper thread reads the input in chunks and hands them over a bounded channel, so
//! the dispatch thread can wait for input with a deadline (a parked question's timeout,
//! change polling) and a running handler can look at what already arrived without blocking
//! (cancellation). When the channel is full the thread stops reading: a client that sends
//! faster than the server answers fills its pipe and waits, holding no more memory here.
//!
//! Framing ([`LineReader`]): a trailing `\r` and a leading UTF-8 byte-order mark are
//! stripped, blank lines are skipped, a last line without a newline at EOF is still
//! delivered, and a line longer than the limit is skipped *without being held in memory*
//! (only its first `limit` bytes are kept, to recover the request id).
//!
//! Output is buffered and flushed whenever no further complete input line is already here
//! (pipelined clients get batched writes, interactive clients immediate answers), always
//! before waiting for input, and whenever a handler sends a notification. Every line has
//! the same origin: there is only one client.

use std::cell::RefCell;
use std::io::{self, Read, Write};
use std::rc::Rc;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, TryRecvError};
use std::thread;
use std::time::Instant;

use serde_json::Value;

use crate::error::{EnvelopeError, Error};
use crate::jsonrpc::{scan_id, RequestId};
use crate::server::Server;
use crate::transport::{parse, Origin, Polled, Port, Session, Unit};
use minimcp_base::log;

/// Bytes of output buffered before writing even though more input is waiting.
const OUTPUT_HIGH_WATER: usize = 16 * 1024;
/// Bytes asked for per read. Small on purpose: each chunk is copied once more on its way to
/// the dispatch thread, and copies under 2 KiB are the cheap kind (vector moves, not a byte
/// loop); a larger read gained nothing measurable.
const CHUNK: usize = 2 * 1024;
/// Chunks read ahead of the dispatch thread before the reader waits for it.
const CHUNKS_AHEAD: usize = 4;
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Serves one session: reads requests from `input` until it ends, writes responses and
/// notifications to `output`. Returns `Ok` on end of input and when the client closes
/// `output`; `Err` only when reading or writing fails otherwise. `input` is read on a
/// thread of its own, which ends when `input` does.
pub fn serve<R, W>(server: &Server, input: R, output: W) -> Result<(), Error>
where
    R: Read + Send + 'static,
    W: Write,
{
    // Boxed here so the session machinery is compiled once, whatever the stream types: the
    // binary (and with it the server's resident memory) stays small, and a dynamic call per
    // read or write is nothing next to the system call behind it.
    let input = read_on_a_thread(Box::new(input));
    let stdio = Rc::new(RefCell::new(Stdio {
        input: LineReader::new(input, server.limits.max_message_bytes),
        output: Box::new(output),
        pending: Vec::with_capacity(OUTPUT_HIGH_WATER),
        closed: false,
        failed: None,
    }));
    let mut session = Session::new(server, Box::new(Lines(Rc::clone(&stdio))));
    let result = run(&mut session, &stdio);
    drop(session);
    log::info(format_args!("session ended"));
    result
}

/// The read loop: each unit to the session, its timers when due, until the input ends.
fn run(session: &mut Session<'_>, stdio: &RefCell<Stdio<'_>>) -> Result<(), Error> {
    loop {
        if stdio.borrow().closed {
            log::info(format_args!("the client closed its end; stopping"));
            return Ok(());
        }
        let deadline = session.deadline();
        // Bound first: the borrow must end before the session writes.
        let next = stdio.borrow_mut().next(deadline)?;
        match next {
            Next::Unit(unit) => session.receive(unit, 0),
            Next::Closed => break,
            Next::Idle => {}
        }
        if deadline.is_some_and(|due| Instant::now() >= due) {
            session.tick();
        }
    }
    // What the client still awaits is answered (a parked request learns the input closed).
    session.close();
    let mut stdio = stdio.borrow_mut();
    stdio.flush();
    stdio.failed.take().map_or(Ok(()), |e| Err(Error::Write(e)))
}

/// Both streams of a stdio session, shared by the read loop and the session's [`Port`].
struct Stdio<'w> {
    input: LineReader,
    output: Box<dyn Write + 'w>,
    /// Lines sent and not yet written.
    pending: Vec<u8>,
    /// The client closed `output`: it is remembered, not reported again.
    closed: bool,
    /// Writing failed otherwise: the session ends with this error.
    failed: Option<io::Error>,
}

impl Stdio<'_> {
    /// The next unit, waiting until `deadline`; output is flushed first unless another line
    /// is already here.
    fn next(&mut self, deadline: Option<Instant>) -> Result<Next, Error> {
        if !self.input.has_buffered_line() || self.pending.len() >= OUTPUT_HIGH_WATER {
            self.flush();
        }
        match self.failed.take() {
            Some(e) => Err(Error::Write(e)),
            None => self.input.next(deadline).map_err(Error::Read),
        }
    }

    /// A broken pipe is not an error: the client left, and there is nobody to tell.
    fn flush(&mut self) {
        let written = match self.closed || self.failed.is_some() {
            true => Ok(()),
            false => (self.output.write_all(&self.pending)).and_then(|()| self.output.flush()),
        };
        self.pending.clear();
        // The log lines of the requests just answered go out with their answers.
        log::flush();
        match written {
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => self.closed = true,
            Err(e) => self.failed = Some(e),
            Ok(()) => {}
        }
    }
}

/// The session's side of a stdio session.
struct Lines<'w>(Rc<RefCell<Stdio<'w>>>);

impl Port for Lines<'_> {
    fn send(&mut self, _: Origin, message: &[u8], _: Option<i64>) {
        let pending = &mut self.0.borrow_mut().pending;
        pending.extend_from_slice(message);
        pending.push(b'\n');
    }

    fn finish(&mut self, _: Origin) {}

    fn flush(&mut self) {
        self.0.borrow_mut().flush();
    }

    fn poll(&mut self, wanted: &dyn Fn(&Value) -> bool) -> Option<Polled> {
        let unit = self.0.borrow_mut().input.poll(wanted);
        unit.map(|unit| Polled::Unit(unit, 0))
    }
}

/// Reads `input` on a thread of its own into a channel of at most [`CHUNKS_AHEAD`] chunks;
/// the channel closes at the end of the input (after an error, if reading failed).
fn read_on_a_thread(mut input: Box<dyn Read + Send>) -> Receiver<io::Result<Vec<u8>>> {
    let (tx, rx) = mpsc::sync_channel(CHUNKS_AHEAD);
    let reader = move || {
        let mut buf = vec![0; CHUNK];
        loop {
            let chunk = match input.read(&mut buf) {
                Ok(0) => return,
                Ok(n) => Ok(buf[..n].to_vec()),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => Err(e),
            };
            let failed = chunk.is_err();
            if tx.send(chunk).is_err() || failed {
                return;
            }
        }
    };
    if let Err(e) = thread::Builder::new()
        .name("minimcp-input".into())
        .spawn(reader)
    {
        // The input went with the thread that never started: the session ends at once.
        log::warn(format_args!("cannot start the input thread: {e}"));
    }
    rx
}

/// What the read loop gets.
enum Next {
    Unit(Unit),
    /// The deadline passed first.
    Idle,
    /// The input ended.
    Closed,
}

/// What [`LineReader::scan`] found in the buffer.
enum Scan {
    /// A non-blank line at `start..end`; the input goes on at `next`.
    Line {
        start: usize,
        end: usize,
        next: usize,
    },
    /// A line of `size` bytes over the limit, now skipped; `id` is read from its first
    /// bytes when possible.
    TooLarge { size: u64, id: Option<RequestId> },
    /// Nothing more will come.
    Eof,
    /// No complete line is here yet.
    More,
}

/// Splits the chunks of a stream into lines of at most `max` bytes, each a unit.
struct LineReader {
    chunks: Receiver<io::Result<Vec<u8>>>,
    buf: Vec<u8>,
    start: usize,
    /// Bytes from `start` known to hold no newline.
    scanned: usize,
    max: usize,
    eof: bool,
    /// While skipping a line over the limit: its length so far, and the id from its start.
    discarding: Option<(u64, Option<RequestId>)>,
}

impl LineReader {
    /// A reader of `chunks` that refuses lines longer than `max` bytes.
    fn new(chunks: Receiver<io::Result<Vec<u8>>>, max: usize) -> Self {
        LineReader {
            chunks,
            buf: Vec::new(),
            start: 0,
            scanned: 0,
            max,
            eof: false,
            discarding: None,
        }
    }

    /// True when a complete line is already here, so reading it will not block.
    fn has_buffered_line(&mut self) -> bool {
        while self.discarding.is_none() {
            let from = self.start + self.scanned;
            if let Some(offset) = self.buf[from..].iter().position(|&b| b == b'\n') {
                // Everything before the newline holds none: `scan` starts there instead of
                // reading the line a second time.
                self.scanned += offset;
                return true;
            }
            self.scanned = self.buf.len() - self.start;
            if self.eof {
                return self.buf.len() > self.start;
            }
            if !matches!(self.fill(false, None), Ok(true)) {
                return false;
            }
        }
        false
    }

    /// The next unit. Blocks until a line arrives, the input ends, or `deadline` passes.
    fn next(&mut self, deadline: Option<Instant>) -> io::Result<Next> {
        self.read(true, deadline, &|_| true)
    }

    /// The next unit already here that `wanted` accepts, without waiting.
    fn poll(&mut self, wanted: &dyn Fn(&Value) -> bool) -> Option<Unit> {
        match self.read(false, None, wanted) {
            Ok(Next::Unit(unit)) => Some(unit),
            Ok(_) => None,
            Err(e) => {
                log::warn(format_args!("reading input failed: {e}"));
                None
            }
        }
    }

    /// The next unit `wanted` accepts: a line it refuses stays first (`Idle`), a line over
    /// the limit is always taken. Waits for it until `deadline` when `wait`, else only looks
    /// at what has arrived.
    fn read(
        &mut self,
        wait: bool,
        deadline: Option<Instant>,
        wanted: &dyn Fn(&Value) -> bool,
    ) -> io::Result<Next> {
        loop {
            return Ok(match self.scan() {
                Scan::Line { start, end, next } => {
                    let unit = parse(&self.buf[start..end]);
                    if unit.value().is_some_and(|value| !wanted(value)) {
                        return Ok(Next::Idle);
                    }
                    self.take(next);
                    Next::Unit(unit)
                }
                Scan::TooLarge { size, id } => {
                    let error = EnvelopeError::TooLarge {
                        size,
                        limit: self.max,
                    };
                    Next::Unit(Unit(Err((error, id))))
                }
                Scan::Eof => Next::Closed,
                Scan::More if self.fill(wait, deadline)? => continue,
                Scan::More => Next::Idle,
            });
        }
    }

    /// Where the next line in the buffer is, without taking it (blank lines and a line
    /// over the limit are consumed as they are found).
    fn scan(&mut self) -> Scan {
        loop {
            let pending = &self.buf[self.start..];
            if let Some((size, _)) = &mut self.discarding {
                // Drops the line as it arrives, counting it, up to its newline or EOF.
                let newline = pending.iter().position(|&b| b == b'\n');
                *size += newline.unwrap_or(pending.len()) as u64;
                self.start = newline.map_or(self.buf.len(), |offset| self.start + offset + 1);
                if newline.is_none() && !self.eof {
                    return Scan::More;
                }
                let (size, id) = self.discarding.take().unwrap_or_default();
                return Scan::TooLarge { size, id };
            }
            let newline = pending[self.scanned..].iter().position(|&b| b == b'\n');
            // A last line without a newline is still a message.
            let line_end = match newline {
                Some(offset) => Some(self.start + self.scanned + offset),
                None => (self.eof && !pending.is_empty()).then_some(self.buf.len()),
            };
            if line_end.unwrap_or(self.buf.len()) - self.start > self.max {
                // Keep only what identifies the request; drop the rest as it arrives.
                self.discarding = Some((0, scan_id(&pending[..self.max])));
                self.scanned = 0;
                continue;
            }
            let Some(line_end) = line_end else {
                self.scanned = pending.len();
                return if self.eof { Scan::Eof } else { Scan::More };
            };
            let next = (line_end + 1).min(self.buf.len());
            match trim_line(&self.buf[self.start..line_end]) {
                Some((a, b)) => {
                    self.scanned = line_end - self.start;
                    let start = self.start;
                    return Scan::Line {
                        start: start + a,
                        end: start + b,
                        next,
                    };
                }
                None => self.take(next),
            }
        }
    }

    /// Takes everything before `next`.
    fn take(&mut self, next: usize) {
        self.start = next;
        self.scanned = 0;
    }

    /// Moves the next chunk into the buffer: waiting for it until `deadline` when `wait`,
    /// else only when it is already there. False when none came.
    fn fill(&mut self, wait: bool, deadline: Option<Instant>) -> io::Result<bool> {
        // `Err(true)`: the reading thread dropped its sender at the end of the input.
        let chunks = &self.chunks;
        let received = match (wait, deadline) {
            (false, _) => chunks
                .try_recv()
                .map_err(|e| e == TryRecvError::Disconnected),
            (true, None) => chunks.recv().map_err(|_| true),
            (true, Some(at)) => (chunks.recv_timeout(at.saturating_duration_since(Instant::now())))
                .map_err(|e| e == RecvTimeoutError::Disconnected),
        };
        match received {
            Ok(chunk) => {
                let chunk = chunk?;
                // Compact: the buffer never grows past `max` + one chunk.
                self.buf.drain(..self.start);
                self.start = 0;
                self.buf.extend_from_slice(&chunk);
            }
            Err(false) => return Ok(false),
            Err(true) => self.eof = true,
        }
        Ok(true)
    }
}

/// Where a line starts and ends without a UTF-8 BOM and surrounding blanks (a trailing
/// `\r` included); `None` for a blank line.
fn trim_line(line: &[u8]) -> Option<(usize, usize)> {
    let bom = if line.starts_with(BOM) { BOM.len() } else { 0 };
    let end = line.iter().rposition(|b| !b.is_ascii_whitespace())? + 1;
    let start = bom
        + line[bom..end]
            .iter()
            .position(|b| !b.is_ascii_whitespace())?;
    Some((start, end))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;
    use std::time::Duration;

    fn reader(input: &[u8], max: usize) -> LineReader {
        LineReader::new(read_on_a_thread(Box::new(Cursor::new(input.to_vec()))), max)
    }

    fn frames(input: &[u8], max: usize) -> Vec<String> {
        let mut reader = reader(input, max);
        let mut out = Vec::new();
        loop {
            match reader.scan() {
                Scan::Line { start, end, next } => {
                    out.push(String::from_utf8_lossy(&reader.buf[start..end]).into_owned());
                    reader.take(next);
                }
                Scan::TooLarge { size, id } => out.push(format!("too large {size} id={id:?}")),
                Scan::Eof => return out,
                Scan::More => assert!(reader.fill(true, None).expect("in-memory read")),
            }
        }
    }

    /// The `n` of the next unit, `Idle` or `Closed`.
    fn next(reader: &mut LineReader, deadline: Option<Instant>) -> String {
        match reader.next(deadline).expect("read") {
            Next::Unit(unit) => unit.value().expect("json")["n"].to_string(),
            Next::Idle => "idle".into(),
            Next::Closed => "closed".into(),
        }
    }

    #[test]
    fn splits_lines_and_strips_framing_noise() {
        assert_eq!(frames(b"a\nb\n", 100), ["a", "b"]);
        assert_eq!(frames(b"a\r\nb\r\n", 100), ["a", "b"]);
        assert_eq!(frames(b"\xEF\xBB\xBFa\nb", 100), ["a", "b"]);
        assert_eq!(frames(b"\n\n  \r\n\ta\n\n", 100), ["a"]);
        assert_eq!(
            frames(b"last line without newline", 100),
            ["last line without newline"]
        );
        assert_eq!(frames(b"", 100), Vec::<String>::new());
        assert_eq!(frames(b"  \n", 100), Vec::<String>::new());
    }

    #[test]
    fn skips_oversized_lines_and_keeps_going() {
        let long = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":7,\"x\":\"{}\"}}",
            "a".repeat(300)
        );
        let input = format!("ok1\n{long}\nok2\n");
        let got = frames(input.as_bytes(), 64);
        assert_eq!(
            got,
            [
                "ok1".to_string(),
                format!("too large {} id=Some(7)", long.len()),
                "ok2".into()
            ]
        );
    }

    #[test]
    fn oversized_line_far_larger_than_the_buffer_is_streamed_past() {
        let long = "x".repeat(5 * CHUNK + 17);
        let input = format!("{long}\n{{}}\n{long}");
        let got = frames(input.as_bytes(), 1000);
        let size = long.len();
        assert_eq!(
            got,
            [
                format!("too large {size} id=None"),
                "{}".into(),
                format!("too large {size} id=None")
            ]
        );
    }

    #[test]
    fn reader_memory_stays_bounded_by_the_limit() {
        let long = "y".repeat(20 * CHUNK);
        let mut reader = reader(format!("{long}\n").as_bytes(), 1024);
        assert!(matches!(
            reader.next(None).expect("read"),
            Next::Unit(Unit(Err((EnvelopeError::TooLarge { .. }, None))))
        ));
        assert!(
            reader.buf.capacity() <= 2 * (1024 + CHUNK),
            "buffer grew to {}",
            reader.buf.capacity()
        );
    }

    #[test]
    fn line_exactly_at_the_limit_is_accepted() {
        assert_eq!(
            frames(b"abcd\nabcde\n", 4),
            ["abcd".to_string(), "too large 5 id=None".into()]
        );
    }

    #[test]
    fn knows_whether_a_line_is_buffered() {
        let mut reader = reader(b"{\"n\":1}\n{\"n\":2}\n{\"n\":3}", 100);
        assert_eq!(next(&mut reader, None), "1");
        assert!(reader.has_buffered_line());
        assert_eq!(next(&mut reader, None), "2");
        assert_eq!(next(&mut reader, None), "3");
        assert_eq!(next(&mut reader, None), "closed");
        assert!(!reader.has_buffered_line());
    }

    #[test]
    fn reads_time_out_and_then_deliver() {
        let (rx, mut tx) = std::io::pipe().expect("pipe");
        let mut reader = LineReader::new(read_on_a_thread(Box::new(rx)), 100);
        let soon = Instant::now() + Duration::from_millis(20);
        assert_eq!(next(&mut reader, Some(soon)), "idle");
        tx.write_all(b"{\"n\":5}\n").expect("write");
        drop(tx);
        assert_eq!(next(&mut reader, None), "5");
        assert_eq!(next(&mut reader, None), "closed");
    }

    #[test]
    fn a_poll_takes_what_is_wanted_and_leaves_the_rest_first() {
        let mut reader = reader(b"{\"n\":1}\n{\"n\":2}\n", 100);
        // Wait until both lines are here.
        while !reader.eof {
            reader.fill(true, None).expect("read");
        }
        let two = |v: &Value| v["n"] == 2;
        assert!(reader.poll(&two).is_none(), "the first line is not wanted");
        assert_eq!(next(&mut reader, None), "1", "and stays first");
        let taken = reader.poll(&two).expect("the second is wanted");
        assert_eq!(taken.value().expect("json")["n"], 2);
        assert_eq!(next(&mut reader, None), "closed");
    }

    struct Broken;
    impl Write for Broken {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::ErrorKind::BrokenPipe.into())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn broken_pipe_closes_quietly() {
        let server = Server::builder("t", "1").build().expect("valid");
        let input = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n".repeat(3);
        serve(&server, io::Cursor::new(input), Broken).expect("a broken pipe is not an error");
    }
}
