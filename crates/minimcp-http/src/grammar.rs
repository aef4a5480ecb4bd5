//! The RFC grammar of a request's pieces, byte by byte: where a head ends and which bytes
//! it may hold, the request target, `Host`, field lines and what they say about framing,
//! chunk size lines. Pure functions over text already read; `parse` puts them together
//! into one request.
//!
//! Everything here refuses what either of two readers could take two ways (RFC 9112), so
//! a proxy in front and this server always agree on where a request ends.

/// A refusal: the status to answer and why; the connection closes after it.
pub(crate) type Bad = (u16, &'static str);

/// Where the blank line ending a request head starts, checking bytes from `from` on:
/// `Err(None)` when no head end came yet, `Err(Some(why))` for a byte no head may hold.
/// Every LF must end a CRLF and every CR start one (RFC 9112 §2.2: a bare CR is invalid;
/// a bare LF is refused too, so the head ends only at CRLF CRLF and splitting it into lines
/// at CRLF finds every line), and no other control character but HTAB may appear.
pub(crate) fn head_end(buf: &[u8], from: usize) -> Result<usize, Option<&'static str>> {
    // Eight bytes at a time: most words of a head hold no control character at all, and
    // checking them whole costs a few instructions instead of a few per byte.
    let mut at = from;
    while let Some(word) = buf.get(at..at + 8) {
        let mask = ctl_mask(u64::from_le_bytes(word.try_into().unwrap_or_default()));
        if mask == 0 {
            at += 8;
            continue;
        }
        // The lowest flagged byte is a control character (see `ctl_mask`): go straight to
        // it, then on from the byte after it.
        let i = at + (mask.trailing_zeros() / 8) as usize;
        if let Some(found) = check_head_byte(buf, i)? {
            return Ok(found);
        }
        at = i + 1;
    }
    for i in at..buf.len() {
        if let Some(found) = check_head_byte(buf, i)? {
            return Ok(found);
        }
    }
    Err(None)
}

/// The high bit of each byte of `word` (little-endian) that is below 0x20 or is 0x7f (a
/// control character, or HTAB), exact up to the lowest flagged byte; bytes above it may
/// be flagged wrongly (a borrow carries on), so only the lowest one is to be trusted, and
/// zero means none.
pub(super) fn ctl_mask(word: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // A byte below 0x20 borrows when 0x20 is taken from it (bytes of 0x80 and up are
    // masked out by `!word`); a DEL byte is the zero byte of `word ^ 0x7f…`.
    let low = word.wrapping_sub(0x20 * ONES) & !word & HIGH;
    let del = word ^ (0x7f * ONES);
    low | (del.wrapping_sub(ONES) & !del & HIGH)
}

/// Checks byte `i` of a head being searched: `Ok(Some(start))` when it is the last LF of
/// the blank line that ends the head, which starts at `start`.
fn check_head_byte(buf: &[u8], i: usize) -> Result<Option<usize>, Option<&'static str>> {
    let b = buf[i];
    if !is_ctl(b) || b == b'\t' {
        return Ok(None);
    }
    match b {
        b'\r' => match buf.get(i + 1) {
            Some(b'\n') => Ok(None),
            Some(_) => Err(Some("bare CR in the request head")),
            None => Err(None),
        },
        b'\n' => {
            if i == 0 || buf[i - 1] != b'\r' {
                return Err(Some("bare LF in the request head"));
            }
            if i >= 3 && buf[i - 3..i - 1] == *b"\r\n" {
                return Ok(Some(i - 3));
            }
            Ok(None)
        }
        _ => Err(Some("control character in the request head")),
    }
}

/// The lines of a head whose every LF ends a CRLF (see [`head_end`]), without their CRLF.
/// A loop over bytes: `str::split` at `\n` calls `memchr` per line, which costs more than
/// it saves on lines this short.
pub(crate) fn crlf_lines(head: &str) -> impl Iterator<Item = &str> {
    let mut rest = Some(head);
    std::iter::from_fn(move || {
        let text = rest?;
        match text.bytes().position(|b| b == b'\n') {
            Some(lf) => {
                rest = Some(&text[lf + 1..]);
                Some(&text[..lf.saturating_sub(1)])
            }
            None => {
                rest = None;
                Some(text)
            }
        }
    })
}

/// A control character (RFC 5234 `CTL`).
#[inline(always)]
pub(crate) fn is_ctl(b: u8) -> bool {
    b < 0x20 || b == 0x7f
}

