//! The errors of the original templates specification, and how they reach a client.
//!
//! Its codes (template not found −32000, invalid template URI −32001, parameter validation
//! failed −32002, rate limit −32003) collide with codes MCP and minimcp already use as
//! JSON-RPC errors (−32002 is MCP's resource not found; −32000, −32001 and −32003 are
//! minimcp's rate limit, response too large and overloaded). So tools never send them as
//! JSON-RPC errors: they answer `isError: true` with a message naming what to change, and
//! `structuredContent.error = {code, kind, message}` carrying the spec's code. Resources
//! answer with MCP's own codes (see `resources.rs`); the spec's rate limit is the server's
//! `--rate-limit` (JSON-RPC −32000).

use serde_json::{json, Value};
use thiserror::Error;

use super::validate::Problem;
use minimcp::{Content, ToolOutput};

/// A templates-specification error, reported as a tool error.
#[derive(Debug, Error)]
pub(crate) enum TemplateError {
    /// No template has this URI (or a filter names no known category or toolchain).
    #[error("{0}")]
    NotFound(String),
    /// The URI is not `template://<category>/<toolchain>/<variant>`.
    #[error("{0}")]
    InvalidUri(String),
    /// The parameters do not satisfy the template's declarations.
    #[error("the parameters of {uri} are not valid: {}", summary(.errors, .missing_required))]
    InvalidParameters {
        /// The template URI, or what the parameters were for.
        uri: String,
        errors: Vec<Problem>,
        missing_required: Vec<String>,
    },
}

fn summary(errors: &[Problem], missing: &[String]) -> String {
    let mut parts: Vec<String> = Vec::new();
    if !missing.is_empty() {
        parts.push(format!("add the required {}", missing.join(", ")));
    }
    parts.extend(errors.iter().map(|p| p.message.clone()));
    parts.join("; ")
}

impl TemplateError {
    /// The code the original specification gives this error.
    pub(crate) fn spec_code(&self) -> i64 {
        match self {
            TemplateError::NotFound(_) => -32000,
            TemplateError::InvalidUri(_) => -32001,
            TemplateError::InvalidParameters { .. } => -32002,
        }
    }

    fn kind(&self) -> &'static str {
        match self {
            TemplateError::NotFound(_) => "template_not_found",
            TemplateError::InvalidUri(_) => "invalid_template_uri",
            TemplateError::InvalidParameters { .. } => "parameter_validation_failed",
        }
    }

    /// The error as JSON: `{code, kind, message}`, plus the problems for invalid parameters.
    pub(crate) fn to_json(&self) -> Value {
        let mut out =
            json!({"code": self.spec_code(), "kind": self.kind(), "message": self.to_string()});
        if let TemplateError::InvalidParameters {
            errors,
            missing_required,
            ..
        } = self
        {
            out["errors"] = json!(errors.iter().map(Problem::to_json).collect::<Vec<_>>());
            out["missing_required"] = json!(missing_required);
        }
        out
    }

    /// The `isError` result a tool returns.
    pub(crate) fn to_output(&self) -> ToolOutput {
        ToolOutput {
            content: vec![Content::text(format!(
                "{} (templates error {})",
                self,
                self.spec_code()
            ))],
            structured: Some(json!({"error": self.to_json()})),
            is_error: true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_follow_the_original_specification() {
        assert_eq!(TemplateError::NotFound("x".into()).spec_code(), -32000);
        assert_eq!(TemplateError::InvalidUri("x".into()).spec_code(), -32001);
        let invalid = TemplateError::InvalidParameters {
            uri: "template://makefile/rust/cli".into(),
            errors: vec![Problem {
                parameter: "port".into(),
                message: "port must be between 1 and 65535, not 0".into(),
            }],
            missing_required: vec!["project_name".into()],
        };
        assert_eq!(invalid.spec_code(), -32002);
        let output = invalid.to_output();
        assert!(output.is_error);
        let structured = output.structured.expect("structured");
        assert_eq!(structured["error"]["code"], -32002);
        assert_eq!(structured["error"]["missing_required"][0], "project_name");
        assert_eq!(
            structured["error"]["message"],
            "the parameters of template://makefile/rust/cli are not valid: add the required project_name; port must be between 1 and 65535, not 0"
        );
    }
}
