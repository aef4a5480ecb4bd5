//! The paths a person names on the command line (`minimcp analyze PATH...`), each with the
//! root it is read from. A command line is the person's own: any path they name is read,
//! inside the working directory or not (the MCP tools, which a model drives, stay confined
//! to their roots). A path inside the working directory is read with it as the root, as
//! before; one outside it gets a root of its own (the repository holding it, so that its
//! `.gitignore` files apply, or the directory itself outside a repository), and reports
//! name its files as the person spelled the path (`../other/src/a.py`).

use std::path::{Path, PathBuf};

/// One root and the paths to read below it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Group {
    pub(crate) root: PathBuf,
    /// Paths relative to `root` (empty: `root` itself).
    pub(crate) paths: Vec<String>,
    /// For a path outside the working directory: its path below `root` and the person's
    /// spelling of it, which replaces that prefix in reports.
    pub(crate) shown: Option<(String, String)>,
}

impl Group {
    /// How reports name the file at `rel` (relative to this group's root).
    pub(crate) fn show(&self, rel: &str) -> String {
        let Some((prefix, spelling)) = &self.shown else {
            return rel.to_string();
        };
        let rest = rel.strip_prefix(prefix.as_str()).unwrap_or(rel);
        let rest = rest.trim_start_matches('/');
        let spelling = match spelling.trim_end_matches('/') {
            "" => "/",
            s => s,
        };
        match (rest.is_empty(), spelling.ends_with('/')) {
            (true, _) => spelling.to_string(),
            (false, true) => format!("{spelling}{rest}"),
            (false, false) => format!("{spelling}/{rest}"),
        }
    }
}

/// Splits `paths` (relative to `cwd` or absolute) into groups: the first reads below `cwd`
/// (every path inside it, or `cwd` itself when `paths` is empty), then one per path outside.
/// The error names a path that does not exist.
pub(crate) fn groups(cwd: &Path, paths: &[String]) -> Result<Vec<Group>, String> {
    let home = Group {
        root: cwd.to_path_buf(),
        paths: Vec::new(),
        shown: None,
    };
    if paths.is_empty() {
        return Ok(vec![home]);
    }
    let canonical_cwd = cwd.canonicalize().unwrap_or_else(|_| cwd.to_path_buf());
    let mut out = vec![home];
    for input in paths {
        let given = Path::new(input);
        let full = if given.is_absolute() {
            given.to_path_buf()
        } else {
            cwd.join(given)
        };
        let real = full
            .canonicalize()
            .map_err(|e| format!("cannot read {input}: {e}"))?;
        if let Ok(below) = real.strip_prefix(&canonical_cwd) {
            // Inside: as given when the sandbox reads it as is (no `..`, not absolute),
            // else the canonical path below the working directory.
            let plain = !given.is_absolute()
                && given
                    .components()
                    .all(|c| matches!(c, std::path::Component::Normal(_)));
            let rel = if plain { input.clone() } else { slashed(below) };
            out[0]
                .paths
                .push(if rel.is_empty() { ".".into() } else { rel });
            continue;
        }
        let dir = if real.is_dir() {
            real.clone()
        } else {
            real.parent()
                .map_or_else(|| real.clone(), Path::to_path_buf)
        };
        let root = repository_of(&dir).unwrap_or(dir);
        let below = slashed(real.strip_prefix(&root).unwrap_or(Path::new("")));
        out.push(Group {
            root,
            paths: vec![if below.is_empty() {
                ".".into()
            } else {
                below.clone()
            }],
            shown: Some((below, input.clone())),
        });
    }
    if out[0].paths.is_empty() {
        out.remove(0);
    }
    Ok(out)
}

/// The directory holding `.git` at or above `dir`, if any.
fn repository_of(dir: &Path) -> Option<PathBuf> {
    dir.ancestors()
        .find(|d| d.join(".git").symlink_metadata().is_ok())
        .map(Path::to_path_buf)
}

/// A relative path with `/` separators.
fn slashed(path: &Path) -> String {
    path.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outside_paths_get_a_root_and_keep_their_spelling() {
        let base = std::env::temp_dir().join(format!("minimcp-named-{}", std::process::id()));
        let (me, other) = (base.join("me"), base.join("other"));
        std::fs::create_dir_all(me.join("src")).unwrap();
        std::fs::create_dir_all(other.join(".git")).unwrap();
        std::fs::create_dir_all(other.join("lib/deep")).unwrap();
        std::fs::write(other.join("lib/deep/x.py"), "").unwrap();
        let inputs = [
            "src".to_string(),
            "../other/lib".to_string(),
            "src/../src".to_string(),
            other.join("lib/deep/x.py").to_string_lossy().into_owned(),
        ];
        let groups = groups(&me, &inputs).unwrap();
        let real_other = other.canonicalize().unwrap();
        assert_eq!(groups[0].paths, ["src", "src"]);
        assert_eq!(groups[1].root, real_other);
        assert_eq!(groups[1].paths, ["lib"]);
        assert_eq!(groups[1].show("lib/deep/x.py"), "../other/lib/deep/x.py");
        assert_eq!(groups[2].paths, ["lib/deep/x.py"]);
        assert_eq!(groups[2].show("lib/deep/x.py"), inputs[3]);
        let err = super::groups(&me, &["nowhere".into()]).unwrap_err();
        assert!(err.starts_with("cannot read nowhere"), "{err}");
        // Only outside paths: no group for the working directory.
        assert_eq!(super::groups(&me, &["..".into()]).unwrap().len(), 1);
        std::fs::remove_dir_all(&base).unwrap();
    }
}