/// `HTTP/` DIGIT `.` DIGIT (RFC 9112 §2.3).
pub(crate) fn is_http_version(v: &str) -> bool {
    matches!(v.as_bytes(), [b'H', b'T', b'T', b'P', b'/', major, b'.', minor]
        if major.is_ascii_digit() && minor.is_ascii_digit())
}

/// The path of a request target (without its query) and, for the absolute form, its
/// authority (RFC 9112 §3.2). Origin form (`/path?query`) and absolute form
/// (`http://host:port/path?query`) are served; the asterisk and authority forms are not
/// (400), nor a target with a byte outside RFC 3986's `pchar`, `/` and `?`.
pub(crate) fn parse_target(target: &str) -> Result<(&str, Option<&str>), Bad> {
    let bad = (400, "malformed request target");
    let (authority, rest) = if target.starts_with('/') {
        (None, target)
    } else {
        let (scheme, rest) = target.split_once("://").ok_or(bad)?;
        if !(scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https")) {
            return Err((400, "malformed request target"));
        }
        let end = rest.find(['/', '?']).unwrap_or(rest.len());
        let authority = &rest[..end];
        if split_host(authority).is_none() {
            return Err((400, "malformed authority in the request target"));
        }
        (Some(authority), &rest[end..])
    };
    let bytes = rest.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        let ok = match b {
            b'%' => {
                bytes.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
                    && bytes.get(i + 2).is_some_and(u8::is_ascii_hexdigit)
            }
            b'/' | b'?' | b':' | b'@' => true,
            _ => is_unreserved(b) || is_sub_delim(b),
        };
        if !ok {
            return Err((400, "malformed request target"));
        }
    }
    let path = rest.split('?').next().unwrap_or_default();
    // `http://host` and `http://host?q` name the path `/` (RFC 9112 §3.2.1).
    Ok((if path.is_empty() { "/" } else { path }, authority))
}

/// RFC 3986 `unreserved`.
#[inline(always)]
fn is_unreserved(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~')
}

/// RFC 3986 `sub-delims`.
#[inline(always)]
fn is_sub_delim(b: u8) -> bool {
    matches!(
        b,
        b'!' | b'$' | b'&' | b'\'' | b'(' | b')' | b'*' | b'+' | b',' | b';' | b'='
    )
}

/// Splits `host [ ":" port ]` (RFC 3986 §3.2.2–3.2.3, as `Host` carries it, RFC 9110
/// §7.2) into the host and the port's digits; `None` unless the whole value is exactly
/// that, with a host that is not empty: no userinfo, path, spaces or anything else. The
/// host is an IP literal (`[` IPv6 or IPvFuture `]`), or a reg-name (which covers IPv4).
pub(crate) fn split_host(value: &str) -> Option<(&str, &str)> {
    let (host, port) = if let Some(inner) = value.strip_prefix('[') {
        let (literal, rest) = inner.split_once(']')?;
        let future = literal
            .strip_prefix(['v', 'V'])
            .and_then(|f| f.split_once('.'));
        let valid = match future {
            Some((version, text)) => {
                !version.is_empty()
                    && version.bytes().all(|b| b.is_ascii_hexdigit())
                    && !text.is_empty()
                    && text
                        .bytes()
                        .all(|b| is_unreserved(b) || is_sub_delim(b) || b == b':')
            }
            None => literal.parse::<std::net::Ipv6Addr>().is_ok(),
        };
        if !valid {
            return None;
        }
        let port = match rest {
            "" => "",
            _ => rest.strip_prefix(':')?,
        };
        (&value[..literal.len() + 2], port)
    } else {
        // One pass to the colon (a reg-name has none), checking every byte on the way.
        let bytes = value.as_bytes();
        let mut i = 0;
        while i < bytes.len() && bytes[i] != b':' {
            match bytes[i] {
                b'%' if bytes.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
                    && bytes.get(i + 2).is_some_and(u8::is_ascii_hexdigit) =>
                {
                    i += 3
                }
                b if is_unreserved(b) || is_sub_delim(b) => i += 1,
                _ => return None,
            }
        }
        if i == 0 {
            return None;
        }
        (&value[..i], value.get(i + 1..).unwrap_or_default())
    };
    port.bytes()
        .all(|b| b.is_ascii_digit())
        .then_some((host, port))
}

