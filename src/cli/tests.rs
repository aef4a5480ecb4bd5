//! The command line's parsing, flag by flag and mistake by mistake.

#[cfg(all(feature = "http", feature = "workspace"))]
use std::net::SocketAddr;

#[cfg(all(feature = "http", feature = "workspace"))]
use minimcp_http::Listen;

use super::features::{built_features, missing_features, OPTIONAL_TOOLSETS};
use super::values::*;
use super::*;

fn parse_str(line: &str) -> Result<Command, String> {
    parse(line.split_whitespace().map(str::to_string))
}

/// What `line` prints (help, the version), or the error.
fn printed(line: &str) -> String {
    match parse_str(line) {
        Ok(Command::Print(text)) => text,
        other => panic!("{line}: {other:?}"),
    }
}

#[test]
#[cfg(feature = "templates")]
fn serve_is_the_default() {
    let Ok(Command::Serve(options)) = parse_str("") else {
        panic!("expected serve");
    };
    assert_eq!(options.profile, Profile::Workspace);
    assert_eq!(options.toolsets, super::registry::default_names());
    assert!(!options.toolsets.contains(&"edit"), "editing is opt-in");
    assert!(options.toolsets.contains(&"templates"));
    assert_eq!(options.limits, Limits::default());
    assert_eq!(
        parse_str("serve").map(|c| matches!(c, Command::Serve(_))),
        Ok(true)
    );
}

#[test]
#[cfg(feature = "conformance")]
fn flags_take_values_inline_or_separately() {
    let Ok(Command::Serve(o)) = parse_str(
        "serve --root /tmp --profile=conformance --log-level debug --max-message-bytes=4096 --rate-limit 50/s --request-timeout 5 --page-size=2",
    ) else {
        panic!("expected serve");
    };
    assert_eq!(o.roots, [PathBuf::from("/tmp")]);
    assert_eq!(o.profile, Profile::Conformance);
    assert_eq!(o.log_level, Level::Debug);
    assert_eq!(o.limits.max_message_bytes, 4096);
    assert_eq!(o.limits.rate_limit, Some(50.0));
    assert_eq!(o.limits.request_timeout, Duration::from_secs(5));
    assert_eq!(o.limits.page_size, 2);
}

#[test]
#[cfg(all(feature = "http", feature = "workspace"))]
fn http_takes_an_address_a_port_or_a_unix_socket() {
    let listen = |line: &str| match parse_str(line) {
        Ok(Command::Serve(Options {
            http: Some(http), ..
        })) => http.config.listen,
        other => panic!("{line}: {other:?}"),
    };
    assert_eq!(
        listen("--http 8080"),
        Listen::Tcp(SocketAddr::from(([127, 0, 0, 1], 8080)))
    );
    assert_eq!(
        listen("--http [::1]:9"),
        Listen::Tcp("[::1]:9".parse().expect("addr"))
    );
    assert_eq!(
        listen("--http=unix:/tmp/m.sock --token-file t"),
        Listen::Unix(PathBuf::from("/tmp/m.sock"))
    );
    assert_eq!(
        listen("--http unix:rel.sock"),
        Listen::Unix(PathBuf::from("rel.sock"))
    );
    assert!(printed("serve --help").contains("--http ADDR:PORT|unix:PATH"));
}

#[test]
fn help_lists_every_toolset() {
    let help = printed("serve --help");
    assert!(!help.contains("{toolsets}"));
    for shell in ["bash", "zsh", "fish"] {
        let script = printed(&format!("completions {shell}"));
        assert!(!script.contains("{toolsets}"), "{shell}");
    }
    for toolset in super::registry::TOOLSETS {
        assert!(
            help.contains(&format!("{} (", toolset.name)) || toolset.opt_in,
            "{help}"
        );
        assert!(help.contains(toolset.name), "{help}");
    }
}

