//! Finding `old_text`'s lines in a file with whitespace ignored: each line compared with
//! its ends trimmed and inner runs of whitespace made one space. Linear in the file: the
//! squashed lines are numbered (equal lines, equal numbers) and searched for with
//! Knuth–Morris–Pratt, so many near-identical lines cost no more than a few.

use std::collections::HashMap;

use super::matching::{Stop, Tick};

/// A text's lines: where each starts, where its content ends (before `\r\n` or `\n`) and
/// where the next starts.
pub(crate) struct Lines<'a> {
    pub(crate) text: &'a str,
    spans: Vec<(usize, usize, usize)>,
}

impl<'a> Lines<'a> {
    pub(crate) fn new(text: &'a str) -> Lines<'a> {
        let mut spans = Vec::new();
        let mut at = 0;
        for line in text.split_inclusive('\n') {
            let end = at + line.len();
            let content = line
                .strip_suffix('\n')
                .map_or(line, |l| l.strip_suffix('\r').unwrap_or(l));
            spans.push((at, at + content.len(), end));
            at = end;
        }
        Lines { text, spans }
    }

    pub(crate) fn len(&self) -> usize {
        self.spans.len()
    }

    /// Line `i` (0-based) without its line break.
    pub(crate) fn content(&self, i: usize) -> &'a str {
        let (start, end, _) = self.spans[i];
        &self.text[start..end]
    }

    /// Line `i`'s line break: `\n`, `\r\n`, or empty for a last line without one.
    pub(crate) fn ending(&self, i: usize) -> &'a str {
        let (_, end, next) = self.spans[i];
        &self.text[end..next]
    }

    /// The byte where line `i` starts (`i == len()`: the end of the text).
    pub(crate) fn start(&self, i: usize) -> usize {
        self.spans.get(i).map_or(self.text.len(), |s| s.0)
    }

    /// The byte where line `i`'s content ends.
    pub(crate) fn content_end(&self, i: usize) -> usize {
        self.spans[i].1
    }
}

/// Lines with whitespace squashed, kept in one buffer.
pub(crate) struct Squashed {
    buf: String,
    ends: Vec<usize>,
}

impl Squashed {
    pub(crate) fn new<'a>(
        lines: impl Iterator<Item = &'a str>,
        tick: &mut Tick<'_>,
    ) -> Result<Squashed, Stop> {
        let mut out = Squashed {
            buf: String::new(),
            ends: Vec::new(),
        };
        for line in lines {
            for (k, word) in line.split_whitespace().enumerate() {
                if k > 0 {
                    out.buf.push(' ');
                }
                out.buf.push_str(word);
            }
            out.ends.push(out.buf.len());
            tick.step()?;
        }
        Ok(out)
    }

    pub(crate) fn len(&self) -> usize {
        self.ends.len()
    }

    pub(crate) fn get(&self, i: usize) -> &str {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.buf[start..self.ends[i]]
    }
}

/// Where `want` occurs as a run of lines in `have`: how many times (overlapping runs
/// count), and the first lines (0-based) of the first `keep` of them.
pub(crate) fn find(
    have: &Squashed,
    want: &Squashed,
    keep: usize,
    tick: &mut Tick<'_>,
) -> Result<(usize, Vec<usize>), Stop> {
    let m = want.len();
    if m == 0 || m > have.len() {
        return Ok((0, Vec::new()));
    }
    let mut ids: HashMap<&str, u32> = HashMap::new();
    let mut pattern = Vec::with_capacity(m);
    for k in 0..m {
        let next = ids.len() as u32;
        pattern.push(*ids.entry(want.get(k)).or_insert(next));
    }
    // The file's lines, numbered; a line `want` lacks can never be part of a match.
    let absent = u32::MAX;
    let mut hay = Vec::with_capacity(have.len());
    for i in 0..have.len() {
        hay.push(ids.get(have.get(i)).copied().unwrap_or(absent));
        tick.step()?;
    }
    // Knuth–Morris–Pratt: fail[k] is the length of the longest proper border of
    // pattern[..=k].
    let mut fail = vec![0usize; m];
    let mut k = 0;
    for q in 1..m {
        while k > 0 && pattern[q] != pattern[k] {
            k = fail[k - 1];
        }
        if pattern[q] == pattern[k] {
            k += 1;
        }
        fail[q] = k;
    }
    let (mut count, mut firsts, mut k) = (0, Vec::new(), 0);
    for (i, &id) in hay.iter().enumerate() {
        while k > 0 && id != pattern[k] {
            k = fail[k - 1];
        }
        if id == pattern[k] {
            k += 1;
        }
        if k == m {
            count += 1;
            if firsts.len() < keep {
                firsts.push(i + 1 - m);
            }
            k = fail[k - 1];
        }
        tick.step()?;
    }
    Ok((count, firsts))
}

