//! Histories holding a provider's own compaction (pkg-tests/formats/provider-compaction/): an
//! Anthropic `compaction` block and a Responses `compaction` item. Every operation keeps the item
//! byte for byte, counts it as the provider bills it, never summarizes it again, and lets what comes
//! before it go first; a malformed item is refused with its path.

use ctxfold::checking::repair::repair;
use ctxfold::checking::validate::validate;
use ctxfold::compaction::apply::{apply_summary, offline_summaries};
use ctxfold::compaction::plan::plan_compaction;
use ctxfold::counting::estimate::{estimate, ENCRYPTED_CHARS_PER_TOKEN};
use ctxfold::edit::materialize;
use ctxfold::error::Code;
use ctxfold::options::Options;
use ctxfold::prompt_cache::breakpoints::{cache_breakpoints, BreakpointOptions};
use ctxfold::pruning::prune::prune;
use ctxfold::reading::input::Input;
use serde_json::{json, Value};
use std::path::PathBuf;

fn fixture(name: &str) -> Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("pkg-tests/formats/provider-compaction")
        .join(format!("{name}.json"));
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn options(v: Value) -> Options {
    Options::from_json(&v).unwrap()
}

/// (fixture, key of its items, index of the item holding the provider's compaction)
const SHAPES: [(&str, &str, usize); 2] = [("anthropic", "messages", 3), ("openai-responses", "input", 4)];

fn items<'a>(v: &'a Value, key: &str) -> &'a Vec<Value> {
    v[key].as_array().unwrap()
}

fn tokens(v: &Value, o: Value) -> u64 {
    estimate(&Input::read(v).unwrap(), &options(o)).unwrap().total
}

fn valid(items: &[Value], format: &str) -> bool {
    let input = Input::items(items);
    validate(&input, &options(json!({ "format": format }))).unwrap().problems.is_empty()
}

fn error_of(v: &Value) -> (Code, String) {
    let e = estimate(&Input::read(v).unwrap(), &Options::default()).unwrap_err();
    (e.code, e.path.clone())
}

#[test]
fn the_histories_are_valid_and_every_operation_keeps_the_item_as_it_is() {
    for (name, key, at) in SHAPES {
        let v = fixture(name);
        let input = Input::read(&v).unwrap();
        assert!(validate(&input, &Options::default()).unwrap().problems.is_empty(), "{name}");
        assert!(repair(&input, &Options::default()).unwrap().report.repairs.is_empty(), "{name}");
        let pruned = prune(&input, &options(json!({ "protectTokens": 0, "minimumPruneTokens": 0 }))).unwrap();
        let out = materialize(&pruned.slots, input.items);
        assert!(!pruned.report.pruned.is_empty(), "{name}: the tool outputs around it are pruned");
        assert_eq!(out[at], items(&v, key)[at], "{name}: prune leaves the compaction as it is");
        // Forced, with everything before the newest user message summarizable.
        let o = options(json!({ "force": true, "keepRecentTurns": 1 }));
        let plan = plan_compaction(&input, &o).unwrap();
        assert!(plan.summarize.iter().all(|r| r.start > at), "{name}: never summarized again: {:?}", plan.summarize);
        let plan = serde_json::to_value(&plan).unwrap();
        let summary = Value::Object(offline_summaries(&input, &plan).unwrap());
        let applied = apply_summary(&input, &plan, &summary).unwrap();
        let out = materialize(&applied.slots, input.items);
        assert!(out.contains(&items(&v, key)[at]), "{name}: the item is in the compacted history, unchanged");
        assert!(valid(&out, name), "{name}");
    }
}

