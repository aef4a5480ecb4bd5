//! MCP protocol versions, negotiation, and the per-version differences the server acts on.
//!
//! Two eras share one process (conformance/REQUIREMENTS.md, section 18): the four handshake
//! versions (`initialize` → `notifications/initialized` → operation) and the stateless 2026-07-28,
//! where every request carries its version and client capabilities in `params._meta`.

use serde_json::{Map, Value};

/// A protocol version this server speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Version {
    /// 2024-11-05: the first published version.
    V2024_11_05,
    /// 2025-03-26: batches, audio, tool annotations, completions capability.
    V2025_03_26,
    /// 2025-06-18: no batches; structured tool output, titles, elicitation, resource links.
    V2025_06_18,
    /// 2025-11-25: icons, tool input errors as `isError`, optional error ids.
    V2025_11_25,
    /// 2026-07-28: stateless; no handshake, per-request `_meta`.
    V2026_07_28,
}

impl Version {
    /// Every version, oldest first.
    pub const ALL: [Version; 5] = [
        Version::V2024_11_05,
        Version::V2025_03_26,
        Version::V2025_06_18,
        Version::V2025_11_25,
        Version::V2026_07_28,
    ];

    /// Every version's wire string, newest first: what `server/discover` and the -32022 error
    /// name, so that a client that only speaks a handshake version learns it can fall back to
    /// `initialize` (as the 2026-07-28 specification's own example lists them).
    pub(crate) fn supported_newest_first() -> Vec<&'static str> {
        Version::ALL.iter().rev().map(|v| v.as_str()).collect()
    }

    /// The newest version negotiated through `initialize`.
    pub const LATEST_HANDSHAKE: Version = Version::V2025_11_25;

    /// The version string on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            Version::V2024_11_05 => "2024-11-05",
            Version::V2025_03_26 => "2025-03-26",
            Version::V2025_06_18 => "2025-06-18",
            Version::V2025_11_25 => "2025-11-25",
            Version::V2026_07_28 => "2026-07-28",
        }
    }

    /// Parses a version string.
    pub fn parse(s: &str) -> Option<Version> {
        Version::ALL.into_iter().find(|v| v.as_str() == s)
    }

    /// True for 2026-07-28, which has no handshake.
    pub fn is_stateless(self) -> bool {
        self >= Version::V2026_07_28
    }

    /// From 2025-11-25 an error response may omit an unreadable `id` (REQUIREMENTS.md B-9).
    pub(crate) fn omits_unreadable_id(self) -> bool {
        self >= Version::V2025_11_25
    }

    /// From 2025-11-25, arguments that fail a tool's `inputSchema` are reported as a tool result
    /// with `isError: true` (SEP-1303); before, as a −32602 protocol error (REQUIREMENTS.md
    /// T-12/T-13).
    pub(crate) fn input_errors_are_tool_errors(self) -> bool {
        self >= Version::V2025_11_25
    }

    /// `structuredContent`/`outputSchema`, `title` and `resource_link` exist from 2025-06-18.
    pub(crate) fn has_structured_output(self) -> bool {
        self >= Version::V2025_06_18
    }

    /// Tool `annotations`, audio content and the `completions` capability exist from 2025-03-26.
    pub(crate) fn has_annotations(self) -> bool {
        self >= Version::V2025_03_26
    }

    /// `icons` on tools, prompts, resources and `Implementation` exist from 2025-11-25.
    pub(crate) fn has_icons(self) -> bool {
        self >= Version::V2025_11_25
    }

    /// Elicitation exists from 2025-06-18.
    pub(crate) fn has_elicitation(self) -> bool {
        self >= Version::V2025_06_18
    }
}

/// The version to answer an `initialize` with: the client's when we speak it, else the newest
/// handshake version (REQUIREMENTS.md L-3: a counter-offer is a successful result, not an error).
///
/// 2026-07-28 is never negotiated through `initialize`: it has no handshake, so a client
/// that asks for it there gets the newest version that has one.
pub(crate) fn negotiate(requested: &str) -> Version {
    match Version::parse(requested) {
        Some(v) if !v.is_stateless() => v,
        _ => Version::LATEST_HANDSHAKE,
    }
}

/// `_meta` keys of the 2026-07-28 per-request protocol fields.
pub mod meta {
    /// The request's protocol version (required).
    pub const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
    /// The client's capabilities for this request (required).
    pub const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
    /// The client's self-description (optional).
    pub const CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
    /// The log level the client wants for this request (optional; no logs without it).
    pub const LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
    /// The server's self-description, on every 2026-07-28 result.
    pub const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
    /// The `subscriptions/listen` request a notification belongs to.
    pub const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";
}

