//! `plan_compaction`: decides whether the history must be compacted, where to cut, and writes the
//! summary prompt. A plan is plain data; `apply_summary` checks it against the messages later.
//!
//! The cut never separates a tool call from its results. It falls before a real user message when
//! one leaves a tail within the budget; otherwise (a long agent run is often one user request
//! followed by a hundred tool steps) between two complete tool exchanges.

use crate::compaction::fingerprint::{self};
use crate::compaction::pins;
use crate::compaction::prompt::{fitted_prompt, latest_request, quoted_note};
use crate::compaction::restore;
use crate::compaction::strategy::{choose_cut, chunks, regions, safe_boundaries, MIN_RANGE_TOKENS};
use crate::compaction::template::{Prompt, Template};
use crate::compaction::topic;
use crate::compaction::types::{decisions_hash, dropped_tokens, summarized_indices, JobRef, Keep, PlanRef, Range};
use crate::counting::estimate::{finish, per_message_known, KnownTokens};
use crate::counting::profiles::Profile;
use crate::error::{Code, Error, Result};
use crate::options::{Options, Shape, Strategy};
use crate::reading::format::{self, Conversation, Format};
use crate::reading::input::Input;
use crate::reading::message::Role;

#[derive(Debug, Clone, PartialEq)]
pub struct Job {
    pub id: String,
    /// The messages this job summarizes (pinned ones inside it are kept, not summarized).
    pub range: Range,
    pub prompt: Prompt,
    pub max_output_tokens: u32,
    /// The user's messages `apply_summary` quotes after this job's summary where the room does not bound
    /// them (`keepUserText`): the prompt names them, so that the summary need not copy them. Not part of
    /// the plan's JSON.
    pub quoted: Vec<usize>,
}

crate::json_object!(Job {
    id => "id",
    range => "range",
    prompt => "prompt",
    max_output_tokens => "maxOutputTokens",
});

#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// Whether the history should be compacted now.
    pub needed: bool,
    /// Why: `under_limit`, `over_limit`, `forced`, `topic_switch`, `provider_compaction` or
    /// `nothing_to_summarize`.
    pub reason: &'static str,
    /// The same, in a sentence.
    pub detail: String,
    pub format: &'static str,
    pub tokenizer: &'static str,
    /// The model whose own image billing the counts used (`Profile::image_model`), for `apply_summary`;
    /// written only when there is one.
    pub image_model: Option<&'static str>,
    pub tokens_before: u64,
    /// The soft limit: above it, compact to leave room.
    pub limit: u32,
    /// The hard limit (with `hardThreshold`): above it, compact before sending anything.
    pub hard_limit: Option<u32>,
    /// Over the hard limit: the request must not be sent as it is.
    pub urgent: bool,
    pub context_window: u32,
    pub reserved_output: u32,
    /// The expected size after applying a summary of `maxOutputTokens`.
    pub estimated_tokens_after: u64,
    /// How many messages the plan was made from; messages appended later are kept as they are.
    pub message_count: usize,
    /// The form the summary was asked for (`sections`, `snapshot`, `general`, `progress`, `custom`).
    pub template: &'static str,
    /// The preset the options started from, if any.
    pub preset: Option<&'static str>,
    /// How the summarized messages were chosen (`tail`, `regions`, `hierarchical`).
    pub strategy: &'static str,
    /// How `apply_summary` writes the summary back (`message`, `exchange`, `system`, `acknowledged`).
    pub summary_shape: &'static str,
    /// The line the summary message starts with, if any.
    pub summary_prefix: Option<String>,
    /// Whether `apply_summary` appends the facts a summary left out (the `keepFacts` option).
    pub keep_facts: bool,
    /// Whether `apply_summary` quotes the user's summarized messages (the `keepUserText` option).
    pub keep_user_text: bool,
    /// Messages left out without a summary: the ones before the newest provider compaction item,
    /// whose summary stands for them (the provider leaves them out as well). System and developer
    /// messages among them stay.
    pub dropped: Option<Range>,
    /// Ranges kept verbatim.
    pub keep: Vec<Range>,
    /// Ranges replaced by a summary.
    pub summarize: Vec<Range>,
    /// Messages inside `summarize` ranges that stay verbatim after the summary: system and developer
    /// messages, the host's `pin`s, critical messages (`keepCritical`), each with its tool exchange.
    pub pinned: Vec<usize>,
    /// An earlier summary of ours that this one will replace and merge.
    pub previous_summary: Option<usize>,
    pub jobs: Vec<Job>,
    pub warnings: Vec<String>,
    /// Ties the plan to the messages and to its own decisions (see `seal`).
    pub fingerprint: String,
    /// Each message's tokens as the plan counted them, for what reads the same history next (its apply,
    /// digest and revision checks). Not part of the plan's JSON.
    pub counted: KnownTokens,
}

