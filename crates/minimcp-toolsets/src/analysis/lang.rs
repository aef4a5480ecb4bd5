//! The languages the analysis understands, told apart by file extension (the words each one
//! reserves are in `keywords.rs`, above this).

/// A language family with its own lexical rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Lang {
    Rust,
    Python,
    JavaScript,
    TypeScript,
    Go,
    Java,
    C,
    Cpp,
    Php,
    Ruby,
}

impl Lang {
    /// Every language, in the order reports list them.
    pub(crate) const ALL: [Lang; 10] = [
        Lang::Rust,
        Lang::Python,
        Lang::JavaScript,
        Lang::TypeScript,
        Lang::Go,
        Lang::Java,
        Lang::C,
        Lang::Cpp,
        Lang::Php,
        Lang::Ruby,
    ];

    /// The language of a file name, by extension (those lizard reads, and the other spellings
    /// of C++'s). A `.h` header is C: C and C++ share one front-end, so a C++ header named
    /// `.h` is measured alike and only reported as C.
    pub(crate) fn of_path(path: &str) -> Option<Lang> {
        let ext = path.rsplit_once('.')?.1;
        Some(match ext {
            "rs" => Lang::Rust,
            "py" => Lang::Python,
            "js" | "mjs" | "cjs" | "jsx" => Lang::JavaScript,
            "ts" | "mts" | "cts" | "tsx" => Lang::TypeScript,
            "go" => Lang::Go,
            "java" => Lang::Java,
            "c" | "h" => Lang::C,
            "cpp" | "cc" | "cxx" | "c++" | "hpp" | "hh" | "hxx" | "h++" => Lang::Cpp,
            "php" => Lang::Php,
            "rb" => Lang::Ruby,
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
            Lang::Java => "java",
            Lang::C => "c",
            Lang::Cpp => "cpp",
            Lang::Php => "php",
            Lang::Ruby => "ruby",
        }
    }

    /// The name people write.
    pub(crate) fn title(self) -> &'static str {
        match self {
            Lang::Rust => "Rust",
            Lang::Python => "Python",
            Lang::JavaScript => "JavaScript",
            Lang::TypeScript => "TypeScript",
            Lang::Go => "Go",
            Lang::Java => "Java",
            Lang::C => "C",
            Lang::Cpp => "C++",
            Lang::Php => "PHP",
            Lang::Ruby => "Ruby",
        }
    }

    /// Every language's [`title`](Self::title) joined for a sentence: "Rust, …, PHP or Ruby"
    /// (`last` is "or" or "and").
    pub(crate) fn titles(last: &str) -> String {
        let titles = Lang::ALL.map(Lang::title);
        let (tail, head) = titles.split_last().expect("ALL is not empty");
        format!("{} {last} {tail}", head.join(", "))
    }

    /// Every language's `toolchain` name, in order.
    pub(crate) fn names() -> [&'static str; 10] {
        Lang::ALL.map(Lang::as_str)
    }

    /// JavaScript and TypeScript share one lexer and one function finder.
    pub(crate) fn is_js(self) -> bool {
        matches!(self, Lang::JavaScript | Lang::TypeScript)
    }

    /// A reserved word after a member access is a member's name (`promise.catch`,
    /// `Foo.class`, `$q->match`, `range.end`).
    pub(crate) fn has_keyword_members(self) -> bool {
        matches!(
            self,
            Lang::JavaScript | Lang::TypeScript | Lang::Java | Lang::Php | Lang::Ruby
        )
    }

    /// The rules `src` is read with: C's, unless the source is C++'s (a header named `.h`
    /// that holds `::`, a namespace, a template or an access specifier), whose keywords (`class`, `operator`)
    /// decide where its functions are. It is still reported as C.
    pub(crate) fn reading(self, src: &str) -> Lang {
        let cpp = |s: &str| {
            s.contains("::")
                || s.contains("namespace ")
                || s.contains("template <")
                || s.contains("template<")
                || s.contains("public:")
                || s.contains("private:")
        };
        if self == Lang::C && cpp(src) {
            Lang::Cpp
        } else {
            self
        }
    }

    /// C and C++ share one front-end (and Java most of it).
    pub(crate) fn is_c(self) -> bool {
        matches!(self, Lang::C | Lang::Cpp)
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
        assert_eq!(Lang::of_path("a.c"), Some(Lang::C));
        assert_eq!(Lang::of_path("a.h"), Some(Lang::C));
        assert_eq!(Lang::of_path("a.hpp"), Some(Lang::Cpp));
        assert_eq!(Lang::of_path("A.java"), Some(Lang::Java));
        assert_eq!(Lang::of_path("a.php"), Some(Lang::Php));
        assert_eq!(Lang::of_path("a.rb"), Some(Lang::Ruby));
        assert_eq!(Lang::of_path("a.cs"), None);
    }

    #[test]
    fn lists_name_every_language() {
        assert_eq!(
            Lang::titles("or"),
            "Rust, Python, JavaScript, TypeScript, Go, Java, C, C++, PHP or Ruby"
        );
        assert_eq!(Lang::names().len(), Lang::ALL.len());
    }
}
