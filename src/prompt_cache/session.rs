//! `Session`: the decisions of a stateful host, as a pure state machine. It sees each request the
//! host is about to send (`prepare`), the provider's usage report for it (`record`), and the
//! summaries the host had written (`apply_summary`). It decides when to prune and to compact, with
//! the cache rule (`cache_cost`): an edit is made when the tokens it saves pay for the cached prefix
//! it throws away, or when the request would not fit. It keeps health metrics and notices cache
//! thrashing: several requests in a row that read nothing from the cache, and why.
//!
//! The history itself stays with the caller (the binding keeps the host's own objects); every call
//! takes it as an `Input` and returns edits as slots.

use crate::checking::overflow::Overflow;
use crate::compaction::apply::{apply_planned, Applied};
use crate::compaction::fingerprint::Hasher;
use crate::compaction::plan::{plan_compaction, Plan};
use crate::compaction::run::after_overflow;
use crate::compaction::types::PlanRef;
use crate::counting::estimate::{estimate, sum};
use crate::edit::{materialize, Slot};
use crate::error::{expected, Error, Result};
use crate::json::{ToJson, Writer};
use crate::options::{Options, Report};
use crate::prompt_cache::cache_cost::{judge, CacheDecision};
use crate::pruning::prune::{prune, Pruned};
use crate::reading::input::Input;
use crate::text::json_text;
use serde_json::{Map, Value};

/// Requests in a row without a cache read before the session reports thrashing.
pub const DEFAULT_THRASH_AFTER: usize = 3;

#[derive(Debug, Clone, PartialEq)]
pub struct SessionOptions {
    pub base: Options,
    pub thrash_after: usize,
}

impl SessionOptions {
    /// The shared options, `cache` on by default (`false` turns the rule off), and `thrashAfter`.
    pub fn from_json(v: &Value) -> Result<SessionOptions> {
        let empty = Map::new();
        let given = match v {
            Value::Null => &empty,
            Value::Object(o) => o,
            other => return Err(Error::option("options", expected("an object", other))),
        };
        // Inserted one by one: collecting into a map would bring a sort into the WebAssembly.
        let mut obj = Map::new();
        obj.insert("cache".into(), Value::Bool(true));
        for (k, v) in given.iter().filter(|(k, _)| *k != "thrashAfter") {
            obj.insert(k.clone(), v.clone());
        }
        let thrash_after = match given.get("thrashAfter") {
            None | Some(Value::Null) => DEFAULT_THRASH_AFTER,
            Some(v) => v.as_u64().filter(|&n| (1..=1000).contains(&n)).map(|n| n as usize).ok_or_else(|| {
                Error::option(
                    "options.thrashAfter",
                    ["expected a whole number from 1 to 1000, got ", &json_text(v)].concat(),
                )
            })?,
        };
        Ok(SessionOptions { base: Options::from_json(&Value::Object(obj))?, thrash_after })
    }
}

/// What the provider reported for one request, whatever its usage shape.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    /// The whole input, cached tokens included.
    pub prompt_tokens: u64,
    pub cached_tokens: u64,
    pub cache_write_tokens: u64,
    pub output_tokens: u64,
}

crate::json_object!(Usage {
    prompt_tokens => "promptTokens",
    cached_tokens => "cachedTokens",
    cache_write_tokens => "cacheWriteTokens",
    output_tokens => "outputTokens",
});

