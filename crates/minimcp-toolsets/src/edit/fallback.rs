//! `edit_file`'s whitespace-tolerant fallback, when `old_text` does not occur exactly: it
//! must match one run of whole lines with whitespace ignored (`loose.rs`), and then
//! `new_text` is written in the file's whitespace or the edit is refused:
//! - lines `new_text` keeps from `old_text` are written as the file has them;
//! - lines it adds get the indentation change that maps `old_text` onto the file
//!   (`indent.rs`), and the line break the matched lines use;
//! - refused, with the file's lines to copy, whenever that is not decided by the model's
//!   text: no consistent indentation change or several, a line that differs from the
//!   file in more than indentation where it is unclear which new line it is (is its
//!   whitespace to be kept?), equal lines the file spells differently (in whitespace or
//!   line break) of which the edit keeps some, blank lines added among blank lines
//!   holding whitespace, a blank line at the file's end deleted whose whitespace the
//!   model did not show, mixed line breaks, final line breaks that disagree.

use std::collections::HashMap;

use super::diff::{script, Op};
use super::indent::{self, indentation, reindent, Added, Pair, Refusal};
use super::loose::{find_near, near, Lines, Squashed};
use super::work::{listed, Stop, Tick, LISTED};

/// One replacement the fallback decided: bytes `start..end` of the text become `with`.
pub(crate) struct Rewrite {
    pub(crate) start: usize,
    pub(crate) end: usize,
    pub(crate) with: String,
    /// The first matched line (1-based).
    pub(crate) line: usize,
    /// What the fallback changed, for the result's note.
    pub(crate) note: String,
}

/// A text a model wrote, as lines (`\r\n` read as `\n`), and whether it ends with a line
/// break. The empty text has no lines.
pub(crate) fn model_lines(text: &str) -> (Vec<&str>, bool) {
    if text.is_empty() {
        return (Vec::new(), false);
    }
    let mut lines: Vec<&str> = text
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect();
    let ends = text.ends_with('\n');
    if ends {
        lines.pop();
    }
    (lines, ends)
}

