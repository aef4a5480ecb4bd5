use std::io::Write;
use std::process::{Command, Stdio};

use serde_json::json;

use super::*;

fn matches(pattern: &str, line: &str) -> bool {
    Regex::new(pattern, false).expect("valid").is_match(line)
}

fn matches_i(pattern: &str, line: &str) -> bool {
    Regex::new(pattern, true).expect("valid").is_match(line)
}

#[test]
fn literals_classes_and_anchors() {
    assert!(matches("fn main", "pub fn main() {"));
    assert!(!matches("fn main", "fn  main"));
    assert!(matches("a.c", "xabcx"));
    assert!(!matches("a.c", "ac"));
    assert!(matches("^fn", "fn x"));
    assert!(!matches("^fn", " fn x"));
    assert!(matches("x$", "abx"));
    assert!(!matches("x$", "xab"));
    assert!(matches("^$", ""));
    assert!(matches("[0-9]+px", "width: 120px"));
    assert!(!matches("[^a-z ]", "only lower case"));
    assert!(matches("\\d{3}-\\d{4}", "call 555-1234 now"));
    assert!(!matches("\\d{3}-\\d{4}", "call 55-1234 now"));
    assert!(matches("\\s\\w+\\(", "let x = foo(1)"));
    assert!(matches("colou?r", "color"));
    assert!(matches("colou?r", "colour"));
    assert!(matches("a{2,3}b", "caaab"));
    assert!(!matches("^a{2,3}b", "aaaab"));
    assert!(matches("(?:ab)+c", "xababc"));
    assert!(matches("", "anything"));
    assert!(matches("a|", "zzz"));
}

#[test]
fn word_boundaries() {
    assert!(matches("\\bcat\\b", "a cat sat"));
    assert!(!matches("\\bcat\\b", "concatenate"));
    assert!(matches("\\Bcat\\B", "concatenate"));
    assert!(matches("\\bx", "x"));
    assert!(!matches("\\b", ""));
    assert!(matches("\\B", ""));
}

#[test]
fn alternation_and_groups() {
    assert!(matches("TODO|FIXME", "// FIXME: later"));
    assert!(!matches("TODO|FIXME", "// todo"));
    assert!(matches("(foo|bar)baz", "xbarbaz"));
    assert!(!matches("(foo|bar)baz", "xbazbar"));
    assert!(matches("impl (Display|Debug) for", "impl Debug for X"));
    assert!(matches("(^)*a", "ba"));
}

#[test]
fn case_folding() {
    assert!(matches_i("hello", "HeLLo world"));
    assert!(matches_i("[a-c]x", "BX"));
    assert!(matches_i("grüße", "GRÜßE"));
    assert!(!matches("hello", "HELLO"));
    assert!(matches("(?i)hello", "HELLO"));
    // ASCII letters fold only with ASCII letters (so a scan for them finds every match):
    // not with the Kelvin sign, dotless ı or long ſ.
    assert!(!matches_i("k", "\u{212A}"));
    assert!(!matches_i("[i]", "\u{131}"));
    assert!(!matches_i("\u{17F}", "s"));
    assert!(matches_i("\u{17F}", "\u{17F}"));
    assert!(matches_i("é", "É"));
}

#[test]
fn unicode_is_matched_by_character() {
    assert!(matches("^.{3}$", "日本語"));
    assert!(matches("é+", "caféé"));
    assert!(matches("[à-ÿ]", "voilà"));
    assert!(!matches("\\w", "日本"), "\\w is ASCII");
    assert!(matches("\\W", "日本"));
}

#[test]
fn leading_and_trailing_dot_stars_do_not_change_answers() {
    for (pattern, line, expected) in [
        (".*foo", "xxfoo", true),
        ("foo.*", "foo", true),
        (".*foo.*", "bar", false),
        (".*", "", true),
        ("^.*foo", "a foo", true),
    ] {
        assert_eq!(matches(pattern, line), expected, "{pattern} on {line:?}");
    }
    let re = Regex::new(".*needle.*", false).expect("valid");
    assert!(re.first.is_some(), "a narrow first-byte set after trimming");
}

