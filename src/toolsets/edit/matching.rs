//! Applying `edit_file`'s replacements to a file's text, all or none.
//!
//! Each edit, in order, against the text as the edits before it left it:
//! 1. `old_text` must occur exactly once. Several occurrences are refused with the line of
//!    each (add surrounding lines to pick one).
//! 2. Only when it does not occur at all: lines are compared with whitespace ignored at
//!    their ends and runs of it inside counted as one space; exactly one such match is
//!    replaced, and the result says so (with its line).
//! 3. No match either way is refused, naming the closest near-match (the window of as many
//!    lines that shares the most character pairs with `old_text`) and its first differing
//!    line.
//!
//! A file whose line breaks are all CRLF is matched with LF breaks and written back with
//! CRLF, so `old_text` written with `\n` still matches and the file keeps its style.

/// One replacement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Edit {
    pub(crate) old: String,
    pub(crate) new: String,
}

/// The edited text, and what happened to each edit.
#[derive(Debug)]
pub(crate) struct Applied {
    pub(crate) text: String,
    /// Per edit: the 1-based line where it matched, and whether only whitespace-tolerantly.
    pub(crate) matches: Vec<(usize, bool)>,
}

/// Compared line pairs a near-match search may spend (then it reports the best so far).
const MAX_NEAR_PAIRS: usize = 2_000_000;

/// Applies `edits` to `original`; the message says which edit failed and why.
pub(crate) fn apply(original: &str, edits: &[Edit]) -> Result<Applied, String> {
    let crlf = original.contains("\r\n") && !original.replace("\r\n", "").contains('\n');
    let mut text = if crlf {
        original.replace("\r\n", "\n")
    } else {
        original.to_string()
    };
    let mut matches = Vec::new();
    for (n, edit) in edits.iter().enumerate() {
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
            return Err(format!("{which}: `old_text` is empty. To add text, include a neighbouring line in `old_text` and repeat it in `new_text`; to create a file, use write_file."));
        }
        let found: Vec<usize> = text.match_indices(&old).map(|(at, _)| at).collect();
        match found.as_slice() {
            [at] => {
                matches.push((line_of(&text, *at), false));
                text.replace_range(*at..*at + old.len(), &new);
            }
            [] => {
                let (start, end, line) = loose(&text, &old, &which)?;
                // The matched span ends before its last line break: so does `old_text`'s.
                let new = match old.ends_with('\n') {
                    true => new.strip_suffix('\n').unwrap_or(&new),
                    false => &new,
                };
                matches.push((line, true));
                text.replace_range(start..end, new);
            }
            several => {
                let lines: Vec<String> = several
                    .iter()
                    .map(|at| line_of(&text, *at).to_string())
                    .collect();
                return Err(format!("{which}: `old_text` occurs {} times, at lines {}; it must occur exactly once. Include more of the surrounding lines in `old_text` to pick one.", several.len(), lines.join(", ")));
            }
        }
    }
    if crlf {
        text = text.replace('\n', "\r\n");
    }
    Ok(Applied { text, matches })
}

