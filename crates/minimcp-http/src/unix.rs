//! `--http unix:PATH`: creating the socket file safely, and removing it at the end.
//!
//! The file's permissions are the access control, so it must never be reachable by
//! another user, not even for a moment. `bind` creates a socket file with the process's
//! umask (often 0755 or 0775: connectable by anyone), and without `unsafe` there is no
//! `umask(2)` to narrow it first; binding at PATH and then `chmod 0600` would leave a window
//! in which another user can connect. So:
//!
//! 1. bind in a fresh directory created next to PATH with mode 0700 and a random name
//!    (`mkdir` fails rather than reuse an existing name, and then another name is tried, so
//!    nobody can make startup fail by guessing names; a 0700 directory cannot be entered by
//!    anyone else, so its socket cannot be reached whatever its own mode);
//! 2. `chmod 0600` the socket there;
//! 3. hard-link it to PATH, which fails rather than replace anything that appeared there
//!    since it was checked (`rename` would silently replace it); only on a file system
//!    without hard links does it fall back to `rename`. Connecting goes by the file's
//!    inode, so the socket answers on the new name (Linux and the BSDs alike);
//! 4. remove the temporary name and directory.
//!
//! A 0600 socket is worth nothing in a directory another user can change: they unlink it,
//! bind their own at PATH, and receive the next request meant for this server. So, as
//! OpenSSH does for its files, every directory on the way to PATH — from `/`, through every
//! symbolic link followed, whose owner counts too — must be owned by this user or root and
//! must not be writable by group or others unless it has the sticky bit (`/tmp`: there only
//! a file's owner may remove or rename it). Whoever can rename any directory on the way can
//! put another tree in its place, so the whole chain counts, not only PATH's directory.
//! This user is whoever owns the temporary directory just made (no `getuid` without libc).
//!
//! PATH must fit a socket address (`sun_path`: 108 bytes on Linux with the NUL, 104 on the
//! BSDs and macOS) as the absolute path a client would be given, not only as typed: a
//! relative path binds relative to the working directory, and would be served to no client
//! that connects by the absolute one.
//!
//! Before that, PATH is checked: a socket nobody answers on is a stale one (a server
//! killed without the chance to remove it) and is removed; one that answers belongs to a
//! running server, and anything else (file, directory, symbolic link, FIFO, device) is not
//! ours to remove. At the end, the socket file is removed if it is still the one created
//! (compared by device and inode, so a socket that another server since put there stays).

use std::collections::VecDeque;
use std::ffi::OsString;
use std::fs::{self, DirBuilder, Permissions};
use std::io;
use std::os::unix::fs::{DirBuilderExt, FileTypeExt, MetadataExt, PermissionsExt};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Component, Path, PathBuf};

use super::{HttpError, Listen};
use minimcp_base::log;

/// Tries at a name for the private directory before giving up.
const TRIES: u32 = 64;

/// Bytes of a socket address's path, its NUL included (`sizeof(sun_path)`).
#[cfg(any(target_os = "linux", target_os = "android"))]
pub(crate) const SUN_PATH: usize = 108;
/// Bytes of a socket address's path, its NUL included (`sizeof(sun_path)`).
#[cfg(not(any(target_os = "linux", target_os = "android")))]
pub(crate) const SUN_PATH: usize = 104;

/// Symbolic links followed at most on the way to PATH (Linux's own limit).
const MAX_LINKS: u32 = 40;

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
    let absolute = std::path::absolute(path).map_err(fail)?;
    fits(path, &absolute, "as the absolute path")?;
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let private = private_dir(parent).map_err(fail)?;
    let uid = fs::metadata(&private.dir).map_err(fail)?.uid();
    let directory = absolute.parent().unwrap_or(Path::new("/"));
    only_owner_can_change(directory, uid).map_err(|e| match e {
        Chain::Unsafe(dir, why) => HttpError::UnsafeDirectory(dir, why),
        Chain::Io(e) => fail(e),
    })?;
    fits(
        path,
        &private.socket,
        "the temporary socket minimcp binds first,",
    )?;
    clear(path)?;
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

