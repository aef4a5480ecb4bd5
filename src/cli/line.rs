//! The command line of `serve` and `call`: each flag applied to the options, and the checks
//! that need the whole line.

#[cfg(feature = "http")]
use std::net::SocketAddr;
use std::path::PathBuf;

use minimcp::{Limits, Version};
use minimcp_base::log::{Format, Level};
#[cfg(feature = "http")]
use minimcp_http::Listen;

use super::flags::Sub;
use super::values::{
    deny, expand_home, limit_flag, log_format, log_level, number, protocol, seconds, toolsets,
    Value, DEFAULT_DENY, DEFAULT_DENY_WRITE,
};
#[cfg(feature = "http")]
use super::values::{header_name, http_addr, http_path};
#[cfg(feature = "http")]
use super::Http;
use super::{flags, help, is_flag, missing_feature, registry, Command, Options, Output, Profile};

/// Parses the line of `sub` (`serve` or `call`): every flag, then the positional arguments.
pub(super) fn parse(args: Vec<String>, sub: Sub) -> Result<Command, String> {
    let mut args = args.into_iter();
    let mut line = Line::new();
    let mut positional = Vec::new();
    let mut help = false;
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
            "-h" | "--help" => help = true,
            "-V" | "--version" => return Ok(Command::Print(help::version())),
            _ if !is_flag(&flag) => positional.push(arg),
            _ if !flags::of(sub).any(|f| f.names.contains(&flag.as_str())) => {
                return Err(flags::refuse(sub, &flag));
            }
            _ if !line.flag(&flag, &mut value)? => {
                return Err(format!("{flag} is documented but not read: a bug"));
            }
            _ => {}
        }
    }
    if help {
        return Ok(Command::Print(line.help(sub, positional)));
    }
    line.finish(positional)
}

/// The options with no flag given.
pub(super) fn defaults() -> Options {
    Line::new().options
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
                log_format: Format::Text,
                limits: Limits::default(),
            },
            #[cfg(feature = "http")]
            http_addr: None,
            #[cfg(feature = "http")]
            http: Http {
                config: minimcp_http::HttpConfig::new(SocketAddr::from(([127, 0, 0, 1], 0))),
                token_file: None,
            },
            #[cfg(feature = "http")]
            http_flags: false,
            version: Version::LATEST_HANDSHAKE,
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

    /// Without the `http` feature there is no HTTP flag (the table says which feature
    /// they need).
    #[cfg(not(feature = "http"))]
    fn http_flag(&mut self, _: &str, _: &mut impl FnMut(&str) -> Value) -> Result<bool, String> {
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
            "--log-format" => self.options.log_format = log_format(&value(flag)?)?,
            "--state-key-file" => self.options.state_key_file = Some(PathBuf::from(value(flag)?)),
            "--protocol" => self.version = protocol(&value(flag)?)?,
            "--json" => self.output = Some(Output::Json),
            "--text" => self.output = Some(Output::Text),
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// The help of `sub` for the configuration read so far, bare directories included.
    fn help(mut self, sub: Sub, positional: Vec<String>) -> String {
        let top = sub == Sub::Serve && positional.first().map(String::as_str) != Some("serve");
        let dirs = positional
            .into_iter()
            .filter(|p| !matches!(p.as_str(), "serve" | "call") && sub == Sub::Serve);
        self.options.roots.extend(dirs.map(|d| expand_home(&d)));
        #[cfg(feature = "http")]
        if let Some(listen) = self.http_addr.take() {
            self.http.config.listen = listen;
            self.options.http = Some(self.http);
        }
        match top {
            true => help::top(&self.options),
            false => help::of(sub, Some(&self.options)),
        }
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
            .filter(|f| !matches!(*f, "serve" | "call"))
            .filter(|f| expand_home(f).is_dir() || f.contains('/'));
        if matches!(first.as_deref(), None | Some("serve")) || bare_dir.is_some() {
            let dirs = bare_dir.map(str::to_string).into_iter().chain(positional);
            return self.serve(dirs);
        }
        match first.as_deref() {
            Some("call") => self.call(positional),
            other => Err(format!(
                "unknown command {:?} (and not a directory); see `minimcp --help`",
                other.unwrap_or_default()
            )),
        }
    }

    /// `serve` with `dirs` as further roots.
    fn serve(mut self, dirs: impl Iterator<Item = String>) -> Result<Command, String> {
        self.options.roots.extend(dirs.map(|d| expand_home(&d)));
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
            .ok_or("call needs a tool or method name; see `minimcp call --help`")?;
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
            return Err(format!(
                "unexpected argument {extra:?}; see `minimcp call --help`"
            ));
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
