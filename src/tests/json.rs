//! `ctxfold::json::parse` against `serde_json::from_str::<Value>`, which it replaces in the wasm: the
//! same value (written out, so `-0.0` and `0.0` differ) or the same error message, with its position,
//! for every line of the corpus, every message and tool-call argument in it, hand-picked edge cases
//! and mangled JSON. And `ctxfold::json`'s `Value` writer against `serde_json::to_string`, on the
//! corpus's messages and on generated values; and a written history taken back (`edit::reread`)
//! against reading its whole text.

mod corpus_files;

use ctxfold::edit::{items_of, materialize_text, reread, FieldEdit, Key, Slot};
use ctxfold::json;
use proptest::prelude::*;
use serde_json::Value;

/// What a reader made of `text`: the value written compactly, or the error message.
fn outcome<E: ToString>(result: Result<Value, E>) -> Result<String, String> {
    result.map(|v| serde_json::to_string(&v).unwrap()).map_err(|e| e.to_string())
}

fn assert_same(text: &str) {
    let ours = outcome(json::parse(text));
    let serde = outcome(serde_json::from_str::<Value>(text));
    assert_eq!(ours, serde, "for {text:?}");
}

#[test]
fn same_as_serde_json_on_the_corpus() {
    let mut texts = 0;
    for name in corpus_files::corpus_names() {
        for line in corpus_files::corpus_text(&name).lines() {
            assert_same(line);
            texts += 1;
            let conversation: Value = serde_json::from_str(line).unwrap();
            for message in conversation["messages"].as_array().into_iter().flatten() {
                // Each message as the package reads it (JSON.stringify's compact text), and every
                // string in it that may itself be JSON (tool-call arguments, tool output).
                assert_same(&serde_json::to_string(message).unwrap());
                assert_eq!(
                    json::to_text(message),
                    serde_json::to_string(message).unwrap(),
                    "written as serde_json writes it"
                );
                let mut stack = vec![message];
                while let Some(v) = stack.pop() {
                    match v {
                        Value::String(s) => assert_same(s),
                        Value::Array(items) => stack.extend(items),
                        Value::Object(members) => stack.extend(members.values()),
                        _ => {}
                    }
                    texts += 1;
                }
            }
        }
    }
    assert!(texts > 100_000, "read the whole corpus ({texts} texts)");
}

