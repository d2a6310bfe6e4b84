//! Message formats: reading the host's objects into the message view, and writing our edits back
//! in the same format. One module per format; detection, linking and the dispatch live here.

mod ai_sdk;
mod anthropic;
mod common;
mod detect;
mod gemini;
mod links;
mod openai_chat;
mod openai_responses;

pub use common::{as_text, fields, is_text_media, obj, with};
pub use detect::{admitted_by_shape, chosen, item_formats, Set as FormatSet};
pub use links::{ids_pair_up, LinkProblem};
pub use openai_responses::output_item as responses_output_item;

use crate::edit::{FieldEdit, Key};
use crate::error::{Error, Result};
use crate::reading::input::Input;
use crate::reading::message::{Message, Role, ToolLinks, ToolResult};
use crate::text::{SUMMARY_ACK, SUMMARY_QUESTION};
use serde_json::Value;

/// The error for an AI SDK `UIMessage`, what `useChat` keeps in the browser: not a format a provider reads.
const UI_MESSAGE: &str = "reads as an AI SDK UIMessage (parts, with role assistant or system, as useChat keeps them); \
    ctxfold reads the ModelMessage sent to the model: convert with convertToModelMessages() first";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    OpenAiChat,
    OpenAiResponses,
    Anthropic,
    Gemini,
    AiSdk,
}

/// Where a format requires tool results to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResultPlacement {
    /// In the messages right after the calling one, before anything else (OpenAI Chat, AI SDK).
    FollowingMessages,
    /// In the very next message, a user turn (Anthropic, Gemini).
    NextTurn,
    /// Anywhere after the call (OpenAI Responses).
    AnywhereAfter,
}

impl Format {
    pub const ALL: [Format; 5] =
        [Format::OpenAiChat, Format::Anthropic, Format::AiSdk, Format::OpenAiResponses, Format::Gemini];

