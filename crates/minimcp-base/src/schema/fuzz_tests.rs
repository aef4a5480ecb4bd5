//! Differential fuzzing of the validator's verdicts against Python's `jsonschema`
//! (Draft202012Validator), an implementation that shares no code with this one. Random
//! schemas within the supported keywords (see the module docs in `mod.rs`), random values
//! biased towards near-valid (samples of the schema, then mutated); the verdicts (valid or
//! not, with `fill` off so defaults change nothing) must agree. `cargo test` runs a fixed
//! seed and 2,000 cases; `.ci/run` a random seed (printed) and 50,000
//! (`MINIMCP_SCHEMA_FUZZ_SEED`, `MINIMCP_SCHEMA_FUZZ_CASES`). The oracle is found on
//! `MINIMCP_JSONSCHEMA_PATH` (a `pip install --target` directory) or in python3's own path;
//! without it the test says SKIPPED and passes.
//!
//! Not generated, on purpose:
//! - keywords the validator documents as annotations it does not enforce (`mod.rs`: "Every
//!   other keyword ... is an annotation here"): `pattern`, `format`, `multipleOf`,
//!   `uniqueItems`, `prefixItems`, `contains`, `minProperties`, `propertyNames`,
//!   `dependentRequired`, ...; `jsonschema` asserts them, so every use would differ;
//! - the draft-07 array form of `items` (2020-12 spells it `prefixItems`);
//! - integers beyond 2^53 (serde_json without `arbitrary_precision` reads them as floats).
//!
//! Integer-valued floats (`2.0`) are generated: 2020-12 counts them as integers and equal to
//! `2` inside `enum` and `const` too, and so does the validator.

use std::io::Write;
use std::process::{Command, Stdio};

use serde_json::{json, Map, Value};

use super::{check_schema, validate};

/// splitmix64, as in tests/common/rng.rs: a printed seed replays a failure exactly.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// `$defs` names that need escaping in a JSON pointer (`~`, `/`) or a URI fragment (`%`,
/// space, non-ASCII), and one that looks already percent-encoded (decoded once, not twice).
const DEF_NAMES: [&str; 11] = [
    "plain", "a/b", "t~1x", "~", "100%", "x y", "é", "日本", "a%2Fb", "~0/~1", "1%z",
];
const PROP_NAMES: [&str; 6] = ["a", "b", "n", "x y", "é", "c"];
const TYPES: [&str; 7] = [
    "string", "number", "integer", "boolean", "null", "object", "array",
];

/// The URI-fragment reference to `$defs/name`: JSON-pointer escapes, then percent-encoding
/// of what a fragment cannot hold raw (RFC 6901 section 6, RFC 3986 section 3.5).
fn reference(name: &str) -> String {
    let pointer = name.replace('~', "~0").replace('/', "~1");
    let mut out = String::from("#/$defs/");
    for byte in pointer.bytes() {
        match byte {
            b'%' | b' ' | 0x80.. => out.push_str(&format!("%{byte:02X}")),
            _ => out.push(byte as char),
        }
    }
    out
}

fn number(rng: &mut Rng) -> Value {
    match rng.below(4) {
        0 => json!(rng.below(7) as f64 - 3.0), // integer-valued floats: 2.0 is an integer
        1 => json!(rng.below(14) as f64 / 2.0 - 3.0),
        _ => json!(rng.below(9) as i64 - 4),
    }
}

fn scalar(rng: &mut Rng) -> Value {
    match rng.below(8) {
        0 => Value::Null,
        1 => json!(rng.one_in(2)),
        2 | 3 => number(rng),
        4 => json!([number(rng)]),
        5 => json!({"a": number(rng)}),
        _ => json!(*rng.pick(&["", "a", "ab", "é", "日本語", "abcd", "1"])),
    }
}

/// A schema within the supported keywords; `defs` is how many `$defs` it may `$ref` (only
/// earlier ones from inside `$defs`, so there are no cycles).
fn gen_schema(rng: &mut Rng, depth: usize, defs: usize) -> Value {
    gen_typed(rng, depth, defs, None)
}

