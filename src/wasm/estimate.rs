//! `estimate`'s binding; see `ctxfold.d.ts`. Its JavaScript half, scripts/entries/estimate.js, keeps
//! which message object is which entry of the per-message cache and calls this with what it found: the
//! entry id of each item (-1: not cached) and the items not cached, as one JSON array. This file turns
//! that into a `Lookup` and the host's `counter` function into a `Counter`;
//! `crate::counting::estimate_cache` decides everything else.

use super::binary;
use super::prelude::*;
use super::text;
use crate::counting::estimate::Estimate;
use crate::counting::estimate_cache::{estimate_counted, Counter, DynCounter, EstimateCache, Lookup, Miss};
use crate::error::Result;
use crate::json::utf16_len;
use crate::options::Options;
use crate::reading::input::{Input, MAX_INPUT_CHARS};
use js_sys::{Array, Function, Object, Reflect, Uint32Array, WeakMap, JSON};
use serde_json::Value;
use std::cell::{Cell, RefCell};
use wasm_bindgen::JsCast;

thread_local! {
    // Empty until first used: Workers allow no work at global scope.
    static CACHE: EstimateCache = const { EstimateCache::new() };
    /// Counter function → serial, so each counter's counts are kept apart.
    static COUNTERS: RefCell<Option<WeakMap>> = const { RefCell::new(None) };
    static NEXT_COUNTER: Cell<u32> = const { Cell::new(1) };
}

/// Where the items not cached were kept, and the estimate in parts: `[generation, first, total, perMessage,
/// format, tokenizer, requestOverhead, counted, rest]`. The JavaScript half starts its map over when
/// `generation` is not the one it knew (the cache was cleared), then maps the k-th item not cached to
/// `first + k` (`first` is -1 when they were not kept). It makes the result object from the parts, in the
/// order of `Estimate`'s JSON, which costs far less than JSON text for `JSON.parse` (a quarter of a
/// one-message call); `rest` holds the fields only some options give (calibration, budget, warnings), or is
/// undefined. `perMessage` (one number per message: most of the result) comes as a typed array, which the
/// JavaScript half copies into a plain array. A null total asks it to start over and call again with
/// nothing cached.
// Eight arguments, each a typed array or a plain value: an object would cost a property read across the
// boundary per field, on the path that runs every turn.
#[allow(clippy::too_many_arguments)]
#[wasm_bindgen(js_name = __estimate)]
pub fn estimate_js(
    messages: JsValue,
    options: JsValue,
    generation: u32,
    ids: Vec<i32>,
    missing: Option<Vec<u8>>,
    body: Option<String>,
    walked: Option<Vec<u32>>,
    walked_items: Option<Array>,
) -> std::result::Result<Vec<JsValue>, JsValue> {
    let (counter, options) = read_options(&options)?;
    let mut counter = counter.map(|f| JsCounter { serial: serial_of(&f), f, thrown: None });
    let lookup = lookup(generation, ids, missing, body, walked.unwrap_or_default(), walked_items);
    let warm = CACHE.with(|c| c.warm(&lookup, &options, counter.as_mut().map(|c| c as &mut DynCounter)));
    let (result, first) = match warm {
        Ok(w) => (Some(w.estimate), w.first.map_or(-1, |f| f as i32)),
        Err(Miss::Failed(e)) => return Err(thrown_or(&mut counter, e)),
        Err(Miss::Reset) => (None, -1),
        Err(Miss::Cold) => {
            let value = messages_from_js(&messages)?;
            let cold = Input::read(&value)
                .and_then(|input| estimate_counted(&input, &options, counter.as_mut().map(|c| c as &mut DynCounter)));
            (Some(cold.map_err(|e| thrown_or(&mut counter, e))?), -1)
        }
    };
    let mut parts = vec![JsValue::from(CACHE.with(|c| c.generation())), JsValue::from(first)];
    match result {
        Some(result) => parts.extend(parts_of(result)?),
        None => parts.push(JsValue::NULL),
    }
    Ok(parts)
}

/// The estimate's seven parts (see `estimate_js`).
fn parts_of(result: Estimate) -> std::result::Result<[JsValue; 7], JsValue> {
    // Every field by name, without `..`: a field added to `Estimate` does not compile here until it has its part.
    let Estimate { total, per_message, format, tokenizer, request_overhead, counted, extras } = result;
    let rest = if extras.is_empty() { JsValue::UNDEFINED } else { to_js(&extras)? };
    Ok([
        JsValue::from(total as f64),
        Uint32Array::from(per_message.as_slice()).into(),
        text::interned(format),
        text::interned(tokenizer),
        JsValue::from(request_overhead),
        JsValue::from(counted),
        rest,
    ])
}

/// What the host's counter threw goes back to the host as it was; any other error as ours.
fn thrown_or(counter: &mut Option<JsCounter>, e: Error) -> JsValue {
    counter.as_mut().and_then(|c| c.thrown.take()).unwrap_or_else(|| e.into())
}

