//! Every flag of every command, once: what `--help`, the man page and the shell completions
//! are written from, and what the parser checks a flag against before reading it. A flag
//! that is not here is refused, so none can be accepted without being documented (a test
//! checks the other way: each flag here is read by its command's parser).

use minimcp::Version;

/// A command of the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Sub {
    Serve,
    Call,
    Analyze,
    Churn,
}

impl Sub {
    /// Every command, in the order help lists them.
    pub(crate) const ALL: [Sub; 4] = [Sub::Serve, Sub::Call, Sub::Analyze, Sub::Churn];

    /// The word that names it.
    pub(crate) fn word(self) -> &'static str {
        match self {
            Sub::Serve => "serve",
            Sub::Call => "call",
            Sub::Analyze => "analyze",
            Sub::Churn => "churn",
        }
    }

    /// The command a word names.
    pub(crate) fn of(word: &str) -> Option<Sub> {
        Sub::ALL.into_iter().find(|s| s.word() == word)
    }
}

/// What a flag's value is, for completions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Values {
    /// Anything (a number, a glob, a name).
    Any,
    Dir,
    File,
    /// One of these words.
    Words(&'static [&'static str]),
    /// A protocol version.
    Versions,
    /// A comma-separated list of toolsets.
    Toolsets,
}

/// The heading a flag is listed under in its command's help.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Group {
    Served,
    Limits,
    Http,
    Process,
    Call,
    Gate,
    Report,
    General,
}

impl Group {
    /// Headings in the order help shows them.
    pub(crate) const ALL: [Group; 8] = [
        Group::Served,
        Group::Call,
        Group::Gate,
        Group::Report,
        Group::Limits,
        Group::Http,
        Group::Process,
        Group::General,
    ];

    pub(crate) fn heading(self) -> &'static str {
        match self {
            Group::Served => "WHAT IS SERVED",
            Group::Limits => "LIMITS",
            Group::Http => "STREAMABLE HTTP",
            Group::Process => "LOGGING AND STATE",
            Group::Call => "THE CALL",
            Group::Gate => "LIMITS AND WHAT FAILS",
            Group::Report => "WHAT IS MEASURED AND WRITTEN",
            Group::General => "GENERAL",
        }
    }
}

/// One flag.
#[derive(Debug)]
pub(crate) struct Flag {
    /// Its spellings: the first is the one help lists first (`-h` before `--help`).
    pub(crate) names: &'static [&'static str],
    /// What its value is called in help (`DIR`), when it takes one.
    pub(crate) value: Option<&'static str>,
    pub(crate) values: Values,
    pub(crate) group: Group,
    /// The commands that take it.
    pub(crate) subs: &'static [Sub],
    /// The Cargo feature it needs, when it is optional.
    pub(crate) feature: Option<&'static str>,
    /// What it does, in sentences (help wraps them).
    pub(crate) help: &'static str,
}

impl Flag {
    /// Whether this binary was built with the flag's feature.
    pub(crate) fn is_built(&self) -> bool {
        match self.feature {
            None => true,
            Some("http") => cfg!(feature = "http"),
            Some("edit") => cfg!(feature = "edit"),
            Some("analysis") => cfg!(feature = "analysis"),
            Some(_) => false,
        }
    }

    /// The help's first sentence: what completions show beside the name (the toolsets by
    /// name where the help lists them).
    pub(crate) fn summary(&self) -> String {
        let end = self.help.find(". ").map_or(self.help.len(), |i| i + 1);
        let names: Vec<&str> = super::registry::TOOLSETS.iter().map(|t| t.name).collect();
        self.help[..end]
            .trim_end_matches('.')
            .replace("{toolsets}", &names.join(", "))
    }

    /// The words a value may be, for completions (empty: anything).
    pub(crate) fn words(&self) -> Vec<&'static str> {
        match self.values {
            Values::Words(words) => words.to_vec(),
            Values::Versions => Version::ALL.iter().map(|v| v.as_str()).collect(),
            Values::Toolsets => super::registry::TOOLSETS.iter().map(|t| t.name).collect(),
            Values::Any | Values::Dir | Values::File => Vec::new(),
        }
    }
}

/// The flags `sub` takes in this build, in table order.
pub(crate) fn of(sub: Sub) -> impl Iterator<Item = &'static Flag> {
    FLAGS
        .iter()
        .filter(move |f| f.subs.contains(&sub) && f.is_built())
}

