//! The import graph between the files of each crate of the workspace (`src/` and each
//! `crates/*/src`): no cycle in any, and in the library (`crates/minimcp`) every import points
//! down its layers (lib.rs, stdio.rs and the transport API transport.rs → session/ → the
//! rest). Between crates the compiler does it: a crate can only name what the crates below it
//! make public, and Cargo refuses a dependency cycle.
//!
//! Each file's non-test code (comments, strings and `#[cfg(test)]` items removed) is read
//! for `mod x;` declarations, `use` trees and paths written inline (`crate::a::f`,
//! `super::X`, `child::f`). A path is followed module by module to the file that
//! defines its item, through re-exports (`pub use` in lib.rs, `use` in a folder's mod.rs),
//! so `crate::Server` counts as an import of the file where `Server` is written, not of
//! lib.rs. A module's own file (lib.rs, a folder's mod.rs) contains what is inside its
//! module: declaring, re-exporting or calling it is not counted as an import, so the files
//! inside may use its items. A cycle is therefore between files neither of which contains
//! the other: siblings, or across folders. See tests/README.md.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

/// Crates and crate-like roots a path may start with that are not files of ours.
const EXTERN: &[&str] = &[
    "std",
    "core",
    "alloc",
    "serde",
    "serde_json",
    "thiserror",
    "minimcp",
    "minimcp_base",
    "minimcp_http",
    "minimcp_toolsets",
];

/// One source file: which crate, its module path, and its non-test code.
struct Source {
    rel: String,
    binary: bool,
    module: Vec<String>,
    code: String,
}

/// An edge of the file graph: from, to, the path that made it, and whether it is a `mod`.
struct Edge {
    from: usize,
    to: usize,
    via: String,
    contains: bool,
}

/// Removes comments, string and character literals (keeping lifetimes), so that only code
/// is searched for paths.
fn strip_comments_and_strings(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    while i < b.len() {
        let c = b[i];
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if c == b'/' && b.get(i + 1) == Some(&b'*') {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
                    depth += 1;
                    i += 2;
                } else if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if (c == b'r' || c == b'b')
            && (i == 0 || !ident(b[i - 1]))
            && raw_string_end(b, i).is_some()
        {
            i = raw_string_end(b, i).unwrap_or(b.len());
            out.push_str("\"\"");
        } else if c == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
        } else if c == b'\'' {
            // A character literal ('x', '\n', '\u{..}'), or a lifetime ('a), kept.
            if b.get(i + 1) == Some(&b'\\') {
                i += 2;
                while i < b.len() && b[i] != b'\'' {
                    i += 1;
                }
                i += 1;
            } else if let Some(len) = text[i + 1..].chars().next().map(char::len_utf8) {
                if b.get(i + 1 + len) == Some(&b'\'') {
                    i += len + 2;
                } else {
                    out.push('\'');
                    i += 1;
                }
            } else {
                i += 1;
            }
        } else {
            let len = text[i..].chars().next().map_or(1, char::len_utf8);
            out.push_str(&text[i..i + len]);
            i += len;
        }
    }
    out
}

/// Where a raw (or raw byte) string starting at `i` ends, if one starts there.
fn raw_string_end(b: &[u8], mut i: usize) -> Option<usize> {
    if b[i] == b'b' {
        i += 1;
    }
    if b.get(i) != Some(&b'r') {
        return None;
    }
    i += 1;
    let hashes = b[i..].iter().take_while(|&&c| c == b'#').count();
    i += hashes;
    if b.get(i) != Some(&b'"') {
        return None;
    }
    i += 1;
    while i < b.len() {
        if b[i] == b'"'
            && b[i + 1..]
                .iter()
                .take(hashes)
                .filter(|&&c| c == b'#')
                .count()
                == hashes
        {
            return Some(i + 1 + hashes);
        }
        i += 1;
    }
    Some(b.len())
}

