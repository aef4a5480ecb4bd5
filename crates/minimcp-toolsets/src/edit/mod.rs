//! The edit toolset: `write_file`, `edit_file`, `create_directory` and `move_file`, inside
//! the workspace roots. **It modifies files**, so it is never served unless the person
//! starting the server names it (`--toolsets workspace,edit`); the binary has it built in,
//! off.
//!
//! What it guarantees (each with the test that proves it in SECURITY.md):
//! - every write is atomic and durable (`atomic.rs`): killed at any instant, a file holds
//!   its old or its new content; leftovers of killed writes are swept at the next start;
//! - nothing outside the roots is created, changed or followed, and the deny list and
//!   `.git` are refused as for reads, and so is the write deny list: `.ssh/`, shell start-up
//!   files and the rest of what grants access or runs code at the next login
//!   (`workspace::target`);
//! - a file is replaced only when it still holds what the model last saw (`guard.rs`), and
//!   that check and the replacement are one step against every other minimcp process
//!   (`commit.rs`, `lock.rs`);
//! - `edit_file` applies all its edits or none, each matching exactly once (`matching.rs`),
//!   and answers with a unified diff (`diff.rs`);
//! - `apply_patch` applies a unified diff of many files as `git apply` would, all or
//!   nothing; a crash between two of its files is reported at the next start (`patch/`).
//!
//! Changes show up to subscribers like any other change: the session core's poll sees a
//! subscribed file's new fingerprint (`notifications/resources/updated`) and a file that
//! appeared or vanished (`notifications/resources/list_changed`) within its poll interval.

mod atomic;
mod base64;
mod commit;
mod diff;
mod dirs;
mod edit_file;
mod fallback;
mod guard;
mod indent;
mod lock;
mod loose;
mod matching;
mod moved_tree;
mod moving;
mod numbered;
mod patch;
mod tools;
mod work;
mod write;

use std::cell::RefCell;
use std::path::PathBuf;
use std::rc::Rc;

use crate::workspace::Workspace;
use minimcp::Builder;
use minimcp_base::log;

/// Guidance for the model, added to the server's instructions when the toolset is on.
pub const INSTRUCTIONS: &str = "Editing is ON: this server can modify files in the workspace roots (write_file, edit_file, apply_patch, create_directory, move_file); the workspace tools' read-only description covers reading only. Read a file before changing it: read_file gives its `sha256`, and an edit of a file that changed since you read it is refused (pass `expected_sha256` to name the version you mean). Prefer edit_file (exact text replacements, answered with a diff; `dry_run` to preview) or apply_patch (a git diff of many files, all or nothing) over rewriting whole files. Writes are atomic; .git, the deny list, files that grant access or run code at the next login (.ssh/, shell start-up files) and anything outside the roots are refused.";

/// What the edit tools share: the workspace, which roots were swept of leftovers, and the
/// interrupted patches found there that no client was told of yet.
pub(crate) struct Editor {
    pub(crate) ws: Rc<Workspace>,
    swept: RefCell<Vec<PathBuf>>,
    interrupted: RefCell<Vec<patch::Interrupted>>,
}

impl Editor {
    /// Removes killed writes' leftovers below every root in use that was not swept yet:
    /// at startup for `--root` roots and the fallback, at the first edit for a client's.
    pub(crate) fn sweep_roots(&self) {
        for root in self.ws.roots() {
            let path = root.root().to_path_buf();
            if self.swept.borrow().contains(&path) {
                continue;
            }
            let removed = atomic::sweep(&path);
            if removed > 0 {
                log::info(format_args!(
                    "removed {removed} temporary file(s) left by interrupted writes in {}",
                    path.display()
                ));
            }
            for found in patch::scan_journals(&root, self.ws.max_write_bytes) {
                log::warn(format_args!("in {}: {}", path.display(), found.message));
                self.interrupted.borrow_mut().push(found);
            }
            self.swept.borrow_mut().push(path);
        }
    }

    /// What the next answer should tell the client about interrupted patches (then it
    /// counts as told: their journals are removed).
    pub(crate) fn take_interrupted(&self) -> Option<String> {
        let found = std::mem::take(&mut *self.interrupted.borrow_mut());
        if found.is_empty() {
            return None;
        }
        for journal in &found {
            if let Err(e) = std::fs::remove_file(&journal.journal) {
                log::warn(format_args!("a patch journal could not be removed: {e}"));
            }
        }
        let notes: Vec<String> = found
            .into_iter()
            .map(|f| format!("Note: {}", f.message))
            .collect();
        Some(notes.join("\n"))
    }
}

/// Adds the edit toolset for the workspace `options` opened: the entry of the binary's
/// `TOOLSETS` (src/cli/registry.rs). It turns on the workspace's memory of what each session read.
pub fn add(builder: Builder, options: &super::Options) -> Builder {
    let editor = Rc::new(Editor {
        ws: Rc::clone(&options.workspace),
        swept: RefCell::new(Vec::new()),
        interrupted: RefCell::new(Vec::new()),
    });
    editor.ws.served.enable();
    editor.sweep_roots();
    let mut builder = builder.add_instructions(INSTRUCTIONS);
    for tool in tools::tools(&editor) {
        builder = builder.tool(tool);
    }
    builder
}
