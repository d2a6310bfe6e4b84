//! Fingerprints tie a plan to the messages it was made from. They hash each message's canonical
//! JSON (serde_json orders object keys), so the same messages give the same fingerprint whatever
//! the key order of the host's objects. FNV-1a: tiny, stable across platforms and versions; this
//! detects change, it is not a security measure.

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
    let mut h = Hasher::default();
    for m in messages.iter().take(count) {
        h.value(m);
    }
    h.number(count as u64);
    h.finish()
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
}
