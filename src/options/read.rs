//! Reading the options object. Strict: a wrong type, an impossible value or a misspelt name is an
//! `INVALID_OPTION` naming the field, never silently ignored.

use super::cache_prices::CachePrices;
use super::preset;
use super::values::{Options, Report, Shape, SplitAt, Strategy};
use crate::compaction::template::Template;
use crate::counting::profiles::{Profile, CL100K, CLAUDE, GEMINI, O200K};
use crate::error::{expected, item_path, subpath, Error, Result};
use crate::reading::format::Format;
use crate::text::json_text;
use serde_json::{Map, Value};

const KNOWN: &[&str] = &[
    "format",
    "tokenizer",
    "model",
    "contextWindow",
    "reservedOutput",
    "threshold",
    "keepRecentTurns",
    "keepRecentTokens",
    "keepFraction",
    "protectTokens",
    "minimumPruneTokens",
    "protectedTools",
    "placeholder",
    "force",
    "usage",
    "system",
    "tools",
    "summarizerWindow",
    "hardThreshold",
    "template",
    "preset",
    "thresholdTokens",
    "splitAt",
    "strategy",
    "chunkMessages",
    "resummarize",
    "pin",
    "keepCritical",
    "keepFacts",
    "keepUserText",
    "topicSwitch",
    "dropBeforeProviderCompaction",
    "criticalTools",
    "summaryShape",
    "summaryPrefix",
    "includeLatestRequest",
    "protectResults",
    "maxArgumentChars",
    "cache",
];

