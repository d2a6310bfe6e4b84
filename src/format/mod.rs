//! Message formats: reading the host's objects into the message view, and writing our edits back
//! in the same format. Only OpenAI Chat Completions for now; every other format plugs in here.

mod openai_chat;

use crate::error::{Error, Result};
use crate::message::{Message, ToolLinks};
use serde_json::{Map, Value};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    OpenAiChat,
}

impl Format {
    /// The name used in options and results.
    pub fn name(self) -> &'static str {
        match self {
            Format::OpenAiChat => "openai-chat",
        }
    }

    pub fn from_name(name: &str, path: &str) -> Result<Format> {
        match name {
            "openai-chat" | "openai" => Ok(Format::OpenAiChat),
            other => Err(Error::option(
                path,
                format!("unknown format {other:?}; this version reads \"openai-chat\""),
            )),
        }
    }

    /// Fields to set on a copy of a tool-result message so its output reads `text`.
    pub fn tool_output_patch(self, text: &str) -> Map<String, Value> {
        match self {
            Format::OpenAiChat => openai_chat::tool_output_patch(text),
        }
    }

    /// A new message holding a summary (its text already carries our marker).
    pub fn summary_message(self, text: &str) -> Value {
        match self {
            Format::OpenAiChat => openai_chat::summary_message(text),
        }
    }
}

/// A conversation read into the view, with its tool calls linked to their results.
#[derive(Debug)]
pub struct Conversation<'a> {
    pub format: Format,
    pub messages: Vec<Message<'a>>,
    pub links: ToolLinks<'a>,
}

impl<'a> Conversation<'a> {
    pub fn len(&self) -> usize {
        self.messages.len()
    }
    pub fn is_empty(&self) -> bool {
        self.messages.is_empty()
    }
}

/// Reads `messages` in the given format, or detects it.
pub fn read(messages: &[Value], format: Option<Format>) -> Result<Conversation<'_>> {
    let format = match format {
        Some(f) => f,
        None => detect(messages)?,
    };
    let (messages, links) = match format {
        Format::OpenAiChat => openai_chat::read(messages)?,
    };
    Ok(Conversation { format, messages, links })
}

/// One message into the view, without linking its tool calls: the binding's per-message cache reads
/// only the messages it has not seen, then links them all with `link`.
pub fn read_message(value: &Value, index: usize, format: Format) -> Result<Message<'_>> {
    match format {
        Format::OpenAiChat => openai_chat::read_message(value, index),
    }
}

/// Links tool calls to their results across messages read one by one (`read_message`).
pub fn link<'a>(format: Format, messages: &[Message<'a>]) -> Result<ToolLinks<'a>> {
    match format {
        Format::OpenAiChat => openai_chat::link(messages),
    }
}

/// Every message with a `role` is OpenAI Chat for now; anything else is reported, not guessed.
pub fn detect(messages: &[Value]) -> Result<Format> {
    for (i, m) in messages.iter().enumerate() {
        let Some(obj) = m.as_object() else {
            return Err(Error::input(format!("messages[{i}]"), format!(
                "expected a message object, got {}", crate::error::type_name(m)
            )));
        };
        if obj.contains_key("parts") || obj.contains_key("type") && !obj.contains_key("role") {
            return Err(Error::input(format!("messages[{i}]"),
                "this looks like a Gemini or OpenAI Responses item; this version reads OpenAI Chat Completions messages (objects with a \"role\")"));
        }
    }
    Ok(Format::OpenAiChat)
}