#[test]
fn a_match_can_be_asked_from_a_later_start() {
    let mut re = Regex::new("\\bab", false).expect("valid");
    let mut budget = u64::MAX;
    assert!(re.matches_from("xab ab", 3, &mut budget).expect("budget"));
    assert!(!re.matches_from("xab cab", 4, &mut budget).expect("budget"));
    assert_eq!(re.candidate(b"zzzab", 0), Some(3));
    assert_eq!(re.candidate(b"zzz", 0), None);
}

#[test]
fn pathological_patterns_cost_linear_work() {
    // (a*)*b and friends take exponential time in a backtracking engine. Here the work is
    // at most (line length) × (states), which the budget below enforces exactly: the call
    // has to finish within it, whatever the clock says.
    let line = "a".repeat(100_000);
    for pattern in [
        "(a*)*b",
        "(a|a)*b",
        "(a+)+b",
        "(a|aa)*c",
        "(.*a){20}b",
        "(\\w+\\s?)*$x",
    ] {
        let mut re = Regex::new(pattern, false).expect("valid");
        let states = re.machine.program().insts.len() as u64;
        let limit = (line.len() as u64 + 1) * (states + 1);
        let mut budget = limit;
        assert_eq!(
            re.matches_from(&line, 0, &mut budget),
            Ok(false),
            "{pattern}"
        );
        assert!(limit - budget <= limit, "{pattern}");
    }
    // A budget too small for the line ends the run with an answer of its own.
    let mut re = Regex::new("(a*)*b", false).expect("valid");
    assert_eq!(re.matches_from(&line, 0, &mut 1000), Err(Exhausted));
}

#[test]
fn size_limits_are_errors() {
    assert_eq!(
        Regex::with_limit("a{1000}b{1000}", false, 1500).map(|_| ()),
        Err(RegexError::TooBig(1500))
    );
    let error = Regex::new("(x{1000}){1000}", false).expect_err("too big");
    assert!(error.to_string().contains("states"), "{error}");
}

// ---- differential test against Python's `re` ----------------------------------------------

/// A small deterministic generator (xorshift), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

fn gen_alternation(rng: &mut Rng, depth: usize) -> String {
    let mut out = gen_concat(rng, depth);
    while rng.below(5) == 0 {
        out.push('|');
        out.push_str(&gen_concat(rng, depth));
    }
    out
}

fn gen_concat(rng: &mut Rng, depth: usize) -> String {
    let mut out = String::new();
    for _ in 0..1 + rng.below(4) {
        let choice = rng.below(if depth == 0 { 8 } else { 10 });
        let atom = match choice {
            0..=3 => rng
                .pick(&["a", "b", "c", "A", "_", "1", " ", "-", "\\.", "ab"])
                .to_string(),
            4 => rng
                .pick(&[
                    ".", "[ab]", "[^a]", "[a-c]", "\\d", "\\w", "\\s", "\\W", "[^ ]", "[-a]",
                    "[A-Z_]",
                ])
                .to_string(),
            5 => {
                // Assertions are never quantified directly.
                out.push_str(rng.pick(&["^", "$", "\\b", "\\B"]));
                continue;
            }
            6 | 7 => rng.pick(&["a", "b", "\\w", "."]).to_string(),
            _ => {
                let open = rng.pick(&["(", "(?:"]);
                format!("{open}{})", gen_alternation(rng, depth - 1))
            }
        };
        out.push_str(&atom);
        out.push_str(rng.pick(&[
            "", "", "", "*", "+", "?", "{2}", "{1,3}", "{0,2}", "{2,}", "*?", "+?",
        ]));
    }
    out
}

