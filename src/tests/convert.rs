//! Converts an OpenAI Chat conversation into each other format, the way a host using that provider
//! would hold it: system prompts in the body's own field, results grouped into turns where the
//! format groups them, turns merged where the format needs them to alternate. `origin` maps each
//! converted item to the first OpenAI message it came from, so splits can be compared.

use serde_json::{json, Map, Value};

pub struct Converted {
    pub input: Value,
    // Read by corpus.rs, not by every test file that includes this module.
    #[allow(dead_code)]
    pub origin: Vec<usize>,
}

pub const FORMATS: [&str; 5] = ["openai-chat", "anthropic", "gemini", "openai-responses", "ai-sdk"];

pub fn convert(format: &str, messages: &[Value]) -> Converted {
    let normalized = compact_arguments(messages);
    let messages = normalized.as_slice();
    match format {
        "openai-chat" => Converted { input: Value::Array(messages.to_vec()), origin: (0..messages.len()).collect() },
        "anthropic" => anthropic(messages),
        "gemini" => gemini(messages),
        "openai-responses" => responses(messages),
        "ai-sdk" => ai_sdk(messages),
        other => panic!("no converter for {other}"),
    }
}

/// Tool-call arguments as compact JSON, in every format: the formats that hold them as objects (Anthropic,
/// Gemini, AI SDK) cannot keep the spacing of a JSON string, so the same conversation carries the same
/// argument text everywhere.
fn compact_arguments(messages: &[Value]) -> Vec<Value> {
    let mut out = messages.to_vec();
    for m in &mut out {
        for call in m.get_mut("tool_calls").and_then(Value::as_array_mut).into_iter().flatten() {
            let args = &mut call["function"]["arguments"];
            if let Some(parsed) =
                args.as_str().and_then(|a| serde_json::from_str::<Value>(a).ok()).filter(Value::is_object)
            {
                *args = Value::String(parsed.to_string());
            }
        }
    }
    out
}

fn text(m: &Value) -> String {
    match &m["content"] {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts.iter().filter_map(|p| p["text"].as_str()).collect::<Vec<_>>().join("\n"),
        _ => String::new(),
    }
}

fn calls(m: &Value) -> Vec<(String, String, Value)> {
    m["tool_calls"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| {
            let args = c["function"]["arguments"].as_str().unwrap_or("{}");
            let parsed = serde_json::from_str::<Value>(args)
                .ok()
                .filter(Value::is_object)
                .unwrap_or_else(|| json!({ "input": args }));
            (
                c["id"].as_str().unwrap_or("").to_string(),
                c["function"]["name"].as_str().unwrap_or("").to_string(),
                parsed,
            )
        })
        .collect()
}

fn system_text(messages: &[Value]) -> String {
    messages.iter().filter(|m| m["role"] == "system").map(text).collect::<Vec<_>>().join("\n\n")
}

/// Appends `blocks` as a turn of `role`, merging into the previous turn when it has the same role.
fn push_turn(out: &mut Vec<Value>, origin: &mut Vec<usize>, role: &str, key: &str, blocks: Vec<Value>, from: usize) {
    if blocks.is_empty() {
        return;
    }
    if let Some(last) = out.last_mut().filter(|l| l["role"] == role) {
        last[key].as_array_mut().unwrap().extend(blocks);
        return;
    }
    let mut turn = Map::new();
    turn.insert("role".into(), json!(role));
    turn.insert(key.into(), Value::Array(blocks));
    out.push(Value::Object(turn));
    origin.push(from);
}

fn anthropic(messages: &[Value]) -> Converted {
    let (mut out, mut origin) = (Vec::new(), Vec::new());
    for (i, m) in messages.iter().enumerate() {
        let t = text(m);
        match m["role"].as_str().unwrap_or("") {
            "user" => {
                push_turn(&mut out, &mut origin, "user", "content", vec![json!({ "type": "text", "text": t })], i)
            }
            "tool" => push_turn(
                &mut out,
                &mut origin,
                "user",
                "content",
                vec![json!({ "type": "tool_result", "tool_use_id": m["tool_call_id"], "content": t })],
                i,
            ),
            "assistant" => {
                let mut blocks = Vec::new();
                if !t.is_empty() {
                    blocks.push(json!({ "type": "text", "text": t }));
                }
                for (id, name, input) in calls(m) {
                    blocks.push(json!({ "type": "tool_use", "id": id, "name": name, "input": input }));
                }
                push_turn(&mut out, &mut origin, "assistant", "content", blocks, i);
            }
            _ => {}
        }
    }
    Converted {
        input: json!({ "model": "claude-sonnet-4-5", "max_tokens": 1024, "system": system_text(messages), "messages": out }),
        origin,
    }
}

