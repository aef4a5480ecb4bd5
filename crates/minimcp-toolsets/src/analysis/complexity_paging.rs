//! Paging helpers of `analyze_complexity`: what fits in a page's room, the ranking carried
//! into the text, and the note for an offset past the end.

use serde_json::{json, Value};

/// A note for a page that starts past the last item (an empty page, not an error), added to
/// the page's notes and returned for the text.
pub(super) fn past_end(
    page: &mut Value,
    offset: usize,
    total: usize,
    what: &str,
) -> Option<String> {
    if offset == 0 || offset < total {
        return None;
    }
    let note = format!(
        "`offset` {offset} is past the end: there are {total} {what}; call again with offset 0 (or a next_offset) for a page with items."
    );
    if let Some(notes) = page["notes"].as_array_mut() {
        notes.push(json!(note));
    }
    Some(note)
}

pub(super) fn ranking_of(page: &Value) -> Vec<Value> {
    page["top_files"].as_array().cloned().unwrap_or_default()
}

/// Items while their JSON fits in `room` bytes (at least one, so paging always moves on),
/// and the bytes used. Items after the last one taken are never made.
pub(super) fn fit(items: impl Iterator<Item = Value>, room: usize) -> (Vec<Value>, usize) {
    let mut used = 0;
    let mut out = Vec::new();
    for item in items {
        let size = item.to_string().len() + 1;
        if used + size > room && !out.is_empty() {
            break;
        }
        used += size;
        out.push(item);
    }
    (out, used)
}
