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

use serde_json::{Map, Value};

/// The dialects `$schema` may name; a schema without `$schema` is 2020-12 (MCP T-17).
const DIALECTS: [&str; 4] = [
    "https://json-schema.org/draft/2020-12/schema",
    "http://json-schema.org/draft-07/schema#",
    "http://json-schema.org/draft-07/schema",
    "https://json-schema.org/draft-07/schema",
];
/// At most this many problems are reported for one value.
const MAX_ERRORS: usize = 10;
/// `$ref` chains and nesting deeper than this are refused (cycles, hostile schemas).
const MAX_DEPTH: usize = 64;

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

/// Checks an elicitation form (MCP SE-2): an object whose properties are primitives —
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

/// Resolves a local JSON pointer reference such as `#/$defs/address`.
fn resolve<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let pointer = reference.strip_prefix('#')?;
    let pointer = pointer.replace("~1", "/").replace("~0", "~");
    root.pointer(&pointer)
        .filter(|v| v.is_object() || v.is_boolean())
}

/// Fills in `default`s for missing properties (when `fill` says the schema has any: see
/// [`has_defaults`]), then validates `value` against `schema`.
///
/// Returns every problem found (up to ten), each naming the argument and what to change.
pub(crate) fn validate(schema: &Value, value: &mut Value, fill: bool) -> Result<(), Vec<String>> {
    if fill {
        apply_defaults(schema, schema, value, 0);
    }
    let mut errors = Vec::new();
    Validator { root: schema }.check(schema, value, &mut Path::Root, &mut errors, 0);
    if errors.is_empty() {
        Ok(())
    } else {
        errors.truncate(MAX_ERRORS);
        Err(errors)
    }
}

/// Checks `value` against `schema` without changing it (used for structured tool output).
pub(crate) fn validate_ref(schema: &Value, value: &Value) -> Result<(), Vec<String>> {
    let mut errors = Vec::new();
    Validator { root: schema }.check(schema, value, &mut Path::Root, &mut errors, 0);
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

/// Follows `$ref`s until a schema without one.
fn follow<'a>(root: &'a Value, schema: &'a Value, depth: usize) -> Option<&'a Value> {
    match schema.get("$ref").and_then(Value::as_str) {
        None => Some(schema),
        Some(_) if depth > MAX_DEPTH => None,
        Some(reference) => follow(root, resolve(root, reference)?, depth + 1),
    }
}

/// Where in the arguments a problem is, for messages like "`address.city`" or "`paths[2]`".
enum Path<'a> {
    Root,
    Key(&'a Path<'a>, &'a str),
    Index(&'a Path<'a>, usize),
}

impl Path<'_> {
    fn render(&self) -> String {
        match self {
            Path::Root => String::new(),
            Path::Key(parent, key) => match parent.render() {
                p if p.is_empty() => (*key).to_string(),
                p => format!("{p}.{key}"),
            },
            Path::Index(parent, i) => format!("{}[{i}]", parent.render()),
        }
    }

    fn name(&self) -> String {
        match self.render() {
            p if p.is_empty() => "the arguments".into(),
            p => format!("`{p}`"),
        }
    }
}

/// The keywords the validator enforces, found in one pass over a schema object: a tool
/// schema has a handful of members, and looking each of twenty keywords up by name in the
/// map was most of the validation of a small call (every lookup compares strings).
#[derive(Default)]
struct Keywords<'s> {
    reference: Option<&'s Value>,
    ty: Option<&'s Value>,
    allowed: Option<&'s Value>,
    constant: Option<&'s Value>,
    minimum: Option<&'s Value>,
    maximum: Option<&'s Value>,
    exclusive_minimum: Option<&'s Value>,
    exclusive_maximum: Option<&'s Value>,
    min_length: Option<&'s Value>,
    max_length: Option<&'s Value>,
    min_items: Option<&'s Value>,
    max_items: Option<&'s Value>,
    items: Option<&'s Value>,
    properties: Option<&'s Value>,
    required: Option<&'s Value>,
    additional: Option<&'s Value>,
    all_of: Option<&'s Value>,
    any_of: Option<&'s Value>,
    one_of: Option<&'s Value>,
    condition: Option<&'s Value>,
    then: Option<&'s Value>,
    otherwise: Option<&'s Value>,
}

