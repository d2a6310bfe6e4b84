//! The Rust half of `compact`'s `memory` option (`scripts/entries/async.js` awaits the host's store):
//! a request's history as remembered, a stored state put in place of the messages it stands for, and
//! the state to store after compacting. What is decided is decided in `crate::compaction::memory`.

use super::prelude::*;
use super::text;
use crate::compaction::memory::{recall, resume, spliced_text, state};
use crate::edit::items_of;
use js_sys::{Array, Object, Reflect};

/// `{ key, contents, list }` of `messages`: its `Recall`, and the body field holding its items (undefined for
/// an array of messages); undefined for an empty history. `memory` is checked
/// first: it must have `get` and `set` functions (a `Map`, or a wrapper around a KV store).
#[wasm_bindgen(js_name = __memory_recall)]
pub fn memory_recall(messages: JsValue, memory: JsValue) -> Result<JsValue, JsValue> {
    let method = |name: &str| Reflect::get(&memory, &name.into()).is_ok_and(|f| f.is_function());
    if !memory.is_object() || !method("get") || !method("set") {
        return Err(Error::option(
            "options.memory",
            "expected a store with get(key) and set(key, value) functions, such as a Map",
        )
        .into());
    }
    let value = messages_from_js(&messages)?;
    let input = Input::read(&value)?;
    let Some(recall) = recall(input.items) else { return Ok(JsValue::UNDEFINED) };
    let out = Object::new();
    Reflect::set(&out, &"key".into(), &recall.key.into())?;
    Reflect::set(&out, &"contents".into(), &js_sys::BigUint64Array::from(recall.contents.as_slice()))?;
    Reflect::set(&out, &"list".into(), &input.key.map_or(JsValue::UNDEFINED, JsValue::from))?;
    Ok(out.into())
}

/// `{ messages, resumed }`: `messages` with the compacted history of `stored` in place of the `resumed`
/// messages it stands for, in the kind it was given (text as text, every other byte as it was; objects
/// as an array, or a body copy, holding the caller's own objects after them). Undefined when `stored`
/// is not a state of this conversation. `contents` and `list` are `__memory_recall`'s: the messages are
/// not read again (text is found where that call left it; objects are only indexed).
#[wasm_bindgen(js_name = __memory_resume)]
pub fn memory_resume(
    messages: JsValue,
    stored: String,
    contents: Vec<u64>,
    list: Option<String>,
) -> Result<JsValue, JsValue> {
    let Some(resumed) = resume(&contents, stored) else { return Ok(JsValue::UNDEFINED) };
    let count = resumed.count;
    let field = list.as_deref();
    let spliced = |body: &str, given: &_, bytes| spliced_text(body, given, &resumed).map(|s| text::answer(&s, bytes));
    let spliced = match text::with_items(&messages, field, spliced)? {
        Some(None) => return Ok(JsValue::UNDEFINED),
        Some(Some(spliced)) => spliced,
        None => {
            // What compaction wrote as new objects, the messages it kept and those since as the caller's own.
            let stored: Array = Reflect::get(&js_sys::JSON::parse(&resumed.text)?, &"messages".into())?.into();
            let given: Array = match field {
                Some(key) => Reflect::get(&messages, &key.into())?.into(),
                None => messages.clone().into(),
            };
            for (k, kept) in resumed.kept.iter().enumerate() {
                if let Some(i) = kept {
                    stored.set(k as u32, given.get(*i as u32));
                }
            }
            let list = stored.concat(&given.slice(count as u32, given.length()));
            match field {
                Some(key) => {
                    let body = Object::assign(&Object::new(), messages.unchecked_ref());
                    Reflect::set(&body, &key.into(), &list)?;
                    body.into()
                }
                None => list.into(),
            }
        }
    };
    let out = Object::new();
    Reflect::set(&out, &"messages".into(), &spliced)?;
    Reflect::set(&out, &"resumed".into(), &(count as f64).into())?;
    Ok(out.into())
}

/// The state to store for a history of the given `contents` (its `__memory_recall`), compacted into
/// `compacted` (`compact`'s result): text's items copied byte for byte, objects' written as JSON.
#[wasm_bindgen(js_name = __memory_state)]
pub fn memory_state(contents: Vec<u64>, compacted: JsValue) -> Result<String, JsValue> {
    let value = messages_from_js(&compacted)?;
    let input = Input::read(&value)?;
    let items = items_of(&value, input.key);
    let from_text =
        text::with_items(&compacted, input.key, |text, spans, _| state(&contents, items, Some((text, spans))))?;
    Ok(from_text.unwrap_or_else(|| state(&contents, items, None)))
}
