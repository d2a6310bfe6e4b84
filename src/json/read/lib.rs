//! JSON text → `serde_json::Value`, without serde's deserializer machinery.
//!
//! `serde_json::from_str::<Value>` compiles serde's generic visitor code and serde_json's reader into
//! the wasm: about 14 KB raw, 6.7 KiB gzip. This reader builds the same `Value`s itself and accepts
//! and refuses exactly what `serde_json::from_str::<Value>` does (its default features: numbers as
//! `u64`/`i64` when whole, else `f64` by the same multiply-or-divide by a power of ten, at most 127
//! nested containers), with the same error messages and positions (`src/tests/json.rs` compares the
//! two on the corpus and on mangled JSON). Callers rely on that: tool-call arguments and summarizer
//! replies are JSON only when serde_json read them as such, and an unreadable message's error quotes
//! the reason.
//!
//! A crate of its own so that it can be compiled for speed (see `Cargo.toml`): every call given text reads
//! all of it here, and at the size level the standard library's string and vector growth stays a call per
//! piece of a string.

use serde_json::{Map, Number, Value};
use std::fmt;
use std::ops::Range;

/// Why a text is not JSON, and where: printed as serde_json prints its own errors.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    reason: &'static str,
    line: usize,
    column: usize,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{} at line {} column {}", self.reason, self.line, self.column)
    }
}

const EOF_LIST: &str = "EOF while parsing a list";
const EOF_OBJECT: &str = "EOF while parsing an object";
const EOF_STRING: &str = "EOF while parsing a string";
const EOF_VALUE: &str = "EOF while parsing a value";
const EXPECTED_COLON: &str = "expected `:`";
const EXPECTED_LIST_COMMA_OR_END: &str = "expected `,` or `]`";
const EXPECTED_OBJECT_COMMA_OR_END: &str = "expected `,` or `}`";
const EXPECTED_IDENT: &str = "expected ident";
const EXPECTED_VALUE: &str = "expected value";
const INVALID_ESCAPE: &str = "invalid escape";
const INVALID_NUMBER: &str = "invalid number";
const OUT_OF_RANGE: &str = "number out of range";
const CONTROL_CHARACTER: &str = "control character (\\u0000-\\u001F) found while parsing a string";
const KEY_NOT_STRING: &str = "key must be a string";
const LONE_SURROGATE: &str = "lone leading surrogate in hex escape";
const TRAILING_COMMA: &str = "trailing comma";
const TRAILING_CHARACTERS: &str = "trailing characters";
const HEX_ESCAPE_END: &str = "unexpected end of hex escape";
const TOO_DEEP: &str = "recursion limit exceeded";

/// Containers may nest 127 deep: the 128th is refused, as by serde_json.
const DEPTH_LIMIT: u8 = 128;

/// `text` as a JSON value.
pub fn parse(text: &str) -> Result<Value> {
    let mut reader = Reader::new(text, None);
    reader.document()
}

/// Where the values of a document's first two levels are in its text: what lets an edited copy of a
/// message list, or of a request body holding one, keep every other byte of the text as it was.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Spans {
    /// The root's values (an array's items, an object's member values), in order, with their member key.
    pub top: Vec<(Option<String>, Range<usize>)>,
    /// In a root object (a request body), the values inside its member values, in order, with the index
    /// in `top` of the value holding them: the items of its message list. Only a body's list is looked
    /// up inside a top value (`items`).
    pub inner: Vec<(usize, Range<usize>)>,
}

/// Where an item list is in a document's text: the list itself (None: the document is the list), and
/// each of its items.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ItemSpans {
    pub list: Option<Range<usize>>,
    pub items: Vec<Range<usize>>,
}

impl Spans {
    /// The root array's items, or those of the array under `key` of a root object.
    pub fn items(&self, key: Option<&str>) -> Option<ItemSpans> {
        let Some(key) = key else {
            let mut items = Vec::with_capacity(self.top.len());
            for (_, r) in &self.top {
                items.push(r.clone());
            }
            return Some(ItemSpans { list: None, items });
        };
        let at = self.top.iter().rposition(|(k, _)| k.as_deref() == Some(key))?;
        let mut items = Vec::new();
        for (parent, r) in &self.inner {
            if *parent == at {
                items.push(r.clone());
            }
        }
        Some(ItemSpans { list: Some(self.top[at].1.clone()), items })
    }
}

