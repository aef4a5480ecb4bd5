//! The `edit_file` call a model would make for one hunk, and the ways models get it wrong.
//!
//! `exact` is the hunk as it is: `old_text` is its kept and removed lines as the file holds
//! them, `new_text` its kept and added lines (both without the last line break when both
//! have it, as a model writes them). Every other variant changes what the model sends, never
//! what it means: the intended file is still the one git has after the change.

use super::hunks::Op;

/// One way of writing the call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Variant {
    /// The hunk as it is.
    Exact,
    /// The indentation every line shares is left out (the block copied out of its class).
    IndentDropped,
    /// One more level of indentation on every line (the file's unit: a tab, or its spaces).
    IndentMore,
    /// One level less on every line (when every line has one).
    IndentLess,
    /// Tabs written as spaces (4 each), or the file's space indentation written as tabs.
    TabsSpaces,
    /// Blanks at the ends of lines left out (of the lines the model copied from the file).
    TrailingLost,
    /// `\r\n` written as `\n` (files with CRLF lines only).
    CrlfLost,
    /// Only the changed lines (an insertion: one neighbouring line), often not unique.
    MinimalContext,
    /// `old_text` copied from `read_file`'s numbered output, numbers and tabs included.
    LineNumbers,
}

/// Every variant, in the order of the report.
pub(crate) const ALL: [Variant; 9] = [
    Variant::Exact,
    Variant::IndentDropped,
    Variant::IndentMore,
    Variant::IndentLess,
    Variant::TabsSpaces,
    Variant::TrailingLost,
    Variant::CrlfLost,
    Variant::MinimalContext,
    Variant::LineNumbers,
];

impl Variant {
    /// The name in reports.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Variant::Exact => "exact",
            Variant::IndentDropped => "indentation dropped",
            Variant::IndentMore => "indented one level more",
            Variant::IndentLess => "indented one level less",
            Variant::TabsSpaces => "tabs and spaces swapped",
            Variant::TrailingLost => "trailing whitespace lost",
            Variant::CrlfLost => "CRLF lost",
            Variant::MinimalContext => "minimal context",
            Variant::LineNumbers => "read_file line numbers",
        }
    }
}

/// A hunk where it stands now in the file being edited.
pub(crate) struct Site<'a> {
    /// The hunk's lines in the before-file and the after-file, with their line breaks.
    pub(crate) old: &'a [&'a str],
    pub(crate) new: &'a [&'a str],
    pub(crate) ops: &'a [Op],
    /// The 1-based line of `old[0]` in the file as it is now.
    pub(crate) line: usize,
    /// The file as it is now.
    pub(crate) text: &'a str,
}

/// The call for one hunk in one variant.
#[derive(Debug, Clone)]
pub(crate) struct Call {
    pub(crate) old: String,
    pub(crate) new: String,
    /// The lines of the file `old` stands for (1-based, inclusive): where a helpful refusal
    /// points.
    pub(crate) region: (usize, usize),
}

/// A line split into its text and its break (`"\r\n"`, `"\n"` or none).
fn split(line: &str) -> (&str, &str) {
    if let Some(body) = line.strip_suffix("\r\n") {
        (body, "\r\n")
    } else if let Some(body) = line.strip_suffix('\n') {
        (body, "\n")
    } else {
        (line, "")
    }
}

/// The leading blanks of a line.
fn indent(body: &str) -> &str {
    &body[..body.len() - body.trim_start_matches([' ', '\t']).len()]
}

/// Lines joined as a model sends them: the last line break dropped when both texts end
/// with the same one (and `old` keeps something).
fn finish(old: &[String], new: &[String]) -> (String, String) {
    let (mut old, mut new) = (old.concat(), new.concat());
    let end = |text: &str| match text {
        t if t.ends_with("\r\n") => "\r\n",
        t if t.ends_with('\n') => "\n",
        _ => "",
    };
    let cut = end(&old);
    if !cut.is_empty() && end(&new) == cut && old.len() > cut.len() {
        old.truncate(old.len() - cut.len());
        new.truncate(new.len() - cut.len());
    }
    (old, new)
}

/// Each line rewritten by `f(body) -> body`, its break kept.
fn map(lines: &[&str], f: impl Fn(&str) -> String) -> Vec<String> {
    lines
        .iter()
        .map(|line| {
            let (body, end) = split(line);
            f(body) + end
        })
        .collect()
}