    /// The name used in options and results.
    pub fn name(self) -> &'static str {
        match self {
            Format::OpenAiChat => "openai-chat",
            Format::OpenAiResponses => "openai-responses",
            Format::Anthropic => "anthropic",
            Format::Gemini => "gemini",
            Format::AiSdk => "ai-sdk",
        }
    }

    pub fn from_name(name: &str, path: &str) -> Result<Format> {
        Format::ALL.into_iter().find(|f| f.name() == name).ok_or_else(|| {
            Error::option(
                path,
                format!(
                    "unknown format {}; expected one of {}",
                    crate::text::quoted(name),
                    Format::ALL.map(Format::name).join(", ")
                ),
            )
        })
    }

    pub fn placement(self) -> ResultPlacement {
        match self {
            Format::OpenAiChat | Format::AiSdk => ResultPlacement::FollowingMessages,
            Format::Anthropic | Format::Gemini => ResultPlacement::NextTurn,
            Format::OpenAiResponses => ResultPlacement::AnywhereAfter,
        }
    }

    /// Whether user and assistant turns must alternate (so a summary merges into a user turn).
    pub fn alternates(self) -> bool {
        matches!(self, Format::Anthropic | Format::Gemini)
    }

    /// Edits on a copy of `item` that replace the output of its tool result `result` with text.
    pub fn clear_result(self, item: &Value, result: &ToolResult, placeholder: &str) -> Vec<FieldEdit> {
        let part = result.part.unwrap_or(0);
        match self {
            Format::OpenAiChat => openai_chat::clear_result(placeholder),
            Format::OpenAiResponses => openai_responses::clear_result(item, placeholder),
            Format::Anthropic => anthropic::clear_result(part, placeholder),
            Format::Gemini => gemini::clear_result(item, part, placeholder),
            Format::AiSdk => {
                let part_value = item.get("content").and_then(|c| c.get(part)).unwrap_or(&Value::Null);
                ai_sdk::clear_result(part_value, part, placeholder)
            }
        }
    }

    /// Where the arguments of the `k`-th tool call of `item` are, inside the item (for prune to shorten
    /// them). Found again from the item rather than kept from reading, so reading stays cheap.
    pub fn arguments_path(self, item: &Value, k: usize) -> Option<Vec<Key>> {
        let nth = |list: &str, is_call: &dyn Fn(&Value) -> bool| -> Option<usize> {
            item.get(list)?.as_array()?.iter().enumerate().filter(|(_, p)| is_call(p)).nth(k).map(|(i, _)| i)
        };
        let field = |v: &Value, names: &[&'static str]| names.iter().copied().find(|n| v.get(*n).is_some());
        match self {
            Format::OpenAiChat => match item.get("tool_calls").and_then(|c| c.get(k)) {
                Some(call) if call.get("custom").is_some() => {
                    Some(vec![Key::field("tool_calls"), Key::Index(k), Key::field("custom"), Key::field("input")])
                }
                Some(_) => {
                    Some(vec![Key::field("tool_calls"), Key::Index(k), Key::field("function"), Key::field("arguments")])
                }
                None => item.get("function_call").map(|_| vec![Key::field("function_call"), Key::field("arguments")]),
            },
            Format::OpenAiResponses => field(item, &["arguments", "input"]).map(|f| vec![Key::field(f)]),
            Format::Anthropic => {
                let at = nth("content", &|b| {
                    b.get("type").and_then(Value::as_str).is_some_and(|t| t.ends_with("tool_use"))
                })?;
                Some(vec![Key::field("content"), Key::Index(at), Key::field("input")])
            }
            Format::Gemini => {
                let at = nth("parts", &|p| p.get("functionCall").is_some())?;
                Some(vec![Key::field("parts"), Key::Index(at), Key::field("functionCall"), Key::field("args")])
            }
            Format::AiSdk => {
                let at = nth("content", &|p| p.get("type").and_then(Value::as_str) == Some("tool-call"))?;
                let part = item.get("content")?.get(at)?;
                Some(vec![Key::field("content"), Key::Index(at), Key::field(field(part, &["input", "args"])?)])
            }
        }
    }

    /// A new message of `role` holding `text`, in this format's plainest form. Formats without
    /// system messages in the list (Anthropic, Gemini) get a user message: callers avoid asking.
    pub fn text_message(self, role: Role, text: &str) -> Value {
        let name = match role {
            Role::Assistant if self == Format::Gemini => "model",
            Role::Assistant => "assistant",
            Role::System if !self.alternates() => "system",
            _ => "user",
        };
        match (self, role) {
            (_, Role::User | Role::Tool) => self.summary_message(text),
            (Format::OpenAiChat | Format::AiSdk, _) => Value::Object(fields(&[("role", name), ("content", text)])),
            (Format::OpenAiResponses, _) => {
                let kind = if role == Role::Assistant { "output_text" } else { "input_text" };
                let part = Value::Object(fields(&[("type", kind), ("text", text)]));
                Value::Object(with(fields(&[("type", "message"), ("role", name)]), "content", Value::Array(vec![part])))
            }
            (Format::Anthropic, _) => {
                Value::Object(with(fields(&[("role", name)]), "content", Value::Array(vec![common::text_block(text)])))
            }
            (Format::Gemini, _) => Value::Object(with(
                fields(&[("role", name)]),
                "parts",
                Value::Array(vec![Value::Object(fields(&[("text", text)]))]),
            )),
        }
    }

    /// A new user message holding `text` (a summary, already wrapped in our marker).
    pub fn summary_message(self, text: &str) -> Value {
        match self {
            Format::OpenAiChat => openai_chat::summary_message(text),
            Format::OpenAiResponses => openai_responses::summary_message(text),
            Format::Anthropic => anthropic::summary_message(text),
            Format::Gemini => gemini::summary_message(text),
            Format::AiSdk => ai_sdk::summary_message(text),
        }
    }

    /// Edits that put `text` at the start of the user message `next` (formats that alternate).
    pub fn merge_summary(self, next: &Value, text: &str) -> Vec<FieldEdit> {
        match self {
            Format::Gemini => gemini::merge_summary(text),
            _ => anthropic::merge_summary(next, text),
        }
    }

    /// Edits that put `text` at the end of the user turn `previous` (formats that alternate).
    pub fn append_summary(self, previous: &Value, text: &str) -> Vec<FieldEdit> {
        match self {
            Format::Gemini => gemini::append_summary(previous, text),
            _ => anthropic::append_summary(previous, text),
        }
    }

    /// A message holding one result marked as missing, for the call `id` to tool `name` in item `call`.
    pub fn missing_result_message(self, call: &Value, id: &str, name: &str, text: &str) -> Value {
        match self {
            Format::OpenAiChat if id.starts_with("function_call@") => {
                Value::Object(fields(&[("role", "function"), ("name", name), ("content", text)]))
            }
            Format::OpenAiChat => openai_chat::result_message(id, text),
            Format::OpenAiResponses => openai_responses::output_item(call, id, text, true),
            Format::Anthropic => anthropic::result_message(id, text),
            Format::Gemini => Value::Object(with(
                fields(&[("role", "user")]),
                "parts",
                Value::Array(vec![gemini::result_part(name, explicit_id(id), text)]),
            )),
            Format::AiSdk => ai_sdk::result_message(id, name, text),
        }
    }

    /// For formats that group results in one turn: the part to add to that turn, and its field.
    pub fn missing_result_part(self, id: &str, name: &str, text: &str) -> Option<(&'static str, Value)> {
        match self {
            Format::Anthropic => Some(("content", anthropic::result_block(id, text))),
            Format::Gemini => Some(("parts", gemini::result_part(name, explicit_id(id), text))),
            _ => None,
        }
    }
}

