//! The multi round-trip fixtures (MRTR, 2026-07-28): the eight tools and the prompt the
//! suite's `input-required-result-*` scenarios call (`shared/CONFORMANCE-FIXTURES.md` §6.3).
//!
//! They ask through [`Context`] like any handler; the core turns a question into an
//! `input_required` result in 2026-07-28 and into a request to the client before it. Each
//! question is named with [`Context::input_key`] after the key the scenario looks for.

use serde_json::{json, Value};

use minimcp::prompt::{Prompt, PromptMessage};
use minimcp::{Builder, Content, Context, Elicited, HandlerError, InputError, Tool, ToolOutput};

/// Adds the MRTR tools and prompt.
pub(super) fn add(builder: Builder) -> Builder {
    let builder = [
        tool(
            "test_input_required_result_elicitation",
            "Asks the user's name (input key `user_name`) and greets them.",
            |ctx| {
                let name = ask_name(ctx, "user_name", "What is your name?")?;
                Ok(format!("Hello, {name}!"))
            },
        ),
        tool(
            "test_input_required_result_sampling",
            "Asks the client's model for the capital of France (input key `capital_question`).",
            |ctx| {
                let answer = ctx
                    .input_key("capital_question")
                    .sample(question("What is the capital of France?", 100))?;
                Ok(format!("The model answered: {}", sampled_text(&answer)))
            },
        ),
        tool(
            "test_input_required_result_list_roots",
            "Asks the client for its roots (input key `client_roots`) and lists them.",
            |ctx| {
                let roots = ctx.input_key("client_roots").roots()?;
                Ok(format!("Client roots: {}", describe_roots(&roots)))
            },
        ),
        tool(
            "test_input_required_result_request_state",
            "Asks for a confirmation (input key `confirm`); the answer comes back with the \
             sealed requestState of the first round.",
            |ctx| {
                let ok = confirm(ctx)?;
                // The server verifies a requestState before any handler runs: reaching this
                // line with a state means it was intact.
                Ok(format!("state-ok: confirmation received (ok={ok})"))
            },
        ),
        tool(
            "test_input_required_result_multiple_inputs",
            "Asks three questions at once: the user's name (`user_name`), a greeting from \
             the client's model (`greeting`) and the client's roots (`client_roots`).",
            |ctx| {
                // Ask all three before giving up on any, so one round carries every question.
                let name = ask_name(ctx, "user_name", "What is your name?");
                let greeting = ctx
                    .input_key("greeting")
                    .sample(question("Generate a greeting", 50));
                let roots = ctx.input_key("client_roots").roots();
                let (name, greeting, roots) = (name?, greeting?, roots?);
                Ok(format!(
                    "Name: {name}; greeting: {}; roots: {}",
                    sampled_text(&greeting),
                    describe_roots(&roots)
                ))
            },
        ),
        tool(
            "test_input_required_result_multi_round",
            "Asks two questions one after the other (`step1`: a name, then `step2`: a \
             colour), so the client answers in two rounds.",
            |ctx| {
                let name = ask_name(ctx, "step1", "Step 1: What is your name?")?;
                let color = ask_field(
                    ctx,
                    "step2",
                    "Step 2: What is your favorite color?",
                    "color",
                )?;
                Ok(format!("{name}'s favorite color is {color}."))
            },
        ),
        tool(
            "test_input_required_result_tampered_state",
            "Asks for a confirmation (input key `confirm`); a requestState altered by the \
             client is refused with an error.",
            |ctx| {
                let ok = confirm(ctx)?;
                Ok(format!("Confirmed (ok={ok})."))
            },
        ),
        tool(
            "test_input_required_result_capabilities",
            "Asks only what the client can answer: the user's name (`user_name`) if it \
             declared elicitation, a greeting (`greeting`) if sampling, its roots \
             (`client_roots`) if roots.",
            capabilities,
        ),
    ]
    .into_iter()
    .fold(builder, Builder::tool);
    builder.prompt(Prompt::new(
        "test_input_required_result_prompt",
        "A prompt that first asks the user what context to use (input key `user_context`).",
        Vec::new(),
        |_, ctx| {
            let context = ask_field(
                ctx,
                "user_context",
                "What context should the prompt use?",
                "context",
            )?;
            Ok(vec![PromptMessage::user(Content::text(format!(
                "Answer using this context: {context}"
            )))])
        },
    ))
}

