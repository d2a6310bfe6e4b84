//! What the caller passed: an array of messages, or a request body that holds one (`{ system,
//! messages }`, `{ systemInstruction, contents }`, `{ instructions, input }`). The body's other
//! fields are never read or changed; its system prompt is counted.

use crate::error::{expected, Error, Result};
use serde_json::Value;

/// The largest input accepted, in characters of its JSON text (UTF-16 code units, as JavaScript counts
/// them): 8 Mi, about 8 MB, ten times a million-token context. A call needs up to about seven times
/// its input in WebAssembly memory (measured by pkg-tests/memory.test.mjs; the texts counting keeps
/// for the next call, under 3 MB, included), so this keeps the largest call near 60 MB, inside a
/// Worker's 128 MB.
pub const MAX_INPUT_CHARS: usize = 8 * 1024 * 1024;

#[derive(Debug, Clone, Copy)]
pub struct Input<'a> {
    pub items: &'a [Value],
    /// The body's separate system prompt, if any, and the field it is in.
    pub system: Option<&'a Value>,
    system_field: &'static str,
    /// The body field holding the items (None: the input is the array itself).
    pub key: Option<&'static str>,
    /// The items' path in errors: `messages`, `contents` or `input`.
    pub root: &'static str,
}

/// Body fields that hold the items, and the system prompt field that goes with each.
const BODY_FIELDS: [(&str, &[&str]); 3] = [
    ("messages", &["system"]),
    ("contents", &["systemInstruction", "system_instruction"]),
    ("input", &["instructions"]),
];

impl<'a> Input<'a> {
    pub fn items(items: &'a [Value]) -> Input<'a> {
        Input { items, system: None, system_field: "system", key: None, root: "messages" }
    }

    pub fn read(v: &'a Value) -> Result<Input<'a>> {
        match v {
            Value::Array(items) => Ok(Input::items(items)),
            Value::Object(body) => {
                for (key, systems) in BODY_FIELDS {
                    match body.get(key) {
                        Some(Value::Array(items)) => {
                            let found =
                                systems.iter().find_map(|s| body.get(*s).filter(|v| !v.is_null()).map(|v| (*s, v)));
                            let (system_field, system) = match found {
                                Some((field, v)) => (field, Some(v)),
                                None => (systems[0], None),
                            };
                            return Ok(Input { items, system, system_field, key: Some(key), root: key });
                        }
                        Some(other) => return Err(Error::input(key, expected("an array", other))),
                        None => {}
                    }
                }
                Err(Error::input(
                    "messages",
                    "expected an array of messages, or a request body with `messages`, `contents` or `input`",
                ))
            }
            other => Err(Error::input("messages", expected("an array of messages", other))),
        }
    }

    /// The body field holding the system prompt, for error paths.
    pub fn system_key(&self) -> &'static str {
        self.system_field
    }

    /// The same input with other items (an operation's output, read again).
    pub fn with_items<'b>(&self, items: &'b [Value]) -> Input<'b>
    where
        'a: 'b,
    {
        Input { items, ..*self }
    }

    /// The system prompt's text, whatever its shape (a string, text blocks, or `{ parts }`).
    pub fn system_text(&self) -> String {
        fn collect(v: &Value, out: &mut Vec<String>) {
            match v {
                Value::String(s) => out.push(s.clone()),
                Value::Array(items) => items.iter().for_each(|i| collect(i, out)),
                Value::Object(o) => {
                    if let Some(t) = o.get("text") {
                        collect(t, out);
                    }
                    if let Some(p) = o.get("parts") {
                        collect(p, out);
                    }
                }
                _ => {}
            }
        }
        let mut out = Vec::new();
        if let Some(s) = self.system {
            collect(s, &mut out);
        }
        out.join("\n")
    }
}
