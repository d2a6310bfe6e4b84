//! Pairs tool results with the calls they answer. Ids are matched among calls still waiting for a
//! result: real histories reuse an id once its call is answered (providers accept that). A result
//! for an id no earlier message called, a second result for one call, or two waiting calls with one
//! id are pairing problems.

use crate::reading::message::{Message, ToolLinks};
use crate::text::quoted;
use std::collections::hash_map::DefaultHasher;
use std::collections::HashMap;
use std::hash::BuildHasherDefault;

/// Call ids to calls, hashed with fixed keys: only looked up, never iterated, so the order the keys
/// would randomize never shows; and no per-map random seed, whose thread-local setup is code in the wasm.
type Calls<'m, 'a> = HashMap<&'m str, (usize, &'a str, bool), BuildHasherDefault<DefaultHasher>>;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkProblem {
    /// Stable kind: `orphan_result`, `duplicate_result`, `duplicate_call_id`.
    pub kind: &'static str,
    /// Index of the message it is in.
    pub index: usize,
    pub path: String,
    pub message: String,
}

/// Whether the calls and results of a history, given as ids per message in order, pair up by the rules
/// of `link` (no problem at all). For a caller that kept only the ids (estimate's cache).
pub fn ids_pair_up<'a, C, R>(messages: impl IntoIterator<Item = (C, R)>) -> bool
where
    C: IntoIterator<Item = &'a str>,
    R: IntoIterator<Item = &'a str>,
{
    // The map has `link`'s type, so the two share one copy of the hash map's code.
    let mut calls_seen: Calls = Calls::default();
    for (calls, results) in messages {
        for id in calls {
            if let Some((_, _, false)) = calls_seen.insert(id, (0, "", false)) {
                return false; // duplicate_call_id
            }
        }
        for id in results {
            match calls_seen.get_mut(id) {
                Some(entry) if !entry.2 => entry.2 = true,
                _ => return false, // orphan_result or duplicate_result
            }
        }
    }
    true
}

pub fn link<'a>(messages: &[Message<'a>]) -> (ToolLinks<'a>, Vec<LinkProblem>) {
    // id → (calling message, tool name, answered?)
    let mut calls: Calls<'_, 'a> = Calls::default();
    let mut links = ToolLinks { callers: Vec::with_capacity(messages.len()), last_result: vec![None; messages.len()] };
    let mut problems = Vec::new();
    for (i, m) in messages.iter().enumerate() {
        for call in &m.tool_calls {
            if let Some((j, _, false)) = calls.insert(&call.id, (i, call.name, false)) {
                problems.push(LinkProblem {
                    kind: "duplicate_call_id",
                    index: i,
                    path: call.path.clone(),
                    message: format!(
                        "tool call id {} is already used by message {j}, whose call has no result yet",
                        quoted(&call.id)
                    ),
                });
            }
        }
        let mut callers = Vec::with_capacity(m.tool_results.len());
        for result in &m.tool_results {
            let caller = match calls.get_mut(result.id.as_ref()) {
                None => {
                    problems.push(LinkProblem {
                        kind: "orphan_result",
                        index: i,
                        path: result.path.clone(),
                        message: format!("no earlier tool call has the id {}", quoted(&result.id)),
                    });
                    None
                }
                Some(entry) if entry.2 => {
                    problems.push(LinkProblem {
                        kind: "duplicate_result",
                        index: i,
                        path: result.path.clone(),
                        message: format!(
                            "the tool call {} of message {} already has a result",
                            quoted(&result.id),
                            entry.0
                        ),
                    });
                    None
                }
                Some(entry) => {
                    entry.2 = true;
                    links.last_result[entry.0] = Some(links.last_result[entry.0].map_or(i, |r| r.max(i)));
                    Some((entry.0, entry.1))
                }
            };
            callers.push(caller);
        }
        links.callers.push(callers);
    }
    (links, problems)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn ids_pair_up_agrees_with_link() {
        let call = |id: &str| json!({ "role": "assistant", "content": null, "tool_calls": [{ "id": id, "type": "function", "function": { "name": "f", "arguments": "{}" } }] });
        let result = |id: &str| json!({ "role": "tool", "tool_call_id": id, "content": "ok" });
        let cases = [
            vec![call("a"), result("a")],
            vec![call("a"), result("a"), call("a"), result("a")],
            vec![result("a")],
            vec![call("a"), result("a"), result("a")],
            vec![call("a"), call("a"), result("a")],
            vec![call("a"), call("b"), result("b"), result("a")],
        ];
        for items in cases {
            let conv =
                crate::reading::format::read_unchecked(&crate::reading::input::Input::items(&items), None).unwrap();
            let ids = conv.messages.iter().map(|m| {
                (
                    m.tool_calls.iter().map(|c| c.id.as_ref()).collect::<Vec<_>>(),
                    m.tool_results.iter().map(|r| r.id.as_ref()).collect::<Vec<_>>(),
                )
            });
            assert_eq!(ids_pair_up(ids), link(&conv.messages).1.is_empty(), "{items:?}");
        }
    }
}
