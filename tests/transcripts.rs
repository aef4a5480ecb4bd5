//! Replays the transcript corpus in `conformance/` against the real server and reports every
//! mismatch (file, line, expected, got), then fails once.
//!
//! The format, the environment variables and the coverage matrix are documented in
//! `conformance/README.md`. In short:
//!
//! - `UPDATE_TRANSCRIPTS=1` re-blesses: expected lines that do not match are rewritten from
//!   what the server sent (placeholders that still match are kept), and the coverage matrix
//!   in the README is regenerated.
//! - `MINIMCP_TRANSCRIPT_SERVER="cmd args"` replays the corpus against another stdio MCP
//!   server; `@args` lines are then ignored, `@minimcp-only` transcripts are skipped, and
//!   transcripts needing `@fixture`s run only when `MINIMCP_TRANSCRIPT_FIXTURES` names them.
//! - `MINIMCP_TRANSCRIPT_FILTER=text` runs only transcripts whose path contains `text`.

mod common;

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;

use common::{Out, Peer};

/// How long one expected line may take, unless a transcript says `@timeout`.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(5);
/// After a line failed to arrive, later lines of the same transcript wait this long at most.
const AFTER_MISS_TIMEOUT: Duration = Duration::from_millis(300);
/// `@quiet` without a duration.
const DEFAULT_QUIET: Duration = Duration::from_millis(200);
/// While re-blessing: how long output must pause before the next client line is sent.
const UPDATE_SETTLE: Duration = Duration::from_millis(150);

// ---- The format ---------------------------------------------------------------------------

/// One parsed transcript.
#[derive(Debug)]
struct Transcript {
    /// Path relative to `conformance/`, with `/` separators.
    name: String,
    path: PathBuf,
    /// The source lines, for re-blessing.
    source: Vec<String>,
    steps: Vec<Step>,
    args: Vec<String>,
    minimcp_only: bool,
    fixtures: Vec<String>,
    timeout: Duration,
}

#[derive(Debug)]
struct Step {
    /// 1-based line in the file.
    line: usize,
    kind: StepKind,
}

#[derive(Debug)]
enum StepKind {
    /// Bytes to write to the server's stdin.
    Send(Vec<u8>),
    /// The next line the server writes must match this value.
    Expect(Value),
    /// Close the server's stdin.
    Close,
    /// The server writes nothing for this long.
    Quiet(Duration),
    /// Close stdin; the server sends nothing more than expected and exits with this status.
    ExpectExit(i32),
}

fn parse_transcript(root: &Path, path: &Path) -> Result<Transcript, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read: {e}"))?;
    let name = path
        .strip_prefix(root)
        .unwrap_or(path)
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/");
    let mut t = Transcript {
        name,
        path: path.to_path_buf(),
        source: text.lines().map(str::to_string).collect(),
        steps: Vec::new(),
        args: Vec::new(),
        minimcp_only: false,
        fixtures: Vec::new(),
        timeout: DEFAULT_TIMEOUT,
    };
    for (i, raw) in t.source.iter().enumerate() {
        let line = i + 1;
        let fail = |why: String| format!("{}:{line}: {why}", t.name);
        let trimmed = raw.trim_end();
        let kind = if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        } else if let Some(rest) = raw.strip_prefix("--> ") {
            let mut bytes = rest.as_bytes().to_vec();
            bytes.push(b'\n');
            StepKind::Send(bytes)
        } else if let Some(rest) = raw.strip_prefix("-->raw ") {
            StepKind::Send(unescape(rest).map_err(fail)?)
        } else if let Some(rest) = raw.strip_prefix("<-- ") {
            let value: Value = serde_json::from_str(rest)
                .map_err(|e| fail(format!("an expected line must be JSON: {e}")))?;
            StepKind::Expect(value)
        } else if let Some(directive) = trimmed.strip_prefix('@') {
            let (word, rest) = directive.split_once(' ').unwrap_or((directive, ""));
            let rest = rest.trim();
            let millis = |default: Duration| -> Result<Duration, String> {
                if rest.is_empty() {
                    return Ok(default);
                }
                rest.parse::<u64>()
                    .map(Duration::from_millis)
                    .map_err(|_| fail(format!("@{word} takes milliseconds, not {rest:?}")))
            };
            match word {
                "args" => {
                    t.args.extend(rest.split_whitespace().map(str::to_string));
                    continue;
                }
                "minimcp-only" => {
                    t.minimcp_only = true;
                    continue;
                }
                "fixture" => {
                    t.fixtures
                        .extend(rest.split_whitespace().map(str::to_string));
                    continue;
                }
                "timeout" => {
                    t.timeout = millis(DEFAULT_TIMEOUT)?;
                    continue;
                }
                "close" => StepKind::Close,
                "quiet" => StepKind::Quiet(millis(DEFAULT_QUIET)?),
                "expect-exit" => StepKind::ExpectExit(
                    rest.parse()
                        .map_err(|_| fail(format!("@expect-exit takes a status, not {rest:?}")))?,
                ),
                other => return Err(fail(format!("unknown directive @{other}"))),
            }
        } else {
            return Err(fail(
                "a line is a comment (#), a client line (--> or -->raw), an expected server line (<--) or a directive (@)".into(),
            ));
        };
        t.steps.push(Step { line, kind });
    }
    Ok(t)
}

