//! `apply_patch` against `git apply`: each commit's (or release pair's) whole diff as one
//! patch, on two copies of the tree it was made from; then the same patch once more on the
//! patched trees (which must now be refused, or applied the same way by both).

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use super::client::Client;
use super::hunks::git;

/// How one patch ended.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Agreement {
    /// Both applied it and the trees are equal, byte for byte.
    pub(crate) identical: usize,
    /// Both refused it (and minimcp left the tree as it was).
    pub(crate) both_refused: usize,
    /// git applied it, minimcp refused it (a safe refusal: binary, link, mode…).
    pub(crate) only_git: usize,
    /// Wrong: minimcp applied what git refused, the trees differ, or a refusal changed files.
    pub(crate) wrong: usize,
}

/// A tree to patch: where it comes from.
pub(crate) struct Unit {
    pub(crate) label: String,
    pub(crate) patch: Vec<u8>,
    /// Files of the tree before the patch: path, bytes, and whether it is executable.
    pub(crate) files: Vec<(String, Vec<u8>, bool)>,
}

/// The old-side paths of a git patch, from its `diff --git X Y` lines: `a/P b/P` as git
/// writes them, `a/P a/P` and `b/P b/P` as `git diff --no-index` does for a file on one side
/// only (a path with spaces is told apart by both halves naming the same path).
pub(crate) fn touched(patch: &[u8]) -> Vec<String> {
    let mut out = Vec::new();
    for line in patch.split(|b| *b == b'\n') {
        let Some(rest) = line.strip_prefix(b"diff --git ") else {
            continue;
        };
        let rest = String::from_utf8_lossy(rest);
        let n = rest.len().saturating_sub(1) / 2;
        let halves = rest.len() == 2 * n + 1
            && rest.is_char_boundary(n)
            && rest[n..].starts_with(' ')
            && n > 2
            && rest[2..n] == rest[n + 3..];
        if halves {
            out.push(rest[2..n].to_string());
        } else if let Some((old, _)) = rest.strip_prefix("a/").and_then(|r| r.split_once(" b/")) {
            out.push(old.to_string());
        }
    }
    out
}

/// Every regular file below `dir`, by relative path.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(at) = stack.pop() {
        for entry in fs::read_dir(&at).expect("read a tree").flatten() {
            let path = entry.path();
            let kind = entry.file_type().expect("file type");
            if kind.is_dir() {
                stack.push(path);
            } else if kind.is_file() {
                let rel = path.strip_prefix(dir).expect("below").to_path_buf();
                out.insert(rel, fs::read(&path).expect("read a file"));
            }
        }
    }
    out
}

/// Writes `files` below `dir`, executable ones with mode 0755.
fn plant(dir: &Path, files: &[(String, Vec<u8>, bool)]) {
    for (path, bytes, executable) in files {
        let file = dir.join(path);
        fs::create_dir_all(file.parent().expect("a parent")).expect("create a directory");
        fs::write(&file, bytes).expect("write a file");
        #[cfg(unix)]
        if *executable {
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(&file, fs::Permissions::from_mode(0o755)).expect("chmod");
        }
    }
}

/// `git apply` (no options) in `dir`: `Ok` when it applied, else what git said.
fn git_apply(dir: &Path, patch: &Path) -> Result<(), String> {
    let ceiling = dir
        .parent()
        .expect("a parent")
        .to_string_lossy()
        .into_owned();
    for check in [true, false] {
        let mut cmd = git(dir);
        cmd.env("GIT_CEILING_DIRECTORIES", &ceiling).arg("apply");
        if check {
            cmd.arg("--check");
        }
        let out = cmd
            .arg(patch)
            .stdin(Stdio::null())
            .output()
            .expect("run git apply");
        if !out.status.success() {
            return Err(String::from_utf8_lossy(&out.stderr)
                .chars()
                .take(300)
                .collect());
        }
    }
    Ok(())
}

/// Compares minimcp's `apply_patch` with `git apply` on `unit`, twice (the second time on
/// the patched trees). `start` starts minimcp with a root; `scratch` holds the copies.
pub(crate) fn compare(
    unit: &Unit,
    start: &dyn Fn(&Path) -> Client,
    scratch: &Path,
    agreement: &mut Agreement,
    examples: &mut Vec<String>,
) {
    let (ours, theirs) = (scratch.join("ours"), scratch.join("git"));
    for dir in [&ours, &theirs] {
        let _ = fs::remove_dir_all(dir);
        fs::create_dir_all(dir).expect("create a tree");
        plant(dir, &unit.files);
    }
    let patch_file = scratch.join("change.patch");
    fs::write(&patch_file, &unit.patch).expect("write the patch");
    let text = String::from_utf8_lossy(&unit.patch).into_owned();
    let mut client = start(&ours);
    assert!(
        client.has("apply_patch"),
        "the binary lists apply_patch only sometimes"
    );
    for round in ["exact", "again"] {
        let before = snapshot(&ours);
        let git = git_apply(&theirs, &patch_file);
        let git_ok = git.is_ok();
        let reply = client.apply_patch(&text);
        let after = snapshot(&ours);
        let verdict = match (git_ok, reply.is_error) {
            (true, false) if after == snapshot(&theirs) => {
                agreement.identical += 1;
                None
            }
            (false, true) if after == before => {
                agreement.both_refused += 1;
                if round == "exact" && examples.len() < 20 {
                    examples.push(format!(
                        "{} ({round}): both refused; git said: {}; minimcp said: {}",
                        unit.label,
                        git.clone().unwrap_err().trim(),
                        reply.text.chars().take(300).collect::<String>()
                    ));
                }
                // Nothing changed: a second round would repeat this one.
                break;
            }
            (true, true) if after == before => {
                agreement.only_git += 1;
                Some("git applied it, minimcp refused it")
            }
            (true, false) => Some("both applied it, the trees differ"),
            (false, false) => Some("git refused it, minimcp applied it"),
            (_, true) => Some("minimcp refused it but changed files"),
        };
        if let Some(why) = verdict {
            if why != "git applied it, minimcp refused it" {
                agreement.wrong += 1;
            }
            if examples.len() < 20 {
                let said: String = reply.text.chars().take(300).collect();
                examples.push(format!(
                    "{} ({round}): {why}; minimcp said: {said}",
                    unit.label
                ));
            }
            // The rounds after a disagreement compare different trees: stop here.
            break;
        }
    }
    client.stop();
    let _ = fs::remove_dir_all(&ours);
    let _ = fs::remove_dir_all(&theirs);
}
