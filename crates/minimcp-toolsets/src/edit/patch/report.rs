//! What the model reads back: for a hunk that does not apply, where in the file it most
//! likely belongs and that file's current lines there (numbered as `read_file` numbers
//! them), so the next attempt can copy them; for a patch that applies, what each section did
//! and where each hunk went.

use std::collections::HashMap;

use super::image::Failure;
use super::plan::{Kind, Miss, Section};

/// Lines of the file shown around the place a failed hunk most likely belongs.
const AROUND: usize = 3;
/// At most this many file lines are shown for a failed hunk.
const MAX_SHOWN_LINES: usize = 120;
/// Characters of one shown line (longer ones are cut, saying so).
const MAX_LINE_CHARS: usize = 300;
/// Candidate places scored per failed hunk.
const MAX_CANDIDATES: usize = 20_000;

fn trim(line: &[u8]) -> &[u8] {
    let start = line
        .iter()
        .position(|c| !c.is_ascii_whitespace())
        .unwrap_or(line.len());
    let end = line
        .iter()
        .rposition(|c| !c.is_ascii_whitespace())
        .map_or(start, |e| e + 1);
    &line[start..end]
}

/// A line for a message: without its line feed, cut when long, invisible ends made visible.
fn shown(line: &[u8]) -> String {
    let text = String::from_utf8_lossy(line);
    let body = text.strip_suffix('\n').unwrap_or(&text);
    let mut out: String = body.chars().take(MAX_LINE_CHARS).collect();
    if out.len() < body.len() {
        out.push_str(" [cut]");
    }
    if !line.ends_with(b"\n") {
        out.push_str(" [no newline at end of file]");
    }
    out
}

/// The file's lines, each with its line feed.
fn lines_of(file: &[u8]) -> Vec<&[u8]> {
    file.split_inclusive(|&c| c == b'\n').collect()
}

/// The start (0-based) of the window of the file most like `expected`, and its score.
fn nearest(file: &[&[u8]], expected: &[Vec<u8>], stated: usize) -> (usize, usize) {
    let mut exact: HashMap<&[u8], Vec<usize>> = HashMap::new();
    let mut loose: HashMap<&[u8], Vec<usize>> = HashMap::new();
    for (i, line) in file.iter().enumerate() {
        exact.entry(line).or_default().push(i);
        loose.entry(trim(line)).or_default().push(i);
    }
    let mut candidates = vec![stated.min(file.len())];
    'gather: for (k, line) in expected.iter().enumerate() {
        for i in exact
            .get(&line[..])
            .into_iter()
            .chain(loose.get(trim(line)))
            .flatten()
        {
            if let Some(start) = i.checked_sub(k) {
                candidates.push(start);
                if candidates.len() >= MAX_CANDIDATES {
                    break 'gather;
                }
            }
        }
    }
    candidates.sort_unstable();
    candidates.dedup();
    let score = |start: usize| -> usize {
        expected
            .iter()
            .enumerate()
            .filter_map(|(k, want)| file.get(start + k).map(|have| (want, have)))
            .map(|(want, have)| {
                if want[..] == have[..] {
                    2
                } else if !trim(want).is_empty() && trim(want) == trim(have) {
                    1
                } else {
                    0
                }
            })
            .sum()
    };
    candidates
        .into_iter()
        .map(|start| (start, score(start)))
        .max_by_key(|&(start, s)| (s, std::cmp::Reverse(start.abs_diff(stated))))
        .unwrap_or((0, 0))
}

