//! `validate`: every problem a provider would reject, each with its path: tool results that answer
//! no call (or a call twice), calls whose results are missing, results not where the format needs
//! them, and broken role alternation where the format requires it.

use crate::error::{item_path, subpath, Result};
use crate::options::Options;
use crate::reading::format::{self, Conversation, ResultPlacement};
use crate::reading::input::Input;
use crate::reading::message::Role;
use crate::text::quoted;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// Stable kind: `orphan_result`, `duplicate_result`, `duplicate_call_id`, `missing_result`,
    /// `misplaced_result`, `alternation`.
    pub kind: &'static str,
    /// Index of the message the problem is at.
    pub index: usize,
    pub path: String,
    pub message: String,
}

crate::json_object!(Problem {
    kind => "kind",
    index => "index",
    path => "path",
    message => "message",
});

/// A tool call at the end of the history still waiting for its result: right while the tool runs,
/// but a request sent as it is would be refused (OpenAI and Anthropic both want every call answered).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pending {
    pub index: usize,
    pub path: String,
    pub id: String,
    pub name: String,
}

crate::json_object!(Pending {
    index => "index",
    path => "path",
    id => "id",
    name => "name",
});

#[derive(Debug, Clone, PartialEq)]
pub struct Validation {
    pub valid: bool,
    pub format: &'static str,
    pub problems: Vec<Problem>,
    pub pending: Vec<Pending>,
}

crate::json_object!(Validation {
    valid => "valid",
    format => "format",
    problems => "problems",
    pending => "pending",
});

pub fn validate(input: &Input, options: &Options) -> Result<Validation> {
    let conv = format::read_unchecked(input, options.format)?;
    let problems = problems(&conv);
    Ok(Validation { valid: problems.is_empty(), format: conv.format.name(), problems, pending: pending(&conv) })
}

/// The calls of the last message with calls that no later message answers, when nothing but their
/// own results follows it (else they are `missing_result` problems).
pub fn pending(conv: &Conversation) -> Vec<Pending> {
    let Some(i) = conv.messages.iter().rposition(|m| !m.tool_calls.is_empty()) else { return Vec::new() };
    if conv.messages[i + 1..].iter().any(|m| m.role != Role::Tool && m.tool_results.is_empty()) {
        return Vec::new();
    }
    // Its own message counts: a result the provider gave in the call's turn answers it there.
    let answered = |id: &str| conv.messages[i..].iter().any(|m| m.tool_results.iter().any(|r| r.id == id));
    let mut out = Vec::new();
    for call in conv.messages[i].tool_calls.iter().filter(|c| !answered(&c.id)) {
        out.push(Pending { index: i, path: call.path.clone(), id: call.id.to_string(), name: call.name.to_string() });
    }
    out
}

pub fn problems(conv: &Conversation) -> Vec<Problem> {
    let mut out = Vec::with_capacity(conv.link_problems.len());
    for p in &conv.link_problems {
        out.push(Problem { kind: p.kind, index: p.index, path: p.path.clone(), message: p.message.clone() });
    }
    placement(conv, &mut out);
    if conv.format.alternates() {
        alternation(conv, &mut out);
    }
    crate::order::sorted_by_key(out, |p| p.index as u64)
}

