//! `apply_patch`: a unified diff of any number of files (the `git diff` format), applied as
//! `git apply` applies it with its default options, all or nothing.
//!
//! - `parse.rs` reads the patch as git reads it; `image.rs` applies hunks as git does (exact
//!   context, offsets, no fuzz); `plan.rs` decides what the whole patch does, section by
//!   section, as git decides it, before anything is written;
//! - `disk.rs` holds every name to the workspace's rules (one root, deny list, no link
//!   followed, sizes, the conflict check of `guard.rs`);
//! - `commit.rs` writes it through the edit toolset's all-or-none, cross-process commit;
//!   `journal.rs` makes a crash between two files visible at the next start;
//! - `report.rs` says what happened, or where a hunk that did not apply belongs.
//!
//! Refused on purpose where git would apply: binary patches, symbolic links and submodules,
//! paths through or at a link, files the deny list hides, read-only or hard-linked files,
//! files over `--max-write-bytes`, a file replacing a directory, non-UTF-8 names.

mod commit;
mod disk;
mod header;
mod image;
mod journal;
mod names;
mod parse;
mod plan;
mod report;
mod stamps;

use std::collections::BTreeMap;

use serde_json::{json, Value};

use super::diff::unified;
use super::Editor;
use disk::Disk;
use image::{Budget, MAX_WORK};
use minimcp::{Arguments, Context, HandlerError, ToolOutput};
use minimcp_base::encoding::sha256_hex;
use plan::{Kind, Refused};

pub(crate) use journal::{scan as scan_journals, Interrupted};

/// Most file sections one patch may have.
pub(crate) const MAX_PATCH_FILES: usize = 1_000;

/// The tool's description.
pub(crate) const DESCRIPTION: &str = "Apply a unified diff (`git diff` format: many files, new, deleted, renamed) as `git apply` would: context and removed lines must match exactly (at any offset, no fuzz), else nothing is written and the file's current lines are shown.";

/// The input schema.
pub(crate) fn input_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "patch": {"type": "string", "minLength": 1, "description": "Paths `a/…`, `b/…` relative to the root."},
            "dry_run": {"type": "boolean", "description": "Check and show the diff; write nothing."}
        },
        "required": ["patch"],
        "additionalProperties": false
    })
}

/// The output schema.
pub(crate) fn output_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "dry_run": {"type": "boolean"},
            "files": {"type": "array", "items": {"type": "object", "properties": {
                "path": {"type": "string"},
                "status": {"enum": ["modified", "created", "deleted", "renamed", "copied"]},
                "from": {"type": "string"},
                "sha256": {"type": "string"}}}},
            "diff": {"type": "string"},
            "notes": {"type": "array", "items": {"type": "string"}}
        },
        "required": ["dry_run", "files", "diff"]
    })
}

fn invalid(message: String) -> HandlerError {
    HandlerError::Invalid(message)
}

fn refused(r: Refused, budget: usize) -> HandlerError {
    match r {
        Refused::Hunk(m) => invalid(report::miss(&m, budget)),
        Refused::Message(m) => invalid(format!("{m}. Nothing was written.")),
    }
}

/// The patch's names and modes the tool refuses before reading the tree.
fn refuse_kinds(sections: &[parse::FilePatch]) -> Result<(), HandlerError> {
    if sections.len() > MAX_PATCH_FILES {
        return Err(invalid(format!(
            "the patch has {} file sections; apply_patch applies at most {MAX_PATCH_FILES} at once. Send it in parts. Nothing was written.",
            sections.len()
        )));
    }
    for s in sections {
        let name = String::from_utf8_lossy(
            s.new_name
                .as_ref()
                .or(s.old_name.as_ref())
                .map_or(&[][..], |n| n),
        )
        .into_owned();
        if s.is_binary {
            return Err(invalid(format!("`{name}` has a binary patch (`GIT binary patch` or `Binary files … differ`); apply_patch applies text hunks only: write that file with write_file (`content_base64`) and leave it out of the patch. Nothing was written.")));
        }
        for mode in [s.old_mode, s.new_mode] {
            if mode != 0 && mode & 0o170000 != 0o100000 {
                return Err(invalid(format!("`{name}` has mode {mode:o} (a symbolic link, directory or submodule); apply_patch changes regular files only (100644, 100755). Nothing was written.")));
            }
        }
    }
    Ok(())
}

