use super::convert::{error_to_js, messages_from_js, to_js, value_from_js};
use crate::error::Code;
use crate::options::Options;
use wasm_bindgen::prelude::*;

/// Tokens per message and in total; see `ctxfold.d.ts`.
#[wasm_bindgen(js_name = estimate)]
pub fn estimate_js(messages: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    let values = messages_from_js(&messages).map_err(error_to_js)?;
    let options = value_from_js(&options, "options", Code::InvalidOption).and_then(|o| Options::from_json(&o)).map_err(error_to_js)?;
    let result = crate::estimate::estimate(&values, &options).map_err(error_to_js)?;
    to_js(&result)
}
