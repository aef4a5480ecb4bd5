//! What moving a directory carries: nothing on the write deny list, where it is now or where
//! it would land. Without this, a model could build `cfg/autostart/x.desktop` under an
//! innocent name and move `cfg` to `.config`, or move the user's `.config` away with its
//! `systemd/` inside. The walk is bounded like the workspace's walks (`--walk-max-entries`,
//! `--walk-timeout`, 64 levels) and refuses what it cannot finish; it follows no link.

use std::fs;
use std::time::Instant;

use crate::toolsets::workspace::sandbox::{RelPath, Sandbox};
use crate::toolsets::workspace::walk::Bounds;
use crate::HandlerError;

/// Refuses moving the directory `from` (canonical, inside `sandbox`; `from_local` below the
/// root) to `to_local` when an entry below it is on the write deny list at either place.
pub(crate) fn check(
    sandbox: &Sandbox,
    from: &std::path::Path,
    (from_local, to_local): (&RelPath, &RelPath),
    shown: &RelPath,
    bounds: &Bounds,
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
            if visited > bounds.max_entries || started.elapsed() > bounds.max_time {
                return refuse(format!(
                    "holds more than can be checked against the write deny list (over {} entries or {} s): move its parts instead",
                    visited.min(bounds.max_entries),
                    bounds.max_time.as_secs()
                ));
            }
            let (Some(name), Ok(kind)) = (
                entry.file_name().to_str().map(String::from),
                entry.file_type(),
            ) else {
                return refuse("holds a name that is not UTF-8, which cannot be checked against the write deny list".into());
            };
            let rest = below.join(&name);
            let is_dir = kind.is_dir();
            let (here, there) = (
                from_local.join_rel(rest.as_str()),
                to_local.join_rel(rest.as_str()),
            );
            if sandbox.is_write_denied(&here, is_dir) || sandbox.is_write_denied(&there, is_dir) {
                return refuse(format!(
                    "holds `{}`, which would be `{}` after the move, and one of them is on the write deny list (files that grant access or run code at the next login, --deny-write): move the other entries one by one",
                    sandbox.label().join_rel(here.as_str()),
                    sandbox.label().join_rel(there.as_str())
                ));
            }
            if is_dir {
                if depth + 1 >= bounds.max_depth {
                    return refuse(format!(
                        "is deeper than the {} levels that can be checked against the write deny list",
                        bounds.max_depth
                    ));
                }
                stack.push((entry.path(), rest, depth + 1));
            }
        }
    }
    Ok(())
}
