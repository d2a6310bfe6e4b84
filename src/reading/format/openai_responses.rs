//! OpenAI Responses input items: `message` items (or `{ role, content }`), `function_call` and
//! `function_call_output` paired by `call_id`, the custom, computer, shell, local shell, apply-patch and
//! tool-search tools' calls and outputs likewise, `reasoning`
//! items, which stay next to the item they led to, and `compaction` items (the provider's encrypted
//! summary; xAI's have the same shape). Neither of the last two is ever edited. The system prompt is
//! the request's `instructions` (or a system/developer message).

use super::common::{
    add_attachment, add_media, as_text, content, each_item, fields, object, opt_str, output_parts, read_attachment,
    read_compaction, req_id, req_str, with, Content, Part,
};
use crate::edit::{FieldEdit, Key};
use crate::error::{subpath, Error, Result};
use crate::reading::message::{join, Media, Message, Role, ToolCall, ToolResult};
use crate::text::{json_text, opens_summary, quoted};
use serde_json::Value;
use std::borrow::Cow;

pub fn read<'a>(items: &'a [Value], root: &str) -> Result<Vec<Message<'a>>> {
    each_item(items, root, read_item)
}

/// A tool whose calls and outputs are items of their own: the call's type, the tool's name when the call
/// names none, the field holding its arguments, its output's type, and whether prune leaves its outputs
/// as they are (a computer's screenshot, which the API requires; the tools a search found, which later
/// calls use).
struct ToolItems {
    call: &'static str,
    name: Option<&'static str>,
    arguments: &'static str,
    output: &'static str,
    kept: bool,
}

/// Every such tool, read (`read_item`) and written (`output_item`) from this one list.
const TOOL_ITEMS: [ToolItems; 7] = [
    ToolItems {
        call: "function_call",
        name: None,
        arguments: "arguments",
        output: "function_call_output",
        kept: false,
    },
    ToolItems {
        call: "custom_tool_call",
        name: None,
        arguments: "input",
        output: "custom_tool_call_output",
        kept: false,
    },
    ToolItems {
        call: "computer_call",
        name: Some("computer"),
        arguments: "action",
        output: "computer_call_output",
        kept: true,
    },
    ToolItems {
        call: "shell_call",
        name: Some("shell"),
        arguments: "action",
        output: "shell_call_output",
        kept: false,
    },
    ToolItems {
        call: "local_shell_call",
        name: Some("local_shell"),
        arguments: "action",
        output: "local_shell_call_output",
        kept: false,
    },
    ToolItems {
        call: "tool_search_call",
        name: Some("tool_search"),
        arguments: "arguments",
        output: "tool_search_output",
        kept: true,
    },
    ToolItems {
        call: "apply_patch_call",
        name: Some("apply_patch"),
        arguments: "operation",
        output: "apply_patch_call_output",
        kept: false,
    },
];

