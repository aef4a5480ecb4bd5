//! Standard base64 (RFC 4648 §4, padding optional, whitespace ignored) for `content_base64`.

/// The bytes `text` encodes; `None` when it is not base64.
pub(crate) fn decode(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len() / 4 * 3);
    let mut acc = 0u32;
    let mut bits = 0;
    let mut padding = 0;
    for b in text.bytes() {
        let value = match b {
            b'A'..=b'Z' => b - b'A',
            b'a'..=b'z' => b - b'a' + 26,
            b'0'..=b'9' => b - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            b'=' => {
                padding += 1;
                continue;
            }
            b' ' | b'\n' | b'\r' | b'\t' => continue,
            _ => return None,
        };
        if padding > 0 {
            return None;
        }
        acc = (acc << 6) | u32::from(value);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    // Leftover bits must be zero padding of a partial group, and at most two `=`.
    if bits >= 6 || padding > 2 || acc & ((1 << bits) - 1) != 0 {
        return None;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::decode;

    #[test]
    fn decodes_what_the_crate_encodes() {
        for data in [
            &b""[..],
            b"f",
            b"fo",
            b"foo",
            b"foob",
            b"\x00\xff\xfe binary",
        ] {
            assert_eq!(
                decode(&minimcp_base::encoding::base64(data)).as_deref(),
                Some(data)
            );
        }
        assert_eq!(decode("Zm9v\nYmFy").as_deref(), Some(&b"foobar"[..]));
        assert_eq!(decode("Zg").as_deref(), Some(&b"f"[..]));
        for bad in ["Zm9v!", "Z", "Zh==", "Zg==Zg", "Zg==="] {
            assert_eq!(decode(bad), None, "{bad}");
        }
    }
}