/// `text` as a JSON value, and where its first two levels are (see `Spans`).
pub fn parse_with_spans(text: &str) -> Result<(Value, Spans)> {
    let mut reader = Reader::new(text, Some(Spans::default()));
    reader.inner = text.trim_start().starts_with('{');
    let value = reader.document()?;
    Ok((value, reader.spans.unwrap_or_default()))
}

/// The length of `text` in UTF-16 code units, as JavaScript's `length` measures it: one per character, two
/// for a character past U+FFFF (four bytes in UTF-8). Here, compiled for speed, as it reads every byte of a
/// history's JSON.
pub fn utf16_len(text: &str) -> usize {
    if text.is_ascii() {
        return text.len();
    }
    // Every byte but a continuation byte (0x80..=0xBF, below -64 as i8) starts a character.
    text.bytes().map(|b| usize::from(b as i8 >= -64) + usize::from(b >= 0xF0)).sum()
}

struct Reader<'a> {
    text: &'a str,
    bytes: &'a [u8],
    at: usize,
    depth_left: u8,
    /// An escaped string's text as it is unescaped; reused, as strings with escapes are common
    /// (every tool output with a newline).
    scratch: String,
    /// Where the first two levels' values are, when asked for.
    spans: Option<Spans>,
    /// The key of the root object's member being read (with `spans`).
    member: Option<String>,
    /// Whether the values inside the root's values are recorded too (with `spans`; a root object's).
    inner: bool,
}

/// A number as read, before it becomes a `Value`.
enum Parsed {
    Unsigned(u64),
    Negative(i64),
    Float(f64),
}

type Result<T> = std::result::Result<T, ParseError>;

