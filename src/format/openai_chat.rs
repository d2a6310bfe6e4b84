//! OpenAI Chat Completions messages: `role` system/developer/user/assistant/tool, `content` as a
//! string, an array of parts, or null beside `tool_calls`, and `tool_call_id` on results.

use crate::error::{type_name, Error, Result};
use crate::message::{Message, Role, ToolCall, ToolLinks};
use crate::text::MARKER_OPEN;
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::collections::HashMap;

pub fn read(values: &[Value]) -> Result<(Vec<Message<'_>>, ToolLinks<'_>)> {
    let mut messages = Vec::with_capacity(values.len());
    for (i, v) in values.iter().enumerate() {
        messages.push(read_message(v, i)?);
    }
    let links = link(&messages)?;
    Ok((messages, links))
}

pub fn read_message(v: &Value, i: usize) -> Result<Message<'_>> {
    let at = |field: &str| format!("messages[{i}].{field}");
    let obj = v.as_object().ok_or_else(|| {
        Error::input(format!("messages[{i}]"), format!("expected a message object, got {}", type_name(v)))
    })?;
    let role = match obj.get("role") {
        None => return Err(Error::input(at("role"), "missing role")),
        Some(Value::String(r)) => match r.as_str() {
            "system" | "developer" => Role::System,
            "user" => Role::User,
            "assistant" => Role::Assistant,
            "tool" => Role::Tool,
            other => {
                return Err(Error::input(at("role"), format!(
                    "unknown role {other:?}; expected system, developer, user, assistant or tool"
                )))
            }
        },
        Some(other) => return Err(Error::input(at("role"), format!("expected a string, got {}", type_name(other)))),
    };
    let (text, attachments) = read_content(obj.get("content"), i)?;
    let name = optional_str(obj, "name", i)?;
    let tool_calls = match (role, obj.get("tool_calls")) {
        (Role::Assistant, Some(Value::Array(calls))) => calls
            .iter()
            .enumerate()
            .map(|(k, c)| read_tool_call(c, i, k))
            .collect::<Result<Vec<_>>>()?,
        (_, None | Some(Value::Null)) => Vec::new(),
        (Role::Assistant, Some(other)) => {
            return Err(Error::input(at("tool_calls"), format!("expected an array, got {}", type_name(other))))
        }
        (_, Some(_)) => return Err(Error::input(at("tool_calls"), "only assistant messages can make tool calls")),
    };
    let answers = if role == Role::Tool {
        match obj.get("tool_call_id") {
            Some(Value::String(id)) => Some(id.as_str()),
            Some(other) => return Err(Error::input(at("tool_call_id"), format!("expected a string, got {}", type_name(other)))),
            None => return Err(Error::input(at("tool_call_id"), "a tool message needs the tool_call_id of the call it answers")),
        }
    } else {
        None
    };
    let is_summary = role == Role::User && text.starts_with(MARKER_OPEN);
    Ok(Message { role, text, name, tool_calls, answers, attachments, is_summary })
}

fn optional_str<'a>(obj: &'a Map<String, Value>, key: &str, i: usize) -> Result<Option<&'a str>> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => Err(Error::input(format!("messages[{i}].{key}"), format!("expected a string, got {}", type_name(other)))),
    }
}

/// Text of `content`, and the number of non-text parts (images, audio, files).
fn read_content(content: Option<&Value>, i: usize) -> Result<(Cow<'_, str>, u32)> {
    match content {
        None | Some(Value::Null) => Ok((Cow::Borrowed(""), 0)),
        Some(Value::String(s)) => Ok((Cow::Borrowed(s), 0)),
        Some(Value::Array(parts)) => {
            let mut texts: Vec<&str> = Vec::new();
            let mut attachments = 0u32;
            for (k, part) in parts.iter().enumerate() {
                let path = || format!("messages[{i}].content[{k}]");
                let obj = part.as_object().ok_or_else(|| {
                    Error::input(path(), format!("expected a content part object, got {}", type_name(part)))
                })?;
                match obj.get("type").and_then(Value::as_str) {
                    Some("text") | Some("refusal") => {
                        let key = if obj.contains_key("text") { "text" } else { "refusal" };
                        match obj.get(key) {
                            Some(Value::String(s)) => texts.push(s),
                            _ => return Err(Error::input(format!("{}.{key}", path()), "a text part needs a string")),
                        }
                    }
                    Some(_) => attachments = attachments.saturating_add(1),
                    None => return Err(Error::input(format!("{}.type", path()), "a content part needs a string type")),
                }
            }
            Ok(match texts.as_slice() {
                [] => (Cow::Borrowed(""), attachments),
                [one] => (Cow::Borrowed(*one), attachments),
                many => (Cow::Owned(many.join("\n")), attachments),
            })
        }
        Some(other) => Err(Error::input(format!("messages[{i}].content"), format!(
            "expected a string, an array of parts or null, got {}", type_name(other)
        ))),
    }
}

