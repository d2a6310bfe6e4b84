//! Conversations built for the unit tests.

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
        msgs.push(json!({ "role": "assistant", "content": format!("Answer {t}: {}", "here is more ".repeat(words / 3)) }));
    }
    msgs
}
