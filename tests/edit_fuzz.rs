//! `edit_file` against the ways a model gets text wrong, through the real binary.
//!
//! Each case generates a file (Python, YAML, a Makefile, Markdown lists, Go, C-like code in
//! 2 or 4 spaces; some with CRLF or mixed line breaks, no final line break, trailing or
//! inner runs of whitespace, whitespace-only blank lines, blocks repeated at another
//! depth), picks a run of lines and makes a real change there (a line changed, lines
//! inserted or deleted, lines wrapped one level deeper under a new header), written in the
//! file's own indentation and line breaks. The file the change should give is built by
//! construction: the lines before, the changed lines, the lines after. The oracle shares
//! nothing with the server: it never matches text, it only compares bytes.
//!
//! The change is then sent as a model might: exactly; with its indentation dropped,
//! deepened or converted between tabs and spaces; with trailing whitespace, inner runs or
//! CRLF lost; with `read_file`'s line numbers; with only the changed lines (too little
//! context, maybe not unique); with the first line's indentation left out; and two of
//! these at once. Every call must end with the file byte-equal to the intended one, or
//! refused with a message that says what to send and the file untouched. As a check that
//! the server does not simply refuse, a text occurring once (the test's own naive count)
//! and nowhere else with whitespace ignored must be applied when sent exactly.
//!
//! - `MINIMCP_EDIT_FUZZ_SEED=N` (or `random`) picks the seed; it is printed first and in
//!   every failure, so `MINIMCP_EDIT_FUZZ_SEED=N cargo test --test edit_fuzz` replays it.
//! - `MINIMCP_EDIT_FUZZ_FILES=N`: files per round (default 30, a few changes each).
//! - `MINIMCP_EDIT_FUZZ_SECONDS=S`: rounds with the next seed until S seconds have passed
//!   (`.ci/run` runs it this way with a random seed).

mod common;

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::{json, Value};

use common::rng::Rng;
use common::scratch::Scratch;
use common::{sha256, Out, Peer};

const FIXED_SEED: u64 = 0xED17_F022;
const DEFAULT_FILES: usize = 30;
/// Changes made to each file.
const CHANGES: usize = 3;

// ---- Files --------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Lang {
    Python,
    Yaml,
    Make,
    Markdown,
    Go,
    CTwo,
    CFour,
}

impl Lang {
    const ALL: [Lang; 7] = [
        Lang::Python,
        Lang::Yaml,
        Lang::Make,
        Lang::Markdown,
        Lang::Go,
        Lang::CTwo,
        Lang::CFour,
    ];

    /// One level of indentation.
    fn unit(self) -> &'static str {
        match self {
            Lang::Python | Lang::CFour => "    ",
            Lang::Yaml | Lang::Markdown | Lang::CTwo => "  ",
            Lang::Make | Lang::Go => "\t",
        }
    }

    fn braces(self) -> bool {
        matches!(self, Lang::Go | Lang::CTwo | Lang::CFour)
    }
}

/// A line of a generated file: its level, text after the indentation, and line break.
#[derive(Clone, Debug, PartialEq)]
struct Line {
    level: usize,
    text: String,
    /// Whitespace after the text (trailing whitespace), or the whole of a blank line.
    tail: String,
    ending: &'static str,
}

impl Line {
    fn render(&self, lang: Lang) -> String {
        if self.text.is_empty() {
            return self.tail.clone();
        }
        format!(
            "{}{}{}",
            lang.unit().repeat(self.level),
            self.text,
            self.tail
        )
    }
}

const NAMES: &[&str] = &[
    "a", "b", "x", "value", "item", "store", "key", "uri", "café", "日本",
];
const CALLS: &[&str] = &["f", "g", "run", "load", "save", "normalize", "check"];

fn name(rng: &mut Rng) -> &'static str {
    NAMES[rng.below(NAMES.len())]
}