/// The name of the latest call before message `i` with this id (ids are reused once answered).
fn name_of(messages: &[Value], i: usize, id: &Value) -> String {
    messages[..i]
        .iter()
        .rev()
        .flat_map(calls)
        .find(|c| Some(c.0.as_str()) == id.as_str())
        .map(|c| c.1)
        .unwrap_or_default()
}

fn gemini(messages: &[Value]) -> Converted {
    let (mut out, mut origin) = (Vec::new(), Vec::new());
    for (i, m) in messages.iter().enumerate() {
        let t = text(m);
        match m["role"].as_str().unwrap_or("") {
            "user" => push_turn(&mut out, &mut origin, "user", "parts", vec![json!({ "text": t })], i),
            // Without ids, as older Gemini histories are: responses pair with calls by name and order.
            "tool" => push_turn(
                &mut out,
                &mut origin,
                "user",
                "parts",
                vec![
                    json!({ "functionResponse": { "name": name_of(messages, i, &m["tool_call_id"]), "response": { "output": t } } }),
                ],
                i,
            ),
            "assistant" => {
                let mut parts = Vec::new();
                if !t.is_empty() {
                    parts.push(json!({ "text": t }));
                }
                for (_, name, args) in calls(m) {
                    parts.push(json!({ "functionCall": { "name": name, "args": args } }));
                }
                push_turn(&mut out, &mut origin, "model", "parts", parts, i);
            }
            _ => {}
        }
    }
    Converted {
        input: json!({ "systemInstruction": { "parts": [{ "text": system_text(messages) }] }, "contents": out }),
        origin,
    }
}

fn responses(messages: &[Value]) -> Converted {
    let (mut out, mut origin) = (Vec::new(), Vec::new());
    for (i, m) in messages.iter().enumerate() {
        let t = text(m);
        let mut push = |item: Value| {
            out.push(item);
            origin.push(i);
        };
        match m["role"].as_str().unwrap_or("") {
            "user" => {
                push(json!({ "type": "message", "role": "user", "content": [{ "type": "input_text", "text": t }] }))
            }
            "tool" => push(json!({ "type": "function_call_output", "call_id": m["tool_call_id"], "output": t })),
            "assistant" => {
                if !t.is_empty() {
                    push(
                        json!({ "type": "message", "role": "assistant", "content": [{ "type": "output_text", "text": t }] }),
                    );
                }
                for c in m["tool_calls"].as_array().into_iter().flatten() {
                    push(
                        json!({ "type": "function_call", "call_id": c["id"], "name": c["function"]["name"], "arguments": c["function"]["arguments"] }),
                    );
                }
            }
            _ => {}
        }
    }
    Converted { input: json!({ "model": "gpt-5", "instructions": system_text(messages), "input": out }), origin }
}

fn ai_sdk(messages: &[Value]) -> Converted {
    let (mut out, mut origin) = (Vec::new(), Vec::new());
    for (i, m) in messages.iter().enumerate() {
        let t = text(m);
        match m["role"].as_str().unwrap_or("") {
            "system" => {
                out.push(json!({ "role": "system", "content": t }));
                origin.push(i);
            }
            "user" => {
                out.push(json!({ "role": "user", "content": t }));
                origin.push(i);
            }
            "tool" => push_turn(
                &mut out,
                &mut origin,
                "tool",
                "content",
                vec![json!({
                    "type": "tool-result", "toolCallId": m["tool_call_id"], "toolName": name_of(messages, i, &m["tool_call_id"]), "output": { "type": "text", "value": t }
                })],
                i,
            ),
            "assistant" => {
                let mut parts = Vec::new();
                if !t.is_empty() {
                    parts.push(json!({ "type": "text", "text": t }));
                }
                for (id, name, input) in calls(m) {
                    parts.push(json!({ "type": "tool-call", "toolCallId": id, "toolName": name, "input": input }));
                }
                out.push(json!({ "role": "assistant", "content": parts }));
                origin.push(i);
            }
            _ => {}
        }
    }
    Converted { input: Value::Array(out), origin }
}
