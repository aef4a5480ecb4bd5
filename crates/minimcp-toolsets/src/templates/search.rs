//! Relevance of a template to a free-text query, for `search_templates`.
//!
//! The query is lowercased and split into terms at every character that is not a letter or
//! a digit (duplicates dropped, at most [`MAX_TERMS`]). Each term scores:
//! - 3 when it names the template's category, toolchain or variant, or an alias of one
//!   (`docker` → dockerfile, `typescript` → deno, `uv` → python, `library` → lib…);
//! - else 2 when it is a whole word of the title or description;
//! - else 1 when it has two or more characters and begins a word of the title, the
//!   description or an alias;
//! - else 0.
//!
//! The score is the sum over the terms divided by 3 × the number of terms, so it lies in
//! 0…1 and is 1 exactly when every term names a part of the URI. Results with a score
//! above 0 are sorted by score, highest first, then in manifest order; scores are rounded
//! to three decimals.

use super::catalog::{aliases, Entry};

/// Terms beyond this many are ignored.
pub(crate) const MAX_TERMS: usize = 16;

/// The query's terms.
pub(crate) fn terms(query: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for term in query
        .to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|t| !t.is_empty())
    {
        if out.len() < MAX_TERMS && !out.iter().any(|t| t == term) {
            out.push(term.to_string());
        }
    }
    out
}

fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
}

/// The relevance of `entry` to `terms`, in 0…1 (see the module docs).
pub(crate) fn score(entry: &Entry, terms: &[String]) -> f64 {
    if terms.is_empty() {
        return 0.0;
    }
    let parts = [entry.category(), entry.toolchain(), entry.variant];
    let part_words: Vec<&str> = parts
        .iter()
        .flat_map(|p| aliases(p).iter().copied())
        .collect();
    let text = format!("{} {}", entry.title(), entry.source.description);
    let text_words: Vec<String> = words(&text).collect();
    let total: u32 = terms
        .iter()
        .map(|term| {
            if part_words.contains(&term.as_str()) {
                3
            } else if text_words.iter().any(|w| w == term) {
                2
            } else if term.chars().count() >= 2
                && text_words
                    .iter()
                    .map(String::as_str)
                    .chain(part_words.iter().copied())
                    .any(|w| w.starts_with(term.as_str()))
            {
                1
            } else {
                0
            }
        })
        .sum();
    let score = f64::from(total) / (3.0 * terms.len() as f64);
    (score * 1000.0).round() / 1000.0
}

#[cfg(test)]
mod tests {
    use super::super::catalog::{entries, find};
    use super::*;

    fn top(query: &str) -> Vec<(String, f64)> {
        let terms = terms(query);
        let mut scored: Vec<(String, f64)> = entries()
            .map(|e| (e.name(), score(&e, &terms)))
            .filter(|(_, s)| *s > 0.0)
            .collect();
        scored.sort_by(|a, b| b.1.total_cmp(&a.1));
        scored
    }

    #[test]
    fn terms_are_lowercase_words() {
        assert_eq!(
            terms("Rust, CLI rust/Makefile"),
            ["rust", "cli", "makefile"]
        );
        assert_eq!(terms("  "), Vec::<String>::new());
    }

    #[test]
    fn the_formula_on_worked_examples() {
        let entry = find("makefile", "rust", "cli").expect("exists");
        // Every term names a URI part: 3 + 3 + 3 over 9.
        assert_eq!(score(&entry, &terms("rust cli makefile")), 1.0);
        // "cargo" is an alias (3), "clippy" a description word (2): 5 / 6.
        assert_eq!(score(&entry, &terms("cargo clippy")), 0.833);
        // "clip" begins a word (1), "zzz" nothing (0): 1 / 6.
        assert_eq!(score(&entry, &terms("clip zzz")), 0.167);
        assert_eq!(score(&entry, &terms("")), 0.0);
    }

    #[test]
    fn aliases_find_the_expected_templates() {
        assert_eq!(
            top("docker go")[0],
            ("dockerfile/go/service".to_string(), 1.0)
        );
        assert_eq!(top("typescript library makefile")[0].0, "makefile/deno/lib");
        assert_eq!(top("uv gitignore")[0].0, "gitignore/python/default");
        assert!(top("qwertyuiop").is_empty());
    }
}