/// The fallback for one edit of `text`; the message says why it was refused.
pub(crate) fn rewrite(
    text: &str,
    old: &str,
    new: &str,
    which: &str,
    budget: usize,
    tick: &mut Tick<'_>,
) -> Result<Rewrite, Stop> {
    let lines = Lines::new(text);
    let (old_lines, old_ends) = model_lines(old);
    let (new_lines, new_ends) = model_lines(new);
    let want = Squashed::new(old_lines.iter().copied(), tick)?;
    let blank = (0..want.len()).all(|k| want.get(k).is_empty());
    let (count, firsts) = if blank {
        (0, Vec::new())
    } else {
        let (count, starts) = find_near(text, &want, LISTED, tick)?;
        (
            count,
            starts.into_iter().map(|s| lines.line_at(s)).collect(),
        )
    };
    let at = match count {
        0 => {
            return refused(format!(
                "{which}: `old_text` was not found, not even with whitespace ignored. {} Nothing was changed; read the file again and copy `old_text` exactly.",
                if blank {
                    "It holds only whitespace.".to_string()
                } else {
                    let have = Squashed::new((0..lines.len()).map(|i| lines.content(i)), tick)?;
                    near(&have, &want, tick)?
                }
            ))
        }
        1 => firsts[0],
        _ => {
            return refused(format!(
                "{which}: `old_text` was not found exactly, and with whitespace ignored it matches {count} places, at lines {}. Copy it exactly, with more of the surrounding lines, so it matches once.",
                listed(count, &firsts)
            ))
        }
    };
    let m = old_lines.len();
    let file = |k: usize| lines.content(at + k);
    let region = Region {
        lines: &lines,
        at,
        m,
        budget,
    };
    let refuse = |why: String| -> Result<Rewrite, Stop> {
        refused(format!(
            "{which}: `old_text` matches line{} only with whitespace ignored, and {why} Nothing was changed. Copy `old_text` exactly from the file's lines below, and write `new_text` as those lines should end up.\n{}",
            region.named(),
            region.verbatim()
        ))
    };
    if old_ends && lines.ending(at + m - 1).is_empty() {
        return refuse(
            "the file's last line has no line break, where `old_text` ends with one: send `old_text` without it (and `new_text` too, unless the file should end with one)."
                .into(),
        );
    }
    if !new_lines.is_empty() && old_ends != new_ends {
        return refuse(match old_ends {
            true => "`old_text` ends with a line break where `new_text` does not: it is unclear whether the line after them is to be joined to the last new line.",
            false => "`new_text` ends with a line break where `old_text` does not: it is unclear whether a blank line is to be added.",
        }.into());
    }
    let ops = script(&old_lines, &new_lines);
    // Per old line, whether `new_text` keeps it; the added lines, by index in `new_text`.
    let mut kept = vec![false; m];
    let mut added = Vec::new();
    let (mut k, mut j) = (0, 0);
    for op in &ops {
        match op {
            Op::Same => {
                kept[k] = true;
                (k, j) = (k + 1, j + 1);
            }
            Op::Removed => k += 1,
            Op::Added => {
                added.push(j);
                j += 1;
            }
        }
    }
    // A line the file spells differently from `old_text` (beyond indentation): where the
    // edit keeps it, the file's spelling is written, which is only sure for a line in the
    // unchanged head or tail that no added line repeats; where the edit replaces it, the
    // new lines may or may not be meant to keep that whitespace.
    let lossy = |k: usize| match old_lines[k].trim().is_empty() {
        true => old_lines[k] != file(k),
        false => after_indentation(old_lines[k]) != after_indentation(file(k)),
    };
    let n = new_lines.len();
    let head = (0..m.min(n))
        .take_while(|&k| old_lines[k] == new_lines[k])
        .count();
    let tail = (0..m.min(n) - head)
        .take_while(|&t| old_lines[m - 1 - t] == new_lines[n - 1 - t])
        .count();
    if !added.is_empty() {
        for k in (0..m).filter(|&k| lossy(k)) {
            let context = k < head || k >= m - tail;
            // An added line like it (maybe indented otherwise) could be the one kept.
            let repeated = added
                .iter()
                .any(|&j| after_indentation(new_lines[j]) == after_indentation(old_lines[k]));
            let why = match (kept[k], context && !repeated) {
                (true, true) => continue,
                (false, _) => "the edit replaces it",
                (true, false) => "it is unclear which line of `new_text` is that line",
            };
            return refuse(format!(
                "the file's line {} differs from `old_text` in more than indentation (whitespace inside or at the end of the line), and {why}: it is unclear which lines keep that whitespace.",
                at + k + 1
            ));
        }
    }
    // At the file's end, a line holding only whitespace that `old_text` sent without it and
    // the edit deletes, with every line after it: `new_text` may have lost that whitespace as
    // its own unterminated last line (the file then ending in it, without a break), which
    // reads the same once the whitespace is gone.
    if old_ends && at + m == lines.len() && (new_ends || new_lines.is_empty()) {
        let after_kept = kept.iter().rposition(|&k| k).map_or(0, |k| k + 1);
        let lost = (after_kept..m).find(|&k| {
            old_lines[k].trim().is_empty() && !file(k).is_empty() && file(k) != old_lines[k]
        });
        if let Some(k) = lost {
            return refuse(format!(
                "the file's line {} holds only whitespace, which `old_text` does not show, and the edit deletes it with the lines after it: it is unclear whether the file is to end with that whitespace. Send that line's whitespace exactly.",
                at + k + 1
            ));
        }
    }
    // What an added blank line holds is unclear when the file's blank lines here hold
    // whitespace (else it is written as sent: whitespace nobody sees is no indentation).
    let blank_held = (0..m).find(|&k| !file(k).is_empty() && file(k).trim().is_empty());
    if let Some(k) = blank_held.filter(|_| added.iter().any(|&j| new_lines[j].trim().is_empty())) {
        return refuse(format!(
            "the file's blank line {} holds whitespace, so it is unclear what the blank lines `new_text` adds should hold.",
            at + k + 1
        ));
    }
    // Equal lines of `old_text` the file spells differently (in whitespace, or in the line
    // break a kept line keeps): unless the edit keeps them all, which ones it keeps matters.
    // The last line's break is not replaced when `old_text` ends without one.
    let ending = |k: usize| (k + 1 < m || old_ends).then(|| lines.ending(at + k));
    let spelled_apart = |a: usize, b: usize| {
        file(a) != file(b) || matches!((ending(a), ending(b)), (Some(x), Some(y)) if x != y)
    };
    let mut groups: HashMap<&str, (usize, Option<usize>, bool)> = HashMap::new();
    for k in 0..m {
        let group = groups.entry(old_lines[k]).or_insert((k, None, true));
        if spelled_apart(group.0, k) {
            group.1.get_or_insert(k);
        }
        group.2 &= kept[k];
        tick.step()?;
    }
    let unclear = groups
        .values()
        .filter(|g| !g.2 && g.1.is_some())
        .min_by_key(|g| g.0);
    if let Some(&(a, Some(b), _)) = unclear {
        return refuse(format!(
            "its lines {} and {} are the same where the file's lines {} and {} differ in whitespace or line break: it is unclear which of them the edit keeps.",
            a + 1, b + 1, at + a + 1, at + b + 1
        ));
    }
    let pairs: Vec<Pair<'_>> = (0..m)
        .filter(|&k| !old_lines[k].trim().is_empty())
        .map(|k| Pair {
            index: k,
            model: indentation(old_lines[k]),
            file: indentation(file(k)),
        })
        .collect();
    let placing: Vec<Added<'_>> = added
        .iter()
        .filter(|&&j| !new_lines[j].trim().is_empty())
        .map(|&j| Added {
            index: j,
            model: indentation(new_lines[j]),
        })
        .collect();
    // One line of `old_text` shows how its own indentation maps onto the file's, not
    // whether the model's other levels move with it or stay as written: a line `new_text`
    // adds at another level is refused, not guessed.
    if let [only] = pairs.as_slice() {
        if let Some(line) = placing.iter().find(|a| a.model != only.model) {
            return refuse(format!(
                "`new_text`'s line {} is indented unlike `old_text`'s one line ({}): one line does not show whether the lines around it move with it.",
                line.index + 1,
                indent::spell(only.model)
            ));
        }
    }
    let file_style = indent::style((0..lines.len()).map(|i| lines.content(i)));
    let model_style = indent::style(old_lines.iter().chain(&new_lines).copied());
    let file_doubt = indent::width_doubt((0..lines.len()).map(|i| lines.content(i)), file_style);
    let (indents, how) = match reindent(&pairs, &placing, file_style, model_style, file_doubt) {
        Ok(done) => done,
        Err(Refusal::Inconsistent) => {
            return refuse("its indentation does not map onto the file's by one consistent change, so `new_text` cannot be indented from it.".into())
        }
        Err(Refusal::Ambiguous(a, b, j)) => {
            let said = |s: &str| if s.is_empty() { "as written".to_string() } else { format!("as if {s}") };
            return refuse(format!(
                "`new_text`'s line {} could be indented two ways ({}, or {}): the text does not say which.",
                j + 1, said(&a), said(&b)
            ));
        }
        Err(Refusal::Unplaceable(j, why)) => {
            return refuse(format!("`new_text`'s line {} cannot be indented like the file: {why}.", j + 1))
        }
    };
    let break_of = region.line_break();
    let mut out: Vec<(String, &str)> = Vec::with_capacity(new_lines.len());
    let mut indents = indents.into_iter();
    let (mut k, mut j) = (0, 0);
    for op in &ops {
        match op {
            Op::Same => {
                let own = lines.ending(at + k);
                out.push((
                    file(k).to_string(),
                    if own.is_empty() {
                        break_of.unwrap_or("\n")
                    } else {
                        own
                    },
                ));
                (k, j) = (k + 1, j + 1);
            }
            Op::Removed => k += 1,
            Op::Added => {
                let line = new_lines[j];
                let made = if line.trim().is_empty() {
                    line.to_string()
                } else {
                    indents.next().unwrap_or_default() + &line[indentation(line).len()..]
                };
                let Some(ending) = break_of else {
                    return refuse("its lines end some with CRLF and some with LF, so the line break of the lines `new_text` adds is unclear.".into());
                };
                out.push((made, ending));
                j += 1;
            }
        }
    }
    let mut with = String::new();
    let last = out.len().saturating_sub(1);
    for (n, (line, ending)) in out.iter().enumerate() {
        with.push_str(line);
        if n < last || new_ends {
            with.push_str(ending);
        }
    }
    let end = if old_ends {
        lines.start(at + m)
    } else {
        lines.content_end(at + m - 1)
    };
    let note = match how.is_empty() {
        true => format!("matched line{} only with whitespace ignored; the lines it keeps are written as the file has them", region.named()),
        false => format!("matched line{} only with whitespace ignored: {how}, and `new_text` was indented the same way", region.named()),
    };
    Ok(Rewrite {
        start: lines.start(at),
        end,
        with,
        line: at + 1,
        note,
    })
}

