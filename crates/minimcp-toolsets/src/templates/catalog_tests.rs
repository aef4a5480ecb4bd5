use super::super::pattern::Pattern;
use super::super::render::Template;
use super::*;

#[test]
fn every_source_parses_and_reads_only_declared_values() {
    for source in &SOURCES {
        let label = format!("{}/{}", source.category, source.toolchain);
        let template = Template::parse(source.text).unwrap_or_else(|e| panic!("{label}: {e}"));
        for (name, line) in template.variables() {
            assert!(
                BUILTINS.contains(&name.as_str()) || source.params.iter().any(|p| p.name == name),
                "{label}:{line}: {name} is neither a parameter nor a built-in"
            );
        }
    }
}

#[test]
fn every_declaration_is_consistent() {
    for source in &SOURCES {
        for param in source.params {
            let label = format!("{}/{} {}", source.category, source.toolchain, param.name);
            assert!(
                !BUILTINS.contains(&param.name),
                "{label} shadows a built-in"
            );
            assert_eq!(param.required, param.default.is_none(), "{label}");
            let mut pattern = param
                .pattern
                .map(|p| Pattern::compile(p).unwrap_or_else(|e| panic!("{label}: {e}")));
            assert_eq!(
                pattern.is_some(),
                matches!(param.kind, Kind::String | Kind::Array),
                "{label}: strings and lists have a pattern"
            );
            let Some(default) = param.default else {
                continue;
            };
            let value: serde_json::Value =
                serde_json::from_str(default).unwrap_or_else(|e| panic!("{label}: {e}"));
            let strings: Vec<&str> = match (&value, param.kind) {
                (serde_json::Value::String(s), Kind::String) => vec![s],
                (serde_json::Value::Array(items), Kind::Array) => {
                    items.iter().map(|i| i.as_str().expect("strings")).collect()
                }
                (serde_json::Value::Bool(_), Kind::Boolean) => vec![],
                (serde_json::Value::Number(_), Kind::Number) => vec![],
                _ => panic!("{label}: the default is not a {}", param.kind.as_str()),
            };
            for s in strings {
                assert!(
                    pattern.as_mut().is_some_and(|p| p.is_match(s)),
                    "{label}: default {s:?}"
                );
            }
        }
    }
}

#[test]
fn uris_are_unique_and_parts_have_aliases() {
    let mut uris: Vec<String> = entries().map(|e| e.uri()).collect();
    let count = uris.len();
    uris.sort();
    uris.dedup();
    assert_eq!(uris.len(), count);
    for entry in entries() {
        for part in [entry.category(), entry.toolchain(), entry.variant] {
            assert_eq!(aliases(part).first(), Some(&part), "{part}");
        }
    }
    assert!(find("makefile", "rust", "cli").is_some());
    assert!(find("makefile", "rust", "nope").is_none());
}
