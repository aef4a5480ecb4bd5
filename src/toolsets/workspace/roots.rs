//! Which directories are the workspace, and how the ways clients name files map onto them:
//! `~` expansion, absolute paths, RFC 8089 `file://` URIs, and labels for several roots.
//!
//! Roots come from `--root` (fixed), else from the client's `roots/list`, else from a
//! fallback directory (the working directory) — but never `/` or the home directory
//! implicitly: Claude Desktop and Cline start servers there, and serving it would expose
//! every file of the machine or of the user.

use std::path::{Component, Path, PathBuf};

use super::sandbox::{Resolved, Sandbox};

/// The deny list used unless `--deny` says otherwise: environment files and private keys.
pub const DEFAULT_DENY: &[&str] = &[
    ".env",
    ".env.*",
    "*.env",
    "*.pem",
    "*.key",
    "*.p12",
    "*.pfx",
    "id_rsa*",
    "id_dsa*",
    "id_ecdsa*",
    "id_ed25519*",
];

/// The write deny list used unless `--deny-write` says otherwise: files that grant access
/// or run code when someone next logs in, so that a root that is (or holds) a home
/// directory never lets a model give itself a way back in. They can still be read. Matched
/// like `.gitignore` rules, without regard to case (macOS and Windows file systems ignore it).
pub const DEFAULT_DENY_WRITE: &[&str] = &[
    // ssh: authorized keys (wherever AuthorizedKeysFile points), its config (a proxy
    // program), rc.
    ".ssh/",
    "authorized_keys",
    "authorized_keys2",
    // Login shells and the interactive shells a login starts.
    ".profile",
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".bash_logout",
    ".bash_aliases",
    ".zshenv",
    ".zprofile",
    ".zshrc",
    ".zlogin",
    ".zlogout",
    ".cshrc",
    ".tcshrc",
    ".login",
    ".logout",
    ".kshrc",
    ".mkshrc",
    "**/.config/fish/",
    // Graphical sessions, and what systemd and PAM run or set at login.
    ".xprofile",
    ".xinitrc",
    ".xsession",
    ".xsessionrc",
    "**/.config/autostart/",
    "**/.config/plasma-workspace/",
    "**/.config/systemd/",
    "**/.config/environment.d/",
    ".pam_environment",
    // Trust between hosts and users, and mail delivery piped to a program.
    ".rhosts",
    ".shosts",
    ".k5login",
    ".k5users",
    ".forward",
    // GnuPG: trusted keys and the agent's programs.
    ".gnupg/",
];

/// The home directory, from `$HOME`.
pub(crate) fn home() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .map(PathBuf::from)
        .filter(|h| h.is_absolute())
}

/// `~` and `~/…` with the home directory put in; anything else unchanged.
pub fn expand_home(path: &str) -> PathBuf {
    match (path.strip_prefix('~'), home()) {
        (Some(""), Some(home)) => home,
        (Some(rest), Some(home)) if rest.starts_with('/') => home.join(&rest[1..]),
        _ => PathBuf::from(path),
    }
}

/// True for `/` and the home directory: never served unless asked for by name.
pub fn is_too_broad(dir: &Path) -> bool {
    let Ok(dir) = dir.canonicalize() else {
        return false;
    };
    dir.parent().is_none() || home().and_then(|h| h.canonicalize().ok()) == Some(dir)
}

/// The RFC 8089 URI of an absolute path: `file:///home/me/my%20proj/src/main.rs`, every byte
/// outside the unreserved set and `/` percent-encoded.
pub(crate) fn file_uri(path: &Path) -> String {
    let text = path.to_string_lossy();
    let mut uri = String::from("file://");
    for &b in text.as_bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/') {
            uri.push(b as char);
        } else {
            uri.push_str(&format!("%{b:02X}"));
        }
    }
    uri
}

/// The URI of a resolved path: its root as configured, joined with the path as asked (so a
/// link inside the root keeps its own name).
pub(crate) fn uri_of(file: &Resolved) -> String {
    let local = file.rel.strip_prefix(file.sandbox.label()).unwrap_or("");
    file_uri(&file.sandbox.given().join(local))
}

