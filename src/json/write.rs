//! Results written as JSON text by hand-written `ToJson` impls instead of `#[derive(Serialize)]`.
//!
//! A derived `Serialize`, instantiated for serde_json's writer, compiles each field into a generic
//! `serialize_entry` with an error check after it; these writers cannot fail and share a handful of
//! small functions, so the wasm is smaller. Strings, numbers and `Value`s are written here too, as
//! serde_json writes them (the same escapes, floats by its own shortest form), so serde_json's
//! serializer is not in the wasm at all; the text is the one `serde_json::to_string` wrote for the
//! derived impls: fields in declaration order, `null` for `None` unless the field is left out.
//!
//! Tests still call `serde_json::to_value` on results: `serialize_through_text!` gives the types a
//! `Serialize` that reads this text back, compiled only where it is used (never in the wasm).

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
    /// Not generic: one copy in the wasm whatever the field's type.
    pub fn field(&mut self, key: &str, value: &dyn ToJson) {
        self.key(key);
        value.to_json(self);
    }

    fn key(&mut self, key: &str) {
        self.separate();
        self.out.push(b'"');
        self.out.extend_from_slice(key.as_bytes());
        self.out.extend_from_slice(b"\":");
    }

    /// A JSON string: `"`, `\\` and control characters escaped as serde_json escapes them.
    fn string(&mut self, s: &str) {
        let bytes = s.as_bytes();
        self.out.push(b'"');
        let mut start = 0;
        loop {
            let end = ctxfold_json_read::plain_run_end(bytes, start);
            self.out.extend_from_slice(&bytes[start..end]);
            let Some(&b) = bytes.get(end) else { break };
            let short = match b {
                b'"' => b'"',
                b'\\' => b'\\',
                b'\n' => b'n',
                b'\r' => b'r',
                b'\t' => b't',
                0x08 => b'b',
                0x0c => b'f',
                _ => 0,
            };
            if short != 0 {
                self.out.extend_from_slice(&[b'\\', short]);
            } else {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                self.out.extend_from_slice(&[b'\\', b'u', b'0', b'0', HEX[(b >> 4) as usize], HEX[(b & 0xf) as usize]]);
            }
            start = end + 1;
        }
        self.out.push(b'"');
    }

    fn unsigned(&mut self, n: u64) {
        self.out.extend_from_slice(decimal(n, &mut [0; 20]).as_bytes());
    }

    fn signed(&mut self, n: i64) {
        if n < 0 {
            self.out.push(b'-');
        }
        self.unsigned(n.unsigned_abs());
    }

    /// serde_json's shortest form (`0.5`, `2.0`, `1e300`); `null` when not finite, as serde_json.
    fn float(&mut self, x: f64) {
        match serde_json::Number::from_f64(x) {
            Some(n) => self.out.extend_from_slice(n.to_string().as_bytes()),
            None => self.out.extend_from_slice(b"null"),
        }
    }
}

/// `n` in decimal, written into the end of `digits`.
pub fn decimal(mut n: u64, digits: &mut [u8; 20]) -> &str {
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    std::str::from_utf8(&digits[at..]).unwrap_or_default() // ASCII digits: always UTF-8
}

/// What can be written as JSON text.
pub trait ToJson {
    fn to_json(&self, w: &mut Writer);
}

/// The members of a struct's JSON object without its braces (`json_object!`), so that another struct's
/// object can hold them as its own.
pub trait JsonFields {
    fn write_fields(&self, w: &mut Writer);
}

/// `value` as compact JSON text.
pub fn to_text(value: &dyn ToJson) -> String {
    let mut w = Writer { out: Vec::new(), first: true };
    value.to_json(&mut w);
    // Valid UTF-8: everything written is ASCII or copied from a `str` between ASCII bytes.
    String::from_utf8(w.out).unwrap_or_default()
}

impl ToJson for str {
    fn to_json(&self, w: &mut Writer) {
        w.string(self)
    }
}

impl ToJson for String {
    fn to_json(&self, w: &mut Writer) {
        w.string(self)
    }
}

impl ToJson for bool {
    fn to_json(&self, w: &mut Writer) {
        w.out.extend_from_slice(if *self { b"true" } else { b"false" })
    }
}

macro_rules! unsigned {
    ($($t:ty),*) => {$(
        impl ToJson for $t {
            fn to_json(&self, w: &mut Writer) {
                w.unsigned(*self as u64)
            }
        }
    )*};
}
unsigned!(u32, u64, usize);

