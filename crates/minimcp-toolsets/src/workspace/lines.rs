//! Line windows of a file of any size, read without holding the file in memory: from a line
//! number, from a byte offset, or the last lines (`tail`). Each window stops at a line count
//! and at a byte budget that counts a line both as numbered text and as escaped JSON, the
//! two forms a tool result carries it in.

use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};

use super::limits::{MAX_LINE_COUNT_BYTES, MAX_SCAN_BYTES};

/// Where a window starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum From {
    /// A 1-based line number.
    Line(u64),
    /// A byte offset (the window starts exactly there, even mid-line).
    Byte(u64),
    /// The last N lines.
    Tail(u64),
}

/// A window of lines.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Window {
    /// 1-based number of the first line, when known (it is not for a tail or byte offset
    /// deep in a file too large to count).
    pub(crate) start_line: Option<u64>,
    /// Byte offset of the first line.
    pub(crate) start_byte: u64,
    /// The lines, without line endings (invalid UTF-8 replaced by U+FFFD).
    pub(crate) lines: Vec<String>,
    /// Byte offset just after the last line returned.
    pub(crate) end_byte: u64,
    /// Lines in the whole file, when it is at most [`MAX_LINE_COUNT_BYTES`].
    pub(crate) total_lines: Option<u64>,
    /// True when a line was cut at the byte budget (the rest follows at `end_byte`).
    pub(crate) cut: bool,
    /// True when bytes that are not UTF-8 were replaced.
    pub(crate) lossy: bool,
    /// True when `From::Line` asked for a line past the end.
    pub(crate) past_end: bool,
}

impl Window {
    /// 1-based number of the last line returned, when known.
    pub(crate) fn end_line(&self) -> Option<u64> {
        // `start - 1` when no line was returned.
        self.start_line
            .map(|start| start + self.lines.len() as u64 - 1)
    }
}

/// What one line costs in a result: the larger of its numbered text and its JSON string.
fn cost(line: &str) -> usize {
    let escaped: usize = line.chars().map(escaped_len).sum();
    escaped.max(line.len() + LINE_OVERHEAD - 1) + 1
}

/// What [`cost`] adds to a line's escaped length: the line number, a tab, a newline.
const LINE_OVERHEAD: usize = 9;

/// How many leading bytes of `raw` fit in `room` bytes of result, escaping and numbering
/// included; counted conservatively (3 bytes for every non-ASCII byte) when `raw` is not
/// UTF-8, since invalid bytes become U+FFFD.
fn fit(raw: &[u8], room: usize) -> usize {
    let room = room.saturating_sub(LINE_OVERHEAD);
    let mut used = 0;
    match std::str::from_utf8(raw) {
        Ok(text) => {
            for (i, c) in text.char_indices() {
                used += escaped_len(c);
                if used > room {
                    return i;
                }
            }
        }
        Err(_) => {
            for (i, &b) in raw.iter().enumerate() {
                used += if b >= 0x80 { 3 } else { escaped_len(b as char) };
                if used > room {
                    return i;
                }
            }
        }
    }
    raw.len()
}

/// Bytes of `c` in a JSON string.
fn escaped_len(c: char) -> usize {
    match c {
        '"' | '\\' | '\n' | '\r' | '\t' => 2,
        c if (c as u32) < 0x20 => 6,
        c => c.len_utf8(),
    }
}

/// Bytes as text, and whether some were replaced; a character cut at the end by the
/// budget is dropped rather than replaced.
fn text_of(bytes: &[u8], cut: bool) -> (String, usize, bool) {
    let mut bytes = bytes;
    if cut {
        if let Err(e) = std::str::from_utf8(bytes) {
            if e.error_len().is_none() {
                bytes = &bytes[..e.valid_up_to()];
            }
        }
    }
    let used = bytes.len();
    let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
    match String::from_utf8_lossy(bytes) {
        std::borrow::Cow::Borrowed(s) => (s.to_string(), used, false),
        std::borrow::Cow::Owned(s) => (s, used, true),
    }
}

