//! Command-line parsing, by hand (no clap: the design card allows three dependencies).

#[cfg(feature = "http")]
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

#[cfg(feature = "http")]
use minimcp::http::Listen;
use minimcp::log::Level;
#[cfg(feature = "workspace")]
use minimcp::toolsets::workspace::{expand_home, DEFAULT_DENY};
use minimcp::{Limits, Version};

/// Without the workspace toolset there is no deny list to start from.
#[cfg(not(feature = "workspace"))]
const DEFAULT_DENY: &[&str] = &[];

/// `~` and `~/…` with `$HOME` put in, as the workspace toolset's `expand_home` does (for
/// `--http unix:~/…` in a build without that toolset).
#[cfg(not(feature = "workspace"))]
fn expand_home(path: &str) -> PathBuf {
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .filter(|h| h.is_absolute());
    match (path.strip_prefix('~'), home) {
        (Some(""), Some(home)) => home,
        (Some(rest), Some(home)) if rest.starts_with('/') => home.join(&rest[1..]),
        _ => PathBuf::from(path),
    }
}

/// What a flag, profile or toolset of a Cargo feature this binary was built without says
/// (the command line is refused with exit status 2).
pub(crate) fn missing_feature(feature: &str) -> String {
    format!(
        "this binary was built without the `{feature}` feature: rebuild with `cargo build --features {feature}`"
    )
}

/// The toolsets of the workspace profile that a build may leave out: each is the Cargo
/// feature of the same name.
const OPTIONAL_TOOLSETS: &[&str] = &["workspace", "templates", "analysis", "edit"];

/// Every HTTP flag, `--http` first: in a build without the `http` feature each of them
/// names that feature instead of being an unknown option (with it, a test checks the list
/// against the parser).
#[cfg_attr(feature = "http", allow(dead_code))]
const HTTP_FLAGS: &[&str] = &[
    "--http",
    "--http-path",
    "--allow-remote",
    "--token-file",
    "--allow-origin",
    "--http-timeout",
    "--max-connections",
    "--max-sessions",
    "--session-idle",
    "--access-log",
    "--instance-id",
    "--session-route-header",
];

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
    /// [`minimcp::toolsets::TOOLSETS`]; all of them by default.
    pub(crate) toolsets: Vec<&'static str>,
    pub(crate) log_level: Level,
    pub(crate) limits: Limits,
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
    fn is_built(self) -> bool {
        match self {
            Profile::Workspace => cfg!(feature = "workspace"),
            Profile::Conformance | Profile::Transcripts => cfg!(feature = "conformance"),
        }
    }
}

const HELP: &str = "\
minimcp — a small, read-only Model Context Protocol server over stdio

USAGE:
    minimcp [serve] [OPTIONS] [DIR...]        serve one MCP session on stdin/stdout; each
                                              DIR is a workspace root, like --root DIR
    minimcp serve --http ADDR:PORT [OPTIONS]  serve Streamable HTTP (POST/GET/DELETE on
                                              --http-path), loopback unless --allow-remote
    minimcp serve --http unix:PATH [OPTIONS]  the same over a Unix socket created at PATH
                                              with mode 0600 (no token needed)
    minimcp call <TOOL|METHOD> [JSON] [OPTIONS]
                                              run one session in-process: initialize, make
                                              one call, print the result as JSON
    minimcp --help | --version

    call: a TOOL name calls tools/call with JSON as its arguments (default {});
          a METHOD (it contains '/', e.g. tools/list, resources/read) is sent with JSON
          as its params. Exit status 0 on success, 1 on an error or an isError result.

