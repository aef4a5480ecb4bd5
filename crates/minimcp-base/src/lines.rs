//! Newline-delimited framing of a byte stream read on a thread of its own, each line bounded.
//!
//! One helper thread reads the input in chunks and hands them over a bounded channel, so the
//! reading side can wait for input with a deadline and look at what already arrived without
//! blocking. When the channel is full the thread stops reading: a peer that sends faster
//! than it is served fills its pipe and waits, holding no more memory here.
//!
//! A trailing `\r` and a leading UTF-8 byte-order mark are stripped, blank lines are
//! skipped, a last line without a newline at EOF is still delivered, and a line longer than
//! the limit is skipped *without being held in memory*: only its first `limit` bytes are
//! looked at, by the reader's `head` function, to keep what identifies it.

use std::io::{self, Read};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, TryRecvError};
use std::thread;
use std::time::Instant;

/// Bytes asked for per read. Small on purpose: each chunk is copied once more on its way to
/// the reading side, and copies under 2 KiB are the cheap kind (vector moves, not a byte
/// loop); a larger read gained nothing measurable.
pub const CHUNK: usize = 2 * 1024;
/// Chunks read ahead of the reading side before the reader thread waits for it.
const CHUNKS_AHEAD: usize = 4;
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// What [`LineReader::scan`] found in the buffer.
pub enum Scan<T> {
    /// A non-blank line ([`LineReader::line`]), not taken yet ([`LineReader::take`]).
    Line {
        /// Where it starts.
        start: usize,
        /// Where it ends, framing left out.
        end: usize,
        /// Where the input goes on.
        next: usize,
    },
    /// A line over the limit, now skipped.
    TooLarge {
        /// Its length.
        size: u64,
        /// What the reader's `head` kept of its first bytes.
        head: T,
    },
    /// Nothing more will come.
    Eof,
    /// No complete line is here yet.
    More,
}

/// Splits the chunks of a stream into lines of at most `max` bytes.
pub struct LineReader<T> {
    chunks: Receiver<io::Result<Vec<u8>>>,
    buf: Vec<u8>,
    start: usize,
    /// Bytes from `start` known to hold no newline.
    scanned: usize,
    max: usize,
    eof: bool,
    /// While skipping a line over the limit: its length so far, and what `head` kept.
    discarding: Option<(u64, T)>,
    head: fn(&[u8]) -> T,
}

impl<T: Default> LineReader<T> {
    /// A reader of `input`, read on a thread of its own (which ends when `input` does), that
    /// refuses lines longer than `max` bytes, keeping `head` of their first `max` bytes.
    pub fn new(input: Box<dyn Read + Send>, max: usize, head: fn(&[u8]) -> T) -> Self {
        LineReader {
            chunks: read_on_a_thread(input),
            buf: Vec::new(),
            start: 0,
            scanned: 0,
            max,
            eof: false,
            discarding: None,
            head,
        }
    }

    /// The longest line accepted, in bytes.
    pub fn max(&self) -> usize {
        self.max
    }

    /// The bytes of a line [`LineReader::scan`] found.
    pub fn line(&self, start: usize, end: usize) -> &[u8] {
        &self.buf[start..end]
    }

    /// True when a complete line is already here, so reading it will not block.
    pub fn has_buffered_line(&mut self) -> bool {
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

    /// Where the next line in the buffer is, without taking it (blank lines and a line
    /// over the limit are consumed as they are found).
    pub fn scan(&mut self) -> Scan<T> {
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
                let (size, head) = self.discarding.take().unwrap_or_default();
                return Scan::TooLarge { size, head };
            }
            let newline = pending[self.scanned..].iter().position(|&b| b == b'\n');
            // A last line without a newline is still a message.
            let line_end = match newline {
                Some(offset) => Some(self.start + self.scanned + offset),
                None => (self.eof && !pending.is_empty()).then_some(self.buf.len()),
            };
            if line_end.unwrap_or(self.buf.len()) - self.start > self.max {
                // Keep only what identifies the request; drop the rest as it arrives.
                self.discarding = Some((0, (self.head)(&pending[..self.max])));
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
    pub fn take(&mut self, next: usize) {
        self.start = next;
        self.scanned = 0;
    }

    /// Moves the next chunk into the buffer: waiting for it until `deadline` when `wait`,
    /// else only when it is already there. False when none came.
    pub fn fill(&mut self, wait: bool, deadline: Option<Instant>) -> io::Result<bool> {
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
        // The input went with the thread that never started: the input ends at once.
        crate::log::warn(format_args!("cannot start the input thread: {e}"));
    }
    rx
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reader_memory_stays_bounded_by_the_limit() {
        let long = "y".repeat(20 * CHUNK);
        let input = std::io::Cursor::new(format!("{long}\n").into_bytes());
        let mut reader = LineReader::new(Box::new(input), 1024, |_| ());
        loop {
            match reader.scan() {
                Scan::TooLarge { .. } => break,
                Scan::More => assert!(reader.fill(true, None).expect("in-memory read")),
                Scan::Line { .. } | Scan::Eof => panic!("the line is over the limit"),
            }
        }
        assert!(
            reader.buf.capacity() <= 2 * (1024 + CHUNK),
            "buffer grew to {}",
            reader.buf.capacity()
        );
    }

    /// splitmix64: a printed seed replays a failure exactly.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
    }

    /// A stream that hands out its bytes in pieces of random size, as a pipe may.
    struct Pieces {
        bytes: Vec<u8>,
        at: usize,
        rng: Rng,
    }

    impl Read for Pieces {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            let left = self.bytes.len() - self.at;
            let n = left.min(out.len()).min(1 + self.rng.below(3 * CHUNK));
            out[..n].copy_from_slice(&self.bytes[self.at..self.at + n]);
            self.at += n;
            Ok(n)
        }
    }

