use super::convert::{error_to_js, messages_from_js, to_js, value_from_js, with_messages};
use crate::error::Code;
use crate::input::Input;
use wasm_bindgen::prelude::*;

/// The next user turn's messages; see `ctxfold.d.ts`.
#[wasm_bindgen(js_name = assemble_turn)]
pub fn assemble_turn_js(messages: JsValue, turn: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    let value = messages_from_js(&messages).map_err(error_to_js)?;
    let turn = value_from_js(&turn, "turn", Code::InvalidInput).map_err(error_to_js)?;
    let options = value_from_js(&options, "options", Code::InvalidOption).map_err(error_to_js)?;
    let input = Input::read(&value).map_err(error_to_js)?;
    let turn = crate::turn::assemble_turn(&input, &turn, &options).map_err(error_to_js)?;
    with_messages(to_js(&turn.report)?, to_js(&turn.messages)?)
}
