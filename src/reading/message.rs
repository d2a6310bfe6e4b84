//! The message view: what every operation needs to know about a message, whatever its format.
//! Formats read the host's objects into this view; the operations never look at raw JSON.

use crate::reading::image::ImageSize;
use std::borrow::Cow;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// System and developer instructions: pinned, never pruned or summarized.
    System,
    User,
    Assistant,
    /// A message that only carries tool results (OpenAI `tool`, AI SDK `tool`, Responses outputs).
    Tool,
}

impl Role {
    pub fn label(self) -> &'static str {
        match self {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolCall<'a> {
    /// The call's id; formats without ids (Gemini without `id`, legacy `function_call`) get one
    /// made from the position, matching how their results are paired.
    pub id: Cow<'a, str>,
    pub name: &'a str,
    /// The arguments as JSON text.
    pub arguments: Cow<'a, str>,
    /// Where the call is, in the caller's terms, for error messages.
    pub path: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolResult<'a> {
    /// The id of the call this answers.
    pub id: Cow<'a, str>,
    /// The output as text.
    pub text: Cow<'a, str>,
    pub is_error: bool,
    /// Which content part holds it (None: the whole message is the result).
    pub part: Option<usize>,
    /// Whether prune may replace its output with text (a computer-use screenshot may not).
    pub clearable: bool,
    /// Given by the provider in its call's own message, where the provider ran the tool (an Anthropic
    /// server tool's or MCP connector's result, an AI SDK provider-executed tool's): it belongs there,
    /// where any other result would be misplaced.
    pub in_turn: bool,
    /// Where the result's reference to its call is, for error messages.
    pub path: String,
    /// Images and files in the output (a screenshot): costed with it, and gone when it is cleared.
    pub media: Media,
}

/// An image of known size, and whether it is sent at OpenAI's low detail.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Image {
    pub size: ImageSize,
    pub low_detail: bool,
}

/// Images, audio and files: never read, only costed.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Media {
    /// Those of unknown size: counted at a flat cost.
    pub attachments: u32,
    /// How many of them are images sent at OpenAI's low detail (a smaller flat cost).
    pub low_detail: u32,
    /// Images whose bytes are given, so their size is known: costed by it.
    pub images: Vec<Image>,
}

impl Media {
    /// Images, audio and files, sized or not.
    pub fn count(&self) -> u32 {
        self.attachments.saturating_add(self.images.len() as u32)
    }

    pub fn add(&mut self, other: &Media) {
        self.attachments = self.attachments.saturating_add(other.attachments);
        self.low_detail = self.low_detail.saturating_add(other.low_detail);
        self.images.extend_from_slice(&other.images);
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message<'a> {
    pub role: Role,
    /// The visible text: parts joined by newlines (tool results are in `tool_results`).
    pub text: Cow<'a, str>,
    /// Text the model reads but a transcript leaves out: thinking and reasoning, unknown parts.
    pub hidden: Cow<'a, str>,
    /// The optional participant name (`name` in OpenAI Chat).
    pub name: Option<&'a str>,
    pub tool_calls: Vec<ToolCall<'a>>,
    pub tool_results: Vec<ToolResult<'a>>,
    /// Images, audio and files in the message's own content (those of its tool results are theirs).
    pub media: Media,
    /// Holds a summary that ctxfold spliced in earlier (recognized by its textual marker).
    pub is_summary: bool,
    /// Holds a provider's own compaction item (an Anthropic `compaction` block, a Responses or xAI
    /// `compaction` item): kept byte for byte and never summarized again; the provider leaves out
    /// what comes before it.
    pub provider_compaction: bool,
    /// Characters of encrypted content the provider reads back (a compaction item's
    /// `encrypted_content`): costed by its length (`estimate::ENCRYPTED_CHARS_PER_TOKEN`), never read.
    pub encrypted_chars: usize,
    /// Must not be separated from the next message (a Responses reasoning item and its output).
    pub binds_to_next: bool,
    /// Must not be separated from the previous message (an AI SDK tool-approval response).
    pub binds_to_previous: bool,
}

impl<'a> Message<'a> {
    pub fn new(role: Role) -> Message<'a> {
        Message {
            role,
            text: Cow::Borrowed(""),
            hidden: Cow::Borrowed(""),
            name: None,
            tool_calls: Vec::new(),
            tool_results: Vec::new(),
            media: Media::default(),
            is_summary: false,
            provider_compaction: false,
            encrypted_chars: 0,
            binds_to_next: false,
            binds_to_previous: false,
        }
    }

    /// A message the user typed: the places where a cut is cleanest.
    pub fn is_real_user(&self) -> bool {
        self.role == Role::User && !self.is_summary && self.tool_results.is_empty()
    }
}

/// Joins text pieces without copying when there is only one.
pub fn join<'a>(mut pieces: Vec<Cow<'a, str>>) -> Cow<'a, str> {
    match pieces.len() {
        0 => Cow::Borrowed(""),
        1 => pieces.pop().unwrap_or(Cow::Borrowed("")),
        _ => Cow::Owned(pieces.join("\n")),
    }
}

/// How tool calls and results pair up. Built once by the format layer, used by every operation.
#[derive(Debug, Default)]
pub struct ToolLinks<'a> {
    /// For each message, for each of its tool results: the index of the calling message and the
    /// tool's name (None for a result whose call was not found).
    pub callers: Vec<Vec<Option<(usize, &'a str)>>>,
    /// For each message: the index of the last message holding a result of its calls.
    pub last_result: Vec<Option<usize>>,
}

impl<'a> ToolLinks<'a> {
    /// The tool name of result `k` of message `index`.
    pub fn tool_name(&self, index: usize, k: usize) -> Option<&'a str> {
        self.callers.get(index)?.get(k).copied().flatten().map(|(_, name)| name)
    }
}
