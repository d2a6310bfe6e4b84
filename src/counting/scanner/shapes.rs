//! Text that is not prose: base64, hexadecimal, long numbers, runs of one character and box drawing, as
//! tool outputs carry them (encoded images and files, hashes and ids, bit strings, separators, progress
//! bars, tables). Read as prose they are far off: 30 KB of base64 about a third low, 100 000 `y` at 2
//! tokens instead of 25 000, 5 000 dashes six times high, a progress bar half its tokens for cl100k, a bit
//! string twice its tokens for claude. After the scan, text with few places where a word could start, or
//! where letters and digits alternate, is looked through for such stretches; each is taken out of the
//! scanner's classes and counted in its own (`Class::Encoded`, `EncodedText`, `Hex`, `HexDash`, `HexGroup`,
//! `Number`, `NumberDigit`, `RunO200k`, ...), whose costs are measured against the exact tokenizers
//! (`shapes_table.rs`). So are minified JSON's runs of marks (`":"`, `","`, `"},{"`): each mostly one token,
//! where the scanner's costs, fitted on the longer runs of code, made minified JSON 7–26% high; their cost is
//! fitted in context, so that it also makes up for the keys between them, which the scanner reads as code's
//! identifiers. Minified code's runs of marks (`){`, `});`, `=function(`) likewise: read as the scanner's
//! punctuation, fitted on code written with spaces, bundles were 4–23% high.

use crate::shapes_table::{RUN_LENGTH, RUN_PIECES, SYMBOL_RUNS};
use crate::{digit_groups, Class, Counts};
use std::ops::Range;

/// Stretches of the base64 alphabet shorter than this are words and ids, left to the scanner.
const MIN_ENCODED: usize = 32;
/// Hexadecimal stretches shorter than this are left to the scanner (`deadbeef`, short hashes).
const MIN_HEX: usize = 16;
/// Numbers shorter than this are left to the scanner (amounts, dates, phone numbers, 13-digit timestamps):
/// the short numbers of prose are what its digit costs were fitted on.
const MIN_NUMBER: usize = 16;
/// Rows of fewer hexadecimal groups than this are left to the scanner (`ab12 cd34`).
const MIN_HEX_GROUPS: usize = 4;
/// Runs of one letter, digit or space shorter than this are left to the scanner (indentation, `aaa`).
const MIN_RUN: usize = 64;
/// A run of one mark this long (`########`, `........` in a progress bar, `--------` in a table's
/// border) makes the marks around it counted piece by piece: read as one run of punctuation, a bar's
/// `[####....]` would be a token or two where the vocabularies take six (cl100k and claude weigh the
/// marks of a run at next to nothing, as code's `"},` and `->` are one token). Shorter runs are
/// left to the scanner (`...`, `----` in Markdown).
const MIN_MARK_RUN: usize = 8;
/// Text looked through: at least this long, and with at most one place where a word could start per this
/// many bytes (prose has one every six bytes or so, code every ten); text made of such stretches has few.
const MIN_TEXT: usize = 48;
const BYTES_PER_START: usize = 16;
/// Or, text with a piece of identifier or a group of digits (after a space or not) every this many bytes or
/// fewer (hashes have one every three): 4 of the corpus's 36 905 texts of 48 bytes or more that the word
/// starts leave out, and one more message with the groups after a space counted.
const BYTES_PER_ALTERNATION: usize = 4;
/// Minified code (`is_minified_code`): a line break per this many bytes at most...
const MINIFIED_LINE: usize = 200;
/// ...and a statement's end or a block's start per this many bytes at least.
const MINIFIED_STATEMENT: usize = 100;

/// The classes of `text`: the scanner's, and the stretches that are not prose counted apart.
pub fn classes_of(text: &str) -> Counts {
    let mut c = Counts::scan(text);
    if may_hold_shapes(&c, text.len()) {
        reshape(text, &mut c);
    }
    c
}

