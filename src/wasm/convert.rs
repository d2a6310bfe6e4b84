//! JS ⇄ core conversion and errors.
//!
//! Messages are read with the engine's own `JSON.stringify` and parsed by `crate::json`: one native
//! pass that is much faster than walking the objects field by field across the boundary, and that
//! reports circular structures instead of recursing forever (binary data in content parts aside: see
//! binary.rs). Options, plans and summaries are small and read field by field by `read_value`, which
//! gives the path of a bad field, refuses NaN and Infinity (JSON.stringify would turn them into null,
//! serde-wasm-bindgen too) and stops at a depth limit on a cycle (serde-wasm-bindgen has none).
//!
//! Out of the core, results go through its JSON writer and one `JSON.parse` (a plan's transcripts as
//! strings of their own); the JSON values it writes into the caller's messages and prompts are built by
//! serde-wasm-bindgen.

use super::binary;
use super::text;
use crate::compaction::plan::Plan;
use crate::edit::{FieldEdit, Key, Op, Slot};
use crate::error::{item_path, subpath, Code, Error};
use crate::reading::input::MAX_INPUT_CHARS;
use js_sys::{Array, Object, Reflect, JSON};
use serde_json::{Map, Number, Value};
use std::rc::Rc;
use wasm_bindgen::{JsCast, JsValue};

/// Deeper than any real options object or plan; guards the recursion below.
const MAX_DEPTH: usize = 64;

/// The `messages` argument: an array of messages, or a request body holding one.
pub fn messages_from_js(messages: &JsValue) -> Result<Rc<Value>, Error> {
    if let Some(value) = text::value_of(messages)? {
        return Ok(value);
    }
    if !Array::is_array(messages) && !is_plain_object(messages) {
        return Err(Error::input(
            "messages",
            format!("expected an array of messages or a request body, got {}", js_type(messages)),
        ));
    }
    if Array::is_array(messages) {
        let items: &Array = messages.unchecked_ref();
        if (0..items.length()).any(|i| binary::in_content_parts(&items.get(i))) {
            return read_item_by_item(items).map(Rc::new);
        }
    }
    let json = JSON::stringify(messages).map_err(|e| unreadable(&locate_unreadable(messages), &e))?;
    // Measured before the text is copied into WebAssembly memory, so a huge input costs nothing here.
    if json.length() as usize > MAX_INPUT_CHARS {
        return Err(text::too_large(Some(json.length() as usize)));
    }
    let text = text::utf8_of(&json);
    let value = crate::json::parse(&text).map_err(|e| Error::input(locate_unreadable(messages), not_json(&e)))?;
    Ok(Rc::new(value))
}

/// Why JSON.stringify's text did not parse. Its text is always JSON, so the reason is a lone UTF-16
/// surrogate (which it writes as an escape that no UTF-8 text can hold), unless the reader says more.
fn not_json(e: &crate::json::ParseError) -> String {
    match e.to_string() {
        m if m.contains("escape") => text::LONE_SURROGATE.into(),
        m => format!("cannot be read: {m}"),
    }
}

fn unreadable(path: &str, e: &JsValue) -> Error {
    Error::input(path, format!("cannot be read as JSON ({}); messages must be plain data", error_text(e)))
}

/// An array holding binary data, read one item at a time (see `binary.rs`).
fn read_item_by_item(items: &Array) -> Result<Value, Error> {
    let mut values = Vec::with_capacity(items.length() as usize);
    // The whole input's JSON: the brackets, a comma between items, and the items.
    let mut chars = (2 + items.length().saturating_sub(1)) as usize;
    for i in 0..items.length() {
        let (item, path) = (items.get(i), item_path("messages", i as usize));
        let json = match binary::in_content_parts(&item) {
            true => binary::json_of(&item),
            false => JSON::stringify(&item),
        };
        let json = json.map_err(|e| unreadable(&path, &e))?;
        if json.is_undefined() {
            values.push(Value::Null); // as in an array: undefined and functions are null
            chars += 4;
            continue;
        }
        let length = json.length() as usize;
        if chars + length > MAX_INPUT_CHARS {
            return Err(text::too_large(None));
        }
        let text = text::utf8_of(&json);
        let value = crate::json::parse(&text).map_err(|e| Error::input(&path, not_json(&e)))?;
        chars += length;
        values.push(value);
    }
    Ok(Value::Array(values))
}

