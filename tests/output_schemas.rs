//! Every tool's `outputSchema`, in every profile and toolset, stays in the portable subset of
//! JSON Schema: what Ajv 8 compiles with its default options without an error or a warning.
//! That is how the MCP Inspector compiles output schemas (`new Ajv()`, then
//! `ajv.compile(tool.outputSchema)`; its 0.x line used Ajv 6, which accepts all of this too),
//! and strict mode is the strictest reading a client is known to make. A schema outside it
//! gets a warning in the Inspector (a list of types in `list_templates` did), or is not
//! compiled at all, and its results are then not checked.
//!
//! The rules, written from Ajv's documentation of strict mode (no code of Ajv's here; the
//! script `tests/clients/run.sh` compiles the same schemas with the real Ajv 8 and Ajv 6):
//!
//! - `type` is one JSON type, or one and `"null"` (a longer list is a "union type");
//! - every keyword is one Ajv's default (draft-07) vocabulary knows (strict mode refuses
//!   unknown keywords), and there is no `format` (no format is defined without ajv-formats,
//!   and an unknown one is an error) and no `$schema`;
//! - a keyword that applies to one type (`properties`, `items`, `minLength`, `minimum`, …)
//!   sits beside a `type` that includes it, or inside `allOf`/`anyOf`/`oneOf`/`not`/
//!   `if`/`then`/`else` of a schema that has one (strict types);
//! - a `type` inside those applicators is one its parent's `type` allows;
//! - `items` is one schema (a list of schemas is a tuple, which strict mode wants bounded);
//!   `if` comes with `then` or `else`, and `then`/`else` with `if`; no `additionalItems`.

mod common;

use std::process::Command;

use serde_json::{json, Map, Value};

/// Ajv's draft-07 vocabulary, annotations included.
const KNOWN: &[&str] = &[
    "type",
    "enum",
    "const",
    "properties",
    "required",
    "additionalProperties",
    "patternProperties",
    "propertyNames",
    "minProperties",
    "maxProperties",
    "dependencies",
    "items",
    "minItems",
    "maxItems",
    "uniqueItems",
    "contains",
    "minLength",
    "maxLength",
    "pattern",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "if",
    "then",
    "else",
    "$ref",
    "$id",
    "$comment",
    "definitions",
    "$defs",
    "title",
    "description",
    "default",
    "examples",
    "readOnly",
    "writeOnly",
    "contentMediaType",
    "contentEncoding",
];

/// The JSON type each type-specific keyword applies to.
fn applies_to(keyword: &str) -> Option<&'static str> {
    Some(match keyword {
        "properties"
        | "required"
        | "additionalProperties"
        | "patternProperties"
        | "propertyNames"
        | "minProperties"
        | "maxProperties"
        | "dependencies" => "object",
        "items" | "minItems" | "maxItems" | "uniqueItems" | "contains" => "array",
        "minLength" | "maxLength" | "pattern" => "string",
        "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" | "multipleOf" => "number",
        _ => return None,
    })
}

const TYPES: &[&str] = &[
    "object", "array", "string", "number", "integer", "boolean", "null",
];

/// The problems of `schema` at `path`; `context`: the types an enclosing schema of the same
/// data allows (empty: none said).
fn check(schema: &Value, path: &str, context: &[String], problems: &mut Vec<String>) {
    let Some(object) = schema.as_object() else {
        if !schema.is_boolean() {
            problems.push(format!("{path}: a schema is an object or a boolean"));
        }
        return;
    };
    let types = types_of(object, path, problems);
    for t in &types {
        let allowed = context.is_empty()
            || context.contains(t)
            || (t == "integer" && context.iter().any(|c| c == "number"));
        if !allowed {
            problems.push(format!(
                "{path}: type {t:?} is not allowed by its context {context:?}"
            ));
        }
    }
    let here: Vec<String> = if types.is_empty() {
        context.to_vec()
    } else {
        types
    };
    for (keyword, value) in object {
        let at = format!("{path}/{keyword}");
        if !KNOWN.contains(&keyword.as_str()) {
            problems.push(format!(
                "{at}: not a keyword of Ajv's default vocabulary (strict mode refuses it)"
            ));
        }
        if let Some(wanted) = applies_to(keyword) {
            let ok = here
                .iter()
                .any(|t| t == wanted || (wanted == "number" && t == "integer"));
            if !ok {
                problems.push(format!(
                    "{at}: needs \"type\": {wanted:?} beside it (strict types)"
                ));
            }
        }
        match keyword.as_str() {
            "properties" | "patternProperties" | "definitions" | "$defs" => match value.as_object()
            {
                Some(members) => {
                    for (name, sub) in members {
                        check(sub, &format!("{at}/{name}"), &[], problems);
                    }
                }
                None => problems.push(format!("{at}: an object of schemas")),
            },
            "items" if value.is_array() => problems.push(format!(
                "{at}: a list of schemas is a tuple; give one schema"
            )),
            "items" | "additionalProperties" | "propertyNames" | "contains" => {
                check(value, &at, &[], problems)
            }
            "allOf" | "anyOf" | "oneOf" => match value.as_array() {
                Some(branches) if !branches.is_empty() => {
                    for (i, branch) in branches.iter().enumerate() {
                        check(branch, &format!("{at}/{i}"), &here, problems);
                    }
                }
                _ => problems.push(format!("{at}: a non-empty list of schemas")),
            },
            "not" | "if" | "then" | "else" => check(value, &at, &here, problems),
            "required" => {
                let names = value.as_array().filter(|n| n.iter().all(Value::is_string));
                if names.is_none() {
                    problems.push(format!("{at}: a list of property names"));
                }
            }
            "enum" if value.as_array().is_none_or(Vec::is_empty) => {
                problems.push(format!("{at}: a non-empty list"))
            }
            "format" | "$schema" | "additionalItems" => problems.push(format!(
                "{at}: not portable (unknown to Ajv without plugins, or ignored)"
            )),
            _ => {}
        }
    }
    let has = |k: &str| object.contains_key(k);
    if has("if") && !has("then") && !has("else") {
        problems.push(format!(
            "{path}: \"if\" without \"then\" or \"else\" is ignored"
        ));
    }
    if (has("then") || has("else")) && !has("if") {
        problems.push(format!(
            "{path}: \"then\"/\"else\" without \"if\" is ignored"
        ));
    }
}