/// [`gen_schema`], of type `forced` if given (the root is always an object).
fn gen_typed(rng: &mut Rng, depth: usize, defs: usize, forced: Option<&'static str>) -> Value {
    if forced.is_none() && rng.one_in(14) {
        return json!(!rng.one_in(3));
    }
    let mut s = Map::new();
    if defs > 0 && forced.is_none() && rng.one_in(5) {
        s.insert("$ref".into(), json!(reference(DEF_NAMES[rng.below(defs)])));
        if !rng.one_in(3) {
            return Value::Object(s);
        }
    }
    let ty = if let Some(forced) = forced {
        Some(vec![forced])
    } else if rng.one_in(8) {
        None
    } else if rng.one_in(5) {
        Some(vec![*rng.pick(&TYPES), *rng.pick(&TYPES)])
    } else {
        Some(vec![*rng.pick(&TYPES)])
    };
    if let Some(ty) = &ty {
        let v = if ty.len() == 1 {
            json!(ty[0])
        } else {
            json!(ty)
        };
        s.insert("type".into(), v);
    }
    let has = |t: &str| ty.as_ref().is_none_or(|ty| ty.contains(&t));
    if has("number") || has("integer") {
        // One or two bounds: more would mostly leave no valid number to find.
        let keys = ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"];
        for _ in 0..rng.below(3) {
            s.insert(rng.pick(&keys).to_string(), number(rng));
        }
    }
    if has("string") {
        for key in ["minLength", "maxLength"] {
            if rng.one_in(3) {
                s.insert(key.into(), json!(rng.below(4)));
            }
        }
    }
    if has("array") {
        if depth > 0 && !rng.one_in(3) {
            s.insert("items".into(), gen_schema(rng, depth - 1, defs));
        }
        for key in ["minItems", "maxItems"] {
            if rng.one_in(3) {
                s.insert(key.into(), json!(rng.below(4)));
            }
        }
    }
    if has("object") {
        let mut props = Map::new();
        for _ in 0..rng.below(if depth > 0 { 4 } else { 1 }) {
            props.insert(
                rng.pick(&PROP_NAMES).to_string(),
                gen_schema(rng, depth.saturating_sub(1), defs),
            );
        }
        if !props.is_empty() || rng.one_in(3) {
            s.insert("properties".into(), Value::Object(props));
        }
        if rng.one_in(2) {
            let required: Vec<&str> = (0..rng.below(3)).map(|_| *rng.pick(&PROP_NAMES)).collect();
            let mut unique = required.clone();
            unique.sort();
            unique.dedup();
            s.insert("required".into(), json!(unique));
        }
        match rng.below(4) {
            0 => drop(s.insert("additionalProperties".into(), json!(false))),
            1 if depth > 0 => drop(s.insert(
                "additionalProperties".into(),
                gen_schema(rng, depth - 1, defs),
            )),
            _ => {}
        }
    }
    if forced.is_some() {
        // The root: an `enum` or `const` of it would rarely be an object.
    } else if rng.one_in(8) {
        let options: Vec<Value> = (0..1 + rng.below(3)).map(|_| scalar(rng)).collect();
        s.insert("enum".into(), json!(options));
    } else if rng.one_in(12) {
        s.insert("const".into(), scalar(rng));
    }
    if depth > 0 {
        for key in ["anyOf", "oneOf", "allOf"] {
            if rng.one_in(10) {
                let branches: Vec<Value> = (0..1 + rng.below(3))
                    .map(|_| gen_schema(rng, depth - 1, defs))
                    .collect();
                s.insert(key.into(), json!(branches));
            }
        }
        if rng.one_in(10) {
            s.insert("not".into(), gen_schema(rng, depth - 1, defs));
        }
        if rng.one_in(8) {
            s.insert("if".into(), gen_schema(rng, depth - 1, defs));
            for key in ["then", "else"] {
                if !rng.one_in(4) {
                    s.insert(key.into(), gen_schema(rng, depth - 1, defs));
                }
            }
        }
    }
    Value::Object(s)
}

fn gen_root(rng: &mut Rng) -> Value {
    // Definition k may refer to definitions 0..k only: no cycles.
    let count = if rng.one_in(3) {
        0
    } else {
        1 + rng.below(DEF_NAMES.len())
    };
    let mut defs = Map::new();
    for (k, name) in DEF_NAMES.iter().enumerate().take(count) {
        defs.insert(name.to_string(), gen_schema(rng, 2, k));
    }
    let depth = 1 + rng.below(3);
    let root = gen_typed(rng, depth, count, Some("object"));
    let mut root = match root {
        Value::Object(map) => map,
        _ => Map::new(),
    };
    root.insert("type".into(), json!("object"));
    if count > 0 {
        root.insert("$defs".into(), Value::Object(defs));
    }
    Value::Object(root)
}

