//! The analysis toolset: per-function complexity metrics for Rust, Python, JavaScript,
//! TypeScript and Go (`analyze_complexity`) and change history from git
//! (`analyze_code_churn`), inside the workspace only.
//!
//! The pipeline for one file: `lexer` (comments and every string form dropped or kept
//! whole) → `functions` (where each function starts and ends, which tokens it owns) →
//! `cyclomatic`, `cognitive`/`cognitive_py`, `halstead` → `measure`.

mod cognitive;
mod cognitive_py;
mod cyclomatic;
mod functions;
mod halstead;
mod lang;
mod lexer;
mod measure;

pub mod limits;

mod churn;
mod complexity;
mod git;
mod report;

use std::path::Path;
use std::rc::Rc;

use crate::toolsets::workspace::Workspace;
use crate::{Builder, ConfigError};

/// Adds `analyze_complexity` and `analyze_code_churn` for the workspace at `root` (an
/// existing, readable directory, canonicalized here).
pub fn add(builder: Builder, root: &Path) -> Result<Builder, ConfigError> {
    let ws = Rc::new(Workspace::open(root).map_err(ConfigError)?);
    Ok(builder.tool(complexity::tool(&ws)).tool(churn::tool(&ws)))
}
