use super::prelude::*;
use crate::compaction::types::PlanRef;

/// Splices the summary in; see `ctxfold.d.ts`.
#[wasm_bindgen(js_name = apply_summary)]
pub fn apply_summary_js(messages: JsValue, plan: JsValue, summary: JsValue) -> Result<JsValue, JsValue> {
    let value = messages_from_js(&messages)?;
    let plan_value = value_from_js(&plan, "plan", Code::InvalidPlan)?;
    let summary = value_from_js(&summary, "summary", Code::InvalidInput)?;
    let input = Input::read(&value)?;
    // Messages of this very text that a call before counted (the plan, on the text it was given) are not
    // counted again.
    let plan = PlanRef { counted: super::text::known_of(&value), ..PlanRef::from_json(&plan_value)? };
    let applied = crate::compaction::apply::apply_planned(&input, &plan, &summary)?;
    with_messages(to_js(&applied.report)?, output_to_js(&applied.slots, &messages, input.key, &value)?)
}