/// A statement that opens a block (its children one level deeper).
fn header(lang: Lang, rng: &mut Rng) -> String {
    let (n, c) = (name(rng), *rng.pick(CALLS));
    match lang {
        Lang::Python => match rng.below(5) {
            0 => format!("def {c}(self, {n}):"),
            1 => format!("if {n}:"),
            2 => format!("for {n} in items:"),
            3 => "else:".into(),
            _ => format!("class {}:", c.to_uppercase()),
        },
        Lang::Yaml => format!("{n}:"),
        Lang::Make => format!("{c}: {n}.o"),
        Lang::Markdown => format!("- {c} {n}"),
        Lang::Go => match rng.below(3) {
            0 => format!("func {c}({n} int) error {{"),
            1 => format!("if {n} != nil {{"),
            _ => format!("for _, {n} := range items {{"),
        },
        Lang::CTwo | Lang::CFour => match rng.below(3) {
            0 => format!("function {c}({n}) {{"),
            1 => format!("if ({n}) {{"),
            _ => format!("while ({n} > 0) {{"),
        },
    }
}

/// A simple statement.
fn statement(lang: Lang, rng: &mut Rng) -> String {
    let (n, m, c) = (name(rng), name(rng), *rng.pick(CALLS));
    match lang {
        Lang::Python => match rng.below(6) {
            0 => format!("return self.{n}[self.{c}({m})]"),
            1 => "pass".into(),
            2 => format!("{n} = {c}({m}, 1)"),
            3 => format!("# {c} the {n}"),
            4 => "return None".into(),
            _ => format!("self.{n}.update({m})"),
        },
        Lang::Yaml => match rng.below(3) {
            0 => format!("{n}: {m}"),
            1 => format!("- {c}"),
            _ => format!("- run: make {c}"),
        },
        Lang::Make => match rng.below(3) {
            0 => format!("$(CC) -o {n} {m}.c"),
            1 => format!("rm -f {n}"),
            _ => format!("@echo {c}"),
        },
        Lang::Markdown => match rng.below(3) {
            0 => format!("- {n} {m}"),
            1 => format!("{c} the {n} with {m}."),
            _ => format!("- [{c}]({n}.md)"),
        },
        Lang::Go => match rng.below(3) {
            0 => format!("{n} := {c}({m})"),
            1 => "return nil".into(),
            _ => format!("fmt.Println({n})"),
        },
        Lang::CTwo | Lang::CFour => match rng.below(3) {
            0 => format!("{n} = {c}({m});"),
            1 => "return 0;".into(),
            _ => format!("{c}({n}, {m});"),
        },
    }
}

/// Lines of a block at `level`, nested up to `depth` more levels.
fn block(lang: Lang, rng: &mut Rng, level: usize, depth: usize, out: &mut Vec<Line>) {
    let line = |level: usize, text: String| Line {
        level,
        text,
        tail: String::new(),
        ending: "\n",
    };
    for _ in 0..1 + rng.below(4) {
        let nested = depth > 0 && rng.one_in(3) && !(lang == Lang::Make && level > 0);
        if nested {
            out.push(line(level, header(lang, rng)));
            let inner = if lang == Lang::Make { 1 } else { level + 1 };
            block(
                lang,
                rng,
                inner,
                if lang == Lang::Make { 0 } else { depth - 1 },
                out,
            );
            if lang.braces() {
                out.push(line(level, "}".into()));
            }
        } else if !(lang == Lang::Make && level == 0) {
            out.push(line(level, statement(lang, rng)));
        }
        if rng.one_in(6) {
            out.push(line(0, String::new()));
        }
    }
}