#[test]
#[cfg(feature = "templates")]
fn toolsets_are_a_deduplicated_list() {
    let Ok(Command::Serve(o)) = parse_str("--toolsets templates,workspace,templates") else {
        panic!("expected serve");
    };
    assert_eq!(o.toolsets, ["templates", "workspace"]);
}

#[test]
#[cfg(feature = "workspace")]
fn roots_repeat_expand_home_and_come_bare() {
    let Ok(Command::Serve(o)) = parse_str("--root /tmp --root ~/proj serve /srv/a") else {
        panic!("expected serve");
    };
    let home = std::env::var("HOME").unwrap_or_default();
    let expected = [
        PathBuf::from("/tmp"),
        if home.starts_with('/') {
            PathBuf::from(home).join("proj")
        } else {
            PathBuf::from("~/proj")
        },
        PathBuf::from("/srv/a"),
    ];
    assert_eq!(o.roots, expected);
    let Ok(Command::Serve(bare)) = parse_str("/tmp") else {
        panic!("`minimcp DIR` serves DIR");
    };
    assert_eq!(bare.roots, [PathBuf::from("/tmp")]);
    assert!(
        parse_str("nonsense").is_err(),
        "not a directory, not a command"
    );
}

#[test]
#[cfg(feature = "workspace")]
fn the_deny_list_has_defaults_that_none_clears() {
    let Ok(Command::Serve(o)) = parse_str("--deny *.secret") else {
        panic!("expected serve");
    };
    assert!(o.deny.contains(&".env".to_string()));
    assert_eq!(o.deny.last().map(String::as_str), Some("*.secret"));
    let Ok(Command::Serve(none)) = parse_str("--deny none --deny x") else {
        panic!("expected serve");
    };
    assert_eq!(none.deny, ["x"]);
}

#[test]
#[cfg(feature = "workspace")]
fn the_write_deny_list_has_defaults_that_none_clears() {
    let Ok(Command::Serve(o)) = parse_str("--deny-write *.lock") else {
        panic!("expected serve");
    };
    assert!(o.deny_write.contains(&".ssh/".to_string()));
    assert!(o.deny_write.contains(&".bashrc".to_string()));
    assert_eq!(o.deny_write.last().map(String::as_str), Some("*.lock"));
    assert_eq!(
        o.deny.len(),
        DEFAULT_DENY.len(),
        "the read deny list is apart"
    );
    let Ok(Command::Serve(none)) = parse_str("--deny-write none --deny-write x") else {
        panic!("expected serve");
    };
    assert_eq!(none.deny_write, ["x"]);
    assert!(parse_str("--deny-write").is_err());
}

#[test]
#[cfg(feature = "workspace")]
fn call_takes_a_target_and_optional_json() {
    let Ok(Command::Call {
        target,
        params,
        version,
        ..
    }) = parse(
        [
            "call",
            "search_files",
            r#"{"pattern":"**/*.rs"}"#,
            "--protocol",
            "2026-07-28",
        ]
        .map(String::from),
    )
    else {
        panic!("expected call");
    };
    assert_eq!(target, "search_files");
    assert_eq!(params["pattern"], "**/*.rs");
    assert_eq!(version, Version::V2026_07_28);
    assert!(matches!(
        parse_str("call tools/list"),
        Ok(Command::Call {
            output: Output::Auto,
            ..
        })
    ));
    for (line, want) in [
        ("call t --json", Output::Json),
        ("call t --text", Output::Text),
    ] {
        let Ok(Command::Call { output, .. }) = parse_str(line) else {
            panic!("{line}");
        };
        assert_eq!(output, want, "{line}");
    }
}

