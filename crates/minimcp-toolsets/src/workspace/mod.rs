//! The workspace toolset: a read-only, sandboxed view of one or more directories (the roots)
//! as tools, resources, prompts and completions. It is what the `minimcp` binary serves by
//! default.
//!
//! - Tools: `search_files` (glob), `list_directory`, `read_file`, `search_text` (literal).
//!   Results page within the result budget (`paging.rs`, `lines.rs`).
//! - Resources: every file as the RFC 8089 URI of its absolute path, a `file:///{+path}`
//!   template with path completion, subscriptions and `list_changed`.
//! - Prompts: `code_review`, `explain_file`, `project_overview`.
//!
//! Roots come from [`Config`]: fixed (`--root`), else the client's `roots/list`, else a
//! fallback directory unless it is `/` or the home directory (`roots.rs`). Every handler
//! calls `Workspace::enter` first, which brings the roots up to date for the request.
//!
//! ## The sandbox
//!
//! Nothing outside the roots is ever listed, followed or read, and nothing is ever written,
//! created, deleted or executed. Relative client paths are checked lexically first (no `..`,
//! `~user`, NUL bytes, `.git`, over-long paths; backslashes except on Windows, where names
//! Windows reads as something else are refused: see `names.rs`); absolute ones (and `~/`)
//! must lie inside a root and are made relative to it. Then they are resolved one component at a
//! time from the canonicalized root; every symbolic link met on the way is canonicalized and
//! must stay inside, compared by path components. The deny list (`--deny`) hides and refuses
//! matching files in every resolution and walk. Walks skip `.git`, honour `.gitignore` files
//! and never list, follow or descend into a link that leaves the root. Errors name the problem
//! and the path as the client gave it. See `sandbox.rs` for the details and [`limits`] for
//! every bound.
//!
//! ```no_run
//! use minimcp_toolsets::{workspace, Options};
//!
//! let config = workspace::Config { roots: vec![".".into()], ..Default::default() };
//! let options = Options::new(&config).expect("the root is a readable directory");
//! let builder = minimcp::Server::builder("my-server", "1.0.0");
//! let server = workspace::add(builder, &options).build().expect("the definitions are valid");
//! minimcp::run_stdio(&server).expect("stdio works");
//! ```

pub mod limits;

mod braces;
mod complete;
mod gitignore;
pub(crate) mod glob;
mod grep;
pub(crate) mod info;
mod lines;
mod matcher;
mod mime;
mod names;
mod nfd;
mod nfd_table;
pub(crate) mod output;
pub(crate) mod paging;
mod path;
mod platform;
mod prompts;
mod read;
pub(crate) mod regex;
mod resources;
mod roots;
pub(crate) mod sandbox;
mod scan;
pub(crate) mod served;
#[cfg(feature = "edit")]
pub(crate) mod target;
#[cfg(test)]
pub(crate) mod testutil;
mod text;
pub(crate) mod tools;
pub(crate) mod walk;

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::Duration;

use serde_json::Value;

use gitignore::Rules;
use minimcp::{Builder, Context, HandlerError, InputError};
use minimcp_base::log;
use sandbox::{PathError, RelPath, Resolved, Sandbox};
use walk::Bounds;

pub use roots::{expand_home, is_too_broad, DEFAULT_DENY, DEFAULT_DENY_WRITE};

/// What every path argument's description says of the forms it takes (the instructions
/// say the rest: several roots, `file://` URIs).
pub(crate) const PATH_HINT: &str = "Relative to the workspace root, or absolute inside it.";

/// Guidance for the model, suitable for [`Builder::add_instructions`].
pub const INSTRUCTIONS: &str = "This server is a read-only view of the workspace: one or more root directories. Paths are relative to the root (`.`), or absolute paths inside a root; with several roots, relative paths start with the root's name (list_directory of `.` shows them). Start with list_directory or search_files to find files, search_text to find where something is used, and read_file to read files by line range (or their last lines with `tail`). Large results come in pages: pass `next_offset` back as `offset`. Files excluded by .gitignore are not listed or searched, but can be read by path; secrets on the server's deny list (.env files, private keys) are hidden and refused everywhere. Resources are file:// URIs of the files' absolute paths.";