// For the tests' `serde_json::to_value(plan)`; not compiled into the wasm (nothing there calls it).
crate::serialize_through_text!(Plan);

crate::json_object!(Plan {
    needed => "needed",
    reason => "reason",
    detail => "detail",
    format => "format",
    tokenizer => "tokenizer",
    image_model if some => "imageModel",
    tokens_before => "tokensBefore",
    limit => "limit",
    hard_limit => "hardLimit",
    urgent => "urgent",
    context_window => "contextWindow",
    reserved_output => "reservedOutput",
    estimated_tokens_after => "estimatedTokensAfter",
    message_count => "messageCount",
    template => "template",
    preset => "preset",
    strategy => "strategy",
    summary_shape => "summaryShape",
    summary_prefix => "summaryPrefix",
    keep_facts => "keepFacts",
    keep_user_text => "keepUserText",
    dropped => "dropped",
    keep => "keep",
    summarize => "summarize",
    pinned => "pinned",
    previous_summary => "previousSummary",
    jobs => "jobs",
    warnings => "warnings",
    fingerprint => "fingerprint",
});

impl Plan {
    /// What `apply_summary` and the offline digest read of this plan, without a trip through JSON: the
    /// same as `PlanRef::from_json` of the plan's JSON form.
    pub fn to_ref(&self) -> Result<PlanRef> {
        let mut profile = Profile::from_name(self.tokenizer, "plan.tokenizer")?;
        if let Some(model) = self.image_model {
            profile = profile.with_images_of(model);
        }
        let mut jobs = Vec::with_capacity(self.jobs.len());
        for j in &self.jobs {
            jobs.push(JobRef { id: j.id.clone(), range: j.range, max_output_tokens: j.max_output_tokens });
        }
        Ok(PlanRef {
            needed: self.needed,
            format: Format::from_name(self.format, "plan.format")?,
            profile,
            limit: u64::from(self.limit),
            message_count: self.message_count,
            dropped: self.dropped,
            summarize: self.summarize.clone(),
            pinned: self.pinned.clone(),
            jobs,
            fingerprint: self.fingerprint.clone(),
            template: Template::from_name(self.template)
                .ok_or_else(|| Error::plan("plan.template", "unknown template"))?,
            summary_shape: Shape::ALL
                .into_iter()
                .find(|s| s.name() == self.summary_shape)
                .ok_or_else(|| Error::plan("plan.summaryShape", "unknown summary shape"))?,
            summary_prefix: self.summary_prefix.clone(),
            keep: Keep { user_text: self.keep_user_text, facts: self.keep_facts },
            counted: Some(self.counted.clone()),
        })
    }
}

pub fn plan_compaction(input: &Input, options: &Options) -> Result<Plan> {
    plan_compaction_known(input, options, None)
}

