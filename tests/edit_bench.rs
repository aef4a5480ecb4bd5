//! The edit benchmark from real changes, with git as the oracle (`benches/edit-bench.sh`
//! runs it whole; `benches/README.md` has the table and the rules).
//!
//! Every hunk of real changes becomes the `edit_file` call a model would make, exactly and in
//! the variants models produce (`edit_bench/variants.rs`), sent to the real binary over
//! stdio. Each call must leave git's file byte for byte, or be refused with a message that
//! says what to send instead (`edit_bench/judge.rs`); a wrong file fails the test. When the
//! binary lists `apply_patch`, each change's whole diff is also applied as one patch and
//! compared with `git apply` on a copy of the tree (`edit_bench/patch.rs`).
//!
//! `cargo test` runs this repository's own history from its first commit, up to 150 hunks,
//! against the binary cargo built; without git or history (a vendored tarball) it says
//! SKIPPED, and fails instead under `MINIMCP_REQUIRE_CORPORA=1`. The environment widens it:
//! - `MINIMCP_EDIT_BENCH_BINARY`: the minimcp to test (default: the one cargo built);
//! - `MINIMCP_EDIT_BENCH_HUNKS`: hunks of the own history (`all` for every one);
//! - `MINIMCP_EDIT_BENCH_CORPORA`: a directory of release pairs, `NAME/a` and `NAME/b`;
//! - `MINIMCP_EDIT_BENCH_REFERENCE`: the command that starts the reference server (its root
//!   is appended), run on the same calls and reported beside minimcp;
//! - `MINIMCP_EDIT_BENCH_REPORT`: a file to write the report to (Markdown).

mod common;
mod edit_bench {
    pub(crate) mod client;
    pub(crate) mod hunks;
    pub(crate) mod judge;
    pub(crate) mod patch;
    pub(crate) mod run;
    pub(crate) mod variants;
}

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::Path;
use std::time::Instant;

use common::scratch::Scratch;
use edit_bench::client::{Client, Kind};
use edit_bench::hunks::{self, Change, Skipped};
use edit_bench::patch::{self, Agreement, Unit};
use edit_bench::run::{run, Example, Tally};
use edit_bench::variants::{self, Variant};

/// Hunks of the own history `cargo test` sends, from the first commit on.
const DEFAULT_HUNKS: usize = 150;

/// A scratch directory on a RAM disk where there is one: minimcp makes every write
/// durable (fsync), which a RAM disk makes free, and the run is about the content.
fn scratch(label: &str) -> Scratch {
    let shm = Path::new("/dev/shm");
    match shm.is_dir() && std::env::var_os("TMPDIR").is_none() {
        true => Scratch::new_in(shm, label),
        false => Scratch::new(label),
    }
}

/// One corpus: its changes and, for `apply_patch`, its patches.
struct Corpus {
    name: String,
    changes: Vec<Change>,
    units: Vec<Unit>,
    skipped: Skipped,
}

/// The own history, bounded to `limit` hunks (whole commits' files).
fn own_history(limit: Option<usize>) -> Option<Corpus> {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut skipped = Skipped::default();
    let changes = hunks::history(repo, limit, &mut skipped)?;
    if changes.is_empty() {
        return None;
    }
    let commits: Vec<String> = changes
        .iter()
        .map(|c| c.label.clone())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let units = commits
        .iter()
        .filter_map(|commit| {
            let patch = hunks::commit_patch(repo, commit)?;
            let files = hunks::parent_files(repo, commit, &patch::touched(&patch));
            Some(Unit {
                label: format!("commit {commit}"),
                patch,
                files,
            })
        })
        .collect();
    Some(Corpus {
        name: format!("minimcp's own history ({} commits)", commits.len()),
        changes,
        units,
        skipped,
    })
}

/// Whether a file has its owner's execute bit (patches carry it as mode 100755).
fn executable(meta: &std::fs::Metadata) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        meta.permissions().mode() & 0o100 != 0
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        false
    }
}

/// The release pairs below `dir` (`NAME/a`, `NAME/b`), by name.
fn releases(dir: &Path) -> Vec<Corpus> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("MINIMCP_EDIT_BENCH_CORPORA={}: {e}", dir.display()))
        .flatten()
        .filter(|e| e.path().join("a").is_dir() && e.path().join("b").is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert!(
        !names.is_empty(),
        "no NAME/a and NAME/b pairs in {}",
        dir.display()
    );
    names
        .into_iter()
        .map(|name| {
            let mut skipped = Skipped::default();
            let pair = dir.join(&name);
            let (patch, changes) = hunks::releases(&pair, &name, &mut skipped);
            let mut files = Vec::new();
            for path in patch::touched(&patch) {
                let file = pair.join("a").join(&path);
                if let (Ok(bytes), Ok(meta)) = (std::fs::read(&file), std::fs::metadata(&file)) {
                    files.push((path, bytes, executable(&meta)));
                }
            }
            let units = vec![Unit {
                label: name.clone(),
                patch,
                files,
            }];
            Corpus {
                name,
                changes,
                units,
                skipped,
            }
        })
        .collect()
}