/// How the workspace toolset finds its roots and what it hides.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Config {
    /// Fixed roots (`--root`, repeatable). When there are any, the client's roots are not
    /// asked for.
    pub roots: Vec<PathBuf>,
    /// Served when no fixed root is given and the client provides none; ignored when it is
    /// `/` or the home directory (see [`is_too_broad`]). The binary passes its working
    /// directory.
    pub fallback: Option<PathBuf>,
    /// Deny-list patterns (`.gitignore` syntax) for files hidden and refused everywhere;
    /// `None` means [`DEFAULT_DENY`].
    pub deny: Option<Vec<String>>,
    /// Patterns (`.gitignore` syntax, matched without regard to case) for files the edit
    /// toolset never creates, changes or moves, though they may be read (`--deny-write`);
    /// `None` means [`DEFAULT_DENY_WRITE`].
    pub deny_write: Option<Vec<String>>,
    /// How long one walk of the workspace tools (search, listing, resources) may take
    /// before it stops with a partial result (`--walk-timeout`); `None`:
    /// [`limits::MAX_WALK_TIME`].
    pub walk_time: Option<Duration>,
    /// Entries one walk may examine (`--walk-max-entries`); `None`:
    /// [`limits::MAX_WALK_ENTRIES`].
    pub walk_entries: Option<usize>,
    /// How long one analysis walk (`analyze_complexity`, churn's hotspots) may take
    /// (`--analysis-timeout`); `None`: 60 s.
    pub analysis_time: Option<Duration>,
    /// The largest file the edit toolset writes (`--max-write-bytes`), and the largest
    /// `read_file` hashes; `None`: [`limits::DEFAULT_MAX_WRITE_BYTES`].
    pub max_write_bytes: Option<u64>,
}

/// Adds the workspace toolset for the workspace `options` opened, with its instructions:
/// the four tools, the prompts, and the files as resources (the entry of the binary's
/// `TOOLSETS`, src/cli/registry.rs).
pub fn add(builder: Builder, options: &super::Options) -> Builder {
    add_to(builder.add_instructions(INSTRUCTIONS), &options.workspace)
}

fn add_to(mut builder: Builder, ws: &Rc<Workspace>) -> Builder {
    for tool in tools::tools(ws) {
        builder = builder.tool(tool);
    }
    for prompt in prompts::prompts(ws) {
        builder = builder.prompt(prompt);
    }
    builder.resource_source(resources::Files::new(Rc::clone(ws)))
}

/// What every tool, prompt and resource of the toolset shares.
pub(crate) struct Workspace {
    /// The roots in use now (labelled when there are several).
    roots: RefCell<Vec<Sandbox>>,
    /// True when the roots were given on the command line: the client's are not asked for.
    fixed: bool,
    /// What is served when the client gives no roots (empty: nothing).
    fallback: Vec<Sandbox>,
    /// The client's `roots/list` answer the current roots were made from (`None`: the
    /// fallback is current).
    client: RefCell<Option<Vec<Value>>>,
    deny: Rc<Rules>,
    /// The write deny list, its patterns lowercased (matched against lowercased paths).
    deny_write: Rc<Rules>,
    pub(crate) bounds: Bounds,
    /// How long an analysis walk may take (the analysis toolset reads it).
    #[cfg_attr(
        not(feature = "analysis"),
        allow(dead_code, reason = "only the analysis toolset reads it")
    )]
    pub(crate) analysis_time: Duration,
    /// The largest file written by the edit toolset, and hashed by `read_file`.
    pub(crate) max_write_bytes: u64,
    /// What each session was last shown of each file (kept once the edit toolset is on).
    pub(crate) served: served::Served,
}

/// [`Config::analysis_time`]'s default.
pub const DEFAULT_ANALYSIS_TIME: Duration = Duration::from_secs(60);

impl Workspace {
    /// A workspace at `root` with the default bounds and deny list.
    #[cfg(test)]
    pub(crate) fn open(root: &Path) -> Result<Workspace, String> {
        Workspace::configure(&Config {
            roots: vec![root.to_path_buf()],
            ..Config::default()
        })
    }

    /// A workspace as `config` describes; the message (for the operator) says what is wrong.
    pub(crate) fn configure(config: &Config) -> Result<Workspace, String> {
        let patterns: Vec<String> = match &config.deny {
            Some(patterns) => patterns.clone(),
            None => DEFAULT_DENY.iter().map(|p| p.to_string()).collect(),
        };
        let deny = Rc::new(Rules::parse_folded(&patterns.join("\n")));
        let write_patterns: Vec<String> = match &config.deny_write {
            Some(patterns) => patterns.clone(),
            None => DEFAULT_DENY_WRITE.iter().map(|p| p.to_string()).collect(),
        };
        let deny_write = Rc::new(Rules::parse_folded(&write_patterns.join("\n")));
        let open = |dir: &Path| {
            Sandbox::new(dir).map(|s| s.with_deny(Rc::clone(&deny), Rc::clone(&deny_write)))
        };
        let fixed = config
            .roots
            .iter()
            .map(|r| open(r))
            .collect::<Result<Vec<_>, _>>()?;
        let fallback = match &config.fallback {
            Some(dir) if config.roots.is_empty() => {
                if is_too_broad(dir) {
                    log::warn(format_args!("not serving {} implicitly (it is /, the home directory or, on Windows, the Windows directory): tools will answer with how to configure a root until the client provides roots", dir.display()));
                    Vec::new()
                } else {
                    vec![open(dir)?]
                }
            }
            _ => Vec::new(),
        };
        let is_fixed = !fixed.is_empty();
        let current = if is_fixed {
            roots::labelled(fixed)
        } else {
            fallback.clone()
        };
        Ok(Workspace {
            roots: RefCell::new(current),
            fixed: is_fixed,
            fallback,
            client: RefCell::new(None),
            deny,
            deny_write,
            bounds: Bounds {
                max_time: config.walk_time.unwrap_or(limits::MAX_WALK_TIME),
                max_entries: config.walk_entries.unwrap_or(limits::MAX_WALK_ENTRIES),
                ..Bounds::default()
            },
            analysis_time: config.analysis_time.unwrap_or(DEFAULT_ANALYSIS_TIME),
            max_write_bytes: config
                .max_write_bytes
                .unwrap_or(limits::DEFAULT_MAX_WRITE_BYTES),
            served: served::Served::default(),
        })
    }

