//! A small JSON Schema validator for tool arguments, with messages a model can act on.
//!
//! Supported keywords (JSON Schema 2020-12 meaning; draft-07 schemas use the same ones):
//! `type` (one or a list), `properties`, `required`, `additionalProperties` (boolean or
//! schema), `enum`, `const`, `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`,
//! `minLength`, `maxLength` (in characters), `items`, `minItems`, `maxItems`, `anyOf`,
//! `oneOf`, `allOf`, `not`, `if`/`then`/`else`, `default` (filled in for missing properties before
//! validation) and local `$ref`s (`#/$defs/...`, `#/definitions/...`). Every other keyword (`pattern`,
//! `format`, `title`, `description`, ...) is an annotation here: kept verbatim in
//! `tools/list`, not enforced. [`check_schema`] refuses, when a tool is registered, what
//! cannot be honoured: a root that is not `"type": "object"`, an unknown `$schema` dialect,
//! and `$ref`s that leave the document (MCP 2026-07-28 forbids fetching them).

use serde_json::{Map, Value};

mod closest;
mod validator;

pub use closest::closest;
pub use validator::validate_ref;
use validator::{follow, resolve, MAX_DEPTH};

/// The dialects `$schema` may name; a schema without `$schema` is 2020-12
/// (conformance/REQUIREMENTS.md T-17).
const DIALECTS: [&str; 4] = [
    "https://json-schema.org/draft/2020-12/schema",
    "http://json-schema.org/draft-07/schema#",
    "http://json-schema.org/draft-07/schema",
    "https://json-schema.org/draft-07/schema",
];

/// Checks that `schema` can be used as a tool's `inputSchema` (or `outputSchema`).
pub fn check_schema(schema: &Value) -> Result<(), String> {
    let root = schema
        .as_object()
        .ok_or("the schema must be a JSON object")?;
    if root.get("type") != Some(&Value::from("object")) {
        return Err("the schema's root must have \"type\": \"object\"".into());
    }
    if let Some(dialect) = root.get("$schema") {
        let known = dialect.as_str().is_some_and(|d| DIALECTS.contains(&d));
        if !known {
            return Err(format!(
                "unsupported $schema dialect {dialect}; use JSON Schema 2020-12 (or draft-07)"
            ));
        }
    }
    let outside = |map: &Map<String, Value>| {
        let reference = map.get("$ref")?;
        let target = reference.as_str().and_then(|r| resolve(schema, r));
        target.is_none().then(|| {
            format!("$ref {reference} does not point inside the schema (only \"#/...\" references are supported)")
        })
    };
    find(schema, 0, &outside).map_or(Ok(()), Err)
}

/// What `check` says of the first object in `node` (itself or nested) it has something to
/// say about, or that `node` nests too deeply to look through.
fn find(
    node: &Value,
    depth: usize,
    check: &dyn Fn(&Map<String, Value>) -> Option<String>,
) -> Option<String> {
    match node {
        _ if depth > MAX_DEPTH => Some(format!("the schema nests deeper than {MAX_DEPTH} levels")),
        Value::Object(map) => {
            check(map).or_else(|| map.values().find_map(|v| find(v, depth + 1, check)))
        }
        Value::Array(items) => items.iter().find_map(|v| find(v, depth + 1, check)),
        _ => None,
    }
}

/// Checks an elicitation form (REQUIREMENTS.md SE-2): a usable schema ([`check_schema`]) whose
/// properties are primitives — string, number, integer, boolean, or an array of enumerated
/// strings (multi-select).
pub fn check_elicitation_schema(schema: &Value) -> Result<(), String> {
    check_schema(schema)?;
    let properties = match schema.get("properties") {
        None => return Ok(()),
        Some(Value::Object(properties)) => properties,
        Some(_) => return Err("the form's \"properties\" must be an object".into()),
    };
    for (name, property) in properties {
        let primitive = match property.get("type").and_then(Value::as_str) {
            Some("string" | "number" | "integer" | "boolean") => true,
            Some("array") => property
                .get("items")
                .is_some_and(|items| items.get("enum").is_some() || items.get("anyOf").is_some()),
            _ => false,
        };
        if !primitive {
            return Err(format!(
                "form field `{name}` must be a string, number, integer, boolean or a multi-select array of enumerated strings"
            ));
        }
    }
    Ok(())
}

/// Fills in `default`s for missing properties (when `fill` says the schema has any: see
/// [`has_defaults`]), then validates `value` against `schema` ([`validate_ref`]).
pub fn validate(schema: &Value, value: &mut Value, fill: bool) -> Result<(), Vec<String>> {
    if fill {
        apply_defaults(schema, schema, value, 0);
    }
    validate_ref(schema, value)
}

/// Whether a `default` member appears anywhere in `schema` (or it nests too deeply to
/// tell): worked out once per tool, so the arguments of a tool without defaults are not
/// walked against its schema twice per call.
pub fn has_defaults(schema: &Value) -> bool {
    let has_default = |map: &Map<String, Value>| map.contains_key("default").then(String::new);
    find(schema, 0, &has_default).is_some()
}

fn apply_defaults(root: &Value, schema: &Value, value: &mut Value, depth: usize) {
    let props = follow(root, schema, 0).and_then(|s| s.get("properties")?.as_object());
    let (Some(props), Some(obj), false) = (props, value.as_object_mut(), depth > MAX_DEPTH) else {
        return;
    };
    for (name, prop) in props {
        let prop = follow(root, prop, 0).unwrap_or(prop);
        if let Some(child) = obj.get_mut(name) {
            apply_defaults(root, prop, child, depth + 1);
        } else if let Some(default) = prop.get("default") {
            obj.insert(name.clone(), default.clone());
        }
    }
}

#[cfg(test)]
mod fuzz_tests;
#[cfg(test)]
mod tests;
