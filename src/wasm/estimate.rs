use super::convert::{error_to_js, messages_from_js, options_from_js, to_js};
use crate::input::Input;
use wasm_bindgen::prelude::*;

/// Tokens per message and in total; see `ctxfold.d.ts`.
#[wasm_bindgen(js_name = estimate)]
pub fn estimate_js(messages: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    let value = messages_from_js(&messages).map_err(error_to_js)?;
    let options = options_from_js(&options)?;
    let input = Input::read(&value).map_err(error_to_js)?;
    let result = crate::estimate::estimate(&input, &options).map_err(error_to_js)?;
    to_js(&result)
}
