//! The tool-argument fuzzer: every tool of every profile is called, over a real stdio
//! session of the `minimcp` binary, with arguments generated from its `inputSchema` by a
//! seeded PRNG: valid values, boundary numbers, huge offsets, hostile strings (huge,
//! Unicode, NUL, paths, regex bombs), every enum value and invalid ones, wrong types,
//! missing required and unknown extra fields.
//!
//! The oracle knows nothing about the tools: every request is answered exactly once, no
//! `tools/call` is answered -32603 (Internal error), nothing on stderr says `panicked` or
//! shows a backtrace, and the process still answers a ping at the end and exits 0 when its
//! input closes. A tool error (`isError`) or -32602 for arguments it refuses is fine.
//!
//! Each round runs one session per profile, one per toolset of the workspace profile
//! alone, and one with a small result budget, over a seeded project (several languages, a
//! git history when git exists, an empty directory, awkward files). Half the sessions
//! declare sampling, elicitation and roots and answer the server's requests with generated
//! replies; the others declare nothing and answer them with an error. The server is never
//! left waiting.
//!
//! - `MINIMCP_TOOL_FUZZ_SEED=N` (or `random`) picks the seed; it is printed at the start
//!   and in every failure, so `MINIMCP_TOOL_FUZZ_SEED=N cargo test --test tool_fuzz`
//!   replays a run. The default is a fixed seed.
//! - `MINIMCP_TOOL_FUZZ_CASES=N`: generated argument sets per tool (default 300).
//! - `MINIMCP_TOOL_FUZZ_SECONDS=S`: repeat rounds, each with the next seed (printed), until
//!   S seconds have passed. `.ci/run` runs it this way with a random seed.
//! - `MINIMCP_TOOL_FUZZ_VERBOSE=1`: a few tool-error texts per tool, to see how far the
//!   generated arguments get.
//!
//! A call is also too slow when it takes longer than its input warrants ([`slow_bound`]: 20 s,
//! plus 20 ms per KiB of arguments). That bound cannot flake: in a debug build on a loaded
//! 2-core machine the slowest calls take a few seconds, and a walk stops itself at 15 s. A
//! call taking longer is a loop that grows faster than its input, like a matcher that was
//! quadratic in its matches; the seeded project has a file of many equal lines for that.
//!
//! A failure names the profile, the tool and the exact arguments (as sent), so one case can
//! also be replayed by hand: `minimcp call TOOL 'ARGS' --root DIR` (after a failure the
//! seeded project is kept, and its path printed).

mod common;

use common::git;
use common::rng::Rng;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde::Deserialize;
use serde_json::{json, Map, Value};

use common::{Out, Peer};

/// The seed of the bounded run in `cargo test`.
const FIXED_SEED: u64 = 0x5EED_1704;
/// Generated argument sets per tool in the bounded run.
const DEFAULT_CASES: usize = 300;
/// Requests in flight at once: enough to pipeline, few enough to answer the server's own
/// requests promptly.
const WINDOW: usize = 32;
/// How long a single answer may take (a walk in a debug build on a loaded machine).
const ANSWER_TIMEOUT: Duration = Duration::from_secs(60);
/// A call slower than this, plus [`SLOW_PER_KIB`] per KiB of its arguments, fails the run.
const SLOW_BASE: Duration = Duration::from_secs(20);
const SLOW_PER_KIB: Duration = Duration::from_millis(20);

/// How long a call with these arguments may take.
fn slow_bound(arguments: Option<&str>) -> Duration {
    SLOW_BASE + SLOW_PER_KIB * (arguments.map_or(0, str::len) / 1024) as u32
}

/// The server's default longest request line is 1 MiB: stay below it, or the line is
/// skipped unread and its id never answered.
const MAX_REQUEST_BYTES: usize = 900 * 1024;
/// A generated string this long ("huge").
const HUGE: usize = 100 * 1024;
/// A placeholder for a number JSON can carry but `serde_json::Value` cannot (2^64): it is
/// written into the request text as a bare number.
const RAW: &str = "\u{1}RAW\u{1}";

/// Tools left out, and why: the oracle would flag them for doing what they are for.
const SKIPPED: [(&str, &str); 2] = [
    (
        "transcript_panic",
        "panics on purpose; tests/transcripts pins its -32603",
    ),
    (
        "transcript_wait_for_cancel",
        "waits up to 10 s for a cancellation by design",
    ),
];
/// Tools that sleep on purpose (100 ms a call): a few cases each.
const SLOW: [&str; 2] = ["test_tool_with_logging", "test_tool_with_progress"];
/// Cases for a [`SLOW`] tool.
const SLOW_CASES: usize = 4;