/// Whether text of `len` bytes, scanned into `c`, is worth looking through: long, and few words start in it,
/// or letters and digits alternate in it as in hashes and ids (`2b007cf0ba98…`: a piece of identifier and a
/// group of digits every few bytes), among words (`git log`'s lines, a listing of files named by hashes) or
/// apart (a hex dump's `7f45 4c46`, whose groups start with digits after spaces).
fn may_hold_shapes(c: &Counts, len: usize) -> bool {
    use Class::*;
    let starts: u32 =
        [Word, CommonWord, SpacedDigit, PunctAfterSpace, NewlineRun, NewlineAfterPunct].iter().map(|&k| c.get(k)).sum();
    let alternations = (c.get(IdentWord) + c.get(DigitGroup) + c.get(SpacedDigit)) as usize;
    len >= MIN_TEXT && (len >= BYTES_PER_START * (starts as usize + 1) || len <= BYTES_PER_ALTERNATION * alternations)
}

/// Bytes of the base64 alphabets (standard and URL-safe, with padding).
#[inline(always)] // called for every byte of a text that may hold shapes; a call each at `opt-level = "z"`
fn is_encoded_byte(b: u8) -> bool {
    ENCODED_BYTES[usize::from(b)]
}

/// `is_encoded_byte` as a table: one load per byte instead of five comparisons.
static ENCODED_BYTES: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        let byte = b as u8;
        table[b] = byte.is_ascii_alphanumeric() || matches!(byte, b'+' | b'/' | b'=' | b'-' | b'_');
        b += 1;
    }
    table
};

/// Finds the stretches that are not prose in `text` and counts them apart in `c`: base64 and
/// hexadecimal first, then runs of one character in the rest.
fn reshape(text: &str, c: &mut Counts) {
    let bytes = text.as_bytes();
    let mut encoded: Vec<Range<usize>> = Vec::new();
    let mut i = 0;
    // Most stretches are words, too short to be anything but prose: they are passed over unexamined.
    while i < bytes.len() {
        let alphabet = is_encoded_byte(bytes[i]);
        let end = i + bytes[i..].iter().take_while(|&&b| is_encoded_byte(b) == alphabet).count();
        if let Some(row) = alphabet.then(|| hex_groups(bytes, i, end)).flatten() {
            if row.dump {
                c.subtract(&Counts::scan(&text[i..row.end]));
                add(c, Class::Hex, row.digits);
                add(c, Class::HexGroup, row.groups);
                encoded.push(i..row.end);
            }
            // A row that is not a dump is passed over whole: its groups are too short to be anything but
            // prose, and looking at it again from each of them would take time quadratic in its length.
            i = row.end;
            continue;
        }
        // Shorter than `MIN_HEX` and `MIN_NUMBER` (`MIN_ENCODED` is longer), a stretch is prose.
        if alphabet && end - i >= MIN_HEX.min(MIN_NUMBER) {
            match stretch_class(&bytes[i..end]) {
                Some(class) => {
                    recount(&text[i..end], class, c);
                    encoded.push(i..end);
                }
                None => numbers(text, i, end, c, &mut encoded),
            }
        }
        i = end;
    }
    if may_hold_runs(c) {
        let code = is_minified_code(bytes);
        let mut from = 0;
        for stretch in encoded.iter().chain([&(bytes.len()..bytes.len())]) {
            runs(text, from, stretch.start, code, c);
            from = stretch.end;
        }
    }
}

