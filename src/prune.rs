//! `prune`: clears old tool outputs without an LLM, cheaply, every turn. OpenCode's rule: walk the
//! tool outputs from newest to oldest, leave the newest `protectTokens` worth alone, and clear the
//! older ones only if together they free at least `minimumPruneTokens` (small prunes would rewrite
//! the prompt prefix, and lose the provider's cache, for too little gain).

use crate::edit::Slot;
use crate::error::Result;
use crate::estimate::{message_tokens, sum};
use crate::format;
use crate::input::Input;
use crate::options::Options;
use serde::Serialize;

#[derive(Debug, Clone, PartialEq)]
pub struct Prune {
    pub slots: Vec<Slot>,
    pub report: PruneReport,
}

/// The result without the messages (the binding adds them from `slots`).
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct PruneReport {
    pub pruned: Vec<Pruned>,
    pub tokens_before: u64,
    pub tokens_after: u64,
    pub format: &'static str,
    /// With `options.cache`: whether the prune paid for the cache it invalidates (when it did not,
    /// nothing was cleared).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache: Option<crate::cache_cost::CacheDecision>,
}

/// One cleared tool output (a message can hold several: Anthropic, Gemini and AI SDK group results).
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Pruned {
    /// Index of the message holding the result, in the input and the output alike.
    pub index: usize,
    pub tool_call_id: String,
    pub tool_name: String,
    /// Tokens of the output before and after clearing.
    pub tokens_before: u32,
    pub tokens_after: u32,
}

