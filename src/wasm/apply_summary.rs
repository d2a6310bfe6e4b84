use super::prelude::*;

/// Splices the summary in; see `ctxfold.d.ts`.
#[wasm_bindgen(js_name = apply_summary)]
pub fn apply_summary_js(messages: JsValue, plan: JsValue, summary: JsValue) -> Result<JsValue, JsValue> {
    let value = messages_from_js(&messages)?;
    let plan_value = value_from_js(&plan, "plan", Code::InvalidPlan)?;
    let summary = value_from_js(&summary, "summary", Code::InvalidInput)?;
    let input = Input::read(&value)?;
    let applied = crate::compaction::apply::apply_summary(&input, &plan_value, &summary)?;
    with_messages(to_js(&applied.report)?, output_to_js(&applied.slots, &messages, input.key, &value)?)
}