/// A file: its lines, with the irregularities real files have.
fn file(lang: Lang, rng: &mut Rng) -> Vec<Line> {
    let mut lines = Vec::new();
    for _ in 0..2 + rng.below(4) {
        block(lang, rng, 0, 3, &mut lines);
        if lines.iter().all(|l| l.text.is_empty()) {
            lines.push(Line {
                level: 0,
                text: header(lang, rng),
                tail: String::new(),
                ending: "\n",
            });
            block(lang, rng, 1, 0, &mut lines);
        }
    }
    // A run of lines repeated at another depth, so text is not always unique.
    if rng.one_in(3) && lines.len() > 3 && lang != Lang::Make {
        let at = rng.below(lines.len() - 2);
        let copy: Vec<Line> = lines[at..at + 2]
            .iter()
            .map(|l| Line {
                level: if l.text.is_empty() { 0 } else { l.level + 1 },
                ..l.clone()
            })
            .collect();
        let to = rng.below(lines.len());
        lines.splice(to..to, copy);
    }
    let crlf = rng.one_in(5);
    let mixed = !crlf && rng.one_in(12);
    let last = lines.len() - 1;
    for (i, line) in lines.iter_mut().enumerate() {
        if line.text.is_empty() && rng.one_in(3) {
            line.tail = lang.unit().repeat(1 + rng.below(2));
        } else if !line.text.is_empty() && rng.one_in(12) {
            line.tail = rng.pick(&[" ", "  ", "\t"]).to_string();
        }
        if !line.text.is_empty() && rng.one_in(20) {
            if let Some(space) = line.text.find(' ') {
                line.text.insert(space, ' ');
            }
        }
        line.ending = if crlf || (mixed && rng.one_in(2)) {
            "\r\n"
        } else {
            "\n"
        };
        if i == last && rng.one_in(6) {
            line.ending = "";
        }
        // Whitespace ending a file after its last line break is no line a model can see,
        // nor say it removes.
        if i == last && line.text.is_empty() && line.ending.is_empty() {
            line.tail.clear();
        }
    }
    lines
}

fn join(lines: &[Line], lang: Lang) -> String {
    lines
        .iter()
        .map(|l| format!("{}{}", l.render(lang), l.ending))
        .collect()
}

// ---- Changes ------------------------------------------------------------------------------

/// A change: lines `start..end` of the file become `with`.
struct Change {
    start: usize,
    end: usize,
    with: Vec<Line>,
    what: &'static str,
}

fn change(lang: Lang, lines: &[Line], rng: &mut Rng) -> Change {
    // A run that is all blank lines is no text a model would send to find a place.
    let start = loop {
        let at = rng.below(lines.len());
        if !lines[at].text.is_empty() || lines.iter().all(|l| l.text.is_empty()) {
            break at;
        }
    };
    let end = (start + 1 + rng.below(5)).min(lines.len());
    let region = &lines[start..end];
    // New lines end as the region's lines do (or the line before it).
    let ending = region
        .iter()
        .chain(lines[..start].iter().rev())
        .map(|l| l.ending)
        .find(|e| !e.is_empty())
        .unwrap_or("\n");
    let fresh = |level: usize, text: String| Line {
        level,
        text,
        tail: String::new(),
        ending,
    };
    let level_at = |i: usize| region.get(i).map_or(0, |l| l.level);
    let mut with = region.to_vec();
    let what = match rng.below(4) {
        0 => {
            let at = rng.below(with.len());
            let level = if with[at].text.is_empty() {
                level_at(0)
            } else {
                with[at].level
            };
            with[at] = Line {
                ending: with[at].ending,
                ..fresh(level, statement(lang, rng))
            };
            "a line changed"
        }
        1 => {
            let at = rng.below(with.len() + 1);
            let level = level_at(at.min(with.len() - 1));
            let mut new = vec![fresh(level, statement(lang, rng))];
            if rng.one_in(2) && lang != Lang::Make {
                new = vec![
                    fresh(level, header(lang, rng)),
                    fresh(level + 1, statement(lang, rng)),
                ];
                if lang.braces() {
                    new.push(fresh(level, "}".into()));
                }
            }
            with.splice(at..at, new);
            "lines inserted"
        }
        2 if with.len() > 1 => {
            let at = rng.below(with.len());
            let count = 1 + rng.below(with.len() - at);
            with.drain(at..at + count);
            "lines deleted"
        }
        _ => {
            let level = level_at(0);
            let mut new = vec![fresh(level, header(lang, rng))];
            for line in &with {
                let mut line = line.clone();
                if !line.text.is_empty() {
                    line.level += 1;
                }
                new.push(line);
            }
            if lang.braces() {
                new.push(fresh(level, "}".into()));
            }
            with = new;
            "lines wrapped one level deeper"
        }
    };
    // At the end of a file without a final line break, the new last line has none, and
    // the line that was last gets one.
    if region.last().is_some_and(|l| l.ending.is_empty()) {
        for line in with.iter_mut() {
            if line.ending.is_empty() {
                line.ending = ending;
            }
        }
        if let Some(last) = with.last_mut() {
            last.ending = "";
        }
    }
    Change {
        start,
        end,
        with,
        what,
    }
}