impl ToJson for i64 {
    fn to_json(&self, w: &mut Writer) {
        w.signed(*self)
    }
}

impl ToJson for f64 {
    fn to_json(&self, w: &mut Writer) {
        w.float(*self)
    }
}

impl ToJson for Value {
    fn to_json(&self, w: &mut Writer) {
        match self {
            Value::Null => w.out.extend_from_slice(b"null"),
            Value::Bool(b) => b.to_json(w),
            Value::Number(n) => match (n.as_u64(), n.as_i64()) {
                (Some(u), _) => w.unsigned(u),
                (None, Some(i)) => w.signed(i),
                _ => w.float(n.as_f64().unwrap_or(f64::NAN)),
            },
            Value::String(s) => w.string(s),
            Value::Array(items) => items.to_json(w),
            Value::Object(members) => members.to_json(w),
        }
    }
}

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
        w.begin_object();
        for (key, value) in self {
            w.separate();
            w.string(key);
            w.out.push(b':');
            value.to_json(w);
        }
        w.end_object();
    }
}

/// `impl ToJson` for a struct written as a JSON object, its fields in the order listed, each under its
/// JSON name; a field marked `if some` is left out when it is `None`. A last field written `..name` is a
/// struct whose own fields are written among these, as if they were this struct's:
///
/// ```ignore
/// json_object!(Range { start => "start", end => "end" });
/// json_object!(Plan { needed => "needed", image_model if some => "imageModel" });
/// json_object!(Estimate { total => "total" } ..extras);
/// ```
///
/// A `macro_rules!` rather than a derive: no proc-macro crate to build, and the same code as writing
/// each impl by hand (one `field` call per field, through `&dyn ToJson`).
#[macro_export]
macro_rules! json_object {
    ($type:ty { $($field:ident $(if $some:ident)? => $name:literal),* $(,)? } $(..$flat:ident)?) => {
        impl $crate::json::write::JsonFields for $type {
            fn write_fields(&self, w: &mut $crate::json::write::Writer) {
                $( $crate::json_object!(@field w, self.$field, $name $(, $some)?); )*
                $( $crate::json::write::JsonFields::write_fields(&self.$flat, w); )?
            }
        }
        impl $crate::json::write::ToJson for $type {
            fn to_json(&self, w: &mut $crate::json::write::Writer) {
                w.begin_object();
                $crate::json::write::JsonFields::write_fields(self, w);
                w.end_object();
            }
        }
    };
    (@field $w:ident, $value:expr, $name:literal) => {
        $w.field($name, &$value)
    };
    (@field $w:ident, $value:expr, $name:literal, some) => {
        if let Some(value) = &$value {
            $w.field($name, value)
        }
    };
}

/// `impl Serialize` for result types through their JSON text, for the tests' `serde_json::to_value`.
#[macro_export]
macro_rules! serialize_through_text {
    ($($t:ty),* $(,)?) => {$(
        impl serde::Serialize for $t {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
                let text = $crate::json::write::to_text(self);
                let value = ::ctxfold_json_read::parse(&text).map_err(serde::ser::Error::custom)?;
                value.serialize(serializer)
            }
        }
    )*};
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Serialize;
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

    /// `json_object!`'s three kinds of field, against serde's derive with the same meaning.
    #[derive(Serialize)]
    struct Spread {
        kept: u32,
        #[serde(skip_serializing_if = "Option::is_none")]
        maybe: Option<&'static str>,
        #[serde(flatten)]
        rest: Rest,
    }

    #[derive(Serialize)]
    struct Rest {
        #[serde(skip_serializing_if = "Option::is_none")]
        first: Option<u32>,
        last: bool,
    }

    crate::json_object!(Spread { kept => "kept", maybe if some => "maybe" } ..rest);
    crate::json_object!(Rest { first if some => "first", last => "last" });

    #[test]
    fn a_spread_struct_writes_its_fields_among_those_of_the_struct_holding_it() {
        for (maybe, first) in [(None, None), (Some("x"), None), (None, Some(2)), (Some("y"), Some(0))] {
            let spread = Spread { kept: 1, maybe, rest: Rest { first, last: first.is_some() } };
            assert_eq!(to_text(&spread), serde_json::to_string(&spread).unwrap());
        }
    }
}
