//! The invariants of DESIGN.md, on generated histories in every format: provider validity after every
//! operation, system prompts untouched, unchanged messages kept (and in order), prune count-preserving
//! and idempotent, apply never larger, determinism, appended messages accepted, same split everywhere, and a
//! compaction remembered resuming its conversation.

#[path = "convert.rs"]
mod convert;

use convert::{convert, FORMATS};
use ctxfold::checking::validate::problems;
use ctxfold::compaction::apply::{apply_summary, offline_summaries};
use ctxfold::compaction::memory;
use ctxfold::compaction::plan::plan_compaction;
use ctxfold::edit::{materialize, Slot};
use ctxfold::json::parse_with_spans;
use ctxfold::options::Options;
use ctxfold::pruning::prune::prune;
use ctxfold::reading::format;
use ctxfold::reading::input::Input;
use proptest::prelude::*;
use serde_json::{json, Value};

#[derive(Debug, Clone)]
enum Turn {
    User(usize),
    Assistant(usize),
    /// An assistant message (with or without text) making `calls` parallel calls, then their results.
    Tools {
        text: usize,
        outputs: Vec<usize>,
    },
    Developer(usize),
}

fn turn() -> impl Strategy<Value = Turn> {
    prop_oneof![
        3 => (1usize..400).prop_map(Turn::User),
        2 => (1usize..400).prop_map(Turn::Assistant),
        4 => ((0usize..100), prop::collection::vec(1usize..3000, 1..4)).prop_map(|(text, outputs)| Turn::Tools { text, outputs }),
        1 => (1usize..100).prop_map(Turn::Developer),
    ]
}

const WORDS: [&str; 12] =
    ["the", "file", "src/app.py", "error", "数据", "テスト", "42", "{\"a\":1}", "Traceback", "must", "never", "ok"];

fn words(n: usize, seed: usize) -> String {
    (0..n).map(|i| WORDS[(i * 7 + seed) % WORDS.len()]).collect::<Vec<_>>().join(" ")
}

/// A valid OpenAI Chat history: a system prompt, a first user turn, then the generated turns.
fn history(turns: &[Turn]) -> Vec<Value> {
    let mut out = vec![
        json!({ "role": "system", "content": "You are an agent." }),
        json!({ "role": "user", "content": "Start." }),
    ];
    for (t, turn) in turns.iter().enumerate() {
        match turn {
            Turn::User(n) => out.push(json!({ "role": "user", "content": words(*n, t) })),
            Turn::Assistant(n) => out.push(json!({ "role": "assistant", "content": words(*n, t) })),
            Turn::Developer(n) => out.push(json!({ "role": "developer", "content": words(*n, t) })),
            Turn::Tools { text, outputs } => {
                let calls: Vec<Value> = (0..outputs.len())
                    .map(|k| {
                        let name = ["bash", "read", "Skill"][k % 3];
                        json!({ "id": format!("c{t}_{k}"), "type": "function", "function": { "name": name, "arguments": format!("{{\"command\":\"run {t} {k}\"}}") } })
                    })
                    .collect();
                let content = if *text == 0 { Value::Null } else { json!(words(*text, t)) };
                out.push(json!({ "role": "assistant", "content": content, "tool_calls": calls }));
                for (k, n) in outputs.iter().enumerate() {
                    out.push(
                        json!({ "role": "tool", "tool_call_id": format!("c{t}_{k}"), "content": words(*n, t + k) }),
                    );
                }
            }
        }
    }
    out
}

/// Developer messages become part of the system prompt where the format has no such role.
fn without_developer(turns: &[Turn], format: &str) -> Vec<Turn> {
    turns.iter().filter(|t| format == "openai-chat" || !matches!(t, Turn::Developer(_))).cloned().collect()
}

/// `turns` without those that other formats would join to the turn before them, and without developer
/// turns (which the other formats fold into the system prompt). A format whose turns alternate joins two
/// texts of one role into one turn, framed once where OpenAI Chat frames two, so a count near a threshold
/// (the tail's budget, the fewest tokens worth a summary) may fall on its other side there.
fn alternating(turns: &[Turn]) -> Vec<Turn> {
    // The history starts with a user's turn (`history`).
    let mut last = "user";
    let mut out = Vec::new();
    for t in turns {
        let (starts, ends) = match t {
            Turn::User(_) => ("user", "user"),
            Turn::Assistant(_) => ("assistant", "assistant"),
            Turn::Tools { .. } => ("assistant", "tool"),
            Turn::Developer(_) => continue,
        };
        if starts != last {
            out.push(t.clone());
            last = ends;
        }
    }
    out
}