/// The types `type` names: one, or one and "null".
fn types_of(object: &Map<String, Value>, path: &str, problems: &mut Vec<String>) -> Vec<String> {
    let names: Vec<String> = match object.get("type") {
        None => return Vec::new(),
        Some(Value::String(t)) => vec![t.clone()],
        Some(Value::Array(list)) => list
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect(),
        Some(_) => {
            problems.push(format!("{path}/type: a type name"));
            return Vec::new();
        }
    };
    for name in &names {
        if !TYPES.contains(&name.as_str()) {
            problems.push(format!("{path}/type: {name:?} is not a JSON type"));
        }
    }
    let union = names.len() > 1 && !(names.len() == 2 && names.iter().any(|n| n == "null"));
    if union {
        problems.push(format!(
            "{path}/type: a list of types {names:?} (a union type: strict mode warns; use anyOf)"
        ));
    }
    names
}

fn problems(schema: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    check(schema, "#", &[], &mut problems);
    problems
}

/// The tools of `args`' server, each with its output schema.
fn output_schemas(args: &[&str]) -> Vec<(String, Value)> {
    let out = Command::new(common::minimcp())
        .args(["call", "tools/list", "--json", "--page-size", "1000"])
        .args(args)
        .output()
        .expect("minimcp runs");
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let listing: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let tools = listing["tools"].as_array().expect("tools").clone();
    tools
        .into_iter()
        .filter_map(|t| {
            Some((
                t["name"].as_str()?.to_string(),
                t.get("outputSchema")?.clone(),
            ))
        })
        .collect()
}

#[test]
fn every_output_schema_is_portable() {
    let mut servers: Vec<[String; 2]> = Vec::new();
    if cfg!(feature = "workspace") {
        let mut all: Vec<&str> = vec!["workspace"];
        for (name, built) in [
            ("templates", cfg!(feature = "templates")),
            ("analysis", cfg!(feature = "analysis")),
            ("edit", cfg!(feature = "edit")),
        ] {
            if built {
                all.push(name);
            }
        }
        servers.push(["--toolsets".into(), all.join(",")]);
    }
    if cfg!(feature = "conformance") {
        servers.push(["--profile".into(), "transcripts".into()]);
    }
    let mut checked = 0;
    for args in servers {
        for (tool, schema) in output_schemas(&[&args[0], &args[1]]) {
            let found = problems(&schema);
            assert!(
                found.is_empty(),
                "{tool}'s outputSchema is not portable:\n{}",
                found.join("\n")
            );
            checked += 1;
        }
    }
    // The workspace toolset's 4 tools and the templates' 5 at least: none was skipped.
    if cfg!(all(feature = "workspace", feature = "templates")) {
        assert!(checked >= 9, "only {checked} output schemas");
    }
}

/// The rules catch what they are about, and pass what Ajv passes.
#[test]
fn the_rules_catch_what_strict_mode_refuses() {
    let bad = [
        json!({"type": "object", "properties": {"default": {"type": ["string", "boolean", "number", "array"]}}}),
        json!({"properties": {"a": {"type": "string"}}}),
        json!({"type": "object", "properties": {"a": {"items": {"type": "string"}}}}),
        json!({"type": "string", "minimum": 1}),
        json!({"type": "object", "x-mcp-header": "A"}),
        json!({"type": "string", "format": "date-time"}),
        json!({"type": "array", "items": [{"type": "string"}]}),
        json!({"type": "string", "anyOf": [{"type": "number"}]}),
        json!({"if": {"type": "string"}}),
        json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object"}),
        json!({"type": "object", "properties": {"a": {"type": "text"}}}),
    ];
    for schema in bad {
        assert!(!problems(&schema).is_empty(), "{schema} should not pass");
    }
    let good = [
        json!({"type": "object", "properties": {"default": {"anyOf": [{"type": "string"}, {"type": "boolean"}, {"type": "number"}, {"type": "array"}]}}}),
        json!({"type": ["string", "null"], "maxLength": 3}),
        json!({"type": "number", "anyOf": [{"type": "integer", "minimum": 0}]}),
        json!({"type": "object", "additionalProperties": {"type": "integer"}, "required": ["a"]}),
        json!({"enum": ["a", "b"], "description": "any type"}),
        json!({"type": "array", "items": {"type": "object", "properties": {}}}),
        json!(true),
    ];
    for schema in good {
        assert_eq!(problems(&schema), Vec::<String>::new(), "{schema}");
    }
}
