use super::*;
use minimcp::{Content, ToolOutput};
use serde_json::json;

/// Calls a tool as the core would: defaults filled in by the schema validator, structured
/// output checked against the tool's outputSchema, the result within `budget`.
fn call_with_budget(name: &str, args: Value, budget: usize) -> ToolOutput {
    let all = tools();
    let tool = all.iter().find(|t| t.name() == name).expect("tool exists");
    let client = &mut minimcp::TestClient {
        result_budget: budget,
        ..minimcp::TestClient::default()
    };
    client
        .call(tool, args)
        .unwrap_or_else(|e| ToolOutput::error(e.to_string()))
}

fn call(name: &str, args: Value) -> ToolOutput {
    call_with_budget(name, args, minimcp::Limits::default().max_result_bytes)
}

fn text(output: &ToolOutput) -> String {
    output
        .content
        .iter()
        .map(|c| match c {
            Content::Text { text } => text.clone(),
            _ => String::new(),
        })
        .collect()
}

fn structured(output: &ToolOutput) -> &Value {
    output.structured.as_ref().expect("structured")
}

#[test]
fn list_filters_and_declares_parameters() {
    let all = call("list_templates", json!({}));
    assert_eq!(structured(&all)["total"], catalog::entries().count());
    assert!(structured(&all).get("next_offset").is_none());
    let rust = call(
        "list_templates",
        json!({"toolchain": "rust", "category": "makefile"}),
    );
    let templates = structured(&rust)["templates"].as_array().expect("list");
    let uris: Vec<&str> = templates
        .iter()
        .map(|t| t["uri"].as_str().expect("uri"))
        .collect();
    assert_eq!(
        uris,
        [
            "template://makefile/rust/cli",
            "template://makefile/rust/lib",
            "template://makefile/rust/service"
        ]
    );
    let name = &templates[0]["parameters"][0];
    assert_eq!(name["name"], "project_name");
    assert_eq!(name["required"], true);
    assert_eq!(name["pattern"], "^[A-Za-z][A-Za-z0-9_-]{0,63}$");
    assert!(
        text(&rust).contains("project_name*, has_tests=true"),
        "{}",
        text(&rust)
    );
}

#[test]
fn lists_page_within_a_small_budget() {
    let budget = 8_000;
    let mut offset = 0;
    let mut seen = Vec::new();
    loop {
        let page = call_with_budget("list_templates", json!({"offset": offset}), budget);
        let s = structured(&page);
        for t in s["templates"].as_array().expect("list") {
            seen.push(t["uri"].as_str().expect("uri").to_string());
        }
        match s.get("next_offset").and_then(Value::as_u64) {
            Some(next) => offset = next,
            None => break,
        }
    }
    let all: Vec<String> = catalog::entries().map(|e| e.uri()).collect();
    assert_eq!(seen, all, "every template once, in order");
}

#[test]
fn search_ranks_by_the_documented_score() {
    let out = call("search_templates", json!({"query": "docker go"}));
    let results = structured(&out)["results"]
        .as_array()
        .expect("results")
        .clone();
    assert_eq!(results[0]["uri"], "template://dockerfile/go/service");
    assert_eq!(results[0]["score"], 1.0);
    let scores: Vec<f64> = results
        .iter()
        .map(|r| r["score"].as_f64().expect("score"))
        .collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{scores:?}");
    let python = call(
        "search_templates",
        json!({"query": "makefile", "toolchain": "python"}),
    );
    assert_eq!(structured(&python)["total"], 3);
    let none = call("search_templates", json!({"query": "zzzz"}));
    assert_eq!(structured(&none)["total"], 0);
    assert!(text(&none).contains("No template matches"));
}

#[test]
fn validate_reports_without_rendering() {
    let ok = call(
        "validate_template",
        json!({"resource_uri": "template://makefile/rust/cli", "parameters": {"project_name": "tool"}}),
    );
    assert_eq!(structured(&ok)["valid"], true);
    let bad = call(
        "validate_template",
        json!({"resource_uri": "template://readme/python/lib", "parameters": {"has_tests": 1, "projectname": "x"}}),
    );
    assert!(
        !bad.is_error,
        "invalid parameters are an answer, not a failure"
    );
    let s = structured(&bad);
    assert_eq!(s["valid"], false);
    assert_eq!(s["missing_required"], json!(["project_name"]));
    let params: Vec<&str> = s["errors"]
        .as_array()
        .expect("errors")
        .iter()
        .map(|e| e["parameter"].as_str().expect("name"))
        .collect();
    assert_eq!(params, ["projectname", "has_tests"]);
    let unknown = call(
        "validate_template",
        json!({"resource_uri": "template://makefile/rust/gui"}),
    );
    assert!(unknown.is_error);
    assert_eq!(structured(&unknown)["error"]["code"], -32000);
    let malformed = call(
        "validate_template",
        json!({"resource_uri": "makefile/rust/cli"}),
    );
    assert_eq!(structured(&malformed)["error"]["code"], -32001);
}

