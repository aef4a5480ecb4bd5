//! The manifest: every embedded template, its URI parts, description and parameters.
//!
//! One source file per category and toolchain, `files/<category>/<toolchain>.tmpl`,
//! embedded at build time with `include_str!`. Its variants (`cli`, `lib`, `service`,
//! `default`, `github`) share it: the renderer sees the built-in values `category`,
//! `toolchain`, `variant` and one boolean per variant name (`cli`, `lib`, `service`), true
//! for the variant asked for, so a source toggles variant sections with `{{#if service}}`.
//! Built-ins are not parameters: a client cannot set them.
//!
//! A parameter declares its name, type (string, boolean, number, array of strings),
//! whether it is required, its default (JSON text), a description and, for strings and
//! array items, a `^…$` pattern (see `pattern.rs` for the subset) that is also published in
//! the JSON Schema of the parameters. Unit tests check that every source parses, reads
//! only declared parameters and built-ins, that every default parses and matches its own
//! pattern, and that every pattern compiles.

use super::declarations::*;

/// One source file and the variants it serves.
pub(crate) struct Source {
    pub(crate) category: &'static str,
    pub(crate) toolchain: &'static str,
    pub(crate) variants: &'static [&'static str],
    /// The title, with `{variant}` replaced by the variant's display name.
    pub(crate) title: &'static str,
    pub(crate) description: &'static str,
    pub(crate) text: &'static str,
    pub(crate) params: &'static [&'static Param],
}

/// One template: a source and one of its variants. `template://category/toolchain/variant`.
#[derive(Clone, Copy)]
pub(crate) struct Entry {
    pub(crate) source: &'static Source,
    pub(crate) variant: &'static str,
}

impl Entry {
    pub(crate) fn category(&self) -> &'static str {
        self.source.category
    }

    pub(crate) fn toolchain(&self) -> &'static str {
        self.source.toolchain
    }

    pub(crate) fn uri(&self) -> String {
        format!(
            "template://{}/{}/{}",
            self.category(),
            self.toolchain(),
            self.variant
        )
    }

    /// `makefile/rust/cli`.
    pub(crate) fn name(&self) -> String {
        format!("{}/{}/{}", self.category(), self.toolchain(), self.variant)
    }

    pub(crate) fn title(&self) -> String {
        let variant = match self.variant {
            "cli" => "command-line tool",
            "lib" => "library",
            "service" => "service",
            "github" => "GitHub Actions",
            _ => "project",
        };
        self.source.title.replace("{variant}", variant)
    }

    /// The file the template produces, relative to the project root.
    pub(crate) fn filename(&self) -> &'static str {
        match self.category() {
            "makefile" => "Makefile",
            "readme" => "README.md",
            "gitignore" => ".gitignore",
            "dockerfile" => "Dockerfile",
            _ => ".github/workflows/ci.yml",
        }
    }

    pub(crate) fn mime_type(&self) -> &'static str {
        match self.category() {
            "makefile" => "text/x-makefile",
            "readme" => "text/markdown",
            "ci" => "application/yaml",
            _ => "text/plain",
        }
    }

    pub(crate) fn params(&self) -> &'static [&'static Param] {
        self.source.params
    }
}

/// Every template, in URI order of the manifest (category, toolchain, variant).
pub(crate) fn entries() -> impl Iterator<Item = Entry> {
    SOURCES.iter().flat_map(|source| {
        source
            .variants
            .iter()
            .map(move |&variant| Entry { source, variant })
    })
}

/// The template of `category/toolchain/variant`.
pub(crate) fn find(category: &str, toolchain: &str, variant: &str) -> Option<Entry> {
    entries()
        .find(|e| e.category() == category && e.toolchain() == toolchain && e.variant == variant)
}

/// Known categories, toolchains and variants, each once, in manifest order.
pub(crate) fn distinct(part: fn(&Entry) -> &'static str) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for entry in entries() {
        let value = part(&entry);
        if !out.contains(&value) {
            out.push(value);
        }
    }
    out
}

/// Words that mean a category, toolchain or variant, for search (the name itself first).
pub(crate) fn aliases(part: &str) -> &'static [&'static str] {
    match part {
        "makefile" => &["makefile", "make", "build", "targets"],
        "readme" => &["readme", "docs", "documentation", "markdown"],
        "gitignore" => &["gitignore", "ignore", "git"],
        "dockerfile" => &["dockerfile", "docker", "container", "image", "oci"],
        "ci" => &["ci", "workflow", "pipeline", "actions"],
        "rust" => &["rust", "cargo", "rs"],
        "python" => &["python", "uv", "py", "pip", "pyproject"],
        "deno" => &["deno", "typescript", "ts", "javascript", "js"],
        "go" => &["go", "golang"],
        "cli" => &["cli", "command", "binary", "tool", "terminal"],
        "lib" => &["lib", "library", "crate", "package", "module"],
        "service" => &["service", "server", "daemon", "http", "api", "web"],
        "github" => &["github", "actions"],
        "default" => &["default"],
        _ => &[],
    }
}

/// Values the renderer provides itself (see the module docs); not parameters.
pub(crate) const BUILTINS: &[&str] = &["category", "toolchain", "variant", "cli", "lib", "service"];

// ---- Sources ---------------------------------------------------------------------------------

const VARIANTS: &[&str] = &["cli", "lib", "service"];

