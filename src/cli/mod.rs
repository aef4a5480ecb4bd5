//! Command-line parsing, by hand (no clap: the design card allows three dependencies).
//!
//! This file holds what the command line asks for ([`Command`]) and the walk over the
//! arguments; `values.rs` reads each flag's value, `help.rs` is the help text, and
//! `keyfile.rs` the format of `--state-key-file`.

pub(crate) mod analyze;
mod help;
pub(crate) mod keyfile;
pub(crate) mod registry;
mod values;

#[cfg(feature = "http")]
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

#[cfg(feature = "http")]
use minimcp::http::Listen;
use minimcp::log::Level;
use minimcp::{Limits, Version};

#[cfg(not(feature = "http"))]
use help::HTTP_FLAGS;
pub(crate) use help::{help, missing_feature};
use values::{
    deny, expand_home, limit_flag, log_level, number, protocol, seconds, toolsets, Value,
    DEFAULT_DENY, DEFAULT_DENY_WRITE,
};
#[cfg(feature = "http")]
use values::{header_name, http_addr, http_path};

/// What the command line asks for.
#[derive(Debug, PartialEq)]
pub(crate) enum Command {
    /// Serve one session over stdin/stdout.
    Serve(Options),
    /// Run one in-process session: handshake, one call, print the result.
    Call {
        options: Options,
        /// A tool name, or a method name (it contains a `/`).
        target: String,
        /// The tool's arguments or the method's params.
        params: serde_json::Value,
        /// The protocol version the in-process client speaks.
        version: Version,
        /// How the result is printed.
        output: Output,
    },
    /// `analyze [PATH...]`: the complexity report of the working directory, for CI.
    Analyze(analyze::Analyze),
    /// `churn [PATH...]`: the change history report.
    Churn(analyze::Churn),
    Help,
    Version,
}

/// How `call` prints its result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Output {
    /// Text for a terminal, JSON for a pipe or file.
    Auto,
    /// The result as JSON (`--json`): what scripts read.
    Json,
    /// A tool's text content as text (`--text`): what people read.
    Text,
}

/// Options shared by `serve` and `call`.
#[derive(Debug, PartialEq)]
pub(crate) struct Options {
    /// `--root` and bare directories, `~` expanded; empty: the client's roots or the
    /// working directory.
    pub(crate) roots: Vec<PathBuf>,
    /// The deny list: the defaults, plus `--deny` patterns, cleared by `--deny none`.
    pub(crate) deny: Vec<String>,
    /// The write deny list: the defaults, plus `--deny-write` patterns, cleared by
    /// `--deny-write none`.
    pub(crate) deny_write: Vec<String>,
    /// `--walk-timeout`, `--walk-max-entries`, `--analysis-timeout`: the bounds of one walk
    /// (`None`: the toolsets' defaults).
    pub(crate) walk_time: Option<Duration>,
    pub(crate) walk_entries: Option<usize>,
    pub(crate) analysis_time: Option<Duration>,
    /// `--max-write-bytes`: the largest file the edit toolset writes.
    pub(crate) max_write_bytes: Option<u64>,
    /// `--http`: serve Streamable HTTP instead of stdio.
    #[cfg(feature = "http")]
    pub(crate) http: Option<Http>,
    /// `--state-key-file`: the secret sealing 2026-07-28 `requestState`.
    pub(crate) state_key_file: Option<PathBuf>,
    pub(crate) profile: Profile,
    /// The toolsets of the workspace profile (`--toolsets`), as names from
    /// [`registry::TOOLSETS`]; all of them by default.
    pub(crate) toolsets: Vec<&'static str>,
    pub(crate) log_level: Level,
    pub(crate) limits: Limits,
}

impl Options {
    /// The defaults, with the working directory as the one root: what `churn` serves
    /// itself.
    #[cfg(feature = "analysis")]
    pub(crate) fn for_working_directory() -> Options {
        let mut options = Line::new().options;
        options.roots = std::env::current_dir().into_iter().collect();
        options
    }
}

/// The HTTP transport's flags: the library's configuration, started from its defaults (so
/// the two never disagree), plus where the bearer token is read from.
#[cfg(feature = "http")]
#[derive(Debug, PartialEq)]
pub(crate) struct Http {
    pub(crate) config: minimcp::http::HttpConfig,
    pub(crate) token_file: Option<PathBuf>,
}