/// The longest indentation every non-blank line of both sides starts with.
fn common_indent<'a>(old: &[&'a str], new: &[&'a str]) -> &'a str {
    let mut common: Option<&str> = None;
    for line in old.iter().chain(new) {
        let body = split(line).0;
        if body.trim().is_empty() {
            continue;
        }
        let this = indent(body);
        common = Some(match common {
            None => this,
            Some(c) => {
                let n = c
                    .bytes()
                    .zip(this.bytes())
                    .take_while(|(a, b)| a == b)
                    .count();
                &c[..n]
            }
        });
    }
    common.unwrap_or("")
}

/// The file's indentation unit: a tab when the hunk indents with tabs, else the smallest
/// space indentation of the file (2 to 8; 4 when there is none).
fn unit(site: &Site<'_>) -> String {
    if site.old.iter().any(|l| indent(split(l).0).contains('\t')) {
        return "\t".into();
    }
    let smallest = site
        .text
        .lines()
        .map(|l| l.len() - l.trim_start_matches(' ').len())
        .filter(|n| *n > 0)
        .min()
        .unwrap_or(4);
    " ".repeat(smallest.clamp(2, 8))
}

/// The call for `site` in `variant`; `None` when the variant would send the same `old_text`
/// as `exact`, or cannot be made for this hunk (it is then not counted for the variant).
pub(crate) fn call(variant: Variant, site: &Site<'_>) -> Option<Call> {
    let region = (site.line, site.line + site.old.len() - 1);
    let keep = |l: &&str| l.to_string();
    let (old, new): (Vec<String>, Vec<String>) = match variant {
        Variant::Exact => (
            site.old.iter().map(keep).collect(),
            site.new.iter().map(keep).collect(),
        ),
        Variant::IndentDropped | Variant::IndentLess => {
            let common = common_indent(site.old, site.new);
            let cut = match variant {
                Variant::IndentDropped => common.to_string(),
                _ if common.starts_with('\t') => "\t".into(),
                _ => {
                    let unit = unit(site);
                    if !common.starts_with(&unit) {
                        return None;
                    }
                    unit
                }
            };
            if cut.is_empty() {
                return None;
            }
            let strip = |body: &str| match body.strip_prefix(cut.as_str()) {
                Some(rest) => rest.to_string(),
                None => body.trim_start_matches([' ', '\t']).to_string(),
            };
            (map(site.old, strip), map(site.new, strip))
        }
        Variant::IndentMore => {
            let unit = unit(site);
            let add = |body: &str| match body.trim().is_empty() {
                true => body.to_string(),
                false => format!("{unit}{body}"),
            };
            (map(site.old, add), map(site.new, add))
        }
        Variant::TabsSpaces => {
            let unit = unit(site);
            let width = if unit == "\t" { 4 } else { unit.len() };
            let swap = |body: &str| {
                let lead = indent(body);
                let swapped = if lead.contains('\t') {
                    lead.replace('\t', &" ".repeat(4))
                } else {
                    let tabs = lead.len() / width;
                    "\t".repeat(tabs) + &" ".repeat(lead.len() - tabs * width)
                };
                swapped + &body[lead.len()..]
            };
            (map(site.old, swap), map(site.new, swap))
        }
        Variant::TrailingLost => {
            let trim = |body: &str| body.trim_end_matches([' ', '\t']).to_string();
            // A removed line with trailing blanks may be removed for them: without them the
            // call cannot say whether its added twin keeps the line or changes it.
            let removed = site
                .ops
                .iter()
                .filter(|o| **o != Op::Add)
                .zip(site.old.iter());
            if removed
                .filter(|(o, _)| **o == Op::Remove)
                .any(|(_, l)| split(l).0 != trim(split(l).0))
            {
                return None;
            }
            // Kept lines lose their blanks as `old_text` does; added lines are the model's
            // own text, and git's file is what it meant to write.
            let kept = site
                .ops
                .iter()
                .filter(|o| **o != Op::Remove)
                .map(|o| *o == Op::Context);
            let new = site
                .new
                .iter()
                .zip(kept)
                .map(|(line, kept)| match kept {
                    true => map(&[line], trim).remove(0),
                    false => line.to_string(),
                })
                .collect();
            (map(site.old, trim), new)
        }
        Variant::CrlfLost => {
            if !site.old.iter().any(|l| l.ends_with("\r\n")) {
                return None;
            }
            let lf = |l: &&str| match l.strip_suffix("\r\n") {
                Some(body) => format!("{body}\n"),
                None => l.to_string(),
            };
            (
                site.old.iter().map(lf).collect(),
                site.new.iter().map(lf).collect(),
            )
        }
        Variant::MinimalContext => return minimal(site),
        Variant::LineNumbers => {
            let total = site.text.lines().count();
            let width = total.to_string().len().max(4);
            let numbered = site
                .old
                .iter()
                .enumerate()
                .map(|(i, l)| format!("{:>width$}\t{l}", site.line + i))
                .collect();
            (numbered, site.new.iter().map(keep).collect())
        }
    };
    let (old, new) = finish(&old, &new);
    if variant != Variant::Exact {
        let exact = finish(
            &site.old.iter().map(keep).collect::<Vec<_>>(),
            &site.new.iter().map(keep).collect::<Vec<_>>(),
        );
        // A variant that garbles only `new_text` asks for other content at the right place:
        // no server can tell, so it is no test of matching.
        if old == exact.0 {
            return None;
        }
    }
    // A variant that loses the change itself (only blanks or line breaks changed) cannot be
    // sent: the model would be asking for nothing.
    if old == new {
        return None;
    }
    Some(Call { old, new, region })
}

/// Only the lines from the first change to the last; for a pure insertion, the line
/// before it (or after it, at the top of a hunk) as the anchor.
fn minimal(site: &Site<'_>) -> Option<Call> {
    let first = site.ops.iter().position(|o| *o != Op::Context)?;
    let last = site.ops.iter().rposition(|o| *o != Op::Context)?;
    if first == 0 && last == site.ops.len() - 1 {
        return None;
    }
    let (mut oi, mut ni) = (0, 0);
    let (mut old, mut new) = (Vec::new(), Vec::new());
    let mut old_from = None;
    for (k, op) in site.ops.iter().enumerate() {
        if k == first {
            old_from = Some(oi);
        }
        let inside = (first..=last).contains(&k);
        if *op != Op::Add {
            if inside {
                old.push(site.old[oi].to_string());
            }
            oi += 1;
        }
        if *op != Op::Remove {
            if inside {
                new.push(site.new[ni].to_string());
            }
            ni += 1;
        }
    }
    let mut from = old_from?;
    if old.is_empty() {
        // An insertion: anchor on a kept neighbour, as a model would.
        if from > 0 {
            from -= 1;
            old.insert(0, site.old[from].to_string());
            new.insert(0, site.old[from].to_string());
        } else {
            old.push(site.old.get(from)?.to_string());
            new.push(site.old[from].to_string());
        }
    }
    let region = (site.line + from, site.line + from + old.len() - 1);
    let (old, new) = finish(&old, &new);
    (old != new).then_some(Call { old, new, region })
}

/// Checks of the variants on a small hunk (the benchmark's own oracle must be right).
pub(crate) fn self_test() {
    let text = "class A:\r\n    def f(self):  \r\n        return 1\r\n\r\n";
    let old = [
        "class A:\r\n",
        "    def f(self):  \r\n",
        "        return 1\r\n",
        "\r\n",
    ];
    let new = [
        "class A:\r\n",
        "    def f(self):  \r\n",
        "        return 2\r\n",
        "\r\n",
    ];
    let ops = [Op::Context, Op::Context, Op::Remove, Op::Add, Op::Context];
    let site = Site {
        old: &old,
        new: &new,
        ops: &ops,
        line: 1,
        text,
    };
    let sent = |v| call(v, &site).map(|c| (c.old, c.new, c.region));
    let exact = sent(Variant::Exact).expect("exact");
    assert_eq!(
        exact.0,
        "class A:\r\n    def f(self):  \r\n        return 1\r\n"
    );
    assert_eq!(exact.2, (1, 4));
    assert!(sent(Variant::IndentDropped).is_none(), "nothing shared");
    let more = sent(Variant::IndentMore).expect("more");
    assert!(
        more.0.starts_with("    class A:\r\n        def f"),
        "{more:?}"
    );
    let swapped = sent(Variant::TabsSpaces).expect("tabs");
    assert!(swapped.1.contains("\n\t\treturn 2\r"), "{swapped:?}");
    let trailing = sent(Variant::TrailingLost).expect("trailing");
    assert!(trailing.0.contains("def f(self):\r\n") && trailing.1.contains("def f(self):\r\n"));
    let lf = sent(Variant::CrlfLost).expect("crlf");
    assert!(!lf.0.contains('\r') && !lf.1.contains('\r'), "{lf:?}");
    assert_eq!(
        sent(Variant::MinimalContext).expect("minimal"),
        ("        return 1".into(), "        return 2".into(), (3, 3))
    );
    let numbered = sent(Variant::LineNumbers).expect("numbers");
    assert!(
        numbered.0.starts_with("   1\tclass A:\r\n   2\t    def f"),
        "{numbered:?}"
    );
    // An insertion after a blank CRLF line: the anchor keeps its whole line break.
    let old = ["x\r\n", "\r\n"];
    let new = ["x\r\n", "\r\n", "y\r\n"];
    let ops = [Op::Context, Op::Context, Op::Add];
    let site = Site {
        old: &old,
        new: &new,
        ops: &ops,
        line: 5,
        text: "x\r\n\r\n",
    };
    let minimal = call(Variant::MinimalContext, &site).expect("minimal");
    assert_eq!(
        (minimal.old.as_str(), minimal.new.as_str(), minimal.region),
        ("\r\n", "\r\ny\r\n", (6, 6))
    );
}
