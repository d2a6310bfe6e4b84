use super::prelude::*;

/// Clears old tool outputs; see `ctxfold.d.ts`.
#[wasm_bindgen(js_name = prune)]
pub fn prune_js(messages: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    let value = messages_from_js(&messages)?;
    let options = options_from_js(&options)?;
    let input = Input::read(&value)?;
    let pruned = crate::pruning::prune::prune(&input, &options)?;
    super::text::note_known(&value, pruned.counted);
    with_messages(to_js(&pruned.report)?, output_to_js(&pruned.slots, &messages, input.key, &value)?)
}
