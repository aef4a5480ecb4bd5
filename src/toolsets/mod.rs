//! Ready-made sets of tools, prompts and resources that the `minimcp` binary serves.
//!
//! The default profile serves the toolsets named in [`TOOLSETS`] (all of them unless
//! `--toolsets` picks some: a model works better with only the tools it needs). Each entry
//! names one function `fn(Builder, &Options) -> Builder`; a new toolset is one more entry.

#[cfg(feature = "analysis")]
pub mod analysis;
#[cfg(feature = "conformance")]
pub mod conformance;
#[cfg(feature = "edit")]
pub mod edit;
#[cfg(feature = "templates")]
pub mod templates;
#[cfg(feature = "conformance")]
pub mod transcript;
#[cfg(feature = "workspace")]
pub mod workspace;

#[cfg(feature = "workspace")]
use std::rc::Rc;

use crate::Builder;
#[cfg(feature = "workspace")]
use crate::ConfigError;
#[cfg(feature = "workspace")]
use workspace::Workspace;

/// What the toolsets of the default profile share: the workspace they serve, opened once
/// (its sandbox and bounds are reused by every toolset that reads files). Every toolset of
/// the default profile needs the `workspace` feature, so without it there is no way to
/// open one (and [`TOOLSETS`] is empty).
pub struct Options {
    #[cfg(feature = "workspace")]
    pub(crate) workspace: Rc<Workspace>,
}

#[cfg(feature = "workspace")]
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
    /// Served only when `--toolsets` names it (the edit toolset, which modifies files), never
    /// by default.
    pub opt_in: bool,
}

/// Every toolset of the default profile, in the order they are registered (and so listed).
/// A new toolset is one more entry here.
pub const TOOLSETS: &[Toolset] = &[
    #[cfg(feature = "workspace")]
    Toolset {
        name: "workspace",
        summary: "files as tools, resources and prompts",
        add: workspace::add_toolset,
        opt_in: false,
    },
    #[cfg(feature = "templates")]
    Toolset {
        name: "templates",
        summary: "project file templates and scaffolding",
        add: templates::add,
        opt_in: false,
    },
    #[cfg(feature = "analysis")]
    Toolset {
        name: "analysis",
        summary: "code complexity and git churn",
        add: analysis::add_toolset,
        opt_in: false,
    },
    #[cfg(feature = "edit")]
    Toolset {
        name: "edit",
        summary: "MODIFIES FILES (write, edit, move); off unless named",
        add: edit::add_toolset,
        opt_in: true,
    },
];

/// The toolsets served when `--toolsets` is not given: every one but the opt-in ones.
pub fn default_names() -> Vec<&'static str> {
    TOOLSETS
        .iter()
        .filter(|t| !t.opt_in)
        .map(|t| t.name)
        .collect()
}

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
