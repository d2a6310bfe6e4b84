//! Every operation on every conversation of ../shared/corpus: the outputs stay valid for the
//! provider, system messages are untouched, unchanged messages are kept, and tokens go down.

use ctxfold::apply::{apply_summary, offline_summaries};
use ctxfold::edit::{materialize, Slot};
use ctxfold::estimate::estimate;
use ctxfold::format;
use ctxfold::options::Options;
use ctxfold::plan::plan_compaction;
use ctxfold::prune::prune;
use ctxfold::validate::problems;
use serde_json::{json, Value};
use std::path::PathBuf;

const FILES: &[&str] = &[
    "tau-bench-airline.jsonl",
    "mini-swe-agent-tools.jsonl",
    "swe-agent.jsonl",
    "toolbench.jsonl",
    "mini-swe-agent-text.jsonl",
    "medicalgpt-zh.jsonl",
    "kdconv-zh.jsonl",
    "jmultiwoz-ja.jsonl",
];

fn corpus(file: &str) -> Vec<(String, Vec<Value>)> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus").join(file);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("the corpus must sit at {} (beside the repo): {e}", path.display()));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).unwrap();
            let id = v["id"].as_str().unwrap_or("?").to_string();
            (id, v["messages"].take().as_array().cloned().unwrap())
        })
        .collect()
}

fn has_tool_calls(msgs: &[Value]) -> bool {
    msgs.iter().any(|m| m.get("tool_calls").is_some_and(|c| c.as_array().is_some_and(|a| !a.is_empty())))
}

fn systems(msgs: &[Value]) -> Vec<&Value> {
    msgs.iter().filter(|m| m["role"] == "system" || m["role"] == "developer").collect()
}

/// The output is valid for the provider and every kept message is an input message, in order.
fn check_output(id: &str, what: &str, input: &[Value], slots: &[Slot]) -> Vec<Value> {
    let out = materialize(slots, input);
    let conv = format::read(&out, None).unwrap_or_else(|e| panic!("{id}: {what} output unreadable: {e}"));
    assert_eq!(problems(&conv), vec![], "{id}: {what} output is invalid");
    assert_eq!(systems(&out), systems(input), "{id}: {what} changed a system message");
    let kept: Vec<usize> = slots.iter().filter_map(|s| if let Slot::Keep(i) = s { Some(*i) } else { None }).collect();
    assert!(kept.windows(2).all(|w| w[0] < w[1]), "{id}: {what} reordered messages");
    out
}

#[test]
fn every_corpus_conversation_prunes_plans_and_applies() {
    let mut applied = 0;
    let mut pruned = 0;
    let mut tool_conversations = 0;
    let mut too_small = 0;
    for file in FILES {
        for (id, msgs) in corpus(file) {
            let conv = format::read(&msgs, None).unwrap_or_else(|e| panic!("{id}: {e}"));
            assert_eq!(problems(&conv), vec![], "{id}: the corpus conversation itself is invalid");
            let tools = has_tool_calls(&msgs);
            tool_conversations += usize::from(tools);
            let total = estimate(&msgs, &Options::default()).unwrap().total;

            let options = Options::from_json(&json!({ "protectTokens": 2000, "minimumPruneTokens": 500 })).unwrap();
            let p = prune(&msgs, &options).unwrap();
            assert_eq!(p.slots.len(), msgs.len(), "{id}: prune changed the message count");
            check_output(&id, "prune", &msgs, &p.slots);
            for (i, slot) in p.slots.iter().enumerate() {
                match slot {
                    Slot::Keep(k) => assert_eq!(*k, i),
                    Slot::Patch { index, .. } => assert_eq!(msgs[*index]["role"], "tool", "{id}: prune touched a non-tool message"),
                    Slot::New(_) => panic!("{id}: prune added a message"),
                }
            }
            if !p.report.pruned.is_empty() {
                pruned += 1;
                assert!(p.report.tokens_after < p.report.tokens_before, "{id}: prune did not save tokens");
            }

            // Compact now, keeping a quarter of what is not the system prompt.
            let system: u64 = estimate(&msgs, &Options::default()).unwrap().per_message.iter().zip(&msgs)
                .filter(|(_, m)| m["role"] == "system").map(|(&t, _)| u64::from(t)).sum();
            let options = Options::from_json(&json!({ "force": true, "keepRecentTokens": (total - system) / 4 })).unwrap();
            let plan = serde_json::to_value(plan_compaction(&msgs, &options).unwrap()).unwrap();
            if plan["jobs"].as_array().unwrap().is_empty() {
                assert_eq!(plan["reason"], "nothing_to_summarize");
                assert!(total - system < 2000, "{id}: {total} tokens but nothing to summarize: {}", plan["detail"]);
                too_small += usize::from(tools);
                continue;
            }
            let summary = Value::Object(offline_summaries(&msgs, &plan).unwrap());
            let a = apply_summary(&msgs, &plan, &summary).unwrap_or_else(|e| panic!("{id}: apply failed: {e}"));
            check_output(&id, "apply_summary", &msgs, &a.slots);
            assert!(a.report.tokens_after < a.report.tokens_before, "{id}: apply did not save tokens");
            applied += usize::from(tools);
        }
    }
    println!("{tool_conversations} conversations with tool calls: {pruned} pruned, {applied} compacted with the offline digest, {too_small} too short to compact");
    assert_eq!(applied + too_small, tool_conversations);
    assert!(tool_conversations >= 240 && pruned > 0 && too_small * 10 < tool_conversations);
}