/// A fixture tool without arguments whose handler produces one text block.
fn tool(
    name: &str,
    description: &str,
    handler: fn(&mut Context<'_>) -> Result<String, HandlerError>,
) -> Tool {
    Tool::new(
        name,
        description,
        json!({"type": "object", "properties": {}}),
        move |_, ctx| handler(ctx).map(ToolOutput::text),
    )
}

/// Asks for one required string field `field`; a declined or cancelled form is a tool error.
fn ask_field(
    ctx: &mut Context<'_>,
    key: &str,
    message: &str,
    field: &str,
) -> Result<String, HandlerError> {
    let form = json!({
        "type": "object",
        "properties": {field: {"type": "string"}},
        "required": [field]
    });
    match ctx.input_key(key).elicit(message, form)? {
        Elicited::Accept(content) => Ok(content
            .get(field)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()),
        Elicited::Decline | Elicited::Cancel => Err(HandlerError::Invalid(format!(
            "the user did not answer \"{message}\""
        ))),
    }
}

fn ask_name(ctx: &mut Context<'_>, key: &str, message: &str) -> Result<String, HandlerError> {
    ask_field(ctx, key, message, "name")
}

/// Asks for `{ok: boolean}` under the key `confirm`.
fn confirm(ctx: &mut Context<'_>) -> Result<bool, HandlerError> {
    let form = json!({
        "type": "object",
        "properties": {"ok": {"type": "boolean"}},
        "required": ["ok"]
    });
    match ctx.input_key("confirm").elicit("Please confirm", form)? {
        Elicited::Accept(content) => Ok(content.get("ok") == Some(&Value::Bool(true))),
        Elicited::Decline | Elicited::Cancel => Ok(false),
    }
}

/// `sampling/createMessage` parameters for one user question.
fn question(text: &str, max_tokens: u32) -> Value {
    json!({
        "messages": [{"role": "user", "content": {"type": "text", "text": text}}],
        "maxTokens": max_tokens
    })
}

/// The text of a `CreateMessageResult` (`content` is one block, or a list of blocks).
fn sampled_text(answer: &Value) -> &str {
    let text = match &answer["content"] {
        Value::Array(blocks) => blocks.iter().find_map(|b| b["text"].as_str()),
        block => block["text"].as_str(),
    };
    text.unwrap_or("(no text content)")
}

fn describe_roots(roots: &[Value]) -> String {
    if roots.is_empty() {
        return "none".into();
    }
    let uris: Vec<&str> = roots.iter().filter_map(|r| r["uri"].as_str()).collect();
    uris.join(", ")
}

/// `test_input_required_result_capabilities`: each question the client cannot answer is
/// skipped (the core reports it as unsupported and asks nothing); the rest are asked together.
fn capabilities(ctx: &mut Context<'_>) -> Result<String, HandlerError> {
    let name = unless_unsupported(ask_name(ctx, "user_name", "What is your name?"));
    let greeting = unless_unsupported(
        ctx.input_key("greeting")
            .sample(question("Generate a greeting", 50))
            .map_err(HandlerError::from),
    );
    let roots = unless_unsupported(
        ctx.input_key("client_roots")
            .roots()
            .map_err(HandlerError::from),
    );
    let mut answers = Vec::new();
    if let Some(name) = name? {
        answers.push(format!("name: {name}"));
    }
    if let Some(greeting) = greeting? {
        answers.push(format!("greeting: {}", sampled_text(&greeting)));
    }
    if let Some(roots) = roots? {
        answers.push(format!("roots: {}", describe_roots(&roots)));
    }
    if answers.is_empty() {
        return Ok(
            "The client declared none of elicitation, sampling and roots: nothing was asked."
                .into(),
        );
    }
    Ok(answers.join("; "))
}

/// `Ok(None)` when the client cannot answer: it did not declare the capability.
fn unless_unsupported<T>(answer: Result<T, HandlerError>) -> Result<Option<T>, HandlerError> {
    match answer {
        Err(HandlerError::Input(InputError::Unsupported(_))) => Ok(None),
        other => other.map(Some),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::super::tests::{fixtures, response, serve_lines};

    /// A 2026-07-28 `tools/call` of `name` with `extra` params merged in.
    fn call(id: i64, name: &str, extra: Value) -> Value {
        let mut params = json!({"name": name, "arguments": {}, "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}}});
        for (k, v) in extra.as_object().into_iter().flatten() {
            params[k] = v.clone();
        }
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
    }

    #[test]
    fn a_tampered_request_state_is_an_error_and_the_intact_one_completes() {
        let name = "test_input_required_result_tampered_state";
        // One server for both runs: states are sealed with a per-server key.
        let server = fixtures();
        let first = serve_lines(&server, &[call(1, name, json!({}))]);
        let state = response(&first, 1)["result"]["requestState"]
            .as_str()
            .expect("a requestState")
            .to_string();
        let answer = json!({"confirm": {"action": "accept", "content": {"ok": true}}});
        let lines = serve_lines(
            &server,
            &[
                // What the suite sends: the state with a suffix.
                call(
                    2,
                    name,
                    json!({"inputResponses": answer, "requestState": format!("{state}-TAMPERED")}),
                ),
                call(
                    3,
                    name,
                    json!({"inputResponses": answer, "requestState": state}),
                ),
            ],
        );
        assert_eq!(response(&lines, 2)["error"]["code"], -32602);
        let done = &response(&lines, 3)["result"];
        assert_eq!(done["resultType"], "complete");
        assert_eq!(done["content"][0]["text"], "Confirmed (ok=true).");
    }

    /// The answers a `requestState` carries (its payload is readable; only its MAC is secret).
    fn sealed_answers(result: &Value) -> Value {
        let state = result["requestState"].as_str().expect("a requestState");
        let payload = state.split('.').next().expect("payload");
        serde_json::from_slice::<Value>(&base64url_decode(payload)).expect("json")["a"].clone()
    }

    /// Unpadded base64url, decoded: enough to read a payload in a test.
    fn base64url_decode(text: &str) -> Vec<u8> {
        const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
        let sextet = |c: u8| ALPHABET.iter().position(|&a| a == c).expect("base64url") as u32;
        let mut out = Vec::new();
        for chunk in text.as_bytes().chunks(4) {
            let n = (0..4).fold(0, |n, i| n << 6 | chunk.get(i).map_or(0, |&c| sextet(c)));
            out.extend_from_slice(&n.to_be_bytes()[1..chunk.len()]);
        }
        out
    }

    #[test]
    fn only_answers_to_asked_questions_are_carried_to_the_next_round() {
        let name = "test_input_required_result_multi_round";
        let accept = |content: Value| json!({"action": "accept", "content": content});
        let lines = serve_lines(
            &fixtures(),
            &[
                call(
                    1,
                    name,
                    json!({"inputResponses": {"wrong_key": accept(json!({"x": 1}))}}),
                ),
                call(
                    2,
                    name,
                    json!({"inputResponses": {
                        "step1": accept(json!({"name": "Alice"})),
                        "unknown_extra_key": accept(json!({"foo": "bar"}))
                    }}),
                ),
            ],
        );
        assert_eq!(sealed_answers(&response(&lines, 1)["result"]), json!({}));
        assert_eq!(
            sealed_answers(&response(&lines, 2)["result"]),
            json!({"step1": accept(json!({"name": "Alice"}))})
        );
    }

    #[test]
    fn before_2026_the_same_tools_ask_the_client_directly() {
        // Over a 2025-11-25 session the named question is an ordinary elicitation request,
        // and its answer completes the call.
        let lines = super::super::tests::session(&[
            super::super::tests::call(2, "test_input_required_result_elicitation", json!({})),
            json!({"jsonrpc": "2.0", "id": 1, "result": {"action": "accept", "content": {"name": "Ada"}}}),
        ]);
        let request = lines
            .iter()
            .find(|m| m["method"] == "elicitation/create")
            .expect("asked");
        assert_eq!(request["params"]["message"], "What is your name?");
        assert_eq!(
            response(&lines, 2)["result"]["content"][0]["text"],
            Value::from("Hello, Ada!")
        );
    }
}