/// Decodes a `-->raw` payload: `\n` `\r` `\t` `\\` `\xHH`, and `\{N:TEXT}` for TEXT repeated
/// N times. Nothing is appended: a line ending must be written as `\n`.
fn unescape(text: &str) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'\\' {
            out.push(bytes[i]);
            i += 1;
            continue;
        }
        let escape = *bytes
            .get(i + 1)
            .ok_or("a -->raw line cannot end with a lone backslash")?;
        i += 2;
        match escape {
            b'n' => out.push(b'\n'),
            b'r' => out.push(b'\r'),
            b't' => out.push(b'\t'),
            b'\\' => out.push(b'\\'),
            b'x' => {
                let hex = text
                    .get(i..i + 2)
                    .and_then(|h| u8::from_str_radix(h, 16).ok())
                    .ok_or("\\x takes two hex digits")?;
                out.push(hex);
                i += 2;
            }
            b'{' => {
                let end = text[i..]
                    .find('}')
                    .ok_or("\\{N:TEXT} needs a closing brace")?;
                let (count, what) = text[i..i + end]
                    .split_once(':')
                    .ok_or("\\{N:TEXT} needs a colon")?;
                let count: usize = count
                    .parse()
                    .map_err(|_| format!("\\{{N:TEXT}}: {count:?} is not a count"))?;
                out.extend(what.as_bytes().repeat(count));
                i += end + 1;
            }
            other => return Err(format!("unknown escape \\{}", other as char)),
        }
    }
    Ok(out)
}

/// Requirement ids at the start of a file name: `B-5+A-2-slug.txt` → `["B-5", "A-2"]`.
fn requirement_ids(name: &str) -> Vec<String> {
    let file = name.rsplit('/').next().unwrap_or(name);
    let mut ids = Vec::new();
    let mut rest = file;
    loop {
        let letters = rest.bytes().take_while(u8::is_ascii_uppercase).count();
        let after = &rest[letters..];
        let Some(digits_at) = after.strip_prefix('-') else {
            break;
        };
        let digits = digits_at.bytes().take_while(u8::is_ascii_digit).count();
        if letters == 0 || digits == 0 {
            break;
        }
        ids.push(rest[..letters + 1 + digits].to_string());
        rest = &digits_at[digits..];
        match rest.strip_prefix('+') {
            Some(more) => rest = more,
            None => break,
        }
    }
    ids
}

// ---- Matching -----------------------------------------------------------------------------

/// Where `actual` differs from the `expected` pattern, or `None` when it matches.
///
/// Exact JSON equality (member order aside; `1` and `1.0` differ), except:
/// - the strings `"<any>"`, `"<string>"`, `"<number>"`, `"<integer>"`, `"<boolean>"`,
///   `"<object>"`, `"<array>"` match any value of that kind, and `"<absent>"` matches a
///   member that is not there;
/// - `"<optional:JSON>"` matches a member that is absent or matches JSON (`"isError":
///   "<optional:false>"`: absent and `false` mean the same);
/// - an object with a `"..."` member may have members the pattern does not list;
/// - a `"..."` element of an array stands for any number of elements (possibly none).
fn difference(expected: &Value, actual: Option<&Value>, path: &str) -> Option<String> {
    let shown = |v: Option<&Value>| v.map_or("nothing".to_string(), Value::to_string);
    if let Value::String(s) = expected {
        if let Some(inner) = s
            .strip_prefix("<optional:")
            .and_then(|i| i.strip_suffix('>'))
        {
            let actual = actual?;
            return match serde_json::from_str::<Value>(inner) {
                Ok(pattern) => difference(&pattern, Some(actual), path),
                Err(e) => Some(format!("at {path}: {s} does not hold JSON: {e}")),
            };
        }
        let fits = match (s.as_str(), actual) {
            ("<absent>", a) => Some(a.is_none()),
            (_, None) => None,
            ("<any>", Some(_)) => Some(true),
            (save, Some(_))
                if (save.starts_with("<save:") || save.starts_with("<fresh:"))
                    && save.ends_with('>') =>
            {
                Some(true)
            }
            ("<string>", Some(a)) => Some(a.is_string()),
            ("<number>", Some(a)) => Some(a.is_number()),
            ("<integer>", Some(a)) => Some(a.is_i64() || a.is_u64()),
            ("<boolean>", Some(a)) => Some(a.is_boolean()),
            ("<object>", Some(a)) => Some(a.is_object()),
            ("<array>", Some(a)) => Some(a.is_array()),
            _ => None,
        };
        if let Some(fits) = fits {
            return (!fits).then(|| format!("at {path}: expected {s}, got {}", shown(actual)));
        }
    }
    let Some(actual) = actual else {
        return Some(format!("at {path}: expected {expected}, got nothing"));
    };
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => {
            for (key, value) in e.iter().filter(|(k, _)| *k != "...") {
                if let Some(d) = difference(value, a.get(key), &format!("{path}.{key}")) {
                    return Some(d);
                }
            }
            if !e.contains_key("...") {
                if let Some(extra) = a.keys().find(|k| !e.contains_key(*k)) {
                    return Some(format!(
                        "at {path}: unexpected member \"{extra}\": {}",
                        a[extra]
                    ));
                }
            }
            None
        }
        (Value::Array(e), Value::Array(a)) if e.iter().any(|v| v == "...") => {
            (!array_fits(e, a)).then(|| format!("at {path}: expected {expected}, got {actual}"))
        }
        (Value::Array(e), Value::Array(a)) => {
            if e.len() != a.len() {
                return Some(format!(
                    "at {path}: expected {} elements, got {}: {actual}",
                    e.len(),
                    a.len()
                ));
            }
            e.iter()
                .zip(a)
                .enumerate()
                .find_map(|(i, (e, a))| difference(e, Some(a), &format!("{path}[{i}]")))
        }
        _ if expected == actual => None,
        _ => Some(format!("at {path}: expected {expected}, got {actual}")),
    }
}

