//! The extended header of a `diff --git` section, read as `git apply` reads it: the names
//! on `---`/`+++`, `rename from/to` and `copy from/to` lines (checked against each other),
//! file modes (`old mode`, `new mode`, `new file mode`, `deleted file mode`, the mode of an
//! `index` line) and the lines git skips. `parse.rs` finds the sections.

use super::names::{
    find_name, git_header_name, is_dev_null, is_space, line_at, TERM_NONE, TERM_TAB,
};
use super::parse::{err, FilePatch, ParseError, Parser};

/// Git's mode normalization: regular files become 0644 or 0755; anything else keeps only
/// its type (a directory, a link, or a submodule for any other value).
pub(super) fn canon_mode(mode: u32) -> u32 {
    match mode & 0o170000 {
        0o100000 => 0o100000 | if mode & 0o100 != 0 { 0o755 } else { 0o644 },
        0o120000 => 0o120000,
        0o040000 => 0o040000,
        _ => 0o160000,
    }
}

/// C's `strtoul(s, &end, 8)` as git's mode lines use it, then the space check: the mode, or
/// `None` for an invalid mode line.
fn parse_mode(s: &[u8]) -> Option<u32> {
    let mut i = s
        .iter()
        .take_while(|&&c| matches!(c, b' ' | b'\t' | b'\n' | 11 | 12 | b'\r'))
        .count();
    let negative = match s.get(i) {
        Some(b'-') => {
            i += 1;
            true
        }
        Some(b'+') => {
            i += 1;
            false
        }
        _ => false,
    };
    let digits = s[i..]
        .iter()
        .take_while(|c| (b'0'..=b'7').contains(c))
        .count();
    if digits == 0 {
        return None;
    }
    let value = s[i..i + digits].iter().try_fold(0u64, |v, &d| {
        v.checked_mul(8)?.checked_add(u64::from(d - b'0'))
    });
    // strtoul: ULONG_MAX on overflow whatever the sign; a minus sign negates.
    let value = match value {
        None => u64::MAX,
        Some(v) if negative => v.wrapping_neg(),
        Some(v) => v,
    };
    if !is_space(s.get(i + digits).copied().unwrap_or(0)) {
        return None;
    }
    Some(canon_mode(value as u32))
}