/// Cases every session sends first: arguments that once broke a tool.
const CORPUS: &[(&str, &str)] = &[
    // Issue 17 part 4: the SARIF page sliced past the end of an empty violation list.
    (
        "analyze_complexity",
        r#"{"project_path":".","format":"sarif","offset":5}"#,
    ),
    (
        "analyze_complexity",
        r#"{"project_path":"empty","format":"sarif","offset":5}"#,
    ),
    (
        "analyze_complexity",
        r#"{"format":"markdown","offset":18446744073709551615,"max_cyclomatic":1}"#,
    ),
    (
        "analyze_complexity",
        r#"{"format":"json","offset":1e308,"max_cognitive":1}"#,
    ),
    (
        "analyze_code_churn",
        r#"{"format":"csv","offset":18446744073709551615}"#,
    ),
    ("search_files", r#"{"pattern":"**","offset":1e308}"#),
    (
        "list_directory",
        r#"{"path":".","depth":10,"offset":18446744073709551615}"#,
    ),
    (
        "search_text",
        r#"{"query":"fn","offset":18446744073709551615}"#,
    ),
    (
        "read_file",
        r#"{"path":"src/main.rs","byte_offset":18446744073709551615}"#,
    ),
    ("read_file", r#"{"path":"README.md","byte_offset":3}"#),
    (
        "read_file",
        r#"{"path":"src/main.rs","offset":18446744073709551615,"limit":10000}"#,
    ),
    ("list_templates", r#"{"offset":18446744073709551615}"#),
    (
        "search_templates",
        r#"{"query":"rust","offset":18446744073709551615}"#,
    ),
    ("scaffold_project", r#"{"offset":18446744073709551615}"#),
    // A text occurring on each of 60,000 lines once took time in the square of them to be
    // refused (the slow-call watch catches it).
    (
        "edit_file",
        r#"{"path":"data/repeat.txt","edits":[{"old_text":"x","new_text":"y"}]}"#,
    ),
    // The fixture added a + b unchecked: an overflow panicked (-32603).
    (
        "transcript_structured",
        r#"{"a":9223372036854775807,"b":1}"#,
    ),
    (
        "transcript_structured",
        r#"{"a":-9223372036854775808,"b":-1}"#,
    ),
    (
        "transcript_structured",
        r#"{"a":9223372036854775808,"b":0}"#,
    ),
];

// ---- Configuration ------------------------------------------------------------------------

struct Config {
    seed: u64,
    cases: usize,
    seconds: Option<u64>,
}

fn config() -> Config {
    let seed = match std::env::var("MINIMCP_TOOL_FUZZ_SEED").ok().as_deref() {
        None | Some("") => FIXED_SEED,
        Some("random") => {
            let now = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos() as u64);
            Rng(now ^ u64::from(std::process::id()) << 32).next()
        }
        Some(text) => text
            .parse()
            .unwrap_or_else(|_| panic!("MINIMCP_TOOL_FUZZ_SEED={text:?}: a number or random")),
    };
    let number = |name: &str| {
        std::env::var(name).ok().filter(|v| !v.is_empty()).map(|v| {
            v.parse::<u64>()
                .unwrap_or_else(|_| panic!("{name}={v:?}: a number"))
        })
    };
    Config {
        seed,
        cases: number("MINIMCP_TOOL_FUZZ_CASES").map_or(DEFAULT_CASES, |n| n as usize),
        seconds: number("MINIMCP_TOOL_FUZZ_SECONDS"),
    }
}

// ---- The seeded project -------------------------------------------------------------------

/// A small project in several languages, a git history when git exists, an empty directory,
/// and files that are awkward to read (binary, invalid UTF-8, CRLF, long lines).
fn seed_project() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("minimcp-toolfuzz-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let files: &[(&str, &[u8])] = &[
        ("README.md", "# Fuzz ünïcødé 👩‍👩‍👧\n\nשלום e\u{301} 日本語\n".as_bytes()),
        ("src/main.rs", b"fn main() {\n    let x = std::env::args().count();\n    if x > 1 && x < 5 {\n        for i in 0..x {\n            if i % 2 == 0 { println!(\"{i}\"); }\n        }\n    } else {\n        match x { 0 => {}, _ => println!(\"many\") }\n    }\n}\n"),
        ("src/lib.rs", b"/// Adds.\npub fn add(a: u32, b: u32) -> u32 {\n    if a == 0 { b } else { a + b }\n}\n"),
        ("lib/util.py", b"def f(a, b):\n    if a and b:\n        return 1\n    elif a or b:\n        while a:\n            a -= 1\n    return 2\n\nclass C:\n    def m(self):\n        pass\n"),
        ("web/app.ts", b"export function g(x: number): number {\n  return x > 0 ? (x > 10 ? 2 : 1) : 0;\n}\n"),
        ("web/index.js", b"function h(a) { try { if (a) { return a?.b ?? 1; } } catch (e) { return 0; } }\n"),
        ("cmd/main.go", b"package main\n\nfunc main() {\n\tfor i := 0; i < 3; i++ {\n\t\tif i == 1 {\n\t\t\tcontinue\n\t\t}\n\t}\n}\n"),
        ("nested/a/b/c/deep.py", b"def deep():\n    return [x for x in range(3) if x]\n"),
        ("data/\u{fc}n\u{ef}c\u{f8}d\u{e9}-\u{444}\u{430}\u{439}\u{43b}.txt", "caf\u{e9}\r\nline two\r\n".as_bytes()),
        ("data/binary.bin", &[0, 1, 2, 255, 254, 0, 10, 13, 0x89, b'P', b'N', b'G']),
        ("data/latin1.rs", b"fn f() { let s = \"\xe9\xe8\"; }\n"),
        ("data/no-newline.txt", b"no newline at the end"),
        // Unicode identifiers, strings and comments, and unterminated literals: the lexers.
        ("unicode/u.rs", "fn café(é: u8) -> u8 {\n    let ß = \"日本語 🦀\"; // коммент ✓\n    if é > 1 { 'ü' as u8 } else { 0 }\n}\nfn 𝕏() { let s = r#\"é\"#; let c = '🦀'; }\n".as_bytes()),
        ("unicode/u.py", "def ñ(ü):\n    \"\"\"Dóc 🦀\"\"\"\n    if ü: return \"日本\"\n    return f\"{ü}é\"\n".as_bytes()),
        ("unicode/u.ts", "const é = `🦀 ${x} é`;\nfunction ñ(a) { return /é+/u.test(a) ? \"ü\" : '日'; }\n".as_bytes()),
        ("unicode/u.go", "package main\n\nfunc Ñ() string { s := \"日本\"; if s != \"\" { return `🦀` }; return \"\" }\n".as_bytes()),
        ("unicode/v.rs", "fn f() { let x = 1; }\ne\u{301} 🦀 \"unterminated\n".as_bytes()),
        ("unicode/v.py", "def g():\n    x = \"\"\"unterminated é\n".as_bytes()),
        ("unicode/v.js", "/* unterminated é\n".as_bytes()),
        (".gitignore", b"target/\n*.log\n"),
        ("debug.log", b"ignored\n"),
        (".env", b"SECRET=1\n"),
    ];
    for (path, bytes) in files {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
        std::fs::write(&path, bytes).expect("write");
    }
    let long: String = (0..2000)
        .map(|i| format!("line {i} {}\n", "x".repeat(i % 300)))
        .collect();
    std::fs::write(dir.join("data/long.txt"), long).expect("write");
    // Many equal lines: a text occurring in each of them must not cost the square of them.
    std::fs::write(dir.join("data/repeat.txt"), "x\n".repeat(60_000)).expect("write");
    std::fs::create_dir_all(dir.join("empty")).expect("mkdir");
    if !git_history(&dir) {
        eprintln!("SKIPPED: git is not installed: analyze_code_churn is fuzzed on a directory without history");
    }
    dir
}

/// Two commits, the second changing a file; false when git is not there.
fn git_history(dir: &Path) -> bool {
    if !git(dir, &["init", "-q"]) {
        return false;
    }
    let first = git(dir, &["add", "-A"]) && git(dir, &["commit", "-qm", "first"]);
    let _ = std::fs::write(
        dir.join("src/lib.rs"),
        "pub fn add(a: u32, b: u32) -> u32 {\n    a.saturating_add(b)\n}\n",
    );
    first && git(dir, &["commit", "-qam", "second: ünïcødé"])
}

// ---- Profiles -----------------------------------------------------------------------------

/// The profiles `minimcp --help` lists under `--profile`, and the toolsets under `--toolsets`.
fn profiles_and_toolsets() -> (Vec<String>, Vec<String>) {
    let out = Command::new(common::minimcp())
        .arg("--help")
        .output()
        .expect("minimcp --help runs");
    let help =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    let block = |flag: &str| -> Vec<String> {
        let mut names = Vec::new();
        let mut inside = false;
        for line in help.lines() {
            let trimmed = line.trim_start();
            if trimmed.starts_with("--") {
                inside = trimmed.starts_with(flag);
            }
            if !inside {
                continue;
            }
            // `--profile NAME   workspace (default): ...` or an indented `conformance: ...`.
            let text = trimmed.strip_prefix(flag).map_or(trimmed, |rest| {
                rest.trim_start()
                    .split_once(char::is_whitespace)
                    .map_or("", |(_, after)| after.trim_start())
            });
            let Some((head, _)) = text.split_once(':') else {
                continue;
            };
            let name = head.trim_end_matches(" (default)");
            if !name.is_empty() && name.chars().all(|c| c.is_ascii_lowercase() || c == '_') {
                names.push(name.to_string());
            }
        }
        names
    };
    (block("--profile"), block("--toolsets"))
}

/// The command line that serves `profile` (the workspace one over the seeded project).
fn serve_args(target: &Target, project: &Path) -> Vec<String> {
    let mut args = vec![
        "serve".to_string(),
        "--profile".into(),
        target.profile.clone(),
    ];
    if let Some(toolset) = &target.toolset {
        args.push("--toolsets".into());
        args.push(toolset.clone());
    }
    if target.profile == "workspace" {
        args.push("--root".into());
        args.push(project.display().to_string());
    }
    args.extend(target.extra.iter().cloned());
    args
}

/// One session's server: a profile, or the workspace profile with one toolset.
struct Target {
    profile: String,
    toolset: Option<String>,
    /// More flags (a small result budget, one tool per tools/list page).
    extra: Vec<String>,
    /// This session gets the cases per tool divided by this.
    divisor: usize,
}

impl Target {
    fn new(profile: &str, toolset: Option<&str>, extra: &[String], divisor: usize) -> Target {
        Target {
            profile: profile.into(),
            toolset: toolset.map(String::from),
            extra: extra.to_vec(),
            divisor,
        }
    }

    fn label(&self) -> String {
        let mut label = self.profile.clone();
        if let Some(toolset) = &self.toolset {
            label.push_str(&format!(" --toolsets {toolset}"));
        }
        for flag in &self.extra {
            label.push(' ');
            label.push_str(flag);
        }
        label
    }
}

// ---- Argument generation ------------------------------------------------------------------

/// What a generator draws from besides its built-in values.
struct Gen<'a> {
    rng: Rng,
    /// Strings worth trying: enum values, defaults, backticked words of descriptions,
    /// resource URIs, the project's paths.
    dictionary: &'a [String],
    /// The seeded project's paths, relative to it: what a path argument names when a
    /// sane case wants a file that exists.
    paths: &'a [String],
    /// Huge strings still allowed in this case (they must fit in one request line).
    huge_left: usize,
    /// This case keeps to the schema (boundary values included), so calls get past
    /// validation into the tools' own code.
    sane: bool,
    /// The templates `list_templates` lists (workspace profile): a sane case often names
    /// one and passes parameters it declares, so calls reach the renderer.
    templates: &'a [Value],
}

const INTEGERS: &[&str] = &[
    "0",
    "-1",
    "1",
    "2",
    "3",
    "10",
    "100",
    "1000",
    "9007199254740992",
    "9007199254740993",
    "2147483647",
    "2147483648",
    "4294967295",
    "4294967296",
    "9223372036854775807",
    "9223372036854775808",
    "18446744073709551615",
    "-9223372036854775808",
    "1e308",
    "-1e308",
    "-0.0",
    "0.5",
    "1.0",
    "1e-300",
    "-0.5",
];

const STRINGS: &[&str] = &[
    "",
    " ",
    ".",
    "..",
    "../..",
    "../../../../../../etc/passwd",
    "/etc/passwd",
    "/",
    "~",
    "~/",
    "~root",
    "src/",
    "src//main.rs",
    "./src/../src/main.rs",
    "src/./lib.rs/",
    "src/main.rs/..",
    "empty",
    "empty/",
    "nested/a/b/c/deep.py",
    "data",
    "data/long.txt",
    "data/binary.bin",
    "data/latin1.rs",
    ".env",
    ".git",
    ".git/config",
    "debug.log",
    "C:\\Windows\\system32",
    "\\\\server\\share",
    "file:///etc/passwd",
    "template://",
    "template://../../x",
    "*",
    "**",
    "**/*.rs",
    "**/**/**/**/**/*",
    "{a,{b,{c,{d,{e,{f}}}}}}",
    "{,}{,}{,}{,}{,}{,}{,}{,}{,}{,}",
    "[",
    "[!]",
    "[]]",
    "[z-a]",
    "\\",
    "(a*)*b",
    "(a|a)*c",
    "(a+)+$",
    "a{99999}",
    "a{1,99999}",
    "a{99999}{99999}",
    "x{2147483648}",
    "a{4294967296}",
    "((((((((((((((((((((a))))))))))))))))))))",
    "(?:",
    "(?P<n>a)",
    "a**",
    "{",
    "}",
    "^$",
    "$^",
    ".*.*.*.*.*.*.*.*=",
    "\\b\\B\\d\\D\\w\\W\\s\\S",
    "[^\\x00-\\x{10FFFF}]",
    "\\u{10FFFF}",
    "{{",
    "}}",
    "{{project_name}}",
    "{{#if has_tests}}x{{/if}}",
    "${HOME}",
    "%s%n%x",
    "\0",
    "a\0b",
    "\u{1}\u{2}\u{7f}\u{1b}[31m",
    "\r\n\t\u{b}\u{c}",
    "\n",
    "é",
    "e\u{301}\u{301}\u{301}",
    "\u{5e9}\u{5dc}\u{5d5}\u{5dd}",
    "\u{202e}gnp.exe",
    "\u{200b}\u{200d}\u{feff}",
    "👩‍👩‍👧‍👦",
    "🦀",
    "𝕏𝕐",
    "日本語のテキスト",
    "\u{fffd}",
    "\u{10ffff}",
    "ﷺ",
    "true",
    "null",
    "0",
    "-1",
    "NaN",
];

impl Gen<'_> {
    fn string(&mut self) -> String {
        match self.rng.below(14) {
            0..=3 => self.rng.pick(STRINGS).to_string(),
            10 => {
                // Deep nesting and long repetitions for the parsers (regex, glob, braces,
                // template tags), up to the schemas' length limits and past them.
                let (open, close) = *self.rng.pick(&[
                    ("(", ")"),
                    ("(?:", ")"),
                    ("{", "}"),
                    ("{a,", "}"),
                    ("[", "]"),
                    ("{{", "}}"),
                    ("a*", ""),
                    ("(a|", ")*"),
                    ("\\", ""),
                    ("**/", ""),
                    ("../", ""),
                    ("a{2}", ""),
                ]);
                let most = if self.rng.one_in(4) { 2000 } else { 100 };
                let n = 1 + self.rng.below(most);
                format!("{}x{}", open.repeat(n), close.repeat(n))
            }
            4..=6 if !self.dictionary.is_empty() => self.rng.pick(self.dictionary).clone(),
            7 => format!("{}{}", self.string(), self.string()),
            8 if self.huge_left > 0 => {
                self.huge_left -= 1;
                let unit = self
                    .rng
                    .pick(&["a", "é", "🦀", "e\u{301}", "/", "a/", "\u{5e9}"]);
                unit.repeat(HUGE / unit.len())
            }
            9 => {
                // A very long path: many components, or one over the component limit.
                if self.rng.one_in(2) {
                    "a/".repeat(1 + self.rng.below(3000))
                } else {
                    "x".repeat(200 + self.rng.below(400))
                }
            }
            _ => {
                let alphabet = [
                    'a', 'b', 'Z', '0', '9', '.', '/', '\\', '*', '?', '[', ']', '{', '}', '(',
                    ')', '|', '+', '^', '$', ' ', '-', '_', ',', '\n', '\0', 'é', 'ß', '\u{301}',
                    '\u{5e9}', '🦀', '日', '\u{feff}',
                ];
                let len = self.rng.below(24);
                (0..len).map(|_| *self.rng.pick(&alphabet)).collect()
            }
        }
    }

    fn integer(&mut self, schema: &Map<String, Value>) -> Value {
        let bound = |key: &str| schema.get(key).and_then(Value::as_i64);
        if self.sane {
            let (min, max) = (bound("minimum"), bound("maximum"));
            return match (self.rng.below(6), min, max) {
                (0, Some(min), _) => json!(min),
                (1, _, Some(max)) => json!(max),
                // Huge values an unbounded schema allows: offsets and limits past any end.
                (2, min, None) if min.unwrap_or(0) >= 0 => {
                    let huge = [
                        "9007199254740993",
                        "9223372036854775808",
                        "18446744073709551615",
                        "1e308",
                        "1e20",
                    ];
                    if self.rng.one_in(6) {
                        json!(format!("{RAW}18446744073709551616"))
                    } else {
                        {
                            let text = *self.rng.pick::<&str>(&huge);
                            serde_json::from_str(text).expect("a JSON number")
                        }
                    }
                }
                (_, min, max) => {
                    let lo = min.unwrap_or(0);
                    let hi = max.unwrap_or(lo.saturating_add(50)).max(lo);
                    let span = (hi - lo).unsigned_abs().saturating_add(1);
                    json!(lo.saturating_add((self.rng.next() % span) as i64))
                }
            };
        }
        match (self.rng.below(8), bound("minimum"), bound("maximum")) {
            (0..=2, min, max) => {
                // In range, or near it when unbounded.
                let lo = min.unwrap_or(0);
                let hi = max.unwrap_or(lo.saturating_add(50)).max(lo);
                let span = (hi - lo).unsigned_abs().saturating_add(1);
                json!(lo.saturating_add((self.rng.next() % span) as i64))
            }
            (3, Some(min), _) => json!(if self.rng.one_in(2) { min } else { min - 1 }),
            (3, _, Some(max)) | (4, _, Some(max)) => {
                json!(if self.rng.one_in(2) { max } else { max + 1 })
            }
            (5, _, _) => json!(self.rng.next()),
            _ => self.raw_number(),
        }
    }

    /// One of [`INTEGERS`], as JSON text carries it.
    fn raw_number(&mut self) -> Value {
        match self.rng.below(INTEGERS.len() + 1) {
            // 2^64: more than u64 and i64 hold; serde_json::Value cannot carry it as written.
            0 => json!(format!("{RAW}18446744073709551616")),
            i => serde_json::from_str(INTEGERS[i - 1]).expect("a JSON number"),
        }
    }

    /// A value of any type: the wrong type for most schemas.
    fn any(&mut self, depth: usize) -> Value {
        match self.rng.below(if depth > 4 { 5 } else { 8 }) {
            0 => Value::Null,
            1 => json!(self.rng.one_in(2)),
            2 => self.raw_number(),
            3 | 4 => json!(self.string()),
            5 => {
                let n = self.rng.below(4);
                Value::Array((0..n).map(|_| self.any(depth + 1)).collect())
            }
            6 => {
                let n = self.rng.below(4);
                let mut map = Map::new();
                for _ in 0..n {
                    let key = self.string();
                    let value = self.any(depth + 1);
                    map.insert(key, value);
                }
                Value::Object(map)
            }
            _ => {
                // Nested well below serde_json's recursion limit of 128.
                let mut v = json!(1);
                for _ in 0..self.rng.below(40) {
                    v = if self.rng.one_in(2) {
                        json!([v])
                    } else {
                        json!({"a": v})
                    };
                }
                v
            }
        }
    }

    /// A value for `schema` (resolved against `root` for `$ref`s): mostly valid, often a
    /// boundary, sometimes the wrong type.
    fn value(&mut self, schema: &Value, root: &Value, depth: usize) -> Value {
        let Some(schema) = resolve(schema, root).as_object() else {
            return self.any(depth);
        };
        if depth > 6 || (!self.sane && self.rng.one_in(16)) {
            return self.any(depth);
        }
        if let Some(Value::Array(values)) = schema.get("enum") {
            if !values.is_empty() && (self.sane || !self.rng.one_in(6)) {
                return self.rng.pick(values).clone();
            }
            return json!(self.string());
        }
        if let Some(value) = schema.get("const") {
            if self.sane || !self.rng.one_in(4) {
                return value.clone();
            }
        }
        for key in ["anyOf", "oneOf"] {
            if let Some(Value::Array(branches)) = schema.get(key) {
                if !branches.is_empty() && self.rng.one_in(2) {
                    let branch = self.rng.pick(branches).clone();
                    return self.value(&branch, root, depth + 1);
                }
            }
        }
        let ty = match schema.get("type") {
            Some(Value::String(t)) => t.clone(),
            Some(Value::Array(types)) if !types.is_empty() => {
                self.rng.pick(types).as_str().unwrap_or("null").to_string()
            }
            _ if schema.contains_key("properties") => "object".into(),
            _ if schema.contains_key("items") => "array".into(),
            _ => return self.any(depth),
        };
        match ty.as_str() {
            "string" if self.sane && !self.dictionary.is_empty() && self.rng.one_in(2) => {
                json!(self.rng.pick(self.dictionary))
            }
            "string" => json!(self.string()),
            "integer" => self.integer(schema),
            "number" => {
                if self.rng.one_in(3) {
                    json!((self.rng.next() % 10_000) as f64 / 7.0)
                } else {
                    self.integer(schema)
                }
            }
            "boolean" => json!(self.rng.one_in(2)),
            "null" => Value::Null,
            "array" => {
                let n = match self.rng.below(8) {
                    0 => 0,
                    1 => 20 + self.rng.below(40),
                    _ => 1 + self.rng.below(4),
                };
                let items = schema.get("items").cloned().unwrap_or(json!({}));
                Value::Array(
                    (0..n)
                        .map(|_| self.value(&items, root, depth + 1))
                        .collect(),
                )
            }
            "object" => Value::Object(self.object(schema, root, depth)),
            _ => self.any(depth),
        }
    }

    /// An object for an object schema: its properties (all of `allOf`'s too), required ones
    /// nearly always, others half the time, and now and then an unknown one.
    fn object(
        &mut self,
        schema: &Map<String, Value>,
        root: &Value,
        depth: usize,
    ) -> Map<String, Value> {
        let mut properties = Map::new();
        let mut required = Vec::new();
        let mut parts = vec![Value::Object(schema.clone())];
        if let Some(Value::Array(all)) = schema.get("allOf") {
            parts.extend(all.iter().cloned());
        }
        for part in &parts {
            let part = resolve(part, root);
            if let Some(Value::Object(props)) = part.get("properties") {
                properties.extend(props.clone());
            }
            if let Some(Value::Array(names)) = part.get("required") {
                required.extend(names.iter().filter_map(Value::as_str).map(String::from));
            }
        }
        let mut out = Map::new();
        for (name, sub) in &properties {
            let wanted = if required.contains(name) {
                self.sane || !self.rng.one_in(16)
            } else {
                // Fewer optional ones in a sane case: tools refuse some combinations.
                self.rng.one_in(if self.sane { 3 } else { 2 })
            };
            if wanted {
                let pathlike = ["path", "directory", "paths"].contains(&name.as_str());
                let value =
                    if self.sane && pathlike && !self.paths.is_empty() && !self.rng.one_in(3) {
                        let path = json!(self.rng.pick(self.paths));
                        if name == "paths" {
                            json!([path])
                        } else {
                            path
                        }
                    } else {
                        self.value(sub, root, depth + 1)
                    };
                out.insert(name.clone(), value);
            }
        }
        if self.sane && properties.contains_key("parameters") && !self.templates.is_empty() {
            let template = self.rng.pick(self.templates).clone();
            if properties.contains_key("resource_uri") {
                out.insert("resource_uri".into(), template["uri"].clone());
            }
            if let Some(toolchain) = template
                .get("toolchain")
                .filter(|_| properties.contains_key("toolchain"))
            {
                out.insert("toolchain".into(), toolchain.clone());
            }
            out.insert("parameters".into(), self.template_parameters(&template));
        }
        let open =
            properties.is_empty() && schema.get("additionalProperties") != Some(&json!(false));
        if (!self.sane && self.rng.one_in(8)) || (open && !self.rng.one_in(3)) {
            for _ in 0..1 + self.rng.below(3) {
                let key = if self.rng.one_in(2) && !self.dictionary.is_empty() {
                    self.rng.pick(self.dictionary).clone()
                } else {
                    self.string()
                };
                let value = self.any(depth + 1);
                out.insert(key, value);
            }
        }
        out
    }

    /// Values for a template's declared parameters: mostly plausible, one in a while
    /// hostile (braces, Unicode, huge, the wrong type), some left out.
    fn template_parameters(&mut self, template: &Value) -> Value {
        let mut out = Map::new();
        for parameter in template["parameters"].as_array().into_iter().flatten() {
            let Some(name) = parameter["name"].as_str() else {
                continue;
            };
            if parameter["required"] != json!(true) && self.rng.one_in(3) {
                continue;
            }
            let value = match (self.rng.below(4), parameter["type"].as_str()) {
                (0, _) => self.any(2),
                (_, Some("boolean")) => json!(self.rng.one_in(2)),
                (_, Some("number")) => self.integer(parameter.as_object().expect("an object")),
                (_, Some("array")) => {
                    let n = self.rng.below(4);
                    Value::Array((0..n).map(|_| json!(self.string())).collect())
                }
                (1, _) => json!(self.string()),
                _ => json!(*self.rng.pick(&[
                    "my-tool",
                    "x",
                    "a-b_c",
                    "Tool2",
                    "{{project_name}}",
                    "é"
                ])),
            };
            out.insert(name.to_string(), value);
        }
        Value::Object(out)
    }

    /// The `arguments` of one call: an object for the tool's schema, or now and then
    /// none at all or not an object.
    fn arguments(&mut self, schema: &Value) -> Option<Value> {
        self.huge_left = if self.rng.one_in(4) { 2 } else { 0 };
        self.sane = self.rng.one_in(2);
        if self.sane {
            return Some(match resolve(schema, schema) {
                Value::Object(s) => Value::Object(self.object(s, schema, 0)),
                _ => json!({}),
            });
        }
        match self.rng.below(50) {
            0 => None,
            1 => Some(self.any(1)),
            _ => Some(match resolve(schema, schema) {
                Value::Object(s) => Value::Object(self.object(s, schema, 0)),
                _ => self.any(0),
            }),
        }
    }
}