    /// Brings the roots up to date for a request: with no `--root`, from the client's
    /// `roots/list` when it declares `roots` (asked once per session and again after
    /// `notifications/roots/list_changed`; in 2026-07-28 with `input_required`). Errs when
    /// there is no root at all, with how to configure one.
    pub(crate) fn enter(&self, ctx: &mut Context<'_>) -> Result<(), HandlerError> {
        self.refresh(ctx, true)
    }

    /// [`Workspace::enter`] for requests that cannot answer `input_required` (listings and
    /// completions): in 2026-07-28 they use the fallback instead of asking.
    pub(crate) fn enter_listing(&self, ctx: &mut Context<'_>) -> Result<(), HandlerError> {
        let may_ask = !ctx.protocol_version().is_stateless();
        self.refresh(ctx, may_ask)
    }

    /// The roots of a request are the command line's, or else its own client's, or else
    /// the fallback — never another client's: over HTTP many clients share this workspace,
    /// so roots one session listed must not serve the next session's request.
    fn refresh(&self, ctx: &mut Context<'_>, may_ask: bool) -> Result<(), HandlerError> {
        if !self.fixed {
            let listed = if may_ask && ctx.client_capabilities().get("roots").is_some() {
                // Cached per session by `Context::roots` (a client that did not answer in
                // time is not asked again until it says its roots changed).
                match ctx.roots() {
                    Ok(list) => Some(list),
                    Err(InputError::Pending) => return Err(InputError::Pending.into()),
                    Err(e) => {
                        log::warn(format_args!(
                            "the client's roots could not be listed ({e}); using the fallback"
                        ));
                        None
                    }
                }
            } else {
                None
            };
            match listed {
                Some(list) => self.use_client_roots(list),
                None => self.use_fallback(),
            }
        }
        if self.roots.borrow().is_empty() {
            return Err(HandlerError::Invalid(sandbox::NO_ROOT.into()));
        }
        Ok(())
    }

    /// Makes the fallback current (unless it is already).
    fn use_fallback(&self) {
        if self.client.borrow_mut().take().is_some() {
            *self.roots.borrow_mut() = self.fallback.clone();
        }
    }

    /// Makes the client's roots current (unless they are the ones already in use).
    fn use_client_roots(&self, list: Vec<Value>) {
        if self.client.borrow().as_ref() == Some(&list) {
            return;
        }
        let mut opened = Vec::new();
        for root in &list {
            let uri = root.get("uri").and_then(Value::as_str).unwrap_or("");
            match roots::uri_path(uri) {
                Some(Ok(path)) => match Sandbox::new(Path::new(&path)) {
                    Ok(sandbox) => opened.push(
                        sandbox.with_deny(Rc::clone(&self.deny), Rc::clone(&self.deny_write)),
                    ),
                    Err(e) => log::warn(format_args!("skipping the client's root {uri}: {e}")),
                },
                _ => log::warn(format_args!(
                    "skipping the client's root {uri:?}: not a local file URI"
                )),
            }
        }
        log::info(format_args!(
            "serving {} root(s) from the client",
            opened.len()
        ));
        *self.roots.borrow_mut() = if opened.is_empty() {
            self.fallback.clone()
        } else {
            roots::labelled(opened)
        };
        *self.client.borrow_mut() = Some(list);
    }

    /// The roots in use now.
    pub(crate) fn roots(&self) -> Vec<Sandbox> {
        self.roots.borrow().clone()
    }

