//! `.minimcp.toml`, the settings of `minimcp analyze` kept in the repository: limits,
//! excludes and per-path overrides, in the `[analyze]` table. It is read from the root of
//! the repository holding the working directory (the nearest directory above it with a
//! `.git`; the working directory itself outside a repository), or from `--config FILE`.
//! Flags win over it: `--max-cyclomatic` and `--max-cognitive` replace its limit for their
//! metric everywhere, overrides included; `--exclude` adds to its excludes. Every mistake is an error that names the
//! file, the line and the key.
//!
//! ```toml
//! [analyze]
//! max-cyclomatic = 15
//! max-cognitive = 20
//! exclude = ["vendor/**", "*_pb2.py"]
//!
//! [[analyze.override]]          # the last override that matches a file wins
//! paths = ["src/generated/**"]  # globs as `exclude` takes them, from the file's directory
//! max-cyclomatic = 40
//! ```

use std::path::{Path, PathBuf};

use minimcp_toolsets::analysis::batch::Globs;

use super::toml::{self, Item, Table, Value};

/// The file's name.
pub(crate) const FILE_NAME: &str = ".minimcp.toml";

/// The largest limit accepted.
const MAX_LIMIT: i64 = 100_000;

/// The limits of a scope: `None` where none is set.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Limits {
    pub(crate) cyclomatic: Option<u32>,
    pub(crate) cognitive: Option<u32>,
}

impl Limits {
    pub(crate) fn any(&self) -> bool {
        self.cyclomatic.is_some() || self.cognitive.is_some()
    }
}

/// One `[[analyze.override]]`.
#[derive(Debug, Clone)]
pub(crate) struct Override {
    globs: Globs,
    pub(crate) limits: Limits,
}

/// What the file says (all empty without a file).
#[derive(Debug, Clone, Default)]
pub(crate) struct Config {
    /// The file read, as shown in messages.
    pub(crate) file: Option<String>,
    /// The directory override paths are relative to.
    pub(crate) dir: PathBuf,
    pub(crate) limits: Limits,
    pub(crate) exclude: Vec<String>,
    pub(crate) overrides: Vec<Override>,
}

impl Config {
    /// The limits for the file at `path` (absolute): the top-level ones, each replaced by
    /// the last override that matches and sets it.
    pub(crate) fn limits_for(&self, path: &Path) -> Limits {
        let mut limits = self.limits;
        if self.overrides.is_empty() {
            return limits;
        }
        let Ok(rel) = path.strip_prefix(&self.dir) else {
            return limits;
        };
        let rel: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        let rel = rel.join("/");
        for o in &self.overrides {
            if o.globs.matches(&rel) {
                limits.cyclomatic = o.limits.cyclomatic.or(limits.cyclomatic);
                limits.cognitive = o.limits.cognitive.or(limits.cognitive);
            }
        }
        limits
    }
}

/// Reads the configuration for a run in `cwd`: `explicit` (`--config`) or the repository's
/// `.minimcp.toml`, if there is one.
pub(crate) fn load(cwd: &Path, explicit: Option<&Path>) -> Result<Config, String> {
    let (path, dir) = match explicit {
        Some(path) => {
            let full = cwd.join(path);
            let dir = full
                .parent()
                .map_or_else(|| cwd.to_path_buf(), Path::to_path_buf);
            (full, dir)
        }
        None => {
            let dir = cwd
                .ancestors()
                .find(|d| d.join(".git").symlink_metadata().is_ok())
                .unwrap_or(cwd)
                .to_path_buf();
            let path = dir.join(FILE_NAME);
            if !path.exists() {
                return Ok(Config {
                    dir,
                    ..Config::default()
                });
            }
            (path, dir)
        }
    };
    let shown = match explicit {
        Some(p) => p.display().to_string(),
        // The repository's root is the working directory or above it.
        None => match cwd.strip_prefix(&dir) {
            Ok(below) => "../".repeat(below.components().count()) + FILE_NAME,
            Err(_) => path.display().to_string(),
        },
    };
    let text = std::fs::read_to_string(&path).map_err(|e| format!("cannot read {shown}: {e}"))?;
    let mut config = read(&text).map_err(|e| format!("{shown}:{e}"))?;
    config.file = Some(shown);
    config.dir = dir;
    Ok(config)
}

