//! Completion of workspace paths one segment at a time, for the `file:///{+path}` template
//! and for prompt arguments that name a file or directory.
//!
//! The value typed so far is split at its last `/` (or `\` on Windows): the part before must be a directory in
//! the workspace (it goes through the sandbox like any other path), and the part after is a
//! prefix of an entry's name. Suggestions are whole values (`src/main.rs`), directories with
//! a trailing `/` so the next completion can continue below them. `.gitignore`d entries and
//! `.git` are not suggested.

use super::limits::MAX_LIST_ENTRIES;
use super::names::Flavor;
use super::sandbox::RelPath;
use super::walk::{walk, Bounds, Entry, Flow, Kind, Visitor};
use super::Workspace;
use minimcp::Context;

/// Which entries to suggest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Want {
    /// Files and directories.
    Any,
    /// Directories only.
    Dirs,
}

struct Suggest<'a> {
    prefix: &'a str,
    want: Want,
    out: Vec<String>,
}

impl Visitor for Suggest<'_> {
    fn visit(&mut self, entry: &Entry) -> Flow {
        let fits = entry.rel.name().starts_with(self.prefix)
            && (self.want == Want::Any || entry.kind == Kind::Dir);
        if fits {
            let slash = if entry.kind == Kind::Dir { "/" } else { "" };
            self.out.push(format!("{}{slash}", entry.rel.name()));
        }
        Flow::Continue
    }
}

/// Suggestions for a partially typed path (relative, or absolute inside a root); empty when
/// the directory part is not a valid, existing workspace directory or there is no root.
pub(crate) fn paths(ws: &Workspace, value: &str, want: Want, ctx: &mut Context<'_>) -> Vec<String> {
    if ws.enter_listing(ctx).is_err() {
        return Vec::new();
    }
    suggest(ws, value, want)
}

fn suggest(ws: &Workspace, value: &str, want: Want) -> Vec<String> {
    let flavor = Flavor::NATIVE;
    let split = value.rfind(|c| flavor.is_separator(c));
    let (dir, prefix) = split.map_or(("", value), |at| (&value[..at], &value[at + 1..]));
    let absolute = flavor.is_absolute(value);
    let dir = if absolute && dir.is_empty() { "/" } else { dir };
    let roots = ws.roots();
    if roots.len() > 1 && !absolute && RelPath::parse(dir).is_ok_and(|d| d.as_str().is_empty()) {
        // Several roots: the top level is their labels.
        return roots
            .iter()
            .map(|r| format!("{}/", r.label()))
            .filter(|l| l.starts_with(prefix))
            .collect();
    }
    let Ok(dir) = ws.resolve(dir) else {
        return Vec::new();
    };
    if !dir.meta.is_dir() {
        return Vec::new();
    }
    let bounds = Bounds {
        max_depth: 1,
        max_entries: ws.bounds.max_entries.min(MAX_LIST_ENTRIES * 10),
        ..ws.bounds
    };
    // Absolute values are completed in the spelling typed; relative ones normalized.
    let base = match split {
        Some(at) if absolute => value[..=at].to_string(),
        _ if dir.rel.as_str().is_empty() => String::new(),
        _ => format!("{}/", dir.rel),
    };
    let mut suggest = Suggest {
        prefix,
        want,
        out: Vec::new(),
    };
    walk(&dir.sandbox, &dir, &bounds, &mut suggest);
    suggest
        .out
        .iter()
        .map(|name| format!("{base}{name}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workspace::testutil::TempTree;

    #[test]
    fn completes_one_segment_at_a_time() {
        let tree = TempTree::new("complete");
        tree.file("src/main.rs", "")
            .file("src/model.rs", "")
            .file("src/toolsets/mod.rs", "")
            .file("secret.txt", "")
            .file(".gitignore", "target/\n")
            .dir("target");
        let ws = Workspace::open(&tree.path).expect("root");
        assert_eq!(suggest(&ws, "s", Want::Any), ["secret.txt", "src/"]);
        assert_eq!(
            suggest(&ws, "src/m", Want::Any),
            ["src/main.rs", "src/model.rs"]
        );
        assert_eq!(suggest(&ws, "src/", Want::Dirs), ["src/toolsets/"]);
        assert_eq!(suggest(&ws, "./src/t", Want::Any), ["src/toolsets/"]);
        assert!(suggest(&ws, "t", Want::Any).is_empty(), "ignored");
        assert!(suggest(&ws, "../", Want::Any).is_empty());
        assert!(suggest(&ws, "/etc/", Want::Any).is_empty());
        assert!(suggest(&ws, "src/main.rs/", Want::Any).is_empty());
        assert!(suggest(&ws, "nope/", Want::Any).is_empty());
    }
}