/// Records the values matched by `"<save:NAME>"` and `"<fresh:NAME>"` placeholders of a
/// matching pattern. A `<fresh:…>` value equal to any value saved before is reported: it is
/// how a transcript says "an id the server never used before" (B-4).
fn collect_saves(
    expected: &Value,
    actual: &Value,
    saved: &mut BTreeMap<String, Value>,
) -> Result<(), String> {
    match (expected, actual) {
        (Value::String(s), _) => {
            let body = s.strip_suffix('>');
            if let Some(name) = body.and_then(|b| b.strip_prefix("<save:")) {
                saved.insert(name.to_string(), actual.clone());
            } else if let Some(name) = body.and_then(|b| b.strip_prefix("<fresh:")) {
                if let Some((other, _)) = saved.iter().find(|(_, v)| *v == actual) {
                    return Err(format!(
                        "{s}: {actual} is not fresh, it was already saved as {other:?}"
                    ));
                }
                saved.insert(name.to_string(), actual.clone());
            }
        }
        (Value::Object(e), Value::Object(a)) => {
            for (key, value) in e {
                if let Some(a) = a.get(key) {
                    collect_saves(value, a, saved)?;
                }
            }
        }
        (Value::Array(e), Value::Array(a)) if e.len() == a.len() => {
            for (e, a) in e.iter().zip(a) {
                collect_saves(e, a, saved)?;
            }
        }
        _ => {}
    }
    Ok(())
}

/// Replaces each `"<saved:NAME>"` in a client line with the JSON of the saved value.
fn substitute(bytes: &[u8], saved: &BTreeMap<String, Value>) -> Result<Vec<u8>, String> {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return Ok(bytes.to_vec());
    };
    if !text.contains("\"<saved:") {
        return Ok(bytes.to_vec());
    }
    let mut out = text.to_string();
    while let Some(start) = out.find("\"<saved:") {
        let end = out[start..]
            .find(">\"")
            .map(|e| start + e + 2)
            .ok_or("an unterminated \"<saved:NAME>\"")?;
        let name = &out[start + 8..end - 2];
        let value = saved.get(name).ok_or_else(|| {
            format!(
                "nothing was saved as {name:?} (use \"<save:{name}>\" in an earlier expected line)"
            )
        })?;
        out.replace_range(start..end, &value.to_string());
    }
    Ok(out.into_bytes())
}

/// An expected value with each `"<saved:NAME>"` replaced by the value saved under NAME.
fn resolve(expected: &Value, saved: &BTreeMap<String, Value>) -> Result<Value, String> {
    Ok(match expected {
        Value::String(s) => match s.strip_prefix("<saved:").and_then(|n| n.strip_suffix('>')) {
            Some(name) => saved
                .get(name)
                .cloned()
                .ok_or_else(|| format!("nothing was saved as {name:?}"))?,
            None => expected.clone(),
        },
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| Ok((k.clone(), resolve(v, saved)?)))
                .collect::<Result<_, String>>()?,
        ),
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|v| resolve(v, saved))
                .collect::<Result<_, _>>()?,
        ),
        other => other.clone(),
    })
}

/// Matches an array pattern containing `"..."` elements (each stands for zero or more).
fn array_fits(pattern: &[Value], actual: &[Value]) -> bool {
    match pattern.split_first() {
        None => actual.is_empty(),
        Some((first, rest)) if first == "..." => {
            (0..=actual.len()).any(|skip| array_fits(rest, &actual[skip..]))
        }
        Some((first, rest)) => {
            !actual.is_empty()
                && difference(first, Some(&actual[0]), "$").is_none()
                && array_fits(rest, &actual[1..])
        }
    }
}

/// For re-blessing: the pattern updated to `actual`, keeping every part that still matches
/// (so placeholders survive where they still apply).
fn merge(expected: &Value, actual: &Value) -> Value {
    if difference(expected, Some(actual), "$").is_none() {
        return expected.clone();
    }
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => {
            let open = e.contains_key("...");
            let mut out = serde_json::Map::new();
            for (key, value) in a {
                match e.get(key) {
                    Some(pattern) => {
                        out.insert(key.clone(), merge(pattern, value));
                    }
                    None if !open => {
                        out.insert(key.clone(), value.clone());
                    }
                    None => {}
                }
            }
            if open {
                out.insert("...".into(), e["..."].clone());
            }
            Value::Object(out)
        }
        (Value::Array(e), Value::Array(a))
            if e.len() == a.len() && !e.iter().any(|v| v == "...") =>
        {
            Value::Array(e.iter().zip(a).map(|(e, a)| merge(e, a)).collect())
        }
        _ => actual.clone(),
    }
}

// ---- Running ------------------------------------------------------------------------------

/// What to run the corpus against.
struct Target {
    program: String,
    base_args: Vec<String>,
    /// True for a server other than this crate's binary.
    external: bool,
    /// Fixtures the external server provides.
    fixtures: HashSet<String>,
}

