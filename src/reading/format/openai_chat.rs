//! OpenAI Chat Completions: `role` system/developer/user/assistant/tool (and the legacy `function`),
//! `content` as a string, an array of parts, or null beside `tool_calls` (or legacy `function_call`).

use super::common::{as_text, fields, has_more_fields, object, opt_str, req_id, req_str, text_parts};
use crate::edit::{FieldEdit, Key};
use crate::error::{expected, set_item_path, subpath, Error, Result};
use crate::reading::message::{Media, Message, Role, ToolCall, ToolResult};
use crate::text::{opens_summary, quoted};
use serde_json::Value;
use std::borrow::Cow;

pub fn read<'a>(items: &'a [Value], root: &str) -> Result<Vec<Message<'a>>> {
    let mut out = Vec::with_capacity(items.len());
    let mut path = String::new();
    for (i, v) in items.iter().enumerate() {
        set_item_path(&mut path, root, i);
        out.push(read_message(items, v, i, &path)?);
    }
    Ok(out)
}

fn read_message<'a>(items: &'a [Value], v: &'a Value, i: usize, path: &str) -> Result<Message<'a>> {
    let obj = object(v, path, "a message")?;
    let role_field = obj.get("role");
    let role_name = match role_field {
        None => return Err(Error::input(subpath(path, "role"), "missing role")),
        Some(Value::String(r)) => r.as_str(),
        Some(other) => return Err(Error::input(subpath(path, "role"), expected("a string", other))),
    };
    let role = match role_name {
        "system" | "developer" => Role::System,
        "user" => Role::User,
        "assistant" => Role::Assistant,
        "tool" | "function" => Role::Tool,
        other => {
            return Err(Error::input(
                subpath(path, "role"),
                format!(
                    "unknown role {}; expected system, developer, user, assistant, tool or function",
                    quoted(other)
                ),
            ))
        }
    };
    let mut m = Message::new(role);
    let content = obj.get("content");
    // A name, tool calls: searched for only when there are more fields.
    let more = has_more_fields(obj, &[role_field, content]);
    let name = if more { opt_str(obj, "name", path)? } else { None };
    // A participant's name is part of what the model reads; on a tool or function result it only
    // repeats the tool's name, which the call already carries.
    m.name = name.filter(|_| role != Role::Tool);
    let mut media = Media::default();
    let text = text_parts(content, path, &["text", "refusal"], &mut media)?;
    // The whole message is a result: of the call `id`, which the field at `at` refers to.
    let result = |id: Cow<'a, str>, text, at: &str, media| ToolResult {
        id,
        text,
        is_error: false,
        part: None,
        clearable: true,
        in_turn: false,
        path: subpath(path, at),
        media,
    };
    match role_name {
        "tool" => m.tool_results.push(result(req_id(obj, "tool_call_id", path)?.into(), text, "tool_call_id", media)),
        "function" => {
            // Legacy: a function result answers the `function_call` of the assistant message before it.
            let id = if items.get(i.wrapping_sub(1)).and_then(|p| p.get("function_call")).is_some() {
                format!("function_call@{}", i - 1)
            } else {
                format!("function_call@none:{i}")
            };
            m.tool_results.push(result(id.into(), text, "role", media));
        }
        _ => {
            m.text = text;
            m.media = media;
        }
    }
    let field = |key: &str| if more { obj.get(key) } else { None };
    match (role, field("tool_calls")) {
        (_, None | Some(Value::Null)) => {}
        (Role::Assistant, Some(Value::Array(calls))) => {
            let list = subpath(path, "tool_calls");
            let mut at = String::new();
            for (k, c) in calls.iter().enumerate() {
                set_item_path(&mut at, &list, k);
                m.tool_calls.push(read_tool_call(c, &at)?);
            }
        }
        (Role::Assistant, Some(other)) => {
            return Err(Error::input(subpath(path, "tool_calls"), expected("an array", other)))
        }
        (_, Some(_)) => {
            return Err(Error::input(subpath(path, "tool_calls"), "only assistant messages can make tool calls"))
        }
    }
    if let (Role::Assistant, Some(call)) = (role, field("function_call").filter(|c| !c.is_null())) {
        let at = subpath(path, "function_call");
        let call = object(call, &at, "a function call")?;
        m.tool_calls.push(ToolCall {
            id: format!("function_call@{i}").into(),
            name: req_str(call, "name", &at)?,
            arguments: call.get("arguments").map(as_text).unwrap_or_default(),
            path: at,
        });
    }
    // Reasoning that OpenAI-compatible providers return and take back: DeepSeek's and vLLM's
    // `reasoning_content`, OpenRouter's `reasoning_details` (or its text, `reasoning`). Read by the model
    // when sent: counted, never shown or edited. The first present only: OpenRouter gives both of its own.
    if let (Role::Assistant, Some(reasoning)) =
        (role, REASONING_FIELDS.iter().find_map(|key| field(key).filter(|v| !v.is_null())))
    {
        m.hidden = as_text(reasoning);
    }
    m.is_summary = role != Role::Tool && opens_summary(&m.text);
    Ok(m)
}

const REASONING_FIELDS: [&str; 3] = ["reasoning_details", "reasoning_content", "reasoning"];

fn read_tool_call<'a>(c: &'a Value, path: &str) -> Result<ToolCall<'a>> {
    let obj = object(c, path, "a tool call")?;
    let id = req_id(obj, "id", path)?;
    // `function` tools carry JSON arguments; `custom` tools carry free-form `input`.
    let (body_key, args_key) = if obj.contains_key("custom") { ("custom", "input") } else { ("function", "arguments") };
    let at = subpath(path, body_key);
    let body = object(obj.get(body_key).unwrap_or(&Value::Null), &at, "the tool's name and arguments in an")?;
    Ok(ToolCall {
        id: id.into(),
        name: req_str(body, "name", &at)?,
        arguments: body.get(args_key).map(as_text).unwrap_or_default(),
        path: subpath(path, "id"),
    })
}

pub fn clear_result(placeholder: &str) -> Vec<FieldEdit> {
    vec![FieldEdit::set(vec![Key::field("content")], Value::String(placeholder.into()))]
}

/// The summary travels as a user message: every OpenAI-compatible endpoint accepts a user message
/// anywhere, and the model reads it as context it was given, not as something it said.
pub fn summary_message(text: &str) -> Value {
    Value::Object(fields(&[("role", "user"), ("content", text)]))
}

/// A tool message marking a result that was missing.
pub fn result_message(id: &str, text: &str) -> Value {
    Value::Object(fields(&[("role", "tool"), ("tool_call_id", id), ("content", text)]))
}
