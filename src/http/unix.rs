//! `--http unix:PATH`: creating the socket file safely, and removing it at the end.
//!
//! The file's permissions are the access control, so it must never be reachable by
//! another user, not even for a moment. `bind` creates a socket file with the process's
//! umask (often 0755 or 0775: connectable by anyone), and without `unsafe` there is no
//! `umask(2)` to narrow it first; binding at PATH and then `chmod 0600` would leave a window
//! in which another user can connect. So:
//!
//! 1. bind in a fresh directory created next to PATH with mode 0700 (`mkdir` fails rather
//!    than reuse an existing name, and a 0700 directory cannot be entered by anyone else,
//!    so its socket cannot be reached whatever its own mode);
//! 2. `chmod 0600` the socket there;
//! 3. hard-link it to PATH, which fails rather than replace anything that appeared there
//!    since it was checked (`rename` would silently replace it); only on a file system
//!    without hard links does it fall back to `rename`. Connecting goes by the file's
//!    inode, so the socket answers on the new name (Linux and the BSDs alike);
//! 4. remove the temporary name and directory.
//!
//! Before that, PATH is checked: a socket nobody answers on is a stale one (a server
//! killed without the chance to remove it) and is removed; one that answers belongs to a
//! running server, and anything else (file, directory, symbolic link, FIFO, device) is not
//! ours to remove. At the end, the socket file is removed if it is still the one created
//! (compared by device and inode, so a socket that another server since put there stays).

use std::fs::{self, DirBuilder, Permissions};
use std::io;
use std::os::unix::fs::{DirBuilderExt, FileTypeExt, MetadataExt, PermissionsExt};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

use super::{HttpError, Listen};
use crate::log;

/// Tries at a name for the private directory before giving up.
const TRIES: u32 = 64;

/// The socket file in place, removed on drop if it is still the one this process made:
/// the same device and inode. That identifies it while the listener is open (a bound
/// socket keeps its inode, so no new file can get the number); after the listener closed,
/// a socket another server bound at the path in the same instant could reuse the number
/// and be taken for this one.
#[derive(Debug)]
pub(crate) struct Placed {
    path: PathBuf,
    dev: u64,
    ino: u64,
}

impl Drop for Placed {
    fn drop(&mut self) {
        let ours = fs::symlink_metadata(&self.path)
            .is_ok_and(|m| m.file_type().is_socket() && m.dev() == self.dev && m.ino() == self.ino);
        if ours {
            let _ = fs::remove_file(&self.path);
        }
    }
}

/// A private directory and the socket's temporary name in it, both removed on drop.
struct Private {
    dir: PathBuf,
    socket: PathBuf,
}

impl Drop for Private {
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.socket);
        let _ = fs::remove_dir(&self.dir);
    }
}

/// Listens on a new socket file at `path`, mode 0600 (see the module's comment).
pub(crate) fn bind(path: &Path) -> Result<(UnixListener, Placed), HttpError> {
    let fail = |e| HttpError::Bind(Listen::Unix(path.to_path_buf()), e);
    if path.file_name().is_none() {
        let why = "the path names no file";
        return Err(fail(io::Error::new(io::ErrorKind::InvalidInput, why)));
    }
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    clear(path)?;
    let private = private_dir(parent).map_err(fail)?;
    let listener = UnixListener::bind(&private.socket).map_err(fail)?;
    fs::set_permissions(&private.socket, Permissions::from_mode(0o600)).map_err(fail)?;
    // A stale socket that another starting server removed, then filled again, between
    // `clear` and here: check once more, so the message says what is there.
    let mut placed = fs::hard_link(&private.socket, path);
    if placed
        .as_ref()
        .is_err_and(|e| e.kind() == io::ErrorKind::AlreadyExists)
    {
        clear(path)?;
        placed = fs::hard_link(&private.socket, path);
    }
    match placed {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => return Err(fail(e)),
        // No hard links here: rename, which replaces what appeared since `clear` (a window
        // of microseconds, and only on such file systems).
        Err(_) => fs::rename(&private.socket, path).map_err(fail)?,
    }
    drop(private);
    let meta = fs::symlink_metadata(path).map_err(fail)?;
    log::info(format_args!("created {} with mode 0600", path.display()));
    Ok((
        listener,
        Placed {
            path: path.to_path_buf(),
            dev: meta.dev(),
            ino: meta.ino(),
        },
    ))
}

