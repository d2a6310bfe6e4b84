//! Detects the format from the shapes of the items. Each item admits some formats; the input's format
//! is one that every item admits. A history that several formats read alike (plain text turns) is
//! read as the first of them in `Format::ALL`; pass `format` to choose. Items that no one format
//! admits are reported with what was seen, never guessed at.

use super::common::has_more_fields;
use super::Format;
use crate::error::{expected, item_path, Error, Result};
use crate::reading::input::Input;
use serde_json::{Map, Value};

/// Which formats an item (or a whole input) could be in, in `Format::ALL` order.
pub type Set = [bool; 5];

fn only(formats: &[Format]) -> Set {
    let mut s = [false; 5];
    for f in formats {
        s[index(*f)] = true;
    }
    s
}

fn index(f: Format) -> usize {
    Format::ALL.iter().position(|x| *x == f).unwrap_or(0)
}

/// The formats the input's shape allows before any item is looked at (a request body's fields).
pub fn admitted_by_shape(input: &Input) -> Set {
    use Format::*;
    match input.key {
        Some("contents") => only(&[Gemini]),
        Some("input") => only(&[OpenAiResponses]),
        Some(_) if input.system.is_some() => only(&[Anthropic, AiSdk]),
        _ => [true; 5],
    }
}

/// The formats one item could be in; None when it is not an object.
pub fn item_formats(item: &Value) -> Option<Set> {
    item.as_object().map(admits)
}

/// The format chosen for items that all admit `set`: the first in `Format::ALL`.
pub fn chosen(set: &Set) -> Format {
    Format::ALL.into_iter().zip(set).find(|(_, on)| **on).map(|(f, _)| f).unwrap_or(Format::OpenAiChat)
}

pub fn detect(input: &Input) -> Result<Format> {
    let mut admitted = admitted_by_shape(input);
    let mut first_seen: Option<(usize, Set)> = None;
    for (i, item) in input.items.iter().enumerate() {
        let Some(obj) = item.as_object() else {
            return Err(Error::input(item_path(input.root, i), expected("a message object", item)));
        };
        let set = admits(obj);
        let narrowed: Set = std::array::from_fn(|k| admitted[k] && set[k]);
        if narrowed.iter().all(|x| !x) {
            // A UI message admits no format: told apart here, where an item that fits none is reported.
            if is_ui_message(obj) {
                return Err(Error::input(item_path(input.root, i), super::UI_MESSAGE));
            }
            let seen = |s: &Set| {
                let mut names = Vec::new();
                for (f, on) in Format::ALL.iter().zip(s) {
                    if *on {
                        names.push(f.name());
                    }
                }
                names.join(" or ")
            };
            let before = match first_seen {
                Some((j, s)) => format!("; earlier items (from {}[{j}]) read as {}", input.root, seen(&s)),
                None => String::new(),
            };
            return Err(Error::input(
                item_path(input.root, i),
                format!(
                    "this item reads as {}{before}: one history must use one format (or pass options.format)",
                    if set.iter().any(|x| *x) { seen(&set) } else { "no supported format".to_string() }
                ),
            ));
        }
        first_seen.get_or_insert((i, admitted));
        admitted = narrowed;
    }
    Ok(chosen(&admitted))
}

/// An AI SDK `UIMessage` (what `useChat` keeps): `parts` and a role Gemini does not have.
fn is_ui_message(obj: &Map<String, Value>) -> bool {
    obj.contains_key("parts") && matches!(obj.get("role").and_then(Value::as_str), Some("assistant" | "system"))
}

/// The formats an item could belong to, from its keys, role and content part types.
fn admits(obj: &Map<String, Value>) -> Set {
    use Format::*;
    let (role, content) = (obj.get("role"), obj.get("content"));
    let more = has_more_fields(obj, &[role, content]);
    if more && obj.contains_key("parts") {
        // Gemini's roles are user and model; parts with another role are the AI SDK's UI messages.
        return match is_ui_message(obj) {
            true => [false; 5],
            false => only(&[Gemini]),
        };
    }
    // Only Responses items carry a `type` at the top level.
    if more && obj.get("type").is_some_and(Value::is_string) {
        return only(&[OpenAiResponses]);
    }
    if more && (obj.contains_key("tool_calls") || obj.contains_key("tool_call_id") || obj.contains_key("function_call"))
    {
        return only(&[OpenAiChat]);
    }
    let role = role.and_then(Value::as_str).unwrap_or("");
    let mut set = match role {
        "model" => return only(&[Gemini]),
        "function" => return only(&[OpenAiChat]),
        "tool" => return only(&[OpenAiChat, AiSdk]),
        "developer" => only(&[OpenAiChat, OpenAiResponses]),
        "system" => only(&[OpenAiChat, OpenAiResponses, AiSdk]),
        "user" | "assistant" => [true, true, true, true, false],
        // A missing or unknown role: let the most common reader report it with its path.
        _ => return only(&[OpenAiChat]),
    };
    match content {
        Some(Value::Array(parts)) => {
            for part in parts {
                let part_set = part_admits(part);
                set = std::array::from_fn(|k| set[k] && part_set[k]);
            }
        }
        Some(Value::Null) | None => set = std::array::from_fn(|k| set[k] && k == index(OpenAiChat)),
        _ => {}
    }
    set
}

fn part_admits(part: &Value) -> Set {
    use Format::*;
    let has = |k: &str| part.get(k).is_some();
    match part.get("type").and_then(Value::as_str).unwrap_or("") {
        "text" => only(&[OpenAiChat, Anthropic, AiSdk]),
        "image_url" | "input_audio" | "refusal" => only(&[OpenAiChat]),
        "file" if has("file") => only(&[OpenAiChat]),
        "file" => only(&[AiSdk]),
        "image" if has("source") => only(&[Anthropic]),
        "image" => only(&[AiSdk]),
        "tool-call" | "tool-result" | "reasoning" | "tool-approval-request" | "tool-approval-response" => {
            only(&[AiSdk])
        }
        "input_text" | "output_text" | "input_image" | "input_file" => only(&[OpenAiResponses]),
        // tool_use, tool_result, thinking, redacted_thinking, document, server tool blocks, ...
        _ => only(&[Anthropic]),
    }
}
