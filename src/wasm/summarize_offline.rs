use super::convert::{error_to_js, messages_from_js, to_js, value_from_js};
use crate::error::Code;
use crate::input::Input;
use wasm_bindgen::prelude::*;

/// A deterministic digest for each job of the plan, written without an LLM; see `ctxfold.d.ts`.
#[wasm_bindgen(js_name = summarize_offline)]
pub fn summarize_offline_js(messages: JsValue, plan: JsValue) -> Result<JsValue, JsValue> {
    let value = messages_from_js(&messages).map_err(error_to_js)?;
    let plan_value = value_from_js(&plan, "plan", Code::InvalidPlan).map_err(error_to_js)?;
    let input = Input::read(&value).map_err(error_to_js)?;
    let summaries = crate::apply::offline_summaries(&input, &plan_value).map_err(error_to_js)?;
    to_js(&summaries)
}
