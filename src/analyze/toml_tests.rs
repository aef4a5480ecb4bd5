//! The TOML subset parser against Python's `tomllib` (the standard library's TOML 1.0 reader
//! since Python 3.11): on generated documents and random mutations of them, whatever this
//! parser accepts, `tomllib` must read to the same value, and whatever `tomllib` accepts,
//! this parser must read too or refuse as unsupported (never as a syntax error). A fixed
//! seed and 3,000 documents in `cargo test`, skipped visibly without Python 3.11; `.ci/run`
//! sets `MINIMCP_TOML_FUZZ_SEED=random` and `MINIMCP_TOML_FUZZ_CASES`. The seed is printed.

use super::*;
use std::io::Write;
use std::process::{Command, Stdio};

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

const KEYS: &[&str] = &[
    "a",
    "b",
    "c",
    "max-cyclomatic",
    "paths",
    "_x",
    "1",
    "-",
    "\"a\"",
    "'b'",
    "\"x y\"",
    "\"é\"",
    "\"\"",
    "'it''s'",
    "\"\\u0041\"",
    "\"a.b\"",
    "ab_c-9",
];

const STRINGS: &[&str] = &[
    "\"plain\"",
    "\"\"",
    "''",
    "'lit\\eral'",
    "\"esc \\\" \\\\ \\n \\t \\b \\f \\r\"",
    "\"\\u00e9\\U0001F600\"",
    "\"ü中😀\"",
    "'src/gen/**'",
    "\"tab\there\"",
    "\"#not a comment\"",
    "'a \"b\" c'",
    "\"\\uD800\"",
    "\"\\x41\"",
    "\"\\e\"",
    "\"\u{85}\"",
];

const INTS: &[&str] = &[
    "0",
    "-0",
    "+0",
    "7",
    "+15",
    "-3",
    "1_000",
    "9223372036854775807",
    "-9223372036854775808",
    "9223372036854775808",
    "01",
    "1__0",
    "_1",
    "1_",
    "0x1F",
    "1.5",
    "1e3",
    "inf",
    "-nan",
];

fn value(rng: &mut Rng, depth: usize) -> String {
    match rng.below(if depth > 2 { 3 } else { 5 }) {
        0 => rng.pick(STRINGS).to_string(),
        1 => rng.pick(INTS).to_string(),
        2 => rng.pick(&["true", "false"]).to_string(),
        _ => {
            let n = rng.below(4);
            let mut s = String::from("[");
            for i in 0..n {
                s.push_str(rng.pick(&["", " ", "\n", " # c\n  ", "\t"]));
                s.push_str(&value(rng, depth + 1));
                if i + 1 < n || rng.below(2) == 0 {
                    s.push(',');
                }
            }
            s.push_str(rng.pick(&["", " ", "\n", "# c\n"]));
            s.push(']');
            s
        }
    }
}

fn document(rng: &mut Rng) -> String {
    let mut doc = String::new();
    for _ in 0..1 + rng.below(8) {
        match rng.below(6) {
            0 => {
                let many = rng.below(3) == 0;
                let path: Vec<&str> = (0..1 + rng.below(3)).map(|_| rng.pick(KEYS)).collect();
                let sep = rng.pick(&[".", " . "]);
                let (open, close) = if many { ("[[", "]]") } else { ("[", "]") };
                doc.push_str(&format!(
                    "{open}{}{}{close}{}",
                    rng.pick(&["", " "]),
                    path.join(sep),
                    rng.pick(&["", " # header"])
                ));
            }
            1 => doc.push_str(rng.pick(&["# a comment", "", "   ", "\t# tab"])),
            _ => doc.push_str(&format!(
                "{}{}={}{}{}",
                rng.pick(KEYS),
                rng.pick(&[" ", "", "\t"]),
                rng.pick(&[" ", "", "\t"]),
                value(rng, 0),
                rng.pick(&["", " # trailing", "  "])
            )),
        }
        doc.push_str(rng.pick(&["\n", "\n", "\n", "\r\n"]));
    }
    doc
}

const FRAGMENTS: &[&str] = &[
    "\"",
    "'",
    "[",
    "]",
    "=",
    ".",
    "#",
    "\n",
    "\r",
    "\t",
    "\u{1}",
    "\u{7f}",
    "1.5",
    "0x1",
    "\"\"\"",
    "'''",
    "{",
    "}",
    ",",
    "\\u00e9",
    "\\",
    "true",
    " ",
    "a.b = 1\n",
    "[[x]]\n",
    "1979-05-27",
    "é",
    "[a]\n",
    "a = 1\n",
];

fn mutate(rng: &mut Rng, doc: &str) -> String {
    let mut chars: Vec<char> = doc.chars().collect();
    for _ in 0..1 + rng.below(3) {
        let at = rng.below(chars.len() + 1);
        match rng.below(3) {
            0 if at < chars.len() => {
                let end = (at + 1 + rng.below(4)).min(chars.len());
                chars.drain(at..end);
            }
            _ => {
                let piece: Vec<char> = rng.pick(FRAGMENTS).chars().collect();
                chars.splice(at..at, piece);
            }
        }
    }
    chars.into_iter().collect()
}

