//! The timestamps `diff -u` writes after a file name (`\t2010-07-05 19:41:17.620000023
//! -0500`), found as `git apply` finds them: the name ends where a timestamp starts, and a
//! time at the Unix epoch in its own zone marks a created or deleted file (GNU diff's `-N`).

/// The byte at `i`, or NUL past the end.
fn at(buf: &[u8], i: usize) -> u8 {
    buf.get(i).copied().unwrap_or(0)
}

fn digit(c: u8) -> bool {
    c.is_ascii_digit()
}

/// ` +0500` at the end.
fn tz_len(line: &[u8]) -> usize {
    let n = line.len();
    if n < 6 || line[n - 6] != b' ' || !matches!(line[n - 5], b'+' | b'-') {
        return 0;
    }
    if line[n - 4..].iter().all(|&c| digit(c)) {
        6
    } else {
        0
    }
}

/// ` +08:00` at the end.
fn tz_with_colon_len(line: &[u8]) -> usize {
    let n = line.len();
    if n < 7 || line[n - 3] != b':' {
        return 0;
    }
    let tz = &line[n - 7..];
    let ok = tz[0] == b' '
        && matches!(tz[1], b'+' | b'-')
        && digit(tz[2])
        && digit(tz[3])
        && tz[4] == b':'
        && digit(tz[5])
        && digit(tz[6]);
    if ok {
        7
    } else {
        0
    }
}

/// `72-02-05` or `1972-02-05` at the end.
fn date_len(line: &[u8]) -> usize {
    let n = line.len();
    if n < 8 || line[n - 3] != b'-' {
        return 0;
    }
    let d = &line[n - 8..];
    let ok = digit(d[0])
        && digit(d[1])
        && d[2] == b'-'
        && digit(d[3])
        && digit(d[4])
        && d[5] == b'-'
        && digit(d[6])
        && digit(d[7]);
    if !ok {
        return 0;
    }
    if n >= 10 && digit(line[n - 9]) && digit(line[n - 10]) {
        10
    } else {
        8
    }
}

/// ` 07:01:32` at the end.
fn short_time_len(line: &[u8]) -> usize {
    let n = line.len();
    if n < 9 || line[n - 3] != b':' {
        return 0;
    }
    let t = &line[n - 9..];
    let ok = t[0] == b' '
        && digit(t[1])
        && digit(t[2])
        && t[3] == b':'
        && digit(t[4])
        && digit(t[5])
        && t[6] == b':'
        && digit(t[7])
        && digit(t[8]);
    if ok {
        9
    } else {
        0
    }
}

/// ` 19:41:17.620000023` at the end.
fn fractional_time_len(line: &[u8]) -> usize {
    let n = line.len();
    if n == 0 || !digit(line[n - 1]) {
        return 0;
    }
    let mut p = n - 1;
    while p > 0 && digit(line[p]) {
        p -= 1;
    }
    if line[p] != b'.' {
        return 0;
    }
    match short_time_len(&line[..p]) {
        0 => 0,
        t => n - p + t,
    }
}

/// Trailing spaces.
fn trailing_spaces_len(line: &[u8]) -> usize {
    line.iter().rev().take_while(|&&c| c == b' ').count()
}

/// The length of a `diff -u` timestamp (with its separating tab or spaces) at the end of
/// `line` (without its line feed): `\t2010-07-05 19:41:17.620000023 -0500`; 0 when none.
pub(super) fn timestamp_len(line: &[u8]) -> usize {
    if line.last().is_none_or(|&c| !digit(c)) {
        return 0;
    }
    let mut end = line.len();
    let mut n = tz_len(&line[..end]);
    if n == 0 {
        n = tz_with_colon_len(&line[..end]);
    }
    end -= n;
    let mut n = short_time_len(&line[..end]);
    if n == 0 {
        n = fractional_time_len(&line[..end]);
    }
    end -= n;
    let n = date_len(&line[..end]);
    if n == 0 {
        return 0;
    }
    end -= n;
    if end == 0 {
        return 0;
    }
    if line[end - 1] == b'\t' {
        return line.len() - (end - 1);
    }
    if line[end - 1] != b' ' {
        return 0;
    }
    end -= trailing_spaces_len(&line[..end]);
    line.len() - end
}

/// True when the `---`/`+++` line's timestamp (after its last tab) is the Unix epoch in its
/// zone: GNU diff's mark of a created or deleted file.
pub(super) fn has_epoch_timestamp(line: &[u8]) -> bool {
    let end = line.iter().position(|&c| c == b'\n').unwrap_or(line.len());
    let Some(tab) = line[..end].iter().rposition(|&c| c == b'\t') else {
        return false;
    };
    let stamp = &line[tab + 1..];
    let (epoch_hour, rest) = if let Some(rest) = stamp.strip_prefix(b"1969-12-31 ") {
        (24, rest)
    } else if let Some(rest) = stamp.strip_prefix(b"1970-01-01 ") {
        (0, rest)
    } else {
        return false;
    };
    // ^[0-2][0-9]:([0-5][0-9]):00(\.0+)? ([-+][0-2][0-9]:?[0-5][0-9])\n
    let b = |i: usize| at(rest, i);
    let in_range = |c: u8, lo: u8, hi: u8| (lo..=hi).contains(&c);
    if !(in_range(b(0), b'0', b'2')
        && digit(b(1))
        && b(2) == b':'
        && in_range(b(3), b'0', b'5')
        && digit(b(4))
        && b(5) == b':'
        && b(6) == b'0'
        && b(7) == b'0')
    {
        return false;
    }
    let mut i = 8;
    if b(i) == b'.' && b(i + 1) == b'0' {
        i += 1;
        while b(i) == b'0' {
            i += 1;
        }
    }
    if b(i) != b' ' || !matches!(b(i + 1), b'+' | b'-') {
        return false;
    }
    let sign = b(i + 1);
    let zone = i + 2;
    if !(in_range(b(zone), b'0', b'2') && digit(b(zone + 1))) {
        return false;
    }
    let mut j = zone + 2;
    let colon = b(j) == b':';
    if colon {
        j += 1;
    }
    if !(in_range(b(j), b'0', b'5') && digit(b(j + 1)) && b(j + 2) == b'\n') {
        return false;
    }
    let two = |k: usize| i64::from(b(k) - b'0') * 10 + i64::from(b(k + 1) - b'0');
    let hour = two(0);
    let minute = two(3);
    let mut offset = two(zone) * 60 + two(j);
    if sign == b'-' {
        offset = -offset;
    }
    hour * 60 + minute - offset == epoch_hour * 60
}
