//! The server: what it offers (tools, prompts, resources), who it is, and its limits.
//!
//! A [`Server`] is immutable once built and holds no per-client state; [`crate::serve`] runs
//! one session against it. Build one with [`Server::builder`].

use std::collections::{BTreeMap, HashMap};
use std::hash::BuildHasherDefault;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Map, Value};
use thiserror::Error;

use crate::context::{Context, HandlerError};
use crate::model::{Prompt, ResourceContents, ResourceInfo, ResourceSource, TemplateInfo, Tool};
use crate::protocol::{Capability, Version};
use crate::resources::{StaticResources, Template};
use minimcp_base::encoding::Fnv1a;
use minimcp_base::schema::check_schema;
use minimcp_base::uri_template::UriTemplate;

mod listing;

pub(crate) use listing::trim_listing;
use listing::Identity;

/// Every limit the server enforces. All are configurable; the defaults are in docs/limits.md.
#[derive(Debug, Clone, PartialEq)]
pub struct Limits {
    /// Longest accepted input line, in bytes (`--max-message-bytes`). Longer lines are skipped
    /// without being buffered and answered with −32600.
    pub max_message_bytes: usize,
    /// Largest response, in bytes (`--max-response-bytes`). A larger tool result becomes a
    /// tool error; any other larger response becomes error −32001.
    pub max_response_bytes: usize,
    /// Budget for one tool result, in bytes (`--max-result-bytes`): the larger of its text
    /// (media payloads left out) and its `structuredContent` as JSON; a result over it is
    /// replaced by a tool error. Clients refuse large results (Claude Code: 25,000 tokens,
    /// and it shows the model only `structuredContent` when there is one); the default of
    /// 80,000 bytes is about 20,000 tokens.
    pub max_result_bytes: usize,
    /// Server-to-client requests that may await an answer at once.
    pub max_outstanding_requests: usize,
    /// Requests held behind a request of the same client parked for its answer (over stdio,
    /// every request has the one client); beyond this, −32003.
    pub max_queued_requests: usize,
    /// Resource subscriptions plus open `subscriptions/listen` streams per session.
    pub max_subscriptions: usize,
    /// Requests per second, as a token bucket holding one second's worth (`--rate-limit`);
    /// `None` (the default) for no limit. Over the limit: error −32000.
    pub rate_limit: Option<f64>,
    /// How long a server-to-client request may wait for its answer (`--request-timeout`).
    pub request_timeout: Duration,
    /// Items per page of `tools/list`, `prompts/list`, `resources/list` and
    /// `resources/templates/list`.
    pub page_size: usize,
    /// How often subscribed resources are checked for changes while a subscription is open.
    pub poll_interval: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_message_bytes: 1024 * 1024,
            max_response_bytes: 10 * 1024 * 1024,
            max_result_bytes: 80_000,
            max_outstanding_requests: 128,
            max_queued_requests: 1024,
            max_subscriptions: 1024,
            rate_limit: None,
            request_timeout: Duration::from_secs(60),
            page_size: 100,
            poll_interval: Duration::from_secs(1),
        }
    }
}

/// A definition that cannot be served.
#[derive(Debug, Clone, PartialEq, Error)]
#[error("{0}")]
pub struct ConfigError(pub String);

/// An MCP server definition. Immutable once built; serve it with [`crate::serve`].
pub struct Server {
    pub(crate) identity: Identity,
    pub(crate) tools: Vec<Tool>,
    pub(crate) tool_index: Index,
    pub(crate) prompts: Vec<Prompt>,
    pub(crate) prompt_index: Index,
    pub(crate) sources: Vec<Box<dyn ResourceSource>>,
    pub(crate) limits: Limits,
    /// Whether some source reports additions and removals (asked once, at build).
    pub(crate) list_changes: bool,
    /// Signs 2026-07-28 `requestState`; fresh per process unless given.
    pub(crate) state_key: minimcp_base::request_state::StateKeys,
    /// [`Server::implementation`] for each of [`Version::ALL`], built once: every
    /// 2026-07-28 tool result carries it, and building and dropping it per call cost
    /// more than the rest of the result.
    implementations: Vec<Arc<Value>>,
}

