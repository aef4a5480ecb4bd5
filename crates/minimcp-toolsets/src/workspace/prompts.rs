//! Prompts: `code_review` (language completed from a known list), `explain_file` (embeds
//! the file as a resource) and `project_overview` (embeds the layout and the key files a
//! newcomer reads first: README, manifests, build files).

use std::collections::BTreeMap;
use std::rc::Rc;

use super::complete::{self, Want};
use super::limits::{MAX_EMBED_BYTES, MAX_OVERVIEW_ENTRIES};
use super::read::read_whole;
use super::resources::contents_of;
use super::roots::uri_of;
use super::sandbox::{PathError, RelPath, Resolved};
use super::tools::directories;
use super::walk::{walk, Bounds, Entry, Flow, Kind, Visitor};
use super::Workspace;
use minimcp::prompt::{Prompt, PromptArgument, PromptMessage};
use minimcp::resource::ResourceContents;
use minimcp::{Content, HandlerError};

/// Languages suggested for `code_review`'s `language` argument (any value is accepted).
pub(crate) const LANGUAGES: &[&str] = &[
    "bash",
    "c",
    "cpp",
    "csharp",
    "css",
    "dart",
    "elixir",
    "erlang",
    "go",
    "haskell",
    "html",
    "java",
    "javascript",
    "json",
    "kotlin",
    "lua",
    "markdown",
    "ocaml",
    "php",
    "python",
    "r",
    "ruby",
    "rust",
    "scala",
    "shell",
    "sql",
    "swift",
    "toml",
    "typescript",
    "yaml",
    "zig",
];

/// Files `project_overview` embeds when they are in the directory (names compared without
/// case; README-like names by prefix).
const KEY_FILES: &[&str] = &[
    "cargo.toml",
    "package.json",
    "pyproject.toml",
    "setup.py",
    "go.mod",
    "pom.xml",
    "build.gradle",
    "build.gradle.kts",
    "gemfile",
    "composer.json",
    "makefile",
    "cmakelists.txt",
    "justfile",
    "deno.json",
    "mix.exs",
    "contributing.md",
];

/// Every prompt of the toolset.
pub(crate) fn prompts(ws: &Rc<Workspace>) -> Vec<Prompt> {
    let (w1, w2, w3, w4) = (Rc::clone(ws), Rc::clone(ws), Rc::clone(ws), Rc::clone(ws));
    vec![
        Prompt::new(
            "code_review",
            "Review a piece of code for bugs, edge cases, security problems and clarity.",
            vec![
                PromptArgument::new("language", "The code's language, such as rust or python.", true)
                    .complete_with(|value, _, _| languages(value)),
                PromptArgument::new("code", "The code to review.", true),
            ],
            |args, _ctx| Ok(vec![PromptMessage::user(Content::text(code_review(&args["language"], &args["code"])))]),
        )
        .title("Code review"),
        Prompt::new(
            "explain_file",
            "Explain what a workspace file does; the file is embedded in the prompt.",
            vec![PromptArgument::new("path", "The file, relative to the workspace root (or absolute inside it).", true)
                .complete_with(move |value, _, ctx| complete::paths(&w1, value, Want::Any, ctx))],
            move |args, ctx| {
                w2.enter(ctx)?;
                explain_file(&w2, &args["path"])
            },
        )
        .title("Explain a file"),
        Prompt::new(
            "project_overview",
            "Orient a newcomer: the directory's layout and its README, manifests and build files are embedded, with a request for an overview of what the project does, how it is organized, and how to build and test it.",
            vec![PromptArgument::new("directory", "The project directory, relative to the workspace root (default: the root).", false)
                .complete_with(move |value, _, ctx| complete::paths(&w3, value, Want::Dirs, ctx))],
            move |args: &BTreeMap<String, String>, ctx| {
                w4.enter(ctx)?;
                project_overview(&w4, args.get("directory").map_or(".", String::as_str))
            },
        )
        .title("Project overview"),
    ]
}

/// Known languages starting with `value` (ignoring case).
fn languages(value: &str) -> Vec<String> {
    let value = value.to_lowercase();
    LANGUAGES
        .iter()
        .filter(|l| l.starts_with(&value))
        .map(|l| l.to_string())
        .collect()
}

