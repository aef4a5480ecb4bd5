//! Halstead measures from operator and operand counts. Operators are the operator and
//! punctuation tokens (a bracket pair counts once, at its opening bracket) and the
//! keywords; operands are names, numbers and literals. With n1/n2 distinct and N1/N2 total
//! operators/operands: vocabulary n = n1 + n2, length N = N1 + N2, volume V = N·log2(n),
//! difficulty D = (n1/2)·(N2/n2), effort E = D·V.

use super::lexer::{Kind, Token};

/// Halstead's counts and the measures derived from them.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct Halstead {
    pub(crate) distinct_operators: u32,
    pub(crate) distinct_operands: u32,
    pub(crate) operators: u32,
    pub(crate) operands: u32,
    pub(crate) volume: f64,
    pub(crate) difficulty: f64,
    pub(crate) effort: f64,
}

/// Counts the tokens given (a function's own tokens) with a counter of their own.
#[cfg(test)]
pub(crate) fn measure<'s>(tokens: impl IntoIterator<Item = &'s Token<'s>>) -> Halstead {
    let tokens = tokens.into_iter();
    let expected = tokens.size_hint().0;
    Counter::default().measure(tokens, expected)
}

/// Counts distinct token texts for one function after another, reusing one table.
///
/// A hash set per function spent more time being allocated, grown and freed than being
/// used. This table is open addressing with a generation stamp per slot: a slot stamped
/// with an older generation is empty, so starting the next function clears nothing. An
/// operator and an operand with the same text (`if` the keyword, `x.if` the property) are
/// different entries: the slot's tag carries which one it is.
#[derive(Default)]
pub(crate) struct Counter<'s> {
    slots: Vec<Slot<'s>>,
    generation: u32,
    /// Entries of the current generation.
    live: usize,
}

#[derive(Clone, Copy, Default)]
struct Slot<'s> {
    generation: u32,
    /// High bits of the text's hash; the lowest bit is 1 for an operator.
    tag: u32,
    /// The text's first eight bytes, zero-padded.
    head: u64,
    text: &'s str,
}

impl<'s> Counter<'s> {
    /// Counts `tokens`; `expected` (how many there may be) sizes the table up front, as
    /// growing it midway costs a rehash.
    #[cfg(test)]
    pub(crate) fn measure<'t>(
        &mut self,
        tokens: impl Iterator<Item = &'t Token<'s>>,
        expected: usize,
    ) -> Halstead
    where
        's: 't,
    {
        self.start(expected);
        let mut counts = [0u32; 4];
        for t in tokens {
            self.count(t, &mut counts);
        }
        from_counts(counts[0], counts[1], counts[2], counts[3])
    }

    /// Counts the tokens of `tokens` whose `owner` is `index` (a function's own tokens
    /// within its span): the same count as the test-only `measure`, in a plain loop (an
    /// iterator's `filter` closure was a call per token).
    pub(crate) fn measure_owned(
        &mut self,
        tokens: &[Token<'s>],
        owner: &[u32],
        index: usize,
    ) -> Halstead {
        self.start(tokens.len());
        let mut counts = [0u32; 4];
        for (t, &o) in tokens.iter().zip(owner) {
            if o as usize == index {
                self.count(t, &mut counts);
            }
        }
        from_counts(counts[0], counts[1], counts[2], counts[3])
    }

    /// A new generation, with room for `expected` tokens: a slot per token. A function's
    /// distinct texts are far fewer than its tokens, so the table is seldom half full, and
    /// `grow` doubles it when it is; two slots per token made filling new tables a tenth
    /// of the counting.
    fn start(&mut self, expected: usize) {
        if self.slots.len() < expected || self.generation == u32::MAX {
            self.slots = vec![Slot::default(); expected.next_power_of_two().max(64)];
            self.generation = 0;
        }
        self.generation += 1;
        self.live = 0;
    }

    /// Adds `t` to `counts`: distinct operators, distinct operands, operators, operands.
    #[inline(always)]
    fn count(&mut self, t: &Token<'s>, counts: &mut [u32; 4]) {
        let operator = match t.kind {
            Kind::Op if matches!(t.text, ")" | "]" | "}") => return,
            Kind::Op | Kind::Keyword => true,
            Kind::Ident | Kind::Number | Kind::Str => false,
        };
        let new = self.insert(t.text, operator);
        let which = usize::from(!operator);
        counts[which] += u32::from(new);
        counts[2 + which] += 1;
    }

    /// Adds `text` (an operator's or an operand's); true when it was not there yet.
    #[inline(always)]
    fn insert(&mut self, text: &'s str, operator: bool) -> bool {
        if 2 * (self.live + 1) > self.slots.len() {
            self.grow();
        }
        let (hash, head) = hash(text.as_bytes());
        let tag = ((hash >> 32) as u32 & !1) | u32::from(operator);
        let mask = self.slots.len() - 1;
        let mut i = hash as usize & mask;
        loop {
            let slot = &mut self.slots[i];
            if slot.generation != self.generation {
                *slot = Slot {
                    generation: self.generation,
                    tag,
                    head,
                    text,
                };
                self.live += 1;
                return true;
            }
            // Up to eight bytes, the length and the first word are the whole text.
            if slot.tag == tag
                && slot.head == head
                && slot.text.len() == text.len()
                && (text.len() <= 8 || slot.text == text)
            {
                return false;
            }
            i = (i + 1) & mask;
        }
    }

    /// Doubles the table, keeping this generation's entries: at most half full, probes
    /// stay short and always meet a free slot.
    #[cold]
    fn grow(&mut self) {
        let old = std::mem::take(&mut self.slots);
        let generation = self.generation;
        self.slots = vec![Slot::default(); (2 * old.len()).max(64)];
        self.generation = 1;
        self.live = 0;
        for slot in old.into_iter().filter(|s| s.generation == generation) {
            self.insert(slot.text, slot.tag & 1 == 1);
        }
    }
}