impl<'s> Keywords<'s> {
    fn of(schema: &'s Map<String, Value>) -> Self {
        let mut k = Keywords::default();
        for (key, value) in schema {
            let slot = match key.as_str() {
                "$ref" => &mut k.reference,
                "type" => &mut k.ty,
                "enum" => &mut k.allowed,
                "const" => &mut k.constant,
                "minimum" => &mut k.minimum,
                "maximum" => &mut k.maximum,
                "exclusiveMinimum" => &mut k.exclusive_minimum,
                "exclusiveMaximum" => &mut k.exclusive_maximum,
                "minLength" => &mut k.min_length,
                "maxLength" => &mut k.max_length,
                "minItems" => &mut k.min_items,
                "maxItems" => &mut k.max_items,
                "items" => &mut k.items,
                "properties" => &mut k.properties,
                "required" => &mut k.required,
                "additionalProperties" => &mut k.additional,
                "allOf" => &mut k.all_of,
                "anyOf" => &mut k.any_of,
                "oneOf" => &mut k.one_of,
                "if" => &mut k.condition,
                "then" => &mut k.then,
                "else" => &mut k.otherwise,
                _ => continue,
            };
            *slot = Some(value);
        }
        k
    }
}

struct Validator<'s> {
    root: &'s Value,
}

impl<'s> Validator<'s> {
    fn check(
        &self,
        schema: &'s Value,
        value: &Value,
        path: &mut Path<'_>,
        errors: &mut Vec<String>,
        depth: usize,
    ) {
        if errors.len() >= MAX_ERRORS {
            return;
        }
        let schema = match schema {
            Value::Bool(true) => return,
            Value::Bool(false) => {
                errors.push(format!("{} is not allowed", path.name()));
                return;
            }
            Value::Object(map) => map,
            _ => return,
        };
        if depth > MAX_DEPTH {
            errors.push(format!("{} nests too deeply", path.name()));
            return;
        }
        let k = Keywords::of(schema);
        if let Some(reference) = k.reference.and_then(Value::as_str) {
            if let Some(target) = resolve(self.root, reference) {
                self.check(target, value, path, errors, depth + 1);
            }
        }

        if let Some(ty) = k.ty {
            if !type_matches(ty, value) {
                errors.push(format!(
                    "{} must be {}, got {}",
                    path.name(),
                    describe_type(ty),
                    describe_value(value)
                ));
                return;
            }
        }
        if let Some(allowed) = k.allowed.and_then(Value::as_array) {
            if !allowed.iter().any(|a| json_equal(a, value)) {
                let list: Vec<String> = allowed.iter().map(Value::to_string).collect();
                errors.push(format!(
                    "{} must be one of {}, got {}",
                    path.name(),
                    list.join(", "),
                    value
                ));
            }
        }
        if let Some(expected) = k.constant {
            if !json_equal(expected, value) {
                errors.push(format!("{} must be {expected}, got {value}", path.name()));
            }
        }
        match value {
            Value::Number(n) => {
                self.check_number(&k, n.as_f64().unwrap_or(f64::NAN), value, path, errors)
            }
            Value::String(text) => check_length(
                (k.min_length, k.max_length),
                text.chars().count(),
                ("character", "characters"),
                path,
                errors,
            ),
            Value::Array(items) => {
                check_length(
                    (k.min_items, k.max_items),
                    items.len(),
                    ("item", "items"),
                    path,
                    errors,
                );
                if let Some(item_schema) = k.items {
                    for (i, item) in items.iter().enumerate() {
                        self.check(
                            item_schema,
                            item,
                            &mut Path::Index(path, i),
                            errors,
                            depth + 1,
                        );
                    }
                }
            }
            Value::Object(obj) => self.check_object(&k, obj, path, errors, depth),
            _ => {}
        }
        self.check_combinators(&k, value, path, errors, depth);
    }

    fn check_number(
        &self,
        k: &Keywords<'_>,
        n: f64,
        value: &Value,
        path: &Path<'_>,
        errors: &mut Vec<String>,
    ) {
        fn bound(keyword: Option<&Value>) -> Option<(f64, &Value)> {
            keyword.and_then(|b| Some((b.as_f64()?, b)))
        }
        if let Some((min, shown)) = bound(k.minimum) {
            if n < min {
                errors.push(format!("{} must be ≥ {shown}, got {value}", path.name()));
            }
        }
        if let Some((max, shown)) = bound(k.maximum) {
            if n > max {
                errors.push(format!("{} must be ≤ {shown}, got {value}", path.name()));
            }
        }
        if let Some((min, shown)) = bound(k.exclusive_minimum) {
            if n <= min {
                errors.push(format!("{} must be > {shown}, got {value}", path.name()));
            }
        }
        if let Some((max, shown)) = bound(k.exclusive_maximum) {
            if n >= max {
                errors.push(format!("{} must be < {shown}, got {value}", path.name()));
            }
        }
    }