/// A mistake on a line: `LINE: message`.
fn at(line: u32, message: String) -> String {
    format!("{line}: {message}")
}

/// Reads the text of a configuration file.
pub(crate) fn read(text: &str) -> Result<Config, String> {
    let root = toml::parse(text).map_err(|e| at(e.line, e.message))?;
    let mut config = Config::default();
    for (key, item) in &root.entries {
        match (key.as_str(), &item.value) {
            ("analyze", Value::Table(table)) => analyze(table, &mut config)?,
            ("analyze", _) => {
                return Err(at(item.line, "`analyze` must be a table: [analyze]".into()))
            }
            (other, _) => {
                return Err(at(
                    item.line,
                    format!("unknown section `{other}`: the settings go in [analyze]"),
                ))
            }
        }
    }
    Ok(config)
}

fn analyze(table: &Table, config: &mut Config) -> Result<(), String> {
    for (key, item) in &table.entries {
        match key.as_str() {
            "max-cyclomatic" => config.limits.cyclomatic = Some(limit(key, item)?),
            "max-cognitive" => config.limits.cognitive = Some(limit(key, item)?),
            "exclude" => config.exclude = globs(key, item)?.0,
            "override" => {
                let Value::Tables(list) = &item.value else {
                    return Err(at(
                        item.line,
                        "`override` is a list of tables: write each as [[analyze.override]]".into(),
                    ));
                };
                for table in list {
                    config.overrides.push(override_of(table, item.line)?);
                }
            }
            other => {
                return Err(at(
                    item.line,
                    unknown(
                        other,
                        &["max-cyclomatic", "max-cognitive", "exclude", "override"],
                        "[analyze]",
                    ),
                ))
            }
        }
    }
    Ok(())
}

fn override_of(table: &Table, header: u32) -> Result<Override, String> {
    let mut limits = Limits::default();
    let mut paths = None;
    for (key, item) in &table.entries {
        match key.as_str() {
            "max-cyclomatic" => limits.cyclomatic = Some(limit(key, item)?),
            "max-cognitive" => limits.cognitive = Some(limit(key, item)?),
            "paths" => paths = Some(globs(key, item)?),
            other => {
                return Err(at(
                    item.line,
                    unknown(
                        other,
                        &["paths", "max-cyclomatic", "max-cognitive"],
                        "[[analyze.override]]",
                    ),
                ))
            }
        }
    }
    let Some((patterns, globs)) = paths else {
        return Err(at(
            header,
            "an [[analyze.override]] needs `paths = [\"glob\", …]`".into(),
        ));
    };
    if patterns.is_empty() {
        return Err(at(header, "`paths` of an override lists no glob".into()));
    }
    if !limits.any() {
        return Err(at(
            header,
            "an override sets no limit: add max-cyclomatic or max-cognitive".into(),
        ));
    }
    Ok(Override { globs, limits })
}

fn unknown(key: &str, known: &[&str], table: &str) -> String {
    let hint = known
        .iter()
        .find(|k| k.replace('-', "_") == key.replace('-', "_").to_ascii_lowercase())
        .map(|k| format!(" (did you mean `{k}`?)"))
        .unwrap_or_default();
    format!(
        "unknown key `{key}` in {table}{hint}; known: {}",
        known.join(", ")
    )
}

fn limit(key: &str, item: &Item) -> Result<u32, String> {
    match item.value {
        Value::Int(n) if (1..=MAX_LIMIT).contains(&n) => Ok(n as u32),
        Value::Int(n) => Err(at(
            item.line,
            format!("`{key}` must be from 1 to {MAX_LIMIT}, not {n}"),
        )),
        ref other => Err(at(
            item.line,
            format!("`{key}` must be a whole number, not {}", kind(other)),
        )),
    }
}

