//! How one call ended, judged against git's file (never against the server's own words).
//!
//! - **applied**: no error, and the file equals the intended one byte for byte;
//! - **refused**: `isError`, the file untouched, and the message tells the model what to send
//!   instead: with the request's own `old_text` taken out of it, it either quotes a line of
//!   the file that `old_text` stands for exactly as the file has it (indentation included;
//!   a line of at least 6 bytes with 3 non-blank characters, that `old_text` does not
//!   already contain as a line), or names a line number inside that span (`line 12`,
//!   `lines 3, 12`, `line 10-14`);
//! - **refused without guidance**: `isError`, the file untouched, but the message does neither;
//! - **wrong**: anything else: the file changed but is not the intended one, it changed while
//!   the call said it was refused, or the call said it succeeded and left it as it was.

/// What the server answered.
#[derive(Debug, Clone)]
pub(crate) struct Reply {
    pub(crate) is_error: bool,
    pub(crate) text: String,
}

/// The verdict on one call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Outcome {
    Applied,
    Refused,
    Unguided,
    /// Why it is wrong, in a few words.
    Wrong(&'static str),
}

/// Judges a call that was meant to turn `before` into `intended`, which left `after` on
/// disk. `sent` is the `old_text` sent; `region` the 1-based lines of `before` it stands for.
pub(crate) fn judge(
    before: &[u8],
    intended: &[u8],
    after: &[u8],
    reply: &Reply,
    sent: &str,
    region: (usize, usize),
) -> Outcome {
    match (reply.is_error, after == before, after == intended) {
        (false, _, true) => Outcome::Applied,
        (true, true, _) => match guided(before, &reply.text, sent, region) {
            true => Outcome::Refused,
            false => Outcome::Unguided,
        },
        (true, false, _) => Outcome::Wrong("changed although refused"),
        (false, true, false) => Outcome::Wrong("reported success, file unchanged"),
        (false, false, false) => Outcome::Wrong("changed, not as intended"),
    }
}

/// The refusal criterion above.
pub(crate) fn guided(before: &[u8], message: &str, sent: &str, region: (usize, usize)) -> bool {
    let message = if sent.is_empty() {
        message.to_string()
    } else {
        message.replace(sent, "")
    };
    let text = String::from_utf8_lossy(before);
    let sent_lines: Vec<&str> = sent.lines().collect();
    let quoted = text
        .lines()
        .skip(region.0.saturating_sub(1))
        .take(region.1 + 1 - region.0)
        .map(|l| l.trim_end_matches('\r'))
        .filter(|l| l.len() >= 6 && l.trim().chars().count() >= 3)
        .filter(|l| !sent_lines.contains(l))
        .any(|l| message.contains(l));
    quoted
        || line_numbers(&message)
            .iter()
            .any(|(a, b)| *a <= region.1 && *b >= region.0)
}

/// The line numbers and ranges a message names after `line`/`lines` (case-insensitive):
/// `line 7`, `lines 3, 5 and 9`, `lines 10-14`, `line 10–14`.
pub(crate) fn line_numbers(message: &str) -> Vec<(usize, usize)> {
    let lower = message.to_lowercase();
    let mut out = Vec::new();
    for (at, _) in lower.match_indices("line") {
        if lower[..at].ends_with(|c: char| c.is_alphanumeric()) {
            continue;
        }
        let mut rest = lower[at + 4..]
            .strip_prefix('s')
            .unwrap_or(&lower[at + 4..]);
        if !rest.starts_with(' ') {
            continue;
        }
        loop {
            rest = rest.trim_start_matches([' ', ',']);
            rest = rest.strip_prefix("and ").unwrap_or(rest);
            let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
            let Ok(first) = rest[..digits].parse::<usize>() else {
                break;
            };
            rest = &rest[digits..];
            let mut last = first;
            for dash in ["-", "–"] {
                if let Some(after) = rest.strip_prefix(dash) {
                    let d =
                        after.len() - after.trim_start_matches(|c: char| c.is_ascii_digit()).len();
                    if let Ok(n) = after[..d].parse::<usize>() {
                        last = n;
                        rest = &after[d..];
                    }
                }
            }
            out.push((first, last.max(first)));
            if !(rest.starts_with(',') || rest.starts_with(" and ")) {
                break;
            }
        }
    }
    out
}

/// The checks of the criterion itself.
pub(crate) fn self_test() {
    assert_eq!(
        line_numbers("at lines 1, 3, 5; it must"),
        [(1, 1), (3, 3), (5, 5)]
    );
    assert_eq!(
        line_numbers("closest text is at line 3-5 (80% alike)"),
        [(3, 5)]
    );
    assert_eq!(line_numbers("Line 12 and line 14"), [(12, 12), (14, 14)]);
    assert_eq!(line_numbers("lines 2 and 9."), [(2, 2), (9, 9)]);
    assert!(line_numbers("a line longer than the budget; baseline 7").is_empty());
    let file = b"class A:\n    def f(self):\n        return 1\n";
    let reply = |text: &str| Reply {
        is_error: true,
        text: text.into(),
    };
    let sent = "def f(self):\n    return 1";
    // Echoing the request back is no guidance; the file's own line, or its number, is.
    assert!(!guided(
        file,
        &format!("no match for:\n{sent}"),
        sent,
        (2, 3)
    ));
    assert!(guided(file, "copy this:\n    def f(self):", sent, (2, 3)));
    assert!(guided(file, "the closest text is at line 2", sent, (2, 3)));
    assert!(!guided(file, "the closest text is at line 1", sent, (2, 3)));
    assert_eq!(
        judge(file, b"x", file, &reply("line 3"), sent, (2, 3)),
        Outcome::Refused
    );
    assert_eq!(
        judge(file, b"x", file, &reply("nope"), sent, (2, 3)),
        Outcome::Unguided
    );
    assert_eq!(
        judge(file, b"x", b"y", &reply("line 3"), sent, (2, 3)),
        Outcome::Wrong("changed although refused")
    );
    let ok = Reply {
        is_error: false,
        text: String::new(),
    };
    assert_eq!(judge(file, b"x", b"x", &ok, sent, (2, 3)), Outcome::Applied);
    assert_eq!(
        judge(file, b"x", file, &ok, sent, (2, 3)),
        Outcome::Wrong("reported success, file unchanged")
    );
}
