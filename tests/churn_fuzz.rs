//! Property test of the two git-output parsers, through the real binary: `minimcp churn`
//! (`git log --numstat`, the `analyze_code_churn` tool) and `minimcp analyze --diff`
//! (`git diff --unified=0`). Each case builds a git repository from a seeded PRNG: file
//! names from hostile alphabets (quotes, backslashes, tabs, newlines, control characters,
//! non-ASCII, leading dashes, rename-like `=>` and braces, names that look like numstat
//! lines, long names, deep directories), file contents whose lines look like diff headers,
//! several authors with odd names, author and committer dates inside and outside the
//! period, adds, edits with known line counts, deletions, renames (followed: a file's
//! history goes to its new name), binary files, empty commits and a merge; and the server runs under user git settings that change git's
//! output (`diff.noprefix`, `diff.mnemonicPrefix`, `diff.interHunkContext`,
//! `log.showRoot`, `i18n.logOutputEncoding`).
//!
//! The oracle is the test's own record of what it committed, never git's output read
//! again: per file present now (deleted files are left out), under the name it has now,
//! commits, lines added and deleted, authors, first and last change;
//! totals; hotspots (one-line Python functions, complexity 1 each); and for `--diff`, the
//! functions on lines the test changed since a revision. Every line a test writes is
//! unique, so git's diff can only be the edit the test made.
//!
//! `cargo test` runs a fixed seed and a few repositories; `.ci/run` sets
//! `MINIMCP_CHURN_FUZZ_SEED=random` and `MINIMCP_CHURN_FUZZ_REPOS`. The seed is printed; a
//! failure replays with `MINIMCP_CHURN_FUZZ_SEED=<seed>`.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::Path;
use std::process::{Command, Output};
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::Value;

mod common;

use common::rng::Rng;
use common::scratch::Scratch;

const DAY: i64 = 86_400;
/// `minimcp churn --days`.
const PERIOD_DAYS: i64 = 30;
/// No commit is dated this close to the period's start: git reads "30 days ago" against
/// its own clock, a little later than ours, and in local time.
const MARGIN: i64 = 3 * 3600;

/// Pieces of file and directory names.
const PIECES: &[&str] = &[
    "a",
    "b",
    "Z",
    "0",
    "7",
    " ",
    "  ",
    "\t",
    "\"",
    "\\",
    "'",
    "ü",
    "中",
    "é",
    "😀",
    "-",
    "--",
    "=>",
    " => ",
    "{",
    "}",
    "{x => y}",
    "1\t2\t",
    "-\t-\t",
    "\n",
    "\r",
    "\u{1}",
    "\u{7f}",
    "\u{1e}",
    "\u{1f}",
    "*",
    "?",
    "[",
    "]",
    ":",
    "#",
    "%",
    "$",
    "~",
    "!",
    "@",
    "&",
    ";",
    ",",
    "(",
    ")",
    "+",
    "=",
    "\\303\\244",
    "\"q\"",
    "\\n",
    "@@ -1 +1 @@",
    "+++ b",
    " b",
    ".",
];

/// Prefixes of lines in Python files: diff syntax once git puts `+`, `-` or nothing before
/// them, and harmless to the Python lexer (no quotes, backslashes or indentation).
const PY_HOSTILE: &[&str] = &[
    "++ b/",
    "++ ",
    "-- a/",
    "--- ",
    "+++ b/",
    "@@ -1,2 +3,4 @@ ",
    "diff --git a/q b/q ",
    "index 0..1 ",
    "",
];

/// Prefixes of lines in other text files: anything but a line break.
const TEXT_HOSTILE: &[&str] = &[
    "++ b/",
    "-- a/",
    "@@ -1 +1 @@",
    "\\ No newline at end of file",
    "Binary files a/x and b/x differ",
    "\u{1e}",
    "\u{1f}",
    "1\t2\tname",
    "-\t-\tx",
    "\"q\\\"",
    "ü中",
    "\t",
    " ",
    "",
];