/// For each message with calls: are its results where the format wants them, and is any missing
/// although the conversation went on?
fn placement(conv: &Conversation, out: &mut Vec<Problem>) {
    let n = conv.len();
    let placement = conv.format.placement();
    for (i, m) in conv.messages.iter().enumerate() {
        if m.tool_calls.is_empty() {
            continue;
        }
        // Where results may be: the run of tool messages after it, the next turn, or anywhere after.
        let allowed_end = match placement {
            ResultPlacement::FollowingMessages => {
                (i + 1..n).find(|&j| conv.messages[j].role != Role::Tool).unwrap_or(n)
            }
            ResultPlacement::NextTurn => (i + 2).min(n),
            ResultPlacement::AnywhereAfter => n,
        };
        let mut answered = vec![false; m.tool_calls.len()];
        for j in i..n {
            for (k, caller) in conv.links.callers[j].iter().enumerate() {
                let Some((c, _)) = caller else { continue };
                if *c != i {
                    continue;
                }
                let result = &conv.messages[j].tool_results[k];
                if let Some(slot) = m.tool_calls.iter().position(|call| call.id == result.id) {
                    answered[slot] = true;
                }
                // A result the provider gives belongs in its call's message; any other comes after it.
                let misplaced = match result.in_turn {
                    true => (j != i).then(|| format!("in message {i}, with its call")),
                    false => {
                        let wrong_turn = placement == ResultPlacement::NextTurn && conv.messages[j].role != Role::User;
                        (j == i || j >= allowed_end || wrong_turn).then(|| where_results_go(placement, i))
                    }
                };
                if let Some(place) = misplaced {
                    out.push(Problem {
                        kind: "misplaced_result",
                        index: j,
                        path: result.path.clone(),
                        message: format!("the result of tool call {} must be {place}", quoted(&result.id)),
                    });
                }
            }
        }
        // Unanswered calls are pending while nothing but their own results follows them.
        let went_on = match placement {
            ResultPlacement::FollowingMessages => allowed_end < n,
            ResultPlacement::NextTurn => i + 1 < n,
            ResultPlacement::AnywhereAfter => conv.messages[i + 1..]
                .iter()
                .any(|x| x.role == Role::User || (x.role == Role::Assistant && !x.text.is_empty())),
        };
        if went_on {
            for (call, done) in m.tool_calls.iter().zip(&answered) {
                if !done {
                    out.push(Problem {
                        kind: "missing_result",
                        index: i,
                        path: call.path.clone(),
                        message: format!(
                            "tool call {} ({}) has no result, but the conversation goes on",
                            quoted(&call.id),
                            call.name
                        ),
                    });
                }
            }
        }
    }
}

fn where_results_go(placement: ResultPlacement, i: usize) -> String {
    match placement {
        ResultPlacement::FollowingMessages => format!("in the tool messages right after message {i}"),
        ResultPlacement::NextTurn => format!("in the user turn right after message {i}"),
        ResultPlacement::AnywhereAfter => format!("after message {i}"),
    }
}

