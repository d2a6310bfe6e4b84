use super::convert::{error_to_js, messages_from_js, options_from_js, output_to_js, to_js, with_messages};
use crate::input::Input;
use wasm_bindgen::prelude::*;

/// The minimal fix of what validate finds; see `ctxfold.d.ts`.
#[wasm_bindgen(js_name = repair)]
pub fn repair_js(messages: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    let value = messages_from_js(&messages).map_err(error_to_js)?;
    let options = options_from_js(&options)?;
    let input = Input::read(&value).map_err(error_to_js)?;
    let repaired = crate::repair::repair(&input, &options).map_err(error_to_js)?;
    with_messages(to_js(&repaired.report)?, output_to_js(&repaired.slots, &messages, input.key)?)
}
