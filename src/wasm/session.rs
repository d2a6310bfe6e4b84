//! The `Session` class: holds the host's history (its own objects) and the pure `SessionCore`,
//! which decides; this file only moves values across.

use super::context_overflow::overflow_of;
use super::prelude::*;
use crate::prompt_cache::session::{SessionCore, SessionOptions, Usage};
use js_sys::{Array, Reflect};

#[wasm_bindgen]
pub struct Session {
    core: SessionCore,
    /// The history: an array of the host's objects, or a copy of its request body holding one.
    history: JsValue,
    /// The body field holding the array (None: the history is the array).
    key: Option<&'static str>,
}

#[wasm_bindgen]
impl Session {
    #[wasm_bindgen(constructor)]
    pub fn new(messages: JsValue, options: JsValue) -> Result<Session, JsValue> {
        let options =
            value_from_js(&options, "options", Code::InvalidOption).and_then(|o| SessionOptions::from_json(&o))?;
        let messages = if messages.is_undefined() || messages.is_null() { Array::new().into() } else { messages };
        // A session keeps its history as objects: text is read into them once.
        let messages = super::text::objects(&messages)?.unwrap_or(messages);
        let value = messages_from_js(&messages)?;
        let key = Input::read(&value)?.key;
        Ok(Session { core: SessionCore::new(options), history: snapshot(&messages, key)?, key })
    }

    /// The history as it stands (the host's objects, copies where the session edited).
    #[wasm_bindgen(getter)]
    pub fn messages(&self) -> JsValue {
        self.history.clone()
    }

    /// Adds a message, or an array of messages, at the end of the history.
    pub fn append(&mut self, items: JsValue) -> Result<(), JsValue> {
        let array: Array = match self.key {
            Some(k) => Reflect::get(&self.history, &JsValue::from_str(k))?.into(),
            None => self.history.clone().into(),
        };
        if Array::is_array(&items) {
            // An index loop rather than `Array::for_each`: a Rust closure called from JS brings its
            // own glue (measured: 379 B gzip, wasm and JS).
            let items = Array::from(&items);
            for i in 0..items.length() {
                array.push(&items.get(i));
            }
        } else if items.is_object() {
            array.push(&items);
        } else {
            return Err(JsValue::from(Error::input("items", "expected a message or an array of messages")));
        }
        Ok(())
    }

    /// Decides what to do before the next request; see `ctxfold.d.ts`.
    pub fn prepare(&mut self) -> Result<JsValue, JsValue> {
        let value = messages_from_js(&self.history)?;
        let input = Input::read(&value)?;
        let prepared = self.core.prepare(&input)?;
        if let Some(slots) = &prepared.slots {
            self.history = output_to_js(slots, &self.history, self.key, &value)?;
        }
        with_messages(to_js(&prepared)?, self.history.clone())
    }

    /// Splices in the summary asked for by the last `prepare`.
    pub fn apply_summary(&mut self, summary: JsValue) -> Result<JsValue, JsValue> {
        let summary = value_from_js(&summary, "summary", Code::InvalidInput)?;
        let value = messages_from_js(&self.history)?;
        let input = Input::read(&value)?;
        let applied = self.core.apply_summary(&input, &summary)?;
        self.history = output_to_js(&applied.slots, &self.history, self.key, &value)?;
        with_messages(to_js(&applied.report)?, self.history.clone())
    }

    /// The provider's usage report for the request just sent.
    pub fn record(&mut self, usage: JsValue) -> Result<JsValue, JsValue> {
        let usage = value_from_js(&usage, "usage", Code::InvalidInput).and_then(|u| Usage::from_json(&u))?;
        let log = self.core.record(usage)?;
        to_js(log)
    }

    /// After the provider refused the request just sent as too long; see `ctxfold.d.ts`.
    pub fn overflowed(&mut self, error: JsValue) -> Result<JsValue, JsValue> {
        let Some(overflow) = overflow_of(&error) else { return Ok(JsValue::NULL) };
        let found = to_js(&overflow)?;
        self.core.overflowed(overflow)?;
        Ok(found)
    }

    /// Metrics, the timeline of requests, and cache thrashing if any.
    pub fn health(&self) -> Result<JsValue, JsValue> {
        to_js(&self.core.health())
    }
}
