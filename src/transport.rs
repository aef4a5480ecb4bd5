//! Bytes in, bytes out: newline-delimited framing with bounded reads, and compact JSON
//! output bounded as it is written.
//!
//! [`LineReader`] hands out one line at a time: a trailing `\r` and a leading UTF-8 byte-order
//! mark are stripped, blank lines are skipped, a last line without a newline at EOF is still
//! delivered, and a line longer than the limit is skipped *without being held in memory* (only
//! its first `limit` bytes are kept, to recover the request id) as [`Frame::TooLarge`].
//!
//! Input is read directly on the dispatch thread. Only when something needs a timer (a
//! handler waiting for the client with a timeout, a cancellation check, resource change
//! polling) does the reader move the input to one helper thread that feeds a channel; the
//! session stays in that mode afterwards. This keeps the common path free of thread hops:
//! a request answered without a timer costs no context switch.

use std::io::{self, Read, Write};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread;
use std::time::Instant;

use serde::Serialize;

use crate::jsonrpc::{scan_id, RequestId};

/// Bytes asked for per read. Small on purpose: a pipe holds 64 KiB, but buffers only count
/// against resident memory once written to, and larger reads gain nothing measurable.
const CHUNK: usize = 16 * 1024;
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// One unit of input.
#[derive(Debug, PartialEq)]
pub(crate) enum Frame<'a> {
    /// A non-blank line, without its line ending.
    Line(&'a [u8]),
    /// A line of `size` bytes, over the limit, skipped; `id` is read from its first bytes
    /// when possible.
    TooLarge { size: u64, id: Option<RequestId> },
    /// The input is closed.
    Eof,
    /// The deadline passed with no complete line.
    TimedOut,
}

enum Source<R> {
    Direct(R),
    Threaded(Receiver<io::Result<Vec<u8>>>),
}

/// Splits a byte stream into lines of at most `max` bytes.
pub(crate) struct LineReader<R> {
    source: Source<R>,
    buf: Vec<u8>,
    start: usize,
    end: usize,
    /// Bytes from `start` known to hold no newline.
    scanned: usize,
    max: usize,
    eof: bool,
    /// While skipping a line over the limit: its length so far, and the id from its start.
    discarding: Option<(u64, Option<RequestId>)>,
    /// Where the last line handed out started, so it can be put back ([`LineReader::unread`]).
    last_start: Option<usize>,
}

