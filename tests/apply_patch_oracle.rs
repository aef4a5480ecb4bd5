//! `apply_patch` against `git apply`: the real binary and git, on the same patches and the same
//! trees, must agree. Each case is a tree and a patch:
//!
//! - a seeded PRNG makes a tree (files of lines from a small vocabulary, so context repeats
//!   and hunks can land at an offset; no final newline, CRLF lines, empty files, executables,
//!   names with spaces and non-ASCII) and a changed copy of it (lines inserted, removed and
//!   replaced; files created, deleted, renamed with and without changes, emptied, made
//!   executable);
//! - `git diff --cached -M -U<0..5>` in a scratch repository gives the patch (with
//!   `--find-copies-harder` half the time, so copies appear); for one pair in three, GNU
//!   `diff -ruN` gives one more (no `diff --git`, timestamps, epoch times);
//! - the case then damages the patch or the tree (see [`DAMAGES`]): hunk headers with wrong
//!   numbers or counts, lines dropped, duplicated or truncated, hunks swapped, `\ No newline`
//!   markers removed or added, whitespace and CRLF changed, garbage around it, the
//!   `diff --git` lines or the `a/` `b/` prefixes dropped, paths with `..`, `.`, `.git/`,
//!   absolute paths, the tree moved (lines added above a hunk), a context line changed, a
//!   file missing or already there;
//! - `git apply` runs on one copy of the tree (outside any repository, with no user or
//!   system configuration), `apply_patch` through the server on another.
//!
//! The verdict: when git applies, minimcp must apply and leave every file byte for byte as
//! git left it (and its executable bit); when git refuses, minimcp must refuse and leave the
//! tree untouched. Cases minimcp refuses by its own rules whatever git does — binary patches,
//! symbolic links and paths through them, the deny list — are counted apart (minimcp must
//! refuse them; how git answers is counted), as are damages that may reach those rules (a
//! mode line git no longer reads as a regular file's, a backslash in a name: minimcp may
//! refuse them or agree with git). The oracle is git itself, run as a separate
//! program; the trees are compared with `std::fs` reads.
//!
//! `cargo test` runs a fixed seed (`FIXED_PAIRS` tree pairs, several cases each; a few
//! seconds); without git it prints SKIPPED and passes. `.ci/run` sets
//! `MINIMCP_PATCH_FUZZ_SEED=random` and `MINIMCP_PATCH_FUZZ_PAIRS`; a failing seed replays
//! with the same two variables. The summary line counts each outcome per damage.

mod common;

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use common::rng::{env_number, Rng};
use common::scratch::Scratch;
use common::{Out, Peer};

const FIXED_SEED: u64 = 0x9A7C_4E11;
const FIXED_PAIRS: usize = 16;
/// Cases made from one tree pair (one clean, the rest damaged).
const CASES_PER_PAIR: usize = 7;
const ANSWER: Duration = Duration::from_secs(60);

/// A file or a symbolic link.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Node {
    File(Vec<u8>, bool),
    Link(String),
}

type Tree = BTreeMap<String, Node>;

/// What is done to a case, and whether minimcp refuses it by its own rules (then git's
/// answer is only counted).
const DAMAGES: [(&str, bool); 31] = [
    ("clean", false),
    ("byte-changed", false),
    ("tree-offset", false),
    ("tree-context-changed", false),
    ("tree-file-missing", false),
    ("tree-file-exists", false),
    ("header-numbers", false),
    ("header-counts", false),
    ("header-hostile", false),
    ("no-newline-marker", false),
    ("whitespace", false),
    ("crlf", false),
    ("line-dropped", false),
    ("line-duplicated", false),
    ("truncated", false),
    ("hunks-swapped", false),
    ("garbage", false),
    ("traditional", false),
    ("no-prefix", false),
    ("path-dotdot", false),
    ("path-absolute", false),
    ("path-dot-git", false),
    ("path-dot", false),
    ("section-duplicated", false),
    ("mode-change", false),
    ("path-through-link", true),
    ("path-at-link", true),
    ("denied", true),
    ("binary", true),
    ("mode-symlink", true),
    ("tree-rename-target-exists", false),
];

