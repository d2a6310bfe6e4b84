//! Shortening old tool-call arguments (`maxArgumentChars`, the spring-ai preset's 200): every string
//! inside the arguments longer than the limit keeps its first characters and a note of its full
//! length. Arguments held as JSON text stay valid JSON (they are parsed, shortened and written back);
//! free-form text arguments are cut the same way.

use serde_json::Value;

const NOTE: &str = "… [truncated: ";

/// The shortened arguments, or `None` when nothing in them is longer than `max` characters.
pub fn shorten(value: &Value, max: usize) -> Option<Value> {
    match value {
        Value::String(text) => match crate::json::parse(text) {
            Ok(parsed @ (Value::Object(_) | Value::Array(_))) => {
                shorten(&parsed, max).map(|v| Value::String(crate::text::json_text(&v)))
            }
            _ => cut(text, max).map(Value::String),
        },
        Value::Object(map) => {
            let mut out = None;
            for (key, v) in map {
                if let Some(short) = shorten(v, max) {
                    out.get_or_insert_with(|| map.clone()).insert(key.clone(), short);
                }
            }
            out.map(Value::Object)
        }
        Value::Array(items) => {
            let mut out = None;
            for (i, v) in items.iter().enumerate() {
                if let Some(short) = shorten(v, max) {
                    out.get_or_insert_with(|| items.clone())[i] = short;
                }
            }
            out.map(Value::Array)
        }
        _ => None,
    }
}

/// `text` cut to `max` characters with a note of its length; `None` when it is short enough or was
/// cut already (so shortening twice equals shortening once).
fn cut(text: &str, max: usize) -> Option<String> {
    let chars = text.chars().count();
    if chars <= max || (text.contains(NOTE) && text.ends_with(" chars]")) {
        return None;
    }
    let end = text.char_indices().nth(max).map_or(text.len(), |(i, _)| i);
    Some(format!("{}{NOTE}{chars} chars]", &text[..end]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn long_strings_are_cut_and_json_stays_json() {
        let args = json!({ "path": "a.py", "text": "x".repeat(500), "lines": ["y".repeat(300), "ok"] });
        let short = shorten(&args, 200).unwrap();
        assert_eq!(short["path"], "a.py");
        assert_eq!(short["text"], format!("{}… [truncated: 500 chars]", "x".repeat(200)));
        assert_eq!(short["lines"][1], "ok");
        let as_text = Value::String(args.to_string());
        let reparsed: Value = crate::json::parse(shorten(&as_text, 200).unwrap().as_str().unwrap()).unwrap();
        assert_eq!(reparsed, short);
        assert_eq!(shorten(&short, 200), None, "shortening twice equals shortening once");
        assert_eq!(shorten(&json!({ "path": "a.py" }), 200), None);
        assert_eq!(
            shorten(&json!("数".repeat(300)), 10).unwrap(),
            json!(format!("{}… [truncated: 300 chars]", "数".repeat(10)))
        );
    }
}