/// A new directory in `parent`, mode 0700, with a random name (nobody can take the names
/// it will try), and the socket's name in it (short: see [`SUN_PATH`]).
fn private_dir(parent: &Path) -> io::Result<Private> {
    let mut last = None;
    for _ in 0..TRIES {
        let random = minimcp_base::encoding::random_key();
        let name = format!(
            ".minimcp-{:08x}",
            u32::from_le_bytes([random[0], random[1], random[2], random[3]])
        );
        let dir = parent.join(name);
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

/// `measured` (the path as a client is given it, or the temporary one) fits a socket
/// address with its NUL.
fn fits(given: &Path, measured: &Path, what: &'static str) -> Result<(), HttpError> {
    let len = measured.as_os_str().len();
    if len < SUN_PATH {
        return Ok(());
    }
    Err(HttpError::PathTooLong {
        given: given.to_path_buf(),
        what,
        measured: measured.to_path_buf(),
        len,
        max: SUN_PATH - 1,
    })
}

/// Why a directory chain is not safe.
enum Chain {
    /// This directory or link can be changed by another user, for this reason.
    Unsafe(PathBuf, String),
    /// It could not be read.
    Io(io::Error),
}

/// Checks every directory on the way to `dir` (absolute), following symbolic links as the
/// kernel does: each directory must be owned by `uid` or root and not writable by group or
/// others unless sticky; each link followed must be owned by `uid` or root.
fn only_owner_can_change(dir: &Path, uid: u32) -> Result<(), Chain> {
    let owned = |meta: &fs::Metadata| meta.uid() == uid || meta.uid() == 0;
    let check_dir = |at: &Path, meta: &fs::Metadata| -> Result<(), Chain> {
        let mode = meta.mode();
        if !owned(meta) {
            let why = format!("owned by uid {}", meta.uid());
            return Err(Chain::Unsafe(at.to_path_buf(), why));
        }
        if mode & 0o022 != 0 && mode & 0o1000 == 0 {
            let why = format!(
                "writable by {} without the sticky bit: mode {:o}",
                if mode & 0o002 != 0 {
                    "others"
                } else {
                    "its group"
                },
                mode & 0o7777
            );
            return Err(Chain::Unsafe(at.to_path_buf(), why));
        }
        Ok(())
    };
    let mut resolved = PathBuf::from("/");
    check_dir(&resolved, &fs::metadata(&resolved).map_err(Chain::Io)?)?;
    let mut rest: VecDeque<OsString> = names(dir);
    let mut links = 0;
    while let Some(name) = rest.pop_front() {
        if name == ".." {
            // Back to a directory already checked on the way here.
            resolved.pop();
            continue;
        }
        let next = resolved.join(&name);
        let meta = fs::symlink_metadata(&next).map_err(Chain::Io)?;
        if !meta.file_type().is_symlink() {
            check_dir(&next, &meta)?;
            resolved = next;
            continue;
        }
        if !owned(&meta) {
            let why = format!("a symbolic link owned by uid {}", meta.uid());
            return Err(Chain::Unsafe(next, why));
        }
        links += 1;
        if links > MAX_LINKS {
            let why = "too many levels of symbolic links";
            return Err(Chain::Io(io::Error::other(why)));
        }
        let target = fs::read_link(&next).map_err(Chain::Io)?;
        if target.is_absolute() {
            resolved = PathBuf::from("/");
        }
        for (i, part) in names(&target).into_iter().enumerate() {
            rest.insert(i, part);
        }
    }
    Ok(())
}

/// The names in `path` after any root, `..` kept, `.` dropped.
fn names(path: &Path) -> VecDeque<OsString> {
    path.components()
        .filter_map(|c| match c {
            Component::Normal(name) => Some(name.to_os_string()),
            Component::ParentDir => Some("..".into()),
            _ => None,
        })
        .collect()
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
            // Whatever the umask: a group-writable directory is refused.
            fs::set_permissions(&dir, Permissions::from_mode(0o755)).expect("chmod");
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
    fn names_taken_in_the_directory_never_stop_startup() {
        // Every name a guessable scheme (`.minimcp-PID-N`) would try, taken beforehand (in
        // /tmp anybody can): the temporary directory's name is random, and one taken by
        // chance is tried again with another.
        let scratch = Scratch::new("names");
        for n in 0..4 * TRIES {
            let taken = scratch
                .0
                .join(format!(".minimcp-{}-{n}", std::process::id()));
            fs::create_dir(taken).expect("taken");
        }
        let (_listener, _placed) = bind(&scratch.0.join("g.sock")).expect("bound all the same");
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
