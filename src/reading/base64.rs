//! Base64 as messages carry files: the standard or the URL-safe alphabet, padded or not, no line breaks.

/// The value of one base64 character; None for a character outside both alphabets.
pub fn sextet(c: u8) -> Option<u8> {
    Some(match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' | b'-' => 62,
        b'/' | b'_' => 63,
        _ => return None,
    })
}

/// The bytes `text` encodes; None when it is not base64 (a URL, a file id, plain text).
pub fn decode(text: &str) -> Option<Vec<u8>> {
    let digits = text.trim_end_matches('=').as_bytes();
    if digits.len() % 4 == 1 || text.len() - digits.len() > 2 {
        return None;
    }
    let mut out = Vec::with_capacity(digits.len() / 4 * 3 + 2);
    for group in digits.chunks(4) {
        let mut n = 0u32;
        for (k, &c) in group.iter().enumerate() {
            n |= u32::from(sextet(c)?) << (18 - 6 * k);
        }
        // A group of k characters holds k - 1 whole bytes.
        out.extend_from_slice(&n.to_be_bytes()[1..group.len()]);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::base64;

    #[test]
    fn decodes_what_the_encoder_wrote_at_every_padding() {
        for text in ["", "a", "ab", "abc", "abcd", "hello, wörld ✓"] {
            assert_eq!(decode(&base64(text.as_bytes())).as_deref(), Some(text.as_bytes()), "{text}");
            let unpadded = base64(text.as_bytes()).trim_end_matches('=').to_owned();
            assert_eq!(decode(&unpadded).as_deref(), Some(text.as_bytes()), "{text} unpadded");
        }
        assert_eq!(decode("-_8").as_deref(), Some(&[0xfb, 0xff][..]), "the URL-safe alphabet");
    }

    #[test]
    fn refuses_what_is_not_base64() {
        for text in ["https://example.com/a.txt", "file-abc123 x", "abcde", "a===", "plain text."] {
            assert_eq!(decode(text), None, "{text}");
        }
    }
}
