//! One connection's socket, shared by the I/O thread that reads its requests and the
//! dispatch thread that writes their answers.
//!
//! Why the dispatch thread writes: when it handed each answer back to the I/O thread, every
//! request woke three threads, and those wakeups were most of the CPU a request cost (a
//! third less CPU per call without the hand-back; see benches/README.md, "Over Streamable HTTP"). So the
//! dispatch thread writes what the socket takes at once, with the socket switched to
//! non-blocking for that one write, and never waits for a client: what the socket cannot
//! take (a slow client, a large answer) goes to a short-lived writer thread, at most one per
//! connection, which writes it with the connection's write timeout. Meanwhile the I/O
//! thread waits in `read` for the next request, which also tells it at once when the
//! client leaves.
//!
//! Order on the wire: the I/O thread writes nothing itself (refusals, `100 Continue`) and
//! hands over no request while an answer is still being written ([`Link::wait_idle`]), so
//! answers leave in request order, as HTTP/1.1 requires.

use std::io::{self, Read, Write};
use std::mem;
use std::net::Shutdown;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread;

use super::socket::Stream;
use minimcp_base::log;

/// Stack of a writer thread: it only copies bytes to the socket.
const WRITER_STACK: usize = 64 * 1024;

/// A connection's socket and who is writing to it.
pub(crate) struct Link {
    stream: Stream,
    state: Mutex<State>,
    idle: Condvar,
    /// Bytes an answer may leave unwritten beyond the one being written; a client that
    /// reads slower than that is disconnected (`--max-message-bytes` times two).
    max_backlog: usize,
}

#[derive(Default)]
struct State {
    /// A request was handed to the dispatch thread, which has not yet ended its answer.
    open: bool,
    /// Answer bytes the socket has not taken yet, in order.
    backlog: Vec<u8>,
    /// A writer thread owns the socket's write side until `backlog` is empty.
    draining: bool,
    /// The answer's last bytes are in `backlog`.
    ending: bool,
    /// Shut the write side once the answer is out (`Connection: close`).
    close_after: bool,
    /// A write failed or the client fell too far behind: nothing more is written.
    broken: bool,
    /// The I/O thread waits in [`Link::wait_idle`].
    waiting: bool,
    /// The I/O thread saw the client close the connection.
    client_left: bool,
}

impl State {
    fn busy(&self) -> bool {
        self.open || self.draining
    }
}

impl Link {
    pub(crate) fn new(stream: Stream, max_backlog: usize) -> Self {
        Link {
            stream,
            state: Mutex::new(State::default()),
            idle: Condvar::new(),
            max_backlog,
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // Nothing panics while holding the lock; a poisoned one still holds sound state.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    // ---- the I/O thread's side ----

    /// The socket as the I/O thread reads and writes it: reads go straight to the socket,
    /// writes wait until no answer is being written.
    pub(crate) fn own(&self) -> Own<'_> {
        Own(self)
    }

    /// A request is handed to the dispatch thread: the connection is busy until its answer
    /// is out. `close`: the client asked to close the connection after it.
    pub(crate) fn begin(&self, close: bool) {
        let mut state = self.lock();
        state.open = true;
        state.close_after = close;
    }

    /// True while a handed-over request has no complete answer yet.
    pub(crate) fn is_open(&self) -> bool {
        self.lock().open
    }

    /// The client closed the connection (its read ended).
    pub(crate) fn client_left(&self) {
        self.lock().client_left = true;
    }

    /// True once nothing written can reach the client any more.
    pub(crate) fn is_lost(&self) -> bool {
        let state = self.lock();
        state.broken || state.client_left
    }

    /// Shuts the write side: the client sees the end of what was written (the I/O thread
    /// ends a connection whose request it did not read whole).
    pub(crate) fn shut_write(&self) {
        let _ = self.stream.shutdown(Shutdown::Write);
    }

    /// Shuts the connection both ways at once (it was closed to make room for another):
    /// the I/O thread's `read` ends, and nothing more is written.
    pub(crate) fn cut(&self) {
        let _ = self.stream.shutdown(Shutdown::Both);
    }

    /// True while an answer is being written.
    pub(crate) fn is_busy(&self) -> bool {
        self.lock().busy()
    }

    /// Waits until no answer is being written. False when the connection broke.
    pub(crate) fn wait_idle(&self) -> bool {
        let mut state = self.lock();
        while state.busy() && !state.broken {
            state.waiting = true;
            state = self.idle.wait(state).unwrap_or_else(|e| e.into_inner());
        }
        state.waiting = false;
        !state.broken
    }

    // ---- the dispatch thread's side ----

    /// Writes part of the current answer, without waiting.
    pub(crate) fn send(self: &Arc<Self>, bytes: &[u8]) {
        self.push(bytes, false);
    }

    /// Writes the last part of the current answer, without waiting.
    pub(crate) fn end(self: &Arc<Self>, bytes: &[u8]) {
        self.push(bytes, true);
    }

    fn push(self: &Arc<Self>, bytes: &[u8], last: bool) {
        let mut state = self.lock();
        if last {
            state.open = false;
        }
        if state.broken {
            return self.settle(&mut state);
        }
        if state.draining {
            // Behind bytes a writer thread still owns: queue, in order.
            if state.backlog.len() + bytes.len() > self.max_backlog {
                return self.break_off(&mut state, "it reads too slowly");
            }
            state.backlog.extend_from_slice(bytes);
            state.ending |= last;
            return;
        }
        let written = match self.write_without_waiting(bytes) {
            Ok(written) => written,
            Err(_) => return self.break_off(&mut state, "the client left"),
        };
        if written < bytes.len() {
            state.backlog.extend_from_slice(&bytes[written..]);
            state.ending = last;
            state.draining = true;
            let link = Arc::clone(self);
            let spawned = thread::Builder::new()
                .name("minimcp-write".into())
                .stack_size(WRITER_STACK)
                .spawn(move || link.drain());
            if spawned.is_err() {
                state.draining = false;
                return self.break_off(&mut state, "no thread to write its answer");
            }
            return;
        }
        if last {
            self.settle(&mut state);
        }
    }

    /// Writes what the socket takes now. The I/O thread may be blocked in `read` on the
    /// same socket: the blocking mode is read when a call starts, so its read goes on
    /// waiting; one that starts inside this window returns `WouldBlock` at once, which
    /// `wire::Reader` retries.
    fn write_without_waiting(&self, bytes: &[u8]) -> io::Result<usize> {
        self.stream.set_nonblocking(true)?;
        let mut written = 0;
        let result = loop {
            if written == bytes.len() {
                break Ok(());
            }
            match (&self.stream).write(&bytes[written..]) {
                Ok(0) => break Err(io::ErrorKind::WriteZero.into()),
                Ok(n) => written += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break Ok(()),
                Err(e) => break Err(e),
            }
        };
        self.stream.set_nonblocking(false)?;
        result.map(|()| written)
    }

    /// A writer thread: writes the backlog with the connection's write timeout, then ends.
    fn drain(self: Arc<Self>) {
        loop {
            let chunk = {
                let mut state = self.lock();
                if state.backlog.is_empty() || state.broken {
                    state.draining = false;
                    if mem::take(&mut state.ending) || state.broken {
                        self.settle(&mut state);
                    }
                    return;
                }
                mem::take(&mut state.backlog)
            };
            if (&self.stream).write_all(&chunk).is_err() {
                let mut state = self.lock();
                state.draining = false;
                return self.break_off(&mut state, "it stopped reading");
            }
        }
    }

    /// The answer is out (or can never be): close if asked, and let a waiting I/O thread
    /// go on.
    fn settle(&self, state: &mut State) {
        if !state.busy() && mem::take(&mut state.close_after) && !state.broken {
            let _ = self.stream.shutdown(Shutdown::Write);
        }
        if state.waiting && (!state.busy() || state.broken) {
            self.idle.notify_all();
        }
    }

    /// Gives up on the client: nothing more is written, and the I/O thread's `read` ends,
    /// so it reports the client gone.
    fn break_off(&self, state: &mut State, why: &str) {
        if !state.broken {
            log::info(format_args!("closing a connection: {why}"));
        }
        state.broken = true;
        state.backlog = Vec::new();
        state.ending = false;
        let _ = self.stream.shutdown(Shutdown::Both);
        self.settle(state);
    }
}

/// The I/O thread's handle on the socket (see [`Link::own`]).
pub(crate) struct Own<'l>(&'l Link);