/// Tools or prompts by name. The names are the server's own (no client chooses what goes
/// in), so an unkeyed hash is safe here: FNV-1a costs a few instructions per byte where
/// std's SipHash cost about 1 % of a small `tools/call`.
pub(crate) type Index = HashMap<String, usize, BuildHasherDefault<Fnv1a>>;

/// Builds a [`Server`].
pub struct Builder {
    identity: Identity,
    tools: Vec<Tool>,
    prompts: Vec<Prompt>,
    statics: StaticResources,
    sources: Vec<Box<dyn ResourceSource>>,
    limits: Limits,
    errors: Vec<String>,
    state_key: Option<[u8; 32]>,
    previous_state_key: Option<[u8; 32]>,
}

impl Server {
    /// Starts a server definition with the name and version it reports to clients.
    pub fn builder(name: impl Into<String>, version: impl Into<String>) -> Builder {
        Builder {
            identity: Identity {
                name: name.into(),
                version: version.into(),
                ..Identity::default()
            },
            tools: Vec::new(),
            prompts: Vec::new(),
            statics: StaticResources::default(),
            sources: Vec::new(),
            limits: Limits::default(),
            errors: Vec::new(),
            state_key: None,
            previous_state_key: None,
        }
    }

    /// Names of the tools, in listing order.
    pub fn tool_names(&self) -> impl Iterator<Item = &str> {
        self.tools.iter().map(|t| t.name.as_str())
    }

    /// The tools, in listing order.
    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }

    /// The limits it enforces.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Whether the server serves the methods of `capability`: tools, prompts and resources
    /// when it has some, completions when a prompt has arguments or a template variables,
    /// logging always. The methods and the `capabilities` object both follow this.
    pub(crate) fn offers(&self, capability: Capability) -> bool {
        match capability {
            Capability::Tools => !self.tools.is_empty(),
            Capability::Prompts => !self.prompts.is_empty(),
            Capability::Resources => !self.sources.is_empty(),
            Capability::Completions => {
                self.prompts.iter().any(|p| !p.arguments.is_empty())
                    || self.sources.iter().any(|s| !s.templates().is_empty())
            }
            Capability::Logging => true,
        }
    }

    /// The `capabilities` object for `version`: what [`Server::offers`]
    /// (conformance/REQUIREMENTS.md L-7), as that version spells it.
    pub(crate) fn capabilities(&self, version: Version) -> Value {
        let mut caps = Map::new();
        for (capability, key) in Capability::ALL.into_iter().filter(|&(c, _)| self.offers(c)) {
            let declared = match capability {
                Capability::Resources if self.list_changes => {
                    json!({ "subscribe": true, "listChanged": true })
                }
                Capability::Resources => json!({ "subscribe": true }),
                // 2024-11-05 has the method but not yet the capability.
                Capability::Completions if !version.has_annotations() => continue,
                _ => json!({}),
            };
            caps.insert(key.into(), declared);
        }
        Value::Object(caps)
    }

    /// [`Server::implementation`], shared rather than built.
    pub(crate) fn shared_implementation(&self, version: Version) -> Arc<Value> {
        // Built in `Version::ALL` order, which is the declaration order.
        Arc::clone(&self.implementations[version as usize])
    }
}

