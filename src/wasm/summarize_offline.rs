use super::prelude::*;

/// A deterministic digest for each job of the plan, written without an LLM; see `ctxfold.d.ts`.
#[wasm_bindgen(js_name = summarize_offline)]
pub fn summarize_offline_js(messages: JsValue, plan: JsValue) -> Result<JsValue, JsValue> {
    let value = messages_from_js(&messages)?;
    let plan_value = value_from_js(&plan, "plan", Code::InvalidPlan)?;
    let input = Input::read(&value)?;
    let summaries = crate::compaction::apply::offline_summaries(&input, &plan_value)?;
    to_js(&summaries)
}