/// Per server: the tally of each variant over all corpora, and the wrong files it made.
struct Results {
    tallies: Vec<Tally>,
    examples: Vec<Example>,
}

/// Runs every corpus through the server `start` starts, in every variant.
fn bench(
    corpora: &[Corpus],
    start: &dyn Fn(&Path) -> Client,
    per_corpus: &mut Vec<Tally>,
) -> Results {
    let mut results = Results {
        tallies: vec![Tally::default(); variants::ALL.len()],
        examples: Vec::new(),
    };
    for corpus in corpora {
        let root = scratch("edit-bench");
        let mut client = start(root.path());
        let mut exact = Tally::default();
        for (v, variant) in variants::ALL.iter().enumerate() {
            let mut tally = Tally::default();
            run(
                &mut client,
                root.path(),
                &format!("v{v}"),
                &corpus.changes,
                *variant,
                &mut tally,
                &mut results.examples,
            );
            if *variant == Variant::Exact {
                exact = tally;
            }
            results.tallies[v].add(&tally);
        }
        per_corpus.push(exact);
        client.stop();
    }
    results
}

/// A table row of counts.
fn cells(t: &Tally) -> String {
    format!(
        "{} | {} | {} | {}",
        t.applied, t.refused, t.unguided, t.wrong
    )
}

/// The report: corpora, then one row per variant for each server.
fn report(
    corpora: &[Corpus],
    ours: &Results,
    reference: Option<&Results>,
    exact_ours: &[Tally],
    agreement: Option<&Agreement>,
) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "| corpus | files | hunks | left out (not an edit / not text / oracle mismatch) | exact: applied, refused, unguided, wrong |");
    let _ = writeln!(out, "|---|---:|---:|---|---|");
    for (corpus, exact) in corpora.iter().zip(exact_ours) {
        let hunks: usize = corpus.changes.iter().map(|c| c.hunks.len()).sum();
        let s = &corpus.skipped;
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} / {} / {} | {} |",
            corpus.name,
            corpus.changes.len(),
            hunks,
            s.not_an_edit,
            s.not_text,
            s.oracle_mismatch,
            cells(exact).replace(" | ", ", ")
        );
    }
    let _ = writeln!(out);
    let mut head =
        "| variant | calls | another place's text | minimcp applied | refused | unguided | wrong |"
            .to_string();
    let mut rule = "|---|---:|---:|---:|---:|---:|---:|".to_string();
    if reference.is_some() {
        head += " reference applied | refused | unguided | wrong |";
        rule += "---:|---:|---:|---:|";
    }
    let _ = writeln!(out, "{head}\n{rule}");
    for (v, variant) in variants::ALL.iter().enumerate() {
        let t = &ours.tallies[v];
        let mut row = format!(
            "| {} | {} | {} | {} |",
            variant.name(),
            t.calls,
            t.elsewhere,
            cells(t)
        );
        if let Some(r) = reference {
            let _ = write!(row, " {} |", cells(&r.tallies[v]));
        }
        let _ = writeln!(out, "{row}");
    }
    if let Some(a) = agreement {
        let _ = writeln!(out, "\napply_patch against git apply (each patch, then again on the patched tree): {} applied identically, {} both refused, {} refused by minimcp only, {} wrong", a.identical, a.both_refused, a.only_git, a.wrong);
    }
    out
}

/// The wrong files, each with what reproduces it.
fn describe(examples: &[Example]) -> String {
    let mut out = String::new();
    for e in examples {
        let _ = writeln!(
            out,
            "--- {} ({}), {} {} at line {}\nold_text: {:?}\nnew_text: {:?}\nthe server said: {:?}\nbefore:\n{}\nafter:\n{}\nfirst difference from the intended file: {}\n",
            e.variant.name(), e.why, e.label, e.path, e.line, e.old, e.new, e.reply, e.before, e.after, e.differs
        );
    }
    out
}

