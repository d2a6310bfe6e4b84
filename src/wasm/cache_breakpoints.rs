use super::convert::objects_to_js;
use super::prelude::*;
use super::text;
use crate::edit::Slot;
use crate::prompt_cache::breakpoints::{cache_breakpoints, BreakpointOptions};

/// Where to put Anthropic `cache_control` markers; see `ctxfold.d.ts`.
#[wasm_bindgen(js_name = cache_breakpoints)]
pub fn cache_breakpoints_js(messages: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    let value = messages_from_js(&messages)?;
    let options =
        value_from_js(&options, "options", Code::InvalidOption).and_then(|o| BreakpointOptions::from_json(&o))?;
    let key = Input::read(&value)?.key;
    let result = cache_breakpoints(&value, &options)?;
    let report = to_js(&result.report)?;
    if !options.apply {
        return Ok(report);
    }
    // Text in, text out: the messages, then the body's own fields, edited in place.
    if let Some(out) = text::output(&result.slots, &messages, key, result.body_edits.clone(), &value)? {
        return with_messages(report, out);
    }
    let mut out = objects_to_js(&result.slots, &messages, key)?;
    if !result.body_edits.is_empty() {
        // The body's own fields (`system`, `tools`) are edited like a message: as a one-item array.
        // Pushed rather than `Array::of1`: no import (and glue function) for this line alone.
        let one = js_sys::Array::new();
        one.push(&out);
        let patched = objects_to_js(&[Slot::Patch { index: 0, edits: result.body_edits }], &one, None)?;
        out = js_sys::Array::from(&patched).get(0);
    }
    with_messages(report, out)
}
