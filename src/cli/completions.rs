//! `minimcp completions bash|zsh|fish`: shell completion scripts written from the flag table,
//! so they offer exactly the flags `--help` lists, each command its own, and the values a
//! flag takes (directories, files, or its words).
//!
//! Install: `minimcp completions bash > ~/.local/share/bash-completion/completions/minimcp`,
//! `minimcp completions zsh > "${fpath[1]}/_minimcp"`,
//! `minimcp completions fish > ~/.config/fish/completions/minimcp.fish`.

use std::fmt::Write;

use super::flags::{self, Flag, Sub, Values, FLAGS};
use super::Command;

/// The words that name a command (`serve` is also the default).
const WORDS: &[&str] = &[
    "serve",
    "call",
    "analyze",
    "churn",
    "completions",
    "help",
    "man",
];

/// The script for `shell`.
pub(super) fn script(shell: Option<&str>) -> Result<Command, String> {
    match shell {
        Some("bash") => Ok(Command::Print(bash())),
        Some("zsh") => Ok(Command::Print(zsh())),
        Some("fish") => Ok(Command::Print(fish())),
        Some(other) => Err(format!(
            "no completions for {other:?}; use bash, zsh or fish"
        )),
        None => Err("completions needs a shell: bash, zsh or fish".into()),
    }
}

/// The flags of this build that take a value, each name once.
fn valued() -> Vec<&'static str> {
    let mut names: Vec<&str> = FLAGS
        .iter()
        .filter(|f| f.value.is_some() && f.is_built())
        .flat_map(|f| f.names.iter().copied())
        .collect();
    names.dedup();
    names.sort_unstable();
    names.dedup();
    names
}

/// The spellings of `sub`'s flags.
fn names(sub: Sub) -> Vec<&'static str> {
    flags::of(sub)
        .flat_map(|f| f.names.iter().copied())
        .collect()
}

fn bash() -> String {
    let mut out = String::from(
        "# bash completion for minimcp, written by `minimcp completions bash` from the flags\n\
# `minimcp --help` lists.\n_minimcp() {\n    \
local cur=\"${COMP_WORDS[COMP_CWORD]}\" prev=\"${COMP_WORDS[COMP_CWORD-1]}\"\n    \
local cmd=serve i\n    \
for ((i = 1; i < COMP_CWORD; i++)); do\n        \
case \"${COMP_WORDS[i-1]}\" in\n            ",
    );
    let _ = write!(
        out,
        "{}) continue ;;\n        esac\n        ",
        valued().join("|")
    );
    let _ = write!(
        out,
        "case \"${{COMP_WORDS[i]}}\" in\n            {}) cmd=\"${{COMP_WORDS[i]}}\"; break ;;\n        esac\n    done\n    case \"$prev\" in\n",
        WORDS.join("|")
    );
    for name in valued() {
        let _ = writeln!(out, "        {name})");
        let per_sub: Vec<(Sub, &Flag)> = Sub::ALL
            .into_iter()
            .filter_map(|s| {
                flags::of(s)
                    .find(|f| f.names.contains(&name))
                    .map(|f| (s, f))
            })
            .collect();
        let distinct = per_sub.windows(2).any(|w| w[0].1.values != w[1].1.values);
        if distinct {
            out.push_str("            case \"$cmd\" in\n");
            for (sub, flag) in &per_sub {
                let _ = writeln!(
                    out,
                    "                {}) {} ;;",
                    sub.word(),
                    bash_values(flag)
                );
            }
            out.push_str("            esac\n            return ;;\n");
        } else if let Some((_, flag)) = per_sub.first() {
            let _ = writeln!(
                out,
                "            {}\n            return ;;",
                bash_values(flag)
            );
        }
    }
    out.push_str("    esac\n    case \"$cmd\" in\n");
    for sub in Sub::ALL {
        let (flags, words) = (names(sub).join(" "), positional_bash(sub));
        let _ = writeln!(
            out,
            "        {})\n            if [[ \"$cur\" == -* ]]; then COMPREPLY=($(compgen -W \"{flags}\" -- \"$cur\")); else {words}; fi ;;",
            sub.word()
        );
    }
    out.push_str(
        "        completions) COMPREPLY=($(compgen -W \"bash zsh fish\" -- \"$cur\")) ;;\n        \
help) COMPREPLY=($(compgen -W \"serve call analyze churn\" -- \"$cur\")) ;;\n        \
*) COMPREPLY=() ;;\n    esac\n}\ncomplete -F _minimcp minimcp\n",
    );
    out
}

/// What bash offers as the value of `flag`.
fn bash_values(flag: &Flag) -> String {
    match flag.values {
        Values::Dir => "COMPREPLY=($(compgen -d -- \"$cur\"))".into(),
        Values::File => "COMPREPLY=($(compgen -f -- \"$cur\"))".into(),
        Values::Toolsets => format!(
            // A comma-separated list: complete the name after the last comma.
            "local pre=\"\"; [[ \"$cur\" == *,* ]] && pre=\"${{cur%,*}},\"; COMPREPLY=($(compgen -P \"$pre\" -W \"{}\" -- \"${{cur##*,}}\"))",
            flag.words().join(" ")
        ),
        Values::Words(_) | Values::Versions => {
            format!("COMPREPLY=($(compgen -W \"{}\" -- \"$cur\"))", flag.words().join(" "))
        }
        Values::Any => "COMPREPLY=()".into(),
    }
}

