//! `cache_breakpoints`: where to put Anthropic's `cache_control` markers in a request.
//!
//! Anthropic caches the prompt prefix up to each marked block (tools, then system, then messages),
//! at most 4 markers per request, and only prefixes of at least a model-dependent length. A request
//! reads an entry when one of its markers sits at, or at most about 20 blocks after, the end of a
//! cached prefix. So a marker is worth the tokens it lets a later request read: the prefix it
//! covers, times the chance that prefix is still unchanged next time. We choose markers greedily by
//! that expected value, counting the host's own markers as already placed.

use crate::counting::estimate::{per_message, request_overhead};
use crate::counting::profiles::CLAUDE;
use crate::edit::{FieldEdit, Key, Slot};
use crate::error::{Error, Result};
use crate::options::Options;
use crate::pruning::prune::prune;
use crate::reading::format::{self, fields, with, Format};
use crate::reading::input::Input;
use crate::text::json_text;
use serde_json::{Map, Value};

/// Anthropic accepts at most this many `cache_control` markers per request.
pub const MAX_BREAKPOINTS: usize = 4;
/// A request finds a cached prefix ending at most this many blocks before one of its markers.
pub const LOOKBACK_BLOCKS: usize = 20;

/// Chance that the prefix is unchanged in the next request: tools and system prompt are set once per
/// session; messages before the first one prune would clear stay; later ones may be rewritten.
const REUSE_FIXED: f64 = 0.95;
const REUSE_STABLE: f64 = 0.9;
const REUSE_VOLATILE: f64 = 0.6;
/// Chance that this request reads what the previous one wrote (it expires after 5 minutes idle).
const REUSE_PREVIOUS: f64 = 0.9;

/// The shortest cacheable prefix per model family, from Anthropic's prompt-caching documentation:
/// Claude Opus 4.5/4.6 and Haiku 4.5: 4096; Sonnet 4.6 and Haiku 3/3.5: 2048; the other models 1024.
pub fn min_cacheable_tokens(model: Option<&str>) -> u32 {
    let m = model.unwrap_or("").to_ascii_lowercase();
    let has = |s: &str| m.contains(s);
    if has("opus-4-5") || has("opus-4-6") || has("opus-4.5") || has("opus-4.6") || has("haiku-4-5") || has("haiku-4.5")
    {
        4096
    } else if has("sonnet-4-6") || has("sonnet-4.6") || has("3-haiku") || has("3-5-haiku") || has("3.5-haiku") {
        2048
    } else {
        1024
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct BreakpointOptions {
    pub base: Options,
    /// Also return a copy of the request with the markers applied.
    pub apply: bool,
    /// `cache_control.ttl` ("5m" or "1h"); absent means the API's default (5 minutes).
    pub ttl: Option<String>,
    pub min_tokens: u32,
}

const OWN_KEYS: [&str; 3] = ["apply", "ttl", "minCacheableTokens"];

impl BreakpointOptions {
    pub fn from_json(v: &Value) -> Result<BreakpointOptions> {
        let empty = Map::new();
        let obj = match v {
            Value::Null => &empty,
            Value::Object(o) => o,
            other => return Err(Error::option("options", crate::error::expected("an object", other))),
        };
        // Inserted one by one: collecting into a map would bring a sort into the WebAssembly.
        let mut rest = Map::new();
        for (k, v) in obj.iter().filter(|(k, _)| !OWN_KEYS.contains(&k.as_str())) {
            rest.insert(k.clone(), v.clone());
        }
        let mut base = Options::from_json(&Value::Object(rest))?;
        let model = obj.get("model").and_then(Value::as_str);
        if model.is_none() && !obj.contains_key("tokenizer") {
            base.profile = CLAUDE; // these are Anthropic requests
        }
        let apply = match obj.get("apply") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(b)) => *b,
            Some(other) => return Err(Error::option("options.apply", crate::error::expected("a boolean", other))),
        };
        let ttl = match obj.get("ttl") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) if s == "5m" || s == "1h" => Some(s.clone()),
            Some(other) => {
                return Err(Error::option(
                    "options.ttl",
                    format!("expected \"5m\" or \"1h\", got {}", crate::text::json_text(other)),
                ))
            }
        };
        let min_tokens = match obj.get("minCacheableTokens") {
            None | Some(Value::Null) => min_cacheable_tokens(model),
            Some(v) => v.as_u64().filter(|&n| n <= u64::from(u32::MAX)).map(|n| n as u32).ok_or_else(|| {
                Error::option(
                    "options.minCacheableTokens",
                    ["expected a whole number of tokens, got ", &json_text(v)].concat(),
                )
            })?,
        };
        Ok(BreakpointOptions { base, apply, ttl, min_tokens })
    }
}

