//! Checking a client's parameters against a template's declarations, and the values the
//! renderer then sees (parameters, defaults filled in, plus the built-ins).

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

use super::catalog::{Entry, BUILTINS};
use super::declarations::{Kind, Param};
use super::pattern::Pattern;

/// Longest string value, in bytes (patterns are narrower; this bounds the work before them).
pub(crate) const MAX_STRING_BYTES: usize = 1024;
/// Most items in a list value.
pub(crate) const MAX_LIST_ITEMS: usize = 64;
/// Most problems reported at once (a hostile request could name thousands of unknown
/// parameters); the last one says how many more there were.
pub(crate) const MAX_PROBLEMS: usize = 32;
/// Longest parameter name quoted back in a message.
const MAX_QUOTED_NAME: usize = 64;

/// `name` as it is quoted in messages: cut to [`MAX_QUOTED_NAME`] characters.
fn quoted(name: &str) -> String {
    match name.char_indices().nth(MAX_QUOTED_NAME) {
        Some((cut, _)) => format!("{:?}…", &name[..cut]),
        None => format!("{name:?}"),
    }
}

/// One problem with one parameter.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Problem {
    pub(crate) parameter: String,
    pub(crate) message: String,
}

impl Problem {
    pub(crate) fn to_json(&self) -> Value {
        json!({"parameter": self.parameter, "message": self.message})
    }
}

/// The outcome of checking parameters.
#[derive(Debug, Default)]
pub(crate) struct Checked {
    /// What the renderer sees: every declared parameter (given or default) and the built-ins.
    pub(crate) values: BTreeMap<String, Value>,
    /// Problems with given values, and unknown names.
    pub(crate) errors: Vec<Problem>,
    /// Required parameters that were not given.
    pub(crate) missing_required: Vec<String>,
}

impl Checked {
    pub(crate) fn is_valid(&self) -> bool {
        self.errors.is_empty() && self.missing_required.is_empty()
    }
}

/// Whether names no declaration knows are errors (`validate`, `generate`) or left alone
/// (`scaffold`, whose one parameter object serves several templates).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Unknown {
    Refuse,
    Ignore,
}

/// Checks `given` against `entry`'s declarations.
pub(crate) fn check(entry: &Entry, given: &Map<String, Value>, unknown: Unknown) -> Checked {
    let mut checked = Checked::default();
    let params = entry.params();
    if unknown == Unknown::Refuse {
        for name in given.keys() {
            if !params.iter().any(|p| p.name == name) {
                let accepted: Vec<&str> = params.iter().map(|p| p.name).collect();
                let shown = quoted(name);
                let message = if accepted.is_empty() {
                    format!("{} takes no parameters: remove {shown}", entry.name())
                } else {
                    format!(
                        "{} has no parameter {shown}: remove it, or use one of {}",
                        entry.name(),
                        accepted.join(", ")
                    )
                };
                checked.errors.push(Problem {
                    parameter: name.chars().take(MAX_QUOTED_NAME).collect(),
                    message,
                });
            }
        }
    }
    for param in params {
        match given.get(param.name) {
            Some(value) => match check_value(param, value) {
                Ok(()) => {
                    checked.values.insert(param.name.into(), value.clone());
                }
                Err(message) => checked.errors.push(Problem {
                    parameter: param.name.into(),
                    message,
                }),
            },
            None => match param.default {
                Some(default) => {
                    let value = serde_json::from_str(default).unwrap_or(Value::Null);
                    checked.values.insert(param.name.into(), value);
                }
                None => checked.missing_required.push(param.name.into()),
            },
        }
    }
    if checked.errors.len() > MAX_PROBLEMS {
        let more = checked.errors.len() - (MAX_PROBLEMS - 1);
        checked.errors.truncate(MAX_PROBLEMS - 1);
        checked.errors.push(Problem {
            parameter: "*".into(),
            message: format!("… and {more} more problems: fix the ones above first"),
        });
    }
    for name in BUILTINS {
        let value = match *name {
            "category" => json!(entry.category()),
            "toolchain" => json!(entry.toolchain()),
            "variant" => json!(entry.variant),
            flag => json!(entry.variant == flag),
        };
        checked.values.insert((*name).into(), value);
    }
    checked
}

fn check_value(param: &Param, value: &Value) -> Result<(), String> {
    let name = param.name;
    let wrong = || {
        format!(
            "{name} must be a {}, not {}",
            describe(param.kind),
            kind_of(value)
        )
    };
    match (param.kind, value) {
        (Kind::String, Value::String(s)) => check_string(param, s, name),
        (Kind::Boolean, Value::Bool(_)) => Ok(()),
        (Kind::Number, Value::Number(n)) => match (param.range, n.as_i64()) {
            (Some((lo, hi)), Some(v)) if v < lo || v > hi => {
                Err(format!("{name} must be between {lo} and {hi}, not {v}"))
            }
            (Some((lo, hi)), None) => Err(format!(
                "{name} must be a whole number between {lo} and {hi}, not {n}"
            )),
            _ => Ok(()),
        },
        (Kind::Array, Value::Array(items)) => {
            if items.len() > MAX_LIST_ITEMS {
                return Err(format!(
                    "{name} has {} items; at most {MAX_LIST_ITEMS} are accepted",
                    items.len()
                ));
            }
            for (i, item) in items.iter().enumerate() {
                let Value::String(s) = item else {
                    return Err(format!(
                        "{name}[{i}] must be a string, not {}",
                        kind_of(item)
                    ));
                };
                check_string(param, s, &format!("{name}[{i}]"))?;
            }
            Ok(())
        }
        _ => Err(wrong()),
    }
}

