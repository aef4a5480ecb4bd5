//! What a server offers — tools, prompts, resources — and what their handlers return.
//!
//! Handlers are plain closures: a tool is a name, a description, an input schema and a
//! function from validated [`Arguments`] to a [`ToolOutput`]. Shapes follow the MCP schemas
//! (`shared/spec/<version>/schema.json`); fields a client's protocol version does not know are
//! dropped when the server writes them.

use std::collections::BTreeMap;
use std::ops::Deref;

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{Map, Value};
use thiserror::Error;

use crate::context::Context;
// Defined with the asking they describe; part of the model handlers see.
pub use crate::context::{Elicited, InputError};
use crate::encoding::base64;

/// Why a handler could not produce its result.
///
/// How each variant reaches the client depends on the handler: for tools, `Invalid`,
/// `NotFound` and `Internal` become a result with `isError: true` (so the model can correct
/// itself: MCP T-11); for prompts and completions they are −32602; for resources, `NotFound`
/// is the resource-not-found error. `Internal` details go to stderr only.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum HandlerError {
    /// The request cannot be served as asked; the message says what to change.
    #[error("{0}")]
    Invalid(String),
    /// The thing asked for does not exist; the message names it.
    #[error("{0}")]
    NotFound(String),
    /// An interaction with the client (elicitation, sampling, roots) gave no usable answer.
    #[error(transparent)]
    Input(#[from] InputError),
    /// Something failed inside the handler. The text is logged, never sent.
    #[error("internal error: {0}")]
    Internal(String),
}

/// A tool's validated arguments, with schema defaults filled in.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Arguments(pub(crate) Map<String, Value>);

impl Deref for Arguments {
    type Target = Map<String, Value>;
    fn deref(&self) -> &Map<String, Value> {
        &self.0
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
        match self.0.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => v
                .as_u64()
                .or_else(|| {
                    v.as_f64()
                        .filter(|f| f.fract() == 0.0 && *f >= 0.0)
                        .map(|f| f as u64)
                })
                .map(Some)
                .ok_or_else(|| {
                    HandlerError::Invalid(format!("`{name}` must be a non-negative integer"))
                }),
        }
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

/// The contents of a resource: text or binary.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ResourceContents {
    /// The resource's URI.
    pub uri: String,
    /// Its MIME type, when known.
    #[serde(rename = "mimeType", skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// The text or the base64 data.
    #[serde(flatten)]
    pub body: ResourceBody,
}

/// The body of [`ResourceContents`].
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ResourceBody {
    /// UTF-8 text.
    Text(String),
    /// Binary data, base64-encoded.
    Blob(String),
}

impl ResourceContents {
    /// Text contents.
    pub fn text(uri: impl Into<String>, mime_type: Option<&str>, text: impl Into<String>) -> Self {
        ResourceContents {
            uri: uri.into(),
            mime_type: mime_type.map(str::to_string),
            body: ResourceBody::Text(text.into()),
        }
    }

    /// Binary contents; the bytes are base64-encoded here.
    pub fn blob(uri: impl Into<String>, mime_type: Option<&str>, bytes: &[u8]) -> Self {
        ResourceContents {
            uri: uri.into(),
            mime_type: mime_type.map(str::to_string),
            body: ResourceBody::Blob(base64(bytes)),
        }
    }
}

/// One content block of a tool result or prompt message.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Content {
    /// Plain text.
    Text {
        /// The text.
        text: String,
    },
    /// An image, base64-encoded.
    Image {
        /// The base64 data.
        data: String,
        /// e.g. `image/png`.
        #[serde(rename = "mimeType")]
        mime_type: String,
    },
    /// Audio, base64-encoded (2025-03-26 and later).
    Audio {
        /// The base64 data.
        data: String,
        /// e.g. `audio/wav`.
        #[serde(rename = "mimeType")]
        mime_type: String,
    },
    /// A resource embedded in full.
    Resource {
        /// Its contents.
        resource: ResourceContents,
    },
    /// A link to a resource (2025-06-18 and later; a text block with the URI before).
    ResourceLink(ResourceInfo),
}

impl Content {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Content {
        Content::Text { text: text.into() }
    }

    /// An image block; the bytes are base64-encoded here.
    pub fn image(bytes: &[u8], mime_type: &str) -> Content {
        Content::Image {
            data: base64(bytes),
            mime_type: mime_type.into(),
        }
    }