impl Usage {
    /// Reads ctxfold's shape (`promptTokens`, `cachedTokens` or `cacheReadTokens`,
    /// `cacheWriteTokens`, `outputTokens`), OpenAI Chat's and Responses' `usage`, Anthropic's
    /// (`input_tokens` + `cache_read_input_tokens` + `cache_creation_input_tokens`), Gemini's
    /// `usageMetadata`, the AI SDK's (`inputTokens`, `cachedInputTokens`), or a whole response
    /// holding one of them.
    pub fn from_json(v: &Value) -> Result<Usage> {
        let obj = v.as_object().ok_or_else(|| Error::input("usage", expected("a usage object", v)))?;
        if let Some(inner) = obj.get("usage").or_else(|| obj.get("usageMetadata")).filter(|u| u.is_object()) {
            return Usage::from_json(inner);
        }
        let read = first(
            v,
            &[
                "cachedTokens",
                "cacheReadTokens",
                "cache_read_input_tokens",
                "prompt_tokens_details.cached_tokens",
                "input_tokens_details.cached_tokens",
                "cachedContentTokenCount",
                "cachedInputTokens",
            ],
        )?;
        let write = first(v, &["cacheWriteTokens", "cache_creation_input_tokens"])?;
        let output =
            first(v, &["outputTokens", "output_tokens", "completion_tokens", "candidatesTokenCount"])?.unwrap_or(0);
        let prompt = if let Some(p) = first(v, &["promptTokens", "prompt_tokens", "promptTokenCount"])? {
            p
        } else if let Some(i) = first(v, &["input_tokens", "inputTokens"])? {
            // Anthropic's input_tokens leaves out what was read from or written to the cache.
            let anthropic =
                obj.contains_key("cache_read_input_tokens") || obj.contains_key("cache_creation_input_tokens");
            if anthropic {
                i + read.unwrap_or(0) + write.unwrap_or(0)
            } else {
                i
            }
        } else {
            return Err(Error::input(
                "usage",
                "no prompt token count (promptTokens, prompt_tokens, input_tokens, inputTokens or promptTokenCount)",
            ));
        };
        Ok(Usage {
            prompt_tokens: prompt,
            cached_tokens: read.unwrap_or(0),
            cache_write_tokens: write.unwrap_or(0),
            output_tokens: output,
        })
    }
}

/// The first of `keys` (dotted paths) that `usage` holds, as a token count.
/// A function kept out of line (it is called five times): 64 B gzip less than the closures it replaced.
#[inline(never)]
fn first(usage: &Value, keys: &[&str]) -> Result<Option<u64>> {
    for key in keys {
        let mut at = Some(usage);
        for part in key.split('.') {
            at = at.and_then(|a| a.get(part));
        }
        match at {
            None | Some(Value::Null) => {}
            Some(x) => {
                return x.as_u64().map(Some).ok_or_else(|| {
                    Error::input(["usage.", key].concat(), ["expected a token count, got ", &json_text(x)].concat())
                })
            }
        }
    }
    Ok(None)
}

/// One request the session saw, in the order sent.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RequestLog {
    /// ctxfold's estimate of the messages sent.
    pub estimated_tokens: u64,
    pub messages: usize,
    /// The provider's report, once `record` was called.
    pub usage: Option<Usage>,
    /// The edit the session made before this request: `"prune"` or `"compaction"`.
    pub edit: Option<&'static str>,
    /// Tokens that edit removed.
    pub tokens_saved: u64,
    /// The first message that differs from the previous request's (None: this one extends it).
    pub changed_at: Option<usize>,
    /// Whether this request would not fit and nothing could shrink it.
    pub stalled: bool,
}

crate::json_object!(RequestLog {
    estimated_tokens => "estimatedTokens",
    messages => "messages",
    usage if some => "usage",
    edit if some => "edit",
    tokens_saved => "tokensSaved",
    changed_at if some => "changedAt",
    stalled => "stalled",
});

#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct EditCount {
    pub count: u32,
    pub tokens_saved: u64,
}

crate::json_object!(EditCount {
    count => "count",
    tokens_saved => "tokensSaved",
});

/// Several requests in a row that read nothing from the cache, and the likely cause.
#[derive(Debug, Clone, PartialEq)]
pub struct Thrash {
    /// The first request of the run (index in the timeline).
    pub since: usize,
    pub requests: usize,
    /// Where the prefix changed, when it did.
    pub changed_at: Option<usize>,
    /// Which edit changed it: `"prune"`, `"compaction"` or `"host"` (the host changed the history).
    pub edit: Option<&'static str>,
    pub cause: String,
}

crate::json_object!(Thrash {
    since => "since",
    requests => "requests",
    changed_at if some => "changedAt",
    edit if some => "edit",
    cause => "cause",
});

