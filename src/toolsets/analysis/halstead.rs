//! Halstead measures from operator and operand counts. Operators are the operator and
//! punctuation tokens (a bracket pair counts once, at its opening bracket) and the
//! keywords; operands are names, numbers and literals. With n1/n2 distinct and N1/N2 total
//! operators/operands: vocabulary n = n1 + n2, length N = N1 + N2, volume V = N·log2(n),
//! difficulty D = (n1/2)·(N2/n2), effort E = D·V.

use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};

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

/// Counts the tokens `keep` selects.
pub(crate) fn measure<'s>(tokens: impl IntoIterator<Item = &'s Token<'s>>) -> Halstead {
    // Sized up front: growing a set rehashes it, and that was a third of its cost.
    let tokens = tokens.into_iter();
    let room = tokens.size_hint().0 / 2;
    let mut operators: Distinct<'_> = HashSet::with_capacity_and_hasher(room, Default::default());
    let mut operands: Distinct<'_> = HashSet::with_capacity_and_hasher(room, Default::default());
    let (mut n_operators, mut n_operands) = (0u32, 0u32);
    for t in tokens {
        match t.kind {
            Kind::Op if matches!(t.text, ")" | "]" | "}") => {}
            Kind::Op | Kind::Keyword => {
                n_operators += 1;
                operators.insert(t.text);
            }
            Kind::Ident | Kind::Number | Kind::Str => {
                n_operands += 1;
                operands.insert(t.text);
            }
        }
    }
    from_counts(
        operators.len() as u32,
        operands.len() as u32,
        n_operators,
        n_operands,
    )
}

/// A set of token texts hashed with FNV-1a: short keys from our own lexer, where SipHash's
/// resistance to chosen collisions buys nothing (a set is per function, bounded by its
/// tokens) and costs most of the time.
type Distinct<'s> = HashSet<&'s str, BuildHasherDefault<Fnv>>;

/// FNV-1a, 64 bits.
struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
}

/// The measures from the four counts.
pub(crate) fn from_counts(n1: u32, n2: u32, big_n1: u32, big_n2: u32) -> Halstead {
    let vocabulary = f64::from(n1 + n2);
    let length = f64::from(big_n1 + big_n2);
    let volume = if vocabulary > 0.0 {
        length * vocabulary.log2()
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::toolsets::analysis::lang::Lang;
    use crate::toolsets::analysis::lexer::lex;

    #[test]
    fn counts_a_known_expression() {
        // `a = b + a * 2;` operators = + * ; (4 total, 4 distinct); operands a b a 2.
        let tokens = lex("a = b + a * 2;", Lang::JavaScript);
        let h = measure(tokens.iter());
        assert_eq!((h.distinct_operators, h.operators), (4, 4));
        assert_eq!((h.distinct_operands, h.operands), (3, 4));
        // n = 7, N = 8: V = 8·log2 7; D = 4/2 · 4/3.
        assert!((h.volume - 8.0 * 7f64.log2()).abs() < 1e-9);
        assert!((h.difficulty - 8.0 / 3.0).abs() < 1e-9);
        assert!((h.effort - h.volume * h.difficulty).abs() < 1e-9);
    }

    #[test]
    fn empty_input_is_all_zero() {
        assert_eq!(measure([].iter()), Halstead::default());
    }
}
