//! Test-only fixtures for the transcript corpus (`conformance/`), served by the
//! `conformance` profile next to its other fixtures.
//!
//! Each exercises one protocol feature the corpus must pin — progress, logging, cancellation,
//! elicitation, sampling, roots, structured output, every content type, a 2020-12 schema, a
//! prompt with completions, and resources (text, binary, templated, and one that changes on
//! every look so subscriptions have something to report). Every name starts with
//! `transcript_` (URIs with `transcript://`) so they cannot collide with other fixtures.

use std::cell::Cell;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use minimcp::prompt::{Prompt, PromptArgument, PromptMessage};
use minimcp::resource::{Page, ResourceContents, ResourceInfo, ResourceSource, TemplateInfo};
use minimcp::{Builder, Content, Context, Elicited, HandlerError, LogLevel, Tool, ToolOutput};

/// The longest `transcript_wait_for_cancel` waits for its cancellation.
const CANCEL_WAIT: Duration = Duration::from_secs(10);
/// Topics `transcript_prompt` completes: more than the 100 values one completion may carry.
const TOPICS: usize = 150;

/// Adds every transcript fixture to `builder`.
pub fn add(builder: Builder) -> Builder {
    let builder = tools().into_iter().fold(builder, Builder::tool);
    let builder = builder
        .prompt(topic_prompt())
        .prompt(media_prompt())
        .resource(
            ResourceInfo {
                annotations: Some(json!({"audience": ["user", "assistant"], "priority": 0.5})),
                ..ResourceInfo::new("transcript://text", "transcript_text")
                    .mime_type("text/plain")
                    .description("A fixed text resource.")
            },
            |uri, _ctx| {
                Ok(vec![ResourceContents::text(
                    uri,
                    Some("text/plain"),
                    "Hello from a transcript resource.",
                )])
            },
        )
        .resource(
            ResourceInfo::new("transcript://blob", "transcript_blob")
                .mime_type("application/octet-stream")
                .description("A fixed binary resource: the bytes 00 01 02 ff."),
            |uri, _ctx| {
                Ok(vec![ResourceContents::blob(
                    uri,
                    Some("application/octet-stream"),
                    &[0, 1, 2, 255],
                )])
            },
        )
        .resource_template(
            TemplateInfo::new("transcript://items/{id}", "transcript_item")
                .mime_type("text/plain")
                .description("Item {id}, for ids 1 to 150."),
            |uri, vars, _ctx| {
                let id = vars.get("id").map(String::as_str).unwrap_or_default();
                match id.parse::<usize>() {
                    Ok(n) if (1..=TOPICS).contains(&n) => Ok(vec![ResourceContents::text(
                        uri,
                        Some("text/plain"),
                        format!("Item {n}"),
                    )]),
                    _ => Err(HandlerError::NotFound(format!("no item {id}"))),
                }
            },
            Some(Box::new(|_var, value, _given, _ctx| {
                (1..=TOPICS)
                    .map(|n| n.to_string())
                    .filter(|n| n.starts_with(value))
                    .collect()
            })),
        );
    builder.resource_source(Ticking::default())
}

