//! Finding `old_text`'s lines in a file with whitespace ignored: each line compared with
//! its ends trimmed and inner runs of whitespace made one space. Linear in the file: the
//! squashed lines are numbered (equal lines, equal numbers) and searched for with
//! Knuth–Morris–Pratt, so many near-identical lines cost no more than a few.

use std::collections::HashMap;

use super::work::{Stop, Tick};

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

    /// The line (0-based) holding byte `at`.
    pub(crate) fn line_at(&self, at: usize) -> usize {
        self.spans
            .partition_point(|s| s.2 <= at)
            .min(self.len().saturating_sub(1))
    }
}

/// Candidate lines past which [`find_near`] gives up guessing and searches every line.
const MAX_CANDIDATES: usize = 256;

/// The byte where the line holding byte `at` starts.
pub(crate) fn line_start(text: &str, at: usize) -> usize {
    text[..at].rfind('\n').map_or(0, |p| p + 1)
}

/// What [`find`] answers, as the byte where each run starts, for a text not split into
/// lines: the lines holding the longest word of `want`'s first non-blank line are tried,
/// and only when there are many of them is every line squashed. Most texts are rare, so a
/// search costs a substring search of the file, not a pass over its lines.
pub(crate) fn find_near(
    text: &str,
    want: &Squashed,
    keep: usize,
    tick: &mut Tick<'_>,
) -> Result<(usize, Vec<usize>), Stop> {
    let m = want.len();
    let Some(k0) = (0..m).find(|&k| !want.get(k).is_empty()) else {
        return Ok((0, Vec::new()));
    };
    let word = want
        .get(k0)
        .split(' ')
        .max_by_key(|w| w.len())
        .unwrap_or_default();
    let (mut count, mut firsts, mut candidates) = (0, Vec::new(), 0);
    let mut previous = usize::MAX;
    for (at, _) in text.match_indices(word) {
        let line = line_start(text, at);
        if line == previous {
            continue;
        }
        previous = line;
        candidates += 1;
        if candidates > MAX_CANDIDATES {
            let lines = Lines::new(text);
            let have = Squashed::new((0..lines.len()).map(|i| lines.content(i)), tick)?;
            let (count, firsts) = find(&have, want, keep, tick)?;
            return Ok((count, firsts.into_iter().map(|i| lines.start(i)).collect()));
        }
        tick.step()?;
        // Back to the run's first line, then its lines compared in turn.
        let mut start = Some(line);
        for _ in 0..k0 {
            start = start
                .and_then(|s| s.checked_sub(1))
                .map(|s| line_start(text, s));
        }
        let Some(start) = start else { continue };
        let mut next = start;
        let fits = (0..m).all(|k| {
            if next >= text.len() {
                return false;
            }
            let end = text[next..].find('\n').map_or(text.len(), |e| next + e);
            let content = &text[next..end];
            next = end + 1;
            same_squashed(content.strip_suffix('\r').unwrap_or(content), want.get(k))
        });
        if fits {
            count += 1;
            if firsts.len() < keep {
                firsts.push(start);
            }
        }
    }
    Ok((count, firsts))
}

/// True when `line` squashed is `squashed`, without making it.
fn same_squashed(line: &str, squashed: &str) -> bool {
    match squashed.is_empty() {
        true => line.trim().is_empty(),
        false => line.split_whitespace().eq(squashed.split(' ')),
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
        // The same answers from the word search, and from its fallback past many candidates.
        let text = "a  b\n x\nx\nx \ny";
        let near =
            |want: &str| find_near(text, &squashed(want), 5, &mut Tick::never()).expect("ok");
        assert_eq!(near("x\nx"), (2, vec![5, 8]), "bytes where the runs start");
        assert_eq!(near("x \ny"), (1, vec![10]));
        assert_eq!(near("\nx\ny"), (0, vec![]));
        assert_eq!(near("y"), (1, vec![13]));
        assert_eq!(near("y\nz"), (0, vec![]), "no line after the last");
        assert_eq!(near("a b"), (1, vec![0]));
        let many = "x\n".repeat(1000);
        let got = find_near(&many, &squashed("x\nx"), 3, &mut Tick::never());
        assert_eq!(got.expect("ok"), (999, vec![0, 2, 4]));
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
