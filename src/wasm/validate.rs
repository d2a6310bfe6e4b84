use super::convert::{error_to_js, messages_from_js, options_from_js, to_js};
use crate::input::Input;
use wasm_bindgen::prelude::*;

/// Every problem a provider would reject, with its path; see `ctxfold.d.ts`.
#[wasm_bindgen(js_name = validate)]
pub fn validate_js(messages: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    let value = messages_from_js(&messages).map_err(error_to_js)?;
    let options = options_from_js(&options)?;
    let input = Input::read(&value).map_err(error_to_js)?;
    let validation = crate::validate::validate(&input, &options).map_err(error_to_js)?;
    to_js(&validation)
}