/// `plan_compaction` on a history some of whose messages were counted before (`known`, see
/// `KnownTokens`): the same plan, without counting those again.
pub fn plan_compaction_known(input: &Input, options: &Options, known: Option<&KnownTokens>) -> Result<Plan> {
    let conv = format::read(input, options.format)?;
    let tokens = per_message_known(&conv, &options.profile, known);
    // The same total as `estimate`: request overhead included, anchored on reported usage if given.
    let profile = options.profile;
    let total = finish(tokens.clone(), conv.format, options, input, false, &mut |t| Ok(profile.text(t)))?.total;
    let limit = options.limit();
    let n = conv.len();
    let mut plan = Plan {
        needed: false,
        reason: "under_limit",
        detail: format!("{total} tokens, within the limit of {limit}"),
        format: conv.format.name(),
        tokenizer: options.profile.name,
        image_model: options.profile.image_model,
        tokens_before: total,
        limit,
        hard_limit: options.hard_limit(),
        urgent: options.hard_limit().is_some_and(|h| total > u64::from(h)),
        context_window: options.context_window(),
        reserved_output: options.reserved_output(),
        estimated_tokens_after: total,
        message_count: n,
        template: options.template.name(),
        preset: options.preset,
        strategy: options.strategy.name(),
        summary_shape: options.summary_shape.name(),
        summary_prefix: options.summary_prefix.clone(),
        keep_facts: options.keep_facts,
        keep_user_text: options.keep_user_text,
        dropped: None,
        keep: vec![Range { start: 0, end: n }],
        summarize: Vec::new(),
        pinned: Vec::new(),
        previous_summary: None,
        jobs: Vec::new(),
        warnings: options.warnings.clone(),
        fingerprint: String::new(),
        counted: KnownTokens::of(&conv, &options.profile, &tokens),
    };
    let over = total > u64::from(limit);
    if over || options.force {
        plan.needed = true;
        (plan.reason, plan.detail) = if plan.urgent {
            (
                "over_limit",
                format!(
                    "{total} tokens, over the hard limit of {}: compact before sending",
                    plan.hard_limit.unwrap_or(limit)
                ),
            )
        } else if over {
            ("over_limit", format!("{total} tokens, over the limit of {limit}"))
        } else {
            ("forced", format!("{total} tokens; compaction was asked for"))
        };
        decide(&conv, &tokens, options, &mut plan)?;
    } else if let Some(dropped) = options.drop_before_provider_compaction.then(|| droppable(&conv)).flatten() {
        plan.needed = true;
        plan.reason = "provider_compaction";
        plan.detail = format!(
            "{total} tokens, within the limit of {limit}; messages #{}-#{} lie before the newest provider \
             compaction item, which stands for them",
            dropped.start,
            dropped.end - 1
        );
        decide(&conv, &tokens, options, &mut plan)?;
    } else if let Some(at) = options.topic_switch.then(|| topic::switched(&conv)).flatten() {
        plan.needed = true;
        plan.reason = "topic_switch";
        plan.detail = format!(
            "{total} tokens, within the limit of {limit}, but the newest request (message #{at}) starts a new topic: \
             what came before can be summarized now"
        );
        // The new topic is the tail: everything before it is the old one.
        let tail: u64 = tokens[at..].iter().map(|&t| u64::from(t)).sum();
        let tail = tail.min(u64::from(u32::MAX)) as u32;
        let from_new_topic = Options { keep_recent_tokens: Some(tail), keep_fraction: None, ..options.clone() };
        decide(&conv, &tokens, &from_new_topic, &mut plan)?;
    }
    // The messages' hash seals the plan and seeds the prompt's nonce: computed once (it reads every message).
    let seed = fingerprint::of_messages(input.items, n);
    plan.fingerprint = seal(seed, &plan);
    // The newest user request, shown to the summarizer as context (`includeLatestRequest`).
    let latest = match options.include_latest_request {
        true => conv.newest_request().map(|i| latest_request(&conv, i, seed)),
        false => None,
    };
    let window = options.summarizer_window();
    for job in &mut plan.jobs {
        // The summary request must fit the summarizer: its answer, then the prompt in what is left.
        let asked = job.max_output_tokens;
        job.max_output_tokens = asked.min(window / 4).max(1);
        plan.estimated_tokens_after -= u64::from(asked - job.max_output_tokens);
        // The prompt's two messages get their framing; the rest of the window is for their text.
        let budget = f64::from(window - job.max_output_tokens) - 2.0 * profile.per_message - profile.per_reply;
        let indices = summarized_indices(&[job.range], &plan.pinned);
        let mut suffix = quoted_note(&job.quoted);
        suffix.push_str(latest.as_deref().unwrap_or(""));
        let (prompt, prompt_tokens, degraded) =
            fitted_prompt(&conv, &indices, seed, &options.template, &suffix, |t| profile.text(t), budget);
        if prompt_tokens > budget {
            plan.warnings.push(format!(
                "{}: even shortened, the summary prompt does not fit a summarizer window of {window} tokens",
                job.id
            ));
        }
        plan.warnings.extend(degraded.map(|d| format!("{}: {d}", job.id)));
        job.prompt = prompt;
    }
    Ok(plan)
}

