//! The toolsets of the default profile by name: what `--toolsets` takes, `--help` lists and
//! the server is built from. Only the binary chooses toolsets by name, so the registry is
//! here; each toolset's `add` is the library's (`minimcp_toolsets::NAME::add`, in the crate `minimcp-toolsets`).

#[cfg(feature = "workspace")]
use minimcp::Builder;
#[cfg(feature = "workspace")]
use minimcp_toolsets::Options;

/// A toolset of the default profile.
pub(crate) struct Toolset {
    /// The name `--toolsets` takes.
    pub(crate) name: &'static str,
    /// What it serves, for `--help`.
    pub(crate) summary: &'static str,
    /// Adds it.
    #[cfg(feature = "workspace")]
    pub(crate) add: fn(Builder, &Options) -> Builder,
    /// Served only when `--toolsets` names it (the edit toolset, which modifies files), never
    /// by default.
    pub(crate) opt_in: bool,
}

/// Every toolset of the default profile, in the order they are registered (and so listed).
/// Each needs the `workspace` feature: without it the list is empty. A new toolset is one
/// more entry here.
pub(crate) const TOOLSETS: &[Toolset] = &[
    #[cfg(feature = "workspace")]
    Toolset {
        name: "workspace",
        summary: "files as tools, resources and prompts",
        add: minimcp_toolsets::workspace::add,
        opt_in: false,
    },
    #[cfg(feature = "templates")]
    Toolset {
        name: "templates",
        summary: "project file templates and scaffolding",
        add: minimcp_toolsets::templates::add,
        opt_in: false,
    },
    #[cfg(feature = "analysis")]
    Toolset {
        name: "analysis",
        summary: "code complexity and git churn",
        add: minimcp_toolsets::analysis::add,
        opt_in: false,
    },
    #[cfg(feature = "edit")]
    Toolset {
        name: "edit",
        summary: "MODIFIES FILES (write, edit, patch, move); off unless named",
        add: minimcp_toolsets::edit::add,
        opt_in: true,
    },
];

/// The toolsets served when `--toolsets` is not given: every one but the opt-in ones.
pub(crate) fn default_names() -> Vec<&'static str> {
    TOOLSETS
        .iter()
        .filter(|t| !t.opt_in)
        .map(|t| t.name)
        .collect()
}

/// Adds the toolsets named in `names`, in [`TOOLSETS`] order whatever the order of `names`,
/// so listings do not depend on how the flag was spelled.
#[cfg(feature = "workspace")]
pub(crate) fn add_named(mut builder: Builder, names: &[&str], options: &Options) -> Builder {
    for toolset in TOOLSETS {
        if names.contains(&toolset.name) {
            builder = (toolset.add)(builder, options);
        }
    }
    builder
}
