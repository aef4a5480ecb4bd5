//! What a move carries along, checked before `move_file` renames anything:
//! - a symbolic link with a relative target is read from where it is: moved to another
//!   directory, it may lead somewhere else (to another file, or out of the root). Such a
//!   move is refused unless the target resolves to the same place from the new one;
//!   links inside a moved directory too, unless they lead within the directory itself;
//! - a directory holding an entry the deny list hides, or a repository's `.git`, is not
//!   moved: that would move the denied file away, or out from under a rule naming its
//!   path. The walk that checks it is bounded like the workspace's walks
//!   (`--walk-max-entries`, `--walk-timeout`, 64 levels) and refuses what it cannot finish.

use std::fs;
use std::path::{Component, Path, PathBuf};
use std::time::Instant;

use crate::toolsets::workspace::limits::TICK_ENTRIES;
use crate::toolsets::workspace::sandbox::{RelPath, Sandbox};
use crate::toolsets::workspace::walk::Bounds;
use crate::{Context, HandlerError};

/// `target` (a link's text) read from the directory `dir`, `..` and `.` taken away; `None`
/// for an absolute target, which means the same from anywhere.
fn resolved(dir: &Path, target: &Path) -> Option<PathBuf> {
    if target.is_absolute() {
        return None;
    }
    let mut out = dir.to_path_buf();
    for component in target.components() {
        match component {
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(name) => out.push(name),
            _ => {}
        }
    }
    Some(out)
}

/// Why the link at `from` (its text `target`) would lead elsewhere at `to`, if it would.
/// `tree` is the directory being moved (`None` when the link itself is moved): a link
/// leading within it moves along with it.
fn changes_meaning(from: &Path, to: &Path, target: &Path, tree: Option<(&Path, &Path)>) -> bool {
    let (Some(from_dir), Some(to_dir)) = (from.parent(), to.parent()) else {
        return false;
    };
    let (Some(before), Some(after)) = (resolved(from_dir, target), resolved(to_dir, target)) else {
        return false;
    };
    match tree {
        Some((old_root, new_root)) if before.starts_with(old_root) => {
            before
                .strip_prefix(old_root)
                .ok()
                .map(|rest| new_root.join(rest))
                != Some(after)
        }
        _ => before != after,
    }
}

/// Refuses moving the link `from` to `to` when its relative target would mean another
/// place there.
pub(crate) fn check_link(
    from: &Path,
    to: &Path,
    shown: (&RelPath, &RelPath),
) -> Result<(), HandlerError> {
    let Ok(target) = fs::read_link(from) else {
        return Ok(());
    };
    if !changes_meaning(from, to, &target, None) {
        return Ok(());
    }
    Err(HandlerError::Invalid(format!(
        "`{}` is a symbolic link to `{}`, which is read from where the link is: at `{}` it would lead somewhere else. Nothing was moved. Keep the link in its directory (rename it there), or move the file it leads to.",
        shown.0,
        target.display(),
        shown.1
    )))
}

/// Walks the directory `from` (canonical, inside `sandbox`), about to become `to`, and
/// refuses the move when it holds a denied entry, a `.git`, or a relative link that would
/// lead elsewhere, or when it is too large to check within `bounds`.
pub(crate) fn check_tree(
    sandbox: &Sandbox,
    from: &Path,
    to: &Path,
    shown: &RelPath,
    bounds: &Bounds,
    ctx: &mut Context<'_>,
) -> Result<(), HandlerError> {
    let Some(local) = sandbox.relative(from) else {
        return Ok(());
    };
    let started = Instant::now();
    let refuse = |why: String| {
        Err(HandlerError::Invalid(format!(
            "`{shown}` {why}. Nothing was moved."
        )))
    };
    let mut stack: Vec<(PathBuf, RelPath, usize)> = vec![(from.to_path_buf(), local, 0)];
    let mut visited = 0usize;
    while let Some((dir, rel, depth)) = stack.pop() {
        let Ok(entries) = fs::read_dir(&dir) else {
            return refuse(format!(
                "holds `{}`, which could not be read to check what it holds",
                sandbox.label().join_rel(rel.as_str())
            ));
        };
        for entry in entries {
            let Ok(entry) = entry else { continue };
            visited += 1;
            if visited.is_multiple_of(TICK_ENTRIES) && ctx.is_cancelled() {
                return Err(ctx.cancelled());
            }
            if visited > bounds.max_entries || started.elapsed() > bounds.max_time {
                return refuse(format!(
                    "holds more than can be checked for denied files and links (over {} entries or {} s, --walk-max-entries and --walk-timeout): move its parts instead",
                    visited.min(bounds.max_entries),
                    bounds.max_time.as_secs()
                ));
            }
            let Some(name) = entry.file_name().to_str().map(String::from) else {
                return refuse(
                    "holds a name that is not UTF-8, which cannot be checked against the deny list"
                        .into(),
                );
            };
            let path = entry.path();
            let entry_rel = rel.join(&name);
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let shown_entry = sandbox.label().join_rel(entry_rel.as_str());
            if name.eq_ignore_ascii_case(".git") || sandbox.is_denied(&entry_rel, kind.is_dir()) {
                return refuse(format!("holds `{shown_entry}`, which this server does not touch (the deny list, or a repository's `.git`): moving the directory would move it too; move the other entries one by one"));
            }
            let moved = path
                .strip_prefix(from)
                .map(|rest| to.join(rest))
                .unwrap_or_default();
            if kind.is_symlink() {
                let target = fs::read_link(&path).unwrap_or_default();
                if changes_meaning(&path, &moved, &target, Some((from, to))) {
                    return refuse(format!("holds the symbolic link `{shown_entry}` (to `{}`), which is read from where it is and would lead somewhere else after the move; move the directory within its parent, or change the link first", target.display()));
                }
            } else if kind.is_dir() {
                if depth + 1 >= bounds.max_depth {
                    return refuse(format!(
                        "is deeper than the {} levels that can be checked for denied files",
                        bounds.max_depth
                    ));
                }
                stack.push((path, entry_rel, depth + 1));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_relative_link_means_the_same_only_at_the_same_depth_and_place() {
        let p = |s: &str| PathBuf::from(s);
        let up = p("../x");
        assert!(
            !changes_meaning(&p("/r/a/l"), &p("/r/a/m"), &up, None),
            "renamed in place"
        );
        assert!(
            !changes_meaning(&p("/r/a/l"), &p("/r/b/l"), &p("../a/../x"), None),
            "same place"
        );
        assert!(
            changes_meaning(&p("/r/a/l"), &p("/r/a/b/l"), &up, None),
            "deeper"
        );
        assert!(
            changes_meaning(&p("/r/a/b/l"), &p("/r/l"), &p("../../x"), None),
            "out of the root"
        );
        assert!(
            !changes_meaning(&p("/r/a/l"), &p("/r/c/d/l"), &p("/abs/x"), None),
            "absolute"
        );
        // Inside a moved directory: within it moves along, out of it must stay put.
        let tree = Some((Path::new("/r/d"), Path::new("/r/e/d")));
        assert!(!changes_meaning(
            &p("/r/d/s/l"),
            &p("/r/e/d/s/l"),
            &p("../t"),
            tree
        ));
        assert!(changes_meaning(
            &p("/r/d/l"),
            &p("/r/e/d/l"),
            &p("../x"),
            tree
        ));
    }
}
