//! Unified diffs (the `diff -u` format) of a file before and after an edit, for the model to
//! check what changed. Lines are compared whole; the common head and tail are skipped first,
//! and the middle is aligned by a longest-common-subsequence table when it is small enough
//! ([`MAX_TABLE_CELLS`]; its lines numbered first, so a cell costs the same for any line
//! length), else shown as all removed then all added (still a correct diff, only a longer
//! one).

use std::collections::HashMap;
use std::hash::Hash;

/// Largest LCS table (lines before × lines after, of the part that differs).
const MAX_TABLE_CELLS: usize = 4_000_000;

/// One step of an edit script.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Op {
    Same,
    Removed,
    Added,
}

/// The diff of `old` to `new`, named `path` in its headers, with `context` lines around each
/// change; empty when they are equal.
pub(crate) fn unified(path: &str, old: &str, new: &str, context: usize) -> String {
    if old == new {
        return String::new();
    }
    let a: Vec<&str> = old.split_inclusive('\n').collect();
    let b: Vec<&str> = new.split_inclusive('\n').collect();
    let ops = script(&a, &b);
    let mut out = format!("--- a/{path}\n+++ b/{path}\n");
    // Positions (in a, in b) before each op.
    let mut at = Vec::with_capacity(ops.len() + 1);
    let (mut i, mut j) = (0, 0);
    for op in &ops {
        at.push((i, j));
        match op {
            Op::Same => (i, j) = (i + 1, j + 1),
            Op::Removed => i += 1,
            Op::Added => j += 1,
        }
    }
    at.push((i, j));
    let changed: Vec<usize> = (0..ops.len()).filter(|&k| ops[k] != Op::Same).collect();
    let mut k = 0;
    while k < changed.len() {
        let start = changed[k].saturating_sub(context);
        let mut end = changed[k] + 1;
        while k + 1 < changed.len() && changed[k + 1] <= end + 2 * context {
            k += 1;
            end = changed[k] + 1;
        }
        let end = (end + context).min(ops.len());
        let (a0, b0) = at[start];
        let (a1, b1) = at[end];
        out.push_str(&format!(
            "@@ -{} +{} @@\n",
            range(a0, a1 - a0),
            range(b0, b1 - b0)
        ));
        for (op, &(i, j)) in ops[start..end].iter().zip(&at[start..end]) {
            let (mark, line) = match op {
                Op::Same => (' ', a[i]),
                Op::Removed => ('-', a[i]),
                Op::Added => ('+', b[j]),
            };
            out.push(mark);
            out.push_str(line);
            if !line.ends_with('\n') {
                out.push_str("\n\\ No newline at end of file\n");
            }
        }
        k += 1;
    }
    out
}

/// A hunk range: `start,count`, 1-based (an empty range names the line before it).
fn range(start: usize, count: usize) -> String {
    match count {
        0 => format!("{start},0"),
        1 => format!("{}", start + 1),
        n => format!("{},{n}", start + 1),
    }
}

/// The edit script from `a` to `b` (removals before additions).
pub(crate) fn script<T: Eq + Hash>(a: &[T], b: &[T]) -> Vec<Op> {
    let head = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let tail = a[head..]
        .iter()
        .rev()
        .zip(b[head..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (ma, mb) = (&a[head..a.len() - tail], &b[head..b.len() - tail]);
    let mut ops = vec![Op::Same; head];
    if ma.len().saturating_mul(mb.len()) <= MAX_TABLE_CELLS {
        // Numbered first: the table compares numbers, not lines.
        let mut ids: HashMap<&T, u32> = HashMap::new();
        let mut number = |line| {
            let next = ids.len() as u32;
            *ids.entry(line).or_insert(next)
        };
        let a_ids: Vec<u32> = ma.iter().map(&mut number).collect();
        let b_ids: Vec<u32> = mb.iter().map(&mut number).collect();
        ops.extend(lcs(&a_ids, &b_ids));
    } else {
        ops.extend(std::iter::repeat_n(Op::Removed, ma.len()));
        ops.extend(std::iter::repeat_n(Op::Added, mb.len()));
    }
    ops.extend(std::iter::repeat_n(Op::Same, tail));
    ops
}

/// The edit script of a longest common subsequence (removals before additions).
fn lcs(a: &[u32], b: &[u32]) -> Vec<Op> {
    let (n, m) = (a.len(), b.len());
    // table[i][j]: the LCS length of a[i..] and b[j..].
    let mut table = vec![0u32; (n + 1) * (m + 1)];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            table[i * (m + 1) + j] = if a[i] == b[j] {
                table[(i + 1) * (m + 1) + j + 1] + 1
            } else {
                table[(i + 1) * (m + 1) + j].max(table[i * (m + 1) + j + 1])
            };
        }
    }
    let mut ops = Vec::with_capacity(n + m);
    let (mut i, mut j) = (0, 0);
    while i < n || j < m {
        if i < n && j < m && a[i] == b[j] {
            ops.push(Op::Same);
            (i, j) = (i + 1, j + 1);
        } else if j == m || (i < n && table[(i + 1) * (m + 1) + j] >= table[i * (m + 1) + j + 1]) {
            ops.push(Op::Removed);
            i += 1;
        } else {
            ops.push(Op::Added);
            j += 1;
        }
    }
    ops
}

#[cfg(test)]
mod tests {
    use super::unified;

    #[test]
    fn one_changed_line_in_the_middle() {
        let old = "a\nb\nc\nd\ne\nf\ng\nh\n";
        let new = "a\nb\nc\nd\nE\nf\ng\nh\n";
        assert_eq!(
            unified("x.txt", old, new, 3),
            "--- a/x.txt\n+++ b/x.txt\n@@ -2,7 +2,7 @@\n b\n c\n d\n-e\n+E\n f\n g\n h\n"
        );
    }

    #[test]
    fn distant_changes_make_two_hunks_and_close_ones_one() {
        let lines = |change: &[(u32, &str)]| -> String {
            (1..=20u32)
                .map(|n| match change.iter().find(|(at, _)| *at == n) {
                    Some((_, text)) => format!("{text}\n"),
                    None => format!("{n}\n"),
                })
                .collect()
        };
        let old = lines(&[]);
        let new = lines(&[(2, "two"), (19, "nineteen")]);
        let diff = unified("f", &old, &new, 2);
        assert_eq!(diff.matches("@@ -").count(), 2, "{diff}");
        assert!(
            diff.contains("@@ -1,4 +1,4 @@\n 1\n-2\n+two\n 3\n 4\n"),
            "{diff}"
        );
        let near = lines(&[(5, "five"), (8, "eight")]);
        assert_eq!(unified("f", &old, &near, 2).matches("@@ -").count(), 1);
    }

    #[test]
    fn insertions_deletions_and_a_missing_final_newline() {
        assert_eq!(unified("f", "a\n", "a\n", 3), "");
        assert_eq!(
            unified("f", "a\nb", "a\nc\nb", 3),
            "--- a/f\n+++ b/f\n@@ -1,2 +1,3 @@\n a\n+c\n b\n\\ No newline at end of file\n"
        );
        assert_eq!(
            unified("f", "", "x\n", 3),
            "--- a/f\n+++ b/f\n@@ -0,0 +1 @@\n+x\n"
        );
        assert_eq!(
            unified("f", "x\ny\n", "y\n", 3),
            "--- a/f\n+++ b/f\n@@ -1,2 +1 @@\n-x\n y\n"
        );
    }
}