// ---- How a model sends it -----------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Variant {
    Exact,
    IndentDropped,
    IndentDeeper,
    TabsSpacesSwapped,
    TrailingLost,
    InnerRunsLost,
    CrlfLost,
    LineNumbers,
    LittleContext,
    FirstIndentDropped,
    DroppedAndTrailingLost,
    SwappedAndDropped,
}

const VARIANTS: [Variant; 12] = [
    Variant::Exact,
    Variant::IndentDropped,
    Variant::IndentDeeper,
    Variant::TabsSpacesSwapped,
    Variant::TrailingLost,
    Variant::InnerRunsLost,
    Variant::CrlfLost,
    Variant::LineNumbers,
    Variant::LittleContext,
    Variant::FirstIndentDropped,
    Variant::DroppedAndTrailingLost,
    Variant::SwappedAndDropped,
];

/// Applies `f` to every line of `text`, keeping its line breaks.
fn each_line(text: &str, f: &mut dyn FnMut(usize, &str) -> String) -> String {
    let mut out = String::new();
    for (i, piece) in text.split_inclusive('\n').enumerate() {
        let (body, ending) = match piece.strip_suffix("\r\n") {
            Some(b) => (b, "\r\n"),
            None => match piece.strip_suffix('\n') {
                Some(b) => (b, "\n"),
                None => (piece, ""),
            },
        };
        out.push_str(&f(i, body));
        out.push_str(ending);
    }
    out
}

fn indentation(line: &str) -> &str {
    &line[..line.len() - line.trim_start_matches([' ', '\t']).len()]
}

/// The common leading whitespace of the non-blank lines of both texts.
fn common_indentation(texts: &[&str]) -> String {
    let mut common: Option<String> = None;
    for text in texts {
        for line in text.lines() {
            if line.trim().is_empty() {
                continue;
            }
            let ind = indentation(line);
            common = Some(match common {
                None => ind.to_string(),
                Some(c) => c
                    .chars()
                    .zip(ind.chars())
                    .take_while(|(a, b)| a == b)
                    .map(|(a, _)| a)
                    .collect(),
            });
        }
    }
    common.unwrap_or_default()
}

fn drop_indentation(old: &str, new: &str) -> Option<(String, String)> {
    let base = common_indentation(&[old, new]);
    if base.is_empty() {
        return None;
    }
    let mut strip = |_: usize, l: &str| {
        l.strip_prefix(base.as_str())
            .map_or_else(|| l.trim_start().to_string(), str::to_string)
    };
    Some((each_line(old, &mut strip), each_line(new, &mut strip)))
}

fn swap(lang: Lang, text: &str) -> String {
    each_line(text, &mut |_, l| {
        let ind = indentation(l);
        let rest = &l[ind.len()..];
        let swapped = if lang.unit() == "\t" {
            ind.replace('\t', "    ")
        } else if ind.contains('\t') {
            ind.to_string()
        } else {
            let u = lang.unit().len();
            "\t".repeat(ind.len() / u) + &" ".repeat(ind.len() % u)
        };
        format!("{swapped}{rest}")
    })
}