/// Fills in what goes: first what lies before the newest provider compaction item, which stands for it;
/// then, unless that was enough, a split after it and the summaries.
fn decide(conv: &Conversation, tokens: &[u32], options: &Options, plan: &mut Plan) -> Result<()> {
    plan.dropped = droppable(conv);
    let dropped_tokens = dropped_tokens(conv, tokens, plan.dropped);
    // Saturating: a calibrated total (`usage`) may be below the sum of the messages' estimates.
    plan.estimated_tokens_after = plan.tokens_before.saturating_sub(dropped_tokens);
    let enough = u64::from(plan.limit) >= plan.estimated_tokens_after;
    if !(plan.dropped.is_some() && enough && matches!(plan.reason, "over_limit" | "provider_compaction")) {
        // The provider's summary and what it stands for are never summarized again.
        let newest = (0..conv.len()).rev().find(|&i| conv.messages[i].provider_compaction);
        split(conv, tokens, options, plan, newest.map_or(0, |p| p + 1))?;
    }
    // In order: the dropped messages end at the provider's item, the summarized ones start after it.
    let mut removed = Vec::new();
    if let Some(d) = plan.dropped {
        removed.push(d);
    }
    removed.extend_from_slice(&plan.summarize);
    let mut keep = Vec::new();
    let mut at = 0;
    // Only the non-empty gaps, pushed as found (a filtered collect would be its own iterator code).
    for r in &removed {
        if at < r.start {
            keep.push(Range { start: at, end: r.start });
        }
        at = r.end;
    }
    if at < conv.len() {
        keep.push(Range { start: at, end: conv.len() });
    }
    plan.keep = keep;
    Ok(())
}

/// Where the history starts for compaction: after the leading system messages (a summary of ours in
/// system form is not one of them).
fn head(conv: &Conversation) -> usize {
    conv.messages.iter().position(|m| m.role != Role::System || m.is_summary).unwrap_or(conv.len())
}

/// The messages before the newest provider compaction item, from the head on, when they hold more than
/// system messages. The range ends before any tool exchange or bound pair the item's side still needs.
fn droppable(conv: &Conversation) -> Option<Range> {
    let head = head(conv);
    let item = (head..conv.len()).rev().find(|&i| conv.messages[i].provider_compaction)?;
    let mut end = item;
    for i in head..item {
        if conv.links.last_result[i].is_some_and(|r| r >= item) {
            end = end.min(i);
        }
    }
    while end > head && conv.messages[end - 1].binds_to_next {
        end -= 1;
    }
    (head..end).any(|i| conv.messages[i].role != Role::System).then_some(Range { start: head, end })
}

