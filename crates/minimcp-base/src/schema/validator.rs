//! Checking a value against a schema, with messages that name the argument and the fix.

use serde_json::{Map, Value};

use super::closest::closest;

/// At most this many problems are reported for one value.
pub(super) const MAX_ERRORS: usize = 10;
/// `$ref` chains and nesting deeper than this are refused (cycles, hostile schemas).
pub(super) const MAX_DEPTH: usize = 64;

/// Resolves a local JSON pointer reference such as `#/$defs/address`. A `$ref` is a URI, so
/// its fragment is percent-decoded first (`#/$defs/x%20y` names `x y`, RFC 3986 section 2.1);
/// then `Value::pointer` undoes the `~1` and `~0` escapes (RFC 6901 section 6), once each.
pub(super) fn resolve<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let fragment = reference.strip_prefix('#')?;
    let pointer = if fragment.contains('%') {
        root.pointer(&percent_decode(fragment)?)
    } else {
        root.pointer(fragment)
    };
    pointer.filter(|v| v.is_object() || v.is_boolean())
}

/// `%XX` escapes to bytes, which must then be UTF-8 (else `None`). A `%` not followed by two
/// hex digits stays as it is, as Python's `urllib.parse.unquote` (behind `jsonschema`) keeps it.
fn percent_decode(text: &str) -> Option<String> {
    let mut bytes = Vec::with_capacity(text.len());
    let mut rest = text.as_bytes();
    while let Some((&byte, tail)) = rest.split_first() {
        let hex = tail.get(..2).and_then(|h| std::str::from_utf8(h).ok());
        match hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
            Some(decoded) if byte == b'%' && hex.is_some_and(|h| !h.starts_with('+')) => {
                bytes.push(decoded);
                rest = &tail[2..];
            }
            _ => {
                bytes.push(byte);
                rest = tail;
            }
        }
    }
    String::from_utf8(bytes).ok()
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
enum Path<'a> {
    Root,
    Key(&'a Path<'a>, &'a str),
    Index(&'a Path<'a>, usize),
}

impl Path<'_> {
    fn render(&self) -> String {
        match self {
            Path::Root => String::new(),
            Path::Key(Path::Root, key) => (*key).to_string(),
            Path::Key(parent, key) => format!("{}.{key}", parent.render()),
            Path::Index(parent, i) => format!("{}[{i}]", parent.render()),
        }
    }

    fn name(&self) -> String {
        match self {
            Path::Root => "the arguments".into(),
            _ => format!("`{}`", self.render()),
        }
    }
}

/// Checks `value` against `schema` without changing it (used for structured tool output).
/// Returns every problem found (up to `MAX_ERRORS`), each naming the argument and the fix.
pub fn validate_ref(schema: &Value, value: &Value) -> Result<(), Vec<String>> {
    let mut validator = Validator {
        root: schema,
        errors: Vec::new(),
    };
    validator.check(schema, value, &Path::Root, 0);
    validator.errors.truncate(MAX_ERRORS);
    if validator.errors.is_empty() {
        Ok(())
    } else {
        Err(validator.errors)
    }
}

/// Walks a value and its schema together, collecting what is wrong with the value.
struct Validator<'s> {
    root: &'s Value,
    errors: Vec<String>,
}

impl<'s> Validator<'s> {
    /// A problem with the value at `path`, said after its name.
    fn fail(&mut self, path: &Path<'_>, problem: impl std::fmt::Display) {
        self.errors.push(format!("{} {problem}", path.name()));
    }