/// Follows a local `$ref` (`#/$defs/x`, `#/definitions/x`) against `root`.
fn resolve<'a>(schema: &'a Value, root: &'a Value) -> &'a Value {
    let mut at = schema;
    for _ in 0..8 {
        let Some(target) = at.get("$ref").and_then(Value::as_str) else {
            return at;
        };
        let Some(pointer) = target.strip_prefix('#') else {
            return at;
        };
        match root.pointer(pointer) {
            Some(next) => at = next,
            None => return at,
        }
    }
    at
}

/// Strings from the tools' schemas worth reusing: enum values, string defaults and
/// backticked words of descriptions (parameter names, for instance).
fn harvest(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, v) in map {
                match (key.as_str(), v) {
                    ("enum", Value::Array(values)) => {
                        out.extend(values.iter().filter_map(Value::as_str).map(String::from))
                    }
                    ("default", Value::String(s)) => out.push(s.clone()),
                    ("description", Value::String(s)) => out.extend(
                        s.split('`')
                            .skip(1)
                            .step_by(2)
                            .filter(|w| !w.is_empty() && w.len() < 80)
                            .map(String::from),
                    ),
                    _ => harvest(v, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|v| harvest(v, out)),
        _ => {}
    }
}

/// Every string in `value` (short ones), for the dictionary.
fn harvest_values(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::String(s) if s.len() < 200 => out.push(s.clone()),
        Value::Object(map) => map.values().for_each(|v| harvest_values(v, out)),
        Value::Array(items) => items.iter().for_each(|v| harvest_values(v, out)),
        _ => {}
    }
}

