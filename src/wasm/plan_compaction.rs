use super::prelude::*;

/// Decides what to summarize and writes the prompt; see `ctxfold.d.ts`.
#[wasm_bindgen(js_name = plan_compaction)]
pub fn plan_compaction_js(messages: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    let value = messages_from_js(&messages)?;
    let options = options_from_js(&options)?;
    let input = Input::read(&value)?;
    // The tokens of the messages a call before counted (prune, on the text it hands back) are not counted again.
    let known = super::text::known_of(&value);
    let plan = crate::compaction::plan::plan_compaction_known(&input, &options, known.as_ref())?;
    // And the plan's counts of them all, for `apply_summary` on the same text.
    super::text::note_known(&value, plan.counted.clone());
    plan_to_js(plan)
}
