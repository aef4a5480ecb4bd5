//! The two kinds of socket the transport serves: TCP and, on Unix, a Unix-domain socket.
//!
//! An enum rather than a trait object or a generic `Link<S>`: the I/O code stays one
//! non-generic copy, and each socket call costs one match on the variant, next to a system
//! call (the TCP path's per-request work is otherwise unchanged).

use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
#[cfg(unix)]
use std::os::unix::net::{UnixListener, UnixStream};
use std::time::Duration;

/// A listening socket.
pub(crate) enum Listener {
    /// `--http ADDR:PORT`.
    Tcp(TcpListener),
    /// `--http unix:PATH`.
    #[cfg(unix)]
    Unix(UnixListener),
}

impl Listener {
    /// The next connection.
    pub(crate) fn accept(&self) -> io::Result<Stream> {
        match self {
            Listener::Tcp(listener) => {
                let (stream, _) = listener.accept()?;
                // Small request/response pairs: never wait for Nagle's algorithm.
                let _ = stream.set_nodelay(true);
                Ok(Stream::Tcp(stream))
            }
            #[cfg(unix)]
            Listener::Unix(listener) => Ok(Stream::Unix(listener.accept()?.0)),
        }
    }
}

/// One connection.
#[derive(Debug)]
pub(crate) enum Stream {
    /// Accepted from a TCP listener.
    Tcp(TcpStream),
    /// Accepted from a Unix-domain listener.
    #[cfg(unix)]
    Unix(UnixStream),
}

/// Runs `$body` with `$s` bound to the variant's socket, whichever it is.
macro_rules! each {
    ($stream:expr, $s:ident => $body:expr) => {
        match $stream {
            Stream::Tcp($s) => $body,
            #[cfg(unix)]
            Stream::Unix($s) => $body,
        }
    };
}

impl Stream {
    /// See [`TcpStream::set_read_timeout`].
    pub(crate) fn set_read_timeout(&self, timeout: Option<Duration>) -> io::Result<()> {
        each!(self, s => s.set_read_timeout(timeout))
    }

    /// See [`TcpStream::set_write_timeout`].
    pub(crate) fn set_write_timeout(&self, timeout: Option<Duration>) -> io::Result<()> {
        each!(self, s => s.set_write_timeout(timeout))
    }

    /// See [`TcpStream::set_nonblocking`].
    pub(crate) fn set_nonblocking(&self, nonblocking: bool) -> io::Result<()> {
        each!(self, s => s.set_nonblocking(nonblocking))
    }

    /// See [`TcpStream::shutdown`].
    pub(crate) fn shutdown(&self, how: Shutdown) -> io::Result<()> {
        each!(self, s => s.shutdown(how))
    }
}

impl Read for &Stream {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        each!(*self, s => { let mut s = s; s.read(buf) })
    }
}

impl Write for &Stream {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        each!(*self, s => { let mut s = s; s.write(buf) })
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Write for Stream {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        (&*self).write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
