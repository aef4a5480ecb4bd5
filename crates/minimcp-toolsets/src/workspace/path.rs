//! Client paths after the lexical gate ([`RelPath`]) and every reason a path is refused
//! ([`PathError`]), with the messages clients see. The sandbox (`sandbox.rs`) resolves them on
//! disk; the write side (`target.rs`) shares both.

use std::fmt;
use std::io;

use super::limits::{MAX_COMPONENT_BYTES, MAX_PATH_BYTES};
use super::names::{windows_name, Flavor, WindowsName};

/// A path relative to the workspace root: `/`-separated normal components, `""` for the root.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct RelPath(pub(super) String);

impl RelPath {
    /// The root itself.
    pub(crate) fn root() -> RelPath {
        RelPath(String::new())
    }

    /// Checks a client-supplied path lexically (gate 1), as this system spells paths.
    pub(crate) fn parse(input: &str) -> Result<RelPath, PathError> {
        RelPath::parse_as(input, Flavor::NATIVE)
    }

    /// Checks a client-supplied path lexically as `flavor` spells paths: on Windows `\`
    /// separates names too, and names Windows would read as something else (devices,
    /// streams, trailing dots and spaces, short names) are refused.
    pub(crate) fn parse_as(input: &str, flavor: Flavor) -> Result<RelPath, PathError> {
        if input.len() > MAX_PATH_BYTES {
            return Err(PathError::TooLong(input.len()));
        }
        if input.contains('\0') {
            return Err(PathError::Nul);
        }
        if flavor == Flavor::Unix && input.contains('\\') {
            return Err(PathError::Backslash);
        }
        let bytes = input.as_bytes();
        let drive = bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':';
        if drive || flavor.is_absolute(input) {
            return Err(PathError::Absolute);
        }
        if input.starts_with('~') {
            return Err(PathError::Home);
        }
        let mut out = String::with_capacity(input.len());
        for component in input.split(|c| flavor.is_separator(c)) {
            match component {
                "" | "." => continue,
                ".." => return Err(PathError::Parent),
                // Case-blind: on case-insensitive file systems `.GIT` opens `.git`.
                c if c.eq_ignore_ascii_case(".git") => return Err(PathError::Git),
                c if c.len() > MAX_COMPONENT_BYTES => return Err(PathError::ComponentTooLong),
                c => {
                    if let Some(problem) = windows_name(c).filter(|_| flavor == Flavor::Windows) {
                        return Err(PathError::WindowsName(c.to_string(), problem));
                    }
                    if !out.is_empty() {
                        out.push('/');
                    }
                    out.push_str(c);
                }
            }
        }
        Ok(RelPath(out))
    }

    /// The path as stored: `""` for the root.
    pub(crate) fn as_str(&self) -> &str {
        &self.0
    }

    /// This path with one more component; `name` comes from the file system (a single,
    /// non-empty name without `/`).
    pub(crate) fn join(&self, name: &str) -> RelPath {
        if self.0.is_empty() {
            RelPath(name.to_string())
        } else {
            RelPath(format!("{}/{name}", self.0))
        }
    }

    /// This path followed by a relative `/`-separated `tail` (possibly empty).
    pub(crate) fn join_rel(&self, tail: &str) -> RelPath {
        match (self.0.is_empty(), tail.is_empty()) {
            (_, true) => self.clone(),
            (true, false) => RelPath(tail.to_string()),
            (false, false) => RelPath(format!("{}/{tail}", self.0)),
        }
    }

    /// The components, in order.
    pub(crate) fn components(&self) -> impl Iterator<Item = &str> {
        self.0.split('/').filter(|c| !c.is_empty())
    }

    /// The last component (`""` for the root).
    pub(crate) fn name(&self) -> &str {
        self.0.rsplit('/').next().unwrap_or("")
    }

