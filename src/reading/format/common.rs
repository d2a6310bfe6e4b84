//! Small readers shared by the formats: typed field access that fails with the field's path.

use crate::error::{expected, item_path, set_item_path, subpath, type_name, Error, Result};
use crate::reading::base64;
use crate::reading::image;
use crate::reading::message::{join, Image, Media, Message};
use serde_json::{Map, Value};
use std::borrow::Cow;

/// Every item of a message list, read by `read_item` at its path (`root[i]`), in order.
pub fn each_item<'a>(
    items: &'a [Value],
    root: &str,
    read_item: impl Fn(&'a Value, &str) -> Result<Message<'a>>,
) -> Result<Vec<Message<'a>>> {
    let mut out = Vec::with_capacity(items.len());
    let mut path = String::new();
    for (i, v) in items.iter().enumerate() {
        set_item_path(&mut path, root, i);
        out.push(read_item(v, &path)?);
    }
    Ok(out)
}

/// A JSON object of `fields`, for objects whose values are not all strings (those: `fields`). Not
/// `json!`, which expands each field at each site into its own key copy, `to_value(..).unwrap()` and
/// insert; and a `Vec`, not an array, so that there is one copy of this function rather than one per
/// length.
pub fn obj(fields: Vec<(&str, Value)>) -> Value {
    let mut map = Map::new();
    for (key, value) in fields {
        map.insert(key.to_string(), value);
    }
    Value::Object(map)
}

/// An object of string fields. Cheaper than `obj` where every value is a string: a `Value` made at
/// a call site is an allocation and a copy there, a table of `&str` pairs is data.
pub fn fields(pairs: &[(&str, &str)]) -> Map<String, Value> {
    let mut m = Map::new();
    for (k, v) in pairs {
        m.insert((*k).to_string(), Value::String((*v).to_string()));
    }
    m
}

/// `m` with one more field (one that is not a string; see `fields`).
pub fn with(mut m: Map<String, Value>, key: &str, value: Value) -> Map<String, Value> {
    m.insert(key.to_string(), value);
    m
}

/// A `{ "type": "text", "text": text }` part (OpenAI Chat, Anthropic).
pub fn text_block(text: &str) -> Value {
    Value::Object(fields(&[("type", "text"), ("text", text)]))
}

/// Whether `obj` has fields besides those of `found` (fields looked up) that it has. Most messages are `role`
/// and `content` alone, and each look-up is a search of the object's keys: the others need not be searched for.
pub fn has_more_fields(obj: &Map<String, Value>, found: &[Option<&Value>]) -> bool {
    obj.len() > found.iter().filter(|v| v.is_some()).count()
}

pub fn object<'a>(v: &'a Value, path: &str, what: &str) -> Result<&'a Map<String, Value>> {
    v.as_object().ok_or_else(|| Error::input(path, ["expected ", what, " object, got ", type_name(v)].concat()))
}

/// An optional string field (absent or null: None).
pub fn opt_str<'a>(obj: &'a Map<String, Value>, key: &str, path: &str) -> Result<Option<&'a str>> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => Err(Error::input(subpath(path, key), expected("a string", other))),
    }
}

/// A required string field.
pub fn req_str<'a>(obj: &'a Map<String, Value>, key: &str, path: &str) -> Result<&'a str> {
    opt_str(obj, key, path)?.ok_or_else(|| Error::input(subpath(path, key), "missing; expected a string"))
}

/// A required non-empty id.
pub fn req_id<'a>(obj: &'a Map<String, Value>, key: &str, path: &str) -> Result<&'a str> {
    let id = req_str(obj, key, path)?;
    if id.is_empty() {
        return Err(Error::input(subpath(path, key), "an id cannot be empty"));
    }
    Ok(id)
}

/// A value as text: strings as they are, anything else as compact JSON (tool arguments and
/// structured tool outputs are read, and counted, as the JSON the model sees).
pub fn as_text(v: &Value) -> Cow<'_, str> {
    match v {
        Value::String(s) => Cow::Borrowed(s),
        Value::Null => Cow::Borrowed(""),
        other => Cow::Owned(crate::text::json_text(other)),
    }
}

/// The `type` of a content part, required.
pub fn part_type<'a>(obj: &'a Map<String, Value>, path: &str) -> Result<&'a str> {
    match obj.get("type") {
        Some(Value::String(t)) => Ok(t),
        _ => Err(Error::input(subpath(path, "type"), "a content part needs a string type")),
    }
}

/// Whether a content part is an image sent at OpenAI's low detail, which costs a flat 85 tokens:
/// `image_url.detail` (Chat Completions), `detail` (Responses) or the AI SDK's
/// `providerOptions.openai.imageDetail`.
pub fn is_low_detail(part: &Map<String, Value>) -> bool {
    let low = |v: Option<&Value>| v.and_then(Value::as_str) == Some("low");
    low(part.get("image_url").and_then(|u| u.get("detail")))
        || low(part.get("detail"))
        || low(part.get("providerOptions").and_then(|o| o.get("openai")).and_then(|o| o.get("imageDetail")))
}

