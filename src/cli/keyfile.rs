//! The `--state-key-file` format: one secret per line, the current one first and, during a
//! rotation, the other one second (its states still open; nothing is sealed with it).
//!
//! Text lines rather than raw bytes so an operator can rotate with `head`, `cat` and `mv`
//! (`head -c 32 /dev/urandom | base64` makes a line); each line is a secret of at least 32
//! bytes, hashed into the key, so its exact encoding does not matter.

/// Fewer bytes than this in a secret are refused: the key must not be guessable.
const MIN_SECRET: usize = 32;

/// The current secret and the one also accepted, or why the file is unusable.
pub(crate) fn parse(text: &[u8]) -> Result<(&[u8], Option<&[u8]>), String> {
    let lines: Vec<&[u8]> = text
        .split(|&b| b == b'\n')
        .map(|line| line.strip_suffix(b"\r").unwrap_or(line))
        .filter(|line| !line.is_empty())
        .collect();
    if let Some(short) = lines.iter().position(|line| line.len() < MIN_SECRET) {
        return Err(format!(
            "line {} holds fewer than {MIN_SECRET} bytes; make one with `head -c 32 /dev/urandom | base64`",
            short + 1
        ));
    }
    match lines[..] {
        [current] => Ok((current, None)),
        [current, previous] => Ok((current, Some(previous))),
        [] => Err("it is empty; make a key with `head -c 32 /dev/urandom | base64 > FILE`".into()),
        _ => Err(format!(
            "it holds {} lines; at most two (the current key, then the previous one)",
            lines.len()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "Nq3b6O0Yw2C1mJx8lV0p4Yk3Zr9sT1uW2eQ7hG5fD4c=";
    const B: &str = "7YzRkq1Wc0bN5mXo2JfL8sVt3eA9gH6uP4iD1rQ0wKE=";

    #[test]
    fn one_or_two_keys_per_line() {
        assert_eq!(parse(A.as_bytes()), Ok((A.as_bytes(), None)));
        assert_eq!(
            parse(format!("{A}\r\n{B}\n\n").as_bytes()),
            Ok((A.as_bytes(), Some(B.as_bytes())))
        );
    }

    #[test]
    fn short_empty_and_crowded_files_are_refused() {
        assert!(parse(b"").unwrap_err().contains("empty"));
        assert!(parse(format!("{A}\nshort").as_bytes())
            .unwrap_err()
            .contains("line 2"));
        assert!(parse(format!("{A}\n{B}\n{A}").as_bytes())
            .unwrap_err()
            .contains("3 lines"));
    }
}
