//! What a whole patch does to the tree, decided before anything is written, as `git apply`
//! decides it (its `check_patch_list` and `write_out_results`):
//!
//! - each section in order is checked against the tree and the sections before it: a file
//!   must exist to be changed, deleted, renamed or copied and must not exist to be created
//!   (unless the patch deletes or renames it away), a file a section renamed or deleted
//!   cannot be changed by a later one, a later change of the same file applies to what the
//!   earlier one made (renames and copies read the tree, as git's do);
//! - its hunks are applied (`image.rs`); a deletion must leave nothing;
//! - the result is what git writes: every old name a section changes, renames or deletes is
//!   removed, then every section's result is written to its new name, in patch order.
//!
//! The tree is behind [`Tree`], which also applies the workspace's own rules to each name
//! (roots, deny list, links); nothing here touches the disk.

use std::collections::{BTreeMap, HashMap};

use super::image::{apply_hunk, Budget, Failure, Image, Placed};
use super::names::git_accepts_path;
use super::parse::FilePatch;

/// What a path is, its last component not followed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stat {
    Missing,
    /// A directory on the way is a file.
    NotDir,
    File {
        exec: bool,
    },
    Dir,
    /// A symbolic link, a device, a FIFO or a socket: never patched.
    Special,
}

/// The tree a patch applies to.
pub(crate) trait Tree {
    /// What `name` is. Refuses names the workspace does not let a patch touch.
    fn stat(&mut self, name: &str) -> Result<Stat, Refused>;
    /// The bytes of the regular file `name`.
    fn read(&mut self, name: &str) -> Result<Vec<u8>, Refused>;
}

/// Why a patch is refused.
#[derive(Debug)]
pub(crate) enum Refused {
    /// A hunk found no place.
    Hunk(Box<Miss>),
    /// Anything else, said whole.
    Message(String),
}

/// A hunk that did not apply, with what a report needs to show the model the right lines.
#[derive(Debug)]
pub(crate) struct Miss {
    pub(crate) name: String,
    /// 1-based, of how many.
    pub(crate) hunk: usize,
    pub(crate) hunks: usize,
    pub(crate) header: String,
    pub(crate) patch_line: usize,
    /// The file as this section found it (before its first hunk).
    pub(crate) file: Vec<u8>,
    pub(crate) failure: Failure,
    /// The hunk's old start (1-based; 0 for an empty file).
    pub(crate) old_pos: u64,
}

fn refuse<T>(message: impl Into<String>) -> Result<T, Refused> {
    Err(Refused::Message(message.into()))
}

/// What one section does, for the report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Kind {
    Modified,
    Created,
    Deleted,
    Renamed,
    Copied,
}

/// One section, decided.
#[derive(Debug)]
pub(crate) struct Section {
    pub(crate) kind: Kind,
    pub(crate) old: Option<String>,
    pub(crate) new: Option<String>,
    pub(crate) placed: Vec<Placed>,
    pub(crate) added: usize,
    pub(crate) removed: usize,
}

/// A path as the patch leaves it: its bytes and git mode, or nothing.
pub(crate) type Final = Option<(Vec<u8>, u32)>;

/// The whole patch, decided.
#[derive(Debug)]
pub(crate) struct Plan {
    pub(crate) sections: Vec<Section>,
    /// Every path a section names, as the patch leaves it (removed paths map to `None`).
    pub(crate) finals: BTreeMap<String, Final>,
}

/// An entry of git's table of names the patch has dealt with.
#[derive(Clone, Copy)]
enum Seen {
    /// A section produced this name (its index).
    Made(usize),
    /// A section renamed or deleted it.
    WasDeleted,
    /// A later section will rename or delete it.
    ToBeDeleted,
}

/// A section's result: bytes and git mode.
struct Made {
    bytes: Vec<u8>,
    mode: u32,
}

fn utf8(name: &Option<Vec<u8>>) -> Result<Option<String>, Refused> {
    let Some(name) = name else {
        return Ok(None);
    };
    if !git_accepts_path(name) {
        return refuse(format!(
            "invalid path `{}` (git apply refuses empty, `.`, `..` and `.git` components and absolute paths); name files relative to the repository root, as `a/PATH` and `b/PATH`",
            String::from_utf8_lossy(name)
        ));
    }
    match String::from_utf8(name.clone()) {
        Ok(name) => Ok(Some(name)),
        Err(_) => refuse(format!(
            "`{}` is not a UTF-8 file name; apply_patch names files in UTF-8 only",
            String::from_utf8_lossy(name)
        )),
    }
}