/// Authors (name, email). Git trims spaces and some punctuation from a name's ends only.
const AUTHORS: &[(&str, &str)] = &[
    ("Ann", "ann@example.com"),
    ("Bob Ñúñez", "bob@example.com"),
    ("Chloé \"C\" O'Hara", "chloe@example.com"),
    ("D, E; F", "def@example.com"),
    ("李雷", "li@example.com"),
    ("back\\slash", "bs@example.com"),
    ("Tab\tName", "tab@example.com"),
    ("Unit\u{1f}Sep", "us@example.com"),
    ("Rec\u{1e}Sep", "rs@example.com"),
];

/// User settings the server may meet (`GIT_CONFIG_COUNT`); each changes what git prints
/// unless the server's command line overrides it.
const CONFIGS: &[&[(&str, &str)]] = &[
    &[],
    &[("diff.noprefix", "true")],
    &[("diff.mnemonicPrefix", "true")],
    &[("diff.interHunkContext", "3")],
    &[("log.showRoot", "false")],
    &[("i18n.logOutputEncoding", "ISO-8859-1")],
    &[("color.ui", "always"), ("diff.renames", "copies")],
];

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Python,
    Text,
    Binary,
}

#[derive(Clone, Debug)]
struct File {
    kind: Kind,
    /// Text lines (no line breaks), or one binary blob's bytes.
    lines: Vec<String>,
    bytes: Vec<u8>,
    /// The last line has no line break; it never changes (git would count it changed
    /// when a line is appended after it).
    no_eol: bool,
}

impl File {
    fn contents(&self) -> Vec<u8> {
        if self.kind == Kind::Binary {
            return self.bytes.clone();
        }
        let mut text = self.lines.join("\n");
        if !self.no_eol && !self.lines.is_empty() {
            text.push('\n');
        }
        text.into_bytes()
    }

    /// Functions on its lines now (1-based), for Python files.
    fn function_lines(&self) -> Vec<usize> {
        if self.kind != Kind::Python {
            return Vec::new();
        }
        (1..=self.lines.len())
            .filter(|&n| self.lines[n - 1].starts_with("def "))
            .collect()
    }
}

/// What the test expects the churn report to say about one file.
#[derive(Default, Debug, PartialEq, Eq)]
struct Expected {
    commits: u64,
    additions: u64,
    deletions: u64,
    authors: BTreeSet<String>,
    first: i64,
    last: i64,
}

/// One repository under construction and the record of everything committed to it.
struct Repo {
    dir: Scratch,
    rng: Rng,
    now: i64,
    /// The working tree now (the branch checked out).
    files: BTreeMap<String, File>,
    /// Every path ever a file / a directory: no path becomes the other kind.
    files_ever: HashSet<String>,
    dirs_ever: HashSet<String>,
    line_counter: u64,
    /// Committer dates still to use, oldest first, except that some histories have one
    /// from before the period among the recent ones: a commit made on a machine with a
    /// wrong clock, where `git log --since` would stop and hide every commit behind it.
    dates: Vec<i64>,
    churn: BTreeMap<String, Expected>,
    commits_in_period: usize,
    authors_in_period: BTreeSet<String>,
    /// Commit id and tree after each commit on the main branch.
    snapshots: Vec<(String, BTreeMap<String, File>)>,
    /// A log of what was done, printed when a case fails.
    log: Vec<String>,
}

/// The changes of one commit to one file, for the record.
struct Touch {
    path: String,
    added: u64,
    deleted: u64,
    /// A rename: the path the file had before this commit.
    from: Option<String>,
}

fn seed() -> (u64, bool) {
    match std::env::var("MINIMCP_CHURN_FUZZ_SEED").ok().as_deref() {
        Some("random") => {
            let nanos = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map(|d| d.as_nanos() as u64)
                .unwrap_or(0);
            (nanos ^ (u64::from(std::process::id()) << 32), true)
        }
        Some(n) => (
            n.parse()
                .expect("MINIMCP_CHURN_FUZZ_SEED is a number or random"),
            true,
        ),
        None => (0x00C0_FFEE_5EED, false),
    }
}