pub fn prune(input: &Input, options: &Options) -> Result<Prune> {
    let conv = format::read(input, options.format)?;
    let profile = &options.profile;
    let tokens: Vec<u32> = conv.messages.iter().map(|m| message_tokens(m, profile)).collect();
    let tokens_before = sum(&tokens);
    let placeholder_tokens = profile.text(&options.placeholder);

    // Newest to oldest: the first `protect_tokens` of output stay; older outputs become candidates.
    let mut seen = 0f64;
    let mut candidates: Vec<(usize, usize)> = Vec::new();
    let mut freed = 0f64;
    for (i, m) in conv.messages.iter().enumerate().rev() {
        for (k, result) in m.tool_results.iter().enumerate().rev() {
            let name = conv.links.tool_name(i, k).unwrap_or("");
            if options.is_protected_tool(name) || !result.clearable {
                continue;
            }
            let output = profile.text(&result.text);
            seen += output;
            if result.text == options.placeholder || seen <= f64::from(options.protect_tokens) {
                continue;
            }
            candidates.push((i, k));
            freed += output - placeholder_tokens;
        }
    }
    let keep_all = || (0..conv.len()).map(Slot::Keep).collect::<Vec<_>>();
    if candidates.is_empty() || freed < f64::from(options.minimum_prune_tokens) {
        let report = PruneReport { pruned: Vec::new(), tokens_before, tokens_after: tokens_before, format: conv.format.name(), cache: None };
        return Ok(Prune { slots: keep_all(), report });
    }
    let cache = options.cache.as_ref().map(|prices| crate::cache_cost::judge_prune(&conv, &tokens, &candidates, placeholder_tokens, prices, options));
    if let Some(decision) = cache.as_ref().filter(|d| !d.applied) {
        let report = PruneReport { pruned: Vec::new(), tokens_before, tokens_after: tokens_before, format: conv.format.name(), cache: Some(decision.clone()) };
        return Ok(Prune { slots: keep_all(), report });
    }

    candidates.reverse(); // message order, and result order inside a message
    let mut slots = keep_all();
    let mut pruned = Vec::with_capacity(candidates.len());
    let mut tokens_after = tokens_before;
    for group in candidates.chunk_by(|a, b| a.0 == b.0) {
        let i = group[0].0;
        let mut cleared = conv.messages[i].clone();
        let mut edits = Vec::new();
        for &(_, k) in group {
            cleared.tool_results[k].text = options.placeholder.as_str().into();
            edits.extend(conv.format.clear_result(&input.items[i], &conv.messages[i].tool_results[k], &options.placeholder));
        }
        let after = message_tokens(&cleared, profile);
        tokens_after = tokens_after - u64::from(tokens[i]) + u64::from(after);
        slots[i] = Slot::Patch { index: i, edits };
        for &(_, k) in group {
            let result = &conv.messages[i].tool_results[k];
            let before = profile.text(&result.text).ceil() as u32;
            pruned.push(Pruned {
                index: i,
                tool_call_id: result.id.to_string(),
                tool_name: conv.links.tool_name(i, k).unwrap_or("").to_string(),
                tokens_before: before,
                tokens_after: placeholder_tokens.ceil() as u32,
            });
        }
    }
    Ok(Prune { slots, report: PruneReport { pruned, tokens_before, tokens_after, format: conv.format.name(), cache } })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edit::materialize;
    use crate::fixtures::agent_run;
    use serde_json::Value;
    use serde_json::json;

    fn opts(v: Value) -> Options {
        Options::from_json(&v).unwrap()
    }

    #[test]
    fn clears_old_outputs_and_protects_the_newest() {
        let msgs = agent_run(40, 500);
        let o = opts(json!({ "protectTokens": 5000, "minimumPruneTokens": 1000 }));
        let p = prune(&Input::items(&msgs), &o).unwrap();
        assert_eq!(p.slots.len(), msgs.len());
        assert!(!p.report.pruned.is_empty());
        assert!(p.report.tokens_after < p.report.tokens_before);
        let newest = msgs.len() - 1;
        assert!(p.report.pruned.iter().all(|x| x.index != newest), "the newest output is protected");
        let out = materialize(&p.slots, &msgs);
        for x in &p.report.pruned {
            assert_eq!(out[x.index]["content"], json!(crate::options::DEFAULT_PLACEHOLDER));
            assert_eq!(out[x.index]["tool_call_id"], msgs[x.index]["tool_call_id"]);
        }
    }

    #[test]
    fn prunes_nothing_below_the_minimum() {
        let msgs = agent_run(40, 500);
        let o = opts(json!({ "protectTokens": 5000, "minimumPruneTokens": 10_000_000 }));
        let p = prune(&Input::items(&msgs), &o).unwrap();
        assert!(p.report.pruned.is_empty());
        assert!(p.slots.iter().enumerate().all(|(i, s)| *s == Slot::Keep(i)));
    }

    #[test]
    fn protected_tools_are_never_cleared() {
        let msgs = agent_run(40, 500);
        let o = opts(json!({ "protectTokens": 0, "minimumPruneTokens": 0, "protectedTools": ["Skill"] }));
        let p = prune(&Input::items(&msgs), &o).unwrap();
        assert!(p.report.pruned.iter().all(|x| x.tool_name == "bash"));
        assert!(!p.report.pruned.is_empty());
    }

    #[test]
    fn pruning_twice_equals_pruning_once() {
        let msgs = agent_run(40, 500);
        let o = opts(json!({ "protectTokens": 5000, "minimumPruneTokens": 1000 }));
        let once = materialize(&prune(&Input::items(&msgs), &o).unwrap().slots, &msgs);
        let again = prune(&Input::items(&once), &o).unwrap();
        assert!(again.report.pruned.is_empty());
        assert_eq!(materialize(&again.slots, &once), once);
    }

    #[test]
    fn with_cache_prices_a_prune_waits_until_it_pays() {
        // 40 outputs of ~1200 tokens (~49 000 in all), cached but the newest message. Protecting the
        // newest 35 000 leaves ~14 000 to clear from near the start: the next request writes again
        // ~35 000 cached tokens, which 10 requests of reading 14 000 fewer do not pay back.
        let msgs = agent_run(40, 500);
        let o = opts(json!({ "protectTokens": 35000, "minimumPruneTokens": 1000, "cache": true }));
        let p = prune(&Input::items(&msgs), &o).unwrap();
        let d = p.report.cache.clone().unwrap();
        assert!(!d.applied && d.net_saving < 0.0, "{d:?}");
        assert!(p.report.pruned.is_empty() && p.slots.iter().enumerate().all(|(i, s)| *s == Slot::Keep(i)));
        // With nothing cached, or a long horizon, the same prune is made.
        for cache in [json!({ "cachedPrefixTokens": 0 }), json!({ "horizon": 200 })] {
            let o = opts(json!({ "protectTokens": 35000, "minimumPruneTokens": 1000, "cache": cache }));
            let p = prune(&Input::items(&msgs), &o).unwrap();
            assert!(p.report.cache.as_ref().unwrap().applied && !p.report.pruned.is_empty());
        }
    }
}