#[derive(Debug, Clone, PartialEq)]
pub struct Health<'a> {
    pub requests: usize,
    pub prompt_tokens: u64,
    pub cached_tokens: u64,
    pub cache_write_tokens: u64,
    pub output_tokens: u64,
    /// Reported prompt tokens per request.
    pub tokens_per_request: f64,
    /// Cached ÷ prompt tokens over all reported requests.
    pub cache_hit_rate: f64,
    pub prunes: EditCount,
    pub compactions: EditCount,
    /// Edits the cache rule put off because they cost more than they saved.
    pub deferred: u32,
    /// Requests over the limit that nothing could shrink.
    pub stalls: u32,
    pub thrashing: Option<Thrash>,
    pub timeline: &'a [RequestLog],
}

impl<'a> ToJson for Health<'a> {
    fn to_json(&self, w: &mut Writer) {
        w.begin_object();
        w.field("requests", &self.requests);
        w.field("promptTokens", &self.prompt_tokens);
        w.field("cachedTokens", &self.cached_tokens);
        w.field("cacheWriteTokens", &self.cache_write_tokens);
        w.field("outputTokens", &self.output_tokens);
        w.field("tokensPerRequest", &self.tokens_per_request);
        w.field("cacheHitRate", &self.cache_hit_rate);
        w.field("prunes", &self.prunes);
        w.field("compactions", &self.compactions);
        w.field("deferred", &self.deferred);
        w.field("stalls", &self.stalls);
        if let Some(v) = &self.thrashing {
            w.field("thrashing", v);
        }
        w.field("timeline", &self.timeline);
        w.end_object();
    }
}

/// What `prepare` decided.
#[derive(Debug, Clone, PartialEq)]
pub struct Prepared {
    /// `"send"` (as it is), `"pruned"` (send the pruned history), or `"compact"`: summarize
    /// `plan.jobs`, pass the summary to `apply_summary`, then call `prepare` again.
    pub action: &'static str,
    /// Estimated tokens of the history to send.
    pub tokens: u64,
    pub pruned: Vec<Pruned>,
    /// The cache rule's verdict on the edit it weighed, if any.
    pub cache: Option<CacheDecision>,
    pub plan: Option<Plan>,
    pub slots: Option<Vec<Slot>>,
}

crate::json_object!(Prepared {
    action => "action",
    tokens => "tokens",
    pruned => "pruned",
    cache if some => "cache",
    plan if some => "plan",
});

#[derive(Debug, Clone, PartialEq)]
struct PendingEdit {
    kind: &'static str,
    saved: u64,
}

#[derive(Debug, Clone)]
pub struct SessionCore {
    /// The host's options; `prepare` sets `base.usage` and the cache prices' prefix and horizon
    /// for each turn (`given_usage` and `given_prefix` keep what the host gave for them).
    options: SessionOptions,
    given_usage: Vec<Report>,
    given_prefix: Option<u64>,
    timeline: Vec<RequestLog>,
    /// Fingerprints of the messages of the last request sent.
    sent: Vec<u64>,
    pending_edit: Option<PendingEdit>,
    /// What `apply_summary` reads of the plan of the last `"compact"`.
    plan: Option<PlanRef>,
    prunes: EditCount,
    compactions: EditCount,
    deferred: u32,
    stalls: u32,
    /// The oldest and the latest report still valid for calibration (no edit since, none of their
    /// messages changed): the latest anchors the estimate, the growth between the two scales it.
    reports: Vec<Report>,
    /// The provider refused the last request as too long: the next `prepare` compacts to what it said.
    overflow: Option<Overflow>,
}

impl SessionCore {
    pub fn new(options: SessionOptions) -> SessionCore {
        SessionCore {
            given_usage: options.base.usage.clone(),
            given_prefix: options.base.cache.as_ref().and_then(|c| c.cached_prefix_tokens),
            options,
            timeline: Vec::new(),
            sent: Vec::new(),
            pending_edit: None,
            plan: None,
            prunes: EditCount::default(),
            compactions: EditCount::default(),
            deferred: 0,
            stalls: 0,
            reports: Vec::new(),
            overflow: None,
        }
    }