#[test]
fn real_changes_leave_no_wrong_file() {
    edit_bench::judge::self_test();
    edit_bench::variants::self_test();
    let env = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
    let limit = match env("MINIMCP_EDIT_BENCH_HUNKS").as_deref() {
        Some("all") => None,
        Some(n) => Some(
            n.parse()
                .expect("MINIMCP_EDIT_BENCH_HUNKS: a number or `all`"),
        ),
        None => Some(DEFAULT_HUNKS),
    };
    let started = Instant::now();
    let mut corpora = Vec::new();
    match own_history(limit) {
        Some(corpus) => corpora.push(corpus),
        None if limit == Some(0) => {
            eprintln!("edit_bench: the own history left out (0 hunks asked)")
        }
        None if env("MINIMCP_REQUIRE_CORPORA").is_some() => panic!(
            "no git history in {}: the edit benchmark needs it",
            env!("CARGO_MANIFEST_DIR")
        ),
        None => eprintln!(
            "edit_bench: SKIPPED the own history: no git, or no history (a vendored copy)"
        ),
    }
    if let Some(dir) = env("MINIMCP_EDIT_BENCH_CORPORA") {
        corpora.extend(releases(Path::new(&dir)));
    }
    if corpora.is_empty() {
        return;
    }
    let binary = env("MINIMCP_EDIT_BENCH_BINARY").unwrap_or_else(|| common::minimcp().to_string());
    let minimcp = |root: &Path| {
        let args = [
            "serve",
            "--toolsets",
            "workspace,edit",
            "--deny",
            "none",
            // A whole release's diff is one apply_patch request: up to about 1.3 MB here.
            "--max-message-bytes",
            "16777216",
            "--root",
        ]
        .iter()
        .map(|s| s.to_string())
        .chain([root.to_string_lossy().into_owned()])
        .collect::<Vec<_>>();
        Client::start(Kind::Minimcp, &binary, &args, root)
    };
    // minimcp and the reference server run side by side, one thread each (two cores).
    let mut exact_ours = Vec::new();
    let (ours, reference) = std::thread::scope(|scope| {
        let reference = env("MINIMCP_EDIT_BENCH_REFERENCE").map(|command| {
            let corpora = &corpora;
            scope.spawn(move || {
                let mut words = command.split_whitespace().map(String::from);
                let program = words
                    .next()
                    .expect("MINIMCP_EDIT_BENCH_REFERENCE names a program");
                let words: Vec<String> = words.collect();
                let start = |root: &Path| {
                    let args: Vec<String> = words
                        .iter()
                        .cloned()
                        .chain([root.to_string_lossy().into_owned()])
                        .collect();
                    Client::start(Kind::Reference, &program, &args, root)
                };
                let started = Instant::now();
                let results = bench(corpora, &start, &mut Vec::new());
                eprintln!(
                    "edit_bench: the reference server took {:.1} s",
                    started.elapsed().as_secs_f64()
                );
                results
            })
        });
        let started = Instant::now();
        let ours = bench(&corpora, &minimcp, &mut exact_ours);
        eprintln!(
            "edit_bench: minimcp took {:.1} s",
            started.elapsed().as_secs_f64()
        );
        (
            ours,
            reference.map(|r| r.join().expect("the reference server's run")),
        )
    });
    let patch_dir = scratch("edit-bench-patch");
    let probe = minimcp(patch_dir.path());
    let lists_patch = probe.has("apply_patch");
    probe.stop();
    let mut agreement = Agreement::default();
    let mut disagreements = Vec::new();
    if lists_patch {
        for unit in corpora.iter().flat_map(|c| &c.units) {
            patch::compare(
                unit,
                &minimcp,
                patch_dir.path(),
                &mut agreement,
                &mut disagreements,
            );
        }
    }
    let text = report(
        &corpora,
        &ours,
        reference.as_ref(),
        &exact_ours,
        lists_patch.then_some(&agreement),
    );
    eprintln!(
        "edit_bench: {binary}, {:.1} s\n{text}",
        started.elapsed().as_secs_f64()
    );
    if let Some(path) = env("MINIMCP_EDIT_BENCH_REPORT") {
        let mut full = text.clone();
        if let Some(r) = &reference {
            let _ = write!(
                full,
                "\nThe reference server's wrong files and unguided refusals (examples):\n\n```text\n{}```\n",
                describe(&r.examples)
            );
        }
        let _ = write!(
            full,
            "\nminimcp's wrong files and unguided refusals (examples):\n\n```text\n{}```\n",
            describe(&ours.examples)
        );
        if lists_patch {
            let _ = write!(
                full,
                "\napply_patch and git apply, where they did not both apply a patch identically:\n\n```text\n{}\n```\n",
                disagreements.join("\n")
            );
        }
        std::fs::write(&path, full).unwrap_or_else(|e| panic!("write {path}: {e}"));
    }
    let wrong: usize = ours.tallies.iter().map(|t| t.wrong).sum();
    assert!(
        wrong == 0,
        "minimcp left {wrong} wrong files (examples, with refusals without guidance):\n{}",
        describe(&ours.examples)
    );
    assert!(
        agreement.wrong == 0,
        "apply_patch and git apply disagree:\n{}",
        disagreements.join("\n")
    );
}