/// A multiply-rotate hash of `bytes`, eight bytes at a time, and their first eight bytes
/// as a number (zero-padded): token texts are short and come from our own lexer, so
/// resistance to chosen collisions buys nothing here (a table is per function, bounded by
/// its tokens), while a byte-at-a-time hash cost most of the counting.
#[inline(always)]
fn hash(bytes: &[u8]) -> (u64, u64) {
    const K: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut h = (bytes.len() as u64).wrapping_mul(K);
    let mut chunks = bytes.chunks_exact(8);
    let mut head = None;
    for chunk in &mut chunks {
        let word = u64::from_le_bytes(chunk.try_into().unwrap_or_default());
        head.get_or_insert(word);
        h = (h.rotate_left(23) ^ word).wrapping_mul(K);
    }
    let word = tail_word(chunks.remainder());
    h = (h.rotate_left(23) ^ word).wrapping_mul(K);
    (h ^ (h >> 29), head.unwrap_or(word))
}

/// The last 0 to 7 bytes of a text as a number, zero-padded, in one step by their count:
/// most token texts are that short, and a byte-at-a-time loop was a fifth of the counting.
#[inline(always)]
fn tail_word(rest: &[u8]) -> u64 {
    match *rest {
        [] => 0,
        [a] => u64::from(a),
        [a, b] => u64::from(u16::from_le_bytes([a, b])),
        [a, b, c] => u64::from(u32::from_le_bytes([a, b, c, 0])),
        [a, b, c, d] => u64::from(u32::from_le_bytes([a, b, c, d])),
        [a, b, c, d, e] => u64::from_le_bytes([a, b, c, d, e, 0, 0, 0]),
        [a, b, c, d, e, f] => u64::from_le_bytes([a, b, c, d, e, f, 0, 0]),
        [a, b, c, d, e, f, g] => u64::from_le_bytes([a, b, c, d, e, f, g, 0]),
        // Never longer (the remainder of eight-byte chunks); the same number if it were.
        _ => rest
            .iter()
            .enumerate()
            .fold(0, |word, (k, &b)| word | u64::from(b) << (8 * (k % 8))),
    }
}

/// The measures from the four counts.
pub(crate) fn from_counts(n1: u32, n2: u32, big_n1: u32, big_n2: u32) -> Halstead {
    let vocabulary = f64::from(n1 + n2);
    let length = f64::from(big_n1 + big_n2);
    let volume = if vocabulary > 0.0 {
        length * log2(vocabulary)
    } else {
        0.0
    };
    let difficulty = if n2 > 0 {
        f64::from(n1) / 2.0 * f64::from(big_n2) / f64::from(n2)
    } else {
        0.0
    };
    Halstead {
        distinct_operators: n1,
        distinct_operands: n2,
        operators: big_n1,
        operands: big_n2,
        volume,
        difficulty,
        effort: difficulty * volume,
    }
}