    /// Sets the options for this turn in place: the cache rule assumes what the provider holds and
    /// pays back over the requests left before the limit. In place rather than on a clone:
    /// `Options`' clone, inlined here, cost 585 B gzip; `given_prefix` keeps what the host gave.
    fn set_turn_options(&mut self, per_message: &[u32]) {
        let horizon = self.horizon(sum(per_message), &self.options.base);
        let caching = self.timeline.len() <= 1
            || self.timeline.iter().filter_map(|r| r.usage).any(|u| u.cached_tokens + u.cache_write_tokens > 0);
        let held = self.timeline.last().filter(|_| caching).map_or(0, |r| r.messages.min(per_message.len()));
        let o = &mut self.options.base;
        if let Some(prices) = o.cache.as_mut() {
            prices.cached_prefix_tokens = Some(self.given_prefix.unwrap_or_else(|| sum(&per_message[..held])));
            prices.horizon = horizon;
        }
    }

    /// Requests left before the limit at the growth seen so far (10 before there is any).
    fn horizon(&self, total: u64, o: &Options) -> u32 {
        // A count and a sum rather than a collected list (each collect is its own iterator code).
        let (mut count, mut sum) = (0u64, 0u64);
        for w in self.timeline.windows(2) {
            if let Some(g) = w[1].estimated_tokens.checked_sub(w[0].estimated_tokens).filter(|&g| g > 0) {
                count += 1;
                sum += g;
            }
        }
        if count == 0 {
            return crate::options::DEFAULT_HORIZON;
        }
        let per_request = (sum / count).max(1);
        (u64::from(o.limit()).saturating_sub(total) / per_request).clamp(1, 100) as u32
    }

    /// Decides what to do before sending `input`. With `"send"` and `"pruned"` the request is
    /// logged as sent; with `"compact"` nothing is sent until the summary is applied.
    pub fn prepare(&mut self, input: &Input) -> Result<Prepared> {
        // The session's reports since the last edit (else the host's own) anchor and scale every
        // estimate of the turn, the total it decides on included: a profile that counts low for this
        // model (an older tokenizer for a newer one) would otherwise let the history overflow before
        // compaction.
        // Reports for more messages than the history holds: the host cut it, they are for another.
        if self.reports.iter().any(|r| r.message_count > input.items.len()) {
            self.reports.clear();
        }
        self.options.base.usage = if self.reports.is_empty() { &self.given_usage } else { &self.reports }.clone();
        let est = estimate(input, &self.options.base)?;
        self.set_turn_options(&est.per_message);
        // After an overflow, this turn compacts to the limit the provider stated.
        let after = self.overflow.take().map(|overflow| after_overflow(&self.options.base, &overflow, est.total));
        let o = after.as_ref().unwrap_or(&self.options.base);
        let mut stalled = false;
        let mut cache = None;
        // Over the limit, compaction comes before pruning: pruning there keeps the history hovering
        // at the limit, rewriting its prefix again every few turns (the replay test measured both:
        // compacting first cost less).
        if est.total > u64::from(o.limit()) || o.force {
            let plan = plan_compaction(input, o)?;
            if plan.needed && (!plan.jobs.is_empty() || plan.dropped.is_some()) {
                let decision = self.judge_compaction(&plan, &est.per_message, o);
                if decision.as_ref().is_none_or(|d| d.applied) {
                    self.plan = Some(plan.to_ref()?);
                    return Ok(Prepared {
                        action: "compact",
                        tokens: est.total,
                        pruned: Vec::new(),
                        cache: decision,
                        plan: Some(plan),
                        slots: None,
                    });
                }
                self.deferred += 1;
                cache = decision;
            } else {
                stalled = est.total > u64::from(o.limit());
            }
        }
        let p = prune(input, o)?;
        let mut tokens = est.total;
        let mut slots = None;
        let mut action = "send";
        if let Some(d) = &p.report.cache {
            if !d.applied {
                self.deferred += 1;
            }
            cache = Some(d.clone());
        }
        if !p.report.pruned.is_empty() {
            let saved = p.report.tokens_before.saturating_sub(p.report.tokens_after);
            tokens = tokens.saturating_sub(saved);
            self.prunes.count += 1;
            self.prunes.tokens_saved += saved;
            self.pending_edit = Some(PendingEdit { kind: "prune", saved });
            self.reports.clear();
            slots = Some(p.slots);
            action = "pruned";
        }
        if stalled {
            self.stalls += 1;
        }
        self.log_send(input.items, slots.as_deref(), tokens, stalled);
        Ok(Prepared { action, tokens, pruned: p.report.pruned, cache, plan: None, slots })
    }