    /// What follows `base` in this path, when this path is `base` or below it.
    pub(crate) fn strip_prefix(&self, base: &RelPath) -> Option<&str> {
        if base.0.is_empty() {
            return Some(&self.0);
        }
        let rest = self.0.strip_prefix(base.0.as_str())?;
        if rest.is_empty() {
            Some("")
        } else {
            rest.strip_prefix('/')
        }
    }
}

impl fmt::Display for RelPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.0.is_empty() { "." } else { &self.0 })
    }
}

/// How many components below its root a path the edit tools write or create may have: each
/// created directory costs a checked open and an `fsync`, and the startup sweep for
/// leftover temporary files looks this deep (a fuzzer found a path of thousands of
/// components keeping the server busy for minutes).
#[cfg_attr(
    not(feature = "edit"),
    allow(dead_code, reason = "only the edit toolset writes")
)]
pub(crate) const MAX_WRITE_DEPTH: usize = 64;

/// Why a path was refused or could not be used. Messages name the client's relative path,
/// never an absolute one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum PathError {
    Nul,
    Backslash,
    Absolute,
    Home,
    Parent,
    Git,
    TooLong(usize),
    ComponentTooLong,
    Escapes(RelPath),
    BrokenLink(RelPath),
    NotFound(RelPath),
    NotADirectory(RelPath),
    IsADirectory(RelPath),
    Special(RelPath),
    NotUtf8(RelPath),
    Io(RelPath, io::ErrorKind),
    /// A file the deny list (`--deny`) hides and refuses.
    Denied(RelPath),
    /// A file the write deny list (`--deny-write`) keeps from the edit tools.
    #[cfg_attr(
        not(feature = "edit"),
        allow(dead_code, reason = "only the edit toolset writes")
    )]
    WriteDenied(RelPath),
    /// An absolute path inside none of the roots (the client's own spelling).
    Outside(String),
    /// A relative path found in several roots: the candidates, as root-prefixed paths.
    Ambiguous(RelPath, Vec<String>),
    /// A write's target has the name of a write's temporary file (reserved, so that nothing
    /// else is ever mistaken for a leftover one).
    #[cfg_attr(
        not(feature = "edit"),
        allow(dead_code, reason = "only the edit toolset writes")
    )]
    Reserved(RelPath),
    /// A write's target is more than [`MAX_WRITE_DEPTH`] components below its root.
    #[cfg_attr(
        not(feature = "edit"),
        allow(dead_code, reason = "only the edit toolset writes")
    )]
    TooDeep(RelPath),
    /// A write's target has several hard links: replacing it would split them.
    #[cfg_attr(
        not(feature = "edit"),
        allow(dead_code, reason = "only the edit toolset writes")
    )]
    HardLinked(RelPath),
    /// The directory that would hold a written file does not exist.
    #[cfg_attr(
        not(feature = "edit"),
        allow(dead_code, reason = "only the edit toolset writes")
    )]
    NoParent(RelPath),
    /// No root is configured: the client gave none and the server was started without
    /// `--root` in `/` or the home directory.
    NoRoot,
    /// A name Windows would read as something other than the file it spells.
    WindowsName(String, WindowsName),
}

/// What to tell a client that has no workspace root to work in.
pub(crate) const NO_ROOT: &str = "no workspace root is configured, so nothing can be read. Configure one: start the server with `--root DIR` (or `minimcp DIR`), e.g. `--root ${workspaceFolder}` in Cursor or VS Code, or use a client that provides its roots (roots/list). The server never serves `/` or the home directory implicitly.";