/// User and assistant turns alternate, starting with a user turn, or with the turn that holds the
/// provider's compaction block (what came before it, the provider leaves out).
fn alternation(conv: &Conversation, out: &mut Vec<Problem>) {
    let turn = |r: Role| if r == Role::Assistant { Role::Assistant } else { Role::User };
    for (i, m) in conv.messages.iter().enumerate() {
        let problem = match i {
            0 if turn(m.role) != Role::User && !m.provider_compaction => {
                Some("the first turn must be a user turn".to_string())
            }
            0 => None,
            _ if turn(conv.messages[i - 1].role) == turn(m.role) => {
                Some(format!("two {} turns in a row", turn(m.role).label()))
            }
            _ => None,
        };
        if let Some(message) = problem {
            out.push(Problem {
                kind: "alternation",
                index: i,
                path: subpath(&item_path(conv.root, i), "role"),
                message,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    fn check(items: Value) -> Validation {
        validate(&Input::read(&items).unwrap(), &Options::default()).unwrap()
    }

    fn call(ids: &[&str]) -> Value {
        let calls: Vec<Value> = ids
            .iter()
            .map(|id| json!({ "id": id, "type": "function", "function": { "name": "read", "arguments": "{}" } }))
            .collect();
        json!({ "role": "assistant", "content": null, "tool_calls": calls })
    }

    #[test]
    fn a_trailing_call_without_its_result_is_pending_with_its_path() {
        let user = json!({ "role": "user", "content": "read it" });
        let answer = json!({ "role": "tool", "tool_call_id": "a", "content": "done" });
        let v = check(json!([user, call(&["a", "b"]), answer]));
        assert_eq!(v.pending.len(), 1);
        assert_eq!((v.pending[0].index, v.pending[0].id.as_str()), (1, "b"));
        assert_eq!(v.pending[0].path, "messages[1].tool_calls[1].id");
        assert!(v.problems.is_empty());
        // Answered, nothing is pending; gone on without the result, it is a problem instead.
        let answered = json!({ "role": "tool", "tool_call_id": "b", "content": "done" });
        assert!(check(json!([user, call(&["a", "b"]), answer, answered])).pending.is_empty());
        let went_on = check(json!([user, call(&["a", "b"]), answer, { "role": "user", "content": "next" }]));
        assert!(went_on.pending.is_empty());
        assert_eq!(went_on.problems[0].kind, "missing_result");
    }

    /// An Anthropic turn in which the API ran a web search and the MCP connector ran a tool: each result in
    /// the assistant's own message, right after its call.
    fn anthropic_server_tools() -> Vec<Value> {
        vec![
            json!({ "role": "user", "content": "What is new?" }),
            json!({ "role": "assistant", "content": [
                { "type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": { "query": "news" } },
                { "type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": [
                    { "type": "web_search_result", "url": "https://example.com", "title": "Example", "encrypted_content": "EqkC", "page_age": null }
                ] },
                { "type": "mcp_tool_use", "id": "mcptoolu_1", "name": "echo", "server_name": "tools", "input": { "text": "hi" } },
                { "type": "mcp_tool_result", "tool_use_id": "mcptoolu_1", "is_error": false, "content": [{ "type": "text", "text": "hi" }] },
                { "type": "text", "text": "Here is what I found." }
            ] }),
        ]
    }

    #[test]
    fn results_the_provider_gives_in_the_call_s_own_message_answer_it_there() {
        let mut items = anthropic_server_tools();
        let ended = check(Value::Array(items.clone()));
        assert!(ended.valid && ended.problems.is_empty(), "{:?}", ended.problems);
        assert!(ended.pending.is_empty(), "answered in the same message: {:?}", ended.pending);
        items.push(json!({ "role": "user", "content": "Thanks." }));
        assert!(check(Value::Array(items.clone())).valid);
        // The AI SDK's provider-executed tool: its call and result in the assistant's message.
        let ai_sdk = json!([
            { "role": "user", "content": "Search." },
            { "role": "assistant", "content": [
                { "type": "tool-call", "toolCallId": "ws1", "toolName": "web_search", "input": {}, "providerExecuted": true },
                { "type": "tool-result", "toolCallId": "ws1", "toolName": "web_search", "output": { "type": "json", "value": [] } },
                { "type": "text", "text": "Nothing found." }
            ] },
            { "role": "user", "content": "Thanks." }
        ]);
        let v = check(ai_sdk);
        assert!(v.valid && v.pending.is_empty(), "{:?} {:?}", v.problems, v.pending);
    }

    #[test]
    fn a_result_out_of_its_place_is_misplaced_whoever_gives_it() {
        // A client tool's result in the assistant's own message: it goes in the next user turn.
        let inside = json!([
            { "role": "user", "content": "Read it." },
            { "role": "assistant", "content": [
                { "type": "tool_use", "id": "t1", "name": "read", "input": {} },
                { "type": "tool_result", "tool_use_id": "t1", "content": "text" }
            ] },
            { "role": "user", "content": "Thanks." }
        ]);
        let v = check(inside);
        assert_eq!(v.problems.len(), 1, "{:?}", v.problems);
        assert_eq!((v.problems[0].kind, v.problems[0].index), ("misplaced_result", 1));
        assert_eq!(v.problems[0].path, "messages[1].content[1].tool_use_id");
        // The MCP connector's result in the user's next turn: it goes in the message of its call.
        let mut items = anthropic_server_tools();
        let blocks = items[1]["content"].as_array_mut().unwrap();
        let moved = blocks.remove(3);
        items.push(json!({ "role": "user", "content": [moved] }));
        let v = check(Value::Array(items));
        assert_eq!(v.problems.len(), 1, "{:?}", v.problems);
        assert_eq!((v.problems[0].kind, v.problems[0].index), ("misplaced_result", 2));
        assert!(v.problems[0].message.contains("in message 1"), "{}", v.problems[0].message);
    }
}