/// Makes `path` free: nothing there, or a stale socket of a server gone (removed here).
fn clear(path: &Path) -> Result<(), HttpError> {
    let fail = |e| HttpError::Bind(Listen::Unix(path.to_path_buf()), e);
    let meta = match fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(fail(e)),
    };
    let kind = meta.file_type();
    if !kind.is_socket() {
        let what = if kind.is_symlink() {
            "a symbolic link"
        } else if kind.is_dir() {
            "a directory"
        } else if kind.is_file() {
            "a regular file"
        } else {
            "not a socket"
        };
        return Err(HttpError::Occupied(path.to_path_buf(), what));
    }
    match UnixStream::connect(path) {
        Ok(_) => Err(HttpError::InUse(path.to_path_buf())),
        Err(e) if e.kind() == io::ErrorKind::ConnectionRefused => {
            log::notice(format_args!(
                "removing the stale socket {} (nothing listens on it)",
                path.display()
            ));
            match fs::remove_file(path) {
                Err(e) if e.kind() != io::ErrorKind::NotFound => Err(fail(e)),
                _ => Ok(()),
            }
        }
        // Not ours to judge (e.g. another user's socket): leave it.
        Err(e) => Err(fail(e)),
    }
}

/// A new directory in `parent`, mode 0700, and the socket's name in it (short: a socket
/// path has a limit of about 100 bytes).
fn private_dir(parent: &Path) -> io::Result<Private> {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let pid = std::process::id();
    let mut last = None;
    for _ in 0..TRIES {
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir = parent.join(format!(".minimcp-{pid}-{n}"));
        match DirBuilder::new().mode(0o700).create(&dir) {
            Ok(()) => {
                let socket = dir.join("s");
                return Ok(Private { dir, socket });
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| io::ErrorKind::AlreadyExists.into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh directory under the target directory, removed on drop.
    struct Scratch(PathBuf);

    impl Scratch {
        fn new(name: &str) -> Scratch {
            let dir =
                std::env::temp_dir().join(format!("minimcp-unix-{name}-{}", std::process::id()));
            let _ = fs::remove_dir_all(&dir);
            fs::create_dir_all(&dir).expect("scratch dir");
            Scratch(dir)
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    #[test]
    fn the_socket_is_0600_answers_and_is_removed_on_drop_leaving_nothing_else() {
        let scratch = Scratch::new("drop");
        let path = scratch.0.join("a.sock");
        let (listener, placed) = bind(&path).expect("bind");
        let meta = fs::symlink_metadata(&path).expect("exists");
        assert!(meta.file_type().is_socket());
        assert_eq!(meta.permissions().mode() & 0o777, 0o600);
        UnixStream::connect(&path).expect("answers at its path");
        listener.accept().expect("accepted");
        // The private directory is gone: only the socket is left.
        let names: Vec<_> = fs::read_dir(&scratch.0)
            .expect("list")
            .map(|e| e.expect("entry").file_name())
            .collect();
        assert_eq!(names, ["a.sock"]);
        drop(placed);
        assert!(fs::symlink_metadata(&path).is_err(), "removed");
    }

    #[test]
    fn a_stale_socket_is_replaced_and_a_live_one_or_a_file_refused() {
        let scratch = Scratch::new("stale");
        let path = scratch.0.join("b.sock");
        let live = UnixListener::bind(&path).expect("a live socket");
        assert!(matches!(bind(&path), Err(HttpError::InUse(_))));
        drop(live); // closed, the file stays: stale
        let (_listener, _placed) = bind(&path).expect("the stale socket is replaced");
        let file = scratch.0.join("file");
        fs::write(&file, "x").expect("file");
        assert!(matches!(
            bind(&file),
            Err(HttpError::Occupied(_, "a regular file"))
        ));
        assert!(matches!(
            bind(&scratch.0),
            Err(HttpError::Occupied(_, "a directory"))
        ));
    }

    #[test]
    fn a_replaced_socket_is_not_removed_by_the_first_owner() {
        let scratch = Scratch::new("replaced");
        let path = scratch.0.join("c.sock");
        let (first, placed) = bind(&path).expect("bind");
        // Someone removes it and another server binds the path, while this one still
        // listens (a bound socket keeps its inode, so the new file cannot reuse the number;
        // closed first, the number could come back and the check could not tell them apart).
        fs::remove_file(&path).expect("removed");
        let _other = UnixListener::bind(&path).expect("another server");
        drop(placed);
        drop(first);
        assert!(fs::symlink_metadata(&path).is_ok(), "the other one stays");
    }
}
