//! `estimate`: tokens per message and for the whole request, and where that stands against the
//! budget.
//!
//! A request costs its messages (`perMessage`) plus what travels beside them (`requestOverhead`:
//! the tokens priming the reply, a separate system prompt, the tool definitions). When the host
//! passes the provider's reported usage, the total anchors on it: the reported count covers the
//! messages it was made for, and only the messages after them are estimated (see `calibrate`).

use crate::counting::calibration::{calibrate, Calibration};
use crate::counting::memo;
use crate::counting::profiles::Profile;
use crate::edit::Slot;
use crate::error::{item_path, Error, Result};
use crate::options::Options;
use crate::reading::format::{self, Conversation, Format};
use crate::reading::input::Input;
use crate::reading::message::{Media, Message};
use ctxfold_scanner::shapes::classes_of;
use ctxfold_scanner::Counts;

#[derive(Debug, Clone, PartialEq)]
pub struct Estimate {
    /// Input tokens of the whole request.
    pub total: u64,
    pub per_message: Vec<u32>,
    pub format: &'static str,
    pub tokenizer: &'static str,
    /// Tokens outside the messages: reply priming, the request body's system prompt (or
    /// `options.system`), `tools`.
    pub request_overhead: u32,
    /// True when the host's `counter` counted the texts (the framing still comes from the profile).
    pub counted: bool,
    pub extras: Extras,
}

crate::json_object!(Estimate {
    total => "total",
    per_message => "perMessage",
    format => "format",
    tokenizer => "tokenizer",
    request_overhead => "requestOverhead",
    counted => "counted",
} ..extras);

/// What only some options add to an estimate. Apart, because most calls have none of it: the binding
/// hands the rest back as plain values and this as one object, only when there is something in it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Extras {
    /// Given `usage`: the reported count the total anchors on.
    pub calibration: Option<Calibration>,
    /// Given `contextWindow`.
    pub budget: Option<Budget>,
    /// What the options left to a guess (an unknown model name); absent when nothing was.
    pub warnings: Option<Vec<String>>,
}

crate::json_object!(Extras {
    calibration if some => "calibration",
    budget if some => "budget",
    warnings if some => "warnings",
});

impl Extras {
    pub fn is_empty(&self) -> bool {
        self.calibration.is_none() && self.budget.is_none() && self.warnings.is_none()
    }
}

/// The history against the model's window; given when the caller names `contextWindow`.
#[derive(Debug, Clone, PartialEq)]
pub struct Budget {
    pub context_window: u32,
    pub reserved_output: u32,
    /// Input tokens above which compaction is needed.
    pub limit: u32,
    /// The history's tokens (the estimate's total), which `used` compares with the limit.
    pub tokens: u64,
    /// Tokens left before the limit (0 when over it).
    pub remaining: u64,
    /// The total as a fraction of the limit (above 1 means over).
    pub used: f64,
}

crate::json_object!(Budget {
    context_window => "contextWindow",
    reserved_output => "reservedOutput",
    limit => "limit",
    tokens => "tokens",
    remaining => "remaining",
    used => "used",
});

impl Budget {
    pub fn of(total: u64, options: &Options) -> Budget {
        let limit = options.limit();
        Budget {
            context_window: options.context_window(),
            reserved_output: options.reserved_output(),
            limit,
            tokens: total,
            remaining: u64::from(limit).saturating_sub(total),
            used: total as f64 / f64::from(limit.max(1)),
        }
    }
}

/// What a message costs whatever the profile: the class counts of its texts, per piece of content, and
/// its framing. The binding's cache keeps what this gives under each profile.
///
/// A piece is the message's own body (text, thinking, name, attachments), one tool call (name and
/// arguments) or one tool result, and each is rounded up on its own: formats group the same conversation
/// differently (Anthropic puts three results in one user turn, OpenAI in three tool messages; Responses
/// makes each call its own item), and the same conversation must cost the same, and be cut in the same
/// place, in all of them.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct MessageSize {
    /// The body's texts; None when the message has no body (only tool calls or results) and no name.
    pub body: Option<Counts>,
    pub calls: Vec<Counts>,
    pub results: Vec<Counts>,
    /// Units of content framed like a message: each tool result, and the message's own body.
    pub units: u32,
    pub named: bool,
    /// The message's images and files, its tool results' included.
    pub media: Media,
    /// Tokens of encrypted content, from its length alone.
    pub encrypted: u32,
}

