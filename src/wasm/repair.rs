use super::prelude::*;

/// The minimal fix of what validate finds; see `ctxfold.d.ts`.
#[wasm_bindgen(js_name = repair)]
pub fn repair_js(messages: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    let value = messages_from_js(&messages)?;
    let options = options_from_js(&options)?;
    let input = Input::read(&value)?;
    let repaired = crate::checking::repair::repair(&input, &options)?;
    with_messages(to_js(&repaired.report)?, output_to_js(&repaired.slots, &messages, input.key, &value)?)
}