/// Fills in the split and the summaries from `from` on, or says why there are none.
fn split(conv: &Conversation, tokens: &[u32], options: &Options, plan: &mut Plan, from: usize) -> Result<()> {
    let start = head(conv).max(from);
    let safe = safe_boundaries(conv);
    let budget = tail_budget(options, plan.tokens_before);
    let Some(cut) = choose_cut(conv, tokens, &safe, start, options, budget) else {
        return cannot_compact(plan, options, "every message is pinned or part of the recent tail");
    };
    // Without re-summarizing, earlier summaries stay as they are: only what follows the last one counts.
    let first = match options.resummarize {
        true => start,
        false => (start..cut).rev().find(|&i| conv.messages[i].is_summary).map_or(start, |s| s + 1),
    };
    let whole = Range { start: first, end: cut.max(first) };
    let whole_has_content =
        (whole.start..whole.end).any(|i| !conv.messages[i].is_summary && conv.messages[i].role != Role::System);
    let size = |r: &Range| (r.start..r.end).map(|i| u64::from(tokens[i])).sum::<u64>();
    // Each summarized range with the jobs that write its summary.
    let mut chosen: Vec<(Range, Vec<Range>)> = match options.strategy {
        _ if !whole_has_content && options.strategy != Strategy::Regions => Vec::new(),
        Strategy::Tail => vec![(whole, vec![whole])],
        Strategy::Hierarchical => vec![(whole, chunks(&safe, whole, options.chunk_messages as usize))],
        Strategy::Regions => {
            // Largest first, until the history is comfortably under the limit (each region shrinks to
            // about a fifth), so the next turns do not compact again at once.
            let target = u64::from(plan.limit) * 3 / 4;
            let mut after = plan.tokens_before;
            let mut picked = Vec::new();
            // Earlier summaries end regions, so regions may lie between them.
            for r in regions(conv, tokens, &safe, Range { start, end: cut }) {
                if after <= target && !picked.is_empty() {
                    break;
                }
                after -= size(&r) - summary_budget(size(&r));
                picked.push((r, vec![r]));
            }
            let picked = crate::order::sorted_by_key(picked, |(r, _)| r.start as u64);
            // When the tool exchanges are not enough (a chat, mostly text), everything before the
            // tail is summarized instead: a history left over the limit helps nobody.
            if after > u64::from(plan.limit) && whole_has_content {
                vec![(whole, vec![whole])]
            } else {
                picked
            }
        }
    };
    if chosen.is_empty() {
        return cannot_compact(plan, options, "only earlier summaries lie before the recent tail");
    }
    let mut pinned = Vec::new();
    for (range, _) in &chosen {
        // Critical messages may fill at most a quarter of the limit.
        let (pins, warnings) = pins::pinned(conv, tokens, *range, options, u64::from(plan.limit) / 4);
        pinned.extend(pins);
        plan.warnings.extend(warnings);
    }
    let unpinned = |r: &Range, pinned: &[usize]| {
        (r.start..r.end).filter(|i| pinned.binary_search(i).is_err()).map(|i| u64::from(tokens[i])).sum::<u64>()
    };
    // A region that its pins leave almost empty is not worth a summary of its own.
    chosen.retain(|(r, _)| options.strategy != Strategy::Regions || unpinned(r, &pinned) >= MIN_RANGE_TOKENS);
    pinned.retain(|p| chosen.iter().any(|(r, _)| (r.start..r.end).contains(p)));
    let summarized = |r: &Range| unpinned(r, &pinned);
    let range_tokens: u64 = chosen.iter().map(|(r, _)| summarized(r)).sum();
    if range_tokens < MIN_RANGE_TOKENS {
        return cannot_compact(
            plan,
            options,
            &format!("only {range_tokens} tokens could be summarized, too few for a summary to save anything"),
        );
    }
    let mut jobs = Vec::new();
    for (_, parts) in &chosen {
        // A chunk that its pins fill entirely has nothing to summarize.
        for part in parts.iter().filter(|p| summarized(p) > 0) {
            let part_tokens = summarized(part);
            let max_output_tokens = summary_budget(part_tokens) as u32;
            jobs.push(Job {
                id: format!("summary-{}", jobs.len() + 1),
                range: *part,
                prompt: Prompt::default(),
                max_output_tokens,
                quoted: Vec::new(),
            });
        }
    }
    let output: u64 = jobs.iter().map(|j| u64::from(j.max_output_tokens)).sum();
    plan.previous_summary = None;
    for (r, _) in &chosen {
        if let Some(i) = (r.start..r.end).find(|&i| conv.messages[i].is_summary) {
            plan.previous_summary = Some(i);
            break;
        }
    }
    let dropped = dropped_tokens(conv, tokens, plan.dropped);
    plan.estimated_tokens_after = plan.tokens_before.saturating_sub(range_tokens + dropped) + output;
    if options.keep_user_text {
        // The user's messages quoted after each summary (`restore`), at most what the summary holds already.
        let ranges: Vec<Range> = chosen.iter().map(|(r, _)| *r).collect();
        let summarized = summarized_indices(&ranges, &pinned);
        for job in &mut jobs {
            let indices = job.range.select(&summarized);
            let job_tokens: u64 = indices.iter().map(|&i| u64::from(tokens[i])).sum();
            let budget = restore::user_text_budget(u64::from(plan.limit), job_tokens);
            if let Some((section, mut quoted)) =
                restore::user_text_section(conv, &indices, "", &options.profile, budget)
            {
                plan.estimated_tokens_after += options.profile.text(&section).ceil() as u64;
                // An earlier summary's quotes are carried too, but are not the user's messages in the transcript.
                quoted.retain(|&i| conv.messages[i].is_real_user());
                job.quoted = quoted;
            }
        }
    }
    if plan.estimated_tokens_after > u64::from(plan.limit) {
        plan.warnings.push(format!(
            "even with the summary, about {} tokens remain, over the limit of {}: prune tool outputs first or keep fewer recent tokens",
            plan.estimated_tokens_after, plan.limit
        ));
    }
    plan.summarize = chosen.iter().map(|(r, _)| *r).collect();
    plan.pinned = pinned;
    plan.jobs = jobs;
    Ok(())
}

