//! The five tools' definitions (schemas, annotations), registering the handlers that
//! live in `listing.rs`, `generate.rs` and `scaffold.rs`. Every result fits
//! `ctx.result_budget()`: lists page by item and a generated file by byte (`offset` in,
//! `next_offset` out); the argument readers and paging the handlers share are in `args.rs`.

use serde_json::{json, Value};

use super::catalog::{self, Entry};
use super::{generate, listing, scaffold};
use crate::Tool;

/// Longest accepted query or URI argument.
const MAX_ARG_BYTES: usize = 512;

/// Every tool of the toolset.
pub(crate) fn tools() -> Vec<Tool> {
    let uri = json!({"type": "string", "minLength": 1, "maxLength": MAX_ARG_BYTES,
        "description": "A template URI, template://<category>/<toolchain>/<variant>, e.g. template://makefile/rust/cli (see list_templates)."});
    let parameters = json!({"type": "object",
        "description": "Parameter values by name, e.g. {\"project_name\": \"my-tool\", \"has_tests\": true}; list_templates shows each template's parameters."});
    let offset = |what: &str| {
        json!({"type": "integer", "minimum": 0, "default": 0,
            "description": format!("Where to continue: the next_offset of the previous call ({what}).")})
    };
    let categories = catalog::distinct(Entry::category);
    let toolchains = catalog::distinct(Entry::toolchain);
    let error_props = json!({"type": "object"});
    vec![
        Tool::new(
            "list_templates",
            "List the embedded project file templates with their URIs, the file each produces and their parameters (name, type, required, default, description, pattern). Filter by toolchain and/or category.",
            json!({
                "type": "object",
                "properties": {
                    "toolchain": {"enum": toolchains, "description": "Only this toolchain's templates."},
                    "category": {"enum": categories, "description": "Only this category's templates."},
                    "offset": offset("a template index"),
                },
                "additionalProperties": false
            }),
            listing::list_templates,
        )
        .title("List project templates")
        .output_schema(paged(json!({
            "templates": {"type": "array", "items": template_schema()},
            "total": {"type": "integer", "minimum": 0},
        }), &["templates", "total"]))
        .annotations(read_only()),
        Tool::new(
            "search_templates",
            "Find templates by free text, e.g. \"docker go\" or \"typescript library makefile\". Each result has a relevance score from 0 to 1: per query word 3 points when it names the category, toolchain or variant (or an alias such as docker, typescript, uv, library), else 2 when it is a word of the title or description, else 1 when it begins one; the sum is divided by 3 x the number of words.",
            json!({
                "type": "object",
                "properties": {
                    "query": {"type": "string", "minLength": 1, "maxLength": MAX_ARG_BYTES, "description": "Words describing the file wanted."},
                    "toolchain": {"enum": toolchains, "description": "Only this toolchain's templates."},
                    "offset": offset("a result index"),
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
                    "score": {"type": "number", "minimum": 0, "maximum": 1},
                },
                "required": ["uri", "title", "description", "filename", "score"]
            }},
            "total": {"type": "integer", "minimum": 0},
        }), &["query", "results", "total"]))
        .annotations(read_only()),
        Tool::new(
            "validate_template",
            "Check parameters against a template's declarations without rendering it: valid, every problem (unknown names, wrong types, values not matching the pattern), and the required parameters missing.",
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
            "Render one template with parameters and return the file's content, its file name and its SHA-256 checksum (of the whole file). Nothing is written to disk. A file larger than the result budget comes in pages: call again with offset = next_offset.",
            json!({
                "type": "object",
                "properties": {
                    "resource_uri": uri, "parameters": parameters,
                    "offset": offset("a byte offset into the file"),
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
            "content": {"type": "string", "description": "The file, or the page of it from offset."},
            "checksum": {"type": "string", "description": "sha256:<64 hex digits> of the whole file, as sha256sum prints it."},
            "size": {"type": "integer", "minimum": 0, "description": "Bytes in the whole file."},
            "offset": {"type": "integer", "minimum": 0},
        }), &["uri", "filename", "content", "checksum", "size", "offset"]))
        .annotations(read_only()),
        Tool::new(
            "scaffold_project",
            "Render several templates of one toolchain with one set of parameters and return the files (path and content), never written to disk. Each failing template is reported in errors and the others are still returned. Without `templates`, every category of the toolchain is rendered.",
            json!({
                "type": "object",
                "properties": {
                    "toolchain": {"enum": toolchains, "description": "The project's toolchain."},
                    "templates": {"type": "array", "maxItems": 32, "items": {"type": "string", "minLength": 1, "maxLength": MAX_ARG_BYTES},
                        "description": "Which files: a category (\"makefile\"), a category/variant (\"readme/lib\") or a template URI. Default: every category."},
                    "variant": {"type": "string", "default": "cli", "maxLength": 32,
                        "description": "The variant for categories given without one (cli, lib or service); a category with a single variant (gitignore, dockerfile, ci) uses it."},
                    "parameters": parameters,
                    "offset": offset("a file index"),
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
            "total": {"type": "integer", "minimum": 0},
        }), &["toolchain", "files", "errors", "total"]))
        .annotations(read_only()),
    ]
}

fn read_only() -> Value {
    json!({"readOnlyHint": true, "openWorldHint": false})
}

/// An output schema: `properties` plus `next_offset`, present when there is more.
fn paged(mut properties: Value, required: &[&str]) -> Value {
    properties["next_offset"] = json!({"type": "integer", "minimum": 0,
        "description": "Present when there is more: pass it as offset."});
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
                    "default": {"type": ["string", "boolean", "number", "array"],
                        "description": "The value used when the parameter is not given, of its type."},
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
