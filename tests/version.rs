//! The version is one fact in three places: `Cargo.toml`, the newest release in
//! `CHANGELOG.md`, and `minimcp --version` (which also names the commit and the features the
//! binary was built with).

mod common;

use std::path::Path;
use std::process::Command;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `version = "…"` of Cargo.toml's `[workspace.package]`, which every crate inherits.
fn cargo_version() -> String {
    let manifest = std::fs::read_to_string(root().join("Cargo.toml")).expect("Cargo.toml");
    let package = &manifest[manifest
        .find("[workspace.package]")
        .expect("[workspace.package]")..];
    let line = package
        .lines()
        .find(|l| l.starts_with("version = "))
        .expect("a version line");
    line.trim_start_matches("version = ")
        .trim_matches('"')
        .to_string()
}

/// The changelog's version headings, `## [X.Y.Z] - YYYY-MM-DD`, in order.
fn releases() -> Vec<(Vec<u64>, String)> {
    let changelog = std::fs::read_to_string(root().join("CHANGELOG.md")).expect("CHANGELOG.md");
    assert!(
        changelog.contains("\n## [Unreleased]\n"),
        "Keep a Changelog's Unreleased section"
    );
    changelog
        .lines()
        .filter_map(|l| l.strip_prefix("## ["))
        .filter(|l| !l.starts_with("Unreleased]"))
        .map(|l| {
            let (version, date) = l
                .split_once("] - ")
                .unwrap_or_else(|| panic!("`## [{l}`: a version and a date"));
            let parts: Vec<u64> = version
                .split('.')
                .map(|p| p.parse().expect("X.Y.Z"))
                .collect();
            assert_eq!(parts.len(), 3, "{version}");
            let digits = date.replace('-', "");
            assert!(
                date.len() == 10 && digits.len() == 8 && digits.bytes().all(|b| b.is_ascii_digit()),
                "{date}"
            );
            (parts, version.to_string())
        })
        .collect()
}

#[test]
fn cargo_toml_changelog_and_the_binary_agree() {
    let version = cargo_version();
    let releases = releases();
    assert_eq!(
        releases.first().map(|r| r.1.as_str()),
        Some(version.as_str()),
        "the newest release in CHANGELOG.md is Cargo.toml's version"
    );
    for pair in releases.windows(2) {
        assert!(
            pair[0].0 > pair[1].0,
            "newest first: {} then {}",
            pair[0].1,
            pair[1].1
        );
    }
    let out = Command::new(common::minimcp())
        .arg("--version")
        .output()
        .expect("runs");
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).expect("utf-8");
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some(format!("minimcp {version}").as_str()));
    let commit = lines
        .next()
        .and_then(|l| l.strip_prefix("commit: "))
        .expect("a commit line");
    let features = lines
        .next()
        .and_then(|l| l.strip_prefix("features: "))
        .expect("a features line");
    let built: Vec<&str> = [
        ("http", cfg!(feature = "http")),
        ("workspace", cfg!(feature = "workspace")),
        ("templates", cfg!(feature = "templates")),
        ("analysis", cfg!(feature = "analysis")),
        ("edit", cfg!(feature = "edit")),
        ("conformance", cfg!(feature = "conformance")),
        ("testing", cfg!(feature = "testing")),
    ]
    .into_iter()
    .filter(|(_, on)| *on)
    .map(|(name, _)| name)
    .collect();
    let expected = if built.is_empty() {
        "none".to_string()
    } else {
        built.join(" ")
    };
    assert_eq!(features, expected);
    // The commit: what the builder said, else this checkout's HEAD, else unknown.
    let expected = match std::env::var("MINIMCP_COMMIT")
        .ok()
        .filter(|c| !c.is_empty())
    {
        Some(given) => given,
        None if root().join(".git").exists() => {
            let head = Command::new("git")
                .arg("-C")
                .arg(root())
                .args(["rev-parse", "HEAD"])
                .output();
            match head {
                Ok(out) if out.status.success() => String::from_utf8(out.stdout)
                    .expect("utf-8")
                    .trim()
                    .to_string(),
                _ => {
                    eprintln!("SKIPPED: git is not installed; the commit was not compared");
                    return;
                }
            }
        }
        None => "unknown".to_string(),
    };
    assert_eq!(commit, expected, "the commit --version names");
}