/// One chosen marker.
#[derive(Debug, Clone, PartialEq)]
pub struct Breakpoint {
    /// `"tools"`, `"system"` or `"message"`.
    pub target: &'static str,
    /// The message's index (for `"message"`).
    pub index: Option<usize>,
    /// The block that carries `cache_control`: in the message's `content`, in `system`, in `tools`.
    pub block: usize,
    /// Estimated tokens of the prefix the marker ends.
    pub tokens: u64,
    /// What the marker adds to the expected cached tokens (this request's and the next one's).
    pub expected_tokens: u64,
    pub reason: String,
}

crate::json_object!(Breakpoint {
    target => "target",
    index if some => "index",
    block => "block",
    tokens => "tokens",
    expected_tokens => "expectedTokens",
    reason => "reason",
});

#[derive(Debug, Clone, PartialEq)]
pub struct BreakpointReport {
    /// The chosen markers, in request order.
    pub breakpoints: Vec<Breakpoint>,
    /// Markers the host already placed (they count toward the 4).
    pub existing: usize,
    /// The shortest prefix a marker may end (smaller ones are not cached).
    pub min_tokens: u32,
    /// The first message that a prune or a compaction would rewrite (markers after it are less
    /// likely to be read).
    pub volatile_from: usize,
    pub warnings: Vec<String>,
}

crate::json_object!(BreakpointReport {
    breakpoints => "breakpoints",
    existing => "existing",
    min_tokens => "minTokens",
    volatile_from => "volatileFrom",
    warnings => "warnings",
});

#[derive(Debug, Clone, PartialEq)]
pub struct Breakpoints {
    pub report: BreakpointReport,
    /// Message edits (all `Keep` when nothing is applied).
    pub slots: Vec<Slot>,
    /// Edits of the request body (`system`, `tools`), when it is one.
    pub body_edits: Vec<FieldEdit>,
}

/// A place a marker can go, in request order.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Place {
    target: &'static str,
    index: Option<usize>,
    block: usize,
    /// Prefix tokens through this place.
    tokens: u64,
    /// Blocks in the request up to and including this place (for the lookback rule).
    blocks: usize,
    reuse: f64,
    existing: bool,
}

