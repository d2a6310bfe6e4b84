//! `estimate` in JavaScript; see `ctxfold.d.ts`. Besides the options every export reads, it takes the
//! host's exact `counter`, a function, which is not JSON and so is read here.

use super::convert::{error_to_js, messages_from_js, to_js, value_from_js};
use crate::error::{Code, Error};
use crate::estimate::{self, MessageSize};
use crate::format;
use crate::input::Input;
use crate::message::Message;
use crate::options::Options;
use js_sys::{Array, Function, Object, Reflect, JSON};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

#[wasm_bindgen(js_name = estimate)]
pub fn estimate_js(messages: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    let (counter, options) = read_options(&options).map_err(error_to_js)?;
    let value = messages_from_js(&messages).map_err(error_to_js)?;
    let input = Input::read(&value).map_err(error_to_js)?;
    let conv = format::read(&input, options.format).map_err(error_to_js)?;
    let profile = options.profile;
    let result = match counter {
        None => {
            let per_message = estimate::per_message(&conv, &profile);
            estimate::finish(per_message, conv.format, &options, &input, false, &mut |t| Ok(profile.text(t))).map_err(error_to_js)
        }
        Some(f) => {
            let mut counter = Counter { f, thrown: None };
            let mut per_message = Vec::with_capacity(conv.len());
            for (i, m) in conv.messages.iter().enumerate() {
                let text_tokens = counter.count_message(m, i)?;
                per_message.push(MessageSize::of(m).tokens_counted(text_tokens, &profile));
            }
            let result = estimate::finish(per_message, conv.format, &options, &input, true, &mut |t| counter.count(t, "the system prompt or tools"));
            // What the counter threw goes back to the host as it was.
            result.map_err(|e| counter.thrown.take().unwrap_or_else(|| error_to_js(e)))
        }
    };
    to_js(&result?)
}

/// The options with `counter` (a function) taken out.
fn read_options(options: &JsValue) -> Result<(Option<Function>, Options), Error> {
    let mut counter = None;
    let mut rest = options.clone();
    if options.is_object() && !Array::is_array(options) {
        let key = JsValue::from_str("counter");
        let value = Reflect::get(options, &key).unwrap_or(JsValue::UNDEFINED);
        if !value.is_undefined() && !value.is_null() {
            let f = value.dyn_into::<Function>().map_err(|_| Error::option("options.counter", "expected a function (text) => number of tokens"))?;
            counter = Some(f);
        }
        let copy = Object::assign(&Object::new(), options.unchecked_ref());
        let _ = Reflect::delete_property(&copy, &key);
        rest = copy.into();
    }
    let value = value_from_js(&rest, "options", Code::InvalidOption)?;
    Ok((counter, Options::from_json(&value)?))
}

/// The host's `(text) => number` counter.
struct Counter {
    f: Function,
    /// What the counter threw, passed back unchanged.
    thrown: Option<JsValue>,
}

impl Counter {
    /// Tokens of one text. A throw is kept for the caller; a result that is not a finite,
    /// non-negative number is an `INVALID_OPTION` at `options.counter`.
    fn count(&mut self, text: &str, what: &str) -> Result<f64, Error> {
        match self.f.call1(&JsValue::NULL, &JsValue::from_str(text)) {
            Err(e) => {
                self.thrown = Some(e);
                Err(Error::option("options.counter", "the counter threw"))
            }
            Ok(v) => match v.as_f64() {
                Some(n) if n.is_finite() && n >= 0.0 => Ok(n),
                _ => Err(Error::option("options.counter", format!(
                    "the counter returned {} for a text of {what}; expected a finite number of tokens, 0 or more",
                    describe(&v)
                ))),
            },
        }
    }

    fn count_message(&mut self, m: &Message, index: usize) -> Result<f64, JsValue> {
        let mut total = 0.0;
        for text in estimate::texts(m) {
            total += self.count(text, &format!("messages[{index}]")).map_err(|e| self.thrown.take().unwrap_or_else(|| error_to_js(e)))?;
        }
        Ok(total)
    }
}

fn describe(v: &JsValue) -> String {
    if let Some(n) = v.as_f64() {
        return crate::text::number(n);
    }
    JSON::stringify(v).ok().and_then(|s| s.as_string()).unwrap_or_else(|| v.js_typeof().as_string().unwrap_or_default())
}