/// A value the schema probably accepts, built from its keywords.
fn sample(rng: &mut Rng, root: &Value, schema: &Value, depth: usize) -> Value {
    let Some(map) = schema.as_object() else {
        return scalar(rng);
    };
    if depth > 6 {
        return scalar(rng);
    }
    if let Some(target) = map.get("$ref").and_then(Value::as_str) {
        let name = DEF_NAMES.iter().find(|n| reference(n) == target);
        if let Some(def) = name.and_then(|n| root["$defs"].get(*n)) {
            if rng.one_in(2) || map.len() == 1 {
                return sample(rng, root, def, depth + 1);
            }
        }
    }
    if let Some(options) = map.get("enum").and_then(Value::as_array) {
        return rng.pick(options).clone();
    }
    if let Some(value) = map.get("const") {
        return value.clone();
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(branches) = map.get(key).and_then(Value::as_array) {
            // Not at the root, whose value is best an object whatever the branches say.
            if depth > 0 && rng.one_in(2) {
                let branch = branches[rng.below(branches.len())].clone();
                return sample(rng, root, &branch, depth + 1);
            }
        }
    }
    let ty = match map.get("type") {
        Some(Value::String(t)) => t.clone(),
        Some(Value::Array(ts)) => rng.pick(ts).as_str().unwrap_or("null").to_string(),
        _ => rng.pick(&TYPES).to_string(),
    };
    let bound = |k: &str| map.get(k).and_then(Value::as_f64);
    match ty.as_str() {
        "null" => Value::Null,
        "boolean" => json!(rng.one_in(2)),
        "number" | "integer" => {
            // On a bound or half a step either side: where an off-by-one comparison shows.
            let bounds: Vec<f64> = ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"]
                .iter()
                .filter_map(|k| bound(k))
                .collect();
            if bounds.is_empty() || rng.one_in(5) {
                return number(rng);
            }
            let n = rng.pick(&bounds) + rng.pick(&[0.0, 0.0, 0.0, 0.5, -0.5, 1.0, -1.0]);
            if n.fract() == 0.0 && (ty == "integer" || rng.one_in(2)) {
                json!(n as i64)
            } else {
                json!(n)
            }
        }
        "string" => {
            let len = near_bound(rng, map, "minLength", "maxLength");
            json!(rng.pick(&["a", "é", "日"]).repeat(len))
        }
        "array" => {
            let len = near_bound(rng, map, "minItems", "maxItems");
            let items = map.get("items").cloned().unwrap_or(json!({}));
            json!((0..len)
                .map(|_| sample(rng, root, &items, depth + 1))
                .collect::<Vec<_>>())
        }
        _ => {
            let mut obj = Map::new();
            let props = map.get("properties").and_then(Value::as_object);
            let required = map.get("required").and_then(Value::as_array);
            let is_required = |name: &str| required.is_some_and(|r| r.contains(&json!(name)));
            for (name, prop) in props.into_iter().flatten() {
                if is_required(name) || !rng.one_in(4) {
                    obj.insert(name.clone(), sample(rng, root, prop, depth + 1));
                }
            }
            for name in map
                .get("required")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let name = name.as_str().unwrap_or_default();
                if !obj.contains_key(name) {
                    obj.insert(name.to_string(), scalar(rng));
                }
            }
            Value::Object(obj)
        }
    }
}

/// A length on one of the two bounds or one either side, or a small one if neither is there.
fn near_bound(rng: &mut Rng, map: &Map<String, Value>, min: &str, max: &str) -> usize {
    let bounds: Vec<u64> = [min, max]
        .iter()
        .filter_map(|k| map.get(*k).and_then(Value::as_u64))
        .collect();
    if bounds.is_empty() || rng.one_in(5) {
        return rng.below(4);
    }
    let bound = *rng.pick(&bounds) as usize;
    (bound + rng.below(3)).saturating_sub(1)
}

/// One small change somewhere in `value`: a number nudged, a key dropped or added, a string
/// or array lengthened or shortened, a type changed.
fn mutate(rng: &mut Rng, value: &mut Value) {
    match value {
        Value::Object(obj) if !obj.is_empty() && rng.one_in(2) => {
            let key = obj
                .keys()
                .nth(rng.below(obj.len()))
                .cloned()
                .unwrap_or_default();
            match rng.below(3) {
                0 => drop(obj.remove(&key)),
                _ => mutate(rng, obj.get_mut(&key).expect("the key is there")),
            }
        }
        Value::Object(obj) => drop(obj.insert(rng.pick(&PROP_NAMES).to_string(), scalar(rng))),
        Value::Array(items) if !items.is_empty() && rng.one_in(2) => {
            let i = rng.below(items.len());
            mutate(rng, &mut items[i]);
        }
        Value::Array(items) if rng.one_in(2) => items.push(scalar(rng)),
        Value::Array(items) => drop(items.pop()),
        Value::Number(n) => {
            let f = n.as_f64().unwrap_or(0.0);
            *value = match rng.below(4) {
                0 => json!(f + 1.0),
                1 => json!(f - 0.5),
                2 => json!(f), // the same number as a float: 2 becomes 2.0
                _ => scalar(rng),
            };
        }
        Value::String(text) if rng.one_in(2) => text.push('é'),
        Value::String(text) => drop(text.pop()),
        _ => *value = scalar(rng),
    }
}