impl fmt::Display for PathError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const RELATIVE: &str = "give a path relative to the workspace root, such as \"src/main.rs\" (\".\" is the root itself), or an absolute path inside it";
        match self {
            PathError::Nul => write!(f, "the path contains a NUL byte, which no file name can contain"),
            PathError::Backslash => write!(f, "backslashes are refused: separate directories with `/`, such as \"src/main.rs\""),
            PathError::Absolute => write!(f, "this absolute path is not inside a workspace root: {RELATIVE}"),
            PathError::Home => write!(f, "`~user` paths are refused: {RELATIVE}"),
            PathError::Parent => write!(f, "`..` is refused: paths cannot climb above the workspace root; {RELATIVE}"),
            PathError::Git => write!(f, "`.git` is refused: repository metadata is not part of the workspace view"),
            PathError::TooLong(n) => write!(f, "the path is {n} bytes long; the limit is {MAX_PATH_BYTES} bytes"),
            PathError::ComponentTooLong => write!(f, "a path component is longer than {MAX_COMPONENT_BYTES} bytes"),
            PathError::Escapes(p) => write!(f, "`{p}` is a symbolic link that leads outside the workspace; it is not followed"),
            PathError::BrokenLink(p) => write!(f, "`{p}` is a broken symbolic link"),
            PathError::NotFound(p) => write!(f, "`{p}` does not exist in the workspace (paths are relative to the workspace root; list_directory shows what is there)"),
            PathError::NotADirectory(p) => write!(f, "`{p}` is a file, not a directory"),
            PathError::IsADirectory(p) => write!(f, "`{p}` is a directory, not a file; list_directory shows its entries"),
            PathError::Special(p) => write!(f, "`{p}` is not a regular file (a device, socket or pipe); only regular files are read"),
            PathError::NotUtf8(p) => write!(f, "`{p}` leads to a name that is not valid UTF-8"),
            PathError::Io(p, kind) => write!(f, "`{p}` cannot be read: {kind}"),
            PathError::Denied(p) => write!(f, "`{p}` is hidden by the server's deny list (secrets such as .env files and private keys); it is never read"),
            PathError::WriteDenied(p) => write!(f, "`{p}` is on the server's write deny list (files that grant access or run code at the next login: .ssh/, shell start-up files and the like); it can be read, but the edit tools never create, change or move it. Nothing was written. Only the person running the server can change that list (--deny-write)"),
            PathError::Outside(p) => write!(f, "`{p}` is outside the workspace roots and is refused: {RELATIVE}"),
            PathError::Ambiguous(p, all) => write!(f, "`{p}` exists in several workspace roots; name the one you mean: {}", all.join(", ")),
            PathError::Reserved(p) => write!(f, "`{p}` has the form of the server's temporary file names (.minimcp-write.*.tmp) or patch journals (.minimcp-patch.*.json), which are reserved; choose another name"),
            PathError::TooDeep(p) => write!(f, "`{p}` is more than {MAX_WRITE_DEPTH} directories below its root; the edit tools write only within {MAX_WRITE_DEPTH} levels (as deep as the leftover-file sweep looks). Choose a shallower path"),
            PathError::HardLinked(p) => write!(f, "`{p}` has several hard links; replacing it would leave the other names with the old content, so it is not written. Copy it to a file of its own first if you mean to change only this name"),
            PathError::NoParent(p) => write!(f, "the directory `{p}` does not exist: create that directory first, then write the file in it"),
            PathError::NoRoot => f.write_str(NO_ROOT),
            PathError::WindowsName(name, problem) => match problem {
                WindowsName::Device => write!(f, "`{name}` is a device name on Windows (CON, PRN, AUX, NUL, COM0-9, LPT0-9, whatever the extension): it never names a file; choose another name"),
                WindowsName::TrailingDotOrSpace => write!(f, "`{name}` ends with a dot or a space, which Windows drops (`a.txt.` opens `a.txt`); give the name without them"),
                WindowsName::Stream => write!(f, "`{name}` names an alternate data stream (`file:stream`); only a file's main contents are served: give the file's name without the colon"),
                WindowsName::ShortName => write!(f, "`{name}` has the form of an 8.3 short name (such as PROGRA~1), which can stand for a file with another name; give the file's full name (list_directory shows it)"),
                WindowsName::Character(c) => write!(f, "`{name}` holds {c:?}, which no Windows file name can hold (search_files takes wildcards)"),
            },
        }
    }
}