/// The 1-based line of byte `at`.
fn line_of(text: &str, at: usize) -> usize {
    text.as_bytes()[..at]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// A line with its ends trimmed and inner whitespace runs made one space.
fn squash(line: &str) -> String {
    line.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The whitespace-tolerant match: the byte span (from the start of its first line to the end
/// of its last, without the line break) and the first line, when exactly one exists.
fn loose(text: &str, old: &str, which: &str) -> Result<(usize, usize, usize), String> {
    let want: Vec<String> = old.lines().map(squash).collect();
    let mut spans = Vec::new();
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        spans.push((at, at + line.trim_end_matches('\n').len()));
        at += line.len();
    }
    let have: Vec<String> = text.lines().map(squash).collect();
    let m = want.len();
    let found: Vec<usize> = if m == 0 || want.iter().all(String::is_empty) || m > have.len() {
        Vec::new()
    } else {
        (0..=have.len() - m)
            .filter(|&i| have[i..i + m] == want[..])
            .collect()
    };
    match found.as_slice() {
        [i] => Ok((spans[*i].0, spans[i + m - 1].1, i + 1)),
        [] => Err(format!(
            "{which}: `old_text` was not found, not even with whitespace ignored. {} Nothing was changed; read the file again and copy `old_text` exactly.",
            near(&have, &want)
        )),
        several => Err(format!(
            "{which}: `old_text` was not found exactly, and ignoring whitespace it matches {} places, at lines {}. Copy it exactly, with more surrounding lines, so it matches once.",
            several.len(),
            several.iter().map(|i| (i + 1).to_string()).collect::<Vec<_>>().join(", ")
        )),
    }
}

/// The closest window of `have` (squashed lines) to `want`, described for the model.
fn near(have: &[String], want: &[String]) -> String {
    if have.is_empty() || want.is_empty() {
        return "The file is empty.".into();
    }
    let m = want.len().min(have.len());
    let want_pairs: Vec<Vec<(char, char)>> = want.iter().map(|l| pairs(l)).collect();
    let have_pairs: Vec<Vec<(char, char)>> = have.iter().map(|l| pairs(l)).collect();
    let mut best = (0.0f64, 0usize);
    let mut spent = 0;
    let mut complete = true;
    for i in 0..=have.len() - m {
        if spent > MAX_NEAR_PAIRS {
            complete = false;
            break;
        }
        spent += m;
        let score: f64 = (0..m)
            .map(|k| dice(&have_pairs[i + k], &want_pairs[k]))
            .sum::<f64>()
            / m as f64;
        if score > best.0 {
            best = (score, i);
        }
    }
    let (score, i) = best;
    if score < 0.3 {
        return "Nothing in the file comes close to it.".into();
    }
    let differs = (0..m).find(|&k| have[i + k] != want[k]).unwrap_or(0);
    let cut = |s: &str| s.chars().take(200).collect::<String>();
    format!(
        "The closest text is at line {}{} ({}% alike); its line {} reads `{}` where `old_text` has `{}`.{}",
        i + 1,
        if m > 1 { format!("-{}", i + m) } else { String::new() },
        (score * 100.0).round() as u32,
        i + differs + 1,
        cut(&have[i + differs]),
        cut(&want[differs]),
        if complete { "" } else { " (only the start of the file was compared: it is large)" }
    )
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

    fn edit(old: &str, new: &str) -> Edit {
        Edit {
            old: old.into(),
            new: new.into(),
        }
    }

    #[test]
    fn an_exact_match_is_replaced_and_edits_see_the_ones_before() {
        let out = apply(
            "fn a() {}\nfn b() {}\n",
            &[
                edit("fn a", "fn alpha"),
                edit("alpha() {}", "alpha() { 1 }"),
            ],
        )
        .expect("applies");
        assert_eq!(out.text, "fn alpha() { 1 }\nfn b() {}\n");
        assert_eq!(out.matches, vec![(1, false), (1, false)]);
    }

    #[test]
    fn several_matches_are_refused_with_every_line() {
        let err = apply("x = 1\ny = 2\nx = 1\n\nx = 1\n", &[edit("x = 1", "x = 2")])
            .expect_err("ambiguous");
        assert!(err.contains("occurs 3 times, at lines 1, 3, 5"), "{err}");
    }

    #[test]
    fn all_or_nothing_names_the_failing_edit() {
        let err = apply("a\nb\n", &[edit("a", "A"), edit("zzz", "Z")]).expect_err("second fails");
        assert!(err.starts_with("edit 2 of 2:"), "{err}");
    }

    #[test]
    fn whitespace_is_tolerated_only_when_the_exact_match_fails() {
        let text = "fn main() {\n    let x  = 1;\n    run(x);\n}\n";
        let out = apply(
            text,
            &[edit(
                "let x = 1;\nrun(x);\n",
                "    let x = 2;\n    run(x);\n",
            )],
        )
        .expect("loose match");
        assert_eq!(out.text, "fn main() {\n    let x = 2;\n    run(x);\n}\n");
        assert_eq!(out.matches, vec![(2, true)]);
        let err = apply("a b\na  b\n", &[edit("a   b", "c")]).expect_err("two loose matches");
        assert!(err.contains("matches 2 places, at lines 1, 2"), "{err}");
    }

    #[test]
    fn no_match_names_the_closest_text() {
        let text = "alpha\nbeta\nfn compute_total(items: &[u32]) -> u32 {\ngamma\n";
        let err = apply(
            text,
            &[edit("fn compute_totals(items: &[u64]) -> u64 {", "x")],
        )
        .expect_err("no match");
        assert!(err.contains("closest text is at line 3"), "{err}");
        assert!(
            err.contains("fn compute_total(items: &[u32]) -> u32 {"),
            "{err}"
        );
        let err = apply(text, &[edit("qqqqqqqq", "x")]).expect_err("nothing close");
        assert!(err.contains("Nothing in the file comes close"), "{err}");
        assert!(apply(text, &[edit("", "x")]).is_err_and(|e| e.contains("empty")));
    }

    #[test]
    fn crlf_files_match_lf_text_and_stay_crlf() {
        let out = apply("one\r\ntwo\r\nthree\r\n", &[edit("two\nthree", "2\n3")]).expect("matches");
        assert_eq!(out.text, "one\r\n2\r\n3\r\n");
    }
}