OPTIONS:
    --root DIR                A workspace root the tools may read; repeat for several.
                              `~` is expanded. Without one, the roots are the client's
                              (roots/list), else the current directory -- but never
                              `/` or the home directory implicitly. Nothing outside
                              the roots is ever read; nothing is ever written.
    --deny GLOB               Hide and refuse matching files everywhere (.gitignore
                              syntax); repeatable. Defaults: .env .env.* *.env *.pem *.key
                              *.p12 *.pfx id_rsa* id_dsa* id_ecdsa* id_ed25519*.
                              `--deny none` clears the list (later --deny add again).
    --walk-timeout SECS       How long one search, listing or resource walk may take
                              before it answers with a partial result that says so
                              (default 15).
    --walk-max-entries N      Entries one walk may examine (default 200000).
    --analysis-timeout SECS   How long one analyze_complexity or churn walk may take
                              (default 60).
    --profile NAME            workspace (default): the toolsets of --toolsets for the
                              workspace roots.
                              conformance: fixtures for the official conformance suite
                              and benchmarks (includes an `echo` tool).
                              transcripts: conformance plus the fixtures of the
                              transcript corpus in conformance/.
    --toolsets LIST           Comma-separated toolsets of the workspace profile
                              (default: all but edit). A model works better with only
                              the tools it needs:
{toolsets}
                              `--toolsets workspace,edit` serves the workspace tools
                              and lets the server MODIFY FILES in the roots.
    --max-write-bytes N       Largest file the edit toolset writes (default 4194304).
    --log-level LEVEL         What to write to stderr: off, error, warn (default), info,
                              debug. stdout carries protocol messages only.
    --max-message-bytes N     Longest accepted request line (default 1048576). Longer
                              lines are skipped unread and answered with error -32600.
    --max-response-bytes N    Largest response (default 10485760). A larger tool result
                              becomes a tool error; other responses error -32001.
    --max-result-bytes N      Budget for one tool result (default 80000, about 20,000
                              tokens): the larger of its text and its structuredContent.
                              Tools page to stay within it; a larger result becomes a
                              tool error.
    --rate-limit N/s          At most N requests per second, bursts up to N (default:
                              no limit). Excess requests get error -32000 with
                              data.retryAfterMs.
    --page-size N             Items per page of tools/list, prompts/list,
                              resources/list and resources/templates/list (default
                              100); the rest is reached through nextCursor.
    --request-timeout SECS    How long a request to the client (sampling, elicitation,
                              roots) may wait for its answer (default 60).
    --http ADDR:PORT          Serve Streamable HTTP on ADDR:PORT (e.g. 127.0.0.1:8080;
                              a bare PORT means 127.0.0.1) instead of stdio.
    --http unix:PATH          Serve it on a Unix socket at PATH (Unix only), mode 0600:
                              only this user can connect, so no token is needed (one
                              given is still required) and any Host is accepted. A
                              stale socket at PATH (its server killed) is replaced; a
                              live one, or any other file, is refused.
    --http-path PATH          The MCP endpoint (default /mcp). GET /healthz answers ok.
    --allow-remote            Allow a non-loopback --http address; needs a bearer token
                              from --token-file or the MINIMCP_TOKEN variable. Not
                              with unix:PATH.
    --token-file FILE         Every HTTP request must carry Authorization: Bearer TOKEN
                              (the file's first line).
    --allow-origin ORIGIN     Accept this Origin besides loopback ones (repeatable).
    --http-timeout SECS       A request must arrive whole within SECS; idle keep-alive
                              connections close after it (default 30).
    --max-connections N       Open HTTP connections at once (default 64); more get 503.
    --max-sessions N          HTTP sessions at once (default 256); more get 503.
    --session-idle SECS       End an HTTP session unused this long (default 1800).
    --access-log              One line per HTTP request on stderr at any --log-level
                              (method, path, MCP method, status, microseconds; also
                              written at --log-level info).
    --instance-id NAME        Name this instance in access lines.
    --session-route-header H  Start new session ids with the balancer's routing key from
                              header H (1-64 hex digits), e.g. X-Mcp-Route: see the
                              README, Running many instances.
    --state-key-file FILE     Seal 2026-07-28 requestState with a key derived from FILE's
                              first line (at least 32 bytes, e.g. `head -c 32
                              /dev/urandom | base64`); a second line is a key also
                              accepted (rotation). Processes sharing it accept each
                              other's input_required retries (default: a random key).
    --protocol VERSION        call only: the protocol version of the in-process client
                              (default 2025-11-25; 2026-07-28 uses per-request _meta).
    --json, --text            call only: print the result as JSON, or a tool's text as
                              text (default: text at a terminal, JSON otherwise).
    -h, --help                Print this help.
    -V, --version             Print the version.
";

/// The help text, with one line per toolset of [`minimcp::toolsets::TOOLSETS`].
pub(crate) fn help() -> String {
    let lines: Vec<String> = minimcp::toolsets::TOOLSETS
        .iter()
        .map(|t| format!("{:30}{}: {}\n", "", t.name, t.summary))
        .collect();
    let mut help = HELP.replace("{toolsets}\n", &lines.concat());
    let missing = missing_features();
    if !missing.is_empty() {
        help.push_str(&format!(
            "\nThis binary was built without the features {}.\nTheir options, profiles and toolsets exit with status 2; rebuild with\n`cargo build --features NAME` to have them.\n",
            missing.join(", ")
        ));
    }
    help
}

/// The optional Cargo features this binary was built without (none in the default build).
fn missing_features() -> Vec<&'static str> {
    [
        ("http", cfg!(feature = "http")),
        ("workspace", cfg!(feature = "workspace")),
        ("templates", cfg!(feature = "templates")),
        ("analysis", cfg!(feature = "analysis")),
        ("edit", cfg!(feature = "edit")),
        ("conformance", cfg!(feature = "conformance")),
    ]
    .into_iter()
    .filter(|(_, built)| !built)
    .map(|(name, _)| name)
    .collect()
}