/// The texts a model sends for `variant`, or `None` when it would be the exact text or
/// cannot be made from this change.
fn variant(
    v: Variant,
    lang: Lang,
    lines: &[Line],
    c: &Change,
    rng: &mut Rng,
) -> Option<(String, String)> {
    let old = join(&lines[c.start..c.end], lang);
    let new = join(&c.with, lang);
    // Half the time without the final line break (when both have the same one after a
    // line that is not blank: a blank last line without its break is none a model sees).
    let strippable = |s: &str| {
        let body = s
            .strip_suffix('\n')
            .map(|b| b.strip_suffix('\r').unwrap_or(b));
        body.is_some_and(|b| !b.rsplit('\n').next().unwrap_or(b).trim().is_empty())
    };
    let (old, new) = match (old.strip_suffix('\n'), new.strip_suffix('\n')) {
        (Some(o), Some(n))
            if rng.one_in(2)
                && strippable(&old)
                && strippable(&new)
                && old.ends_with("\r\n") == new.ends_with("\r\n") =>
        {
            let cut = |s: &str| s.strip_suffix('\r').unwrap_or(s).to_string();
            (cut(o), cut(n))
        }
        _ => (old, new),
    };
    let lf = |s: &str| s.replace("\r\n", "\n");
    let made = match v {
        Variant::Exact => return Some((old, new)),
        Variant::IndentDropped => drop_indentation(&old, &new)?,
        Variant::IndentDeeper => {
            let more = if lang.unit() == "\t" {
                "\t"
            } else {
                *rng.pick(&["  ", "    "])
            };
            let mut deeper = |_: usize, l: &str| {
                if l.trim().is_empty() {
                    l.to_string()
                } else {
                    format!("{more}{l}")
                }
            };
            (each_line(&old, &mut deeper), each_line(&new, &mut deeper))
        }
        // Only a file that shows its indentation says which characters it uses.
        Variant::TabsSpacesSwapped | Variant::SwappedAndDropped
            if !lines.iter().any(|l| l.level > 0 && !l.text.is_empty()) =>
        {
            return None
        }
        Variant::TabsSpacesSwapped => (swap(lang, &old), swap(lang, &new)),
        Variant::TrailingLost => {
            let mut trim = |_: usize, l: &str| l.trim_end().to_string();
            (each_line(&old, &mut trim), each_line(&new, &mut trim))
        }
        Variant::InnerRunsLost => {
            let mut squash = |_: usize, l: &str| {
                let ind = indentation(l);
                format!(
                    "{ind}{}",
                    l[ind.len()..]
                        .split_whitespace()
                        .collect::<Vec<_>>()
                        .join(" ")
                )
            };
            (each_line(&old, &mut squash), each_line(&new, &mut squash))
        }
        Variant::CrlfLost => (lf(&old), lf(&new)),
        Variant::LineNumbers => {
            let total = lines.len().to_string().len().max(4);
            let mut number = |i: usize, l: &str| format!("{:>total$}\t{l}", c.start + i + 1);
            let numbered_new = rng.one_in(3) && !new.is_empty();
            let new = if numbered_new {
                each_line(&lf(&new), &mut number)
            } else {
                lf(&new)
            };
            (each_line(&lf(&old), &mut number), new)
        }
        Variant::LittleContext => little_context(lang, lines, c)?,
        Variant::FirstIndentDropped => {
            let (o, n) = (indentation(&old), indentation(&new));
            if o.is_empty() || o != n {
                return None;
            }
            (old[o.len()..].to_string(), new[n.len()..].to_string())
        }
        Variant::DroppedAndTrailingLost => {
            let (o, n) = drop_indentation(&old, &new)?;
            let mut trim = |_: usize, l: &str| l.trim_end().to_string();
            (each_line(&o, &mut trim), each_line(&n, &mut trim))
        }
        Variant::SwappedAndDropped => drop_indentation(&swap(lang, &old), &swap(lang, &new))?,
    };
    // A variant that lost the whole change (it was only whitespace) says nothing; one whose
    // `old_text` is still the file's own hides from the server that anything was garbled
    // (the model's text is then what it says).
    (made.0 != old && made.0 != made.1).then_some(made)
}

/// Only the lines that change (with one line of context for a pure insertion).
fn little_context(lang: Lang, lines: &[Line], c: &Change) -> Option<(String, String)> {
    let region = &lines[c.start..c.end];
    let same = |a: &Line, b: &Line| a.render(lang) == b.render(lang) && a.ending == b.ending;
    let head = region
        .iter()
        .zip(&c.with)
        .take_while(|(a, b)| same(a, b))
        .count();
    let tail = region[head..]
        .iter()
        .rev()
        .zip(c.with[head..].iter().rev())
        .take_while(|(a, b)| same(a, b))
        .count();
    let (mut from, to) = (c.start + head, c.end - tail);
    let mut added = c.with[head..c.with.len() - tail].to_vec();
    if from == to {
        if from == 0 {
            return None;
        }
        from -= 1;
        added.insert(0, lines[from].clone());
    }
    if (from, to) == (c.start, c.end) {
        return None;
    }
    Some((join(&lines[from..to], lang), join(&added, lang)))
}

