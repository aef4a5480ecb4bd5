//! Applying `edit_file`'s replacements to a file's text, all or none, each against the text
//! the edits before it left. A wrong file is the one outcome never allowed: where the
//! model's text does not decide what it means, the edit is refused with what to send.
//!
//! 1. `old_text` occurring exactly once is replaced by `new_text` as written, unless the
//!    text leaves open what it means (refused, with the line to copy):
//!    - it begins after a line's indentation and `new_text` has more lines than it, or
//!      begins with another line: do they take the file's indentation or keep theirs?
//!    - it ends before the whitespace ending a line, and `new_text` changes that line:
//!      does the whitespace stay?
//!    - it ends with a line break and `new_text` does not (or the reverse), at a line's
//!      end: is the next line joined, a blank line added?
//!    - with whitespace ignored it also matches other lines (a copy whose whitespace was
//!      changed may mean one of those).
//!
//!    Whole lines deleted from after the first one's indentation take that indentation
//!    along; in a file mixing line breaks, lines added to a CRLF line end with CRLF.
//! 2. Occurring several times: refused with the count and the first lines.
//! 3. Not occurring: line numbers copied from `read_file`'s output are taken away when
//!    every line of `old_text` has one (`numbered.rs`), then the whitespace-tolerant
//!    fallback (`fallback.rs`) matches whole lines and writes `new_text` in the file's
//!    indentation and line breaks, or refuses with the file's lines to copy.
//!
//! A file whose line breaks are all CRLF is matched with LF breaks and written back with
//! CRLF, so `old_text` written with `\n` still matches and the file keeps its style.
//! Everything is linear in the file's size per edit (at most 100 edits), and checks for
//! cancellation as it goes.

use super::fallback::{self, model_lines, rewrite};
use super::indent::spell;
use super::loose::{self, find_near, Lines, Squashed};
use super::numbered;
use super::work::{listed, Stop, Tick, LISTED};

/// One replacement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Edit {
    pub(crate) old: String,
    pub(crate) new: String,
}

/// Where one edit applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Matched {
    /// The 1-based line where it matched.
    pub(crate) line: usize,
    /// Whether it matched only with whitespace ignored.
    pub(crate) loose: bool,
    /// What had to be adjusted (the fallback's change, line numbers left out).
    pub(crate) note: Option<String>,
}

/// The edited text, and what happened to each edit.
#[derive(Debug)]
pub(crate) struct Applied {
    pub(crate) text: String,
    pub(crate) matches: Vec<Matched>,
}

/// Applies `edits` to `original`. `budget` bounds the file lines a refusal shows.
pub(crate) fn apply(
    original: &str,
    edits: &[Edit],
    budget: usize,
    tick: &mut Tick<'_>,
) -> Result<Applied, Stop> {
    let crlf = original.contains("\r\n") && !original.replace("\r\n", "").contains('\n');
    let mut text = if crlf {
        original.replace("\r\n", "\n")
    } else {
        original.to_string()
    };
    let mut matches = Vec::new();
    for (n, edit) in edits.iter().enumerate() {
        tick.check()?;
        let which = if edits.len() > 1 {
            format!("edit {} of {}", n + 1, edits.len())
        } else {
            "the edit".to_string()
        };
        let (old, new) = if crlf {
            (
                edit.old.replace("\r\n", "\n"),
                edit.new.replace("\r\n", "\n"),
            )
        } else {
            (edit.old.clone(), edit.new.clone())
        };
        if old.is_empty() {
            return Err(Stop::Refused(format!("{which}: `old_text` is empty. To add text, include a neighbouring line in `old_text` and repeat it in `new_text`; to create a file, use write_file.")));
        }
        let (start, end, with, matched) = one(&text, &old, &new, &which, budget, tick)?;
        text.replace_range(start..end, &with);
        matches.push(matched);
    }
    if crlf {
        text = text.replace('\n', "\r\n");
    }
    Ok(Applied { text, matches })
}