const ORACLE: &str = r#"
import json, sys
from jsonschema import Draft202012Validator
lines = sys.stdin.read().splitlines()
out = []
for line in lines:
    case = json.loads(line)
    out.append("1" if Draft202012Validator(case["s"]).is_valid(case["v"]) else "0")
sys.stdout.write("\n".join(out) + "\n")
"#;

#[test]
fn verdicts_agree_with_pythons_jsonschema() {
    let seed = match std::env::var("MINIMCP_SCHEMA_FUZZ_SEED").ok().as_deref() {
        None => 0x5CE3_A5EE_D000_0001,
        Some("random") => std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_nanos() as u64),
        Some(s) => s
            .parse()
            .expect("MINIMCP_SCHEMA_FUZZ_SEED is a number or `random`"),
    };
    let count: usize = std::env::var("MINIMCP_SCHEMA_FUZZ_CASES")
        .ok()
        .map_or(2000, |n| {
            n.parse().expect("MINIMCP_SCHEMA_FUZZ_CASES is a number")
        });
    let mut python = Command::new("python3");
    if let Ok(path) = std::env::var("MINIMCP_JSONSCHEMA_PATH") {
        python.env("PYTHONPATH", path);
    }
    let mut probe = Command::new("python3");
    if let Ok(path) = std::env::var("MINIMCP_JSONSCHEMA_PATH") {
        probe.env("PYTHONPATH", path);
    }
    let probe = probe.args(["-c", "import jsonschema"]).output();
    if !probe.is_ok_and(|o| o.status.success()) {
        eprintln!("SKIPPED: crates/minimcp-base/src/schema/fuzz_tests.rs: python3 with jsonschema is not available (set MINIMCP_JSONSCHEMA_PATH to a `pip install --target` directory)");
        return;
    }
    eprintln!(
        "schema fuzz: seed {seed}, {count} cases (replay with MINIMCP_SCHEMA_FUZZ_SEED={seed})"
    );
    let mut rng = Rng(seed);
    let cases: Vec<(Value, Value)> = (0..count)
        .map(|_| {
            let schema = gen_root(&mut rng);
            let mut value = sample(&mut rng, &schema, &schema, 0);
            for _ in 0..rng.below(3) {
                mutate(&mut rng, &mut value);
            }
            (schema, value)
        })
        .collect();
    let mut input = String::new();
    for (schema, value) in &cases {
        input.push_str(&json!({"s": schema, "v": value}).to_string());
        input.push('\n');
    }
    let mut child = python
        .args(["-c", ORACLE])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("python3 starts");
    // The oracle reads everything before it writes, so this cannot deadlock on the pipes.
    let mut stdin = child.stdin.take().expect("stdin");
    stdin.write_all(input.as_bytes()).expect("write cases");
    drop(stdin);
    let output = child.wait_with_output().expect("python3 ran");
    assert!(output.status.success(), "the oracle script failed");
    let verdicts = String::from_utf8(output.stdout).expect("the oracle's output");
    let verdicts: Vec<bool> = verdicts.lines().map(|l| l == "1").collect();
    assert_eq!(verdicts.len(), count, "one verdict per case");
    let mut mismatches = Vec::new();
    let mut valid = 0;
    for ((schema, value), want) in cases.iter().zip(verdicts) {
        if let Err(e) = check_schema(schema) {
            mismatches.push(format!("check_schema refused {schema}: {e}"));
            continue;
        }
        let got = validate(schema, &mut value.clone(), false);
        valid += usize::from(want);

        if got.is_ok() != want {
            mismatches.push(format!(
                "schema {schema}\nvalue  {value}\njsonschema: {}; minimcp: {got:?}",
                if want { "valid" } else { "invalid" }
            ));
        }
    }
    eprintln!(
        "schema fuzz: {count} cases, {valid} valid by jsonschema, {} mismatches",
        mismatches.len()
    );
    assert!(
        mismatches.is_empty(),
        "seed {seed}: {} of {count} verdicts differ (replay with MINIMCP_SCHEMA_FUZZ_SEED={seed}); the first:\n{}",
        mismatches.len(),
        mismatches[..mismatches.len().min(8)].join("\n\n")
    );
}
