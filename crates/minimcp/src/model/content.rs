//! Content blocks of tool results and prompt messages, and how big they are to a model.

use serde::Serialize;

use super::resource::{ResourceBody, ResourceContents, ResourceInfo};
use minimcp_base::encoding::base64;
use minimcp_base::json_size;

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

    /// Bytes of text this block puts before a model (see [`ToolOutput::budget_size`](crate::ToolOutput::budget_size)).
    pub(super) fn text_size(&self) -> usize {
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