/// Which item could not be read (a cycle, a getter that throws, a lone UTF-16 surrogate, nesting
/// deeper than 128 levels): the first one that fails alone, or the whole input when none does.
fn locate_unreadable(messages: &JsValue) -> String {
    let (items, root) = match Array::is_array(messages) {
        true => (Array::from(messages), "messages".to_string()),
        false => {
            let key = ["messages", "contents", "input"]
                .into_iter()
                .find(|k| Reflect::has(messages, &JsValue::from_str(k)).unwrap_or(false));
            match key.and_then(|k| Reflect::get(messages, &JsValue::from_str(k)).ok().map(|v| (v, k))) {
                Some((v, k)) if Array::is_array(&v) => (Array::from(&v), k.to_string()),
                _ => return "messages".into(),
            }
        }
    };
    // Indexed loops with `get`, here and in `read_value`: `Array::iter` would bring one more import.
    for i in 0..items.length() {
        let item = items.get(i);
        let readable = JSON::stringify(&item).ok().and_then(|j| crate::json::parse(&String::from(j)).ok()).is_some();
        if !readable {
            return item_path(&root, i as usize);
        }
    }
    root
}

fn is_plain_object(v: &JsValue) -> bool {
    v.is_object() && !v.is_function()
}

/// The options argument, read strictly.
pub fn options_from_js(options: &JsValue) -> Result<crate::options::Options, JsValue> {
    value_from_js(options, "options", Code::InvalidOption)
        .and_then(|o| crate::options::Options::from_json(&o))
        .map_err(JsValue::from)
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
        return Number::from_f64(n).map(Value::Number).ok_or_else(|| {
            Error::new(code, path, format!("expected a finite number, got {}", crate::text::number(n)))
        });
    }
    if let Some(s) = v.as_string() {
        return Ok(Value::String(s));
    }
    if Array::is_array(v) {
        let items = Array::from(v);
        let mut out = Vec::with_capacity(items.length() as usize);
        for i in 0..items.length() {
            out.push(read_value(&items.get(i), &item_path(path, i as usize), code, depth + 1)?);
        }
        return Ok(Value::Array(out));
    }
    if v.is_object() && !v.is_function() {
        let obj: &Object = v.unchecked_ref();
        let mut out = Map::new();
        let keys = Object::keys(obj);
        for k in 0..keys.length() {
            let key = keys.get(k);
            let Some(name) = key.as_string() else { continue };
            let child_path = subpath(path, &name);
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

/// A core result as a plain JS object: written once as JSON text by the core's writer and built by the
/// engine's `JSON.parse`, one call across the boundary however large the result.
pub fn to_js(value: &dyn crate::json::ToJson) -> Result<JsValue, JsValue> {
    JSON::parse(&crate::json::to_text(value))
}

/// A plan. Its prompts' transcripts are most of its bytes (a third of a long history can be one); each
/// becomes a JS string of its own rather than a part of the JSON text, which would be escaped here and
/// read again by `JSON.parse`: a sixth of `plan_compaction`'s time on the Workers bench's body.
pub fn plan_to_js(mut plan: Plan) -> Result<JsValue, JsValue> {
    let mut transcripts = Vec::with_capacity(plan.jobs.len());
    for job in &mut plan.jobs {
        transcripts.push(std::mem::take(&mut job.prompt.user));
    }
    let out = to_js(&plan)?;
    let jobs: Array = Reflect::get(&out, &"jobs".into())?.unchecked_into();
    for (k, user) in transcripts.iter().enumerate() {
        let prompt = Reflect::get(&jobs.get(k as u32), &"prompt".into())?;
        Reflect::set(&prompt, &"user".into(), &text::js_string(user))?;
    }
    Ok(out)
}

/// A JSON value the core wrote (a new message, an edited field, a prompt), built by serde-wasm-bindgen
/// without a detour through text. Two kinds of value go through `JSON.parse` instead: one holding a
/// `__proto__` key, which serde-wasm-bindgen's `obj[key] = value` would turn into the object's
/// prototype (`JSON.parse` keeps it as a field, as the caller wrote it), and a whole number beyond 2^53,
/// which serde-wasm-bindgen refuses (`JSON.parse` rounds it as JS does).
pub fn value_to_js(value: &Value) -> Result<JsValue, JsValue> {
    use serde::Serialize;
    if has_proto_key(value) {
        return to_js(value);
    }
    value.serialize(&serde_wasm_bindgen::Serializer::json_compatible()).or_else(|_| to_js(value))
}

fn has_proto_key(value: &Value) -> bool {
    match value {
        Value::Object(fields) => fields.iter().any(|(k, v)| k == "__proto__" || has_proto_key(v)),
        Value::Array(items) => items.iter().any(has_proto_key),
        _ => false,
    }
}

/// The output: the caller's own objects where kept, copies where edited (only the containers on an
/// edit's path are copied, so every part the core did not touch stays the caller's own value), new
/// objects for what ctxfold wrote. A request body comes back as a copy with its array replaced.
/// `history`: the value the slots were made from (see `text::output`).
pub fn output_to_js(
    slots: &[Slot],
    messages: &JsValue,
    key: Option<&'static str>,
    history: &Value,
) -> Result<JsValue, JsValue> {
    match text::output(slots, messages, key, Vec::new(), history)? {
        Some(text) => Ok(text),
        None => objects_to_js(slots, messages, key),
    }
}

/// `output_to_js` for messages given as JS objects (an array, or a body holding one).
pub fn objects_to_js(slots: &[Slot], messages: &JsValue, key: Option<&'static str>) -> Result<JsValue, JsValue> {
    let items: Array = match key {
        Some(k) => Reflect::get(messages, &JsValue::from_str(k))?.unchecked_into(),
        None => messages.clone().unchecked_into(),
    };
    let out = Array::new_with_length(slots.len() as u32);
    for (k, slot) in slots.iter().enumerate() {
        let item = match slot {
            Slot::Keep(i) => items.get(*i as u32),
            Slot::Patch { index, edits } => {
                let copy = shallow_copy(&items.get(*index as u32));
                let copies = js_sys::Set::new(&JsValue::UNDEFINED);
                copies.add(&copy);
                for edit in edits {
                    apply_edit(&copy, edit, &copies)?;
                }
                copy
            }
            Slot::New(value) => value_to_js(value)?,
        };
        out.set(k as u32, item);
    }
    match key {
        Some(k) => {
            let body = shallow_copy(messages);
            Reflect::set(&body, &JsValue::from_str(k), &out)?;
            Ok(body)
        }
        None => Ok(out.into()),
    }
}

/// A copy of the `messages` argument as it is now: a new array of the caller's objects, or a copy of
/// the body holding one, or of the bytes. Later changes to the caller's array or bytes do not reach it.
pub fn snapshot(messages: &JsValue, key: Option<&str>) -> Result<JsValue, JsValue> {
    if messages.is_string() {
        return Ok(messages.clone()); // a string cannot change
    }
    if let Some(bytes) = messages.dyn_ref::<js_sys::Uint8Array>() {
        return Ok(bytes.slice(0, bytes.length()).into());
    }
    match key {
        Some(k) => {
            let body = shallow_copy(messages);
            let items = Reflect::get(messages, &JsValue::from_str(k))?;
            Reflect::set(&body, &JsValue::from_str(k), &shallow_copy(&items))?;
            Ok(body)
        }
        None => Ok(shallow_copy(messages)),
    }
}

/// A copy of an array, or of an object's own enumerable fields. Not `Object.assign`: it sets each field
/// as `copy[key] = value`, so a field named `__proto__` would become the copy's prototype and vanish
/// from its data; `Object.fromEntries` defines it as the field it is.
fn shallow_copy(v: &JsValue) -> JsValue {
    if Array::is_array(v) {
        Array::from(v).into()
    } else {
        Object::from_entries(&Object::entries(v.unchecked_ref())).map(JsValue::from).unwrap_or_else(|_| v.clone())
    }
}

/// Walks `edit.path` from `root`, copying each container on the way the first time it is reached
/// (`copies` holds the ones already copied for this message), then applies the edit.
fn apply_edit(root: &JsValue, edit: &FieldEdit, copies: &js_sys::Set) -> Result<(), JsValue> {
    let Some((last, parents)) = edit.path.split_last() else { return Ok(()) };
    let mut at = root.clone();
    for key in parents {
        let key = key_to_js(key);
        let child = Reflect::get(&at, &key)?;
        if !child.is_object() {
            return Ok(()); // the core only edits paths it read; nothing to follow otherwise
        }
        let child = if copies.has(&child) {
            child
        } else {
            let copy = shallow_copy(&child);
            copies.add(&copy);
            Reflect::set(&at, &key, &copy)?;
            copy
        };
        at = child;
    }
    match (&edit.op, last) {
        (Op::Set(value), key) => {
            Reflect::set(&at, &key_to_js(key), &value_to_js(value)?)?;
        }
        (Op::Insert(value), Key::Index(i)) => {
            at.unchecked_ref::<Array>().splice(*i as u32, 0, &value_to_js(value)?);
        }
        (Op::Remove, Key::Index(i)) => {
            // Array::splice always inserts an item; shift the tail down instead.
            let array: &Array = at.unchecked_ref();
            let len = array.length();
            for j in (*i as u32)..len.saturating_sub(1) {
                array.set(j, array.get(j + 1));
            }
            if (*i as u32) < len {
                array.pop();
            }
        }
        _ => {}
    }
    Ok(())
}

fn key_to_js(key: &Key) -> JsValue {
    match key {
        Key::Field(f) => JsValue::from_str(f),
        Key::Index(i) => JsValue::from_f64(*i as f64),
    }
}

/// `result` with its `messages` field set to the output; a request body is also under `body`, the
/// name that says what it is.
pub fn with_messages(result: JsValue, messages: JsValue) -> Result<JsValue, JsValue> {
    Reflect::set(&result, &JsValue::from_str("messages"), &messages)?;
    let body = match messages.is_string() || messages.is_instance_of::<js_sys::Uint8Array>() {
        true => text::is_body_text(&messages),
        false => messages.is_object() && !Array::is_array(&messages),
    };
    if body {
        Reflect::set(&result, &JsValue::from_str("body"), &messages)?;
    }
    Ok(result)
}

/// A thrown `Error` carrying the stable `code` and the `path` of the offending field.
/// Every core error reaches JavaScript as one kind of `Error`: `?` converts it.
impl From<Error> for JsValue {
    fn from(e: Error) -> JsValue {
        js_error(e.code.as_str(), &e.path, &e.message).into()
    }
}

/// A `CtxfoldError` with its `code` and `path`, whose message is enumerable too, so that
/// `JSON.stringify` of an error (or of a result holding one) keeps what it says.
pub fn js_error(code: &str, path: &str, message: &str) -> js_sys::Error {
    let text = format!("ctxfold: {code} at {path}: {message}");
    let err = js_sys::Error::new(&text);
    err.set_name("CtxfoldError");
    let text = JsValue::from_str(&text);
    let field = Object::new();
    let _ = Reflect::set(&field, &JsValue::from_str("value"), &text);
    for flag in ["writable", "enumerable", "configurable"] {
        let _ = Reflect::set(&field, &JsValue::from_str(flag), &JsValue::TRUE);
    }
    let _ = Reflect::define_property(&err, &JsValue::from_str("message"), &field);
    let _ = Reflect::set(&err, &JsValue::from_str("code"), &JsValue::from_str(code));
    let _ = Reflect::set(&err, &JsValue::from_str("path"), &JsValue::from_str(path));
    err
}

pub fn error_text(e: &JsValue) -> String {
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