/// Whether text scanned into `c` may hold a run `runs` counts apart, by what the scanner counted: a run
/// of one mark leaves as many `Punct`; box drawing is `Other`; a run of a letter, a digit or a space
/// leaves all but 8 of its letters long, a group per three digits, all but one space extra. Most CJK
/// text holds none, and is not walked again.
fn may_hold_runs(c: &Counts) -> bool {
    use Class::*;
    c.get(Punct) as usize >= MIN_MARK_RUN
        || c.get(Other) > 0
        || (c.get(LongLetter) + c.get(LongIdentLetter)) as usize >= MIN_RUN - 8
        || (c.get(DigitGroup) + c.get(SpacedDigit)) as usize >= MIN_RUN / 3
        || c.get(ExtraSpace) as usize >= MIN_RUN - 1
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

/// A row of hexadecimal groups written apart, and whether it is a dump's (`7f45 4c46 0201 0100`, `7f 45 4c 46`).
struct HexGroups {
    /// Where the row ends, or for a row that is not a dump's, where reading goes on.
    end: usize,
    groups: usize,
    digits: usize,
    dump: bool,
}

/// The row of hexadecimal groups that starts with the stretch `bytes[at..end]`, if one can start there (after
/// a space or a line break, 2 to 8 digits): the groups as wide as the first that follow (the last of a dump
/// may be narrower), one or two spaces apart. A dump's row has `MIN_HEX_GROUPS` or more, of one letter case,
/// with a letter in one at least and a digit in most. A table of numbers has no letters; words made of the
/// letters a to f (`a bad cafe`) have no digits. The vocabularies cut each group apart; read as prose, groups
/// of mixed letters and digits cost claude a sixth too much.
fn hex_groups(bytes: &[u8], at: usize, end: usize) -> Option<HexGroups> {
    let width = end - at;
    if !(2..=8).contains(&width) || at > 0 && !bytes[at - 1].is_ascii_whitespace() {
        return None;
    }
    let (mut row, mut with_digit, mut lower, mut upper) =
        (HexGroups { end: at, groups: 0, digits: 0, dump: false }, 0, false, false);
    let mut i = at;
    let mut full_end = at; // the end of the last group as wide as the first
    loop {
        let n = bytes[i..].iter().take_while(|b| b.is_ascii_hexdigit()).count();
        if n == 0 || n > width || !matches!(bytes.get(i + n), None | Some(b' ' | b'\n' | b'\r' | b'\t')) {
            break;
        }
        let group = &bytes[i..i + n];
        with_digit += usize::from(group.iter().any(u8::is_ascii_digit));
        lower |= group.iter().any(u8::is_ascii_lowercase);
        upper |= group.iter().any(u8::is_ascii_uppercase);
        row = HexGroups { end: i + n, groups: row.groups + 1, digits: row.digits + n, dump: false };
        if n == width {
            full_end = row.end;
        }
        let spaces = bytes[row.end..].iter().take_while(|&&b| b == b' ').count();
        if n < width || !(1..=2).contains(&spaces) {
            break;
        }
        i = row.end + spaces;
    }
    row.dump = row.groups >= MIN_HEX_GROUPS && lower != upper && with_digit * 2 >= row.groups;
    if !row.dump {
        // Passed over up to its last group as wide as the first: a narrower one may start a row of its own
        // (`00000010  03 00 3e`: an offset, then the bytes).
        row.end = full_end;
    }
    (row.end > at).then_some(row) // a stretch of other letters (`zz12`) starts none
}

/// Counts the long numbers of `text[from..to]` apart, by their groups of three digits and their digits,
/// and adds them to `found`: runs of `MIN_NUMBER` digits or more, wherever they are in the stretch
/// (`0110…///PROCESS-DONE`, `id_20240101123456789`): the vocabularies cut digits from the letters and
/// marks beside them.
fn numbers(text: &str, from: usize, to: usize, c: &mut Counts, found: &mut Vec<Range<usize>>) {
    let bytes = text.as_bytes();
    let mut i = from;
    while i < to {
        let n = bytes[i..to].iter().take_while(|b| b.is_ascii_digit()).count();
        // One digit repeated (`000…`) is a run, which `runs` cuts as the vocabularies do.
        if n >= MIN_NUMBER && !(n >= MIN_RUN && same_bytes(&bytes[i..i + n]) == n) {
            let binary = bytes[i..i + n].iter().all(|&b| b <= b'1');
            recount(&text[i..i + n], if binary { Class::BinaryDigit } else { Class::NumberDigit }, c);
            add(c, Class::Number, digit_groups(n));
            found.push(i..i + n);
        }
        i += n.max(1);
    }
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

/// Whether base64 `s` encodes text: its first 48 bytes decode to printable ASCII, tabs and line breaks,
/// read from its start or from one of the next three bytes. A stretch may start before its first group
/// of four: base64 in an escaped string (`…ZC4g\nVGhl…`) starts each line's stretch with the `n` of
/// `\n`.
fn encodes_text(s: &[u8]) -> bool {
    (0..4).any(|skip| s.get(skip..).is_some_and(decodes_to_text))
}

/// Whether base64 `s`, read from its start, decodes to printable text (`encodes_text`).
fn decodes_to_text(s: &[u8]) -> bool {
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
    add(c, class, stretch.len() - dashes);
    add(c, Class::HexDash, dashes);
}

/// Adds `n` to `class` in `c`.
fn add(c: &mut Counts, class: Class, n: usize) {
    c.0[class as usize] = c.0[class as usize].saturating_add(n.min(u32::MAX as usize) as u32);
}

/// Counts the runs of one character in `text[from..to]` by how each vocabulary cuts them, instead of as
/// the scanner read them: a run of a letter, a digit or a space of `MIN_RUN` or more alone; a run of
/// marks holding a run of one mark of `MIN_MARK_RUN` or more with all its marks, each run of one mark
/// in its pieces (`[`, `####`, `....`, `]`); each run of a symbol of `SYMBOL_RUNS` (`┌`, `──────`,
/// `██████`) alone: the scanner costs every symbol alike, where a vocabulary holds 16 `─` in a token and
/// cuts a `┌` in two. Any other run of JSON's marks (`is_json_marks`) is one `JsonMarks`, and in minified
/// code (`code`) any other run of two marks or more one `CodeMarks`.
fn runs(text: &str, from: usize, to: usize, code: bool, c: &mut Counts) {
    let bytes = text.as_bytes();
    let mut i = from;
    while i < to {
        let b = bytes[i];
        if is_mark(b) {
            let end = i + bytes[i..to].iter().take_while(|&&b| is_mark(b)).count();
            let in_pieces = end - i >= MIN_MARK_RUN && marks(text, i, end, c);
            let run = &bytes[i..end];
            let class = if in_pieces {
                None // counted by `marks`
            } else if is_json_marks(run) {
                Some(Class::JsonMarks)
            } else if code && run.len() >= 2 {
                Some(Class::CodeMarks)
            } else {
                None
            };
            if let Some(class) = class {
                c.subtract(&Counts::scan(&text[i..end]));
                add(c, class, 1);
            }
            i = end;
        } else if b.is_ascii() {
            // A run of `MIN_RUN` starting here has the same byte `MIN_RUN - 1` further: one compare for most.
            let n = if bytes.get(i + MIN_RUN - 1) == Some(&b) { same_bytes(&bytes[i..to]) } else { 1 };
            if n >= MIN_RUN && (b == b' ' || b.is_ascii_alphanumeric()) {
                c.subtract(&Counts::scan(&text[i..i + n]));
                add_ascii_run(b, n, c);
            }
            i += n;
        } else if b == 0xE2 && matches!(bytes.get(i + 1), Some(0x94..=0x96)) {
            // All of `SYMBOL_RUNS` are box drawing and block elements, U+2500 to U+259F: E2 94 80 to
            // E2 96 9F in UTF-8.
            i = symbols(text, i, to, c);
        } else {
            // Any other character (CJK text) is passed over whole: its first byte says its length.
            i += match b {
                0xF0.. => 4,
                0xE0.. => 3,
                _ => 2,
            };
        }
    }
}

/// Whether `bytes` reads as minified code: long lines (a line break per `MINIFIED_LINE` bytes at most, and
/// one line at least as long) and statements run together (a `;` or a `){` per `MINIFIED_STATEMENT` bytes
/// at least), as bundles are written and neither JSON nor prose is (a one-line `python -c "a; b"` is too
/// short).
fn is_minified_code(bytes: &[u8]) -> bool {
    if bytes.len() < MINIFIED_LINE {
        return false;
    }
    let mut breaks = 0;
    let mut statements = 0;
    for (k, &b) in bytes.iter().enumerate() {
        match b {
            b'\n' => breaks += 1,
            b';' => statements += 1,
            b'{' if k > 0 && bytes[k - 1] == b')' => statements += 1,
            _ => {}
        }
    }
    breaks * MINIFIED_LINE <= bytes.len() && statements * MINIFIED_STATEMENT >= bytes.len()
}

/// `u8::is_ascii_punctuation`, which `opt-level = "z"` leaves a call for every byte.
#[inline(always)]
fn is_mark(b: u8) -> bool {
    matches!(b, b'!'..=b'/' | b':'..=b'@' | b'['..=b'`' | b'{'..=b'~')
}

/// How many bytes `bytes` starts with that are its first.
fn same_bytes(bytes: &[u8]) -> usize {
    bytes.iter().take_while(|&&x| x == bytes[0]).count()
}

/// Whether a run of marks is JSON's between a key and a value, or a value and the next key (`":"`,
/// `","`, `"}],"`): two or more, all of `"{}[]:,`. Read as punctuation, each would cost as much as code's
/// longer runs; in minified JSON each is mostly one token.
fn is_json_marks(run: &[u8]) -> bool {
    run.len() >= 2 && run.iter().all(|b| matches!(b, b'"' | b'{' | b'}' | b'[' | b']' | b':' | b','))
}

/// Counts the marks `text[from..to]` in pieces, each run of one mark apart, when one of the runs is
/// `MIN_MARK_RUN` or longer; returns whether it did.
fn marks(text: &str, from: usize, to: usize, c: &mut Counts) -> bool {
    let bytes = &text.as_bytes()[from..to];
    let mut lengths = Vec::new();
    let mut k = 0;
    while k < bytes.len() {
        let n = same_bytes(&bytes[k..]);
        lengths.push((bytes[k], n));
        k += n;
    }
    let runs = lengths.iter().any(|&(_, n)| n >= MIN_MARK_RUN);
    if runs {
        c.subtract(&Counts::scan(&text[from..to]));
        for (b, n) in lengths {
            add_ascii_run(b, n, c);
        }
    }
    runs
}

/// Counts the run of the symbol at `text[at..]` by its pieces when it is one of `SYMBOL_RUNS`; returns
/// where the run, or the character, ends.
fn symbols(text: &str, at: usize, to: usize, c: &mut Counts) -> usize {
    let Some(ch) = text[at..to].chars().next() else { return to };
    let Some(run) = SYMBOL_RUNS.iter().find(|s| s.symbol == ch) else {
        return at + ch.len_utf8();
    };
    let n = text[at..to].chars().take_while(|&x| x == ch).count();
    let end = at + n * ch.len_utf8();
    c.subtract(&Counts::scan(&text[at..end]));
    add_run(run.one, run.longest, run.pieces, n, c);
    end
}

/// Adds the tokens of a run of `n` of the printable ASCII character `b` (`add_run`).
fn add_ascii_run(b: u8, n: usize, c: &mut Counts) {
    let at = usize::from(b - 0x20);
    add_run([1; 3], RUN_LENGTH.map(|t| t[at]), RUN_PIECES.map(|t| t[at]), n, c);
}

/// Adds the tokens of a run of `n` of one character for each vocabulary, given the character's longest
/// piece and its pieces of 1 to 32 in each: the longest piece as often as it fits, then powers of two
/// from 64 down past 32, then the longest of the pieces of 1 to 32 characters it holds, greedily; `one`,
/// the tokens of the character alone, is 1 but for symbols a vocabulary cuts.
fn add_run(one: [u8; 3], longest: [u16; 3], pieces: [u32; 3], n: usize, c: &mut Counts) {
    for (t, class) in [Class::RunO200k, Class::RunCl100k, Class::RunClaude].into_iter().enumerate() {
        let longest = usize::from(longest[t].max(1));
        let mut tokens = n / longest;
        let mut rest = n % longest;
        let mut piece = longest / 2;
        while piece > 32 {
            tokens += rest / piece;
            rest %= piece;
            piece /= 2;
        }
        let pieces = pieces[t] | 1;
        while rest > 0 {
            // The longest piece of at most `rest` (and 32) characters: the highest bit set at or below.
            let within = if rest >= 32 { pieces } else { pieces & ((1u32 << rest) - 1) };
            rest -= 32 - within.leading_zeros() as usize;
            tokens += 1;
        }
        // A character of two or three tokens has no longer pieces: each costs that many.
        tokens *= usize::from(one[t]);
        add(c, class, tokens);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Class::*;

    #[test]
    fn marks_are_the_ascii_punctuation() {
        assert!((0..=u8::MAX).all(|b| is_mark(b) == b.is_ascii_punctuation()));
    }

    #[test]
    fn base64_and_hex_are_told_from_words_and_identifiers() {
        let png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg";
        assert_eq!(stretch_class(png.as_bytes()), Some(Encoded));
        let random = "q3Zr8TfLw0pX2mN7bV4cK9sJ1hG6dY5eR+o/uB3iW8aZ";
        assert_eq!(stretch_class(random.as_bytes()), Some(Encoded));
        // "Evil Corp, we have delivered on our promise as expected. " in base64.
        let text = "RXZpbCBDb3JwLCB3ZSBoYXZlIGRlbGl2ZXJlZCBvbiBvdXIgcHJvbWlzZSBhcyBleHBlY3RlZC4g";
        assert_eq!(stretch_class(text.as_bytes()), Some(EncodedText));
        assert_eq!(stretch_class(format!("n{text}").as_bytes()), Some(EncodedText), "after an escaped `\\n`");
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
    fn long_numbers_are_told_from_short_ones_and_bits_from_digits() {
        // Runs of eight alike are usual in bits; marks glued after them (`///`) are the base64 alphabet's.
        let bits = "0110100001100101011011000110110001101111000000001111111100100000";
        let c = classes_of(&format!("flag: {bits}///PROCESS-DONE\n"));
        assert_eq!((c.get(Number), c.get(BinaryDigit), c.get(Digit), c.get(DigitGroup)), (22, 64, 0, 0));
        assert_eq!(c.get(SpacedDigit), 1, "the space before it is still a token of its own");
        let zeros = classes_of(&"0".repeat(1000));
        assert_eq!((zeros.get(Number), zeros.get(RunClaude)), (0, 31 + 1), "claude: 31 pieces of 32 zeros, one of 8");
        let c = classes_of("pi=31415926535897932384;  t=1700000000000;  id=x14159265358979323846y;");
        assert_eq!(
            (c.get(Number), c.get(NumberDigit), c.get(BinaryDigit)),
            (7 + 7, 40, 0),
            "a timestamp is the scanner's"
        );
        assert_eq!(c.get(Digit), 13);
    }

    #[test]
    fn stretches_are_counted_apart_and_prose_is_not() {
        let c = classes_of(&"y".repeat(1000));
        assert_eq!((c.get(RunO200k), c.get(RunCl100k), c.get(Word), c.get(Letter)), (250, 250, 0, 0));
        let c = classes_of(&format!("[{}] 45%", "#".repeat(100)));
        assert_eq!(
            (c.get(RunO200k), c.get(Punct)),
            (5, 1),
            "`[`, 64, 32 and 4 `#`, `]`, as o200k cuts them; `%` stays"
        );
        let hashes = ["da39a3ee5e6b4b0d3255bfef95601890afd80709"; 4].join("\n");
        assert_eq!(classes_of(&hashes).get(Hex), 160);
        // Among words (a word start every 11 bytes), hashes are still found: letters and digits alternate.
        let log = ["da39a3ee5e6b4b0d3255bfef95601890afd80709 Fix parser case 12"; 4].join("\n");
        assert_eq!(classes_of(&log).get(Hex), 160);
        // A UUID's dashes are counted apart: a vocabulary seldom merges them with the digits around them.
        let uuids = classes_of(&["3f2b1c4d-9e8a-4b7c-a1d2-0f9e8d7c6b5a"; 4].join("\n"));
        assert_eq!((uuids.get(Hex), uuids.get(HexDash)), (128, 16));
        let prose = "The quick brown fox jumps over the lazy dog; ".repeat(20);
        assert_eq!(classes_of(&prose), Counts::scan(&prose));
    }

    #[test]
    fn a_dumps_groups_of_hex_digits_are_counted_by_the_group() {
        // xxd: eight groups of four a line; the offsets and the ASCII column stay the scanner's.
        let xxd = ["00000010: dbf8 bb5e 76ea 6555 7f80 54c8 16b9 fc3c  ................"; 3].join("\n");
        let c = classes_of(&xxd);
        assert_eq!((c.get(HexGroup), c.get(Hex)), (24, 96));
        // hexdump -C: sixteen groups of two, two spaces in the middle; the last line's row is shorter.
        let hexdump = "00000000  7f 45 4c 46 02 01 01 00  00 00 00 00 00 00 00 00  |.ELF............|\n\
                       00000010  03 00 3e 00 01 00 00 00  |..>.....|";
        let c = classes_of(hexdump);
        assert_eq!((c.get(HexGroup), c.get(Hex)), (24, 48));
        assert_eq!(classes_of(&"AB12 CD34 EF56 0A1B ".repeat(4)).get(HexGroup), 16, "upper case");
        // Not dumps: a table of numbers (no letter), words of the letters a to f (no digits), too few
        // groups, both cases, groups too wide, a group glued to a mark.
        for text in [
            "years 2021 2022 2023 2024 2025 2026 and so on, in a long enough line of text",
            "a bad cafe faced a dead bead, added decade fee: bad face fade abbe cede dace",
            "commits ab12 cd34 then nothing else of the kind in the rest of this long line",
            "mixed aB12 Cd34 eF56 0a1B aB12 Cd34 eF56 0a1B aB12 Cd34 eF56 0a1B aB12 Cd34",
            "wide 0123456789ab 0123456789ab 0123456789ab 0123456789ab 0123456789ab 01234",
            "call f(ab12, cd34, ef56, 0a1b, ab12, cd34, ef56, 0a1b) again and again here",
        ] {
            assert_eq!(classes_of(text).get(HexGroup), 0, "{text}");
        }
        // A row that is not a dump is passed over whole, its lower-case end too: looked at again from each
        // group, a long row took time quadratic in its length (160 000 groups: 267 s).
        let row = format!("1A2B {}", "1a2b ".repeat(8));
        assert_eq!(classes_of(&row).get(HexGroup), 0);
        let long = format!("{}1A2B", "1a2b ".repeat(200_000)); // milliseconds read once; hours read quadratically
        assert_eq!(classes_of(&long).get(HexGroup), 0);
    }

    #[test]
    fn minified_json_runs_of_marks_are_counted_apart() {
        let json = r#"[{"id":7,"tags":["a","b"],"ok":true},{"id":8,"price":1.5,"note":"x-y"}]"#.repeat(3);
        let c = classes_of(&json);
        // Per copy: `[{"`, `":`, `,"`, `":["`, `","`, `"],"`, `":`, `},{"`, `":`, `,"`, `":`, `,"`,
        // `":"`, `"}]`; `-` is one mark alone, and `"}][{"` where the copies meet is one run.
        assert_eq!(c.get(JsonMarks), 14 * 3 - 2);
        assert_eq!(c.get(Punct), 6, "a number's `.` and a value's `-` stay punctuation");
        // Spaced JSON has words at every other place: it is read as the scanner reads it.
        let spaced = r#"{"id": 7, "tags": ["a", "b"], "ok": true} "#.repeat(6);
        assert_eq!(classes_of(&spaced), Counts::scan(&spaced));
    }

    #[test]
    fn minified_codes_runs_of_marks_are_counted_apart() {
        let bundle = (0..40)
            .map(|i| format!("function f{i}(a,b){{return a+b*{i}}}if(x{i}>10){{g(\"v\",x{i})}}"))
            .collect::<String>();
        let c = classes_of(&bundle);
        // Per function, the runs of two marks or more: `){`, `){`, `("`, `)}` are one `CodeMarks` each, `",` is
        // JSON's (`JsonMarks`); the single marks (`(`, `,`, `+`, `*`, `}`, `>`) stay the scanner's.
        assert_eq!(c.get(CodeMarks), 4 * 40);
        assert_eq!(c.get(JsonMarks), 40);
        // Not minified code: the same written line by line, minified JSON, a short command, prose with
        // semicolons.
        let lines = bundle.replace('}', "}\n");
        let json = r#"[{"id":7,"tags":["a","b"],"ok":true},{"id":8,"price":1.5,"note":"x-y"}]"#.repeat(5);
        let command = r#"{"command": "python -c \"import ast; print(ast.dump(ast.parse('Tuple[()]')))\""}"#;
        let prose = "First; second; third; and so on (in brackets); until the line is long enough. ".repeat(4);
        for text in [&lines, &json, command, &prose] {
            assert_eq!(classes_of(text).get(CodeMarks), 0, "{text}");
        }
    }

    #[test]
    fn a_progress_bar_is_counted_in_the_pieces_the_vocabularies_cut() {
        // o200k and cl100k: `[`, `########`, `##`, 24 dots, 6 dots, `]` (then ` 25%`, left to the scanner).
        let bar = format!("[{}{}] 25%\r", "#".repeat(10), ".".repeat(30)).repeat(4);
        let c = classes_of(&bar);
        assert_eq!((c.get(RunO200k), c.get(RunCl100k)), (4 * 6, 4 * 6));
        // Marks without a long run of one of them stay the scanner's (`"},{"`, `->`, `...`).
        let json = r#"[{"a":1},{"b":2},{"c":3}]"#.repeat(8);
        assert_eq!(classes_of(&json).get(RunO200k), 0);
    }

    #[test]
    fn box_drawing_lines_are_counted_in_their_pieces() {
        // 60 `─`: 16 + 16 + 16 + 8 + 4 in o200k; each corner two tokens, each side one.
        let table = format!("┌{}┐\n│{}│\n└{}┘\n", "─".repeat(60), " ".repeat(60), "─".repeat(60));
        let c = classes_of(&table);
        assert_eq!(c.get(RunO200k), 2 * 5 + 4 * 2 + 2);
        assert_eq!(c.get(Other), 0);
    }

    #[test]
    fn a_run_is_cut_into_the_longest_pieces_first() {
        let tokens = |b: u8, n: usize| {
            let mut c = Counts::default();
            add_ascii_run(b, n, &mut c);
            (c.get(RunO200k), c.get(RunCl100k), c.get(RunClaude))
        };
        // 106 `#`: 64 + 32 + 8 + 2 for o200k and cl100k, 64 + 32 + 10 for claude, whose vocabulary holds 10.
        assert_eq!(tokens(b'#', 106), (4, 4, 3));
        assert_eq!(tokens(b'#', 1), (1, 1, 1));
        // 4 000 spaces: 31 pieces of 128 and one of 32 (o200k); claude holds 1 024 spaces whole.
        assert_eq!(tokens(b' ', 4000).0, 31 + 1);
        assert_eq!(tokens(b' ', 4000).2, 3 + 4, "3 × 1 024, then 512, 256, 128 and 32");
    }
}
