//! Fingerprints tie a plan to the messages it was made from, and `Hasher` seeds what must be the same
//! on every run (nonces, the audit's picks). Both are stable across platforms and versions; they detect
//! change, they are not a security measure.
//!
//! A plan's fingerprint reads every byte of every message, on every plan and every apply, so it takes
//! eight bytes a step and walks the messages as they were read, without writing them out as text. Object
//! members are taken in key order (serde_json keeps them sorted), so the same messages give the same
//! fingerprint whatever the key order of the host's objects. `Hasher` (FNV-1a, a byte a step) hashes
//! the few short things the rest hash.

use serde_json::Value;

const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const PRIME: u64 = 0x0000_0100_0000_01b3;

#[derive(Debug, Clone, Copy)]
pub struct Hasher(u64);

impl Default for Hasher {
    fn default() -> Self {
        Hasher(OFFSET)
    }
}

impl Hasher {
    pub fn bytes(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(PRIME);
        }
    }
    pub fn value(&mut self, v: &Value) {
        // The text first, then its bytes: serializing straight into the hasher (an `io::Write`) would
        // compile one more copy of serde_json's writer into the wasm than `json_text`'s.
        self.bytes(crate::text::json_text(v).as_bytes());
        self.bytes(&[0xff]); // separator: [a, bc] and [ab, c] must differ
    }
    pub fn number(&mut self, n: u64) {
        self.bytes(&n.to_le_bytes());
    }
    pub fn finish(&self) -> u64 {
        self.0
    }
}

/// Hash of the first `count` messages.
pub fn of_messages(messages: &[Value], count: usize) -> u64 {
    let mut h = Words(OFFSET, None);
    for m in messages.iter().take(count) {
        h.value(m);
    }
    h.word(count as u64);
    h.finish()
}

/// Hash of what `message` says: `of_messages` of it alone, its `cache_control` members (at any depth) left
/// out. Where a provider caches is no part of a message's content, and clients move those marks from one
/// request to the next.
pub fn of_content(message: &Value) -> u64 {
    let mut h = Words(OFFSET, Some("cache_control"));
    h.value(message);
    h.word(1);
    h.finish()
}

/// A hash that takes a 64-bit word a step: a multiply and a rotation (the multiplier is the golden
/// ratio's, which spreads every input bit over the high half). With a key, object members of that name
/// are left out.
struct Words(u64, Option<&'static str>);

impl Words {
    fn word(&mut self, w: u64) {
        self.0 = (self.0 ^ w).wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(29);
    }

    /// The length first, so that where one string ends and the next begins is part of the hash.
    fn bytes(&mut self, bytes: &[u8]) {
        self.word(bytes.len() as u64);
        let mut words = bytes.chunks_exact(8);
        for w in &mut words {
            self.word(u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]));
        }
        let rest = words.remainder();
        if !rest.is_empty() {
            let mut last = [0u8; 8];
            last[..rest.len()].copy_from_slice(rest);
            self.word(u64::from_le_bytes(last));
        }
    }

    /// Each kind of value with its own tag, so that `"1"` and `1`, or `[]` and `{}`, differ.
    fn value(&mut self, v: &Value) {
        match v {
            Value::Null => self.word(1),
            Value::Bool(b) => self.word(2 + u64::from(*b)),
            Value::Number(n) => {
                self.word(4);
                self.bytes(n.to_string().as_bytes());
            }
            Value::String(s) => {
                self.word(5);
                self.bytes(s.as_bytes());
            }
            Value::Array(items) => {
                self.word(6);
                self.word(items.len() as u64);
                items.iter().for_each(|item| self.value(item));
            }
            Value::Object(members) => {
                self.word(7);
                let skipped = self.1.filter(|&k| members.contains_key(k));
                self.word((members.len() - usize::from(skipped.is_some())) as u64);
                for (key, value) in members {
                    if Some(key.as_str()) != skipped {
                        self.bytes(key.as_bytes());
                        self.value(value);
                    }
                }
            }
        }
    }

    fn finish(&self) -> u64 {
        let h = self.0 ^ (self.0 >> 32);
        h.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (h >> 29)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn key_order_does_not_matter_but_content_does() {
        let a = json!([{ "role": "user", "content": "x" }]);
        let b: Value = serde_json::from_str(r#"[{"content":"x","role":"user"}]"#).unwrap();
        let c = json!([{ "role": "user", "content": "y" }]);
        let (a, b, c) = (a.as_array().unwrap(), b.as_array().unwrap(), c.as_array().unwrap());
        assert_eq!(of_messages(a, 1), of_messages(b, 1));
        assert_ne!(of_messages(a, 1), of_messages(c, 1));
    }

    #[test]
    fn a_messages_content_is_the_same_with_its_cache_marks_moved() {
        let marked = json!({ "role": "user", "content": [{ "type": "text", "text": "x", "cache_control": { "type": "ephemeral" } }] });
        let plain = json!({ "role": "user", "content": [{ "type": "text", "text": "x" }] });
        let other = json!({ "role": "user", "content": [{ "type": "text", "text": "y" }] });
        assert_eq!(of_content(&marked), of_content(&plain));
        assert_ne!(of_content(&plain), of_content(&other));
        // The plan's fingerprint still tells them apart.
        assert_ne!(of_messages(&[marked], 1), of_messages(&[plain], 1));
    }

    #[test]
    fn every_change_of_value_kind_boundary_or_count_changes_it() {
        let variants = [
            json!([{ "content": "ab" }, { "content": "c" }]),
            json!([{ "content": "a" }, { "content": "bc" }]),
            json!([{ "content": "1" }, { "content": "c" }]),
            json!([{ "content": 1 }, { "content": "c" }]),
            json!([{ "content": [] }, { "content": "c" }]),
            json!([{ "content": {} }, { "content": "c" }]),
            json!([{ "content": null }, { "content": "c" }]),
            json!([{ "content": false }, { "content": "c" }]),
            json!([{ "content": true }, { "content": "c" }]),
            json!([{ "contents": "ab" }, { "content": "c" }]),
            json!([{ "content": "ab", "x": 1 }, { "content": "c" }]),
            json!([{ "content": "a long text of more than eight bytes" }, { "content": "c" }]),
            json!([{ "content": "a long text of more than eight bytes." }, { "content": "c" }]),
        ];
        let mut seen = std::collections::HashSet::new();
        for v in &variants {
            let messages = v.as_array().unwrap();
            assert!(seen.insert(of_messages(messages, 2)), "{v}");
            assert!(seen.insert(of_messages(messages, 1)), "{v}, the first message");
        }
    }
}