impl<'a> Reader<'a> {
    fn new(text: &'a str, spans: Option<Spans>) -> Reader<'a> {
        Reader {
            text,
            bytes: text.as_bytes(),
            at: 0,
            depth_left: DEPTH_LIMIT,
            scratch: String::new(),
            spans,
            member: None,
            inner: false,
        }
    }

    /// The whole text: one value, then nothing but whitespace.
    fn document(&mut self) -> Result<Value> {
        let value = self.value()?;
        match self.skip_whitespace() {
            Some(_) => Err(self.peek_error(TRAILING_CHARACTERS)),
            None => Ok(value),
        }
    }

    // The byte functions are inlined by force: the wasm is built for size, where LLVM would call them for
    // every byte (the text path takes 11% less time for 0.3 KiB).
    #[inline(always)]
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    #[inline(always)]
    fn next(&mut self) -> Option<u8> {
        let b = self.peek();
        if b.is_some() {
            self.at += 1;
        }
        b
    }

    /// The next byte that is not whitespace, not consumed.
    #[inline(always)]
    fn skip_whitespace(&mut self) -> Option<u8> {
        while let Some(b) = self.peek() {
            if !matches!(b, b' ' | b'\n' | b'\t' | b'\r') {
                return Some(b);
            }
            self.at += 1;
        }
        None
    }

    /// An error at the reading position (after the byte just consumed).
    fn error(&self, reason: &'static str) -> ParseError {
        self.error_at(reason, self.at)
    }

    /// An error at the byte just peeked.
    fn peek_error(&self, reason: &'static str) -> ParseError {
        self.error_at(reason, (self.at + 1).min(self.bytes.len()))
    }

    /// Lines count from 1, columns are bytes from the line's start (serde_json's positions).
    #[cold]
    fn error_at(&self, reason: &'static str, i: usize) -> ParseError {
        let before = &self.bytes[..i];
        let mut line = 1;
        let mut line_start = 0;
        for (k, &b) in before.iter().enumerate() {
            if b == b'\n' {
                line += 1;
                line_start = k + 1;
            }
        }
        ParseError { reason, line, column: i - line_start }
    }

    fn value(&mut self) -> Result<Value> {
        let Some(first) = self.skip_whitespace() else { return Err(self.peek_error(EOF_VALUE)) };
        if self.spans.is_none() || self.depth_left < DEPTH_LIMIT - 2 {
            return self.value_at(first);
        }
        // A value of the first two levels: where it starts and ends.
        let level = DEPTH_LIMIT - self.depth_left;
        let start = self.at;
        let member = if level == 1 { self.member.take() } else { None };
        let value = self.value_at(first)?;
        if let Some(spans) = self.spans.as_mut() {
            match level {
                1 => spans.top.push((member, start..self.at)),
                2 if self.inner => spans.inner.push((spans.top.len(), start..self.at)),
                _ => {}
            }
        }
        Ok(value)
    }

    fn value_at(&mut self, first: u8) -> Result<Value> {
        match first {
            b'n' => self.word(b"null").map(|_| Value::Null),
            b't' => self.word(b"true").map(|_| Value::Bool(true)),
            b'f' => self.word(b"false").map(|_| Value::Bool(false)),
            b'-' => {
                self.at += 1;
                self.number(false)
            }
            b'0'..=b'9' => self.number(true),
            b'"' => {
                self.at += 1;
                self.string().map(Value::String)
            }
            b'[' | b'{' => {
                self.depth_left -= 1;
                if self.depth_left == 0 {
                    return Err(self.peek_error(TOO_DEEP));
                }
                self.at += 1;
                let value = if first == b'[' { self.array() } else { self.object() };
                self.depth_left += 1;
                value
            }
            _ => Err(self.peek_error(EXPECTED_VALUE)),
        }
    }

    /// `null`, `true` or `false`, its first byte already peeked.
    fn word(&mut self, word: &[u8]) -> Result<()> {
        self.at += 1;
        for &expected in &word[1..] {
            match self.next() {
                None => return Err(self.error(EOF_VALUE)),
                Some(b) if b != expected => return Err(self.error(EXPECTED_IDENT)),
                Some(_) => {}
            }
        }
        Ok(())
    }

    /// After `[`: the items and the closing `]`.
    fn array(&mut self) -> Result<Value> {
        let mut items = Vec::new();
        loop {
            let Some(b) = self.skip_whitespace() else { return Err(self.peek_error(EOF_LIST)) };
            if b == b']' {
                self.at += 1;
                return Ok(Value::Array(items));
            }
            if !items.is_empty() {
                if b != b',' {
                    return Err(self.peek_error(EXPECTED_LIST_COMMA_OR_END));
                }
                self.at += 1;
                match self.skip_whitespace() {
                    Some(b']') => return Err(self.peek_error(TRAILING_COMMA)),
                    Some(_) => {}
                    None => return Err(self.peek_error(EOF_VALUE)),
                }
            }
            items.push(self.value()?);
        }
    }

    /// After `{`: the members and the closing `}`. A repeated key keeps its last value.
    fn object(&mut self) -> Result<Value> {
        let mut members = Map::new();
        let mut first = true;
        loop {
            let Some(b) = self.skip_whitespace() else { return Err(self.peek_error(EOF_OBJECT)) };
            if b == b'}' {
                self.at += 1;
                return Ok(Value::Object(members));
            }
            if first {
                first = false;
                if b != b'"' {
                    return Err(self.peek_error(KEY_NOT_STRING));
                }
            } else {
                if b != b',' {
                    return Err(self.peek_error(EXPECTED_OBJECT_COMMA_OR_END));
                }
                self.at += 1;
                match self.skip_whitespace() {
                    Some(b'"') => {}
                    Some(b'}') => return Err(self.peek_error(TRAILING_COMMA)),
                    Some(_) => return Err(self.peek_error(KEY_NOT_STRING)),
                    None => return Err(self.peek_error(EOF_VALUE)),
                }
            }
            self.at += 1;
            let key = self.string()?;
            match self.skip_whitespace() {
                Some(b':') => self.at += 1,
                Some(_) => return Err(self.peek_error(EXPECTED_COLON)),
                None => return Err(self.peek_error(EOF_OBJECT)),
            }
            if self.spans.is_some() && self.depth_left == DEPTH_LIMIT - 1 {
                self.member = Some(key.clone());
            }
            let value = self.value()?;
            members.insert(key, value);
        }
    }

    /// After the opening quote: the string's text, through its closing quote.
    fn string(&mut self) -> Result<String> {
        let text = self.text;
        let mut start = self.at;
        let mut escaped = false;
        loop {
            self.at = plain_run_end(self.bytes, self.at);
            let Some(b) = self.peek() else { return Err(self.error(EOF_STRING)) };
            // Runs start and end beside ASCII bytes, so they are whole characters of `text`.
            let run = text.get(start..self.at).unwrap_or_default();
            match b {
                b'"' => {
                    self.at += 1;
                    if !escaped {
                        return Ok(run.to_string());
                    }
                    self.scratch.push_str(run);
                    // A copy of the exact size; the scratch buffer stays for the next escaped string.
                    return Ok(self.scratch.as_str().to_string());
                }
                b'\\' => {
                    if !escaped {
                        self.scratch.clear();
                        escaped = true;
                    }
                    self.scratch.push_str(run);
                    self.at += 1;
                    self.escape()?;
                    start = self.at;
                }
                _ => {
                    self.at += 1;
                    return Err(self.error(CONTROL_CHARACTER));
                }
            }
        }
    }

    /// After a backslash: the escaped character, appended to the scratch buffer.
    fn escape(&mut self) -> Result<()> {
        let Some(b) = self.next() else { return Err(self.error(EOF_STRING)) };
        let plain = match b {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => return self.unicode_escape(),
            _ => return Err(self.error(INVALID_ESCAPE)),
        };
        self.scratch.push(plain);
        Ok(())
    }

    /// After `\u`: one character, from one escape or from a surrogate pair of two.
    fn unicode_escape(&mut self) -> Result<()> {
        let high = self.hex4()?;
        let code = match high {
            0xDC00..=0xDFFF => return Err(self.error(LONE_SURROGATE)),
            0xD800..=0xDBFF => {
                for expected in [b'\\', b'u'] {
                    let Some(b) = self.peek() else { return Err(self.error(EOF_STRING)) };
                    self.at += 1;
                    if b != expected {
                        return Err(self.error(HEX_ESCAPE_END));
                    }
                }
                let low = self.hex4()?;
                if !(0xDC00..=0xDFFF).contains(&low) {
                    return Err(self.error(LONE_SURROGATE));
                }
                (((high - 0xD800) as u32) << 10 | (low - 0xDC00) as u32) + 0x1_0000
            }
            _ => high as u32,
        };
        // Always a character: surrogates were handled above.
        self.scratch.push(char::from_u32(code).unwrap_or_default());
        Ok(())
    }

    fn hex4(&mut self) -> Result<u16> {
        let Some(digits) = self.bytes.get(self.at..self.at + 4) else {
            self.at = self.bytes.len();
            return Err(self.error(EOF_STRING));
        };
        self.at += 4;
        let mut n = 0u16;
        for &d in digits {
            let v = match d {
                b'0'..=b'9' => d - b'0',
                b'a'..=b'f' => d - b'a' + 10,
                b'A'..=b'F' => d - b'A' + 10,
                _ => return Err(self.error(INVALID_ESCAPE)),
            };
            n = n << 4 | v as u16;
        }
        Ok(n)
    }

    /// A number, after its sign. Whole numbers that fit are integers; the rest are `f64`.
    fn number(&mut self, positive: bool) -> Result<Value> {
        let parsed = self.integer(positive)?;
        Ok(match parsed {
            Parsed::Unsigned(n) => Value::Number(Number::from(n)),
            Parsed::Negative(n) => Value::Number(Number::from(n)),
            Parsed::Float(f) => Value::from(f),
        })
    }

    fn integer(&mut self, positive: bool) -> Result<Parsed> {
        let Some(first) = self.next() else { return Err(self.error(EOF_VALUE)) };
        let mut significand = match first {
            b'0' => {
                if let Some(b'0'..=b'9') = self.peek() {
                    return Err(self.peek_error(INVALID_NUMBER));
                }
                0
            }
            b'1'..=b'9' => (first - b'0') as u64,
            _ => return Err(self.error(INVALID_NUMBER)),
        };
        if first != b'0' {
            while let Some(c @ b'0'..=b'9') = self.peek() {
                match significand.checked_mul(10).and_then(|s| s.checked_add((c - b'0') as u64)) {
                    Some(s) => significand = s,
                    // Too long for a u64: the remaining digits only scale it.
                    None => return self.long_integer(positive, significand).map(Parsed::Float),
                }
                self.at += 1;
            }
        }
        Ok(match self.peek() {
            Some(b'.') => Parsed::Float(self.fraction(positive, significand, 0)?),
            Some(b'e' | b'E') => Parsed::Float(self.exponent(positive, significand, 0)?),
            _ if positive => Parsed::Unsigned(significand),
            _ => {
                let negated = (significand as i64).wrapping_neg();
                // `-0`, and magnitudes past i64's, are floats.
                if negated >= 0 {
                    Parsed::Float(-(significand as f64))
                } else {
                    Parsed::Negative(negated)
                }
            }
        })
    }

    #[cold]
    fn long_integer(&mut self, positive: bool, significand: u64) -> Result<f64> {
        let mut exponent = 0;
        loop {
            match self.peek() {
                Some(b'0'..=b'9') => {
                    self.at += 1;
                    exponent += 1;
                }
                Some(b'.') => return self.fraction(positive, significand, exponent),
                Some(b'e' | b'E') => return self.exponent(positive, significand, exponent),
                _ => return self.float_of(positive, significand, exponent),
            }
        }
    }

    /// At the `.`: the fraction's digits, then any exponent.
    fn fraction(&mut self, positive: bool, mut significand: u64, exponent_before: i32) -> Result<f64> {
        self.at += 1;
        let mut exponent_after = 0;
        while let Some(c @ b'0'..=b'9') = self.peek() {
            match significand.checked_mul(10).and_then(|s| s.checked_add((c - b'0') as u64)) {
                Some(s) => significand = s,
                None => {
                    // Digits past u64's precision are dropped.
                    while let Some(b'0'..=b'9') = self.peek() {
                        self.at += 1;
                    }
                    return self.exponent_or_float(positive, significand, exponent_before + exponent_after);
                }
            }
            self.at += 1;
            exponent_after -= 1;
        }
        if exponent_after == 0 {
            return Err(match self.peek() {
                Some(_) => self.peek_error(INVALID_NUMBER),
                None => self.peek_error(EOF_VALUE),
            });
        }
        self.exponent_or_float(positive, significand, exponent_before + exponent_after)
    }

    fn exponent_or_float(&mut self, positive: bool, significand: u64, exponent: i32) -> Result<f64> {
        match self.peek() {
            Some(b'e' | b'E') => self.exponent(positive, significand, exponent),
            _ => self.float_of(positive, significand, exponent),
        }
    }

    /// At the `e`: the exponent, added to `start` (the fraction's digits, negative).
    fn exponent(&mut self, positive: bool, significand: u64, start: i32) -> Result<f64> {
        self.at += 1;
        let positive_exponent = match self.peek() {
            Some(b'+') => {
                self.at += 1;
                true
            }
            Some(b'-') => {
                self.at += 1;
                false
            }
            _ => true,
        };
        let mut exponent = match self.next() {
            None => return Err(self.error(EOF_VALUE)),
            Some(c @ b'0'..=b'9') => (c - b'0') as i32,
            Some(_) => return Err(self.error(INVALID_NUMBER)),
        };
        while let Some(c @ b'0'..=b'9') = self.peek() {
            self.at += 1;
            match exponent.checked_mul(10).and_then(|e| e.checked_add((c - b'0') as i32)) {
                Some(e) => exponent = e,
                None => {
                    // An exponent past i32: infinity is an error, anything else rounds to zero.
                    if significand != 0 && positive_exponent {
                        return Err(self.error(OUT_OF_RANGE));
                    }
                    while let Some(b'0'..=b'9') = self.peek() {
                        self.at += 1;
                    }
                    return Ok(if positive { 0.0 } else { -0.0 });
                }
            }
        }
        let exponent = if positive_exponent { start.saturating_add(exponent) } else { start.saturating_sub(exponent) };
        self.float_of(positive, significand, exponent)
    }

    /// `significand × 10^exponent`, by one multiplication or division by a power of ten (several
    /// divisions below 10^-308), as serde_json computes it: the same `f64` for the same text.
    fn float_of(&mut self, positive: bool, significand: u64, mut exponent: i32) -> Result<f64> {
        let mut f = significand as f64;
        loop {
            match power_of_ten(exponent.unsigned_abs()) {
                Some(pow) => {
                    if exponent >= 0 {
                        f *= pow;
                        if f.is_infinite() {
                            return Err(self.error(OUT_OF_RANGE));
                        }
                    } else {
                        f /= pow;
                    }
                    break;
                }
                None => {
                    if f == 0.0 {
                        break;
                    }
                    if exponent >= 0 {
                        return Err(self.error(OUT_OF_RANGE));
                    }
                    f /= 1e308;
                    exponent += 308;
                }
            }
        }
        Ok(if positive { f } else { -f })
    }
}

/// Where the run of bytes that need no attention (not `"`, `\` or a control character) starting at
/// `i` ends. Eight bytes at a time: strings are most of a conversation's JSON.
#[inline(always)] // see `Reader::peek`
pub fn plain_run_end(bytes: &[u8], mut i: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    while let Some(chunk) = bytes.get(i..i + 8) {
        let word = u64::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3], chunk[4], chunk[5], chunk[6], chunk[7]]);
        let quote = word ^ (ONES * b'"' as u64);
        let backslash = word ^ (ONES * b'\\' as u64);
        // A byte's high bit is set where it is zero in `quote`/`backslash`, or below 0x20 in `word`;
        // a borrow can only mark bytes above the first such byte, so the lowest mark is exact.
        let marks = (quote.wrapping_sub(ONES) & !quote
            | backslash.wrapping_sub(ONES) & !backslash
            | word.wrapping_sub(ONES * 0x20) & !word)
            & HIGHS;
        if marks != 0 {
            return i + (marks.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while let Some(&b) = bytes.get(i) {
        if b == b'"' || b == b'\\' || b < 0x20 {
            break;
        }
        i += 1;
    }
    i
}

/// 10^n as the nearest `f64` (what the literal `1e{n}` is), for n up to 308; `None` beyond. A table
/// of the 309 values would be 2.5 KB of the wasm; computing them costs a few microseconds for the rare
/// number whose exponent is past 22, below which every power is exact.
pub fn power_of_ten(n: u32) -> Option<f64> {
    if n > 308 {
        return None;
    }
    if n <= 22 {
        let mut p = 1.0;
        for _ in 0..n {
            p *= 10.0;
        }
        return Some(p);
    }
    // 10^n = 5^n × 2^n: 5^n exactly (5^308 < 2^716, 23 limbs of 32 bits), rounded to 53 bits, half
    // to even, then scaled by the power of two.
    let mut limbs = [0u32; 23];
    limbs[0] = 1;
    for _ in 0..n {
        let mut carry = 0u64;
        for limb in limbs.iter_mut() {
            let product = *limb as u64 * 5 + carry;
            *limb = product as u32;
            carry = product >> 32;
        }
    }
    let bit = |i: u32| (limbs[(i / 32) as usize] >> (i % 32)) & 1 == 1;
    let mut bits = 23 * 32;
    while !bit(bits - 1) {
        bits -= 1;
    }
    // n > 22: 5^n has at least 54 bits, so there is a rounding bit below the 53 kept.
    let mut mantissa = 0u64;
    for i in (bits - 53..bits).rev() {
        mantissa = mantissa << 1 | bit(i) as u64;
    }
    let below_half = (0..bits - 54).any(bit);
    let mut scale = (bits - 53 + n) as u64;
    if bit(bits - 54) && (below_half || mantissa & 1 == 1) {
        mantissa += 1;
        if mantissa == 1 << 53 {
            mantissa >>= 1;
            scale += 1;
        }
    }
    Some(f64::from_bits((scale + 1075) << 52 | (mantissa - (1 << 52))))
}
