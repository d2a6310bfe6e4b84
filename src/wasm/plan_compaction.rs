use super::convert::{error_to_js, messages_from_js, to_js, value_from_js};
use crate::error::Code;
use crate::options::Options;
use wasm_bindgen::prelude::*;

/// Decides what to summarize and writes the prompt; see `ctxfold.d.ts`.
#[wasm_bindgen(js_name = plan_compaction)]
pub fn plan_compaction_js(messages: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    let values = messages_from_js(&messages).map_err(error_to_js)?;
    let options = value_from_js(&options, "options", Code::InvalidOption).and_then(|o| Options::from_json(&o)).map_err(error_to_js)?;
    let plan = crate::plan::plan_compaction(&values, &options).map_err(error_to_js)?;
    to_js(&plan)
}