/// The `_meta` object of a request's params, if any.
pub fn request_meta(params: Option<&Map<String, Value>>) -> Option<&Map<String, Value>> {
    params?.get("_meta")?.as_object()
}

/// The two eras of the protocol (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Era {
    /// 2024-11-05 … 2025-11-25: `initialize`, then a session.
    Handshake,
    /// 2026-07-28: every request carries its protocol in `params._meta`.
    Stateless,
}

impl Era {
    /// The era whose rules serve a request of `method` whose params carry `meta`: 2026-07-28
    /// when `meta` has that version's protocol version, or the method is one only 2026-07-28
    /// has (so a client that left `_meta` out is told what is missing rather than to
    /// initialize). The one rule for every transport.
    pub fn of_request(method: Option<Method>, meta: Option<&Map<String, Value>>) -> Era {
        let stateless_meta = meta.is_some_and(|m| m.contains_key(meta::PROTOCOL_VERSION));
        match method.and_then(Method::only_in) {
            Some(Era::Stateless) => Era::Stateless,
            _ if stateless_meta => Era::Stateless,
            _ => Era::Handshake,
        }
    }
}

/// What a server declares in `capabilities` when it serves a family of methods.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Capability {
    Tools,
    Prompts,
    Resources,
    Completions,
    Logging,
}

impl Capability {
    /// Each, with its key in `capabilities`.
    pub(crate) const ALL: [(Capability, &'static str); 5] = [
        (Capability::Tools, "tools"),
        (Capability::Prompts, "prompts"),
        (Capability::Resources, "resources"),
        (Capability::Completions, "completions"),
        (Capability::Logging, "logging"),
    ];
}

/// A request method this server serves, parsed once from its name. Everything decided about
/// a method is a `match` on it below, without a catch-all arm: a new method does not compile
/// until each decision is made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// `initialize`: the handshake (2024-11-05 … 2025-11-25).
    Initialize,
    /// `ping`.
    Ping,
    /// `logging/setLevel`.
    SetLevel,
    /// `tools/list`.
    ToolsList,
    /// `tools/call`.
    ToolsCall,
    /// `prompts/list`.
    PromptsList,
    /// `prompts/get`.
    PromptsGet,
    /// `resources/list`.
    ResourcesList,
    /// `resources/templates/list`.
    TemplatesList,
    /// `resources/read`.
    ResourcesRead,
    /// `resources/subscribe`.
    Subscribe,
    /// `resources/unsubscribe`.
    Unsubscribe,
    /// `completion/complete`.
    Complete,
    /// `server/discover` (2026-07-28).
    Discover,
    /// `subscriptions/listen` (2026-07-28).
    Listen,
}

use Method::*;

impl Method {
    /// The method called `name`; `None` for a method this server does not know.
    pub fn parse(name: &str) -> Option<Method> {
        Some(match name {
            "tools/call" => ToolsCall,
            "tools/list" => ToolsList,
            "resources/read" => ResourcesRead,
            "prompts/get" => PromptsGet,
            "completion/complete" => Complete,
            "resources/list" => ResourcesList,
            "prompts/list" => PromptsList,
            "resources/templates/list" => TemplatesList,
            "ping" => Ping,
            "initialize" => Initialize,
            "logging/setLevel" => SetLevel,
            "resources/subscribe" => Subscribe,
            "resources/unsubscribe" => Unsubscribe,
            "server/discover" => Discover,
            "subscriptions/listen" => Listen,
            _ => return None,
        })
    }

    /// The one era that has it; `None` when both do. 2026-07-28 removed the handshake, `ping`,
    /// `logging/setLevel` and per-resource subscriptions, and added discovery and `listen`.
    pub(crate) fn only_in(self) -> Option<Era> {
        match self {
            Initialize | Ping | SetLevel | Subscribe | Unsubscribe => Some(Era::Handshake),
            Discover | Listen => Some(Era::Stateless),
            ToolsList | ToolsCall | PromptsList | PromptsGet | ResourcesList | TemplatesList
            | ResourcesRead | Complete => None,
        }
    }

    /// What the server must offer (and so declare) for the method to exist; `None`: always.
    pub(crate) fn capability(self) -> Option<Capability> {
        match self {
            ToolsList | ToolsCall => Some(Capability::Tools),
            PromptsList | PromptsGet => Some(Capability::Prompts),
            ResourcesList | TemplatesList | ResourcesRead | Subscribe | Unsubscribe => {
                Some(Capability::Resources)
            }
            Complete => Some(Capability::Completions),
            SetLevel => Some(Capability::Logging),
            Initialize | Ping | Discover | Listen => None,
        }
    }

