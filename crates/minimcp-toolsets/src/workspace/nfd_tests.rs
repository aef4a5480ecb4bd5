use super::*;
use crate::workspace::nfd_table::UNICODE_VERSION;

#[test]
fn known_names_decompose_and_marks_take_canonical_order() {
    assert!(matches!(nfd(".env"), Cow::Borrowed(".env")));
    assert_eq!(nfd("café"), "cafe\u{301}");
    assert!(
        matches!(nfd("cafe\u{301}"), Cow::Borrowed(_)),
        "already NFD"
    );
    assert_eq!(nfd("\u{212B}"), "A\u{30A}", "the Ångström sign");
    assert_eq!(nfd("\u{1E69}"), "s\u{323}\u{307}", "two levels deep");
    assert_eq!(
        nfd("a\u{301}\u{316}"),
        "a\u{316}\u{301}",
        "below (220) before above (230)"
    );
    assert_eq!(nfd("가"), "\u{1100}\u{1161}");
    assert_eq!(nfd("각"), "\u{1100}\u{1161}\u{11A8}");
    assert_eq!(nfd("Résumé.PDF"), "Re\u{301}sume\u{301}.PDF");
}

/// Every code point up to U+2FFFF alone, and random strings of letters and combining marks, decomposed
/// here and by Python's `unicodedata.normalize("NFD", …)`, an implementation this crate
/// shares nothing with but the Unicode data. Skipped (visibly) without Python 3, or when its
/// Unicode version is not the tables'.
#[test]
fn decompositions_agree_with_pythons_unicodedata() {
    let program = "import json, sys, unicodedata\n\
        print(unicodedata.unidata_version, flush=True)\n\
        for line in sys.stdin:\n\
        \x20   print(json.dumps(unicodedata.normalize('NFD', json.loads(line))))\n";
    // Every code point of the planes where characters decompose or combine (the last one
    // that decomposes is U+2FA1D), each alone.
    let mut inputs: Vec<String> = (0..0x3_0000u32)
        .filter_map(char::from_u32)
        .filter(|c| !c.is_control())
        .map(String::from)
        .collect();
    let pool: Vec<char> = "aeoAEOsSçÇéÉǅ가각\u{301}\u{300}\u{316}\u{323}\u{307}\u{308}\u{327}\u{345}\u{5B0}\u{93C}\u{1DCE}\u{1E69}\u{212B}\u{FB2C}"
        .chars()
        .collect();
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    for _ in 0..20_000 {
        let mut text = String::new();
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        for k in 0..(1 + seed % 8) {
            text.push(pool[((seed >> (k * 5)) % pool.len() as u64) as usize]);
        }
        inputs.push(text);
    }
    let input: String = inputs
        .iter()
        .map(|t| serde_json::to_string(t).expect("json") + "\n")
        .collect();
    let Some(output) = python(program, &input) else {
        eprintln!(
            "SKIPPED decompositions_agree_with_pythons_unicodedata: python3 is not available"
        );
        return;
    };
    let mut lines = output.lines();
    let version = lines.next().unwrap_or_default();
    if version != UNICODE_VERSION {
        eprintln!("SKIPPED decompositions_agree_with_pythons_unicodedata: Python's Unicode is {version}, the tables' {UNICODE_VERSION}");
        return;
    }
    let mut checked = 0;
    for (text, line) in inputs.iter().zip(lines) {
        let expected: String = serde_json::from_str(line).expect("python's json");
        assert_eq!(
            nfd(text),
            expected,
            "{:?}",
            text.chars().map(|c| c as u32).collect::<Vec<_>>()
        );
        checked += 1;
    }
    assert_eq!(checked, inputs.len(), "python answered every line");
}

fn python(program: &str, input: &str) -> Option<String> {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new("python3")
        .args(["-c", program])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .ok()?;
    let mut stdin = child.stdin.take()?;
    let input = input.to_string();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let output = child.wait_with_output().ok()?;
    writer.join().ok()?.ok()?;
    output
        .status
        .success()
        .then(|| String::from_utf8(output.stdout).ok())?
}
