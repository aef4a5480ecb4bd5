//! The templates toolset through the real binary: golden files of every template
//! rendered with its defaults, checksums against `sha256sum`, templates as resources with
//! completion, and what the spec's error codes become.
//!
//! Golden files live in tests/golden/templates/<category>/<toolchain>/<variant>; after a
//! deliberate change to a template, regenerate them with
//! `UPDATE_GOLDEN=1 cargo test --test templates` and review the diff.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{json, Value};

mod common;

use common::scratch::Scratch;

/// Runs one session: the handshake, then `requests` (method, params), all at once; stdin
/// is closed and every answer collected. Returns the answers in request order.
fn session(args: &[&str], requests: &[(&str, Value)]) -> Vec<Value> {
    let mut child = Command::new(common::minimcp())
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("spawn minimcp");
    let mut input = String::new();
    input.push_str(&format!("{}\n", json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "templates-test", "version": "1"}}})));
    input.push_str(&format!(
        "{}\n",
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
    ));
    for (i, (method, params)) in requests.iter().enumerate() {
        input.push_str(&format!(
            "{}\n",
            json!({"jsonrpc": "2.0", "id": i + 1, "method": method, "params": params})
        ));
    }
    let mut stdin = child.stdin.take().expect("stdin");
    // Written from a thread: the server may answer before it has read everything.
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(input.as_bytes());
    });
    let output = child.wait_with_output().expect("the server exits at EOF");
    writer.join().expect("writer");
    assert!(output.status.success(), "{:?}", output.status);
    let mut answers: Vec<Value> = String::from_utf8(output.stdout)
        .expect("UTF-8")
        .lines()
        .map(|l| serde_json::from_str(l).expect("every line is JSON"))
        .filter(|m: &Value| m["id"].as_u64().is_some_and(|id| id > 0))
        .collect();
    answers.sort_by_key(|m| m["id"].as_u64());
    assert_eq!(answers.len(), requests.len(), "one answer per request");
    answers
}

fn templates_only(requests: &[(&str, Value)]) -> Vec<Value> {
    session(&["--toolsets", "templates"], requests)
}

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/templates")
}

/// Every template URI, from the server itself.
fn all_uris() -> Vec<String> {
    let answers = templates_only(&[(
        "tools/call",
        json!({"name": "list_templates", "arguments": {}}),
    )]);
    answers[0]["result"]["structuredContent"]["templates"]
        .as_array()
        .expect("templates")
        .iter()
        .map(|t| t["uri"].as_str().expect("uri").to_string())
        .collect()
}

/// The parameters every golden file is rendered with: the required ones only.
fn required_only(uri: &str) -> Value {
    let category = uri.trim_start_matches("template://").split('/').next();
    match category {
        Some("gitignore" | "ci") => json!({}),
        _ if uri.contains("/python/") => json!({"project_name": "example_app"}),
        _ => json!({"project_name": "example-app"}),
    }
}

/// Golden files of one category.
fn goldens(category: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let base = golden_dir().join(category);
    for toolchain in std::fs::read_dir(&base).expect("golden dir") {
        for variant in std::fs::read_dir(toolchain.expect("entry").path()).expect("dir") {
            out.push(variant.expect("entry").path());
        }
    }
    out.sort();
    out
}

/// Whether `program args…` runs at all here; if not, say so on stderr (a visible skip).
fn available(test: &str, program: &str, args: &[&str]) -> bool {
    let ok = Command::new(program)
        .args(args)
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!(
            "SKIPPED {test}: `{program} {}` does not run here",
            args.join(" ")
        );
    }
    ok
}

