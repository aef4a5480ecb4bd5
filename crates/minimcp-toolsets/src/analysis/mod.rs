//! The analysis toolset: per-function complexity metrics for Rust, Python, JavaScript,
//! TypeScript and Go (`analyze_complexity`) and change history from git
//! (`analyze_code_churn`), inside the workspace only.
//!
//! The pipeline for one file: `lexer` (comments and every string form dropped or kept
//! whole) → `functions` (where each function starts and ends, which tokens it owns) →
//! `cyclomatic`, `cognitive`/`cognitive_py`, `halstead` → `measure`.

mod bytes;
mod cognitive;
mod cognitive_py;
mod cognitive_rb;
mod cyclomatic;
mod decisions;
mod functions;
mod halstead;
mod keywords;
mod lang;
mod lexer;
mod measure;
mod named;

pub mod batch;
pub mod exempt;
pub mod limits;

mod cache;
mod churn;
mod complexity;
mod diff;
mod git;
mod report;
mod rows;
mod scope;

use minimcp::Builder;

/// Adds the analysis tools to the default profile, over the workspace the other toolsets
/// share (one set of roots, one deny list, one sandbox).
pub fn add(builder: Builder, options: &super::Options) -> Builder {
    let ws = &options.workspace;
    // One cache of analyses for both tools: churn's hotspots reuse them.
    let analyses = std::rc::Rc::new(complexity::Analyses::default());
    builder
        .tool(complexity::tool(ws, &analyses))
        .tool(churn::tool(ws, &analyses))
}