/// Reads a window from `file` of `size` bytes: at most `limit` lines and `budget` bytes.
pub(crate) fn window<F: Read + Seek>(
    file: F,
    size: u64,
    from: From,
    limit: u64,
    budget: usize,
) -> io::Result<Window> {
    let mut reader = BufReader::with_capacity(64 * 1024, file);
    let mut out = Window::default();
    match from {
        From::Tail(n) => return tail(reader.into_inner(), size, n, budget),
        From::Byte(at) => {
            let at = at.min(size);
            if size <= MAX_LINE_COUNT_BYTES {
                out.start_line = Some(count_newlines(&mut reader, at)? + 1);
            }
            reader.seek(SeekFrom::Start(at))?;
            out.start_byte = at;
        }
        From::Line(line) => {
            let skip = line.max(1) - 1;
            let (skipped, at) = skip_lines(&mut reader, skip)?;
            if skipped < skip || (at == size && skip > 0) {
                // The skip has counted every newline of the file already.
                out.past_end = true;
                out.total_lines =
                    Some(skipped + u64::from(last_line_unterminated(&mut reader, size)?));
                return Ok(out);
            }
            out.start_line = Some(line.max(1));
            out.start_byte = at;
        }
    }
    let mut at = out.start_byte;
    let mut used = 0;
    let mut line = Vec::new();
    while (out.lines.len() as u64) < limit && at < size {
        line.clear();
        let room = budget.saturating_sub(used);
        let (read, ended) = read_line(&mut reader, &mut line, room.max(1))?;
        if read == 0 {
            break;
        }
        let body = if ended {
            &line[..line.len() - 1]
        } else {
            &line[..]
        };
        // Whole when the line ended (or the file did) and its escaped form fits.
        let fits = fit(body, room);
        let cut = fits < body.len() || (!ended && at + read as u64 != size);
        if cut && !out.lines.is_empty() {
            break;
        }
        let (text, taken, lossy) = text_of(&body[..fits.max(1).min(body.len())], cut);
        out.lossy |= lossy;
        used += cost(&text);
        at += if cut { taken as u64 } else { read as u64 };
        out.lines.push(text);
        if cut {
            out.cut = true;
            break;
        }
    }
    out.end_byte = at;
    if size <= MAX_LINE_COUNT_BYTES {
        out.total_lines = Some(line_count_exact(&mut reader, size)?);
    }
    Ok(out)
}

/// Lines in the whole file: its newlines, plus one for a last line without one.
fn line_count_exact<R: BufRead + Seek>(reader: &mut R, size: u64) -> io::Result<u64> {
    reader.seek(SeekFrom::Start(0))?;
    let newlines = count_newlines(reader, size)?;
    Ok(newlines + u64::from(last_line_unterminated(reader, size)?))
}

/// True when the file's last byte is not a newline (its last line has none).
fn last_line_unterminated<R: BufRead + Seek>(reader: &mut R, size: u64) -> io::Result<bool> {
    if size == 0 {
        return Ok(false);
    }
    let mut last = [0u8];
    reader.seek(SeekFrom::Start(size - 1))?;
    reader.read_exact(&mut last)?;
    Ok(last[0] != b'\n')
}

/// Reads one line (up to and including `\n`) into `line`, at most `max` bytes; returns the
/// bytes read and whether a newline ended them.
fn read_line<R: BufRead>(
    reader: &mut R,
    line: &mut Vec<u8>,
    max: usize,
) -> io::Result<(usize, bool)> {
    let mut read = 0;
    loop {
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            return Ok((read, false));
        }
        let room = max - read;
        let chunk = &buf[..buf.len().min(room)];
        match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => {
                line.extend_from_slice(&chunk[..=i]);
                reader.consume(i + 1);
                return Ok((read + i + 1, true));
            }
            None => {
                let n = chunk.len();
                line.extend_from_slice(chunk);
                reader.consume(n);
                read += n;
                if read >= max {
                    return Ok((read, false));
                }
            }
        }
    }
}

/// Newlines in the first `end` bytes (reading from the start).
fn count_newlines<R: BufRead + Seek>(reader: &mut R, end: u64) -> io::Result<u64> {
    reader.seek(SeekFrom::Start(0))?;
    count_newlines_from(reader, 0, end)
}

/// Newlines between the reader's position `at` and `end`.
fn count_newlines_from<R: BufRead>(reader: &mut R, mut at: u64, end: u64) -> io::Result<u64> {
    let mut count = 0;
    while at < end {
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            break;
        }
        let n = buf.len().min((end - at) as usize);
        count += buf[..n].iter().filter(|&&b| b == b'\n').count() as u64;
        reader.consume(n);
        at += n as u64;
    }
    Ok(count)
}

