//! The templates toolset: project files (Makefiles, READMEs, `.gitignore` files,
//! Dockerfiles, CI workflows) for Rust, Python (uv), Deno (TypeScript) and Go, embedded in
//! the binary at build time, offered as tools and as resources.
//!
//! - Resources: every template as `template://<category>/<toolchain>/<variant>` (its
//!   source text), and the resource template `template://{category}/{toolchain}/{variant}`
//!   with completion of each variable.
//! - Tools: `list_templates`, `search_templates`, `validate_template`,
//!   `generate_template`, `scaffold_project`. Nothing is written to disk: generated files
//!   are returned.
//!
//! `catalog.rs` is the manifest (what exists), `declarations.rs` the parameters templates
//! declare, `validate.rs` checks a client's values against them, `render.rs` is the
//! template language, `error.rs` maps the original specification's error codes,
//! `tools.rs` defines the tools whose handlers are in `listing.rs`, `generate.rs` and
//! `scaffold.rs`, which share the argument readers and paging of `args.rs`;
//! `resources.rs` serves the templates as resources.

mod args;
mod catalog;
mod declarations;
mod error;
mod generate;
mod listing;
mod pattern;
mod render;
mod resources;
mod scaffold;
mod search;
mod tokens;
mod tools;
mod validate;

use catalog::Entry;
use error::TemplateError;
use minimcp::Builder;

/// Guidance for the model, appended to the server's instructions.
pub const INSTRUCTIONS: &str = "Project templates (Makefile, README, .gitignore, Dockerfile, CI workflow for rust, python, deno, go) are template://<category>/<toolchain>/<variant> URIs. Find one with list_templates or search_templates, check parameters with validate_template, then generate_template returns one rendered file and scaffold_project several; nothing is written to disk.";

/// Adds the templates toolset: the entry of the binary's `TOOLSETS` (src/cli/registry.rs).
pub fn add(builder: Builder, _options: &super::Options) -> Builder {
    let mut builder = builder.add_instructions(INSTRUCTIONS);
    for tool in tools::tools() {
        builder = builder.tool(tool);
    }
    builder.resource_source(resources::Templates)
}

/// The prefix of every template URI.
const SCHEME: &str = "template://";

/// The template a URI names: an invalid URI or an unknown template is an error that says
/// what exists.
fn resolve(uri: &str) -> Result<Entry, TemplateError> {
    let parts: Vec<&str> = uri
        .strip_prefix(SCHEME)
        .map(|rest| rest.split('/').collect())
        .unwrap_or_default();
    let [category, toolchain, variant] = parts[..] else {
        return Err(TemplateError::InvalidUri(format!(
            "{uri:?} is not a template URI: write template://<category>/<toolchain>/<variant>, e.g. template://makefile/rust/cli"
        )));
    };
    if let Some(entry) = catalog::find(category, toolchain, variant) {
        return Ok(entry);
    }
    let categories = catalog::distinct(Entry::category);
    let message = if !categories.contains(&category) {
        format!(
            "no template category {category:?}: use one of {}",
            categories.join(", ")
        )
    } else {
        let toolchains: Vec<&str> = catalog::entries()
            .filter(|e| e.category() == category)
            .map(|e| e.toolchain())
            .fold(Vec::new(), |mut v, t| {
                if !v.contains(&t) {
                    v.push(t);
                }
                v
            });
        if !toolchains.contains(&toolchain) {
            format!(
                "no {category} template for toolchain {toolchain:?}: use one of {}",
                toolchains.join(", ")
            )
        } else {
            let variants: Vec<&str> = catalog::entries()
                .filter(|e| e.category() == category && e.toolchain() == toolchain)
                .map(|e| e.variant)
                .collect();
            format!(
                "no variant {variant:?} of {category}/{toolchain}: use one of {}",
                variants.join(", ")
            )
        }
    };
    Err(TemplateError::NotFound(message))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_resolve_or_say_what_exists() {
        assert_eq!(
            resolve("template://makefile/rust/cli")
                .map(|e| e.name())
                .ok(),
            Some("makefile/rust/cli".to_string())
        );
        let cases = [
            ("file:///x", -32001, "is not a template URI"),
            ("template://makefile/rust", -32001, "template://<category>"),
            (
                "template://makefile/rust/cli/x",
                -32001,
                "not a template URI",
            ),
            (
                "template://nope/rust/cli",
                -32000,
                "no template category \"nope\": use one of makefile, readme",
            ),
            (
                "template://gitignore/cobol/default",
                -32000,
                "toolchain \"cobol\": use one of rust, python, deno, go",
            ),
            (
                "template://makefile/go/gui",
                -32000,
                "use one of cli, lib, service",
            ),
        ];
        for (uri, code, message) in cases {
            let err = resolve(uri).err().expect(uri);
            assert_eq!(err.spec_code(), code, "{uri}");
            assert!(err.to_string().contains(message), "{uri}: {err}");
        }
    }
}
