//! Resources: what they contain, how they are listed, and sources that serve them.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use crate::context::{Context, HandlerError};
use minimcp_base::encoding::base64;

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
            body: ResourceBody::Blob(base64(bytes)),
            ..ResourceContents::text(uri, mime_type, String::new())
        }
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