impl Target {
    fn from_env() -> Target {
        let fixtures = std::env::var("MINIMCP_TRANSCRIPT_FIXTURES")
            .unwrap_or_default()
            .split([',', ' '])
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect();
        match std::env::var("MINIMCP_TRANSCRIPT_SERVER") {
            Ok(command) if !command.trim().is_empty() => {
                let mut words = command.split_whitespace().map(str::to_string);
                Target {
                    program: words.next().unwrap_or_default(),
                    base_args: words.collect(),
                    external: true,
                    fixtures,
                }
            }
            _ => Target {
                program: common::minimcp().to_string(),
                base_args: common::conformance_args(&[]),
                external: false,
                fixtures,
            },
        }
    }

    /// Why `t` is skipped against this target, if it is.
    fn skip_reason(&self, t: &Transcript) -> Option<String> {
        if !self.external {
            return None;
        }
        if t.minimcp_only {
            return Some("@minimcp-only".into());
        }
        let missing: Vec<&str> = t
            .fixtures
            .iter()
            .filter(|f| !self.fixtures.contains(*f))
            .map(String::as_str)
            .collect();
        (!missing.is_empty()).then(|| format!("needs fixture {}", missing.join(", ")))
    }
}

/// The result of replaying one transcript.
#[derive(Default)]
struct Report {
    mismatches: Vec<String>,
    /// For each `Expect` step (by index): the line the server actually sent.
    actual: BTreeMap<usize, Vec<u8>>,
    /// Lines the server sent that no `Expect` step accounted for, by the step they came
    /// before (`steps.len()` = at the end).
    extra: BTreeMap<usize, Vec<Vec<u8>>>,
    /// Expected values with saved values filled in, by `Expect` step.
    resolved: BTreeMap<usize, Value>,
    /// The real exit status, by `ExpectExit` step.
    exit: BTreeMap<usize, Option<i32>>,
    stderr: String,
}

impl Report {
    fn mismatch(&mut self, t: &Transcript, line: usize, what: String) {
        self.mismatches.push(format!("{}:{line}: {what}", t.name));
    }
}

fn shown(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    if text.len() > 600 {
        let cut = (0..=600)
            .rev()
            .find(|&i| text.is_char_boundary(i))
            .unwrap_or(0);
        format!("{}… ({} bytes)", &text[..cut], bytes.len())
    } else {
        text.into_owned()
    }
}

fn replay(t: &Transcript, target: &Target, update: bool) -> Report {
    let mut report = Report::default();
    let mut args = target.base_args.clone();
    if !target.external {
        args.extend(t.args.iter().cloned());
    }
    let mut peer = match Peer::spawn(&target.program, &args) {
        Ok(peer) => peer,
        Err(e) => {
            report.mismatch(t, 1, format!("cannot start {}: {e}", target.program));
            return report;
        }
    };
    let mut timeout = t.timeout;
    let mut exited = false;
    let mut saved = BTreeMap::new();
    for (index, step) in t.steps.iter().enumerate() {
        match &step.kind {
            StepKind::Send(bytes) => {
                if update {
                    settle(&mut peer, &mut report, index);
                }
                match substitute(bytes, &saved) {
                    Ok(bytes) => peer.send(bytes),
                    Err(why) => report.mismatch(t, step.line, why),
                }
            }
            StepKind::Expect(expected) => {
                let got = match peer.recv(timeout) {
                    Ok(Out::Line(line)) => line,
                    Ok(Out::Partial(bytes)) => {
                        report.mismatch(
                            t,
                            step.line,
                            format!(
                                "the server ended stdout with a line lacking its newline (S-2): {}",
                                shown(&bytes)
                            ),
                        );
                        continue;
                    }
                    Ok(Out::Eof) => {
                        report.mismatch(
                            t,
                            step.line,
                            format!("expected {expected}\n    but the server closed stdout"),
                        );
                        continue;
                    }
                    Err(_) => {
                        report.mismatch(
                            t,
                            step.line,
                            format!(
                                "expected {expected}\n    but nothing arrived within {} ms",
                                timeout.as_millis()
                            ),
                        );
                        timeout = AFTER_MISS_TIMEOUT.min(timeout);
                        continue;
                    }
                };
                report.actual.insert(index, got.clone());
                match serde_json::from_slice::<Value>(&got) {
                    Err(e) => report.mismatch(
                        t,
                        step.line,
                        format!(
                            "the server wrote a line that is not JSON (S-3: {e})\n    expected {expected}\n    got      {}",
                            shown(&got)
                        ),
                    ),
                    Ok(actual) => {
                        let found = resolve(expected, &saved).and_then(|expected| {
                            report.resolved.insert(index, expected.clone());
                            difference(&expected, Some(&actual), "$")
                                .map_or_else(|| collect_saves(&expected, &actual, &mut saved), Err)
                        });
                        if let Err(d) = found {
                            report.mismatch(
                                t,
                                step.line,
                                format!(
                                    "{d}\n    expected {expected}\n    got      {}",
                                    shown(&got)
                                ),
                            );
                        }
                    }
                }
            }
            StepKind::Close => peer.close(),
            StepKind::Quiet(duration) => {
                let until = Instant::now() + *duration;
                loop {
                    let left = until.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        break;
                    }
                    match peer.recv(left) {
                        Err(_) => break,
                        Ok(Out::Eof) => {
                            if !peer.is_closed() {
                                report.mismatch(
                                    t,
                                    step.line,
                                    "expected silence, but the server closed stdout".into(),
                                );
                            }
                            break;
                        }
                        Ok(Out::Line(line) | Out::Partial(line)) => {
                            report.mismatch(
                                t,
                                step.line,
                                format!("expected silence, got {}", shown(&line)),
                            );
                            report.extra.entry(index).or_default().push(line);
                        }
                    }
                }
            }
            StepKind::ExpectExit(code) => {
                let status = finish(t, &mut peer, &mut report, index, step.line);
                exited = true;
                let got = status.and_then(|s| s.code());
                report.exit.insert(index, got);
                if status.is_some() && got != Some(*code) {
                    report.mismatch(
                        t,
                        step.line,
                        format!("expected exit status {code}, got {status:?}"),
                    );
                }
            }
        }
    }
    if !exited {
        let last = t.source.len().max(1);
        finish(t, &mut peer, &mut report, t.steps.len(), last);
    }
    report.stderr = peer.stderr_text();
    report
}

