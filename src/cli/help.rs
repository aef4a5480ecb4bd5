//! The help of each command, written from the flag table (`flags.rs`) and, for `serve` and
//! `call`, from the configuration the rest of the command line asks for: `--help` after
//! `--toolsets workspace,edit` says the server will modify files.

use std::fmt::Write;

use super::features::{built_features, missing_features};
use super::flags::{self, Flag, Group, Sub};
use super::{registry, Options, Profile};

/// The width help is wrapped to, and where a flag's text starts.
const WIDTH: usize = 88;
const TEXT_COLUMN: usize = 30;

/// `minimcp --help`: what the configuration serves, the commands, and where their flags are.
pub(crate) fn top(options: &Options) -> String {
    let mut out = format!(
        "minimcp {} — a Model Context Protocol server for the files of a project\n\n",
        env!("CARGO_PKG_VERSION")
    );
    paragraph(&mut out, &describe(options, Sub::Serve));
    out.push_str(
        "\nUSAGE\n    \
minimcp [serve] [OPTIONS] [DIR...]    serve MCP on stdin/stdout, or over HTTP with --http\n    \
minimcp call TOOL|METHOD [JSON]       one MCP session in-process; its result printed\n    \
minimcp analyze [PATH...]             measure every function and gate on limits, for CI\n    \
minimcp churn [PATH...]               rank files by their git change history\n    \
minimcp completions bash|zsh|fish     a shell completion script\n    \
minimcp man                           this manual as a man page (roff)\n    \
minimcp help [COMMAND]                this help, or a command's\n\n\
Each command's flags and an example: minimcp COMMAND --help.\n",
    );
    footer(&mut out);
    out.push_str(
        "\nEXAMPLE\n    minimcp --root ~/project    # what an MCP client's configuration runs\n",
    );
    out
}

/// `minimcp COMMAND --help`: the command, what this configuration does (`serve`, `call`),
/// its flags under their headings, and one example.
pub(crate) fn of(sub: Sub, options: Option<&Options>) -> String {
    let (title, usage, about, example) = text(sub);
    let mut out = format!("minimcp {} — {title}\n\nUSAGE\n    {usage}\n\n", sub.word());
    paragraph(&mut out, about);
    if let Some(options) = options {
        out.push('\n');
        paragraph(&mut out, &describe(options, sub));
    }
    for group in Group::ALL {
        let listed: Vec<&Flag> = flags::of(sub).filter(|f| f.group == group).collect();
        if listed.is_empty() {
            continue;
        }
        let _ = write!(out, "\n{}\n", group.heading());
        for flag in listed {
            entry(&mut out, flag);
        }
    }
    footer(&mut out);
    let _ = write!(out, "\nEXAMPLE\n    {example}\n");
    out
}

/// A flag's label: its names, and its value's name after the long one.
pub(crate) fn label(flag: &Flag) -> String {
    let names: Vec<String> = flag
        .names
        .iter()
        .map(|name| match flag.value {
            Some(value) if name.starts_with("--") => format!("{name} {value}"),
            _ => name.to_string(),
        })
        .collect();
    names.join(", ")
}

/// A flag's help, with the toolsets of this build where it names them.
pub(crate) fn help_text(flag: &Flag) -> String {
    let toolsets: Vec<String> = registry::TOOLSETS
        .iter()
        .map(|t| match t.opt_in {
            true => t.name.to_string(), // the help says what it does
            false => format!("{} ({})", t.name, t.summary),
        })
        .collect();
    flag.help.replace("{toolsets}", &toolsets.join(", "))
}

/// One flag: its label, then its help wrapped beside it (below it when the label is long).
fn entry(out: &mut String, flag: &Flag) {
    let label = format!("    {}", label(flag));
    out.push_str(&label);
    let mut column = label.chars().count();
    if column + 2 > TEXT_COLUMN {
        out.push('\n');
        column = 0;
    }
    out.push_str(&" ".repeat(TEXT_COLUMN - column));
    let lines = wrap(&help_text(flag), WIDTH - TEXT_COLUMN);
    out.push_str(&lines.join(&format!("\n{}", " ".repeat(TEXT_COLUMN))));
    out.push('\n');
}

/// `text` as lines of at most `width` characters (a longer word stands alone).
pub(crate) fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = vec![String::new()];
    for word in text.split_whitespace() {
        let line = lines.last_mut().expect("never empty");
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            lines.push(word.to_string());
        } else {
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(word);
        }
    }
    lines
}

fn paragraph(out: &mut String, text: &str) {
    for line in wrap(text, WIDTH) {
        out.push_str(&line);
        out.push('\n');
    }
}

/// What this build leaves out, when it leaves something out.
fn footer(out: &mut String) {
    let missing = missing_features();
    if !missing.is_empty() {
        out.push('\n');
        paragraph(out, &format!(
            "This binary was built without the features {}: their flags, profiles and toolsets exit with status 2; rebuild with `cargo build --features NAME` to have them.",
            missing.join(", ")
        ));
    }
}