/// `git ARGS` in `dir` with no user or system configuration; its status and stdout.
fn git(dir: &Path, args: &[&str]) -> (bool, Vec<u8>, String) {
    let out = Command::new("git")
        .args([
            "-c",
            "user.name=Ann",
            "-c",
            "user.email=ann@example.com",
            "-c",
            "commit.gpgsign=false",
            "-c",
            "init.defaultBranch=main",
            "-c",
            "core.fileMode=true",
        ])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CEILING_DIRECTORIES", dir.parent().unwrap_or(dir))
        .env("LC_ALL", "C")
        .stdin(Stdio::null())
        .output()
        .expect("git runs");
    (
        out.status.success(),
        out.stdout,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// git's (major, minor) version; (0, 0) when it cannot be told.
fn git_version() -> (u32, u32) {
    let out = Command::new("git").arg("--version").output().ok();
    let text = out
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    let mut parts = text
        .trim()
        .rsplit(' ')
        .next()
        .unwrap_or("")
        .split('.')
        .map(|p| p.parse::<u32>().unwrap_or(0));
    (parts.next().unwrap_or(0), parts.next().unwrap_or(0))
}

fn git_available() -> bool {
    Command::new("git")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Empties `dir` (keeping `.git` when asked) and writes `tree` into it.
fn write_tree(dir: &Path, tree: &Tree, keep_git: bool) {
    for entry in fs::read_dir(dir).expect("list") {
        let entry = entry.expect("entry");
        if keep_git && entry.file_name() == ".git" {
            continue;
        }
        let path = entry.path();
        if entry.file_type().expect("type").is_dir() {
            fs::remove_dir_all(&path).expect("remove dir");
        } else {
            fs::remove_file(&path).expect("remove file");
        }
    }
    for (name, node) in tree {
        let path = dir.join(name);
        fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        match node {
            Node::File(bytes, exec) => {
                fs::write(&path, bytes).expect("write");
                let mode = if *exec { 0o755 } else { 0o644 };
                fs::set_permissions(&path, fs::Permissions::from_mode(mode)).expect("chmod");
            }
            Node::Link(target) => std::os::unix::fs::symlink(target, &path).expect("symlink"),
        }
    }
}

/// The files and links below `dir` (not `.git`), by relative path.
fn read_tree(dir: &Path) -> Tree {
    fn walk(root: &Path, dir: &Path, out: &mut Tree) {
        for entry in fs::read_dir(dir).expect("list").flatten() {
            let path = entry.path();
            let rel = path
                .strip_prefix(root)
                .expect("below")
                .to_string_lossy()
                .into_owned();
            let kind = entry.file_type().expect("type");
            if kind.is_symlink() {
                let target = fs::read_link(&path).expect("readlink");
                out.insert(rel, Node::Link(target.to_string_lossy().into_owned()));
            } else if kind.is_dir() {
                if rel != ".git" {
                    walk(root, &path, out);
                }
            } else {
                let meta = fs::metadata(&path).expect("meta");
                let exec = meta.permissions().mode() & 0o100 != 0;
                out.insert(rel, Node::File(fs::read(&path).expect("read"), exec));
            }
        }
    }
    let mut out = Tree::new();
    walk(dir, dir, &mut out);
    out
}

const WORDS: [&str; 16] = [
    "alpha",
    "beta",
    "gamma",
    "{",
    "}",
    "",
    "    return x;",
    "\tindented",
    "a b",
    "trailing  ",
    "x = 1",
    "x = 2",
    "// note",
    "caf\u{e9}",
    "end",
    "@@ not a hunk",
];

fn content(rng: &mut Rng) -> Vec<u8> {
    let lines = match rng.below(10) {
        0 => 0,
        1 => 1,
        _ => 2 + rng.below(40),
    };
    let crlf = rng.one_in(8);
    let mut out = String::new();
    for _ in 0..lines {
        let word: &&str = rng.pick(&WORDS);
        out.push_str(word);
        if rng.one_in(4) {
            out.push_str(&format!(" {}", rng.below(6)));
        }
        out.push_str(if crlf || rng.one_in(30) { "\r\n" } else { "\n" });
    }
    if !out.is_empty() && rng.one_in(6) {
        out.pop();
        if out.ends_with('\r') {
            out.pop();
        }
    }
    out.into_bytes()
}

fn name(rng: &mut Rng, dirs: &[String]) -> String {
    const STEMS: [&str; 10] = [
        "main",
        "util",
        "read me",
        "data",
        "caf\u{e9}",
        "x",
        "lib",
        "notes",
        "q\"uote",
        "t\tab",
    ];
    const EXTS: [&str; 5] = [".rs", ".py", ".txt", "", ".md"];
    let file = format!(
        "{}{}{}",
        *rng.pick(&STEMS),
        rng.below(100),
        *rng.pick(&EXTS)
    );
    match rng.below(3) {
        0 => file,
        _ => format!("{}/{file}", rng.pick(dirs)),
    }
}

const DIRS: [&str; 5] = ["src", "src/deep", "docs", "a b", "t\u{e9}st"];

fn before_tree(rng: &mut Rng) -> Tree {
    let dirs: Vec<String> = DIRS.iter().map(|d| d.to_string()).collect();
    let mut tree = Tree::new();
    for _ in 0..1 + rng.below(6) {
        tree.insert(name(rng, &dirs), Node::File(content(rng), rng.one_in(6)));
    }
    tree
}

/// Lines of `bytes` changed here and there.
fn edit_lines(rng: &mut Rng, bytes: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(bytes).into_owned();
    let mut lines: Vec<String> = text.split_inclusive('\n').map(str::to_string).collect();
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(lines.len() + 1);
        match rng.below(3) {
            0 if at < lines.len() => {
                lines.remove(at);
            }
            1 if at < lines.len() => lines[at] = format!("{} changed\n", *rng.pick(&WORDS)),
            _ => lines.insert(at, format!("{} new {}\n", *rng.pick(&WORDS), rng.below(9))),
        }
    }
    if rng.one_in(8) {
        if let Some(last) = lines.last_mut() {
            if last.ends_with('\n') {
                last.pop();
            } else {
                last.push('\n');
            }
        }
    }
    lines.concat().into_bytes()
}

fn after_tree(rng: &mut Rng, before: &Tree) -> Tree {
    let dirs: Vec<String> = DIRS
        .iter()
        .map(|d| d.to_string())
        .chain(["new/dir".to_string()])
        .collect();
    let mut after = before.clone();
    for (name, node) in before {
        let Node::File(bytes, exec) = node else {
            continue;
        };
        match rng.below(10) {
            0 => {
                after.remove(name);
            }
            1 => {
                after.remove(name);
                let moved = if rng.one_in(2) {
                    bytes.clone()
                } else {
                    edit_lines(rng, bytes)
                };
                after.insert(
                    format!("{}.moved", self::name(rng, &dirs)),
                    Node::File(moved, *exec),
                );
            }
            2 => {
                after.insert(name.clone(), Node::File(bytes.clone(), !exec));
            }
            3 => {
                after.insert(name.clone(), Node::File(Vec::new(), *exec));
            }
            4 => {}
            _ => {
                after.insert(name.clone(), Node::File(edit_lines(rng, bytes), *exec));
            }
        }
    }
    // A copy of a file, changed a little or not (git finds it with --find-copies-harder).
    if rng.one_in(3) && !before.is_empty() {
        if let Some((name, Node::File(bytes, exec))) = before.iter().nth(rng.below(before.len())) {
            let copied = if rng.one_in(2) {
                bytes.clone()
            } else {
                edit_lines(rng, bytes)
            };
            after.insert(format!("{name}.copy"), Node::File(copied, *exec));
        }
    }
    for _ in 0..rng.below(3) {
        let new = self::name(rng, &dirs);
        if !after
            .keys()
            .any(|k| k.starts_with(&format!("{new}/")) || new.starts_with(&format!("{k}/")))
        {
            after
                .entry(new)
                .or_insert_with(|| Node::File(content(rng), rng.one_in(5)));
        }
    }
    after
}

/// The `git diff` of `before` to `after`, with `context` lines, made in `repo` (one
/// repository for the run: each pair is staged and compared with the tree git wrote of the
/// previous staging, no commit needed).
fn make_patch(repo: &Path, before: &Tree, after: &Tree, context: usize) -> Option<String> {
    if !repo.join(".git").exists() {
        fs::create_dir_all(repo).expect("repo");
        assert!(git(repo, &["init", "-q", "--template="]).0, "git init");
    }
    write_tree(repo, before, true);
    assert!(git(repo, &["add", "-A"]).0, "git add");
    let (ok, id, err) = git(repo, &["write-tree"]);
    assert!(ok, "git write-tree: {err}");
    let id = String::from_utf8(id).expect("hex").trim().to_string();
    write_tree(repo, after, true);
    assert!(git(repo, &["add", "-A"]).0, "git add");
    let (ok, out, err) = git(
        repo,
        &[
            "diff",
            "--cached",
            "-M",
            if context % 2 == 1 {
                "--find-copies-harder"
            } else {
                "-M"
            },
            &format!("-U{context}"),
            "--no-color",
            &id,
        ],
    );
    assert!(ok, "git diff: {err}");
    let text = String::from_utf8(out).ok()?;
    (!text.is_empty()).then_some(text)
}

/// The modes of `patch`'s mode lines (and `index` lines), as git's parser reads them (octal
/// digits after optional spaces).
fn modes(patch: &str) -> Vec<u64> {
    const MODES: [&str; 4] = [
        "old mode ",
        "new mode ",
        "deleted file mode ",
        "new file mode ",
    ];
    patch
        .lines()
        .filter_map(|line| {
            let value = if let Some(rest) = MODES.iter().find_map(|m| line.strip_prefix(m)) {
                Some(rest)
            } else if let Some(rest) = line.strip_prefix("index ") {
                rest.split_once(' ').map(|(_, mode)| mode)
            } else {
                None
            };
            let value = value?;
            let digits: String = value
                .trim_start()
                .chars()
                .take_while(|c| ('0'..='7').contains(c))
                .collect();
            u64::from_str_radix(&digits, 8).ok()
        })
        .collect()
}

/// True when `patch` names a mode git reads as something other than a regular file (a
/// damaged mode line): git makes a link or a submodule directory of it, minimcp refuses.
fn has_odd_mode(patch: &str) -> bool {
    modes(patch).iter().any(|m| m & 0o170000 != 0o100000)
}

/// True when git versions read `patch` differently: a regular file's mode other than 100644
/// and 100755 (rounded to one of them from git 2.47 on, kept before), or a `diff --git` line
/// with a space before a slash (read as two names from git 2.46 on). minimcp reads them as
/// the newer versions do; with a git older than 2.47 the case is counted, not compared.
fn git_version_sensitive(patch: &str) -> bool {
    modes(patch)
        .iter()
        .any(|m| m & 0o170000 == 0o100000 && *m != 0o100644 && *m != 0o100755)
        || patch
            .lines()
            .any(|l| l.starts_with("diff --git ") && l.contains(" /"))
}

/// `diff -ruN -U<context> a b` of the two trees, or `None` without GNU diff.
fn gnu_diff(scratch: &Path, before: &Tree, after: &Tree, context: usize) -> Option<String> {
    let base = scratch.join("gnu");
    let _ = fs::remove_dir_all(&base);
    for (name, tree) in [("a", before), ("b", after)] {
        fs::create_dir_all(base.join(name)).expect("dir");
        write_tree(&base.join(name), tree, false);
    }
    let out = Command::new("diff")
        .args(["-ruN", &format!("-U{context}"), "a", "b"])
        .current_dir(&base)
        .env("LC_ALL", "C")
        .env("TZ", "UTC")
        .output()
        .ok()?;
    // 1: differences found; 0: none; 2: trouble.
    (out.status.code() == Some(1))
        .then(|| String::from_utf8(out.stdout).ok())
        .flatten()
}

/// Splits a patch into its sections (each starting at `diff --git`).
fn sections(patch: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in patch.split_inclusive('\n') {
        if line.starts_with("diff --git ") || out.is_empty() {
            out.push(String::new());
        }
        out.last_mut().expect("one").push_str(line);
    }
    out
}

/// The plain (unquoted) path of a section, from its `diff --git a/P b/P` line.
fn section_path(section: &str) -> Option<String> {
    let first = section.lines().next()?;
    let rest = first.strip_prefix("diff --git a/")?;
    if rest.contains('"') {
        return None;
    }
    let (a, b) = rest.split_once(" b/")?;
    (a == b).then(|| a.to_string())
}

/// Replaces the path `from` with `to` in a section's header lines (before its first hunk).
fn rename_in_header(section: &str, from: &str, to: &str) -> String {
    let (head, body) = section.split_at(section.find("\n@@ ").map_or(section.len(), |i| i + 1));
    let head = head
        .replace(&format!("a/{from}"), &format!("a/{to}"))
        .replace(&format!("b/{from}"), &format!("b/{to}"));
    format!("{head}{body}")
}

/// A case: the tree to apply to, the patch, and whether minimcp refuses it by its own rules:
/// `must_refuse` (links, the deny list, binary patches: applying would be a failure) or
/// `may_refuse` (a damage that may or may not reach a rule: a mode, a backslash in a name).
struct Case {
    tree: Tree,
    patch: String,
    label: &'static str,
    must_refuse: bool,
    may_refuse: bool,
}

fn modified_file<'t>(rng: &mut Rng, before: &'t Tree, after: &Tree) -> Option<&'t String> {
    let candidates: Vec<&String> = before
        .iter()
        .filter(|(k, v)| matches!(after.get(*k), Some(n) if n != *v))
        .map(|(k, _)| k)
        .collect();
    (!candidates.is_empty()).then(|| *rng.pick(&candidates))
}