fn gen_line(rng: &mut Rng) -> String {
    let alphabet = ['a', 'b', 'c', 'A', 'B', '_', '1', ' ', '-', '.'];
    // Never empty: Python's `\B` alone never matches an empty string (ripgrep's does, as
    // ours does), a quirk not worth mirroring.
    (0..1 + rng.below(14))
        .map(|_| alphabet[rng.below(alphabet.len())])
        .collect()
}

const ORACLE: &str = r#"
import json, re, sys
cases = json.load(sys.stdin)
out = []
for case in cases:
    flags = re.ASCII | (re.IGNORECASE if case["i"] else 0)
    r = re.compile(case["p"], flags)
    out.append([r.search(line) is not None for line in case["lines"]])
json.dump(out, sys.stdout)
"#;

#[test]
fn agrees_with_pythons_re_on_generated_patterns() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let cases: Vec<(String, bool, Vec<String>)> = (0..1500)
        .map(|_| {
            let pattern = gen_alternation(&mut rng, 2);
            let insensitive = rng.below(4) == 0;
            let lines = (0..12).map(|_| gen_line(&mut rng)).collect();
            (pattern, insensitive, lines)
        })
        .collect();
    let input = json!(cases
        .iter()
        .map(|(p, i, lines)| json!({"p": p, "i": i, "lines": lines}))
        .collect::<Vec<_>>());
    let child = Command::new("python3")
        .args(["-c", ORACLE])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn();
    let Ok(mut child) = child else {
        eprintln!("SKIPPED agrees_with_pythons_re_on_generated_patterns: python3 is not installed");
        return;
    };
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.to_string().as_bytes())
        .expect("write cases");
    let output = child.wait_with_output().expect("python3 ran");
    assert!(output.status.success(), "the oracle script failed");
    let expected: Vec<Vec<bool>> =
        serde_json::from_slice(&output.stdout).expect("the oracle's JSON");
    let mut checked = 0;
    for ((pattern, insensitive, lines), expected) in cases.iter().zip(expected) {
        let mut re = Regex::new(pattern, *insensitive)
            .unwrap_or_else(|e| panic!("{pattern:?} compiles in Python but not here: {e}"));
        for (line, want) in lines.iter().zip(expected) {
            assert_eq!(
                re.is_match(line),
                want,
                "pattern {pattern:?} (case-insensitive: {insensitive}) on line {line:?}"
            );
            checked += 1;
        }
    }
    assert_eq!(checked, 1500 * 12);
}

#[test]
fn patterns_without_operators_are_plain_text() {
    assert_eq!(plain_text("foo\\.rs"), Some(("foo.rs".into(), false)));
    assert_eq!(plain_text("(?i)Needle"), Some(("Needle".into(), true)));
    assert_eq!(plain_text(".*needle.*"), Some(("needle".into(), false)));
    for pattern in ["a.c", "a|b", "^a", "a*", "", "(ab)c", "[a]", "a\\nb"] {
        assert_eq!(plain_text(pattern), None, "{pattern}");
    }
}

#[test]
fn texts_every_match_contains_are_found() {
    let required = |p: &str, fold| Regex::new(p, fold).expect("valid").required().to_vec();
    assert_eq!(
        required("^\\s*import .* from \"x\";$", false),
        [" from \"x\";"]
    );
    assert_eq!(required("\\bvisitor\\b", true), ["visitor"]);
    assert_eq!(required("TODO|FIXME", false), ["TODO", "FIXME"]);
    assert_eq!(required("(fn|impl)\\s+\\w+", false), ["fn", "impl"]);
    assert_eq!(required("a(bc)*d", false), ["a"]);
    assert_eq!(required("(ab)+", false), ["ab"]);
    assert!(
        required("TODO|\\d", false).is_empty(),
        "a branch without text"
    );
    assert!(required("(ab)*", false).is_empty());
    assert!(
        required("grüße\\d", true).is_empty(),
        "folded non-ASCII is not scanned for"
    );
    assert_eq!(required("grüße\\d", false), ["grüße"]);
    assert!(
        required("a|b|c|d|e|f|g|h|i", false).is_empty(),
        "too many to scan for"
    );
}
