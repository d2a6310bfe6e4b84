//! `prune`: clears old tool outputs without an LLM, cheaply, every turn. OpenCode's rule: walk the
//! tool outputs from newest to oldest, leave the newest `protectTokens` worth alone, and clear the
//! older ones only if together they free at least `minimumPruneTokens` (small prunes would rewrite
//! the prompt prefix, and lose the provider's cache, for too little gain). `protectResults` also keeps
//! the newest outputs by count, and a placeholder may say how much went (`[truncated: {chars} chars]`).
//! The newest output is not cleared: one larger than `protectTokens` keeps its head and tail within
//! them, with the size of the cut (the model asked for it and has not read it yet).

use crate::counting::estimate::{message_tokens, per_message, sum, KnownTokens};
use crate::counting::profiles::Profile;
use crate::edit::{FieldEdit, Key, Slot};
use crate::error::Result;
use crate::options::Options;
use crate::pruning::arguments;
use crate::reading::format;
use crate::reading::format::as_text;
use crate::reading::input::Input;
use crate::reading::message::{Media, ToolResult};
use crate::text::cut_to_tokens;
use serde_json::Value;

#[derive(Debug, Clone, PartialEq)]
pub struct Prune {
    pub slots: Vec<Slot>,
    pub report: PruneReport,
    /// The input's messages as counted: a plan on the output takes the tokens of those it kept
    /// (`KnownTokens::through` the slots).
    pub counted: KnownTokens,
}

/// The result without the messages (the binding adds them from `slots`).
#[derive(Debug, Clone, PartialEq)]
pub struct PruneReport {
    pub pruned: Vec<Pruned>,
    /// Tool calls whose long arguments were shortened (`maxArgumentChars`); `index` is the calling message.
    pub cut_arguments: Vec<Pruned>,
    pub tokens_before: u64,
    pub tokens_after: u64,
    pub format: &'static str,
    /// With `options.cache`: whether the prune paid for the cache it invalidates (when it did not,
    /// nothing was cleared).
    pub cache: Option<crate::prompt_cache::cache_cost::CacheDecision>,
}

crate::json_object!(PruneReport {
    pruned => "pruned",
    cut_arguments => "cutArguments",
    tokens_before => "tokensBefore",
    tokens_after => "tokensAfter",
    format => "format",
    cache if some => "cache",
});

/// One cleared tool output (a message can hold several: Anthropic, Gemini and AI SDK group results).
#[derive(Debug, Clone, PartialEq)]
pub struct Pruned {
    /// Index of the message holding the result, in the input and the output alike.
    pub index: usize,
    pub tool_call_id: String,
    pub tool_name: String,
    /// Tokens of the output before and after clearing.
    pub tokens_before: u32,
    pub tokens_after: u32,
    /// The newest output, too large to keep whole: its head and tail were kept instead of a placeholder.
    pub cut: bool,
}

crate::json_object!(Pruned {
    index => "index",
    tool_call_id => "toolCallId",
    tool_name => "toolName",
    tokens_before => "tokensBefore",
    tokens_after => "tokensAfter",
    cut => "cut",
});

/// Below this `protectTokens`, a cut would keep too little to read: the newest output is cleared like
/// the others (`0` protects nothing).
const MIN_CUT_TOKENS: u32 = 200;
/// The share of `protectTokens` a cut output is cut to: the rest is room for the format's own framing
/// of the output, so that, cut, it is protected the next time (pruning twice equals pruning once).
const CUT_SHARE: f64 = 0.8;

