//! What a server offers — tools, prompts, resources — and what their handlers return.
//!
//! Handlers are plain closures: a tool is a name, a description, an input schema and a
//! function from validated [`Arguments`] to a [`ToolOutput`]. Shapes follow the MCP schemas
//! (`shared/spec/<version>/schema.json`); fields a client's protocol version does not know are
//! dropped when the server writes them.

mod content;
mod prompt;
mod resource;
mod tool;

pub use content::Content;
// Defined with the asking and the handler they describe; part of the model handlers see.
pub(crate) use crate::context::{HandlerError, InputError};
pub use prompt::{Prompt, PromptArgument, PromptMessage, Role};
pub use resource::{
    Page, ResourceBody, ResourceContents, ResourceInfo, ResourceSource, TemplateInfo,
};
pub use tool::{Arguments, Tool, ToolOutput};