impl<R: Read + Send + 'static> LineReader<R> {
    /// A reader over `input` that refuses lines longer than `max` bytes.
    pub(crate) fn new(input: R, max: usize) -> Self {
        LineReader {
            source: Source::Direct(input),
            buf: vec![0; CHUNK.min(max.saturating_add(1)).max(4096)],
            start: 0,
            end: 0,
            scanned: 0,
            max,
            eof: false,
            discarding: None,
            last_start: None,
        }
    }

    /// True when a complete line is already buffered, so reading it will not block.
    pub(crate) fn has_buffered_line(&mut self) -> bool {
        if self.discarding.is_some() {
            return false;
        }
        match self.buf[self.start + self.scanned..self.end]
            .iter()
            .position(|&b| b == b'\n')
        {
            Some(offset) => {
                // Everything before the newline holds none: `next_frame` starts there
                // instead of scanning the line a second time.
                self.scanned += offset;
                true
            }
            None => {
                self.scanned = self.end - self.start;
                self.eof && self.end > self.start
            }
        }
    }

    /// The longest line accepted, in bytes.
    pub(crate) fn limit(&self) -> usize {
        self.max
    }

    /// Puts the line last returned by [`LineReader::next_frame`] back, so the next call
    /// returns it again. Only valid right after a [`Frame::Line`].
    pub(crate) fn unread(&mut self) {
        if let Some(start) = self.last_start.take() {
            self.start = start;
            self.scanned = 0;
        }
    }

    /// The next frame. Blocks until a line arrives, the input ends, or `deadline` passes.
    pub(crate) fn next_frame(&mut self, deadline: Option<Instant>) -> io::Result<Frame<'_>> {
        self.last_start = None;
        loop {
            let pending = &self.buf[self.start..self.end];
            if let Some((size, _)) = &mut self.discarding {
                // Drops the line as it arrives, counting it, up to its newline or EOF.
                let newline = pending.iter().position(|&b| b == b'\n');
                *size += newline.unwrap_or(pending.len()) as u64;
                self.start = newline.map_or(self.end, |offset| self.start + offset + 1);
                if newline.is_some() || self.eof {
                    let (size, id) = self.discarding.take().unwrap_or_default();
                    return Ok(Frame::TooLarge { size, id });
                }
            } else {
                let from = self.scanned;
                let newline = pending[from..].iter().position(|&b| b == b'\n');
                // A last line without a newline is still a message.
                let line_end = match newline {
                    Some(offset) => Some(self.start + from + offset),
                    None => (self.eof && self.end > self.start).then_some(self.end),
                };
                if line_end.unwrap_or(self.end) - self.start > self.max {
                    // Keep only what identifies the request; drop the rest as it arrives.
                    let id = scan_id(&pending[..self.max]);
                    self.discarding = Some((0, id));
                    self.scanned = 0;
                    continue;
                }
                if let Some(line_end) = line_end {
                    let line_start = self.start;
                    self.start = (line_end + 1).min(self.end);
                    self.scanned = 0;
                    if let Some((a, b)) = trim_line(&self.buf[line_start..line_end]) {
                        self.last_start = Some(line_start);
                        return Ok(Frame::Line(&self.buf[line_start + a..line_start + b]));
                    }
                    continue;
                }
                if self.eof {
                    return Ok(Frame::Eof);
                }
                self.scanned = self.end - self.start;
            }
            if !self.fill(deadline)? {
                return Ok(Frame::TimedOut);
            }
        }
    }

    /// Reads more input. Returns false when the deadline passed first.
    fn fill(&mut self, deadline: Option<Instant>) -> io::Result<bool> {
        self.last_start = None;
        if deadline.is_some() && matches!(self.source, Source::Direct(_)) {
            self.make_threaded();
        }
        // Compact: move unread bytes to the front so the buffer never grows past max + CHUNK.
        if self.start > 0 {
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
        }
        match &mut self.source {
            Source::Direct(input) => {
                if self.buf.len() - self.end < CHUNK / 4 {
                    let grown = (self.buf.len() * 2).min(self.max.saturating_add(CHUNK));
                    self.buf.resize(grown.max(self.end + CHUNK / 4), 0);
                }
                let n = loop {
                    match input.read(&mut self.buf[self.end..]) {
                        Ok(n) => break n,
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                        Err(e) => return Err(e),
                    }
                };
                self.end += n;
                self.eof = n == 0;
            }
            Source::Threaded(rx) => {
                let received = match deadline {
                    None => rx.recv().map_err(|_| RecvTimeoutError::Disconnected),
                    Some(at) => rx.recv_timeout(at.saturating_duration_since(Instant::now())),
                };
                match received {
                    Ok(chunk) => {
                        self.buf.truncate(self.end);
                        self.buf.extend_from_slice(&chunk?);
                        self.end = self.buf.len();
                    }
                    Err(RecvTimeoutError::Timeout) => return Ok(false),
                    // The helper thread drops its sender at EOF.
                    Err(RecvTimeoutError::Disconnected) => self.eof = true,
                }
            }
        }
        Ok(true)
    }

    /// Moves reading to a helper thread so later reads can time out.
    fn make_threaded(&mut self) {
        let (tx, rx) = mpsc::channel();
        let source = std::mem::replace(&mut self.source, Source::Threaded(rx));
        let Source::Direct(mut input) = source else {
            self.source = source;
            return;
        };
        let spawned = thread::Builder::new()
            .name("minimcp-input".into())
            .spawn(move || loop {
                let mut chunk = vec![0; CHUNK / 4];
                match input.read(&mut chunk) {
                    Ok(n) => {
                        chunk.truncate(n);
                        if n == 0 || tx.send(Ok(chunk)).is_err() {
                            return;
                        }
                    }
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => {
                        let _ = tx.send(Err(e));
                        return;
                    }
                }
            });
        if let Err(e) = spawned {
            // The input went with the thread that never started: the session ends at once.
            crate::log::warn(format_args!("cannot start the input thread: {e}"));
        }
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

/// Counts bytes, keeps at most `limit` of them.
struct Limited<'a> {
    buf: &'a mut Vec<u8>,
    written: usize,
    limit: usize,
}

