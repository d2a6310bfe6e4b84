//! Corpus conversations replayed turn by turn through `Session`, against a simulated provider
//! prompt cache, to compare two policies with the same options:
//!
//! - `session`: the session with its cache rule (a prune is made when it pays for the cache it
//!   invalidates, or when the history is over the limit);
//! - `every turn`: prune whenever prune's own rule finds enough to clear (OpenCode's behaviour), i.e.
//!   the same session with `cache: false`.
//!
//! Both compact (with the offline digest as the summary) when the history is over the limit. The
//! simulated provider caches the longest common prefix with the previous request (Anthropic-style:
//! nothing below 1024 tokens), charges cached tokens at 0.1× and everything else as a 1.25× cache
//! write; a compaction adds its summary request (the summarized messages read uncached, the summary
//! written at 5× the input price). Costs are in input-token units. Run with `--nocapture` to see the
//! table (pkg-tests/bench/README.md shows it).

mod corpus_files;

use corpus_files::corpus;
use ctxfold::compaction::apply::offline_summaries;
use ctxfold::counting::estimate::estimate;
use ctxfold::edit::materialize;
use ctxfold::options::Options;
use ctxfold::prompt_cache::session::{SessionCore, SessionOptions, Usage};
use ctxfold::reading::input::Input;
use serde_json::{json, Value};

const FILES: &[&str] = &["mini-swe-agent-tools.jsonl", "swe-agent.jsonl", "tau-bench-airline.jsonl", "toolbench.jsonl"];
/// Conversations replayed per file: enough for a stable comparison, few enough for a quick test.
const PER_FILE: usize = 30;
const MIN_CACHEABLE: u64 = 1024;
const READ: f64 = 0.1;
const WRITE: f64 = 1.25;
const OUTPUT: f64 = 5.0;

#[derive(Default, Debug, Clone, Copy)]
struct Tally {
    requests: u64,
    prompt: u64,
    cached: u64,
    cost: f64,
    /// Requests whose prefix differed from the previous request's.
    invalidating: u64,
    prunes: u64,
    compactions: u64,
}

/// Replays one conversation: a request before each assistant message, of the session's history.
fn replay(messages: &[Value], options: Value) -> Tally {
    let mut session = SessionCore::new(SessionOptions::from_json(&options).unwrap());
    let counting = Options::default();
    let mut history: Vec<Value> = Vec::new();
    let mut previous: Vec<Value> = Vec::new();
    let mut tally = Tally::default();
    for (k, m) in messages.iter().enumerate() {
        if m["role"] != "assistant" || k == 0 {
            history.push(m.clone());
            continue;
        }
        let mut prepared = session.prepare(&Input::items(&history)).unwrap();
        if prepared.action == "compact" {
            let plan = serde_json::to_value(prepared.plan.as_ref().unwrap()).unwrap();
            let summaries = offline_summaries(&Input::items(&history), &plan).unwrap();
            // The summary request: the summarized messages read uncached, the summary written at
            // Anthropic's output price (5× input for Claude Sonnet).
            let per_message = estimate(&Input::items(&history), &counting).unwrap().per_message;
            let p = prepared.plan.as_ref().unwrap();
            let read: u64 = p.summarize.iter().flat_map(|r| &per_message[r.start..r.end]).map(|&t| u64::from(t)).sum();
            let written: f64 = summaries.values().map(|v| counting.profile.text(v.as_str().unwrap_or(""))).sum();
            tally.cost += read as f64 + written * OUTPUT;
            let applied = session.apply_summary(&Input::items(&history), &Value::Object(summaries)).unwrap();
            history = materialize(&applied.slots, &history);
            prepared = session.prepare(&Input::items(&history)).unwrap();
        }
        if let Some(slots) = &prepared.slots {
            history = materialize(slots, &history);
        }
        // The simulated provider: the longest common prefix with the previous request is cached.
        let per_message = estimate(&Input::items(&history), &counting).unwrap().per_message;
        let prompt: u64 = per_message.iter().map(|&t| u64::from(t)).sum();
        let common = history.iter().zip(&previous).take_while(|(a, b)| a == b).count();
        let prefix: u64 = per_message[..common].iter().map(|&t| u64::from(t)).sum();
        let cached = if prefix >= MIN_CACHEABLE { prefix } else { 0 };
        let write = prompt - cached;
        session
            .record(Usage { prompt_tokens: prompt, cached_tokens: cached, cache_write_tokens: write, output_tokens: 0 })
            .unwrap();
        tally.requests += 1;
        tally.prompt += prompt;
        tally.cached += cached;
        tally.cost += cached as f64 * READ + write as f64 * WRITE;
        previous = history.clone();
        history.push(m.clone());
    }
    let health = session.health();
    tally.invalidating = health.timeline.iter().filter(|r| r.changed_at.is_some()).count() as u64;
    tally.prunes = u64::from(health.prunes.count);
    tally.compactions = u64::from(health.compactions.count);
    tally
}