/// Which toolset the binary serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Profile {
    /// The toolsets of `--toolsets` for the workspace (default).
    Workspace,
    /// Fixtures for the official conformance suite and the benchmarks (`echo`).
    Conformance,
    /// The conformance fixtures plus the few the transcript corpus (`conformance/`) needs.
    Transcripts,
}

impl Profile {
    /// The Cargo feature that builds this profile's toolsets.
    pub(crate) fn feature(self) -> &'static str {
        match self {
            Profile::Workspace => "workspace",
            Profile::Conformance | Profile::Transcripts => "conformance",
        }
    }

    /// Whether this binary was built with [`Profile::feature`].
    pub(super) fn is_built(self) -> bool {
        match self {
            Profile::Workspace => cfg!(feature = "workspace"),
            Profile::Conformance | Profile::Transcripts => cfg!(feature = "conformance"),
        }
    }
}

/// Parses the arguments after the program name.
pub(crate) fn parse(args: impl IntoIterator<Item = String>) -> Result<Command, String> {
    let args: Vec<String> = args.into_iter().collect();
    // `analyze` and `churn` run no server: their flags are their own.
    if let Some(word @ ("analyze" | "churn")) = args.first().map(String::as_str) {
        let rest = &args[1..];
        if rest.iter().any(|a| a == "-h" || a == "--help") {
            return Ok(Command::Help);
        }
        if !cfg!(feature = "analysis") {
            return Err(missing_feature("analysis"));
        }
        return match word {
            "analyze" => analyze::analyze(rest).map(Command::Analyze),
            _ => analyze::churn(rest).map(Command::Churn),
        };
    }
    let mut args = args.into_iter();
    let mut line = Line::new();
    let mut positional = Vec::new();
    while let Some(arg) = args.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((flag, value)) if flag.starts_with("--") => {
                (flag.to_string(), Some(value.to_string()))
            }
            _ => (arg.clone(), None),
        };
        // A flag's value is the inline `--flag=value`, else the next argument.
        let mut value = |name: &str| -> Result<String, String> {
            inline
                .clone()
                .or_else(|| args.next())
                .ok_or_else(|| format!("{name} needs a value"))
        };
        match flag.as_str() {
            "-h" | "--help" => return Ok(Command::Help),
            "-V" | "--version" => return Ok(Command::Version),
            _ => {}
        }
        if line.flag(&flag, &mut value)? {
            continue;
        }
        if flag.starts_with('-') && flag.len() > 1 {
            return Err(format!("unknown option {flag}; see --help"));
        }
        positional.push(arg);
    }
    line.finish(positional)
}

/// The flags read so far. Some only make sense once the whole line is known (the HTTP
/// options need `--http`, `--protocol` needs `call`, `--toolsets` the workspace profile),
/// so they wait here until [`Line::finish`] checks them together.
struct Line {
    options: Options,
    /// `--http ADDR:PORT` or `--http unix:PATH`, which turns the HTTP transport on.
    #[cfg(feature = "http")]
    http_addr: Option<Listen>,
    /// The other HTTP flags, applied only with `--http`.
    #[cfg(feature = "http")]
    http: Http,
    /// Whether any HTTP flag besides `--http` was given (an error without it).
    #[cfg(feature = "http")]
    http_flags: bool,
    version: Version,
    version_given: bool,
    /// `--json` or `--text` (`call` only).
    output: Option<Output>,
    toolsets_given: bool,
}

impl Line {
    /// The defaults every flag overrides.
    fn new() -> Line {
        Line {
            options: Options {
                roots: Vec::new(),
                deny: DEFAULT_DENY.iter().map(|p| p.to_string()).collect(),
                deny_write: DEFAULT_DENY_WRITE.iter().map(|p| p.to_string()).collect(),
                walk_time: None,
                walk_entries: None,
                analysis_time: None,
                max_write_bytes: None,
                #[cfg(feature = "http")]
                http: None,
                state_key_file: None,
                profile: Profile::Workspace,
                toolsets: registry::default_names(),
                log_level: Level::Warn,
                limits: Limits::default(),
            },
            #[cfg(feature = "http")]
            http_addr: None,
            #[cfg(feature = "http")]
            http: Http {
                config: minimcp::http::HttpConfig::new(SocketAddr::from(([127, 0, 0, 1], 0))),
                token_file: None,
            },
            #[cfg(feature = "http")]
            http_flags: false,
            version: Version::LATEST_HANDSHAKE,
            version_given: false,
            output: None,
            toolsets_given: false,
        }
    }