fn damage(rng: &mut Rng, index: usize, before: &Tree, after: &Tree, patch: &str) -> Case {
    let mut policy_now = false;
    let (label, policy) = if index == 0 {
        DAMAGES[0]
    } else {
        DAMAGES[1 + rng.below(DAMAGES.len() - 1)]
    };
    let mut tree = before.clone();
    let mut lines: Vec<String> = patch.split_inclusive('\n').map(str::to_string).collect();
    let hunk_lines: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].starts_with("@@ -"))
        .collect();
    let body_lines: Vec<usize> = (0..lines.len())
        .filter(|&i| {
            matches!(lines[i].as_bytes()[0], b' ' | b'-' | b'+')
                && !lines[i].starts_with("--- ")
                && !lines[i].starts_with("+++ ")
        })
        .collect();
    let mut secs = sections(patch);
    let pick_section = |rng: &mut Rng, secs: &[String]| -> Option<(usize, String)> {
        let named: Vec<(usize, String)> = secs
            .iter()
            .enumerate()
            .filter_map(|(i, s)| section_path(s).map(|p| (i, p)))
            .collect();
        (!named.is_empty()).then(|| rng.pick(&named).clone())
    };
    let mut joined = None;
    match label {
        "tree-offset" | "tree-context-changed" => {
            if let Some(name) = modified_file(rng, before, after) {
                if let Some(Node::File(bytes, exec)) = tree.get(name).cloned() {
                    let mut text: Vec<String> = String::from_utf8_lossy(&bytes)
                        .split_inclusive('\n')
                        .map(str::to_string)
                        .collect();
                    if label == "tree-offset" {
                        let at = rng.below(text.len() + 1);
                        for _ in 0..1 + rng.below(4) {
                            text.insert(at, format!("{} offset\n", *rng.pick(&WORDS)));
                        }
                    } else if !text.is_empty() {
                        let at = rng.below(text.len());
                        text[at] = format!("{} edited\n", *rng.pick(&WORDS));
                    }
                    tree.insert(name.clone(), Node::File(text.concat().into_bytes(), exec));
                }
            }
        }
        "tree-file-missing" => {
            if let Some(name) = modified_file(rng, before, after) {
                tree.remove(name);
            }
        }
        "tree-file-exists" | "tree-rename-target-exists" => {
            let created: Vec<&String> = after.keys().filter(|k| !before.contains_key(*k)).collect();
            if !created.is_empty() {
                let name = rng.pick(&created).to_string();
                if !tree.keys().any(|k| name.starts_with(&format!("{k}/"))) {
                    tree.insert(name, Node::File(content(rng), false));
                }
            }
        }
        "header-numbers" | "header-counts" | "header-hostile" if !hunk_lines.is_empty() => {
            let at = *rng.pick(&hunk_lines);
            let line = lines[at].clone();
            let nums: Vec<(usize, usize)> = {
                let b = line.as_bytes();
                let mut v = Vec::new();
                let mut i = 0;
                while i < b.len() {
                    if b[i].is_ascii_digit() {
                        let s = i;
                        while i < b.len() && b[i].is_ascii_digit() {
                            i += 1;
                        }
                        v.push((s, i));
                    } else {
                        i += 1;
                    }
                    if line[..i].ends_with(" @@") {
                        break;
                    }
                }
                v
            };
            let new = match label {
                "header-numbers" | "header-counts" if !nums.is_empty() => {
                    let (s, e) = if label == "header-counts" && nums.len() > 1 {
                        nums[if rng.one_in(2) { 1 } else { nums.len() - 1 }]
                    } else {
                        *rng.pick(&nums)
                    };
                    let n: i64 = line[s..e].parse().unwrap_or(0);
                    let delta = [-3i64, -1, 1, 2, 7][rng.below(5)];
                    format!("{}{}{}", &line[..s], (n + delta).max(0), &line[e..])
                }
                _ => {
                    let hostile = [
                        "@@ -1 +1 @@\n",
                        "@@ -4294967297,1 +4294967297,1 @@\n",
                        "@@ -18446744073709551615 +1 @@\n",
                        "@@ - 1 +1 @@\n",
                        "@@ -1,2 +1,2@@\n",
                        "@@ -0,0 +0,0 @@\n",
                        "@@ -1,-1 +1 @@\n",
                        "@@  -1 +1 @@\n",
                        "@@ -1,1 +1,1 @@ @@\n",
                        "@@ -99999999,3 +99999999,3 @@\n",
                    ];
                    rng.pick(&hostile).to_string()
                }
            };
            lines[at] = new;
        }
        "no-newline-marker" => {
            let markers: Vec<usize> = (0..lines.len())
                .filter(|&i| lines[i].starts_with('\\'))
                .collect();
            if !markers.is_empty() && rng.one_in(2) {
                let at = *rng.pick(&markers);
                if rng.one_in(2) {
                    lines.remove(at);
                } else {
                    lines[at] = ["\\ x\n", "\\ Kein Zeilenumbruch am Dateiende.\n", "\\\n"]
                        [rng.below(3)]
                    .to_string();
                }
            } else if !body_lines.is_empty() {
                let at = *rng.pick(&body_lines);
                lines.insert(at + 1, "\\ No newline at end of file\n".into());
            }
        }
        "whitespace" if !body_lines.is_empty() => {
            let at = *rng.pick(&body_lines);
            let line = lines[at].clone();
            let (mark, rest) = line.split_at(1);
            let rest = match rng.below(4) {
                0 => rest.trim_end().to_string() + "\n",
                1 => rest.replacen("    ", "\t", 1),
                2 => rest.replacen('\t', "    ", 1),
                _ => rest.replacen('\n', " \n", 1),
            };
            lines[at] = format!("{mark}{rest}");
        }
        "byte-changed" if !lines.is_empty() => {
            // Any line, one byte inserted, removed or replaced by one that means something
            // in a patch.
            const BYTES: [char; 12] = [
                ' ', '-', '+', '@', '\\', 'a', '/', '"', '\t', '\r', '1', ',',
            ];
            let at = rng.below(lines.len());
            let mut chars: Vec<char> = lines[at].chars().collect();
            let i = rng.below(chars.len().max(1));
            let byte = *rng.pick(&BYTES);
            match rng.below(3) {
                0 => chars.insert(i, byte),
                1 if !chars.is_empty() => {
                    chars.remove(i);
                }
                _ if !chars.is_empty() => chars[i] = byte,
                _ => {}
            }
            // A backslash put into a header's name: git takes it as part of the name, minimcp
            // refuses backslashes in names.
            const HEADERS: [&str; 7] = [
                "diff --git ",
                "--- ",
                "+++ ",
                "rename ",
                "copy ",
                "new file",
                "deleted file",
            ];
            if byte == '\\' && HEADERS.iter().any(|h| lines[at].starts_with(h)) {
                policy_now = true;
            }
            lines[at] = chars.into_iter().collect();
        }
        "crlf" => {
            let crlf = rng.one_in(2);
            for line in lines.iter_mut() {
                if (crlf || rng.one_in(3)) && line.ends_with('\n') && !line.ends_with("\r\n") {
                    line.insert(line.len() - 1, '\r');
                }
            }
        }
        "line-dropped" | "line-duplicated" if !lines.is_empty() => {
            let at = rng.below(lines.len());
            if label == "line-dropped" {
                lines.remove(at);
            } else {
                let copy = lines[at].clone();
                lines.insert(at, copy);
            }
        }
        "truncated" if lines.len() > 1 => {
            lines.truncate(1 + rng.below(lines.len() - 1));
            if rng.one_in(3) {
                if let Some(last) = lines.last_mut() {
                    last.pop();
                }
            }
        }
        "hunks-swapped" => {
            let multi: Vec<usize> = (0..secs.len())
                .filter(|&i| secs[i].matches("\n@@ -").count() >= 2)
                .collect();
            if !multi.is_empty() {
                let i = *rng.pick(&multi);
                let s = secs[i].clone();
                let parts: Vec<&str> = s.split("\n@@ -").collect();
                let mut hunks: Vec<String> =
                    parts[1..].iter().map(|h| format!("\n@@ -{h}")).collect();
                let a = rng.below(hunks.len());
                let b = rng.below(hunks.len());
                hunks.swap(a, b);
                let mut joined = parts[0].to_string();
                for h in hunks {
                    let h = if h.ends_with('\n') {
                        h
                    } else {
                        format!("{h}\n")
                    };
                    joined.push_str(&h);
                }
                secs[i] = joined.trim_end_matches('\n').to_string() + "\n";
                let fixed: String = secs.concat();
                lines = fixed.split_inclusive('\n').map(str::to_string).collect();
            }
        }
        "garbage" => {
            let junk = [
                "From 1234 Mon Sep 17 00:00:00 2001\nSubject: [PATCH] x\n\n---\n",
                "some words\n",
                "-- \n2.47.0\n",
                "Index: x\n====\n",
                "diff --git\n",
                "--- \n",
                "+++ b/\n",
            ];
            let at = match rng.below(3) {
                0 => 0,
                1 => lines.len(),
                _ => rng.below(lines.len() + 1),
            };
            lines.insert(at, rng.pick(&junk).to_string());
        }
        "traditional" => {
            lines.retain(|l| {
                !(l.starts_with("diff --git ")
                    || l.starts_with("index ")
                    || l.starts_with("similarity ")
                    || l.starts_with("rename ")
                    || l.starts_with("new file mode")
                    || l.starts_with("deleted file mode")
                    || l.starts_with("old mode")
                    || l.starts_with("new mode"))
            });
        }
        "no-prefix" => {
            for line in lines.iter_mut() {
                if let Some(rest) = line.strip_prefix("diff --git a/") {
                    *line = format!("diff --git {}", rest.replacen(" b/", " ", 1));
                } else if let Some(rest) = line.strip_prefix("--- a/") {
                    *line = format!("--- {rest}");
                } else if let Some(rest) = line.strip_prefix("+++ b/") {
                    *line = format!("+++ {rest}");
                }
            }
        }
        "path-dotdot" | "path-absolute" | "path-dot-git" | "path-dot" | "denied"
        | "path-through-link" => {
            if let Some((i, path)) = pick_section(rng, &secs) {
                let file = path.rsplit('/').next().unwrap_or(&path).to_string();
                let to = match label {
                    "path-dotdot" => [
                        format!("../{file}"),
                        format!("src/../../{file}"),
                        format!("x/../{path}"),
                    ][rng.below(3)]
                    .clone(),
                    "path-absolute" => format!("/tmp/{file}"),
                    "path-dot-git" => [
                        ".git/config".to_string(),
                        format!("src/.git/{file}"),
                        format!(".GIT/{file}"),
                        format!("git~1/{file}"),
                    ][rng.below(4)]
                    .clone(),
                    "path-dot" => [
                        format!("./{path}"),
                        format!("src/./{file}"),
                        format!("src//{file}"),
                    ][rng.below(3)]
                    .clone(),
                    "denied" => [
                        ".env".to_string(),
                        "config/.env.local".to_string(),
                        "keys/id_rsa".to_string(),
                        "server.pem".to_string(),
                    ][rng.below(4)]
                    .clone(),
                    _ => {
                        // A link to the file's directory, and the path through it.
                        let dir = path.rsplit_once('/').map_or(".", |(d, _)| d).to_string();
                        let target = if dir == "." {
                            "..".to_string()
                        } else {
                            format!("../{dir}")
                        };
                        tree.insert("via/link".into(), Node::Link(target));
                        format!("via/link/{file}")
                    }
                };
                secs[i] = rename_in_header(&secs[i], &path, &to);
                if label == "denied" {
                    if let Some(node) = tree.remove(&path) {
                        tree.insert(to.clone(), node);
                    }
                }
                joined = Some(secs.concat());
            }
        }
        "path-at-link" => {
            if let Some(name) = modified_file(rng, before, after) {
                if let Some(node) = tree.remove(name) {
                    let real = format!("{name}.real");
                    tree.insert(real.clone(), node);
                    let file = real.rsplit('/').next().unwrap_or(&real).to_string();
                    tree.insert(name.clone(), Node::Link(file));
                }
            }
        }
        "binary" => {
            if let Some((i, path)) = pick_section(rng, &secs) {
                let head: String = secs[i]
                    .split_inclusive('\n')
                    .take_while(|l| !l.starts_with("--- ") && !l.starts_with("@@"))
                    .collect();
                secs[i] = if rng.one_in(2) {
                    format!("{head}Binary files a/{path} and b/{path} differ\n")
                } else {
                    format!("{head}GIT binary patch\nliteral 0\nHcmV?d00001\n\nliteral 0\nHcmV?d00001\n\n")
                };
                joined = Some(secs.concat());
            }
        }
        "mode-symlink" => {
            if let Some((i, path)) = pick_section(rng, &secs) {
                secs[i] = format!("diff --git a/{path}.lnk b/{path}.lnk\nnew file mode 120000\n--- /dev/null\n+++ b/{path}.lnk\n@@ -0,0 +1 @@\n+target\n\\ No newline at end of file\n{}", secs[i]);
                joined = Some(secs.concat());
            }
        }
        "mode-change" => {
            if let Some((i, _)) = pick_section(rng, &secs) {
                let (old, new) = if rng.one_in(2) {
                    ("100644", "100755")
                } else {
                    ("100755", "100644")
                };
                let first_end = secs[i].find('\n').map_or(0, |n| n + 1);
                if !secs[i].contains("new file mode")
                    && !secs[i].contains("deleted file mode")
                    && !secs[i].contains("old mode")
                {
                    secs[i].insert_str(first_end, &format!("old mode {old}\nnew mode {new}\n"));
                    secs[i] = secs[i].replace(&format!(" {old}\n"), "\n");
                    joined = Some(secs.concat());
                }
            }
        }
        "section-duplicated" if !secs.is_empty() => {
            let i = rng.below(secs.len());
            let copy = secs[i].clone();
            secs.insert(i, copy);
            joined = Some(secs.concat());
        }
        _ => {}
    }
    let damaged = joined.unwrap_or_else(|| lines.concat());
    if index > 0 && damaged == patch && tree == *before {
        // Nothing this damage could change here: a clean case.
        return Case {
            tree,
            patch: damaged,
            label: "undamaged",
            must_refuse: false,
            may_refuse: false,
        };
    }
    // A mode git reads as neither 100644 nor 100755 (a damaged mode line): git makes a link
    // or a submodule directory of it, minimcp refuses.
    let may_refuse = policy_now || has_odd_mode(&damaged);
    Case {
        tree,
        patch: damaged,
        label,
        must_refuse: policy,
        may_refuse,
    }
}

