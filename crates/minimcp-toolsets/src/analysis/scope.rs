//! What one analysis covers: `project_path` or `paths` (files or directories, each resolved
//! through the workspace sandbox: roots, deny list, no `..`) and the `exclude` globs.
//!
//! An exclude pattern without `/` matches the name of any component of a path (`tests`
//! leaves out every `tests` directory, `*_pb2.py` every generated protobuf module); one
//! with `/` matches the whole path as results show it (`vendor/**`, `src/gen/*.rs`).

use serde_json::Value;

use super::cache::AnalysisKey;
use super::lang::Lang;
use super::limits::{MAX_EXCLUDES, MAX_PATHS};
use crate::workspace::glob::{Dialect, Glob};
use crate::workspace::sandbox::{PathError, Resolved};
use crate::workspace::Workspace;
use minimcp::{Arguments, HandlerError};

/// The resolved paths and exclude patterns of one call.
pub(crate) struct Scope {
    /// Files and directories to analyze, in the order given (with several roots, `.` is
    /// every root).
    pub(crate) targets: Vec<Resolved>,
    /// The exclude patterns as given (for the cache key).
    pub(crate) patterns: Vec<String>,
    globs: Globs,
}

/// Globs as `exclude` takes them: one without `/` matches the name of any component of a
/// path, one with `/` the whole path.
#[derive(Debug, Clone, Default)]
pub struct Globs {
    by_name: Vec<Glob>,
    by_path: Vec<Glob>,
}

impl Globs {
    /// Compiles `patterns`; the error names the pattern and what is wrong with it.
    pub fn new(patterns: &[String]) -> Result<Globs, String> {
        let mut globs = Globs::default();
        for pattern in patterns {
            let trimmed = pattern.trim_end_matches('/');
            let glob =
                Glob::new(trimmed, Dialect::Search).map_err(|e| format!("{pattern:?}: {e}"))?;
            if trimmed.contains('/') {
                globs.by_path.push(glob);
            } else {
                globs.by_name.push(glob);
            }
        }
        Ok(globs)
    }

    /// True when one of the globs matches `rel` (a relative path with `/` separators).
    pub fn matches(&self, rel: &str) -> bool {
        self.by_path.iter().any(|g| g.matches(rel))
            || (!self.by_name.is_empty()
                && rel
                    .split('/')
                    .filter(|c| !c.is_empty())
                    .any(|c| self.by_name.iter().any(|g| g.matches(c))))
    }
}

/// The schema of `paths`, shared by both tools.
pub(crate) fn paths_schema(what: &str) -> Value {
    serde_json::json!({
        "type": "array", "minItems": 1, "maxItems": MAX_PATHS,
        "items": {"type": "string"},
        "description": format!("Instead of project_path ({what})."),
    })
}

/// The schema of `exclude`, shared by both tools.
pub(crate) fn exclude_schema() -> Value {
    serde_json::json!({
        "type": "array", "maxItems": MAX_EXCLUDES,
        "items": {"type": "string", "minLength": 1},
        "description": "Globs to leave out: by name (\"tests\"), or with `/` by path (\"vendor/**\").",
    })
}

fn strings(args: &Arguments, name: &str, max: usize) -> Result<Option<Vec<String>>, HandlerError> {
    match args.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Array(items)) if items.len() <= max => items
            .iter()
            .map(|v| {
                v.as_str().map(str::to_string).ok_or_else(|| {
                    HandlerError::Invalid(format!("`{name}` must be an array of strings"))
                })
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Some),
        Some(Value::Array(_)) => Err(HandlerError::Invalid(format!(
            "`{name}` takes at most {max} entries"
        ))),
        Some(_) => Err(HandlerError::Invalid(format!(
            "`{name}` must be an array of strings"
        ))),
    }
}

impl Scope {
    /// Reads `project_path`, `paths` and `exclude` and resolves every path.
    pub(crate) fn from_args(ws: &Workspace, args: &Arguments) -> Result<Scope, HandlerError> {
        let project = args.str("project_path").unwrap_or(".");
        let inputs = match strings(args, "paths", MAX_PATHS)? {
            None => vec![project.to_string()],
            Some(_) if !matches!(project, "." | "") => {
                return Err(HandlerError::Invalid(
                    "give either `project_path` (one path) or `paths` (a list), not both".into(),
                ))
            }
            Some(list) if list.is_empty() => {
                return Err(HandlerError::Invalid(
                    "`paths` must list at least one file or directory".into(),
                ))
            }
            Some(list) => list,
        };
        let mut targets: Vec<Resolved> = Vec::new();
        for input in &inputs {
            for found in ws.starts(input)? {
                if !found.meta.is_dir() && !found.meta.is_file() {
                    return Err(PathError::Special(found.rel).into());
                }
                // The same path twice is analyzed once.
                if !targets
                    .iter()
                    .any(|t| t.real == found.real && t.rel == found.rel)
                {
                    targets.push(found);
                }
            }
        }
        let patterns = strings(args, "exclude", MAX_EXCLUDES)?.unwrap_or_default();
        let globs =
            Globs::new(&patterns).map_err(|e| HandlerError::Invalid(format!("`exclude` {e}")))?;
        Ok(Scope {
            targets,
            patterns,
            globs,
        })
    }

    /// What identifies this scope's analysis in the cache.
    pub(crate) fn key(&self, only: Option<Lang>) -> AnalysisKey {
        AnalysisKey {
            targets: self
                .targets
                .iter()
                .map(|t| {
                    (
                        t.sandbox.root().to_path_buf(),
                        t.real.clone(),
                        t.rel.as_str().to_string(),
                    )
                })
                .collect(),
            only,
            exclude: self.patterns.clone(),
        }
    }

    /// True when the path `rel` (as results show it) is excluded.
    pub(crate) fn excluded(&self, rel: &str) -> bool {
        self.globs.matches(rel)
    }

    /// How the result names what was analyzed: the one path, or the paths joined.
    pub(crate) fn shown(&self) -> String {
        let names: Vec<String> = self
            .targets
            .iter()
            .map(|t| match t.rel.as_str() {
                "" => ".".to_string(),
                rel => rel.to_string(),
            })
            .collect();
        names.join(", ")
    }
}