#[test]
fn golden_makefiles_parse_with_gnu_make() {
    if !available(
        "golden_makefiles_parse_with_gnu_make",
        "make",
        &["--version"],
    ) {
        return;
    }
    let files = goldens("makefile");
    assert_eq!(files.len(), 12);
    for file in files {
        // -n: print the commands of the default goal (check) and help without running them;
        // a syntax error (a missing tab, an unclosed variable) fails here.
        let out = Command::new("make")
            .args(["-n", "-f"])
            .arg(&file)
            .args(["check", "help"])
            .current_dir(std::env::temp_dir())
            .output()
            .expect("make runs");
        assert!(
            out.status.success(),
            "{}: {}",
            file.display(),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn golden_workflows_are_yaml() {
    let probe = ["-c", "import yaml"];
    if !available("golden_workflows_are_yaml", "python3", &probe) {
        return;
    }
    for file in goldens("ci") {
        let out = Command::new("python3")
            .args(["-c", "import sys, yaml; d = yaml.safe_load(open(sys.argv[1])); assert d['jobs'], 'no jobs'"])
            .arg(&file)
            .output()
            .expect("python3 runs");
        assert!(
            out.status.success(),
            "{}: {}",
            file.display(),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn every_template_matches_its_golden_file_with_default_parameters() {
    let uris = all_uris();
    assert!(uris.len() >= 30, "{uris:?}");
    let requests: Vec<(&str, Value)> = uris
        .iter()
        .map(|uri| {
            ("tools/call", json!({"name": "generate_template", "arguments": {"resource_uri": uri, "parameters": required_only(uri)}}))
        })
        .collect();
    let answers = templates_only(&requests);
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    let mut mismatched = Vec::new();
    for (uri, answer) in uris.iter().zip(&answers) {
        let result = &answer["result"];
        assert_ne!(result["isError"], true, "{uri}: {result}");
        let content = result["structuredContent"]["content"]
            .as_str()
            .expect("content");
        assert!(
            result["structuredContent"].get("next_offset").is_none(),
            "{uri} fits in one page"
        );
        assert!(
            !content.contains("{{") || uri.contains("/ci/"),
            "{uri}: a tag left unrendered"
        );
        assert!(
            !content.contains("\n\n\n"),
            "{uri}: a toggled section left blank lines"
        );
        let path = golden_dir().join(uri.trim_start_matches("template://"));
        if update {
            std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
            std::fs::write(&path, content).expect("write golden");
            continue;
        }
        let golden = std::fs::read_to_string(&path).unwrap_or_else(|e| {
            panic!(
                "{}: {e}; run UPDATE_GOLDEN=1 cargo test --test templates",
                path.display()
            )
        });
        if golden != content {
            mismatched.push(uri.clone());
        }
    }
    assert!(
        mismatched.is_empty(),
        "differ from their golden files: {mismatched:?}"
    );
}

#[test]
fn checksums_agree_with_sha256sum() {
    let Ok(probe) = Command::new("sha256sum").arg("--version").output() else {
        eprintln!(
            "SKIPPED checksums_agree_with_sha256sum: sha256sum (GNU coreutils) is not installed"
        );
        return;
    };
    assert!(probe.status.success());
    let uris = all_uris();
    let requests: Vec<(&str, Value)> = uris
        .iter()
        .map(|uri| {
            ("tools/call", json!({"name": "generate_template", "arguments": {"resource_uri": uri, "parameters": required_only(uri)}}))
        })
        .collect();
    let dir = Scratch::new("sha");
    for (i, answer) in templates_only(&requests).iter().enumerate() {
        let s = &answer["result"]["structuredContent"];
        let file = dir.join(format!("{i}"));
        std::fs::write(&file, s["content"].as_str().expect("content")).expect("write");
        let out = Command::new("sha256sum")
            .arg(&file)
            .output()
            .expect("sha256sum runs");
        let printed = String::from_utf8_lossy(&out.stdout);
        let digest = printed.split_whitespace().next().expect("a digest");
        assert_eq!(s["checksum"], format!("sha256:{digest}"), "{}", uris[i]);
    }
}

#[test]
fn templates_are_resources_with_completion() {
    let answers = templates_only(&[
        ("resources/list", json!({})),
        ("resources/templates/list", json!({})),
        (
            "resources/read",
            json!({"uri": "template://gitignore/rust/default"}),
        ),
        (
            "resources/read",
            json!({"uri": "template://gitignore/rust/nope"}),
        ),
        (
            "completion/complete",
            json!({"ref": {"type": "ref/resource", "uri": "template://{category}/{toolchain}/{variant}"}, "argument": {"name": "category", "value": "d"}}),
        ),
        (
            "completion/complete",
            json!({"ref": {"type": "ref/resource", "uri": "template://{category}/{toolchain}/{variant}"}, "argument": {"name": "variant", "value": ""}, "context": {"arguments": {"category": "makefile", "toolchain": "go"}}}),
        ),
        (
            "completion/complete",
            json!({"ref": {"type": "ref/resource", "uri": "template://{category}/{toolchain}/{variant}"}, "argument": {"name": "toolchain", "value": "p"}}),
        ),
    ]);
    let listed: Vec<&str> = answers[0]["result"]["resources"]
        .as_array()
        .expect("resources")
        .iter()
        .map(|r| r["uri"].as_str().expect("uri"))
        .collect();
    assert!(
        listed.contains(&"template://makefile/rust/cli"),
        "{listed:?}"
    );
    assert!(listed.contains(&"template://ci/go/github"), "{listed:?}");
    assert_eq!(
        answers[1]["result"]["resourceTemplates"][0]["uriTemplate"],
        "template://{category}/{toolchain}/{variant}"
    );
    let contents = &answers[2]["result"]["contents"][0];
    assert!(contents["text"]
        .as_str()
        .expect("text")
        .contains("/target/"));
    assert_eq!(contents["mimeType"], "text/plain");
    assert_eq!(answers[3]["error"]["code"], -32002, "{}", answers[3]);
    let values = |i: usize| answers[i]["result"]["completion"]["values"].clone();
    assert_eq!(values(4), json!(["dockerfile"]));
    assert_eq!(values(5), json!(["cli", "lib", "service"]));
    assert_eq!(values(6), json!(["python"]));
}

#[test]
fn the_default_profile_serves_files_and_templates_together() {
    let root = Scratch::new("both");
    std::fs::write(root.join("a.txt"), "a").expect("write");
    let root_arg = root.to_str().expect("UTF-8 path");
    let answers = session(
        &["--root", root_arg, "--page-size", "1000"],
        &[("resources/list", json!({}))],
    );
    let uris: Vec<&str> = answers[0]["result"]["resources"]
        .as_array()
        .expect("resources")
        .iter()
        .map(|r| r["uri"].as_str().expect("uri"))
        .collect();
    assert!(
        uris.iter()
            .any(|u| u.starts_with("file:///") && u.ends_with("/a.txt")),
        "{uris:?}"
    );
    assert!(uris.contains(&"template://readme/go/lib"), "{uris:?}");
}

#[test]
fn spec_error_codes_travel_in_tool_results() {
    let answers = templates_only(&[
        (
            "tools/call",
            json!({"name": "generate_template", "arguments": {"resource_uri": "template://makefile/cobol/cli"}}),
        ),
        (
            "tools/call",
            json!({"name": "generate_template", "arguments": {"resource_uri": "makefile/rust/cli"}}),
        ),
        (
            "tools/call",
            json!({"name": "generate_template", "arguments": {"resource_uri": "template://makefile/rust/cli", "parameters": {"project_name": "x y"}}}),
        ),
    ]);
    for (answer, code) in answers.iter().zip([-32000, -32001, -32002]) {
        assert!(
            answer.get("error").is_none(),
            "a tool result, not a JSON-RPC error: {answer}"
        );
        assert_eq!(answer["result"]["isError"], true);
        assert_eq!(
            answer["result"]["structuredContent"]["error"]["code"], code,
            "{answer}"
        );
    }
}
