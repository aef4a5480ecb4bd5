//! Fixed resources and resource templates registered with the builder, served as one
//! [`ResourceSource`].

use std::collections::BTreeMap;

use crate::context::Context;
use crate::model::{
    HandlerError, Page, ResourceContents, ResourceInfo, ResourceSource, TemplateInfo,
};
use minimcp_base::uri_template::UriTemplate;

/// Reads a fixed resource: `(uri, ctx) -> contents`.
pub(crate) type ReadFn =
    dyn Fn(&str, &mut Context<'_>) -> Result<Vec<ResourceContents>, HandlerError>;
/// Reads a templated resource: `(uri, variables, ctx) -> contents`.
pub(crate) type TemplateReadFn = dyn Fn(
    &str,
    &BTreeMap<String, String>,
    &mut Context<'_>,
) -> Result<Vec<ResourceContents>, HandlerError>;
/// Completes a template variable: `(variable, partial value, other variables, ctx) ->
/// suggestions`.
pub type VariableCompleteFn =
    dyn Fn(&str, &str, &BTreeMap<String, String>, &mut Context<'_>) -> Vec<String>;

pub(crate) struct Template {
    pub(crate) info: TemplateInfo,
    pub(crate) parsed: UriTemplate,
    pub(crate) read: Box<TemplateReadFn>,
    pub(crate) complete: Option<Box<VariableCompleteFn>>,
}

/// The resources and templates added with [`crate::Builder::resource`] and
/// [`crate::Builder::resource_template`].
#[derive(Default)]
pub(crate) struct StaticResources {
    pub(crate) resources: Vec<(ResourceInfo, Box<ReadFn>)>,
    pub(crate) templates: Vec<Template>,
}

impl StaticResources {
    pub(crate) fn is_empty(&self) -> bool {
        self.resources.is_empty() && self.templates.is_empty()
    }
}

impl ResourceSource for StaticResources {
    fn list(
        &self,
        offset: usize,
        limit: usize,
        _ctx: &mut Context<'_>,
    ) -> Result<Page<ResourceInfo>, HandlerError> {
        let items: Vec<ResourceInfo> = self
            .resources
            .iter()
            .skip(offset)
            .take(limit)
            .map(|(info, _)| info.clone())
            .collect();
        Ok(Page {
            more: offset + items.len() < self.resources.len(),
            items,
        })
    }

    fn templates(&self) -> Vec<TemplateInfo> {
        self.templates.iter().map(|t| t.info.clone()).collect()
    }

    fn read(
        &self,
        uri: &str,
        ctx: &mut Context<'_>,
    ) -> Result<Option<Vec<ResourceContents>>, HandlerError> {
        if let Some((_, read)) = self.resources.iter().find(|(info, _)| info.uri == uri) {
            return read(uri, ctx).map(Some);
        }
        for template in &self.templates {
            if let Some(vars) = template.parsed.matches(uri) {
                return (template.read)(uri, &vars, ctx).map(Some);
            }
        }
        Ok(None)
    }

    fn complete(
        &self,
        template: &str,
        variable: &str,
        value: &str,
        context: &BTreeMap<String, String>,
        ctx: &mut Context<'_>,
    ) -> Option<Vec<String>> {
        let found = self
            .templates
            .iter()
            .find(|t| t.info.uri_template == template)?;
        let complete = found.complete.as_ref();
        Some(complete.map_or_else(Vec::new, |complete| complete(variable, value, context, ctx)))
    }

    /// Fixed resources never change; they only need to exist to be subscribed to.
    fn fingerprint(&self, uri: &str) -> Option<u64> {
        let fixed = self.resources.iter().any(|(info, _)| info.uri == uri);
        let templated = || {
            self.templates
                .iter()
                .any(|t| t.parsed.matches(uri).is_some())
        };
        (fixed || templated()).then_some(0)
    }
}