// ---- The session --------------------------------------------------------------------------

/// What the oracle reads of each message (no more: results can be large).
#[derive(Deserialize)]
struct Message {
    id: Option<Value>,
    method: Option<String>,
    error: Option<ErrorObject>,
    result: Option<Value>,
}

#[derive(Deserialize)]
struct ErrorObject {
    code: i64,
    message: String,
}

/// One `tools/call` sent.
struct Case {
    tool: String,
    /// The arguments exactly as written into the request (`None`: no `arguments` at all).
    arguments: Option<String>,
    /// A `progressToken` in `_meta`, so the tools' progress reports run too.
    progress: bool,
}

impl Case {
    fn replay(&self, profile: &str, seed: u64) -> String {
        format!(
            "profile {profile}, seed {seed}: tool {}{} with arguments {}",
            self.tool,
            if self.progress {
                " (with a progressToken)"
            } else {
                ""
            },
            self.arguments
                .as_deref()
                .map_or("(none)".into(), |a| abbreviate(a, 2000))
        )
    }
}

/// Long text cut in the middle for a message.
fn abbreviate(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let mut head = max / 2;
    while !text.is_char_boundary(head) {
        head -= 1;
    }
    let mut tail = text.len() - max / 2;
    while !text.is_char_boundary(tail) {
        tail += 1;
    }
    format!(
        "{}[... {} bytes ...]{}",
        &text[..head],
        tail - head,
        &text[tail..]
    )
}