/// Skips `lines` lines from the start; returns how many were skipped and the byte offset
/// reached. Refuses to scan more than [`MAX_SCAN_BYTES`].
fn skip_lines<R: BufRead + Seek>(reader: &mut R, lines: u64) -> io::Result<(u64, u64)> {
    reader.seek(SeekFrom::Start(0))?;
    let (mut skipped, mut at) = (0, 0u64);
    while skipped < lines {
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            break;
        }
        let mut consumed = buf.len();
        for (i, &b) in buf.iter().enumerate() {
            if b == b'\n' {
                skipped += 1;
                if skipped == lines {
                    consumed = i + 1;
                    break;
                }
            }
        }
        reader.consume(consumed);
        at += consumed as u64;
        if at > MAX_SCAN_BYTES && skipped < lines {
            return Err(io::Error::new(io::ErrorKind::FileTooLarge, "scan limit"));
        }
    }
    Ok((skipped, at))
}

/// The last `n` lines, reading backwards in chunks, at most `budget` bytes of them.
fn tail<R: Read + Seek>(mut reader: R, size: u64, n: u64, budget: usize) -> io::Result<Window> {
    const CHUNK: u64 = 64 * 1024;
    if size == 0 || n == 0 {
        return Ok(Window {
            start_line: Some(1),
            total_lines: Some(0),
            ..Window::default()
        });
    }
    // Read back until n + 1 newlines (one more than the lines, since the file's final
    // newline ends the last line) or the start, but no further than the budget allows.
    let ends_with_newline = size > 0 && {
        let mut last = [0u8];
        reader.seek(SeekFrom::Start(size - 1))?;
        reader.read_exact(&mut last)?;
        last[0] == b'\n'
    };
    let needed = n + u64::from(ends_with_newline);
    let max_back = (budget as u64).saturating_mul(2).max(CHUNK);
    let mut start = size;
    let mut bytes: Vec<u8> = Vec::new();
    let mut newlines = 0;
    while start > 0 && newlines < needed && size - start < max_back {
        let from = start.saturating_sub(CHUNK);
        let mut chunk = vec![0u8; (start - from) as usize];
        reader.seek(SeekFrom::Start(from))?;
        reader.read_exact(&mut chunk)?;
        newlines += chunk.iter().filter(|&&b| b == b'\n').count() as u64;
        chunk.extend_from_slice(&bytes);
        bytes = chunk;
        start = from;
    }
    let body = if ends_with_newline {
        &bytes[..bytes.len() - 1]
    } else {
        &bytes[..]
    };
    let mut pieces: Vec<&[u8]> = body.split(|&b| b == b'\n').collect();
    // The first piece is a whole line only when the read reached the file's start.
    let mut first_partial = start > 0;
    if pieces.len() as u64 > n {
        pieces.drain(..pieces.len() - n as usize);
        first_partial = false;
    }
    if first_partial && pieces.len() > 1 {
        pieces.remove(0);
        first_partial = false;
    }
    // Keep the last lines that fit the budget.
    let mut kept: Vec<String> = Vec::new();
    let mut used = 0;
    let mut lossy = false;
    for piece in pieces.iter().rev() {
        let (text, _, replaced) = text_of(piece, false);
        let c = cost(&text);
        if kept.is_empty() && c > budget {
            // The last line alone is over the budget: read it forwards, cut, from its start.
            let start = size - u64::from(ends_with_newline) - piece.len() as u64;
            return window(reader, size, From::Byte(start), 1, budget);
        }
        if used + c > budget {
            break;
        }
        used += c;
        lossy |= replaced;
        kept.push(text);
    }
    kept.reverse();
    let shown_bytes: u64 = pieces[pieces.len() - kept.len()..]
        .iter()
        .map(|p| p.len() as u64 + 1)
        .sum();
    let start_byte = (size - u64::from(ends_with_newline) + 1).saturating_sub(shown_bytes);
    let total = if size <= MAX_LINE_COUNT_BYTES {
        Some(line_count_exact(&mut BufReader::new(&mut reader), size)?)
    } else {
        None
    };
    Ok(Window {
        start_line: total.map(|t| t + 1 - kept.len() as u64),
        start_byte: if size == 0 { 0 } else { start_byte },
        lines: kept,
        end_byte: size,
        total_lines: total,
        cut: first_partial,
        lossy,
        past_end: false,
    })
}

#[cfg(test)]
#[path = "lines_tests.rs"]
mod tests;
