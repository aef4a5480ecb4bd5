//! `minimcp man`: the manual page (man(7) roff), written from the same flag table and command
//! texts as `--help`: `minimcp man > ~/.local/share/man/man1/minimcp.1`, then `man minimcp`.
//! It carries no date, so the bytes depend on the version and the build's features only.

use std::fmt::Write;

use super::flags::{self, Group, Sub};
use super::help;
use super::line;

/// The whole page.
pub(super) fn page() -> String {
    let defaults = line::defaults();
    let mut out = format!(
        ".TH MINIMCP 1 \"\" \"minimcp {}\" \"User Commands\"\n.SH NAME\nminimcp \\- a Model Context Protocol server for the files of a project\n.SH SYNOPSIS\n",
        env!("CARGO_PKG_VERSION")
    );
    for sub in Sub::ALL {
        let (_, usage, _, _) = help::text(sub);
        let _ = writeln!(out, "{}\n.br", roff(usage));
    }
    out.push_str("minimcp completions bash|zsh|fish\n.br\nminimcp man\n");
    let _ = write!(
        out,
        ".SH DESCRIPTION\n{}\n",
        roff(&help::describe(&defaults, Sub::Serve))
    );
    for sub in Sub::ALL {
        let (title, _, about, example) = help::text(sub);
        let _ = write!(
            out,
            ".SH \"{}\"\n{}\n.PP\n{}\n",
            format!("minimcp {}", sub.word()).to_uppercase(),
            roff(title),
            roff(about)
        );
        for group in Group::ALL {
            let listed: Vec<_> = flags::of(sub).filter(|f| f.group == group).collect();
            if listed.is_empty() {
                continue;
            }
            let _ = writeln!(out, ".SS \"{}\"", group.heading());
            for flag in listed {
                let names: Vec<String> = flag
                    .names
                    .iter()
                    .map(|name| match flag.value {
                        Some(value) if name.starts_with("--") => {
                            format!("\\fB{}\\fR \\fI{}\\fR", roff(name), roff(value))
                        }
                        _ => format!("\\fB{}\\fR", roff(name)),
                    })
                    .collect();
                let _ = write!(
                    out,
                    ".TP\n{}\n{}\n",
                    names.join(", "),
                    roff(&help::help_text(flag))
                );
            }
        }
        let _ = write!(out, ".SS EXAMPLE\n.nf\n{}\n.fi\n", roff(example));
    }
    out.push_str(".SH \"SEE ALSO\"\nThe README and docs/ of the minimcp source; https://modelcontextprotocol.io\n");
    out
}

/// `text` as roff: backslashes and hyphens escaped, and no line that starts with a control
/// character.
fn roff(text: &str) -> String {
    let escaped = text.replace('\\', "\\e").replace('-', "\\-");
    escaped
        .lines()
        .map(|line| match line.starts_with(['.', '\'']) {
            true => format!("\\&{line}"),
            false => line.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}