/// Gemini ids made from positions are ours, not the API's: a marked result pairs by name instead.
fn explicit_id(id: &str) -> Option<&str> {
    (!id.contains('@')).then_some(id)
}

/// A conversation read into the view, with its tool calls linked to their results.
#[derive(Debug)]
pub struct Conversation<'a> {
    pub format: Format,
    /// The items' path in errors (`messages`, `contents`, `input`).
    pub root: &'static str,
    pub messages: Vec<Message<'a>>,
    pub links: ToolLinks<'a>,
    /// Calls and results that do not pair up; every operation but `validate` refuses them.
    pub link_problems: Vec<LinkProblem>,
}

impl<'a> Conversation<'a> {
    pub fn len(&self) -> usize {
        self.messages.len()
    }
    pub fn is_empty(&self) -> bool {
        self.messages.is_empty()
    }

    /// The first message the user typed: the task.
    pub fn task(&self) -> Option<usize> {
        self.messages.iter().position(Message::is_real_user)
    }

    /// The newest message the user typed: the request the history's last turns answer.
    pub fn newest_request(&self) -> Option<usize> {
        self.messages.iter().rposition(Message::is_real_user)
    }

    /// The first pairing problem as an error: prune, plan and apply decide what travels with what
    /// from the links, so they cannot work on a history whose links are broken.
    pub fn require_links(&self) -> Result<()> {
        match self.link_problems.first() {
            Some(p) => {
                Err(Error::input(&p.path, format!("{} (validate and repair can find and fix these)", p.message)))
            }
            None => Ok(()),
        }
    }
}

/// Reads the input's items in the given format, or detects it; pairing problems are recorded.
pub fn read_unchecked<'a>(input: &Input<'a>, format: Option<Format>) -> Result<Conversation<'a>> {
    let format = match format {
        Some(f) => f,
        None => detect::detect(input)?,
    };
    let mut messages = messages(input, format)?;
    mark_summary_companions(&mut messages);
    let (links, link_problems) = links::link(&messages);
    Ok(Conversation { format, root: input.root, messages, links, link_problems })
}

/// The input's items as messages of `format`, each read alone: neither linked nor bound to their
/// neighbours (what `read_unchecked` adds).
pub fn messages<'a>(input: &Input<'a>, format: Format) -> Result<Vec<Message<'a>>> {
    let (items, root) = (input.items, input.root);
    match format {
        Format::OpenAiChat => openai_chat::read(items, root),
        Format::OpenAiResponses => openai_responses::read(items, root),
        Format::Anthropic => anthropic::read(items, root),
        Format::Gemini => gemini::read(items, root),
        Format::AiSdk => ai_sdk::read(items, root),
    }
}

/// The turns a summary shape adds around a summary (`exchange`: the question before it;
/// `acknowledged`: the answer after it) are part of that summary: bound to it, and never summarized
/// as if the user or the model had said them.
fn mark_summary_companions(messages: &mut [Message]) {
    let plain = |m: &Message, role: Role, text: &str| {
        m.role == role && m.text == text && m.tool_calls.is_empty() && m.tool_results.is_empty()
    };
    for i in 0..messages.len() {
        let next_is_summary = messages.get(i + 1).is_some_and(|n| n.is_summary && n.role == Role::Assistant);
        if next_is_summary && plain(&messages[i], Role::User, SUMMARY_QUESTION) {
            messages[i].is_summary = true;
            messages[i].binds_to_next = true;
        }
        let previous_is_summary = i > 0 && messages[i - 1].is_summary && messages[i - 1].role == Role::User;
        if previous_is_summary && plain(&messages[i], Role::Assistant, SUMMARY_ACK) {
            messages[i].is_summary = true;
            messages[i].binds_to_previous = true;
        }
    }
}

/// Reads the input and requires its calls and results to pair up.
pub fn read<'a>(input: &Input<'a>, format: Option<Format>) -> Result<Conversation<'a>> {
    let conv = read_unchecked(input, format)?;
    conv.require_links()?;
    Ok(conv)
}

/// Reads a bare array of messages (tests and one-off reads).
pub fn read_items(items: &[Value], format: Option<Format>) -> Result<Conversation<'_>> {
    read(&Input::items(items), format)
}
