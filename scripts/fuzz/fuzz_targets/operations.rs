//! Arbitrary bytes → JSON → every public operation, in every format, with arbitrary options, and a
//! session driven turn by turn over the same history. The bytes are split at 0x01 into messages,
//! options and a summary (or plan, or usage report); the first byte picks a format to force, or none,
//! and how far the session's simulated provider counts from the estimate. Nothing may panic, and what
//! succeeds must keep the core's promises.
#![no_main]

use ctxfold::compaction::apply::{apply_summary, offline_summaries};
use ctxfold::edit::materialize;
use ctxfold::counting::estimate::estimate;
use ctxfold::reading::input::Input;
use ctxfold::options::Options;
use ctxfold::compaction::plan::plan_compaction;
use ctxfold::pruning::prune::prune;
use ctxfold::checking::repair::repair;
use ctxfold::prompt_cache::session::{SessionCore, SessionOptions, Usage};
use ctxfold::checking::validate::validate;
use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Value};

const FORMATS: [&str; 6] = ["", "openai-chat", "openai-responses", "anthropic", "gemini", "ai-sdk"];

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else { return };
    let text = String::from_utf8_lossy(rest);
    let mut parts = text.split('\u{1}');
    let parse = |s: Option<&str>| s.and_then(|s| serde_json::from_str::<Value>(s).ok()).unwrap_or(Value::Null);
    let messages = parse(parts.next());
    let mut options = parse(parts.next());
    let extra = parse(parts.next());

    let format = FORMATS[usize::from(selector) % FORMATS.len()];
    if !format.is_empty() {
        if let Value::Object(o) = &mut options {
            o.insert("format".into(), Value::String(format.into()));
        } else if options.is_null() {
            let mut o = Map::new();
            o.insert("format".into(), Value::String(format.into()));
            options = Value::Object(o);
        }
    }
    let Ok(input) = Input::read(&messages) else { return };
    let Ok(opts) = Options::from_json(&options) else { return };

    if let Ok(e) = estimate(&input, &opts) {
        assert_eq!(e.per_message.len(), input.items.len());
    }
    let _ = validate(&input, &opts);
    if let Ok(r) = repair(&input, &opts) {
        let _ = materialize(&r.slots, input.items);
    }
    if let Ok(p) = prune(&input, &opts) {
        assert_eq!(p.slots.len(), input.items.len(), "prune keeps the message count");
        assert!(p.report.tokens_after <= p.report.tokens_before);
    }
    let forced = {
        let mut o = opts.clone();
        o.force = true;
        o
    };
    for opts in [&opts, &forced] {
        let Ok(plan) = plan_compaction(&input, opts) else { continue };
        let plan = serde_json::to_value(plan).unwrap_or(Value::Null);
        if let Ok(summaries) = offline_summaries(&input, &plan) {
            if let Ok(a) = apply_summary(&input, &plan, &Value::Object(summaries)) {
                assert!(a.report.tokens_after < a.report.tokens_before, "apply never makes the history larger");
            }
        }
        if let Ok(a) = apply_summary(&input, &plan, &extra) {
            assert!(a.report.tokens_after < a.report.tokens_before);
        }
    }
    // A plan straight from the bytes: checked, never trusted.
    let _ = apply_summary(&input, &extra, &Value::String("summary".into()));
    let _ = offline_summaries(&input, &extra);

    // A session over the history as it grows, one message a turn: the provider reports the estimate
    // scaled by 0.5 to 2 (from the selector) plus a fixed cost, or the bytes' own usage report.
    let Ok(session_options) = SessionOptions::from_json(&options) else { return };
    let mut session = SessionCore::new(session_options);
    let scale = 0.5 + f64::from(selector % 16) / 10.0;
    for n in 1..=input.items.len().min(12) {
        let turn = input.with_items(&input.items[..n]);
        let Ok(prepared) = session.prepare(&turn) else { continue };
        if prepared.action == "compact" {
            let _ = session.apply_summary(&turn, &Value::String("what was done so far".into()));
            continue;
        }
        let usage = Usage::from_json(&extra).unwrap_or(Usage { prompt_tokens: (prepared.tokens as f64 * scale) as u64 + 500, ..Usage::default() });
        let _ = session.record(usage);
    }
    let _ = session.health();
    let _ = session.thrashing();
});
