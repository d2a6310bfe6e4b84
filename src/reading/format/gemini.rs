//! Google Gemini `contents`: `{ role: "user" | "model", parts }` with parts `text` (`thought: true`
//! for thinking), `inlineData`, `fileData`, `functionCall`, `functionResponse`, code execution; the
//! system prompt is the request's `systemInstruction`. Calls and responses pair by `id` when the
//! API gave one, otherwise by name and order within the turn, as Gemini itself pairs them.

use super::common::{as_text, fields, object, read_attachment, req_str, with};
use crate::edit::{FieldEdit, Key, Op};
use crate::error::{expected, set_item_path, subpath, Error, Result};
use crate::reading::message::{join, Media, Message, Role, ToolCall, ToolResult};
use crate::text::{json_text, opens_summary, quoted};
use serde_json::{Map, Value};
use std::borrow::Cow;

pub fn read<'a>(items: &'a [Value], root: &str) -> Result<Vec<Message<'a>>> {
    let mut out = Vec::with_capacity(items.len());
    let mut last_model = None;
    let mut path = String::new();
    for (i, v) in items.iter().enumerate() {
        set_item_path(&mut path, root, i);
        let m = read_content(v, i, last_model, &path)?;
        if m.role == Role::Assistant {
            last_model = Some(i);
        }
        out.push(m);
    }
    Ok(out)
}

fn read_content<'a>(v: &'a Value, i: usize, last_model: Option<usize>, path: &str) -> Result<Message<'a>> {
    let obj = object(v, path, "a content")?;
    let role = match obj.get("role") {
        None | Some(Value::Null) => Role::User,
        Some(Value::String(r)) => match r.as_str() {
            "user" | "function" => Role::User,
            "model" => Role::Assistant,
            other => {
                return Err(Error::input(
                    subpath(path, "role"),
                    format!("unknown role {}: Gemini contents are user or model", quoted(other)),
                ))
            }
        },
        Some(other) => return Err(Error::input(subpath(path, "role"), expected("a string", other))),
    };
    let parts = match obj.get("parts") {
        Some(Value::Array(parts)) => parts,
        Some(other) => return Err(Error::input(subpath(path, "parts"), expected("an array of parts", other))),
        None => return Err(Error::input(subpath(path, "parts"), "missing parts")),
    };
    let mut m = Message::new(role);
    let mut texts = Vec::new();
    let mut hidden = Vec::new();
    let mut answered: Vec<&str> = Vec::new(); // names of the responses so far, for positional pairing
    let list = subpath(path, "parts");
    let mut at = String::new();
    for (k, part) in parts.iter().enumerate() {
        set_item_path(&mut at, &list, k);
        let p = object(part, &at, "a part")?;
        if let Some(text) = p.get("text") {
            let text = text.as_str().ok_or_else(|| Error::input(subpath(&at, "text"), "expected a string"))?;
            if p.get("thought").and_then(Value::as_bool) == Some(true) {
                hidden.push(Cow::Borrowed(text));
            } else {
                texts.push(Cow::Borrowed(text));
            }
        } else if let Some(call) = p.get("functionCall") {
            let at = subpath(&at, "functionCall");
            let c = object(call, &at, "a function call")?;
            let name = req_str(c, "name", &at)?;
            let ordinal = m.tool_calls.iter().filter(|x| x.name == name).count();
            let id = match c.get("id").and_then(Value::as_str) {
                Some(id) => Cow::Borrowed(id),
                None => Cow::Owned(positional_id(name, i, ordinal)),
            };
            m.tool_calls.push(ToolCall {
                id,
                name,
                arguments: c.get("args").map(as_text).unwrap_or_default(),
                path: subpath(&at, "name"),
            });
        } else if let Some(response) = p.get("functionResponse") {
            let at = subpath(&at, "functionResponse");
            let r = object(response, &at, "a function response")?;
            let name = req_str(r, "name", &at)?;
            let ordinal = answered.iter().filter(|n| **n == name).count();
            answered.push(name);
            let id = match r.get("id").and_then(Value::as_str) {
                Some(id) => Cow::Borrowed(id),
                // Answers the model turn before it; with none, an id no call has (an orphan).
                None => Cow::Owned(positional_id(name, last_model.unwrap_or(usize::MAX), ordinal)),
            };
            let mut text = r.get("response").map(response_text).unwrap_or_default();
            // A function response may carry media in parts of its own: part of the result.
            let mut media = Media::default();
            for part in r.get("parts").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_object) {
                if part.contains_key("inlineData") || part.contains_key("fileData") {
                    if let Some(file) = read_attachment(&mut media, part) {
                        text = Cow::Owned(format!("{text}\n{file}"));
                    }
                }
            }
            m.tool_results.push(ToolResult {
                id,
                text,
                is_error: false,
                part: Some(k),
                clearable: true,
                in_turn: false,
                path: subpath(&at, "name"),
                media,
            });
        } else if p.contains_key("inlineData") || p.contains_key("fileData") {
            hidden.extend(read_attachment(&mut m.media, p).map(Cow::Owned));
        } else {
            hidden.push(Cow::Owned(json_text(part)));
        }
    }
    m.is_summary = role != Role::Tool && texts.iter().any(|t| opens_summary(t));
    m.text = join(texts);
    m.hidden = join(hidden);
    Ok(m)
}

