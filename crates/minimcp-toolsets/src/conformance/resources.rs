//! The fixture resources: a text and a binary resource, a template whose variable can be
//! completed, and a resource to subscribe to.

use serde_json::json;

use super::media::png_pixel;
use super::tools::RED;
use minimcp::resource::{ResourceContents, ResourceInfo, TemplateInfo};
use minimcp::{Builder, HandlerError};

/// The ids `test://template/{id}/data` suggests when completing `id`.
const TEMPLATE_IDS: [&str; 3] = ["123", "456", "789"];

/// Adds the fixture resources and the template.
pub(super) fn add(builder: Builder) -> Builder {
    builder
        .resource(
            ResourceInfo::new("test://static-text", "static-text")
                .description("A fixed text resource")
                .mime_type("text/plain"),
            |uri, _| {
                Ok(vec![ResourceContents::text(
                    uri,
                    Some("text/plain"),
                    "This is the content of the static text resource.",
                )])
            },
        )
        .resource(
            ResourceInfo::new("test://static-binary", "static-binary")
                .description("A fixed binary resource (a 1x1 PNG)")
                .mime_type("image/png"),
            |uri, _| {
                Ok(vec![ResourceContents::blob(
                    uri,
                    Some("image/png"),
                    &png_pixel(RED),
                )])
            },
        )
        .resource(
            ResourceInfo::new("test://watched-resource", "watched-resource")
                .description("A resource to subscribe to")
                .mime_type("text/plain"),
            |uri, _| {
                Ok(vec![ResourceContents::text(
                    uri,
                    Some("text/plain"),
                    "Watched resource content",
                )])
            },
        )
        .resource_template(
            TemplateInfo::new("test://template/{id}/data", "template")
                .description("JSON data for any id; `id` can be completed")
                .mime_type("application/json"),
            |uri, vars, _| {
                let id = vars
                    .get("id")
                    .ok_or_else(|| HandlerError::NotFound(uri.to_string()))?;
                let data =
                    json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")});
                Ok(vec![ResourceContents::text(
                    uri,
                    Some("application/json"),
                    data.to_string(),
                )])
            },
            Some(Box::new(|variable, value, _, _| {
                if variable != "id" {
                    return Vec::new();
                }
                TEMPLATE_IDS
                    .iter()
                    .filter(|id| id.starts_with(value))
                    .map(|id| id.to_string())
                    .collect()
            })),
        )
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::super::tests::{response, session};

    fn request(id: i64, method: &str, params: Value) -> Value {
        json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
    }

    #[test]
    fn resources_read_as_the_suite_expects() {
        let read = |uri: &str| request(1, "resources/read", json!({"uri": uri}));
        let first =
            |uri: &str| response(&session(&[read(uri)]), 1)["result"]["contents"][0].clone();
        assert_eq!(
            first("test://static-text"),
            json!({"uri": "test://static-text", "mimeType": "text/plain",
                   "text": "This is the content of the static text resource."})
        );
        let binary = first("test://static-binary");
        assert_eq!(binary["mimeType"], "image/png");
        assert!(binary["blob"]
            .as_str()
            .is_some_and(|b| b.starts_with("iVBORw0KGgo")));
        let templated = first("test://template/123/data");
        assert_eq!(templated["uri"], "test://template/123/data");
        assert_eq!(templated["mimeType"], "application/json");
        let data: Value =
            serde_json::from_str(templated["text"].as_str().expect("text")).expect("json");
        assert_eq!(
            data,
            json!({"id": "123", "templateTest": true, "data": "Data for ID: 123"})
        );
    }

    #[test]
    fn listing_subscribing_and_completing() {
        let lines = session(&[
            request(1, "resources/list", json!({})),
            request(2, "resources/templates/list", json!({})),
            request(
                3,
                "resources/subscribe",
                json!({"uri": "test://watched-resource"}),
            ),
            request(
                4,
                "resources/unsubscribe",
                json!({"uri": "test://watched-resource"}),
            ),
            request(
                5,
                "completion/complete",
                json!({
                "ref": {"type": "ref/resource", "uri": "test://template/{id}/data"},
                "argument": {"name": "id", "value": "4"}}),
            ),
        ]);
        let uris: Vec<Value> = response(&lines, 1)["result"]["resources"]
            .as_array()
            .expect("array")
            .iter()
            .map(|r| r["uri"].clone())
            .collect();
        assert_eq!(
            uris,
            [
                json!("test://static-text"),
                json!("test://static-binary"),
                json!("test://watched-resource")
            ]
        );
        assert_eq!(
            response(&lines, 2)["result"]["resourceTemplates"][0]["uriTemplate"],
            "test://template/{id}/data"
        );
        assert_eq!(response(&lines, 3)["result"], json!({}));
        assert_eq!(response(&lines, 4)["result"], json!({}));
        assert_eq!(
            response(&lines, 5)["result"]["completion"]["values"],
            json!(["456"])
        );
    }
}