pub fn prune(input: &Input, options: &Options) -> Result<Prune> {
    let conv = format::read(input, options.format)?;
    let profile = &options.profile;
    let tokens = per_message(&conv, profile);
    let tokens_before = sum(&tokens);
    let counted = KnownTokens::of(&conv, profile, &tokens);

    // Newest to oldest: the first `protect_tokens` of output (and `protect_results` outputs) stay;
    // older outputs become candidates, each with the text that replaces it.
    let mut seen = 0f64;
    let mut count = 0u32;
    let mut candidates: Vec<(usize, usize, String)> = Vec::new();
    let mut freed = 0f64;
    // The calls whose outputs are cleared, now or earlier, by calling message: their long arguments
    // may go too. Kept per caller so the look-up below stays linear in the history.
    let mut old_calls: Vec<Vec<&str>> = vec![Vec::new(); conv.len()];
    for (i, m) in conv.messages.iter().enumerate().rev() {
        for (k, result) in m.tool_results.iter().enumerate().rev() {
            let name = conv.links.tool_name(i, k).unwrap_or("");
            if options.is_protected_tool(name) || !result.clearable {
                continue;
            }
            let output = output_tokens(result, profile);
            seen += output;
            count += 1;
            let cleared = is_placeholder(&result.text, &options.placeholder);
            // The newest output's images (a screenshot) are what the model looks at next: a cut would
            // drop them with the rest, so an output with images is not cut and the newest is not cleared.
            let protected = seen <= f64::from(options.protect_tokens)
                || count <= options.protect_results
                || (count == 1 && result.media.count() > 0);
            if count == 1 && !cleared && !protected && options.protect_tokens >= MIN_CUT_TOKENS {
                let target = f64::from(options.protect_tokens) * CUT_SHARE;
                let cut = cut_to_tokens(&result.text, target, |t| profile.text(t));
                if profile.text(&cut) <= target {
                    freed += output - profile.text(&cut);
                    candidates.push((i, k, cut.into_owned()));
                    continue;
                }
            }
            if cleared || !protected {
                if let Some(Some((caller, _))) = conv.links.callers[i].get(k) {
                    old_calls[*caller].push(&result.id);
                }
            }
            if cleared || protected {
                continue;
            }
            let placeholder = placeholder_for(&options.placeholder, &result.text);
            let saved = output - profile.text(&placeholder);
            if saved <= 0.0 {
                continue; // shorter than its placeholder: clearing it would add tokens
            }
            freed += saved;
            candidates.push((i, k, placeholder));
        }
    }
    // Their arguments, shortened: (message, call, new arguments, its text).
    let mut cuts: Vec<(usize, usize, Vec<Key>, Value)> = Vec::new();
    if let Some(max) = options.max_argument_chars {
        for (i, m) in conv.messages.iter().enumerate() {
            for (k, call) in m.tool_calls.iter().enumerate() {
                if !old_calls[i].contains(&call.id.as_ref()) || options.is_protected_tool(call.name) {
                    continue;
                }
                let Some(path) = conv.format.arguments_path(&input.items[i], k) else { continue };
                let Some(short) = value_at(&input.items[i], &path).and_then(|v| arguments::shorten(v, max as usize))
                else {
                    continue;
                };
                freed += profile.message_text(&call.arguments) - profile.text(&as_text(&short));
                cuts.push((i, k, path, short));
            }
        }
    }
    // Nothing cleared: the history as it was, with why when the cache rule decided it.
    let unchanged = |cache| {
        let report = PruneReport {
            pruned: Vec::new(),
            cut_arguments: Vec::new(),
            tokens_before,
            tokens_after: tokens_before,
            format: conv.format.name(),
            cache,
        };
        Ok(Prune { slots: Slot::keep_all(conv.len()), report, counted: counted.clone() })
    };
    if (candidates.is_empty() && cuts.is_empty()) || freed < f64::from(options.minimum_prune_tokens) {
        return unchanged(None);
    }
    // With cache prices: only when the tokens saved pay for the cached prefix the edits invalidate.
    let cache = options.cache.as_ref().map(|prices| {
        let mut saved: Vec<(usize, u64)> = Vec::with_capacity(candidates.len() + cuts.len());
        for (i, k, placeholder) in &candidates {
            saved.push((
                *i,
                (profile.message_text(&conv.messages[*i].tool_results[*k].text) - profile.text(placeholder)).max(0.0)
                    as u64,
            ));
        }
        for (i, k, _, short) in &cuts {
            saved.push((
                *i,
                (profile.message_text(&conv.messages[*i].tool_calls[*k].arguments) - profile.text(&as_text(short)))
                    .max(0.0) as u64,
            ));
        }
        crate::prompt_cache::cache_cost::judge_prune(&tokens, &saved, prices, options)
    });
    if let Some(decision) = cache.as_ref().filter(|d| !d.applied) {
        return unchanged(Some(decision.clone()));
    }

    candidates.reverse(); // message order, and result order inside a message
    let mut slots = Slot::keep_all(conv.len());
    let mut pruned = Vec::with_capacity(candidates.len());
    let mut tokens_after = tokens_before;
    for group in candidates.chunk_by(|a, b| a.0 == b.0) {
        let i = group[0].0;
        let mut cleared = conv.messages[i].clone();
        let mut edits = Vec::new();
        for (_, k, placeholder) in group {
            cleared.tool_results[*k].text = placeholder.as_str().into();
            cleared.tool_results[*k].media = Media::default();
            edits.extend(conv.format.clear_result(&input.items[i], &conv.messages[i].tool_results[*k], placeholder));
        }
        let after = message_tokens(&cleared, profile);
        tokens_after = tokens_after - u64::from(tokens[i]) + u64::from(after);
        slots[i] = Slot::Patch { index: i, edits };
        for (_, k, placeholder) in group {
            let result = &conv.messages[i].tool_results[*k];
            pruned.push(Pruned {
                index: i,
                tool_call_id: result.id.to_string(),
                tool_name: conv.links.tool_name(i, *k).unwrap_or("").to_string(),
                tokens_before: output_tokens(result, profile).ceil() as u32,
                tokens_after: profile.text(placeholder).ceil() as u32,
                cut: *placeholder != placeholder_for(&options.placeholder, &result.text),
            });
        }
    }
    let mut cut_arguments = Vec::with_capacity(cuts.len());
    for group in cuts.chunk_by(|a, b| a.0 == b.0) {
        let i = group[0].0;
        let mut shortened = conv.messages[i].clone();
        let mut edits = Vec::new();
        for (_, k, path, short) in group {
            let call = &conv.messages[i].tool_calls[*k];
            shortened.tool_calls[*k].arguments = as_text(short).into_owned().into();
            cut_arguments.push(Pruned {
                index: i,
                tool_call_id: call.id.to_string(),
                tool_name: call.name.to_string(),
                tokens_before: profile.message_text(&call.arguments).ceil() as u32,
                tokens_after: profile.text(&shortened.tool_calls[*k].arguments).ceil() as u32,
                cut: true,
            });
            edits.push(FieldEdit::set(path.clone(), short.clone()));
        }
        tokens_after = tokens_after - u64::from(tokens[i]) + u64::from(message_tokens(&shortened, profile));
        // A message whose results were cleared too (one format item holding both) keeps both edits.
        if let Slot::Patch { edits: earlier, .. } = &mut slots[i] {
            earlier.extend(edits);
        } else {
            slots[i] = Slot::Patch { index: i, edits };
        }
    }
    Ok(Prune {
        slots,
        report: PruneReport { pruned, cut_arguments, tokens_before, tokens_after, format: conv.format.name(), cache },
        counted,
    })
}