#[test]
fn generate_returns_the_file_its_name_and_checksum() {
    let out = call(
        "generate_template",
        json!({"resource_uri": "template://makefile/rust/cli", "parameters": {"project_name": "tool", "has_tests": false}}),
    );
    let s = structured(&out);
    let content = s["content"].as_str().expect("content");
    assert_eq!(s["filename"], "Makefile");
    assert_eq!(s["size"], content.len());
    assert_eq!(
        s["checksum"],
        format!(
            "sha256:{}",
            minimcp_base::encoding::sha256_hex(content.as_bytes())
        )
    );
    assert!(content.contains("clippy --all-targets"));
    assert!(
        !content.contains("test:"),
        "has_tests=false drops the test target"
    );
    assert!(text(&out).contains(content));
    let invalid = call(
        "generate_template",
        json!({"resource_uri": "template://makefile/rust/cli", "parameters": {"project_name": "../x"}}),
    );
    assert!(invalid.is_error);
    let error = &structured(&invalid)["error"];
    assert_eq!(error["code"], -32002);
    assert_eq!(error["errors"][0]["parameter"], "project_name");
    assert!(
        text(&invalid).contains("does not match the pattern"),
        "{}",
        text(&invalid)
    );
}

#[test]
fn large_files_come_in_pages_that_add_up() {
    let features: Vec<String> = (0..60)
        .map(|i| format!("feature {i} \"quoted\" {}", "x".repeat(150)))
        .collect();
    let args = |offset: u64| {
        json!({"resource_uri": "template://readme/rust/service", "offset": offset,
            "parameters": {"project_name": "svc", "features": features}})
    };
    let whole = call("generate_template", args(0));
    assert!(structured(&whole).get("next_offset").is_none());
    let expected = structured(&whole)["content"]
        .as_str()
        .expect("content")
        .to_string();
    let mut offset = 0;
    let mut joined = String::new();
    let mut pages = 0;
    loop {
        let page = call_with_budget("generate_template", args(offset), 4096);
        let s = structured(&page);
        assert_eq!(s["checksum"], structured(&whole)["checksum"]);
        joined.push_str(s["content"].as_str().expect("content"));
        pages += 1;
        match s.get("next_offset").and_then(Value::as_u64) {
            Some(next) => offset = next,
            None => break,
        }
    }
    assert!(pages > 2, "{pages}");
    assert_eq!(joined, expected);
    let bad = call("generate_template", args(10_000_000));
    assert!(bad.is_error);
}

#[test]
fn scaffold_returns_files_and_per_file_errors() {
    let out = call(
        "scaffold_project",
        json!({"toolchain": "go", "variant": "service", "parameters": {"project_name": "api", "port": 9000}}),
    );
    let s = structured(&out);
    let paths: Vec<&str> = s["files"]
        .as_array()
        .expect("files")
        .iter()
        .map(|f| f["path"].as_str().expect("path"))
        .collect();
    assert_eq!(
        paths,
        [
            "Makefile",
            "README.md",
            ".gitignore",
            "Dockerfile",
            ".github/workflows/ci.yml"
        ]
    );
    assert_eq!(s["errors"], json!([]));
    assert!(s["files"][3]["content"]
        .as_str()
        .expect("content")
        .contains("EXPOSE 9000"));

    let mixed = call(
        "scaffold_project",
        json!({"toolchain": "rust", "templates": ["makefile/lib", "readme/gui", "gitignore", "template://makefile/go/cli", "makefile"],
            "parameters": {"project_name": "lib1", "colour": "red"}}),
    );
    let s = structured(&mixed);
    let paths: Vec<&str> = s["files"]
        .as_array()
        .expect("files")
        .iter()
        .map(|f| f["path"].as_str().expect("path"))
        .collect();
    assert_eq!(paths, ["Makefile", ".gitignore"]);
    let failed: Vec<(String, i64)> = s["errors"]
        .as_array()
        .expect("errors")
        .iter()
        .map(|e| {
            (
                e["template"].as_str().expect("t").to_string(),
                e["error"]["code"].as_i64().expect("code"),
            )
        })
        .collect();
    assert_eq!(
        failed,
        [
            ("readme/gui".to_string(), -32000),
            ("template://makefile/go/cli".to_string(), -32000),
            ("makefile".to_string(), -32001),
            ("*".to_string(), -32002),
        ]
    );
    let missing = call(
        "scaffold_project",
        json!({"toolchain": "python", "templates": ["makefile", "gitignore"]}),
    );
    let s = structured(&missing);
    assert_eq!(s["files"][0]["path"], ".gitignore");
    assert_eq!(
        s["errors"][0]["error"]["missing_required"],
        json!(["project_name"])
    );
}
