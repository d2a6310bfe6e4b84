//! Messages given as JSON text: a string, or a `Uint8Array` of UTF-8 (a Worker's `await request.text()`
//! or `arrayBuffer()`). Read in one pass by `crate::json`, and answered in the same kind: an edited
//! history is the given text with its item list written anew, every kept message copied byte for byte.

use crate::edit::{materialize_text, patch_fields_text, FieldEdit, Slot};
use crate::error::{Code, Error};
use crate::json::Spans;
use crate::reading::input::MAX_INPUT_CHARS;
use js_sys::{JsString, Uint8Array};
use serde_json::Value;
use std::cell::RefCell;
use wasm_bindgen::{JsCast, JsValue};

/// JSON text the caller gave, and whether as bytes (answered as bytes).
pub struct Given {
    pub text: String,
    pub bytes: bool,
}

/// The text of `messages` when it is a string or a `Uint8Array`; None for anything else.
pub fn given(messages: &JsValue) -> Result<Option<Given>, Error> {
    if let Some(s) = messages.dyn_ref::<JsString>() {
        // Measured before the text is copied into WebAssembly memory.
        if s.length() as usize > MAX_INPUT_CHARS {
            return Err(too_large(Some(s.length() as usize)));
        }
        let text = String::from(s);
        // Copied as UTF-8, a lone surrogate silently became U+FFFD. Only then is the string checked
        // unit by unit (a slow walk through the boundary), so that a real U+FFFD is not refused. Most
        // text holds no byte 0xBD (U+FFFD's last), which a byte search rules out several times faster
        // than a search for the character.
        if text.as_bytes().contains(&0xBD) && text.contains('\u{FFFD}') && !s.is_valid_utf16() {
            return Err(Error::input("messages", LONE_SURROGATE));
        }
        return Ok(Some(Given { text, bytes: false }));
    }
    let Some(array) = messages.dyn_ref::<Uint8Array>() else { return Ok(None) };
    if array.length() as usize > MAX_INPUT_CHARS {
        return Err(too_large(Some(array.length() as usize)));
    }
    match String::from_utf8(array.to_vec()) {
        Ok(text) => Ok(Some(Given { text, bytes: true })),
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            let (line, column) = position(&e.as_bytes()[..at]);
            Err(Error::input("messages", format!("is not UTF-8: an invalid byte at line {line} column {column}")))
        }
    }
}

/// The input is over the size limit: `chars` characters of JSON, or more than the limit when not all
/// were measured (the object path stops counting at the limit).
pub fn too_large(chars: Option<usize>) -> Error {
    let message = match chars {
        Some(n) => format!("the messages are {n} characters of JSON; the limit is {MAX_INPUT_CHARS}"),
        None => format!("the messages are more than {MAX_INPUT_CHARS} characters of JSON, the limit"),
    };
    Error::new(Code::InputTooLarge, "messages", message)
}

/// Why text holding half of a character is refused, whichever way it came.
pub const LONE_SURROGATE: &str =
    "holds a lone UTF-16 surrogate, half of a character (a string cut in the middle of an \
    emoji, for example); make it well-formed first, e.g. with String.prototype.toWellFormed()";

/// Line (from 1) and column (bytes from the line's start) after `before`, as JSON errors give them.
fn position(before: &[u8]) -> (usize, usize) {
    let line = 1 + before.iter().filter(|&&b| b == b'\n').count();
    let line_start = before.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    (line, before.len() - line_start)
}

thread_local! {
    /// The last string read, with where its items are, so that a call answering with text writes it
    /// without copying and reading it again. Strings only: they cannot change, and `===` compares them.
    static LAST: RefCell<Option<(JsValue, String, Spans)>> = const { RefCell::new(None) };
}

/// The given text as a value; malformed JSON is an error with its line and column.
pub fn parse(given: &Given) -> Result<Value, Error> {
    crate::json::parse(&given.text).map_err(not_json)
}

/// `messages`, given as text, read as a value, and kept (a string) for the output of the same call.
pub fn read(messages: &JsValue, given: Given) -> Result<Value, Error> {
    let (value, spans) = crate::json::parse_with_spans(&given.text).map_err(not_json)?;
    let kept = (!given.bytes).then(|| (messages.clone(), given.text, spans));
    LAST.with_borrow_mut(|last| *last = kept);
    Ok(value)
}

fn not_json(e: crate::json::ParseError) -> Error {
    Error::input("messages", format!("is not JSON: {e}"))
}

/// The output history for a caller who gave text: the same text with its item list (under `key` in a
/// body) written from the slots, as a string or as bytes, as it was given. None: `messages` is not text.
pub fn output(slots: &[Slot], messages: &JsValue, key: Option<&str>) -> Result<Option<JsValue>, Error> {
    let Some((text, spans, bytes)) = text_of(messages)? else { return Ok(None) };
    Ok(Some(answer(output_text(slots, &text, &spans, key)?, bytes)))
}

/// The text of `messages` with its spans, and whether it came as bytes: the last string read when it is
/// that one, else read now. None: `messages` is not text.
pub fn text_of(messages: &JsValue) -> Result<Option<(String, Spans, bool)>, Error> {
    if let Some((_, text, spans)) = LAST.with_borrow_mut(|last| last.take_if(|(js, ..)| js == messages)) {
        return Ok(Some((text, spans, false)));
    }
    let Some(given) = given(messages)? else { return Ok(None) };
    let (_, spans) = crate::json::parse_with_spans(&given.text).map_err(not_json)?;
    Ok(Some((given.text, spans, given.bytes)))
}

/// `text` with its item list (under `key` in a body) written from the slots.
pub fn output_text(slots: &[Slot], text: &str, spans: &Spans, key: Option<&str>) -> Result<String, Error> {
    let at =
        spans.items(key).ok_or_else(|| Error::input("messages", "expected an array of messages or a request body"))?;
    Ok(materialize_text(slots, text, &at))
}

/// `text` in the kind the caller gave: a string, or UTF-8 bytes.
pub fn answer(text: String, bytes: bool) -> JsValue {
    match bytes {
        true => Uint8Array::from(text.as_bytes()).into(),
        false => JsValue::from(text),
    }
}

/// Whether `v` is JSON text of a request body (an object) rather than of a message array: its first
/// character that is not whitespace, read in place.
pub fn is_body_text(v: &JsValue) -> bool {
    let first = |len: u32, at: &dyn Fn(u32) -> u32| {
        (0..len).map(at).find(|&c| !matches!(c, 0x20 | 0x09 | 0x0A | 0x0D)) == Some(u32::from(b'{'))
    };
    match v.dyn_ref::<JsString>() {
        Some(s) => first(s.length(), &|i| u32::from(s.char_code_at(i) as u16)),
        None => v.dyn_ref::<Uint8Array>().is_some_and(|a| first(a.length(), &|i| u32::from(a.get_index(i)))),
    }
}

/// The given text with the body's own fields (`system`, `tools`) edited by `edits` (see
/// `edit::patch_fields_text`).
pub fn patch_body(text: &str, edits: Vec<FieldEdit>) -> Result<String, Error> {
    let (value, spans) = crate::json::parse_with_spans(text).map_err(not_json)?;
    Ok(patch_fields_text(text, &value, &spans, edits))
}

/// The given text as JavaScript objects, for a `Session`, which keeps its history as objects.
pub fn objects(messages: &JsValue) -> Result<Option<JsValue>, JsValue> {
    let Some(given) = given(messages)? else { return Ok(None) };
    parse(&given)?; // refused with the same errors as everywhere else
    Ok(Some(js_sys::JSON::parse(&given.text)?))
}