// ---- The naive oracle of "should apply" ---------------------------------------------------

/// True when `old` occurs exactly once in `text` and its lines match nowhere else with
/// whitespace ignored, and `new` ends with a line break as `old` does: then the exact text
/// must be applied.
fn plainly_unique(text: &str, old: &str, new: &str) -> bool {
    if !new.is_empty() && old.ends_with('\n') != new.ends_with('\n') {
        return false;
    }
    let crlf = text.contains("\r\n") && !text.replace("\r\n", "").contains('\n');
    let (text, old) = if crlf {
        (text.replace("\r\n", "\n"), old.replace("\r\n", "\n"))
    } else {
        (text.to_string(), old.to_string())
    };
    // Counted at every byte: occurrences may overlap.
    let occurrences = (0..text.len())
        .filter(|&i| text.is_char_boundary(i) && text[i..].starts_with(old.as_str()))
        .count();
    if occurrences != 1 || old.trim().is_empty() {
        return false;
    }
    let squash = |l: &str| l.split_whitespace().collect::<Vec<_>>().join(" ");
    let have: Vec<String> = text.lines().map(squash).collect();
    let want: Vec<String> = old.trim_end_matches('\n').lines().map(squash).collect();
    let found = (0..have.len().saturating_sub(want.len() - 1))
        .filter(|&i| have[i..i + want.len()] == want[..])
        .count();
    let at = text.find(old.as_str()).unwrap_or(0);
    let lead = &text[text[..at].rfind('\n').map_or(0, |p| p + 1)..at];
    found <= 1 && lead.is_empty()
}

/// A refusal that tells the model what to send.
fn actionable(message: &str) -> bool {
    message.contains("was not changed")
        && [
            "Copy",
            "copy",
            "Send",
            "send",
            "Add",
            "Start",
            "Include",
            "include",
            "read the file again",
        ]
        .iter()
        .any(|w| message.contains(w))
}

// ---- The run ------------------------------------------------------------------------------

struct Server {
    peer: Peer,
    next: u64,
}

impl Server {
    fn start(root: &Path) -> Server {
        let args = [
            "serve",
            "--toolsets",
            "workspace,edit",
            "--root",
            root.to_str().expect("utf-8"),
        ]
        .map(String::from);
        let mut server = Server {
            peer: Peer::spawn(common::minimcp(), &args).expect("minimcp starts"),
            next: 0,
        };
        server.request("initialize", json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "edit_fuzz", "version": "1"}}));
        server.peer.send_line(
            &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string(),
        );
        server
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next += 1;
        let id = self.next;
        self.peer.send_line(
            &json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string(),
        );
        loop {
            match self.peer.recv(Duration::from_secs(60)) {
                Ok(Out::Line(line)) => {
                    let message: Value = serde_json::from_slice(&line).expect("JSON");
                    if message["id"] == json!(id) {
                        return message;
                    }
                }
                other => panic!(
                    "no answer to {method}: {other:?}\n{}",
                    self.peer.stderr_text()
                ),
            }
        }
    }
}

#[derive(Default)]
struct Tally {
    calls: usize,
    /// Per variant: applied, refused.
    per_variant: BTreeMap<Variant, [usize; 2]>,
    failures: Vec<String>,
}