fn tools() -> Vec<Tool> {
    let no_args = json!({"type": "object", "additionalProperties": false});
    vec![
        Tool::new(
            "transcript_progress",
            "Reports progress 1, 2, … up to `steps` (default 3), then answers \"done\".",
            json!({
                "type": "object",
                "properties": {"steps": {"type": "integer", "minimum": 1, "maximum": 10, "default": 3}},
                "additionalProperties": false
            }),
            |args, ctx| {
                let steps = args.u64("steps")?.unwrap_or(3);
                for step in 1..=steps {
                    let message = format!("step {step} of {steps}");
                    ctx.progress(step as f64, Some(steps as f64), Some(&message));
                    // A value that does not increase is never sent (MCP PR-3).
                    ctx.progress(step as f64, Some(steps as f64), Some("repeated"));
                }
                Ok(ToolOutput::text("done"))
            },
        ),
        Tool::new(
            "transcript_log",
            "Sends one log message at each of the eight levels, least severe first.",
            no_args.clone(),
            |_args, ctx| {
                for level in [
                    LogLevel::Debug,
                    LogLevel::Info,
                    LogLevel::Notice,
                    LogLevel::Warning,
                    LogLevel::Error,
                    LogLevel::Critical,
                    LogLevel::Alert,
                    LogLevel::Emergency,
                ] {
                    ctx.log(level, format!("a {} message", level.as_str()));
                }
                Ok(ToolOutput::text("logged"))
            },
        ),
        Tool::new(
            "transcript_wait_for_cancel",
            "Waits until the client cancels this call (at most `ms`, default 10000); answers only if it never does.",
            json!({
                "type": "object",
                "properties": {"ms": {"type": "integer", "minimum": 0, "maximum": 10000}},
                "additionalProperties": false
            }),
            |args, ctx| {
                let wait = args.u64("ms")?.map_or(CANCEL_WAIT, Duration::from_millis);
                let until = Instant::now() + wait;
                while Instant::now() < until {
                    if ctx.is_cancelled() {
                        return Ok(ToolOutput::text("cancelled"));
                    }
                    std::thread::sleep(Duration::from_millis(5));
                }
                Ok(ToolOutput::text("not cancelled"))
            },
        ),
        Tool::new(
            "transcript_elicit",
            "Asks the user for their name with a form and greets them.",
            no_args.clone(),
            |_args, ctx| {
                let schema = json!({
                    "type": "object",
                    "properties": {"name": {"type": "string", "description": "Your name"}},
                    "required": ["name"]
                });
                Ok(match ctx.elicit("What is your name?", schema)? {
                    Elicited::Accept(content) => ToolOutput::text(format!(
                        "Hello, {}!",
                        content.get("name").and_then(Value::as_str).unwrap_or("stranger")
                    )),
                    Elicited::Decline => ToolOutput::text("The user declined."),
                    Elicited::Cancel => ToolOutput::text("The user cancelled."),
                })
            },
        ),
        Tool::new(
            "transcript_sample",
            "Asks the client's model to answer `prompt` and returns its text.",
            json!({
                "type": "object",
                "properties": {"prompt": {"type": "string"}},
                "required": ["prompt"],
                "additionalProperties": false
            }),
            |args, ctx| {
                let answer = ctx.sample(json!({
                    "messages": [{"role": "user", "content": {"type": "text", "text": args.str("prompt")?}}],
                    "maxTokens": 50
                }))?;
                let text = answer["content"]["text"].as_str().unwrap_or("(no text)");
                Ok(ToolOutput::text(format!("The model said: {text}")))
            },
        ),
        Tool::new(
            "transcript_roots",
            "Asks the client for its roots and lists their URIs.",
            no_args.clone(),
            |_args, ctx| {
                let uris: Vec<String> = ctx
                    .roots()?
                    .iter()
                    .filter_map(|r| r.get("uri").and_then(Value::as_str).map(str::to_string))
                    .collect();
                Ok(ToolOutput::text(format!("roots: {}", uris.join(" "))))
            },
        ),
        Tool::new(
            "transcript_fail",
            "Always fails, as a tool error the model can read.",
            no_args.clone(),
            |_args, _ctx| Err(HandlerError::Invalid("transcript_fail always fails.".into())),
        ),
        Tool::new(
            "transcript_panic",
            "Panics inside its handler.",
            no_args.clone(),
            |_args, _ctx| panic!("transcript_panic panics on purpose"),
        ),
        Tool::new(
            "transcript_structured",
            "Adds `a` and `b`; with `fail` set, fails instead.",
            json!({
                "type": "object",
                "properties": {
                    "a": {"type": "integer"},
                    "b": {"type": "integer"},
                    "fail": {"type": "boolean", "default": false}
                },
                "required": ["a", "b"],
                "additionalProperties": false
            }),
            |args, _ctx| {
                if args.bool("fail")? == Some(true) {
                    return Ok(ToolOutput::error("Asked to fail."));
                }
                // The schema says integer, which admits 2^63 and more: refuse what an i64
                // cannot hold, and a sum that overflows, instead of panicking.
                let int = |name: &str| {
                    args.get(name).and_then(Value::as_i64).ok_or_else(|| {
                        HandlerError::Invalid(format!(
                            "`{name}` must be an integer from -2^63 to 2^63-1"
                        ))
                    })
                };
                match int("a")?.checked_add(int("b")?) {
                    Some(sum) => Ok(ToolOutput::structured(json!({ "sum": sum }))),
                    None => Ok(ToolOutput::error(
                        "a + b does not fit in a 64-bit signed integer; use smaller numbers",
                    )),
                }
            },
        )
        .title("Structured sum")
        .output_schema(json!({
            "type": "object",
            "properties": {"sum": {"type": "integer"}},
            "required": ["sum"]
        }))
        .annotations(json!({"readOnlyHint": true, "idempotentHint": true}))
        .icons(json!([{"src": "data:image/png;base64,iVBORw0KGgo=", "mimeType": "image/png"}])),
        Tool::new(
            "transcript_content",
            "Returns one content block of every type: text, image, audio, embedded resource, resource link.",
            no_args,
            |_args, _ctx| {
                Ok(ToolOutput::content(vec![
                    Content::text("text"),
                    Content::image(&[0x89, b'P', b'N', b'G'], "image/png"),
                    Content::audio(b"RIFF", "audio/wav"),
                    Content::Resource {
                        resource: ResourceContents::text(
                            "transcript://text",
                            Some("text/plain"),
                            "Hello from a transcript resource.",
                        ),
                    },
                    Content::ResourceLink(
                        ResourceInfo::new("transcript://blob", "transcript_blob")
                            .mime_type("application/octet-stream"),
                    ),
                ]))
            },
        ),
        Tool::new(
            "transcript_schema",
            "Takes a JSON Schema 2020-12 input ($defs, $ref, defaults) and echoes the validated arguments.",
            json!({
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object",
                "$defs": {
                    "point": {
                        "type": "object",
                        "properties": {"x": {"type": "integer"}, "y": {"type": "integer", "default": 0}},
                        "required": ["x"],
                        "additionalProperties": false
                    }
                },
                "properties": {"at": {"$ref": "#/$defs/point"}, "label": {"type": "string", "maxLength": 8}},
                "required": ["at"],
                "additionalProperties": false
            }),
            |args, _ctx| Ok(ToolOutput::text(serde_json::to_string(&**args).unwrap_or_default())),
        ),
    ]
}