impl Parser<'_> {
    /// A `diff --git` line and its extended header lines, read into `patch`: how many bytes
    /// they take.
    pub(super) fn git_header(
        &mut self,
        at: usize,
        len: usize,
        patch: &mut FilePatch,
    ) -> Result<usize, ParseError> {
        let buf = self.buf;
        let p = self.p_value;
        patch.is_new = 0;
        patch.is_delete = 0;
        let def_name = git_header_name(p, &buf[at..], len);
        let mut offset = len;
        let mut extension: Option<usize> = None;
        while at + offset < buf.len() {
            let pos = at + offset;
            let line = line_at(buf, pos);
            if line.last() != Some(&b'\n') {
                break;
            }
            let rest = |prefix: &[u8]| line.strip_prefix(prefix);
            if line.starts_with(b"@@ -") {
                break;
            } else if let Some(r) = rest(b"--- ") {
                self.verify_name(pos, r, patch.is_new == 1, &mut patch.old_name, "old")?;
            } else if let Some(r) = rest(b"+++ ") {
                self.verify_name(pos, r, patch.is_delete == 1, &mut patch.new_name, "new")?;
            } else if let Some(r) = rest(b"old mode ") {
                patch.old_mode = self.mode(pos, r)?;
            } else if let Some(r) = rest(b"new mode ") {
                patch.new_mode = self.mode(pos, r)?;
            } else if let Some(r) = rest(b"deleted file mode ") {
                patch.is_delete = 1;
                patch.old_name = def_name.clone();
                patch.old_mode = self.mode(pos, r)?;
            } else if let Some(r) = rest(b"new file mode ") {
                patch.is_new = 1;
                patch.new_name = def_name.clone();
                patch.new_mode = self.mode(pos, r)?;
            } else if let Some(r) = rest(b"copy from ") {
                patch.is_copy = true;
                patch.old_name = find_name(r, p.saturating_sub(1), TERM_NONE);
            } else if let Some(r) = rest(b"copy to ") {
                patch.is_copy = true;
                patch.new_name = find_name(r, p.saturating_sub(1), TERM_NONE);
            } else if let Some(r) = rest(b"rename old ").or_else(|| rest(b"rename from ")) {
                patch.is_rename = true;
                patch.old_name = find_name(r, p.saturating_sub(1), TERM_NONE);
            } else if let Some(r) = rest(b"rename new ").or_else(|| rest(b"rename to ")) {
                patch.is_rename = true;
                patch.new_name = find_name(r, p.saturating_sub(1), TERM_NONE);
            } else if rest(b"similarity index ").is_some()
                || rest(b"dissimilarity index ").is_some()
            {
            } else if line.starts_with(b"index ") {
                self.index_line(pos + 6, patch)?;
            } else {
                break;
            }
            let kinds = [
                patch.is_delete == 1,
                patch.is_new == 1,
                patch.is_rename,
                patch.is_copy,
            ]
            .iter()
            .filter(|&&k| k)
            .count();
            if kinds > 1 {
                return err(self, pos, format!(
                    "inconsistent header lines {} and {}: a file section is one of a creation, a deletion, a rename or a copy",
                    extension.map_or(self.line_of(pos), |e| self.line_of(e)),
                    self.line_of(pos)
                ));
            }
            if kinds > 0 && extension.is_none() {
                extension = Some(pos);
            }
            offset += line.len();
        }
        if patch.old_name.is_none() && patch.new_name.is_none() {
            let Some(name) = def_name else {
                return err(self, at, format!(
                    "the `diff --git` header names no file once {} leading path component(s) are removed (write `diff --git a/PATH b/PATH`)",
                    p
                ));
            };
            patch.old_name = Some(name.clone());
            patch.new_name = Some(name);
        }
        if (patch.new_name.is_none() && patch.is_delete == 0)
            || (patch.old_name.is_none() && patch.is_new == 0)
        {
            return err(self, at, "the `diff --git` header lacks a file name (a `---`/`+++`, `rename from/to` or `copy from/to` line)");
        }
        Ok(offset)
    }

    fn verify_name(
        &self,
        at: usize,
        line: &[u8],
        is_null: bool,
        name: &mut Option<Vec<u8>>,
        side: &str,
    ) -> Result<(), ParseError> {
        let found = || find_name(line, self.p_value, TERM_TAB);
        match name {
            None if !is_null => {
                *name = found();
                Ok(())
            }
            Some(_) if is_null => err(self, at, "expected /dev/null for a created or deleted file"),
            Some(known) => {
                if found().as_deref() != Some(&known[..]) {
                    return err(self, at, format!("inconsistent {side} file name: it differs from the `diff --git` line's"));
                }
                Ok(())
            }
            None => {
                if !is_dev_null(line) {
                    return err(self, at, "expected /dev/null for a created or deleted file");
                }
                Ok(())
            }
        }
    }

    fn mode(&self, at: usize, text: &[u8]) -> Result<u32, ParseError> {
        parse_mode(text).map_or_else(
            || err(self, at, "invalid file mode (git writes 100644 or 100755)"),
            Ok,
        )
    }

    /// `index OLD..NEW [MODE]` at `at` (the text after `index `): only the mode matters here.
    /// Git looks for the dots and the space in the rest of the patch, not only in this line.
    fn index_line(&self, at: usize, patch: &mut FilePatch) -> Result<(), ParseError> {
        // SHA-1's hex length: git apply outside a repository reads SHA-1 object names.
        const HEX: usize = 40;
        let buf = self.buf;
        let Some(dot) = buf[at..].iter().position(|&c| c == b'.') else {
            return Ok(());
        };
        if buf.get(at + dot + 1) != Some(&b'.') || dot > HEX {
            return Ok(());
        }
        let after = at + dot + 2;
        let rest = &buf[after..];
        let eol = rest.iter().position(|&c| c == b'\n').unwrap_or(rest.len());
        let space = rest.iter().position(|&c| c == b' ').filter(|&s| s <= eol);
        let end = space.unwrap_or(eol);
        if end > HEX {
            return Ok(());
        }
        if let Some(space) = space {
            patch.old_mode = self.mode(after + space, &rest[space + 1..])?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::parse_mode;

    #[test]
    fn modes_are_read_as_strtoul_reads_them() {
        assert_eq!(parse_mode(b"100755\n"), Some(0o100755));
        assert_eq!(parse_mode(b" 0100644\n"), Some(0o100644));
        assert_eq!(parse_mode(b"100664\n"), Some(0o100644));
        assert_eq!(parse_mode(b"100644x\n"), None);
        assert_eq!(parse_mode(b"x\n"), None);
        assert_eq!(parse_mode(b"120000\n"), Some(0o120000));
        assert_eq!(parse_mode(b"777\n"), Some(0o160000));
    }
}