macro_rules! source {
    ($category:literal, $toolchain:literal, $variants:expr, $title:literal, $description:literal, [$($param:expr),* $(,)?]) => {
        Source {
            category: $category,
            toolchain: $toolchain,
            variants: $variants,
            title: $title,
            description: $description,
            text: include_str!(concat!("files/", $category, "/", $toolchain, ".tmpl")),
            params: &[$(&$param),*],
        }
    };
}

static SOURCES: [Source; 20] = [
    source!("makefile", "rust", VARIANTS, "Makefile for a Rust {variant}",
        "Cargo targets: fmt, clippy with -D warnings, test, doc, release build; install for a CLI, run and image targets for a service.",
        [PROJECT_NAME, HAS_TESTS, HAS_DOCKER]),
    source!("makefile", "python", VARIANTS, "Makefile for a Python {variant} (uv)",
        "uv targets: sync, ruff format and lint, mypy, pytest, build; run for a CLI or service.",
        [PYTHON_NAME, HAS_TESTS, HAS_DOCKER]),
    source!("makefile", "deno", VARIANTS, "Makefile for a Deno (TypeScript) {variant}",
        "deno targets: fmt, lint, check, test with coverage, compile a binary for a CLI, run for a service.",
        [PROJECT_NAME, HAS_TESTS, HAS_DOCKER, DENO_PERMISSIONS]),
    source!("makefile", "go", VARIANTS, "Makefile for a Go {variant}",
        "go targets: fmt check, vet, test with the race detector, build with trimmed paths and version stamping.",
        [PROJECT_NAME, HAS_TESTS, HAS_DOCKER]),
    source!("readme", "rust", VARIANTS, "README for a Rust {variant}",
        "Markdown README with installation, usage, testing and license sections.",
        [PROJECT_NAME, DESCRIPTION, FEATURES, HAS_TESTS, HAS_DOCKER, PORT, RUST_VERSION, LICENSE, AUTHOR]),
    source!("readme", "python", VARIANTS, "README for a Python {variant} (uv)",
        "Markdown README with installation (uv), usage, testing and license sections.",
        [PYTHON_NAME, DESCRIPTION, FEATURES, HAS_TESTS, HAS_DOCKER, PORT, PYTHON_VERSION, LICENSE, AUTHOR]),
    source!("readme", "deno", VARIANTS, "README for a Deno (TypeScript) {variant}",
        "Markdown README with installation, usage, permissions, testing and license sections.",
        [PROJECT_NAME, DESCRIPTION, FEATURES, HAS_TESTS, HAS_DOCKER, PORT, DENO_PERMISSIONS, LICENSE, AUTHOR]),
    source!("readme", "go", VARIANTS, "README for a Go {variant}",
        "Markdown README with installation (go install / go get), usage, testing and license sections.",
        [PROJECT_NAME, DESCRIPTION, FEATURES, HAS_TESTS, HAS_DOCKER, PORT, GO_VERSION, MODULE_PATH, LICENSE, AUTHOR]),
    source!("gitignore", "rust", &["default"], "Rust .gitignore",
        "Ignores Cargo's target directory, profiling and coverage output, editor and OS files.",
        []),
    source!("gitignore", "python", &["default"], "Python .gitignore",
        "Ignores virtual environments, bytecode, build and distribution output, tool caches and coverage data.",
        []),
    source!("gitignore", "deno", &["default"], "Deno .gitignore",
        "Ignores compiled binaries, coverage output, node_modules, local environment files, editor and OS files.",
        []),
    source!("gitignore", "go", &["default"], "Go .gitignore",
        "Ignores binaries, test binaries, coverage profiles, the vendor directory, go.work files, editor and OS files.",
        []),
    source!("dockerfile", "rust", &["service"], "Dockerfile for a Rust service",
        "Multi-stage build: cached dependency layer, release build, a slim runtime image running as a non-root user.",
        [PROJECT_NAME, PORT, RUST_VERSION]),
    source!("dockerfile", "python", &["service"], "Dockerfile for a Python service (uv)",
        "uv-based image: locked dependencies in a cached layer, the project installed, a non-root user.",
        [PYTHON_NAME, PORT, PYTHON_VERSION]),
    source!("dockerfile", "deno", &["service"], "Dockerfile for a Deno service",
        "The official Deno image with cached dependencies, explicit permissions, a non-root user.",
        [PROJECT_NAME, PORT, DENO_PERMISSIONS]),
    source!("dockerfile", "go", &["service"], "Dockerfile for a Go service",
        "Multi-stage build: cached modules, a static binary, a distroless non-root runtime image.",
        [PROJECT_NAME, PORT, GO_VERSION]),
    source!("ci", "rust", &["github"], "CI workflow for Rust (GitHub Actions)",
        "Format, clippy, tests on Linux, macOS and Windows, and the minimum supported Rust version.",
        [HAS_TESTS, RUST_VERSION]),
    source!("ci", "python", &["github"], "CI workflow for Python (GitHub Actions, uv)",
        "ruff, mypy and pytest under uv on the declared Python version.",
        [HAS_TESTS, PYTHON_VERSION]),
    source!("ci", "deno", &["github"], "CI workflow for Deno (GitHub Actions)",
        "deno fmt --check, lint, type check and tests.",
        [HAS_TESTS]),
    source!("ci", "go", &["github"], "CI workflow for Go (GitHub Actions)",
        "gofmt check, go vet, tests with the race detector on the declared Go version.",
        [HAS_TESTS, GO_VERSION]),
];

#[cfg(test)]
#[path = "catalog_tests.rs"]
mod tests;
