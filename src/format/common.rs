//! Small readers shared by the formats: typed field access that fails with the field's path.

use crate::error::{type_name, Error, Result};
use serde_json::{Map, Value};
use std::borrow::Cow;

pub fn object<'a>(v: &'a Value, path: &str, what: &str) -> Result<&'a Map<String, Value>> {
    v.as_object().ok_or_else(|| Error::input(path, format!("expected {what} object, got {}", type_name(v))))
}

/// An optional string field (absent or null: None).
pub fn opt_str<'a>(obj: &'a Map<String, Value>, key: &str, path: &str) -> Result<Option<&'a str>> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => Err(Error::input(format!("{path}.{key}"), format!("expected a string, got {}", type_name(other)))),
    }
}

/// A required string field.
pub fn req_str<'a>(obj: &'a Map<String, Value>, key: &str, path: &str) -> Result<&'a str> {
    opt_str(obj, key, path)?.ok_or_else(|| Error::input(format!("{path}.{key}"), "missing; expected a string"))
}

/// A required non-empty id.
pub fn req_id<'a>(obj: &'a Map<String, Value>, key: &str, path: &str) -> Result<&'a str> {
    let id = req_str(obj, key, path)?;
    if id.is_empty() {
        return Err(Error::input(format!("{path}.{key}"), "an id cannot be empty"));
    }
    Ok(id)
}

/// A value as text: strings as they are, anything else as compact JSON (tool arguments and
/// structured tool outputs are read, and counted, as the JSON the model sees).
pub fn as_text(v: &Value) -> Cow<'_, str> {
    match v {
        Value::String(s) => Cow::Borrowed(s),
        Value::Null => Cow::Borrowed(""),
        other => Cow::Owned(other.to_string()),
    }
}

/// The `type` of a content part, required.
pub fn part_type<'a>(obj: &'a Map<String, Value>, path: &str) -> Result<&'a str> {
    match obj.get("type") {
        Some(Value::String(t)) => Ok(t),
        _ => Err(Error::input(format!("{path}.type"), "a content part needs a string type")),
    }
}