fn code_review(language: &str, code: &str) -> String {
    // A fence longer than any backtick run in the code, so the code cannot close it early.
    let longest = code.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    // The info string: the first word, without characters that could break the fence line.
    let first = language.split_whitespace().next().unwrap_or("");
    let tag: String = first
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, '+' | '#' | '-' | '_'))
        .collect();
    format!(
        "Please review the following {language} code as a careful senior engineer. List bugs, unhandled edge cases, security problems and misleading names or comments first, most serious first; then smaller style points. For each, say why it matters and suggest a concrete fix. If the code is sound, say so.\n\n{fence}{tag}\n{code}\n{fence}"
    )
}

/// The contents of a resolved file for embedding: text when it is UTF-8 text, else base64.
fn embed(file: &Resolved) -> Result<ResourceContents, HandlerError> {
    let bytes = read_whole(file, MAX_EMBED_BYTES, "embedding in a prompt")?;
    Ok(contents_of(&uri_of(file), file.rel.name(), bytes))
}

fn explain_file(ws: &Workspace, path: &str) -> Result<Vec<PromptMessage>, HandlerError> {
    let file = ws.resolve(path)?;
    if file.meta.is_dir() {
        return Err(PathError::IsADirectory(file.rel).into());
    }
    let resource = embed(&file)?;
    Ok(vec![
        PromptMessage::user(Content::Resource { resource }),
        PromptMessage::user(Content::text(format!(
            "Explain `{}` from this workspace: what it is for, how it is organized, its important parts and how they fit together, and anything surprising or risky. Refer to names and line numbers where it helps.",
            file.rel
        ))),
    ])
}

/// The layout (two levels) and the key files at the top of the directory.
struct Overview {
    lines: Vec<String>,
    key_files: Vec<RelPath>,
    total: usize,
    /// Extra indentation: one level under each root's name when there are several.
    indent: usize,
}

impl Visitor for Overview {
    fn visit(&mut self, entry: &Entry) -> Flow {
        self.total += 1;
        if self.lines.len() < MAX_OVERVIEW_ENTRIES {
            let indent = "  ".repeat(entry.depth - 1 + self.indent);
            let slash = if entry.kind == Kind::Dir { "/" } else { "" };
            self.lines
                .push(format!("{indent}{}{slash}", entry.rel.name()));
        }
        let name = entry.rel.name().to_lowercase();
        let key = KEY_FILES.contains(&name.as_str()) || name.starts_with("readme");
        if entry.depth == 1 && entry.kind == Kind::File && key {
            self.key_files.push(entry.rel.clone());
        }
        Flow::Continue
    }
}

fn project_overview(ws: &Workspace, path: &str) -> Result<Vec<PromptMessage>, HandlerError> {
    // With several roots, `.` is all of them, each under its name.
    let dirs = directories(ws, path)?;
    let several = dirs.len() > 1;
    let bounds = Bounds {
        max_depth: 2,
        ..ws.bounds
    };
    let mut overview = Overview {
        lines: Vec::new(),
        key_files: Vec::new(),
        total: 0,
        indent: usize::from(several),
    };
    for dir in &dirs {
        if several {
            overview.total += 1;
            overview.lines.push(format!("{}/", dir.rel));
        }
        walk(&dir.sandbox, dir, &bounds, &mut overview);
    }
    if overview.total > overview.lines.len() {
        overview.lines.push(format!(
            "… and {} more entries",
            overview.total - overview.lines.len()
        ));
    }
    let shown = if several {
        RelPath::root()
    } else {
        dirs[0].rel.clone()
    };
    let mut messages = vec![PromptMessage::user(Content::text(format!(
        "This is the layout of `{}` in my workspace (two levels deep):\n\n```\n{}\n```",
        shown,
        overview.lines.join("\n")
    )))];
    let mut budget = MAX_EMBED_BYTES;
    for rel in &overview.key_files {
        let Ok(file) = ws.resolve(rel.as_str()) else {
            continue;
        };
        if file.meta.len() > budget {
            continue;
        }
        if let Ok(resource) = embed(&file) {
            budget -= file.meta.len();
            messages.push(PromptMessage::user(Content::Resource { resource }));
        }
    }
    messages.push(PromptMessage::user(Content::text(
        "Give me an overview of this project as if I had just joined it: what it does, how the code is organized, how to build, test and run it, and which files to read first. Base every statement on the files above, and say what you could not tell from them.",
    )));
    Ok(messages)
}

#[cfg(test)]
#[path = "prompts_tests.rs"]
mod tests;
