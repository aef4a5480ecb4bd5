//! The conformance fixtures are served by `--profile conformance` and never by the default
//! profile; `--toolsets` picks the default profile's toolsets.

mod common;

use std::process::Command;

fn list_tools(profile: &[&str]) -> String {
    let output = Command::new(common::minimcp())
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

fn tool_names(args: &[&str]) -> Vec<String> {
    let listing: serde_json::Value =
        serde_json::from_str(&list_tools(args)).expect("tools/list prints JSON");
    listing["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| t["name"].as_str().expect("name").to_string())
        .collect()
}

#[test]
fn toolsets_pick_the_default_profiles_tools() {
    let workspace = ["search_files", "list_directory", "read_file", "search_text"];
    let templates = [
        "list_templates",
        "search_templates",
        "validate_template",
        "generate_template",
        "scaffold_project",
    ];
    let all = tool_names(&[]);
    for name in workspace.iter().chain(&templates) {
        assert!(all.iter().any(|n| n == name), "{name} missing: {all:?}");
    }
    assert_eq!(tool_names(&["--toolsets", "workspace"]), workspace);
    assert_eq!(tool_names(&["--toolsets=templates"]), templates);
    // The order of the list does not change the listing.
    assert_eq!(
        tool_names(&["--toolsets", "templates,workspace"]),
        tool_names(&["--toolsets", "workspace,templates"])
    );
}

#[test]
fn unknown_toolsets_are_a_usage_error() {
    let output = Command::new(common::minimcp())
        .args(["--toolsets", "workspace,nope"])
        .output()
        .expect("the binary runs");
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty(), "stdout stays clean");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("unknown toolset \"nope\"") && stderr.contains("templates"),
        "{stderr}"
    );
}

/// The paths of every property whose schema is empty (`{}`) under `value`.
fn empty_property_schemas(value: &serde_json::Value, path: String, found: &mut Vec<String>) {
    match value {
        serde_json::Value::Object(map) => {
            if let Some(props) = map.get("properties").and_then(|p| p.as_object()) {
                for (name, schema) in props {
                    if schema.as_object().is_some_and(|s| s.is_empty()) {
                        found.push(format!("{path}.properties.{name}"));
                    }
                }
            }
            for (key, child) in map {
                empty_property_schemas(child, format!("{path}.{key}"), found);
            }
        }
        serde_json::Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                empty_property_schemas(child, format!("{path}[{i}]"), found);
            }
        }
        _ => {}
    }
}

#[test]
fn no_default_profile_schema_has_an_empty_property_schema() {
    // The MCP Inspector warns about `{}` property schemas (any value): every property of
    // every input and output schema says what it holds.
    let listing: serde_json::Value =
        serde_json::from_str(&list_tools(&[])).expect("tools/list prints JSON");
    let mut found = Vec::new();
    empty_property_schemas(&listing, String::new(), &mut found);
    assert!(found.is_empty(), "empty property schemas: {found:?}");
}
