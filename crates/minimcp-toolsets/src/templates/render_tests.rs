use super::*;
use serde_json::json;

fn values(v: Value) -> BTreeMap<String, Value> {
    v.as_object()
        .expect("object")
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

fn render(source: &str, v: Value) -> Result<String, RenderError> {
    Template::parse(source)?.render(&values(v))
}

#[test]
fn variables_are_replaced() {
    assert_eq!(
        render(
            "name={{name}} n={{ n }} ok={{ok}}",
            json!({"name": "app", "n": 3, "ok": true})
        ),
        Ok("name=app n=3 ok=true".into())
    );
}

#[test]
fn values_are_inserted_literally_never_rendered_again() {
    assert_eq!(
        render("{{a}}", json!({"a": "{{b}} \\{{c}}", "b": "no"})),
        Ok("{{b}} \\{{c}}".into())
    );
}

#[test]
fn if_else_toggles_sections_inline_and_on_their_own_lines() {
    let source = "a\n{{#if t}}\nyes\n{{else}}\nno\n{{/if}}\nb\n";
    assert_eq!(render(source, json!({"t": true})), Ok("a\nyes\nb\n".into()));
    assert_eq!(render(source, json!({"t": false})), Ok("a\nno\nb\n".into()));
    assert_eq!(
        render("[{{#if s}}set{{else}}unset{{/if}}]", json!({"s": ""})),
        Ok("[unset]".into())
    );
    assert_eq!(
        render("  {{#if t}}\n  x\n  {{/if}}\n", json!({"t": 1})),
        Ok("  x\n".into()),
        "indented standalone tags take their indentation with them"
    );
    assert_eq!(
        render("{{#if t}}x{{/if}}", json!({"t": []})),
        Ok(String::new())
    );
}

#[test]
fn each_repeats_with_this_and_sees_outer_values() {
    let source = "deps:\n{{#each deps}}\n  - {{this}} for {{name}}\n{{/each}}\nend";
    assert_eq!(
        render(source, json!({"deps": ["a", "b"], "name": "x"})),
        Ok("deps:\n  - a for x\n  - b for x\nend".into())
    );
    assert_eq!(
        render(source, json!({"deps": [], "name": "x"})),
        Ok("deps:\nend".into())
    );
    assert_eq!(
        render(
            "{{#each xs}}{{#each ys}}{{this}}{{/each}};{{/each}}",
            json!({"xs": [1, 2], "ys": ["a"]})
        ),
        Ok("a;a;".into())
    );
}

#[test]
fn escaped_braces_are_literal() {
    assert_eq!(
        render(r"run: ${\{{ matrix.os }}} {{x}}", json!({"x": "y"})),
        Ok("run: ${{{ matrix.os }}} y".into())
    );
    assert_eq!(
        render("\\{{not a tag}}", json!({})),
        Ok("{{not a tag}}".into())
    );
}

#[test]
fn errors_name_the_line_and_the_fix() {
    let cases = [
        (
            "a\n{{nope}}",
            json!({"x": 1}),
            2,
            "unknown variable \"nope\"; known variables: x",
        ),
        (
            "{{#if a}}\nx\n",
            json!({"a": 1}),
            1,
            "{{#if a}} is never closed; add {{/if}}",
        ),
        (
            "x\n\n{{/if}}",
            json!({}),
            3,
            "{{/if}} without an open {{#if}}",
        ),
        (
            "{{#each a}}\n{{/if}}",
            json!({}),
            2,
            "closes the {{#each}} opened on line 1",
        ),
        (
            "{{else}}",
            json!({}),
            1,
            "{{else}} outside an {{#if}} block",
        ),
        (
            "{{#if a}}{{else}}{{else}}{{/if}}",
            json!({}),
            1,
            "a second {{else}}",
        ),
        ("x {{oops\n}}", json!({}), 1, "`{{` is not closed"),
        ("{{> partial}}", json!({}), 1, "unknown tag {{> partial}}"),
        ("{{#if}}{{/if}}", json!({}), 1, "needs one variable name"),
        ("{{#each s}}{{/each}}", json!({"s": "x"}), 1, "needs a list"),
        ("{{l}}", json!({"l": [1]}), 1, "is a list"),
        ("{{this}}", json!({}), 1, "outside an {{#each}}"),
    ];
    for (source, v, line, message) in cases {
        let err = render(source, v).expect_err(source);
        assert_eq!(err.line, line, "{source}: {err}");
        assert!(err.message.contains(message), "{source}: {err}");
    }
}

#[test]
fn variables_are_listed_with_their_first_line() {
    let t = Template::parse("{{a}}\n{{#if b}}{{a}}{{/if}}\n{{#each c}}{{this}}{{/each}}")
        .expect("valid");
    let vars: Vec<(String, usize)> = t.variables().into_iter().collect();
    assert_eq!(vars, [("a".into(), 1), ("b".into(), 2), ("c".into(), 3)]);
}

#[test]
fn arbitrary_sources_never_panic() {
    // Sources assembled from the language's pieces by a fixed pseudo-random sequence
    // (xorshift): each parses or fails with a line number, and renders or fails, never
    // panics.
    let pieces = [
        "{{",
        "}}",
        "{{x}}",
        "{{#if x}}",
        "{{#if}}",
        "{{else}}",
        "{{/if}}",
        "{{#each l}}",
        "{{/each}}",
        "{{this}}",
        "\\{{",
        "\n",
        "  ",
        "text",
        "{{ y }}",
        "{{#each x}}",
        "}",
        "{",
        "é",
    ];
    let values = values(json!({"x": true, "y": "v", "l": ["a", "b"]}));
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    for _ in 0..5_000 {
        let mut source = String::new();
        for _ in 0..12 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            source.push_str(pieces[(state % pieces.len() as u64) as usize]);
        }
        let lines = source.matches('\n').count() + 1;
        match Template::parse(&source) {
            Ok(template) => {
                if let Err(e) = template.render(&values) {
                    assert!(e.line >= 1 && e.line <= lines, "{source:?}: {e}");
                }
            }
            Err(e) => assert!(e.line >= 1 && e.line <= lines, "{source:?}: {e}"),
        }
    }
}
