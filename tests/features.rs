//! A binary built without one of the optional Cargo features refuses the flags, profiles and
//! toolsets of that feature with exit status 2 and a message naming the feature. Most tests
//! here compile only in such a build: `.ci/run`'s feature matrix runs them.

mod common;

use std::process::{Command, Output};

fn minimcp(args: &[&str]) -> Output {
    Command::new(common::minimcp())
        .args(args)
        .output()
        .expect("the binary runs")
}

/// Exit status 2, and on stderr the message that names `feature` and how to rebuild.
#[allow(dead_code)] // unused in the default build, which has every feature
fn assert_refused(args: &[&str], feature: &str) {
    let out = minimcp(args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
    assert_eq!(
        stderr.trim_end(),
        format!(
            "minimcp: this binary was built without the `{feature}` feature: rebuild with `cargo build --features {feature}`"
        ),
        "{args:?}"
    );
    assert!(out.stdout.is_empty(), "{args:?}");
}

#[test]
fn version_and_help_work_in_every_build() {
    for flag in ["--version", "--help"] {
        let out = minimcp(&[flag]);
        assert!(out.status.success(), "{flag}");
        assert!(String::from_utf8_lossy(&out.stdout).contains("minimcp"));
    }
}

#[test]
#[cfg(not(feature = "http"))]
fn http_is_refused_without_the_http_feature() {
    assert_refused(&["--http", "127.0.0.1:0"], "http");
    assert_refused(&["serve", "--http=unix:/tmp/never.sock"], "http");
    assert_refused(&["--profile", "conformance", "--access-log"], "http");
}

#[test]
#[cfg(not(feature = "conformance"))]
fn fixture_profiles_are_refused_without_the_conformance_feature() {
    assert_refused(&["--profile", "conformance"], "conformance");
    assert_refused(&["--profile=transcripts"], "conformance");
}

#[test]
#[cfg(not(feature = "workspace"))]
fn the_workspace_profile_is_refused_without_the_workspace_feature() {
    assert_refused(&[], "workspace");
    assert_refused(&["call", "tools/list"], "workspace");
}

#[test]
#[cfg(not(feature = "analysis"))]
fn an_analysis_toolset_is_refused_without_the_analysis_feature() {
    assert_refused(&["--toolsets", "analysis"], "analysis");
    assert_refused(&["analyze", "--max-cyclomatic", "3"], "analysis");
    assert_refused(&["churn"], "analysis");
}

#[test]
#[cfg(not(feature = "templates"))]
fn the_templates_toolset_is_refused_without_the_templates_feature() {
    assert_refused(&["--toolsets=templates"], "templates");
}

#[test]
#[cfg(not(feature = "edit"))]
fn the_edit_toolset_is_refused_without_the_edit_feature() {
    assert_refused(&["--toolsets", "edit"], "edit");
    // Named after a toolset this build has, it is still the missing one that is reported.
    #[cfg(feature = "workspace")]
    assert_refused(&["--toolsets", "workspace,edit"], "edit");
}
