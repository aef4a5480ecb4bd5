//! Which directories are the workspace, and how the ways clients name files map onto them:
//! `~` expansion, absolute paths, RFC 8089 `file://` URIs, and labels for several roots.
//!
//! Roots come from `--root` (fixed), else from the client's `roots/list`, else from a
//! fallback directory (the working directory) — but never `/` or the home directory
//! implicitly: Claude Desktop and Cline start servers there, and serving it would expose
//! every file of the machine or of the user.

use std::path::{Path, PathBuf};

use super::names::{path_to_uri, uri_to_path, Flavor};
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

/// The home directory: `$HOME`, or on Windows `%USERPROFILE%` when `$HOME` is not set.
pub(crate) fn home() -> Option<PathBuf> {
    let var = std::env::var_os("HOME").map(PathBuf::from);
    // A `$HOME` of `/home/me` is rooted on the current drive there (MSYS, Wine).
    #[cfg(windows)]
    let var = var
        .or_else(|| std::env::var_os("USERPROFILE").map(PathBuf::from))
        .and_then(|h| std::path::absolute(h).ok());
    var.filter(|h| h.is_absolute())
}

/// `~` and `~/…` with the home directory put in; anything else unchanged.
pub fn expand_home(path: &str) -> PathBuf {
    match (path.strip_prefix('~'), home()) {
        (Some(""), Some(home)) => home,
        (Some(rest), Some(home)) if rest.starts_with(|c| Flavor::NATIVE.is_separator(c)) => {
            home.join(&rest[1..])
        }
        _ => PathBuf::from(path),
    }
}

/// The absolute path a client's `input` spells, when it spells one: itself, or `~` and
/// `~/…` with the home directory put in (without a home, they stay as typed and are found
/// inside no root).
pub(crate) fn absolute_text(input: &str) -> Option<String> {
    if let Some(rest) = input.strip_prefix('~') {
        if !rest.is_empty() && !rest.starts_with(|c| Flavor::NATIVE.is_separator(c)) {
            return None;
        }
        let home = home().and_then(|h| h.to_str().map(str::to_string));
        return Some(home.map_or_else(|| input.to_string(), |h| format!("{h}{rest}")));
    }
    Flavor::NATIVE.is_absolute(input).then(|| input.to_string())
}

/// True for `/` (a drive's root on Windows), the home directory and, on Windows, the
/// Windows directory and everything in it (`C:\\Windows\\System32` is where a program started
/// by a service or a desktop shortcut often finds itself): never served unless asked for by
/// name.
pub fn is_too_broad(dir: &Path) -> bool {
    let Ok(dir) = dir.canonicalize() else {
        return false;
    };
    let system = std::env::var_os("SystemRoot")
        .filter(|_| cfg!(windows))
        .and_then(|w| Path::new(&w).canonicalize().ok());
    dir.parent().is_none()
        || home().and_then(|h| h.canonicalize().ok()) == Some(dir.clone())
        || system.is_some_and(|w| dir.starts_with(w))
}

/// The RFC 8089 URI of an absolute path: `file:///home/me/my%20proj/src/main.rs`
/// (`file:///C:/Users/me/proj/src/main.rs` on Windows), every byte outside the unreserved
/// set and `/` percent-encoded.
pub(crate) fn file_uri(path: &Path) -> String {
    path_to_uri(&path.to_string_lossy(), Flavor::NATIVE)
}

/// The URI of a resolved path: its root as configured, joined with the path as asked (so a
/// link inside the root keeps its own name).
pub(crate) fn uri_of(file: &Resolved) -> String {
    let local = file.rel.strip_prefix(file.sandbox.label()).unwrap_or("");
    file_uri(&file.sandbox.given().join(local))
}

/// The absolute path a `file:` URI names (`file:///p`, `file://localhost/p`, `file:/p`; on
/// Windows also `file:///C:/p`, `file://server/share/p` and the other forms of RFC 8089's
/// Appendix E); `None` when it is not a `file:` URI, `Err` when it is one this server
/// cannot use.
pub(crate) fn uri_path(uri: &str) -> Option<Result<String, String>> {
    uri_to_path(uri, Flavor::NATIVE).map(|r| r.map_err(str::to_string))
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
        assert_eq!(
            uri_path(&uri),
            Some(Ok(path.to_str().expect("utf-8").to_string()))
        );
        assert!(uri_path("https://x/y").is_none());
        assert!(matches!(uri_path("file:///a?b"), Some(Err(_))));
    }

    #[cfg(unix)]
    #[test]
    fn absolute_spellings_are_found_and_relative_ones_left_alone() {
        assert_eq!(absolute_text("/etc/x"), Some("/etc/x".into()));
        assert_eq!(absolute_text("src/x"), None);
        assert_eq!(absolute_text("~user/x"), None);
        if let Some(home) = home().and_then(|h| h.to_str().map(str::to_string)) {
            assert_eq!(absolute_text("~/x"), Some(format!("{home}/x")));
            assert_eq!(absolute_text("~"), Some(home));
        }
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
}
