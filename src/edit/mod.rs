//! What an operation did to the history, as data: each output message is the caller's own message
//! (kept as the very same object by the binding), a copy of one with edits at given paths, or a new
//! message. Edits copy only the containers on their path, so every part the core did not touch
//! stays the caller's own value, unknown fields and provider extensions included.

mod reread;

use crate::json::{ItemSpans, Spans};
use serde_json::Value;
use std::ops::Range;

pub use reread::reread;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Key {
    Field(String),
    Index(usize),
}

impl Key {
    pub fn field(name: &str) -> Key {
        Key::Field(name.to_string())
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Op {
    /// Set the field or array element at the path.
    Set(Value),
    /// Insert into the array at the path's last index (shifting later elements).
    Insert(Value),
    /// Remove the array element at the path's last index.
    Remove,
}

/// One change inside a message. Edits of one message apply in order.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldEdit {
    pub path: Vec<Key>,
    pub op: Op,
}

impl FieldEdit {
    pub fn set(path: Vec<Key>, value: Value) -> FieldEdit {
        FieldEdit { path, op: Op::Set(value) }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Slot {
    /// The input message at this index, unchanged.
    Keep(usize),
    /// A copy of the input message at `index` with `edits` applied.
    Patch { index: usize, edits: Vec<FieldEdit> },
    /// A message that ctxfold made (a summary, a marked missing result).
    New(Value),
}

impl Slot {
    /// Every one of `n` input messages, unchanged (one copy of this loop for every caller).
    pub fn keep_all(n: usize) -> Vec<Slot> {
        let mut slots = Vec::with_capacity(n);
        for i in 0..n {
            slots.push(Slot::Keep(i));
        }
        slots
    }
}

/// The output history as plain values: what the binding builds from JS objects, done natively so
/// tests can check it.
pub fn materialize(slots: &[Slot], input: &[Value]) -> Vec<Value> {
    // A loop rather than `filter_map(..).collect()`: the collect compiles the adapter and a
    // Vec-from-iterator copy around it (1.2 KB of wasm here).
    let mut out = Vec::with_capacity(slots.len());
    for slot in slots {
        let value = match slot {
            Slot::Keep(i) => input.get(*i).cloned(),
            Slot::Patch { index, edits } => input.get(*index).map(|orig| {
                let mut copy = orig.clone();
                for edit in edits {
                    apply(&mut copy, &edit.path, &edit.op);
                }
                copy
            }),
            Slot::New(v) => Some(v.clone()),
        };
        if let Some(value) = value {
            out.push(value);
        }
    }
    out
}

/// An output history written as JSON text, with where its item list and items are in it.
#[derive(Debug)]
pub struct Written {
    pub text: String,
    pub at: Layout,
}

/// Where a written item list and its items are in the text.
#[derive(Debug)]
pub struct Layout {
    pub list: Range<usize>,
    pub items: Vec<Range<usize>>,
}

/// The items of a history read from text: the array under `key` in a body, or the value itself when
/// it is the list (none when it is neither).
pub fn items_of<'v>(value: &'v Value, key: Option<&str>) -> &'v [Value] {
    match key {
        Some(k) => value.get(k),
        None => Some(value),
    }
    .and_then(Value::as_array)
    .map_or(&[], Vec::as_slice)
}

/// The output history as JSON text, for a caller who gave text: `text` as it was, with its item list
/// (`spans.list`, or the whole text's array when None) written anew from the slots. A kept item is copied
/// byte for byte from its span in `text`; an edited one is taken from `read` (the items as read from
/// `text`: copying a value costs a fraction of reading its text again), edited and written out, as is a
/// new one.
pub fn materialize_text(slots: &[Slot], text: &str, spans: &ItemSpans, read: &[Value]) -> Written {
    let list = spans.list.clone().unwrap_or_else(|| {
        let start = text.find('[').unwrap_or(0);
        start..text.rfind(']').map_or(text.len(), |end| end + 1)
    });
    let item = |i: usize| spans.items.get(i).map(|span| &text[span.clone()]);
    let mut out = String::with_capacity(text.len());
    let mut items = Vec::with_capacity(slots.len());
    out.push_str(&text[..list.start]);
    out.push('[');
    for (k, slot) in slots.iter().enumerate() {
        if k > 0 {
            out.push(',');
        }
        let start = out.len();
        match slot {
            Slot::Keep(i) => out.push_str(item(*i).unwrap_or("null")),
            Slot::Patch { index, edits } => match read.get(*index) {
                Some(value) => {
                    let mut value = value.clone();
                    for edit in edits {
                        apply(&mut value, &edit.path, &edit.op);
                    }
                    out.push_str(&crate::json::to_text(&value));
                }
                // Not reachable: `read` holds every item of `text`.
                None => out.push_str(item(*index).unwrap_or("null")),
            },
            Slot::New(value) => out.push_str(&crate::json::to_text(value)),
        }
        items.push(start..out.len());
    }
    out.push(']');
    let written_list = list.start..out.len();
    out.push_str(&text[list.end..]);
    Written { text: out, at: Layout { list: written_list, items } }
}

/// `text`, the JSON text of `value` (an object) read with `spans`, with the fields that `edits` reach
/// (by their first key) written anew in place; every other byte stays as it was.
pub fn patch_fields_text(text: &str, value: &Value, spans: &Spans, edits: Vec<FieldEdit>) -> String {
    let mut fields: Vec<String> = Vec::new();
    for edit in &edits {
        if let Some(Key::Field(f)) = edit.path.first() {
            if !fields.contains(f) {
                fields.push(f.clone());
            }
        }
    }
    let patched = materialize(&[Slot::Patch { index: 0, edits }], std::slice::from_ref(value));
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for (key, span) in &spans.top {
        let Some(field) = key.as_ref().filter(|k| fields.contains(k)) else { continue };
        if let Some(new) = patched.first().and_then(|body| body.get(field)) {
            out.push_str(&text[at..span.start]);
            out.push_str(&crate::json::to_text(new));
            at = span.end;
        }
    }
    out.push_str(&text[at..]);
    out
}

fn apply(target: &mut Value, path: &[Key], op: &Op) {
    let Some((last, parents)) = path.split_last() else { return };
    let mut at = target;
    for key in parents {
        let next = match (key, at) {
            (Key::Field(f), Value::Object(o)) => o.get_mut(f),
            (Key::Index(i), Value::Array(a)) => a.get_mut(*i),
            _ => None,
        };
        match next {
            Some(v) => at = v,
            None => return,
        }
    }
    match (last, at, op) {
        (Key::Field(f), Value::Object(o), Op::Set(v)) => {
            o.insert(f.clone(), v.clone());
        }
        (Key::Index(i), Value::Array(a), Op::Set(v)) if *i < a.len() => a[*i] = v.clone(),
        (Key::Index(i), Value::Array(a), Op::Insert(v)) if *i <= a.len() => a.insert(*i, v.clone()),
        (Key::Index(i), Value::Array(a), Op::Remove) if *i < a.len() => {
            a.remove(*i);
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn text_out_keeps_every_byte_it_did_not_edit() {
        let text = "{ \"model\": \"m\",\n  \"messages\": [ {\"role\":\"user\",  \"content\":\"héllo\"} ,\n {\"role\":\"tool\",\"content\":\"long\"} ],\n  \"x\": 1 }";
        let (value, spans) = crate::json::parse_with_spans(text).unwrap();
        let at = spans.items(Some("messages")).unwrap();
        let slots = [
            Slot::Keep(0),
            Slot::Patch { index: 1, edits: vec![FieldEdit::set(vec![Key::field("content")], json!("[cleared]"))] },
            Slot::New(json!({ "role": "user", "content": "next" })),
        ];
        let out = materialize_text(&slots, text, &at, items_of(&value, Some("messages"))).text;
        assert_eq!(
            out,
            "{ \"model\": \"m\",\n  \"messages\": [{\"role\":\"user\",  \"content\":\"héllo\"},{\"content\":\"[cleared]\",\"role\":\"tool\"},{\"content\":\"next\",\"role\":\"user\"}],\n  \"x\": 1 }"
        );
        let array = " [1, {\"a\" : [2,3]} ,4 ]\n";
        let (value, spans) = crate::json::parse_with_spans(array).unwrap();
        let at = spans.items(None).unwrap();
        let out = materialize_text(&[Slot::Keep(2), Slot::Keep(1)], array, &at, items_of(&value, None)).text;
        assert_eq!(out, " [4,{\"a\" : [2,3]}]\n");
    }

    #[test]
    fn a_patched_field_is_written_in_place() {
        let text = "{\"system\" : \"Be brief.\",\n \"messages\": [ ],\"tools\":[1]}";
        let (value, spans) = crate::json::parse_with_spans(text).unwrap();
        let edits = vec![FieldEdit::set(vec![Key::field("system")], json!([{ "type": "text", "text": "Be brief." }]))];
        assert_eq!(
            patch_fields_text(text, &value, &spans, edits),
            "{\"system\" : [{\"text\":\"Be brief.\",\"type\":\"text\"}],\n \"messages\": [ ],\"tools\":[1]}"
        );
    }

    #[test]
    fn edits_reach_inside_and_leave_the_rest() {
        let input = vec![json!({ "role": "user", "x": 1, "content": [{ "a": 1 }, { "b": 2, "content": "long" }] })];
        let slots = [Slot::Patch {
            index: 0,
            edits: vec![
                FieldEdit::set(vec![Key::field("content"), Key::Index(1), Key::field("content")], json!("short")),
                FieldEdit { path: vec![Key::field("content"), Key::Index(0)], op: Op::Insert(json!({ "new": true })) },
                FieldEdit { path: vec![Key::field("content"), Key::Index(1)], op: Op::Remove },
            ],
        }];
        let out = materialize(&slots, &input);
        assert_eq!(
            out[0],
            json!({ "role": "user", "x": 1, "content": [{ "new": true }, { "b": 2, "content": "short" }] })
        );
    }
}
