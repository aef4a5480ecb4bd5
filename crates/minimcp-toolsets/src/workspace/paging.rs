//! Paging for tools whose results can outgrow the result budget (`ctx.result_budget()`):
//! items are taken from `offset` on while both the text and the `structuredContent` they
//! add stay within the budget, and `next_offset` says where the next page starts.
//!
//! Both parts are counted because a client may show the model either one: Claude Code shows
//! only `structuredContent` when it is present, others only the text.

use serde_json::Value;

/// Bytes of the budget kept back for what a tool adds around its items (the envelope, the
/// notes, the paging hint).
pub(crate) const RESERVE_BYTES: usize = 4096;

/// One page of items being collected.
#[derive(Debug)]
pub(crate) struct Page {
    offset: usize,
    max_items: usize,
    budget: usize,
    text_bytes: usize,
    json_bytes: usize,
    /// Items seen so far, including those before `offset`.
    seen: usize,
    /// True once an item did not fit (or `max_items` was reached): later items only count.
    full: bool,
    /// The text lines of the items taken.
    pub(crate) lines: Vec<String>,
    /// The structured items taken.
    pub(crate) items: Vec<Value>,
}

impl Page {
    /// A page starting at item `offset`, of at most `max_items` items and about `budget`
    /// bytes of text and of JSON (each; [`RESERVE_BYTES`] are kept back).
    pub(crate) fn new(offset: usize, max_items: usize, budget: usize) -> Page {
        Page {
            offset,
            max_items: max_items.max(1),
            budget: budget.saturating_sub(RESERVE_BYTES).max(1024),
            text_bytes: 0,
            json_bytes: 0,
            seen: 0,
            full: false,
            lines: Vec::new(),
            items: Vec::new(),
        }
    }

    /// Offers the next item in order; true when it was taken. Items before the offset and
    /// after the page is full are only counted.
    pub(crate) fn offer(&mut self, line: impl FnOnce() -> (String, Value)) -> bool {
        self.seen += 1;
        if self.seen <= self.offset || self.full {
            return false;
        }
        if self.items.len() >= self.max_items {
            self.full = true;
            return false;
        }
        let (line, item) = line();
        let json = minimcp_base::json_size(&item) + 1;
        let text = line.len() + 1;
        let over = self.text_bytes + text > self.budget || self.json_bytes + json > self.budget;
        // The first item of a page is always taken, so paging always moves on; a single item
        // larger than the budget is the tool's to cut.
        if over && !self.items.is_empty() {
            self.full = true;
            return false;
        }
        self.text_bytes += text;
        self.json_bytes += json;
        self.lines.push(line);
        self.items.push(item);
        true
    }

    /// Items offered so far (the total, once all were offered).
    pub(crate) fn seen(&self) -> usize {
        self.seen
    }

    /// Where the next page starts, when items were left out after this one.
    pub(crate) fn next_offset(&self) -> Option<usize> {
        let end = self.offset + self.items.len();
        (self.seen > end).then_some(end)
    }

    /// The offset this page started at.
    pub(crate) fn offset(&self) -> usize {
        self.offset
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn item(n: usize, size: usize) -> (String, Value) {
        ("x".repeat(size), json!(n))
    }

    #[test]
    fn takes_from_the_offset_until_the_budget() {
        let mut page = Page::new(2, 100, RESERVE_BYTES + 1024);
        for n in 0..10 {
            page.offer(|| item(n, 300));
        }
        // 1024 bytes hold three 301-byte lines.
        assert_eq!(page.items, [json!(2), json!(3), json!(4)]);
        assert_eq!(page.seen(), 10);
        assert_eq!(page.next_offset(), Some(5));
    }

    #[test]
    fn counts_items_and_always_takes_one() {
        let mut page = Page::new(0, 2, 0);
        for n in 0..3 {
            page.offer(|| item(n, 5000));
        }
        assert_eq!(page.items, [json!(0)], "one oversized item still moves on");
        let mut page = Page::new(0, 2, 1 << 20);
        for n in 0..3 {
            page.offer(|| item(n, 1));
        }
        assert_eq!((page.items.len(), page.next_offset()), (2, Some(2)));
        let mut last = Page::new(1, 10, 1 << 20);
        for n in 0..3 {
            last.offer(|| item(n, 1));
        }
        assert_eq!((last.items.len(), last.next_offset()), (2, None));
    }
}