/// Parses the arguments after the program name.
pub(crate) fn parse(args: impl IntoIterator<Item = String>) -> Result<Command, String> {
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
                walk_time: None,
                walk_entries: None,
                analysis_time: None,
                max_write_bytes: None,
                #[cfg(feature = "http")]
                http: None,
                state_key_file: None,
                profile: Profile::Workspace,
                toolsets: minimcp::toolsets::default_names(),
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
            "--deny" => deny(&mut options.deny, &value(flag)?)?,
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

/// What reading a flag's value gives: the value, or "FLAG needs a value".
type Value = Result<String, String>;

/// The limits of the README's limits table.
fn limit_flag(
    limits: &mut Limits,
    flag: &str,
    value: &mut impl FnMut(&str) -> Value,
) -> Result<bool, String> {
    match flag {
        "--max-message-bytes" => limits.max_message_bytes = number(&value(flag)?, flag, 1024)?,
        "--max-response-bytes" => limits.max_response_bytes = number(&value(flag)?, flag, 1024)?,
        "--max-result-bytes" => limits.max_result_bytes = number(&value(flag)?, flag, 1024)?,
        "--rate-limit" => limits.rate_limit = Some(rate(&value(flag)?)?),
        "--page-size" => limits.page_size = number(&value(flag)?, flag, 1)?,
        "--request-timeout" => limits.request_timeout = seconds(&value(flag)?, flag)?,
        _ => return Ok(false),
    }
    Ok(true)
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

/// `--deny PATTERN`: `none` clears the list (defaults included), later patterns add again.
fn deny(list: &mut Vec<String>, pattern: &str) -> Result<(), String> {
    match pattern {
        "none" => list.clear(),
        "" => return Err("--deny needs a pattern such as '*.pem', or none".into()),
        pattern => list.push(pattern.to_string()),
    }
    Ok(())
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

fn log_level(level: &str) -> Result<Level, String> {
    Level::parse(level)
        .ok_or_else(|| format!("unknown log level {level:?}; use off, error, warn, info or debug"))
}

/// `--rate-limit N/s` (the `/s` is optional) → requests per second, finite and positive.
fn rate(text: &str) -> Result<f64, String> {
    let per_second = text.strip_suffix("/s").unwrap_or(text);
    per_second
        .parse()
        .ok()
        .filter(|r: &f64| r.is_finite() && *r > 0.0)
        .ok_or_else(|| {
            format!("--rate-limit wants requests per second such as 100/s, not {text:?}")
        })
}

/// `--http`: ADDR:PORT, or a bare PORT or localhost:PORT, which mean loopback; or
/// `unix:PATH` (`~` expanded).
#[cfg(feature = "http")]
fn http_addr(text: &str) -> Result<Listen, String> {
    if let Some(path) = text.strip_prefix("unix:") {
        if path.is_empty() {
            return Err(
                "--http unix: needs a path, such as unix:/run/user/1000/minimcp.sock".into(),
            );
        }
        return Ok(Listen::Unix(expand_home(path)));
    }
    text.parse::<SocketAddr>()
        .ok()
        .or_else(|| {
            let port = text.strip_prefix("localhost:").unwrap_or(text);
            port.parse::<u16>()
                .ok()
                .map(|p| SocketAddr::from(([127, 0, 0, 1], p)))
        })
        .map(Listen::Tcp)
        .ok_or_else(|| {
            format!("--http wants ADDR:PORT such as 127.0.0.1:8080, or unix:PATH, not {text:?}")
        })
}

#[cfg(feature = "http")]
fn http_path(path: String) -> Result<String, String> {
    if !path.starts_with('/') {
        return Err("--http-path must start with '/'".into());
    }
    Ok(path)
}

/// `--session-route-header`: a header name (letters, digits, `-`), never empty.
#[cfg(feature = "http")]
fn header_name(name: String) -> Result<String, String> {
    if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-') {
        return Err(format!(
            "--session-route-header wants a header name such as X-Mcp-Route, not {name:?}"
        ));
    }
    Ok(name)
}

fn protocol(text: &str) -> Result<Version, String> {
    Version::parse(text).ok_or_else(|| {
        let known: Vec<&str> = Version::ALL.iter().map(|v| v.as_str()).collect();
        format!(
            "unknown protocol version {text:?}; use one of {}",
            known.join(", ")
        )
    })
}

/// A whole number of seconds, at least one.
fn seconds(text: &str, flag: &str) -> Result<Duration, String> {
    Ok(Duration::from_secs(number(text, flag, 1)? as u64))
}

fn all_toolsets() -> Vec<&'static str> {
    minimcp::toolsets::TOOLSETS.iter().map(|t| t.name).collect()
}

/// `workspace,templates` → the names, each checked against the known toolsets.
fn toolsets(list: &str) -> Result<Vec<&'static str>, String> {
    let known = all_toolsets();
    let mut chosen = Vec::new();
    for name in list.split(',').map(str::trim) {
        let Some(found) = known.iter().find(|k| **k == name) else {
            if OPTIONAL_TOOLSETS.contains(&name) {
                return Err(missing_feature(name));
            }
            return Err(format!(
                "unknown toolset {name:?} in --toolsets; use a comma-separated list of {}",
                known.join(", ")
            ));
        };
        if !chosen.contains(found) {
            chosen.push(*found);
        }
    }
    Ok(chosen)
}

