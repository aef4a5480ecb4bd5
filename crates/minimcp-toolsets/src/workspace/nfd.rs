//! Unicode Normalization Form D (canonical decomposition), so that two spellings of one name
//! compare equal: `é` written as one code point (NFC, what most keyboards type) and as `e`
//! followed by a combining acute accent (NFD, how HFS+ stores names; APFS keeps whichever was
//! created, and finds a name in either form). The deny list compares names in this form.
//!
//! The algorithm of Unicode's UAX #15: each character replaced by its full canonical
//! decomposition (from `nfd_table.rs`; Hangul syllables by arithmetic), then every run of
//! combining marks put in the canonical order of their combining classes (a stable sort).

use std::borrow::Cow;

use super::nfd_table::{COMBINING, DECOMPOSED};

/// `text` in NFD; borrowed when it is already (ASCII always is).
pub(crate) fn nfd(text: &str) -> Cow<'_, str> {
    if text.is_ascii() {
        return Cow::Borrowed(text);
    }
    let mut chars: Vec<char> = Vec::with_capacity(text.len());
    for c in text.chars() {
        decompose(c, &mut chars);
    }
    // Canonical ordering: a combining mark moves before the marks of a higher class that
    // precede it, never past a starter (class 0).
    for i in 1..chars.len() {
        let class = combining_class(chars[i]);
        if class == 0 {
            continue;
        }
        let mut j = i;
        while j > 0 && combining_class(chars[j - 1]) > class {
            chars.swap(j - 1, j);
            j -= 1;
        }
    }
    let out: String = chars.into_iter().collect();
    if out == text {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(out)
    }
}

/// Hangul syllables, as Unicode's chapter 3.12 defines them.
const S_BASE: u32 = 0xAC00;
const L_BASE: u32 = 0x1100;
const V_BASE: u32 = 0x1161;
const T_BASE: u32 = 0x11A7;
const T_COUNT: u32 = 28;
const N_COUNT: u32 = 21 * T_COUNT;
const S_COUNT: u32 = 19 * N_COUNT;

fn decompose(c: char, out: &mut Vec<char>) {
    let code = c as u32;
    if (S_BASE..S_BASE + S_COUNT).contains(&code) {
        let s = code - S_BASE;
        let jamo = [
            L_BASE + s / N_COUNT,
            V_BASE + (s % N_COUNT) / T_COUNT,
            T_BASE + s % T_COUNT,
        ];
        let last = if s.is_multiple_of(T_COUNT) { 2 } else { 3 };
        out.extend(jamo[..last].iter().filter_map(|&j| char::from_u32(j)));
        return;
    }
    match DECOMPOSED.binary_search_by(|(from, _)| from.cmp(&c)) {
        Ok(at) => out.extend(DECOMPOSED[at].1.chars()),
        Err(_) => out.push(c),
    }
}

/// The canonical combining class of `c` (0 for a starter).
fn combining_class(c: char) -> u8 {
    match COMBINING.binary_search_by(|&(first, last, _)| {
        if c < first {
            std::cmp::Ordering::Greater
        } else if c > last {
            std::cmp::Ordering::Less
        } else {
            std::cmp::Ordering::Equal
        }
    }) {
        Ok(at) => COMBINING[at].2,
        Err(_) => 0,
    }
}

#[cfg(test)]
#[path = "nfd_tests.rs"]
mod tests;
