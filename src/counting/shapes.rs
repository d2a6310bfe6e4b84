//! Text that is not prose: base64, hexadecimal and long runs of one character, as tool outputs carry them
//! (encoded images and files, hashes and ids, separators, progress bars). Read as prose they are far off:
//! 30 KB of base64 about a third low, 100 000 `y` at 2 tokens instead of 25 000, 5 000 dashes six times
//! high. After the scan, text with few places where a word could start is looked through for such
//! stretches; each is taken out of the scanner's classes and counted in its own (`Class::Encoded`,
//! `EncodedText`, `Hex`, `RunO200k`, ...), whose costs are measured against the exact tokenizers
//! (`shapes_table.rs`).

use crate::counting::scanner::{Class, Counts};
use crate::counting::shapes_table::RUN_LENGTH;

/// Stretches of the base64 alphabet shorter than this are words and ids, left to the scanner.
const MIN_ENCODED: usize = 32;
/// Hexadecimal stretches shorter than this are left to the scanner (`deadbeef`, short hashes).
const MIN_HEX: usize = 16;
/// Runs of one character shorter than this are left to the scanner (`----` in Markdown, `...`, progress
/// bars, indentation): below it, how a vocabulary cuts a run depends too much on the character and the
/// length for one rule.
const MIN_RUN: usize = 64;
/// Text looked through: at least this long, and with at most one place where a word could start per this
/// many bytes (prose has one every six bytes or so, code every ten); text made of such stretches has few.
const MIN_TEXT: usize = 48;
const BYTES_PER_START: usize = 16;

impl Counts {
    /// The classes of `text`: the scanner's, and the stretches that are not prose counted apart.
    pub fn of(text: &str) -> Counts {
        let mut c = Counts::scan(text);
        if may_hold_shapes(&c, text.len()) {
            reshape(text, &mut c);
        }
        c
    }

    /// The same for a message's text, which the next read of the history will count again: a long one
    /// counted lately is found rather than counted (`memo`).
    pub fn of_kept(text: &str) -> Counts {
        crate::counting::memo::counts_of(text, Counts::of)
    }

    /// Adds the classes of `text` (as `Counts::of` counts them).
    pub fn add_text(&mut self, text: &str) {
        self.add(&Counts::of(text));
    }
}

/// Whether text of `len` bytes, scanned into `c`, is worth looking through: long, and few words start in it.
fn may_hold_shapes(c: &Counts, len: usize) -> bool {
    use Class::*;
    let starts: u32 =
        [Word, SpacedDigit, PunctAfterSpace, NewlineRun, NewlineAfterPunct].iter().map(|&k| c.get(k)).sum();
    len >= MIN_TEXT && len >= BYTES_PER_START * (starts as usize + 1)
}

/// Bytes of the base64 alphabets (standard and URL-safe, with padding).
fn is_encoded_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'=' | b'-' | b'_')
}

/// Finds the stretches that are not prose in `text` and counts them apart in `c`.
fn reshape(text: &str, c: &mut Counts) {
    let bytes = text.as_bytes();
    let mut i = 0;
    // Most stretches are words, too short to be anything but prose: they are passed over unexamined.
    while i < bytes.len() {
        let end = i + bytes[i..].iter().take_while(|&&b| is_encoded_byte(b)).count();
        if end > i {
            // `stretch_class` finds nothing shorter than `MIN_HEX` (nor `MIN_ENCODED`, which is longer).
            let class = if end - i >= MIN_HEX { stretch_class(&bytes[i..end]) } else { None };
            match class {
                Some(class) => recount(&text[i..end], class, c),
                None if end - i >= MIN_RUN => runs(text, i, end, c),
                None => {}
            }
            i = end;
        } else {
            let end = i + bytes[i..].iter().take_while(|&&b| !is_encoded_byte(b)).count();
            if end - i >= MIN_RUN {
                runs(text, i, end, c);
            }
            i = end;
        }
    }
}