/// A line without its indentation.
fn after_indentation(line: &str) -> &str {
    &line[indentation(line).len()..]
}

fn refused<T>(message: String) -> Result<T, Stop> {
    Err(Stop::Refused(message))
}

/// The matched lines of the file.
struct Region<'a, 'b> {
    lines: &'b Lines<'a>,
    at: usize,
    m: usize,
    budget: usize,
}

impl Region<'_, '_> {
    /// `s 3-5` or ` 3` (after "line").
    fn named(&self) -> String {
        match self.m {
            1 => format!(" {}", self.at + 1),
            m => format!("s {}-{}", self.at + 1, self.at + m),
        }
    }

    /// The line break the matched lines share, `None` when they mix two; without any,
    /// the line before's, else `\n`.
    fn line_break(&self) -> Option<&str> {
        let mut seen: Option<&str> = None;
        for i in self.at..self.at + self.m {
            let ending = self.lines.ending(i);
            if ending.is_empty() {
                continue;
            }
            match seen {
                Some(s) if s != ending => return None,
                _ => seen = Some(ending),
            }
        }
        Some(seen.unwrap_or_else(|| {
            match self.at {
                0 => "\n",
                at => Some(self.lines.ending(at - 1))
                    .filter(|e| !e.is_empty())
                    .unwrap_or("\n"),
            }
        }))
    }

