//! The stdio transport: newline-delimited JSON over any pair of byte streams. It does every
//! read and write of a stdio session; the session ([`Session`]) only sees parsed units.
//!
//! The input is framed by [`LineReader`], read on a thread of its own: the dispatch thread
//! can wait for input with a deadline (a parked question's timeout, change polling) and a
//! running handler can look at what already arrived without blocking (cancellation). A line
//! over the limit is skipped unheld; its first bytes give the request id to answer.
//!
//! Output is buffered and flushed whenever no further complete input line is already here
//! (pipelined clients get batched writes, interactive clients immediate answers), always
//! before waiting for input, and whenever a handler sends a notification. Every line has
//! the same origin: there is only one client.

use std::cell::RefCell;
use std::io::{self, Read, Write};
use std::rc::Rc;
use std::time::Instant;

use serde_json::Value;

use crate::error::{EnvelopeError, Error};
use crate::jsonrpc::{scan_id, RequestId};
use crate::server::Server;
use crate::transport::{parse, Origin, Polled, Port, Session, Unit};
use minimcp_base::lines::{LineReader, Scan};
use minimcp_base::log;

/// Bytes of output buffered before writing even though more input is waiting.
const OUTPUT_HIGH_WATER: usize = 16 * 1024;

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
    let input = LineReader::new(Box::new(input), server.limits.max_message_bytes, scan_id);
    let stdio = Rc::new(RefCell::new(Stdio {
        input,
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
    input: LineReader<Option<RequestId>>,
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
            None => read(&mut self.input, true, deadline, |_| true).map_err(Error::Read),
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
        match read(&mut self.0.borrow_mut().input, false, None, wanted) {
            Ok(Next::Unit(unit)) => Some(Polled::Unit(unit, 0)),
            Ok(_) => None,
            Err(e) => {
                log::warn(format_args!("reading input failed: {e}"));
                None
            }
        }
    }
}

/// What the read loop gets.
enum Next {
    Unit(Unit),
    /// Nothing to take now: the deadline passed, or nothing wanted has arrived.
    Idle,
    Closed,
}

/// The next unit `wanted` accepts: a line it refuses stays first (`Idle`), a line over the
/// limit is always taken. Waits for it until `deadline` when `wait`, else only looks at what
/// has arrived.
fn read(
    input: &mut LineReader<Option<RequestId>>,
    wait: bool,
    deadline: Option<Instant>,
    wanted: impl Fn(&Value) -> bool,
) -> io::Result<Next> {
    loop {
        return Ok(match input.scan() {
            Scan::Line { start, end, next } => {
                let unit = parse(input.line(start, end));
                if unit.value().is_some_and(|value| !wanted(value)) {
                    return Ok(Next::Idle);
                }
                input.take(next);
                Next::Unit(unit)
            }
            Scan::TooLarge { size, head: id } => {
                let error = EnvelopeError::TooLarge {
                    size,
                    limit: input.max(),
                };
                Next::Unit(Unit(Err((error, id))))
            }
            Scan::Eof => Next::Closed,
            Scan::More if input.fill(wait, deadline)? => continue,
            Scan::More => Next::Idle,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use minimcp_base::lines::CHUNK;
    use std::io::Cursor;
    use std::time::Duration;

    fn reader(input: &[u8], max: usize) -> LineReader<Option<RequestId>> {
        LineReader::new(Box::new(Cursor::new(input.to_vec())), max, scan_id)
    }

    fn frames(input: &[u8], max: usize) -> Vec<String> {
        let mut reader = reader(input, max);
        let mut out = Vec::new();
        loop {
            match reader.scan() {
                Scan::Line { start, end, next } => {
                    out.push(String::from_utf8_lossy(reader.line(start, end)).into_owned());
                    reader.take(next);
                }
                Scan::TooLarge { size, head: id } => {
                    out.push(format!("too large {size} id={id:?}"))
                }
                Scan::Eof => return out,
                Scan::More => assert!(reader.fill(true, None).expect("in-memory read")),
            }
        }
    }

    /// The `n` of the next unit, `Idle` or `Closed`.
    fn next(reader: &mut LineReader<Option<RequestId>>, deadline: Option<Instant>) -> String {
        match read(reader, true, deadline, |_| true).expect("read") {
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
        let mut reader = LineReader::new(Box::new(rx), 100, scan_id);
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
        // Wait until both lines are here (one read of the input takes both).
        while !reader.has_buffered_line() {
            reader.fill(true, None).expect("read");
        }
        let two = |v: &Value| v["n"] == 2;
        let poll = |reader: &mut LineReader<_>| match read(reader, false, None, two) {
            Ok(Next::Unit(unit)) => Some(unit),
            _ => None,
        };
        assert!(poll(&mut reader).is_none(), "the first line is not wanted");
        assert_eq!(next(&mut reader, None), "1", "and stays first");
        let taken = poll(&mut reader).expect("the second is wanted");
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