/// A content part that is not text (an image, audio, a file): a text file's text, which the model reads
/// as text and the caller reads so; anything else counted into `media` (`add_attachment`) and None.
#[must_use]
pub fn read_attachment(media: &mut Media, part: &Map<String, Value>) -> Option<String> {
    let text = attached_text(part);
    if text.is_none() {
        add_attachment(media, part);
    }
    text
}

/// A content part that is not text (an image, audio, a file), counted into `media`: by its pixel size
/// when it is an image whose bytes it holds, else at the profile's flat cost. Never read beyond that.
pub fn add_attachment(media: &mut Media, part: &Map<String, Value>) {
    add_media(media, image_data(part), is_low_detail(part));
}

/// One image or file counted into `media`: by its pixel size when `data` holds an image's bytes, else at
/// the flat cost.
pub fn add_media(media: &mut Media, data: Option<&str>, low_detail: bool) {
    match data.and_then(image::size_of) {
        Some(size) => media.images.push(Image { size, low_detail }),
        None => {
            media.attachments = media.attachments.saturating_add(1);
            media.low_detail = media.low_detail.saturating_add(u32::from(low_detail));
        }
    }
}

/// Where a part of any format keeps its bytes: `image_url.url` (Chat Completions), `image_url`
/// (Responses), `source.data` (Anthropic), `inlineData.data` (Gemini), `image` or `data` (AI SDK). A URL
/// or a file id there is not an image's bytes, and `image::size_of` says so.
fn image_data(part: &Map<String, Value>) -> Option<&str> {
    fn text(v: Option<&Value>) -> Option<&str> {
        v.and_then(Value::as_str)
    }
    let image_url = part.get("image_url");
    text(image_url.and_then(|u| u.get("url")))
        .or_else(|| text(image_url))
        .or_else(|| text(part.get("source").and_then(|s| s.get("data"))))
        .or_else(|| text(part.get("inlineData").and_then(|d| d.get("data"))))
        .or_else(|| text(part.get("image")))
        .or_else(|| text(part.get("data")))
}

/// The text of a file a part carries whose media type is text (`text/*`, JSON, XML, YAML, JavaScript): a
/// `data:` URL, or base64 beside a declared media type: the AI SDK's `data` with `mediaType` (`mimeType`
/// before v5), Gemini's `inlineData`, Anthropic's `source`, OpenAI's `file_data` (or `file.file_data`).
/// Providers give the model such a file as its text, so it costs what its text costs, not an attachment's
/// flat price. None for any other file, a URL or a file id.
fn attached_text(part: &Map<String, Value>) -> Option<String> {
    fn field<'v>(v: Option<&'v Value>, key: &str) -> Option<&'v str> {
        v.and_then(|v| v.get(key)).and_then(Value::as_str)
    }
    let nested = part.get("inlineData").or_else(|| part.get("source")).or_else(|| part.get("file"));
    let data = field(nested, "data")
        .or_else(|| field(nested, "file_data"))
        .or_else(|| part.get("data").or_else(|| part.get("file_data")).and_then(Value::as_str))?;
    let (media_type, payload, is_base64) = match data.strip_prefix("data:") {
        Some(url) => {
            let (meta, payload) = url.split_once(',')?;
            let base64 = meta.strip_suffix(";base64");
            (base64.unwrap_or(meta), payload, base64.is_some())
        }
        None => {
            let declared = ["mediaType", "mimeType", "media_type"]
                .iter()
                .find_map(|key| field(nested, key).or_else(|| part.get(*key).and_then(Value::as_str)))?;
            (declared, data, true)
        }
    };
    if !is_text_media(media_type) {
        return None;
    }
    if !is_base64 {
        return Some(payload.to_owned());
    }
    // Text in another encoding than UTF-8 is costed as a file of unknown content.
    base64::decode(payload).and_then(|bytes| String::from_utf8(bytes).ok())
}

/// Whether a media type (`text/plain; charset=utf-8`, `application/json`, ...) is read as text.
pub fn is_text_media(media_type: &str) -> bool {
    let essence = media_type.split(';').next().unwrap_or_default().trim().to_ascii_lowercase();
    match essence.split_once('/') {
        Some(("text", _)) => true,
        Some(("application", sub)) => {
            matches!(sub, "json" | "xml" | "javascript" | "yaml" | "x-yaml" | "toml" | "x-sh")
                || sub.ends_with("+json")
                || sub.ends_with("+xml")
        }
        _ => false,
    }
}

/// A tool output's content parts: each part's `text`, the others read as attachments (`read_attachment`):
/// an image counted into `media`, a text file read as its text.
pub fn output_parts<'a>(parts: &'a [Value], media: &mut Media) -> Cow<'a, str> {
    let mut texts = Vec::new();
    for part in parts {
        match (part.get("text").and_then(Value::as_str), part.as_object()) {
            (Some(text), _) => texts.push(Cow::Borrowed(text)),
            (None, Some(part)) => texts.extend(read_attachment(media, part).map(Cow::Owned)),
            (None, None) => texts.push(as_text(part)),
        }
    }
    join(texts)
}

