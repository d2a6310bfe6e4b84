use super::prelude::*;
use crate::compaction::types::PlanRef;

/// Questions with known answers about what a plan summarizes; see `ctxfold.d.ts`.
#[wasm_bindgen(js_name = quality_probe)]
pub fn quality_probe_js(messages: JsValue, plan: JsValue, max_questions: JsValue) -> Result<JsValue, JsValue> {
    let max = match max_questions.as_f64() {
        _ if max_questions.is_undefined() => 8,
        Some(n) if (1.0..=100.0).contains(&n) && n.fract() == 0.0 => n as usize,
        _ => return Err(Error::option("maxQuestions", "expected a whole number from 1 to 100").into()),
    };
    let value = messages_from_js(&messages)?;
    let plan = PlanRef::from_json(&value_from_js(&plan, "plan", Code::InvalidPlan)?)?;
    let input = Input::read(&value)?;
    to_js(&crate::compaction::probe::quality_probe(&input, &plan, max)?)
}