fn globs(key: &str, item: &Item) -> Result<(Vec<String>, Globs), String> {
    let Value::Array(items) = &item.value else {
        return Err(at(
            item.line,
            format!("`{key}` must be a list of globs: {key} = [\"vendor/**\"]"),
        ));
    };
    let mut patterns = Vec::new();
    for entry in items {
        match &entry.value {
            Value::Str(s) if !s.is_empty() => patterns.push(s.clone()),
            other => {
                return Err(at(
                    entry.line,
                    format!(
                        "`{key}` lists {}: each entry must be a non-empty \"glob\"",
                        kind(other)
                    ),
                ))
            }
        }
    }
    let globs = Globs::new(&patterns).map_err(|e| at(item.line, format!("`{key}`: {e}")))?;
    Ok((patterns, globs))
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Str(s) if s.is_empty() => "an empty string",
        Value::Str(_) => "a string",
        Value::Int(_) => "a number",
        Value::Bool(_) => "a boolean",
        Value::Array(_) => "a list",
        Value::Table(_) | Value::Tables(_) => "a table",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_file_and_its_overrides() {
        let config = read(
            "# settings\n[analyze]\nmax-cyclomatic = 15\nmax-cognitive = 20\nexclude = [\"vendor/**\", '*_pb2.py']\n\n[[analyze.override]]\npaths = [\"src/gen/**\"]\nmax-cyclomatic = 40\n\n[[analyze.override]]\npaths = [\"tests\"]\nmax-cognitive = 30\n",
        )
        .expect("valid");
        assert_eq!(config.exclude, ["vendor/**", "*_pb2.py"]);
        let config = Config {
            dir: PathBuf::from("/repo"),
            ..config
        };
        let at = |p: &str| config.limits_for(Path::new(p));
        assert_eq!(
            at("/repo/src/a.rs"),
            Limits {
                cyclomatic: Some(15),
                cognitive: Some(20)
            }
        );
        assert_eq!(
            at("/repo/src/gen/x/t.rs"),
            Limits {
                cyclomatic: Some(40),
                cognitive: Some(20)
            }
        );
        assert_eq!(
            at("/repo/a/tests/t.py"),
            Limits {
                cyclomatic: Some(15),
                cognitive: Some(30)
            }
        );
        assert_eq!(at("/elsewhere/src/gen/t.rs").cyclomatic, Some(15));
    }

    #[test]
    fn every_mistake_names_its_line_and_key() {
        for (text, want) in [
            (
                "[analyze]\nmax_cyclomatic = 3\n",
                "2: unknown key `max_cyclomatic` in [analyze] (did you mean `max-cyclomatic`?)",
            ),
            (
                "[analyze]\nmax-cognitive = \"15\"\n",
                "2: `max-cognitive` must be a whole number, not a string",
            ),
            (
                "[analyze]\n\nmax-cyclomatic = 0\n",
                "3: `max-cyclomatic` must be from 1 to 100000, not 0",
            ),
            ("[analyse]\n", "1: unknown section `analyse`"),
            (
                "[analyze]\nexclude = \"vendor\"\n",
                "2: `exclude` must be a list of globs",
            ),
            (
                "[analyze]\nexclude = [\n  \"a\",\n  3,\n]\n",
                "4: `exclude` lists a number",
            ),
            ("[analyze]\nexclude = [\"[\"]\n", "2: `exclude`: \"[\""),
            (
                "[analyze]\n[[analyze.override]]\nmax-cyclomatic = 4\n",
                "2: an [[analyze.override]] needs `paths",
            ),
            (
                "[analyze]\n[[analyze.override]]\npaths = [\"x\"]\n",
                "2: an override sets no limit",
            ),
            (
                "[analyze]\n[[analyze.override]]\npaths = [\"x\"]\nmax = 3\n",
                "4: unknown key `max` in [[analyze.override]]",
            ),
            (
                "[analyze]\noverride = 3\n",
                "2: `override` is a list of tables",
            ),
            (
                "[analyze]\nmax-cyclomatic = 1.5\n",
                "2: `1.5`: only whole decimal numbers",
            ),
            (
                "[analyze]\nmax-cyclomatic = 3\nmax-cyclomatic = 4\n",
                "3: `max-cyclomatic` is defined twice",
            ),
        ] {
            let err = read(text).expect_err(text);
            assert!(
                err.starts_with(want),
                "{text:?}:\n  got  {err}\n  want {want}"
            );
        }
    }
}
