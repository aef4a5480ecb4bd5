//! Ready-made sets of tools, prompts and resources that the `minimcp` binary serves.

pub mod analysis;
pub mod conformance;
pub mod transcript;
pub mod workspace;
