//! `create_directory`'s work: making a directory and its missing parents inside a root.
//! Each existing component is checked as reads check it (links must stay inside, `.git`
//! and the deny list are refused); a missing one on the write deny list is not made; each
//! other missing one is made with `mkdir` through its checked parent's handle, so a parent
//! swapped for a link meanwhile cannot redirect it.

use std::fs;
use std::io;

use crate::workspace::sandbox::{PathError, RelPath, Sandbox, MAX_WRITE_DEPTH};
use crate::workspace::target::is_temp_name;

/// Makes the directory `local` and any missing parents, each created through its
/// checked parent's handle; existing ones (or in-root links to directories) are kept.
/// Returns the directories created.
pub(crate) fn make_dirs(sandbox: &Sandbox, local: &RelPath) -> Result<Vec<RelPath>, PathError> {
    if local.components().count() > MAX_WRITE_DEPTH {
        return Err(PathError::TooDeep(sandbox.label().join_rel(local.as_str())));
    }
    let mut real = sandbox.root().to_path_buf();
    let mut asked = RelPath::root();
    let mut created = Vec::new();
    for name in local.components() {
        asked = asked.join(name);
        let shown = sandbox.label().join_rel(asked.as_str());
        if is_temp_name(name) {
            return Err(PathError::Reserved(shown));
        }
        let next = real.join(name);
        match fs::symlink_metadata(&next) {
            Ok(meta) if meta.file_type().is_symlink() => real = sandbox.follow(&next, &shown)?,
            Ok(meta) if meta.is_dir() => real = next,
            Ok(_) => return Err(PathError::NotADirectory(shown)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                if sandbox.is_denied(&asked, true) {
                    return Err(PathError::Denied(shown));
                }
                if sandbox.is_write_denied(&asked, true) {
                    return Err(PathError::WriteDenied(shown));
                }
                let parent = sandbox.open_dir(&real, &shown)?;
                match fs::create_dir(parent.entry(name)) {
                    Ok(()) => {
                        parent
                            .sync()
                            .map_err(|e| PathError::Io(shown.clone(), e.kind()))?;
                        created.push(shown.clone());
                    }
                    Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
                    Err(e) => return Err(PathError::Io(shown, e.kind())),
                }
                let meta = fs::symlink_metadata(&next)
                    .map_err(|e| PathError::Io(shown.clone(), e.kind()))?;
                if !meta.is_dir() {
                    return Err(PathError::NotADirectory(shown));
                }
                real = next;
            }
            Err(e) => return Err(PathError::Io(shown, e.kind())),
        }
        if !sandbox.contains(&real) {
            return Err(PathError::Escapes(shown));
        }
        let real_local = sandbox
            .relative(&real)
            .ok_or(PathError::NotUtf8(shown.clone()))?;
        if real_local
            .components()
            .any(|c| c.eq_ignore_ascii_case(".git"))
        {
            return Err(PathError::Git);
        }
        if sandbox.is_denied(&real_local, true) {
            return Err(PathError::Denied(shown));
        }
    }
    Ok(created)
}