pub fn cache_breakpoints(body: &Value, options: &BreakpointOptions) -> Result<Breakpoints> {
    let input = Input::read(body)?;
    let o = &options.base;
    // Markers are Anthropic's (other providers cache prefixes without them): read the history as
    // Anthropic's, whatever a detection would guess for a plain-text history.
    if let Some(other) = o.format.filter(|f| *f != Format::Anthropic) {
        return Err(Error::option(
            "options.format",
            format!("cache_control markers are Anthropic's, not {}'s", other.name()),
        ));
    }
    let conv = format::read(&input, Some(Format::Anthropic))?;
    let profile = o.profile;
    let tokens = per_message(&conv, &profile);
    let volatile_from = volatile_from(&input, o, &tokens)?;

    let mut places = Vec::new();
    let mut blocks = 0usize;
    let mut covered = profile.per_reply;
    let tools = if input.key.is_some() { body.get("tools").and_then(Value::as_array) } else { None };
    if let Some(tools) = tools.filter(|t| !t.is_empty() && o.tools.is_empty()) {
        for tool in tools {
            covered += profile.per_tool + profile.text(&crate::text::json_text(tool));
        }
        blocks += tools.len();
        let last = tools.len() - 1;
        places.push(Place {
            target: "tools",
            index: None,
            block: last,
            tokens: covered.ceil() as u64,
            blocks,
            reuse: REUSE_FIXED,
            existing: tools.iter().any(has_marker),
        });
    }
    // The system prompt (and `options.tools`) as `estimate` counts them; the reply priming is in already.
    covered += f64::from(request_overhead(o, &input, &mut |t| Ok(profile.text(t)))?) - profile.per_reply;
    if let (Some(system), Some(_)) = (input.system, input.key) {
        let (count, last, existing) = match system {
            Value::Array(b) => (b.len(), markable(b), b.iter().any(has_marker)),
            _ => (1, Some(0), false),
        };
        blocks += count;
        if let Some(block) = last {
            places.push(Place {
                target: "system",
                index: None,
                block,
                tokens: covered.ceil() as u64,
                blocks,
                reuse: REUSE_FIXED,
                existing,
            });
        }
    }
    for (i, item) in input.items.iter().enumerate() {
        covered += f64::from(tokens[i]);
        let (count, last, existing) = match item.get("content") {
            Some(Value::Array(b)) => (b.len(), markable(b), b.iter().any(has_marker)),
            Some(Value::String(s)) if !s.is_empty() => (1, Some(0), false),
            _ => (1, None, false),
        };
        blocks += count;
        let reuse = if i < volatile_from { REUSE_STABLE } else { REUSE_VOLATILE };
        if let Some(block) = last {
            places.push(Place {
                target: "message",
                index: Some(i),
                block,
                tokens: covered.ceil() as u64,
                blocks,
                reuse,
                existing,
            });
        }
    }

    // The previous request ended just before the newest user turn: this one reads that entry if a
    // marker sits at most LOOKBACK_BLOCKS blocks after its end.
    let newest_user = conv.messages.iter().rposition(|m| m.role == crate::reading::message::Role::User);
    let previous_end =
        newest_user.filter(|&u| u > 0).and_then(|u| places.iter().rposition(|p| p.index.is_some_and(|i| i < u)));

    let existing = places.iter().filter(|p| p.existing).count();
    let mut warnings = Vec::new();
    if existing > MAX_BREAKPOINTS {
        warnings.push(format!(
            "the request already has {existing} cache_control markers; Anthropic accepts at most {MAX_BREAKPOINTS}"
        ));
    }
    let mut chosen = crate::order::indices_where(0..places.len(), &|k| places[k].existing);
    let mut gains: Vec<(usize, f64)> = Vec::new();
    while chosen.len() < MAX_BREAKPOINTS {
        let base = expected(&places, &chosen, previous_end);
        let best = (0..places.len())
            .filter(|k| !chosen.contains(k) && places[*k].tokens >= u64::from(options.min_tokens))
            .map(|k| {
                let mut with = chosen.clone();
                with.push(k);
                (k, expected(&places, &with, previous_end) - base)
            })
            // Ties go to the later place: it covers more for the same expected value.
            .fold(None::<(usize, f64)>, |best, (k, gain)| match best {
                Some((_, g)) if g > gain => best,
                _ => Some((k, gain)),
            });
        match best {
            Some((k, gain)) if gain >= 1.0 => {
                chosen.push(k);
                gains.push((k, gain));
            }
            _ => break,
        }
    }
    // Request order (no sort: at most 4, and a sort would add its code to the package).
    let mut in_order = Vec::with_capacity(gains.len());
    for k in 0..places.len() {
        if let Some(g) = gains.iter().find(|g| g.0 == k) {
            in_order.push(*g);
        }
    }
    let gains = in_order;

    let n = input.items.len();
    let mut slots = Slot::keep_all(n);
    let mut body_edits = Vec::new();
    let mut breakpoints = Vec::new();
    let marker = match &options.ttl {
        Some(ttl) => Value::Object(fields(&[("type", "ephemeral"), ("ttl", ttl.as_str())])),
        None => Value::Object(fields(&[("type", "ephemeral")])),
    };
    for &(k, gain) in &gains {
        let p = places[k];
        let reason = reason(&p, Some(k) == previous_end, n, volatile_from);
        breakpoints.push(Breakpoint {
            target: p.target,
            index: p.index,
            block: p.block,
            tokens: p.tokens,
            expected_tokens: gain.round() as u64,
            reason,
        });
        if !options.apply {
            continue;
        }
        match p.index {
            Some(i) => {
                slots[i] =
                    Slot::Patch { index: i, edits: vec![mark(&input.items[i]["content"], "content", p.block, &marker)] }
            }
            None if p.target == "tools" => body_edits.push(FieldEdit::set(
                vec![Key::field("tools"), Key::Index(p.block), Key::field("cache_control")],
                marker.clone(),
            )),
            None => body_edits.push(mark(input.system.unwrap_or(&Value::Null), input.system_key(), p.block, &marker)),
        }
    }
    let report = BreakpointReport { breakpoints, existing, min_tokens: options.min_tokens, volatile_from, warnings };
    Ok(Breakpoints { report, slots, body_edits })
}

