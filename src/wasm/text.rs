//! Messages given as JSON text: a string, or a `Uint8Array` of UTF-8 (a Worker's `await request.text()`
//! or `arrayBuffer()`). Read in one pass by `crate::json`, and answered in the same kind: an edited
//! history is the given text with its item list written anew, every kept message copied byte for byte.

use crate::counting::estimate::KnownTokens;
use crate::edit::{items_of, materialize_text, patch_fields_text, reread, FieldEdit, Layout, Slot};
use crate::error::{Code, Error};
use crate::json::{ItemSpans, Spans};
use crate::reading::input::MAX_INPUT_CHARS;
use js_sys::{JsString, Uint8Array};
use serde_json::Value;
use std::cell::RefCell;
use std::rc::Rc;
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
        let text = utf8_of(s);
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

#[wasm_bindgen::prelude::wasm_bindgen]
extern "C" {
    /// The engine's UTF-8 encoder. wasm-bindgen's own conversion of a string copies its ASCII prefix
    /// (all of an ASCII history) one character at a time in a JavaScript loop; `encodeInto` writes the
    /// whole string natively (the corpus's JSON texts, 30.7 M UTF-16 units: 41 ms against 7.5 ms, Node 20).
    type TextEncoder;
    #[wasm_bindgen(constructor)]
    fn new() -> TextEncoder;
    #[wasm_bindgen(method, js_name = encodeInto)]
    fn encode_into(this: &TextEncoder, source: &JsString, destination: &Uint8Array) -> EncodeIntoResult;
    type EncodeIntoResult;
    #[wasm_bindgen(method, getter)]
    fn read(this: &EncodeIntoResult) -> u32;
    #[wasm_bindgen(method, getter)]
    fn written(this: &EncodeIntoResult) -> u32;
}

thread_local! {
    static ENCODER: TextEncoder = TextEncoder::new();
}

