//! The languages the analysis understands, told apart by file extension, and the words each
//! one reserves (keywords count as Halstead operators, never as operands or function names).

/// A language family with its own lexical rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Lang {
    Rust,
    Python,
    JavaScript,
    TypeScript,
    Go,
}

impl Lang {
    /// Every language, in the order reports list them.
    pub(crate) const ALL: [Lang; 5] = [
        Lang::Rust,
        Lang::Python,
        Lang::JavaScript,
        Lang::TypeScript,
        Lang::Go,
    ];

    /// The language of a file name, by extension (the same extensions lizard reads).
    pub(crate) fn of_path(path: &str) -> Option<Lang> {
        let ext = path.rsplit_once('.')?.1;
        Some(match ext {
            "rs" => Lang::Rust,
            "py" => Lang::Python,
            "js" | "mjs" | "cjs" | "jsx" => Lang::JavaScript,
            "ts" | "mts" | "cts" | "tsx" => Lang::TypeScript,
            "go" => Lang::Go,
            _ => return None,
        })
    }

    /// The name used in the `toolchain` argument and in reports.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Lang::Rust => "rust",
            Lang::Python => "python",
            Lang::JavaScript => "javascript",
            Lang::TypeScript => "typescript",
            Lang::Go => "go",
        }
    }

    /// JavaScript and TypeScript share one lexer and one function finder.
    pub(crate) fn is_js(self) -> bool {
        matches!(self, Lang::JavaScript | Lang::TypeScript)
    }

    /// True for `word` reserved by the language. A `match` on string literals compiles to
    /// length and byte comparisons (`memcmp` calls): this runs for every identifier of every
    /// file, so names that cannot be keywords are turned away first (every keyword of every
    /// language here is 2 to 11 lowercase ASCII letters; `Self`, `_x`, `HTTPServer` are not).
    pub(crate) fn is_keyword(self, word: &str) -> bool {
        if !(2..=11).contains(&word.len()) || !word.as_bytes()[0].is_ascii_lowercase() {
            return false;
        }
        match self {
            Lang::Rust => matches!(
                word,
                "as" | "async"
                    | "await"
                    | "break"
                    | "const"
                    | "continue"
                    | "crate"
                    | "dyn"
                    | "else"
                    | "enum"
                    | "extern"
                    | "fn"
                    | "for"
                    | "if"
                    | "impl"
                    | "in"
                    | "let"
                    | "loop"
                    | "match"
                    | "mod"
                    | "move"
                    | "mut"
                    | "pub"
                    | "ref"
                    | "return"
                    | "static"
                    | "struct"
                    | "super"
                    | "trait"
                    | "type"
                    | "unsafe"
                    | "use"
                    | "where"
                    | "while"
            ),
            Lang::Python => matches!(
                word,
                "and"
                    | "as"
                    | "assert"
                    | "async"
                    | "await"
                    | "break"
                    | "class"
                    | "continue"
                    | "def"
                    | "del"
                    | "elif"
                    | "else"
                    | "except"
                    | "finally"
                    | "for"
                    | "from"
                    | "global"
                    | "if"
                    | "import"
                    | "in"
                    | "is"
                    | "lambda"
                    | "nonlocal"
                    | "not"
                    | "or"
                    | "pass"
                    | "raise"
                    | "return"
                    | "try"
                    | "while"
                    | "with"
                    | "yield"
            ),
            Lang::JavaScript | Lang::TypeScript => matches!(
                word,
                "async"
                    | "await"
                    | "break"
                    | "case"
                    | "catch"
                    | "class"
                    | "const"
                    | "continue"
                    | "debugger"
                    | "default"
                    | "delete"
                    | "do"
                    | "else"
                    | "export"
                    | "extends"
                    | "finally"
                    | "for"
                    | "function"
                    | "if"
                    | "import"
                    | "in"
                    | "instanceof"
                    | "let"
                    | "new"
                    | "return"
                    | "switch"
                    | "throw"
                    | "try"
                    | "typeof"
                    | "var"
                    | "void"
                    | "while"
                    | "with"
                    | "yield"
            ),
            Lang::Go => matches!(
                word,
                "break"
                    | "case"
                    | "chan"
                    | "const"
                    | "continue"
                    | "default"
                    | "defer"
                    | "else"
                    | "fallthrough"
                    | "for"
                    | "func"
                    | "go"
                    | "goto"
                    | "if"
                    | "import"
                    | "interface"
                    | "map"
                    | "package"
                    | "range"
                    | "return"
                    | "select"
                    | "struct"
                    | "switch"
                    | "type"
                    | "var"
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extensions_pick_the_language() {
        assert_eq!(Lang::of_path("src/a.rs"), Some(Lang::Rust));
        assert_eq!(Lang::of_path("x.tsx"), Some(Lang::TypeScript));
        assert_eq!(Lang::of_path("x.mjs"), Some(Lang::JavaScript));
        assert_eq!(Lang::of_path("Makefile"), None);
        assert_eq!(Lang::of_path("a.c"), None);
    }
}
