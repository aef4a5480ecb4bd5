//! The help text, and what a build without an optional feature says.

/// What a flag, profile or toolset of a Cargo feature this binary was built without says
/// (the command line is refused with exit status 2).
pub(crate) fn missing_feature(feature: &str) -> String {
    format!(
        "this binary was built without the `{feature}` feature: rebuild with `cargo build --features {feature}`"
    )
}

/// The toolsets of the workspace profile that a build may leave out: each is the Cargo
/// feature of the same name.
pub(super) const OPTIONAL_TOOLSETS: &[&str] = &["workspace", "templates", "analysis", "edit"];

/// Every HTTP flag, `--http` first: in a build without the `http` feature each of them
/// names that feature instead of being an unknown option (with it, a test checks the list
/// against the parser).
#[cfg_attr(feature = "http", allow(dead_code))]
pub(super) const HTTP_FLAGS: &[&str] = &[
    "--http",
    "--http-path",
    "--allow-remote",
    "--token-file",
    "--allow-origin",
    "--http-timeout",
    "--http-head-timeout",
    "--max-connections",
    "--max-sessions",
    "--session-idle",
    "--access-log",
    "--instance-id",
    "--session-route-header",
];

const HELP: &str = "\
minimcp — a small, read-only Model Context Protocol server over stdio or Streamable HTTP

USAGE:
    minimcp [serve] [OPTIONS] [DIR...]        serve one MCP session on stdin/stdout; each
                                              DIR is a workspace root, like --root DIR
    minimcp serve --http ADDR:PORT [OPTIONS]  serve Streamable HTTP (POST/GET/DELETE on
                                              --http-path), loopback unless --allow-remote
    minimcp serve --http unix:PATH [OPTIONS]  the same over a Unix socket created at PATH
                                              with mode 0600 (no token needed)
    minimcp call <TOOL|METHOD> [JSON] [OPTIONS]
                                              run one session in-process: initialize, make
                                              one call, print the result (see --json)
    minimcp analyze [PATH...] [ANALYZE OPTIONS]
                                              measure every function under PATH (default
                                              .; any path) and gate on limits; for CI
    minimcp churn [PATH...] [--days N] [--format markdown|json|csv] [--exclude GLOB]
                                              git change history of PATH, whole (renames
                                              followed, deleted files left out)
    minimcp --help | --version

    call: a TOOL name calls tools/call with JSON as its arguments (default {});
          a METHOD (it contains '/', e.g. tools/list, resources/read) is sent with JSON
          as its params. Exit status 0 on success, 1 on an error or an isError result.

ANALYZE OPTIONS (paths are relative to the working directory; see docs/analysis-in-ci.md):
    --max-cyclomatic N        A function whose cyclomatic complexity is above N fails
    --max-cognitive N         (or cognitive complexity above N). They win over the
                              repository's .minimcp.toml ([analyze] max-cyclomatic,
                              max-cognitive, exclude, [[analyze.override]] paths). With
                              no limit from either (or a baseline), nothing fails.
    --config FILE             Read FILE instead of the repository's .minimcp.toml.
    --baseline FILE           Fail only for functions new or worse than in FILE.
    --write-baseline FILE     Record the functions above the limits in FILE; exits 0.
    --diff REV                Only functions whose lines differ from git revision REV.
    --exclude GLOB            Leave out matching files or directories (repeatable).
    --format F                summary (default), markdown, json, sarif (GitHub code
                              scanning), gitlab (Code Quality), checkstyle, csv.
    --report F=FILE           Also write format F to FILE (repeatable).
    In the source, `minimcp: allow cyclomatic=25 -- REASON` (or `# noqa: complexipy`,
    `#lizard forgives`) before or inside a function exempts it; stale ones are listed.
    Exit status: 0 passed, 1 a function failed a limit, 2 a usage or setup error.
    A progress line (files done / total) goes to stderr when it is a terminal.

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
    --deny-write GLOB         With editing on, never create, change or move matching
                              files (they can still be read); repeatable, case
                              ignored. Defaults: what grants access or runs code at
                              the next login: .ssh/ authorized_keys .profile .bashrc
                              .bash_profile .zshrc .zprofile .config/fish/ and other
                              shell start-up files, X session and autostart files,
                              .config/systemd/, .pam_environment, .rhosts, .forward,
                              .gnupg/ (see the README). `--deny-write none` clears.
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
                              live one, or any other file, is refused, and so is a
                              PATH in a directory another user can change (every
                              directory on the way must be yours or root's, and not
                              group- or other-writable unless sticky, like /tmp) or
                              too long for a socket address as an absolute path.
    --http-path PATH          The MCP endpoint (default /mcp). GET /healthz answers ok.
    --allow-remote            Allow a non-loopback --http address; needs a bearer token
                              from --token-file or the MINIMCP_TOKEN variable. Not
                              with unix:PATH.
    --token-file FILE         Every HTTP request must carry Authorization: Bearer TOKEN
                              (the file's first line).
    --allow-origin ORIGIN     Accept this Origin besides loopback ones (repeatable).
    --http-timeout SECS       A request must arrive whole within SECS; idle keep-alive
                              connections close after it (default 30).
    --http-head-timeout SECS  A new connection's first request head must arrive within
                              SECS (default 10).
    --max-connections N       Open HTTP connections at once (default 64). When all are
                              open, a new one replaces the one that waited longest for
                              a request; when all are being served, it gets 503.
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

/// The help text, with one line per toolset of [`super::registry::TOOLSETS`].
pub(crate) fn help() -> String {
    let lines: Vec<String> = super::registry::TOOLSETS
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
pub(super) fn missing_features() -> Vec<&'static str> {
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
