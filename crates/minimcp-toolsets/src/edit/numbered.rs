//! Line numbers a model copied from `read_file`'s output (`  12\tline`, or `12→line` as
//! other tools print them) into `old_text`, and maybe `new_text`: tried only when the text
//! does not occur as sent, and only when every line of `old_text` carries one and they
//! count up by one.

/// `old_text` and `new_text` without their line numbers; `None` when `old_text` does not
/// carry them; the message when `new_text` carries them on some lines only.
pub(crate) fn strip(old: &str, new: &str) -> Result<Option<(String, String)>, String> {
    let Some(old) = strip_all(old, true) else {
        return Ok(None);
    };
    let lines: Vec<&str> = new.split('\n').collect();
    let tagged = lines
        .iter()
        .filter(|l| matches!(number(l), Some((_, Some(_)))))
        .count();
    if tagged == 0 {
        return Ok(Some((old, new.to_string())));
    }
    match strip_all(new, false) {
        Some(new) => Ok(Some((old, new))),
        None => Err("`old_text` carries the line numbers of read_file's output, and `new_text` carries them on some lines only: send both without line numbers, each line as it is (or should be) in the file.".into()),
    }
}

/// `text` with every line's number taken away, or `None` when a line has none (an empty
/// last piece after a final line break aside); with `counting`, the numbers must also
/// count up by one.
fn strip_all(text: &str, counting: bool) -> Option<String> {
    let mut pieces: Vec<&str> = text.split('\n').collect();
    let final_break = text.ends_with('\n');
    if final_break {
        pieces.pop();
    }
    let mut out = Vec::with_capacity(pieces.len());
    let mut expected: Option<u64> = None;
    let mut separated = false;
    for piece in pieces {
        let (line, cr) = match piece.strip_suffix('\r') {
            Some(line) => (line, "\r"),
            None => (piece, ""),
        };
        let (n, rest) = match number(line) {
            Some(found) => found,
            None if !counting && line.is_empty() => (0, Some("")),
            None => return None,
        };
        if counting {
            if expected.is_some_and(|e| e != n) {
                return None;
            }
            expected = n.checked_add(1);
        }
        separated |= rest.is_some();
        out.push(format!("{}{cr}", rest.unwrap_or("")));
    }
    if !separated {
        return None;
    }
    let mut joined = out.join("\n");
    if final_break {
        joined.push('\n');
    }
    Some(joined)
}

/// A line's number and what follows its separator (a tab or `→`); `None` after the number
/// for a numbered blank line whose separator was lost.
fn number(line: &str) -> Option<(u64, Option<&str>)> {
    let trimmed = line.trim_start_matches(' ');
    let digits = trimmed.len()
        - trimmed
            .trim_start_matches(|c: char| c.is_ascii_digit())
            .len();
    if digits == 0 || digits > 12 {
        return None;
    }
    let n = trimmed[..digits].parse().ok()?;
    let after = &trimmed[digits..];
    match after.strip_prefix('\t').or_else(|| after.strip_prefix('→')) {
        Some(rest) => Some((n, Some(rest))),
        None if after.trim().is_empty() => Some((n, None)),
        None => None,
    }
}

#[cfg(test)]
mod tests {
    use super::strip;

    #[test]
    fn numbers_are_stripped_only_when_every_old_line_counts_up() {
        let old = "  12\t    def f(self):\n  13\t        return 1\n";
        let (o, n) = strip(old, "    def f(self):\n        return 2\n")
            .expect("consistent")
            .expect("numbered");
        assert_eq!(o, "    def f(self):\n        return 1\n");
        assert_eq!(n, "    def f(self):\n        return 2\n");
        // new_text numbered too; a blank numbered line whose tab was lost.
        let (o, n) = strip("7→a\n8\n9→b", "7\tA\n8\n9\tB")
            .expect("consistent")
            .expect("numbered");
        assert_eq!((o.as_str(), n.as_str()), ("a\n\nb", "A\n\nB"));
        assert_eq!(strip("12\ta\n14\tb", "x"), Ok(None), "not counting up");
        assert_eq!(strip("a\n13\tb", "x"), Ok(None), "a line without");
        assert_eq!(strip("1. item\n2. item", "x"), Ok(None), "a numbered list");
        assert!(strip("12\ta\n13\tb", "12\tA\nB").is_err(), "new_text mixed");
    }
}