/// Removes every item under a `#[cfg(...)]` that needs `test` (the attribute through the end
/// of the item: its `;`, or its matching `}`).
fn strip_test_items(code: &str) -> String {
    let mut out = String::new();
    let mut rest = code;
    while let Some(at) = rest.find("#[cfg(") {
        let close = rest[at..].find(']').map_or(rest.len(), |c| at + c + 1);
        let attr = &rest[at..close];
        let is_test = attr
            .split(|c: char| !c.is_alphanumeric() && c != '_')
            .any(|w| w == "test")
            && !attr.contains("not(test");
        out.push_str(&rest[..if is_test { at } else { close }]);
        rest = &rest[close..];
        if !is_test {
            continue;
        }
        let mut depth = 0;
        let mut end = rest.len();
        for (k, c) in rest.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = k + 1;
                        break;
                    }
                }
                ';' if depth == 0 => {
                    end = k + 1;
                    break;
                }
                _ => {}
            }
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// The sources under `root` (a `src/` folder), given as (path relative to it, text).
fn sources(files: &[(String, String)]) -> Vec<Source> {
    let code: BTreeMap<&str, String> = files
        .iter()
        .map(|(rel, text)| {
            let code = strip_test_items(&strip_comments_and_strings(text));
            (rel.as_str(), code)
        })
        .collect();
    let binary_modules: BTreeSet<String> = code
        .get("main.rs")
        .map(|main| mod_declarations(main).into_iter().collect())
        .unwrap_or_default();
    let mut out = Vec::new();
    for (rel, code) in code {
        let stem = rel.trim_end_matches(".rs");
        // A module main.rs declares is the binary's, and so is every file in its folder.
        let top = stem.split('/').next().unwrap_or(stem);
        let binary = rel == "main.rs" || binary_modules.contains(top);
        let mut module: Vec<String> = stem.split('/').map(str::to_string).collect();
        if rel == "main.rs" || rel == "lib.rs" || module.last().is_some_and(|m| m == "mod") {
            module.pop();
        }
        out.push(Source {
            rel: rel.to_string(),
            binary,
            module,
            code,
        });
    }
    out
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The words of `code` with their byte offsets.
fn words(code: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = None;
    for (k, c) in code
        .char_indices()
        .chain(std::iter::once((code.len(), ' ')))
    {
        match (is_ident(c), start) {
            (true, None) => start = Some(k),
            (false, Some(s)) => {
                out.push((s, &code[s..k]));
                start = None;
            }
            _ => {}
        }
    }
    out
}

/// The names of `mod name;` declarations (not inline `mod name { … }`).
fn mod_declarations(code: &str) -> Vec<String> {
    let w = words(code);
    w.windows(2)
        .filter(|p| p[0].1 == "mod")
        .filter(|p| code[p[1].0 + p[1].1.len()..].trim_start().starts_with(';'))
        .map(|p| p[1].1.to_string())
        .collect()
}

/// Every `use` tree of `code`, flattened: (path, the name it binds; `None` for a glob).
fn use_items(code: &str) -> Vec<(Vec<String>, Option<String>)> {
    let mut out = Vec::new();
    for (at, word) in words(code) {
        let before = code[..at].trim_end();
        let starts_statement = before.is_empty()
            || before.ends_with([';', '{', '}', ']', ')'])
            || before.ends_with("pub");
        if word != "use" || !starts_statement {
            continue;
        }
        let end = code[at..].find(';').map_or(code.len(), |e| at + e);
        let tree: String = code[at + 3..end].split_whitespace().collect();
        flatten(&tree, &mut Vec::new(), &mut out);
    }
    out
}

/// Flattens a use tree (whitespace removed) below `prefix`.
fn flatten(tree: &str, prefix: &mut Vec<String>, out: &mut Vec<(Vec<String>, Option<String>)>) {
    let brace = tree.find('{');
    let (path, group) = match brace {
        Some(b) if tree.ends_with('}') => (&tree[..b], Some(&tree[b + 1..tree.len() - 1])),
        _ => (tree, None),
    };
    let depth = prefix.len();
    let mut segments: Vec<&str> = path.split("::").filter(|s| !s.is_empty()).collect();
    let alias = segments
        .last()
        .and_then(|s| s.split_once("as"))
        .filter(|(a, _)| !a.is_empty());
    if let Some((name, alias)) = alias.map(|(a, b)| (a.to_string(), b.to_string())) {
        segments.pop();
        prefix.extend(segments.iter().map(|s| s.to_string()));
        prefix.push(name);
        out.push((prefix.clone(), Some(alias).filter(|a| a != "_")));
        prefix.truncate(depth);
        return;
    }
    prefix.extend(segments.iter().map(|s| s.to_string()));
    match group {
        Some(group) => {
            let mut level = 0;
            let mut start = 0;
            for (k, c) in group
                .char_indices()
                .chain(std::iter::once((group.len(), ',')))
            {
                match c {
                    '{' => level += 1,
                    '}' => level -= 1,
                    ',' if level == 0 => {
                        let item = &group[start..k];
                        if item == "self" {
                            out.push((prefix.clone(), prefix.last().cloned()));
                        } else if !item.is_empty() {
                            flatten(item, prefix, out);
                        }
                        start = k + 1;
                    }
                    _ => {}
                }
            }
        }
        None if prefix.last().is_some_and(|s| s == "*") => {
            prefix.pop();
            out.push((prefix.clone(), None));
        }
        None => out.push((prefix.clone(), prefix.last().cloned())),
    }
    prefix.truncate(depth);
}

/// Paths written in code (`a::b`, outside `use`): from the crate root, a parent, a child
/// module or an imported name; the rest (`Vec::new`, `std::…`) resolve to no file of ours.
fn inline_paths(code: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let w = words(code);
    for (k, &(at, word)) in w.iter().enumerate() {
        let preceded = code[..at].ends_with("::") || word == "use";
        if preceded || !code[at + word.len()..].starts_with("::") {
            continue;
        }
        let mut path = vec![word.to_string()];
        let mut end = at + word.len();
        for &(next_at, next) in &w[k + 1..] {
            if code[end..next_at] != *"::" {
                break;
            }
            path.push(next.to_string());
            end = next_at + next.len();
        }
        // A bare `super` or `crate` is the head of a `use` tree, read there.
        if path.len() > 1 {
            out.push(path);
        }
    }
    out
}

struct Graph {
    sources: Vec<Source>,
    /// (binary crate?, module path) → index of the file that is that module.
    modules: BTreeMap<(bool, Vec<String>), usize>,
    /// Per file: the names its `use` items bind, and their paths as written.
    imports: Vec<BTreeMap<String, Vec<String>>>,
}

impl Graph {
    fn new(sources: Vec<Source>) -> Graph {
        let modules = sources
            .iter()
            .enumerate()
            .map(|(i, s)| ((s.binary, s.module.clone()), i))
            .collect();
        let imports = sources
            .iter()
            .map(|s| {
                use_items(&s.code)
                    .into_iter()
                    .filter_map(|(path, name)| Some((name?, path)))
                    .collect()
            })
            .collect();
        Graph {
            sources,
            modules,
            imports,
        }
    }

    /// The file `path`, written in file `from`, leads to: `None` outside our files.
    fn resolve(&self, from: usize, path: &[String], hops: usize) -> Option<usize> {
        let source = &self.sources[from];
        let (binary, mut module) = (source.binary, source.module.clone());
        let mut rest = path;
        match path.first()?.as_str() {
            "crate" => module.clear(),
            "self" | "Self" => {}
            "super" => {
                while rest.first().is_some_and(|s| s == "super") {
                    module.pop();
                    rest = &rest[1..];
                }
                return self.walk(binary, module, rest, hops);
            }
            first if EXTERN.contains(&first) => return None,
            _ => return self.walk(binary, module, rest, hops),
        }
        self.walk(binary, module, &rest[1..], hops)
    }

    /// Follows `rest` from `module` down to the file that defines its item.
    fn walk(
        &self,
        binary: bool,
        mut module: Vec<String>,
        rest: &[String],
        hops: usize,
    ) -> Option<usize> {
        let mut file = *self.modules.get(&(binary, module.clone()))?;
        for (k, segment) in rest.iter().enumerate() {
            module.push(segment.clone());
            if let Some(&child) = self.modules.get(&(binary, module.clone())) {
                file = child;
                continue;
            }
            // A name this file imports: follow the import (a re-export), bounded.
            if let Some(target) = self.imports[file].get(segment).filter(|_| hops < 16) {
                let mut path = target.clone();
                path.extend(rest[k + 1..].iter().cloned());
                return self.resolve(file, &path, hops + 1).or(Some(file));
            }
            break;
        }
        Some(file)
    }

    fn edges(&self) -> Vec<Edge> {
        let mut edges = Vec::new();
        for (from, source) in self.sources.iter().enumerate() {
            let mut add = |to: Option<usize>, via: String, contains: bool| {
                if let Some(to) = to.filter(|&to| to != from) {
                    // A module's own file naming what is inside its module (a folder's
                    // mod.rs, lib.rs) contains it rather than using it.
                    let inside = self.sources[to].module.starts_with(&source.module)
                        && self.sources[to].binary == source.binary;
                    edges.push(Edge {
                        from,
                        to,
                        via,
                        contains: contains || inside,
                    });
                }
            };
            for name in mod_declarations(&source.code) {
                let mut module = source.module.clone();
                module.push(name.clone());
                let to = self.modules.get(&(source.binary, module)).copied();
                add(to, format!("mod {name}"), true);
            }
            let paths = use_items(&source.code).into_iter().map(|(p, _)| p);
            for path in paths.chain(inline_paths(&source.code)) {
                add(self.resolve(from, &path, 0), path.join("::"), false);
            }
        }
        edges
    }
}

/// The first cycle found, as the files and the path each one imports the next through.
fn find_cycle(n: usize, edges: &[Edge]) -> Option<Vec<(usize, String)>> {
    let mut next: Vec<Vec<&Edge>> = vec![Vec::new(); n];
    for e in edges {
        next[e.from].push(e);
    }
    // 0 unseen, 1 on the current path, 2 done.
    let mut state = vec![0u8; n];
    let mut path: Vec<(usize, String)> = Vec::new();
    fn visit(
        at: usize,
        next: &[Vec<&Edge>],
        state: &mut [u8],
        path: &mut Vec<(usize, String)>,
    ) -> Option<Vec<(usize, String)>> {
        state[at] = 1;
        for e in &next[at] {
            path.push((at, e.via.clone()));
            if state[e.to] == 1 {
                let start = path.iter().position(|(f, _)| *f == e.to)?;
                return Some(path[start..].to_vec());
            }
            if state[e.to] == 0 {
                if let Some(cycle) = visit(e.to, next, state, path) {
                    return Some(cycle);
                }
            }
            path.pop();
        }
        state[at] = 2;
        None
    }
    (0..n).find_map(|start| {
        (state[start] == 0)
            .then(|| visit(start, &next, &mut state, &mut path))
            .flatten()
    })
}

/// The layer of a file of the library, from the top (2) down: an import may stay in its
/// layer or go down.
fn layer(source: &Source) -> (u8, &'static str) {
    let rel = source.rel.as_str();
    if ["lib.rs", "stdio.rs", "transport.rs"].contains(&rel) {
        (2, "lib.rs, stdio and the transport API")
    } else if rel.starts_with("session/") {
        (1, "session/")
    } else {
        (0, "the API, wire and kit files")
    }
}

/// Every problem of the library's tree in `files`: a cycle, and each import that points up.
fn problems(files: &[(String, String)]) -> Vec<String> {
    problems_in(files, "src", true)
}

/// Every problem of the tree in `files`, read from `dir`: a cycle, and when `layered`, each
/// import that points up.
fn problems_in(files: &[(String, String)], dir: &str, layered: bool) -> Vec<String> {
    let graph = Graph::new(sources(files));
    // Containment is not use: a child may import its parent's items.
    let (contains, mut edges): (Vec<Edge>, Vec<Edge>) =
        graph.edges().into_iter().partition(|e| e.contains);
    drop(contains);
    let name = |i: usize| format!("{dir}/{}", graph.sources[i].rel);
    let mut found = Vec::new();
    let mut cut = Vec::new();
    // Every cycle, one at a time: each found is opened (its last step set aside) to look
    // for the next.
    while let Some(cycle) = find_cycle(graph.sources.len(), &edges).filter(|_| found.len() < 20) {
        let steps: Vec<String> = cycle
            .iter()
            .map(|(file, via)| format!("{} ({via})", name(*file)))
            .collect();
        found.push(format!(
            "import cycle: {} -> back to {}",
            steps.join(" -> "),
            name(cycle[0].0)
        ));
        let (last, first) = (cycle[cycle.len() - 1].0, cycle[0].0);
        let (open, kept) = edges
            .into_iter()
            .partition(|e| e.from == last && e.to == first);
        edges = kept;
        cut.extend::<Vec<Edge>>(open);
    }
    edges.extend(cut);
    let mut reported = BTreeSet::new();
    for e in edges.iter().filter(|_| layered) {
        let (from, to) = (layer(&graph.sources[e.from]), layer(&graph.sources[e.to]));
        if to.0 > from.0 && reported.insert((e.from, e.to)) {
            found.push(format!(
                "{} ({}) imports up, into {} ({}): {}",
                name(e.from),
                from.1,
                name(e.to),
                to.1,
                e.via
            ));
        }
    }
    found
}

fn read_tree(dir: &Path, rel: &str, out: &mut Vec<(String, String)>) {
    let mut entries: Vec<_> = fs::read_dir(dir)
        .expect("src/ is readable")
        .flatten()
        .collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let name = entry.file_name().to_string_lossy().into_owned();
        let path = entry.path();
        let child = if rel.is_empty() {
            name.clone()
        } else {
            format!("{rel}/{name}")
        };
        if path.is_dir() {
            read_tree(&path, &child, out);
        } else if name.ends_with(".rs") && !name.ends_with("_tests.rs") && name != "tests.rs" {
            out.push((child, fs::read_to_string(&path).expect("readable source")));
        }
    }
}