    /// Checks and resolves a client-supplied path: relative to the root (with several roots,
    /// starting with a root's label, or found in exactly one root), or absolute inside a
    /// root (`~/` counts as absolute).
    pub(crate) fn resolve(&self, input: &str) -> Result<Resolved, PathError> {
        let roots = self.roots.borrow();
        if roots.is_empty() {
            return Err(PathError::NoRoot);
        }
        if input.len() > limits::MAX_PATH_BYTES {
            return Err(PathError::TooLong(input.len()));
        }
        if let Some(path) = roots::absolute_text(input) {
            return self.resolve_absolute(&roots, input, &path);
        }
        let rel = RelPath::parse(input)?;
        if roots.len() == 1 {
            return roots[0].resolve(&rel);
        }
        if let Some((root, below)) = split_label(&roots, &rel)? {
            return root.resolve(&below);
        }
        if rel.as_str().is_empty() {
            return Err(PathError::Ambiguous(rel, labels(&roots)));
        }
        // Not named by label: the one root that has it, if exactly one does.
        let found: Vec<Result<Resolved, PathError>> = roots
            .iter()
            .map(|r| r.resolve(&rel))
            .filter(|r| !matches!(r, Err(PathError::NotFound(_) | PathError::NotADirectory(_))))
            .collect();
        match found.len() {
            0 => Err(PathError::NotFound(rel)),
            1 => found
                .into_iter()
                .next()
                .unwrap_or(Err(PathError::NotFound(rel))),
            _ => Err(PathError::Ambiguous(
                rel.clone(),
                roots
                    .iter()
                    .map(|r| r.label().join_rel(rel.as_str()).to_string())
                    .collect(),
            )),
        }
    }

    /// Resolves an absolute path (from a `file:` URI); `shown` is the client's spelling.
    pub(crate) fn resolve_path(&self, path: &str, shown: &str) -> Result<Resolved, PathError> {
        let roots = self.roots.borrow();
        if roots.is_empty() {
            return Err(PathError::NoRoot);
        }
        self.resolve_absolute(&roots, shown, path)
    }

    fn resolve_absolute(
        &self,
        roots: &[Sandbox],
        input: &str,
        path: &str,
    ) -> Result<Resolved, PathError> {
        let (root, rel) = split_absolute(roots, input, path)?;
        root.resolve(&rel)
    }

    /// The directories a walk of `input` covers: with several roots, `.` is every root.
    pub(crate) fn starts(&self, input: &str) -> Result<Vec<Resolved>, PathError> {
        let roots = self.roots();
        if roots.len() > 1 && RelPath::parse(input).is_ok_and(|r| r.as_str().is_empty()) {
            return roots.iter().map(|r| r.resolve(&RelPath::root())).collect();
        }
        Ok(vec![self.resolve(input)?])
    }
}

/// The root an absolute path lies in (the innermost, by its configured or its canonical
/// spelling, compared name by name, regardless of letter case where the root's volume
/// ignores it) and the path below it, checked lexically: the one rule reads and writes
/// share. `input` is the client's spelling, for messages.
pub(crate) fn split_absolute<'r>(
    roots: &'r [Sandbox],
    input: &str,
    path: &str,
) -> Result<(&'r Sandbox, RelPath), PathError> {
    if input.contains('\0') || path.contains('\0') {
        return Err(PathError::Nul);
    }
    if path.len() > limits::MAX_PATH_BYTES {
        return Err(PathError::TooLong(path.len()));
    }
    let flavor = names::Flavor::NATIVE;
    let path = match names::parse_absolute(path, flavor) {
        Some(Ok(path)) => path,
        Some(Err(names::AbsoluteError::Parent)) => return Err(PathError::Parent),
        _ => return Err(PathError::Outside(input.to_string())),
    };
    let best = roots
        .iter()
        .flat_map(|r| [(r, r.given()), (r, r.root())])
        .filter_map(|(r, base)| {
            let base = names::parse_absolute(base.to_str()?, flavor)?.ok()?;
            let rest = path.below(&base, r.folds_case())?;
            Some((r, base.names.len(), rest))
        })
        .max_by_key(|(_, depth, _)| *depth);
    let Some((root, _, rest)) = best else {
        return Err(PathError::Outside(input.to_string()));
    };
    Ok((root, RelPath::parse(&rest.join("/"))?))
}

/// With several roots, a relative path that starts with a root's label: that root and the
/// rest of the path.
pub(crate) fn split_label<'r>(
    roots: &'r [Sandbox],
    rel: &RelPath,
) -> Result<Option<(&'r Sandbox, RelPath)>, PathError> {
    let mut parts = rel.as_str().splitn(2, '/');
    let first = parts.next().unwrap_or("");
    match roots.iter().find(|r| r.label().as_str() == first) {
        Some(root) => Ok(Some((root, RelPath::parse(parts.next().unwrap_or(""))?))),
        None => Ok(None),
    }
}

/// The labels of several roots, for messages.
fn labels(roots: &[Sandbox]) -> Vec<String> {
    roots.iter().map(|r| format!("{}/", r.label())).collect()
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

#[cfg(test)]
#[path = "workspace_tests.rs"]
mod tests;
