//! A small JSON Schema validator for tool arguments, with messages a model can act on.
//!
//! Supported keywords (JSON Schema 2020-12 meaning; draft-07 schemas use the same ones):
//! `type` (one or a list), `properties`, `required`, `additionalProperties` (boolean or
//! schema), `enum`, `const`, `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`,
//! `minLength`, `maxLength` (in characters), `items`, `minItems`, `maxItems`, `anyOf`,
//! `oneOf`, `allOf`, `if`/`then`/`else`, `default` (filled in for missing properties before
//! validation) and
//! local `$ref`s (`#/$defs/...`, `#/definitions/...`). Every other keyword (`pattern`,
//! `format`, `title`, `description`, ...) is an annotation here: kept verbatim in
//! `tools/list`, not enforced. [`check_schema`] refuses, when a tool is registered, what
//! cannot be honoured: a root that is not `"type": "object"`, an unknown `$schema` dialect,
//! and `$ref`s that leave the document (MCP 2026-07-28 forbids fetching them).

use serde_json::Value;

mod closest;
mod validator;

pub(crate) use closest::closest;
use validator::{follow, resolve, Path, Validator, MAX_DEPTH, MAX_ERRORS};

/// The dialects `$schema` may name; a schema without `$schema` is 2020-12
/// (conformance/REQUIREMENTS.md T-17).
const DIALECTS: [&str; 4] = [
    "https://json-schema.org/draft/2020-12/schema",
    "http://json-schema.org/draft-07/schema#",
    "http://json-schema.org/draft-07/schema",
    "https://json-schema.org/draft-07/schema",
];

/// Checks that `schema` can be used as a tool's `inputSchema` (or `outputSchema`).
pub(crate) fn check_schema(schema: &Value) -> Result<(), String> {
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
    check_refs(schema, schema, 0)
}

fn check_refs(root: &Value, node: &Value, depth: usize) -> Result<(), String> {
    if depth > MAX_DEPTH {
        return Err(format!("the schema nests deeper than {MAX_DEPTH} levels"));
    }
    match node {
        Value::Object(map) => {
            if let Some(reference) = map.get("$ref") {
                let target = reference.as_str().and_then(|r| resolve(root, r));
                if target.is_none() {
                    return Err(format!(
                        "$ref {reference} does not point inside the schema (only \"#/...\" references are supported)"
                    ));
                }
            }
            map.values()
                .try_for_each(|v| check_refs(root, v, depth + 1))
        }
        Value::Array(items) => items
            .iter()
            .try_for_each(|v| check_refs(root, v, depth + 1)),
        _ => Ok(()),
    }
}

/// Checks an elicitation form (REQUIREMENTS.md SE-2): an object whose properties are primitives —
/// string, number, integer, boolean, or an array of enumerated strings (multi-select).
pub(crate) fn check_elicitation_schema(schema: &Value) -> Result<(), String> {
    if schema.get("type") != Some(&Value::from("object")) {
        return Err("the form's schema must have \"type\": \"object\"".into());
    }
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
/// [`has_defaults`]), then validates `value` against `schema`.
///
/// Returns every problem found (up to ten), each naming the argument and what to change.
pub(crate) fn validate(schema: &Value, value: &mut Value, fill: bool) -> Result<(), Vec<String>> {
    if fill {
        apply_defaults(schema, schema, value, 0);
    }
    validate_ref(schema, value)
}

/// Checks `value` against `schema` without changing it (used for structured tool output).
pub(crate) fn validate_ref(schema: &Value, value: &Value) -> Result<(), Vec<String>> {
    let mut errors = Vec::new();
    Validator { root: schema }.check(schema, value, &mut Path::Root, &mut errors, 0);
    errors.truncate(MAX_ERRORS);
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

/// Whether a `default` member appears anywhere in `schema` (or it nests too deeply to
/// tell): worked out once per tool, so the arguments of a tool without defaults are not
/// walked against its schema twice per call.
pub(crate) fn has_defaults(schema: &Value) -> bool {
    fn walk(node: &Value, depth: usize) -> bool {
        match node {
            _ if depth > MAX_DEPTH => true,
            Value::Object(map) => {
                map.contains_key("default") || map.values().any(|v| walk(v, depth + 1))
            }
            Value::Array(items) => items.iter().any(|v| walk(v, depth + 1)),
            _ => false,
        }
    }
    walk(schema, 0)
}

fn apply_defaults(root: &Value, schema: &Value, value: &mut Value, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    let Some(schema) = follow(root, schema, 0) else {
        return;
    };
    let (Some(props), Some(obj)) = (
        schema.get("properties").and_then(Value::as_object),
        value.as_object_mut(),
    ) else {
        return;
    };
    for (name, prop) in props {
        let prop = follow(root, prop, 0).unwrap_or(prop);
        match obj.get_mut(name) {
            Some(child) => apply_defaults(root, prop, child, depth + 1),
            None => {
                if let Some(default) = prop.get("default") {
                    obj.insert(name.clone(), default.clone());
                }
            }
        }
    }
}

#[cfg(test)]
mod tests;
