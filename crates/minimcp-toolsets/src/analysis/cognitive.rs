//! Cognitive complexity (G. Ann Campbell, SonarSource, "Cognitive Complexity", 2017) for the
//! brace languages, from tokens. Per function, over its whole body (structures in nested
//! functions and closures count for it too, one level deeper, as the paper says):
//!
//! - +1, plus the current nesting: `if`, `switch`/`match`/`select`, `for`, `while`, `loop`,
//!   `do … while` (once), `catch`, the ternary `?:`;
//! - +1 flat: `else if`, `else`, each sequence of like boolean operators (`a && b && c` is
//!   one, `a && b || c` two), `break`/`continue` to a label, `goto`, each direct recursive
//!   call;
//! - nesting +1 inside the bodies of the structures above (except the flat ones' own
//!   increments) and inside nested functions and closures.
//!
//! Python has its own walker (`cognitive_py.rs`): its blocks are indentation; so has Ruby
//! (`cognitive_rb.rs`): its blocks end with `end`. Java, C, C++ and PHP add their own
//! structures (`cognitive_c.rs`): PHP's `elseif`, `foreach` and `match`, and lambdas and
//! closures, which nest their bodies like nested functions.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

use super::functions::{matching, Found};
use super::lang::Lang;
use super::lexer::{Kind, Token};

#[path = "cognitive_c.rs"]
mod c;

/// Sequences of like boolean operators: the last operator seen at each bracket level.
struct Booleans<'s>(Vec<Option<&'s str>>);

impl<'s> Booleans<'s> {
    fn new() -> Self {
        Booleans(vec![None])
    }

    fn open(&mut self) {
        self.0.push(None);
    }

    fn close(&mut self) {
        self.0.pop();
        if self.0.is_empty() {
            self.0.push(None);
        }
    }

    /// An expression boundary at the current level.
    fn reset(&mut self) {
        if let Some(last) = self.0.last_mut() {
            *last = None;
        }
    }

    /// 1 when `op` starts a new sequence.
    fn operator(&mut self, op: &'s str) -> u32 {
        let last = self.0.last_mut().expect("never empty");
        if *last == Some(op) {
            0
        } else {
            *last = Some(op);
            1
        }
    }

    /// Follows bracket `t`, boundary or boolean operator; returns its increment.
    #[inline(always)]
    fn token(&mut self, t: &Token<'s>) -> u32 {
        // Names and literals (half the tokens) are none of these.
        if !matches!(t.kind, Kind::Op | Kind::Keyword) {
            return 0;
        }
        match (t.kind, t.text) {
            (Kind::Op, "{" | "(" | "[") => self.open(),
            (Kind::Op, "}" | ")" | "]") => self.close(),
            (Kind::Op, "&&" | "||") => return self.operator(t.text),
            (Kind::Op, ";" | "," | "=" | "?" | ":" | "=>") | (Kind::Keyword, _) => self.reset(),
            _ => {}
        }
        0
    }
}

/// Token indexes hashed with one multiplication. They come from our own lexer, so SipHash's
/// defence against chosen keys buys nothing, and it was a tenth of the cognitive pass on Go.
#[derive(Default)]
struct IndexHash(u64);

