//! Ready-made sets of tools, prompts and resources that the `minimcp` binary serves.
//!
//! The default profile serves the toolsets named in [`TOOLSETS`] (all of them unless
//! `--toolsets` picks some: a model works better with only the tools it needs). Each entry
//! is one function `fn(Builder, &Options) -> Builder`; a new toolset is one more line there.

pub mod conformance;
pub mod templates;
pub mod transcript;
pub mod workspace;

use std::path::Path;
use std::rc::Rc;

use crate::{Builder, ConfigError};
use workspace::Workspace;

/// What the toolsets of the default profile share: the workspace they serve, opened once
/// (its sandbox and bounds are reused by every toolset that reads files).
pub struct Options {
    pub(crate) workspace: Rc<Workspace>,
}

impl Options {
    /// Opens the workspace at `root`, which must be an existing, readable directory.
    pub fn new(root: &Path) -> Result<Options, ConfigError> {
        Ok(Options {
            workspace: Rc::new(Workspace::open(root).map_err(ConfigError)?),
        })
    }
}

/// Adds one toolset to a builder.
pub type AddFn = fn(Builder, &Options) -> Builder;

/// Every toolset of the default profile, by the name `--toolsets` takes, in the order they
/// are registered (and so listed).
pub const TOOLSETS: &[(&str, AddFn)] = &[
    ("workspace", workspace::add_toolset),
    ("templates", templates::add),
];

/// Adds the toolsets named in `names` (each must be in [`TOOLSETS`]), in [`TOOLSETS`] order
/// whatever the order of `names`, so listings do not depend on how the flag was spelled.
pub fn add_named(mut builder: Builder, names: &[&str], options: &Options) -> Builder {
    for (name, add) in TOOLSETS {
        if names.contains(name) {
            builder = add(builder, options);
        }
    }
    builder
}