/// The summary's size for `tokens` of messages: about a fifth, as Claude Code aims for; at least 256
/// tokens, at most 8192, and never more than half.
fn summary_budget(tokens: u64) -> u64 {
    (tokens / 5).clamp(256, 8192).min(tokens / 2).max(1)
}

/// Nothing worth summarizing: a plan that says so, or `CANNOT_COMPACT_FURTHER` when earlier summaries
/// may not be summarized again (the host must do something else, such as start a new session).
fn cannot_compact(plan: &mut Plan, options: &Options, why: &str) -> Result<()> {
    if plan.dropped.is_some() {
        plan.warnings.push(format!("after the provider's compaction item nothing is summarized: {why}"));
        return Ok(());
    }
    if !options.resummarize {
        return Err(Error::new(
            Code::CannotCompactFurther,
            "messages",
            format!("{}, but {why}, and earlier summaries are not summarized again (resummarize: false)", plan.detail),
        ));
    }
    plan.reason = "nothing_to_summarize";
    plan.detail = format!("{}, but {why}", plan.detail);
    Ok(())
}

/// Tokens to keep verbatim at the end of the history.
fn tail_budget(options: &Options, total: u64) -> u64 {
    match (options.keep_recent_tokens, options.keep_fraction) {
        (Some(t), _) => u64::from(t),
        (None, Some(f)) => (total as f64 * f) as u64,
        (None, None) => u64::from(options.limit() / 4),
    }
}

