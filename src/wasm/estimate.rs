//! `estimate` in JavaScript; see `ctxfold.d.ts`.
//!
//! Two paths give the same result. Cold: the whole array is read with one `JSON.stringify` and the
//! format reader, as every other export does. Warm, when some messages were estimated before (the
//! usual case: a chat appends a message per turn): only the new messages are read; the cached ones
//! cost a `WeakMap` look-up, and the whole history is re-linked from the cached tool-call ids so the
//! same input gives the same answer, or the same error, whatever was cached. Any doubt on the warm
//! path (an error, a format change) falls back to the cold path, whose errors are the canonical ones.

use super::convert::{error_to_js, messages_from_js, to_js, value_from_js};
use super::estimate_cache::{self as cache, Entry};
use crate::error::{Code, Error};
use crate::estimate::{self, MessageSize};
use crate::format::{self, Format};
use crate::message::Message;
use crate::options::Options;
use js_sys::{Array, Function, Object, Reflect, JSON};
use serde_json::Value;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

#[wasm_bindgen(js_name = estimate)]
pub fn estimate_js(messages: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    let (counter, options) = read_options(&options).map_err(error_to_js)?;
    let mut counter = counter.map(|f| Counter::new(f));
    if !Array::is_array(&messages) {
        return Err(error_to_js(messages_from_js(&messages).err().unwrap_or_else(|| Error::input("messages", "expected an array"))));
    }
    let array: &Array = messages.unchecked_ref();
    let (format, sizes) = match warm(array, &options, counter.as_mut()) {
        Some(Ok(read)) => read,
        Some(Err(thrown)) => return Err(thrown),
        None => cold(array, &messages, &options, counter.as_mut())?,
    };
    let profile = options.profile;
    let per_message = sizes.iter().map(|(size, counted)| match counted {
        Some(t) => size.tokens_counted(*t, &profile),
        None => size.tokens(&profile),
    });
    let per_message: Vec<u32> = per_message.collect();
    let result = match counter.as_mut() {
        Some(c) => {
            let r = estimate::finish(per_message, format, &options, true, &mut |t| c.count(t, "options"));
            r.map_err(|e| c.take_thrown().unwrap_or_else(|| error_to_js(e)))?
        }
        None => estimate::finish(per_message, format, &options, false, &mut |t| Ok(profile.text(t))).map_err(error_to_js)?,
    };
    to_js(&result)
}

/// Per message: its size and, with a counter, the exact tokens of its texts.
type Sizes = Vec<(MessageSize, Option<f64>)>;

/// The options with `counter` (a function, which is not JSON) taken out.
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

/// The cold path: everything read at once, then remembered.
fn cold(array: &Array, messages: &JsValue, options: &Options, mut counter: Option<&mut Counter>) -> Result<(Format, Sizes), JsValue> {
    let values = messages_from_js(messages).map_err(error_to_js)?;
    let conv = format::read(&values, options.format).map_err(error_to_js)?;
    let mut sizes = Vec::with_capacity(conv.len());
    for (i, m) in conv.messages.iter().enumerate() {
        let counted = match counter.as_deref_mut() {
            Some(c) => Some(c.count_message(m, i)?),
            None => None,
        };
        let mut entry = Entry::new(m, conv.format);
        if let (Some(c), Some(t)) = (counter.as_deref(), counted) {
            entry.set_counted(c.serial, t);
        }
        sizes.push((entry.size, counted));
        cache::with(|cache| cache.insert(&array.get(i as u32), entry));
    }
    Ok((conv.format, sizes))
}