/// Characters of a provider's encrypted content (base64) per token it stands for. No provider
/// documents what an encrypted compaction costs; encrypted reasoning, measured against the reasoning
/// tokens reported for it, came to 4.9–5.0 base64 characters per token. A rough rule, for text that
/// would otherwise be counted as base64 (about 2.3 characters per token, twice too high); usage
/// reports correct it like any estimate (`usage`).
pub const ENCRYPTED_CHARS_PER_TOKEN: usize = 5;

impl MessageSize {
    pub fn of(m: &Message) -> MessageSize {
        let has_body = !m.text.is_empty()
            || !m.hidden.is_empty()
            || m.media.count() > 0
            || m.encrypted_chars > 0
            || (m.tool_calls.is_empty() && m.tool_results.is_empty());
        let body = (has_body || m.name.is_some()).then(|| {
            let mut c = memo::of_message(&m.text);
            c.add(&classes_of(&m.hidden));
            if let Some(name) = m.name {
                c.add(&classes_of(name));
            }
            c
        });
        let mut calls = Vec::with_capacity(m.tool_calls.len());
        for call in &m.tool_calls {
            let mut c = classes_of(call.name);
            c.add(&memo::of_message(&call.arguments));
            calls.push(c);
        }
        let mut results = Vec::with_capacity(m.tool_results.len());
        let mut media = m.media.clone();
        for r in &m.tool_results {
            results.push(memo::of_message(&r.text));
            media.add(&r.media);
        }
        MessageSize {
            body,
            calls,
            results,
            units: (m.tool_results.len() + usize::from(has_body)) as u32,
            named: m.name.is_some(),
            media,
            encrypted: m.encrypted_chars.div_ceil(ENCRYPTED_CHARS_PER_TOKEN).min(u32::MAX as usize) as u32,
        }
    }

    /// Tokens that do not depend on the text: per unit of content, name, tool call and attachment.
    pub fn framing(&self, p: &Profile) -> f64 {
        p.per_message * f64::from(self.units)
            + if self.named { p.per_name } else { 0.0 }
            + self.calls.len() as f64 * p.per_tool_call
            + f64::from(self.encrypted)
            + p.media_tokens(&self.media)
    }

    /// The estimate: each piece weighed with its framing and rounded up.
    pub fn tokens(&self, p: &Profile) -> u32 {
        let body_framing =
            self.framing(p) - self.calls.len() as f64 * p.per_tool_call - self.results.len() as f64 * p.per_message;
        let body = match &self.body {
            Some(c) => to_tokens(p.weigh(c) + body_framing),
            // A message of tool results only: their images and files.
            None => to_tokens(p.media_tokens(&self.media)),
        };
        let mut total = body;
        for c in &self.calls {
            total = total.saturating_add(to_tokens(p.weigh(c) + p.per_tool_call));
        }
        for c in &self.results {
            total = total.saturating_add(to_tokens(p.weigh(c) + p.per_message));
        }
        total
    }

    /// With the texts counted exactly (by the host's counter): whole tokens, so one sum.
    pub fn tokens_counted(&self, text_tokens: f64, p: &Profile) -> u32 {
        to_tokens(text_tokens + self.framing(p))
    }
}

fn to_tokens(t: f64) -> u32 {
    t.ceil().clamp(0.0, f64::from(u32::MAX)) as u32
}