#[derive(Default)]
struct Tally {
    calls: usize,
    ok: usize,
    tool_errors: usize,
    /// JSON-RPC errors by code.
    errors: BTreeMap<i64, usize>,
    server_requests: usize,
    /// Per tool: ok, isError, JSON-RPC error.
    per_tool: BTreeMap<String, [usize; 3]>,
    /// Per tool, the first few tool-error texts (`MINIMCP_TOOL_FUZZ_VERBOSE=1` prints them:
    /// how far the generated arguments get).
    samples: BTreeMap<String, Vec<String>>,
    /// The slowest answers: the time since the previous answer (the server answers in
    /// turn, so with requests queued that is about the call's own time), and the call.
    slowest: Vec<(Duration, String)>,
}

struct Session {
    peer: Peer,
    /// The profile, and whether the client declared capabilities (for reports).
    profile: String,
    seed: u64,
    failures: Vec<String>,
    /// `Some` when the client declared sampling, elicitation and roots: the server's
    /// requests then get generated replies (results, junk, errors) from this PRNG.
    replies: Option<Rng>,
}

impl Session {
    fn start(target: &Target, project: &Path, seed: u64, declare: bool) -> Session {
        let peer =
            Peer::spawn(common::minimcp(), &serve_args(target, project)).expect("minimcp starts");
        let label = target.label();
        let mut session = Session {
            peer,
            profile: if declare {
                format!("{label} (client capabilities declared)")
            } else {
                label
            },
            seed,
            failures: Vec::new(),
            replies: declare.then_some(Rng(seed ^ 0xC1E7)),
        };
        let capabilities = if declare {
            json!({"sampling": {}, "elicitation": {"form": {}}, "roots": {"listChanged": false}})
        } else {
            json!({})
        };
        let init = session.request(
            "init",
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": capabilities,
                   "clientInfo": {"name": "tool_fuzz", "version": "1"}}),
        );
        assert!(
            init.get("protocolVersion").is_some(),
            "{}: initialize: {init}",
            session.profile
        );
        session.peer.send_line(
            &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string(),
        );
        session
    }

    /// Sends one request and waits for its result, answering anything the server asks.
    fn request(&mut self, id: &str, method: &str, params: Value) -> Value {
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.peer.send_line(&line.to_string());
        loop {
            let message = self.next_message().unwrap_or_else(|why| {
                panic!(
                    "{}: no answer to {method}: {why}\nstderr:\n{}",
                    self.profile,
                    self.peer.stderr_text()
                )
            });
            if message.method.is_some() {
                self.answer_server(&message);
                continue;
            }
            if message.id.as_ref().and_then(Value::as_str) == Some(id) {
                if let Some(error) = message.error {
                    panic!(
                        "{}: {method} failed: {} {}",
                        self.profile, error.code, error.message
                    );
                }
                return message.result.unwrap_or(Value::Null);
            }
        }
    }

    fn next_message(&mut self) -> Result<Message, String> {
        match self.peer.recv(ANSWER_TIMEOUT) {
            Ok(Out::Line(line)) => serde_json::from_slice(&line).map_err(|e| {
                format!(
                    "not a JSON-RPC message ({e}): {}",
                    abbreviate(&String::from_utf8_lossy(&line), 500)
                )
            }),
            Ok(Out::Partial(bytes)) => Err(format!(
                "output without a line ending: {}",
                abbreviate(&String::from_utf8_lossy(&bytes), 500)
            )),
            Ok(Out::Eof) => Err("stdout closed: the server exited".into()),
            Err(_) => Err(format!("nothing for {ANSWER_TIMEOUT:?}")),
        }
    }

    /// A request from the server (sampling, elicitation, roots) is answered at once, so
    /// the server never waits: with an error when the client declared no capabilities,
    /// else with a generated reply (plausible, empty, junk or an error).
    fn answer_server(&mut self, message: &Message) {
        let Some(id) = &message.id else { return };
        let error = json!({"code": -32601, "message": "the fuzzing client answers no requests"});
        let reply = match &mut self.replies {
            None => json!({"jsonrpc": "2.0", "id": id, "error": error}),
            Some(rng) => {
                let mut gen = Gen {
                    rng: Rng(rng.next()),
                    dictionary: &[],
                    paths: &[],
                    huge_left: 0,
                    sane: false,
                    templates: &[],
                };
                let result = match (gen.rng.below(6), message.method.as_deref()) {
                    (0, _) => None,
                    (1, _) => Some(json!({})),
                    (2, _) => Some(gen.any(1)),
                    (_, Some("elicitation/create")) => {
                        let action = *gen.rng.pick(&["accept", "decline", "cancel", "maybe"]);
                        let content = gen.any(1);
                        Some(json!({"action": action, "content": content}))
                    }
                    (_, Some("sampling/createMessage")) => {
                        let text = gen.string();
                        Some(json!({"role": "assistant", "model": "fuzz",
                            "content": {"type": "text", "text": text}}))
                    }
                    (_, Some("roots/list")) => {
                        let uri = gen.string();
                        Some(json!({"roots": [{"uri": format!("file://{uri}")}, {"uri": uri}]}))
                    }
                    _ => Some(json!({})),
                };
                match result {
                    Some(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
                    None => json!({"jsonrpc": "2.0", "id": id, "error": error}),
                }
            }
        };
        self.peer.send_line(&arguments_text(&reply));
    }

    /// Every tool of the profile (following `nextCursor`).
    fn tools(&mut self) -> Vec<Value> {
        let mut tools = Vec::new();
        let mut cursor: Option<String> = None;
        for page in 0.. {
            let params = cursor.map_or(json!({}), |c| json!({"cursor": c}));
            let result = self.request(&format!("list{page}"), "tools/list", params);
            tools.extend(result["tools"].as_array().cloned().unwrap_or_default());
            match result.get("nextCursor").and_then(Value::as_str) {
                Some(next) => cursor = Some(next.to_string()),
                None => break,
            }
        }
        tools
    }

    /// Resource URIs (template://… among them), for the dictionary.
    fn resource_uris(&mut self) -> Vec<String> {
        let result = self.request("resources", "resources/list", json!({}));
        result["resources"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|r| r["uri"].as_str().map(String::from))
            .collect()
    }

    /// Sends every case, at most [`WINDOW`] in flight, and checks every answer.
    fn run(&mut self, cases: Vec<Case>, tally: &mut Tally) {
        let mut pending: HashMap<u64, Case> = HashMap::new();
        let mut answered: HashSet<u64> = HashSet::new();
        let mut queue = cases
            .into_iter()
            .enumerate()
            .map(|(i, c)| (i as u64 + 1, c));
        let mut exhausted = false;
        let mut last_answer = Instant::now();
        loop {
            while !exhausted && pending.len() < WINDOW {
                match queue.next() {
                    Some((id, case)) => {
                        self.peer.send_line(&request_text(id, &case));
                        pending.insert(id, case);
                        tally.calls += 1;
                    }
                    None => exhausted = true,
                }
            }
            if pending.is_empty() {
                return;
            }
            let message = match self.next_message() {
                Ok(message) => message,
                Err(why) => {
                    let mut oldest: Vec<_> = pending.iter().collect();
                    oldest.sort_by_key(|(id, _)| **id);
                    let unanswered: Vec<String> = oldest
                        .iter()
                        .take(3)
                        .map(|(id, c)| format!("id {id}: {}", c.replay(&self.profile, self.seed)))
                        .collect();
                    self.failures.push(format!(
                        "{why}; {} requests unanswered, the oldest:\n  {}",
                        pending.len(),
                        unanswered.join("\n  ")
                    ));
                    return;
                }
            };
            if message.method.is_some() {
                if message.id.is_some() {
                    tally.server_requests += 1;
                }
                self.answer_server(&message);
                continue;
            }
            let Some(id) = message.id.as_ref().and_then(Value::as_u64) else {
                self.failures.push(format!(
                    "{}: an answer with id {:?} that no request had (error: {:?})",
                    self.profile,
                    message.id,
                    message.error.map(|e| (e.code, e.message))
                ));
                continue;
            };
            let Some(case) = pending.remove(&id) else {
                let what = if answered.contains(&id) {
                    "answered twice"
                } else {
                    "never sent"
                };
                self.failures
                    .push(format!("{}: id {id} {what}", self.profile));
                continue;
            };
            answered.insert(id);
            let took = last_answer.elapsed();
            last_answer = Instant::now();
            let sleeps = SLOW.contains(&case.tool.as_str());
            let bound = slow_bound(case.arguments.as_deref());
            if !sleeps && took > bound {
                self.failures.push(format!(
                    "too slow: {took:.1?}, more than the {bound:.0?} its input warrants, for {}",
                    case.replay(&self.profile, self.seed)
                ));
            }
            if !sleeps && (tally.slowest.len() < 3 || took > tally.slowest[2].0) {
                tally
                    .slowest
                    .push((took, case.replay(&self.profile, self.seed)));
                tally.slowest.sort_by_key(|s| std::cmp::Reverse(s.0));
                tally.slowest.truncate(3);
            }
            let counts = tally.per_tool.entry(case.tool.clone()).or_default();
            match (message.error, message.result) {
                (Some(error), None) => {
                    *tally.errors.entry(error.code).or_default() += 1;
                    counts[2] += 1;
                    if error.code == -32603 {
                        self.failures.push(format!(
                            "-32603 ({}) for {}",
                            error.message,
                            case.replay(&self.profile, self.seed)
                        ));
                    }
                }
                (None, Some(result)) if result["content"].is_array() => {
                    if result["isError"] == json!(true) {
                        tally.tool_errors += 1;
                        counts[1] += 1;
                        let samples = tally.samples.entry(case.tool.clone()).or_default();
                        if samples.len() < 8 {
                            let text = result["content"][0]["text"].as_str().unwrap_or_default();
                            samples.push(abbreviate(text, 200));
                        }
                    } else {
                        tally.ok += 1;
                        counts[0] += 1;
                    }
                }
                (error, result) => self.failures.push(format!(
                    "neither a tool result with content nor an error ({:?}, {}) for {}",
                    error.map(|e| e.code),
                    result.map_or("no result".into(), |r| abbreviate(&r.to_string(), 300)),
                    case.replay(&self.profile, self.seed)
                )),
            }
        }
    }

    /// The end: the server still answers a ping, exits 0 when its input closes, and wrote
    /// nothing about a panic on stderr.
    fn finish(mut self) -> Vec<String> {
        if self.failures.iter().all(|f| !f.contains("unanswered")) {
            let pong = self.request("final-ping", "ping", json!({}));
            if pong != json!({}) {
                self.failures
                    .push(format!("{}: ping answered {pong}", self.profile));
            }
        }
        let status = self.peer.wait_exit(Duration::from_secs(20));
        if status.map(|s| s.success()) != Some(true) {
            self.failures.push(format!(
                "{}: exit status {status:?} after stdin closed",
                self.profile
            ));
        }
        let stderr = self.peer.stderr_text();
        for sign in ["panicked", "stack backtrace", "RUST_BACKTRACE"] {
            if stderr.contains(sign) {
                self.failures.push(format!(
                    "{}: stderr says {sign:?}:\n{}",
                    self.profile,
                    abbreviate(&stderr, 4000)
                ));
                break;
            }
        }
        let (profile, seed) = (self.profile.clone(), self.seed);
        self.failures
            .into_iter()
            .map(|f| format!("[{profile}, seed {seed}] {f}"))
            .collect()
    }
}

