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
    if let Some((given, spans, bytes)) = text::text_of(&messages)? {
        // Text in, text out: the messages, then the body's own fields, edited in place.
        let edited = text::patch_body(&text::output_text(&result.slots, &given, &spans, key)?, result.body_edits)?;
        return with_messages(report, text::answer(edited, bytes));
    }
    let mut out = output_to_js(&result.slots, &messages, key)?;
    if !result.body_edits.is_empty() {
        // The body's own fields (`system`, `tools`) are edited like a message: as a one-item array.
        // Pushed rather than `Array::of1`: no import (and glue function) for this line alone.
        let one = js_sys::Array::new();
        one.push(&out);
        let patched = output_to_js(&[Slot::Patch { index: 0, edits: result.body_edits }], &one, None)?;
        out = js_sys::Array::from(&patched).get(0);
    }
    with_messages(report, out)
}