#[test]
fn anthropic_breakpoints_never_mark_the_compaction_block() {
    let mut v = fixture("anthropic");
    // The newer beta's shape: the signed block alone, first in the conversation.
    let summary = "The user plans a week in Lisbon; booking reference LX-48213. ".repeat(200);
    let block = json!({ "type": "compaction", "content": summary, "signature": "sig-Q2xhdWRl",
                        "encrypted_content": "ZW5jcnlwdGVk", "tool_changes": [] });
    v["messages"] =
        json!([{ "role": "assistant", "content": [block] }, { "role": "user", "content": "Book Hotel 3." }]);
    assert!(valid(items(&v, "messages"), "anthropic"), "a history may start with the compaction block's turn");
    // Newest, the turn holding the block alone would take the marker: none goes on the block.
    v["messages"] =
        json!([{ "role": "user", "content": "Plan the trip." }, { "role": "assistant", "content": [block] }]);
    let o = BreakpointOptions::from_json(&json!({ "minCacheableTokens": 1, "apply": true, "tokenizer": "claude" }));
    let marks = cache_breakpoints(&v, &o.unwrap()).unwrap();
    let out = materialize(&marks.slots, items(&v, "messages"));
    assert_eq!(out[1]["content"][0], block);
    assert!(!marks.report.breakpoints.is_empty(), "the user turn before it is marked instead");
}

#[test]
fn readable_content_is_text_and_encrypted_content_is_costed_by_its_length() {
    let v = fixture("openai-responses");
    let encrypted = v["input"][4]["encrypted_content"].as_str().unwrap().len();
    let without = {
        let mut w = v.clone();
        w["input"].as_array_mut().unwrap().remove(4);
        tokens(&w, json!({}))
    };
    let item = tokens(&v, json!({})) - without;
    let rule = encrypted.div_ceil(ENCRYPTED_CHARS_PER_TOKEN) as u64;
    assert!(
        item >= rule && item <= rule + 8,
        "{item} tokens for {encrypted} characters: the rule's {rule} and framing"
    );

    let a = fixture("anthropic");
    let block = &a["messages"][3]["content"][0];
    let as_text = {
        let mut w = a.clone();
        w["messages"][3]["content"][0] = json!({ "type": "text", "text": block["content"] });
        tokens(&w, json!({}))
    };
    // The same text, but for the line break that joins two text blocks (the summary is read apart).
    let summary = tokens(&a, json!({}));
    assert!(
        summary <= as_text && summary + 1 >= as_text,
        "a readable summary costs what the same text costs: {summary} and {as_text}"
    );
    let mut failed = a.clone();
    failed["messages"][3]["content"][0]["content"] = Value::Null;
    assert!(tokens(&failed, json!({})) < tokens(&a, json!({})), "a failed compaction (null content) costs its framing");
}

#[test]
fn over_the_limit_what_lies_before_the_item_goes_first_without_a_summary() {
    for (name, key, at) in SHAPES {
        let v = fixture(name);
        let input = Input::read(&v).unwrap();
        let total = tokens(&v, json!({}));
        let after: u64 =
            estimate(&input, &Options::default()).unwrap().per_message[at..].iter().map(|&t| u64::from(t)).sum();
        // A limit that dropping alone meets.
        let limit = (total - after / 2).min(total - 1);
        let o = options(json!({ "thresholdTokens": limit }));
        let plan = plan_compaction(&input, &o).unwrap();
        assert!(plan.needed && plan.reason == "over_limit", "{name}: {}", plan.detail);
        assert_eq!(plan.dropped.map(|d| (d.start, d.end)), Some((0, at)), "{name}");
        assert!(plan.jobs.is_empty(), "{name}: nothing for the summarizer");
        let plan = serde_json::to_value(&plan).unwrap();
        let applied = apply_summary(&input, &plan, &Value::Null).unwrap();
        let out = materialize(&applied.slots, input.items);
        assert_eq!(out, items(&v, key)[at..], "{name}: the item and all after it, as they were");
        assert!(applied.report.tokens_after <= limit, "{name}");
        assert!(valid(&out, name), "{name}");

        // A limit that also needs a summary: after the item, never of it.
        let tight = options(json!({ "thresholdTokens": after / 2, "keepRecentTurns": 1 }));
        let plan = plan_compaction(&input, &tight).unwrap();
        assert_eq!(plan.dropped.map(|d| (d.start, d.end)), Some((0, at)), "{name}");
        assert!(plan.summarize.iter().all(|r| r.start > at), "{name}: {:?}", plan.summarize);
    }
}