/// The request line of a case, with [`RAW`] numbers written bare.
fn request_text(id: u64, case: &Case) -> String {
    let arguments = case
        .arguments
        .as_ref()
        .map_or(String::new(), |a| format!(",\"arguments\":{a}"));
    let name = serde_json::to_string(&case.tool).expect("a string");
    let meta = if case.progress {
        format!(",\"_meta\":{{\"progressToken\":\"p{id}\"}}")
    } else {
        String::new()
    };
    format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"tools/call\",\"params\":{{\"name\":{name}{arguments}{meta}}}}}")
}

/// The arguments as JSON text, [`RAW`] placeholders replaced by their bare numbers.
fn arguments_text(arguments: &Value) -> String {
    let text = arguments.to_string();
    // The placeholder's \u0001 is escaped as `\u0001` by serde_json.
    let escaped = serde_json::to_string(RAW).expect("a string");
    let escaped = &escaped[1..escaped.len() - 1];
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(at) = rest.find(&format!("\"{escaped}")) {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1 + escaped.len()..];
        let end = after.find('"').expect("the placeholder string ends");
        out.push_str(&after[..end]);
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    out
}

/// The cases of one profile's session: the corpus's, then `cases` generated per tool,
/// tools interleaved.
fn cases_for(
    tools: &[Value],
    dictionary: &[String],
    paths: &[String],
    templates: &[Value],
    seed: u64,
    cases: usize,
) -> Vec<Case> {
    let mut out = Vec::new();
    for (tool, arguments) in CORPUS {
        if tools.iter().any(|t| t["name"] == *tool) {
            out.push(Case {
                tool: tool.to_string(),
                arguments: Some(arguments.to_string()),
                progress: false,
            });
        }
    }
    let mut gen = Gen {
        rng: Rng(seed),
        dictionary,
        paths,
        huge_left: 0,
        sane: false,
        templates,
    };
    for round in 0..cases {
        for tool in tools {
            let name = tool["name"].as_str().unwrap_or_default();
            if SLOW.contains(&name) && round >= SLOW_CASES {
                continue;
            }
            let mut arguments = gen
                .arguments(&tool["inputSchema"])
                .map(|a| arguments_text(&a));
            if arguments
                .as_ref()
                .is_some_and(|a| a.len() > MAX_REQUEST_BYTES)
            {
                arguments = Some("{}".into());
            }
            out.push(Case {
                tool: name.to_string(),
                arguments,
                progress: gen.rng.one_in(8),
            });
        }
    }
    out
}

