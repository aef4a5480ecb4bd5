//! Every metric of every function of one source file.

use super::functions;
use super::halstead::{self, Halstead};
use super::lang::Lang;
use super::lexer;
use super::{cognitive, cognitive_py, cognitive_rb, cyclomatic};

/// One function and its metrics.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Measured {
    pub(crate) name: String,
    pub(crate) start_line: u32,
    pub(crate) end_line: u32,
    pub(crate) cyclomatic: u32,
    pub(crate) cognitive: u32,
    pub(crate) max_nesting: u32,
    pub(crate) halstead: Halstead,
}

impl Measured {
    /// Lines from the head to the end of the body, both included.
    pub(crate) fn lines(&self) -> u32 {
        self.end_line - self.start_line + 1
    }
}

/// Lexes `src`, finds its functions and measures each, in source order.
pub(crate) fn file(src: &str, lang: Lang) -> Vec<Measured> {
    let lang = lang.reading(src);
    let tokens = lexer::lex(src, lang);
    let mut found = functions::find(&tokens, lang);
    let mut decisions = vec![0u32; found.list.len()];
    cyclomatic::count(&tokens, lang, &found, &mut decisions);
    let mut out = Vec::with_capacity(found.list.len());
    let mut counter = halstead::Counter::default();
    for (index, &decided) in decisions.iter().enumerate() {
        let (cognitive, max_nesting) = match lang {
            Lang::Python => cognitive_py::python(&tokens, &found.list[index]),
            Lang::Ruby => cognitive_rb::ruby(&tokens, &found.list[index]),
            _ => cognitive::braced(&tokens, lang, &found.list, index),
        };
        let f = &mut found.list[index];
        let span = f.first..=f.last.min(tokens.len().saturating_sub(1));
        out.push(Measured {
            // Moved, not copied: nothing reads a function's name after its own cognitive
            // pass (the later functions' passes read only their nested functions' spans).
            name: std::mem::take(&mut f.name),
            start_line: f.start_line,
            end_line: f.end_line.max(f.start_line),
            cyclomatic: 1 + decided + default_parameters(&tokens, lang, f),
            cognitive,
            max_nesting,
            halstead: counter.measure_owned(&tokens[span.clone()], &found.owner[span], index),
        });
    }
    out
}

/// JavaScript/TypeScript: each parameter default (`p = 1`) is a branch (taken when the
/// argument is `undefined`), and lizard counts it.
fn default_parameters(tokens: &[lexer::Token<'_>], lang: Lang, f: &functions::Found) -> u32 {
    if !lang.is_js() {
        return 0;
    }
    let Some(open) = (f.first..f.body).find(|&i| tokens[i].is("(")) else {
        return 0;
    };
    let close = functions::matching(tokens, open).min(f.body);
    tokens[open..close].iter().filter(|t| t.is("=")).count() as u32
}

#[cfg(test)]
/// (name, start line, cyclomatic) of every function [`file`] finds: what the lexer's and
/// the function finder's tests compare.
pub(crate) fn measured(src: &str, lang: Lang) -> Vec<(String, u32, u32)> {
    file(src, lang)
        .into_iter()
        .map(|m| (m.name, m.start_line, m.cyclomatic))
        .collect()
}

#[cfg(test)]
#[path = "measure_tests.rs"]
mod tests;