/// The refusal for a hunk that did not apply.
pub(crate) fn miss(m: &Miss, budget: usize) -> String {
    let place = format!(
        "`{}`: hunk {} of {} (`{}`, patch line {})",
        m.name, m.hunk, m.hunks, m.header, m.patch_line
    );
    let (expected, at_start, at_end) = match &m.failure {
        Failure::TooMuchWork => {
            return format!("{place}: finding where it goes would take too long (the file has many identical lines); add context lines that occur only once there. Nothing was written.");
        }
        Failure::NoMatch {
            expected,
            at_start,
            at_end,
            ..
        } => (expected, *at_start, *at_end),
    };
    let file = lines_of(&m.file);
    let stated = usize::try_from(m.old_pos.saturating_sub(1))
        .unwrap_or(usize::MAX)
        .min(file.len());
    let mut text = format!("{place} does not apply: its context and removed lines must be in the file exactly (bytes, indentation and line ends), at its line or at any other (offsets are fine), never approximately");
    if at_start {
        text.push_str(", and since its old start is 0 or 1 it must match at the file's first line");
    }
    if at_end {
        text.push_str(", and since it has no context line after its last change it must match at the file's last line");
    }
    text.push('.');
    let (start, score) = if expected.is_empty() {
        (if at_start { 0 } else { file.len() }, 0)
    } else {
        nearest(&file, expected, stated)
    };
    if file.is_empty() {
        text.push_str(" The file is empty.");
    } else if score == 0 {
        text.push_str(&format!(
            " None of its {} context and removed lines is in the file.",
            expected.len()
        ));
    } else {
        let differing = expected
            .iter()
            .enumerate()
            .find(|(k, want)| file.get(start + k).is_none_or(|have| want[..] != have[..]));
        match differing {
            Some((k, want)) => {
                let have = file.get(start + k);
                let how = match have {
                    Some(have) if trim(want) == trim(have) => " (they differ only in whitespace or the line end)",
                    _ => "",
                };
                text.push_str(&format!(
                    " Nearest place: the file's line {}, where the hunk's line {} `{}` {}{how}.",
                    start + 1,
                    k + 1,
                    shown(want),
                    match have {
                        Some(have) => format!("differs from line {}: `{}`", start + k + 1, shown(have)),
                        None => "is past the end of the file".to_string(),
                    }
                ));
            }
            None if at_start && start != 0 => text.push_str(&format!(" Its lines are at line {}, not at the start.", start + 1)),
            None if at_end => text.push_str(&format!(" Its lines are at line {}, not at the end: add the lines that follow them as trailing context.", start + 1)),
            None => text.push_str(&format!(" Its lines are at line {}, but another hunk of this patch already changed some of them.", start + 1)),
        }
    }
    let from = start.saturating_sub(AROUND);
    let to = (start + expected.len() + AROUND)
        .min(file.len())
        .min(from + MAX_SHOWN_LINES);
    if from < to {
        let mut block = String::new();
        for (i, line) in file[from..to].iter().enumerate() {
            let next = format!("{:>6}\t{}\n", from + i + 1, shown(line));
            if text.len() + block.len() + next.len() > budget {
                block.push_str("[cut here: the result budget is reached]\n");
                break;
            }
            block.push_str(&next);
        }
        text.push_str(&format!(
            " The file's lines {}-{} now:\n```\n{block}```\n",
            from + 1,
            to
        ));
    } else {
        text.push(' ');
    }
    text.push_str("Nothing was written. Send the patch again with this hunk's context and removed lines copied from the file's current lines (read_file shows more), or change the file with edit_file.");
    text
}

/// A section in a line: `modified `x` (+3 -1; hunk 2 at line 40, 3 lines below)`.
pub(crate) fn section_line(s: &Section) -> String {
    let name = |n: &Option<String>| format!("`{}`", n.as_deref().unwrap_or(""));
    let what = match s.kind {
        Kind::Modified => format!("modified {}", name(&s.new)),
        Kind::Created => format!("created {}", name(&s.new)),
        Kind::Deleted => format!("deleted {}", name(&s.old)),
        Kind::Renamed => format!("renamed {} to {}", name(&s.old), name(&s.new)),
        Kind::Copied => format!("copied {} to {}", name(&s.old), name(&s.new)),
    };
    let mut notes = Vec::new();
    if s.added + s.removed > 0 {
        notes.push(format!("+{} -{}", s.added, s.removed));
    }
    for (i, p) in s.placed.iter().enumerate() {
        if p.offset != 0 {
            let (n, way) = (
                p.offset.unsigned_abs(),
                if p.offset > 0 { "below" } else { "above" },
            );
            notes.push(format!(
                "hunk {} at line {}, {n} line{} {way} its header's",
                i + 1,
                p.line,
                if n == 1 { "" } else { "s" }
            ));
        }
    }
    if notes.is_empty() {
        what
    } else {
        format!("{what} ({})", notes.join("; "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_nearest_place_is_found_and_whitespace_differences_named() {
        let file = b"def a():\n    return 1\n\ndef b():\n    x = 2\n    return x\n".to_vec();
        let m = Miss {
            name: "m.py".into(),
            hunk: 1,
            hunks: 1,
            header: "@@ -9,3 +9,3 @@".into(),
            patch_line: 3,
            file,
            failure: Failure::NoMatch {
                expected: vec![
                    b"def b():\n".to_vec(),
                    b"\tx = 2\n".to_vec(),
                    b"    return x\n".to_vec(),
                ],
                at_start: false,
                at_end: true,
            },
            old_pos: 9,
        };
        let text = miss(&m, 10_000);
        assert!(text.contains("Nearest place: the file's line 4, where the hunk's line 2 `\tx = 2` differs from line 5: `    x = 2` (they differ only in whitespace"), "{text}");
        assert!(text.contains("     4\tdef b():\n"), "{text}");
        assert!(
            text.contains("must match at the file's last line"),
            "{text}"
        );
    }
}
