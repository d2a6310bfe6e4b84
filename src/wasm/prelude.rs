//! What every export file starts with: the conversions between JS values and the core's, the input
//! reader, errors, and wasm-bindgen's attribute and types.

pub use super::convert::{
    messages_from_js, options_from_js, output_to_js, plan_to_js, snapshot, to_js, value_from_js, value_to_js,
    with_messages,
};
pub use crate::error::{Code, Error};
pub use crate::reading::input::Input;
pub use wasm_bindgen::prelude::*;
