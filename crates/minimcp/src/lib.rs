//! # minimcp
//!
//! A small, synchronous Model Context Protocol server library for adding your own tools,
//! prompts and resources. The `minimcp` binary, its toolsets (crate `minimcp-toolsets`) and
//! its Streamable HTTP transport (crate `minimcp-http`, built only on [`transport`]) use
//! nothing but this crate's public API.
//!
//! It speaks every published MCP version ([`Version`]), chosen per message, with blocking
//! I/O on one thread: no async runtime, three dependencies (serde, serde_json, thiserror).
//!
//! ## Adding a tool
//!
//! A tool is a name, a description, a JSON Schema for its arguments, and a plain function.
//! Arguments are validated against the schema (with defaults filled in) before the function
//! runs; a failed validation is reported to the model with a message it can act on.
//!
//! ```
//! use minimcp::{Server, Tool, ToolOutput};
//! use serde_json::json;
//!
//! let server = Server::builder("adder", "1.0.0")
//!     .tool(Tool::new(
//!         "add",
//!         "Add two integers",
//!         json!({
//!             "type": "object",
//!             "properties": {"a": {"type": "integer"}, "b": {"type": "integer", "default": 1}},
//!             "required": ["a"]
//!         }),
//!         |args, _ctx| {
//!             let sum = args["a"].as_i64().unwrap_or(0) + args["b"].as_i64().unwrap_or(0);
//!             Ok(ToolOutput::text(sum.to_string()))
//!         },
//!     ))
//!     .build()
//!     .expect("the definitions are valid");
//!
//! // A whole session over in-memory pipes: handshake, then one call.
//! let input = concat!(
//!     r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"doc","version":"1"}}}"#, "\n",
//!     r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#, "\n",
//!     r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"a":41}}}"#, "\n",
//! );
//! let mut output = Vec::new();
//! minimcp::serve(&server, std::io::Cursor::new(input), &mut output).expect("i/o works");
//! let last = String::from_utf8(output).unwrap().lines().last().unwrap().to_string();
//! assert_eq!(last, r#"{"jsonrpc":"2.0","id":2,"result":{"content":[{"text":"42","type":"text"}]}}"#);
//! // On a real process: minimcp::run_stdio(&server)
//! ```
//!
//! ## What a tool author uses
//!
//! [`Server::builder`] gives a [`Builder`]: add tools ([`Tool::new`]), then `build` and serve
//! with [`run_stdio`] (or [`serve`] over any byte streams). A handler gets [`Arguments`] and a
//! [`Context`], and returns a [`ToolOutput`] or a [`HandlerError`]; a handler that notices
//! [`Context::is_cancelled`] returns [`Context::cancelled`]. [`TestClient`] runs a handler in
//! a unit test (feature `testing`). Beyond that: prompts ([`prompt::Prompt`]), resources
//! ([`Builder::resource`], [`resource::ResourceSource`]) and [`Limits`]. The helpers for
//! results that page within [`Context::result_budget`] (`json_size`) or carry bytes
//! (`sha256_hex`, `base64`, `percent_decode`) are in the crate `minimcp-base`.
//!
//! ## Cargo features
//!
//! One: `testing`, which adds [`TestClient`] (docs/writing-a-tool.md, "Cargo features").
//!
//! ## Data flow
//!
//! `stdio` (lines, read on an input thread) → `jsonrpc` (envelopes, no MCP) → `session`
//! (admission, the one `match` on the method) → your handlers, with a [`Context`]. The
//! session does no I/O: a transport hands it parsed messages and sends what it gives back.
//! Whatever goes wrong with one message becomes a JSON-RPC or tool error; only a failing
//! stdin or stdout ends [`serve`] ([`enum@Error`]).

#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod context;
mod error;
mod jsonrpc;
mod model;
mod protocol;
mod resources;
mod server;
mod session;
mod stdio;
#[cfg(any(test, feature = "testing"))]
mod testing;
pub mod transport;

pub use context::{Context, Elicited, HandlerError, InputError};
pub use error::Error;
pub use jsonrpc::ErrorObject;
pub use model::{Arguments, Content, Tool, ToolOutput};
pub use protocol::{LogLevel, Version};
pub use server::{Builder, ConfigError, Limits, Server};
pub use stdio::serve;
#[cfg(any(test, feature = "testing"))]
pub use testing::TestClient;

/// Prompts: what `prompts/list` offers and `prompts/get` returns.
pub mod prompt {
    pub use crate::model::{Prompt, PromptArgument, PromptMessage, Role};
}

/// Resources: a source of them ([`ResourceSource`](crate::resource::ResourceSource)) and what it lists and reads.
pub mod resource {
    pub use crate::model::{
        Page, ResourceBody, ResourceContents, ResourceInfo, ResourceSource, TemplateInfo,
    };
    pub use crate::resources::VariableCompleteFn;
}

/// Serves one session over this process's stdin and stdout until stdin closes.
pub fn run_stdio(server: &Server) -> Result<(), Error> {
    serve(server, std::io::stdin(), std::io::stdout().lock())
}

/// The Rust example of docs/writing-a-tool.md, compiled as a doc test so it cannot rot.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/writing-a-tool.md")]
pub struct WritingAToolDoctest;