    /// A compaction under the hard limit waits while it does not pay: it rewrites everything from
    /// its first summarized message and costs a summary request. Without a hard limit, or over it,
    /// it is made (None).
    fn judge_compaction(&self, plan: &Plan, per_message: &[u32], o: &Options) -> Option<CacheDecision> {
        let prices = o.cache.as_ref()?;
        o.hard_threshold?;
        let first = plan.summarize.first()?.start;
        let saved = plan.tokens_before.saturating_sub(plan.estimated_tokens_after);
        let mut d =
            judge(per_message, &[(first, saved)], prices.cached_prefix_tokens.unwrap_or(0), prices, plan.urgent);
        // The summary request reads the summarized messages uncached and writes the summary.
        let summarized: u64 = plan
            .summarize
            .iter()
            .map(|r| sum(&per_message[r.start.min(per_message.len())..r.end.min(per_message.len())]))
            .sum();
        let request = summarized as f64 + plan.jobs.iter().map(|j| f64::from(j.max_output_tokens)).sum::<f64>();
        d.net_saving -= request;
        if !plan.urgent && d.net_saving <= 0.0 {
            d.applied = false;
            d.reason = "costs more than it saves";
        }
        Some(d)
    }

    /// Splices in the summary for the plan of the last `"compact"`.
    pub fn apply_summary(&mut self, input: &Input, summary: &Value) -> Result<Applied> {
        let plan = self.plan.as_ref().ok_or_else(|| {
            Error::new(
                crate::error::Code::NothingToApply,
                "summary",
                "no compaction is pending: apply_summary follows a prepare() that returned action \"compact\"",
            )
        })?;
        let applied = match apply_planned(input, plan, summary) {
            Ok(a) => a,
            Err(e) => {
                if e.code == crate::error::Code::SummaryNotSmaller {
                    self.stalls += 1;
                }
                return Err(e);
            }
        };
        let saved = applied.report.tokens_before.saturating_sub(applied.report.tokens_after);
        self.compactions.count += 1;
        self.compactions.tokens_saved += saved;
        self.pending_edit = Some(PendingEdit { kind: "compaction", saved });
        self.plan = None;
        self.reports.clear();
        Ok(applied)
    }

    fn log_send(&mut self, items: &[Value], slots: Option<&[Slot]>, tokens: u64, stalled: bool) {
        let mut fingerprints: Vec<u64> = Vec::with_capacity(slots.map_or(items.len(), <[Slot]>::len));
        match slots {
            None => {
                for item in items {
                    fingerprints.push(fingerprint(item));
                }
            }
            Some(slots) => {
                for s in slots {
                    fingerprints.push(match s {
                        Slot::Keep(i) => fingerprint(&items[*i]),
                        other => materialize(std::slice::from_ref(other), items).first().map_or(0, fingerprint),
                    });
                }
            }
        }
        let changed_at = match self.timeline.is_empty() {
            true => None,
            false => fingerprints
                .iter()
                .zip(&self.sent)
                .position(|(a, b)| a != b)
                .or((fingerprints.len() < self.sent.len()).then_some(fingerprints.len())),
        };
        // Reports covering messages the host has since changed are for another history: start over.
        if changed_at.is_some_and(|at| self.reports.iter().any(|r| r.message_count > at)) {
            self.reports.clear();
        }
        let edit = self.pending_edit.take();
        self.timeline.push(RequestLog {
            estimated_tokens: tokens,
            messages: fingerprints.len(),
            usage: None,
            edit: edit.as_ref().map(|e| e.kind),
            tokens_saved: edit.map_or(0, |e| e.saved),
            changed_at,
            stalled,
        });
        self.sent = fingerprints;
    }

