//! `--help`, the man page and the shell completions cannot disagree: for each command, the
//! flags each of them offers are the same set, read from the real binary's output. Bash's
//! completion is run by bash itself (`COMPREPLY` for `minimcp CMD -`), the man page is
//! rendered by groff and read back, and the zsh and fish scripts are read line by line and,
//! when those shells are installed (`.ci/run` installs them), checked by them: `zsh -n`,
//! and fish's own completion engine (`complete -C`). Every value a completion offers for a
//! flag is one the parser accepts. README.md and docs/ are checked too: each flag they show
//! in a command line is accepted, by the command it follows.

mod common;

use std::collections::{BTreeSet, HashMap};
use std::path::Path;
use std::process::{Command, Output};
use std::sync::{Mutex, OnceLock};

const COMMANDS: [&str; 4] = ["serve", "call", "analyze", "churn"];

fn minimcp(args: &[&str]) -> Output {
    Command::new(common::minimcp())
        .args(args)
        .output()
        .expect("minimcp runs")
}

fn stdout(args: &[&str]) -> String {
    let out = minimcp(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

/// The flags a help page lists: the names at the start of its flag lines.
fn help_flags(command: &str) -> BTreeSet<String> {
    static PAGES: OnceLock<Mutex<HashMap<String, BTreeSet<String>>>> = OnceLock::new();
    let pages = PAGES.get_or_init(Default::default);
    if let Some(known) = pages.lock().expect("lock").get(command) {
        return known.clone();
    }
    let help = stdout(&[command, "--help"]);
    let mut flags = BTreeSet::new();
    for line in help.lines().filter(|l| l.starts_with("    -")) {
        // The label ends where two spaces start the text (or with the line).
        let label = line.trim_start().split("  ").next().unwrap_or_default();
        for word in label.split([' ', ',']) {
            if word.starts_with('-') && word.len() > 1 {
                flags.insert(word.to_string());
            }
        }
    }
    assert!(flags.contains("--help"), "{command}: {help}");
    pages
        .lock()
        .expect("lock")
        .insert(command.into(), flags.clone());
    flags
}

/// The words bash's completion offers for `minimcp WORDS…` with the cursor after them.
fn bash_complete(script: &Path, words: &[&str]) -> Option<BTreeSet<String>> {
    let line: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    let program = format!(
        "source '{}'; COMP_WORDS=(minimcp {}); COMP_CWORD=${{#COMP_WORDS[@]}}; COMP_CWORD=$((COMP_CWORD-1)); _minimcp; printf '%s\\n' \"${{COMPREPLY[@]}}\"",
        script.display(),
        line.join(" ")
    );
    let out = Command::new("bash")
        .arg("--norc")
        .arg("-c")
        .arg(program)
        .output()
        .ok()?;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).expect("utf-8");
    Some(
        text.lines()
            .filter(|l| !l.is_empty())
            .map(str::to_string)
            .collect(),
    )
}

/// A tool the check needs is missing: a visible skip, or a failure where
/// `MINIMCP_REQUIRE_CORPORA` is set (`.ci/run` installs bash, zsh, fish and groff).
fn skip(what: &str) {
    let required = std::env::var_os("MINIMCP_REQUIRE_CORPORA").is_some_and(|v| v != "0");
    assert!(
        !required,
        "{what} is not installed; MINIMCP_REQUIRE_CORPORA is set"
    );
    eprintln!("SKIPPED: {what} is not installed; its part of the check did not run");
}

fn scratch(name: &str, text: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("minimcp-cli-docs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch");
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write");
    path
}

#[test]
fn bash_completion_offers_exactly_each_commands_flags() {
    let script = scratch("minimcp.bash", &stdout(&["completions", "bash"]));
    let Some(top) = bash_complete(&script, &["-"]) else {
        return skip("bash");
    };
    // No command yet: `serve`'s flags (serve is the default).
    assert_eq!(top, help_flags("serve"));
    for command in COMMANDS {
        let offered = bash_complete(&script, &[command, "-"]).expect("bash");
        assert_eq!(offered, help_flags(command), "{command}");
    }
    // A value: the words of the flag, each one the parser takes.
    let levels = bash_complete(&script, &["serve", "--log-level", ""]).expect("bash");
    assert_eq!(levels.len(), 5, "{levels:?}");
    for level in &levels {
        assert!(
            minimcp(&["serve", "--log-level", level, "--help"])
                .status
                .success(),
            "{level}"
        );
    }
    if cfg!(feature = "analysis") {
        let formats = bash_complete(&script, &["churn", "--format", ""]).expect("bash");
        assert_eq!(
            formats,
            ["csv", "json", "markdown"].map(String::from).into()
        );
        for format in bash_complete(&script, &["analyze", "--format", ""]).expect("bash") {
            let out = minimcp(&["analyze", "--format", &format, "--help"]);
            assert!(out.status.success(), "{format}");
        }
    }
    // A comma-separated list completes its last name.
    let sets = bash_complete(&script, &["--toolsets", "workspace,te"]).expect("bash");
    if cfg!(feature = "templates") {
        assert_eq!(sets, ["workspace,templates".to_string()].into());
    }
    // Commands, then what follows them.
    let commands = bash_complete(&script, &["c"]).expect("bash");
    assert!(
        commands.contains("call") && commands.contains("churn") && commands.contains("completions")
    );
    let shells = bash_complete(&script, &["completions", ""]).expect("bash");
    assert_eq!(shells, ["bash", "fish", "zsh"].map(String::from).into());
}

/// The flags of each command's section of the man page, as groff renders it.
#[test]
fn the_man_page_lists_exactly_each_commands_flags() {
    let page = stdout(&["man"]);
    let source = scratch("minimcp.1", &page);
    let rendered = Command::new("groff")
        .args(["-man", "-Tutf8", "-ww", "-P-c", "-P-b", "-P-u"])
        .arg(&source)
        .output();
    let Some(rendered) = rendered.ok().filter(|o| o.status.success()) else {
        return skip("groff");
    };
    let warnings = String::from_utf8_lossy(&rendered.stderr);
    assert!(warnings.trim().is_empty(), "groff warns: {warnings}");
    let text = String::from_utf8(rendered.stdout).expect("utf-8");
    for command in COMMANDS {
        let heading = format!("MINIMCP {}", command.to_uppercase());
        let start = text
            .find(&format!("\n{heading}\n"))
            .unwrap_or_else(|| panic!("{heading}: {text}"));
        let section = &text[start + 1..];
        let end = section[1..]
            .find("\nMINIMCP ")
            .or_else(|| section.find("\nSEE ALSO"))
            .unwrap_or(section.len());
        let mut flags = BTreeSet::new();
        // A flag item starts its line, indented by the section's margin, with a flag.
        for line in section[..end]
            .lines()
            .filter(|l| l.trim_start().starts_with('-'))
        {
            let indent = line.len() - line.trim_start().len();
            if indent > 8 {
                continue; // a wrapped line of text that happens to start with a flag
            }
            for word in line.trim().split(", ") {
                let name = word.split(' ').next().unwrap_or_default();
                if name.starts_with('-') {
                    flags.insert(name.to_string());
                }
            }
        }
        assert_eq!(flags, help_flags(command), "{command}");
    }
}

/// The flags of each command in the zsh script: `'*--flag[…]` lines in its branch.
#[test]
fn zsh_completion_names_exactly_each_commands_flags() {
    let script = stdout(&["completions", "zsh"]);
    assert!(script.starts_with("#compdef minimcp\n"));
    for command in COMMANDS {
        let start = script.find(&format!("    ({command})\n")).expect(command);
        let branch = &script[start..];
        let branch = &branch[..branch.find(";;").expect("end of branch")];
        let flags: BTreeSet<String> = branch
            .lines()
            .filter_map(|l| l.trim().strip_prefix("'*"))
            .filter(|l| l.starts_with('-'))
            .map(|l| l[..l.find('[').expect("description")].to_string())
            .collect();
        assert_eq!(flags, help_flags(command), "{command}");
    }
    let path = scratch("_minimcp", &script);
    match Command::new("zsh").arg("-n").arg(&path).output() {
        Ok(out) => assert!(
            out.status.success(),
            "zsh -n: {}",
            String::from_utf8_lossy(&out.stderr)
        ),
        Err(_) => skip("zsh"),
    }
}

/// The flags of each command in the fish script, and what fish itself completes.
#[test]
fn fish_completion_names_exactly_each_commands_flags() {
    let script = stdout(&["completions", "fish"]);
    let path = scratch("minimcp.fish", &script);
    for command in COMMANDS {
        // serve's lines are those for "no other command"; the others name theirs.
        let flags: BTreeSet<String> = script
            .lines()
            .filter(|l| match command {
                "serve" => l.contains("'not __fish_seen_subcommand_from call "),
                _ => l.contains(&format!("'__fish_seen_subcommand_from {command}'")),
            })
            .filter_map(|l| {
                let (_, rest) = l.split_once("' -")?;
                let mut words = rest.split(' ');
                match (words.next()?, words.next()?) {
                    ("l", name) => Some(format!("--{name}")),
                    ("s", name) => Some(format!("-{name}")),
                    _ => None,
                }
            })
            .collect();
        assert_eq!(flags, help_flags(command), "{command}");
        let long: BTreeSet<String> = help_flags(command)
            .into_iter()
            .filter(|f| f.starts_with("--"))
            .collect();
        let program = format!(
            "source '{}'; complete -C 'minimcp {command} --'",
            path.display()
        );
        let Ok(out) = Command::new("fish")
            .arg("--no-config")
            .arg("-c")
            .arg(program)
            .output()
        else {
            skip("fish");
            continue;
        };
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let offered: BTreeSet<String> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(|l| l.split('\t').next().unwrap_or_default().to_string())
            .collect();
        assert_eq!(offered, long, "{command}: fish offers");
    }
}

/// Flags of other programs that follow minimcp's path on a line of the documents: the MCP
/// Inspector CLI's (`npx @modelcontextprotocol/inspector --cli /abs/path/minimcp --method …`).
#[cfg(all(feature = "http", feature = "analysis", feature = "edit"))]
const FOREIGN: &[&str] = &["--method"];

/// Every flag README.md and docs/*.md show in a `minimcp` command line is accepted by the
/// command it follows (in the default build, which has every flag the documents show).
#[test]
#[cfg(all(feature = "http", feature = "analysis", feature = "edit"))]
fn every_flag_the_documents_show_is_accepted() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut documents = vec![root.join("README.md")];
    if let Ok(entries) = std::fs::read_dir(root.join("docs")) {
        documents.extend(
            entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "md")),
        );
    }
    let mut checked = 0;
    for document in documents {
        let text = std::fs::read_to_string(&document).expect("readable");
        for line in text.lines() {
            // Each `minimcp …` of the line, up to the end of its code span, a comment, a
            // pipe or a shell separator.
            for (at, _) in line.match_indices("minimcp ") {
                // The program itself: `minimcp` or a path ending in it, not part of a word
                // such as `--remap-path-prefix=$PWD=/minimcp`.
                let token = line[..at]
                    .rsplit([' ', '`', '"', '\''])
                    .next()
                    .unwrap_or_default();
                if !(token.is_empty() || token.ends_with('/') && !token.contains('=')) {
                    continue;
                }
                let rest = &line[at + "minimcp ".len()..];
                let end = rest.find(['`', '#', '|', ';', '&']).unwrap_or(rest.len());
                let words: Vec<&str> = rest[..end]
                    .split(|c: char| c.is_whitespace() || "'\"()".contains(c))
                    .filter(|w| !w.is_empty())
                    .collect();
                let command = match words.first() {
                    Some(word) if COMMANDS.contains(word) => *word,
                    Some(word) if word.starts_with("--") => "serve",
                    _ => continue,
                };
                for word in words.iter().filter(|w| w.starts_with("--") && w.len() > 2) {
                    let flag = word.split('=').next().unwrap_or_default();
                    if FOREIGN.contains(&flag)
                        || !flag[2..]
                            .chars()
                            .all(|c| c.is_ascii_lowercase() || c == '-')
                    {
                        continue;
                    }
                    let known = help_flags(command).contains(flag);
                    assert!(known, "{}: `minimcp {command} … {flag}` is not a flag of {command} (line: {line})", document.display());
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 20, "only {checked} flags found in the documents");
}

/// Flags of other programs the documents show, by program. A flag in README.md or docs/
/// must be minimcp's (some command's) or one of these.
#[cfg(all(feature = "http", feature = "analysis", feature = "edit"))]
const OTHER_PROGRAMS: &[(&str, &[&str])] = &[
    (
        "cargo",
        &[
            "--locked",
            "--offline",
            "--path",
            "--release",
            "--no-default-features",
            "--versioned-dirs",
            "--git",
            "--rev",
            "--open",
            "--root",
            "--features",
            "--all-features",
            "--target",
        ],
    ),
    ("rustc", &["--remap-path-prefix"]),
    ("git", &["--unified"]),
    ("tsc", &["--strict"]),
    ("the MCP Inspector", &["--cli", "--method"]),
    ("claude mcp add", &["--transport"]),
    (
        "the generators of the README's tables",
        &["--write", "--check"],
    ),
];

/// Every `--flag` anywhere in README.md and docs/*.md is one some minimcp command accepts,
/// or another program's (`OTHER_PROGRAMS`): no flag is shown that does not exist.
#[test]
#[cfg(all(feature = "http", feature = "analysis", feature = "edit"))]
fn every_flag_the_documents_name_exists() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let ours: BTreeSet<String> = COMMANDS.iter().flat_map(|c| help_flags(c)).collect();
    let mut documents = vec![root.join("README.md")];
    if let Ok(entries) = std::fs::read_dir(root.join("docs")) {
        documents.extend(
            entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "md")),
        );
    }
    for document in documents {
        let text = std::fs::read_to_string(&document).expect("readable");
        for (at, _) in text.match_indices("--") {
            // `--name` after a space, a quote, a backtick, a bracket or a line start (not an
            // anchor `#--…`, a `---` rule or a `-->` comment end).
            let before = text[..at].chars().next_back().unwrap_or(' ');
            if !" `'\"([\n".contains(before) {
                continue;
            }
            let name: String = text[at + 2..]
                .chars()
                .take_while(|c| c.is_ascii_lowercase() || *c == '-')
                .collect();
            if name.is_empty() || name.starts_with('-') || name.ends_with('-') {
                continue;
            }
            let flag = format!("--{name}");
            let other = OTHER_PROGRAMS
                .iter()
                .any(|(_, flags)| flags.contains(&flag.as_str()));
            assert!(
                ours.contains(&flag) || other,
                "{}: {flag} is no flag of minimcp (nor of a program in OTHER_PROGRAMS)",
                document.display()
            );
        }
    }
}