/// One round: every profile's session with `seed`. Returns the failures.
fn round(
    project: &Path,
    targets: &[Target],
    seed: u64,
    cases: usize,
    tally: &mut Tally,
) -> Vec<String> {
    let mut failures = Vec::new();
    let mut fuzzed: Vec<String> = Vec::new();
    let mut paths: Vec<String> = Vec::new();
    collect_paths(project, project, &mut paths);
    for (n, target) in targets.iter().enumerate() {
        // Half the sessions declare the client's capabilities, by seed and profile.
        let declare = seed.wrapping_add(n as u64) % 2 == 1;
        let mut session = Session::start(target, project, seed, declare);
        let listed = session.tools();
        assert!(!listed.is_empty(), "{} lists no tools", target.label());
        let mut dictionary = paths.clone();
        dictionary.push(project.display().to_string());
        dictionary.push(format!("{}/src/main.rs", project.display()));
        harvest(&Value::Array(listed.clone()), &mut dictionary);
        let mut templates = Vec::new();
        let has = |name: &str| listed.iter().any(|t| t["name"] == name);
        if target.profile == "workspace" && has("list_templates") {
            dictionary.extend(session.resource_uris());
            // The templates' URIs and parameter names, so some calls get past the lookup.
            let listing = session.request(
                "templates",
                "tools/call",
                json!({"name": "list_templates", "arguments": {}}),
            );
            let listing = &listing["structuredContent"];
            harvest_values(listing, &mut dictionary);
            templates = listing["templates"].as_array().cloned().unwrap_or_default();
        }
        // A tool two profiles share (conformance's in transcripts) is the same code: once.
        // A toolset alone, or other flags, get their tools again, briefly.
        let alone = target.divisor > 1;
        let tools: Vec<Value> = listed
            .into_iter()
            .filter(|t| {
                let name = t["name"].as_str().unwrap_or_default();
                (alone || !fuzzed.iter().any(|f| f == name))
                    && !SKIPPED.iter().any(|(s, _)| *s == name)
            })
            .collect();
        fuzzed.extend(
            tools
                .iter()
                .filter_map(|t| t["name"].as_str().map(String::from)),
        );
        let seed = seed.wrapping_add(n as u64);
        let cases = (cases / target.divisor).max(3);
        session.run(
            cases_for(&tools, &dictionary, &paths, &templates, seed, cases),
            tally,
        );
        failures.extend(session.finish());
    }
    failures
}

