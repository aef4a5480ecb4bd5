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

use crate::toolsets::workspace::{Config, Workspace};
use crate::{Arguments, Builder, ConfigError, Context, HandlerError, ToolOutput};

/// Adds `analyze_complexity` and `analyze_code_churn` for the workspace at `root` (an
/// existing, readable directory, canonicalized here), with the default deny list.
pub fn add(builder: Builder, root: &Path) -> Result<Builder, ConfigError> {
    add_with(
        builder,
        &Config {
            roots: vec![root.to_path_buf()],
            ..Config::default()
        },
    )
}

/// Adds the analysis tools for the workspace `config` describes (the same roots, client
/// roots and deny list as the workspace toolset).
pub fn add_with(builder: Builder, config: &Config) -> Result<Builder, ConfigError> {
    let ws = Rc::new(Workspace::configure(config).map_err(ConfigError)?);
    Ok(builder.tool(complexity::tool(&ws)).tool(churn::tool(&ws)))
}

/// Adds the analysis tools to the default profile, over the workspace the other toolsets
/// share (one set of roots, one deny list, one sandbox).
pub fn add_toolset(builder: Builder, options: &super::Options) -> Builder {
    let ws = &options.workspace;
    builder.tool(complexity::tool(ws)).tool(churn::tool(ws))
}

/// A tool handler that needs the workspace.
type Handler = fn(&Workspace, &Arguments, &mut Context<'_>) -> Result<ToolOutput, HandlerError>;

/// Wraps `handler` so that the workspace's roots are brought up to date first.
fn with_roots(
    ws: &Rc<Workspace>,
    handler: Handler,
) -> impl Fn(&Arguments, &mut Context<'_>) -> Result<ToolOutput, HandlerError> + 'static {
    let ws = Rc::clone(ws);
    move |args: &Arguments, ctx: &mut Context<'_>| {
        ws.enter(ctx)?;
        handler(&ws, args, ctx)
    }
}