/// Expected cached tokens over this request and the next for markers at `chosen`: the next request
/// reads the longest marked prefix still unchanged (reuse chances fall along the request), and this
/// one reads the previous request's entry when a marker is close enough after it.
fn expected(places: &[Place], chosen: &[usize], previous_end: Option<usize>) -> f64 {
    let mut next = 0.0;
    for &k in chosen {
        let later = chosen.iter().filter(|&&l| l > k).min().map_or(0.0, |&l| places[l].reuse);
        next += places[k].tokens as f64 * (places[k].reuse - later).max(0.0);
    }
    let now = previous_end.map_or(0.0, |e| {
        let reached = chosen.iter().any(|&k| k >= e && places[k].blocks - places[e].blocks <= LOOKBACK_BLOCKS);
        if reached {
            places[e].tokens as f64 * REUSE_PREVIOUS
        } else {
            0.0
        }
    });
    next + now
}

/// Texts joined with `concat` rather than `format!`: each `format!` call site adds its own code to
/// the WebAssembly (measured together with the markers built without `json!`: 153 B gzip).
fn reason(p: &Place, previous: bool, n: usize, volatile_from: usize) -> String {
    let tokens = p.tokens.to_string();
    let i = p.index.map(|i| i.to_string()).unwrap_or_default();
    match (p.target, p.index) {
        ("tools", _) => "end of the tool definitions: the same in every request".into(),
        ("system", _) => "end of the system prompt: the same in every request".into(),
        (_, Some(k)) if k + 1 == n => {
            ["newest message: the next request extends this prefix of ", &tokens, " tokens"].concat()
        }
        (_, Some(_)) if previous => {
            ["message ", &i, ", before the newest user turn: this request reads the previous request's cache entry"]
                .concat()
        }
        (_, Some(k)) if k + 1 == volatile_from => {
            ["message ", &i, ", the last stable one: prune would next rewrite message ", &volatile_from.to_string()]
                .concat()
        }
        (_, Some(_)) => ["message ", &i, ": a stable prefix of ", &tokens, " tokens"].concat(),
        _ => String::new(),
    }
}

/// The first message a prune (at these options) would rewrite, or 0 when the history is over the
/// limit (a compaction would rewrite everything after the system prompt).
fn volatile_from(input: &Input, o: &Options, tokens: &[u32]) -> Result<usize> {
    if crate::counting::estimate::sum(tokens) > u64::from(o.limit()) {
        return Ok(0);
    }
    let p = prune(input, o)?;
    Ok(p.report.pruned.first().map_or(tokens.len(), |x| x.index))
}

fn has_marker(v: &Value) -> bool {
    v.get("cache_control").is_some_and(|c| !c.is_null())
}

/// The last block that may carry `cache_control`: not thinking (the API refuses markers there), not
/// a compaction block (kept byte for byte), not an empty text.
fn markable(blocks: &[Value]) -> Option<usize> {
    blocks.iter().rposition(|b| {
        let kind = b.get("type").and_then(Value::as_str).unwrap_or("");
        let empty_text = kind == "text" && b.get("text").and_then(Value::as_str).is_none_or(str::is_empty);
        b.is_object() && !matches!(kind, "thinking" | "redacted_thinking" | "compaction") && !empty_text
    })
}