fn positional_id(name: &str, turn: usize, ordinal: usize) -> String {
    format!("{name}@{turn}#{ordinal}")
}

/// A response object as text: its one string field when it has just that (`{ "output": "..." }`),
/// else its JSON.
fn response_text(v: &Value) -> Cow<'_, str> {
    match v.as_object() {
        Some(o) if o.len() == 1 => match o.values().next() {
            Some(Value::String(s)) => Cow::Borrowed(s),
            _ => as_text(v),
        },
        _ => as_text(v),
    }
}

/// Replaces the response of the functionResponse part `part` (and empties its own parts); its name and id stay.
pub fn clear_result(item: &Value, part: usize, placeholder: &str) -> Vec<FieldEdit> {
    let at =
        |field: &str| vec![Key::field("parts"), Key::Index(part), Key::field("functionResponse"), Key::field(field)];
    let mut edits = vec![FieldEdit::set(at("response"), Value::Object(fields(&[("content", placeholder)])))];
    // The media it returned in parts of its own go with the rest of the result.
    if item.pointer(&format!("/parts/{part}/functionResponse/parts")).is_some() {
        edits.push(FieldEdit::set(at("parts"), Value::Array(Vec::new())));
    }
    edits
}

pub fn summary_message(text: &str) -> Value {
    Value::Object(with(
        fields(&[("role", "user")]),
        "parts",
        Value::Array(vec![Value::Object(fields(&[("text", text)]))]),
    ))
}

/// Turns alternate: a summary just before a user turn becomes that turn's first part.
pub fn merge_summary(text: &str) -> Vec<FieldEdit> {
    vec![FieldEdit {
        path: vec![Key::field("parts"), Key::Index(0)],
        op: Op::Insert(Value::Object(fields(&[("text", text)]))),
    }]
}

/// A region's summary after the user turn before it: that turn's last part.
pub fn append_summary(previous: &Value, text: &str) -> Vec<FieldEdit> {
    let at = previous.get("parts").and_then(Value::as_array).map_or(0, Vec::len);
    vec![FieldEdit {
        path: vec![Key::field("parts"), Key::Index(at)],
        op: Op::Insert(Value::Object(fields(&[("text", text)]))),
    }]
}

pub fn result_part(name: &str, id: Option<&str>, text: &str) -> Value {
    let mut r = fields(&[("name", name)]);
    if let Some(id) = id {
        r = with(r, "id", id.into());
    }
    r = with(r, "response", Value::Object(fields(&[("error", text)])));
    Value::Object(with(Map::new(), "functionResponse", Value::Object(r)))
}