    fn check_object(
        &self,
        k: &Keywords<'s>,
        obj: &Map<String, Value>,
        path: &mut Path<'_>,
        errors: &mut Vec<String>,
        depth: usize,
    ) {
        let props = k.properties.and_then(Value::as_object);
        if let Some(required) = k.required.and_then(Value::as_array) {
            for name in required.iter().filter_map(Value::as_str) {
                if !obj.contains_key(name) {
                    errors.push(format!("`{}` is required", Path::Key(path, name).render()));
                }
            }
        }
        for (key, child) in obj {
            if errors.len() >= MAX_ERRORS {
                break;
            }
            let mut child_path = Path::Key(path, key);
            match props.and_then(|p| p.get(key)) {
                Some(prop) => self.check(prop, child, &mut child_path, errors, depth + 1),
                None => match k.additional {
                    Some(Value::Bool(false)) => {
                        let allowed: Vec<&str> = props
                            .map(|p| p.keys().map(String::as_str).collect())
                            .unwrap_or_default();
                        let hint = match closest(key, allowed.iter().copied()) {
                            _ if allowed.is_empty() => "this tool takes no arguments".to_string(),
                            Some(near) => {
                                format!("did you mean `{near}`? allowed: {}", allowed.join(", "))
                            }
                            None => format!("allowed: {}", allowed.join(", ")),
                        };
                        errors.push(format!(
                            "unknown argument `{}`; {hint}",
                            child_path.render()
                        ));
                    }
                    Some(extra @ Value::Object(_)) => {
                        self.check(extra, child, &mut child_path, errors, depth + 1)
                    }
                    _ => {}
                },
            }
        }
    }

    fn check_combinators(
        &self,
        k: &Keywords<'s>,
        value: &Value,
        path: &mut Path<'_>,
        errors: &mut Vec<String>,
        depth: usize,
    ) {
        let branch_errors = |schema: &'s Value, path: &mut Path<'_>| {
            let mut found = Vec::new();
            self.check(schema, value, path, &mut found, depth + 1);
            found
        };
        if let Some(all) = k.all_of.and_then(Value::as_array) {
            for schema in all {
                self.check(schema, value, path, errors, depth + 1);
            }
        }
        if let Some(any) = k.any_of.and_then(Value::as_array) {
            let failures: Vec<Vec<String>> = any.iter().map(|b| branch_errors(b, path)).collect();
            if failures.iter().all(|f| !f.is_empty()) {
                errors.push(format!(
                    "{} matches none of the allowed forms: {}",
                    path.name(),
                    summarize(&failures)
                ));
            }
        }
        // `if` only selects which of `then` / `else` applies; its own failures are not errors.
        if let Some(condition) = k.condition {
            let branch = if branch_errors(condition, path).is_empty() {
                k.then
            } else {
                k.otherwise
            };
            if let Some(branch) = branch {
                self.check(branch, value, path, errors, depth + 1);
            }
        }
        if let Some(one) = k.one_of.and_then(Value::as_array) {
            let failures: Vec<Vec<String>> = one.iter().map(|b| branch_errors(b, path)).collect();
            match failures.iter().filter(|f| f.is_empty()).count() {
                1 => {}
                0 => errors.push(format!(
                    "{} matches none of the allowed forms: {}",
                    path.name(),
                    summarize(&failures)
                )),
                n => errors.push(format!(
                    "{} is ambiguous: it matches {n} of the allowed forms, it must match exactly one",
                    path.name()
                )),
            }
        }
    }
}

fn summarize(failures: &[Vec<String>]) -> String {
    failures
        .iter()
        .enumerate()
        .map(|(i, f)| format!("({}) {}", i + 1, f.first().map_or("", String::as_str)))
        .collect::<Vec<_>>()
        .join(" or ")
}