/// The edit that puts `marker` on block `block` of `field` (a string becomes one text block).
fn mark(content: &Value, field: &str, block: usize, marker: &Value) -> FieldEdit {
    match content {
        Value::String(s) => {
            let block =
                Value::Object(with(fields(&[("type", "text"), ("text", s.as_str())]), "cache_control", marker.clone()));
            FieldEdit::set(vec![Key::field(field)], Value::Array(vec![block]))
        }
        _ => FieldEdit::set(vec![Key::field(field), Key::Index(block), Key::field("cache_control")], marker.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edit::materialize;
    use serde_json::json;

    fn opts(v: Value) -> BreakpointOptions {
        BreakpointOptions::from_json(&v).unwrap()
    }

    fn words(n: usize) -> String {
        "alpha beta gamma delta ".repeat(n / 4)
    }

    /// A system prompt of ~3000 tokens and a chat of 6 exchanges of ~800 tokens each.
    fn chat_body() -> Value {
        let mut messages = Vec::new();
        for t in 0..6 {
            messages.push(json!({ "role": "user", "content": format!("question {t} {}", words(800)) }));
            messages.push(json!({ "role": "assistant", "content": [{ "type": "text", "text": format!("answer {t} {}", words(800)) }] }));
        }
        messages.push(json!({ "role": "user", "content": "and now?" }));
        json!({ "model": "claude-sonnet-4-5", "max_tokens": 1000, "system": words(3000), "messages": messages })
    }

    #[test]
    fn chat_gets_the_system_prompt_and_the_newest_message() {
        // Hand-checked: nothing to prune, so every message is stable (0.9). The system prompt's
        // marker is worth 3000 × (0.95 − 0.9); the newest message's, the whole prefix × 0.9 plus
        // this request's read of the previous request's end (message 11, 1 block before it). A
        // third marker adds nothing: any earlier message has the same reuse chance as the newest.
        let b = cache_breakpoints(&chat_body(), &opts(json!({ "model": "claude-sonnet-4-5" }))).unwrap();
        let r = &b.report;
        assert_eq!(r.min_tokens, 1024);
        assert_eq!(r.volatile_from, 13);
        let at: Vec<_> = r.breakpoints.iter().map(|b| (b.target, b.index)).collect();
        assert_eq!(at, [("system", None), ("message", Some(12))]);
        assert!(r.breakpoints[1].reason.starts_with("newest message"));
        assert!(r.breakpoints[1].tokens > 12 * 800);
        assert!(b.slots.iter().enumerate().all(|(i, s)| *s == Slot::Keep(i)), "nothing applied unless asked");
    }

    #[test]
    fn applied_markers_are_copies_and_the_rest_is_untouched() {
        let body = chat_body();
        let b = cache_breakpoints(&body, &opts(json!({ "apply": true, "ttl": "1h" }))).unwrap();
        let items = body["messages"].as_array().unwrap();
        let out = materialize(&b.slots, items);
        assert_eq!(
            out[12]["content"],
            json!([{ "type": "text", "text": "and now?", "cache_control": { "type": "ephemeral", "ttl": "1h" } }])
        );
        assert_eq!(&out[..12], &items[..12]);
        assert_eq!(b.body_edits.len(), 1);
        let system = materialize(&[Slot::Patch { index: 0, edits: b.body_edits.clone() }], std::slice::from_ref(&body))
            .remove(0);
        assert_eq!(system["system"][0]["text"], body["system"]);
        assert_eq!(system["system"][0]["cache_control"]["type"], "ephemeral");
    }

    #[test]
    fn a_prunable_history_also_marks_its_last_stable_message() {
        // Hand-checked: tool outputs of ~2000 tokens; prune protects the newest 4000 tokens and
        // would clear the older ones from message 4 on, so messages from 4 are volatile (0.6).
        // Message 3 (the first call, after the ~1500-token task) is the last stable one:
        // 1500 × (0.9 − 0.6) is worth a marker; then the newest message; the system prompt's marker
        // adds (0.95 − 0.9) × its tokens only if it is cacheable (it is not: ~40 tokens).
        let mut messages = vec![json!({ "role": "user", "content": words(1500) })];
        for s in 0..8 {
            let id = format!("t{s}");
            messages.push(json!({ "role": "assistant", "content": [{ "type": "tool_use", "id": id, "name": "bash", "input": { "cmd": "ls" } }] }));
            messages.push(json!({ "role": "user", "content": [{ "type": "tool_result", "tool_use_id": id, "content": words(2000) }] }));
        }
        messages.insert(0, json!({ "role": "assistant", "content": "ready" }));
        messages.insert(0, json!({ "role": "user", "content": "hi" }));
        let body = json!({ "system": "You are a coding agent.", "messages": messages });
        let b = cache_breakpoints(
            &body,
            &opts(json!({ "protectTokens": 4000, "minimumPruneTokens": 1000, "apply": true })),
        )
        .unwrap();
        let r = &b.report;
        assert_eq!(r.volatile_from, 4, "the first tool output is message 4");
        let at: Vec<_> = r.breakpoints.iter().map(|b| b.index).collect();
        assert_eq!(at, [Some(3), Some(18)]);
        assert!(r.breakpoints[0].reason.contains("last stable"), "{}", r.breakpoints[0].reason);
        assert!(r.breakpoints.len() <= MAX_BREAKPOINTS);
        // The marker lands on the tool_result block itself, keeping its id and content.
        let out = materialize(&b.slots, body["messages"].as_array().unwrap());
        assert_eq!(out[18]["content"][0]["tool_use_id"], "t7");
        assert_eq!(out[18]["content"][0]["cache_control"]["type"], "ephemeral");
    }

    #[test]
    fn tools_come_first_and_the_system_marker_covers_both() {
        let mut body = chat_body();
        body["tools"] = json!([{ "name": "search", "description": words(2000), "input_schema": { "type": "object" } }]);
        let b = cache_breakpoints(&body, &opts(json!({}))).unwrap();
        let plain = cache_breakpoints(&chat_body(), &opts(json!({}))).unwrap();
        let system =
            |r: &BreakpointReport| r.breakpoints.iter().find(|b| b.target == "system").map(|b| b.tokens).unwrap();
        assert!(system(&b.report) > system(&plain.report) + 1900, "the tools precede the system prompt in the prefix");
        assert!(b.report.breakpoints.len() <= MAX_BREAKPOINTS);
    }

    #[test]
    fn host_markers_count_toward_four() {
        let mut body = chat_body();
        for i in [1, 3, 5] {
            body["messages"][i]["content"][0]["cache_control"] = json!({ "type": "ephemeral" });
        }
        let b = cache_breakpoints(&body, &opts(json!({}))).unwrap();
        assert_eq!(b.report.existing, 3);
        assert_eq!(b.report.breakpoints.len(), 1, "only one slot left");
        assert_eq!(b.report.breakpoints[0].index, Some(12));
        body["messages"][7]["content"][0]["cache_control"] = json!({ "type": "ephemeral" });
        assert!(cache_breakpoints(&body, &opts(json!({}))).unwrap().report.breakpoints.is_empty());
    }

    #[test]
    fn short_prefixes_and_other_formats_get_no_marker() {
        let small = json!({ "system": "short", "messages": [{ "role": "user", "content": "hi" }] });
        assert!(cache_breakpoints(&small, &opts(json!({}))).unwrap().report.breakpoints.is_empty());
        // Over Sonnet's minimum prefix of 1 024 tokens, under Opus 4.5's 4 096.
        let big = json!({ "messages": [{ "role": "user", "content": words(2000) }] });
        assert_eq!(
            cache_breakpoints(&big, &opts(json!({ "model": "claude-opus-4-5" }))).unwrap().report.breakpoints.len(),
            0
        );
        assert_eq!(
            cache_breakpoints(&big, &opts(json!({ "model": "claude-sonnet-4" }))).unwrap().report.breakpoints.len(),
            1
        );
        let openai = json!([{ "role": "system", "content": "x" }, { "role": "user", "content": "hi" }]);
        assert_eq!(cache_breakpoints(&openai, &opts(json!({}))).unwrap_err().code, crate::error::Code::InvalidInput);
        let e = BreakpointOptions::from_json(&json!({ "ttl": "2h" })).unwrap_err();
        assert_eq!(e.path, "options.ttl");
    }
}