impl Builder {
    /// A display name (2025-06-18 and later).
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.identity.title = Some(title.into());
        self
    }

    /// Appends a paragraph to the guidance for the model on how to use the server, sent at
    /// initialization: each toolset of a server adds its own.
    pub fn add_instructions(mut self, paragraph: &str) -> Self {
        let text = match self.identity.instructions.take() {
            Some(before) => format!("{before}\n\n{paragraph}"),
            None => paragraph.to_string(),
        };
        self.identity.instructions = Some(text);
        self
    }

    /// Derives the key that seals 2026-07-28 `requestState` from `secret` (default: fresh
    /// random bytes per process). Processes given the same secret accept each other's
    /// states, so an `input_required` retry may reach any of them behind a load balancer.
    pub fn state_secret(mut self, secret: &[u8]) -> Self {
        self.state_key = Some(minimcp_base::encoding::sha256(secret));
        self
    }

    /// A second secret whose states still open (they are never sealed with it): while
    /// keys rotate across many processes, each accepts the other key too.
    pub fn previous_state_secret(mut self, secret: &[u8]) -> Self {
        self.previous_state_key = Some(minimcp_base::encoding::sha256(secret));
        self
    }

    /// Replaces the limits.
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Adds a tool.
    pub fn tool(mut self, tool: Tool) -> Self {
        self.tools.push(tool);
        self
    }

    /// Adds a prompt.
    pub fn prompt(mut self, prompt: Prompt) -> Self {
        self.prompts.push(prompt);
        self
    }

    /// Adds a fixed resource read by `read`.
    pub fn resource(
        mut self,
        info: ResourceInfo,
        read: impl Fn(&str, &mut Context<'_>) -> Result<Vec<ResourceContents>, HandlerError> + 'static,
    ) -> Self {
        self.statics.resources.push((info, Box::new(read)));
        self
    }

    /// Adds a resource template (`{name}` and `{+name}` variables) read by `read`, whose
    /// variables are completed by `complete` if given.
    pub fn resource_template(
        mut self,
        info: TemplateInfo,
        read: impl Fn(
                &str,
                &BTreeMap<String, String>,
                &mut Context<'_>,
            ) -> Result<Vec<ResourceContents>, HandlerError>
            + 'static,
        complete: Option<Box<crate::resources::VariableCompleteFn>>,
    ) -> Self {
        match UriTemplate::parse(&info.uri_template) {
            Ok(parsed) => self.statics.templates.push(Template {
                info,
                parsed,
                read: Box::new(read),
                complete,
            }),
            Err(e) => self.errors.push(e),
        }
        self
    }

    /// Adds a dynamic source of resources (such as a directory tree).
    pub fn resource_source(mut self, source: impl ResourceSource + 'static) -> Self {
        self.sources.push(Box::new(source));
        self
    }

    /// Checks every definition and builds the server.
    pub fn build(self) -> Result<Server, ConfigError> {
        let mut errors = self.errors;
        let mut tool_index = Index::default();
        for (i, tool) in self.tools.iter().enumerate() {
            let name = &tool.name;
            // MCP 2025-11-25 tool names.
            let valid = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.');
            let valid_chars = name.chars().all(valid);
            if name.is_empty() || name.len() > 128 || !valid_chars {
                errors.push(format!("tool {name:?}: a name must be 1-128 characters of A-Z, a-z, 0-9, '_', '-' and '.'"));
            }
            if tool.description.trim().is_empty() {
                errors.push(format!("tool {name:?}: the description must not be empty"));
            }
            if let Err(e) = check_schema(&tool.input_schema) {
                errors.push(format!("tool {name:?}: inputSchema: {e}"));
            }
            if let Some(Err(e)) = tool.output_schema.as_ref().map(check_schema) {
                errors.push(format!("tool {name:?}: outputSchema: {e}"));
            }
            if tool_index.insert(name.clone(), i).is_some() {
                errors.push(format!("tool {name:?} is defined twice"));
            }
        }
        let mut prompt_index = Index::default();
        for (i, prompt) in self.prompts.iter().enumerate() {
            let name = &prompt.name;
            if prompt_index.insert(name.clone(), i).is_some() {
                errors.push(format!("prompt {name:?} is defined twice"));
            }
            let mut names: Vec<&str> = prompt.arguments.iter().map(|a| a.name.as_str()).collect();
            names.sort_unstable();
            if names.windows(2).any(|w| w[0] == w[1]) {
                errors.push(format!("prompt {name:?} has two arguments with one name"));
            }
        }
        let limits = &self.limits;
        if limits.max_message_bytes < 1024 {
            errors.push("max_message_bytes must be at least 1024".into());
        }
        if limits.max_response_bytes < 1024 {
            errors.push("max_response_bytes must be at least 1024".into());
        }
        if limits.page_size == 0 {
            errors.push("page_size must be at least 1".into());
        }
        if limits
            .rate_limit
            .is_some_and(|r| !(r.is_finite() && r > 0.0))
        {
            errors.push("rate_limit must be a positive number of requests per second".into());
        }
        if !errors.is_empty() {
            return Err(ConfigError(errors.join("; ")));
        }
        let mut sources = Vec::with_capacity(self.sources.len() + 1);
        if !self.statics.is_empty() {
            sources.push(Box::new(self.statics) as Box<dyn ResourceSource>);
        }
        sources.extend(self.sources);
        let list_changes = sources.iter().any(|s| s.lists_changes());
        let mut server = Server {
            identity: self.identity,
            tools: self.tools,
            tool_index,
            prompts: self.prompts,
            prompt_index,
            sources,
            limits: self.limits,
            list_changes,
            state_key: minimcp_base::request_state::StateKeys {
                current: self
                    .state_key
                    .unwrap_or_else(minimcp_base::encoding::random_key),
                previous: self.previous_state_key,
            },
            implementations: Vec::new(),
        };
        server.implementations = Version::ALL
            .iter()
            .map(|&v| Arc::new(server.implementation(v)))
            .collect();
        Ok(server)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ToolOutput;
    use serde_json::json;

    fn echo(name: &str, schema: Value) -> Tool {
        Tool::new(name, "echo", schema, |_, _| Ok(ToolOutput::text("x")))
    }

    #[test]
    fn build_refuses_unservable_definitions() {
        let cases = [
            (
                echo("bad name", json!({"type": "object"})),
                "tool \"bad name\"",
            ),
            (echo("", json!({"type": "object"})), "tool \"\""),
            (echo("t", json!({"type": "array"})), "inputSchema"),
            (
                echo("t", json!({"type": "object"})).output_schema(json!({"type": "string"})),
                "outputSchema",
            ),
            (
                Tool::new("t", " ", json!({"type": "object"}), |_, _| {
                    Ok(ToolOutput::text(""))
                }),
                "description",
            ),
        ];
        for (tool, message) in cases {
            let err = Server::builder("s", "1")
                .tool(tool)
                .build()
                .err()
                .expect("refused");
            assert!(err.0.contains(message), "{err}");
        }
        let twice = Server::builder("s", "1")
            .tool(echo("t", json!({"type": "object"})))
            .tool(echo("t", json!({"type": "object"})))
            .build();
        assert!(twice.err().expect("refused").0.contains("defined twice"));
    }

    #[test]
    fn capabilities_list_only_what_is_served() {
        let server = Server::builder("s", "1").build().expect("valid");
        assert_eq!(
            server.capabilities(Version::V2025_11_25),
            json!({"logging": {}})
        );
        let server = Server::builder("s", "1")
            .tool(echo("t", json!({"type": "object"})))
            .build()
            .expect("valid");
        assert_eq!(
            server.capabilities(Version::V2025_11_25),
            json!({"tools": {}, "logging": {}})
        );
    }

    #[test]
    fn tool_listing_follows_the_version() {
        let server = Server::builder("s", "1")
            .tool(
                echo("t", json!({"type": "object"}))
                    .title("T")
                    .annotations(json!({"readOnlyHint": true}))
                    .output_schema(json!({"type": "object"}))
                    .icons(json!([{"src": "data:image/png;base64,AA=="}])),
            )
            .build()
            .expect("valid");
        let keys = |v: Version| {
            let tool = server.tool_json(&server.tools[0], v);
            let mut keys: Vec<String> = tool.as_object().expect("object").keys().cloned().collect();
            keys.sort();
            keys.join(",")
        };
        assert_eq!(keys(Version::V2024_11_05), "description,inputSchema,name");
        assert_eq!(
            keys(Version::V2025_03_26),
            "annotations,description,inputSchema,name"
        );
        assert_eq!(
            keys(Version::V2025_06_18),
            "annotations,description,inputSchema,name,outputSchema,title"
        );
        assert_eq!(
            keys(Version::V2025_11_25),
            "annotations,description,icons,inputSchema,name,outputSchema,title"
        );
    }
}