/// Each crate's source folder, and whether its files are layered (the library's).
const CRATES: &[(&str, bool)] = &[
    ("src", false),
    ("crates/minimcp-toolsets/src", false),
    ("crates/minimcp-http/src", false),
    ("crates/minimcp/src", true),
    ("crates/minimcp-base/src", false),
];

#[test]
fn no_crate_has_an_import_cycle_and_the_library_imports_point_down() {
    let mut found = Vec::new();
    let mut read = 0;
    for (dir, layered) in CRATES {
        let mut files = Vec::new();
        read_tree(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join(dir),
            "",
            &mut files,
        );
        assert!(files.len() > 3, "read {dir}: {} files", files.len());
        read += files.len();
        found.extend(problems_in(&files, dir, *layered));
    }
    assert!(read > 100, "read the trees: {read} files");
    assert!(found.is_empty(), "\n{}\n", found.join("\n"));
}

fn tree(files: &[(&str, &str)]) -> Vec<(String, String)> {
    files
        .iter()
        .map(|(rel, text)| (rel.to_string(), text.to_string()))
        .collect()
}

#[test]
fn a_cycle_through_a_re_export_is_found_and_named() {
    let found = problems(&tree(&[
        ("lib.rs", "mod a;\nmod b;\npub use b::Thing;\n"),
        (
            "a.rs",
            "pub struct A;\nfn f() -> crate::Thing { todo!() }\n",
        ),
        ("b.rs", "use crate::a::{self, A};\npub struct Thing(A);\n"),
    ]));
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].starts_with("import cycle: "), "{found:?}");
    assert!(found[0].contains("src/a.rs (crate::Thing)"), "{found:?}");
    assert!(found[0].contains("src/b.rs (crate::a"), "{found:?}");
}

