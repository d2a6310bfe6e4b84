//! The Vercel AI SDK's `ModelMessage`: roles system/user/assistant/tool; content as a string or
//! parts: `text`, `image`, `file`, `reasoning`, `tool-call` (`toolCallId`, `toolName`, `input`, or
//! `args` before v5), `tool-result` (`output`, or `result` before v5), and the tool approval parts.

use super::common::{
    as_text, content, each_item, fields, object, output_parts, read_attachment, req_id, req_str, with, Content, Part,
};
use crate::edit::{FieldEdit, Key};
use crate::error::{subpath, Error, Result};
use crate::reading::message::{join, Media, Message, Role, ToolCall, ToolResult};
use crate::text::{json_text, opens_summary, quoted};
use serde_json::Value;
use std::borrow::Cow;

pub fn read<'a>(items: &'a [Value], root: &str) -> Result<Vec<Message<'a>>> {
    each_item(items, root, read_message)
}

fn read_message<'a>(v: &'a Value, path: &str) -> Result<Message<'a>> {
    let obj = object(v, path, "a message")?;
    let role = match req_str(obj, "role", path)? {
        "system" => Role::System,
        "user" => Role::User,
        "assistant" => Role::Assistant,
        "tool" => Role::Tool,
        other => {
            return Err(Error::input(
                subpath(path, "role"),
                format!("unknown role {}; expected system, user, assistant or tool", quoted(other)),
            ))
        }
    };
    if obj.contains_key("parts") && !obj.contains_key("content") {
        return Err(Error::input(subpath(path, "content"), super::UI_MESSAGE));
    }
    let mut m = Message::new(role);
    let mut texts = Vec::new();
    let mut hidden = Vec::new();
    match content(obj, path)? {
        Content::Text(s) => texts.push(Cow::Borrowed(s)),
        Content::Parts(parts) => {
            for Part { index: k, path: at, kind, fields: p, value: part } in parts {
                match kind {
                    "text" => texts.push(Cow::Borrowed(req_str(p, "text", &at)?)),
                    "reasoning" => hidden.push(Cow::Borrowed(req_str(p, "text", &at)?)),
                    "image" | "file" => hidden.extend(read_attachment(&mut m.media, p).map(Cow::Owned)),
                    "tool-call" => m.tool_calls.push(ToolCall {
                        id: req_id(p, "toolCallId", &at)?.into(),
                        name: req_str(p, "toolName", &at)?,
                        arguments: p.get("input").or_else(|| p.get("args")).map(as_text).unwrap_or_default(),
                        path: subpath(&at, "toolCallId"),
                    }),
                    "tool-result" => {
                        let mut media = Media::default();
                        let text = result_text(p.get("output").or_else(|| p.get("result")), &mut media);
                        m.tool_results.push(ToolResult {
                            id: req_id(p, "toolCallId", &at)?.into(),
                            text,
                            is_error: p.get("isError").and_then(Value::as_bool).unwrap_or(false)
                                || p.get("output")
                                    .and_then(|o| o.get("type"))
                                    .and_then(Value::as_str)
                                    .is_some_and(|t| t.starts_with("error")),
                            part: Some(k),
                            clearable: true,
                            // In an assistant message: a provider-executed tool's result.
                            in_turn: role == Role::Assistant,
                            path: subpath(&at, "toolCallId"),
                            media,
                        })
                    }
                    "tool-approval-response" => {
                        // Answers the approval request in the assistant message before it.
                        m.binds_to_previous = true;
                        hidden.push(Cow::Owned(json_text(part)));
                    }
                    _ => hidden.push(Cow::Owned(json_text(part))),
                }
            }
        }
    }
    m.is_summary = role != Role::Tool && texts.iter().any(|t| opens_summary(t));
    m.text = join(texts);
    m.hidden = join(hidden);
    Ok(m)
}

/// A v5 `output` (`{ type: "text" | "json" | "error-text" | "content" | ..., value }`) or a v4 `result`.
fn result_text<'a>(v: Option<&'a Value>, media: &mut Media) -> Cow<'a, str> {
    match v {
        Some(o) if o.get("type").and_then(Value::as_str) == Some("content") => match o.get("value") {
            Some(Value::Array(parts)) => output_parts(parts, media),
            other => other.map(as_text).unwrap_or_default(),
        },
        Some(o) if o.get("type").is_some() && o.get("value").is_some() => {
            o.get("value").map(as_text).unwrap_or_default()
        }
        Some(other) => as_text(other),
        None => Cow::Borrowed(""),
    }
}

/// Replaces a tool-result part's output, in the shape that part uses (v5 `output` or v4 `result`).
pub fn clear_result(part: &Value, index: usize, placeholder: &str) -> Vec<FieldEdit> {
    let at = |field: &str| vec![Key::field("content"), Key::Index(index), Key::field(field)];
    if part.get("result").is_some() && part.get("output").is_none() {
        vec![FieldEdit::set(at("result"), placeholder.into())]
    } else {
        vec![FieldEdit::set(at("output"), Value::Object(fields(&[("type", "text"), ("value", placeholder)])))]
    }
}

pub fn summary_message(text: &str) -> Value {
    Value::Object(fields(&[("role", "user"), ("content", text)]))
}

pub fn result_message(id: &str, name: &str, text: &str) -> Value {
    let output = fields(&[("type", "error-text"), ("value", text)]);
    let part = with(
        fields(&[("type", "tool-result"), ("toolCallId", id), ("toolName", name)]),
        "output",
        Value::Object(output),
    );
    Value::Object(with(fields(&[("role", "tool")]), "content", Value::Array(vec![Value::Object(part)])))
}
