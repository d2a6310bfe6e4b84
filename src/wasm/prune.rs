use super::convert::{error_to_js, messages_from_js, slots_to_js, to_js, value_from_js, with_messages};
use crate::error::Code;
use crate::options::Options;
use wasm_bindgen::prelude::*;

/// Clears old tool outputs; see `ctxfold.d.ts`.
#[wasm_bindgen(js_name = prune)]
pub fn prune_js(messages: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    let values = messages_from_js(&messages).map_err(error_to_js)?;
    let options = value_from_js(&options, "options", Code::InvalidOption).and_then(|o| Options::from_json(&o)).map_err(error_to_js)?;
    let pruned = crate::prune::prune(&values, &options).map_err(error_to_js)?;
    with_messages(to_js(&pruned.report)?, slots_to_js(&pruned.slots, &messages)?)
}
