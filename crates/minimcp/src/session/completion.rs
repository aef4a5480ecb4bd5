//! `completion/complete`: values for a prompt's argument or a resource template's variable.

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

use super::handler::{invalid, object, string};
use super::{Outcome, Session};
use crate::context::Client;
use crate::context::{Context, Scope};
use crate::error::McpError;

/// Completion results carry at most this many values (MCP CP-3).
const MAX_COMPLETIONS: usize = 100;
const REF_TYPE: &str = "`ref.type` must be \"ref/prompt\" or \"ref/resource\"";

impl Session<'_> {
    pub(super) fn complete(&mut self, params: &Map<String, Value>, client: &Client) -> Outcome {
        let server = self.server;
        let reference = object(params, "ref", "`ref` must be an object: {\"type\": \"ref/prompt\", \"name\"} or {\"type\": \"ref/resource\", \"uri\"}")?;
        let what = "`argument` must be an object with `name` and `value`";
        let argument = object(params, "argument", what)?;
        let strings = "`argument.name` and `argument.value` must be strings";
        let arg_name = string(argument, "name", strings)?;
        let value = string(argument, "value", strings)?;
        let mut context = BTreeMap::new();
        if let Some(given) = params.get("context").and_then(|c| c.get("arguments")) {
            let given = given
                .as_object()
                .ok_or_else(|| invalid("`context.arguments` must be an object of strings"))?;
            for (k, v) in given {
                let v = v
                    .as_str()
                    .ok_or_else(|| invalid(format!("`context.arguments.{k}` must be a string")))?;
                context.insert(k.clone(), v.to_string());
            }
        }
        let scope = self.scope(client);
        let values = match reference.get("type").and_then(Value::as_str) {
            Some("ref/prompt") => {
                let name = string(reference, "name", "`ref.name` must be a string")?;
                let prompt = self.prompt(name)?;
                let arg = prompt.arguments.iter().find(|a| a.name == arg_name);
                let missing = || invalid(format!("prompt {name} has no argument `{arg_name}`"));
                let arg = arg.ok_or_else(missing)?;
                match &arg.completer {
                    Some(completer) => {
                        self.run_completer(scope, |ctx| completer(value, &context, ctx))?
                    }
                    None => Vec::new(),
                }
            }
            Some("ref/resource") => {
                let what = "`ref.uri` must be a string: a resource template";
                let template = string(reference, "uri", what)?;
                let found = self.run_completer(scope, |ctx| {
                    let mut sources = server.sources.iter();
                    sources.find_map(|s| s.complete(template, arg_name, value, &context, ctx))
                })?;
                let unknown =
                    format!("no resource template {template:?}; see resources/templates/list");
                found.ok_or_else(|| invalid(unknown))?
            }
            _ => return Err(invalid(REF_TYPE)),
        };
        let (total, has_more) = (values.len(), values.len() > MAX_COMPLETIONS);
        let values: Vec<String> = values.into_iter().take(MAX_COMPLETIONS).collect();
        Ok(json!({ "completion": { "values": values, "total": total, "hasMore": has_more } }))
    }

    /// Runs a completer under a context; a panic becomes −32603.
    fn run_completer<T>(
        &mut self,
        scope: Scope,
        completer: impl FnOnce(&mut Context<'_>) -> T,
    ) -> Result<T, McpError> {
        match self.run_handler(scope, |ctx| Ok(completer(ctx))) {
            (Some(Ok(values)), _) => Ok(values),
            _ => Err(McpError::Internal),
        }
    }
}