    /// Applies one flag; `false` when it is none of ours. The flags come in groups
    /// (workspace, limits, HTTP, process), each one short match a reviewer can check
    /// against the help text.
    fn flag(&mut self, flag: &str, value: &mut impl FnMut(&str) -> Value) -> Result<bool, String> {
        Ok(self.workspace_flag(flag, value)?
            || limit_flag(&mut self.options.limits, flag, value)?
            || self.http_flag(flag, value)?
            || self.process_flag(flag, value)?)
    }

    /// What is served: roots, deny list, profile and toolsets.
    fn workspace_flag(
        &mut self,
        flag: &str,
        value: &mut impl FnMut(&str) -> Value,
    ) -> Result<bool, String> {
        let options = &mut self.options;
        match flag {
            "--root" => options.roots.push(expand_home(&value(flag)?)),
            "--deny" => deny(&mut options.deny, flag, &value(flag)?)?,
            "--deny-write" => deny(&mut options.deny_write, flag, &value(flag)?)?,
            "--walk-timeout" => options.walk_time = Some(seconds(&value(flag)?, flag)?),
            "--walk-max-entries" => options.walk_entries = Some(number(&value(flag)?, flag, 1)?),
            "--analysis-timeout" => options.analysis_time = Some(seconds(&value(flag)?, flag)?),
            "--max-write-bytes" => {
                options.max_write_bytes = Some(number(&value(flag)?, flag, 1)? as u64)
            }
            "--profile" => options.profile = profile(&value(flag)?)?,
            "--toolsets" => {
                options.toolsets = toolsets(&value(flag)?)?;
                self.toolsets_given = true;
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// `--http` turns the HTTP transport on; the other HTTP flags only shape it.
    #[cfg(feature = "http")]
    fn http_flag(
        &mut self,
        flag: &str,
        value: &mut impl FnMut(&str) -> Value,
    ) -> Result<bool, String> {
        if flag == "--http" {
            self.http_addr = Some(http_addr(&value(flag)?)?);
            return Ok(true);
        }
        let known = http_option(&mut self.http, flag, value)?;
        self.http_flags |= known;
        Ok(known)
    }

    /// Without the `http` feature, every HTTP flag says which feature it needs.
    #[cfg(not(feature = "http"))]
    fn http_flag(
        &mut self,
        flag: &str,
        _value: &mut impl FnMut(&str) -> Value,
    ) -> Result<bool, String> {
        if HTTP_FLAGS.contains(&flag) {
            return Err(missing_feature("http"));
        }
        Ok(false)
    }

    /// How this process runs rather than what it serves: logging, the `requestState`
    /// key, and the protocol version of `call`'s in-process client.
    fn process_flag(
        &mut self,
        flag: &str,
        value: &mut impl FnMut(&str) -> Value,
    ) -> Result<bool, String> {
        match flag {
            "--log-level" => self.options.log_level = log_level(&value(flag)?)?,
            "--state-key-file" => self.options.state_key_file = Some(PathBuf::from(value(flag)?)),
            "--protocol" => {
                self.version = protocol(&value(flag)?)?;
                self.version_given = true;
            }
            "--json" => self.output = Some(Output::Json),
            "--text" => self.output = Some(Output::Text),
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// The command the positional arguments name, once every flag is read.
    fn finish(self, positional: Vec<String>) -> Result<Command, String> {
        if self.toolsets_given && self.options.profile != Profile::Workspace {
            return Err("--toolsets applies to the workspace profile only".into());
        }
        if !self.options.profile.is_built() {
            // Also the default profile in a build without `workspace`: `--help` still works.
            return Err(missing_feature(self.options.profile.feature()));
        }
        let mut positional = positional.into_iter();
        let first = positional.next();
        // `minimcp DIR`: a bare directory is a root (the habit server-filesystem taught). A
        // path-like argument that does not exist is taken as one too, so startup says so.
        let bare_dir = first
            .as_deref()
            .filter(|f| !matches!(*f, "serve" | "call" | "help"))
            .filter(|f| expand_home(f).is_dir() || f.contains('/'));
        if matches!(first.as_deref(), None | Some("serve")) || bare_dir.is_some() {
            let dirs = bare_dir.map(str::to_string).into_iter().chain(positional);
            return self.serve(dirs);
        }
        match first.as_deref() {
            Some("call") => self.call(positional),
            Some("help") | None => Ok(Command::Help),
            Some(other) => Err(format!(
                "unknown command {other:?} (and not a directory); see --help"
            )),
        }
    }

    /// `serve` with `dirs` as further roots.
    fn serve(mut self, dirs: impl Iterator<Item = String>) -> Result<Command, String> {
        self.options.roots.extend(dirs.map(|d| expand_home(&d)));
        if self.version_given {
            return Err("--protocol applies to `call` only".into());
        }
        if self.output.is_some() {
            return Err("--json and --text apply to `call` only".into());
        }
        #[cfg(feature = "http")]
        match self.http_addr {
            Some(Listen::Unix(_)) if self.http.config.allow_remote => {
                return Err("--allow-remote does not apply to a unix: socket, which is local by nature; its file permissions (0600) are the access control".into());
            }
            Some(listen) => {
                self.http.config.listen = listen;
                self.options.http = Some(self.http);
            }
            None if self.http_flags => {
                return Err("the HTTP options need --http ADDR:PORT".into());
            }
            None => {}
        }
        Ok(Command::Serve(self.options))
    }

    /// `call TARGET [JSON]`, from the arguments after `call`.
    fn call(self, mut rest: impl Iterator<Item = String>) -> Result<Command, String> {
        let target = rest
            .next()
            .ok_or("call needs a tool or method name; see --help")?;
        let params = match rest.next() {
            None => serde_json::json!({}),
            Some(text) => serde_json::from_str(&text)
                .map_err(|e| format!("the JSON argument is not valid JSON: {e}"))?,
        };
        if !params.is_object() {
            return Err(
                "the JSON argument must be an object, such as {\"pattern\":\"**/*.rs\"}".into(),
            );
        }
        if let Some(extra) = rest.next() {
            return Err(format!("unexpected argument {extra:?}; see --help"));
        }
        Ok(Command::Call {
            options: self.options,
            target,
            params,
            version: self.version,
            output: self.output.unwrap_or(Output::Auto),
        })
    }
}

/// The HTTP flags besides `--http` itself.
#[cfg(feature = "http")]
fn http_option(
    http: &mut Http,
    flag: &str,
    value: &mut impl FnMut(&str) -> Value,
) -> Result<bool, String> {
    match flag {
        "--http-path" => http.config.path = http_path(value(flag)?)?,
        "--allow-remote" => http.config.allow_remote = true,
        "--token-file" => http.token_file = Some(PathBuf::from(value(flag)?)),
        "--allow-origin" => http.config.allowed_origins.push(value(flag)?),
        "--http-timeout" => http.config.read_timeout = seconds(&value(flag)?, flag)?,
        "--http-head-timeout" => http.config.head_timeout = seconds(&value(flag)?, flag)?,
        "--max-connections" => http.config.max_connections = number(&value(flag)?, flag, 1)?,
        "--max-sessions" => http.config.max_sessions = number(&value(flag)?, flag, 1)?,
        "--session-idle" => http.config.session_idle = seconds(&value(flag)?, flag)?,
        "--access-log" => http.config.access_log = true,
        "--instance-id" => http.config.instance_id = Some(value(flag)?),
        "--session-route-header" => {
            http.config.session_route_header = Some(header_name(value(flag)?)?)
        }
        _ => return Ok(false),
    }
    Ok(true)
}

fn profile(name: &str) -> Result<Profile, String> {
    match name {
        "workspace" => Ok(Profile::Workspace),
        "conformance" => Ok(Profile::Conformance),
        "transcripts" => Ok(Profile::Transcripts),
        other => Err(format!(
            "unknown profile {other:?}; use workspace, conformance or transcripts"
        )),
    }
}

#[cfg(test)]
mod tests;