impl Read for Own<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        (&self.0.stream).read(buf)
    }
}

impl Write for Own<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if !self.0.wait_idle() {
            return Err(io::ErrorKind::BrokenPipe.into());
        }
        (&self.0.stream).write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::net::{TcpListener, TcpStream};
    use std::time::Duration;

    /// A link over a fresh loopback connection, and the client's end.
    pub(crate) fn pair(max_backlog: usize) -> (Arc<Link>, TcpStream) {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let client = TcpStream::connect(listener.local_addr().expect("addr")).expect("connect");
        let (server, _) = listener.accept().expect("accept");
        server
            .set_write_timeout(Some(Duration::from_secs(1)))
            .expect("timeout");
        (
            Arc::new(Link::new(Stream::Tcp(server), max_backlog)),
            client,
        )
    }

    #[test]
    fn an_answer_frees_the_connection_and_close_shuts_it() {
        let (link, mut client) = pair(1024);
        link.begin(false);
        assert!(link.is_open() && link.is_busy());
        link.send(b"he");
        link.end(b"llo");
        assert!(!link.is_busy() && link.wait_idle());
        link.begin(true);
        link.end(b"!");
        let mut all = Vec::new();
        client.read_to_end(&mut all).expect("read to the close");
        assert_eq!(all, b"hello!");
    }

    #[test]
    fn the_io_threads_writes_wait_for_the_answer_before_them() {
        let (link, mut client) = pair(1024);
        link.begin(false);
        let writer = {
            let link = Arc::clone(&link);
            thread::spawn(move || link.own().write_all(b" after"))
        };
        thread::sleep(Duration::from_millis(50));
        link.end(b"first");
        writer.join().expect("join").expect("written");
        let mut got = [0u8; 11];
        client.read_exact(&mut got).expect("read");
        assert_eq!(&got, b"first after");
    }

    #[test]
    fn a_client_too_far_behind_is_cut_off_and_nothing_waits_for_it() {
        let (link, mut client) = pair(64 * 1024);
        link.begin(false);
        // Far more than the socket buffers while the client reads nothing: a writer thread
        // takes the rest, and the next sends pile up behind it until the bound.
        let chunk = vec![b'x'; 1 << 20];
        for _ in 0..64 {
            link.send(&chunk);
            if link.lock().broken {
                break;
            }
        }
        assert!(link.lock().broken, "cut off past the backlog bound");
        assert!(!link.wait_idle(), "a broken link is never idle");
        link.end(b"never");
        let mut sink = Vec::new();
        let _ = client.read_to_end(&mut sink);
        assert!(!sink.ends_with(b"never"));
    }
}
