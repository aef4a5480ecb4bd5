//! Tools: their definition, validated arguments, and what they return.

use std::ops::Deref;

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::content::Content;
use crate::context::{Context, HandlerError};
use minimcp_base::json_size;

/// A tool's validated arguments, with schema defaults filled in.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Arguments(pub(crate) Map<String, Value>);

impl Deref for Arguments {
    type Target = Map<String, Value>;
    fn deref(&self) -> &Map<String, Value> {
        &self.0
    }
}

impl From<Map<String, Value>> for Arguments {
    /// Arguments as they are, unchecked: for a handler that runs another tool's code on
    /// arguments it has already checked.
    fn from(map: Map<String, Value>) -> Self {
        Arguments(map)
    }
}

impl Arguments {
    /// Deserializes all arguments into `T` (a `#[derive(Deserialize)]` struct).
    pub fn parse<T: DeserializeOwned>(&self) -> Result<T, HandlerError> {
        T::deserialize(Value::Object(self.0.clone()))
            .map_err(|e| HandlerError::Invalid(format!("invalid arguments: {e}")))
    }

    /// A string argument; an error naming it when it is absent or not a string.
    pub fn str(&self, name: &str) -> Result<&str, HandlerError> {
        self.0
            .get(name)
            .and_then(Value::as_str)
            .ok_or_else(|| HandlerError::Invalid(format!("`{name}` must be a string")))
    }

    /// An optional non-negative integer argument.
    pub fn u64(&self, name: &str) -> Result<Option<u64>, HandlerError> {
        let Some(v) = self.0.get(name).filter(|v| !v.is_null()) else {
            return Ok(None);
        };
        let whole = |f: f64| (f.fract() == 0.0 && f >= 0.0).then_some(f as u64);
        let n = v.as_u64().or_else(|| v.as_f64().and_then(whole));
        let invalid = || HandlerError::Invalid(format!("`{name}` must be a non-negative integer"));
        n.map(Some).ok_or_else(invalid)
    }

    /// An optional boolean argument.
    pub fn bool(&self, name: &str) -> Result<Option<bool>, HandlerError> {
        match self.0.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(_) => Err(HandlerError::Invalid(format!("`{name}` must be a boolean"))),
        }
    }
}

/// What a tool returns.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ToolOutput {
    /// The content blocks.
    pub content: Vec<Content>,
    /// Structured output, which must match the tool's `outputSchema`.
    pub structured: Option<Value>,
    /// True when the tool failed in a way the model should see and correct.
    pub is_error: bool,
}

impl ToolOutput {
    /// One text block.
    pub fn text(text: impl Into<String>) -> ToolOutput {
        ToolOutput {
            content: vec![Content::text(text)],
            ..ToolOutput::default()
        }
    }

    /// Structured output, with its JSON as a text block for clients without structured output
    /// support (conformance/REQUIREMENTS.md T-10: "SHOULD also return the serialized JSON in a
    /// TextContent").
    pub fn structured(value: Value) -> ToolOutput {
        let text = value.to_string();
        ToolOutput::structured_with_text(value, text)
    }

    /// Structured output with a readable text block of your own instead of the JSON copy.
    pub fn structured_with_text(value: Value, text: impl Into<String>) -> ToolOutput {
        ToolOutput {
            structured: Some(value),
            ..ToolOutput::text(text)
        }
    }

    /// Any content blocks.
    pub fn content(content: Vec<Content>) -> ToolOutput {
        ToolOutput {
            content,
            ..ToolOutput::default()
        }
    }

    /// A tool error the model should read: `isError: true` with the message as text.
    pub fn error(message: impl Into<String>) -> ToolOutput {
        ToolOutput {
            is_error: true,
            ..ToolOutput::text(message)
        }
    }

    /// The size the tool-result budget counts ([`crate::Limits::max_result_bytes`]): the
    /// larger of the text part and the structured part. The text part is the text a model
    /// reads — text blocks, embedded text resources, links; image, audio and blob payloads are
    /// left out (clients hand them to the model as media, not as text). The structured part
    /// is `structuredContent` as compact JSON.
    pub(crate) fn budget_size(&self) -> usize {
        let text: usize = self.content.iter().map(Content::text_size).sum();
        let structured = self.structured.as_ref().map_or(0, json_size);
        text.max(structured)
    }
}

/// A tool's handler: validated arguments in, output out.
type ToolFn = dyn Fn(&Arguments, &mut Context<'_>) -> Result<ToolOutput, HandlerError>;

/// A tool: name, description, input schema and a plain function.
pub struct Tool {
    pub(crate) name: String,
    pub(crate) description: String,
    pub(crate) title: Option<String>,
    pub(crate) input_schema: Value,
    /// Whether `input_schema` has `default`s to fill in ([`minimcp_base::schema::has_defaults`]).
    pub(crate) has_defaults: bool,
    pub(crate) output_schema: Option<Value>,
    pub(crate) annotations: Option<Value>,
    pub(crate) icons: Option<Value>,
    pub(crate) handler: Box<ToolFn>,
}

impl Tool {
    /// Its name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The JSON Schema of its arguments.
    pub fn input_schema(&self) -> &Value {
        &self.input_schema
    }

    /// A tool. `input_schema` must be a JSON Schema whose root is `"type": "object"`.
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        input_schema: Value,
        handler: impl Fn(&Arguments, &mut Context<'_>) -> Result<ToolOutput, HandlerError> + 'static,
    ) -> Tool {
        Tool {
            name: name.into(),
            description: description.into(),
            title: None,
            has_defaults: minimcp_base::schema::has_defaults(&input_schema),
            input_schema,
            output_schema: None,
            annotations: None,
            icons: None,
            handler: Box::new(handler),
        }
    }

    /// A display name (2025-06-18 and later).
    pub fn title(mut self, title: impl Into<String>) -> Tool {
        self.title = Some(title.into());
        self
    }

    /// The schema of `structuredContent` (2025-06-18 and later); every successful result
    /// must then carry structured output that matches it.
    pub fn output_schema(mut self, schema: Value) -> Tool {
        self.output_schema = Some(schema);
        self
    }

    /// Behaviour hints such as `{"readOnlyHint": true, "openWorldHint": false}` (2025-03-26+).
    pub fn annotations(mut self, annotations: Value) -> Tool {
        self.annotations = Some(annotations);
        self
    }

    /// Icons, as an array of `{src, mimeType?, sizes?, theme?}` (2025-11-25 and later).
    pub fn icons(mut self, icons: Value) -> Tool {
        self.icons = Some(icons);
        self
    }
}