/// A round's sessions: every profile, each toolset of the workspace profile alone, and the
/// workspace with a small result budget (by seed: paging at its edges) and one tool per
/// tools/list page.
fn targets(profiles: &[String], toolsets: &[String], seed: u64) -> Vec<Target> {
    let mut targets: Vec<Target> = profiles
        .iter()
        .map(|p| Target::new(p, None, &[], 1))
        .collect();
    targets.extend(
        toolsets
            .iter()
            .map(|t| Target::new("workspace", Some(t), &[], 10)),
    );
    let budget = ["1024", "1500", "4096", "20000"][(seed % 4) as usize];
    let small = ["--max-result-bytes", budget, "--page-size", "1"].map(String::from);
    targets.push(Target::new("workspace", None, &small, 3));
    targets
}

/// Paths of the project relative to it, for the dictionary.
fn collect_paths(root: &Path, dir: &Path, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.file_name().is_some_and(|n| n == ".git") {
            continue;
        }
        if let Ok(rel) = path.strip_prefix(root) {
            out.push(rel.display().to_string());
        }
        if path.is_dir() {
            collect_paths(root, &path, out);
        }
    }
}

#[test]
fn every_tool_answers_every_generated_argument_set() {
    let config = config();
    eprintln!(
        "tool fuzz: seed {} ({} cases per tool{}); replay with MINIMCP_TOOL_FUZZ_SEED={}",
        config.seed,
        config.cases,
        config
            .seconds
            .map_or(String::new(), |s| format!(", rounds for {s} s")),
        config.seed
    );
    let (profiles, toolsets) = profiles_and_toolsets();
    for expected in ["workspace", "conformance", "transcripts"] {
        assert!(
            profiles.iter().any(|p| p == expected),
            "--help lists no {expected} profile: {profiles:?}"
        );
    }
    assert!(
        toolsets.len() >= 3,
        "--help lists the toolsets: {toolsets:?}"
    );
    for (tool, why) in SKIPPED {
        eprintln!("tool fuzz: {tool} is not fuzzed: {why}");
    }
    let project = seed_project();
    let started = Instant::now();
    let mut tally = Tally::default();
    let mut seed = config.seed;
    let mut rounds = 0;
    let failures = loop {
        let round_start = Instant::now();
        let targets = targets(&profiles, &toolsets, seed);
        let failures = round(&project, &targets, seed, config.cases, &mut tally);
        rounds += 1;
        eprintln!(
            "tool fuzz: round {rounds} seed {seed}: {} calls so far, round took {:.1?}",
            tally.calls,
            round_start.elapsed()
        );
        if !failures.is_empty() {
            break failures;
        }
        match config.seconds {
            Some(s) if started.elapsed() < Duration::from_secs(s) => seed = Rng(seed).next(),
            _ => break failures,
        }
    };
    if failures.is_empty() {
        let _ = std::fs::remove_dir_all(&project);
    } else {
        eprintln!(
            "tool fuzz: the seeded project is kept at {}",
            project.display()
        );
    }
    let mut report = String::new();
    let _ = writeln!(
        report,
        "tool fuzz: {} rounds, {} calls in {:.1?}: {} results, {} tool errors, JSON-RPC errors {:?}, {} server requests answered",
        rounds,
        tally.calls,
        started.elapsed(),
        tally.ok,
        tally.tool_errors,
        tally.errors,
        tally.server_requests
    );
    for (tool, [ok, tool_error, error]) in &tally.per_tool {
        let _ = writeln!(
            report,
            "  {tool}: {ok} ok, {tool_error} isError, {error} errors"
        );
    }
    for (took, case) in &tally.slowest {
        let _ = writeln!(report, "  slow: {took:.1?} for {}", abbreviate(case, 300));
    }
    if std::env::var_os("MINIMCP_TOOL_FUZZ_VERBOSE").is_some() {
        for (tool, samples) in &tally.samples {
            let _ = writeln!(report, "  {tool} tool errors, for example:");
            for sample in samples {
                let _ = writeln!(report, "    {sample}");
            }
        }
    }
    eprint!("{report}");
    assert!(
        failures.is_empty(),
        "{} failures (replay with MINIMCP_TOOL_FUZZ_SEED={seed}):\n{}",
        failures.len(),
        failures
            .iter()
            .take(20)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}