#[test]
fn same_as_serde_json_on_edge_cases() {
    let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
    let deep_objects = |n: usize| format!("{}1{}", "{\"a\":".repeat(n), "}".repeat(n));
    let cases = [
        // Numbers: integers at and past u64/i64, `-0`, fractions and exponents at f64's limits.
        "0",
        "-0",
        "-0.0",
        "1",
        "-1",
        "18446744073709551615",
        "18446744073709551616",
        "-9223372036854775808",
        "-9223372036854775809",
        "123456789012345678901234567890",
        "1234567890123456789012.5e-3",
        "0.1",
        "0.30000000000000004",
        "1e308",
        "1e309",
        "-1e309",
        "1.7976931348623157e308",
        "1.8e308",
        "1e-308",
        "5e-324",
        "2e-324",
        "1e-400",
        "-1e-400",
        "0e999999999999",
        "1e999999999999",
        "1e-999999999999",
        "-1e+2",
        "1E2",
        "1.5E-2",
        "184467440737095516151.5",
        "0.18446744073709551615123",
        "12345678901234567890.12345678901234567890e10",
        &format!("1{}", "0".repeat(400)),
        &format!("0.{}1", "0".repeat(400)),
        &format!("1{}e-380", "0".repeat(400)),
        // Malformed numbers.
        "01",
        "-",
        "-a",
        "1.",
        "1.e5",
        ".5",
        "1e",
        "1e+",
        "1ea",
        "+1",
        "1.5.5",
        "--1",
        "0x10",
        "1 2",
        "[1.]",
        "[-]",
        "[1e]",
        // Words.
        "null",
        "true",
        "false",
        "nul",
        "tru",
        "fals",
        "nulx",
        "truth",
        "n",
        "NaN",
        "Infinity",
        // Strings and escapes.
        r#""""#,
        r#""a""#,
        r#""\"\\\/\b\f\n\r\t""#,
        r#""\u0041\u00e9\u4e2d""#,
        r#""\ud83d\ude00""#,
        r#""\uD83D\uDE00""#,
        r#""\ud800""#,
        r#""\ud800x""#,
        r#""\ud800\n""#,
        r#""\ud800\u0041""#,
        r#""\udc00""#,
        r#""\ud800\ud800""#,
        r#""\u12""#,
        r#""\u12g4""#,
        r#""\x""#,
        r#""\"#,
        r#""abc"#,
        "\"a\u{1}b\"",
        "\"tab\there\"",
        "\"é中😀\"",
        r#""\u0000""#,
        "\"0123456789abcdef\\n0123456789abcdef\\\"x\"",
        "\"long plain text with no escapes at all, more than eight bytes\"",
        // Containers.
        "[]",
        "{}",
        "[1,2,3]",
        "[1,]",
        "[,1]",
        "[1 2]",
        "[",
        "[1",
        "[1,",
        "{\"a\":1,}",
        "{,}",
        "{\"a\"}",
        "{\"a\" 1}",
        "{\"a\":}",
        "{1:2}",
        "{\"a\":1 \"b\":2}",
        "{\"a\":1,\"a\":2}",
        "{\"b\":1,\"a\":2}",
        "{",
        "{\"a\"",
        "{\"a\":",
        "{\"a\":1",
        "{\"a\":1,",
        "[1]]",
        "{}}",
        " [ 1 , { \"k\" : [ ] } ] ",
        "\n\n  [1,\n  x]",
        "\r\n{\"a\":\n\n!}",
        // Whitespace and ends.
        "",
        " ",
        "\n",
        "  1  ",
        "1 x",
        "[] []",
        "\u{feff}1",
        &deep(127),
        &deep(128),
        &deep(500),
        &deep_objects(127),
        &deep_objects(128),
        &format!("[{}]", deep(127)),
    ];
    for text in cases {
        assert_same(text);
    }
}

/// JSON-ish text from pieces that exercise every branch, mangled by dropping or inserting bytes.
fn mangled() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("["),
        Just("]"),
        Just("{"),
        Just("}"),
        Just(","),
        Just(":"),
        Just(" "),
        Just("\n"),
        Just("\""),
        Just("\\"),
        Just("\"k\":"),
        Just("\"text\""),
        Just("\\u"),
        Just("d83d"),
        Just("\\ude00"),
        Just("00e9"),
        Just("-"),
        Just("0"),
        Just("1"),
        Just("9"),
        Just("."),
        Just("e"),
        Just("E+"),
        Just("-5"),
        Just("1844674407370955161"),
        Just("99999"),
        Just("null"),
        Just("tru"),
        Just("e"),
        Just("\u{1}"),
        Just("é"),
        Just("中"),
        Just("\\n"),
        Just("x"),
    ];
    prop::collection::vec(piece, 0..40).prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 20_000, ..ProptestConfig::default() })]

    #[test]
    fn same_as_serde_json_on_mangled_text(text in mangled()) {
        assert_same(&text);
    }

    #[test]
    fn same_as_serde_json_on_numbers(int in "-?(0|[1-9][0-9]{0,30})", frac in "(\\.[0-9]{1,30})?", exp in "([eE][+-]?[0-9]{1,4})?") {
        assert_same(&format!("{int}{frac}{exp}"));
        assert_same(&format!("[{int}{frac}{exp}]"));
    }
}

