use super::prelude::*;

/// The next user turn's messages; see `ctxfold.d.ts`.
#[wasm_bindgen(js_name = assemble_turn)]
pub fn assemble_turn_js(messages: JsValue, turn: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    let value = messages_from_js(&messages)?;
    let turn = value_from_js(&turn, "turn", Code::InvalidInput)?;
    let options = value_from_js(&options, "options", Code::InvalidOption)?;
    let input = Input::read(&value)?;
    let turn = crate::prompt_cache::turn::assemble_turn(&input, &turn, &options)?;
    // The new messages in the kind the history came in: objects, or JSON text.
    let messages = match super::text::given(&messages)? {
        Some(given) => super::text::answer(&crate::json::to_text(&turn.messages), given.bytes),
        None => to_js(&turn.messages)?,
    };
    with_messages(to_js(&turn.report)?, messages)
}