/// Decides what `sections` (read from `patch`) do to `tree`.
pub(crate) fn plan(
    tree: &mut dyn Tree,
    patch: &[u8],
    sections: &[FilePatch],
    budget: &mut Budget,
) -> Result<Plan, Refused> {
    let mut p: Vec<FilePatch> = sections.to_vec();
    let mut names = Vec::with_capacity(p.len());
    for s in &p {
        names.push((utf8(&s.old_name)?, utf8(&s.new_name)?));
    }
    let mut table: HashMap<String, Seen> = HashMap::new();
    for (s, (old, new)) in p.iter().zip(&names) {
        if let (Some(old), true) = (old, new.is_none() || s.is_rename) {
            table.insert(old.clone(), Seen::ToBeDeleted);
        }
    }
    let mut made: Vec<Option<Made>> = Vec::with_capacity(p.len());
    let mut done = Vec::with_capacity(p.len());
    for i in 0..p.len() {
        let (old, new) = names[i].clone();
        let (result, section) = check(
            tree,
            patch,
            &mut p[i],
            old,
            new.clone(),
            &table,
            &made,
            budget,
        )?;
        let s = &p[i];
        // As git records it: under the section's new name even when it deletes (a stale
        // name a skipped header left), and its old name as gone when it renames or deletes.
        if let Some(new) = &new {
            table.insert(new.clone(), Seen::Made(i));
        }
        if let (Some(old), true) = (&section.old, new.is_none() || s.is_rename) {
            table.insert(old.clone(), Seen::WasDeleted);
        }
        if s.is_delete > 0 && !result.bytes.is_empty() {
            return refuse(format!(
                "the deletion of `{}` leaves content: its hunks do not remove every line of the file. Send `deleted file mode` with one hunk removing every line (read_file shows them all).",
                section.old.as_deref().unwrap_or("")
            ));
        }
        made.push(Some(result));
        done.push(section);
    }
    // Git writes out in two passes: every removal, then every result.
    let mut finals: BTreeMap<String, Final> = BTreeMap::new();
    for (s, d) in p.iter().zip(&done) {
        if s.is_new <= 0 && !s.is_copy {
            if let Some(old) = &d.old {
                finals.insert(old.clone(), None);
            }
        }
    }
    for ((s, d), m) in p.iter().zip(&done).zip(&made) {
        if s.is_delete > 0 {
            continue;
        }
        if let (Some(new), Some(m)) = (&d.new, m) {
            let mode = if m.mode == 0 { 0o100644 } else { m.mode };
            finals.insert(new.clone(), Some((m.bytes.clone(), mode)));
        }
    }
    Ok(Plan {
        sections: done,
        finals,
    })
}

/// The section before this one that produced `old`, when this one reads it from there;
/// `Err` when an earlier section renamed or deleted it.
fn previous(
    s: &FilePatch,
    old: &str,
    table: &HashMap<String, Seen>,
) -> Result<Option<usize>, Refused> {
    if s.is_copy || s.is_rename {
        return Ok(None);
    }
    match table.get(old) {
        Some(Seen::Made(i)) => Ok(Some(*i)),
        Some(Seen::WasDeleted) => refuse(format!(
            "`{old}` was renamed or deleted by an earlier section of this patch, so a later section cannot change it"
        )),
        _ => Ok(None),
    }
}

fn mode_of(stat: Stat) -> u32 {
    match stat {
        Stat::File { exec: true } => 0o100755,
        Stat::File { exec: false } => 0o100644,
        Stat::Dir => 0o160000,
        _ => 0o120000,
    }
}

