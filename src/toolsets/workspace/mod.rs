//! The workspace toolset: a read-only, sandboxed view of one directory as tools, resources,
//! prompts and completions. It is what the `minimcp` binary serves by default.
//!
//! - Tools: `search_files` (glob), `list_directory`, `read_file`, `search_text` (literal).
//! - Resources: every file as `file:///<path relative to the root>`, a `file:///{+path}`
//!   template with path completion, subscriptions and `list_changed`.
//! - Prompts: `code_review`, `explain_file`, `project_overview`.
//!
//! ## The sandbox
//!
//! Nothing outside the root is ever listed, followed or read, and nothing is ever written,
//! created, deleted or executed. Client paths are checked lexically first (no `..`,
//! absolute paths, `~`, NUL bytes, backslashes, `.git`, over-long paths), then resolved one
//! component at a time from the canonicalized root; every symbolic link met on the way is
//! canonicalized and must stay inside, compared by path components. Walks skip `.git`,
//! honour `.gitignore` files and never list, follow or descend into a link that leaves the
//! root. Errors name the problem and the client's relative path, never an absolute path.
//! See `sandbox.rs` for the details and [`limits`] for every bound.
//!
//! ```no_run
//! use minimcp::Server;
//!
//! let builder = Server::builder("my-server", "1.0.0")
//!     .instructions(minimcp::toolsets::workspace::INSTRUCTIONS);
//! let server = minimcp::toolsets::workspace::add(builder, std::path::Path::new("."))
//!     .expect("the root is a readable directory")
//!     .build()
//!     .expect("the definitions are valid");
//! minimcp::run_stdio(&server).expect("stdio works");
//! ```

pub mod limits;

mod braces;
mod complete;
mod gitignore;
mod glob;
mod grep;
mod matcher;
mod mime;
mod platform;
mod prompts;
mod read;
mod regex;
mod resources;
mod sandbox;
#[cfg(test)]
mod testutil;
mod text;
mod tools;
mod walk;

use std::path::Path;
use std::rc::Rc;

use crate::{Builder, ConfigError, HandlerError};
use sandbox::{PathError, RelPath, Resolved, Sandbox};
use walk::Bounds;

/// Guidance for the model, suitable for [`Builder::instructions`].
pub const INSTRUCTIONS: &str = "This server is a read-only view of one directory (the workspace). All paths are relative to the workspace root (`.`); `..`, absolute paths and `~` are refused. Start with list_directory or search_files to find files, search_text to find where something is used, and read_file to read a file by line range. Files excluded by .gitignore are not listed or searched, but can be read by path. Resources are file:///<path> URIs relative to the root.";

/// Adds the workspace toolset for `root` to `builder`: the four tools, the prompts, and the
/// files as resources. `root` must be an existing, readable directory; it is canonicalized
/// once, here.
pub fn add(builder: Builder, root: &Path) -> Result<Builder, ConfigError> {
    let ws = Rc::new(Workspace::open(root).map_err(ConfigError)?);
    let mut builder = builder;
    for tool in tools::tools(&ws) {
        builder = builder.tool(tool);
    }
    for prompt in prompts::prompts(&ws) {
        builder = builder.prompt(prompt);
    }
    Ok(builder.resource_source(resources::Files::new(ws)))
}

/// What every tool, prompt and resource of the toolset shares.
pub(crate) struct Workspace {
    pub(crate) sandbox: Sandbox,
    pub(crate) bounds: Bounds,
}

impl Workspace {
    /// A workspace at `root` with the default bounds.
    pub(crate) fn open(root: &Path) -> Result<Workspace, String> {
        Ok(Workspace {
            sandbox: Sandbox::new(root)?,
            bounds: Bounds::default(),
        })
    }

    /// Checks and resolves a client-supplied path.
    pub(crate) fn resolve(&self, input: &str) -> Result<Resolved, PathError> {
        self.sandbox.resolve(&RelPath::parse(input)?)
    }
}

impl From<PathError> for HandlerError {
    fn from(error: PathError) -> HandlerError {
        match error {
            PathError::NotFound(_) | PathError::BrokenLink(_) => {
                HandlerError::NotFound(error.to_string())
            }
            other => HandlerError::Invalid(other.to_string()),
        }
    }
}
