//! Messages that hold binary data. The AI SDK's image and file parts take a `Uint8Array`, an
//! `ArrayBuffer` or a Node `Buffer` as readily as base64 text, and `JSON.stringify` writes a typed array
//! as an object with one field per byte: a 1 MB image becomes 11 MB of JSON (past the input limit) and
//! takes V8 a third of a second. So a message with a binary value in a content part is read part by part
//! here, each binary value as a short text (`image::binary_stand_in`: its length, a hash of its bytes so
//! that a plan's fingerprint still changes when the bytes do, an image's size) and everything else as
//! `JSON.stringify` writes it. A text file's bytes (a part whose `mediaType` is text) are read as its
//! text instead, in a `data:` URL, since the model reads them so. That text is only what ctxfold reads:
//! outputs keep the caller's own binary values, since an edit copies only the containers on its path.

use crate::reading::format::is_text_media;
use crate::reading::image;
use js_sys::{Array, ArrayBuffer, JsString, Object, Reflect, Uint8Array, JSON};
use wasm_bindgen::{JsCast, JsValue};

/// Whether an item holds a binary value where the AI SDK puts one: a content part's `image` or `data`
/// (a typed array, a DataView or a Node Buffer; an ArrayBuffer is `{}` to JSON.stringify, harmless).
/// Two look-ups per part: `prune` of 10 000 Anthropic or AI SDK messages took 3–8 ms more than without
/// the check, of 45–60 ms (best of 30 in Node on a busy machine). scripts/entries/estimate.js makes the
/// same check.
pub fn in_content_parts(item: &JsValue) -> bool {
    let Some(parts) = content(item).ok().filter(Array::is_array) else { return false };
    let parts: &Array = parts.unchecked_ref();
    (0..parts.length()).any(|k| binary_part(&parts.get(k)))
}

fn content(item: &JsValue) -> Result<JsValue, JsValue> {
    KEYS.with(|[content, ..]| Reflect::get(item, content))
}

fn binary_part(part: &JsValue) -> bool {
    let view = |key: &JsValue| Reflect::get(part, key).is_ok_and(|v| ArrayBuffer::is_view(&v));
    part.is_object() && KEYS.with(|[_, image, data]| view(image) || view(data))
}

thread_local! {
    /// Made once: a JS string made from Rust at each call is a copy through the glue's decoder, which
    /// made this check cost as much as reading the message.
    static KEYS: [JsValue; 3] = [JsValue::from_str("content"), JsValue::from_str("image"), JsValue::from_str("data")];
}

/// The JSON text of an item that `in_content_parts` found binary data in: `JSON.stringify` of a copy
/// with each binary value of its content parts replaced by its stand-in text (the copies are read, never
/// returned: outputs are made from the caller's objects).
pub fn json_of(item: &JsValue) -> Result<JsString, JsValue> {
    let parts: Array = content(item)?.unchecked_into();
    let copies = Array::new();
    for k in 0..parts.length() {
        let part = parts.get(k);
        if !binary_part(&part) {
            copies.push(&part);
            continue;
        }
        let copy = Object::assign(&Object::new(), part.unchecked_ref());
        let text_media = ["mediaType", "mimeType"]
            .iter()
            .find_map(|key| Reflect::get(&copy, &JsValue::from_str(key)).ok()?.as_string())
            .filter(|media| is_text_media(media));
        let keys = Reflect::own_keys(&copy)?;
        for j in 0..keys.length() {
            let key = keys.get(j);
            if let Some(text) = stand_in(&Reflect::get(&copy, &key)?, text_media.as_deref()) {
                Reflect::set(&copy, &key, &JsValue::from_str(&text))?;
            }
        }
        copies.push(&copy);
    }
    let copy = Object::assign(&Object::new(), item.unchecked_ref());
    KEYS.with(|[content, ..]| Reflect::set(&copy, content, &copies))?;
    JSON::stringify(&copy)
}

/// The text that stands for a binary value (a typed array, a DataView, a Node Buffer, an ArrayBuffer):
/// for the bytes of a file of a text media type, that text (when it is UTF-8).
fn stand_in(v: &JsValue, text_media: Option<&str>) -> Option<String> {
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
    Some(match (text_media, std::str::from_utf8(&bytes)) {
        (Some(media), Ok(text)) => format!("data:{media},{text}"),
        _ => image::binary_stand_in(&bytes),
    })
}