/// A header (or trailer) field line's name and value (RFC 9112 §5): the name a token
/// right before the colon (whitespace there is refused, §5.1), no obs-fold (a line
/// starting with whitespace, §5.2), the value without the SP/HTAB around it. Control
/// characters were refused with the line.
pub(crate) fn field_line(line: &str) -> Result<(&str, &str), Bad> {
    if line.starts_with([' ', '\t']) {
        return Err((400, "obs-fold (a folded header line)"));
    }
    let Some((name, value)) = line.split_once(':') else {
        return Err((400, "malformed header"));
    };
    if name.is_empty() || !name.bytes().all(is_token_byte) {
        return Err((400, "malformed header name"));
    }
    Ok((name, trim_ows(value)))
}

/// `value` without the SP and HTAB (OWS) around it, and nothing else trimmed.
pub(crate) fn trim_ows(value: &str) -> &str {
    let bytes = value.as_bytes();
    let ows = |b: &u8| *b == b' ' || *b == b'\t';
    let start = bytes.iter().position(|b| !ows(b)).unwrap_or(bytes.len());
    let end = bytes.iter().rposition(|b| !ows(b)).map_or(start, |e| e + 1);
    // Both ends are next to ASCII bytes: character boundaries.
    &value[start..end]
}

/// The size of a chunk from its line (RFC 9112 §7.1): `1*HEXDIG`, then optional chunk
/// extensions (`;name` or `;name=value`, value a token or quoted string, whitespace
/// allowed only around `;` and `=`), which are checked and ignored. More than `room`
/// bytes is 413.
pub(crate) fn chunk_size(line: &[u8], room: usize) -> Result<usize, Bad> {
    let bad = || (400, "malformed chunk size line");
    // Whitespace is allowed only around `;` and `=`, never last.
    if line.last().is_some_and(|&b| b == b' ' || b == b'\t') {
        return Err(bad());
    }
    let digits = line.iter().take_while(|b| b.is_ascii_hexdigit()).count();
    if digits == 0 {
        return Err(bad());
    }
    let mut size = 0usize;
    for &d in &line[..digits] {
        let value = (d as char).to_digit(16).unwrap_or(0) as usize;
        size = size.saturating_mul(16).saturating_add(value);
    }
    if size > room {
        return Err((413, "body too large"));
    }
    let mut rest = &line[digits..];
    let ows = |s: &[u8]| -> usize { s.iter().take_while(|&&b| b == b' ' || b == b'\t').count() };
    while !rest.is_empty() {
        rest = &rest[ows(rest)..];
        rest = rest.strip_prefix(b";").ok_or_else(bad)?;
        rest = &rest[ows(rest)..];
        let name = rest.iter().take_while(|&&b| is_token_byte(b)).count();
        if name == 0 {
            return Err(bad());
        }
        rest = &rest[name..];
        let after = ows(rest);
        if rest.get(after) != Some(&b'=') {
            // No value: only whitespace before the next `;` or the end is allowed.
            if after < rest.len() && rest[after] != b';' {
                return Err(bad());
            }
            rest = &rest[after..];
            continue;
        }
        rest = &rest[after + 1..];
        rest = &rest[ows(rest)..];
        let taken = if rest.first() == Some(&b'"') {
            quoted_string(rest).ok_or_else(bad)?
        } else {
            rest.iter().take_while(|&&b| is_token_byte(b)).count()
        };
        if taken == 0 {
            return Err(bad());
        }
        rest = &rest[taken..];
        let after = ows(rest);
        if after < rest.len() && rest[after] != b';' {
            return Err(bad());
        }
    }
    Ok(size)
}

/// The length of the quoted string `text` starts with (RFC 9110 §5.6.4), if it is one.
fn quoted_string(text: &[u8]) -> Option<usize> {
    let mut i = 1;
    loop {
        match *text.get(i)? {
            b'"' => return Some(i + 1),
            b'\\' => {
                let escaped = *text.get(i + 1)?;
                if is_ctl(escaped) && escaped != b'\t' {
                    return None;
                }
                i += 2;
            }
            b if is_ctl(b) && b != b'\t' => return None,
            _ => i += 1,
        }
    }
}

/// RFC 9110 `tchar`. A `match` (one range test per byte), not a search through the list
/// of symbols: this runs for every byte of every header name.
#[inline(always)]
pub(crate) fn is_token_byte(b: u8) -> bool {
    matches!(b, b'0'..=b'9' | b'a'..=b'z' | b'A'..=b'Z' | b'!' | b'#' | b'$' | b'%' | b'&'
        | b'\'' | b'*' | b'+' | b'-' | b'.' | b'^' | b'_' | b'`' | b'|' | b'~')
}

