use super::convert::{error_to_js, messages_from_js, options_from_js, to_js};
use crate::input::Input;
use wasm_bindgen::prelude::*;

/// Decides what to summarize and writes the prompt; see `ctxfold.d.ts`.
#[wasm_bindgen(js_name = plan_compaction)]
pub fn plan_compaction_js(messages: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    let value = messages_from_js(&messages).map_err(error_to_js)?;
    let options = options_from_js(&options)?;
    let input = Input::read(&value).map_err(error_to_js)?;
    let plan = crate::plan::plan_compaction(&input, &options).map_err(error_to_js)?;
    to_js(&plan)
}