fn check_valid(what: &str, items: &[Value], format: format::Format) {
    let conv = format::read_items(items, Some(format)).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(problems(&conv), vec![], "{what}");
}

fn kept_in_order(slots: &[Slot]) -> bool {
    let kept: Vec<usize> = slots.iter().filter_map(|s| if let Slot::Keep(i) = s { Some(*i) } else { None }).collect();
    kept.windows(2).all(|w| w[0] < w[1])
}

proptest! {
    // No failure files: the project keeps no folder for them (a failure prints its minimal input instead).
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn every_operation_keeps_every_invariant(turns in prop::collection::vec(turn(), 1..40), keep in 200u32..6000, protect in 0u32..6000) {
        for name in FORMATS {
            let msgs = history(&without_developer(&turns, name));
            let converted = convert(name, &msgs);
            let input = Input::read(&converted.input).unwrap();
            // Named, not detected: a history of plain text turns reads alike in several formats.
            let fmt = format::Format::from_name(name, "format").unwrap();
            check_valid(name, input.items, fmt);
            let systems = |items: &[Value]| items.iter().filter(|m| m["role"] == "system" || m["role"] == "developer").cloned().collect::<Vec<_>>();

            // prune: count-preserving, valid, idempotent, never larger, only results touched.
            let opts = Options::from_json(&json!({ "format": name, "protectTokens": protect, "minimumPruneTokens": 0 })).unwrap();
            let p = prune(&input, &opts).unwrap();
            prop_assert_eq!(p.slots.len(), input.items.len());
            prop_assert!(p.report.tokens_after <= p.report.tokens_before);
            let pruned = materialize(&p.slots, input.items);
            check_valid(&format!("{name} pruned"), &pruned, fmt);
            prop_assert_eq!(systems(&pruned), systems(input.items));
            let again = prune(&input.with_items(&pruned), &opts).unwrap();
            prop_assert!(again.report.pruned.is_empty(), "{name}: pruning twice differs from once");

            // plan: deterministic.
            let opts = Options::from_json(&json!({ "format": name, "force": true, "keepRecentTokens": keep, "keepRecentTurns": 0 })).unwrap();
            let plan = serde_json::to_value(plan_compaction(&input, &opts).unwrap()).unwrap();
            prop_assert_eq!(&plan, &serde_json::to_value(plan_compaction(&input, &opts).unwrap()).unwrap());
            if plan["jobs"][0].is_null() {
                continue;
            }

            // apply: valid, never larger, systems kept, messages appended after planning accepted.
            let summary = Value::Object(offline_summaries(&input, &plan).unwrap());
            match apply_summary(&input, &plan, &summary) {
                Ok(a) => {
                    prop_assert!(a.report.tokens_after < a.report.tokens_before);
                    prop_assert!(kept_in_order(&a.slots));
                    let out = materialize(&a.slots, input.items);
                    check_valid(&format!("{name} applied"), &out, fmt);
                    prop_assert_eq!(systems(&out), systems(input.items));
                    prop_assert!(format::read_items(&out, Some(fmt)).unwrap().messages.iter().any(|m| m.is_summary));
                }
                Err(e) => prop_assert_eq!(e.code.as_str(), "SUMMARY_NOT_SMALLER"),
            }
        }
    }

    #[test]
    fn the_same_split_in_every_format(turns in prop::collection::vec(turn(), 1..40), keep in 200u32..6000) {
        let turns = alternating(&turns);
        let mut split = None;
        for name in FORMATS {
            let converted = convert(name, &history(&turns));
            let input = Input::read(&converted.input).unwrap();
            let opts = Options::from_json(&json!({ "format": name, "force": true, "keepRecentTokens": keep, "keepRecentTurns": 0 })).unwrap();
            let plan = plan_compaction(&input, &opts).unwrap();
            let cut = plan.jobs.first().map(|j| converted.origin[j.range.end]);
            match split {
                None => split = Some(cut),
                // Only where OpenAI's cut exists in the other format too: Anthropic and Gemini put a user's
                // text into the turn holding the tool results before it, so no cut falls between those there.
                Some(Some(expected)) if converted.origin.contains(&expected) => {
                    prop_assert_eq!(cut, Some(expected), "{}: the split differs from openai-chat's", name)
                }
                Some(_) => {}
            }
        }
    }

    #[test]
    fn a_plan_accepts_messages_appended_after_it(turns in prop::collection::vec(turn(), 3..30)) {
        let mut msgs = history(&turns);
        let opts = Options::from_json(&json!({ "force": true, "keepRecentTurns": 1 })).unwrap();
        let plan = serde_json::to_value(plan_compaction(&Input::items(&msgs), &opts).unwrap()).unwrap();
        if plan["jobs"].as_array().unwrap().is_empty() {
            return Ok(());
        }
        let summary = Value::Object(offline_summaries(&Input::items(&msgs), &plan).unwrap());
        msgs.push(json!({ "role": "user", "content": "appended while the summary was written" }));
        if let Ok(a) = apply_summary(&Input::items(&msgs), &plan, &summary) {
            let out = materialize(&a.slots, &msgs);
            prop_assert_eq!(out.last(), msgs.last());
            check_valid("appended", &out, format::Format::OpenAiChat);
        }
        msgs[1]["content"] = json!("edited");
        let e = apply_summary(&Input::items(&msgs), &plan, &summary).unwrap_err();
        prop_assert_eq!(e.code.as_str(), "STALE_PLAN");
    }

    #[test]
    fn a_remembered_compaction_resumes_its_conversation_in_every_format(
        turns in prop::collection::vec(turn(), 3..30),
        more in prop::collection::vec(turn(), 1..4),
    ) {
        for name in FORMATS {
            let fmt = format::Format::from_name(name, "format").unwrap();
            let first = convert(name, &history(&without_developer(&turns, name))).input;
            let whole = convert(name, &history(&without_developer(&[turns.clone(), more.clone()].concat(), name))).input;
            let (first, whole) = (Input::read(&first).unwrap(), Input::read(&whole).unwrap());
            let opts = Options::from_json(&json!({ "format": name, "force": true, "keepRecentTurns": 1 })).unwrap();
            let plan = serde_json::to_value(plan_compaction(&first, &opts).unwrap()).unwrap();
            if plan["jobs"].as_array().unwrap().is_empty() {
                continue;
            }
            let summary = Value::Object(offline_summaries(&first, &plan).unwrap());
            let Ok(applied) = apply_summary(&first, &plan, &summary) else { continue };
            let compacted = materialize(&applied.slots, first.items);
            let recall = memory::recall(first.items).unwrap();
            let stored = memory::state(&recall.contents, &compacted, None);

            // The same conversation, messages on: resumed where its first messages are the ones compacted
            // (Anthropic and Gemini merge a user's text into the turn of results before it, so not always).
            let resumed = memory::resume(&memory::recall(whole.items).unwrap().contents, stored.clone());
            prop_assert_eq!(resumed.is_some(), whole.items.starts_with(first.items), "{}", name);
            let Some(resumed) = resumed else { continue };
            prop_assert_eq!(resumed.count, first.items.len());
            let items: Vec<Value> = compacted.iter().chain(&whole.items[resumed.count..]).cloned().collect();
            check_valid(&format!("{name} resumed"), &items, fmt);

            // As text, the same items, and every byte of the request outside the first messages as it was.
            let text = serde_json::to_string_pretty(&Value::Array(whole.items.to_vec())).unwrap();
            let (_, spans) = parse_with_spans(&text).unwrap();
            let spans = spans.items(None).unwrap();
            let spliced = memory::spliced_text(&text, &spans, &resumed).unwrap();
            prop_assert_eq!(serde_json::from_str::<Value>(&spliced).unwrap(), Value::Array(items));
            let rest_at = spans.items.get(resumed.count).map_or(text.len() - 1, |r| r.start);
            prop_assert!(spliced.ends_with(&text[rest_at..]));
        }
    }
}

/// The newest output cut to fit `protectTokens` stays as it is when pruned again, whatever the format's
/// framing of it adds, at every size of the protection.
#[test]
fn a_cut_newest_output_is_not_cut_again() {
    let turns =
        [Turn::User(20), Turn::Tools { text: 5, outputs: vec![2500] }, Turn::Tools { text: 0, outputs: vec![2900] }];
    for name in FORMATS {
        let converted = convert(name, &history(&turns));
        let input = Input::read(&converted.input).unwrap();
        // Small protections too: a cut that cannot fit its bound (the marker alone is larger) would be cut
        // again on every prune.
        for protect in [1, 3, 8, 20, 60, 120, 199, 200].into_iter().chain((201..4000).step_by(61)) {
            let opts =
                Options::from_json(&json!({ "format": name, "protectTokens": protect, "minimumPruneTokens": 0 }))
                    .unwrap();
            let once = materialize(&prune(&input, &opts).unwrap().slots, input.items);
            let again = prune(&input.with_items(&once), &opts).unwrap();
            assert!(again.report.pruned.is_empty(), "{name}, protectTokens {protect}: {:?}", again.report.pruned);
        }
    }
}