/// What bash offers for a word that is not a flag, after the command.
fn positional_bash(sub: Sub) -> String {
    match sub {
        // Before any command: a command, or a directory to serve.
        Sub::Serve => format!(
            "COMPREPLY=($(compgen -W \"{}\" -- \"$cur\") $(compgen -d -- \"$cur\"))",
            WORDS.join(" ")
        ),
        Sub::Call => "COMPREPLY=()".into(),
        Sub::Analyze | Sub::Churn => "COMPREPLY=($(compgen -f -- \"$cur\"))".into(),
    }
}

fn zsh() -> String {
    let mut out = String::from(
        "#compdef minimcp\n# zsh completion for minimcp, written by `minimcp completions zsh` from the flags\n\
# `minimcp --help` lists.\n_minimcp() {\n  local cmd=serve i\n  for (( i = 2; i < CURRENT; i++ )); do\n    ",
    );
    let _ = write!(
        out,
        "case $words[i-1] in ({}) continue ;; esac\n    case $words[i] in ({}) cmd=$words[i]; break ;; esac\n  done\n  case $cmd in\n",
        valued().join("|"),
        WORDS.join("|")
    );
    for sub in Sub::ALL {
        let _ = writeln!(out, "    ({})\n      _arguments -S \\", sub.word());
        for flag in flags::of(sub) {
            for name in flag.names {
                let _ = writeln!(
                    out,
                    "        '*{name}[{}]{}' \\",
                    zsh_text(&flag.summary()),
                    zsh_value(flag)
                );
            }
        }
        let rest = match sub {
            Sub::Serve => format!("'*::command or directory:_alternative \"commands:command:({})\" \"directories:directory:_files -/\"'", WORDS.join(" ")),
            Sub::Call => "'*::tool or method, then its JSON:'".into(),
            Sub::Analyze | Sub::Churn => "'*::path:_files'".into(),
        };
        let _ = writeln!(out, "        {rest} ;;");
    }
    out.push_str(
        "    (completions) _arguments '1:shell:(bash zsh fish)' ;;\n    \
(help) _arguments '1:command:(serve call analyze churn)' ;;\n  esac\n}\n_minimcp \"$@\"\n",
    );
    out
}

/// A description inside `'…[…]'`: no quote, no bracket, colons escaped.
fn zsh_text(text: &str) -> String {
    text.replace('\'', "")
        .replace('[', "(")
        .replace(']', ")")
        .replace(':', "\\:")
}

/// The `:MESSAGE:ACTION` of a flag that takes a value.
fn zsh_value(flag: &Flag) -> String {
    let Some(value) = flag.value else {
        return String::new();
    };
    let value = value.replace(':', "\\:");
    let action = match flag.values {
        Values::Dir => "_files -/".to_string(),
        Values::File => "_files".to_string(),
        Values::Toolsets => format!("_sequence compadd - {}", flag.words().join(" ")),
        Values::Words(_) | Values::Versions => format!("({})", flag.words().join(" ")),
        Values::Any => " ".to_string(),
    };
    format!(":{value}:{action}")
}

fn fish() -> String {
    let others = |sub: Sub| -> String {
        WORDS
            .iter()
            .filter(|w| **w != sub.word())
            .copied()
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut out = format!(
        "# fish completion for minimcp, written by `minimcp completions fish` from the flags\n\
# `minimcp --help` lists.\ncomplete -c minimcp -f\n\
complete -c minimcp -n 'not __fish_seen_subcommand_from {words}' -a '{words}'\n\
complete -c minimcp -n '__fish_seen_subcommand_from completions' -a 'bash zsh fish'\n\
complete -c minimcp -n '__fish_seen_subcommand_from help' -a 'serve call analyze churn'\n",
        words = WORDS.join(" ")
    );
    for sub in Sub::ALL {
        // `serve` is also what a line without a command runs.
        let condition = match sub {
            Sub::Serve => format!("not __fish_seen_subcommand_from {}", others(sub)),
            _ => format!("__fish_seen_subcommand_from {}", sub.word()),
        };
        for flag in flags::of(sub) {
            for name in flag.names {
                let option = match name.strip_prefix("--") {
                    Some(long) => format!("-l {long}"),
                    None => format!("-s {}", name.trim_start_matches('-')),
                };
                let _ = writeln!(
                    out,
                    "complete -c minimcp -n '{condition}' {option}{} -d '{}'",
                    fish_value(flag),
                    flag.summary().replace('\\', "\\\\").replace('\'', "\\'")
                );
            }
        }
    }
    out.push_str("complete -c minimcp -n '__fish_seen_subcommand_from analyze churn' -F\n");
    out
}

/// The part of a fish `complete` line that says what a flag's value is.
fn fish_value(flag: &Flag) -> String {
    if flag.value.is_none() {
        return String::new();
    }
    match flag.values {
        Values::Dir => " -x -a '(__fish_complete_directories)'".into(),
        Values::File => " -r -F".into(),
        Values::Words(_) | Values::Versions | Values::Toolsets => {
            format!(" -x -a '{}'", flag.words().join(" "))
        }
        Values::Any => " -x".into(),
    }
}