/// The flag spelled `name`: `sub`'s if it has one, else another command's; built or not.
pub(crate) fn find(sub: Sub, name: &str) -> Option<&'static Flag> {
    let named = || FLAGS.iter().filter(|f| f.names.contains(&name));
    named()
        .find(|f| f.subs.contains(&sub))
        .or_else(|| named().next())
}

/// Why `name` is not a flag of `sub`, with what to do instead: the command it belongs to,
/// the feature it needs, or the closest flag of `sub`.
pub(crate) fn refuse(sub: Sub, name: &str) -> String {
    let help = format!("see `minimcp {} --help`", sub.word());
    if let Some(flag) = find(sub, name) {
        if flag.subs.contains(&sub) {
            return super::features::missing_feature(flag.feature.unwrap_or_default());
        }
        let others: Vec<String> = flag
            .subs
            .iter()
            .map(|s| format!("`{}`", s.word()))
            .collect();
        return format!("{name} applies to {} only; {help}", others.join(" and "));
    }
    let names = of(sub).flat_map(|f| f.names.iter().copied());
    match minimcp_base::schema::closest(name, names.filter(|n| n.starts_with("--"))) {
        Some(near) => format!("unknown option {name}; did you mean {near}? {help}"),
        None => format!("unknown option {name}; {help}"),
    }
}

/// `serve` and `call`: the workspace, its limits, logging and the state key.
const SERVER: &[Sub] = &[Sub::Serve, Sub::Call];
const SERVE: &[Sub] = &[Sub::Serve];
const CALL: &[Sub] = &[Sub::Call];
const ANALYZE: &[Sub] = &[Sub::Analyze];
const CHURN: &[Sub] = &[Sub::Churn];
const REPORTS: &[Sub] = &[Sub::Analyze, Sub::Churn];
const EVERY: &[Sub] = &Sub::ALL;

/// The formats `analyze --format` takes (`--report` takes them too).
pub(crate) const ANALYZE_FORMATS: &[&str] = &[
    "summary",
    "markdown",
    "json",
    "sarif",
    "gitlab",
    "checkstyle",
    "csv",
];
/// The formats `churn --format` takes.
pub(crate) const CHURN_FORMATS: &[&str] = &["markdown", "json", "csv"];

/// A flag whose value is anything, in `group`, for `subs`.
const fn flag(
    names: &'static [&'static str],
    value: Option<&'static str>,
    values: Values,
    group: Group,
    subs: &'static [Sub],
    help: &'static str,
) -> Flag {
    Flag {
        names,
        value,
        values,
        group,
        subs,
        feature: None,
        help,
    }
}

/// An HTTP flag of `serve`.
const fn http(
    name: &'static [&'static str],
    value: Option<&'static str>,
    values: Values,
    help: &'static str,
) -> Flag {
    Flag {
        feature: Some("http"),
        ..flag(name, value, values, Group::Http, SERVE, help)
    }
}

use Group as G;
use Values as V;

