//! Finding the next of a few bytes eight bytes at a time, in safe code.
//!
//! The lexer spends much of its time stepping over bytes that cannot end what it is in: a
//! block comment (a quarter of a PHP or Java file's bytes are docblocks) ends only at a `*`,
//! and its lines are counted at each `\n`. A byte-by-byte loop costs a load, two compares
//! and the loop's own bookkeeping per byte; testing a whole `u64` for each wanted byte costs
//! about as much per eight.

/// One in every byte.
const ONES: u64 = 0x0101_0101_0101_0101;
/// The high bit of every byte.
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// The high bit of each byte of `word` that equals `byte`, read as little-endian. Exact up
/// to the first such byte: a zero byte of `x` borrows from the bytes above it in the
/// subtraction, which may flag some of them too, but no byte below the first match is
/// flagged, so the lowest bit set is always a real match.
#[inline(always)]
fn equal_bytes(word: u64, byte: u8) -> u64 {
    let x = word ^ (ONES * u64::from(byte));
    x.wrapping_sub(ONES) & !x & HIGHS
}

/// The index of the first byte of `bytes` that is one of `wanted`, if any.
#[inline(always)]
pub(super) fn find_any<const N: usize>(bytes: &[u8], wanted: [u8; N]) -> Option<usize> {
    let mut chunks = bytes.chunks_exact(8);
    let mut base = 0;
    for chunk in &mut chunks {
        // Always eight bytes: `chunks_exact` holds the remainder back.
        let word = u64::from_le_bytes(chunk.try_into().unwrap_or_default());
        let hits = wanted
            .iter()
            .fold(0, |hits, &b| hits | equal_bytes(word, b));
        if hits != 0 {
            return Some(base + hits.trailing_zeros() as usize / 8);
        }
        base += 8;
    }
    let rest = chunks.remainder();
    rest.iter()
        .position(|c| wanted.contains(c))
        .map(|p| base + p)
}

#[cfg(test)]
mod tests {
    use super::find_any;

    /// The plain byte loop `find_any` replaces.
    fn naive<const N: usize>(bytes: &[u8], wanted: [u8; N]) -> Option<usize> {
        bytes.iter().position(|c| wanted.contains(c))
    }

    #[test]
    fn agrees_with_a_byte_loop_at_every_offset_and_length() {
        // Bytes next to the wanted ones (borrows in the subtraction) and high bytes.
        let alphabet = [
            b'*', b'\n', b')', b'+', b'\t', b'\x0b', 0x00, 0x80, 0xff, b'a',
        ];
        let mut state = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..20_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let len = (state % 40) as usize;
            let bytes: Vec<u8> = (0..len)
                .map(|k| alphabet[((state >> (k % 60)) as usize + k * 7) % alphabet.len()])
                .collect();
            for start in 0..=bytes.len() {
                let rest = &bytes[start..];
                assert_eq!(find_any(rest, [b'*', b'\n']), naive(rest, [b'*', b'\n']));
                assert_eq!(find_any(rest, [0x00]), naive(rest, [0x00]));
                assert_eq!(
                    find_any(rest, [0xff, b'+', b'a']),
                    naive(rest, [0xff, b'+', b'a'])
                );
            }
        }
    }

    #[test]
    fn finds_nothing_in_nothing() {
        assert_eq!(find_any(&[], [b'*']), None);
        assert_eq!(find_any(b"abcdefghijklmnop", [b'*']), None);
        assert_eq!(find_any(b"abcdefghijklmnop*", [b'*']), Some(16));
    }
}