/// Reads a JSON list of documents on stdin, writes tomllib's verdicts: values JSON has no
/// spelling for (floats, which include nan and inf, and dates) as `{"other": repr}`.
const ORACLE: &str = r#"
import json, sys, tomllib
def clean(v):
    if isinstance(v, dict):
        return {k: clean(x) for k, x in v.items()}
    if isinstance(v, list):
        return [clean(x) for x in v]
    if isinstance(v, (bool, int, str)):
        return v
    return {"other": repr(v)}
out = []
for doc in json.load(sys.stdin):
    try:
        out.append({"ok": clean(tomllib.loads(doc))})
    except tomllib.TOMLDecodeError as e:
        out.append({"err": str(e)})
json.dump(out, sys.stdout)
"#;

/// `tomllib`'s verdict on each document: `Ok(value)` or `Err(message)`; `None` without
/// Python 3.11 or later.
fn tomllib(docs: &[String]) -> Option<Vec<Result<serde_json::Value, String>>> {
    let mut child = Command::new(std::env::var("PYTHON").unwrap_or_else(|_| "python3".into()))
        .args(["-c", ORACLE])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .ok()?;
    let input = serde_json::to_vec(docs).ok()?;
    let mut stdin = child.stdin.take()?;
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let out = child.wait_with_output().ok()?;
    let _ = writer.join();
    if !out.status.success() {
        eprintln!("tomllib oracle: {}", String::from_utf8_lossy(&out.stderr));
        return None;
    }
    let verdicts: Vec<serde_json::Value> = match serde_json::from_slice(&out.stdout) {
        Ok(v) => v,
        Err(e) => panic!("the tomllib oracle's output is not JSON: {e}"),
    };
    Some(
        verdicts
            .into_iter()
            .map(|v| match v.get("ok") {
                Some(ok) => Ok(ok.clone()),
                None => Err(v["err"].as_str().unwrap_or("").to_string()),
            })
            .collect(),
    )
}

#[test]
fn the_subset_reads_what_tomllib_reads() {
    let (seed, cases) = match std::env::var("MINIMCP_TOML_FUZZ_SEED").ok().as_deref() {
        Some("random") => {
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(1, |d| d.as_nanos() as u64);
            (nanos | 1, 0)
        }
        Some(n) => (n.parse().expect("MINIMCP_TOML_FUZZ_SEED is a number"), 0),
        None => (0x7011_5EED, 3000),
    };
    let cases = std::env::var("MINIMCP_TOML_FUZZ_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(if cases == 0 { 100_000 } else { cases });
    eprintln!("toml fuzz: seed {seed}, {cases} documents (replay: MINIMCP_TOML_FUZZ_SEED={seed})");
    let mut rng = Rng(seed);
    let docs: Vec<String> = (0..cases)
        .map(|i| {
            let doc = document(&mut rng);
            if i % 2 == 0 {
                doc
            } else {
                mutate(&mut rng, &doc)
            }
        })
        .collect();
    let Some(verdicts) = tomllib(&docs) else {
        assert!(
            std::env::var_os("MINIMCP_REQUIRE_CORPORA").is_none(),
            "Python 3.11+ (tomllib) is required here"
        );
        eprintln!("SKIPPED: no python3 with tomllib (3.11+) for the TOML oracle");
        return;
    };
    let (mut agreed_ok, mut problems) = (0, Vec::new());
    for (doc, verdict) in docs.iter().zip(verdicts) {
        match (parse(doc), verdict) {
            (Ok(ours), Ok(theirs)) if to_json(&ours) == theirs => agreed_ok += 1,
            (Ok(ours), Ok(theirs)) => problems.push(format!(
                "{doc:?}: read differently: ours {}, tomllib {theirs}",
                to_json(&ours)
            )),
            (Ok(ours), Err(e)) => problems.push(format!(
                "{doc:?}: accepted ({}) but tomllib refuses: {e}",
                to_json(&ours)
            )),
            (Err(e), Ok(theirs)) if !e.unsupported => problems.push(format!(
                "{doc:?}: a syntax error ({e}) but tomllib reads {theirs}"
            )),
            _ => {}
        }
    }
    eprintln!(
        "toml fuzz: {agreed_ok} documents read alike, {} problems",
        problems.len()
    );
    assert!(
        problems.is_empty(),
        "seed {seed}:\n{}",
        problems[..problems.len().min(20)].join("\n")
    );
    assert!(
        agreed_ok * 10 >= cases,
        "too few documents were valid: {agreed_ok} of {cases}"
    );
}

#[test]
fn errors_name_the_line() {
    for (doc, line, what) in [
        ("a = 1\nb = \n", 2, "expected a value"),
        ("[t]\nx = 1\n[t]\n", 3, "defined twice"),
        ("a = 1\na = 2\n", 2, "defined twice"),
        ("a = 1.5\n", 1, "whole decimal numbers"),
        ("\n\na.b = 1\n", 3, "dotted key"),
        ("x = \"open\n", 1, "not closed"),
        ("x = [1,\n2\n3]\n", 3, "expected `,` or `]`"),
        ("x = 1 y\n", 1, "unexpected `y`"),
        ("x = \"\\q\"\n", 1, "unknown escape"),
    ] {
        let err = parse(doc).expect_err(doc);
        assert_eq!(err.line, line, "{doc:?}: {err}");
        assert!(err.message.contains(what), "{doc:?}: {err}");
    }
}