/// The candidate a misspelled `name` most likely meant: the same but for case, or within
/// a third of its length in edits (at least one, at most three). `None` when nothing is
/// that close, or `name` is too long to compare cheaply (it came from a client).
pub(crate) fn closest<'a>(
    name: &str,
    candidates: impl Iterator<Item = &'a str>,
) -> Option<&'a str> {
    const MAX_COMPARED: usize = 64;
    if name.is_empty() || name.len() > MAX_COMPARED {
        return None;
    }
    let limit = (name.chars().count() / 3).clamp(1, 3);
    candidates
        .filter(|c| c.len() <= MAX_COMPARED)
        .map(|c| {
            let distance = if c.eq_ignore_ascii_case(name) {
                0
            } else {
                edit_distance(name, c)
            };
            (distance, c)
        })
        .filter(|&(distance, _)| distance <= limit)
        .min_by_key(|&(distance, _)| distance)
        .map(|(_, c)| c)
}

/// Edits between `a` and `b`, over characters: insertions, deletions, substitutions and
/// swaps of two neighbours (the optimal string alignment distance: `ehco` is one edit from
/// `echo`, the commonest typo). Both are at most 64 characters here.
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let width = b.len() + 1;
    let mut d: Vec<usize> = vec![0; (a.len() + 1) * width];
    for i in 0..=a.len() {
        for j in 0..=b.len() {
            d[i * width + j] = if i == 0 || j == 0 {
                i + j
            } else {
                let cost = usize::from(a[i - 1] != b[j - 1]);
                let mut best = (d[(i - 1) * width + j] + 1)
                    .min(d[i * width + j - 1] + 1)
                    .min(d[(i - 1) * width + j - 1] + cost);
                if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                    best = best.min(d[(i - 2) * width + j - 2] + 1);
                }
                best
            };
        }
    }
    d[a.len() * width + b.len()]
}

fn check_length(
    (min, max): (Option<&Value>, Option<&Value>),
    len: usize,
    (one, many): (&str, &str),
    path: &Path<'_>,
    errors: &mut Vec<String>,
) {
    let unit = |n: u64| if n == 1 { one } else { many };
    if let Some(min) = min.and_then(Value::as_u64) {
        if (len as u64) < min {
            errors.push(format!(
                "{} must have at least {min} {}, got {len}",
                path.name(),
                unit(min)
            ));
        }
    }
    if let Some(max) = max.and_then(Value::as_u64) {
        if len as u64 > max {
            errors.push(format!(
                "{} must have at most {max} {}, got {len}",
                path.name(),
                unit(max)
            ));
        }
    }
}

fn type_matches(ty: &Value, value: &Value) -> bool {
    match ty {
        Value::String(name) => is_type(name, value),
        Value::Array(names) => names
            .iter()
            .filter_map(Value::as_str)
            .any(|n| is_type(n, value)),
        _ => true,
    }
}

fn is_type(name: &str, value: &Value) -> bool {
    match name {
        "object" => value.is_object(),
        "array" => value.is_array(),
        "string" => value.is_string(),
        "boolean" => value.is_boolean(),
        "null" => value.is_null(),
        "number" => value.is_number(),
        // 2020-12: any number with a zero fractional part is an integer (so 2.0 is).
        "integer" => match value {
            Value::Number(n) => {
                n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0)
            }
            _ => false,
        },
        _ => true,
    }
}

fn describe_type(ty: &Value) -> String {
    let article = |n: &str| match n {
        "integer" | "object" | "array" => format!("an {n}"),
        "null" => "null".to_string(),
        _ => format!("a {n}"),
    };
    match ty {
        Value::String(name) => article(name),
        Value::Array(names) => names
            .iter()
            .filter_map(Value::as_str)
            .map(article)
            .collect::<Vec<_>>()
            .join(" or "),
        _ => "valid".into(),
    }
}

fn describe_value(value: &Value) -> String {
    let shown = |v: &Value| {
        let text = v.to_string();
        if text.chars().count() > 40 {
            format!("{}…", text.chars().take(40).collect::<String>())
        } else {
            text
        }
    };
    match value {
        Value::Null => "null".into(),
        Value::Bool(_) => format!("the boolean {value}"),
        Value::Number(_) => format!("the number {value}"),
        Value::String(_) => format!("the string {}", shown(value)),
        Value::Array(_) => "an array".into(),
        Value::Object(_) => "an object".into(),
    }
}

