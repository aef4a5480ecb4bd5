//! The parameter vocabulary of the templates: each declaration (name, type, required,
//! default as JSON text, description, pattern, range), shared by the sources of
//! `catalog.rs` that use it.

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

const NAME_PATTERN: &str = "^[A-Za-z][A-Za-z0-9_-]{0,63}$";

pub(crate) static PROJECT_NAME: Param = Param {
    name: "project_name",
    kind: Kind::String,
    required: true,
    default: None,
    description: "The project's name: a letter, then up to 63 letters, digits, '_' or '-' (e.g. \"my-tool\"). Names the binary, package and image.",
    pattern: Some(NAME_PATTERN),
    range: None,
};

pub(crate) static PYTHON_NAME: Param = Param {
    name: "project_name",
    kind: Kind::String,
    required: true,
    default: None,
    description: "The project's name, also its import name: a lowercase letter, then up to 63 lowercase letters, digits or '_' (e.g. \"my_tool\").",
    pattern: Some("^[a-z][a-z0-9_]{0,63}$"),
    range: None,
};

pub(crate) static DESCRIPTION: Param = Param {
    name: "description",
    kind: Kind::String,
    required: false,
    default: Some("\"A short description of the project.\""),
    description: "One line saying what the project does (at most 200 characters).",
    pattern: Some("^.{0,200}$"),
    range: None,
};

pub(crate) static AUTHOR: Param = Param {
    name: "author",
    kind: Kind::String,
    required: false,
    default: Some("\"\""),
    description: "Who holds the copyright, e.g. \"Ada Lovelace\"; empty leaves it out.",
    pattern: Some("^.{0,100}$"),
    range: None,
};

pub(crate) static LICENSE: Param = Param {
    name: "license",
    kind: Kind::String,
    required: false,
    default: Some("\"MIT\""),
    description: "An SPDX license expression, e.g. \"MIT\" or \"MIT OR Apache-2.0\".",
    pattern: Some("^[A-Za-z0-9.+() -]{1,64}$"),
    range: None,
};

pub(crate) static HAS_TESTS: Param = Param {
    name: "has_tests",
    kind: Kind::Boolean,
    required: false,
    default: Some("true"),
    description: "Include test targets, steps and sections.",
    pattern: None,
    range: None,
};

pub(crate) static HAS_DOCKER: Param = Param {
    name: "has_docker",
    kind: Kind::Boolean,
    required: false,
    default: Some("false"),
    description:
        "Include container image targets and instructions (pair with the dockerfile template).",
    pattern: None,
    range: None,
};

pub(crate) static FEATURES: Param = Param {
    name: "features",
    kind: Kind::Array,
    required: false,
    default: Some("[]"),
    description: "Bullet points for a Features section (each at most 200 characters); empty leaves the section out.",
    pattern: Some("^.{1,200}$"),
    range: None,
};

pub(crate) static PORT: Param = Param {
    name: "port",
    kind: Kind::Number,
    required: false,
    default: Some("8080"),
    description: "The TCP port a service listens on (1-65535).",
    pattern: None,
    range: Some((1, 65535)),
};

pub(crate) static RUST_VERSION: Param = Param {
    name: "rust_version",
    kind: Kind::String,
    required: false,
    default: Some("\"1.85\""),
    description: "The minimum supported Rust version, e.g. \"1.85\".",
    pattern: Some("^\\d+\\.\\d+$"),
    range: None,
};

pub(crate) static PYTHON_VERSION: Param = Param {
    name: "python_version",
    kind: Kind::String,
    required: false,
    default: Some("\"3.12\""),
    description: "The Python version, e.g. \"3.12\".",
    pattern: Some("^3\\.\\d{1,2}$"),
    range: None,
};

pub(crate) static GO_VERSION: Param = Param {
    name: "go_version",
    kind: Kind::String,
    required: false,
    default: Some("\"1.23\""),
    description: "The Go version of the go directive, e.g. \"1.23\".",
    pattern: Some("^1\\.\\d{1,2}$"),
    range: None,
};

pub(crate) static MODULE_PATH: Param = Param {
    name: "module_path",
    kind: Kind::String,
    required: false,
    default: Some("\"\""),
    description: "The Go module path, e.g. \"github.com/acme/my-tool\"; empty means example.com/<project_name>.",
    pattern: Some("^[A-Za-z0-9._~/-]{0,200}$"),
    range: None,
};

pub(crate) static DENO_PERMISSIONS: Param = Param {
    name: "permissions",
    kind: Kind::Array,
    required: false,
    default: Some("[\"--allow-read\", \"--allow-env\"]"),
    description: "Deno permission flags the program runs with, e.g. [\"--allow-read\", \"--allow-net=api.example.com\"] (a service always gets --allow-net).",
    pattern: Some("^--allow-[a-z]+[=A-Za-z0-9.,:/_-]{0,200}$"),
    range: None,
};
