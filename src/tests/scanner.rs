//! The fast scanner (`ctxfold::counting::scanner::Counts::add_scan`) counts exactly what the plain reference
//! scanner (scanner_reference.rs, the classes' specification) counts: on every text of the corpus and on
//! generated text mixing every class, its seams and the bytes that are neither (controls, `\r`).

#[path = "corpus_files.rs"]
mod corpus_files;
#[path = "scanner_reference.rs"]
mod reference;

use ctxfold::counting::scanner::{Counts, CLASS_NAMES};
use proptest::prelude::*;
use serde_json::Value;

/// The classes that differ, by name, for a readable failure.
fn differences(text: &str, fast: &Counts, reference: &[u32]) -> String {
    let diffs: Vec<String> = CLASS_NAMES
        .iter()
        .zip(fast.0.iter().zip(reference))
        .filter(|(_, (a, b))| a != b)
        .map(|(name, (a, b))| format!("{name}: fast {a}, reference {b}"))
        .collect();
    let shown: String = text.chars().take(200).collect();
    format!("{} in {shown:?}", diffs.join(", "))
}

fn strings_of(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.push(s.clone()),
        Value::Array(a) => a.iter().for_each(|x| strings_of(x, out)),
        Value::Object(o) => o.values().for_each(|x| strings_of(x, out)),
        _ => {}
    }
}

#[test]
fn every_corpus_text_counts_as_the_reference_counts() {
    let mut texts = 0;
    for file in corpus_files::corpus_names() {
        for (_, messages) in corpus_files::corpus(&file) {
            let mut strings = Vec::new();
            messages.iter().for_each(|m| strings_of(m, &mut strings));
            // Text by text, and added up into one `Counts` as a message's pieces are.
            let mut fast_sum = Counts::default();
            let mut reference_sum = [0u32; ctxfold::counting::scanner::CLASS_COUNT];
            for s in &strings {
                let fast = Counts::scan(s);
                let expected = reference::of(s);
                assert_eq!(fast.0, expected, "{file}: {}", differences(s, &fast, &expected));
                fast_sum.add_scan(s);
                reference::add_text(&mut reference_sum, s);
                texts += 1;
            }
            assert_eq!(fast_sum.0, reference_sum, "{file}: the sum over a conversation");
        }
    }
    assert!(texts > 50_000, "the corpus was read whole ({texts} texts)");
}

/// Characters from every class and the boundaries between them: ASCII letters of both cases, digits,
/// spaces, tabs, newlines, `\r` and other controls, punctuation, accented and Greek/Cyrillic letters,
/// the three ideograph frequencies, extension ideographs (4 bytes), kana, half-width kana, Hangul,
/// CJK and full-width punctuation, emoji and what joins them, other scripts and symbols.
fn any_char() -> impl Strategy<Value = char> {
    prop_oneof![
        8 => prop::char::range('a', 'z'),
        3 => prop::char::range('A', 'Z'),
        3 => prop::char::range('0', '9'),
        3 => prop::sample::select(vec![' ', ' ', '\t', '\n', '\n', '\r', '\u{0}', '\u{1b}', '\u{7f}']),
        4 => prop::char::range('!', '/'),
        2 => prop::sample::select(vec![':', ';', '<', '=', '>', '?', '@', '[', '\\', ']', '^', '_', '`', '{', '|', '}', '~']),
        2 => prop::char::range('\u{80}', '\u{52f}'),
        3 => prop::char::range('\u{4e00}', '\u{9fff}'),
        1 => prop::sample::select(vec!['的', '是', '不', '了', '人', '我', '在', '有', '他', '这']),
        1 => prop::char::range('\u{3400}', '\u{4dbf}'),
        1 => prop::char::range('\u{20000}', '\u{2a6df}'),
        2 => prop::char::range('\u{3000}', '\u{30ff}'),
        1 => prop::char::range('\u{ff00}', '\u{ffef}'),
        1 => prop::char::range('\u{ac00}', '\u{d7af}'),
        1 => prop::char::range('\u{1100}', '\u{11ff}'),
        1 => prop::char::range('\u{1f000}', '\u{1faff}'),
        1 => prop::sample::select(vec!['\u{200d}', '\u{fe0f}', '…', '—', '→', '│', '☀', '✅', '\u{e000}', '\u{10ffff}']),
        1 => any::<char>(),
    ]
}

