//! The value and spans of a history that `materialize_text` wrote, without reading all of its text:
//! for a caller who hands the text back (a Worker prunes a request body, then plans on the result).
//! Kept items are moved out of the value the text was written from; edited and new items are read from
//! their own text; the spans are the old ones, moved by what was written before them. The result is what
//! reading the whole text would give (the tests compare them), for a fraction of the cost.

use super::{Layout, Slot};
use crate::json::{parse, Spans};
use serde_json::Value;
use std::ops::Range;

/// `text`, written with its item list `at` from `slots`, read as a value with its spans (as
/// `json::parse_with_spans` would), given the value and spans of the text it was written from and the
/// key of its item list (None: the text is the list). None when the parts do not fit together (the
/// caller then reads the text).
pub fn reread(
    text: &str,
    at: &Layout,
    slots: &[Slot],
    mut from: Value,
    mut spans: Spans,
    key: Option<&str>,
) -> Option<(Value, Spans)> {
    let list = match key {
        Some(k) => from.get_mut(k)?,
        None => &mut from,
    }
    .as_array_mut()?;
    if at.items.len() != slots.len() {
        return None;
    }
    let mut old = std::mem::take(list);
    let mut taken = vec![false; old.len()];
    for (slot, span) in slots.iter().zip(&at.items) {
        let item = match slot {
            Slot::Keep(i) if !taken.get(*i).copied().unwrap_or(true) => {
                taken[*i] = true;
                std::mem::take(&mut old[*i])
            }
            // Edited, new, or kept twice: read from the text written. Its nesting is no deeper than the
            // document's read allowed (an edit replaces values with shorter ones) or ctxfold's own.
            _ => parse(text.get(span.clone())?).ok()?,
        };
        list.push(item);
    }
    let Some(key) = key else {
        spans.top = at.items.iter().map(|r| (None, r.clone())).collect();
        return Some((from, spans));
    };
    // A body: its other members are where they were, moved by the list's change of length when after it.
    let index = spans.top.iter().rposition(|(k, _)| k.as_deref() == Some(key))?;
    let by = at.list.end as isize - spans.top[index].1.end as isize;
    let shift = |r: Range<usize>| (r.start as isize + by) as usize..(r.end as isize + by) as usize;
    spans.top[index].1 = at.list.clone();
    for (_, r) in &mut spans.top[index + 1..] {
        *r = shift(r.clone());
    }
    // The list's items in place of the old ones, among the other members' values (in order of parent).
    let before = spans.inner.partition_point(|(parent, _)| *parent < index);
    let mut inner = spans.inner[..before].to_vec();
    for r in &at.items {
        inner.push((index, r.clone()));
    }
    for (parent, r) in &spans.inner[before..] {
        if *parent > index {
            inner.push((*parent, shift(r.clone())));
        }
    }
    spans.inner = inner;
    Some((from, spans))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edit::{items_of, materialize_text, FieldEdit, Key};
    use crate::json::parse_with_spans;
    use serde_json::json;

    /// Every kind of slot, an item kept twice, and items dropped, in a list that is the document and
    /// in a body with members before and after it.
    #[test]
    fn reads_what_reading_the_whole_text_reads() {
        let items = r#"[ {"role":"system","content":"Be brief."},
            {"role":"user","content":[{"type":"text","text":"héllo"}],"x":{"y":[1,2.5e3]}} ,
            {"role":"assistant","content":null,"tool_calls":[{"id":"c1"}]},
            {"role":"tool","tool_call_id":"c1","content":"a long output\nwith lines"}, 7, "odd" ]"#;
        let slots = [
            Slot::Keep(0),
            Slot::New(json!({ "role": "user", "content": "summary" })),
            Slot::Keep(2),
            Slot::Patch { index: 3, edits: vec![FieldEdit::set(vec![Key::field("content")], json!("[cleared]"))] },
            Slot::Keep(1),
            Slot::Keep(1),
            Slot::Keep(5),
        ];
        let body = format!(
            "{{\"model\": \"m\", \"tools\": [{{\"n\":1}}], \"messages\": {items},\n \"z\": [1, {{\"a\":2}}] }}"
        );
        for (text, key) in [(items, None), (body.as_str(), Some("messages"))] {
            let (from, spans) = parse_with_spans(text).unwrap();
            let written = materialize_text(&slots, text, &spans.items(key).unwrap(), items_of(&from, key));
            let reread = reread(&written.text, &written.at, &slots, from, spans.clone(), key).unwrap();
            assert_eq!(reread, parse_with_spans(&written.text).unwrap(), "{key:?}");
        }
    }

    #[test]
    fn parts_that_do_not_fit_are_refused() {
        let text = r#"[{"a":1},{"b":2}]"#;
        let (from, spans) = parse_with_spans(text).unwrap();
        let slots = [Slot::Keep(1)];
        let written = materialize_text(&slots, text, &spans.items(None).unwrap(), items_of(&from, None));
        assert!(reread(&written.text, &written.at, &slots, from.clone(), spans.clone(), Some("messages")).is_none());
        assert!(reread(&written.text, &written.at, &[Slot::Keep(0), Slot::Keep(1)], from, spans, None).is_none());
    }
}
