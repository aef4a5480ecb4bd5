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
            "c": {"const": 1},
            "e": {"type": "string", "enum": ["x"]},
            "n": {"type": "string", "not": {"enum": ["root", "admin"]}}
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
    assert_eq!(
        errors(schema.clone(), json!({"c": 2})),
        ["`c` must be 1, got 2"]
    );
    assert!(errors(schema.clone(), json!({"n": "guest"})).is_empty());
    assert_eq!(
        errors(schema.clone(), json!({"n": "root"})),
        ["`n` is not allowed: it matches the schema under `not`"]
    );
    assert_eq!(
        errors(schema, json!({"e": 3})),
        ["`e` must be a string, got the number 3"],
        "the wrong type is the one problem, not also every keyword checked before `type`"
    );
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
    // A `/` in a name is `~1` in a pointer: unescaped once, by `Value::pointer`.
    let slashed = json!({
        "type": "object",
        "$defs": {"a/b": {"type": "string"}},
        "properties": {"x": {"$ref": "#/$defs/a~1b"}}
    });
    assert_eq!(
        errors(slashed, json!({"x": 1})),
        ["`x` must be a string, got the number 1"]
    );
    // A `$ref` is a URI: its fragment is percent-decoded once (`%25` is `%`, `%20` a space,
    // `%C3%A9` is `é`), before the pointer's own `~` escapes.
    let encoded = json!({
        "type": "object",
        "$defs": {"x y": {"type": "string"}, "100%": {"type": "integer"}, "é": {"type": "null"},
                  "a%2Fb": {"type": "boolean"}},
        "properties": {
            "s": {"$ref": "#/$defs/x%20y"},
            "p": {"$ref": "#/$defs/100%25"},
            "e": {"$ref": "#/$defs/%C3%A9"},
            "t": {"$ref": "#/$defs/a%252Fb"}
        }
    });
    assert_eq!(
        errors(encoded, json!({"s": 1, "p": "1", "e": 1, "t": 1})),
        [
            "`e` must be null, got the number 1",
            "`p` must be an integer, got the string \"1\"",
            "`s` must be a string, got the number 1",
            "`t` must be a boolean, got the number 1"
        ]
    );
    // A `%` that starts no escape is itself, as `jsonschema` reads it.
    let raw = json!({"type": "object", "$defs": {"1%z": {"type": "string"}},
                     "properties": {"a": {"$ref": "#/$defs/1%z"}}});
    assert_eq!(
        errors(raw, json!({"a": 1})),
        ["`a` must be a string, got the number 1"]
    );
    let nowhere = json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/%FF"}}});
    assert!(
        check_schema(&nowhere).is_err(),
        "not UTF-8 once decoded: points nowhere"
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
    assert_eq!(found.len(), validator::MAX_ERRORS);
    assert!(found[0].ends_with("this tool takes no arguments"));
}

#[test]
fn numbers_inside_enum_and_const_values_compare_by_value() {
    let schema = json!({
        "type": "object",
        "properties": {
            "c": {"const": {"a": [2]}},
            "e": {"enum": [[1, {"b": 0}], "x"]}
        }
    });
    assert!(errors(
        schema.clone(),
        json!({"c": {"a": [2.0]}, "e": [1.0, {"b": 0.0}]})
    )
    .is_empty());
    assert_eq!(errors(schema.clone(), json!({"c": {"a": [2.5]}})).len(), 1);
    assert_eq!(errors(schema, json!({"e": [1, {"b": 0}, 2]})).len(), 1);
}
