//! The five tools' definitions (schemas, annotations), registering the handlers that
//! live in `listing.rs`, `generate.rs` and `scaffold.rs`. Every result fits
//! `ctx.result_budget()`: lists page by item and a generated file by byte (`offset` in,
//! `next_offset` out); the argument readers and paging the handlers share are in `args.rs`.

use serde_json::{json, Value};

use super::catalog::{self, Entry};
use super::{generate, listing, scaffold};
use minimcp::Tool;

/// Longest accepted query or URI argument.
const MAX_ARG_BYTES: usize = 512;

/// Every tool of the toolset.
pub(crate) fn tools() -> Vec<Tool> {
    let uri = json!({"type": "string", "minLength": 1, "maxLength": MAX_ARG_BYTES,
        "description": "e.g. template://makefile/rust/cli (list_templates)."});
    let parameters = json!({"type": "object",
        "description": "By name, as list_templates gives them."});
    let offset =
        json!({"type": "integer", "minimum": 0, "default": 0, "description": "From next_offset."});
    let categories = catalog::distinct(Entry::category);
    let toolchains = catalog::distinct(Entry::toolchain);
    let error_props = json!({"type": "object"});
    vec![
        Tool::new(
            "list_templates",
            "List the project file templates: URI, file produced, parameters.",
            json!({
                "type": "object",
                "properties": {
                    "toolchain": {"enum": toolchains},
                    "category": {"enum": categories},
                    "offset": offset.clone(),
                },
                "additionalProperties": false
            }),
            listing::list_templates,
        )
        .title("List project templates")
        .output_schema(paged(json!({
            "templates": {"type": "array", "items": template_schema()},
            "total": {"type": "integer"},
        }), &["templates", "total"]))
        .annotations(read_only()),
        Tool::new(
            "search_templates",
            "Find templates by free text, e.g. \"docker go\", \"typescript library makefile\"; best first.",
            json!({
                "type": "object",
                "properties": {
                    "query": {"type": "string", "minLength": 1, "maxLength": MAX_ARG_BYTES},
                    "toolchain": {"enum": toolchains},
                    "offset": offset.clone(),
                },
                "required": ["query"],
                "additionalProperties": false
            }),
            listing::search_templates,
        )
        .title("Search project templates")
        .output_schema(paged(json!({
            "query": {"type": "string"},
            "results": {"type": "array", "items": {
                "type": "object",
                "properties": {
                    "uri": {"type": "string"}, "title": {"type": "string"},
                    "description": {"type": "string"}, "filename": {"type": "string"},
                    "score": {"type": "number"},
                },
                "required": ["uri", "title", "description", "filename", "score"]
            }},
            "total": {"type": "integer"},
        }), &["query", "results", "total"]))
        .annotations(read_only()),
        Tool::new(
            "validate_template",
            "Check parameters against a template without rendering it.",
            json!({
                "type": "object",
                "properties": {"resource_uri": uri, "parameters": parameters},
                "required": ["resource_uri"],
                "additionalProperties": false
            }),
            generate::validate_template,
        )
        .title("Validate template parameters")
        .output_schema(json!({
            "type": "object",
            "properties": {
                "uri": {"type": "string"},
                "valid": {"type": "boolean"},
                "errors": {"type": "array", "items": problem_schema()},
                "missing_required": {"type": "array", "items": {"type": "string"}},
            },
            "required": ["uri", "valid", "errors", "missing_required"]
        }))
        .annotations(read_only()),
        Tool::new(
            "generate_template",
            "Render one template: the file's content, name and SHA-256; nothing is written. Paged: pass next_offset back as offset.",
            json!({
                "type": "object",
                "properties": {
                    "resource_uri": uri, "parameters": parameters,
                    "offset": offset.clone(),
                },
                "required": ["resource_uri"],
                "additionalProperties": false
            }),
            generate::generate_template,
        )
        .title("Generate a file from a template")
        .output_schema(paged(json!({
            "uri": {"type": "string"},
            "filename": {"type": "string"},
            "content": {"type": "string"},
            "checksum": {"type": "string", "description": "sha256:<hex> of the whole file"},
            "size": {"type": "integer", "description": "bytes in the whole file"},
            "offset": {"type": "integer"},
        }), &["uri", "filename", "content", "checksum", "size", "offset"]))
        .annotations(read_only()),
        Tool::new(
            "scaffold_project",
            "Render several templates of one toolchain with one set of parameters; nothing is written. Without `templates`, every category.",
            json!({
                "type": "object",
                "properties": {
                    "toolchain": {"enum": toolchains},
                    "templates": {"type": "array", "maxItems": 32, "items": {"type": "string", "minLength": 1, "maxLength": MAX_ARG_BYTES},
                        "description": "Categories (\"makefile\"), \"readme/lib\" or URIs."},
                    "variant": {"type": "string", "default": "cli", "maxLength": 32,
                        "description": "cli, lib or service, where a category has several."},
                    "parameters": parameters,
                    "offset": offset.clone(),
                },
                "required": ["toolchain"],
                "additionalProperties": false
            }),
            scaffold::scaffold_project,
        )
        .title("Scaffold project files")
        .output_schema(paged(json!({
            "toolchain": {"type": "string"},
            "files": {"type": "array", "items": {
                "type": "object",
                "properties": {
                    "path": {"type": "string"}, "content": {"type": "string"},
                    "uri": {"type": "string"}, "checksum": {"type": "string"},
                },
                "required": ["path", "content", "uri", "checksum"]
            }},
            "errors": {"type": "array", "items": {
                "type": "object",
                "properties": {"template": {"type": "string"}, "error": error_props},
                "required": ["template", "error"]
            }},
            "total": {"type": "integer"},
        }), &["toolchain", "files", "errors", "total"]))
        .annotations(read_only()),
    ]
}

fn read_only() -> Value {
    json!({"readOnlyHint": true, "openWorldHint": false})
}

/// An output schema: `properties` plus `next_offset`, present when there is more.
fn paged(mut properties: Value, required: &[&str]) -> Value {
    properties["next_offset"] = json!({"type": "integer"});
    json!({"type": "object", "properties": properties, "required": required})
}

fn problem_schema() -> Value {
    json!({"type": "object",
        "properties": {"parameter": {"type": "string"}, "message": {"type": "string"}},
        "required": ["parameter", "message"]})
}

fn template_schema() -> Value {
    json!({"type": "object",
        "properties": {
            "uri": {"type": "string"}, "title": {"type": "string"}, "description": {"type": "string"},
            "category": {"type": "string"}, "toolchain": {"type": "string"}, "variant": {"type": "string"},
            "filename": {"type": "string"},
            "parameters": {"type": "array", "items": {"type": "object",
                "properties": {
                    "name": {"type": "string"}, "type": {"enum": ["string", "boolean", "number", "array"]},
                    "required": {"type": "boolean"}, "description": {"type": "string"},
                    // One type per branch: a list of types is a union, which strict
                    // validators (the MCP Inspector's Ajv) warn about.
                    "default": {"anyOf": [{"type": "string"}, {"type": "boolean"},
                        {"type": "number"}, {"type": "array"}]},
                    "pattern": {"type": "string"},
                    "minimum": {"type": "number"}, "maximum": {"type": "number"},
                },
                "required": ["name", "type", "required", "description"]}},
        },
        "required": ["uri", "title", "description", "category", "toolchain", "variant", "filename", "parameters"]})
}

#[cfg(test)]
#[path = "tools_tests.rs"]
mod tests;