fn topic_prompt() -> Prompt {
    Prompt::new(
        "transcript_prompt",
        "Asks about a topic, optionally in a style.",
        vec![
            PromptArgument::new("topic", "What to ask about: topic-1 … topic-150.", true)
                .complete_with(|value, _given, _ctx| {
                    (1..=TOPICS)
                        .map(|n| format!("topic-{n}"))
                        .filter(|t| t.starts_with(value))
                        .collect()
                }),
            PromptArgument::new("style", "How to answer, such as \"brief\".", false).complete_with(
                |value, given: &BTreeMap<String, String>, _ctx: &mut Context<'_>| {
                    // Suggestions depend on the topic already chosen (context.arguments).
                    let topic = given.get("topic").map_or("any", String::as_str);
                    [
                        format!("brief about {topic}"),
                        format!("detailed about {topic}"),
                    ]
                    .into_iter()
                    .filter(|s| s.starts_with(value))
                    .collect()
                },
            ),
        ],
        |args, _ctx| {
            let topic = args.get("topic").map(String::as_str).unwrap_or_default();
            let text = match args.get("style") {
                Some(style) => format!("Tell me about {topic}, {style}."),
                None => format!("Tell me about {topic}."),
            };
            Ok(vec![PromptMessage::user(Content::text(text))])
        },
    )
}

fn media_prompt() -> Prompt {
    Prompt::new(
        "transcript_prompt_media",
        "A prompt whose messages carry an image and an embedded resource.",
        Vec::new(),
        |_args, _ctx| {
            Ok(vec![
                PromptMessage::user(Content::image(&[0x89, b'P', b'N', b'G'], "image/png")),
                PromptMessage::user(Content::Resource {
                    resource: ResourceContents::text(
                        "transcript://text",
                        Some("text/plain"),
                        "Hello from a transcript resource.",
                    ),
                }),
                PromptMessage::assistant(Content::text("I see an image and a resource.")),
            ])
        },
    )
}

/// `transcript://ticking`: a resource that changes every time anyone looks at it, so a
/// subscription to it reports an update at the server's first check.
#[derive(Default)]
struct Ticking {
    ticks: Cell<u64>,
}

const TICKING: &str = "transcript://ticking";

impl ResourceSource for Ticking {
    fn list(
        &self,
        offset: usize,
        _limit: usize,
        _ctx: &mut Context<'_>,
    ) -> Result<Page<ResourceInfo>, HandlerError> {
        let info = ResourceInfo::new(TICKING, "transcript_ticking")
            .mime_type("text/plain")
            .description("Changes every time it is looked at.");
        Ok(Page {
            items: if offset == 0 { vec![info] } else { Vec::new() },
            more: false,
        })
    }

    fn read(
        &self,
        uri: &str,
        _ctx: &mut Context<'_>,
    ) -> Result<Option<Vec<ResourceContents>>, HandlerError> {
        if uri != TICKING {
            return Ok(None);
        }
        let tick = self.ticks.get() + 1;
        self.ticks.set(tick);
        Ok(Some(vec![ResourceContents::text(
            uri,
            Some("text/plain"),
            format!("tick {tick}"),
        )]))
    }

    fn fingerprint(&self, uri: &str) -> Option<u64> {
        (uri == TICKING).then(|| {
            let tick = self.ticks.get() + 1;
            self.ticks.set(tick);
            tick
        })
    }
}

#[cfg(test)]
mod tests {
    use minimcp::Server;

    #[test]
    fn the_fixtures_are_valid_and_named_for_the_corpus() {
        let server = super::add(Server::builder("t", "1"))
            .build()
            .expect("the fixtures are valid");
        let names: Vec<&str> = server.tool_names().collect();
        assert_eq!(names.len(), 11, "{names:?}");
        assert!(
            names.iter().all(|n| n.starts_with("transcript_")),
            "every fixture tool is named transcript_*: {names:?}"
        );
    }
}