impl Hasher for IndexHash {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
    }

    fn write_usize(&mut self, n: usize) {
        self.0 = (self.0 ^ n as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

type Indexes = HashSet<usize, BuildHasherDefault<IndexHash>>;

/// The state of one function's walk.
struct Walk<'a, 's> {
    tokens: &'a [Token<'s>],
    lang: Lang,
    /// Braces that open a nesting level (bodies of structures and nested functions).
    nests: Indexes,
    /// The closing `}` of `do` bodies, whose `while` is not another loop.
    do_ends: Indexes,
    /// For each open `{`, whether it raised the nesting.
    braces: Vec<bool>,
    nesting: u32,
    max_nesting: u32,
    score: u32,
}

impl Walk<'_, '_> {
    fn deeper(&mut self) {
        self.nesting += 1;
        self.max_nesting = self.max_nesting.max(self.nesting);
    }

    /// A structure that scores 1 plus the nesting and nests its body.
    fn nesting_structure(&mut self, at: usize) {
        self.score += 1 + self.nesting;
        if let Some(b) = structure_body(self.tokens, self.lang, at) {
            self.nests.insert(b);
        }
    }

    fn brace(&mut self, i: usize, open: bool) {
        if open {
            let closure = match self.lang {
                Lang::Rust => i > 0 && matches!(self.tokens[i - 1].text, "|" | "||"),
                Lang::Java | Lang::Cpp | Lang::Php => c::closure_body(self.tokens, self.lang, i),
                _ => false,
            };
            let nest = self.nests.contains(&i) || closure;
            self.braces.push(nest);
            if nest {
                self.deeper();
            }
        } else if self.braces.pop() == Some(true) {
            self.nesting -= 1;
        }
    }

    /// The increments of the keyword or operator at `i`.
    fn keyword(&mut self, i: usize) {
        let (tokens, lang) = (self.tokens, self.lang);
        let t = &tokens[i];
        // Every case below is a keyword or `?`.
        if t.kind != Kind::Keyword && !t.is("?") {
            return;
        }
        let next_is = |s: &str| tokens.get(i + 1).is_some_and(|n| n.is(s));
        match (t.kind, t.text) {
            (Kind::Keyword, "if") if i > 0 && tokens[i - 1].is("else") => {
                self.score += 1;
                if let Some(b) = structure_body(tokens, lang, i) {
                    self.nests.insert(b);
                }
            }
            (Kind::Keyword, "elseif") if lang == Lang::Php => {
                self.score += 1;
                if let Some(b) = structure_body(tokens, lang, i) {
                    self.nests.insert(b);
                }
            }
            (
                Kind::Keyword,
                "if" | "for" | "while" | "switch" | "catch" | "loop" | "match" | "foreach",
            ) => {
                if t.text == "while" && i > 0 && self.do_ends.contains(&(i - 1)) {
                    return;
                }
                self.nesting_structure(i);
            }
            (Kind::Keyword, "select") if lang == Lang::Go => self.nesting_structure(i),
            // Rust's `let … else` is not a branch of an `if`: only an `else` after a block
            // (the newer languages: after any statement, `if (c) x(); else {…}`).
            (Kind::Keyword, "else")
                if !next_is("if")
                    && i > 0
                    && (tokens[i - 1].text == "}" || c::braceless_else(lang)) =>
            {
                self.score += 1;
                if next_is("{") {
                    self.nests.insert(i + 1);
                }
            }
            (Kind::Keyword, "do") if c::paren_heads(lang) => {
                self.score += 1 + self.nesting;
                if next_is("{") {
                    self.nests.insert(i + 1);
                    self.do_ends.insert(matching(tokens, i + 1));
                }
            }
            (Kind::Op, "?") if c::ternary(tokens, lang, i) => {
                self.score += 1 + self.nesting;
            }
            (Kind::Keyword, "break" | "continue") => {
                // PHP's `break 2` leaves two loops: a jump as a label's is.
                let labelled = tokens.get(i + 1).is_some_and(|n| {
                    (n.kind == Kind::Ident || (lang == Lang::Php && n.kind == Kind::Number))
                        && (lang != Lang::Rust || n.text.starts_with('\''))
                        && n.line == t.line
                });
                self.score += u32::from(labelled);
            }
            (Kind::Keyword, "goto") => self.score += 1,
            _ => {}
        }
    }
}

/// The cognitive complexity of `f` and the deepest nesting reached in it.
pub(crate) fn braced(tokens: &[Token<'_>], lang: Lang, list: &[Found], index: usize) -> (u32, u32) {
    let f = &list[index];
    if f.expression {
        return expression(tokens, lang, f);
    }
    let own_name = match lang {
        // `A::f`, `operator==` (no call of it is a recursion this sees), `self.name`.
        Lang::Cpp | Lang::C => f.name.rsplit(':').next().unwrap_or(""),
        _ => f.name.rsplit(['.', ' ']).next().unwrap_or(""),
    };
    let mut walk = Walk {
        tokens,
        lang,
        nests: Indexes::default(),
        do_ends: Indexes::default(),
        braces: Vec::new(),
        nesting: 0,
        max_nesting: 0,
        score: 0,
    };
    // Functions nested here nest their bodies; expression bodies until their last token.
    let mut expression_bodies: HashMap<usize, usize, BuildHasherDefault<IndexHash>> =
        HashMap::default();
    // Java: a method of an anonymous or local class is measured on its own, not again here
    // (as lizard's cognitive complexity reads it): its tokens are skipped.
    let mut apart: Vec<(usize, usize)> = Vec::new();
    for g in list[index + 1..].iter().take_while(|g| g.first <= f.last) {
        if lang == Lang::Java {
            if apart.last().is_none_or(|&(_, last)| g.first > last) {
                apart.push((g.first, g.last));
            }
            continue;
        }
        if g.expression {
            expression_bodies.insert(g.body, g.last);
        } else {
            walk.nests.insert(g.body);
        }
    }
    let mut lambdas: Vec<usize> = Vec::new();
    let mut booleans = Booleans::new();
    let mut apart = apart.into_iter().peekable();
    // Lambdas without braces and ternaries' branches nest in these (a test per function,
    // not per token, for the others).
    let newer = matches!(lang, Lang::Java | Lang::C | Lang::Cpp | Lang::Php);
    for i in f.body..=f.last.min(tokens.len().saturating_sub(1)) {
        let t = &tokens[i];
        if newer {
            if let Some(&(first, last)) = apart.peek() {
                if i >= first {
                    if i == last {
                        apart.next();
                    }
                    continue;
                }
            }
        }
        while lambdas.last().is_some_and(|&end| i > end) {
            lambdas.pop();
            walk.nesting -= 1;
        }
        // Names and literals (half the tokens) take part only in recursive calls.
        if t.kind == Kind::Ident {
            if t.text == own_name && i > f.body && recursive_call(tokens, i) {
                walk.score += 1;
            }
        } else if matches!(t.kind, Kind::Op | Kind::Keyword) {
            if i != f.body && t.kind == Kind::Op && (t.text == "{" || t.text == "}") {
                walk.brace(i, t.text == "{");
            }
            walk.score += booleans.token(t);
            if t.kind == Kind::Keyword || t.text == "?" {
                walk.keyword(i);
            }
        }
        if let Some(last) = newer
            .then(|| c::expression_lambda(tokens, lang, i))
            .flatten()
        {
            // Java's `x -> expr`, PHP's `fn($x) => expr`: nested until the expression ends.
            lambdas.push(last);
            walk.deeper();
        }
        if expression_bodies.is_empty() {
            continue;
        }
        if let Some(&last) = expression_bodies.get(&i) {
            lambdas.push(last);
            walk.deeper();
        }
    }
    (walk.score, walk.max_nesting)
}

/// An expression-bodied arrow function: only its booleans and ternaries.
fn expression(tokens: &[Token<'_>], lang: Lang, f: &Found) -> (u32, u32) {
    let mut booleans = Booleans::new();
    let mut score = 0;
    for i in f.body..=f.last.min(tokens.len().saturating_sub(1)) {
        let t = &tokens[i];
        score += booleans.token(t);
        if t.is("?") && lang.is_js() && !super::cyclomatic::optional_marker(tokens, i) {
            score += 1;
        }
    }
    (score, 0)
}

/// The `{` that opens the body of the structure whose keyword is at `at`: for
/// JavaScript/TypeScript after its parenthesized head (none for a single-statement body);
/// for Rust and Go the first `{` outside brackets.
fn structure_body(tokens: &[Token<'_>], lang: Lang, at: usize) -> Option<usize> {
    let mut i = at + 1;
    if c::paren_heads(lang) {
        if tokens.get(i).is_some_and(|t| t.is("(")) {
            i = matching(tokens, i) + 1;
        }
        return tokens.get(i).filter(|t| t.is("{")).map(|_| i);
    }
    while let Some(t) = tokens.get(i) {
        if t.kind == Kind::Op {
            match t.text {
                "{" => return Some(i),
                "(" | "[" => i = matching(tokens, i),
                "}" | ";" if lang == Lang::Rust => return None,
                "}" => return None,
                _ => {}
            }
        }
        i += 1;
    }
    None
}

/// True when the name at `i` is called directly: `name(`, `self.name(`, `this.name(`,
/// `Self::name(`, `this->name(`, `$this->name(`.
fn recursive_call(tokens: &[Token<'_>], i: usize) -> bool {
    if !tokens.get(i + 1).is_some_and(|t| t.is("(")) {
        return false;
    }
    match i.checked_sub(1).map(|p| &tokens[p]) {
        Some(p) if p.is(".") || p.is("::") || p.is("->") => {
            i >= 2
                && matches!(
                    tokens[i - 2].text,
                    "self" | "this" | "Self" | "$this" | "static"
                )
        }
        Some(p) if p.is("fn") || p.is("func") || p.is("function") => false,
        _ => true,
    }
}