/// How a request's body is framed.
pub(crate) enum Body {
    /// `Content-Length`, or none (0).
    Length(usize),
    /// `Transfer-Encoding: chunked`.
    Chunked,
}

/// What the header fields say about framing and the connection, gathered in one pass.
#[derive(Default)]
pub(crate) struct Framing {
    hosts: u8,
    origins: u8,
    authorizations: u8,
    /// Content-Length fields seen, and the value of the last one.
    lengths: u8,
    length: Option<usize>,
    /// Transfer-Encoding: the codings seen, across every field line, in order.
    te: bool,
    chunked: u8,
    other_coding: bool,
    bad_coding: bool,
    last_chunked: bool,
    pub(crate) close: bool,
    pub(crate) keep_alive: bool,
    pub(crate) expects_continue: bool,
}

impl Framing {
    /// Takes one header field into account. Only the names that matter are compared, and
    /// only when their length matches: this runs for every header of every request.
    pub(crate) fn note(&mut self, name: &str, value: &str) -> Result<(), Bad> {
        let is = |known: &str| name.eq_ignore_ascii_case(known);
        match name.len() {
            4 if is("host") => {
                self.hosts += 1;
                // RFC 9112 §3.2: more than one Host, or an invalid one, is a 400.
                if self.hosts > 1 {
                    return Err((400, "more than one Host header"));
                }
                if split_host(value).is_none() {
                    return Err((400, "malformed Host header"));
                }
            }
            6 if is("origin") => {
                self.origins += 1;
                // Not a list (RFC 6454 §7.3): two are an invalid Origin, 403 in MCP.
                if self.origins > 1 {
                    return Err((403, "more than one Origin header"));
                }
            }
            6 if is("expect") => {
                self.expects_continue = value.eq_ignore_ascii_case("100-continue");
            }
            10 if is("connection") => {
                for option in value.split(',').map(trim_ows) {
                    if option.eq_ignore_ascii_case("close") {
                        self.close = true;
                    } else if option.eq_ignore_ascii_case("keep-alive") {
                        self.keep_alive = true;
                    }
                }
            }
            13 if is("authorization") => {
                self.authorizations += 1;
                if self.authorizations > 1 {
                    return Err((400, "more than one Authorization header"));
                }
            }
            14 if is("content-length") => {
                // RFC 9112 §6.3: `1*DIGIT`, once. No sign, no list (not even of equal
                // values), no whitespace inside: anything else is how smuggling starts.
                self.lengths = self.lengths.saturating_add(1);
                if self.lengths > 1 {
                    return Err((400, "more than one Content-Length"));
                }
                if value.is_empty() || !value.bytes().all(|b| b.is_ascii_digit()) {
                    return Err((400, "malformed Content-Length"));
                }
                // Saturating, never wrapping: too large is too large (413).
                let length = value.bytes().fold(0usize, |n, d| {
                    n.saturating_mul(10).saturating_add(usize::from(d - b'0'))
                });
                self.length = Some(length);
            }
            17 if is("transfer-encoding") => {
                self.te = true;
                for coding in value.split(',').map(trim_ows) {
                    if coding.is_empty() {
                        continue; // an empty list element (RFC 9110 §5.6.1)
                    }
                    self.last_chunked = coding.eq_ignore_ascii_case("chunked");
                    if self.last_chunked {
                        self.chunked = self.chunked.saturating_add(1);
                        continue;
                    }
                    let name = coding.split(';').next().unwrap_or_default();
                    let name = name.trim_end_matches([' ', '\t']);
                    if !name.is_empty() && name.bytes().all(is_token_byte) {
                        self.other_coding = true;
                    } else {
                        self.bad_coding = true;
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// How the body is framed, once every field was noted (RFC 9112 §6).
    pub(crate) fn body(&self, http10: bool) -> Result<Body, Bad> {
        if self.hosts == 0 && !http10 {
            return Err((400, "Host header is required"));
        }
        if !self.te {
            return Ok(Body::Length(self.length.unwrap_or(0)));
        }
        let bad = |why| Err((400, why));
        if http10 {
            return bad("Transfer-Encoding in an HTTP/1.0 request");
        }
        if self.length.is_some() {
            return bad("both Transfer-Encoding and Content-Length");
        }
        if self.bad_coding || !self.last_chunked {
            return bad("Transfer-Encoding must end in chunked");
        }
        if self.chunked > 1 {
            return bad("chunked applied more than once");
        }
        if self.other_coding {
            return Err((501, "only the chunked transfer coding is served"));
        }
        Ok(Body::Chunked)
    }
}