/// Checks one section (git's `check_patch`) and applies its hunks.
#[allow(clippy::too_many_arguments)]
fn check(
    tree: &mut dyn Tree,
    patch: &[u8],
    s: &mut FilePatch,
    mut old: Option<String>,
    new: Option<String>,
    table: &HashMap<String, Seen>,
    made: &[Option<Made>],
    budget: &mut Budget,
) -> Result<(Made, Section), Refused> {
    if old.is_some() && s.is_new > 0 {
        // git apply stops on an assertion here (a name left by a skipped `diff --git` line).
        return refuse("a section both creates a file and names an old one (git apply stops on this patch); give each file section its own complete header");
    }
    // The preimage: from an earlier section, or from the tree.
    let mut from: Option<usize> = None;
    if let Some(name) = old.clone() {
        from = previous(s, &name, table)?;
        let st_mode = match from {
            Some(i) => made[i].as_ref().map_or(0, |m| m.mode),
            None => match tree.stat(&name)? {
                Stat::Missing if s.is_new < 0 => {
                    s.is_new = 1;
                    s.is_delete = 0;
                    old = None;
                    0
                }
                Stat::Missing | Stat::NotDir => {
                    return refuse(format!("`{name}` does not exist, so the patch cannot change, rename or delete it (to create it, the section needs `new file mode` and `--- /dev/null`)"))
                }
                Stat::Special => return refuse(format!("`{name}` is a symbolic link or a special file; apply_patch changes regular files only")),
                stat => mode_of(stat),
            },
        };
        if old.is_some() {
            if s.is_new < 0 {
                s.is_new = 0;
            }
            if s.old_mode == 0 {
                s.old_mode = st_mode;
            }
            if (st_mode ^ s.old_mode) & 0o170000 != 0 {
                return refuse(format!("`{name}` is not the kind of file the patch says it is (a directory or a link where the patch has a regular file)"));
            }
            if s.new_mode == 0 && s.is_delete == 0 {
                s.new_mode = st_mode;
            }
        }
    }
    if let Some(name) = &new {
        if s.is_new > 0 || s.is_rename || s.is_copy {
            let going = matches!(table.get(name), Some(Seen::WasDeleted | Seen::ToBeDeleted));
            match tree.stat(name)? {
                Stat::Missing | Stat::NotDir | Stat::Dir => {}
                _ if going => {}
                _ => return refuse(format!("`{name}` already exists, so the patch cannot create it (or rename or copy onto it). Send a change of the existing file instead (`--- a/{name}` and `+++ b/{name}` with hunks against its current lines), or delete it in the same patch")),
            }
            if s.new_mode == 0 {
                s.new_mode = if s.is_new > 0 { 0o100644 } else { s.old_mode };
            }
        }
        if old.is_some() {
            if s.new_mode == 0 {
                s.new_mode = s.old_mode;
            }
            if (s.old_mode ^ s.new_mode) & 0o170000 != 0 {
                return refuse(format!("the patch changes `{name}` between a regular file and a link or directory; apply_patch does not"));
            }
        }
        if s.is_delete == 0 {
            // Creating where a file is on the way is caught when written; a directory or
            // link on the way is refused by the tree.
            tree.stat(name)?;
        }
    }
    if s.is_binary {
        return refuse(format!(
            "`{}` has a binary patch (`GIT binary patch` or `Binary files … differ`); apply_patch applies text hunks only. Replace that file with write_file (`content_base64`) instead",
            new.as_deref().or(old.as_deref()).unwrap_or("")
        ));
    }
    let original = match (from, &old) {
        (Some(i), _) => made[i]
            .as_ref()
            .map(|m| m.bytes.clone())
            .unwrap_or_default(),
        (None, Some(name)) => tree.read(name)?,
        (None, None) => Vec::new(),
    };
    let shown = old.clone().or_else(|| new.clone()).unwrap_or_default();
    let mut img = Image::new(original.clone());
    let mut placed = Vec::with_capacity(s.hunks.len());
    let (mut added, mut removed) = (0, 0);
    for (n, hunk) in s.hunks.iter().enumerate() {
        match apply_hunk(&mut img, patch, hunk, budget) {
            Ok(at) => placed.push(at),
            Err(failure) => {
                let header = super::names::line_at(patch, hunk.text.start);
                return Err(Refused::Hunk(Box::new(Miss {
                    name: shown,
                    hunk: n + 1,
                    hunks: s.hunks.len(),
                    header: String::from_utf8_lossy(header).trim_end().to_string(),
                    patch_line: hunk.line,
                    file: original,
                    failure,
                    old_pos: hunk.old_pos,
                })));
            }
        }
        let body = &patch[hunk.text.clone()];
        for line in body.split(|&c| c == b'\n').skip(1) {
            match line.first() {
                Some(b'+') => added += 1,
                Some(b'-') => removed += 1,
                _ => {}
            }
        }
    }
    let kind = if s.is_delete > 0 {
        Kind::Deleted
    } else if s.is_new > 0 {
        Kind::Created
    } else if s.is_rename {
        Kind::Renamed
    } else if s.is_copy {
        Kind::Copied
    } else {
        Kind::Modified
    };
    Ok((
        Made {
            bytes: img.into_bytes(),
            mode: s.new_mode,
        },
        Section {
            kind,
            old,
            new: if s.is_delete > 0 { None } else { new },
            placed,
            added,
            removed,
        },
    ))
}