/// The texts of a message that carry tokens beside its framing: content, hidden text (thinking,
/// reasoning), name, tool-call names and arguments, tool results. An exact counter is called on each.
/// Empty texts are left out.
pub fn texts<'m>(m: &'m Message) -> Vec<&'m str> {
    let mut all = vec![m.text.as_ref(), m.hidden.as_ref()];
    all.extend(m.name);
    for c in &m.tool_calls {
        all.push(c.name);
        all.push(&c.arguments);
    }
    for r in &m.tool_results {
        all.push(&r.text);
    }
    all.retain(|t| !t.is_empty());
    all
}

/// Tokens of one message: its framing, texts and attachments.
pub fn message_tokens(m: &Message, p: &Profile) -> u32 {
    MessageSize::of(m).tokens(p)
}

pub fn per_message(conv: &Conversation, p: &Profile) -> Vec<u32> {
    per_message_known(conv, p, None)
}

/// The tokens of a history's items, counted by a call that read them: each item's under `profile`, read in
/// `format` (None: not counted, or edited since). A later call on the same items takes them rather than
/// counting again: a Worker prunes a request body, then plans on the result, whose kept messages prune
/// counted.
#[derive(Debug, Clone, PartialEq)]
pub struct KnownTokens {
    pub format: Format,
    pub profile: Profile,
    pub tokens: Vec<Option<u32>>,
}

impl KnownTokens {
    /// Every message of `conv`, counted.
    pub fn of(conv: &Conversation, profile: &Profile, tokens: &[u32]) -> KnownTokens {
        KnownTokens { format: conv.format, profile: *profile, tokens: tokens.iter().map(|&t| Some(t)).collect() }
    }

    /// Those of the items an edit made of these (`slots`): an item kept as it was has the tokens it had.
    pub fn through(&self, slots: &[Slot]) -> KnownTokens {
        let tokens = slots
            .iter()
            .map(|slot| match slot {
                Slot::Keep(i) => self.tokens.get(*i).copied().flatten(),
                Slot::Patch { .. } | Slot::New(_) => None,
            })
            .collect();
        KnownTokens { format: self.format, profile: self.profile, tokens }
    }
}

/// `per_message`, each message's tokens taken from `known` where it holds them for this history (its items
/// read in the same format, counted with the same profile), counted otherwise.
pub fn per_message_known(conv: &Conversation, p: &Profile, known: Option<&KnownTokens>) -> Vec<u32> {
    let known = known.filter(|k| k.format == conv.format && k.profile == *p && k.tokens.len() == conv.len());
    let mut tokens = Vec::with_capacity(conv.len());
    for (i, m) in conv.messages.iter().enumerate() {
        tokens.push(known.and_then(|k| k.tokens[i]).unwrap_or_else(|| message_tokens(m, p)));
    }
    tokens
}

pub fn sum(tokens: &[u32]) -> u64 {
    tokens.iter().map(|&t| u64::from(t)).sum()
}

pub fn estimate(input: &Input, options: &Options) -> Result<Estimate> {
    let conv = format::read(input, options.format)?;
    let per_message = per_message(&conv, &options.profile);
    let profile = options.profile;
    finish(per_message, conv.format, options, input, false, &mut |t| Ok(profile.text(t)))
}

/// The result from the per-message tokens: overhead, calibration, total, budget. `count` measures
/// the texts outside the messages (the system prompt, `tools`): the profile, or the host's counter.
pub fn finish(
    per_message: Vec<u32>,
    format: Format,
    options: &Options,
    input: &Input,
    counted: bool,
    count: &mut dyn FnMut(&str) -> Result<f64>,
) -> Result<Estimate> {
    let request_overhead = request_overhead(options, input, count)?;
    let (total, calibration) = match calibrate(&per_message, request_overhead, &options.usage)? {
        Some(c) => (c.prompt_tokens + c.estimated_tail, Some(c)),
        None => (u64::from(request_overhead) + sum(&per_message), None),
    };
    Ok(Estimate {
        total,
        per_message,
        format: format.name(),
        tokenizer: options.profile.name,
        request_overhead,
        counted,
        extras: Extras {
            calibration,
            budget: options.context_window.map(|_| Budget::of(total, options)),
            warnings: (!options.warnings.is_empty()).then(|| options.warnings.clone()),
        },
    })
}