/// The warm path: `None` when it does not apply or has any doubt (then the cold path runs);
/// `Some(Err)` only for an error thrown by the host's counter, which is passed back as it is.
fn warm(array: &Array, options: &Options, mut counter: Option<&mut Counter>) -> Option<Result<(Format, Sizes), JsValue>> {
    let n = array.length() as usize;
    let serial = counter.as_deref().map(|c| c.serial);
    let objects: Vec<JsValue> = (0..n).map(|i| array.get(i as u32)).collect();
    // Cache hits (entry index), and the format they were read in.
    let hits: Vec<Option<usize>> = cache::with(|c| {
        objects.iter().map(|o| c.lookup(o).filter(|&k| serial.is_none_or(|s| c.entry(k).counted_by(s).is_some()))).collect()
    });
    let first = hits.iter().flatten().next().copied()?;
    let format = cache::with(|c| c.entry(first).format);
    if options.format.is_some_and(|f| f != format) || cache::with(|c| hits.iter().flatten().any(|&k| c.entry(k).format != format)) {
        return None;
    }
    // The new messages, each read on its own.
    let misses: Vec<usize> = (0..n).filter(|&i| hits[i].is_none()).collect();
    let mut values = Vec::with_capacity(misses.len());
    for &i in &misses {
        let text: String = JSON::stringify(&objects[i]).ok()?.as_string()?;
        values.push(serde_json::from_str::<Value>(&text).ok()?);
    }
    if options.format.is_none() && !values.is_empty() && format::detect(&values).ok()? != format {
        return None;
    }
    let read: Vec<Message> = misses.iter().zip(&values).map(|(&i, v)| format::read_message(v, i, format)).collect::<Result<_, _>>().ok()?;
    // Re-link the whole history with the format's rules, cached messages from their stored ids.
    let linked = cache::with(|c| {
        let mut fresh = read.iter();
        let views: Vec<Message> = hits.iter().map(|h| match h {
            Some(k) => c.entry(*k).view(),
            None => fresh.next().cloned().unwrap_or_else(|| c.entry(first).view()),
        }).collect();
        format::link(format, &views).is_ok()
    });
    if !linked {
        return None;
    }
    let mut sizes: Sizes = Vec::with_capacity(n);
    let mut fresh = misses.iter().zip(&read);
    for (i, hit) in hits.iter().enumerate() {
        if let Some(k) = hit {
            sizes.push(cache::with(|c| {
                let e = c.entry(*k);
                (e.size, serial.and_then(|s| e.counted_by(s)))
            }));
            continue;
        }
        let (_, m) = fresh.next()?;
        let counted = match counter.as_deref_mut() {
            Some(c) => match c.count_message(m, i) {
                Ok(t) => Some(t),
                Err(thrown) => return Some(Err(thrown)),
            },
            None => None,
        };
        let mut entry = Entry::new(m, format);
        if let (Some(s), Some(t)) = (serial, counted) {
            entry.set_counted(s, t);
        }
        sizes.push((entry.size, counted));
        cache::with(|c| c.insert(&objects[i], entry));
    }
    Some(Ok((format, sizes)))
}

/// The host's `(text) => number` counter. It is never called while the cache is borrowed: it may
/// call `estimate` itself.
struct Counter {
    f: Function,
    serial: u32,
    /// What the counter threw, to pass back unchanged.
    thrown: Option<JsValue>,
}

impl Counter {
    fn new(f: Function) -> Counter {
        let serial = cache::with(|c| c.counter_serial(&f));
        Counter { f, serial, thrown: None }
    }

    /// Tokens of one text. A throw is kept (see `take_thrown`); a result that is not a finite,
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
            total += self.count(text, &format!("messages[{index}]")).map_err(|e| self.take_thrown().unwrap_or_else(|| error_to_js(e)))?;
        }
        Ok(total)
    }

    fn take_thrown(&mut self) -> Option<JsValue> {
        self.thrown.take()
    }
}

fn describe(v: &JsValue) -> String {
    if let Some(n) = v.as_f64() {
        return n.to_string();
    }
    JSON::stringify(v).ok().and_then(|s| s.as_string()).unwrap_or_else(|| v.js_typeof().as_string().unwrap_or_default())
}