    /// The matched lines verbatim in a fence, cut to the budget.
    fn verbatim(&self) -> String {
        verbatim(self.lines, self.at, self.m, self.budget)
    }
}

/// Lines `at..at + m` of the file verbatim in a fence (longer than any run of backticks
/// in them), as many as fit in `budget` bytes, and where the rest is.
pub(crate) fn verbatim(lines: &Lines<'_>, at: usize, m: usize, budget: usize) -> String {
    let texts: Vec<&str> = (at..at + m).map(|i| lines.content(i)).collect();
    let ticks = texts.iter().map(|t| longest_run(t, '`')).max().unwrap_or(0);
    let fence = "`".repeat((ticks + 1).max(3));
    let mut body = String::new();
    let mut shown = 0;
    let room = budget.saturating_sub(400).max(200);
    let mut cut = false;
    for text in &texts {
        if body.len() + text.len() + 1 > room {
            if shown == 0 {
                // One line longer than the room: its start, said to be cut.
                let mut end = room;
                while !text.is_char_boundary(end) {
                    end -= 1;
                }
                body.push_str(&text[..end]);
                body.push('\n');
                cut = true;
            }
            break;
        }
        body.push_str(text);
        body.push('\n');
        shown += 1;
    }
    let mut out = format!(
        "The file's line{} exactly (without the fence):\n{fence}\n{body}{fence}",
        if m == 1 {
            format!(" {}", at + 1)
        } else {
            format!("s {}-{}", at + 1, at + m)
        }
    );
    if cut {
        out.push_str(&format!(
            "\n(line {} is longer than fits here and was cut; read_file shows it whole)",
            at + 1
        ));
    } else if shown < m {
        out.push_str(&format!(
            "\n(only lines {}-{} fit here; read_file with offset {} gives the rest)",
            at + 1,
            at + shown,
            at + shown + 1
        ));
    }
    out
}

fn longest_run(text: &str, c: char) -> usize {
    let (mut best, mut run) = (0, 0);
    for ch in text.chars() {
        run = if ch == c { run + 1 } else { 0 };
        best = best.max(run);
    }
    best
}