fn check_string(param: &Param, s: &str, label: &str) -> Result<(), String> {
    if s.len() > MAX_STRING_BYTES {
        return Err(format!(
            "{label} is {} bytes long; at most {MAX_STRING_BYTES} are accepted",
            s.len()
        ));
    }
    let Some(source) = param.pattern else {
        return Ok(());
    };
    match Pattern::compile(source) {
        Ok(mut pattern) => {
            if pattern.is_match(s) {
                Ok(())
            } else {
                Err(format!(
                    "{label} = {s:?} does not match the pattern {source}: {}",
                    param.description
                ))
            }
        }
        // Unreachable for the manifest (a unit test compiles every pattern); refuse
        // rather than accept unchecked.
        Err(e) => Err(format!("{label} cannot be checked: {e}")),
    }
}

fn describe(kind: Kind) -> &'static str {
    match kind {
        Kind::String => "string",
        Kind::Boolean => "boolean (true or false)",
        Kind::Number => "number",
        Kind::Array => "list of strings",
    }
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// A parameter's declaration as JSON: `{name, type, required, default?, description,
/// pattern?, minimum?, maximum?}`.
pub(crate) fn declaration(param: &Param) -> Value {
    let mut out = json!({
        "name": param.name,
        "type": param.kind.as_str(),
        "required": param.required,
        "description": param.description,
    });
    if let Some(default) = param.default {
        out["default"] = serde_json::from_str(default).unwrap_or(Value::Null);
    }
    if let Some(pattern) = param.pattern {
        out["pattern"] = json!(pattern);
    }
    if let Some((lo, hi)) = param.range {
        out["minimum"] = json!(lo);
        out["maximum"] = json!(hi);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::catalog::find;
    use super::*;

    fn given(v: Value) -> Map<String, Value> {
        v.as_object().expect("object").clone()
    }

    #[test]
    fn defaults_and_builtins_fill_the_values() {
        let entry = find("makefile", "rust", "lib").expect("exists");
        let checked = check(
            &entry,
            &given(json!({"project_name": "demo"})),
            Unknown::Refuse,
        );
        assert!(checked.is_valid(), "{checked:?}");
        assert_eq!(checked.values["project_name"], "demo");
        assert_eq!(checked.values["has_tests"], true);
        assert_eq!(checked.values["lib"], true);
        assert_eq!(checked.values["cli"], false);
        assert_eq!(checked.values["variant"], "lib");
    }

    #[test]
    fn every_problem_is_named() {
        let entry = find("readme", "go", "service").expect("exists");
        let checked = check(
            &entry,
            &given(json!({
                "project_name": "1bad", "has_tests": "yes", "port": 70000,
                "features": ["ok", 3], "colour": "red"
            })),
            Unknown::Refuse,
        );
        let messages: Vec<String> = checked
            .errors
            .iter()
            .map(|p| format!("{}: {}", p.parameter, p.message))
            .collect();
        let all = messages.join("\n");
        for expected in [
            "colour: readme/go/service has no parameter \"colour\": remove it, or use one of project_name",
            "project_name: project_name = \"1bad\" does not match the pattern ^[A-Za-z]",
            "has_tests: has_tests must be a boolean (true or false), not a string",
            "port: port must be between 1 and 65535, not 70000",
            "features: features[1] must be a string, not a number",
        ] {
            assert!(all.contains(expected), "{expected}\n---\n{all}");
        }
        assert_eq!(messages.len(), 5);
        assert!(checked.missing_required.is_empty());
    }

    #[test]
    fn hostile_parameter_lists_stay_small() {
        let entry = find("gitignore", "rust", "default").expect("exists");
        let mut many = Map::new();
        for i in 0..10_000 {
            many.insert(format!("{}{i}", "n".repeat(500)), json!(1));
        }
        let checked = check(&entry, &many, Unknown::Refuse);
        assert_eq!(checked.errors.len(), MAX_PROBLEMS);
        assert!(checked
            .errors
            .last()
            .expect("summary")
            .message
            .contains("and 9969 more"));
        assert!(
            checked.errors.iter().all(|p| p.message.len() < 200),
            "names are cut"
        );
    }

    #[test]
    fn missing_required_and_unknown_policy() {
        let entry = find("makefile", "go", "cli").expect("exists");
        let checked = check(&entry, &given(json!({"other": 1})), Unknown::Ignore);
        assert!(checked.errors.is_empty());
        assert_eq!(checked.missing_required, ["project_name"]);
        let gitignore = find("gitignore", "go", "default").expect("exists");
        let checked = check(&gitignore, &given(json!({"x": 1})), Unknown::Refuse);
        assert!(checked.errors[0].message.contains("takes no parameters"));
    }
}