impl Options {
    /// Reads the options object (`null` or absent means all defaults).
    pub fn from_json(v: &Value) -> Result<Options> {
        let obj = match v {
            Value::Null => return Ok(Options::default()),
            Value::Object(obj) => obj,
            other => return Err(Error::option("options", expected("an object", other))),
        };
        for key in obj.keys() {
            if key == "counter" {
                return Err(Error::option("options.counter", "a counter function is read by estimate() only"));
            }
            if !KNOWN.contains(&key.as_str()) {
                return Err(Error::option(
                    subpath("options", key),
                    format!("unknown option; known options: {}", KNOWN.join(", ")),
                ));
            }
        }
        // Each field is read on its own; a reader keeps the first error, so one bad field does not
        // need an early return (and the copy of the error and the drop of `o`) after each of thirty
        // reads: that is the smallest code, and the error reported is the same first one.
        let mut r = Reader { obj, error: None };
        // A preset is the starting point; every option given explicitly overrides it.
        let mut o = match r.string("preset") {
            Some(name) => preset::options(name)?,
            None => Options::default(),
        };
        if let Some(f) = r.string("format") {
            o.format = r.ok(Format::from_name(f, "options.format"));
        }
        let model = r.string("model");
        if let Some(model) = model {
            let (profile, known) = profile_for_model(model);
            o.profile = profile;
            if !known && r.get("tokenizer").is_none() {
                o.warnings.push(format!(
                    "options.model: {} is not a model ctxfold knows; counting with the {} profile (set tokenizer to choose another)",
                    crate::text::quoted(model),
                    profile.name
                ));
            }
        }
        o.usage = r.ok(read_usage(r.get("usage"))).unwrap_or_default();
        o.system = r.ok(read_system(r.get("system"))).flatten();
        o.tools = r.ok(read_tools(r.get("tools"))).unwrap_or_default();
        o.cache = r.ok(CachePrices::from_json(r.get("cache").unwrap_or(&Value::Null))).flatten();
        if let Some(t) = r.string("tokenizer") {
            set(&mut o.profile, r.ok(Profile::from_name(t, "options.tokenizer")));
        }
        // After `tokenizer`: the tokenizer says what text costs, the model what its images do.
        if let Some(model) = model {
            o.profile = o.profile.with_images_of(&model_name(model));
        }
        set(&mut o.context_window, r.count("contextWindow", 1).map(Some));
        let preset_reserve = o.reserved_output.take();
        o.reserved_output = r.count("reservedOutput", 0);
        if o.reserved_output.is_some_and(|r| r >= o.context_window()) {
            r.fail("reservedOutput", "must be smaller than contextWindow");
        }
        // A preset's reserve is the documented one, but never more than half a small window.
        o.reserved_output = o.reserved_output.or(preset_reserve.map(|p| p.min(o.context_window() / 2)));
        set(&mut o.threshold, r.fraction("threshold"));
        set(&mut o.keep_recent_turns, r.count("keepRecentTurns", 0));
        if r.get("keepRecentTokens").is_some() || r.get("keepFraction").is_some() {
            // Either replaces both of the preset's: they are two ways of saying one thing.
            o.keep_recent_tokens = r.count("keepRecentTokens", 0);
            o.keep_fraction = r.fraction("keepFraction");
        }
        set(&mut o.protect_tokens, r.count("protectTokens", 0));
        set(&mut o.minimum_prune_tokens, r.count("minimumPruneTokens", 0));
        set(&mut o.protect_results, r.count("protectResults", 0));
        set(&mut o.max_argument_chars, r.count("maxArgumentChars", 1).map(Some));
        set(&mut o.protected_tools, r.strings("protectedTools"));
        if let Some(p) = r.string("placeholder") {
            if p.trim().is_empty() {
                r.fail("placeholder", "the placeholder cannot be empty");
            }
            o.placeholder = p.to_string();
        }
        o.summarizer_window = r.count("summarizerWindow", 1);
        set(&mut o.hard_threshold, r.fraction("hardThreshold").map(Some));
        if r.get("template").is_some() {
            set(&mut o.template, r.ok(Template::from_json(r.get("template"))));
        }
        if o.hard_threshold.is_some_and(|h| h < o.threshold) {
            r.fail("hardThreshold", "must be at least threshold (the soft limit)");
        }
        set(&mut o.force, r.bool("force"));
        set(&mut o.threshold_tokens, r.count("thresholdTokens", 1).map(Some));
        if let Some(s) = r.choice("splitAt", &["exchange", "user"]) {
            o.split_at = if s == 0 { SplitAt::Exchange } else { SplitAt::User };
        }
        if let Some(s) = r.choice("strategy", &["tail", "regions", "hierarchical"]) {
            o.strategy = [Strategy::Tail, Strategy::Regions, Strategy::Hierarchical][s];
        }
        set(&mut o.chunk_messages, r.count("chunkMessages", 2));
        set(&mut o.resummarize, r.bool("resummarize"));
        if let Some(pins) = r.get("pin") {
            set(&mut o.pin, r.ok(read_indices(pins, "options.pin")));
        }
        set(&mut o.keep_critical, r.bool("keepCritical"));
        set(&mut o.keep_facts, r.bool("keepFacts"));
        set(&mut o.keep_user_text, r.bool("keepUserText"));
        set(&mut o.topic_switch, r.bool("topicSwitch"));
        set(&mut o.drop_before_provider_compaction, r.bool("dropBeforeProviderCompaction"));
        if let Some(tools) = r.strings("criticalTools") {
            o.critical_tools = Some(tools);
        }
        if let Some(s) = r.choice("summaryShape", &Shape::ALL.map(Shape::name)) {
            o.summary_shape = Shape::ALL[s];
        }
        if let Some(p) = r.string("summaryPrefix") {
            if p.contains('\n') || p.len() > 64 {
                r.fail("summaryPrefix", "a prefix is one line of at most 64 bytes");
            }
            o.summary_prefix = Some(p.to_string()).filter(|p| !p.is_empty());
        }
        set(&mut o.include_latest_request, r.bool("includeLatestRequest"));
        match r.error {
            Some(e) => Err(e),
            None => Ok(o),
        }
    }
}