pub(crate) fn apply_patch(
    editor: &Editor,
    args: &Arguments,
    ctx: &mut Context<'_>,
) -> Result<ToolOutput, HandlerError> {
    let patch = args.str("patch")?;
    let dry_run = args.bool("dry_run")?.unwrap_or(false);
    if patch.contains('\0') {
        return Err(invalid("the patch holds a NUL byte: binary content is not patched (write such a file with write_file and `content_base64`). Nothing was written.".into()));
    }
    let sections = parse::parse(patch.as_bytes()).map_err(|e| {
        invalid(format!(
            "the patch cannot be read at its line {}: {}. Nothing was written.",
            e.line, e.message
        ))
    })?;
    refuse_kinds(&sections)?;
    let budget_bytes = ctx.result_budget() / 2;
    let session = ctx.session_id();
    let mut disk = Disk::new(editor, session);
    let mut budget = Budget(MAX_WORK);
    let plan = plan::plan(&mut disk, patch.as_bytes(), &sections, &mut budget)
        .map_err(|r| refused(r, budget_bytes))?;
    let ops = commit::prepare(&mut disk, &plan).map_err(|r| refused(r, budget_bytes))?;
    let written = if dry_run {
        BTreeMap::new()
    } else {
        commit::run(editor, session, &mut disk, &ops).map_err(|r| match r {
            Refused::Message(m) => invalid(m),
            other => refused(other, budget_bytes),
        })?
    };
    let mut files = Vec::new();
    let mut lines = Vec::new();
    let (mut listed, mut described) = (0, 0);
    for s in &plan.sections {
        let status = match s.kind {
            Kind::Modified => "modified",
            Kind::Created => "created",
            Kind::Deleted => "deleted",
            Kind::Renamed => "renamed",
            Kind::Copied => "copied",
        };
        let path = s.new.clone().or_else(|| s.old.clone()).unwrap_or_default();
        let shown = disk
            .entries
            .get(&path)
            .map_or(path.clone(), |e| e.shown.to_string());
        let mut file = json!({"path": shown, "status": status});
        if matches!(s.kind, Kind::Renamed | Kind::Copied) {
            if let Some(old) = &s.old {
                file["from"] = json!(disk
                    .entries
                    .get(old)
                    .map_or(old.clone(), |e| e.shown.to_string()));
            }
        }
        let hash = written
            .get(&path)
            .cloned()
            .or_else(|| match plan.finals.get(&path) {
                Some(Some((bytes, _))) => Some(sha256_hex(bytes)),
                _ => None,
            });
        if let (Some(hash), false) = (&hash, s.kind == Kind::Deleted) {
            file["sha256"] = json!(hash);
        }
        // A patch of many files is listed as far as a quarter of the budget goes each way.
        let line = format!("- {}", report::section_line(s));
        listed += line.len();
        described += file.to_string().len();
        if listed <= budget_bytes / 2 {
            lines.push(line);
        }
        if described <= budget_bytes / 2 {
            files.push(file);
        }
    }
    if lines.len() < plan.sections.len() {
        lines.push(format!(
            "- and {} more file section(s)",
            plan.sections.len() - lines.len()
        ));
    }
    let diff = if dry_run {
        diff_of(&disk, &plan, budget_bytes)
    } else {
        String::new()
    };
    let head = match (dry_run, ops.is_empty()) {
        (true, false) => format!(
            "Dry run: the patch applies ({} file section(s)); nothing was written. It would have:",
            plan.sections.len()
        ),
        (true, true) => {
            "Dry run: the patch applies and changes nothing on disk; nothing was written:"
                .to_string()
        }
        (false, false) => format!(
            "Applied the patch: {} file(s) written or removed:",
            ops.len()
        ),
        (false, true) => {
            "The patch applies and leaves every file as it is; nothing was written:".to_string()
        }
    };
    let mut text = format!("{head}\n{}", lines.join("\n"));
    // Lines git ignores after a hunk whose counts end too early: said, not silently dropped.
    let mut notes = Vec::new();
    for (section, s) in sections.iter().enumerate() {
        if let Some((line, stray)) = &s.stray {
            let name = plan
                .sections
                .get(section)
                .and_then(|p| p.new.clone().or_else(|| p.old.clone()))
                .unwrap_or_default();
            notes.push(format!(
                "patch line {line} (`{stray}`) comes after the last hunk of `{name}` but its header's counts end the hunk before it, so it was not applied (git apply ignores it too). If it belongs to the change, correct the counts in the `@@` line and send that part again."
            ));
        }
    }
    for note in notes.iter().take(5) {
        text.push_str(&format!("\nNote: {note}"));
    }
    if !written.is_empty() && written.len() <= 20 {
        text.push_str("\nsha256: ");
        let hashes: Vec<String> = written
            .iter()
            .map(|(name, hash)| {
                format!(
                    "`{}` {hash}",
                    disk.entries
                        .get(name)
                        .map_or(name.clone(), |e| e.shown.to_string())
                )
            })
            .collect();
        text.push_str(&hashes.join(", "));
    }
    if !diff.is_empty() {
        text.push_str(&format!("\n```diff\n{diff}```"));
    }
    let mut structured = json!({"dry_run": dry_run, "files": files, "diff": diff});
    if !notes.is_empty() {
        notes.truncate(5);
        structured["notes"] = json!(notes);
    }
    if files_left(&structured, plan.sections.len()) > 0 {
        structured["files_not_listed"] = json!(files_left(&structured, plan.sections.len()));
    }
    Ok(ToolOutput::structured_with_text(structured, text))
}