/// Closes stdin, collects output nobody expected until stdout closes, and waits for exit.
fn finish(
    t: &Transcript,
    peer: &mut Peer,
    report: &mut Report,
    index: usize,
    line: usize,
) -> Option<std::process::ExitStatus> {
    peer.close();
    let deadline = Instant::now() + t.timeout;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match peer.recv(left) {
            Ok(Out::Eof) => break,
            Ok(Out::Line(extra) | Out::Partial(extra)) => {
                report.mismatch(t, line, format!("unexpected output: {}", shown(&extra)));
                report.extra.entry(index).or_default().push(extra);
            }
            Err(_) => {
                report.mismatch(
                    t,
                    line,
                    format!(
                        "the server did not close stdout within {} ms of its stdin closing (S-6)",
                        t.timeout.as_millis()
                    ),
                );
                break;
            }
        }
    }
    let status = peer.wait_exit(t.timeout);
    if status.is_none() {
        report.mismatch(
            t,
            line,
            format!(
                "the server did not exit within {} ms of its stdin closing (S-6); killed",
                t.timeout.as_millis()
            ),
        );
    }
    status
}

/// While re-blessing: collects what the server says before the next client line.
fn settle(peer: &mut Peer, report: &mut Report, index: usize) {
    while let Ok(Out::Line(line) | Out::Partial(line)) = peer.recv(UPDATE_SETTLE) {
        report.extra.entry(index).or_default().push(line);
    }
}

/// The transcript's source with expected lines replaced by what the server really sent.
fn reblessed(t: &Transcript, report: &Report) -> String {
    let by_line: BTreeMap<usize, usize> = t
        .steps
        .iter()
        .enumerate()
        .map(|(i, s)| (s.line, i))
        .collect();
    let render = |bytes: &[u8]| format!("<-- {}", String::from_utf8_lossy(bytes));
    let mut out = String::new();
    for (i, source) in t.source.iter().enumerate() {
        let Some(&index) = by_line.get(&(i + 1)) else {
            out.push_str(source);
            out.push('\n');
            continue;
        };
        for extra in report.extra.get(&index).into_iter().flatten() {
            out.push_str(&render(extra));
            out.push('\n');
        }
        match &t.steps[index].kind {
            StepKind::Expect(expected) => match report.actual.get(&index) {
                // Nothing came: the line goes.
                None => continue,
                Some(got) => match serde_json::from_slice::<Value>(got) {
                    Ok(actual)
                        if difference(
                            report.resolved.get(&index).unwrap_or(expected),
                            Some(&actual),
                            "$",
                        )
                        .is_none() =>
                    {
                        out.push_str(source)
                    }
                    Ok(actual) => {
                        let _ = write!(out, "<-- {}", render_message(&merge(expected, &actual)));
                    }
                    Err(_) => out.push_str(&render(got)),
                },
            },
            StepKind::ExpectExit(_) => match report.exit.get(&index) {
                Some(Some(code)) => {
                    let _ = write!(out, "@expect-exit {code}");
                }
                _ => out.push_str(source),
            },
            _ => out.push_str(source),
        }
        out.push('\n');
    }
    for extra in report.extra.get(&t.steps.len()).into_iter().flatten() {
        out.push_str(&render(extra));
        out.push('\n');
    }
    out
}

/// A message as one line, its envelope members first (as servers write them), so a
/// re-blessed line reads like the others.
fn render_message(message: &Value) -> String {
    let Value::Object(members) = message else {
        return message.to_string();
    };
    const FIRST: [&str; 6] = ["jsonrpc", "id", "method", "params", "result", "error"];
    let ordered = FIRST
        .iter()
        .filter_map(|k| members.get_key_value(*k))
        .chain(members.iter().filter(|(k, _)| !FIRST.contains(&k.as_str())));
    let parts: Vec<String> = ordered
        .map(|(k, v)| format!("{}:{v}", Value::from(k.as_str())))
        .collect();
    format!("{{{}}}", parts.join(","))
}

// ---- The corpus ---------------------------------------------------------------------------

fn corpus_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("conformance")
}

fn transcript_files(dir: &Path, found: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            transcript_files(&path, found);
        } else if path.extension().is_some_and(|e| e == "txt") {
            found.push(path);
        }
    }
}

fn load_corpus() -> (Vec<Transcript>, Vec<String>) {
    let root = corpus_root();
    let mut files = Vec::new();
    transcript_files(&root, &mut files);
    let mut transcripts = Vec::new();
    let mut errors = Vec::new();
    for path in files {
        match parse_transcript(&root, &path) {
            Ok(t) => transcripts.push(t),
            Err(e) => errors.push(e),
        }
    }
    (transcripts, errors)
}