/// The tokenizer family of a model name (`"gpt-4.1"`, `"openai/gpt-4o-mini"`,
/// `"anthropic.claude-3-5-sonnet"`, `"models/gemini-2.5-pro"`); unknown names keep the default,
/// since new models appear faster than any table.
/// The profile for a model name, and whether the name was one of the known families (an unknown one
/// is counted with o200k, the tokenizer of most current models).
pub fn profile_for_model(model: &str) -> (Profile, bool) {
    let m = &model_name(model);
    let o_series = m.len() > 1 && m.starts_with('o') && m.as_bytes()[1].is_ascii_digit();
    if m.starts_with("claude") {
        (CLAUDE, true)
    } else if m.starts_with("gemini") || m.starts_with("gemma") {
        (GEMINI, true)
    } else if m.starts_with("gpt-4o")
        || m.starts_with("gpt-4.")
        || m.starts_with("gpt-5")
        || m.starts_with("chatgpt")
        || m.starts_with("gpt-oss")
        || o_series
    {
        (O200K, true)
    } else if m.starts_with("gpt-4") || m.starts_with("gpt-3.5") || m.starts_with("text-embedding") {
        (CL100K, true)
    } else {
        (O200K, false)
    }
}

/// A model name without its vendor's prefix, in lower case.
fn model_name(model: &str) -> String {
    let lower = model.to_ascii_lowercase();
    let m = lower.rsplit('/').next().unwrap_or(&lower);
    // Bedrock and Vertex prefix the vendor: "anthropic.claude-...", "us.anthropic.claude-...".
    m.rsplit("anthropic.").next().unwrap_or(m).to_string()
}

/// Overwrites `target` with an option the caller gave; leaves the default or the preset's otherwise.
fn set<T>(target: &mut T, given: Option<T>) {
    if let Some(v) = given {
        *target = v;
    }
}

/// Message indices (`pin`): whole numbers, given in any order; kept sorted and without duplicates.
fn read_indices(v: &Value, path: &str) -> Result<Vec<usize>> {
    let items = v.as_array().ok_or_else(|| Error::option(path, expected("an array of message indices", v)))?;
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        match item.as_u64().and_then(|n| usize::try_from(n).ok()) {
            Some(n) => out.push(n),
            None => {
                return Err(Error::option(
                    item_path(path, i),
                    format!("expected a message index (a whole number from 0), got {}", json_text(item)),
                ))
            }
        }
    }
    let mut out = crate::order::sorted(out);
    out.dedup();
    Ok(out)
}

/// `usage`: one report `{ promptTokens, messageCount, cachedTokens? }` or an array of them.
fn read_usage(v: Option<&Value>) -> Result<Vec<Report>> {
    let reports = match v {
        None => return Ok(Vec::new()),
        Some(Value::Array(items)) => {
            let mut out = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                out.push(read_report(item, item_path("options.usage", i))?);
            }
            out
        }
        Some(one) => vec![read_report(one, "options.usage".into())?],
    };
    for pair in reports.windows(2) {
        if pair[1].message_count <= pair[0].message_count {
            return Err(Error::option(
                &pair[1].path,
                "usage reports must be oldest first, each for more messages than the one before",
            ));
        }
    }
    Ok(reports)
}

fn read_report(v: &Value, path: String) -> Result<Report> {
    let Value::Object(obj) = v else {
        return Err(Error::option(path, expected("{ promptTokens, messageCount }", v)));
    };
    for key in obj.keys() {
        if !["promptTokens", "messageCount", "cachedTokens"].contains(&key.as_str()) {
            return Err(Error::option(
                subpath(&path, key),
                "unknown field; a usage report has promptTokens, messageCount and cachedTokens",
            ));
        }
    }
    let whole = |key: &str| -> Result<Option<u64>> {
        let Some(v) = obj.get(key).filter(|v| !v.is_null()) else { return Ok(None) };
        match v.as_f64() {
            Some(n) if n >= 0.0 && n.fract() == 0.0 && n < 9e15 => Ok(Some(n as u64)),
            _ => Err(Error::option(
                subpath(&path, key),
                format!("expected a whole number of tokens, got {}", json_text(v)),
            )),
        }
    };
    let prompt_tokens = whole("promptTokens")?.ok_or_else(|| {
        Error::option(subpath(&path, "promptTokens"), "missing: the input tokens the provider reported")
    })?;
    let message_count = whole("messageCount")?
        .ok_or_else(|| Error::option(subpath(&path, "messageCount"), "missing: how many messages that request held"))?;
    let cached_tokens = whole("cachedTokens")?;
    if cached_tokens.is_some_and(|c| c > prompt_tokens) {
        return Err(Error::option(subpath(&path, "cachedTokens"), "more than promptTokens: promptTokens must be the whole input, cached tokens included (for Anthropic, input_tokens + cache_read_input_tokens + cache_creation_input_tokens)"));
    }
    Ok(Report { prompt_tokens, message_count: message_count as usize, cached_tokens, path })
}