/// What a stretch of the base64 alphabet is, if not prose: hexadecimal (one letter case, a digit in every
/// five bytes or more, `-` allowed between groups as in UUIDs), or base64 (both cases and digits, the kind
/// of character changing at least every third byte and lower-case runs short, as in random bytes and
/// unlike identifiers).
fn stretch_class(s: &[u8]) -> Option<Class> {
    let kind = |b: u8| match b {
        b'a'..=b'z' => 0u8,
        b'A'..=b'Z' => 1,
        b'0'..=b'9' => 2,
        _ => 3,
    };
    let mut seen = [0usize; 4];
    let (mut changes, mut longest, mut run, mut lower_runs) = (0usize, 0usize, 0usize, 0usize);
    for (k, &b) in s.iter().enumerate() {
        seen[usize::from(kind(b))] += 1;
        run = if k > 0 && s[k - 1] == b { run + 1 } else { 1 };
        longest = longest.max(run);
        let changed = k == 0 || kind(s[k - 1]) != kind(b);
        changes += usize::from(k > 0 && changed);
        lower_runs += usize::from(changed && kind(b) == 0);
    }
    let [lower, upper, digits, other] = seen;
    if longest >= 8 {
        return None;
    }
    let hex_letters = s.iter().all(|&b| b.is_ascii_hexdigit() || b == b'-') && (lower == 0 || upper == 0);
    if hex_letters && s.len() >= MIN_HEX && digits * 5 >= s.len() && lower + upper > 0 && other * 4 <= s.len() {
        return Some(Class::Hex);
    }
    // Lower-case runs average under 2.5 letters in random bytes; the words of an identifier are longer.
    let mixed = lower > 0 && upper > 0 && digits > 0 && lower * 2 <= lower_runs * 5;
    if !(mixed && s.len() >= MIN_ENCODED && changes * 10 >= s.len() * 3) || repeats_itself(s) {
        return None;
    }
    Some(if encodes_text(s) { Class::EncodedText } else { Class::Encoded })
}

/// Whether base64 `s` repeats itself: of its first 64 groups of four characters (three bytes encoded),
/// at most half differ. Encoded patterns (a bitmap's rows, `0101…`) tokenize in a third of the tokens of
/// random bytes; the scanner's classes come nearer them.
fn repeats_itself(s: &[u8]) -> bool {
    let quads: Vec<&[u8]> = s.chunks_exact(4).take(64).collect();
    let mut distinct = 0;
    for (k, q) in quads.iter().enumerate() {
        distinct += usize::from(!quads[..k].contains(q));
    }
    distinct * 2 <= quads.len()
}

/// Whether base64 `s` encodes text: its first 48 bytes decode to printable ASCII, tabs and line breaks.
fn encodes_text(s: &[u8]) -> bool {
    let value = |b: u8| match b {
        b'A'..=b'Z' => Some(b - b'A'),
        b'a'..=b'z' => Some(b - b'a' + 26),
        b'0'..=b'9' => Some(b - b'0' + 52),
        b'+' | b'-' => Some(62),
        b'/' | b'_' => Some(63),
        _ => None,
    };
    let mut decoded = 0;
    for quad in s.chunks_exact(4).take(16) {
        let mut bits = 0u32;
        for &b in quad {
            match value(b) {
                Some(v) => bits = bits << 6 | u32::from(v),
                None => return decoded > 0, // padding: the text ended
            }
        }
        for byte in [(bits >> 16) as u8, (bits >> 8) as u8, bits as u8] {
            if !matches!(byte, b'\t' | b'\n' | b'\r' | 0x20..=0x7E) {
                return false;
            }
        }
        decoded += 3;
    }
    decoded > 0
}

/// Counts `stretch` as `class` instead of as the scanner read it. In hexadecimal, each `-` between groups
/// is a token of its own.
fn recount(stretch: &str, class: Class, c: &mut Counts) {
    c.subtract(&Counts::scan(stretch));
    let dashes = match class {
        Class::Hex => stretch.bytes().filter(|&b| b == b'-').count(),
        _ => 0,
    };
    c.0[class as usize] = c.0[class as usize].saturating_add((stretch.len() - dashes) as u32);
    c.0[Class::PunctRun as usize] = c.0[Class::PunctRun as usize].saturating_add(dashes as u32);
}

