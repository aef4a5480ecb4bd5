//! Checking a value against a schema, with messages that name the argument and the fix.

use serde_json::{Map, Value};

use super::closest::closest;

/// At most this many problems are collected for one value.
pub(super) const MAX_ERRORS: usize = 10;
/// `$ref` chains and nesting deeper than this are refused (cycles, hostile schemas).
pub(super) const MAX_DEPTH: usize = 64;

/// Resolves a local JSON pointer reference such as `#/$defs/address`.
pub(super) fn resolve<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let pointer = reference.strip_prefix('#')?;
    let pointer = pointer.replace("~1", "/").replace("~0", "~");
    root.pointer(&pointer)
        .filter(|v| v.is_object() || v.is_boolean())
}

/// Follows `$ref`s until a schema without one.
pub(super) fn follow<'a>(root: &'a Value, schema: &'a Value, depth: usize) -> Option<&'a Value> {
    match schema.get("$ref").and_then(Value::as_str) {
        None => Some(schema),
        Some(_) if depth > MAX_DEPTH => None,
        Some(reference) => follow(root, resolve(root, reference)?, depth + 1),
    }
}

/// Where in the arguments a problem is, for messages like "`address.city`" or "`paths[2]`".
pub(super) enum Path<'a> {
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

pub(super) struct Validator<'s> {
    pub(super) root: &'s Value,
}

impl<'s> Validator<'s> {
    pub(super) fn check(
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
        let bounds = [
            (k.minimum, "≥", (|n, b| n >= b) as fn(f64, f64) -> bool),
            (k.maximum, "≤", |n, b| n <= b),
            (k.exclusive_minimum, ">", |n, b| n > b),
            (k.exclusive_maximum, "<", |n, b| n < b),
        ];
        for (bound, sign, holds) in bounds {
            if let Some(b) = bound.filter(|b| b.as_f64().is_some_and(|b| !holds(n, b))) {
                errors.push(format!("{} must be {sign} {b}, got {value}", path.name()));
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
