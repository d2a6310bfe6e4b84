//! Conversations built for the unit tests.

use crate::reading::format::{self, Conversation};
use serde_json::{json, Value};

/// An agent run: one request, then `steps` tool calls each returning `size` repetitions of a line.
/// Every fifth call is to a tool named `Skill`.
pub fn agent_run(steps: usize, size: usize) -> Vec<Value> {
    let mut msgs = vec![
        json!({ "role": "system", "content": "You are a coding agent." }),
        json!({ "role": "user", "content": "Fix the failing test in src/app.py; never edit setup.py" }),
    ];
    for s in 0..steps {
        let id = format!("call_{s}");
        let tool = if s % 5 == 0 { "Skill" } else { "bash" };
        msgs.push(json!({ "role": "assistant", "content": format!("Step {s}: looking at file{s}.py"), "tool_calls": [
            { "id": id, "type": "function", "function": { "name": tool, "arguments": format!("{{\"command\":\"cat file{s}.py\"}}") } }
        ] }));
        msgs.push(json!({ "role": "tool", "tool_call_id": id, "content": format!("line {s} ").repeat(size) }));
    }
    msgs
}

/// A chat of `turns` user/assistant exchanges of about `words` words each, after a system prompt.
pub fn chat(turns: usize, words: usize) -> Vec<Value> {
    let mut msgs = vec![json!({ "role": "system", "content": "Be helpful." })];
    for t in 0..turns {
        msgs.push(json!({ "role": "user", "content": format!("Question {t}: {}", "tell me more ".repeat(words / 3)) }));
        msgs.push(
            json!({ "role": "assistant", "content": format!("Answer {t}: {}", "here is more ".repeat(words / 3)) }),
        );
    }
    msgs
}

/// A support chat: a system prompt, the `opening` turns (role, text) holding the facts a test looks
/// for, then 30 questions and answers about the weather and hotels that hold none.
pub fn support_chat(opening: &[(&str, &str)]) -> Vec<Value> {
    let mut msgs = vec![json!({ "role": "system", "content": "You are a travel agent." })];
    for (role, text) in opening {
        msgs.push(json!({ "role": role, "content": text }));
    }
    for i in 0..30 {
        msgs.push(json!({ "role": "user", "content": format!("Question {i} about the weather and the hotels in the city, in some detail, please.") }));
        msgs.push(json!({ "role": "assistant", "content": format!("Answer {i}: the weather is mild and the hotels near the centre have rooms this week.") }));
    }
    msgs
}

/// A support chat whose early turns hold a booking code, an e-mail and a constraint, then filler.
pub fn booking_chat() -> Vec<Value> {
    support_chat(&[
        ("user", "My booking code is QX7-2291 and my e-mail is ana@example.com. I must never fly through Chicago."),
        ("assistant", "Noted. Let me look at booking QX7-2291."),
    ])
}

/// The base64 of the first bytes of a PNG of `width` × `height` pixels: its signature and its IHDR
/// chunk, all that the size is read from.
pub fn png_base64(width: u32, height: u32) -> String {
    let mut bytes = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
    bytes.extend(width.to_be_bytes());
    bytes.extend(height.to_be_bytes());
    bytes.extend([8, 6, 0, 0, 0, 0, 0, 0, 0]); // depth, colour type, methods, a CRC left blank
    base64(&bytes)
}

pub fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for group in bytes.chunks(3) {
        let n = group.iter().enumerate().fold(0u32, |n, (k, &b)| n | u32::from(b) << (16 - 8 * k));
        for k in 0..4 {
            out.push(if k <= group.len() { char::from(ALPHABET[(n >> (18 - 6 * k) & 63) as usize]) } else { '=' });
        }
    }
    out
}

/// A test's `json!([...])` of messages, read in the format it is written in.
pub fn read(messages: &Value) -> Conversation<'_> {
    format::read_items(messages.as_array().expect("an array of messages"), None).expect("a conversation that reads")
}