#[test]
fn under_the_limit_the_option_drops_what_the_provider_drops_anyway() {
    for (name, key, at) in SHAPES {
        let v = fixture(name);
        let input = Input::read(&v).unwrap();
        assert!(!plan_compaction(&input, &Options::default()).unwrap().needed);
        let plan = plan_compaction(&input, &options(json!({ "dropBeforeProviderCompaction": true }))).unwrap();
        assert_eq!((plan.needed, plan.reason), (true, "provider_compaction"), "{name}");
        let plan = serde_json::to_value(&plan).unwrap();
        let applied = apply_summary(&input, &plan, &json!([])).unwrap();
        assert_eq!(materialize(&applied.slots, input.items), items(&v, key)[at..], "{name}");
        // Edited by hand, the plan is refused.
        let mut edited = plan.clone();
        edited["dropped"]["end"] = json!(at - 1);
        assert_eq!(apply_summary(&input, &edited, &Value::Null).unwrap_err().code, Code::InvalidPlan, "{name}");
    }
}

#[test]
fn a_tool_exchange_across_the_item_is_not_split() {
    let mut v = fixture("openai-responses");
    // The call before the compaction item, its output after it.
    let output = v["input"].as_array_mut().unwrap().remove(2);
    v["input"].as_array_mut().unwrap().insert(4, output);
    let plan =
        plan_compaction(&Input::read(&v).unwrap(), &options(json!({ "dropBeforeProviderCompaction": true }))).unwrap();
    assert_eq!(plan.dropped.map(|d| (d.start, d.end)), Some((0, 1)), "only the first message can go");
}

#[test]
fn a_malformed_compaction_item_is_refused_with_its_path() {
    let mut r = fixture("openai-responses");
    r["input"][4].as_object_mut().unwrap().remove("encrypted_content");
    assert_eq!(error_of(&r), (Code::InvalidInput, "input[4].encrypted_content".to_string()));
    r["input"][4]["encrypted_content"] = json!(42);
    assert_eq!(error_of(&r), (Code::InvalidInput, "input[4].encrypted_content".to_string()));

    let mut a = fixture("anthropic");
    a["messages"][3]["content"][0]["content"] = json!("");
    assert_eq!(error_of(&a), (Code::InvalidInput, "messages[3].content[0].content".to_string()));
    a["messages"][3]["content"][0]["content"] = json!({ "text": "no" });
    assert_eq!(error_of(&a), (Code::InvalidInput, "messages[3].content[0].content".to_string()));
    a["messages"][3]["content"][0]["content"] = json!("fine");
    a["messages"][3]["content"][0]["tool_changes"] = json!("none");
    assert_eq!(error_of(&a), (Code::InvalidInput, "messages[3].content[0].tool_changes".to_string()));
}

#[test]
fn an_item_of_an_unknown_type_is_kept_and_counted_by_its_text() {
    let mut v = fixture("openai-responses");
    let unknown = json!({ "type": "memory_snapshot", "id": "ms_1", "notes": "The user prefers trams. ".repeat(40) });
    v["input"].as_array_mut().unwrap().insert(6, unknown.clone());
    let input = Input::read(&v).unwrap();
    let e = estimate(&input, &Options::default()).unwrap();
    assert!(e.per_message[6] > 100, "counted by its JSON text: {}", e.per_message[6]);
    assert!(validate(&input, &Options::default()).unwrap().problems.is_empty());
    let pruned = prune(&input, &options(json!({ "protectTokens": 0, "minimumPruneTokens": 0 }))).unwrap();
    assert_eq!(materialize(&pruned.slots, input.items)[6], unknown);
    let o = options(json!({ "dropBeforeProviderCompaction": true }));
    let plan = serde_json::to_value(plan_compaction(&input, &o).unwrap()).unwrap();
    let out = materialize(&apply_summary(&input, &plan, &Value::Null).unwrap().slots, input.items);
    assert_eq!(out[2], unknown, "after the compaction item, it stays");
}