fn read_item<'a>(v: &'a Value, path: &str) -> Result<Message<'a>> {
    let obj = object(v, path, "an input item")?;
    let kind = opt_str(obj, "type", path)?.unwrap_or("message");
    // A tool search the provider ran itself may have no call id: its items are read as a built-in tool's.
    let run_by_provider = matches!(kind, "tool_search_call" | "tool_search_output")
        && obj.get("execution").and_then(Value::as_str) == Some("server")
        && obj.get("call_id").is_none_or(Value::is_null);
    if run_by_provider {
        return Ok(built_in(v));
    }
    if let Some(tool) = TOOL_ITEMS.iter().find(|t| t.call == kind) {
        let mut m = Message::new(Role::Assistant);
        m.tool_calls.push(ToolCall {
            id: req_id(obj, "call_id", path)?.into(),
            name: match tool.name {
                Some(name) => name,
                None => req_str(obj, "name", path)?,
            },
            arguments: obj.get(tool.arguments).map(as_text).unwrap_or_default(),
            path: subpath(path, "call_id"),
        });
        return Ok(m);
    }
    if let Some(tool) = TOOL_ITEMS.iter().find(|t| t.output == kind) {
        let mut m = Message::new(Role::Tool);
        let mut media = Media::default();
        let text = match kind {
            "shell_call_output" => shell_output_text(obj.get("output")),
            // The definitions of the tools it found, which the model reads as its tools.
            "tool_search_output" => obj.get("tools").map(as_text).unwrap_or_default(),
            _ => output_text(obj.get("output"), &mut media),
        };
        // A local shell output names its call by `id` (others by `call_id`).
        let key = if kind == "local_shell_call_output" && !obj.contains_key("call_id") { "id" } else { "call_id" };
        m.tool_results.push(ToolResult {
            id: req_id(obj, key, path)?.into(),
            text,
            is_error: failed(obj),
            part: None,
            clearable: !tool.kept,
            in_turn: false,
            media,
            path: subpath(path, key),
        });
        return Ok(m);
    }
    match kind {
        "message" => read_message(obj, path),
        "reasoning" => {
            let mut m = Message::new(Role::Assistant);
            m.hidden = match obj.get("summary") {
                Some(Value::Array(parts)) => join(part_texts(parts)),
                _ => Cow::Borrowed(""),
            };
            // A reasoning item must be sent back together with the item that follows it.
            m.binds_to_next = true;
            Ok(m)
        }
        // The provider's summary of the items before it, encrypted: kept as it is, costed by length.
        "compaction" => {
            let mut m = Message::new(Role::Assistant);
            read_compaction(obj, path, true, &mut m)?;
            Ok(m)
        }
        // The image it made is read back as an image: costed by its size, not as its base64 text.
        "image_generation_call" => {
            let mut m = Message::new(Role::Assistant);
            let mut call = serde_json::Map::new();
            for (key, value) in obj.iter().filter(|(key, _)| *key != "result") {
                call.insert(key.clone(), value.clone());
            }
            m.hidden = Cow::Owned(json_text(&Value::Object(call)));
            if let Some(image) = obj.get("result").and_then(Value::as_str) {
                add_media(&mut m.media, Some(image), false);
            }
            Ok(m)
        }
        _ => Ok(built_in(v)),
    }
}

fn read_message<'a>(obj: &'a serde_json::Map<String, Value>, path: &str) -> Result<Message<'a>> {
    let role = match req_str(obj, "role", path)? {
        "system" | "developer" => Role::System,
        "user" => Role::User,
        "assistant" => Role::Assistant,
        other => {
            return Err(Error::input(
                subpath(path, "role"),
                format!("unknown role {}; expected system, developer, user or assistant", quoted(other)),
            ))
        }
    };
    let mut m = Message::new(role);
    let mut texts = Vec::new();
    let mut files = Vec::new();
    match content(obj, path)? {
        Content::Text(s) => texts.push(Cow::Borrowed(s)),
        Content::Parts(parts) => {
            for Part { path: at, kind, fields: p, .. } in parts {
                match kind {
                    "input_text" | "output_text" | "text" => texts.push(Cow::Borrowed(req_str(p, "text", &at)?)),
                    "refusal" => texts.push(Cow::Borrowed(req_str(p, "refusal", &at)?)),
                    _ => files.extend(read_attachment(&mut m.media, p).map(Cow::Owned)),
                }
            }
        }
    }
    m.is_summary = role != Role::Tool && texts.iter().any(|t| opens_summary(t));
    m.text = join(texts);
    // A text file's text: read by the model, left out of a transcript, as an Anthropic text document.
    m.hidden = join(files);
    Ok(m)
}

/// A built-in tool's call (web search, file search, ...) or an item reference: counted as the JSON the
/// model is sent, never edited.
fn built_in(v: &Value) -> Message<'_> {
    let mut m = Message::new(Role::Assistant);
    m.hidden = Cow::Owned(json_text(v));
    m
}

/// The `text` of each part that has one (a reasoning item's summary).
fn part_texts(parts: &[Value]) -> Vec<Cow<'_, str>> {
    let mut out = Vec::new();
    for p in parts {
        if let Some(text) = p.get("text").and_then(Value::as_str) {
            out.push(Cow::Borrowed(text));
        }
    }
    out
}

/// A tool output: a string, content parts (text read, images and files counted into `media`), or a
/// computer's screenshot (counted into `media`).
fn output_text<'a>(v: Option<&'a Value>, media: &mut Media) -> Cow<'a, str> {
    match v {
        Some(Value::Array(parts)) => output_parts(parts, media),
        Some(Value::Object(screenshot))
            if screenshot.get("type").and_then(Value::as_str) == Some("computer_screenshot") =>
        {
            add_attachment(media, screenshot);
            Cow::Borrowed("")
        }
        Some(other) => as_text(other),
        None => Cow::Borrowed(""),
    }
}