fn add(a: &mut Tally, b: Tally) {
    a.requests += b.requests;
    a.prompt += b.prompt;
    a.cached += b.cached;
    a.cost += b.cost;
    a.invalidating += b.invalidating;
    a.prunes += b.prunes;
    a.compactions += b.compactions;
}

#[test]
fn the_session_costs_less_than_pruning_on_every_turn() {
    let base = json!({ "contextWindow": 32000, "protectTokens": 4000, "minimumPruneTokens": 1000 });
    let mut with_cache = base.clone();
    with_cache["cache"] = json!(true);
    let mut every_turn = base.clone();
    every_turn["cache"] = json!(false);

    println!("| corpus | conversations | requests | policy | prunes | compactions | cache-invalidating requests | prompt tokens | cache hit rate | simulated cost |");
    println!("|---|---:|---:|---|---:|---:|---:|---:|---:|---:|");
    let (mut all_session, mut all_every) = (Tally::default(), Tally::default());
    for file in FILES {
        let conversations: Vec<Vec<Value>> = corpus(file)
            .into_iter()
            .take(PER_FILE)
            .map(|(_, c)| c)
            .filter(|c| c.iter().any(|m| m.get("tool_calls").is_some()))
            .collect();
        let (mut s, mut e) = (Tally::default(), Tally::default());
        for c in &conversations {
            add(&mut s, replay(c, with_cache.clone()));
            add(&mut e, replay(c, every_turn.clone()));
        }
        for (name, t) in [("session", s), ("every turn", e)] {
            println!(
                "| {file} | {} | {} | {name} | {} | {} | {} | {} | {:.1}% | {:.0} |",
                conversations.len(),
                t.requests,
                t.prunes,
                t.compactions,
                t.invalidating,
                t.prompt,
                100.0 * t.cached as f64 / t.prompt.max(1) as f64,
                t.cost
            );
        }
        assert_eq!(s.requests, e.requests);
        assert!(
            s.invalidating <= e.invalidating,
            "{file}: the session rewrote the prefix more often ({} > {})",
            s.invalidating,
            e.invalidating
        );
        add(&mut all_session, s);
        add(&mut all_every, e);
    }
    println!(
        "| all | | {} | session vs every turn | {} vs {} | {} vs {} | {} vs {} | {} vs {} | | {:.0} vs {:.0} ({:.1}% less) |",
        all_session.requests, all_session.prunes, all_every.prunes, all_session.compactions, all_every.compactions,
        all_session.invalidating, all_every.invalidating, all_session.prompt, all_every.prompt,
        all_session.cost, all_every.cost, 100.0 * (1.0 - all_session.cost / all_every.cost)
    );
    assert!(all_every.prunes > 0, "the corpus must exercise pruning for the comparison to mean anything");
    assert!(
        all_session.cost < all_every.cost,
        "the session must cost less: {:.0} vs {:.0}",
        all_session.cost,
        all_every.cost
    );
    assert!(all_session.invalidating < all_every.invalidating);
}
