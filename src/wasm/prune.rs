use super::convert::{error_to_js, messages_from_js, options_from_js, output_to_js, to_js, with_messages};
use crate::input::Input;
use wasm_bindgen::prelude::*;

/// Clears old tool outputs; see `ctxfold.d.ts`.
#[wasm_bindgen(js_name = prune)]
pub fn prune_js(messages: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    let value = messages_from_js(&messages).map_err(error_to_js)?;
    let options = options_from_js(&options)?;
    let input = Input::read(&value).map_err(error_to_js)?;
    let pruned = crate::prune::prune(&input, &options).map_err(error_to_js)?;
    with_messages(to_js(&pruned.report)?, output_to_js(&pruned.slots, &messages, input.key)?)
}