/// `system`: a string, or an array of strings or `{ text }` blocks (Anthropic's and Gemini's shapes).
fn read_system(v: Option<&Value>) -> Result<Option<String>> {
    match v {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(Value::Array(items)) => {
            let mut parts = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                match item {
                    Value::String(s) => parts.push(s.as_str()),
                    Value::Object(o) => match o.get("text") {
                        Some(Value::String(s)) => parts.push(s.as_str()),
                        _ => {
                            return Err(Error::option(
                                subpath(&item_path("options.system", i), "text"),
                                "expected a text block with a string text",
                            ))
                        }
                    },
                    other => {
                        return Err(Error::option(
                            item_path("options.system", i),
                            expected("a string or a text block", other),
                        ))
                    }
                }
            }
            Ok(Some(parts.join("\n")))
        }
        Some(other) => Err(Error::option("options.system", expected("a string or an array of text blocks", other))),
    }
}

/// `tools`: the tool definitions as sent (any provider's shape); each counts as its JSON text.
fn read_tools(v: Option<&Value>) -> Result<Vec<String>> {
    match v {
        None => Ok(Vec::new()),
        Some(Value::Array(items)) => {
            let mut out = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                match item {
                    Value::Object(_) => out.push(json_text(item)),
                    other => {
                        return Err(Error::option(
                            item_path("options.tools", i),
                            expected("a tool definition object", other),
                        ))
                    }
                }
            }
            Ok(out)
        }
        Some(other) => Err(Error::option("options.tools", expected("an array of tool definitions", other))),
    }
}

/// Reads the fields of the options object, keeping the first error met (see `Options::from_json`):
/// after one, reads give `None` and later errors are dropped.
struct Reader<'a> {
    obj: &'a Map<String, Value>,
    error: Option<Error>,
}