#[test]
#[cfg(all(feature = "workspace", feature = "conformance"))]
fn mistakes_get_clear_messages() {
    for (line, message) in [
        ("--bogus", "unknown option --bogus"),
        ("--root", "--root needs a value"),
        ("--profile x", "unknown profile"),
        ("--toolsets workspace,bogus", "unknown toolset \"bogus\""),
        ("--toolsets ", "--toolsets needs a value"),
        ("--toolsets=", "unknown toolset \"\""),
        (
            "--profile conformance --toolsets workspace",
            "workspace profile only",
        ),
        ("--log-level loud", "unknown log level"),
        ("--max-message-bytes 12", "at least 1024"),
        ("--rate-limit fast", "requests per second"),
        ("--page-size 0", "at least 1"),
        ("call", "call needs a tool"),
        ("call t [1]", "must be an object"),
        ("call t {", "not valid JSON"),
        ("frobnicate", "unknown command"),
        ("--protocol 2025-11-25", "--protocol applies to `call` only"),
        ("call t {} --protocol 1", "unknown protocol version"),
        ("--json", "--json applies to `call` only"),
        (
            "--roots /tmp",
            "unknown option --roots; did you mean --root?",
        ),
        (
            "call t --max-message-byte 9",
            "did you mean --max-message-bytes?",
        ),
        ("call t --http 8080", "--http applies to `serve` only"),
        ("--log-format xml", "unknown log format"),
        (
            "analyze --max-cyclomatc 3",
            "did you mean --max-cyclomatic?",
        ),
        (
            "churn --max-cyclomatic 3",
            "--max-cyclomatic applies to `analyze` only",
        ),
        ("churn --format sarif", "markdown, json or csv"),
        (
            "--zzzzzzzz",
            "unknown option --zzzzzzzz; see `minimcp serve --help`",
        ),
    ] {
        let err = parse_str(line).expect_err(line);
        assert!(err.contains(message), "{line}: {err}");
    }
    assert!(printed("--help").contains("USAGE"));
    #[cfg(feature = "http")]
    for (line, message) in [
        ("--http unix:", "needs a path"),
        ("--http nonsense", "or unix:PATH"),
        (
            "--http unix:/tmp/m.sock --allow-remote",
            "--allow-remote does not apply",
        ),
    ] {
        let err = parse_str(line).expect_err(line);
        assert!(err.contains(message), "{line}: {err}");
    }
    assert!(printed("-V").starts_with("minimcp "));
}

/// Tests that read every flag of every command: they need every feature built, since a build
/// without one refuses its flags.
#[cfg(all(
    feature = "http",
    feature = "analysis",
    feature = "edit",
    feature = "templates",
    feature = "conformance"
))]
mod every_feature {
    use super::*;
    use crate::cli::flags::{Sub, FLAGS};
    use crate::cli::help::label;

    /// The words that say a flag was not read as one of its command's.
    const NOT_READ: [&str; 4] = [
        "unknown option",
        "applies to",
        "but not read",
        "built without",
    ];

    /// Every flag of the table is read by its command's parser in this build, and listed in
    /// that command's help; a flag of another command is refused there.
    #[test]
    fn every_flag_is_read_and_listed_by_its_own_command_only() {
        for sub in Sub::ALL {
            let help = printed(&format!("{} --help", sub.word()));
            for flag in flags::of(sub) {
                assert!(
                    help.contains(&label(flag)),
                    "{}: {} not in its help",
                    sub.word(),
                    label(flag)
                );
                for name in flag.names {
                    if matches!(*name, "-h" | "--help" | "-V" | "--version") {
                        continue;
                    }
                    // With --http when HTTP flags need it, and a value that reads as a number.
                    let line = format!("{} --http 8080 {name} 1", sub.word());
                    let line = if sub == Sub::Serve {
                        line
                    } else {
                        format!("{} {name} 1", sub.word())
                    };
                    if let Err(err) = parse_str(&line) {
                        for words in NOT_READ {
                            assert!(!err.contains(words), "{line}: {err}");
                        }
                    }
                }
            }
            for flag in FLAGS.iter().filter(|f| !f.subs.contains(&sub)) {
                let name = flag.names[0];
                if flags::of(sub).any(|f| f.names.contains(&name)) {
                    continue; // another entry of the same name is this command's (--format)
                }
                assert!(
                    !help.contains(&format!("    {name}")),
                    "{}: lists {name}",
                    sub.word()
                );
                let err = parse_str(&format!("{} {name} 1", sub.word())).expect_err(name);
                assert!(
                    err.contains("applies to") || err.contains("built without"),
                    "{err}"
                );
            }
            assert_eq!(help.matches("\nEXAMPLE\n").count(), 1, "{help}");
        }
    }

