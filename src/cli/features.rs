//! The Cargo features a binary may be built without, and what the command line says when it
//! asks for one of them. Below the flag table and the help, which both need it.

/// What a flag, profile or toolset of a Cargo feature this binary was built without says
/// (the command line is refused with exit status 2).
pub(crate) fn missing_feature(feature: &str) -> String {
    format!(
        "this binary was built without the `{feature}` feature: rebuild with `cargo build --features {feature}`"
    )
}

/// The toolsets of the workspace profile that a build may leave out: each is the Cargo
/// feature of the same name.
pub(super) const OPTIONAL_TOOLSETS: &[&str] = &["workspace", "templates", "analysis", "edit"];

/// The optional Cargo features of the binary this one was built without (none in the
/// default build; `testing` is the library's, for tests).
pub(super) fn missing_features() -> Vec<&'static str> {
    FEATURES
        .into_iter()
        .filter(|(name, built)| !built && *name != "testing")
        .map(|(name, _)| name)
        .collect()
}

/// The features this binary was built with, as `--version` lists them.
pub(super) fn built_features() -> Vec<&'static str> {
    FEATURES
        .into_iter()
        .filter(|(_, built)| *built)
        .map(|(name, _)| name)
        .collect()
}

/// Every optional feature, and whether this binary has it.
const FEATURES: [(&str, bool); 7] = [
    ("http", cfg!(feature = "http")),
    ("workspace", cfg!(feature = "workspace")),
    ("templates", cfg!(feature = "templates")),
    ("analysis", cfg!(feature = "analysis")),
    ("edit", cfg!(feature = "edit")),
    ("conformance", cfg!(feature = "conformance")),
    ("testing", cfg!(feature = "testing")),
];
