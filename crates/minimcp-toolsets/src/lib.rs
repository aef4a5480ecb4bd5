//! # minimcp-toolsets
//!
//! Ready-made sets of tools, prompts and resources that the `minimcp` binary serves, built
//! only on the `minimcp` library's public API. Each toolset is a Cargo feature of this crate;
//! each toolset of the default profile is one function `add(Builder, &Options) -> Builder`,
//! and the binary picks them by name (`--toolsets`, in its `src/cli/registry.rs`).

#![forbid(unsafe_code)]
#![deny(missing_docs)]

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

#[cfg(feature = "workspace")]
use minimcp::ConfigError;
#[cfg(feature = "workspace")]
use workspace::Workspace;

/// What the toolsets of the default profile share: the workspace they serve, opened once
/// (its sandbox and bounds are reused by every toolset that reads files). Every toolset of
/// the default profile needs the `workspace` feature, so without it there is no way to
/// open one.
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
