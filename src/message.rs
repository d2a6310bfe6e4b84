//! The message view: what every operation needs to know about a message, whatever its format.
//! Formats read the host's objects into this view; the operations never look at raw JSON.

use std::borrow::Cow;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// System and developer instructions: pinned, never pruned or summarized.
    System,
    User,
    Assistant,
    /// A tool (function) result.
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
    pub id: &'a str,
    pub name: &'a str,
    /// The arguments as the model wrote them (a JSON string in OpenAI Chat).
    pub arguments: &'a str,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message<'a> {
    pub role: Role,
    /// All text content, parts joined by newlines.
    pub text: Cow<'a, str>,
    /// The optional participant name (`name` in OpenAI Chat).
    pub name: Option<&'a str>,
    pub tool_calls: Vec<ToolCall<'a>>,
    /// For a tool result: the id of the call it answers.
    pub answers: Option<&'a str>,
    /// Images, audio and files: counted at a flat cost, never read.
    pub attachments: u32,
    /// A summary that ctxfold spliced in earlier (recognized by its textual marker).
    pub is_summary: bool,
}

impl<'a> Message<'a> {
    /// A message the user typed: the places where a cut is cleanest.
    pub fn is_real_user(&self) -> bool {
        self.role == Role::User && !self.is_summary
    }
}

/// Where each tool call is answered: for each message, the index of the message holding the call
/// that a tool result answers, and the tool's name. Built once, used by prune, plan and digest.
#[derive(Debug, Default)]
pub struct ToolLinks<'a> {
    /// For tool results: (index of the calling message, tool name).
    pub caller: Vec<Option<(usize, &'a str)>>,
    /// For each message: the index of its last tool result, when it makes calls that are answered.
    pub last_result: Vec<Option<usize>>,
}

impl<'a> ToolLinks<'a> {
    pub fn tool_name(&self, index: usize) -> Option<&'a str> {
        self.caller.get(index).copied().flatten().map(|(_, name)| name)
    }
}