/// log2 of a positive, finite `x`, within a few ulp, without libm.
///
/// `f64::log2` was one of the two calls that linked libm into the binary, and mapping libm
/// costs the idle HTTP server about 300 KiB of resident memory. Halstead only takes the log
/// of a vocabulary size, a positive integer, so plain arithmetic is enough: split off the
/// binary exponent exactly, bring the mantissa m into [√½, √2), and sum the series
/// ln m = 2·(s + s³/3 + s⁵/5 + …) with s = (m − 1)/(m + 1), |s| < 0.172, where 13 terms
/// leave a remainder under 1e-19. Powers of two come out exact (m = 1, s = 0).
fn log2(x: f64) -> f64 {
    debug_assert!(x > 0.0 && x.is_finite(), "log2 of {x}");
    let bits = x.to_bits();
    let mut exponent = ((bits >> 52) & 0x7ff) as i32 - 1023;
    // The mantissa with the exponent of 1.0: a value in [1, 2). (Subnormals never occur:
    // x is at least 1 here.)
    let mut m = f64::from_bits((bits & ((1u64 << 52) - 1)) | (1023u64 << 52));
    if m > std::f64::consts::SQRT_2 {
        m /= 2.0;
        exponent += 1;
    }
    let s = (m - 1.0) / (m + 1.0);
    let s2 = s * s;
    let mut term = s;
    let mut sum = 0.0;
    for k in 0..13 {
        sum += term / f64::from(2 * k + 1);
        term *= s2;
    }
    f64::from(exponent) + 2.0 * sum / std::f64::consts::LN_2
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::lang::Lang;
    use crate::analysis::lexer::lex;

    #[test]
    fn tail_word_is_the_bytes_little_endian() {
        let bytes = [0x01, 0x80, 0xff, 0x00, 0x7f, 0x20, 0xfe];
        for len in 0..=bytes.len() {
            let expected = bytes[..len]
                .iter()
                .enumerate()
                .fold(0u64, |w, (k, &b)| w | u64::from(b) << (8 * k));
            assert_eq!(tail_word(&bytes[..len]), expected, "{len} bytes");
        }
    }

    #[test]
    fn counts_a_known_expression() {
        // `a = b + a * 2;` operators = + * ; (4 total, 4 distinct); operands a b a 2.
        let tokens = lex("a = b + a * 2;", Lang::JavaScript);
        let h = measure(tokens.iter());
        assert_eq!((h.distinct_operators, h.operators), (4, 4));
        assert_eq!((h.distinct_operands, h.operands), (3, 4));
        // n = 7, N = 8: V = 8·log2 7; D = 4/2 · 4/3.
        assert!((h.volume - 8.0 * 2.807_354_922_057_604).abs() < 1e-9);
        assert!((h.difficulty - 8.0 / 3.0).abs() < 1e-9);
        assert!((h.effort - h.volume * h.difficulty).abs() < 1e-9);
    }

    #[test]
    fn log2_matches_known_values() {
        // Powers of two are exact.
        for k in 0..63 {
            assert_eq!(log2((1u64 << k) as f64), f64::from(k));
        }
        // The others to 1e-12 against their decimal expansions (computed to 30 digits with
        // mpmath, shown here rounded to f64).
        for (x, want) in [
            (3.0, 1.584_962_500_721_156_2),
            (5.0, 2.321_928_094_887_362),
            (7.0, 2.807_354_922_057_604),
            (10.0, std::f64::consts::LOG2_10),
            (1000.0, 9.965_784_284_662_087),
            (1e9, 29.897_352_853_986_261),
        ] {
            assert!((log2(x) - want).abs() < 1e-12, "log2({x}) = {}", log2(x));
        }
    }

    #[test]
    fn log2_agrees_with_std_over_every_small_count() {
        // The test binary may link libm; the server does not.
        for n in (1..=100_000u32).chain((0..32).map(|k| u32::MAX >> k)) {
            let x = f64::from(n);
            assert!((log2(x) - x.log2()).abs() < 1e-12, "log2({n})");
        }
    }

    #[test]
    fn empty_input_is_all_zero() {
        assert_eq!(measure([].iter()), Halstead::default());
    }
}