/// Character pairs a near-match search may compare before it reports the best so far.
const MAX_NEAR_WORK: usize = 20_000_000;

/// The closest window of `have` to `want` (the one sharing the most adjacent character
/// pairs, line by line), described for the model.
pub(crate) fn near(have: &Squashed, want: &Squashed, tick: &mut Tick<'_>) -> Result<String, Stop> {
    if have.len() == 0 || want.len() == 0 {
        return Ok("The file is empty.".into());
    }
    let m = want.len().min(have.len());
    let want_pairs: Vec<Vec<(char, char)>> = (0..m).map(|k| pairs(want.get(k))).collect();
    let mut have_pairs: Vec<Vec<(char, char)>> = Vec::with_capacity(have.len());
    let mut best = (0.0f64, 0usize);
    let mut spent = 0;
    let mut complete = true;
    for i in 0..=have.len() - m {
        // Each line's pairs are made once, when the window first reaches it.
        while have_pairs.len() < i + m {
            have_pairs.push(pairs(have.get(have_pairs.len())));
        }
        let work: usize = (0..m)
            .map(|k| have_pairs[i + k].len() + want_pairs[k].len() + 1)
            .sum();
        spent += work;
        if spent > MAX_NEAR_WORK && i > 0 {
            complete = false;
            break;
        }
        let score: f64 = (0..m)
            .map(|k| dice(&have_pairs[i + k], &want_pairs[k]))
            .sum::<f64>()
            / m as f64;
        if score > best.0 {
            best = (score, i);
        }
        tick.steps(work)?;
    }
    let (score, i) = best;
    if score < 0.3 {
        return Ok("Nothing in the file comes close to it.".into());
    }
    let differs = (0..m)
        .find(|&k| have.get(i + k) != want.get(k))
        .unwrap_or(0);
    let cut = |s: &str| s.chars().take(200).collect::<String>();
    Ok(format!(
        "The closest text is at line {}{} ({}% alike); its line {} reads `{}` where `old_text` has `{}`.{}",
        i + 1,
        if m > 1 { format!("-{}", i + m) } else { String::new() },
        (score * 100.0).round() as u32,
        i + differs + 1,
        cut(have.get(i + differs)),
        cut(want.get(differs)),
        if complete { "" } else { " (only the start of the file was compared: it is large)" }
    ))
}

/// A line's adjacent character pairs, sorted.
fn pairs(line: &str) -> Vec<(char, char)> {
    let chars: Vec<char> = line.chars().collect();
    let mut out: Vec<(char, char)> = chars.windows(2).map(|w| (w[0], w[1])).collect();
    out.sort_unstable();
    out
}

/// The Sørensen–Dice coefficient of two sorted pair lists (1 for two equal lines).
fn dice(a: &[(char, char)], b: &[(char, char)]) -> f64 {
    if a.is_empty() && b.is_empty() {
        return 1.0;
    }
    let (mut i, mut j, mut common) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                common += 1;
                i += 1;
                j += 1;
            }
        }
    }
    2.0 * common as f64 / (a.len() + b.len()) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn squashed(text: &str) -> Squashed {
        Squashed::new(text.split('\n'), &mut Tick::never()).expect("not cancelled")
    }

    #[test]
    fn runs_are_found_whitespace_ignored_overlapping_counted() {
        let have = squashed("a  b\n x\nx\nx \ny");
        assert_eq!(have.get(0), "a b");
        let (count, firsts) = find(&have, &squashed("x\nx"), 5, &mut Tick::never()).expect("ok");
        assert_eq!((count, firsts), (2, vec![1, 2]));
        let (count, firsts) = find(&have, &squashed("x\ny"), 1, &mut Tick::never()).expect("ok");
        assert_eq!((count, firsts), (1, vec![3]));
        let none = find(&have, &squashed("q"), 5, &mut Tick::never()).expect("ok");
        assert_eq!(none, (0, vec![]));
    }

    #[test]
    fn lines_know_their_endings() {
        let lines = Lines::new("a\r\nb\nc");
        assert_eq!(lines.len(), 3);
        assert_eq!(
            (
                lines.content(0),
                lines.ending(0),
                lines.ending(1),
                lines.ending(2)
            ),
            ("a", "\r\n", "\n", "")
        );
        assert_eq!(
            (lines.start(1), lines.content_end(1), lines.start(3)),
            (3, 4, 6)
        );
    }
}
