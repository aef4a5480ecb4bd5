//! The fixture prompts, one per `prompts-get-*` scenario of the suite.

use super::media::png_pixel;
use super::tools::RED;
use minimcp::prompt::{Prompt, PromptArgument, PromptMessage};
use minimcp::resource::ResourceContents;
use minimcp::{Builder, Content};

/// The values `arg1` of `test_prompt_with_arguments` suggests when completed.
const ARG1_VALUES: [&str; 3] = ["testValue1", "testValue2", "testValue3"];

/// Adds the fixture prompts.
pub(super) fn add(builder: Builder) -> Builder {
    builder
        .prompt(Prompt::new(
            "test_simple_prompt",
            "A prompt without arguments: one user message.",
            Vec::new(),
            |_, _| {
                Ok(vec![PromptMessage::user(Content::text(
                    "This is a simple prompt for testing.",
                ))])
            },
        ))
        .prompt(Prompt::new(
            "test_prompt_with_arguments",
            "A prompt with two required arguments, both quoted in its message; `arg1` can be \
             completed.",
            vec![
                PromptArgument::new("arg1", "First test argument", true).complete_with(
                    |value, _, _| {
                        ARG1_VALUES
                            .iter()
                            .filter(|v| v.starts_with(value))
                            .map(|v| v.to_string())
                            .collect()
                    },
                ),
                PromptArgument::new("arg2", "Second test argument", true),
            ],
            |args, _| {
                let arg = |name: &str| args.get(name).map_or("", String::as_str);
                Ok(vec![PromptMessage::user(Content::text(format!(
                    "Prompt with arguments: arg1='{}', arg2='{}'",
                    arg("arg1"),
                    arg("arg2")
                )))])
            },
        ))
        .prompt(Prompt::new(
            "test_prompt_with_embedded_resource",
            "A prompt whose first message embeds the resource named by `resourceUri`.",
            vec![PromptArgument::new(
                "resourceUri",
                "URI of the resource to embed",
                true,
            )],
            |args, _| {
                let uri = args.get("resourceUri").map_or("", String::as_str);
                Ok(vec![
                    PromptMessage::user(Content::Resource {
                        resource: ResourceContents::text(
                            uri,
                            Some("text/plain"),
                            "Embedded resource content for testing.",
                        ),
                    }),
                    PromptMessage::user(Content::text(
                        "Please process the embedded resource above.",
                    )),
                ])
            },
        ))
        .prompt(Prompt::new(
            "test_prompt_with_image",
            "A prompt whose first message is an image (a 1x1 PNG).",
            Vec::new(),
            |_, _| {
                Ok(vec![
                    PromptMessage::user(Content::image(&png_pixel(RED), "image/png")),
                    PromptMessage::user(Content::text("Please analyze the image above.")),
                ])
            },
        ))
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::super::tests::{response, session};

    fn get(id: i64, name: &str, arguments: Option<Value>) -> Value {
        let mut params = json!({"name": name});
        if let Some(arguments) = arguments {
            params["arguments"] = arguments;
        }
        json!({"jsonrpc": "2.0", "id": id, "method": "prompts/get", "params": params})
    }

    #[test]
    fn prompts_return_what_the_suite_checks() {
        let lines = session(&[
            get(1, "test_simple_prompt", None),
            get(
                2,
                "test_prompt_with_arguments",
                Some(json!({"arg1": "testValue1", "arg2": "testValue2"})),
            ),
            get(
                3,
                "test_prompt_with_embedded_resource",
                Some(json!({"resourceUri": "test://example-resource"})),
            ),
            get(4, "test_prompt_with_image", None),
        ]);
        assert_eq!(
            response(&lines, 1)["result"]["messages"],
            json!([{"role": "user", "content": {"type": "text", "text": "This is a simple prompt for testing."}}])
        );
        assert_eq!(
            response(&lines, 2)["result"]["messages"][0]["content"]["text"],
            "Prompt with arguments: arg1='testValue1', arg2='testValue2'"
        );
        let embedded = &response(&lines, 3)["result"]["messages"];
        assert_eq!(embedded[0]["content"]["type"], "resource");
        assert_eq!(
            embedded[0]["content"]["resource"]["uri"],
            "test://example-resource"
        );
        let image = &response(&lines, 4)["result"]["messages"][0]["content"];
        assert_eq!(image["type"], "image");
        assert_eq!(image["mimeType"], "image/png");
    }

    #[test]
    fn arguments_are_required_and_completed() {
        let lines = session(&[
            get(
                1,
                "test_prompt_with_arguments",
                Some(json!({"arg1": "only one"})),
            ),
            json!({"jsonrpc": "2.0", "id": 2, "method": "completion/complete", "params": {
                "ref": {"type": "ref/prompt", "name": "test_prompt_with_arguments"},
                "argument": {"name": "arg1", "value": "test"}}}),
            json!({"jsonrpc": "2.0", "id": 3, "method": "completion/complete", "params": {
                "ref": {"type": "ref/prompt", "name": "test_prompt_with_arguments"},
                "argument": {"name": "arg1", "value": "testValue2"}}}),
        ]);
        assert_eq!(response(&lines, 1)["error"]["code"], -32602);
        assert_eq!(
            response(&lines, 2)["result"]["completion"]["values"],
            json!(["testValue1", "testValue2", "testValue3"])
        );
        assert_eq!(
            response(&lines, 3)["result"]["completion"]["values"],
            json!(["testValue2"])
        );
    }
}