    fn check(&mut self, schema: &'s Value, value: &Value, path: &Path<'_>, depth: usize) {
        if self.errors.len() >= MAX_ERRORS {
            return;
        }
        let schema = match schema {
            Value::Bool(false) => return self.fail(path, "is not allowed"),
            Value::Object(map) => map,
            _ => return,
        };
        if depth > MAX_DEPTH {
            return self.fail(path, "nests too deeply");
        }
        // One pass over the members, not a map lookup per keyword: twenty lookups (string
        // comparisons each) were most of the validation of a small call.
        let start = self.errors.len();
        let (mut properties, mut required, mut additional) = (None, None, None);
        for (keyword, arg) in schema {
            match keyword.as_str() {
                // A value of the wrong type gets that one message, not one per keyword that
                // cannot apply (`type` sorts after the others, so little work is wasted).
                "type" if !type_matches(arg, value) => {
                    self.errors.truncate(start);
                    let expected: Vec<String> = type_names(arg).map(article).collect();
                    let (expected, got) = (expected.join(" or "), describe_value(value));
                    return self.fail(path, format_args!("must be {expected}, got {got}"));
                }
                "properties" => properties = arg.as_object(),
                "required" => required = arg.as_array(),
                "additionalProperties" => additional = Some(arg),
                "$ref" => {
                    if let Some(target) = arg.as_str().and_then(|r| resolve(self.root, r)) {
                        self.check(target, value, path, depth + 1);
                    }
                }
                "items" => {
                    for (i, item) in value.as_array().into_iter().flatten().enumerate() {
                        self.check(arg, item, &Path::Index(path, i), depth + 1);
                    }
                }
                "allOf" => {
                    for branch in arg.as_array().into_iter().flatten() {
                        self.check(branch, value, path, depth + 1);
                    }
                }
                "anyOf" | "oneOf" => self.check_forms(keyword == "oneOf", arg, value, path, depth),
                "not" => {
                    if self.errors_of(arg, value, path, depth).is_empty() {
                        self.fail(path, "is not allowed: it matches the schema under `not`");
                    }
                }
                // `if` only picks `then` or `else`; its own failures are not errors.
                "if" => {
                    let passed = self.errors_of(arg, value, path, depth).is_empty();
                    if let Some(branch) = schema.get(if passed { "then" } else { "else" }) {
                        self.check(branch, value, path, depth + 1);
                    }
                }
                _ => {
                    if let Some(problem) = assertion(keyword, arg, value) {
                        self.fail(path, problem);
                    }
                }
            }
        }
        if let Value::Object(obj) = value {
            self.check_object(properties, required, additional, obj, path, depth);
        }
    }

    /// `anyOf` (at least one of the `forms` must match) or `oneOf` (exactly one).
    fn check_forms(
        &mut self,
        one: bool,
        forms: &'s Value,
        value: &Value,
        path: &Path<'_>,
        depth: usize,
    ) {
        let forms = forms.as_array().into_iter().flatten();
        let failed: Vec<Vec<String>> = forms
            .map(|f| self.errors_of(f, value, path, depth))
            .collect();
        let passed = failed.iter().filter(|f| f.is_empty()).count();
        if passed == 0 {
            // Every form failed, so each has a first problem to show.
            let firsts: Vec<String> = failed
                .iter()
                .zip(1..)
                .map(|(f, i)| format!("({i}) {}", f[0]))
                .collect();
            let problem = format!("matches none of the allowed forms: {}", firsts.join(" or "));
            self.fail(path, problem);
        } else if one && passed > 1 {
            let problem = "of the allowed forms, it must match exactly one";
            self.fail(
                path,
                format_args!("is ambiguous: it matches {passed} {problem}"),
            );
        }
    }

    /// The problems `value` has against `schema`, a branch of the one at `depth`.
    fn errors_of(
        &mut self,
        schema: &'s Value,
        value: &Value,
        path: &Path<'_>,
        depth: usize,
    ) -> Vec<String> {
        let outer = std::mem::take(&mut self.errors);
        self.check(schema, value, path, depth + 1);
        std::mem::replace(&mut self.errors, outer)
    }

    /// `properties`, `required` and `additionalProperties`.
    fn check_object(
        &mut self,
        props: Option<&'s Map<String, Value>>,
        required: Option<&'s Vec<Value>>,
        additional: Option<&'s Value>,
        obj: &Map<String, Value>,
        path: &Path<'_>,
        depth: usize,
    ) {
        for name in required.into_iter().flatten().filter_map(Value::as_str) {
            if !obj.contains_key(name) {
                self.fail(&Path::Key(path, name), "is required");
            }
        }
        for (key, child) in obj {
            if self.errors.len() >= MAX_ERRORS {
                break;
            }
            let child_path = Path::Key(path, key);
            match (props.and_then(|p| p.get(key)), additional) {
                (Some(prop), _) => self.check(prop, child, &child_path, depth + 1),
                (None, Some(Value::Bool(false))) => {
                    self.errors.push(unknown_argument(&child_path, key, props))
                }
                (None, Some(extra)) => self.check(extra, child, &child_path, depth + 1),
                (None, None) => {}
            }
        }
    }
}