/// One edit: the bytes of `text` it replaces, with what, and where it matched.
fn one(
    text: &str,
    old: &str,
    new: &str,
    which: &str,
    budget: usize,
    tick: &mut Tick<'_>,
) -> Result<(usize, usize, String, Matched), Stop> {
    if let Some(at) = exact(text, old, which, tick)? {
        let (start, with, note) = checked(text, at, old, new, which, budget, tick)?;
        let matched = Matched {
            line: line_of(text, at),
            loose: false,
            note,
        };
        return Ok((start, at + old.len(), with, matched));
    }
    let (old, new) = (old.replace("\r\n", "\n"), new.replace("\r\n", "\n"));
    let (old, new, numbers) = match numbered::strip(&old, &new) {
        Ok(Some((old, new))) => (old, new, true),
        Ok(None) => (old, new, false),
        Err(why) => return Err(Stop::Refused(format!("{which}: {why}"))),
    };
    let dropped = "the line numbers copied from read_file were left out";
    if numbers {
        if let Some(at) = exact(text, &old, which, tick)? {
            // read_file's numbered lines show no `\r`: in a file mixing CRLF and LF, new lines
            // after a last line without a break have nothing to take theirs from.
            let mixed = text.contains("\r\n") && text.replace("\r\n", "").contains('\n');
            let last = !text[at + old.len()..].contains('\n');
            if mixed && last && !old.contains('\n') && new.contains('\n') {
                return Err(Stop::Refused(format!(
                    "{which}: the file mixes CRLF and LF line breaks, and `old_text` matched line {}, its last line, which has none: it is unclear which break the lines `new_text` adds end with. Nothing was changed. Send `new_text` with the breaks the file should have (`\\r\\n` or `\\n`), without read_file's line numbers.",
                    line_of(text, at)
                )));
            }
            let (start, with, note) = checked(text, at, &old, &new, which, budget, tick)?;
            let matched = Matched {
                line: line_of(text, at),
                loose: false,
                note: Some(note.map_or(dropped.to_string(), |n| format!("{dropped}; {n}"))),
            };
            return Ok((start, at + old.len(), with, matched));
        }
    }
    let done = rewrite(text, &old, &new, which, budget, tick)?;
    let note = match numbers {
        true => format!("{dropped}; it {}", done.note),
        false => done.note,
    };
    let matched = Matched {
        line: done.line,
        loose: true,
        note: Some(note),
    };
    Ok((done.start, done.end, done.with, matched))
}

/// Where `old` occurs in `text` when it occurs exactly once; several times is refused with
/// the count and the first lines.
fn exact(text: &str, old: &str, which: &str, tick: &mut Tick<'_>) -> Result<Option<usize>, Stop> {
    let (mut count, mut first_at) = (0, None);
    // The distinct lines (0-based) of the matches, the first [`LISTED`] of them kept.
    let (mut lines, mut more, mut line, mut counted) = (Vec::new(), false, 0, 0);
    let mut note_line = |line: usize, lines: &mut Vec<usize>| {
        if lines.last() != Some(&line) {
            match lines.len() < LISTED {
                true => lines.push(line),
                false => more = true,
            }
        }
    };
    for (at, _) in text.match_indices(old) {
        count += 1;
        first_at.get_or_insert(at);
        line += text.as_bytes()[counted..at]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        counted = at;
        note_line(line, &mut lines);
        tick.steps(old.len().max(64))?;
    }
    let Some(at) = first_at else {
        return Ok(None);
    };
    // The search skips occurrences overlapping one it found: after the only one, another
    // can start only within it (`x\nx\n` in `x\nx\nx\n`).
    if count == 1 {
        let from = at + text[at..].chars().next().map_or(1, char::len_utf8);
        let mut end = text.len().min(at + 2 * old.len());
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        let Some(next) = text.get(from..end).and_then(|w| w.find(old)) else {
            return Ok(Some(at));
        };
        count = 2;
        note_line(line_of(text, from + next) - 1, &mut lines);
    }
    let shown: Vec<String> = lines.iter().map(|l| (l + 1).to_string()).collect();
    Err(Stop::Refused(format!(
        "{which}: `old_text` occurs {count} times, at line{} {}{}; it must occur exactly once. Add to `old_text` (and `new_text`) a neighbouring line that tells the one you mean apart.",
        if shown.len() == 1 { "" } else { "s" },
        shown.join(", "),
        if more { format!(", … ({count} in all)") } else { String::new() }
    )))
}

/// The note of a deletion that began after the first line's indentation.
const WHOLE_LINES: &str = "`old_text` began after its first line's indentation and `new_text` is empty: the whole lines were removed, indentation included";

