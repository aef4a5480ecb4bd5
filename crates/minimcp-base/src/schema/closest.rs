//! "Did you mean": the nearest of some names to a misspelled one.

/// The candidate a misspelled `name` most likely meant: within a third of its length in
/// edits (at least one, at most three), case ignored. `None` when nothing is that close, or
/// `name` is too long to compare cheaply (it came from a client).
pub fn closest<'a>(name: &str, candidates: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    const MAX_COMPARED: usize = 64;
    if name.is_empty() || name.len() > MAX_COMPARED {
        return None;
    }
    let limit = (name.chars().count() / 3).clamp(1, 3);
    candidates
        .filter(|c| c.len() <= MAX_COMPARED)
        .map(|c| (edit_distance(name, c), c))
        .filter(|&(distance, _)| distance <= limit)
        .min_by_key(|&(distance, _)| distance)
        .map(|(_, c)| c)
}

/// Edits between `a` and `b`, over characters with ASCII case ignored: insertions,
/// deletions, substitutions and swaps of two neighbours (the optimal string alignment
/// distance: `ehco` is one edit from `echo`, the commonest typo).
fn edit_distance(a: &str, b: &str) -> usize {
    let lower = |s: &str| -> Vec<char> { s.chars().map(|c| c.to_ascii_lowercase()).collect() };
    let (a, b) = (lower(a), lower(b));
    // d[i][j]: the distance between a[..i] and b[..j]; i + j edits when one of them is empty.
    let mut d: Vec<Vec<usize>> = (0..=a.len())
        .map(|i| (0..=b.len()).map(|j| i + j).collect())
        .collect();
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            d[i][j] = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d[i][j] = d[i][j].min(d[i - 2][j - 2] + 1);
            }
        }
    }
    d[a.len()][b.len()]
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
            ("ehco", "ECHO", 1),
        ] {
            assert_eq!(edit_distance(a, b), d, "{a} {b}");
            assert_eq!(edit_distance(b, a), d, "{b} {a}");
        }
    }
}
