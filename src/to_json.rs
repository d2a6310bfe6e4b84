//! Results written as JSON text by hand-written `ToJson` impls instead of `#[derive(Serialize)]`.
//!
//! A derived `Serialize`, instantiated for serde_json's writer, compiles each field into a generic
//! `serialize_entry` with an error check after it; these writers cannot fail and share a handful of
//! small functions, so the wasm is smaller. Leaves (strings, numbers, `Value`s) still go through
//! serde_json's writer, so the text is the one `serde_json::to_string` wrote for the derived impls:
//! fields in declaration order, `null` for `None` unless the field is left out, the same escapes.
//!
//! Tests still call `serde_json::to_value` on results: `serialize_through_text!` gives the types a
//! `Serialize` that reads this text back, compiled only where it is used (never in the wasm).

use serde::Serialize;
use serde_json::Value;

/// JSON text being written.
pub struct Writer {
    out: Vec<u8>,
    /// No member or item written yet in the innermost object or array.
    first: bool,
}

impl Writer {
    fn separate(&mut self) {
        if !self.first {
            self.out.push(b',');
        }
        self.first = false;
    }

    /// `{`, then `field`s, then `end_object`.
    pub fn begin_object(&mut self) {
        self.out.push(b'{');
        self.first = true;
    }

    pub fn end_object(&mut self) {
        self.out.push(b'}');
        self.first = false;
    }

    /// One member; `key` is one of our own field names (plain ASCII, nothing to escape).
    pub fn field<T: ToJson + ?Sized>(&mut self, key: &str, value: &T) {
        self.key(key);
        value.to_json(self);
    }

    fn key(&mut self, key: &str) {
        self.separate();
        self.out.push(b'"');
        self.out.extend_from_slice(key.as_bytes());
        self.out.extend_from_slice(b"\":");
    }

    /// A string, number or `Value` as serde_json writes it.
    fn leaf<T: Serialize + ?Sized>(&mut self, value: &T) {
        // Cannot fail: writing to a Vec, and leaves have no map keys.
        let _ = serde_json::to_writer(&mut self.out, value);
    }
}

/// What can be written as JSON text.
pub trait ToJson {
    fn to_json(&self, w: &mut Writer);
}

/// `value` as compact JSON text.
pub fn to_text<T: ToJson + ?Sized>(value: &T) -> String {
    let mut w = Writer { out: Vec::new(), first: true };
    value.to_json(&mut w);
    // Valid UTF-8: the keys are ASCII and serde_json writes the rest from `str`s.
    String::from_utf8(w.out).unwrap_or_default()
}

macro_rules! leaf {
    ($($t:ty),*) => {$(
        impl ToJson for $t {
            fn to_json(&self, w: &mut Writer) {
                w.leaf(self)
            }
        }
    )*};
}
leaf!(str, String, bool, u32, u64, usize, i64, f64, Value);

impl<T: ToJson + ?Sized> ToJson for &T {
    fn to_json(&self, w: &mut Writer) {
        (**self).to_json(w)
    }
}

impl<T: ToJson> ToJson for Option<T> {
    fn to_json(&self, w: &mut Writer) {
        match self {
            Some(v) => v.to_json(w),
            None => w.out.extend_from_slice(b"null"),
        }
    }
}

impl<T: ToJson> ToJson for [T] {
    fn to_json(&self, w: &mut Writer) {
        w.out.push(b'[');
        w.first = true;
        for item in self {
            w.separate();
            item.to_json(w);
        }
        w.out.push(b']');
        w.first = false;
    }
}

impl<T: ToJson> ToJson for Vec<T> {
    fn to_json(&self, w: &mut Writer) {
        self.as_slice().to_json(w)
    }
}

impl ToJson for serde_json::Map<String, Value> {
    fn to_json(&self, w: &mut Writer) {
        w.leaf(self)
    }
}

/// `impl Serialize` for result types through their JSON text, for the tests' `serde_json::to_value`.
#[macro_export]
macro_rules! serialize_through_text {
    ($($t:ty),* $(,)?) => {$(
        impl serde::Serialize for $t {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
                let text = $crate::to_json::to_text(self);
                let value = $crate::json::parse(&text).map_err(serde::ser::Error::custom)?;
                value.serialize(serializer)
            }
        }
    )*};
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The same shape written by a derived `Serialize` (the reference) and by a hand-written `ToJson`.
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Outer {
        first_name: String,
        count: u64,
        ratio: f64,
        #[serde(skip_serializing_if = "Option::is_none")]
        left_out: Option<u32>,
        as_null: Option<u32>,
        inner: Vec<Inner>,
        empty: Vec<Inner>,
        value: Value,
        flag: bool,
    }

    #[derive(Serialize)]
    struct Inner {
        index: usize,
        text: &'static str,
        nested: Vec<Vec<i64>>,
    }

    impl ToJson for Outer {
        fn to_json(&self, w: &mut Writer) {
            w.begin_object();
            w.field("firstName", &self.first_name);
            w.field("count", &self.count);
            w.field("ratio", &self.ratio);
            if let Some(v) = &self.left_out {
                w.field("leftOut", v);
            }
            w.field("asNull", &self.as_null);
            w.field("inner", &self.inner);
            w.field("empty", &self.empty);
            w.field("value", &self.value);
            w.field("flag", &self.flag);
            w.end_object();
        }
    }

    impl ToJson for Inner {
        fn to_json(&self, w: &mut Writer) {
            w.begin_object();
            w.field("index", &self.index);
            w.field("text", &self.text);
            w.field("nested", &self.nested);
            w.end_object();
        }
    }

    #[test]
    fn writes_what_serde_json_writes_for_the_derived_impl() {
        let inner = |index, text| Inner { index, text, nested: vec![vec![], vec![-1, 2], vec![3]] };
        for (left_out, ratio) in [(None, 0.1), (Some(7), 2.0), (Some(0), f64::NAN), (None, -1e300)] {
            let outer = Outer {
                first_name: "quote \" backslash \\ newline \n tab \t nul \u{0} é 中 😀".into(),
                count: u64::MAX,
                ratio,
                left_out,
                as_null: None,
                inner: vec![inner(0, ""), inner(1, "a\u{1f}b")],
                empty: vec![],
                value: json!({ "b": [1, 2.5, null, { "c": "d" }], "a": true }),
                flag: left_out.is_some(),
            };
            assert_eq!(to_text(&outer), serde_json::to_string(&outer).unwrap());
        }
    }
}