/// How many sections the structured result's `files` leaves out.
fn files_left(structured: &Value, sections: usize) -> usize {
    sections - structured["files"].as_array().map_or(0, Vec::len)
}

/// The diff of every path the patch changes, from the disk to the plan's result (a rename
/// as one diff from its old name to its new), cut at `budget` bytes.
fn diff_of(disk: &Disk<'_>, plan: &plan::Plan, budget: usize) -> String {
    let content = |name: &str| {
        disk.entries
            .get(name)
            .and_then(|e| e.content.as_ref())
            .map(|(b, _)| b.as_slice())
    };
    let shown = |name: &str| {
        disk.entries
            .get(name)
            .map_or(name.to_string(), |e| e.shown.to_string())
    };
    let mut pairs: Vec<(Option<&str>, Option<&str>)> = Vec::new();
    let mut paired = std::collections::BTreeSet::new();
    for s in &plan.sections {
        if let (Kind::Renamed, Some(old), Some(new)) = (&s.kind, &s.old, &s.new) {
            let old_goes = matches!(plan.finals.get(old), Some(None));
            if old_goes
                && content(new).is_none()
                && paired.insert(old.as_str())
                && paired.insert(new.as_str())
            {
                pairs.push((Some(old), Some(new)));
            }
        }
    }
    for name in plan.finals.keys() {
        if !paired.contains(name.as_str()) {
            pairs.push((Some(name), Some(name)));
        }
    }
    let mut out = String::new();
    for (old, new) in pairs {
        let before = old.and_then(content);
        let after = new
            .and_then(|n| plan.finals.get(n))
            .and_then(|f| f.as_ref())
            .map(|(b, _)| b.as_slice());
        if before == after && old == new {
            continue;
        }
        let (a, b) = (shown(old.unwrap_or("")), shown(new.unwrap_or("")));
        let mut part = unified(
            &b,
            &String::from_utf8_lossy(before.unwrap_or_default()),
            &String::from_utf8_lossy(after.unwrap_or_default()),
            3,
        );
        if part.is_empty() {
            part = format!("--- a/{b}\n+++ b/{b}\n");
        }
        let head = match (before, after) {
            (None, _) => "--- /dev/null\n".to_string(),
            _ => format!("--- a/{a}\n"),
        };
        part = part.replacen(&format!("--- a/{b}\n"), &head, 1);
        if after.is_none() {
            part = part.replacen(&format!("+++ b/{b}\n"), "+++ /dev/null\n", 1);
        }
        out.push_str(&part);
        if out.len() > budget {
            let mut cut = budget;
            while !out.is_char_boundary(cut) {
                cut -= 1;
            }
            out.truncate(cut);
            out.push_str("\n[the diff is cut here: it is larger than the result budget]\n");
            break;
        }
    }
    out
}