/// The JavaScript half's findings as the core reads them. Anything that does not read leaves `missing`
/// empty, which sends the call down the cold path and its canonical errors.
fn lookup(
    generation: u32,
    ids: Vec<i32>,
    missing: Option<Vec<u8>>,
    body: Option<String>,
    walked: Vec<u32>,
    walked_items: Option<Array>,
) -> Lookup {
    let body_len = body.as_ref().map_or(0, |s| utf16_len(s) as u64);
    let room = (MAX_INPUT_CHARS as u64).saturating_sub(body_len);
    let (values, lengths) = match missing.and_then(|json| items_read(&json, &walked, walked_items.as_ref(), room)) {
        Some((values, lengths)) => (Some(values), lengths),
        None => (None, Vec::new()),
    };
    let body = match body.as_deref().map(crate::json::parse) {
        Some(Ok(v)) => Some(v),
        Some(Err(_)) => return Lookup { generation, ids, ..Lookup::default() },
        None => None,
    };
    Lookup { generation, ids, missing: values, lengths, body, body_len }
}

/// The items not cached, and the length of each one's JSON as `JSON.stringify` of it alone measures it
/// (the input-size limit counts what the whole input's JSON would be): None when they do not read, or
/// when they take more than `room` UTF-16 units, which the cold path measures and reports.
fn items_read(json: &[u8], walked: &[u32], walked_items: Option<&Array>, room: u64) -> Option<(Vec<Value>, Vec<u32>)> {
    let text = std::str::from_utf8(json).ok()?;
    // Refused before it is parsed when too long. A text's UTF-16 units are at most its bytes, so only a long
    // one is measured.
    if text.len() as u64 > room && utf16_len(text) as u64 > room {
        return None;
    }
    let Ok((Value::Array(mut values), spans)) = crate::json::parse_with_spans(text) else { return None };
    let mut lengths: Vec<u32> = spans.top.iter().map(|(_, at)| utf16_len(&text[at.clone()]) as u32).collect();
    // Items holding binary data come as `null` in the JSON and are read here (see binary.rs).
    for (n, &k) in walked.iter().enumerate() {
        let json = binary::json_of(&walked_items?.get(n as u32)).ok()?;
        *lengths.get_mut(k as usize)? = json.length();
        *values.get_mut(k as usize)? = crate::json::parse(&String::from(json)).ok()?;
    }
    (lengths.iter().map(|&l| u64::from(l)).sum::<u64>() <= room).then_some((values, lengths))
}

/// The serial of a counter function, the same for the same function object.
fn serial_of(f: &Function) -> u32 {
    COUNTERS.with(|map| {
        let mut map = map.borrow_mut();
        let map = map.get_or_insert_with(WeakMap::new);
        if let Some(n) = map.get(f).as_f64() {
            return n as u32;
        }
        let serial = NEXT_COUNTER.with(|n| n.replace(n.get() + 1));
        map.set(f, &JsValue::from(serial));
        serial
    })
}

/// The options with `counter` (a function) taken out.
fn read_options(options: &JsValue) -> Result<(Option<Function>, Options)> {
    let mut counter = None;
    let mut rest = options.clone();
    if options.is_object() && !Array::is_array(options) {
        let key = JsValue::from_str("counter");
        let value = Reflect::get(options, &key).unwrap_or(JsValue::UNDEFINED);
        if !value.is_undefined() && !value.is_null() {
            let f = value
                .dyn_into::<Function>()
                .map_err(|_| Error::option("options.counter", "expected a function (text) => number of tokens"))?;
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
struct JsCounter {
    f: Function,
    serial: u32,
    /// What the counter threw, passed back unchanged.
    thrown: Option<JsValue>,
}

impl Counter for JsCounter {
    fn serial(&self) -> u32 {
        self.serial
    }

    /// A throw is kept for the caller; a result that is not a finite, non-negative number is an
    /// `INVALID_OPTION` at `options.counter`.
    fn count(&mut self, text: &str, what: &str) -> Result<f64> {
        match self.f.call1(&JsValue::NULL, &JsValue::from_str(text)) {
            Err(e) => {
                self.thrown = Some(e);
                Err(Error::option("options.counter", "the counter threw"))
            }
            Ok(v) => match v.as_f64() {
                Some(n) if n.is_finite() && n >= 0.0 => Ok(n),
                _ => Err(Error::option(
                    "options.counter",
                    format!(
                        "the counter returned {} for a text of {what}; expected a finite number of tokens, 0 or more",
                        describe(&v)
                    ),
                )),
            },
        }
    }
}

fn describe(v: &JsValue) -> String {
    if let Some(n) = v.as_f64() {
        return crate::text::number(n);
    }
    JSON::stringify(v).ok().and_then(|s| s.as_string()).unwrap_or_else(|| v.js_typeof().as_string().unwrap_or_default())
}