/// JSON equality where `1` and `1.0` are the same number (JSON Schema's rule).
fn json_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x == y || x.as_f64() == y.as_f64(),
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn errors(schema: Value, mut value: Value) -> Vec<String> {
        check_schema(&schema).expect("test schema is usable");
        validate(&schema, &mut value, true)
            .err()
            .unwrap_or_default()
    }

    #[test]
    fn defaults_are_found_wherever_they_nest() {
        let plain = json!({"type": "object", "properties": {"text": {"type": "string"}}});
        assert!(!has_defaults(&plain));
        let nested = json!({"type": "object", "$defs": {"n": {"anyOf": [{"default": 3}]}}});
        assert!(has_defaults(&nested));
        let mut deep = json!({});
        for _ in 0..100 {
            deep = json!({ "items": deep });
        }
        assert!(
            has_defaults(&deep),
            "too deep to tell: filled in to be safe"
        );
    }

    #[test]
    fn misspellings_find_the_name_they_meant_and_nothing_far() {
        let tools = ["read_file", "list_directory", "search_text", "search_files"];
        let near = |name: &str| closest(name, tools.iter().copied());
        assert_eq!(near("read_fil"), Some("read_file"));
        assert_eq!(near("READ_FILE"), Some("read_file"));
        assert_eq!(near("list_dir"), None, "six edits away");
        assert_eq!(near("search_test"), Some("search_text"));
        assert_eq!(near("serch_files"), Some("search_files"));
        assert_eq!(near("zzzzzz"), None);
        assert_eq!(near(""), None);
        assert_eq!(near(&"read_file".repeat(100)), None, "too long to compare");
        assert_eq!(near("ab"), None, "a short name needs to be within one edit");
        assert_eq!(closest("pth", ["path", "paths"].into_iter()), Some("path"));
        for (a, b, d) in [
            ("", "", 0),
            ("a", "", 1),
            ("kitten", "sitting", 3),
            ("é", "e", 1),
        ] {
            assert_eq!(edit_distance(a, b), d, "{a} {b}");
            assert_eq!(edit_distance(b, a), d, "{b} {a}");
        }
    }

    #[test]
    fn messages_name_the_argument_and_the_fix() {
        let schema = json!({
            "type": "object",
            "properties": {
                "pattern": {"type": "string", "minLength": 1},
                "limit": {"type": "integer", "minimum": 1, "maximum": 1000},
                "mode": {"enum": ["fast", "full"]},
                "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 2},
            },
            "required": ["pattern"],
            "additionalProperties": false
        });
        let cases: Vec<(Value, Vec<&str>)> = vec![
            (json!({"pattern": "a"}), vec![]),
            (json!({}), vec!["`pattern` is required"]),
            (
                json!({"pattern": "a", "limit": 5000}),
                vec!["`limit` must be ≤ 1000, got 5000"],
            ),
            (
                json!({"pattern": "a", "limit": 0}),
                vec!["`limit` must be ≥ 1, got 0"],
            ),
            (
                json!({"pattern": "a", "limit": 2.5}),
                vec!["`limit` must be an integer, got the number 2.5"],
            ),
            (json!({"pattern": "a", "limit": 2.0}), vec![]),
            (
                json!({"pattern": 7}),
                vec!["`pattern` must be a string, got the number 7"],
            ),
            (
                json!({"pattern": ""}),
                vec!["`pattern` must have at least 1 character, got 0"],
            ),
            (
                json!({"pattern": "a", "mode": "slow"}),
                vec![r#"`mode` must be one of "fast", "full", got "slow""#],
            ),
            (
                json!({"pattern": "a", "tags": ["x", 1]}),
                vec!["`tags[1]` must be a string, got the number 1"],
            ),
            (
                json!({"pattern": "a", "tags": ["x", "y", "z"]}),
                vec!["`tags` must have at most 2 items, got 3"],
            ),
            (
                json!({"pattern": "a", "colour": "red"}),
                vec!["unknown argument `colour`; allowed: limit, mode, pattern, tags"],
            ),
            (
                json!({"limit": "9"}),
                vec![
                    "`pattern` is required",
                    "`limit` must be an integer, got the string \"9\"",
                ],
            ),
        ];
        for (value, expected) in cases {
            assert_eq!(
                errors(schema.clone(), value.clone()),
                expected,
                "value: {value}"
            );
        }
    }

    #[test]
    fn defaults_are_filled_in_before_validation() {
        let schema = json!({
            "type": "object",
            "properties": {
                "directory": {"type": "string", "default": "."},
                "depth": {"type": "integer", "default": 1},
                "nested": {"type": "object", "properties": {"flag": {"type": "boolean", "default": true}}}
            }
        });
        let mut value = json!({"nested": {}});
        validate(&schema, &mut value, true).expect("valid");
        assert_eq!(
            value,
            json!({"directory": ".", "depth": 1, "nested": {"flag": true}})
        );
    }

    #[test]
    fn combinators() {
        let schema = json!({
            "type": "object",
            "properties": {
                "id": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
                "shape": {"oneOf": [
                    {"type": "object", "properties": {"r": {"type": "number"}}, "required": ["r"]},
                    {"type": "object", "properties": {"w": {"type": "number"}}, "required": ["w"]}
                ]},
                "both": {"allOf": [{"type": "integer"}, {"minimum": 3}]},
                "c": {"const": 1}
            }
        });
        assert!(errors(
            schema.clone(),
            json!({"id": "x", "shape": {"r": 1}, "both": 3, "c": 1.0})
        )
        .is_empty());
        assert_eq!(
            errors(schema.clone(), json!({"id": true})),
            ["`id` matches none of the allowed forms: (1) `id` must be a string, got the boolean true or (2) `id` must be an integer, got the boolean true"]
        );
        assert_eq!(
            errors(schema.clone(), json!({"shape": {"r": 1, "w": 2}})),
            ["`shape` is ambiguous: it matches 2 of the allowed forms, it must match exactly one"]
        );
        assert_eq!(
            errors(schema.clone(), json!({"both": 2})),
            ["`both` must be ≥ 3, got 2"]
        );
        assert_eq!(errors(schema, json!({"c": 2})), ["`c` must be 1, got 2"]);
    }

    #[test]
    fn if_selects_then_or_else() {
        let schema = json!({
            "type": "object",
            "properties": {
                "contactMethod": {"enum": ["phone", "email"]},
                "phone": {"type": "string"},
                "email": {"type": "string"}
            },
            "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
            "then": {"required": ["phone"]},
            "else": {"required": ["email"]}
        });
        assert!(errors(
            schema.clone(),
            json!({"contactMethod": "phone", "phone": "1"})
        )
        .is_empty());
        assert!(errors(schema.clone(), json!({"email": "a@b"})).is_empty());
        assert_eq!(
            errors(
                schema.clone(),
                json!({"contactMethod": "phone", "email": "a@b"})
            ),
            ["`phone` is required"]
        );
        assert_eq!(
            errors(schema, json!({"contactMethod": "email"})),
            ["`email` is required"]
        );
    }

    #[test]
    fn local_refs_are_followed() {
        let schema = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "$defs": {"address": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}},
            "properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"}},
            "additionalProperties": false
        });
        assert!(errors(schema.clone(), json!({"address": {"city": "Oslo"}})).is_empty());
        assert_eq!(
            errors(schema, json!({"address": {}})),
            ["`address.city` is required"]
        );
    }

    #[test]
    fn unusable_schemas_are_refused_at_registration() {
        for (schema, message) in [
            (json!({"type": "string"}), "root must have"),
            (json!([]), "must be a JSON object"),
            (
                json!({"type": "object", "$schema": "http://example.com/dialect"}),
                "unsupported $schema",
            ),
            (
                json!({"type": "object", "properties": {"a": {"$ref": "https://example.com/s.json"}}}),
                "does not point inside",
            ),
            (
                json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/missing"}}}),
                "does not point inside",
            ),
        ] {
            let err = check_schema(&schema).expect_err("refused");
            assert!(err.contains(message), "{err}");
        }
    }

    #[test]
    fn self_referencing_schemas_terminate() {
        let schema = json!({
            "type": "object",
            "$defs": {"node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/node"}}}},
            "properties": {"list": {"$ref": "#/$defs/node"}}
        });
        let mut deep = json!({});
        for _ in 0..200 {
            deep = json!({"next": deep});
        }
        let found = errors(schema, json!({"list": deep}));
        assert!(
            found.iter().any(|e| e.contains("nests too deeply")),
            "{found:?}"
        );
    }

    #[test]
    fn reports_at_most_ten_problems() {
        let schema = json!({"type": "object", "additionalProperties": false});
        let mut value = Value::Object((0..50).map(|i| (format!("k{i}"), json!(i))).collect());
        let found = validate(&schema, &mut value, true).expect_err("invalid");
        assert_eq!(found.len(), MAX_ERRORS);
        assert!(found[0].ends_with("this tool takes no arguments"));
    }
}