/// Valid JSON written by serde_json from generated values reads back the same.
fn values() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        any::<String>().prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 64, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
            prop::collection::btree_map(any::<String>(), inner, 0..8)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 5_000, ..ProptestConfig::default() })]

    #[test]
    fn same_as_serde_json_on_written_values(value in values()) {
        assert_same(&serde_json::to_string(&value).unwrap());
        assert_same(&serde_json::to_string_pretty(&value).unwrap());
        prop_assert_eq!(json::to_text(&value), serde_json::to_string(&value).unwrap(), "written as serde_json writes it");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2_000, failure_persistence: None, ..ProptestConfig::default() })]

    /// The reader with spans reads the same values, and its spans are where the values are: a list of
    /// kept items written from them, alone or inside a body, is the text it came from.
    #[test]
    fn spans_point_at_the_values(items in prop::collection::vec(values(), 0..6), pretty in any::<bool>()) {
        let write = |v: &Value| if pretty { serde_json::to_string_pretty(v).unwrap() } else { serde_json::to_string(v).unwrap() };
        let array = Value::Array(items.clone());
        let body = serde_json::json!({ "model": "m", "messages": array, "z": [1, 2] });
        for (value, key) in [(&array, None), (&body, Some("messages"))] {
            let text = write(value);
            let (read, spans) = json::parse_with_spans(&text).unwrap();
            prop_assert_eq!(&read, &json::parse(&text).unwrap());
            let at = spans.items(key).unwrap();
            // As read (a float may read back a step away from the one written, as with serde_json).
            let read_items = match key {
                Some(k) => read[k].as_array().unwrap().clone(),
                None => read.as_array().unwrap().clone(),
            };
            prop_assert_eq!(at.items.len(), read_items.len());
            for (span, item) in at.items.iter().zip(&read_items) {
                prop_assert_eq!(&json::parse(&text[span.clone()]).unwrap(), item);
            }
            let slots = Slot::keep_all(items.len());
            let out = materialize_text(&slots, &text, &at, &read_items).text;
            prop_assert_eq!(json::parse(&out).unwrap(), read);
            if !pretty {
                prop_assert_eq!(out, text);
            }
        }
    }
}

#[test]
fn powers_of_ten_are_the_nearest_f64() {
    for n in 0..=308u32 {
        let nearest: f64 = format!("1e{n}").parse().unwrap();
        assert_eq!(json::power_of_ten(n).map(f64::to_bits), Some(nearest.to_bits()), "10^{n}");
    }
    assert_eq!(json::power_of_ten(309), None);
}

#[test]
fn utf16_len_is_what_javascript_counts() {
    for text in [
        "",
        "plain ASCII",
        "é",
        "日本語のテキスト",
        "😀 and 𝄞",
        "mixed: ü, 中, 🎉, a\u{10FFFF}z",
        "\u{7F}\u{80}\u{7FF}\u{800}\u{FFFF}\u{10000}",
    ] {
        assert_eq!(json::utf16_len(text), text.encode_utf16().count(), "{text:?}");
    }
}

proptest! {
    #[test]
    fn utf16_len_of_any_text(text in any::<String>()) {
        prop_assert_eq!(json::utf16_len(&text), text.encode_utf16().count());
    }
}

/// A slot for a list of `n` items: kept (possibly twice, or out of range), edited, or new.
fn slots(n: usize) -> impl Strategy<Value = Vec<Slot>> {
    let slot = prop_oneof![
        (0..n + 1).prop_map(Slot::Keep),
        (0..n.max(1), values())
            .prop_map(|(index, v)| Slot::Patch { index, edits: vec![FieldEdit::set(vec![Key::field("content")], v)] }),
        values().prop_map(Slot::New),
    ];
    prop::collection::vec(slot, 0..8)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1_000, failure_persistence: None, ..ProptestConfig::default() })]

    /// A history written from a document and taken back is read as reading its whole text would read
    /// it: values and spans, in a list alone and in a body with members on both sides.
    #[test]
    fn a_written_history_is_reread_as_read(
        (items, slots) in prop::collection::vec(values(), 0..6).prop_flat_map(|items| { let n = items.len(); (Just(items), slots(n)) }),
        pretty in any::<bool>(),
    ) {
        let write = |v: &Value| if pretty { serde_json::to_string_pretty(v).unwrap() } else { serde_json::to_string(v).unwrap() };
        let array = Value::Array(items);
        let body = serde_json::json!({ "a": [{ "b": 1 }], "messages": array, "z": [1, { "c": 2 }] });
        for (value, key) in [(&array, None), (&body, Some("messages"))] {
            let text = write(value);
            let (from, spans) = json::parse_with_spans(&text).unwrap();
            let written = materialize_text(&slots, &text, &spans.items(key).unwrap(), items_of(&from, key));
            let reread = reread(&written.text, &written.at, &slots, from, spans, key);
            prop_assert_eq!(reread, Some(json::parse_with_spans(&written.text).unwrap()));
        }
    }
}
