//! Prompts: listing them, and getting one with its arguments checked.

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

use super::handler::handler_error;
use super::handler::{invalid, string};
use super::tools::content_json;
use super::{Outcome, Session};
use crate::context::Client;
use crate::error::McpError;
use crate::model::Prompt;
use minimcp_base::request_state::Binding;

impl<'s> Session<'s> {
    pub(super) fn list_prompts(&self, params: &Map<String, Value>, client: &Client) -> Outcome {
        let server = self.server;
        self.list(params, "prompts", "prompts", &server.prompts, |prompt| {
            server.prompt_json(prompt, client.version)
        })
    }

    pub(super) fn get_prompt(
        &mut self,
        mut params: Map<String, Value>,
        client: &Client,
    ) -> Outcome {
        let given = params.remove("arguments");
        let what = "`name` must be a string: the prompt to get";
        let name = string(&params, "name", what)?;
        let prompt = self.prompt(name)?;
        let given = match given {
            None => Map::new(),
            Some(Value::Object(map)) => map,
            Some(_) => return Err(invalid("`arguments` must be an object of strings")),
        };
        let mut arguments = BTreeMap::new();
        for (key, value) in &given {
            let Some(value) = value.as_str() else {
                return Err(invalid(format!(
                    "prompt arguments are strings; `{key}` is not"
                )));
            };
            if !prompt.arguments.iter().any(|a| a.name == *key) {
                let names: Vec<&str> = prompt.arguments.iter().map(|a| a.name.as_str()).collect();
                let takes = Some(names.join(", ")).filter(|t| !t.is_empty());
                let takes = takes.unwrap_or_else(|| "no arguments".into());
                return Err(invalid(format!(
                    "unknown argument `{key}` for prompt {name}; it takes: {takes}"
                )));
            }
            arguments.insert(key.clone(), value.to_string());
        }
        if let Some(missing) = prompt
            .arguments
            .iter()
            .find(|a| a.required && !arguments.contains_key(&a.name))
        {
            return Err(invalid(format!(
                "missing required argument `{}` for prompt {name}",
                missing.name
            )));
        }
        let bound = Value::Object(given);
        let binding = Binding {
            method: "prompts/get",
            target: name,
            arguments: &bound,
        };
        let mut scope = self.scope(client);
        scope.inputs = self.sealed_inputs(client, &binding, &params)?;
        let (result, inputs) = self.run_handler(scope, |ctx| (prompt.handler)(&arguments, ctx));
        match result {
            Some(Ok(messages)) => {
                let version = client.version;
                let messages: Vec<Value> = messages
                    .iter()
                    .map(
                        |m| json!({ "role": m.role, "content": content_json(&m.content, version) }),
                    )
                    .collect();
                Ok(json!({ "description": prompt.description, "messages": messages }))
            }
            Some(Err(error)) => self
                .input_outcome(client, &error, &binding, &inputs)
                .unwrap_or_else(|| Err(handler_error(error, &format!("prompt {name}")))),
            None => Err(McpError::Internal),
        }
    }

    /// The prompt called `name`.
    pub(super) fn prompt(&self, name: &str) -> Result<&'s Prompt, McpError> {
        let server = self.server;
        let prompt = server.prompt_index.get(name).map(|&i| &server.prompts[i]);
        prompt.ok_or_else(|| McpError::UnknownPrompt(name.to_string()))
    }
}