    /// Served in a handshake session before `initialize` (everything else is refused).
    pub(crate) fn before_initialize(self) -> bool {
        match self {
            Initialize | Ping => true,
            SetLevel | ToolsList | ToolsCall | PromptsList | PromptsGet | ResourcesList
            | TemplatesList | ResourcesRead | Subscribe | Unsubscribe | Complete | Discover
            | Listen => false,
        }
    }

    /// Answered at once even while an earlier request of its client waits for the client's
    /// own answer: nothing in it can wait.
    pub(crate) fn jumps_the_queue(self) -> bool {
        match self {
            Ping => true,
            Initialize | SetLevel | ToolsList | ToolsCall | PromptsList | PromptsGet
            | ResourcesList | TemplatesList | ResourcesRead | Subscribe | Unsubscribe
            | Complete | Discover | Listen => false,
        }
    }

    /// How long a 2026-07-28 client may cache a complete result (`ttlMs`): listings that
    /// cannot change while the process runs for five minutes, resource listings and reads
    /// not at all (files change); `None`: no caching hint.
    pub(crate) fn cache_ttl_ms(self) -> Option<u64> {
        match self {
            Discover | ToolsList | PromptsList | TemplatesList => Some(300_000),
            ResourcesList | ResourcesRead => Some(0),
            Initialize | Ping | SetLevel | ToolsCall | PromptsGet | Subscribe | Unsubscribe
            | Complete | Listen => None,
        }
    }

    /// The parameter a 2026-07-28 HTTP request repeats in its `Mcp-Name` header.
    pub fn named_by(self) -> Option<&'static str> {
        match self {
            ToolsCall | PromptsGet => Some("name"),
            ResourcesRead => Some("uri"),
            Initialize | Ping | SetLevel | ToolsList | PromptsList | ResourcesList
            | TemplatesList | Subscribe | Unsubscribe | Complete | Discover | Listen => None,
        }
    }
}

/// RFC 5424 severities, as MCP's `LoggingLevel`, least severe first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LogLevel {
    /// Detailed debugging information.
    Debug,
    /// Normal operational messages.
    Info,
    /// Normal but significant events.
    Notice,
    /// Warning conditions.
    Warning,
    /// Error conditions.
    Error,
    /// Critical conditions.
    Critical,
    /// Action must be taken immediately.
    Alert,
    /// The system is unusable.
    Emergency,
}

impl LogLevel {
    const NAMES: [(&'static str, LogLevel); 8] = [
        ("debug", LogLevel::Debug),
        ("info", LogLevel::Info),
        ("notice", LogLevel::Notice),
        ("warning", LogLevel::Warning),
        ("error", LogLevel::Error),
        ("critical", LogLevel::Critical),
        ("alert", LogLevel::Alert),
        ("emergency", LogLevel::Emergency),
    ];

    /// Parses a level name.
    pub(crate) fn parse(s: &str) -> Option<LogLevel> {
        LogLevel::NAMES
            .iter()
            .find(|(name, _)| *name == s)
            .map(|(_, level)| *level)
    }

    /// The name on the wire.
    pub fn as_str(self) -> &'static str {
        LogLevel::NAMES[self as usize].0
    }

    /// All names, for error messages.
    pub(crate) fn names() -> impl Iterator<Item = &'static str> {
        LogLevel::NAMES.iter().map(|(name, _)| *name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negotiation_echoes_supported_versions_and_counter_offers_the_latest() {
        for (requested, answered) in [
            ("2024-11-05", "2024-11-05"),
            ("2025-03-26", "2025-03-26"),
            ("2025-06-18", "2025-06-18"),
            ("2025-11-25", "2025-11-25"),
            ("2026-07-28", "2025-11-25"),
            ("1999-01-01", "2025-11-25"),
            ("2024-10-07", "2025-11-25"),
            ("", "2025-11-25"),
        ] {
            assert_eq!(negotiate(requested).as_str(), answered, "{requested}");
        }
    }

    #[test]
    fn version_strings_round_trip() {
        for v in Version::ALL {
            assert_eq!(Version::parse(v.as_str()), Some(v));
        }
        assert_eq!(Version::parse("2025-11-26"), None);
    }

    #[test]
    fn version_features() {
        assert!(!Version::V2025_06_18.input_errors_are_tool_errors());
        assert!(Version::V2025_11_25.input_errors_are_tool_errors());
        assert!(!Version::V2025_06_18.omits_unreadable_id());
        assert!(Version::V2025_11_25.omits_unreadable_id());
    }

    #[test]
    fn log_levels_are_ordered_by_severity() {
        assert!(LogLevel::Debug < LogLevel::Info);
        assert!(LogLevel::Alert < LogLevel::Emergency);
        for name in LogLevel::names() {
            assert_eq!(LogLevel::parse(name).map(LogLevel::as_str), Some(name));
        }
        assert_eq!(LogLevel::parse("warn"), None);
    }
}
