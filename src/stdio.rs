//! The stdio transport: newline-delimited JSON over any byte stream pair, as a [`Port`].
//!
//! Output is flushed whenever no further complete input line is already buffered (pipelined
//! clients get batched writes, interactive clients immediate answers) and always before
//! blocking on a read. Every line has the same origin: there is only one client.

use std::io::{self, Read, Write};
use std::time::Instant;

use crate::error::{EnvelopeError, Error};
use crate::log;
use crate::server::Server;
use crate::session::port::{self, Take};
use crate::session::{Connection, Origin, Port, Received, Unit};
use crate::transport::{Frame, LineReader};

/// Bytes of output buffered before writing even though more input is waiting.
const OUTPUT_HIGH_WATER: usize = 16 * 1024;

/// Serves one session: reads requests from `input` until it ends, writes responses and
/// notifications to `output`. Returns `Ok` on end of input and when the client closes
/// `output`; `Err` only when reading or writing fails otherwise.
pub fn serve<R, W>(server: &Server, input: R, output: W) -> Result<(), Error>
where
    R: Read + Send + 'static,
    W: Write,
{
    // Boxed here so the session machinery is compiled once, whatever the stream types: the
    // binary (and with it the server's resident memory) stays small, and a dynamic call per
    // read or write is nothing next to the system call behind it.
    let port = Lines {
        input: LineReader::new(
            Box::new(input) as Box<dyn Read + Send>,
            server.limits.max_message_bytes,
        ),
        output: Box::new(output),
        pending: Vec::with_capacity(OUTPUT_HIGH_WATER),
        closed: false,
    };
    let result = Connection::new(server, Box::new(port)).run();
    log::info(format_args!("session ended"));
    result
}

/// One newline-delimited JSON stream in each direction.
struct Lines<'w> {
    input: LineReader<Box<dyn Read + Send>>,
    output: Box<dyn Write + 'w>,
    /// Lines sent and not yet written.
    pending: Vec<u8>,
    /// The client closed `output`: it is remembered, not reported again.
    closed: bool,
}

impl Port for Lines<'_> {
    fn receive(
        &mut self,
        deadline: Option<Instant>,
        take: Option<Take<'_>>,
    ) -> Result<Received, Error> {
        if !self.input.has_buffered_line() || self.pending.len() >= OUTPUT_HIGH_WATER {
            self.flush()?;
        }
        let unit: Unit = match self.input.next_frame(deadline).map_err(Error::Read)? {
            Frame::Line(line) => port::parse(line),
            Frame::TooLarge { size, id } => Err((
                EnvelopeError::TooLarge {
                    size,
                    limit: self.input.limit(),
                },
                id,
            )),
            Frame::Eof => return Ok(Received::Closed),
            Frame::TimedOut => return Ok(Received::Idle),
        };
        if let (Some(take), Ok(value)) = (take, &unit) {
            if !take(value) {
                self.input.unread();
                return Ok(Received::Left);
            }
        }
        Ok(Received::Unit(unit, 0))
    }

    fn send(&mut self, _: Origin, message: &[u8], _: Option<i64>) {
        self.pending.extend_from_slice(message);
        self.pending.push(b'\n');
    }

    fn finish(&mut self, _: Origin) {}

    /// A broken pipe is not an error: the client left, and there is nobody to tell.
    fn flush(&mut self) -> Result<(), Error> {
        if self.closed {
            self.pending.clear();
            return Ok(());
        }
        let written = self
            .output
            .write_all(&self.pending)
            .and_then(|()| self.output.flush());
        self.pending.clear();
        // The log lines of the requests just answered go out with their answers.
        crate::log::flush();
        match written {
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => self.closed = true,
            other => other.map_err(Error::Write)?,
        }
        Ok(())
    }

    fn is_closed(&self) -> bool {
        self.closed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