/// Whether an output says its tool failed: a shell command that exited other than 0 or timed out, a
/// patch not applied.
fn failed(output: &serde_json::Map<String, Value>) -> bool {
    let command_failed = |chunk: &Value| match chunk.get("outcome") {
        Some(o) => {
            o.get("type").and_then(Value::as_str) == Some("timeout") || o.get("exit_code").is_some_and(|c| c != 0)
        }
        None => false,
    };
    output.get("status").and_then(Value::as_str) == Some("failed")
        || output.get("output").and_then(Value::as_array).is_some_and(|chunks| chunks.iter().any(command_failed))
}

/// A shell tool's output: each command's stdout and stderr, in order.
fn shell_output_text(v: Option<&Value>) -> Cow<'_, str> {
    let Some(Value::Array(chunks)) = v else { return v.map(as_text).unwrap_or_default() };
    let mut texts = Vec::new();
    for chunk in chunks {
        for stream in ["stdout", "stderr"] {
            if let Some(text) = chunk.get(stream).and_then(Value::as_str).filter(|t| !t.is_empty()) {
                texts.push(Cow::Borrowed(text));
            }
        }
    }
    join(texts)
}

/// Replaces an output item's `output` with `placeholder`. A shell tool's output stays a list of its
/// commands' results, each with its outcome (its exit code): the first one's stdout holds the placeholder,
/// every other stream is emptied.
pub fn clear_result(item: &Value, placeholder: &str) -> Vec<FieldEdit> {
    let whole = || vec![FieldEdit::set(vec![Key::field("output")], placeholder.into())];
    let shell = item.get("type").and_then(Value::as_str) == Some("shell_call_output");
    let Some(chunks) = item.get("output").and_then(Value::as_array).filter(|_| shell) else { return whole() };
    let mut edits = Vec::with_capacity(2 * chunks.len());
    let mut placed = false;
    for (c, chunk) in chunks.iter().enumerate() {
        let Some(chunk) = chunk.as_object() else { continue };
        for stream in ["stdout", "stderr"] {
            let text = if !placed && stream == "stdout" { placeholder } else { "" };
            placed |= !text.is_empty();
            if chunk.contains_key(stream) || !text.is_empty() {
                edits.push(FieldEdit::set(vec![Key::field("output"), Key::Index(c), Key::field(stream)], text.into()));
            }
        }
    }
    if placed {
        edits
    } else {
        whole()
    }
}

pub fn summary_message(text: &str) -> Value {
    let part = Value::Object(fields(&[("type", "input_text"), ("text", text)]));
    Value::Object(with(fields(&[("type", "message"), ("role", "user")]), "content", Value::Array(vec![part])))
}

/// The output item answering the call item `call` (call id `id`) with `text`: each tool has its own
/// output type. A shell's holds one command's result, failed (exit code 1) when `is_error`; a local
/// shell's names its call by `id`. A computer call's wants a screenshot, which text cannot be: it gets a
/// function's output, which the API refuses rather than misreads.
pub fn output_item(call: &Value, id: &str, text: &str, is_error: bool) -> Value {
    let call_type = call.get("type").and_then(Value::as_str).unwrap_or("");
    let kind = match TOOL_ITEMS.iter().find(|t| t.call == call_type) {
        Some(tool) if tool.output != "computer_call_output" => tool.output,
        _ => "function_call_output",
    };
    let item = match kind {
        "local_shell_call_output" => fields(&[("type", kind), ("id", id), ("output", text)]),
        "apply_patch_call_output" => {
            let status = if is_error { "failed" } else { "completed" };
            fields(&[("type", kind), ("call_id", id), ("status", status), ("output", text)])
        }
        // No tools found: the one answer of a search's shape that says nothing false.
        "tool_search_output" => with(
            fields(&[("type", kind), ("call_id", id), ("execution", "client"), ("status", "completed")]),
            "tools",
            Value::Array(Vec::new()),
        ),
        "shell_call_output" => {
            let stream = if is_error { "stderr" } else { "stdout" };
            let mut result = fields(&[("stdout", ""), ("stderr", "")]);
            result.insert(stream.into(), text.into());
            let outcome = with(fields(&[("type", "exit")]), "exit_code", u8::from(is_error).into());
            let result = with(result, "outcome", Value::Object(outcome));
            with(fields(&[("type", kind), ("call_id", id)]), "output", Value::Array(vec![Value::Object(result)]))
        }
        // A function's or a custom tool's.
        _ => fields(&[("type", kind), ("call_id", id), ("output", text)]),
    };
    Value::Object(item)
}
