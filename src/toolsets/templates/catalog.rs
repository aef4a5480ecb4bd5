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

/// A parameter's type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    String,
    Boolean,
    Number,
    /// A list of strings.
    Array,
}

impl Kind {
    /// The JSON Schema type name.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Kind::String => "string",
            Kind::Boolean => "boolean",
            Kind::Number => "number",
            Kind::Array => "array",
        }
    }
}

/// One declared parameter.
#[derive(Debug)]
pub(crate) struct Param {
    pub(crate) name: &'static str,
    pub(crate) kind: Kind,
    pub(crate) required: bool,
    /// JSON text of the default; `None` for required parameters.
    pub(crate) default: Option<&'static str>,
    pub(crate) description: &'static str,
    /// For strings and array items: a `^…$` pattern the value must match entirely.
    pub(crate) pattern: Option<&'static str>,
    /// For numbers: the inclusive range of whole numbers accepted.
    pub(crate) range: Option<(i64, i64)>,
}

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

// ---- Parameters ------------------------------------------------------------------------------

const NAME_PATTERN: &str = "^[A-Za-z][A-Za-z0-9_-]{0,63}$";

static PROJECT_NAME: Param = Param {
    name: "project_name",
    kind: Kind::String,
    required: true,
    default: None,
    description: "The project's name: a letter, then up to 63 letters, digits, '_' or '-' (e.g. \"my-tool\"). Names the binary, package and image.",
    pattern: Some(NAME_PATTERN),
    range: None,
};

static PYTHON_NAME: Param = Param {
    name: "project_name",
    kind: Kind::String,
    required: true,
    default: None,
    description: "The project's name, also its import name: a lowercase letter, then up to 63 lowercase letters, digits or '_' (e.g. \"my_tool\").",
    pattern: Some("^[a-z][a-z0-9_]{0,63}$"),
    range: None,
};

static DESCRIPTION: Param = Param {
    name: "description",
    kind: Kind::String,
    required: false,
    default: Some("\"A short description of the project.\""),
    description: "One line saying what the project does (at most 200 characters).",
    pattern: Some("^.{0,200}$"),
    range: None,
};

static AUTHOR: Param = Param {
    name: "author",
    kind: Kind::String,
    required: false,
    default: Some("\"\""),
    description: "Who holds the copyright, e.g. \"Ada Lovelace\"; empty leaves it out.",
    pattern: Some("^.{0,100}$"),
    range: None,
};

static LICENSE: Param = Param {
    name: "license",
    kind: Kind::String,
    required: false,
    default: Some("\"MIT\""),
    description: "An SPDX license expression, e.g. \"MIT\" or \"MIT OR Apache-2.0\".",
    pattern: Some("^[A-Za-z0-9.+() -]{1,64}$"),
    range: None,
};

static HAS_TESTS: Param = Param {
    name: "has_tests",
    kind: Kind::Boolean,
    required: false,
    default: Some("true"),
    description: "Include test targets, steps and sections.",
    pattern: None,
    range: None,
};

static HAS_DOCKER: Param = Param {
    name: "has_docker",
    kind: Kind::Boolean,
    required: false,
    default: Some("false"),
    description:
        "Include container image targets and instructions (pair with the dockerfile template).",
    pattern: None,
    range: None,
};

static FEATURES: Param = Param {
    name: "features",
    kind: Kind::Array,
    required: false,
    default: Some("[]"),
    description: "Bullet points for a Features section (each at most 200 characters); empty leaves the section out.",
    pattern: Some("^.{1,200}$"),
    range: None,
};

static PORT: Param = Param {
    name: "port",
    kind: Kind::Number,
    required: false,
    default: Some("8080"),
    description: "The TCP port a service listens on (1-65535).",
    pattern: None,
    range: Some((1, 65535)),
};

static RUST_VERSION: Param = Param {
    name: "rust_version",
    kind: Kind::String,
    required: false,
    default: Some("\"1.85\""),
    description: "The minimum supported Rust version, e.g. \"1.85\".",
    pattern: Some("^\\d+\\.\\d+$"),
    range: None,
};