fn read_tool_call(c: &Value, i: usize, k: usize) -> Result<ToolCall<'_>> {
    let at = |field: &str| format!("messages[{i}].tool_calls[{k}].{field}");
    let obj = c.as_object().ok_or_else(|| {
        Error::input(format!("messages[{i}].tool_calls[{k}]"), format!("expected a tool call object, got {}", type_name(c)))
    })?;
    let id = match obj.get("id") {
        Some(Value::String(id)) if !id.is_empty() => id.as_str(),
        Some(Value::String(_)) => return Err(Error::input(at("id"), "a tool call id cannot be empty")),
        Some(other) => return Err(Error::input(at("id"), format!("expected a string, got {}", type_name(other)))),
        None => return Err(Error::input(at("id"), "missing tool call id")),
    };
    // `function` for function tools; `custom` tools carry free-form `input` instead of JSON arguments.
    let (body_key, args_key) = if obj.contains_key("custom") { ("custom", "input") } else { ("function", "arguments") };
    let body = obj.get(body_key).and_then(Value::as_object).ok_or_else(|| {
        Error::input(at(body_key), "expected an object with the tool's name and arguments")
    })?;
    let name = match body.get("name") {
        Some(Value::String(n)) => n.as_str(),
        _ => return Err(Error::input(format!("{}.name", at(body_key)), "expected the tool name as a string")),
    };
    let arguments = match body.get(args_key) {
        None | Some(Value::Null) => "",
        Some(Value::String(a)) => a.as_str(),
        Some(other) => return Err(Error::input(format!("{}.{args_key}", at(body_key)), format!("expected a string, got {}", type_name(other)))),
    };
    Ok(ToolCall { id, name, arguments })
}

/// Links every tool result to the earlier call it answers. Ids are matched among calls still
/// waiting for their result: real histories reuse an id once its call is answered (the provider
/// accepts that), but a result for an id no earlier message called, a second result for one call,
/// or two waiting calls with one id are errors, since every later decision (what travels with
/// what) depends on the links.
pub fn link<'a>(messages: &[Message<'a>]) -> Result<ToolLinks<'a>> {
    // id → (calling message, tool name, answered?)
    let mut calls: HashMap<&'a str, (usize, &'a str, bool)> = HashMap::new();
    let mut links = ToolLinks { caller: vec![None; messages.len()], last_result: vec![None; messages.len()] };
    for (i, m) in messages.iter().enumerate() {
        for (k, call) in m.tool_calls.iter().enumerate() {
            if let Some((j, _, false)) = calls.insert(call.id, (i, call.name, false)) {
                return Err(Error::input(format!("messages[{i}].tool_calls[{k}].id"), format!(
                    "tool call id {:?} is already used by messages[{j}], whose call has no result yet", call.id
                )));
            }
        }
        if let Some(id) = m.answers {
            let Some(entry) = calls.get_mut(id) else {
                return Err(Error::input(format!("messages[{i}].tool_call_id"), format!(
                    "no earlier assistant message made a tool call with id {id:?}"
                )));
            };
            if entry.2 {
                return Err(Error::input(format!("messages[{i}].tool_call_id"), format!(
                    "tool call {id:?} (messages[{}]) already has a result", entry.0
                )));
            }
            entry.2 = true;
            links.caller[i] = Some((entry.0, entry.1));
            links.last_result[entry.0] = Some(i);
        }
    }
    Ok(links)
}

pub fn tool_output_patch(text: &str) -> Map<String, Value> {
    let mut set = Map::new();
    set.insert("content".into(), Value::String(text.into()));
    set
}

/// The summary travels as a user message: every OpenAI-compatible endpoint accepts a user message
/// anywhere, and the model reads it as context it was given, not as something it said.
pub fn summary_message(text: &str) -> Value {
    let mut m = Map::new();
    m.insert("role".into(), Value::String("user".into()));
    m.insert("content".into(), Value::String(text.into()));
    Value::Object(m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call(id: &str) -> Value {
        json!({ "role": "assistant", "content": null, "tool_calls": [
            { "id": id, "type": "function", "function": { "name": "f", "arguments": "{}" } }] })
    }
    fn result(id: &str) -> Value {
        json!({ "role": "tool", "tool_call_id": id, "content": "ok" })
    }

    #[test]
    fn an_id_may_be_reused_once_answered() {
        let msgs = [call("a"), result("a"), call("a"), result("a")];
        let (_, links) = read(&msgs).unwrap();
        assert_eq!(links.caller[3], Some((2, "f")));
    }

    #[test]
    fn broken_links_name_the_field() {
        let e = read(&[call("a"), call("a")]).unwrap_err();
        assert_eq!(e.path, "messages[1].tool_calls[0].id");
        let e = read(&[call("a"), result("b")]).unwrap_err();
        assert_eq!(e.path, "messages[1].tool_call_id");
        let e = read(&[call("a"), result("a"), result("a")]).unwrap_err();
        assert_eq!(e.path, "messages[2].tool_call_id");
        let e = read(&[json!({ "role": "tool", "content": "x" })]).unwrap_err();
        assert_eq!(e.path, "messages[0].tool_call_id");
        let e = read(&[json!({ "role": "user", "content": 5 })]).unwrap_err();
        assert_eq!(e.path, "messages[0].content");
    }

    #[test]
    fn content_parts_are_read() {
        let msgs = [json!({ "role": "user", "content": [
            { "type": "text", "text": "look" }, { "type": "image_url", "image_url": { "url": "data:," } }, { "type": "text", "text": "here" }
        ] })];
        let (m, _) = read(&msgs).unwrap();
        assert_eq!((m[0].text.as_ref(), m[0].attachments), ("look\nhere", 1));
    }
}