    #[derive(Debug, PartialEq)]
    enum Framed {
        Line(Vec<u8>),
        TooLarge(u64),
    }

    /// The framing as the module states it, written apart from the reader: split at each
    /// `\n` (a last piece without one is a line too); a piece longer than `max` bytes is
    /// too large; else a leading BOM and surrounding ASCII blanks go, and a blank piece is
    /// skipped.
    fn reference(input: &[u8], max: usize) -> Vec<Framed> {
        let mut pieces: Vec<&[u8]> = input.split(|&b| b == b'\n').collect();
        if pieces.last().is_some_and(|last| last.is_empty()) {
            pieces.pop();
        }
        let mut framed = Vec::new();
        for piece in pieces {
            if piece.len() > max {
                framed.push(Framed::TooLarge(piece.len() as u64));
                continue;
            }
            let piece = piece.strip_prefix(BOM).unwrap_or(piece);
            let trimmed = piece.trim_ascii();
            if !trimmed.is_empty() {
                framed.push(Framed::Line(trimmed.to_vec()));
            }
        }
        framed
    }

    fn framed_by_the_reader(input: Vec<u8>, max: usize, rng: Rng) -> Vec<Framed> {
        let stream = Pieces {
            bytes: input,
            at: 0,
            rng,
        };
        let mut reader = LineReader::new(Box::new(stream), max, |_| ());
        let mut framed = Vec::new();
        loop {
            match reader.scan() {
                Scan::Line { start, end, next } => {
                    framed.push(Framed::Line(reader.line(start, end).to_vec()));
                    reader.take(next);
                }
                Scan::TooLarge { size, .. } => framed.push(Framed::TooLarge(size)),
                Scan::More => assert!(reader.fill(true, None).expect("in-memory read")),
                Scan::Eof => return framed,
            }
        }
    }

    /// Random streams of short and long lines made of the bytes framing cares about (`\n`,
    /// `\r`, blanks, a BOM), cut into random pieces, framed as the reference frames them.
    /// `cargo test` runs a fixed seed; `.ci/run` sets MINIMCP_LINES_FUZZ_SEED=random (the
    /// seed is printed: a failure replays with it) and MINIMCP_LINES_FUZZ_CASES.
    #[test]
    fn random_streams_are_framed_as_the_reference_frames_them() {
        let seed = match std::env::var("MINIMCP_LINES_FUZZ_SEED").as_deref() {
            Ok("random") => std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(1, |t| t.as_nanos() as u64),
            Ok(number) => number
                .parse()
                .expect("MINIMCP_LINES_FUZZ_SEED: a number or random"),
            Err(_) => 0x11E5,
        };
        let cases: usize = std::env::var("MINIMCP_LINES_FUZZ_CASES")
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or(300);
        eprintln!(
            "lines fuzz: seed {seed}, {cases} cases (replay: MINIMCP_LINES_FUZZ_SEED={seed})"
        );
        let mut rng = Rng(seed);
        const BYTES: [&[u8]; 8] = [b"a", b"{}", b" ", b"\t", b"\r", b"\n", b"\n", BOM];
        for case in 0..cases {
            let max = 1 + rng.below(3 * CHUNK);
            let mut input = Vec::new();
            for _ in 0..rng.below(12) {
                // Lines around the limit, and runs of plain bytes far over it.
                let len = match rng.below(4) {
                    0 => rng.below(8),
                    1 => max.saturating_sub(2) + rng.below(5),
                    2 => rng.below(8 * CHUNK),
                    _ => rng.below(max + 1),
                };
                let line_start = input.len();
                while input.len() - line_start < len {
                    input.extend_from_slice(BYTES[rng.below(BYTES.len())]);
                    if rng.below(4) > 0 {
                        input.push(b'x');
                    }
                }
                if rng.below(8) > 0 {
                    input.push(b'\n');
                }
            }
            let expected = reference(&input, max);
            let framed = framed_by_the_reader(input, max, Rng(rng.next()));
            assert_eq!(framed, expected, "case {case}, max {max}, seed {seed}");
        }
        eprintln!("lines fuzz: {cases} cases, all framed as the reference frames them");
    }
}