    #[test]
    fn help_describes_the_configuration_asked_for() {
        // The text as one line: help wraps it.
        let printed = |line: &str| {
            printed(line)
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
        };
        assert!(printed("--help").contains("It is read-only"));
        assert!(!printed("--help").contains("MODIFIES FILES in the roots:"));
        #[cfg(feature = "edit")]
        {
            let edit = printed("serve --toolsets workspace,edit --root /srv --help");
            assert!(edit.contains("It MODIFIES FILES in the roots"), "{edit}");
            assert!(
                edit.contains("serves /srv with the toolsets workspace"),
                "{edit}"
            );
            assert!(!edit.contains("read-only"), "{edit}");
            assert!(printed("call --toolsets edit --help").contains("MODIFIES FILES in the roots"));
        }
        #[cfg(feature = "conformance")]
        assert!(
            printed("--profile conformance --help").contains("conformance suite (an `echo` tool")
        );
        #[cfg(feature = "http")]
        {
            assert!(printed("--http 8080 --help")
                .contains("at http://127.0.0.1:8080/mcp (loopback only)"));
            assert!(printed("serve --http unix:/tmp/m.sock --help")
                .contains("the Unix socket /tmp/m.sock"));
        }
        assert!(printed("call --help").contains("runs one in-process session"));
        assert!(printed("help call").starts_with("minimcp call"));
        assert!(printed("analyze --help").starts_with("minimcp analyze"));
        assert!(printed("churn --days 3 --help").starts_with("minimcp churn"));
    }
}

#[test]
fn help_and_version_need_no_feature() {
    assert!(printed("--help").contains("USAGE"));
    let version = printed("-V");
    assert!(version.starts_with(&format!("minimcp {}\n", env!("CARGO_PKG_VERSION"))));
    assert!(version.contains("\ncommit: "), "{version}");
    assert!(
        version.contains(&format!("\nfeatures: {}", built_features().join(" "))),
        "{version}"
    );
    // The help names what this build left out, and says nothing in the default build.
    let missing = missing_features();
    let help = printed("--help");
    assert_eq!(
        help.contains("built without the features"),
        !missing.is_empty()
    );
    for feature in missing {
        assert!(help.contains(feature));
    }
}

/// Runs only in a build without `http` (the CI's feature matrix).
#[test]
#[cfg(not(feature = "http"))]
fn http_flags_name_the_missing_feature() {
    let http = super::flags::FLAGS
        .iter()
        .filter(|f| f.feature == Some("http"));
    for flag in http.flat_map(|f| f.names.iter()) {
        let err = parse_str(&format!("--profile conformance {flag} 8080")).expect_err(flag);
        assert_eq!(
            err,
            "this binary was built without the `http` feature: rebuild with `cargo build --features http`"
        );
    }
}

/// Runs only in a build without `conformance`.
#[test]
#[cfg(not(feature = "conformance"))]
fn fixture_profiles_name_the_missing_feature() {
    for profile in ["conformance", "transcripts"] {
        let err = parse_str(&format!("--profile {profile}")).expect_err(profile);
        assert!(err.contains("without the `conformance` feature"), "{err}");
    }
}

/// Every build: a toolset is accepted exactly when its feature was built.
#[test]
fn a_toolset_not_built_names_its_feature() {
    for name in OPTIONAL_TOOLSETS {
        let built = all_toolsets().contains(name);
        let result = toolsets(name);
        assert_eq!(result.is_ok(), built, "{name}: {result:?}");
        if !built {
            assert_eq!(result, Err(missing_feature(name)));
        }
    }
    #[cfg(not(feature = "workspace"))]
    assert_eq!(parse_str(""), Err(missing_feature("workspace")));
}