/// `s` as UTF-8, a lone surrogate as U+FFFD (as every engine's encoder writes it). Up to a million UTF-16
/// units the buffer takes the most they can need, three bytes each; a longer string starts at a byte
/// each and an eighth more, and grows when the encoder stops short.
pub fn utf8_of(s: &JsString) -> String {
    let units = s.length();
    let mut bytes: Vec<u8> =
        Vec::with_capacity(if units < 1 << 20 { 3 * units as usize } else { (units + units / 8) as usize });
    let mut read = 0;
    while read < units {
        if read > 0 {
            bytes.reserve(3 * (units - read) as usize);
        }
        let rest = if read == 0 { s.clone() } else { s.slice(read, units) };
        let done = ENCODER.with(|encoder| {
            // SAFETY: the view covers the vector's spare capacity only, and nothing allocates in the
            // WebAssembly memory (which would detach the view) between its making and the encoder's write.
            let spare = unsafe {
                Uint8Array::view_mut_raw(bytes.as_mut_ptr().add(bytes.len()), bytes.capacity() - bytes.len())
            };
            encoder.encode_into(&rest, &spare)
        });
        // SAFETY: the encoder wrote `written` bytes of UTF-8 at the end of those already there.
        unsafe { bytes.set_len(bytes.len() + done.written() as usize) };
        read += done.read();
    }
    // SAFETY: an encoder writes whole characters of UTF-8 only.
    unsafe { String::from_utf8_unchecked(bytes) }
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

/// The last JSON text read or written, with what reading it gave. A call answering with text writes it
/// from here without reading it again; a caller who hands back the text it was given (a Worker prunes a
/// body, then plans on the result) or gives the same text again has it read already. A string is found
/// by `===`, before it is copied into WebAssembly memory (strings cannot change); bytes, which can, are
/// compared after the copy. One document at most: its value is held until another text is read, and freed
/// before that text is, whose reading then reuses its memory (pkg-tests/bench/README.md, "Text handed back").
struct Document {
    /// The string as the caller holds it; None for bytes.
    js: Option<JsValue>,
    bytes: bool,
    text: String,
    read: Read,
    /// Its messages' tokens, where a call counted them (`note_known`).
    known: Option<KnownTokens>,
}

enum Read {
    Done {
        value: Rc<Value>,
        spans: Spans,
    },
    /// Written by ctxfold from another document, and read when asked for (see `edit::reread`).
    Pending {
        at: Layout,
        slots: Vec<Slot>,
        from: Rc<Value>,
        spans: Spans,
        key: Option<&'static str>,
    },
}

thread_local! {
    static LAST: RefCell<Option<Document>> = const { RefCell::new(None) };
}

impl Document {
    /// Whether `value` is the one this document was read into.
    fn holds(&self, value: &Value) -> bool {
        matches!(&self.read, Read::Done { value: read, .. } if std::ptr::eq(Rc::as_ptr(read), value))
    }

    /// The document read, if it was written from another document and not read yet.
    fn read(mut self) -> Result<Document, Error> {
        if let Read::Pending { at, slots, from, spans, key } = self.read {
            let from = Rc::try_unwrap(from).unwrap_or_else(|shared| (*shared).clone());
            let (value, spans) = match reread(&self.text, &at, &slots, from, spans, key) {
                Some(read) => read,
                None => crate::json::parse_with_spans(&self.text).map_err(not_json)?,
            };
            self.read = Read::Done { value: Rc::new(value), spans };
        }
        Ok(self)
    }
}

/// The document of `messages` when it is text, read: the kept one when it is that text, else read now.
/// Taken out of `LAST`; `keep` puts a document back.
fn document(messages: &JsValue) -> Result<Option<Document>, Error> {
    if let Some(doc) = LAST.with_borrow_mut(|last| last.take_if(|d| d.js.as_ref() == Some(messages))) {
        return doc.read().map(Some);
    }
    let Some(given) = given(messages)? else { return Ok(None) };
    let js = (!given.bytes).then(|| messages.clone());
    if let Some(mut doc) = LAST.with_borrow_mut(|last| last.take_if(|d| crate::text::same_text(&d.text, &given.text))) {
        doc.js = js;
        doc.bytes = given.bytes;
        return doc.read().map(Some);
    }
    // The kept document is of another text: freed first (see `Document`).
    LAST.with_borrow_mut(|last| *last = None);
    let (value, spans) = crate::json::parse_with_spans(&given.text).map_err(not_json)?;
    let read = Read::Done { value: Rc::new(value), spans };
    Ok(Some(Document { js, bytes: given.bytes, text: given.text, read, known: None }))
}

fn keep(doc: Document) {
    LAST.with_borrow_mut(|last| *last = Some(doc));
}

/// `messages` read as a value when it is text (kept for the output of the same call, and for a later
/// call given the same text). None: `messages` is not text.
pub fn value_of(messages: &JsValue) -> Result<Option<Rc<Value>>, Error> {
    let Some(doc) = document(messages)? else { return Ok(None) };
    let value = match &doc.read {
        Read::Done { value, .. } => Some(value.clone()),
        Read::Pending { .. } => None, // not returned by `document`
    };
    keep(doc);
    Ok(value)
}

fn not_json(e: crate::json::ParseError) -> Error {
    Error::input("messages", format!("is not JSON: {e}"))
}

/// The output history for a caller who gave text: the same text with its item list (under `key` in a
/// body) written from the slots, then the body's own fields (`system`, `tools`) edited by `body_edits`
/// in place, as a string or as bytes, as it was given. Kept when no field was edited, its reading left
/// until asked for. None: `messages` is not text.
///
/// `history` is what the slots were made from: when the kept document is the one it was read from,
/// the output is written from that document without reading `messages` again. Bytes would be copied,
/// checked and compared once more, and bytes changed since (while `compact` awaits its summaries) are
/// not what the slots describe.
pub fn output(
    slots: &[Slot],
    messages: &JsValue,
    key: Option<&'static str>,
    body_edits: Vec<FieldEdit>,
    history: &Value,
) -> Result<Option<JsValue>, Error> {
    let doc = match LAST.with_borrow_mut(|last| last.take_if(|d| d.holds(history))) {
        Some(doc) => doc,
        None => match document(messages)? {
            Some(doc) => doc,
            None => return Ok(None),
        },
    };
    let Read::Done { value: from, spans } = doc.read else { return Ok(None) }; // not returned by `document`
    let written = materialize_text(slots, &doc.text, &items(&spans, key)?, items_of(&from, key));
    if !body_edits.is_empty() {
        let (value, spans) = crate::json::parse_with_spans(&written.text).map_err(not_json)?;
        return Ok(Some(answer(&patch_fields_text(&written.text, &value, &spans, body_edits), doc.bytes)));
    }
    let out = answer(&written.text, doc.bytes);
    keep(Document {
        js: (!doc.bytes).then(|| out.clone()),
        bytes: doc.bytes,
        text: written.text,
        read: Read::Pending { at: written.at, slots: slots.to_vec(), from, spans, key },
        known: doc.known.map(|k| k.through(slots)),
    });
    Ok(Some(out))
}

/// Keeps `known`, the tokens of `value`'s messages, with the document `value` was read from: a text
/// written from it (`output`) carries those of the messages it kept as they were, for the next call.
pub fn note_known(value: &Value, known: KnownTokens) {
    LAST.with_borrow_mut(|last| {
        if let Some(doc) = last.as_mut().filter(|d| d.holds(value)) {
            doc.known = Some(known);
        }
    });
}

/// The tokens counted of `value`'s messages, when it was read from a kept document that has them.
pub fn known_of(value: &Value) -> Option<KnownTokens> {
    LAST.with_borrow(|last| last.as_ref().filter(|d| d.holds(value)).and_then(|d| d.known.clone()))
}

fn items(spans: &Spans, key: Option<&str>) -> Result<ItemSpans, Error> {
    spans.items(key).ok_or_else(|| Error::input("messages", "expected an array of messages or a request body"))
}

/// `text` in the kind the caller gave: a string, or UTF-8 bytes.
pub fn answer(text: &str, bytes: bool) -> JsValue {
    match bytes {
        true => Uint8Array::from(text.as_bytes()).into(),
        false => js_string(text),
    }
}

thread_local! {
    static INTERNED: RefCell<Vec<(&'static str, JsValue)>> = const { RefCell::new(Vec::new()) };
}

/// `name` as a JavaScript string, made once and then reused: an estimate names its format and tokenizer,
/// a handful of constants, on every call, and each new string is a conversion across the boundary.
pub fn interned(name: &'static str) -> JsValue {
    INTERNED.with(|made| {
        let mut made = made.borrow_mut();
        if let Some((_, js)) = made.iter().find(|(known, _)| *known == name) {
            return js.clone();
        }
        let js = JsValue::from_str(name);
        made.push((name, js.clone()));
        js
    })
}

/// `text` as a JavaScript string. A long text is converted in parts, its long ASCII runs apart from
/// the rest: engines convert ASCII several times faster, and a few other characters send all of a text
/// the slow way (Node 20's `TextDecoder` on 0.84 MB of an agent run: 0.6 ms as ASCII, 2.6 ms with 19
/// other characters in it; 0.7 ms in 39 parts, 1.4 ms with the engine's later copy of the parts into
/// one string).
pub fn js_string(text: &str) -> JsValue {
    /// ASCII runs at least this long are parts of their own.
    const RUN: usize = 1 << 12;
    let bytes = text.as_bytes();
    if bytes.len() < 4 * RUN || text.is_ascii() {
        return JsValue::from_str(text);
    }
    let mut out = JsString::from("");
    let mut part = 0; // where the part not yet converted starts
    let mut at = 0; // an ASCII byte or the end
    while at < bytes.len() {
        let ascii_end = crate::text::ascii_end(bytes, at);
        if ascii_end - at >= RUN {
            if part < at {
                out = out.concat(&JsString::from(&text[part..at]));
            }
            out = out.concat(&JsString::from(&text[at..ascii_end]));
            part = ascii_end;
        }
        at = ascii_end;
        while at < bytes.len() && !bytes[at].is_ascii() {
            at += 1;
        }
    }
    if part < bytes.len() {
        out = out.concat(&JsString::from(&text[part..]));
    }
    out.into()
}

/// Whether `v` is JSON text of a request body (an object) rather than of a message array: its first
/// character that is not whitespace, read in place. Text ctxfold just wrote is read from its copy here:
/// `js_string` builds a long string from parts, and reading one character of it would have the engine
/// join the parts into one string first (a copy of all of it, which the host may never need).
pub fn is_body_text(v: &JsValue) -> bool {
    let first = |len: u32, at: &dyn Fn(u32) -> u32| {
        (0..len).map(at).find(|&c| !matches!(c, 0x20 | 0x09 | 0x0A | 0x0D)) == Some(u32::from(b'{'))
    };
    let kept = LAST.with_borrow(|last| {
        let doc = last.as_ref().filter(|d| d.js.as_ref() == Some(v))?;
        Some(doc.text.trim_start_matches([' ', '\t', '\n', '\r']).starts_with('{'))
    });
    if let Some(body) = kept {
        return body;
    }
    match v.dyn_ref::<JsString>() {
        Some(s) => first(s.length(), &|i| u32::from(s.char_code_at(i) as u16)),
        None => v.dyn_ref::<Uint8Array>().is_some_and(|a| first(a.length(), &|i| u32::from(a.get_index(i)))),
    }
}

/// The given text as JavaScript objects, for a `Session`, which keeps its history as objects.
pub fn objects(messages: &JsValue) -> Result<Option<JsValue>, JsValue> {
    let Some(given) = given(messages)? else { return Ok(None) };
    crate::json::parse(&given.text).map_err(not_json)?; // refused with the same errors as everywhere else
    Ok(Some(js_sys::JSON::parse(&given.text)?))
}

/// `f` of `messages`' text, where its items are, and whether it was given as bytes, when `messages` is
/// text (its list under `key` in a body); None when it is not text. The document is kept, as when read for
/// any other call.
pub fn with_items<T>(
    messages: &JsValue,
    key: Option<&str>,
    f: impl FnOnce(&str, &ItemSpans, bool) -> T,
) -> Result<Option<T>, Error> {
    let Some(doc) = document(messages)? else { return Ok(None) };
    let Read::Done { spans, .. } = &doc.read else { return Ok(None) }; // not returned by `document`
    let out = f(&doc.text, &items(spans, key)?, doc.bytes);
    keep(doc);
    Ok(Some(out))
}