fn round(seed: u64, files: usize, tally: &mut Tally) {
    let dir = Scratch::new("editfuzz");
    let mut server = Server::start(dir.path());
    let mut rng = Rng(seed);
    for n in 0..files {
        let lang = *rng.pick(&Lang::ALL);
        let lines = file(lang, &mut rng);
        let before = join(&lines, lang);
        let name = format!("f{n}.{}", format!("{lang:?}").to_lowercase());
        for _ in 0..CHANGES {
            let c = change(lang, &lines, &mut rng);
            let mut after_lines = lines[..c.start].to_vec();
            after_lines.extend(c.with.iter().cloned());
            after_lines.extend(lines[c.end..].iter().cloned());
            let intended = join(&after_lines, lang);
            if intended == before {
                continue;
            }
            for v in VARIANTS {
                let Some((old, new)) = variant(v, lang, &lines, &c, &mut rng) else {
                    continue;
                };
                fs::write(dir.path().join(&name), &before).expect("write");
                let arguments = json!({"path": name, "edits": [{"old_text": old, "new_text": new}],
                    "expected_sha256": sha256::hex(before.as_bytes())});
                let answer = server.request(
                    "tools/call",
                    json!({"name": "edit_file", "arguments": arguments}),
                );
                tally.calls += 1;
                let result = &answer["result"];
                let now = fs::read(dir.path().join(&name)).expect("read");
                let text = result["content"][0]["text"].as_str().unwrap_or_default();
                let counts = tally.per_variant.entry(v).or_default();
                let problem = if result["isError"] == json!(true) {
                    counts[1] += 1;
                    if now != before.as_bytes() {
                        Some("refused, yet the file changed")
                    } else if !actionable(text) {
                        Some("refused without saying what to send")
                    } else if v == Variant::Exact && plainly_unique(&before, &old, &new) {
                        Some("refused, though the text occurs once and nowhere else")
                    } else {
                        None
                    }
                } else if result.is_null() {
                    Some("no result")
                } else {
                    counts[0] += 1;
                    (now != intended.as_bytes()).then_some("a WRONG FILE")
                };
                if let Some(problem) = problem {
                    tally.failures.push(format!(
                        "seed {seed}, file {n} ({lang:?}), {}, sent {v:?}: {problem}\nold_text: {old:?}\nnew_text: {new:?}\nfile before: {before:?}\nintended:    {intended:?}\ngot:         {:?}\nanswer: {text}",
                        c.what,
                        String::from_utf8_lossy(&now)
                    ));
                }
            }
        }
    }
}

fn config() -> (u64, usize, Option<u64>) {
    let seed = match std::env::var("MINIMCP_EDIT_FUZZ_SEED").ok().as_deref() {
        None | Some("") => FIXED_SEED,
        Some("random") => {
            let now = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos() as u64);
            Rng(now ^ u64::from(std::process::id()) << 32).next()
        }
        Some(text) => text
            .parse()
            .unwrap_or_else(|_| panic!("MINIMCP_EDIT_FUZZ_SEED={text:?}: a number or random")),
    };
    let number = |name: &str| {
        std::env::var(name).ok().filter(|v| !v.is_empty()).map(|v| {
            v.parse::<u64>()
                .unwrap_or_else(|_| panic!("{name}={v:?}: a number"))
        })
    };
    (
        seed,
        number("MINIMCP_EDIT_FUZZ_FILES").map_or(DEFAULT_FILES, |n| n as usize),
        number("MINIMCP_EDIT_FUZZ_SECONDS"),
    )
}

#[test]
fn every_model_style_edit_is_applied_as_meant_or_refused_with_what_to_send() {
    let (mut seed, files, seconds) = config();
    eprintln!(
        "edit fuzz: seed {seed} ({files} files a round); replay with MINIMCP_EDIT_FUZZ_SEED={seed}"
    );
    let started = Instant::now();
    let mut tally = Tally::default();
    let mut rounds = 0;
    loop {
        round(seed, files, &mut tally);
        rounds += 1;
        if !tally.failures.is_empty() {
            break;
        }
        match seconds {
            Some(s) if started.elapsed() < Duration::from_secs(s) => seed = Rng(seed).next(),
            _ => break,
        }
    }
    eprintln!(
        "edit fuzz: {rounds} rounds, {} calls in {:.1?}; per variant (applied / refused):",
        tally.calls,
        started.elapsed()
    );
    for (v, [applied, refused]) in &tally.per_variant {
        eprintln!("  {v:?}: {applied} / {refused}");
    }
    assert!(
        tally.failures.is_empty(),
        "{} failures (replay with MINIMCP_EDIT_FUZZ_SEED={seed}):\n\n{}",
        tally.failures.len(),
        tally
            .failures
            .iter()
            .take(8)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n\n")
    );
    // The fallback does its job: the variants it exists for are applied, not only refused.
    for v in [
        Variant::IndentDropped,
        Variant::TabsSpacesSwapped,
        Variant::LineNumbers,
    ] {
        let [applied, _] = tally.per_variant.get(&v).copied().unwrap_or_default();
        assert!(applied > 0, "{v:?} was never applied");
    }
}
