use super::prelude::*;

/// Every problem a provider would reject, with its path; see `ctxfold.d.ts`.
#[wasm_bindgen(js_name = validate)]
pub fn validate_js(messages: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    let value = messages_from_js(&messages)?;
    let options = options_from_js(&options)?;
    let input = Input::read(&value)?;
    let validation = crate::checking::validate::validate(&input, &options)?;
    to_js(&validation)
}