/// `content` as a string, null, or an array of parts: the text of the parts whose type is one of
/// `text_types` (read from `text`, or from `refusal` for refusals) and of search results; the other
/// parts (images, audio, files) are counted into `media` (`add_attachment`).
pub fn text_parts<'a>(
    content: Option<&'a Value>,
    path: &str,
    text_types: &[&str],
    media: &mut Media,
) -> Result<Cow<'a, str>> {
    match content {
        None | Some(Value::Null) => Ok(Cow::Borrowed("")),
        Some(Value::String(s)) => Ok(Cow::Borrowed(s)),
        Some(Value::Array(parts)) => {
            let mut texts = Vec::new();
            let list = subpath(path, "content");
            let mut at = String::new();
            for (k, part) in parts.iter().enumerate() {
                set_item_path(&mut at, &list, k);
                let obj = object(part, &at, "a content part")?;
                match part_type(obj, &at)? {
                    "refusal" if text_types.contains(&"refusal") => {
                        texts.push(Cow::Borrowed(req_str(obj, "refusal", &at)?))
                    }
                    t if text_types.contains(&t) => texts.push(Cow::Borrowed(req_str(obj, "text", &at)?)),
                    "search_result" => search_result_texts(obj, &mut texts),
                    _ => texts.extend(read_attachment(media, obj).map(Cow::Owned)),
                }
            }
            Ok(join(texts))
        }
        Some(other) => {
            Err(Error::input(subpath(path, "content"), expected("a string, an array of parts or null", other)))
        }
    }
}

/// A search result a tool gives (Anthropic's `search_result` block): its title, its source and its text
/// blocks, which the model reads and may cite. Not an attachment of unknown size: a result is mostly text.
fn search_result_texts<'a>(obj: &'a Map<String, Value>, texts: &mut Vec<Cow<'a, str>>) {
    for key in ["title", "source"] {
        if let Some(text) = obj.get(key).and_then(Value::as_str) {
            texts.push(Cow::Borrowed(text));
        }
    }
    for block in obj.get("content").and_then(Value::as_array).into_iter().flatten() {
        if let Some(text) = block.get("text").and_then(Value::as_str) {
            texts.push(Cow::Borrowed(text));
        }
    }
}

/// A message's required `content`: a string, or an array of typed parts.
pub enum Content<'a> {
    Text(&'a str),
    Parts(Vec<Part<'a>>),
}

/// One content part, with where it is (for errors) and its `type`.
pub struct Part<'a> {
    pub index: usize,
    pub path: String,
    pub kind: &'a str,
    pub fields: &'a Map<String, Value>,
    pub value: &'a Value,
}

pub fn content<'a>(obj: &'a Map<String, Value>, path: &str) -> Result<Content<'a>> {
    match obj.get("content") {
        Some(Value::String(s)) => Ok(Content::Text(s)),
        Some(Value::Array(parts)) => {
            // A loop, not `collect::<Result<Vec<_>>>()`, which costs its own iterator adapter in the
            // wasm at each use (as in every format's `read`).
            let mut out = Vec::with_capacity(parts.len());
            let list = subpath(path, "content");
            for (index, value) in parts.iter().enumerate() {
                let path = item_path(&list, index);
                let fields = object(value, &path, "a content part")?;
                let kind = part_type(fields, &path)?;
                out.push(Part { index, path, kind, fields, value });
            }
            Ok(Content::Parts(out))
        }
        Some(other) => {
            Err(Error::input(subpath(path, "content"), expected("a string or an array of content parts", other)))
        }
        None => Err(Error::input(subpath(path, "content"), "missing content")),
    }
}

/// A provider's compaction block or item, read into `m`: marked as one, its `encrypted_content` counted
/// by length, its readable summary (Anthropic's `content`; null for a failed compaction) returned for
/// the caller to count as text the model reads. Every field is checked, so that a malformed item is
/// refused with its path rather than guessed at. `signature` is not counted: like a thinking block's,
/// it is checked by the provider, not read by the model.
pub fn read_compaction<'a>(
    obj: &'a Map<String, Value>,
    path: &str,
    encrypted_required: bool,
    m: &mut Message,
) -> Result<Option<&'a str>> {
    let content = opt_str(obj, "content", path)?;
    if content == Some("") {
        return Err(Error::input(
            subpath(path, "content"),
            "a compaction's content cannot be empty (null marks a compaction that failed)",
        ));
    }
    let encrypted = match encrypted_required {
        true => Some(req_str(obj, "encrypted_content", path)?),
        false => opt_str(obj, "encrypted_content", path)?,
    };
    opt_str(obj, "signature", path)?;
    opt_str(obj, "id", path)?;
    opt_str(obj, "created_by", path)?;
    match obj.get("tool_changes") {
        None | Some(Value::Null | Value::Array(_)) => {}
        Some(other) => return Err(Error::input(subpath(path, "tool_changes"), expected("an array or null", other))),
    }
    m.provider_compaction = true;
    m.encrypted_chars = m.encrypted_chars.saturating_add(encrypted.map_or(0, str::len));
    Ok(content)
}