/// Counts each run of one printable ASCII character of `MIN_RUN` or more in `text[from..to]` by how each
/// vocabulary cuts such runs, instead of as the scanner read it: measured on runs of 64 to 2 047, the
/// rule is 0.4% high in all for o200k and cl100k, and at worst 13% high for one character.
fn runs(text: &str, from: usize, to: usize, c: &mut Counts) {
    let bytes = text.as_bytes();
    let mut i = from;
    while i < to {
        let b = bytes[i];
        let end = i + bytes[i..to].iter().take_while(|&&x| x == b).count();
        if end - i >= MIN_RUN && (0x20..0x7F).contains(&b) {
            c.subtract(&Counts::scan(&text[i..end]));
            let at = usize::from(b - 0x20);
            for (class, lengths) in [Class::RunO200k, Class::RunCl100k, Class::RunClaude].into_iter().zip(&RUN_LENGTH) {
                // Whole tokens of the longest piece the vocabulary holds, and the rest, which may take two.
                let piece = usize::from(lengths[at].max(1));
                let tokens = (end - i).div_ceil(piece) + usize::from((end - i) % piece != 0);
                c.0[class as usize] = c.0[class as usize].saturating_add(tokens as u32);
            }
        }
        i = end;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Class::*;

    #[test]
    fn base64_and_hex_are_told_from_words_and_identifiers() {
        let png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg";
        assert_eq!(stretch_class(png.as_bytes()), Some(Encoded));
        let random = "q3Zr8TfLw0pX2mN7bV4cK9sJ1hG6dY5eR+o/uB3iW8aZ";
        assert_eq!(stretch_class(random.as_bytes()), Some(Encoded));
        // "Evil Corp, we have delivered on our promise as expected. " in base64.
        let text = "RXZpbCBDb3JwLCB3ZSBoYXZlIGRlbGl2ZXJlZCBvbiBvdXIgcHJvbWlzZSBhcyBleHBlY3RlZC4g";
        assert_eq!(stretch_class(text.as_bytes()), Some(EncodedText));
        // A pattern encoded ("01" repeated) repeats every four characters.
        assert_eq!(stretch_class("MDEwMTAx".repeat(20).as_bytes()), None);
        assert_eq!(stretch_class(format!("{random}{}", "A".repeat(8)).as_bytes()), None, "a run is not random");
        assert_eq!(stretch_class(b"3f2b1c4d-9e8a-4b7c-a1d2-0f9e8d7c6b5a"), Some(Hex));
        assert_eq!(stretch_class(b"da39a3ee5e6b4b0d3255bfef95601890afd80709"), Some(Hex));
        for word in ["ThisIsAVeryLongCamelCaseIdentifierName2", "internationalization_and_localization", "deadbeef"] {
            assert_eq!(stretch_class(word.as_bytes()), None, "{word}");
        }
    }

    #[test]
    fn stretches_are_counted_apart_and_prose_is_not() {
        let c = Counts::of(&"y".repeat(1000));
        assert_eq!((c.get(RunO200k), c.get(RunCl100k), c.get(Word), c.get(Letter)), (250, 250, 0, 0));
        let c = Counts::of(&format!("[{}] 45%", "#".repeat(100)));
        assert_eq!((c.get(RunO200k), c.get(Punct)), (3, 3), "two pieces of 64 and one more; `[`, `]` and `%` stay");
        let hashes = ["da39a3ee5e6b4b0d3255bfef95601890afd80709"; 4].join("\n");
        assert_eq!(Counts::of(&hashes).get(Hex), 160);
        let prose = "The quick brown fox jumps over the lazy dog; ".repeat(20);
        assert_eq!(Counts::of(&prose), Counts::scan(&prose));
    }
}
