//! Messages that hold binary data. The AI SDK's image and file parts take a `Uint8Array`, an
//! `ArrayBuffer` or a Node `Buffer` as readily as base64 text, and `JSON.stringify` writes a typed array
//! as an object with one field per byte: a 1 MB image becomes 11 MB of JSON (past the input limit) and
//! takes V8 a third of a second. So a message with a binary value in a content part is read part by part
//! here, each binary value as a short text (its size and a hash of its bytes, so that a plan's
//! fingerprint still changes when the bytes do) and everything else as `JSON.stringify` writes it. That
//! text is only what ctxfold reads: outputs keep the caller's own binary values, since an edit copies
//! only the containers on its path.

use js_sys::{Array, ArrayBuffer, JsString, Object, Reflect, Uint8Array, JSON};
use wasm_bindgen::{JsCast, JsValue};

/// Whether an item holds a binary value directly in a content part, where the AI SDK puts one
/// (`content[k].image`, `content[k].data`): a few calls per message. Only calls whose exceptions come
/// back as errors, or that cannot throw, touch the caller's objects. scripts/entries/estimate.js makes
/// the same check in JavaScript.
pub fn in_content_parts(item: &JsValue) -> bool {
    parts(item).is_some_and(|parts| (0..parts.length()).any(|k| binary_field(&parts.get(k))))
}

fn parts(item: &JsValue) -> Option<Array> {
    Reflect::get(item, &JsValue::from_str("content")).ok().filter(Array::is_array).map(JsCast::unchecked_into)
}

fn binary_field(part: &JsValue) -> bool {
    let keys = match part.is_object() {
        true => Reflect::own_keys(part).unwrap_or_default(),
        false => return false,
    };
    (0..keys.length()).any(|j| Reflect::get(part, &keys.get(j)).is_ok_and(|v| ArrayBuffer::is_view(&v)))
}

/// The JSON text of an item that `in_content_parts` found binary data in: `JSON.stringify` of a copy
/// with each binary value of its content parts replaced by its stand-in text (the copies are read, never
/// returned: outputs are made from the caller's objects).
pub fn json_of(item: &JsValue) -> Result<JsString, JsValue> {
    let parts = parts(item).unwrap_or_default();
    let copies = Array::new();
    for k in 0..parts.length() {
        let part = parts.get(k);
        if !binary_field(&part) {
            copies.push(&part);
            continue;
        }
        let copy = Object::assign(&Object::new(), part.unchecked_ref());
        let keys = Reflect::own_keys(&copy)?;
        for j in 0..keys.length() {
            let key = keys.get(j);
            if let Some(text) = stand_in(&Reflect::get(&copy, &key)?) {
                Reflect::set(&copy, &key, &JsValue::from_str(&text))?;
            }
        }
        copies.push(&copy);
    }
    let copy = Object::assign(&Object::new(), item.unchecked_ref());
    Reflect::set(&copy, &JsValue::from_str("content"), &copies)?;
    JSON::stringify(&copy)
}

/// The text that stands for a binary value (a typed array, a DataView, a Node Buffer, an ArrayBuffer).
fn stand_in(v: &JsValue) -> Option<String> {
    let bytes = if ArrayBuffer::is_view(v) {
        let field = |name: &str| Reflect::get(v, &JsValue::from_str(name)).ok().and_then(|n| n.as_f64());
        let buffer = Reflect::get(v, &JsValue::from_str("buffer")).ok()?;
        Uint8Array::new_with_byte_offset_and_length(&buffer, field("byteOffset")? as u32, field("byteLength")? as u32)
    } else if v.is_instance_of::<ArrayBuffer>() {
        Uint8Array::new(v)
    } else {
        return None;
    };
    let bytes = bytes.to_vec();
    Some(format!("[binary data: {} bytes, hash {}]", bytes.len(), fnv1a(&bytes)))
}

/// 32-bit FNV-1a: small, and enough to tell one image's bytes from another's.
fn fnv1a(bytes: &[u8]) -> u32 {
    let mut h: u32 = 0x811c_9dc5;
    for &b in bytes {
        h = (h ^ u32::from(b)).wrapping_mul(0x0100_0193);
    }
    h
}
