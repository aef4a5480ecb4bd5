//! The templates as resources: each `template://<category>/<toolchain>/<variant>` reads as
//! its source text (the template, not a rendering), and the resource template
//! `template://{category}/{toolchain}/{variant}` completes each variable from the manifest,
//! narrowed by the variables already chosen.
//!
//! Errors use MCP's codes, not the templates specification's (see `error.rs`): a
//! `template://` URI naming no template is resource-not-found (−32002 before 2026-07-28,
//! as for every resource), a malformed one is invalid params (−32602).

use std::collections::BTreeMap;

use super::catalog::{self, Entry};
use super::error::TemplateError;
use super::{resolve, SCHEME};
use minimcp::resource::{Page, ResourceContents, ResourceInfo, ResourceSource, TemplateInfo};
use minimcp::{Context, HandlerError};

/// The resource template every template URI matches.
pub(crate) const URI_TEMPLATE: &str = "template://{category}/{toolchain}/{variant}";

/// The embedded templates as a [`ResourceSource`].
pub(crate) struct Templates;

fn info(entry: &Entry) -> ResourceInfo {
    let mut info = ResourceInfo::new(entry.uri(), entry.name())
        .title(entry.title())
        .description(entry.source.description)
        .mime_type(entry.mime_type());
    info.size = Some(entry.source.text.len() as u64);
    info
}

impl ResourceSource for Templates {
    fn list(
        &self,
        offset: usize,
        limit: usize,
        _ctx: &mut Context<'_>,
    ) -> Result<Page<ResourceInfo>, HandlerError> {
        let total = catalog::entries().count();
        let items: Vec<ResourceInfo> = catalog::entries()
            .skip(offset)
            .take(limit)
            .map(|e| info(&e))
            .collect();
        Ok(Page {
            more: offset + items.len() < total,
            items,
        })
    }

    fn templates(&self) -> Vec<TemplateInfo> {
        vec![TemplateInfo {
            uri_template: URI_TEMPLATE.into(),
            name: "template".into(),
            title: Some("Project file template".into()),
            description: Some("An embedded project file template (its source); render it with generate_template. category: makefile, readme, gitignore, dockerfile, ci; toolchain: rust, python, deno, go; variant: cli, lib, service, default or github.".into()),
            ..TemplateInfo::default()
        }]
    }

    fn read(
        &self,
        uri: &str,
        _ctx: &mut Context<'_>,
    ) -> Result<Option<Vec<ResourceContents>>, HandlerError> {
        if !uri.starts_with(SCHEME) {
            return Ok(None);
        }
        match resolve(uri) {
            Ok(entry) => Ok(Some(vec![ResourceContents::text(
                uri,
                Some(entry.mime_type()),
                entry.source.text,
            )])),
            Err(e @ TemplateError::NotFound(_)) => Err(HandlerError::NotFound(e.to_string())),
            Err(e) => Err(HandlerError::Invalid(e.to_string())),
        }
    }

    fn complete(
        &self,
        template: &str,
        variable: &str,
        value: &str,
        context: &BTreeMap<String, String>,
        _ctx: &mut Context<'_>,
    ) -> Option<Vec<String>> {
        if template != URI_TEMPLATE {
            return None;
        }
        let chosen = |name: &str, actual: &str| {
            name == variable
                || context
                    .get(name)
                    .is_none_or(|v| v.is_empty() || v == actual)
        };
        let mut out: Vec<String> = Vec::new();
        for entry in catalog::entries() {
            if !(chosen("category", entry.category())
                && chosen("toolchain", entry.toolchain())
                && chosen("variant", entry.variant))
            {
                continue;
            }
            let candidate = match variable {
                "category" => entry.category(),
                "toolchain" => entry.toolchain(),
                "variant" => entry.variant,
                _ => return Some(Vec::new()),
            };
            if candidate.starts_with(value) && !out.iter().any(|c| c == candidate) {
                out.push(candidate.to_string());
            }
        }
        Some(out)
    }

    /// Embedded templates never change.
    fn fingerprint(&self, uri: &str) -> Option<u64> {
        resolve(uri).ok().map(|_| 0)
    }
}
