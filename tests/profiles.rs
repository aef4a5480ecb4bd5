//! The conformance fixtures are served by `--profile conformance` and never by the default
//! profile (issue 4, part 2).

use std::process::Command;

fn list_tools(profile: &[&str]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_minimcp"))
        .args(["call", "tools/list"])
        .args(profile)
        .output()
        .expect("the binary runs");
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn fixtures_are_served_only_by_the_conformance_profile() {
    let fixtures = list_tools(&["--profile", "conformance"]);
    for name in [
        "\"echo\"",
        "\"test_simple_text\"",
        "\"json_schema_2020_12_tool\"",
    ] {
        assert!(fixtures.contains(name), "{name} missing: {fixtures}");
    }
    for default in [list_tools(&[]), list_tools(&["--profile", "workspace"])] {
        assert!(
            !default.contains("test_simple_text") && !default.contains("\"echo\""),
            "the default profile serves fixtures: {default}"
        );
    }
}

#[test]
fn the_conformance_profile_serves_the_official_fixtures_only() {
    let conformance = list_tools(&["--profile", "conformance"]);
    assert!(
        !conformance.contains("transcript_"),
        "the transcript corpus's fixtures stay in --profile transcripts: {conformance}"
    );
    let transcripts = list_tools(&["--profile", "transcripts"]);
    for name in ["\"transcript_elicit\"", "\"test_simple_text\"", "\"echo\""] {
        assert!(transcripts.contains(name), "{name} missing: {transcripts}");
    }
}