impl<'a> Reader<'a> {
    fn get(&self, key: &str) -> Option<&'a Value> {
        self.obj.get(key).filter(|v| !v.is_null())
    }

    /// Keeps `error` unless an earlier one is kept already.
    fn keep(&mut self, error: Error) {
        if self.error.is_none() {
            self.error = Some(error);
        }
    }

    /// An error about option `key`.
    fn fail(&mut self, key: &str, message: impl Into<String>) {
        self.keep(Error::option(subpath("options", key), message));
    }

    /// The value of a read made by another function; its error is kept.
    fn ok<T>(&mut self, read: Result<T>) -> Option<T> {
        read.map_err(|e| self.keep(e)).ok()
    }

    fn string(&mut self, key: &str) -> Option<&'a str> {
        match self.get(key)? {
            Value::String(s) => Some(s),
            other => {
                self.fail(key, expected("a string", other));
                None
            }
        }
    }

    /// One of `names`, as its index.
    fn choice(&mut self, key: &str, names: &[&str]) -> Option<usize> {
        let s = self.string(key)?;
        let found = names.iter().position(|n| *n == s);
        if found.is_none() {
            self.fail(key, format!("unknown value {}; expected one of {}", crate::text::quoted(s), names.join(", ")));
        }
        found
    }

    fn bool(&mut self, key: &str) -> Option<bool> {
        match self.get(key)? {
            Value::Bool(b) => Some(*b),
            other => {
                self.fail(key, expected("a boolean", other));
                None
            }
        }
    }

    /// A number; `None` (an error kept) for any other type.
    fn number(&mut self, key: &str) -> Option<f64> {
        let v = self.get(key)?;
        let n = v.as_f64();
        if n.is_none() {
            self.fail(key, expected("a number", v));
        }
        n
    }

    /// A whole number of tokens, at least `min`.
    fn count(&mut self, key: &str, min: u32) -> Option<u32> {
        let n = self.number(key)?;
        if n.fract() != 0.0 || n < f64::from(min) || n > f64::from(u32::MAX) {
            self.fail(
                key,
                format!("expected a whole number from {min} to {}, got {}", u32::MAX, crate::text::number(n)),
            );
            return None;
        }
        Some(n as u32)
    }

    /// A ratio in (0, 1].
    fn fraction(&mut self, key: &str) -> Option<f64> {
        let n = self.number(key)?;
        if !(n > 0.0 && n <= 1.0) {
            self.fail(key, format!("expected a number above 0 and at most 1, got {}", crate::text::number(n)));
            return None;
        }
        Some(n)
    }

    fn strings(&mut self, key: &str) -> Option<Vec<String>> {
        let v = self.get(key)?;
        let path = subpath("options", key);
        let Some(items) = v.as_array() else {
            self.keep(Error::option(path, expected("an array of strings", v)));
            return None;
        };
        let mut out = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            match item.as_str() {
                Some(s) => out.push(s.to_string()),
                None => {
                    self.keep(Error::option(item_path(&path, i), expected("a string", item)));
                    return None;
                }
            }
        }
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn wrong_types_name_the_field() {
        let e = Options::from_json(&json!({ "protectTokens": "a" })).unwrap_err();
        assert_eq!((e.code.as_str(), e.path.as_str()), ("INVALID_OPTION", "options.protectTokens"));
        let e = Options::from_json(&json!({ "threshold": 1.5 })).unwrap_err();
        assert_eq!(e.path, "options.threshold");
        let e = Options::from_json(&json!({ "contextWindw": 5 })).unwrap_err();
        assert_eq!(e.path, "options.contextWindw");
        let e = Options::from_json(&json!({ "protectedTools": ["a", 3] })).unwrap_err();
        assert_eq!(e.path, "options.protectedTools[1]");
        let e = Options::from_json(&json!({ "system": ["a", { "text": 3 }] })).unwrap_err();
        assert_eq!(e.path, "options.system[1].text");
    }

    #[test]
    fn the_first_bad_option_in_reading_order_is_reported() {
        let both = json!({ "placeholder": " ", "threshold": 2, "contextWindow": 1000, "reservedOutput": 1000 });
        assert_eq!(Options::from_json(&both).unwrap_err().path, "options.reservedOutput");
        let e = Options::from_json(&json!({ "placeholder": " ", "threshold": 2, "summaryShape": "x" })).unwrap_err();
        assert_eq!(
            (e.path.as_str(), e.message.as_str()),
            ("options.threshold", "expected a number above 0 and at most 1, got 2")
        );
        let e =
            Options::from_json(&json!({ "template": "nope", "preset": "opencode", "hardThreshold": 0.5 })).unwrap_err();
        assert_eq!(e.path, "options.template");
    }

    #[test]
    fn limit_leaves_room_for_the_answer() {
        let o =
            Options::from_json(&json!({ "contextWindow": 200000, "reservedOutput": 32000, "threshold": 0.5 })).unwrap();
        assert_eq!(o.limit(), 84_000);
        assert_eq!(Options::default().reserved_output(), 32_000);
        assert_eq!(Options::from_json(&json!({ "model": "gpt-4-turbo" })).unwrap().profile.name, "cl100k");
        assert!(Options::from_json(&json!({ "model": "gpt-4-turbo" })).unwrap().warnings.is_empty());
        let unknown = Options::from_json(&json!({ "model": "llama-3.1-70b" })).unwrap();
        assert_eq!(unknown.profile.name, "o200k");
        assert_eq!(
            unknown.warnings,
            ["options.model: \"llama-3.1-70b\" is not a model ctxfold knows; counting with the o200k profile (set tokenizer to choose another)"]
        );
        let chosen = Options::from_json(&json!({ "model": "llama-3.1-70b", "tokenizer": "cl100k" })).unwrap();
        assert!(chosen.warnings.is_empty());
    }
}