#[test]
fn corpus_replays_against_the_server() {
    let (mut transcripts, mut problems) = load_corpus();
    assert!(
        !transcripts.is_empty(),
        "no transcripts found under {}",
        corpus_root().display()
    );
    if let Ok(filter) = std::env::var("MINIMCP_TRANSCRIPT_FILTER") {
        transcripts.retain(|t| t.name.contains(&filter));
    }
    for t in &transcripts {
        if requirement_ids(&t.name).is_empty() {
            problems.push(format!(
                "{}: the file name must start with requirement ids, such as B-5+A-2-…",
                t.name
            ));
        }
        if !t
            .steps
            .iter()
            .any(|s| matches!(s.kind, StepKind::Expect(_)))
            && !t.steps.iter().any(|s| matches!(s.kind, StepKind::Quiet(_)))
        {
            problems.push(format!(
                "{}: a transcript must expect something (<-- or @quiet)",
                t.name
            ));
        }
    }
    let target = Target::from_env();
    let update = std::env::var_os("UPDATE_TRANSCRIPTS").is_some_and(|v| v != "0");
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<(usize, Option<String>, Report)>> = Mutex::new(Vec::new());
    let workers = thread::available_parallelism()
        .map_or(2, |n| n.get())
        .min(8);
    let started = Instant::now();
    thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(t) = transcripts.get(i) else { return };
                let outcome = match target.skip_reason(t) {
                    Some(why) => (i, Some(why), Report::default()),
                    None => (i, None, replay(t, &target, update)),
                };
                results.lock().expect("no worker panics").push(outcome);
            });
        }
    });
    let mut results = results.into_inner().expect("no worker panics");
    results.sort_by_key(|(i, _, _)| *i);

    let mut failed = 0;
    let mut skipped = Vec::new();
    let mut rewritten = 0;
    for (i, skip, report) in &results {
        let t = &transcripts[*i];
        if let Some(why) = skip {
            skipped.push(format!("{} ({why})", t.name));
            continue;
        }
        if report.mismatches.is_empty() {
            continue;
        }
        if update {
            let text = reblessed(t, report);
            std::fs::write(&t.path, text)
                .unwrap_or_else(|e| panic!("cannot write {}: {e}", t.path.display()));
            rewritten += 1;
            continue;
        }
        failed += 1;
        for m in &report.mismatches {
            problems.push(m.clone());
        }
        if !report.stderr.trim().is_empty() {
            problems.push(format!(
                "{}: the server's stderr was:\n{}",
                t.name,
                report.stderr.trim_end()
            ));
        }
    }
    eprintln!(
        "transcripts: {} replayed against {} in {:.1?}: {} failed, {} skipped{}",
        results.len() - skipped.len(),
        if target.external {
            &target.program
        } else {
            "minimcp"
        },
        started.elapsed(),
        failed,
        skipped.len(),
        if update {
            format!(", {rewritten} re-blessed")
        } else {
            String::new()
        }
    );
    for s in &skipped {
        eprintln!("  skipped {s}");
    }
    assert!(
        problems.is_empty(),
        "{} problem(s) in the transcript corpus:\n\n{}\n",
        problems.len(),
        problems.join("\n\n")
    );
}

// ---- The coverage matrix ------------------------------------------------------------------

const MATRIX_START: &str = "<!-- matrix:start -->";
const MATRIX_END: &str = "<!-- matrix:end -->";
const STATUSES: [&str; 4] = ["covered", "partial", "not covered", "n/a"];

/// One row of the coverage matrix.
struct Row {
    id: String,
    cells: Vec<String>,
}

fn render_row(row: &Row) -> String {
    format!("| {} | {} |", row.id, row.cells.join(" | "))
}

/// The project's requirement list, `conformance/REQUIREMENTS.md`: each row's id with its level
/// and versions, which the matrix must repeat.
fn requirements() -> BTreeMap<String, (String, String)> {
    let path = corpus_root().join("REQUIREMENTS.md");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read the requirement list {}: {e}", path.display()));
    let mut rows = BTreeMap::new();
    for line in text.lines().filter(|l| l.starts_with("| ")) {
        let cells: Vec<&str> = line
            .trim()
            .trim_matches('|')
            .split(" | ")
            .map(str::trim)
            .collect();
        let is_row = cells.len() == 5 && requirement_ids(&format!("{}-x", cells[0])) == [cells[0]];
        if is_row {
            let previous = rows.insert(
                cells[0].to_string(),
                (cells[1].to_string(), cells[2].to_string()),
            );
            assert!(
                previous.is_none(),
                "REQUIREMENTS.md lists {} twice",
                cells[0]
            );
        }
    }
    assert!(
        rows.len() > 100,
        "REQUIREMENTS.md: only {} rows were read",
        rows.len()
    );
    rows
}