/// Every flag. Its help is the truth `--help`, the man page and the completions tell.
pub(crate) const FLAGS: &[Flag] = &[
    flag(&["--root"], Some("DIR"), V::Dir, G::Served, SERVER,
        "A directory the tools may read (and, with the edit toolset, write); repeat for several. `~` is expanded. Without one, the roots are the client's (roots/list), else the current directory, but never `/` or the home directory implicitly. Nothing outside the roots is ever read or written."),
    flag(&["--deny"], Some("GLOB"), V::Any, G::Served, SERVER,
        "Hide and refuse matching files everywhere (.gitignore syntax); repeatable. The defaults: .env .env.* *.env *.pem *.key *.p12 *.pfx id_rsa* id_dsa* id_ecdsa* id_ed25519*. `--deny none` clears the list (a later --deny adds again)."),
    flag(&["--deny-write"], Some("GLOB"), V::Any, G::Served, SERVER,
        "With editing on, never create, change or move matching files (they can still be read); repeatable, case ignored. The defaults are what grants access or runs code at the next login: .ssh/ authorized_keys .profile .bashrc .bash_profile .zshrc .zprofile .config/fish/ and other shell start-up files, X session and autostart files, .config/systemd/, .pam_environment, .rhosts, .forward, .gnupg/ (see SECURITY.md). `--deny-write none` clears the list."),
    flag(&["--toolsets"], Some("LIST"), V::Toolsets, G::Served, SERVER,
        "The toolsets of the workspace profile, comma-separated (default: all but edit): {toolsets}. A model works better with only the tools it needs. `edit` MODIFIES FILES in the roots (write, edit, patch, create directories, move) and is served only when named."),
    flag(&["--profile"], Some("NAME"), V::Words(&["workspace", "conformance", "transcripts"]), G::Served, SERVER,
        "workspace (default): the toolsets of --toolsets for the roots. conformance: the fixtures of the official conformance suite and the benchmarks (an `echo` tool among them). transcripts: those plus the fixtures of the transcript corpus in conformance/."),
    Flag {
        feature: Some("edit"),
        ..flag(&["--max-write-bytes"], Some("N"), V::Any, G::Served, SERVER,
            "The largest file the edit toolset writes (default 4194304).")
    },
    flag(&["--walk-timeout"], Some("SECS"), V::Any, G::Limits, SERVER,
        "How long one search, listing or resource walk may take before it answers with a partial result that says so (default 15)."),
    flag(&["--walk-max-entries"], Some("N"), V::Any, G::Limits, SERVER,
        "Entries one walk may examine (default 200000)."),
    flag(&["--analysis-timeout"], Some("SECS"), V::Any, G::Limits, SERVER,
        "How long one analyze_complexity or analyze_code_churn walk may take (default 60)."),
    flag(&["--max-message-bytes"], Some("N"), V::Any, G::Limits, SERVER,
        "The longest request line or HTTP body (default 1048576). A longer line is skipped unread and answered with error -32600; a longer body gets 413."),
    flag(&["--max-response-bytes"], Some("N"), V::Any, G::Limits, SERVER,
        "The largest response (default 10485760). A larger tool result becomes a tool error; another response, error -32001."),
    flag(&["--max-result-bytes"], Some("N"), V::Any, G::Limits, SERVER,
        "The budget of one tool result (default 80000, about 20,000 tokens): the larger of its text and its structuredContent. Tools page to stay within it; a larger result becomes a tool error."),
    flag(&["--rate-limit"], Some("N/s"), V::Any, G::Limits, SERVER,
        "At most N requests per second, in bursts of up to N (default: no limit). Requests past it get error -32000 with data.retryAfterMs."),
    flag(&["--page-size"], Some("N"), V::Any, G::Limits, SERVER,
        "Items per page of tools/list, prompts/list, resources/list and resources/templates/list (default 100); nextCursor reaches the rest."),
    flag(&["--request-timeout"], Some("SECS"), V::Any, G::Limits, SERVER,
        "How long a request to the client (sampling, elicitation, roots) may wait for its answer (default 60)."),
    http(&["--http"], Some("ADDR:PORT|unix:PATH"), V::Any,
        "Serve Streamable HTTP instead of stdio: on ADDR:PORT (a bare PORT means 127.0.0.1), loopback unless --allow-remote; or on a Unix socket created at PATH with mode 0600, so that only this user can connect and no token is needed. A stale socket at PATH is replaced; a live one, another file, or a PATH in a directory another user can change is refused."),
    http(&["--http-path"], Some("PATH"), V::Any,
        "The MCP endpoint (default /mcp). GET /healthz answers ok."),
    http(&["--allow-remote"], None, V::Any,
        "Allow a non-loopback --http address; it needs a bearer token from --token-file or the MINIMCP_TOKEN variable. Not with unix:PATH."),
    http(&["--token-file"], Some("FILE"), V::File,
        "Every HTTP request must carry Authorization: Bearer TOKEN, TOKEN being the file's first line."),
    http(&["--allow-origin"], Some("ORIGIN"), V::Any,
        "Accept this Origin besides loopback ones (repeatable)."),
    http(&["--http-timeout"], Some("SECS"), V::Any,
        "A request must arrive whole within SECS; an idle keep-alive connection closes after it (default 30)."),
    http(&["--http-head-timeout"], Some("SECS"), V::Any,
        "A new connection's first request head must arrive within SECS (default 10)."),
    http(&["--max-connections"], Some("N"), V::Any,
        "Open HTTP connections at once (default 64). When all are open, a new one takes the place of the one that waited longest for a request; when all are being served, it gets 503."),
    http(&["--max-sessions"], Some("N"), V::Any,
        "Legacy HTTP sessions at once (default 256); more get 503."),
    http(&["--session-idle"], Some("SECS"), V::Any,
        "End an HTTP session unused this long (default 1800)."),
    http(&["--access-log"], None, V::Any,
        "One access line per HTTP request on stderr whatever --log-level says (--log-level info writes them too)."),
    http(&["--instance-id"], Some("NAME"), V::Any,
        "Name this instance in access lines."),
    http(&["--session-route-header"], Some("HEADER"), V::Any,
        "Start new session ids with the load balancer's routing key from HEADER (1-64 hex digits), such as X-Mcp-Route (docs/http.md, Running many instances)."),
    flag(&["--log-level"], Some("LEVEL"), V::Words(&["off", "error", "warn", "info", "debug"]), G::Process, SERVER,
        "What goes to stderr: off, error, warn (default), info (also one line per request: its method, tool, duration and outcome, never its arguments), debug. stdout carries protocol messages only."),
    flag(&["--log-format"], Some("FORMAT"), V::Words(&["text", "json"]), G::Process, SERVER,
        "text (default): `TIMESTAMP minimcp: LEVEL: message`; json: the same as one JSON object per line."),
    flag(&["--state-key-file"], Some("FILE"), V::File, G::Process, SERVER,
        "Seal 2026-07-28 requestState with a key derived from FILE's first line (at least 32 bytes, such as `head -c 32 /dev/urandom | base64`); a second line is a key also accepted (rotation). Processes sharing it accept each other's input_required retries (default: a random key)."),
    flag(&["--protocol"], Some("VERSION"), V::Versions, G::Call, CALL,
        "The protocol version of the in-process client (default 2025-11-25; 2026-07-28 sends per-request _meta instead of a handshake)."),
    flag(&["--json"], None, V::Any, G::Call, CALL,
        "Print the whole result as JSON (the default when stdout is not a terminal)."),
    flag(&["--text"], None, V::Any, G::Call, CALL,
        "Print a tool's text content as text (the default at a terminal)."),
    Flag {
        feature: Some("analysis"),
        ..flag(&["--max-cyclomatic"], Some("N"), V::Any, G::Gate, ANALYZE,
            "A function whose cyclomatic complexity is above N fails. Wins over .minimcp.toml's max-cyclomatic; without a limit from either (or a baseline), nothing fails.")
    },
    Flag {
        feature: Some("analysis"),
        ..flag(&["--max-cognitive"], Some("N"), V::Any, G::Gate, ANALYZE,
            "A function whose cognitive complexity is above N fails. Wins over .minimcp.toml's max-cognitive.")
    },
    Flag {
        feature: Some("analysis"),
        ..flag(&["--config"], Some("FILE"), V::File, G::Gate, ANALYZE,
            "Read FILE instead of the repository's .minimcp.toml ([analyze] max-cyclomatic, max-cognitive, exclude, and [[analyze.override]] per paths).")
    },
    Flag {
        feature: Some("analysis"),
        ..flag(&["--baseline"], Some("FILE"), V::File, G::Gate, ANALYZE,
            "Fail only for functions new or worse than in FILE, which --write-baseline wrote.")
    },
    Flag {
        feature: Some("analysis"),
        ..flag(&["--write-baseline"], Some("FILE"), V::File, G::Gate, ANALYZE,
            "Record the functions above the limits in FILE, and exit 0.")
    },
    Flag {
        feature: Some("analysis"),
        ..flag(&["--diff"], Some("REV"), V::Any, G::Gate, ANALYZE,
            "Only functions whose lines differ from git revision REV (such as origin/main).")
    },
    Flag {
        feature: Some("analysis"),
        ..flag(&["--exclude"], Some("GLOB"), V::Any, G::Report, REPORTS,
            "Leave out matching files or directories (repeatable).")
    },
    Flag {
        feature: Some("analysis"),
        ..flag(&["--format"], Some("FORMAT"), V::Words(ANALYZE_FORMATS), G::Report, ANALYZE,
            "summary (default): a few lines, failures first; markdown, json, sarif (GitHub code scanning), gitlab (Code Quality), checkstyle (Jenkins), csv.")
    },
    Flag {
        feature: Some("analysis"),
        ..flag(&["--report"], Some("FORMAT=FILE"), V::File, G::Report, ANALYZE,
            "Also write FORMAT to FILE (repeatable), such as sarif=complexity.sarif.")
    },
    Flag {
        feature: Some("analysis"),
        ..flag(&["--format"], Some("FORMAT"), V::Words(CHURN_FORMATS), G::Report, CHURN,
            "markdown (default), json or csv.")
    },
    Flag {
        feature: Some("analysis"),
        ..flag(&["--days", "--since"], Some("N"), V::Any, G::Report, CHURN,
            "The period, in days back from now (default 30).")
    },
    flag(&["-h", "--help"], None, V::Any, G::General, EVERY,
        "Print this help (with the flags before it, for the configuration they describe)."),
    flag(&["-V", "--version"], None, V::Any, G::General, EVERY,
        "Print the version, the commit it was built from and its Cargo features."),
];
