use super::convert::{error_to_js, messages_from_js, output_to_js, to_js, value_from_js, with_messages};
use crate::error::Code;
use crate::input::Input;
use wasm_bindgen::prelude::*;

/// Splices the summary in; see `ctxfold.d.ts`.
#[wasm_bindgen(js_name = apply_summary)]
pub fn apply_summary_js(messages: JsValue, plan: JsValue, summary: JsValue) -> Result<JsValue, JsValue> {
    let value = messages_from_js(&messages).map_err(error_to_js)?;
    let plan_value = value_from_js(&plan, "plan", Code::InvalidPlan).map_err(error_to_js)?;
    let summary = value_from_js(&summary, "summary", Code::InvalidInput).map_err(error_to_js)?;
    let input = Input::read(&value).map_err(error_to_js)?;
    let applied = crate::apply::apply_summary(&input, &plan_value, &summary).map_err(error_to_js)?;
    with_messages(to_js(&applied.report)?, output_to_js(&applied.slots, &messages, input.key)?)
}
