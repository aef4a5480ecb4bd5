//! File names in a patch's headers, read as `git apply` reads them: C-quoted names, the
//! `a/`/`b/` prefixes stripped (`-p1`), timestamps after `--- name` in traditional diffs, the
//! name a `diff --git` line repeats, and which paths git refuses to touch (`verify_path`).
//!
//! Timestamps after names are `stamps.rs`'s. Names are bytes here (git allows any byte but NUL); the caller turns them into
//! workspace paths. "Space" is git's own: tab, line feed, carriage return and space only.

/// Git's `isspace` (its locale-independent table): tab, LF, CR, space.
pub(super) fn is_space(c: u8) -> bool {
    matches!(c, b'\t' | b'\n' | b'\r' | b' ')
}

/// The line at `at` (up to and including its `\n`, or to the end).
pub(super) fn line_at(buf: &[u8], at: usize) -> &[u8] {
    let rest = &buf[at.min(buf.len())..];
    match rest.iter().position(|&c| c == b'\n') {
        Some(n) => &rest[..=n],
        None => rest,
    }
}

/// The byte at `i`, or NUL past the end (git reads its NUL padding there).
fn at(buf: &[u8], i: usize) -> u8 {
    buf.get(i).copied().unwrap_or(0)
}

pub(super) use super::stamps::has_epoch_timestamp;
use super::stamps::timestamp_len;

/// `"/dev/null"` followed by a space character.
pub(super) fn is_dev_null(s: &[u8]) -> bool {
    s.starts_with(b"/dev/null") && is_space(at(s, 9))
}

/// Unquotes a C-style quoted name at the start of `s` (`"a\tb\303\251"`): the name and the
/// index just after the closing quote. `None` when it is not one, or holds a NUL.
pub(super) fn unquote(s: &[u8]) -> Option<(Vec<u8>, usize)> {
    if s.first() != Some(&b'"') {
        return None;
    }
    let mut out = Vec::new();
    let mut i = 1;
    loop {
        let c = *s.get(i)?;
        i += 1;
        match c {
            b'"' => return Some((out, i)),
            b'\\' => {}
            0 => return None,
            c => {
                out.push(c);
                continue;
            }
        }
        let c = *s.get(i)?;
        i += 1;
        let byte = match c {
            b'a' => 7,
            b'b' => 8,
            b'f' => 12,
            b'n' => b'\n',
            b'r' => b'\r',
            b't' => b'\t',
            b'v' => 11,
            b'\\' | b'"' => c,
            b'0'..=b'3' => {
                let d1 = *s.get(i)?;
                let d2 = *s.get(i + 1)?;
                if !(b'0'..=b'7').contains(&d1) || !(b'0'..=b'7').contains(&d2) {
                    return None;
                }
                i += 2;
                ((c - b'0') << 6) | ((d1 - b'0') << 3) | (d2 - b'0')
            }
            _ => return None,
        };
        if byte == 0 {
            return None;
        }
        out.push(byte);
    }
}

/// Collapses runs of `/` into one.
fn squash_slash(name: Vec<u8>) -> Vec<u8> {
    let mut out = Vec::with_capacity(name.len());
    for c in name {
        if !(c == b'/' && out.last() == Some(&b'/')) {
            out.push(c);
        }
    }
    out
}

/// Which characters end an unquoted name.
#[derive(Clone, Copy)]
pub(super) struct Terminate {
    pub(super) space: bool,
    pub(super) tab: bool,
}

/// Only a tab (or another space character but the space) ends the name.
pub(super) const TERM_TAB: Terminate = Terminate {
    space: false,
    tab: true,
};
/// Only line ends and carriage returns end the name.
pub(super) const TERM_NONE: Terminate = Terminate {
    space: false,
    tab: false,
};

/// A quoted name with `p_value` leading components removed.
fn find_name_gnu(line: &[u8], p_value: usize) -> Option<Vec<u8>> {
    let (name, _) = unquote(line)?;
    let mut cut = 0;
    for _ in 0..p_value {
        cut += name[cut..].iter().position(|&c| c == b'/')? + 1;
    }
    Some(squash_slash(name[cut..].to_vec()))
}

/// An unquoted name at the start of `line`, read up to `end` when given, else up to a
/// terminating space character; `p_value` leading components removed. `def` is preferred when
/// the name is `def` with something appended (`file.orig`).
fn find_name_common(
    line: &[u8],
    def: Option<&[u8]>,
    p_value: usize,
    end: Option<usize>,
    terminate: Terminate,
) -> Option<Vec<u8>> {
    let mut remaining = p_value as i64;
    let mut start = if p_value == 0 { Some(0) } else { None };
    let mut i = 0;
    while Some(i) != end && i < line.len() {
        let c = line[i];
        if end.is_none() && is_space(c) {
            if c == b'\n' {
                break;
            }
            let keeps = (c == b' ' && !terminate.space) || (c == b'\t' && !terminate.tab);
            if !keeps {
                break;
            }
        }
        i += 1;
        if c == b'/' {
            remaining -= 1;
            if remaining == 0 {
                start = Some(i);
            }
        }
    }
    let fallback = || def.map(|d| squash_slash(d.to_vec()));
    let Some(start) = start else {
        return fallback();
    };
    if i <= start {
        return fallback();
    }
    let name = &line[start..i];
    if let Some(def) = def {
        if def.len() < name.len() && name.starts_with(def) {
            return Some(squash_slash(def.to_vec()));
        }
    }
    Some(squash_slash(name.to_vec()))
}