/// The absolute path a `file:` URI names (`file:///p`, `file://localhost/p`); `None` when it is
/// not a `file:` URI, `Err` when it is one this server cannot use.
pub(crate) fn uri_path(uri: &str) -> Option<Result<PathBuf, String>> {
    let rest = uri
        .strip_prefix("file://")
        .or_else(|| uri.strip_prefix("FILE://"))?;
    let rest = rest.strip_prefix("localhost").unwrap_or(rest);
    if !rest.starts_with('/') {
        return Some(Err(
            "file URIs name a local absolute path, such as file:///home/me/project/src/main.rs"
                .into(),
        ));
    }
    if rest.contains(['?', '#']) {
        return Some(Err("file URIs take no query or fragment".into()));
    }
    Some(match crate::percent_decode(rest) {
        None => Err("the URI has a malformed percent-escape or does not decode to UTF-8".into()),
        Some(path) if path.contains('\0') => Err("the URI contains a NUL byte".into()),
        Some(path) => Ok(PathBuf::from(path)),
    })
}

/// An absolute path without `.` components; `None` when it has `..` (refused, never
/// resolved lexically: `..` after a symbolic link means something else on disk).
pub(crate) fn normalize(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::ParentDir => return None,
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    Some(out)
}

/// Gives each of several roots a distinct label (its directory name, then `-2`, `-3`…);
/// a single root keeps none, so its paths stay as short as they always were.
pub(crate) fn labelled(roots: Vec<Sandbox>) -> Vec<Sandbox> {
    if roots.len() < 2 {
        return roots;
    }
    let mut used: Vec<String> = Vec::new();
    roots
        .into_iter()
        .map(|root| {
            let base = root
                .given()
                .file_name()
                .and_then(|n| n.to_str())
                .filter(|n| !n.is_empty() && !n.eq_ignore_ascii_case(".git"))
                .unwrap_or("root")
                .to_string();
            let mut label = base.clone();
            let mut n = 1;
            while used.contains(&label) {
                n += 1;
                label = format!("{base}-{n}");
            }
            used.push(label.clone());
            root.with_label(&label)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_round_trip_with_spaces_and_non_ascii() {
        let path = Path::new("/home/me/my proj/naïve #1%.rs");
        let uri = file_uri(path);
        assert_eq!(uri, "file:///home/me/my%20proj/na%C3%AFve%20%231%25.rs");
        assert_eq!(uri_path(&uri), Some(Ok(path.to_path_buf())));
        assert_eq!(
            uri_path("file://localhost/etc/x"),
            Some(Ok(PathBuf::from("/etc/x")))
        );
        assert!(uri_path("https://x/y").is_none());
        assert!(matches!(uri_path("file://host/x"), Some(Err(_))));
        assert!(matches!(uri_path("file:///a?b"), Some(Err(_))));
        assert!(matches!(uri_path("file:///a%2"), Some(Err(_))));
        assert!(matches!(uri_path("file:///a%00"), Some(Err(_))));
    }

    #[test]
    fn home_is_expanded_and_refused_implicitly() {
        let Some(home) = home() else {
            return;
        };
        assert_eq!(expand_home("~"), home);
        assert_eq!(expand_home("~/src"), home.join("src"));
        assert_eq!(expand_home("~user/src"), PathBuf::from("~user/src"));
        assert_eq!(expand_home("/abs"), PathBuf::from("/abs"));
        assert!(is_too_broad(&home));
        assert!(is_too_broad(Path::new("/")));
        assert!(!is_too_broad(&std::env::temp_dir()));
    }

    #[test]
    fn dot_dot_is_never_normalized_away() {
        assert_eq!(normalize(Path::new("/a/./b/")), Some(PathBuf::from("/a/b")));
        assert_eq!(normalize(Path::new("/a/../etc")), None);
    }
}
