//! Ready-made sets of tools, prompts and resources that the `minimcp` binary serves.
//!
//! The default profile serves the toolsets named in [`TOOLSETS`] (all of them unless
//! `--toolsets` picks some: a model works better with only the tools it needs). Each entry
//! names one function `fn(Builder, &Options) -> Builder`; a new toolset is one more entry.

pub mod analysis;
pub mod conformance;
pub mod templates;
pub mod transcript;
pub mod workspace;

use std::rc::Rc;

use crate::{Builder, ConfigError};
use workspace::Workspace;

/// What the toolsets of the default profile share: the workspace they serve, opened once
/// (its sandbox and bounds are reused by every toolset that reads files).
pub struct Options {
    pub(crate) workspace: Rc<Workspace>,
}

impl Options {
    /// Opens the workspace `config` describes (its roots must be existing, readable
    /// directories).
    pub fn new(config: &workspace::Config) -> Result<Options, ConfigError> {
        Ok(Options {
            workspace: Rc::new(Workspace::configure(config).map_err(ConfigError)?),
        })
    }
}

/// Adds one toolset to a builder.
pub type AddFn = fn(Builder, &Options) -> Builder;

/// A toolset of the default profile.
pub struct Toolset {
    /// The name `--toolsets` takes.
    pub name: &'static str,
    /// What it serves, for `--help`.
    pub summary: &'static str,
    /// Adds it.
    pub add: AddFn,
}

/// Every toolset of the default profile, in the order they are registered (and so listed).
/// A new toolset is one more entry here.
pub const TOOLSETS: &[Toolset] = &[
    Toolset {
        name: "workspace",
        summary: "files as tools, resources and prompts",
        add: workspace::add_toolset,
    },
    Toolset {
        name: "templates",
        summary: "project file templates and scaffolding",
        add: templates::add,
    },
    Toolset {
        name: "analysis",
        summary: "code complexity and git churn",
        add: analysis::add_toolset,
    },
];

/// Adds the toolsets named in `names` (each must be in [`TOOLSETS`]), in [`TOOLSETS`] order
/// whatever the order of `names`, so listings do not depend on how the flag was spelled.
pub fn add_named(mut builder: Builder, names: &[&str], options: &Options) -> Builder {
    for toolset in TOOLSETS {
        if names.contains(&toolset.name) {
            builder = (toolset.add)(builder, options);
        }
    }
    builder
}