#[test]
fn siblings_importing_each_other_are_a_cycle_but_a_child_using_its_folder_is_not() {
    let siblings = problems(&tree(&[
        ("lib.rs", "mod s;\n"),
        ("s/mod.rs", "mod a;\nmod b;\n"),
        ("s/a.rs", "pub(crate) struct A;\nfn f() { super::b::g() }\n"),
        ("s/b.rs", "use super::a::A;\npub(crate) fn g() {}\n"),
    ]));
    assert_eq!(siblings.len(), 1, "{siblings:?}");
    assert!(
        siblings[0].contains("src/s/a.rs (super::b::g)"),
        "{siblings:?}"
    );
    let folder = problems(&tree(&[
        ("lib.rs", "mod s;\n"),
        (
            "s/mod.rs",
            "mod c;\nmod conn;\npub(crate) use conn::Conn;\nfn f() { c::g() }\n",
        ),
        ("s/conn.rs", "pub(crate) struct Conn;\n"),
        (
            "s/c.rs",
            "use super::{Conn, conn};\npub(crate) fn g() {}\n// use super::b::g; \"crate::x\"\n",
        ),
    ]));
    assert_eq!(folder, Vec::<String>::new());
}

#[test]
fn an_import_up_the_layers_is_refused_and_test_code_is_not_read() {
    let found = problems(&tree(&[
        ("lib.rs", "mod session;\nmod stdio;\n"),
        ("stdio.rs", "pub fn serve() {}\n"),
        (
            "session/mod.rs",
            "fn f() { crate::stdio::serve() }\n#[cfg(test)]\nmod tests { use crate::stdio; }\n",
        ),
    ]));
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].starts_with("src/session/mod.rs (session/) imports up, into src/stdio.rs"),
        "{found:?}"
    );
}