/// The name in a `---`/`+++` line of a git header, or a `rename from` line.
pub(super) fn find_name(line: &[u8], p_value: usize, terminate: Terminate) -> Option<Vec<u8>> {
    if line.first() == Some(&b'"') {
        if let Some(name) = find_name_gnu(line, p_value) {
            return Some(name);
        }
    }
    find_name_common(line, None, p_value, None, terminate)
}

/// The name in a traditional diff's `---`/`+++` line, where a timestamp may follow it.
pub(super) fn find_name_traditional(
    line: &[u8],
    def: Option<&[u8]>,
    p_value: usize,
) -> Option<Vec<u8>> {
    if line.first() == Some(&b'"') {
        if let Some(name) = find_name_gnu(line, p_value) {
            return Some(name);
        }
    }
    let len = line.iter().position(|&c| c == b'\n').unwrap_or(line.len());
    match timestamp_len(&line[..len]) {
        0 => find_name_common(line, def, p_value, None, TERM_TAB),
        date => find_name_common(line, def, p_value, Some(len - date), TERM_NONE),
    }
}

/// How many leading components `git apply` would strip from a traditional diff's name:
/// 0 when the name has no `/`, unknown (`None`) otherwise or for `/dev/null`.
pub(super) fn guess_p_value(line: &[u8]) -> Option<usize> {
    if is_dev_null(line) {
        return None;
    }
    let name = find_name_traditional(line, None, 0)?;
    (!name.contains(&b'/')).then_some(0)
}

/// Where `line[..len]` starts once `p_value` leading components are skipped; `None` for an
/// absolute name or one with fewer components.
pub(super) fn skip_tree_prefix(p_value: usize, line: &[u8]) -> Option<usize> {
    if p_value == 0 {
        return if line.first() == Some(&b'/') {
            None
        } else {
            Some(0)
        };
    }
    let mut slashes = p_value;
    for (i, &c) in line.iter().enumerate() {
        if c == b'/' {
            slashes -= 1;
            if slashes == 0 {
                return if i == 0 { None } else { Some(i + 1) };
            }
        }
    }
    None
}

/// The name a `diff --git a/NAME b/NAME` line gives when both sides are the same name
/// (creations, deletions and mode changes name the file nowhere else). `line` is the whole
/// line with its line feed; `buf_rest` the patch from that line on (git reads past the line
/// in one comparison).
pub(super) fn git_header_name(p_value: usize, buf_rest: &[u8], llen: usize) -> Option<Vec<u8>> {
    const PREFIX: usize = b"diff --git ".len();
    let line = &buf_rest[PREFIX..llen];
    if line.first() == Some(&b'"') {
        let (first, after) = unquote(line)?;
        let cut = skip_tree_prefix(p_value, &first)?;
        let first = first[cut..].to_vec();
        let mut second = after;
        while second < line.len() && is_space(line[second]) {
            second += 1;
        }
        if second >= line.len() {
            return None;
        }
        if line[second] == b'"' {
            let (other, _) = unquote(&line[second..])?;
            let cut = skip_tree_prefix(p_value, &other)?;
            return (other[cut..] == first[..]).then_some(first);
        }
        let rest = &line[second..];
        let cut = skip_tree_prefix(p_value, rest)?;
        return (rest[cut..] == first[..]).then_some(first);
    }
    let name_at = skip_tree_prefix(p_value, line)?;
    let name = &line[name_at..];
    if let Some(q) = name.iter().position(|&c| c == b'"') {
        let (other, _) = unquote(&name[q..])?;
        let np = skip_tree_prefix(p_value, &other)?;
        let len = other.len() - np;
        if len < q && name[..len] == other[np..] && is_space(name[len]) {
            return Some(other[np..].to_vec());
        }
        return None;
    }
    // Unquoted: accept a name only when it shows up twice, exactly the same.
    let line_len = name.iter().position(|&c| c == b'\n')?;
    // Positions are relative to `name`, which continues past the line in `buf_rest`.
    let base = PREFIX + name_at;
    let all = buf_rest;
    let mut len = 0;
    loop {
        match at(name, len) {
            b'\n' => return None,
            b'\t' | b' ' => {
                if at(all, base + len + 1) == 0 {
                    return None;
                }
                let tail = &name[len + 1..line_len];
                if let Some(cut) = skip_tree_prefix(p_value, tail) {
                    let second = base + len + 1 + cut;
                    if at(all, second + len) == b'\n'
                        && all.get(second..second + len) == Some(&name[..len])
                    {
                        return Some(name[..len].to_vec());
                    }
                }
            }
            0 if len >= name.len() => return None,
            _ => {}
        }
        len += 1;
    }
}