fn git_available() -> bool {
    Command::new("git")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The test's own git: no user or system settings.
fn git(dir: &Path, args: &[&str], env: &[(&str, String)]) -> Output {
    let out = Command::new("git")
        .current_dir(dir)
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env_remove("GIT_CONFIG_COUNT")
        .envs(env.iter().map(|(k, v)| (k, v)))
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

impl Repo {
    fn new(seed: u64, index: usize) -> Repo {
        let dir = Scratch::new(&format!("churn-fuzz-{index}"));
        git(&dir, &["init", "-q", "-b", "main"], &[]);
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .expect("clock after 1970")
            .as_secs() as i64;
        Repo {
            dir,
            rng: Rng(seed),
            now,
            files: BTreeMap::new(),
            files_ever: HashSet::new(),
            dirs_ever: HashSet::new(),
            line_counter: 0,
            dates: Vec::new(),
            churn: BTreeMap::new(),
            commits_in_period: 0,
            authors_in_period: BTreeSet::new(),
            snapshots: Vec::new(),
            log: Vec::new(),
        }
    }

    fn cutoff(&self) -> i64 {
        self.now - PERIOD_DAYS * DAY
    }

    fn component(&mut self) -> String {
        loop {
            let mut s = String::new();
            if self.rng.one_in(8) {
                s.push('-');
            }
            if self.rng.one_in(10) {
                s.push('.');
            }
            for _ in 0..1 + self.rng.below(5) {
                let piece = *self.rng.pick(PIECES);
                s.push_str(piece);
            }
            if self.rng.one_in(20) {
                s.push_str(&"long".repeat(30 + self.rng.below(15)));
            }
            let lower = s.to_lowercase();
            let bare = lower.trim_end_matches([' ', '.']);
            // Git refuses `.git`-like components (also in NTFS spellings); `.mailmap`
            // and attribute files would change what git prints.
            let refused =
                bare.starts_with(".git") || bare.starts_with("git~") || lower == ".mailmap";
            if !s.is_empty()
                && !s.contains('/')
                && !bare.is_empty()
                && s != "."
                && s != ".."
                && !refused
                && s.len() < 240
            {
                return s;
            }
        }
    }

    /// A new path for a file of `kind`, clear of every file and directory used before.
    fn new_path(&mut self, kind: Kind) -> String {
        loop {
            let depth = if self.rng.one_in(10) {
                5 + self.rng.below(5)
            } else {
                self.rng.below(3)
            };
            let mut parts: Vec<String> = (0..depth).map(|_| self.component()).collect();
            let ext = match kind {
                Kind::Python => ".py",
                Kind::Text => *self.rng.pick(&[".txt", ".md", ".log"]),
                Kind::Binary => *self.rng.pick(&[".bin", ".png"]),
            };
            let base = self.component() + ext;
            parts.push(base);
            let path = parts.join("/");
            let prefixes: Vec<String> = (1..parts.len()).map(|n| parts[..n].join("/")).collect();
            if path.len() > 1500
                || self.files_ever.contains(&path)
                || self.dirs_ever.contains(&path)
                || prefixes.iter().any(|p| self.files_ever.contains(p))
            {
                continue;
            }
            self.files_ever.insert(path.clone());
            self.dirs_ever.extend(prefixes);
            return path;
        }
    }

    fn line(&mut self, kind: Kind) -> String {
        self.line_counter += 1;
        let n = self.line_counter;
        match kind {
            Kind::Python if self.rng.below(3) > 0 => format!("def f{n}(a): return a"),
            Kind::Python => format!("{}L{n} = 1", *self.rng.pick(PY_HOSTILE)),
            _ => {
                let tail: String = (0..self.rng.below(4))
                    .map(|_| {
                        *self
                            .rng
                            .pick(&["x", "\t", " ", "\"", "\\", "é", "\u{1}", "\r"])
                    })
                    .collect();
                format!("{}L{n}{tail}", *self.rng.pick(TEXT_HOSTILE))
            }
        }
    }

    fn blob(&mut self) -> Vec<u8> {
        self.line_counter += 1;
        let mut bytes = format!("BIN{}\0", self.line_counter).into_bytes();
        for _ in 0..self.rng.below(300) {
            bytes.push(self.rng.next() as u8);
        }
        bytes
    }

    fn write(&self, path: &str) {
        let file = &self.files[path];
        let full = self.dir.join(path);
        std::fs::create_dir_all(full.parent().expect("parent")).expect("mkdir");
        std::fs::write(full, file.contents()).expect("write");
    }

    fn remove(&self, path: &str) {
        std::fs::remove_file(self.dir.join(path)).expect("remove");
    }

    fn add(&mut self, touched: &mut Vec<Touch>, empty_moved: &mut bool) {
        let kind = match self.rng.below(8) {
            0 => Kind::Binary,
            1..=3 => Kind::Text,
            _ => Kind::Python,
        };
        let kind = if kind == Kind::Python
            && self
                .files
                .values()
                .filter(|f| f.kind == Kind::Python)
                .count()
                >= 8
        {
            Kind::Text
        } else {
            kind
        };
        let path = self.new_path(kind);
        let count = if self.rng.one_in(10) && !*empty_moved && kind != Kind::Binary {
            *empty_moved = true;
            0
        } else {
            1 + self.rng.below(12)
        };
        let lines: Vec<String> = if kind == Kind::Binary {
            Vec::new()
        } else {
            (0..count).map(|_| self.line(kind)).collect()
        };
        let bytes = if kind == Kind::Binary {
            self.blob()
        } else {
            Vec::new()
        };
        let no_eol = !lines.is_empty() && self.rng.one_in(5);
        let added = lines.len() as u64;
        self.log
            .push(format!("add {path:?} ({kind:?}, {added} lines)"));
        self.files.insert(
            path.clone(),
            File {
                kind,
                lines,
                bytes,
                no_eol,
            },
        );
        self.write(&path);
        touched.push(Touch {
            path,
            added,
            deleted: 0,
            from: None,
        });
    }

    /// Deletes and inserts random lines of `path` (at least one change).
    fn edit(&mut self, path: &str) -> (u64, u64) {
        let mut file = self.files[path].clone();
        if file.kind == Kind::Binary {
            file.bytes = self.blob();
            self.files.insert(path.to_string(), file);
            self.write(path);
            self.log.push(format!("rewrite {path:?}"));
            return (0, 0);
        }
        let sticky = usize::from(file.no_eol);
        let mut deleted = 0;
        for _ in 0..self.rng.below(4) {
            let editable = file.lines.len() - sticky;
            if editable == 0 {
                break;
            }
            file.lines.remove(self.rng.below(editable));
            deleted += 1;
        }
        let mut inserts = self.rng.below(5);
        if inserts == 0 && deleted == 0 {
            inserts = 1;
        }
        for _ in 0..inserts {
            let at = self.rng.below(file.lines.len() - sticky + 1);
            let line = self.line(file.kind);
            file.lines.insert(at, line);
        }
        self.log
            .push(format!("edit {path:?} +{inserts} -{deleted}"));
        self.files.insert(path.to_string(), file);
        self.write(path);
        (inserts as u64, deleted)
    }

    fn pick_file(&mut self, avoid: &HashSet<String>) -> Option<String> {
        let free: Vec<String> = self
            .files
            .keys()
            .filter(|p| !avoid.contains(*p))
            .cloned()
            .collect();
        (!free.is_empty()).then(|| free[self.rng.below(free.len())].clone())
    }

    /// Random changes for one commit, each file touched at most once; files in `avoid`
    /// are left alone (the other branch of a merge changes them).
    fn changes(&mut self, avoid: &HashSet<String>) -> Vec<Touch> {
        let mut touched: Vec<Touch> = Vec::new();
        let mut empty_moved = false;
        for _ in 0..1 + self.rng.below(4) {
            let mut busy: HashSet<String> = avoid.clone();
            busy.extend(touched.iter().map(|t| t.path.clone()));
            let mut op = self.rng.below(9);
            let Some(path) = (op >= 3).then(|| self.pick_file(&busy)).flatten() else {
                self.add(&mut touched, &mut empty_moved);
                continue;
            };
            // git pairs a deleted empty file with an added one as a rename (their blobs are
            // the same): one empty file added, deleted or renamed per commit at most, so
            // what git finds is what the test did.
            if op >= 7 && self.files[&path].contents().is_empty() {
                if empty_moved {
                    op = 3;
                }
                empty_moved = true;
            }
            match op {
                3..=6 => {
                    let (added, deleted) = self.edit(&path);
                    touched.push(Touch {
                        path,
                        added,
                        deleted,
                        from: None,
                    });
                }
                7 => {
                    let file = self.files.remove(&path).expect("file");
                    self.remove(&path);
                    self.log.push(format!("delete {path:?}"));
                    touched.push(Touch {
                        path,
                        added: 0,
                        deleted: lines_of(&file),
                        from: None,
                    });
                }
                _ => {
                    // A rename, content unchanged: git finds it (-M) and counts no lines;
                    // the file's history goes with it.
                    let file = self.files.remove(&path).expect("file");
                    self.remove(&path);
                    let to = self.new_path(file.kind);
                    self.log.push(format!("rename {path:?} -> {to:?}"));
                    self.files.insert(to.clone(), file);
                    self.write(&to);
                    touched.push(Touch {
                        path: to,
                        added: 0,
                        deleted: 0,
                        from: Some(path),
                    });
                }
            }
        }
        touched
    }

    /// Commits what is in the working tree, and records it when it is in the period.
    /// Returns the new commit's id.
    fn commit(&mut self, touched: &[Touch], merge: Option<&str>) -> String {
        let committed = self.dates.remove(0);
        let authored = if self.rng.one_in(2) {
            committed
        } else {
            978_307_200 + self.rng.below((self.now - 978_307_200) as usize) as i64
        };
        let (name, email) = *self.rng.pick(AUTHORS);
        let env = [
            ("GIT_AUTHOR_NAME", name.to_string()),
            ("GIT_AUTHOR_EMAIL", email.to_string()),
            ("GIT_AUTHOR_DATE", format!("@{authored} +0000")),
            ("GIT_COMMITTER_NAME", "Committer".to_string()),
            ("GIT_COMMITTER_EMAIL", "c@example.com".to_string()),
            ("GIT_COMMITTER_DATE", format!("@{committed} +0000")),
        ];
        self.log.push(format!(
            "commit by {name:?}, authored {authored}, committed {committed}{}",
            if committed >= self.cutoff() {
                " (in the period)"
            } else {
                ""
            }
        ));
        match merge {
            Some(branch) => {
                git(
                    &self.dir,
                    &["merge", "-q", "--no-ff", "-m", "merge", branch],
                    &env,
                );
            }
            None => {
                git(&self.dir, &["add", "-A"], &[]);
                git(
                    &self.dir,
                    &["commit", "-q", "--allow-empty", "-m", "change"],
                    &env,
                );
            }
        }
        let id = String::from_utf8(git(&self.dir, &["rev-parse", "HEAD"], &[]).stdout)
            .expect("utf-8 id")
            .trim()
            .to_string();
        // With a pathspec (the server passes `.`), git log leaves out a commit that
        // changes nothing: an empty one, or a merge whose tree is one parent's.
        let shown = merge.is_some() || !touched.is_empty();
        if committed >= self.cutoff() && shown {
            self.commits_in_period += 1;
            self.authors_in_period.insert(name.to_string());
            for t in touched {
                // A rename carries the file's history (in the period) to its new name.
                if let Some(old) = t.from.as_ref().and_then(|from| self.churn.remove(from)) {
                    self.churn.insert(t.path.clone(), old);
                }
                let e = self
                    .churn
                    .entry(t.path.clone())
                    .or_insert_with(|| Expected {
                        first: authored,
                        last: authored,
                        ..Expected::default()
                    });
                e.commits += 1;
                e.additions += t.added;
                e.deletions += t.deleted;
                e.authors.insert(name.to_string());
                e.first = e.first.min(authored);
                e.last = e.last.max(authored);
            }
        }
        id
    }

    /// Builds the history: `commits` commits, one of them maybe a merge of a side branch.
    fn build(&mut self, commits: usize) {
        // None, a third or two thirds of the history before the period (with none, the
        // first commit, whose files only `--root` shows under log.showRoot=false, is in it).
        let old_thirds = self.rng.below(3);
        let mut dates: Vec<i64> = (0..commits + 3)
            .map(|_| {
                if self.rng.below(3) >= old_thirds {
                    self.now
                        - MARGIN
                        - self.rng.below(((PERIOD_DAYS * DAY) - 2 * MARGIN) as usize) as i64
                } else {
                    self.cutoff() - MARGIN - self.rng.below((200 * DAY) as usize) as i64
                }
            })
            .collect();
        dates.sort_unstable();
        let recent = dates.iter().filter(|d| **d >= self.cutoff()).count();
        if recent >= 3 && self.rng.one_in(3) {
            let skewed = dates.len() - 1 - self.rng.below(recent - 1);
            dates[skewed] = self.cutoff() - MARGIN - self.rng.below((30 * DAY) as usize) as i64;
            self.log.push(format!("commit {skewed} has a skewed clock"));
        }
        self.dates = dates;
        let merge_at = (commits > 3 && self.rng.one_in(2)).then(|| 1 + self.rng.below(commits - 1));
        for i in 0..commits {
            if Some(i) == merge_at {
                self.merge();
                continue;
            }
            let touched = if i > 0 && self.rng.one_in(10) {
                self.log.push("empty commit".into());
                Vec::new()
            } else {
                self.changes(&HashSet::new())
            };
            let id = self.commit(&touched, None);
            self.snapshots.push((id, self.files.clone()));
        }
    }

    /// A side branch with one commit, one commit on main touching other files, and a
    /// merge of the two (not the tree of either parent, so git log shows it).
    fn merge(&mut self) {
        self.log.push("side branch".into());
        let base = self.files.clone();
        git(&self.dir, &["checkout", "-q", "-b", "side"], &[]);
        let side_touched = self.changes(&HashSet::new());
        self.commit(&side_touched, None);
        let side_files = std::mem::replace(&mut self.files, base);
        git(&self.dir, &["checkout", "-q", "main"], &[]);
        // Both names of a file the side branch renamed are its own.
        let avoid: HashSet<String> = side_touched
            .iter()
            .flat_map(|t| [Some(t.path.clone()), t.from.clone()])
            .flatten()
            .collect();
        let main_touched = self.changes(&avoid);
        let id = self.commit(&main_touched, None);
        self.snapshots.push((id, self.files.clone()));
        for path in &avoid {
            match side_files.get(path) {
                Some(file) => self.files.insert(path.clone(), file.clone()),
                None => self.files.remove(path),
            };
        }
        let id = self.commit(&[], Some("side"));
        self.snapshots.push((id, self.files.clone()));
        // The merged tree on disk is git's; check the record agrees with it.
        for (path, file) in &self.files {
            let on_disk = std::fs::read(self.dir.join(path)).expect("merged file");
            assert_eq!(on_disk, file.contents(), "merged {path:?}");
        }
    }
}

fn lines_of(file: &File) -> u64 {
    if file.kind == Kind::Binary {
        0
    } else {
        file.lines.len() as u64
    }
}

/// `minimcp ARGS` in `dir` under the user git settings `config`: status, stdout, stderr.
fn minimcp(dir: &Path, args: &[&str], config: &[(&str, &str)]) -> (i32, String, String) {
    let mut command = Command::new(common::minimcp());
    command
        .current_dir(dir)
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_COUNT", config.len().to_string());
    for (i, (key, value)) in config.iter().enumerate() {
        command
            .env(format!("GIT_CONFIG_KEY_{i}"), key)
            .env(format!("GIT_CONFIG_VALUE_{i}"), value);
    }
    let out = command.output().expect("the binary runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `2026-11-23T16:43:53Z` for Unix seconds (2001 and later here), counted the slow way, year
/// by year and month by month from 1970: not the server's calendar arithmetic, which this
/// checks.
fn iso(secs: i64) -> String {
    let leap = |y: i64| (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let (mut days, rem) = (secs.div_euclid(DAY), secs.rem_euclid(DAY));
    let mut year = 1970;
    while days >= 365 + i64::from(leap(year)) {
        days -= 365 + i64::from(leap(year));
        year += 1;
    }
    let february = 28 + i64::from(leap(year));
    let lengths = [31, february, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    let mut month = 0;
    while days >= lengths[month] {
        days -= lengths[month];
        month += 1;
    }
    format!(
        "{year:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z",
        month + 1,
        days + 1,
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

/// Every field of `minimcp churn --format json` against the record.
fn check_churn(repo: &Repo, config: &[(&str, &str)]) -> Result<(), String> {
    let days = PERIOD_DAYS.to_string();
    let (code, out, err) = minimcp(
        &repo.dir,
        &["churn", "--format", "json", "--days", &days],
        config,
    );
    if code != 0 {
        return Err(format!("minimcp churn exited {code}: {err}"));
    }
    let report: Value = serde_json::from_str(&out).map_err(|e| format!("{e}: {out}"))?;
    let mut problems = Vec::new();
    let mut seen = BTreeMap::new();
    for f in report["files"].as_array().ok_or("no files array")? {
        let name = f["file"].as_str().unwrap_or("").to_string();
        let authors: BTreeSet<String> = f["authors"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|a| a.as_str().map(str::to_string))
            .collect();
        let got = (
            f["commits"].as_u64(),
            f["additions"].as_u64(),
            f["deletions"].as_u64(),
            authors,
            f["first_change"].as_str().map(str::to_string),
            f["last_change"].as_str().map(str::to_string),
        );
        seen.insert(name, got);
    }
    // Files deleted since are left out; renamed ones are under their name now.
    let present: Vec<(&String, &Expected)> = repo
        .churn
        .iter()
        .filter(|(path, _)| repo.files.contains_key(*path))
        .collect();
    for (path, e) in present.iter().copied() {
        let want = (
            Some(e.commits),
            Some(e.additions),
            Some(e.deletions),
            e.authors.clone(),
            Some(iso(e.first)),
            Some(iso(e.last)),
        );
        match seen.remove(path) {
            Some(got) if got == want => {}
            Some(got) => problems.push(format!("{path:?}: got {got:?}, want {want:?}")),
            None => problems.push(format!("{path:?}: missing (want {want:?})")),
        }
    }
    for (path, got) in &seen {
        problems.push(format!(
            "{path:?}: not committed in the period, reported {got:?}"
        ));
    }
    let totals = (
        report["total_commits"].as_u64(),
        report["total_authors"].as_u64(),
        report["total_files"].as_u64(),
    );
    let want = (
        Some(repo.commits_in_period as u64),
        Some(repo.authors_in_period.len() as u64),
        Some(present.len() as u64),
    );
    if totals != want {
        problems.push(format!(
            "totals (commits, authors, files): got {totals:?}, want {want:?}"
        ));
    }
    // Hotspots: Python files present now, churn × their function count (each complexity 1).
    let mut want_hot: Vec<(String, u64, u64)> = repo
        .files
        .iter()
        .filter_map(|(path, file)| {
            let e = repo.churn.get(path)?;
            let cx = file.function_lines().len() as u64;
            let churn = e.additions + e.deletions;
            (churn * cx > 0).then(|| (path.clone(), churn, cx))
        })
        .collect();
    let mut got_hot: Vec<(String, u64, u64)> = report["hotspots"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|h| {
            let (churn, cx) = (
                h["churn"].as_u64().unwrap_or(0),
                h["complexity"].as_u64().unwrap_or(0),
            );
            assert_eq!(h["score"].as_u64(), Some(churn * cx), "{h}");
            (h["file"].as_str().unwrap_or("").to_string(), churn, cx)
        })
        .collect();
    want_hot.sort();
    got_hot.sort();
    if want_hot.len() <= 20 && want_hot != got_hot {
        problems.push(format!("hotspots: got {got_hot:?}, want {want_hot:?}"));
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}

/// The new-side lines `git diff --unified=0` marks for a file that went from `old` to
/// `new` (lines unique, kept lines in order): the inserted lines of each change, and for a
/// change that only deletes, the line before it (line 1 at the top), as
/// `batch::changed_lines` documents.
fn touched_lines(old: &[String], new: &[String]) -> Vec<usize> {
    let old_set: HashSet<&str> = old.iter().map(String::as_str).collect();
    let new_set: HashSet<&str> = new.iter().map(String::as_str).collect();
    let (mut i, mut j) = (0, 0);
    let mut touched = Vec::new();
    loop {
        let (deleted_from, inserted_from) = (i, j);
        while i < old.len() && !new_set.contains(old[i].as_str()) {
            i += 1;
        }
        while j < new.len() && !old_set.contains(new[j].as_str()) {
            j += 1;
        }
        if j > inserted_from {
            touched.extend(inserted_from + 1..=j);
        } else if i > deleted_from {
            touched.push(inserted_from.max(1));
        }
        if i >= old.len() || j >= new.len() {
            break;
        }
        i += 1;
        j += 1;
    }
    touched
}

/// `minimcp analyze --diff REV`: exactly the functions on lines the test changed since a
/// random commit, with a few uncommitted edits on top.
fn check_diff(repo: &mut Repo, config: &[(&str, &str)]) -> Result<(), String> {
    let at = repo.rng.below(repo.snapshots.len());
    let (rev, before) = repo.snapshots[at].clone();
    for _ in 0..repo.rng.below(4) {
        if let Some(path) = repo.pick_file(&HashSet::new()) {
            repo.edit(&path);
        }
    }
    repo.log.push(format!("analyze --diff {rev} (commit {at})"));
    let mut want = BTreeSet::new();
    for (path, file) in &repo.files {
        let old = before
            .get(path)
            .filter(|f| f.kind == file.kind)
            .map(|f| f.lines.as_slice())
            .unwrap_or(&[]);
        let functions: HashSet<usize> = file.function_lines().into_iter().collect();
        for line in touched_lines(old, &file.lines) {
            if functions.contains(&line) {
                want.insert((path.clone(), line as u64));
            }
        }
    }
    let (code, out, err) = minimcp(
        &repo.dir,
        &["analyze", "--format", "json", "--diff", &rev],
        config,
    );
    if code != 0 {
        return Err(format!("minimcp analyze --diff exited {code}: {err}"));
    }
    let report: Value = serde_json::from_str(&out).map_err(|e| format!("{e}: {out}"))?;
    let got: BTreeSet<(String, u64)> = report["functions"]
        .as_array()
        .ok_or("no functions array")?
        .iter()
        .map(|f| {
            (
                f["file"].as_str().unwrap_or("").to_string(),
                f["start_line"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    if got == want {
        return Ok(());
    }
    Err(format!(
        "--diff functions: missing {:?}; extra {:?}",
        want.difference(&got).collect::<Vec<_>>(),
        got.difference(&want).collect::<Vec<_>>()
    ))
}

/// The oracle's calendar on dates whose spelling coreutils `date -u -d @N` gave.
#[test]
fn the_oracles_calendar_spells_known_dates() {
    for (secs, spelled) in [
        (0, "1970-01-01T00:00:00Z"),
        (951_782_400, "2000-02-29T00:00:00Z"),
        (978_307_199, "2000-12-31T23:59:59Z"),
        (1_709_164_800, "2024-02-29T00:00:00Z"),
        (1_795_651_433, "2026-11-26T00:03:53Z"),
    ] {
        assert_eq!(iso(secs), spelled);
    }
}

#[test]
fn churn_and_diff_match_what_the_test_committed() {
    if !git_available() {
        eprintln!("skipped: git is not available");
        return;
    }
    let (seed, chosen) = seed();
    let repos: usize = std::env::var("MINIMCP_CHURN_FUZZ_REPOS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(CONFIGS.len());
    eprintln!(
        "churn_fuzz: seed {seed}, {repos} repositories (replay: MINIMCP_CHURN_FUZZ_SEED={seed})"
    );
    let start = std::time::Instant::now();
    let mut failures = Vec::new();
    for index in 0..repos {
        let mut repo = Repo::new(seed.wrapping_add(index as u64), index);
        let commits = 4 + repo.rng.below(if chosen { 20 } else { 12 });
        repo.build(commits);
        // Every setting in turn: a default run of seven repositories meets each.
        let config = CONFIGS[(seed.wrapping_add(index as u64) % CONFIGS.len() as u64) as usize];
        let results = [check_churn(&repo, config), check_diff(&mut repo, config)];
        for result in results {
            if let Err(problem) = result {
                failures.push(format!(
                    "seed {seed}, repository {index}, git settings {config:?}:\n{problem}\nwhat the test did:\n  {}",
                    repo.log.join("\n  ")
                ));
            }
        }
    }
    eprintln!(
        "churn_fuzz: {repos} repositories in {:.1} s, {} failed",
        start.elapsed().as_secs_f64(),
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "replay with MINIMCP_CHURN_FUZZ_SEED={seed}\n\n{}",
        failures.join("\n\n")
    );
}