    /// The provider's report for the last request sent.
    pub fn record(&mut self, usage: Usage) -> Result<&RequestLog> {
        let last = self.timeline.len().checked_sub(1).ok_or_else(|| {
            Error::input("usage", "no request was prepared: call prepare() before sending, record() after")
        })?;
        let message_count = self.timeline[last].messages;
        self.timeline[last].usage = Some(usage);
        let cached_tokens = Some(usage.cached_tokens);
        self.add_report(Report {
            prompt_tokens: usage.prompt_tokens,
            message_count,
            cached_tokens,
            path: "usage".into(),
        });
        Ok(&self.timeline[last])
    }

    /// The provider refused the last request sent as too long. The count its error states is a report
    /// like `record`'s (the estimate was low), and the next `prepare` compacts, to the limit it states
    /// in the estimate's units (`run::after_overflow`).
    pub fn overflowed(&mut self, overflow: Overflow) -> Result<()> {
        let last = self.timeline.last().ok_or_else(|| {
            Error::input("error", "no request was prepared: call prepare() before sending, overflowed() after")
        })?;
        if let Some(actual) = overflow.actual {
            let message_count = last.messages;
            self.add_report(Report { prompt_tokens: actual, message_count, cached_tokens: None, path: "error".into() });
        }
        self.overflow = Some(overflow);
        Ok(())
    }

    /// Keeps `report` for calibration. Only the oldest and the latest are read; a second report for
    /// the same request replaces the first.
    fn add_report(&mut self, report: Report) {
        if self.reports.len() > 1 || self.reports.last().is_some_and(|r| r.message_count >= report.message_count) {
            self.reports.pop();
        }
        self.reports.push(report);
    }

    /// The run of requests without a cache read at the end of the timeline, once it is long enough.
    pub fn thrashing(&self) -> Option<Thrash> {
        // The first request of a session has nothing to read.
        let run =
            self.timeline.iter().skip(1).rev().take_while(|r| r.usage.is_some_and(|u| u.cached_tokens == 0)).count();
        if run < self.options.thrash_after {
            return None;
        }
        let since = self.timeline.len() - run;
        let changed = self.timeline[since..].iter().find(|r| r.changed_at.is_some());
        let (changed_at, edit, cause) = match changed {
            Some(r) => {
                let at = r.changed_at.unwrap_or(0);
                let edit = r.edit.unwrap_or("host");
                // `concat` rather than `format!`: each `format!` call site adds its own code.
                let by = match edit {
                    "host" => "the host changed the history".to_string(),
                    kind => ["a ", kind, " by this session"].concat(),
                };
                (Some(at), Some(edit), ["the prompt prefix changed at message ", &at.to_string(), " (", &by, "), so the provider's cache no longer matched"].concat())
            }
            None => (None, None, "the prompt prefix did not change: the cache expired between requests (5 minutes on Anthropic) or caching is off (Anthropic needs cache_control markers: see cache_breakpoints)".to_string()),
        };
        Some(Thrash { since, requests: run, changed_at, edit, cause })
    }

    pub fn health(&self) -> Health<'_> {
        // One pass adding the reports field by field: summing each field over a collected list
        // cost more code (measured with the thrashing texts below: 178 B gzip).
        let mut total = Usage::default();
        let mut reported = 0u64;
        for u in self.timeline.iter().filter_map(|r| r.usage) {
            total.prompt_tokens += u.prompt_tokens;
            total.cached_tokens += u.cached_tokens;
            total.cache_write_tokens += u.cache_write_tokens;
            total.output_tokens += u.output_tokens;
            reported += 1;
        }
        let (prompt, cached) = (total.prompt_tokens, total.cached_tokens);
        Health {
            requests: self.timeline.len(),
            prompt_tokens: prompt,
            cached_tokens: cached,
            cache_write_tokens: total.cache_write_tokens,
            output_tokens: total.output_tokens,
            tokens_per_request: if reported == 0 { 0.0 } else { prompt as f64 / reported as f64 },
            cache_hit_rate: if prompt == 0 { 0.0 } else { cached as f64 / prompt as f64 },
            prunes: self.prunes,
            compactions: self.compactions,
            deferred: self.deferred,
            stalls: self.stalls,
            thrashing: self.thrashing(),
            timeline: &self.timeline,
        }
    }
}

