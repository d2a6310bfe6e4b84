//! JS ⇄ core conversion and errors.
//!
//! Messages are read with the engine's own `JSON.stringify` and parsed by serde_json: one native
//! pass that is much faster than walking the objects field by field across the boundary, and that
//! reports circular structures instead of recursing forever. Options, plans and summaries are small
//! and read field by field, so NaN and Infinity are caught (JSON.stringify would turn them into null).

use crate::edit::Slot;
use crate::error::{Code, Error};
use js_sys::{Array, Object, Reflect, JSON};
use serde::Serialize;
use serde_json::{Map, Number, Value};
use wasm_bindgen::{JsCast, JsValue};

/// Deeper than any real options object or plan; guards the recursion below.
const MAX_DEPTH: usize = 64;

pub fn messages_from_js(messages: &JsValue) -> Result<Vec<Value>, Error> {
    if !Array::is_array(messages) {
        return Err(Error::input("messages", format!("expected an array of messages, got {}", js_type(messages))));
    }
    let json = JSON::stringify(messages).map_err(|e| {
        Error::input("messages", format!("cannot be read as JSON ({}); messages must be plain data", error_text(&e)))
    })?;
    let text: String = json.into();
    serde_json::from_str(&text).map_err(|e| Error::input("messages", format!("cannot be read: {e}")))
}

/// A small JS value (options, plan, summary) as JSON; `undefined` reads as null.
pub fn value_from_js(v: &JsValue, path: &str, code: Code) -> Result<Value, Error> {
    read_value(v, path, code, 0)
}

fn read_value(v: &JsValue, path: &str, code: Code, depth: usize) -> Result<Value, Error> {
    if depth > MAX_DEPTH {
        return Err(Error::new(code, path, "nested too deeply"));
    }
    if v.is_undefined() || v.is_null() {
        return Ok(Value::Null);
    }
    if let Some(b) = v.as_bool() {
        return Ok(Value::Bool(b));
    }
    if let Some(n) = v.as_f64() {
        // JS has one number type: whole numbers become integers so counts and indices read as such.
        if n.fract() == 0.0 && n.abs() < 9_007_199_254_740_992.0 {
            return Ok(Value::Number(Number::from(n as i64)));
        }
        return Number::from_f64(n)
            .map(Value::Number)
            .ok_or_else(|| Error::new(code, path, format!("expected a finite number, got {n}")));
    }
    if let Some(s) = v.as_string() {
        return Ok(Value::String(s));
    }
    if Array::is_array(v) {
        let items = Array::from(v);
        let mut out = Vec::with_capacity(items.length() as usize);
        for (i, item) in items.iter().enumerate() {
            out.push(read_value(&item, &format!("{path}[{i}]"), code, depth + 1)?);
        }
        return Ok(Value::Array(out));
    }
    if v.is_object() && !v.is_function() {
        let obj: &Object = v.unchecked_ref();
        let mut out = Map::new();
        for key in Object::keys(obj).iter() {
            let Some(name) = key.as_string() else { continue };
            let child_path = format!("{path}.{name}");
            let child = Reflect::get(obj, &key).map_err(|e| Error::new(code, &child_path, error_text(&e)))?;
            if child.is_undefined() {
                continue;
            }
            out.insert(name, read_value(&child, &child_path, code, depth + 1)?);
        }
        return Ok(Value::Object(out));
    }
    Err(Error::new(code, path, format!("expected plain data, got {}", js_type(v))))
}

/// A core result as a plain JS object.
pub fn to_js<T: Serialize>(value: &T) -> Result<JsValue, JsValue> {
    let text = serde_json::to_string(value).map_err(|e| JsValue::from(js_sys::Error::new(&e.to_string())))?;
    JSON::parse(&text)
}

/// The output array: the caller's own objects where kept, shallow copies where patched (every
/// field the core did not set stays exactly as the caller had it), new objects for summaries.
pub fn slots_to_js(slots: &[Slot], messages: &JsValue) -> Result<Array, JsValue> {
    let input: &Array = messages.unchecked_ref();
    let out = Array::new_with_length(slots.len() as u32);
    for (k, slot) in slots.iter().enumerate() {
        let item = match slot {
            Slot::Keep(i) => input.get(*i as u32),
            Slot::Patch { index, set } => {
                let original: Object = input.get(*index as u32).unchecked_into();
                let copy = Object::assign(&Object::new(), &original);
                for (key, value) in set {
                    Reflect::set(&copy, &JsValue::from_str(key), &to_js(value)?)?;
                }
                copy.into()
            }
            Slot::New(value) => to_js(value)?,
        };
        out.set(k as u32, item);
    }
    Ok(out)
}

/// `result` with its `messages` field set to the output array.
pub fn with_messages(result: JsValue, messages: Array) -> Result<JsValue, JsValue> {
    Reflect::set(&result, &JsValue::from_str("messages"), &messages)?;
    Ok(result)
}

/// A thrown `Error` carrying the stable `code` and the `path` of the offending field.
pub fn error_to_js(e: Error) -> JsValue {
    let err = js_sys::Error::new(&format!("ctxfold: {} at {}: {}", e.code.as_str(), e.path, e.message));
    err.set_name("CtxfoldError");
    let _ = Reflect::set(&err, &JsValue::from_str("code"), &JsValue::from_str(e.code.as_str()));
    let _ = Reflect::set(&err, &JsValue::from_str("path"), &JsValue::from_str(&e.path));
    err.into()
}

fn error_text(e: &JsValue) -> String {
    e.dyn_ref::<js_sys::Error>()
        .map(|err| String::from(err.message()))
        .or_else(|| e.as_string())
        .unwrap_or_else(|| "unknown error".into())
}

fn js_type(v: &JsValue) -> String {
    if v.is_null() {
        "null".into()
    } else if Array::is_array(v) {
        "array".into()
    } else {
        v.js_typeof().as_string().unwrap_or_default()
    }
}
