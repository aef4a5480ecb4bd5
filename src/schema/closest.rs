//! "Did you mean": the nearest of some names to a misspelled one.

/// The candidate a misspelled `name` most likely meant: the same but for case, or within
/// a third of its length in edits (at least one, at most three). `None` when nothing is
/// that close, or `name` is too long to compare cheaply (it came from a client).
pub(crate) fn closest<'a>(
    name: &str,
    candidates: impl Iterator<Item = &'a str>,
) -> Option<&'a str> {
    const MAX_COMPARED: usize = 64;
    if name.is_empty() || name.len() > MAX_COMPARED {
        return None;
    }
    let limit = (name.chars().count() / 3).clamp(1, 3);
    candidates
        .filter(|c| c.len() <= MAX_COMPARED)
        .map(|c| {
            let distance = if c.eq_ignore_ascii_case(name) {
                0
            } else {
                edit_distance(name, c)
            };
            (distance, c)
        })
        .filter(|&(distance, _)| distance <= limit)
        .min_by_key(|&(distance, _)| distance)
        .map(|(_, c)| c)
}

/// Edits between `a` and `b`, over characters: insertions, deletions, substitutions and
/// swaps of two neighbours (the optimal string alignment distance: `ehco` is one edit from
/// `echo`, the commonest typo). Both are at most 64 characters here.
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let width = b.len() + 1;
    let mut d: Vec<usize> = vec![0; (a.len() + 1) * width];
    for i in 0..=a.len() {
        for j in 0..=b.len() {
            d[i * width + j] = if i == 0 || j == 0 {
                i + j
            } else {
                let cost = usize::from(a[i - 1] != b[j - 1]);
                let mut best = (d[(i - 1) * width + j] + 1)
                    .min(d[i * width + j - 1] + 1)
                    .min(d[(i - 1) * width + j - 1] + cost);
                if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                    best = best.min(d[(i - 2) * width + j - 2] + 1);
                }
                best
            };
        }
    }
    d[a.len() * width + b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn misspellings_find_the_name_they_meant_and_nothing_far() {
        let tools = ["read_file", "list_directory", "search_text", "search_files"];
        let near = |name: &str| closest(name, tools.iter().copied());
        assert_eq!(near("read_fil"), Some("read_file"));
        assert_eq!(near("READ_FILE"), Some("read_file"));
        assert_eq!(near("list_dir"), None, "six edits away");
        assert_eq!(near("search_test"), Some("search_text"));
        assert_eq!(near("serch_files"), Some("search_files"));
        assert_eq!(near("zzzzzz"), None);
        assert_eq!(near(""), None);
        assert_eq!(near(&"read_file".repeat(100)), None, "too long to compare");
        assert_eq!(near("ab"), None, "a short name needs to be within one edit");
        assert_eq!(closest("pth", ["path", "paths"].into_iter()), Some("path"));
        for (a, b, d) in [
            ("", "", 0),
            ("a", "", 1),
            ("kitten", "sitting", 3),
            ("é", "e", 1),
        ] {
            assert_eq!(edit_distance(a, b), d, "{a} {b}");
            assert_eq!(edit_distance(b, a), d, "{b} {a}");
        }
    }
}