#[test]
fn coverage_matrix_matches_the_corpus() {
    let readme_path = corpus_root().join("README.md");
    let readme = std::fs::read_to_string(&readme_path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", readme_path.display()));
    let (start, end) = match (readme.find(MATRIX_START), readme.find(MATRIX_END)) {
        (Some(s), Some(e)) if s < e => (s + MATRIX_START.len(), e),
        _ => panic!("conformance/README.md needs the markers {MATRIX_START} and {MATRIX_END}"),
    };
    let (transcripts, errors) = load_corpus();
    assert!(errors.is_empty(), "{}", errors.join("\n"));
    let mut by_id: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for t in &transcripts {
        for id in requirement_ids(&t.name) {
            by_id.entry(id).or_default().push(format!("`{}`", t.name));
        }
    }

    let mut problems = Vec::new();
    let mut rows: Vec<Row> = Vec::new();
    let mut head = Vec::new();
    for line in readme[start..end].lines() {
        let cells: Vec<String> = line
            .trim()
            .trim_matches('|')
            .split(" | ")
            .map(|c| c.trim().to_string())
            .collect();
        let is_row = line.starts_with("| ")
            && cells.len() == 6
            && requirement_ids(&format!("{}-x", cells[0])) == [cells[0].clone()];
        if is_row {
            rows.push(Row {
                id: cells[0].clone(),
                cells: cells[1..].to_vec(),
            });
        } else if rows.is_empty() && !line.starts_with("**Totals") {
            head.push(line.to_string());
        } else if !line.trim().is_empty() && !line.starts_with("**Totals") {
            problems.push(format!("matrix: a line that is not a row: {line}"));
        }
    }

    let mut seen = BTreeSet::new();
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for row in &mut rows {
        if !seen.insert(row.id.clone()) {
            problems.push(format!("matrix: {} is listed twice", row.id));
        }
        // Columns after the id: level, versions, status, transcripts, other pins / reason.
        let generated = by_id.get(&row.id).map(|v| v.join(", ")).unwrap_or_default();
        if row.cells[3] != generated {
            problems.push(format!(
                "matrix: {}: the transcripts column is out of date (UPDATE_TRANSCRIPTS=1 rewrites it)",
                row.id
            ));
            row.cells[3] = generated;
        }
        let status = row.cells[2].as_str();
        match STATUSES.iter().find(|s| **s == status) {
            None => problems.push(format!(
                "matrix: {}: status {status:?} is not one of {STATUSES:?}",
                row.id
            )),
            Some(s) => *counts.entry(s).or_default() += 1,
        }
        let pinned = !row.cells[3].is_empty() || !row.cells[4].is_empty();
        if matches!(status, "covered" | "partial") && !pinned {
            problems.push(format!("matrix: {}: {status} but nothing pins it", row.id));
        }
        if matches!(status, "not covered" | "n/a") && row.cells[4].is_empty() {
            problems.push(format!("matrix: {}: {status} needs a reason", row.id));
        }
    }
    for id in by_id.keys() {
        if !seen.contains(id) {
            problems.push(format!(
                "matrix: transcripts name {id}, which has no row in the matrix"
            ));
        }
    }
    let requirements = requirements();
    for id in requirements.keys() {
        if !seen.contains(id) {
            problems.push(format!(
                "matrix: {id} from REQUIREMENTS.md has no row in the matrix"
            ));
        }
    }
    for row in &rows {
        match requirements.get(&row.id) {
            None => problems.push(format!(
                "matrix: {} is not a requirement of REQUIREMENTS.md",
                row.id
            )),
            Some((level, versions)) if (level, versions) != (&row.cells[0], &row.cells[1]) => {
                problems.push(format!(
                    "matrix: {}: level and versions {:?} / {:?} differ from REQUIREMENTS.md's {level:?} / {versions:?}",
                    row.id, row.cells[0], row.cells[1]
                ))
            }
            Some(_) => {}
        }
    }

    let count = |s: &str| counts.get(s).copied().unwrap_or(0);
    let total = rows.len();
    let pinned = count("covered") + count("partial");
    let applicable = total - count("n/a");
    let totals = format!(
        "**Totals:** {total} requirements: {} covered, {} partial, {} not covered, {} n/a. \
         Pinned by a transcript or test: {pinned} / {total} ({pinned} / {applicable} of those that apply to a stdio server). \
         {} transcripts.",
        count("covered"),
        count("partial"),
        count("not covered"),
        count("n/a"),
        transcripts.len()
    );
    let mut body = String::from("\n");
    for line in &head {
        if !line.trim().is_empty() {
            body.push_str(line);
            body.push('\n');
        }
    }
    for row in &rows {
        body.push_str(&render_row(row));
        body.push('\n');
    }
    body.push('\n');
    body.push_str(&totals);
    body.push('\n');
    if readme[start..end] != body {
        problems.push(
            "matrix: the table or the totals line is out of date (UPDATE_TRANSCRIPTS=1 rewrites them)"
                .into(),
        );
    }
    let update = std::env::var_os("UPDATE_TRANSCRIPTS").is_some_and(|v| v != "0");
    if update && readme[start..end] != body {
        let text = format!("{}{body}{}", &readme[..start], &readme[end..]);
        std::fs::write(&readme_path, text).expect("README.md is writable");
        problems.retain(|p| !p.contains("UPDATE_TRANSCRIPTS=1 rewrites"));
    }
    eprintln!("{totals}");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

// ---- The runner's own rules ---------------------------------------------------------------

#[test]
fn placeholders_match_only_what_they_name() {
    let v = |s: &str| -> Value { serde_json::from_str(s).expect("test JSON") };
    let fits = |e: &str, a: &str| difference(&v(e), Some(&v(a)), "$").is_none();
    assert!(fits(r#"{"id":1,"result":{}}"#, r#"{"result":{},"id":1}"#));
    assert!(!fits(r#"{"id":1}"#, r#"{"id":"1"}"#), "ids keep their type");
    assert!(!fits(r#"{"id":1}"#, r#"{"id":1.0}"#), "1 and 1.0 differ");
    assert!(
        !fits(r#"{"id":1}"#, r#"{"id":1,"x":2}"#),
        "extra members fail"
    );
    assert!(fits(r#"{"id":1,"...":"..."}"#, r#"{"id":1,"x":2}"#));
    assert!(fits(r#"{"m":"<string>"}"#, r#"{"m":"text"}"#));
    assert!(!fits(r#"{"m":"<string>"}"#, r#"{"m":3}"#));
    assert!(
        !fits(r#"{"m":"<string>"}"#, r#"{}"#),
        "placeholders need the member"
    );
    assert!(fits(r#"{"n":"<integer>"}"#, r#"{"n":-3}"#));
    assert!(!fits(r#"{"n":"<integer>"}"#, r#"{"n":1.5}"#));
    assert!(fits(r#"{"n":"<number>"}"#, r#"{"n":1.5}"#));
    assert!(fits(
        r#"{"b":"<boolean>","o":"<object>","a":"<array>","x":"<any>"}"#,
        r#"{"b":false,"o":{},"a":[],"x":null}"#
    ));
    assert!(fits(r#"{"id":"<absent>","e":1}"#, r#"{"e":1}"#));
    assert!(!fits(r#"{"id":"<absent>","e":1}"#, r#"{"id":null,"e":1}"#));
    assert!(fits(r#"[1,"...",4]"#, r#"[1,2,3,4]"#));
    assert!(fits(r#"[1,"...",4]"#, r#"[1,4]"#));
    assert!(!fits(r#"[1,"...",4]"#, r#"[1,2,3]"#));
    assert!(!fits(r#"[1,2]"#, r#"[2,1]"#), "arrays keep their order");
    assert!(fits(r#""<literal>""#, r#""<literal>""#));
    assert!(
        !fits(r#""<literal>""#, r#""x""#),
        "unknown <words> are literal"
    );
    assert!(fits(r#"{"s":"<save:state>"}"#, r#"{"s":[1]}"#));
    assert!(fits(r#"{"e":"<optional:false>"}"#, r#"{}"#));
    assert!(fits(r#"{"e":"<optional:false>"}"#, r#"{"e":false}"#));
    assert!(!fits(r#"{"e":"<optional:false>"}"#, r#"{"e":true}"#));
    assert!(fits(r#"{"e":"<optional:\"<string>\">"}"#, r#"{"e":"x"}"#));
}

#[test]
fn saved_values_are_substituted_into_later_client_lines() {
    let v = |s: &str| -> Value { serde_json::from_str(s).expect("test JSON") };
    let mut saved = BTreeMap::new();
    let pattern = v(r#"{"result":{"state":"<save:state>","n":"<save:n>"}}"#);
    collect_saves(
        &pattern,
        &v(r#"{"result":{"state":"abc","n":7}}"#),
        &mut saved,
    )
    .expect("plain saves always succeed");
    assert!(collect_saves(&v(r#""<fresh:m>""#), &v("7"), &mut saved).is_err());
    assert!(collect_saves(&v(r#""<fresh:m>""#), &v("8"), &mut saved).is_ok());
    let sent = substitute(br#"{"s":"<saved:state>","n":"<saved:n>"}"#, &saved);
    assert_eq!(sent.as_deref(), Ok(&br#"{"s":"abc","n":7}"#[..]));
    assert!(substitute(br#"{"s":"<saved:nope>"}"#, &saved).is_err());
    let expected = resolve(&v(r#"{"requestId":"<saved:n>"}"#), &saved).expect("n is saved");
    assert_eq!(expected, v(r#"{"requestId":7}"#));
    assert!(resolve(&v(r#""<saved:nope>""#), &saved).is_err());
}

#[test]
fn reblessing_keeps_matching_placeholders() {
    let v = |s: &str| -> Value { serde_json::from_str(s).expect("test JSON") };
    let merged = merge(
        &v(r#"{"id":1,"error":{"code":-32600,"message":"<string>"}}"#),
        &v(r#"{"id":1,"error":{"code":-32601,"message":"no such method"}}"#),
    );
    assert_eq!(
        merged,
        v(r#"{"id":1,"error":{"code":-32601,"message":"<string>"}}"#)
    );
}

#[test]
fn reblessed_lines_lead_with_the_envelope() {
    let v: Value = serde_json::from_str(r#"{"result":{"b":1,"a":2},"id":"x","jsonrpc":"2.0"}"#)
        .expect("test JSON");
    assert_eq!(
        render_message(&v),
        r#"{"jsonrpc":"2.0","id":"x","result":{"a":2,"b":1}}"#
    );
    assert_eq!(render_message(&Value::from(3)), "3");
}

#[test]
fn raw_lines_decode_escapes_and_repeats() {
    assert_eq!(unescape(r"a\x00\xff\n").as_deref(), Ok(&b"a\x00\xff\n"[..]));
    assert_eq!(
        unescape(r"\{3:ab}\r\t\\").as_deref(),
        Ok(&b"ababab\r\t\\"[..])
    );
    assert!(unescape(r"\q").is_err());
    assert!(unescape(r"\x4").is_err());
    assert!(unescape("\\").is_err());
}

#[test]
fn file_names_carry_requirement_ids() {
    assert_eq!(
        requirement_ids("2025-03-26/B-11+A-1-batch.txt"),
        ["B-11", "A-1"]
    );
    assert_eq!(requirement_ids("common/B-5-id.txt"), ["B-5"]);
    assert_eq!(requirement_ids("PR-2+PR-7-x.txt"), ["PR-2", "PR-7"]);
    assert!(requirement_ids("batch.txt").is_empty());
    assert!(requirement_ids("B-x.txt").is_empty());
}