/// Reply priming, the separate system prompt (framed like a message) and the tool definitions. The
/// system prompt is the request body's (`system`, `systemInstruction`, `instructions`), or else
/// `options.system` for a host that passes the array alone.
pub fn request_overhead(options: &Options, input: &Input, count: &mut dyn FnMut(&str) -> Result<f64>) -> Result<u32> {
    let p = &options.profile;
    let mut t = p.per_reply;
    if input.system.is_some() {
        t += p.per_message + count(&input.system_text()).map_err(|e| at_path(e, input.system_key()))?;
    } else if let Some(system) = &options.system {
        t += p.per_message + count(system).map_err(|e| at_path(e, "options.system"))?;
    }
    for (i, tool) in options.tools.iter().enumerate() {
        t += p.per_tool + count(tool).map_err(|e| at_path(e, &item_path("options.tools", i)))?;
    }
    Ok(to_tokens(t))
}

fn at_path(mut e: Error, path: &str) -> Error {
    if e.path.is_empty() {
        e.path = path.to_string();
    }
    e
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_tokens_are_taken_only_for_the_same_items_format_and_profile() {
        let msgs = vec![
            serde_json::json!({ "role": "user", "content": "How long is the flight?" }),
            serde_json::json!({ "role": "assistant", "content": "About three hours." }),
        ];
        let conv = format::read_items(&msgs, None).unwrap();
        let p = Options::default().profile;
        let counted = per_message(&conv, &p);
        let known = KnownTokens { format: conv.format, profile: p, tokens: vec![Some(1000), None] };
        assert_eq!(
            per_message_known(&conv, &p, Some(&known)),
            vec![1000, counted[1]],
            "taken, and counted where unknown"
        );
        let other = Options::from_json(&serde_json::json!({ "tokenizer": "claude" })).unwrap().profile;
        assert_eq!(per_message_known(&conv, &other, Some(&known)), per_message(&conv, &other), "another profile");
        let fewer = KnownTokens { tokens: vec![Some(1000)], ..known.clone() };
        assert_eq!(per_message_known(&conv, &p, Some(&fewer)), counted, "other items");
        let anthropic = KnownTokens { format: Format::Anthropic, ..known.clone() };
        assert_eq!(per_message_known(&conv, &p, Some(&anthropic)), counted, "read in another format");
        // Through an edit: a kept item keeps its tokens, a patched or new one has none.
        let slots = [Slot::Keep(0), Slot::Patch { index: 1, edits: Vec::new() }, Slot::New(serde_json::json!({}))];
        assert_eq!(KnownTokens::of(&conv, &p, &counted).through(&slots).tokens, vec![Some(counted[0]), None, None]);
    }
    use crate::fixtures::png_base64;
    use serde_json::{json, Value};

    fn msgs() -> Value {
        json!([
            { "role": "user", "content": "List the files" },
            { "role": "assistant", "content": null, "tool_calls": [
                { "id": "c1", "type": "function", "function": { "name": "bash", "arguments": "{\"command\":\"ls -la\"}" } }
            ] },
            { "role": "tool", "tool_call_id": "c1", "content": "a.txt\nb.txt" }
        ])
    }

    fn run(options: Value) -> Result<Estimate> {
        estimate(&Input::read(&msgs()).unwrap(), &Options::from_json(&options)?)
    }

    #[test]
    fn total_is_the_messages_plus_the_reply_priming() {
        let e = run(json!({})).unwrap();
        assert_eq!(e.per_message.len(), 3);
        assert_eq!(e.request_overhead, 3);
        assert_eq!(e.total, 3 + sum(&e.per_message));
        assert!(e.per_message[1] > 4 + 8, "framing, the call's 8 and its name and arguments: {}", e.per_message[1]);
        assert!(e.extras.budget.is_none() && e.extras.calibration.is_none());
    }

    #[test]
    fn budget_is_reported_against_the_window() {
        let e = run(json!({ "contextWindow": 1000, "reservedOutput": 200, "threshold": 0.5 })).unwrap();
        let b = e.extras.budget.unwrap();
        assert_eq!((b.limit, b.reserved_output), (400, 200));
        assert!(b.used > 0.0 && b.used < 0.2);
    }

    #[test]
    fn system_prompt_and_tool_schemas_count() {
        let plain = run(json!({})).unwrap();
        let tool = json!({ "type": "function", "function": { "name": "bash", "description": "Run a shell command and return its output",
            "parameters": { "type": "object", "properties": { "command": { "type": "string" } }, "required": ["command"] } } });
        let e = run(json!({ "system": "You are a careful assistant.", "tools": [tool] })).unwrap();
        assert_eq!(e.per_message, plain.per_message);
        assert!(e.request_overhead > 3 + 4 + 5 + 8 + 20, "{}", e.request_overhead);
        assert_eq!(e.total, u64::from(e.request_overhead) + sum(&e.per_message));
        let blocks = run(json!({ "system": [{ "type": "text", "text": "You are a careful assistant." }] })).unwrap();
        assert_eq!(
            blocks.request_overhead,
            run(json!({ "system": "You are a careful assistant." })).unwrap().request_overhead
        );
    }

    #[test]
    fn an_anthropic_text_document_costs_its_text() {
        let text = "The quarterly report: revenue grew in every region, led by the north. ".repeat(200);
        let doc = |source: Value| json!([{ "role": "user", "content": [{ "type": "document", "source": source }, { "type": "text", "text": "Summarize it." }] }]);
        let tokens = |v: &Value| {
            estimate(&Input::read(v).unwrap(), &Options::from_json(&json!({ "tokenizer": "claude" })).unwrap())
                .unwrap()
                .per_message[0]
        };
        let text_document = tokens(&doc(json!({ "type": "text", "media_type": "text/plain", "data": text })));
        let as_prose = tokens(
            &json!([{ "role": "user", "content": [{ "type": "text", "text": text }, { "type": "text", "text": "Summarize it." }] }]),
        );
        assert!(text_document.abs_diff(as_prose) <= 2, "{text_document} vs {as_prose}");
        assert!(text_document > 2_000, "{text_document}");
        // A PDF is an attachment at the flat rate.
        let pdf = tokens(&doc(json!({ "type": "base64", "media_type": "application/pdf", "data": "JVBERi0x" })));
        assert_eq!(
            pdf,
            tokens(&json!([{ "role": "user", "content": [{ "type": "text", "text": "Summarize it." }] }])) + 1600
        );
    }

    #[test]
    fn images_cost_the_profiles_flat_rate() {
        let m = json!([{ "role": "user", "content": [{ "type": "text", "text": "what is this?" }, { "type": "image_url", "image_url": { "url": "data:," } }] }]);
        let text_only = json!([{ "role": "user", "content": "what is this?" }]);
        for (name, cost) in [("o200k", 765), ("claude", 1600), ("gemini", 1120)] {
            let o = Options::from_json(&json!({ "tokenizer": name })).unwrap();
            let with = estimate(&Input::read(&m).unwrap(), &o).unwrap().per_message[0];
            let without = estimate(&Input::read(&text_only).unwrap(), &o).unwrap().per_message[0];
            assert_eq!(with - without, cost, "{name}");
        }
        // OpenAI's low detail is a flat 85 tokens, however the format says it; other providers have no
        // such setting.
        let low = [
            json!([{ "role": "user", "content": [{ "type": "text", "text": "what is this?" }, { "type": "image_url", "image_url": { "url": "data:,", "detail": "low" } }] }]),
            json!([{ "role": "user", "content": [{ "type": "input_text", "text": "what is this?" }, { "type": "input_image", "image_url": "data:,", "detail": "low" }] }]),
            json!([{ "role": "user", "content": [{ "type": "text", "text": "what is this?" }, { "type": "image", "image": "aGk=", "providerOptions": { "openai": { "imageDetail": "low" } } }] }]),
        ];
        for m in &low {
            for (name, cost) in [("o200k", 85), ("cl100k", 85), ("claude", 1600)] {
                let o = Options::from_json(&json!({ "tokenizer": name })).unwrap();
                let e = estimate(&Input::read(m).unwrap(), &o).unwrap();
                let without = estimate(&Input::read(&text_only).unwrap(), &o).unwrap().per_message[0];
                assert_eq!(e.per_message[0] - without, cost, "{name} {}", e.format);
            }
        }
    }

    #[test]
    fn images_of_known_size_cost_what_each_provider_bills_for_that_size() {
        // The same image in each format that can hold its bytes, as a data URL or bare base64.
        let in_formats = |b64: &str, low: bool| {
            let url = format!("data:image/png;base64,{b64}");
            let detail = if low { "low" } else { "auto" };
            [
                json!([{ "role": "user", "content": [{ "type": "text", "text": "what is this?" }, { "type": "image_url", "image_url": { "url": url, "detail": detail } }] }]),
                json!([{ "role": "user", "content": [{ "type": "input_text", "text": "what is this?" }, { "type": "input_image", "image_url": url, "detail": detail }] }]),
                json!([{ "role": "user", "content": [{ "type": "text", "text": "what is this?" }, { "type": "image", "source": { "type": "base64", "media_type": "image/png", "data": b64 } }] }]),
                json!([{ "role": "user", "parts": [{ "text": "what is this?" }, { "inlineData": { "mimeType": "image/png", "data": b64 } }] }]),
                json!([{ "role": "user", "content": [{ "type": "text", "text": "what is this?" }, { "type": "image", "image": b64, "mediaType": "image/png" }] }]),
                json!([{ "role": "user", "content": [{ "type": "text", "text": "what is this?" }, { "type": "file", "data": url, "mediaType": "image/png" }] }]),
            ]
        };
        let text_only = json!([{ "role": "user", "content": "what is this?" }]);
        let cost = |m: &Value, name: &str| {
            let o = Options::from_json(&json!({ "tokenizer": name })).unwrap();
            let e = estimate(&Input::read(m).unwrap(), &o).unwrap();
            (e.per_message[0] - estimate(&Input::read(&text_only).unwrap(), &o).unwrap().per_message[0], e.format)
        };
        // OpenAI's documented examples (1024 × 1024: 765; 2048 × 4096: 1105), a 1080p screenshot (6 tiles),
        // an icon (1 tile); Anthropic's width × height / 750 up to about 1 600; Gemini 3's fixed budget.
        for (w, h, o200k, claude) in
            [(1024, 1024, 765, 1399), (2048, 4096, 1105, 1600), (1920, 1080, 1105, 1600), (300, 200, 255, 80)]
        {
            for m in in_formats(&png_base64(w, h), false) {
                for (name, want) in [("o200k", o200k), ("cl100k", o200k), ("claude", claude), ("gemini", 1120)] {
                    let (got, format) = cost(&m, name);
                    assert_eq!(got, want, "{w}×{h} {name} {format}");
                }
            }
        }
        // At low detail, OpenAI bills 85 whatever the size (where the format can say it).
        for m in &in_formats(&png_base64(1920, 1080), true)[..2] {
            assert_eq!(cost(m, "o200k").0, 85);
            assert_eq!(cost(m, "claude").0, 1600);
        }
    }

    #[test]
    fn openai_models_that_bill_images_their_own_way() {
        let image = |w, h| json!([{ "role": "user", "content": [{ "type": "text", "text": "what is this?" }, { "type": "image_url", "image_url": { "url": format!("data:image/png;base64,{}", png_base64(w, h)) } }] }]);
        let by_url = json!([{ "role": "user", "content": [{ "type": "text", "text": "what is this?" }, { "type": "image_url", "image_url": { "url": "https://example.com/a.png" } }] }]);
        let text_only = json!([{ "role": "user", "content": "what is this?" }]);
        let cost = |m: &Value, options: Value| {
            let o = Options::from_json(&options).unwrap();
            estimate(&Input::read(m).unwrap(), &o).unwrap().per_message[0]
                - estimate(&Input::read(&text_only).unwrap(), &o).unwrap().per_message[0]
        };
        // OpenAI's documented examples: for tiles, both sizes scale to 768 × 768 and 768 × 1024, 4 tiles;
        // for patches, 1024 × 1024 is 1024 patches and 1800 × 2400 is 1452 (scaled to 33 × 44).
        for (model, square, tall) in [
            ("gpt-4o", 765, 765),
            ("openai/gpt-4o-mini-2024-07-18", 2833 + 4 * 5667, 2833 + 4 * 5667),
            ("gpt-4.1-mini", 1659, 2353),
            ("gpt-4.1-nano", 2520, 3572),
            ("o4-mini", 1762, 2498),
            ("o3", 75 + 4 * 150, 75 + 4 * 150),
        ] {
            assert_eq!(cost(&image(1024, 1024), json!({ "model": model })), square, "{model}");
            assert_eq!(cost(&image(1800, 2400), json!({ "model": model })), tall, "{model}");
            // An image of unknown size costs what a 1024 × 1024 one does, under the model's billing.
            assert_eq!(cost(&by_url, json!({ "model": model })), square, "{model}");
            // The tokenizer says what text costs; the model still says what images do.
            assert_eq!(cost(&image(1024, 1024), json!({ "model": model, "tokenizer": "cl100k" })), square, "{model}");
        }
        // Another provider's profile keeps its own billing.
        assert_eq!(cost(&image(1024, 1024), json!({ "model": "gpt-4o-mini", "tokenizer": "claude" })), 1399);
    }

    #[test]
    fn usage_anchors_the_prefix_and_estimates_only_the_tail() {
        let plain = run(json!({})).unwrap();
        // The provider counted the first two messages at exactly what we estimate: scale 1.
        let prefix = 3 + u64::from(plain.per_message[0] + plain.per_message[1]);
        let e = run(json!({ "usage": { "promptTokens": prefix, "messageCount": 2 } })).unwrap();
        let c = e.extras.calibration.unwrap();
        assert_eq!((c.estimated_prefix, c.correction, c.scale), (prefix, 0, 1.0));
        assert_eq!(e.total, plain.total);
        // Reported 50% more than estimated, but over fewer tokens than say anything about the profile:
        // anchored on the report, the tail as estimated (src/counting/calibration.rs tests the scale itself).
        let first = 3 + u64::from(plain.per_message[0]);
        assert!(first < crate::counting::calibration::MIN_SCALE_SPAN, "{first}");
        let reported = first * 3 / 2;
        let e = run(json!({ "usage": { "promptTokens": reported, "messageCount": 1 } })).unwrap();
        let c = e.extras.calibration.unwrap();
        assert_eq!((c.scale, c.correction), (1.0, (reported - first) as i64));
        assert_eq!(e.total, reported + u64::from(plain.per_message[1] + plain.per_message[2]));
        // A report covering every message is the total.
        let e = run(json!({ "usage": { "promptTokens": 777, "messageCount": 3 } })).unwrap();
        assert_eq!((e.total, e.extras.calibration.unwrap().estimated_tail), (777, 0));
    }

    #[test]
    fn a_report_over_enough_tokens_scales_the_tail() {
        let long = json!([
            { "role": "user", "content": "Explain the build. ".repeat(60) },
            { "role": "assistant", "content": "It compiles the crate, then binds it. ".repeat(40) },
            { "role": "user", "content": "And the tests?" }
        ]);
        let input = Input::read(&long).unwrap();
        let plain = estimate(&input, &Options::default()).unwrap();
        let prefix = 3 + u64::from(plain.per_message[0] + plain.per_message[1]);
        let o = Options::from_json(&json!({ "usage": { "promptTokens": prefix * 6 / 5, "messageCount": 2 } })).unwrap();
        let c = estimate(&input, &o).unwrap().extras.calibration.unwrap();
        assert!((c.scale - (prefix * 6 / 5) as f64 / prefix as f64).abs() < 1e-9, "{}", c.scale);
        assert_eq!(c.estimated_tail, (f64::from(plain.per_message[2]) * c.scale).ceil() as u64);
    }

    #[test]
    fn cached_tokens_are_reported_not_added() {
        let with = run(json!({ "usage": { "promptTokens": 500, "messageCount": 2, "cachedTokens": 400 } })).unwrap();
        let without = run(json!({ "usage": { "promptTokens": 500, "messageCount": 2 } })).unwrap();
        assert_eq!(with.total, without.total);
        assert_eq!(with.extras.calibration.unwrap().cached_tokens, Some(400));
        let e = run(json!({ "usage": { "promptTokens": 100, "messageCount": 2, "cachedTokens": 400 } })).unwrap_err();
        assert_eq!((e.code.as_str(), e.path.as_str()), ("INVALID_OPTION", "options.usage.cachedTokens"));
    }

    #[test]
    fn usage_errors_name_the_field() {
        let e = run(json!({ "usage": { "promptTokens": 100, "messageCount": 9 } })).unwrap_err();
        assert_eq!(e.path, "options.usage.messageCount");
        let e = run(
            json!({ "usage": [{ "promptTokens": 100, "messageCount": 1 }, { "promptTokens": 90, "messageCount": 5 }] }),
        )
        .unwrap_err();
        assert_eq!(e.path, "options.usage[1].messageCount");
        let e = run(json!({ "usage": [{ "promptTokens": 100, "messageCount": 2 }, { "promptTokens": 120, "messageCount": 1 }] })).unwrap_err();
        assert_eq!(e.path, "options.usage[1]");
        let e = run(json!({ "usage": { "promptTokens": -1, "messageCount": 1 } })).unwrap_err();
        assert_eq!(e.path, "options.usage.promptTokens");
        let e = run(json!({ "usage": { "prompt_tokens": 5, "messageCount": 1 } })).unwrap_err();
        assert_eq!(e.path, "options.usage.prompt_tokens");
        let e = run(json!({ "usage": { "messageCount": 1 } })).unwrap_err();
        assert_eq!(e.path, "options.usage.promptTokens");
        let e = run(json!({ "tools": [1] })).unwrap_err();
        assert_eq!(e.path, "options.tools[0]");
        let e = run(json!({ "system": 3 })).unwrap_err();
        assert_eq!(e.path, "options.system");
    }

    #[test]
    fn model_names_pick_the_profile() {
        for (model, profile) in [
            ("gpt-4.1", "o200k"),
            ("gpt-4o-mini", "o200k"),
            ("openai/gpt-5", "o200k"),
            ("o3-mini", "o200k"),
            ("gpt-4-turbo", "cl100k"),
            ("gpt-3.5-turbo", "cl100k"),
            ("claude-sonnet-4-5", "claude"),
            ("us.anthropic.claude-3-5-haiku-20241022-v1:0", "claude"),
            ("models/gemini-2.5-pro", "gemini"),
            ("gemini-3-pro-preview", "gemini"),
            ("some-new-model", "o200k"),
        ] {
            assert_eq!(Options::from_json(&json!({ "model": model })).unwrap().profile.name, profile, "{model}");
        }
        // An explicit tokenizer wins over the model.
        let o = Options::from_json(&json!({ "model": "gpt-4o", "tokenizer": "cl100k" })).unwrap();
        assert_eq!(o.profile.name, "cl100k");
    }

    #[test]
    fn names_count() {
        let a = json!([{ "role": "user", "content": "hi" }]);
        let b = json!([{ "role": "user", "name": "alice", "content": "hi" }]);
        let o = Options::default();
        let (a, b) =
            (estimate(&Input::read(&a).unwrap(), &o).unwrap(), estimate(&Input::read(&b).unwrap(), &o).unwrap());
        assert!(b.per_message[0] >= a.per_message[0] + 2);
    }
}