/// The server under test, stateless requests (2026-07-28) so that no file it wrote in an
/// earlier case counts as read.
struct Server {
    peer: Peer,
    next: u64,
}

impl Server {
    fn start(root: &Path) -> Server {
        let args: Vec<String> = [
            "--root",
            root.to_str().expect("utf-8"),
            "--toolsets",
            "workspace,edit",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let peer = Peer::spawn(common::minimcp(), &args).expect("spawn");
        peer.send_line(&json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "oracle", "version": "1"}}}).to_string());
        peer.send_line(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        let mut server = Server { peer, next: 1 };
        server.answer(0);
        server
    }

    fn answer(&mut self, id: u64) -> Value {
        loop {
            match self.peer.recv(ANSWER) {
                Ok(Out::Line(line)) => {
                    let message: Value = serde_json::from_slice(&line).expect("JSON");
                    if message["id"] == id {
                        return message;
                    }
                }
                other => panic!("the server stopped: {other:?}\n{}", self.peer.stderr_text()),
            }
        }
    }

    /// Applies `patch`: whether it did, and the text.
    fn apply(&mut self, patch: &str) -> (bool, String) {
        let id = self.next;
        self.next += 1;
        let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}});
        self.peer.send_line(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "apply_patch", "arguments": {"patch": patch}, "_meta": meta}}).to_string());
        let answer = self.answer(id);
        let result = &answer["result"];
        assert!(
            result.is_object(),
            "apply_patch answered with an error: {answer}"
        );
        let text = result["content"]
            .as_array()
            .map(|c| {
                c.iter()
                    .filter_map(|b| b["text"].as_str())
                    .collect::<Vec<_>>()
                    .join("\n")
            })
            .unwrap_or_default();
        (result["isError"] != true, text)
    }
}