/// Plain ASCII only (no control), as most of a conversation is: what the scanner takes up to 48 bytes at a
/// time, so every seam between classes falls inside its widest chunks and across them.
fn plain_ascii_char() -> impl Strategy<Value = char> {
    prop_oneof![
        8 => prop::char::range('a', 'z'),
        2 => prop::char::range('A', 'Z'),
        2 => prop::char::range('0', '9'),
        3 => prop::sample::select(vec![' ', ' ', '\t', '\n']),
        2 => prop::char::range('!', '/'),
        1 => prop::sample::select(vec![':', ';', '=', '[', ']', '_', '{', '}']),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4000, ..ProptestConfig::default() })]

    #[test]
    fn plain_ascii_counts_as_the_reference_counts(parts in prop::collection::vec((plain_ascii_char(), 1usize..12), 0..60)) {
        let text: String = parts.into_iter().flat_map(|(c, n)| std::iter::repeat_n(c, if c.is_ascii_lowercase() { n } else { n.min(3) })).collect();
        let fast = Counts::scan(&text);
        let expected = reference::of(&text);
        prop_assert_eq!(fast.0, expected, "{}", differences(&text, &fast, &expected));
    }

    #[test]
    fn generated_text_counts_as_the_reference_counts(chars in prop::collection::vec(any_char(), 0..200)) {
        let text: String = chars.into_iter().collect();
        let fast = Counts::scan(&text);
        let expected = reference::of(&text);
        prop_assert_eq!(fast.0, expected, "{}", differences(&text, &fast, &expected));
    }

    #[test]
    fn arbitrary_strings_count_as_the_reference_counts(text in any::<String>()) {
        let fast = Counts::scan(&text);
        let expected = reference::of(&text);
        prop_assert_eq!(fast.0, expected, "{}", differences(&text, &fast, &expected));
    }

    /// Long runs: words past 8 letters, digit runs past 3, indentation, punctuation and ideograph runs.
    #[test]
    fn long_runs_count_as_the_reference_counts(parts in prop::collection::vec((any_char(), 1usize..40), 0..12)) {
        let text: String = parts.into_iter().flat_map(|(c, n)| std::iter::repeat_n(c, n)).collect();
        let fast = Counts::scan(&text);
        let expected = reference::of(&text);
        prop_assert_eq!(fast.0, expected, "{}", differences(&text, &fast, &expected));
    }

    /// Common words and others in a row, controls put into some of them: the counts are the reference's,
    /// and those of the same text without the controls (a control counts for nothing and ends no run).
    #[test]
    fn words_with_controls_inside_count_as_without(parts in prop::collection::vec((
        prop::sample::select(vec!["the", "The", "quick", "file", "is", "zebra", "theory", "x", "internationalization"]),
        prop::sample::select(vec![" ", "  ", "\n", ". ", "\r\n", "é ", "’ ", "\t"]),
        prop::option::of((any::<prop::sample::Index>(), prop::sample::select(vec!['\u{1}', '\u{1b}', '\u{7f}']))),
    ), 0..40)) {
        let (mut text, mut clean) = (String::new(), String::new());
        for (word, separator, control) in parts {
            clean.push_str(word);
            match control {
                Some((at, control)) => {
                    let at = at.index(word.len() + 1);
                    text.push_str(&word[..at]);
                    text.push(control);
                    text.push_str(&word[at..]);
                }
                None => text.push_str(word),
            }
            text.push_str(separator);
            clean.push_str(separator);
        }
        let fast = Counts::scan(&text);
        let expected = reference::of(&text);
        prop_assert_eq!(fast.0, expected, "{}", differences(&text, &fast, &expected));
        prop_assert_eq!(fast, Counts::scan(&clean), "{:?}", text);
    }
}
