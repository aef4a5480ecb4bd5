//! The seeded PRNG the fuzzers draw from (splitmix64): small, fast, and the same sequence
//! everywhere for a seed, so a printed seed replays a failure exactly. No dependency: the
//! project allows none for tests either.

/// splitmix64 over its state.
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0).
    pub(crate) fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// True one time in `n`.
    pub(crate) fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }

    pub(crate) fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// A number from the environment variable `name`, `None` when unset or empty; `random`
/// gives a fresh seed (from the clock and the process id), which the caller prints so that a
/// failure replays with it.
pub(crate) fn env_number(name: &str) -> Option<u64> {
    let text = std::env::var(name).ok().filter(|v| !v.is_empty())?;
    if text == "random" {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        return Some(nanos ^ u64::from(std::process::id()).rotate_left(32));
    }
    Some(
        text.parse()
            .unwrap_or_else(|_| panic!("{name}={text:?}: a number (or `random` for the seed)")),
    )
}
