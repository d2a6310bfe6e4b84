//! Anthropic Messages: roles user/assistant (the system prompt is the request's top-level `system`),
//! `content` as a string or blocks: `text`, `image`, `document`, `tool_use`, `tool_result` (string
//! or block content, `is_error`), `thinking` and `redacted_thinking` (signed: never edited),
//! `compaction` (the API's own summary, signed or not: never edited), the calls of server tools and of
//! the MCP connector with their results, which come in the assistant's own message; any block may carry
//! `cache_control`, which is left as it is.

use super::common::{
    add_attachment, as_text, content, each_item, fields, object, read_attachment, read_compaction, req_id, req_str,
    text_block, text_parts, with, Content, Part,
};
use crate::edit::{FieldEdit, Key, Op};
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
        "user" => Role::User,
        "assistant" => Role::Assistant,
        other => return Err(Error::input(subpath(path, "role"), format!(
            "unknown role {}: Anthropic messages are user or assistant (the system prompt goes in the request's `system`)", quoted(other)
        ))),
    };
    let mut m = Message::new(role);
    let mut texts = Vec::new();
    let mut hidden = Vec::new();
    match content(obj, path)? {
        Content::Text(s) => texts.push(Cow::Borrowed(s)),
        Content::Parts(parts) => {
            for Part { index: k, path: at, kind, fields: b, value: block } in parts {
                match kind {
                    "text" => texts.push(Cow::Borrowed(req_str(b, "text", &at)?)),
                    // A document of text, or of content blocks, is what the model reads, however long:
                    // counted, not shown.
                    "document" if source_type(b) == Some("text") => {
                        hidden.push(b.get("source").and_then(|s| s.get("data")).map(as_text).unwrap_or_default());
                    }
                    "document" if source_type(b) == Some("content") => {
                        let blocks = b.get("source").and_then(|s| s.get("content"));
                        for block in blocks.and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_object)
                        {
                            match block.get("text").and_then(Value::as_str) {
                                Some(text) => hidden.push(Cow::Borrowed(text)),
                                None => add_attachment(&mut m.media, block),
                            }
                        }
                    }
                    "image" | "document" => hidden.extend(read_attachment(&mut m.media, b).map(Cow::Owned)),
                    "tool_use" | "server_tool_use" | "mcp_tool_use" => m.tool_calls.push(ToolCall {
                        id: req_id(b, "id", &at)?.into(),
                        name: req_str(b, "name", &at)?,
                        arguments: b.get("input").map(as_text).unwrap_or_default(),
                        path: subpath(&at, "id"),
                    }),
                    "tool_result" | "mcp_tool_result" => {
                        let mut media = Media::default();
                        let text = text_parts(b.get("content"), &at, &["text"], &mut media)?;
                        m.tool_results.push(ToolResult {
                            id: req_id(b, "tool_use_id", &at)?.into(),
                            text,
                            is_error: b.get("is_error").and_then(Value::as_bool).unwrap_or(false),
                            part: Some(k),
                            clearable: true,
                            // The MCP connector's result comes in the assistant's message, after its call.
                            in_turn: kind == "mcp_tool_result",
                            path: subpath(&at, "tool_use_id"),
                            media,
                        });
                    }
                    // A server tool's result (web search, web fetch, code execution, ...): the API's own, in the
                    // assistant's message after its `server_tool_use`. Its content is the API's structure, read
                    // as the JSON the model is sent and never replaced.
                    _ if kind.ends_with("_tool_result") && b.contains_key("tool_use_id") => {
                        let content = b.get("content").unwrap_or(&Value::Null);
                        m.tool_results.push(ToolResult {
                            id: req_id(b, "tool_use_id", &at)?.into(),
                            text: Cow::Owned(json_text(content)),
                            is_error: content
                                .get("type")
                                .and_then(Value::as_str)
                                .is_some_and(|t| t.ends_with("_error")),
                            part: Some(k),
                            clearable: false,
                            in_turn: true,
                            path: subpath(&at, "tool_use_id"),
                            media: Media::default(),
                        });
                    }
                    "thinking" => hidden.push(Cow::Borrowed(req_str(b, "thinking", &at)?)),
                    // The provider's summary of what came before: read by the model, kept as it is.
                    "compaction" => {
                        if let Some(summary) = read_compaction(b, &at, false, &mut m)? {
                            hidden.push(Cow::Borrowed(summary));
                        }
                        if let Some(changes) = b.get("tool_changes").filter(|c| !c.is_null()) {
                            hidden.push(Cow::Owned(json_text(changes)));
                        }
                    }
                    // Redacted thinking and blocks of newer API versions: counted as the JSON the model is
                    // sent, never shown or edited.
                    _ => hidden.push(Cow::Owned(json_text(block))),
                }
            }
        }
    }
    m.is_summary = role != Role::Tool && texts.iter().any(|t| opens_summary(t));
    m.text = join(texts);
    m.hidden = join(hidden);
    Ok(m)
}

/// The `type` of a block's `source` (`base64`, `text`, `content`, `url`, `file`).
fn source_type(block: &serde_json::Map<String, Value>) -> Option<&str> {
    block.get("source").and_then(|s| s.get("type")).and_then(Value::as_str)
}

/// Replaces the output of the tool_result block `part`; its id, `is_error` and `cache_control` stay.
pub fn clear_result(part: usize, placeholder: &str) -> Vec<FieldEdit> {
    vec![FieldEdit::set(vec![Key::field("content"), Key::Index(part), Key::field("content")], placeholder.into())]
}

pub fn summary_message(text: &str) -> Value {
    Value::Object(with(fields(&[("role", "user")]), "content", Value::Array(vec![text_block(text)])))
}

/// Roles must alternate: when the summary lands just before a user message, it becomes that
/// message's first block instead of a second user turn in a row.
pub fn merge_summary(next: &Value, text: &str) -> Vec<FieldEdit> {
    let block = text_block(text);
    match next.get("content") {
        Some(Value::String(s)) => {
            vec![FieldEdit::set(vec![Key::field("content")], Value::Array(vec![block, text_block(s)]))]
        }
        _ => vec![FieldEdit { path: vec![Key::field("content"), Key::Index(0)], op: Op::Insert(block) }],
    }
}

pub fn result_block(id: &str, text: &str) -> Value {
    Value::Object(with(
        fields(&[("type", "tool_result"), ("tool_use_id", id), ("content", text)]),
        "is_error",
        true.into(),
    ))
}

/// A region's summary after the user turn before it: that turn's last block.
pub fn append_summary(previous: &Value, text: &str) -> Vec<FieldEdit> {
    let block = text_block(text);
    match previous.get("content") {
        Some(Value::Array(blocks)) => {
            vec![FieldEdit { path: vec![Key::field("content"), Key::Index(blocks.len())], op: Op::Insert(block) }]
        }
        Some(Value::String(s)) => {
            vec![FieldEdit::set(vec![Key::field("content")], Value::Array(vec![text_block(s), block]))]
        }
        _ => vec![FieldEdit::set(vec![Key::field("content")], Value::Array(vec![block]))],
    }
}

pub fn result_message(id: &str, text: &str) -> Value {
    Value::Object(with(fields(&[("role", "user")]), "content", Value::Array(vec![result_block(id, text)])))
}