/// The fingerprint: `messages`, the hash of the messages the plan was made from
/// (`fingerprint::of_messages`), then a hash of the plan's decisions. `apply_summary` recomputes both:
/// the first tells a changed history (`STALE_PLAN`), the second a plan edited by hand (`INVALID_PLAN`).
fn seal(messages: u64, plan: &Plan) -> String {
    let mut jobs = Vec::with_capacity(plan.jobs.len());
    for j in &plan.jobs {
        jobs.push((j.id.as_str(), j.range));
    }
    format!(
        "{messages:016x}{:016x}",
        decisions_hash(plan.message_count, plan.dropped, &plan.summarize, &plan.pinned, &jobs)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::counting::profiles::O200K;
    use crate::fixtures::{agent_run, chat};
    use serde_json::{json, Value};

    fn plan(msgs: &[Value], options: Value) -> Plan {
        plan_compaction(&Input::items(msgs), &Options::from_json(&options).unwrap()).unwrap()
    }

    #[test]
    fn a_plan_reads_the_same_as_its_json_form() {
        // Long enough for every preset to summarize something (claude-code keeps the last 20 000 tokens).
        let runs = [agent_run(60, 200), chat(60, 80)];
        let mut options =
            vec![json!({ "contextWindow": 8000 }), json!({ "contextWindow": 8000, "model": "gpt-4o-mini" })];
        for preset in crate::options::preset::NAMES {
            options.push(json!({ "contextWindow": 8000, "preset": preset }));
        }
        for msgs in &runs {
            for o in &options {
                let p = plan(msgs, o.clone());
                let from_text = PlanRef::from_json(&crate::json::parse(&crate::json::to_text(&p)).unwrap()).unwrap();
                // All of it but the plan's counts, which only the plan made here carries.
                let made_here = p.to_ref().unwrap();
                assert_eq!(made_here.counted.as_ref(), Some(&p.counted), "{o}");
                assert_eq!(PlanRef { counted: None, ..made_here }, from_text, "{o}");
            }
        }
    }

    #[test]
    fn under_the_limit_nothing_is_needed() {
        let p = plan(&chat(3, 30), json!({}));
        assert!(!p.needed);
        assert_eq!(p.reason, "under_limit");
        assert!(p.jobs.is_empty() && p.summarize.is_empty());
        assert_eq!(p.fingerprint.len(), 32);
    }

    #[test]
    fn a_chat_is_cut_before_a_user_message_within_the_budget() {
        let msgs = chat(40, 300);
        // A roomy summarizer: the whole range is shown (see the_summary_request_fits_the_summarizer_window).
        let p = plan(&msgs, json!({ "contextWindow": 8000, "keepRecentTurns": 0, "summarizerWindow": 128000 }));
        assert!(p.needed);
        assert_eq!(p.reason, "over_limit");
        let job = &p.jobs[0];
        assert_eq!(job.range.start, 1, "the system prompt stays in the head");
        assert_eq!(msgs[job.range.end]["role"], "user");
        let tail: u64 = crate::counting::estimate::estimate(&Input::items(&msgs[job.range.end..]), &Options::default())
            .unwrap()
            .total;
        assert!(tail <= u64::from(p.limit / 4), "tail {tail} within a quarter of the limit {}", p.limit);
        assert!(!job.prompt.system.is_empty() && job.prompt.user.contains("Question 0"));
        assert_eq!(p.keep, vec![Range { start: 0, end: 1 }, Range { start: job.range.end, end: msgs.len() }]);
    }

    #[test]
    fn over_the_hard_threshold_compaction_is_urgent() {
        let msgs = chat(40, 300);
        // About 26 000 tokens: over the soft limit of a 50 000 window (18 750), under its hard one (33 750).
        let soft = plan(&msgs, json!({ "contextWindow": 50000, "threshold": 0.5, "hardThreshold": 0.9 }));
        assert!(soft.needed && !soft.urgent, "{}", soft.detail);
        assert_eq!(soft.hard_limit, Some(33_750));
        let hard = plan(&msgs, json!({ "contextWindow": 20000, "threshold": 0.5, "hardThreshold": 0.9 }));
        assert!(hard.needed && hard.urgent && hard.detail.contains("hard limit"), "{}", hard.detail);
        assert!(!plan(&msgs, json!({ "contextWindow": 8000 })).urgent, "no hard limit unless asked for");
        let e = Options::from_json(&json!({ "threshold": 0.8, "hardThreshold": 0.7 })).unwrap_err();
        assert_eq!(e.path, "options.hardThreshold");
    }

    #[test]
    fn keep_recent_turns_caps_the_tail() {
        let msgs = chat(40, 30);
        let p = plan(&msgs, json!({ "keepRecentTurns": 2, "force": true }));
        assert_eq!(p.reason, "forced");
        assert_eq!(p.jobs[0].range.end, msgs.len() - 4, "the last two turns are kept");
    }

    #[test]
    fn a_user_message_too_close_to_the_end_does_not_shrink_the_tail() {
        let mut msgs = agent_run(60, 200);
        msgs.push(json!({ "role": "user", "content": "thanks" }));
        let p = plan(&msgs, json!({ "contextWindow": 16000 }));
        let cut = p.jobs[0].range.end;
        assert_eq!(msgs[cut]["role"], "assistant");
        assert!(cut < msgs.len() - 3, "recent exchanges are kept, not only the last user message");
    }

    #[test]
    fn an_agent_run_is_cut_between_complete_exchanges() {
        let msgs = agent_run(60, 200);
        let p = plan(&msgs, json!({ "contextWindow": 16000 }));
        let cut = p.jobs[0].range.end;
        assert_eq!(msgs[cut]["role"], "assistant", "the tail starts with a call, never with a result");
        assert_eq!(p.jobs[0].range.start, 1);
        assert!(cut < msgs.len() - 1);
    }

    #[test]
    fn system_messages_inside_the_range_are_pinned() {
        let mut msgs = chat(30, 300);
        msgs.insert(7, json!({ "role": "developer", "content": "From now on answer in French." }));
        let p = plan(&msgs, json!({ "contextWindow": 8000 }));
        assert_eq!(p.pinned, vec![7]);
        assert!(!p.jobs[0].prompt.user.contains("answer in French"), "pinned messages are not summarized");
    }

    #[test]
    fn one_huge_message_leaves_nothing_to_summarize() {
        let msgs = vec![json!({ "role": "user", "content": "word ".repeat(50_000) })];
        let p = plan(&msgs, json!({ "contextWindow": 8000 }));
        assert!(p.needed);
        assert_eq!(p.reason, "nothing_to_summarize");
        assert!(p.jobs.is_empty());
    }

    #[test]
    fn the_summary_request_fits_the_summarizer_window() {
        // About 186 000 tokens: a summary request of all of it fits the 200 000-token window.
        let msgs = agent_run(300, 200);
        let opts = json!({ "contextWindow": 200000, "force": true, "keepRecentTurns": 0, "keepRecentTokens": 2000 });
        let roomy = plan(&msgs, opts.clone());
        assert!(roomy.warnings.is_empty(), "{:?}", roomy.warnings);
        let mut small = opts.clone();
        small["summarizerWindow"] = json!(16000);
        let p = plan(&msgs, small.clone());
        let job = &p.jobs[0];
        assert!(job.max_output_tokens <= 4000);
        let prompt_tokens = O200K.text(&job.prompt.system) + O200K.text(&job.prompt.user);
        assert!(prompt_tokens + f64::from(job.max_output_tokens) <= 16000.0, "{prompt_tokens}");
        assert!(p.warnings.iter().any(|w| w.contains("oldest messages")), "{:?}", p.warnings);
        assert!(job.prompt.user.contains("did not fit and are not shown"));
        let last_shown = (0..job.range.end)
            .rev()
            .find_map(|i| msgs[i]["content"].as_str().filter(|t| t.starts_with("Step")))
            .unwrap();
        assert!(job.prompt.user.contains(last_shown), "the newest part of the range is shown");
        assert!(!job.prompt.user.contains("Step 0:"), "the oldest is left out");
        assert_eq!(
            serde_json::to_string(&p).unwrap(),
            serde_json::to_string(&plan(&msgs, small)).unwrap(),
            "deterministic"
        );
        // A little too big: cutting tool outputs harder is enough.
        let mut medium = opts;
        medium["summarizerWindow"] = json!((O200K.text(&roomy.jobs[0].prompt.user) * 0.8) as u64 + 8000);
        let p = plan(&msgs, medium);
        assert!(p.warnings.iter().any(|w| w.contains("cut harder")), "{:?}", p.warnings);
        assert!(p.jobs[0].prompt.user.contains("Step 0:"));
    }

    #[test]
    fn plans_are_deterministic() {
        let msgs = agent_run(30, 100);
        let o = json!({ "contextWindow": 8000 });
        assert_eq!(
            serde_json::to_string(&plan(&msgs, o.clone())).unwrap(),
            serde_json::to_string(&plan(&msgs, o)).unwrap()
        );
    }
}
