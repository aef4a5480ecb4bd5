//! The analysis toolset: per-function complexity metrics for Rust, Python, JavaScript,
//! TypeScript and Go (`analyze_complexity`) and change history from git
//! (`analyze_code_churn`), inside the workspace only.
//!
//! The pipeline for one file: [`lexer`] (comments and every string form dropped or kept
//! whole) → [`functions`] (where each function starts and ends, which tokens it owns) →
//! [`cyclomatic`], [`cognitive`]/[`cognitive_py`], [`halstead`] → [`measure`].

mod cognitive;
mod cognitive_py;
mod cyclomatic;
mod functions;
mod halstead;
mod lang;
mod lexer;
mod measure;
