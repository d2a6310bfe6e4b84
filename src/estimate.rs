//! `estimate`: tokens per message and in total, and where that stands against the budget.

use crate::error::Result;
use crate::format::{self, Conversation};
use crate::input::Input;
use crate::message::Message;
use crate::options::Options;
use crate::tokens::Profile;
use serde::Serialize;

#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Estimate {
    /// All messages plus the separate system prompt, if the input is a request body with one.
    pub total: u64,
    pub per_message: Vec<u32>,
    /// The separate system prompt (`system`, `systemInstruction`, `instructions`); 0 without one.
    pub system_tokens: u32,
    pub format: &'static str,
    pub tokenizer: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub budget: Option<Budget>,
}

/// The history against the model's window; given when the caller names `contextWindow`.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Budget {
    pub context_window: u32,
    pub reserved_output: u32,
    /// Input tokens above which compaction is needed.
    pub limit: u32,
    /// Tokens left before the limit (0 when over it).
    pub remaining: u64,
    /// The total as a fraction of the limit (above 1 means over).
    pub used: f64,
}

impl Budget {
    pub fn of(total: u64, options: &Options) -> Budget {
        let limit = options.limit();
        Budget {
            context_window: options.context_window(),
            reserved_output: options.reserved_output(),
            limit,
            remaining: u64::from(limit).saturating_sub(total),
            used: total as f64 / f64::from(limit.max(1)),
        }
    }
}

/// Tokens of one message: its framing, text, hidden text, name, tool calls and results, attachments.
///
/// The framing is counted per unit of content, not per message object: each tool result, and the
/// message's own body when it has one. Formats group the same conversation differently (Anthropic
/// puts three results in one user turn, OpenAI in three tool messages; Responses makes each call its
/// own item), and the same conversation must cost the same, and be cut in the same place, in all.
pub fn message_tokens(m: &Message, p: &Profile) -> u32 {
    let has_body = !m.text.is_empty() || !m.hidden.is_empty() || m.attachments > 0 || (m.tool_calls.is_empty() && m.tool_results.is_empty());
    let units = m.tool_results.len() + usize::from(has_body);
    let mut t = p.per_message * units as f64 + p.text(&m.text) + p.text(&m.hidden) + f64::from(m.attachments) * p.per_attachment;
    if let Some(name) = m.name {
        t += 1.0 + p.text(name);
    }
    for call in &m.tool_calls {
        t += p.per_tool_call + p.text(call.name) + p.text(&call.arguments);
    }
    for result in &m.tool_results {
        t += p.text(&result.text);
    }
    t.ceil().min(f64::from(u32::MAX)) as u32
}

/// Tokens of the input's separate system prompt.
pub fn system_tokens(input: &Input, p: &Profile) -> u32 {
    match input.system {
        Some(_) => (p.per_message + p.text(&input.system_text())).ceil() as u32,
        None => 0,
    }
}

pub fn per_message(conv: &Conversation, p: &Profile) -> Vec<u32> {
    conv.messages.iter().map(|m| message_tokens(m, p)).collect()
}

pub fn sum(tokens: &[u32]) -> u64 {
    tokens.iter().map(|&t| u64::from(t)).sum()
}

pub fn estimate(input: &Input, options: &Options) -> Result<Estimate> {
    let conv = format::read(input, options.format)?;
    let per_message = per_message(&conv, &options.profile);
    let system_tokens = system_tokens(input, &options.profile);
    let total = sum(&per_message) + u64::from(system_tokens);
    Ok(Estimate {
        total,
        per_message,
        system_tokens,
        format: conv.format.name(),
        tokenizer: options.profile.name,
        budget: options.context_window.map(|_| Budget::of(total, options)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn total_is_the_sum_and_tool_calls_count() {
        let msgs = json!([
            { "role": "user", "content": "List the files" },
            { "role": "assistant", "content": null, "tool_calls": [
                { "id": "c1", "type": "function", "function": { "name": "bash", "arguments": "{\"command\":\"ls -la\"}" } }
            ] },
            { "role": "tool", "tool_call_id": "c1", "content": "a.txt\nb.txt" }
        ]);
        let e = estimate(&Input::read(&msgs).unwrap(), &Options::default()).unwrap();
        assert_eq!(e.per_message.len(), 3);
        assert_eq!(e.total, e.per_message.iter().map(|&t| u64::from(t)).sum::<u64>());
        assert!(e.per_message[1] > 8, "the call's name and arguments count");
        assert!(e.budget.is_none());
    }

    #[test]
    fn budget_is_reported_against_the_window() {
        let msgs = json!([{ "role": "user", "content": "hi" }]);
        let o = Options::from_json(&json!({ "contextWindow": 1000, "reservedOutput": 200, "threshold": 0.5 })).unwrap();
        let b = estimate(&Input::read(&msgs).unwrap(), &o).unwrap().budget.unwrap();
        assert_eq!((b.limit, b.reserved_output), (400, 200));
        assert!(b.used > 0.0 && b.used < 0.1);
    }
}
