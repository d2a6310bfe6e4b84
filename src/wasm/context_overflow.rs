use super::prelude::*;
use crate::checking::overflow::Overflow;
use js_sys::{Object, Reflect};

/// Fields that hold an error's text or a nested error, besides its own enumerable ones: `message`
/// and `cause` are not enumerable on an `Error`.
const TEXT_FIELDS: [&str; 2] = ["message", "cause"];
/// How deep wrapped errors are followed (an SDK error holding the body holding the error).
const MAX_DEPTH: u32 = 5;
/// How many strings are looked at, at most: an error is small; a huge object is not an error.
const MAX_STRINGS: usize = 200;

/// Whether `error` says the request was longer than the model's context; see `ctxfold.d.ts`.
#[wasm_bindgen(js_name = context_overflow)]
pub fn context_overflow_js(error: JsValue) -> Result<JsValue, JsValue> {
    match overflow_of(&error) {
        Some(found) => to_js(&found),
        None => Ok(JsValue::NULL),
    }
}

/// The overflow a JS error (or body, or text) describes, if it is one.
pub fn overflow_of(error: &JsValue) -> Option<Overflow> {
    let (mut texts, mut codes) = (Vec::new(), Vec::new());
    collect(error, "", 0, &mut texts, &mut codes);
    crate::checking::overflow::context_overflow(&texts, &codes)
}

/// Every string inside `value` (and, apart, those under a `code` key), whatever wraps it.
fn collect(value: &JsValue, key: &str, depth: u32, texts: &mut Vec<String>, codes: &mut Vec<String>) {
    if texts.len() >= MAX_STRINGS || depth > MAX_DEPTH {
        return;
    }
    if let Some(s) = value.as_string() {
        if key == "code" {
            codes.push(s.clone());
        }
        texts.push(s);
        return;
    }
    if !value.is_object() {
        return;
    }
    let object: &Object = value.unchecked_ref();
    let mut keys: Vec<String> = Object::keys(object).iter().filter_map(|k| k.as_string()).collect();
    for field in TEXT_FIELDS {
        if !keys.iter().any(|k| k == field) {
            keys.push(field.to_string());
        }
    }
    for k in keys {
        if let Ok(child) = Reflect::get(value, &JsValue::from_str(&k)) {
            collect(&child, &k, depth + 1, texts, codes);
        }
    }
}
