//! Prompts: templates of messages with arguments the client fills in.

use std::collections::BTreeMap;

use serde::Serialize;

use super::content::Content;
use crate::context::{Context, HandlerError};

/// A prompt argument.
pub struct PromptArgument {
    pub(crate) name: String,
    pub(crate) description: String,
    pub(crate) required: bool,
    pub(crate) completer: Option<Box<CompleteFn>>,
}

/// Completes a value: `(partial value, other arguments already given, ctx) -> suggestions`.
/// The context is there for completers that depend on the client, such as paths inside
/// the client's roots.
type CompleteFn = dyn Fn(&str, &BTreeMap<String, String>, &mut Context<'_>) -> Vec<String>;

impl PromptArgument {
    /// An argument; required arguments are checked before the handler runs.
    pub fn new(name: impl Into<String>, description: impl Into<String>, required: bool) -> Self {
        PromptArgument {
            name: name.into(),
            description: description.into(),
            required,
            completer: None,
        }
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
type PromptFn =
    dyn Fn(&BTreeMap<String, String>, &mut Context<'_>) -> Result<Vec<PromptMessage>, HandlerError>;

/// A prompt template.
pub struct Prompt {
    pub(crate) name: String,
    pub(crate) title: Option<String>,
    pub(crate) description: String,
    pub(crate) arguments: Vec<PromptArgument>,
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
            handler: Box::new(handler),
        }
    }

    /// A display name (2025-06-18 and later).
    pub fn title(mut self, title: impl Into<String>) -> Prompt {
        self.title = Some(title.into());
        self
    }

    /// Its name, as `prompts/get` calls it.
    pub fn name(&self) -> &str {
        &self.name
    }
}
