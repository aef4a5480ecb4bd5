//! What a move carries, checked before `move_file` renames anything:
//! - nothing on the deny list, the write deny list or a `.git`, where it is now or where it
//!   would land. Without this, a model could build `cfg/autostart/x.desktop` under an
//!   innocent name and move `cfg` to `.config`, move the user's `.config` away with its
//!   `systemd/` inside, or carry `.env` and a nested repository's internals away with their
//!   directory, or out from under a rule naming their path;
//! - no symbolic link whose relative target would lead somewhere else from its new place: a
//!   link is read from where it is, so moved to another depth it may name another file, or
//!   one outside the root. A link within a moved directory that leads within it moves
//!   along; one leading out must resolve to the same place from the new one.
//!
//! The walk is bounded like the workspace's walks (`--walk-max-entries`, `--walk-timeout`,
//! 64 levels), checks for cancellation, refuses what it cannot finish, and follows no link.

use std::fs;
use std::path::{Component, Path, PathBuf};
use std::time::Instant;

use crate::workspace::limits::TICK_ENTRIES;
use crate::workspace::sandbox::{RelPath, Sandbox};
use crate::workspace::walk::Bounds;
use minimcp::{Context, HandlerError};

/// Refuses moving the directory `from` to `to` (both canonical, inside `sandbox`;
/// `from_local`, `to_local` below the root) when an entry below it is denied at either
/// place or is a relative link that would lead elsewhere.
pub(crate) fn check(
    sandbox: &Sandbox,
    (from, to): (&Path, &Path),
    (from_local, to_local): (&RelPath, &RelPath),
    shown: &RelPath,
    bounds: &Bounds,
    ctx: &mut Context<'_>,
) -> Result<(), HandlerError> {
    let refuse = |why: String| {
        Err(HandlerError::Invalid(format!(
            "`{shown}` {why}. Nothing was moved."
        )))
    };
    let started = Instant::now();
    let mut stack = vec![(from.to_path_buf(), RelPath::root(), 0usize)];
    let mut visited = 0usize;
    while let Some((dir, below, depth)) = stack.pop() {
        let Ok(entries) = fs::read_dir(&dir) else {
            return refuse(format!(
                "holds `{}`, which could not be read to check what it holds",
                from_local.join_rel(below.as_str())
            ));
        };
        for entry in entries.flatten() {
            visited += 1;
            if visited.is_multiple_of(TICK_ENTRIES) && ctx.is_cancelled() {
                return Err(ctx.cancelled());
            }
            if visited > bounds.max_entries || started.elapsed() > bounds.max_time {
                return refuse(format!(
                    "holds more than can be checked against the deny lists (over {} entries or {} s): move its parts instead",
                    visited.min(bounds.max_entries),
                    bounds.max_time.as_secs()
                ));
            }
            let (Some(name), Ok(kind)) = (
                entry.file_name().to_str().map(String::from),
                entry.file_type(),
            ) else {
                return refuse("holds a name that is not UTF-8, which cannot be checked against the deny lists".into());
            };
            let rest = below.join(&name);
            let is_dir = kind.is_dir();
            let (here, there) = (
                from_local.join_rel(rest.as_str()),
                to_local.join_rel(rest.as_str()),
            );
            let (shown_here, shown_there) = (
                sandbox.label().join_rel(here.as_str()),
                sandbox.label().join_rel(there.as_str()),
            );
            if sandbox.is_write_denied(&here, is_dir) || sandbox.is_write_denied(&there, is_dir) {
                return refuse(format!(
                    "holds `{shown_here}`, which would be `{shown_there}` after the move, and one of them is on the write deny list (files that grant access or run code at the next login, --deny-write): move the other entries one by one"
                ));
            }
            if name.eq_ignore_ascii_case(".git")
                || sandbox.is_denied(&here, is_dir)
                || sandbox.is_denied(&there, is_dir)
            {
                return refuse(format!(
                    "holds `{shown_here}`, which this server does not touch where it is or where it would land (the deny list, or a repository's `.git`): moving the directory would move it too; move the other entries one by one"
                ));
            }
            let path = entry.path();
            if kind.is_symlink() {
                let target = fs::read_link(&path).unwrap_or_default();
                let moved = path
                    .strip_prefix(from)
                    .map(|r| to.join(r))
                    .unwrap_or_default();
                if changes_meaning(&path, &moved, &target, Some((from, to))) {
                    return refuse(format!(
                        "holds the symbolic link `{shown_here}` (to `{}`), which is read from where it is and would lead somewhere else after the move; move the directory within its parent, or change the link first",
                        target.display()
                    ));
                }
            } else if is_dir {
                if depth + 1 >= bounds.max_depth {
                    return refuse(format!(
                        "is deeper than the {} levels that can be checked against the deny lists",
                        bounds.max_depth
                    ));
                }
                stack.push((path, rest, depth + 1));
            }
        }
    }
    Ok(())
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

/// `target` (a link's text) read from the directory `dir`, `..` and `.` taken away; `None`
/// for a target that is not read from the link's directory, which means the same from
/// anywhere in a root: an absolute one, and on Windows one from the drive's root (`\x`) or
/// naming a drive (`C:x`).
fn resolved(dir: &Path, target: &Path) -> Option<PathBuf> {
    let drive = matches!(target.components().next(), Some(Component::Prefix(_)));
    if target.has_root() || drive {
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

/// Whether the link at `from` (its text `target`) would lead elsewhere at `to`. `tree` is
/// the directory being moved, old and new (`None` when the link itself is moved): a link
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