/// Git's `verify_path` (with its default NTFS protection): no empty, `.` or `..` component,
/// no `.git` (any case, nor NTFS spellings of it such as `.git.` or `git~1`), not absolute.
pub(super) fn git_accepts_path(path: &[u8]) -> bool {
    if path.is_empty() {
        return false;
    }
    for component in path.split(|&c| c == b'/') {
        if component.is_empty() || component == b"." || component == b".." {
            return false;
        }
        if component.eq_ignore_ascii_case(b".git") || ntfs_dotgit(component) {
            return false;
        }
        // A backslash starts an NTFS path component too.
        for (i, &c) in component.iter().enumerate() {
            if c == b'\\' && ntfs_dotgit(&component[i + 1..]) {
                return false;
            }
        }
    }
    true
}

/// `.git` or `git~1`, in any case, followed only by dots and spaces (then the end, a
/// separator or a colon): what NTFS opens as `.git`.
fn ntfs_dotgit(name: &[u8]) -> bool {
    let lower: Vec<u8> = name.iter().map(u8::to_ascii_lowercase).collect();
    let rest = if let Some(rest) = lower.strip_prefix(b".git") {
        rest
    } else if let Some(rest) = lower.strip_prefix(b"git~1") {
        rest
    } else {
        return false;
    };
    for &c in rest {
        match c {
            b'/' | b'\\' | b':' => return true,
            b'.' | b' ' => {}
            _ => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_names_unquote_as_git_writes_them() {
        assert_eq!(
            unquote(br#""a/t\303\251st\tx" b"#),
            Some(("a/t\u{e9}st\tx".as_bytes().to_vec(), 18))
        );
        assert_eq!(unquote(br#""a\q""#), None);
        assert_eq!(unquote(br#""a\000""#), None);
        assert_eq!(unquote(br#""open"#), None);
    }

    #[test]
    fn header_names_need_both_sides_equal() {
        let name = |line: &str| git_header_name(1, line.as_bytes(), line.len());
        assert_eq!(name("diff --git a/x b/x\n"), Some(b"x".to_vec()));
        assert_eq!(
            name("diff --git a/d i r/x y b/d i r/x y\n"),
            Some(b"d i r/x y".to_vec())
        );
        assert_eq!(name("diff --git a/x b/y\n"), None);
        assert_eq!(
            name("diff --git \"a/\\303\\251\" \"b/\\303\\251\"\n"),
            Some("\u{e9}".as_bytes().to_vec())
        );
        assert_eq!(name("diff --git /x /x\n"), None);
    }

    #[test]
    fn traditional_names_lose_their_timestamps() {
        let name = |line: &str| {
            find_name_traditional(line.as_bytes(), None, 1).map(|n| String::from_utf8(n).unwrap())
        };
        assert_eq!(
            name("a/x y.c\t2024-01-02 03:04:05.123456789 +0100\n").as_deref(),
            Some("x y.c")
        );
        assert_eq!(name("a/x.c 2024-01-02 03:04:05\n").as_deref(), Some("x.c"));
        assert_eq!(name("a/x.c\n").as_deref(), Some("x.c"));
        // As git: `a/` is stripped, then runs of slashes squashed (git then refuses `/b/c`).
        assert_eq!(name("a//b///c\n").as_deref(), Some("/b/c"));
        assert!(has_epoch_timestamp(
            b"a/x\t1970-01-01 00:00:00.000000000 +0000\n"
        ));
        assert!(has_epoch_timestamp(b"a/x\t1969-12-31 19:00:00 -0500\n"));
        assert!(!has_epoch_timestamp(b"a/x\t1970-01-01 00:00:01 +0000\n"));
        assert_eq!(guess_p_value(b"x.c\n"), Some(0));
        assert_eq!(guess_p_value(b"a/x.c\n"), None);
    }

    #[test]
    fn paths_git_refuses() {
        for bad in [
            "",
            "/x",
            "a//b",
            "a/./b",
            "../x",
            "a/..",
            ".git/x",
            "a/.GIT",
            "a/.git./b",
            "git~1/x",
            "a/.git:x",
            "x/",
        ] {
            assert!(!git_accepts_path(bad.as_bytes()), "{bad}");
        }
        for good in [
            "x",
            "a/b.c",
            ".gitignore",
            "a/.github/x",
            "..x",
            "~x",
            "a\\b",
        ] {
            assert!(git_accepts_path(good.as_bytes()), "{good}");
        }
    }
}