/// What is wrong with `value` by a keyword that judges it alone, without subschemas.
fn assertion(keyword: &str, arg: &Value, value: &Value) -> Option<String> {
    match (keyword, value) {
        ("enum", _) => {
            let allowed = arg.as_array()?;
            if allowed.iter().any(|a| json_equal(a, value)) {
                return None;
            }
            let list: Vec<String> = allowed.iter().map(Value::to_string).collect();
            Some(format!("must be one of {}, got {value}", list.join(", ")))
        }
        ("const", _) => (!json_equal(arg, value)).then(|| format!("must be {arg}, got {value}")),
        ("minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum", _) => {
            let (n, b) = (value.as_f64()?, arg.as_f64()?);
            let (holds, sign) = match keyword {
                "minimum" => (n >= b, "≥"),
                "maximum" => (n <= b, "≤"),
                "exclusiveMinimum" => (n > b, ">"),
                _ => (n < b, "<"),
            };
            (!holds).then(|| format!("must be {sign} {arg}, got {value}"))
        }
        // A string's length is in characters.
        ("minLength" | "maxLength", Value::String(text)) => {
            length(keyword, arg, text.chars().count(), "character")
        }
        ("minItems" | "maxItems", Value::Array(items)) => length(keyword, arg, items.len(), "item"),
        _ => None,
    }
}

/// `minLength`/`minItems` or `maxLength`/`maxItems` against a length of `len` `unit`s.
fn length(keyword: &str, bound: &Value, len: usize, unit: &str) -> Option<String> {
    let (bound, len) = (bound.as_u64()?, len as u64);
    let (word, fails) = if keyword.starts_with("min") {
        ("least", len < bound)
    } else {
        ("most", len > bound)
    };
    let plural = if bound == 1 { "" } else { "s" };
    fails.then(|| format!("must have at {word} {bound} {unit}{plural}, got {len}"))
}

/// The message for an argument `key` the schema does not allow, with those it does.
fn unknown_argument(path: &Path<'_>, key: &str, props: Option<&Map<String, Value>>) -> String {
    let allowed: Vec<&str> = props
        .into_iter()
        .flat_map(Map::keys)
        .map(String::as_str)
        .collect();
    let hint = match closest(key, allowed.iter().copied()) {
        _ if allowed.is_empty() => "this tool takes no arguments".to_string(),
        Some(near) => format!("did you mean `{near}`? allowed: {}", allowed.join(", ")),
        None => format!("allowed: {}", allowed.join(", ")),
    };
    format!("unknown argument {}; {hint}", path.name())
}

/// The names in `type`: one string or a list of them.
fn type_names(ty: &Value) -> impl Iterator<Item = &str> {
    let names = ty
        .as_array()
        .map_or(std::slice::from_ref(ty), Vec::as_slice);
    names.iter().filter_map(Value::as_str)
}

fn type_matches(ty: &Value, value: &Value) -> bool {
    let is = |name: &str| match name {
        "object" => value.is_object(),
        "array" => value.is_array(),
        "string" => value.is_string(),
        "boolean" => value.is_boolean(),
        "null" => value.is_null(),
        "number" => value.is_number(),
        // 2020-12: any number with a zero fractional part is an integer (so 2.0 is).
        "integer" => {
            value.is_i64() || value.is_u64() || value.as_f64().is_some_and(|f| f.fract() == 0.0)
        }
        _ => true,
    };
    !(ty.is_string() || ty.is_array()) || type_names(ty).any(is)
}

fn article(name: &str) -> String {
    match name {
        "integer" | "object" | "array" => format!("an {name}"),
        "null" => "null".to_string(),
        _ => format!("a {name}"),
    }
}

fn describe_value(value: &Value) -> String {
    match value {
        Value::Null => "null".into(),
        Value::Bool(_) => format!("the boolean {value}"),
        Value::Number(_) => format!("the number {value}"),
        Value::Array(_) => "an array".into(),
        Value::Object(_) => "an object".into(),
        Value::String(_) => {
            let mut text = value.to_string();
            if let Some((cut, _)) = text.char_indices().nth(40) {
                text.replace_range(cut.., "…");
            }
            format!("the string {text}")
        }
    }
}

/// JSON equality where `1` and `1.0` are the same number (JSON Schema's rule), at any depth:
/// `{"a": 2}` equals `{"a": 2.0}` too.
fn json_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x == y || x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| json_equal(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_equal(v, w)))
        }
        _ => a == b,
    }
}