fn number(text: &str, flag: &str, minimum: usize) -> Result<usize, String> {
    text.parse::<usize>()
        .ok()
        .filter(|n| *n >= minimum)
        .ok_or_else(|| format!("{flag} wants a whole number of at least {minimum}, not {text:?}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_str(line: &str) -> Result<Command, String> {
        parse(line.split_whitespace().map(str::to_string))
    }

    #[test]
    #[cfg(feature = "templates")]
    fn serve_is_the_default() {
        let Ok(Command::Serve(options)) = parse_str("") else {
            panic!("expected serve");
        };
        assert_eq!(options.profile, Profile::Workspace);
        assert_eq!(options.toolsets, minimcp::toolsets::default_names());
        assert!(!options.toolsets.contains(&"edit"), "editing is opt-in");
        assert!(options.toolsets.contains(&"templates"));
        assert_eq!(options.limits, Limits::default());
        assert_eq!(
            parse_str("serve").map(|c| matches!(c, Command::Serve(_))),
            Ok(true)
        );
    }

    #[test]
    #[cfg(feature = "conformance")]
    fn flags_take_values_inline_or_separately() {
        let Ok(Command::Serve(o)) = parse_str(
            "serve --root /tmp --profile=conformance --log-level debug --max-message-bytes=4096 --rate-limit 50/s --request-timeout 5 --page-size=2",
        ) else {
            panic!("expected serve");
        };
        assert_eq!(o.roots, [PathBuf::from("/tmp")]);
        assert_eq!(o.profile, Profile::Conformance);
        assert_eq!(o.log_level, Level::Debug);
        assert_eq!(o.limits.max_message_bytes, 4096);
        assert_eq!(o.limits.rate_limit, Some(50.0));
        assert_eq!(o.limits.request_timeout, Duration::from_secs(5));
        assert_eq!(o.limits.page_size, 2);
    }

    #[test]
    #[cfg(all(feature = "http", feature = "workspace"))]
    fn http_takes_an_address_a_port_or_a_unix_socket() {
        let listen = |line: &str| match parse_str(line) {
            Ok(Command::Serve(Options {
                http: Some(http), ..
            })) => http.config.listen,
            other => panic!("{line}: {other:?}"),
        };
        assert_eq!(
            listen("--http 8080"),
            Listen::Tcp(SocketAddr::from(([127, 0, 0, 1], 8080)))
        );
        assert_eq!(
            listen("--http [::1]:9"),
            Listen::Tcp("[::1]:9".parse().expect("addr"))
        );
        assert_eq!(
            listen("--http=unix:/tmp/m.sock --token-file t"),
            Listen::Unix(PathBuf::from("/tmp/m.sock"))
        );
        assert_eq!(
            listen("--http unix:rel.sock"),
            Listen::Unix(PathBuf::from("rel.sock"))
        );
        assert!(help().contains("--http unix:PATH"));
    }

    #[test]
    fn help_lists_every_toolset() {
        let help = help();
        assert!(!help.contains("{toolsets}"));
        for toolset in minimcp::toolsets::TOOLSETS {
            assert!(help.contains(&format!("{}: ", toolset.name)), "{help}");
        }
    }

    #[test]
    #[cfg(feature = "templates")]
    fn toolsets_are_a_deduplicated_list() {
        let Ok(Command::Serve(o)) = parse_str("--toolsets templates,workspace,templates") else {
            panic!("expected serve");
        };
        assert_eq!(o.toolsets, ["templates", "workspace"]);
    }

    #[test]
    #[cfg(feature = "workspace")]
    fn roots_repeat_expand_home_and_come_bare() {
        let Ok(Command::Serve(o)) = parse_str("--root /tmp --root ~/proj serve /srv/a") else {
            panic!("expected serve");
        };
        let home = std::env::var("HOME").unwrap_or_default();
        let expected = [
            PathBuf::from("/tmp"),
            if home.starts_with('/') {
                PathBuf::from(home).join("proj")
            } else {
                PathBuf::from("~/proj")
            },
            PathBuf::from("/srv/a"),
        ];
        assert_eq!(o.roots, expected);
        let Ok(Command::Serve(bare)) = parse_str("/tmp") else {
            panic!("`minimcp DIR` serves DIR");
        };
        assert_eq!(bare.roots, [PathBuf::from("/tmp")]);
        assert!(
            parse_str("nonsense").is_err(),
            "not a directory, not a command"
        );
    }

    #[test]
    #[cfg(feature = "workspace")]
    fn the_deny_list_has_defaults_that_none_clears() {
        let Ok(Command::Serve(o)) = parse_str("--deny *.secret") else {
            panic!("expected serve");
        };
        assert!(o.deny.contains(&".env".to_string()));
        assert_eq!(o.deny.last().map(String::as_str), Some("*.secret"));
        let Ok(Command::Serve(none)) = parse_str("--deny none --deny x") else {
            panic!("expected serve");
        };
        assert_eq!(none.deny, ["x"]);
    }

    #[test]
    #[cfg(feature = "workspace")]
    fn call_takes_a_target_and_optional_json() {
        let Ok(Command::Call {
            target,
            params,
            version,
            ..
        }) = parse(
            [
                "call",
                "search_files",
                r#"{"pattern":"**/*.rs"}"#,
                "--protocol",
                "2026-07-28",
            ]
            .map(String::from),
        )
        else {
            panic!("expected call");
        };
        assert_eq!(target, "search_files");
        assert_eq!(params["pattern"], "**/*.rs");
        assert_eq!(version, Version::V2026_07_28);
        assert!(matches!(
            parse_str("call tools/list"),
            Ok(Command::Call {
                output: Output::Auto,
                ..
            })
        ));
        for (line, want) in [
            ("call t --json", Output::Json),
            ("call t --text", Output::Text),
        ] {
            let Ok(Command::Call { output, .. }) = parse_str(line) else {
                panic!("{line}");
            };
            assert_eq!(output, want, "{line}");
        }
    }

    #[test]
    #[cfg(all(feature = "workspace", feature = "conformance"))]
    fn mistakes_get_clear_messages() {
        for (line, message) in [
            ("--bogus", "unknown option --bogus"),
            ("--root", "--root needs a value"),
            ("--profile x", "unknown profile"),
            ("--toolsets workspace,bogus", "unknown toolset \"bogus\""),
            ("--toolsets ", "--toolsets needs a value"),
            ("--toolsets=", "unknown toolset \"\""),
            (
                "--profile conformance --toolsets workspace",
                "workspace profile only",
            ),
            ("--log-level loud", "unknown log level"),
            ("--max-message-bytes 12", "at least 1024"),
            ("--rate-limit fast", "requests per second"),
            ("--page-size 0", "at least 1"),
            ("call", "call needs a tool"),
            ("call t [1]", "must be an object"),
            ("call t {", "not valid JSON"),
            ("frobnicate", "unknown command"),
            ("--protocol 2025-11-25", "applies to `call` only"),
            ("call t {} --protocol 1", "unknown protocol version"),
            ("--json", "apply to `call` only"),
        ] {
            let err = parse_str(line).expect_err(line);
            assert!(err.contains(message), "{line}: {err}");
        }
        assert_eq!(parse_str("--help"), Ok(Command::Help));
        #[cfg(feature = "http")]
        for (line, message) in [
            ("--http unix:", "needs a path"),
            ("--http nonsense", "or unix:PATH"),
            (
                "--http unix:/tmp/m.sock --allow-remote",
                "--allow-remote does not apply",
            ),
        ] {
            let err = parse_str(line).expect_err(line);
            assert!(err.contains(message), "{line}: {err}");
        }
        assert_eq!(parse_str("-V"), Ok(Command::Version));
    }

    #[test]
    #[cfg(all(feature = "http", feature = "workspace"))]
    fn every_http_flag_is_known_to_the_parser() {
        for flag in HTTP_FLAGS {
            let line = format!("--http 8080 {flag} 1");
            if let Err(err) = parse_str(&line) {
                assert!(!err.contains("unknown option"), "{line}: {err}");
            }
        }
    }

    #[test]
    fn help_and_version_need_no_feature() {
        assert_eq!(parse_str("--help"), Ok(Command::Help));
        assert_eq!(parse_str("-V"), Ok(Command::Version));
        // The help names what this build left out, and says nothing in the default build.
        let missing = missing_features();
        assert_eq!(
            help().contains("built without the features"),
            !missing.is_empty()
        );
        for feature in missing {
            assert!(help().contains(feature));
        }
    }

    /// Runs only in a build without `http` (the CI's feature matrix).
    #[test]
    #[cfg(not(feature = "http"))]
    fn http_flags_name_the_missing_feature() {
        for flag in HTTP_FLAGS {
            let err = parse_str(&format!("--profile conformance {flag} 8080")).expect_err(flag);
            assert_eq!(
                err,
                "this binary was built without the `http` feature: rebuild with `cargo build --features http`"
            );
        }
    }

    /// Runs only in a build without `conformance`.
    #[test]
    #[cfg(not(feature = "conformance"))]
    fn fixture_profiles_name_the_missing_feature() {
        for profile in ["conformance", "transcripts"] {
            let err = parse_str(&format!("--profile {profile}")).expect_err(profile);
            assert!(err.contains("without the `conformance` feature"), "{err}");
        }
    }

    /// Every build: a toolset is accepted exactly when its feature was built.
    #[test]
    fn a_toolset_not_built_names_its_feature() {
        for name in OPTIONAL_TOOLSETS {
            let built = all_toolsets().contains(name);
            let result = toolsets(name);
            assert_eq!(result.is_ok(), built, "{name}: {result:?}");
            if !built {
                assert_eq!(result, Err(missing_feature(name)));
            }
        }
        #[cfg(not(feature = "workspace"))]
        assert_eq!(parse_str(""), Err(missing_feature("workspace")));
    }
}
