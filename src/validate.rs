//! Structural problems a provider would reject, found in a conversation already read into the view
//! (the reader itself rejects results for unknown calls and duplicate ids). Every operation's output
//! is checked with this in the tests; it becomes the public `validate` with the other formats.

use crate::format::Conversation;
use crate::message::Role;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// Index of the message the problem is at.
    pub index: usize,
    pub message: String,
}

/// OpenAI Chat's rule: the results of an assistant message's tool calls follow it directly, one tool
/// message per call, before any other message. Calls still unanswered at the very end are pending,
/// not a problem.
pub fn problems(conv: &Conversation) -> Vec<Problem> {
    let mut out = Vec::new();
    let n = conv.len();
    let mut i = 0;
    while i < n {
        let m = &conv.messages[i];
        if m.role == Role::Tool {
            out.push(Problem { index: i, message: "a tool result that does not follow its call".into() });
            i += 1;
            continue;
        }
        let mut j = i + 1;
        let mut expected: Vec<&str> = m.tool_calls.iter().map(|c| c.id).collect();
        while j < n && conv.messages[j].role == Role::Tool {
            let id = conv.messages[j].answers.unwrap_or("");
            match expected.iter().position(|e| *e == id) {
                Some(k) => {
                    expected.swap_remove(k);
                }
                None => out.push(Problem { index: j, message: format!("tool result {id:?} does not answer messages[{i}]") }),
            }
            j += 1;
        }
        if !expected.is_empty() && j < n {
            out.push(Problem { index: i, message: format!("tool calls without results: {}", expected.join(", ")) });
        }
        i = j;
    }
    out
}