/// An output's tokens as the history pays them: its text and its images and files.
fn output_tokens(result: &ToolResult, profile: &Profile) -> f64 {
    profile.message_text(&result.text) + profile.media_tokens(&result.media)
}

/// The value at `path` inside `item`.
fn value_at<'a>(item: &'a Value, path: &[Key]) -> Option<&'a Value> {
    path.iter().try_fold(item, |v, key| match key {
        Key::Field(f) => v.get(f.as_str()),
        Key::Index(i) => v.get(*i),
    })
}

/// The text that replaces `output`: the placeholder, with `{chars}` as the output's length in characters.
fn placeholder_for(template: &str, output: &str) -> String {
    match template.contains("{chars}") {
        true => template.replace("{chars}", &output.chars().count().to_string()),
        false => template.to_string(),
    }
}

/// Whether `text` is already a placeholder made from `template` (so pruning twice equals pruning once).
fn is_placeholder(text: &str, template: &str) -> bool {
    match template.split_once("{chars}") {
        None => text == template,
        Some((head, tail)) => text
            .strip_prefix(head)
            .and_then(|rest| rest.strip_suffix(tail))
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edit::materialize;
    use crate::fixtures::agent_run;
    use serde_json::json;
    use serde_json::Value;

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
    fn the_newest_outputs_can_be_kept_by_count_and_placeholders_can_say_how_much_went() {
        let msgs = agent_run(12, 500);
        let o = opts(
            json!({ "protectTokens": 0, "minimumPruneTokens": 0, "protectResults": 4, "placeholder": "[truncated: {chars} chars]" }),
        );
        let p = prune(&Input::items(&msgs), &o).unwrap();
        let results: Vec<usize> = (0..msgs.len()).filter(|&i| msgs[i]["role"] == "tool").collect();
        let cleared: Vec<usize> = p.report.pruned.iter().map(|x| x.index).collect();
        assert_eq!(cleared, results[..results.len() - 4], "all but the newest four");
        let out = materialize(&p.slots, &msgs);
        let first = cleared[0];
        let chars = msgs[first]["content"].as_str().unwrap().chars().count();
        assert_eq!(out[first]["content"], json!(format!("[truncated: {chars} chars]")));
        let again = prune(&Input::items(&out), &o).unwrap();
        assert!(again.report.pruned.is_empty(), "a placeholder is not truncated again");
    }

    #[test]
    fn the_newest_output_over_the_protection_keeps_its_head_and_tail() {
        let mut msgs = agent_run(6, 200);
        let newest = msgs.len() - 1;
        let huge = format!("BEGIN {} END", "row 42 of the listing, status ok\n".repeat(20_000));
        msgs[newest]["content"] = json!(huge);
        let o = opts(json!({ "protectTokens": 2000, "minimumPruneTokens": 0 }));
        let p = prune(&Input::items(&msgs), &o).unwrap();
        let cut = p.report.pruned.iter().find(|x| x.index == newest).expect("the newest output is cut");
        assert!(cut.cut && cut.tokens_after <= 1600 && cut.tokens_before > 100_000, "{cut:?}");
        assert!(p.report.pruned.iter().filter(|x| x.index != newest).all(|x| !x.cut));
        let out = materialize(&p.slots, &msgs);
        let text = out[newest]["content"].as_str().unwrap();
        assert!(text.starts_with("BEGIN row 42") && text.ends_with("status ok\n END"), "head and tail");
        assert!(text.contains("characters cut"), "the cut says its size");
        let again = prune(&Input::items(&out), &o).unwrap();
        assert!(again.report.pruned.is_empty(), "pruning again leaves it as it is");
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