fn fingerprint(v: &Value) -> u64 {
    let mut h = Hasher::default();
    h.value(v);
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::agent_run;
    use serde_json::json;

    #[test]
    fn usage_shapes_of_every_provider() {
        let u = |v: Value| Usage::from_json(&v).unwrap();
        let openai = u(
            json!({ "usage": { "prompt_tokens": 1000, "completion_tokens": 50, "prompt_tokens_details": { "cached_tokens": 800 } } }),
        );
        assert_eq!(openai, Usage { prompt_tokens: 1000, cached_tokens: 800, cache_write_tokens: 0, output_tokens: 50 });
        let anthropic = u(
            json!({ "input_tokens": 20, "cache_read_input_tokens": 800, "cache_creation_input_tokens": 180, "output_tokens": 50 }),
        );
        assert_eq!(
            anthropic,
            Usage { prompt_tokens: 1000, cached_tokens: 800, cache_write_tokens: 180, output_tokens: 50 }
        );
        let responses =
            u(json!({ "input_tokens": 1000, "input_tokens_details": { "cached_tokens": 800 }, "output_tokens": 50 }));
        assert_eq!(responses.prompt_tokens, 1000);
        let gemini = u(
            json!({ "usageMetadata": { "promptTokenCount": 1000, "cachedContentTokenCount": 800, "candidatesTokenCount": 50 } }),
        );
        assert_eq!(gemini, openai);
        assert_eq!(u(json!({ "promptTokens": 1000, "cacheReadTokens": 800, "outputTokens": 50 })), openai);
        assert_eq!(Usage::from_json(&json!({ "prompt_tokens": "x" })).unwrap_err().path, "usage.prompt_tokens");
        assert_eq!(Usage::from_json(&json!({})).unwrap_err().path, "usage");
    }

    fn session(v: Value) -> SessionCore {
        SessionCore::new(SessionOptions::from_json(&v).unwrap())
    }

    #[test]
    fn after_an_overflow_the_stated_count_anchors_the_estimate_and_the_next_prepare_compacts() {
        let msgs = agent_run(40, 200);
        let mut s = session(json!({ "contextWindow": 1_000_000 }));
        let input = Input::items(&msgs);
        let sent = s.prepare(&input).unwrap();
        assert_eq!(sent.action, "send");
        let (limit, actual) = (sent.tokens * 3 / 4, sent.tokens * 6 / 5);
        assert!(s.overflowed(Overflow { provider: "openai", limit: Some(limit), actual: Some(actual) }).is_ok());
        let again = s.prepare(&input).unwrap();
        assert_eq!(again.action, "compact");
        assert!(again.tokens >= actual, "{} tokens: the provider's count anchors the estimate", again.tokens);
        let plan = again.plan.unwrap();
        assert!(u64::from(plan.limit) < limit, "{} < {limit}: the stated limit, in the estimate's units", plan.limit);
        // Once: the turn after goes back to the host's window.
        assert!(s.apply_summary(&input, &json!("The agent fixed src/app.py.")).is_ok());
        assert_eq!(s.overflow, None);
        // Before any request, there is nothing to have overflowed.
        let mut fresh = session(json!({}));
        assert_eq!(
            fresh.overflowed(Overflow { provider: "anthropic", limit: None, actual: None }).unwrap_err().path,
            "error"
        );
    }

    #[test]
    fn thrashing_names_the_edit_that_changed_the_prefix() {
        let mut s = session(json!({ "protectTokens": 2000, "minimumPruneTokens": 500, "cache": false }));
        let full = agent_run(12, 300);
        let mut msgs = full[..10].to_vec();
        for turn in 0..5 {
            let p = s.prepare(&Input::items(&msgs)).unwrap();
            if let Some(slots) = &p.slots {
                msgs = materialize(slots, &msgs);
            }
            // A provider that reads a cached prefix once, on the second request, then never again.
            let cached = if turn == 1 { 500 } else { 0 };
            s.record(Usage { prompt_tokens: 5000, cached_tokens: cached, ..Usage::default() }).unwrap();
            let n = msgs.len();
            msgs.extend_from_slice(&full[n..n + 2]);
        }
        let h = s.health();
        assert_eq!(h.requests, 5);
        let t = h.thrashing.expect("three requests without a cache read");
        assert_eq!((t.since, t.requests), (2, 3));
        assert_eq!(t.edit, Some("prune"));
        assert!(t.cause.contains("a prune by this session"), "{}", t.cause);
        let at = t.changed_at.expect("where the prefix changed");
        assert_eq!(msgs[at]["content"], json!(crate::options::DEFAULT_PLACEHOLDER), "the message the prune cleared");
        assert!(h.prunes.count >= 1 && h.prunes.tokens_saved > 0);
    }

    #[test]
    fn an_unchanged_prefix_without_reads_blames_the_cache_itself() {
        let mut s = session(json!({}));
        let full = agent_run(10, 10);
        let mut msgs = full[..4].to_vec();
        for _ in 0..4 {
            assert_eq!(s.prepare(&Input::items(&msgs)).unwrap().action, "send");
            s.record(Usage { prompt_tokens: 300, ..Usage::default() }).unwrap();
            let n = msgs.len();
            msgs.extend_from_slice(&full[n..n + 2]);
        }
        let t = s.health().thrashing.unwrap();
        assert_eq!((t.changed_at, t.edit), (None, None));
        assert!(t.cause.contains("did not change"));
    }

    #[test]
    fn its_reports_correct_a_profile_that_counts_low() {
        // The provider counts 25% more than the profile (a newer model's tokenizer): the session must
        // ask to compact on its reports, by the first request the provider would count over the limit,
        // though the profile's own estimate never reaches it.
        let full = agent_run(20, 60);
        let counting = Options::default();
        let total = |n: usize| estimate(&Input::items(&full[..n]), &counting).unwrap().total;
        let limit = total(full.len());
        let first_compaction = |factor: f64| {
            let mut s = session(json!({ "thresholdTokens": limit, "protectTokens": 100000 }));
            for n in (4..=full.len()).step_by(2) {
                if s.prepare(&Input::items(&full[..n])).unwrap().action == "compact" {
                    return Some(n);
                }
                s.record(Usage { prompt_tokens: (total(n) as f64 * factor).round() as u64, ..Usage::default() })
                    .unwrap();
            }
            None
        };
        assert_eq!(first_compaction(1.0), None);
        let n = first_compaction(1.25).expect("a compaction before the history overflows");
        let reported = |n: usize| total(n) as f64 * 1.25;
        assert!(reported(n) > limit as f64 * 0.97, "not needlessly early: {n} messages, {} of {limit}", reported(n));
        assert!(reported(n - 2) <= limit as f64, "the request before was already over: {n} messages");
    }

    #[test]
    fn compaction_is_asked_for_then_applied_and_counted() {
        let mut s = session(json!({ "contextWindow": 8000, "reservedOutput": 1000, "protectTokens": 100000 }));
        let msgs = agent_run(40, 100);
        let p = s.prepare(&Input::items(&msgs)).unwrap();
        assert_eq!(p.action, "compact");
        assert!(s.timeline.is_empty(), "nothing is sent before the summary");
        let summaries = crate::compaction::apply::offline_summaries(
            &Input::items(&msgs),
            &serde_json::to_value(p.plan.as_ref().unwrap()).unwrap(),
        )
        .unwrap();
        let applied = s.apply_summary(&Input::items(&msgs), &Value::Object(summaries)).unwrap();
        let out = materialize(&applied.slots, &msgs);
        assert_eq!(s.prepare(&Input::items(&out)).unwrap().action, "send");
        let h = s.health();
        assert_eq!(h.compactions.count, 1);
        assert_eq!(h.timeline[0].edit, Some("compaction"));
        assert!(h.compactions.tokens_saved > 0);
        assert!(s.apply_summary(&Input::items(&out), &json!("x")).is_err(), "no plan pending");
    }
}