#[derive(Default)]
struct Tally {
    applied: usize,
    refused: usize,
    policy_git_applied: usize,
    policy_git_refused: usize,
    wrong: usize,
}

#[test]
fn apply_patch_agrees_with_git_apply() {
    if !git_available() {
        eprintln!("SKIPPED: git is not installed; apply_patch is compared with git apply");
        return;
    }
    let seed = env_number("MINIMCP_PATCH_FUZZ_SEED").unwrap_or(FIXED_SEED);
    let pairs = env_number("MINIMCP_PATCH_FUZZ_PAIRS").map_or(FIXED_PAIRS, |n| n as usize);
    eprintln!("apply_patch_oracle: seed {seed}, {pairs} tree pairs; replay with MINIMCP_PATCH_FUZZ_SEED={seed} MINIMCP_PATCH_FUZZ_PAIRS={pairs}");
    let started = Instant::now();
    let scratch = Scratch::new("patch-oracle");
    let (repo, theirs, root) = (
        scratch.join("repo"),
        scratch.join("git"),
        scratch.join("root"),
    );
    fs::create_dir_all(&theirs).expect("dir");
    fs::create_dir_all(&root).expect("dir");
    let patch_file = scratch.join("case.diff");
    let mut server = Server::start(&root);
    let mut rng = Rng(seed);
    let mut tally: BTreeMap<&'static str, Tally> = BTreeMap::new();
    let mut failures = Vec::new();
    let mut cases = 0;
    let mut version_sensitive = 0;
    let old_git = git_version() < (2, 47);
    let (mut git_time, mut ours_time, mut diff_time) =
        (Duration::ZERO, Duration::ZERO, Duration::ZERO);
    for pair in 0..pairs {
        let before = before_tree(&mut rng);
        let after = after_tree(&mut rng, &before);
        let context = [3, 3, 3, 1, 0, 5, 2][rng.below(7)];
        let clock = Instant::now();
        let made = make_patch(&repo, &before, &after, context);
        diff_time += clock.elapsed();
        let Some(patch) = made else { continue };
        // One case in three more: the same change as GNU diff writes it (`diff -ruN`, no
        // `diff --git`, timestamps after the names, epoch times for created and deleted files).
        let gnu = rng
            .one_in(3)
            .then(|| gnu_diff(&scratch, &before, &after, context))
            .flatten();
        let extra = usize::from(gnu.is_some());
        for index in 0..CASES_PER_PAIR + extra {
            let case = match (&gnu, index == CASES_PER_PAIR) {
                (Some(patch), true) => Case {
                    tree: before.clone(),
                    patch: patch.clone(),
                    label: "gnu-diff",
                    must_refuse: false,
                    may_refuse: false,
                },
                _ => damage(&mut rng, index, &before, &after, &patch),
            };
            cases += 1;
            write_tree(&theirs, &case.tree, false);
            write_tree(&root, &case.tree, false);
            fs::write(&patch_file, &case.patch).expect("patch file");
            let clock = Instant::now();
            let (git_ok, _, git_err) =
                git(&theirs, &["apply", patch_file.to_str().expect("utf-8")]);
            git_time += clock.elapsed();
            let clock = Instant::now();
            let (ours_ok, text) = server.apply(&case.patch);
            ours_time += clock.elapsed();
            let git_tree = read_tree(&theirs);
            let our_tree = read_tree(&root);
            let t = tally.entry(case.label).or_default();
            if old_git && git_version_sensitive(&case.patch) && !(case.must_refuse && ours_ok) {
                version_sensitive += 1;
                if !ours_ok && our_tree != case.tree {
                    failures.push(format!(
                        "pair {pair} case {index}: minimcp refused but changed the tree"
                    ));
                }
                continue;
            }
            let policy = case.must_refuse || (case.may_refuse && !ours_ok);
            let problem = match (policy, git_ok, ours_ok) {
                (true, _, true) => Some("minimcp applied a patch its rules refuse".to_string()),
                (true, g, false) => {
                    if g {
                        t.policy_git_applied += 1
                    } else {
                        t.policy_git_refused += 1
                    }
                    (our_tree != case.tree)
                        .then(|| "minimcp refused but changed the tree".to_string())
                }
                (false, true, true) if git_tree == our_tree => {
                    t.applied += 1;
                    None
                }
                (false, true, true) => Some(format!(
                    "both applied, the trees differ:\n{}",
                    tree_diff(&git_tree, &our_tree)
                )),
                (false, false, false) => {
                    t.refused += 1;
                    (our_tree != case.tree)
                        .then(|| "minimcp refused but changed the tree".to_string())
                }
                (false, true, false) => Some("git applied, minimcp refused".to_string()),
                (false, false, true) => {
                    Some(format!("git refused ({}), minimcp applied", git_err.trim()))
                }
            };
            if let Some(problem) = problem {
                t.wrong += 1;
                if failures.len() < 5 {
                    failures.push(format!("pair {pair} case {index} ({}): {problem}\nminimcp said: {text}\ngit said: {}\ntree: {:?}\npatch:\n{}", case.label, git_err.trim(), case.tree.keys().collect::<Vec<_>>(), case.patch));
                }
            }
        }
    }
    let total = |f: fn(&Tally) -> usize| tally.values().map(f).sum::<usize>();
    eprintln!(
        "apply_patch_oracle: seed {seed}: {cases} cases: both applied, same bytes {}; both refused {}; refused by minimcp's rules {} (git applied {}, refused {}); read differently by git versions (not compared) {version_sensitive}; disagreements {}; {:.1} s (git diff {:.1} s, git apply {:.1} s, apply_patch {:.1} s)",
        total(|t| t.applied),
        total(|t| t.refused),
        total(|t| t.policy_git_applied + t.policy_git_refused),
        total(|t| t.policy_git_applied),
        total(|t| t.policy_git_refused),
        total(|t| t.wrong),
        started.elapsed().as_secs_f64(),
        diff_time.as_secs_f64(),
        git_time.as_secs_f64(),
        ours_time.as_secs_f64()
    );
    for (label, t) in &tally {
        eprintln!(
            "apply_patch_oracle:   {label:<26} applied {:>5}  refused {:>5}  policy (git applied/refused) {:>4}/{:<4}  wrong {}",
            t.applied, t.refused, t.policy_git_applied, t.policy_git_refused, t.wrong
        );
    }
    assert!(
        failures.is_empty(),
        "seed {seed}:\n{}",
        failures.join("\n\n")
    );
}

/// The paths where two trees differ, for a failure report.
fn tree_diff(a: &Tree, b: &Tree) -> String {
    let mut out = Vec::new();
    for key in a
        .keys()
        .chain(b.keys())
        .collect::<std::collections::BTreeSet<_>>()
    {
        match (a.get(key), b.get(key)) {
            (x, y) if x == y => {}
            (x, y) => out.push(format!("  {key}: git {x:?} / minimcp {y:?}")),
        }
    }
    out.join("\n")
}