/// Each command's title, usage, description and example.
pub(super) fn text(sub: Sub) -> (&'static str, &'static str, &'static str, &'static str) {
    match sub {
        Sub::Serve => (
            "serve MCP to one client on stdin/stdout, or to many over Streamable HTTP",
            "minimcp [serve] [OPTIONS] [DIR...]",
            "The default command: `minimcp DIR` is `minimcp serve --root DIR`. An MCP client (Claude Desktop, Claude Code, Cursor, VS Code) starts it and talks to it on stdin/stdout; with --http it listens for clients instead. stdout carries protocol messages only; logs go to stderr.",
            "minimcp serve --root ~/project --http 127.0.0.1:8080    # clients use http://127.0.0.1:8080/mcp",
        ),
        Sub::Call => (
            "run one MCP session in-process: initialize, one call, the result printed",
            "minimcp call TOOL|METHOD [JSON] [OPTIONS]",
            "A TOOL name calls tools/call with JSON as its arguments (default {}); a METHOD (it contains '/', such as tools/list or resources/read) is sent with JSON as its params. Exit status 0 on success, 1 on an error or an isError result. A long call shows its progress on stderr at a terminal.",
            "minimcp call search_files '{\"pattern\":\"**/*.rs\"}'",
        ),
        Sub::Analyze => (
            "measure every function under PATH and fail on the limits you set; for CI",
            "minimcp analyze [PATH...] [OPTIONS]",
            "PATHs (default: the working directory; files or directories, anywhere) are relative to the working directory. In the source, `minimcp: allow cyclomatic=25 -- REASON` (or `# noqa: complexipy`, `#lizard forgives`) before or inside a function exempts it; stale exemptions are listed. Exit status: 0 passed, 1 a function failed a limit, 2 a usage or setup error. A progress line goes to stderr at a terminal. The reference: docs/analysis-in-ci.md.",
            "minimcp analyze --max-cyclomatic 15 --max-cognitive 20 --report sarif=complexity.sarif",
        ),
        Sub::Churn => (
            "rank files by their git change history; for people and CI",
            "minimcp churn [PATH...] [OPTIONS]",
            "The history of PATH (default: the working directory) as a whole, from `git log`: commits, lines added and removed per file, renames followed, files deleted since left out.",
            "minimcp churn src --days 90 --format csv",
        ),
    }
}

/// What `sub` with `options` does, in a few sentences: what is served, how, and whether
/// anything is written.
pub(crate) fn describe(options: &Options, sub: Sub) -> String {
    let how = match sub {
        Sub::Call => "runs one in-process session that".to_string(),
        _ => transport(options),
    };
    let what = match options.profile {
        Profile::Workspace => workspace(options, sub == Sub::Call),
        Profile::Conformance => "the fixtures of the official conformance suite (an `echo` tool among them), not files.".to_string(),
        Profile::Transcripts => "the fixtures of the official conformance suite and of the transcript corpus in conformance/, not files.".to_string(),
    };
    format!("With these flags, minimcp {how} serves {what}")
}

#[cfg(feature = "http")]
fn transport(options: &Options) -> String {
    use minimcp_http::Listen;
    let Some(http) = &options.http else {
        return "talks to one MCP client on stdin/stdout and".into();
    };
    let config = &http.config;
    match &config.listen {
        Listen::Tcp(addr) => {
            let reach = if config.allow_remote {
                "reachable from other hosts, every request with a bearer token"
            } else {
                "loopback only"
            };
            format!(
                "listens for MCP clients at http://{addr}{} ({reach}) and",
                config.path
            )
        }
        Listen::Unix(path) => format!(
            "listens for MCP clients on the Unix socket {} (mode 0600: only this user) and",
            path.display()
        ),
    }
}

#[cfg(not(feature = "http"))]
fn transport(_: &Options) -> String {
    "talks to one MCP client on stdin/stdout and".into()
}

fn workspace(options: &Options, call: bool) -> String {
    let roots = if options.roots.is_empty() && call {
        "the current directory (never `/` or the home directory)".to_string()
    } else if options.roots.is_empty() {
        "the client's roots, or else the current directory (never `/` or the home directory),"
            .to_string()
    } else {
        let shown: Vec<String> = options
            .roots
            .iter()
            .map(|r| r.display().to_string())
            .collect();
        shown.join(", ")
    };
    let sets: Vec<String> = registry::TOOLSETS
        .iter()
        .filter(|t| options.toolsets.contains(&t.name))
        .map(|t| match t.opt_in {
            true => t.name.to_string(), // the sentence after says what it does
            false => format!("{} ({})", t.name, t.summary),
        })
        .collect();
    let mut out = format!("{roots} with the toolsets {}. ", sets.join(", "));
    if options.toolsets.contains(&"edit") {
        out.push_str("It MODIFIES FILES in the roots: write_file, edit_file, apply_patch, create_directory and move_file write atomically, and refuse a file that changed since it was read.");
    } else if options.toolsets.contains(&"analysis") {
        out.push_str("It is read-only: nothing is written, created, deleted or run, except `git log` for churn.");
    } else {
        out.push_str("It is read-only: nothing is written, created, deleted or run.");
    }
    out
}

/// `minimcp --version`: the version, the commit and the features.
pub(crate) fn version() -> String {
    let commit = option_env!("MINIMCP_COMMIT").unwrap_or("unknown");
    let features = built_features();
    format!(
        "minimcp {}\ncommit: {commit}\nfeatures: {}\n",
        env!("CARGO_PKG_VERSION"),
        if features.is_empty() {
            "none".to_string()
        } else {
            features.join(" ")
        }
    )
}