impl Write for Limited<'_> {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        self.written += data.len();
        if self.written <= self.limit {
            self.buf.extend_from_slice(data);
        }
        Ok(data.len())
    }
    /// serde_json writes every token with `write_all`; the default one loops around
    /// `write`, which here always takes everything.
    fn write_all(&mut self, data: &[u8]) -> io::Result<()> {
        self.write(data).map(drop)
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// A message did not fit the response limit; nothing of it was written.
#[derive(Debug)]
pub(crate) struct TooLarge(pub(crate) usize);

/// Appends `message` to `buf` as compact JSON, unless it would exceed `limit` bytes (then
/// `buf` is left as it was). Serializing counts past the limit without keeping the bytes.
pub(crate) fn to_json_limited(
    message: &impl Serialize,
    limit: usize,
    buf: &mut Vec<u8>,
) -> Result<(), TooLarge> {
    let mark = buf.len();
    let mut writer = Limited {
        buf,
        written: 0,
        limit,
    };
    let ok = serde_json::to_writer(&mut writer, message).is_ok();
    let written = writer.written;
    if !ok || written > limit {
        buf.truncate(mark);
        return Err(TooLarge(written));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    fn frames(input: &[u8], max: usize) -> Vec<String> {
        let mut reader = LineReader::new(Cursor::new(input.to_vec()), max);
        let mut out = Vec::new();
        loop {
            match reader.next_frame(None).expect("in-memory read") {
                Frame::Line(line) => out.push(String::from_utf8_lossy(line).into_owned()),
                Frame::TooLarge { size, id } => out.push(format!("too large {size} id={id:?}")),
                Frame::Eof => return out,
                Frame::TimedOut => out.push("timeout".into()),
            }
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
        let mut reader = LineReader::new(Cursor::new(format!("{long}\n").into_bytes()), 1024);
        assert!(matches!(
            reader.next_frame(None).expect("read"),
            Frame::TooLarge { .. }
        ));
        assert!(
            reader.buf.len() <= 1024 + CHUNK,
            "buffer grew to {}",
            reader.buf.len()
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
        let mut reader = LineReader::new(Cursor::new(b"a\nb\nc".to_vec()), 100);
        assert!(!reader.has_buffered_line());
        assert_eq!(reader.next_frame(None).expect("read"), Frame::Line(b"a"));
        assert!(reader.has_buffered_line());
        assert_eq!(reader.next_frame(None).expect("read"), Frame::Line(b"b"));
        assert!(
            !reader.has_buffered_line(),
            "c has no newline and EOF is not yet seen"
        );
        assert_eq!(reader.next_frame(None).expect("read"), Frame::Line(b"c"));
        assert_eq!(reader.next_frame(None).expect("read"), Frame::Eof);
    }

    #[test]
    fn threaded_reads_time_out_and_then_deliver() {
        let (rx, mut tx) = std::io::pipe().expect("pipe");
        let mut reader = LineReader::new(rx, 100);
        let soon = Instant::now() + std::time::Duration::from_millis(20);
        assert_eq!(
            reader.next_frame(Some(soon)).expect("read"),
            Frame::TimedOut
        );
        assert!(matches!(reader.source, Source::Threaded(_)));
        tx.write_all(b"hello\n").expect("write");
        drop(tx);
        assert_eq!(
            reader.next_frame(None).expect("read"),
            Frame::Line(b"hello")
        );
        assert_eq!(reader.next_frame(None).expect("read"), Frame::Eof);
    }

    #[test]
    fn output_refuses_messages_over_the_limit_without_writing_any_part() {
        let mut out = Vec::new();
        to_json_limited(&"short", 100, &mut out).expect("fits");
        let err = to_json_limited(&"x".repeat(200), 100, &mut out).expect_err("too large");
        assert_eq!(err.0, 202);
        assert_eq!(out, b"\"short\"");
    }
}