    /// An audio block; the bytes are base64-encoded here.
    pub fn audio(bytes: &[u8], mime_type: &str) -> Content {
        Content::Audio {
            data: base64(bytes),
            mime_type: mime_type.into(),
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

    /// Structured output, with its JSON as a text block for clients without structured
    /// output support (MCP T-10: "SHOULD also return the serialized JSON in a TextContent").
    pub fn structured(value: Value) -> ToolOutput {
        ToolOutput {
            content: vec![Content::text(value.to_string())],
            structured: Some(value),
            is_error: false,
        }
    }

    /// Structured output with a readable text block of your own instead of the JSON copy.
    pub fn structured_with_text(value: Value, text: impl Into<String>) -> ToolOutput {
        ToolOutput {
            content: vec![Content::text(text)],
            structured: Some(value),
            is_error: false,
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
            content: vec![Content::text(message)],
            structured: None,
            is_error: true,
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

impl Content {
    /// Bytes of text this block puts before a model (see [`ToolOutput::budget_size`]).
    fn text_size(&self) -> usize {
        match self {
            Content::Text { text } => text.len(),
            Content::Resource { resource } => {
                resource.uri.len()
                    + match &resource.body {
                        ResourceBody::Text(text) => text.len(),
                        ResourceBody::Blob(_) => 0,
                    }
            }
            Content::ResourceLink(info) => json_size(info),
            Content::Image { mime_type, .. } | Content::Audio { mime_type, .. } => mime_type.len(),
        }
    }
}

/// The length of `value` as compact JSON, without building the string: what a tool that
/// pages its result measures against [`crate::Context::result_budget`].
pub fn json_size(value: &impl Serialize) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 += bytes.len();
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    match serde_json::to_writer(&mut count, value) {
        Ok(()) => count.0,
        // Serializing a Value or a derived struct cannot fail; if it did, count it as
        // unbounded so the budget check refuses it rather than letting it through.
        Err(_) => usize::MAX,
    }
}

/// A tool's handler: validated arguments in, output out.
pub type ToolFn = dyn Fn(&Arguments, &mut Context<'_>) -> Result<ToolOutput, HandlerError>;

/// A tool: name, description, input schema and a plain function.
pub struct Tool {
    pub(crate) name: String,
    pub(crate) description: String,
    pub(crate) title: Option<String>,
    pub(crate) input_schema: Value,
    /// Whether `input_schema` has `default`s to fill in ([`crate::schema::has_defaults`]).
    pub(crate) has_defaults: bool,
    pub(crate) output_schema: Option<Value>,
    pub(crate) annotations: Option<Value>,
    pub(crate) icons: Option<Value>,
    pub(crate) handler: Box<ToolFn>,
}

impl Tool {
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
            has_defaults: crate::schema::has_defaults(&input_schema),
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

/// A prompt argument.
pub struct PromptArgument {
    pub(crate) name: String,
    pub(crate) title: Option<String>,
    pub(crate) description: Option<String>,
    pub(crate) required: bool,
    pub(crate) completer: Option<Box<CompleteFn>>,
}

/// Completes a value: `(partial value, other arguments already given, ctx) -> suggestions`.
/// The context is there for completers that depend on the client, such as paths inside
/// the client's roots.
pub type CompleteFn = dyn Fn(&str, &BTreeMap<String, String>, &mut Context<'_>) -> Vec<String>;

impl PromptArgument {
    /// An argument; required arguments are checked before the handler runs.
    pub fn new(name: impl Into<String>, description: impl Into<String>, required: bool) -> Self {
        PromptArgument {
            name: name.into(),
            title: None,
            description: Some(description.into()),
            required,
            completer: None,
        }
    }

    /// A display name (2025-06-18 and later).
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Suggestions for `completion/complete`.
    pub fn complete_with(
        mut self,
        completer: impl Fn(&str, &BTreeMap<String, String>, &mut Context<'_>) -> Vec<String> + 'static,
    ) -> Self {
        self.completer = Some(Box::new(completer));
        self
    }
}

/// Who speaks a prompt message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The user.
    User,
    /// The assistant.
    Assistant,
}

/// One message of a prompt.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PromptMessage {
    /// Who says it.
    pub role: Role,
    /// What is said.
    pub content: Content,
}

impl PromptMessage {
    /// A user message.
    pub fn user(content: Content) -> Self {
        PromptMessage {
            role: Role::User,
            content,
        }
    }

    /// An assistant message.
    pub fn assistant(content: Content) -> Self {
        PromptMessage {
            role: Role::Assistant,
            content,
        }
    }
}

/// A prompt's handler: its (checked) arguments in, messages out.
pub type PromptFn =
    dyn Fn(&BTreeMap<String, String>, &mut Context<'_>) -> Result<Vec<PromptMessage>, HandlerError>;

/// A prompt template.
pub struct Prompt {
    pub(crate) name: String,
    pub(crate) title: Option<String>,
    pub(crate) description: String,
    pub(crate) arguments: Vec<PromptArgument>,
    pub(crate) icons: Option<Value>,
    pub(crate) handler: Box<PromptFn>,
}

impl Prompt {
    /// A prompt.
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        arguments: Vec<PromptArgument>,
        handler: impl Fn(
                &BTreeMap<String, String>,
                &mut Context<'_>,
            ) -> Result<Vec<PromptMessage>, HandlerError>
            + 'static,
    ) -> Prompt {
        Prompt {
            name: name.into(),
            title: None,
            description: description.into(),
            arguments,
            icons: None,
            handler: Box::new(handler),
        }
    }

    /// A display name (2025-06-18 and later).
    pub fn title(mut self, title: impl Into<String>) -> Prompt {
        self.title = Some(title.into());
        self
    }

    /// Icons (2025-11-25 and later).
    pub fn icons(mut self, icons: Value) -> Prompt {
        self.icons = Some(icons);
        self
    }
}

/// A resource's description, as listed by `resources/list`.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct ResourceInfo {
    /// Its URI.
    pub uri: String,
    /// A short name.
    pub name: String,
    /// A display name (2025-06-18 and later).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its MIME type.
    #[serde(rename = "mimeType", skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Its size in bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// Audience/priority hints.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Value>,
    /// Icons (2025-11-25 and later).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub icons: Option<Value>,
}

impl ResourceInfo {
    /// A resource description with a URI and a name.
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> Self {
        ResourceInfo {
            uri: uri.into(),
            name: name.into(),
            ..ResourceInfo::default()
        }
    }

    /// Sets the MIME type.
    pub fn mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }

    /// Sets the description.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Sets the title.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }
}

/// A resource template's description, as listed by `resources/templates/list`.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct TemplateInfo {
    /// An RFC 6570 URI template such as `file:///{+path}`.
    #[serde(rename = "uriTemplate")]
    pub uri_template: String,
    /// A short name.
    pub name: String,
    /// A display name (2025-06-18 and later).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it produces.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The MIME type of what it produces, when all share one.
    #[serde(rename = "mimeType", skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Audience/priority hints.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Value>,
    /// Icons (2025-11-25 and later).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub icons: Option<Value>,
}

impl TemplateInfo {
    /// A template description.
    pub fn new(uri_template: impl Into<String>, name: impl Into<String>) -> Self {
        TemplateInfo {
            uri_template: uri_template.into(),
            name: name.into(),
            ..TemplateInfo::default()
        }
    }

    /// Sets the MIME type.
    pub fn mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }

    /// Sets the description.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }
}

/// One page of a listing.
#[derive(Debug, Clone, PartialEq)]
pub struct Page<T> {
    /// The items on this page.
    pub items: Vec<T>,
    /// True when items follow this page.
    pub more: bool,
}

/// A source of resources: a fixed set, or something like a directory tree that is listed
/// and read on demand.
///
/// Sources are asked in the order they were added; the first whose `read` returns
/// `Ok(Some(_))` answers.
pub trait ResourceSource {
    /// Resources from position `offset`, at most `limit` of them, in a stable order. `ctx`
    /// serves sources whose listing depends on the client (e.g. its roots).
    fn list(
        &self,
        offset: usize,
        limit: usize,
        ctx: &mut Context<'_>,
    ) -> Result<Page<ResourceInfo>, HandlerError>;

    /// The templates this source serves.
    fn templates(&self) -> Vec<TemplateInfo> {
        Vec::new()
    }

    /// Reads `uri`: `Ok(None)` when the URI is not this source's, `Err(NotFound)` when it is
    /// but nothing is there.
    fn read(
        &self,
        uri: &str,
        ctx: &mut Context<'_>,
    ) -> Result<Option<Vec<ResourceContents>>, HandlerError>;

    /// Suggestions for `variable` of `template` (one of [`ResourceSource::templates`]);
    /// `None` when the template is not this source's.
    fn complete(
        &self,
        _template: &str,
        _variable: &str,
        _value: &str,
        _context: &BTreeMap<String, String>,
        _ctx: &mut Context<'_>,
    ) -> Option<Vec<String>> {
        None
    }

    /// A value that changes when the resource changes (e.g. from its size and modification
    /// time), or `None` when it does not exist or is not this source's. Drives
    /// `notifications/resources/updated` for subscribed URIs.
    fn fingerprint(&self, _uri: &str) -> Option<u64> {
        None
    }

    /// True when [`ResourceSource::list_fingerprint`] reports additions and removals. The
    /// server then declares `resources.listChanged` and polls the fingerprint while a
    /// session is open; asked once, when the server is built.
    fn lists_changes(&self) -> bool {
        false
    }

    /// A value that changes when resources appear or vanish (only asked when
    /// [`ResourceSource::lists_changes`] is true). Drives
    /// `notifications/resources/list_changed`.
    fn list_fingerprint(&self) -> Option<u64> {
        None
    }
}