/// The checks of a unique exact match at `at`: refused when the text does not decide.
/// Returns where the replaced bytes start (`at`, or the start of its line when `old_text`
/// deletes whole lines but began after the first one's indentation), what replaces them
/// (`new_text`, its line breaks made CRLF when a file mixing both matched CRLF lines and
/// the model wrote none), and a note of either adjustment.
fn checked(
    text: &str,
    at: usize,
    old: &str,
    new: &str,
    which: &str,
    budget: usize,
    tick: &mut Tick<'_>,
) -> Result<(usize, String, Option<String>), Stop> {
    let line_start = loose::line_start(text, at);
    let lead = &text[line_start..at];
    // Lines (0-based) are counted only for a refusal's message.
    let first = || line_of(text, at) - 1;
    let (old_lines, _) = model_lines(old);
    let (new_lines, _) = model_lines(new);
    let after_indentation = !lead.is_empty() && lead.bytes().all(|b| b == b' ' || b == b'\t');
    let end = at + old.len();
    let after = &text[end..];
    let rest = &after[..after.find('\n').unwrap_or(after.len())];
    let rest = rest.strip_suffix('\r').unwrap_or(rest);
    let last = || line_of(text, end.min(text.len().saturating_sub(1))) - 1;
    let count = |lines: &[&str], line: &str| {
        let content = line.trim_start_matches([' ', '\t']);
        lines
            .iter()
            .filter(|l| l.trim_start_matches([' ', '\t']) == content)
            .count()
    };
    // The same line, not a copy `new_text` adds (maybe indented otherwise): a line like it
    // occurs as often in both.
    let same_line = |a: Option<&&str>, b: Option<&&str>| {
        a.is_some_and(|a| b == Some(a) && count(&old_lines, a) == count(&new_lines, a))
    };
    let indent_advice = "Start `old_text` at the beginning of the line, with its indentation, and give every line of `new_text` the indentation it should have in the file.";
    let at_line_end = old.ends_with('\n') || rest.is_empty();
    let unclear = if at_line_end && !new.is_empty() && old.ends_with('\n') != new.ends_with('\n') {
        let why = match old.ends_with('\n') {
            true => "`old_text` ends with a line break where `new_text` does not: it is unclear whether the next line is to be joined to the last new line. End both with a line break (to join lines, include both in `old_text`).",
            false => "`new_text` ends with a line break where `old_text`, which ends at the end of a line, does not: it is unclear whether a blank line is to be added. Send both ending alike, with a line break or without.",
        };
        Some((why.to_string(), last()))
    } else if !old.ends_with('\n')
        && !rest.is_empty()
        && rest.trim().is_empty()
        && !same_line(old_lines.last(), new_lines.last())
    {
        Some((format!("`old_text` ends before the whitespace that ends line {} ({}), and `new_text` changes that line: it is unclear whether the whitespace stays. Include it in `old_text`, and in `new_text` if the line should keep it.", last() + 1, spell(rest)), last()))
    } else if after_indentation
        && old_lines.first().is_some_and(|l| l.is_empty())
        && new_lines.first().is_some_and(|l| !l.is_empty())
    {
        Some((format!("`old_text` starts with a line break, matched at the end of line {}, which holds only whitespace ({}): it is unclear whether `new_text`'s first line follows that whitespace. {indent_advice}", first() + 1, spell(lead)), first()))
    } else if after_indentation
        && old_lines.iter().skip(1).all(|l| l.trim().is_empty())
        && new_lines.iter().skip(1).any(|l| !l.trim().is_empty())
    {
        Some((format!("`old_text` matches line {} after its indentation ({}), and `new_text` has more lines: it is unclear whether they are indented as in the file or relative to `old_text`. {indent_advice}", first() + 1, spell(lead)), first()))
    } else if after_indentation
        && !same_line(old_lines.first(), new_lines.first())
        && (old_lines.first().is_some_and(|l| new_lines.contains(l))
            || new_lines
                .first()
                .is_some_and(|l| l.trim().is_empty() || old_lines[1..].contains(l)))
    {
        Some((format!("`old_text` matches line {} after its indentation ({}), and `new_text` does not begin with that line or one replacing it: it is unclear which of `new_text`'s lines takes that indentation. {indent_advice}", first() + 1, spell(lead)), first()))
    } else {
        None
    };
    if let Some((why, shown)) = unclear {
        return Err(Stop::Refused(format!(
            "{which}: {why} Nothing was changed.\n{}",
            fallback::verbatim(&Lines::new(text), shown, 1, budget)
        )));
    }
    let want = Squashed::new(old_lines.iter().copied(), tick)?;
    let (start, mut note) = match after_indentation && new.is_empty() && old.ends_with('\n') {
        true => (line_start, Some(WHOLE_LINES.to_string())),
        false => (at, None),
    };
    let mut with = new.to_string();
    // In a file mixing line breaks, the breaks of a one-line `old_text`'s line decide the
    // new ones (a longer one matched its own LF breaks).
    if !old.contains('\n')
        && new.contains('\n')
        && !new.contains('\r')
        && rest.len() < after.len()
        && after[rest.len()..].starts_with("\r\n")
        && text.contains("\r\n")
    {
        with = new.replace('\n', "\r\n");
        if with != new {
            note = Some("the file mixes line breaks; the lines `new_text` adds end with CRLF, as the line it matched does".to_string());
        }
    }
    if (0..want.len()).all(|k| want.get(k).is_empty()) {
        return Ok((start, with, note));
    }
    // Only a run starting on the exact match's own line is that match (one shifted by a
    // line is another place).
    let (count, firsts) = find_near(text, &want, LISTED, tick)?;
    if count <= 1 && firsts.iter().all(|&s| s == line_start) {
        return Ok((start, with, note));
    }
    let lines: Vec<usize> = firsts.iter().map(|&s| line_of(text, s) - 1).collect();
    Err(Stop::Refused(format!(
        "{which}: `old_text` occurs exactly once, at line {}, but with whitespace ignored it matches {count} places, at lines {}: if it was copied with its whitespace changed, it may mean another of them. Nothing was changed. Add to `old_text` (and `new_text`) a neighbouring line that tells the one you mean apart.",
        first() + 1,
        listed(count, &lines)
    )))
}

/// The 1-based line of byte `at`.
fn line_of(text: &str, at: usize) -> usize {
    text.as_bytes()[..at]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

#[cfg(test)]
#[path = "matching_tests.rs"]
mod tests;