static PYTHON_VERSION: Param = Param {
    name: "python_version",
    kind: Kind::String,
    required: false,
    default: Some("\"3.12\""),
    description: "The Python version, e.g. \"3.12\".",
    pattern: Some("^3\\.\\d{1,2}$"),
    range: None,
};

static GO_VERSION: Param = Param {
    name: "go_version",
    kind: Kind::String,
    required: false,
    default: Some("\"1.23\""),
    description: "The Go version of the go directive, e.g. \"1.23\".",
    pattern: Some("^1\\.\\d{1,2}$"),
    range: None,
};

static MODULE_PATH: Param = Param {
    name: "module_path",
    kind: Kind::String,
    required: false,
    default: Some("\"\""),
    description: "The Go module path, e.g. \"github.com/acme/my-tool\"; empty means example.com/<project_name>.",
    pattern: Some("^[A-Za-z0-9._~/-]{0,200}$"),
    range: None,
};

static DENO_PERMISSIONS: Param = Param {
    name: "permissions",
    kind: Kind::Array,
    required: false,
    default: Some("[\"--allow-read\", \"--allow-env\"]"),
    description: "Deno permission flags the program runs with, e.g. [\"--allow-read\", \"--allow-net=api.example.com\"] (a service always gets --allow-net).",
    pattern: Some("^--allow-[a-z]+[=A-Za-z0-9.,:/_-]{0,200}$"),
    range: None,
};

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
mod tests {
    use super::super::pattern::Pattern;
    use super::super::render::Template;
    use super::*;

    #[test]
    fn every_source_parses_and_reads_only_declared_values() {
        for source in &SOURCES {
            let label = format!("{}/{}", source.category, source.toolchain);
            let template = Template::parse(source.text).unwrap_or_else(|e| panic!("{label}: {e}"));
            for (name, line) in template.variables() {
                assert!(
                    BUILTINS.contains(&name.as_str())
                        || source.params.iter().any(|p| p.name == name),
                    "{label}:{line}: {name} is neither a parameter nor a built-in"
                );
            }
        }
    }

    #[test]
    fn every_declaration_is_consistent() {
        for source in &SOURCES {
            for param in source.params {
                let label = format!("{}/{} {}", source.category, source.toolchain, param.name);
                assert!(
                    !BUILTINS.contains(&param.name),
                    "{label} shadows a built-in"
                );
                assert_eq!(param.required, param.default.is_none(), "{label}");
                let pattern = param
                    .pattern
                    .map(|p| Pattern::compile(p).unwrap_or_else(|e| panic!("{label}: {e}")));
                assert_eq!(
                    pattern.is_some(),
                    matches!(param.kind, Kind::String | Kind::Array),
                    "{label}: strings and lists have a pattern"
                );
                let Some(default) = param.default else {
                    continue;
                };
                let value: serde_json::Value =
                    serde_json::from_str(default).unwrap_or_else(|e| panic!("{label}: {e}"));
                let strings: Vec<&str> = match (&value, param.kind) {
                    (serde_json::Value::String(s), Kind::String) => vec![s],
                    (serde_json::Value::Array(items), Kind::Array) => {
                        items.iter().map(|i| i.as_str().expect("strings")).collect()
                    }
                    (serde_json::Value::Bool(_), Kind::Boolean) => vec![],
                    (serde_json::Value::Number(_), Kind::Number) => vec![],
                    _ => panic!("{label}: the default is not a {}", param.kind.as_str()),
                };
                for s in strings {
                    assert!(
                        pattern.as_ref().is_some_and(|p| p.is_match(s)),
                        "{label}: default {s:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn uris_are_unique_and_parts_have_aliases() {
        let mut uris: Vec<String> = entries().map(|e| e.uri()).collect();
        let count = uris.len();
        uris.sort();
        uris.dedup();
        assert_eq!(uris.len(), count);
        for entry in entries() {
            for part in [entry.category(), entry.toolchain(), entry.variant] {
                assert_eq!(aliases(part).first(), Some(&part), "{part}");
            }
        }
        assert!(find("makefile", "rust", "cli").is_some());
        assert!(find("makefile", "rust", "nope").is_none());
    }
}
